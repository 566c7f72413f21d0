//! `df.write...save(path)`: the query runs as a job whose tasks each write their partition's
//! files into a staging directory; once every task has succeeded the server (the driver)
//! commits the job atomically. See `ember_execution::formats`.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use datafusion::datasource::object_store::ObjectStoreUrl;
use datafusion::logical_expr::{Expr, LogicalPlanBuilder};
use ember_execution::formats::commit::{CommitMode, StagedWrite, recover};
use ember_execution::formats::object_commit::{self, ObjectStagedWrite};
use ember_execution::formats::{FileWrite, WriteFilesExec, WriteFormat};
use ember_planner::datasource::write::{CodecDefaults, write_settings};
use ember_planner::error::ErrorKind;
use ember_planner::spec::{Bucketing, SaveMode, WriteSpec, WriteTarget};
use ember_planner::{ResolvedQuery, SparkError, types};
use futures::StreamExt;
use futures::TryStreamExt;
use object_store::{ObjectStore, ObjectStoreExt};

use crate::error::ServerResult;
use crate::state::RequestContext;

/// The local path a write goes to: `file:` URLs and plain paths, made absolute.
pub fn local_path(path: &str) -> ServerResult<PathBuf> {
    match location(path)? {
        WriteLocation::Local(path) => Ok(path),
        WriteLocation::Object(o) => Err(SparkError::unsupported(format!(
            "tables stored in an object store ({})",
            o.shown()
        ))
        .into()),
    }
}

/// Where a write goes: a local directory, or a prefix in an object store.
#[derive(Debug, Clone)]
pub enum WriteLocation {
    Local(PathBuf),
    Object(ObjectLocation),
}

impl From<PathBuf> for WriteLocation {
    fn from(path: PathBuf) -> Self {
        Self::Local(path)
    }
}

/// A prefix in an object store: `s3a://bucket/` and `dir/name`.
#[derive(Debug, Clone)]
pub struct ObjectLocation {
    pub store_url: ObjectStoreUrl,
    pub path: object_store::path::Path,
}

impl ObjectLocation {
    pub fn shown(&self) -> String {
        format!("{}{}", self.store_url.as_str(), self.path)
    }

    fn store(&self, ctx: &RequestContext) -> ServerResult<Arc<dyn ObjectStore>> {
        Ok(ctx
            .datafusion_context()
            .runtime_env()
            .object_store(&self.store_url)?)
    }

    /// Whether an object is there, or objects under it (a directory).
    async fn exists(&self, store: &dyn ObjectStore) -> ServerResult<bool> {
        if store.head(&self.path).await.is_ok() {
            return Ok(true);
        }
        let first = store.list(Some(&self.path)).next().await;
        match first {
            None => Ok(false),
            Some(Ok(_)) => Ok(true),
            Some(Err(e)) => Err(datafusion::error::DataFusionError::from(e).into()),
        }
    }
}

impl WriteLocation {
    fn shown(&self) -> String {
        match self {
            Self::Local(path) => format!("file:{}", path.display()),
            Self::Object(o) => o.shown(),
        }
    }
}

/// Parse the path of a write: `file:` URLs and plain paths are local (made absolute),
/// `s3://`/`s3a://` URLs name objects.
pub fn location(path: &str) -> ServerResult<WriteLocation> {
    ember_planner::datasource::check_allowed(path).map_err(|e| e.into_spark())?;
    if ember_execution::formats::storage::is_object_store_path(path) {
        let url = url::Url::parse(path).map_err(|e| {
            SparkError::illegal_argument("_LEGACY_ERROR_TEMP_2000", format!("bad path {path}: {e}"))
        })?;
        let store_url = ObjectStoreUrl::parse(&url[..url::Position::BeforePath])?;
        let path = object_store::path::Path::from_url_path(url.path()).map_err(|e| {
            SparkError::illegal_argument("_LEGACY_ERROR_TEMP_2000", format!("bad path {path}: {e}"))
        })?;
        return Ok(WriteLocation::Object(ObjectLocation { store_url, path }));
    }
    let plain = if let Some(rest) = path.strip_prefix("file://") {
        rest
    } else if let Some(rest) = path.strip_prefix("file:") {
        rest
    } else {
        path
    };
    if plain.is_empty() {
        return Err(SparkError::illegal_argument(
            "_LEGACY_ERROR_TEMP_2000",
            "Can not create a Path from an empty string",
        )
        .into());
    }
    let absolute = std::path::absolute(plain).map_err(|e| {
        SparkError::illegal_argument("_LEGACY_ERROR_TEMP_2000", format!("bad path {path}: {e}"))
    })?;
    // `a/./b/` and `a/b` are the same target.
    Ok(WriteLocation::Local(absolute.components().collect()))
}

pub fn analysis(
    class: &str,
    state: &str,
    message: String,
    params: Vec<(&str, String)>,
) -> SparkError {
    SparkError::new(ErrorKind::Analysis, class, state, message, params)
}

/// The column holding each row's bucket in a bucketed write.
const BUCKET_COLUMN: &str = "__bucket";

/// A query's rows written as files of one format under a directory.
pub struct FileWriteSpec {
    pub target: WriteLocation,
    pub format: String,
    pub options: HashMap<String, String>,
    pub partition_by: Vec<String>,
    /// The table's bucketing (its columns checked by the caller).
    pub bucketing: Option<Bucketing>,
    /// Replace what the directory holds (else add to it).
    pub overwrite: bool,
    /// Replace only the partition directories written (when there are partition columns).
    pub dynamic_overwrite: bool,
}

/// The data source a write uses when none is given (`spark.sql.sources.default`).
pub fn format_or_default(ctx: &RequestContext, format: Option<&str>) -> String {
    format
        .map(str::to_string)
        .or_else(|| ctx.session.conf.get("spark.sql.sources.default"))
        .unwrap_or_else(|| "parquet".into())
        .to_ascii_lowercase()
}

pub async fn execute_write(ctx: &RequestContext, spec: WriteSpec) -> ServerResult<()> {
    let format = format_or_default(ctx, spec.format.as_deref());
    if matches!(spec.target, WriteTarget::Path(_))
        && let Some(source) = super::python_source::registered(ctx, &format)
    {
        let name = spec.format.clone().unwrap_or(format);
        return super::python_source::write(ctx, spec, &name, source).await;
    }
    let path = match &spec.target {
        WriteTarget::Path(p) if p.is_empty() => {
            return Err(ember_planner::PlanError::Unsupported(format!(
                "writing to {format} without a path or table"
            ))
            .into());
        }
        WriteTarget::Path(p) => p.clone(),
        WriteTarget::Table { .. } => return super::catalog::write_table(ctx, spec).await,
    };
    if format == "delta" {
        return super::delta::save(ctx, spec, &path).await;
    }
    if format == "iceberg" {
        let target = ember_execution::formats::iceberg::Target::Path(path.to_string());
        return super::iceberg::save(ctx, spec, &target).await;
    }
    // Bad formats and options fail before anything is looked at.
    write_settings(&format, &spec.options, &CodecDefaults::default())?;
    let target = location(&path)?;
    let exists = match &target {
        WriteLocation::Local(path) => {
            recover(path)?;
            path.exists()
        }
        WriteLocation::Object(o) => {
            let store = o.store(ctx)?;
            object_commit::recover(store.as_ref(), &o.path).await?;
            o.exists(store.as_ref()).await?
        }
    };
    if exists {
        match spec.mode {
            SaveMode::ErrorIfExists => {
                let shown = target.shown();
                return Err(analysis(
                    "PATH_ALREADY_EXISTS",
                    "42K04",
                    format!("Path {shown} already exists. Set mode as \"overwrite\" to overwrite the existing path."),
                    vec![("outputPath", shown.clone())],
                )
                .into());
            }
            SaveMode::Ignore => return Ok(()),
            SaveMode::Append | SaveMode::Overwrite => {}
        }
    }
    let query = ctx.resolve(&spec.input)?;
    write_files(
        ctx,
        query,
        FileWriteSpec {
            target,
            format,
            options: spec.options,
            partition_by: spec.partition_by,
            bucketing: None,
            overwrite: spec.mode == SaveMode::Overwrite,
            dynamic_overwrite: super::catalog::dynamic_partition_overwrite(ctx),
        },
    )
    .await?;
    Ok(())
}

/// A write's staging area, by where its target is.
enum Staged {
    Local(StagedWrite),
    Object(ObjectStagedWrite),
}

/// Run `query` as a job whose tasks write files into a staging directory, then commit them
/// into `spec.target`. Returns the number of rows written.
pub async fn write_files(
    ctx: &RequestContext,
    query: ResolvedQuery,
    spec: FileWriteSpec,
) -> ServerResult<u64> {
    if spec.format == "delta" {
        return super::delta::write(ctx, query, spec).await;
    }
    // (A table of a Python data source: its writer gets none of the table's options.)
    if let Some(source) = super::python_source::registered(ctx, &spec.format) {
        super::python_source::write_query(ctx, query, source, HashMap::new(), spec.overwrite)
            .await?;
        return Ok(0);
    }
    let codecs = CodecDefaults::from_conf(|key| ctx.session.conf.get(key));
    let settings = write_settings(&spec.format, &spec.options, &codecs)?;
    let target = spec.target;
    // The query's columns under their Spark names, partition columns last.
    let case_sensitive = ctx.planner_config().case_sensitive;
    let same = |a: &str, b: &str| {
        if case_sensitive {
            a == b
        } else {
            a.eq_ignore_ascii_case(b)
        }
    };
    for (i, name) in query.names.iter().enumerate() {
        if query.names[..i].iter().any(|n| same(n, name)) {
            return Err(SparkError::column_already_exists(name).into());
        }
    }
    let schema = query.plan.schema().clone();
    let mut partition_indices = Vec::with_capacity(spec.partition_by.len());
    for p in &spec.partition_by {
        let Some(i) = query.names.iter().position(|n| same(n, p)) else {
            let fields: Vec<String> = query
                .names
                .iter()
                .zip(schema.fields())
                .map(|(n, f)| format!("{n}:{}", types::simple_string(f.data_type())))
                .collect();
            let shown = format!("struct<{}>", fields.join(","));
            return Err(analysis(
                "_LEGACY_ERROR_TEMP_1155",
                "",
                format!("Partition column `{p}` not found in schema {shown}."),
                vec![("col", p.clone()), ("schemaCatalog", shown)],
            )
            .into());
        };
        if !partition_indices.contains(&i) {
            partition_indices.push(i);
        }
    }
    if !partition_indices.is_empty() && partition_indices.len() == query.names.len() {
        return Err(SparkError::all_partition_columns().into());
    }
    let order: Vec<usize> = (0..query.names.len())
        .filter(|i| !partition_indices.contains(i))
        .chain(partition_indices.iter().copied())
        .collect();
    if settings.format == WriteFormat::Text {
        for &i in order
            .iter()
            .take(query.names.len() - partition_indices.len())
        {
            let t = schema.field(i).data_type();
            let is_string = matches!(
                t,
                arrow::datatypes::DataType::Utf8
                    | arrow::datatypes::DataType::LargeUtf8
                    | arrow::datatypes::DataType::Utf8View
            );
            if !is_string || order.len() - partition_indices.len() != 1 {
                let name = &query.names[i];
                let type_name = types::sql_name(t);
                return Err(analysis(
                    "UNSUPPORTED_DATA_TYPE_FOR_DATASOURCE",
                    "0A000",
                    format!("The Text datasource doesn't support the column `{name}` of the type \"{type_name}\"."),
                    vec![("format", "Text".into()), ("columnName", format!("`{name}`")), ("columnType", format!("\"{type_name}\""))],
                )
                .into());
            }
        }
    }
    // A column of the query by its Spark name (as written, or as projected below).
    let position = |name: &str| {
        query
            .names
            .iter()
            .position(|n| same(n, name))
            .ok_or_else(|| SparkError::invalid_plan(format!("no column {name} to bucket by")))
    };
    let mut columns: Vec<_> = order
        .iter()
        .map(|&i| Expr::Column(schema.columns()[i].clone()).alias(&query.names[i]))
        .collect();
    let mut sort = vec![];
    if let Some(b) = &spec.bucketing {
        let keys = b
            .columns
            .iter()
            .map(|c| Ok(Expr::Column(schema.columns()[position(c)?].clone())))
            .collect::<Result<Vec<_>, SparkError>>()?;
        columns.push(ember_planner::functions::bucket_id(keys, b.num_buckets).alias(BUCKET_COLUMN));
        // Spark sorts a bucketed write by partition, bucket and sort columns (the projected
        // ones: each row's bucket is computed once).
        if !b.sort_columns.is_empty() {
            let projected = |name: &str| {
                Expr::Column(datafusion::common::Column::new_unqualified(name)).sort(true, true)
            };
            for &i in &partition_indices {
                sort.push(projected(&query.names[i]));
            }
            sort.push(projected(BUCKET_COLUMN));
            for c in &b.sort_columns {
                sort.push(projected(&query.names[position(c)?]));
            }
        }
    }
    let mut plan = LogicalPlanBuilder::from(query.plan).project(columns)?;
    if !sort.is_empty() {
        plan = plan.sort(sort)?;
    }
    let plan = plan.build()?;
    let df = ctx.datafusion_context();
    let physical = df.state().create_physical_plan(&plan).await?;
    let physical = ember_execution::formats::without_parallelism_repartitions(physical)?;

    let staged = match &target {
        WriteLocation::Local(path) => Staged::Local(StagedWrite::create(path)?),
        WriteLocation::Object(o) => Staged::Object(
            ObjectStagedWrite::create(o.store(ctx)?, o.store_url.as_str(), o.path.clone()).await?,
        ),
    };
    let write = FileWrite {
        format: settings.format,
        options: settings.options,
        staging: match &staged {
            Staged::Local(s) => s.staging_url(),
            Staged::Object(s) => s.staging_url(),
        },
        partition_columns: partition_indices.len(),
        bucketed: spec.bucketing.is_some(),
        extension: settings.extension,
    };
    let exec = Arc::new(WriteFilesExec::try_new(physical, write)?);
    // Dropping `staged` (on failure or cancellation) removes the staging directory.
    let context = super::progress::attach(df.task_ctx());
    let stream = ctx.state.runner.execute(exec, context).await?;
    let batches: Vec<_> = stream.try_collect().await?;
    let rows: u64 = batches
        .iter()
        .filter_map(|b| {
            b.column(0)
                .as_any()
                .downcast_ref::<arrow::array::UInt64Array>()
        })
        .map(|a| a.values().iter().sum::<u64>())
        .sum();
    let mode = match (spec.overwrite, spec.dynamic_overwrite) {
        (false, _) => CommitMode::Append,
        (true, true) if !partition_indices.is_empty() => CommitMode::OverwritePartitions,
        (true, _) => CommitMode::Overwrite,
    };
    match staged {
        Staged::Local(s) => s.commit(mode)?,
        Staged::Object(s) => s.commit(mode).await?,
    }
    tracing::debug!(target = %target.shown(), rows, "write committed");
    Ok(rows)
}
