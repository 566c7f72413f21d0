//! Delta Lake tables (`format("delta")`, ``delta.`/path` ``, catalog tables `USING delta`): the
//! table format, whole, as the other formats of this folder are. A table is a local directory
//! or a prefix of an S3-compatible bucket ([`DeltaLocation`]).
//!
//! deltalake-core reads the table's log (`_delta_log/`) into a snapshot, at a version or a
//! timestamp for time travel; the snapshot's data files are then scanned by DataFusion's own
//! parquet scan ([`DeltaFiles`], `scan.rs`), with each file's partition values as strings
//! that the reader casts to the columns' types. The plan is an ordinary parquet
//! `DataSourceExec`, so it ships to cluster workers like any parquet read. Writes (`write.rs`)
//! align a query's columns with the table's schema under Delta's rules and commit through
//! deltalake's write; DELETE, UPDATE, MERGE (`merge.rs`) and DESCRIBE HISTORY (`history.rs`)
//! are deltalake's operations. Errors are Delta's classes (`DELTA_*`, from delta-spark's
//! `delta-error-classes.json`). The planner chooses this format and the server runs the
//! queries whose rows are written; nothing here resolves a query.

use std::sync::Arc;

use arrow::datatypes::{DataType, Field, Schema, TimeUnit};
use datafusion::catalog::TableProvider;
use datafusion::common::ScalarValue;
use datafusion::datasource::object_store::ObjectStoreUrl;
pub use deltalake_core;
use deltalake_core::{DeltaTable, DeltaTableBuilder, DeltaTableError};

mod cache;
mod crash_store;
mod history;
mod merge;
mod scan;
mod write;

pub use history::history;
pub use merge::{MergeAction, MergeClause, MergeCounts, MergeWhen, merge};
pub use scan::DeltaFiles;
pub use write::{
    Alignment, WriteOptions, align, commit, create_empty, delete, partitions_predicate,
    stored_type, update, write_error,
};

use super::{Options, local_part, option};
use crate::sandbox;
use crate::spark_error::{SparkError, SparkResult};

/// Which version of a table a read sees (`versionAsOf`, `timestampAsOf`, `VERSION AS OF`,
/// `TIMESTAMP AS OF`).
#[derive(Debug, Clone, PartialEq)]
pub enum TimeTravel {
    Version(i64),
    /// A timestamp as the user wrote it (read in the session's time zone).
    Timestamp(String),
}

fn invalid(text: impl Into<String>) -> SparkError {
    SparkError::invalid_plan(text)
}

/// The time travel a read's options ask for.
pub fn time_travel(options: &Options) -> SparkResult<Option<TimeTravel>> {
    let version = option(options, "versionAsOf");
    let timestamp = option(options, "timestampAsOf");
    match (version, timestamp) {
        (Some(_), Some(_)) => Err(SparkError::analysis(
            "DELTA_UNSUPPORTED_TIME_TRAVEL_MULTIPLE_FORMATS",
            "42613",
            "Cannot specify time travel in multiple formats.",
        )),
        (Some(v), None) => match v.trim().parse::<i64>() {
            Ok(v) => Ok(Some(TimeTravel::Version(v))),
            Err(_) => Err(SparkError::analysis(
                "DELTA_TIME_TRAVEL_INVALID_BEGIN_VALUE",
                "42604",
                "versionAsOf needs to be a valid begin value.",
            )),
        },
        (None, Some(t)) => Ok(Some(TimeTravel::Timestamp(t.to_string()))),
        (None, None) => Ok(None),
    }
}

/// Where a Delta table is: its URL (`file:///dir/t/`, or `s3a://bucket/dir/t/` under the
/// scheme the user wrote), and for an object store the bucket's store, made from the
/// session's settings (`spark.hadoop.fs.s3a.*`) as for every other read and write of it.
#[derive(Clone, Debug)]
pub struct DeltaLocation {
    pub url: url::Url,
    store: Option<Arc<dyn object_store::ObjectStore>>,
}

impl std::fmt::Display for DeltaLocation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&shown(&self.url))
    }
}

impl DeltaLocation {
    /// The table at `path` (checked against the allowed paths): a local directory (plain or
    /// `file:`, made absolute), or a prefix of a bucket whose store `runtime` gives.
    pub fn new(
        path: &str,
        runtime: &datafusion::execution::runtime_env::RuntimeEnv,
    ) -> SparkResult<Self> {
        sandbox::check(path)?;
        if super::storage::is_object_store_path(path) {
            let mut url = url::Url::parse(path)
                .map_err(|e| invalid(format!("bad Delta table path {path}: {e}")))?;
            if !url.path().ends_with('/') {
                url.set_path(&format!("{}/", url.path()));
            }
            let store_url = ObjectStoreUrl::parse(&url[..url::Position::BeforePath])?;
            let store = runtime.object_store(&store_url)?;
            register_object_store_log_stores(url.scheme());
            return Ok(Self {
                url,
                store: Some(store),
            });
        }
        let local = local_part(path)?;
        let absolute = std::path::absolute(local).map_err(|e| invalid(e.to_string()))?;
        let absolute: std::path::PathBuf = absolute.components().collect();
        let url = url::Url::from_directory_path(&absolute)
            .map_err(|_| invalid(format!("bad Delta table path {path}")))?;
        Ok(Self { url, store: None })
    }

    /// deltalake's builder of the table (on the bucket's store for an object store).
    fn builder(&self) -> SparkResult<DeltaTableBuilder> {
        let builder =
            DeltaTableBuilder::from_url(self.url.clone()).map_err(|e| delta_error(&self.url, e))?;
        Ok(match &self.store {
            Some(store) => builder.with_storage_backend(store.clone(), self.url.clone()),
            // (Tests of the crash guarantee: a crash point inside the commit.)
            None if crash_store::armed() => builder.with_storage_backend(
                Arc::new(crash_store::CrashBeforeLog(Arc::new(
                    object_store::local::LocalFileSystem::new(),
                ))),
                self.url.clone(),
            ),
            None => builder,
        })
    }

    /// The store the table's files are read from, and the table's root in it.
    pub fn files(&self) -> SparkResult<(ObjectStoreUrl, object_store::path::Path)> {
        match &self.store {
            Some(_) => Ok((
                ObjectStoreUrl::parse(&self.url[..url::Position::BeforePath])?,
                object_store::path::Path::from_url_path(self.url.path())
                    .map_err(|e| invalid(format!("bad Delta table path {}: {e}", self.url)))?,
            )),
            None => {
                let root = self
                    .url
                    .to_file_path()
                    .map_err(|_| invalid(format!("bad Delta table path {}", self.url)))?;
                Ok((
                    ObjectStoreUrl::local_filesystem(),
                    object_store::path::Path::from_absolute_path(&root)
                        .map_err(|e| invalid(format!("bad Delta table path: {e}")))?,
                ))
            }
        }
    }

    /// Whether the table's location holds anything (a directory, or objects under the
    /// prefix); a bucket that cannot be listed is that error.
    async fn exists(&self) -> SparkResult<bool> {
        use futures::StreamExt;
        match (&self.store, self.files()) {
            (Some(store), Ok((_, root))) => match store.list(Some(&root)).next().await {
                None => Ok(false),
                Some(Ok(_)) => Ok(true),
                Some(Err(e)) => Err(invalid(format!("cannot list {self}: {e}"))),
            },
            _ => Ok(self.url.to_file_path().is_ok_and(|p| p.exists())),
        }
    }
}

/// deltalake's log store for tables in S3 buckets: its default one, whose commits are
/// conditional puts (`If-None-Match: *`, which S3 and S3-compatible stores honour), so two
/// writers of one version cannot both win. Registered once per scheme.
fn register_object_store_log_stores(scheme: &str) {
    let factories = deltalake_core::logstore::logstore_factories();
    if let Ok(key) = url::Url::parse(&format!("{scheme}://"))
        && !factories.contains_key(&key)
    {
        factories.insert(key, Arc::new(ConditionalPutLogStores));
    }
}

struct ConditionalPutLogStores;

impl deltalake_core::logstore::LogStoreFactory for ConditionalPutLogStores {
    fn with_options(
        &self,
        prefixed_store: deltalake_core::logstore::ObjectStoreRef,
        root_store: deltalake_core::logstore::ObjectStoreRef,
        location: &url::Url,
        options: &deltalake_core::logstore::StorageConfig,
    ) -> deltalake_core::DeltaResult<Arc<dyn deltalake_core::logstore::LogStore>> {
        Ok(deltalake_core::logstore::default_logstore(
            prefixed_store,
            root_store,
            location,
            options,
        ))
    }
}

/// The path a table URL names, as Spark shows it (`file:/dir/t`, `s3a://bucket/dir/t`).
pub fn shown(url: &url::Url) -> String {
    match url.to_file_path() {
        Ok(p) => format!("file:{}", p.display()),
        Err(_) => url.as_str().trim_end_matches('/').to_string(),
    }
}

/// The table shown as `location` is no Delta table (`exists`: there are files, but no log).
pub fn not_a_delta_table(location: &str, exists: bool) -> SparkError {
    if exists {
        SparkError::analysis(
            "DELTA_MISSING_DELTA_TABLE",
            "42P01",
            format!("`{location}` is not a Delta table."),
        )
    } else {
        SparkError::analysis(
            "DELTA_PATH_DOES_NOT_EXIST",
            "42K03",
            format!("{location} doesn't exist, or is not a Delta table."),
        )
    }
}

/// A deltalake error as Ember's.
pub fn delta_error(url: &url::Url, e: DeltaTableError) -> SparkError {
    match e {
        DeltaTableError::NotATable(_) => {
            not_a_delta_table(&shown(url), url.to_file_path().is_ok_and(|p| p.exists()))
        }
        DeltaTableError::InvalidVersion(v) => {
            version_not_found(i64::try_from(v).unwrap_or(i64::MAX), None)
        }
        other => invalid(format!("Delta table {}: {other}", shown(url))),
    }
}

fn version_not_found(version: i64, latest: Option<i64>) -> SparkError {
    let latest = latest.map_or("?".to_string(), |l| l.to_string());
    SparkError::analysis(
        "DELTA_VERSION_NOT_FOUND",
        "22003",
        format!(
            "Cannot time travel Delta table to version {version}. Available versions: [0, {latest}]."
        ),
    )
}

/// Whether a Delta log is at the table's location.
pub async fn is_delta_table(location: &DeltaLocation) -> bool {
    use futures::StreamExt;
    match (&location.store, location.files()) {
        (Some(store), Ok((_, root))) => store
            .list(Some(&root.clone().join("_delta_log")))
            .next()
            .await
            .is_some_and(|o| o.is_ok()),
        _ => match location.url.to_file_path() {
            Ok(p) => p.join("_delta_log").is_dir(),
            Err(_) => false,
        },
    }
}

/// The table at `url`, at its latest version or the one `at` asks for.
pub async fn open(
    url: &DeltaLocation,
    at: Option<&TimeTravel>,
    time_zone: &str,
) -> SparkResult<DeltaTable> {
    if !is_delta_table(url).await {
        return Err(not_a_delta_table(&url.to_string(), url.exists().await?));
    }
    let location = url;
    let url = &location.url;
    // The latest version of a local table: the kept snapshot while it is still the latest.
    let local = match (&location.store, at) {
        (None, None) if !crash_store::armed() => url.to_file_path().ok(),
        _ => None,
    };
    let before = local.as_deref().and_then(cache::stamp);
    if let (Some(root), Some(now)) = (&local, &before)
        && let Some(table) = cache::lookup(root, now)
    {
        return Ok(table);
    }
    let builder = location.builder()?;
    let mut table = builder.load().await.map_err(|e| delta_error(url, e))?;
    if let (Some(root), Some(before)) = (&local, before) {
        cache::keep(root, before, &table);
    }
    match at {
        None => {}
        Some(TimeTravel::Version(v)) => {
            let latest = table
                .version()
                .and_then(|v| i64::try_from(v).ok())
                .unwrap_or(-1);
            let wanted = u64::try_from(*v).ok().filter(|_| *v <= latest);
            let Some(wanted) = wanted else {
                return Err(version_not_found(*v, Some(latest)));
            };
            if *v != latest {
                table
                    .load_version(wanted)
                    .await
                    .map_err(|e| delta_error(url, e))?;
            }
        }
        Some(TimeTravel::Timestamp(text)) => {
            let wanted = parse_timestamp(text, time_zone)?;
            let commits = commit_times(&table).await?;
            let first = commits.iter().map(|c| c.1).min();
            let last = commits.iter().map(|c| c.1).max();
            if let Some(last) = last
                && wanted > last
            {
                let fmt = |t: chrono::DateTime<chrono::Utc>| {
                    t.format("%Y-%m-%d %H:%M:%S%.3f").to_string()
                };
                return Err(SparkError::analysis(
                    "DELTA_TIMESTAMP_GREATER_THAN_COMMIT",
                    "42816",
                    format!(
                        "The provided timestamp ({}) is after the latest version available to this table ({}). Please use a timestamp before or at {}.",
                        fmt(wanted),
                        fmt(last),
                        fmt(last)
                    ),
                ));
            }
            if let Some(first) = first
                && wanted < first
            {
                return Err(SparkError::analysis(
                    "DELTA_TIMESTAMP_EARLIER_THAN_COMMIT_RETENTION",
                    "42816",
                    format!(
                        "The provided timestamp ({text}) is before the earliest version available to this table ({first}). Please use a timestamp after {first}."
                    ),
                ));
            }
            // The newest commit at or before the time (the commit times DESCRIBE HISTORY shows).
            if let Some((version, _)) = commits.iter().find(|c| c.1 <= wanted)
                && Some(*version) != table.version()
            {
                table
                    .load_version(*version)
                    .await
                    .map_err(|e| delta_error(url, e))?;
            }
        }
    }
    Ok(table)
}

/// The commit times of a table's commits (newest first), by version.
async fn commit_times(
    table: &DeltaTable,
) -> SparkResult<Vec<(u64, chrono::DateTime<chrono::Utc>)>> {
    use futures::TryStreamExt;
    let url = table.table_url().clone();
    let latest = table.version().unwrap_or(0);
    let commits: Vec<_> = table
        .history(None)
        .try_collect()
        .await
        .map_err(|e| delta_error(&url, e))?;
    // Newest first, one commit per version.
    Ok(commits
        .iter()
        .enumerate()
        .filter_map(|(i, c)| {
            let time = c
                .timestamp
                .and_then(chrono::DateTime::from_timestamp_millis)?;
            Some((latest.checked_sub(i as u64)?, time))
        })
        .collect())
}

/// A `timestampAsOf` value: a timestamp or date string in the session's time zone (or with
/// its own offset).
pub fn parse_timestamp(text: &str, time_zone: &str) -> SparkResult<chrono::DateTime<chrono::Utc>> {
    use chrono::TimeZone;
    let t = text.trim();
    if let Ok(t) = chrono::DateTime::parse_from_rfc3339(t) {
        return Ok(t.with_timezone(&chrono::Utc));
    }
    let naive = [
        "%Y-%m-%d %H:%M:%S%.f",
        "%Y-%m-%dT%H:%M:%S%.f",
        "%Y-%m-%d %H:%M",
    ]
    .iter()
    .find_map(|f| chrono::NaiveDateTime::parse_from_str(t, f).ok())
    .or_else(|| {
        chrono::NaiveDate::parse_from_str(t, "%Y-%m-%d")
            .ok()
            .and_then(|d| d.and_hms_opt(0, 0, 0))
    });
    let Some(naive) = naive else {
        return Err(SparkError::analysis(
            "DELTA_TIME_TRAVEL_INVALID_BEGIN_VALUE",
            "42604",
            format!("The provided timestamp ('{text}') cannot be converted to a valid timestamp."),
        ));
    };
    let zone: chrono_tz::Tz = time_zone.parse().unwrap_or(chrono_tz::UTC);
    zone.from_local_datetime(&naive)
        .earliest()
        .map(|t| t.with_timezone(&chrono::Utc))
        .ok_or_else(|| invalid(format!("no such local time: {text}")))
}

/// Spark's view of a Delta column type (the types Ember's batches carry).
pub fn spark_type(t: &DataType) -> DataType {
    match t {
        DataType::Utf8View | DataType::LargeUtf8 => DataType::Utf8,
        DataType::BinaryView | DataType::LargeBinary => DataType::Binary,
        DataType::Timestamp(_, Some(_)) => {
            DataType::Timestamp(TimeUnit::Microsecond, Some(Arc::from("UTC")))
        }
        DataType::Timestamp(_, None) => DataType::Timestamp(TimeUnit::Microsecond, None),
        other => other.clone(),
    }
}

/// The table's schema as Spark shows it and its partition columns.
pub fn table_schema(table: &DeltaTable) -> SparkResult<(Schema, Vec<String>)> {
    let snapshot = table
        .snapshot()
        .map_err(|e| delta_error(table.table_url(), e))?;
    let arrow = snapshot.snapshot().arrow_schema();
    let fields: Vec<Field> = arrow
        .fields()
        .iter()
        .map(|f| Field::new(f.name(), spark_type(f.data_type()), f.is_nullable()))
        .collect();
    let partitions = snapshot.metadata().partition_columns();
    Ok((Schema::new(fields), partitions.to_vec()))
}

/// The rows a deletion vector removes from its data file (positions, sorted).
fn deletion_vector(
    storage: &Arc<dyn delta_kernel::StorageHandler>,
    url: &url::Url,
    dv: deltalake_core::kernel::DeletionVectorDescriptor,
) -> SparkResult<Vec<i64>> {
    let kernel: delta_kernel::actions::deletion_vector::DeletionVectorDescriptor = dv
        .try_into()
        .map_err(|e| invalid(format!("bad Delta deletion vector: {e}")))?;
    // A vector in a file (beside the data, or at an absolute path) is read only where the
    // session may read (`--allowed-paths`).
    if let Ok(Some(file)) = kernel.absolute_path(url) {
        match file.to_file_path() {
            Ok(local) => crate::sandbox::check(&local.display().to_string())?,
            Err(_) => crate::sandbox::check(file.as_str())?,
        }
    }
    let rows = kernel
        .read(storage.clone(), url)
        .map_err(|e| invalid(format!("cannot read a Delta deletion vector of {url}: {e}")))?;
    Ok(rows.into_iter().map(|r| r as i64).collect())
}

/// The data files' names of the table's columns when the table maps columns
/// (`delta.columnMapping.mode` `name` or `id`: the files and the log name each column by its
/// `delta.columnMapping.physicalName`, so a renamed column keeps its data); empty when it
/// does not. Columns holding structs are refused: their fields' names differ in the files
/// too.
fn physical_names(
    snapshot: &deltalake_core::table::state::DeltaTableState,
    schema: &Schema,
) -> SparkResult<std::collections::HashMap<String, String>> {
    use delta_kernel::schema::{ColumnMetadataKey, MetadataValue};
    let mapping = snapshot.table_config().column_mapping_mode;
    if mapping.is_none_or(|m| format!("{m:?}") == "None") {
        return Ok(Default::default());
    }
    let kernel = snapshot.snapshot().schema();
    let mut out = std::collections::HashMap::new();
    for field in kernel.fields() {
        let nested = schema
            .field_with_name(field.name())
            .is_ok_and(|f| has_struct(f.data_type()));
        if nested {
            return Err(SparkError::unsupported(
                "nested columns of Delta tables with column mapping",
            ));
        }
        if let Some(MetadataValue::String(name)) =
            field.get_config_value(&ColumnMetadataKey::ColumnMappingPhysicalName)
        {
            out.insert(field.name().clone(), name.clone());
        }
    }
    Ok(out)
}

/// Whether a type holds a struct (whose fields a mapped table names physically too).
fn has_struct(t: &DataType) -> bool {
    match t {
        DataType::Struct(_) => true,
        DataType::List(f) | DataType::LargeList(f) | DataType::FixedSizeList(f, _) => {
            has_struct(f.data_type())
        }
        // (A map's entries are a struct of `key` and `value`, names no mapping changes.)
        DataType::Map(entries, _) => match entries.data_type() {
            DataType::Struct(kv) => kv.iter().any(|f| has_struct(f.data_type())),
            _ => false,
        },
        _ => false,
    }
}

/// What scans a loaded table's snapshot: the provider, and the partition columns with their
/// types (the provider reads them as strings).
pub struct DeltaScan {
    pub provider: Arc<dyn TableProvider>,
    pub partitions: Vec<(String, DataType)>,
}

/// The scan of a loaded table's snapshot.
pub fn scan_table(
    state: &datafusion::execution::SessionState,
    location: &DeltaLocation,
    table: &DeltaTable,
) -> SparkResult<DeltaScan> {
    let url = table.table_url().clone();
    let snapshot = table.snapshot().map_err(|e| delta_error(&url, e))?;
    let (schema, partition_names) = table_schema(table)?;
    let physical = physical_names(snapshot, &schema)?;
    let (store_url, root) = location.files()?;
    let mut files = vec![];
    let mut stats = vec![];
    let mut deleted = vec![];
    // (The log store's storage, made once, reads the vectors of every file.)
    let mut storage = None;
    for file in snapshot.snapshot().log_data().iter() {
        deleted.push(match file.deletion_vector_descriptor() {
            Some(_) if !physical.is_empty() => {
                return Err(SparkError::unsupported(
                    "Delta deletion vectors in tables with column mapping",
                ));
            }
            Some(dv) => {
                let storage = storage.get_or_insert_with(|| {
                    use deltalake_core::logstore::LogStore;
                    table.log_store().engine(None).storage_handler()
                });
                Some(deletion_vector(storage, &url, dv)?)
            }
            None => None,
        });
        let relative = file.path().to_string();
        if relative.contains("://") {
            return Err(SparkError::unsupported(
                "Delta data files outside the table's directory",
            ));
        }
        let location = match location.url.to_file_path() {
            Ok(dir) => object_store::path::Path::from_absolute_path(dir.join(&relative))
                .map_err(|e| invalid(format!("bad Delta data file path: {e}")))?,
            // The object's key is the path as the log holds it (partition directories
            // already escaped, `p=x%25y`), not to be escaped again.
            Err(_) => object_store::path::Path::parse(format!("{root}/{relative}"))
                .map_err(|e| invalid(format!("bad Delta data file path {relative}: {e}")))?,
        };
        let values = file.partition_values_map();
        let partition_values = partition_names
            .iter()
            .map(|p| {
                let key = physical.get(p).unwrap_or(p);
                ScalarValue::Utf8(values.get(key).cloned().flatten())
            })
            .collect();
        let size = u64::try_from(file.size()).unwrap_or(0);
        stats.push(file.stats());
        files.push(
            super::listing::partitioned_file(location, size)
                .with_partition_values(partition_values),
        );
    }
    let provider = DeltaFiles::new(
        state,
        store_url,
        &schema,
        &partition_names,
        physical,
        scan::LogFiles {
            files,
            stats,
            deleted,
        },
    );
    let partitions = partition_names
        .iter()
        .filter_map(|p| {
            schema
                .field_with_name(p)
                .ok()
                .map(|f| (p.clone(), f.data_type().clone()))
        })
        .collect();
    Ok(DeltaScan {
        provider: Arc::new(provider),
        partitions,
    })
}
