//! `spark.read`: files as DataFusion listing tables (parquet, csv, json), with Spark's
//! defaults and errors. Schema inference reads files, so it runs on the I/O of the session.

use std::sync::Arc;

use arrow::datatypes::{DataType, Field, Schema, SchemaRef, TimeUnit};
use datafusion::catalog::TableProvider;
use datafusion::datasource::empty::EmptyTable;
use datafusion::datasource::file_format::FileFormat;
use datafusion::datasource::file_format::file_compression_type::FileCompressionType;
use datafusion::datasource::file_format::parquet::ParquetFormat;
use datafusion::datasource::listing::{
    ListingOptions, ListingTable, ListingTableConfig, ListingTableUrl,
};
use datafusion::execution::SessionState;

pub mod csv;
mod csv_options;
pub mod delta;
mod delta_scan;
pub mod discover;
pub mod iceberg;
mod iceberg_avro;
mod iceberg_catalog;
mod iceberg_meta;
mod iceberg_scan;
pub mod iceberg_write;
pub(crate) mod infer;
pub(crate) use csv_options::csv_options;
pub mod json;
mod json_text;
pub mod orc;
mod parsed;
pub mod range;
pub use parsed::ParsedColumn;
pub mod source;
pub mod text;
pub(crate) mod whole;
pub mod write;
pub mod xml;
mod xml_record;
mod xml_values;

use crate::error::{ErrorKind, PlanError, PlanResult, SparkError};
use crate::spec::DataSource;
use crate::types;

/// Run an async step of planning (listing files, reading footers) from synchronous code on
/// a multi-threaded Tokio runtime.
pub fn block_on<F: std::future::Future>(f: F) -> PlanResult<F::Output> {
    match tokio::runtime::Handle::try_current() {
        Ok(handle) if handle.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread => {
            Ok(tokio::task::block_in_place(|| handle.block_on(f)))
        }
        Ok(_) => Err(PlanError::InvalidPlan(
            "file sources need a multi-threaded runtime".into(),
        )),
        Err(_) => {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .map_err(|e| PlanError::InvalidPlan(format!("cannot start a runtime: {e}")))?;
            Ok(rt.block_on(f))
        }
    }
}

pub(crate) fn option<'a>(ds: &'a DataSource, key: &str) -> Option<&'a str> {
    ds.options
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(key))
        .map(|(_, v)| v.as_str())
}

pub(crate) fn flag(ds: &DataSource, key: &str, default: bool) -> bool {
    option(ds, key)
        .map(|v| v.eq_ignore_ascii_case("true"))
        .unwrap_or(default)
}

fn unable_to_infer(format_name: &str) -> PlanError {
    SparkError::analysis(
        "UNABLE_TO_INFER_SCHEMA",
        "42KD9",
        format!(
            "Unable to infer schema for {}. It must be specified manually.",
            format_name.to_uppercase()
        ),
    )
    .into()
}

/// A read or write outside `ember server --allowed-paths` (Spark's class for a denied
/// permission).
pub fn path_not_allowed(path: &str) -> PlanError {
    SparkError::new(
        ErrorKind::Analysis,
        "INSUFFICIENT_PERMISSIONS",
        "42501",
        ember_execution::sandbox::refusal(path),
        vec![("report", ember_execution::sandbox::refusal(path))],
    )
    .into()
}

/// Refuse `path` when it is outside `--allowed-paths`.
pub fn check_allowed(path: &str) -> PlanResult<()> {
    if ember_execution::sandbox::allowed(path) {
        Ok(())
    } else {
        Err(path_not_allowed(path))
    }
}

pub fn path_not_found(path: &str) -> PlanError {
    SparkError::new(
        ErrorKind::Analysis,
        "PATH_NOT_FOUND",
        "42K03",
        format!("Path does not exist: {path}."),
        vec![("path", path.to_string())],
    )
    .into()
}

/// What a `spark.read...load(paths)` scans: a listing table whose trailing columns are the
/// partition columns, as strings; the reader turns those into `partitions`' Spark types
/// (`__HIVE_DEFAULT_PARTITION__` is NULL).
pub struct FileRead {
    pub provider: Arc<dyn TableProvider>,
    pub partitions: Vec<(String, DataType)>,
    /// Columns read as strings and parsed with a pattern (`dateFormat`, `timestampFormat`)
    /// or converted to their type.
    pub parse: Vec<ParsedColumn>,
    /// Rows with a value of `parse` that does not convert are skipped (`DROPMALFORMED`).
    pub drop_malformed: bool,
}

/// How a CSV read treats values that do not fit their column's type (`mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum MalformedMode {
    /// NULL for the value.
    Permissive,
    /// The row is skipped.
    DropMalformed,
    /// The read fails.
    FailFast,
}

/// The `mode` of a read; Spark takes an unknown mode for PERMISSIVE.
pub(crate) fn malformed_mode(ds: &DataSource) -> MalformedMode {
    match option(ds, "mode").map(str::to_ascii_uppercase).as_deref() {
        Some("DROPMALFORMED") => MalformedMode::DropMalformed,
        Some("FAILFAST") => MalformedMode::FailFast,
        _ => MalformedMode::Permissive,
    }
}

/// The `dateFormat` and `timestampFormat` of a CSV or JSON read, as chrono formats. They
/// apply to the date and timestamp columns of a given schema, and CSV schema inference uses
/// them (Spark's JSON inference leaves strings as strings).
fn datetime_formats(
    ds: &DataSource,
    format_name: &str,
) -> PlanResult<(Option<String>, Option<String>)> {
    for key in ["timestampNTZFormat", "locale"] {
        if option(ds, key).is_some() {
            return Err(PlanError::Unsupported(format!(
                "{format_name} read option {key}"
            )));
        }
    }
    let mut out = [None, None];
    for (i, key) in ["dateFormat", "timestampFormat"].iter().enumerate() {
        let Some(pattern) = option(ds, key) else {
            continue;
        };
        let chrono = crate::datetime_pattern::to_chrono(pattern)?;
        if chrono.contains("%Z") {
            return Err(PlanError::Unsupported(format!(
                "zone names in {format_name} read option {key}"
            )));
        }
        // Spark's `X` offsets are read at the end of a pattern only (see ParsedColumn).
        let markers = [
            ember_execution::values::datetime::OFFSET_X1,
            ember_execution::values::datetime::OFFSET_X2,
            ember_execution::values::datetime::OFFSET_X3,
        ];
        let body = chrono.strip_suffix(markers).unwrap_or(&chrono);
        if body.contains(markers) {
            return Err(PlanError::Unsupported(format!(
                "zone offsets before the end of {format_name} read option {key}"
            )));
        }
        out[i] = Some(chrono);
    }
    let [date, timestamp] = out;
    Ok((date, timestamp))
}

/// The last part of a path or URL.
fn file_name(file: &str) -> &str {
    file.rsplit('/').next().unwrap_or(file)
}

/// The codec parts of the file formats read here (one line per format).
pub fn codec_parts() -> Vec<std::sync::Arc<dyn ember_execution::codec::CodecPart>> {
    use ember_execution::codec::file_source_part;
    vec![
        file_source_part::<csv::CsvSource>(),
        file_source_part::<json::JsonSource>(),
        file_source_part::<xml::XmlSource>(),
        file_source_part::<orc::OrcSource>(),
    ]
}

pub use ember_execution::storage::compression_of;

/// The listing URL of one file: a local path or an object's URL.
fn file_url(file: &str) -> PlanResult<ListingTableUrl> {
    if ember_execution::storage::is_object_store_path(file) {
        Ok(ListingTableUrl::parse(file)?)
    } else {
        local_url(std::path::Path::new(file), false)
    }
}

/// The files and directories a read lists.
#[derive(Default)]
struct Sources {
    urls: Vec<ListingTableUrl>,
    /// Every data file (local paths, object URLs).
    files: Vec<String>,
    /// The raw partition values of each file (parallel to `files`; empty for files named
    /// directly).
    file_partitions: Vec<Vec<String>>,
    partitions: Vec<(String, Vec<Option<String>>)>,
    /// Some directory has partition columns (DataFusion lists those directories again).
    partitioned: bool,
}

impl Sources {
    /// A listed directory: its files, or the directory itself when it is partitioned.
    fn add_directory(
        &mut self,
        listing: discover::Listing,
        url: ListingTableUrl,
    ) -> PlanResult<()> {
        if listing.partitions.is_empty() {
            for f in &listing.files {
                self.urls.push(file_url(f)?);
            }
        } else {
            if !self.partitions.is_empty()
                && self
                    .partitions
                    .iter()
                    .map(|(k, _)| k)
                    .ne(listing.partitions.iter().map(|(k, _)| k))
            {
                return Err(PlanError::Unsupported(
                    "reading directories with different partition columns together".into(),
                ));
            }
            if self.partitions.is_empty() {
                self.partitions = listing.partitions;
            } else {
                for ((_, seen), (_, more)) in self.partitions.iter_mut().zip(listing.partitions) {
                    seen.extend(more);
                }
            }
            self.partitioned = true;
            self.urls.push(url);
        }
        self.files.extend(listing.files);
        self.file_partitions.extend(listing.file_partitions);
        Ok(())
    }

    /// A local path (plain, `file:` or `file://`): a glob, a file, or a directory listed.
    fn add_local_path(&mut self, path: &str) -> PlanResult<()> {
        let local = local_part(path)?;
        if local.contains(['*', '?', '[']) {
            // The directory the glob lists must be allowed; each match is checked again.
            if ember_execution::sandbox::restricted() {
                let literal = &local[..local.find(['*', '?', '[']).unwrap_or(local.len())];
                let dir = &literal[..literal.rfind('/').map_or(0, |i| i + 1)];
                check_allowed(if dir.is_empty() { "." } else { dir })?;
            }
            // Each visible match as if named: a file, or a directory listed (as Spark's
            // globs, partition columns come only from directories below a match).
            let matches = glob::glob(local)
                .map_err(|e| PlanError::InvalidPlan(format!("bad glob {path}: {e}")))?;
            let mut found = false;
            for m in matches {
                let m =
                    m.map_err(|e| PlanError::InvalidPlan(format!("cannot list {path}: {e}")))?;
                if m.file_name()
                    .is_some_and(|n| discover::hidden(&n.to_string_lossy()))
                {
                    continue;
                }
                found = true;
                self.add_local_path(&m.to_string_lossy())?;
            }
            if !found {
                let absolute = std::path::absolute(local)
                    .map_err(|e| PlanError::InvalidPlan(e.to_string()))?;
                return Err(path_not_found(&format!("file:{}", absolute.display())));
            }
            return Ok(());
        }
        check_allowed(path)?;
        let plain = std::path::Path::new(local);
        let absolute =
            std::path::absolute(plain).map_err(|e| PlanError::InvalidPlan(e.to_string()))?;
        if !plain.exists() {
            return Err(path_not_found(&format!("file:{}", absolute.display())));
        }
        if !plain.is_dir() {
            self.files.push(absolute.to_string_lossy().to_string());
            self.file_partitions.push(vec![]);
            self.urls.push(local_url(&absolute, false)?);
            return Ok(());
        }
        // An interrupted commit of a write to this directory is finished first.
        ember_execution::write::commit::recover(&absolute)?;
        let listing = discover::list(&absolute)?;
        if ember_execution::sandbox::restricted() {
            // A link in an allowed directory may point out of it.
            for file in &listing.files {
                check_allowed(file)?;
            }
        }
        self.add_directory(listing, local_url(&absolute, true)?)
    }

    /// An `s3a://bucket/key` path: an object, or the objects under it as a directory.
    fn add_object_path(&mut self, state: &SessionState, path: &str) -> PlanResult<()> {
        use object_store::ObjectStoreExt as _;
        check_allowed(path)?;
        if let Some(glob_at) = path.find(['*', '?', '[']) {
            // DataFusion lists the objects a glob matches, under the prefix before it.
            let split = path[..glob_at].rfind('/').map_or(0, |i| i + 1);
            let (prefix, glob) = path.split_at(split);
            self.urls
                .push(ListingTableUrl::parse(prefix)?.with_glob(glob)?);
            return Ok(());
        }
        let url = ListingTableUrl::parse(path)?;
        let store_url = url.object_store();
        let store = state.runtime_env().object_store(&store_url)?;
        let prefix = url.prefix().clone();
        block_on(ember_execution::write::object_commit::recover(
            store.as_ref(),
            &prefix,
        ))??;
        if !url.is_collection() && block_on(store.head(&prefix))?.is_ok() {
            self.files.push(path.to_string());
            self.file_partitions.push(vec![]);
            self.urls.push(url);
            return Ok(());
        }
        let objects = block_on(ember_execution::write::object_commit::list_objects(
            store.as_ref(),
            &prefix,
        ))??;
        if objects.is_empty() {
            return Err(path_not_found(path));
        }
        let listing = discover::list_objects(store_url.as_str(), &prefix, &objects)?;
        let directory = format!("{}/", path.trim_end_matches('/'));
        self.add_directory(listing, ListingTableUrl::parse(directory)?)
    }
}

fn local_url(path: &std::path::Path, directory: bool) -> PlanResult<ListingTableUrl> {
    let absolute = std::path::absolute(path).map_err(|e| PlanError::InvalidPlan(e.to_string()))?;
    let mut text = absolute.to_string_lossy().to_string();
    if directory && !text.ends_with('/') {
        text.push('/');
    }
    Ok(ListingTableUrl::parse(text)?)
}

/// Whether `name` is a file format Ember reads (`SELECT * FROM parquet.\`/path\``).
pub fn is_file_format(name: &str) -> bool {
    [
        "parquet", "csv", "json", "orc", "text", "avro", "delta", "iceberg",
    ]
    .iter()
    .any(|f| f.eq_ignore_ascii_case(name))
}

/// The table a `spark.read...load(paths)` reads.
pub fn read(state: &SessionState, ds: &DataSource, time_zone: &str) -> PlanResult<FileRead> {
    let format_name = ds
        .format
        .clone()
        .unwrap_or_else(|| "parquet".to_string())
        .to_ascii_lowercase();
    if ds.paths.is_empty() {
        return Err(unable_to_infer(&format_name));
    }
    if format_name == "text" {
        return whole::read_text(state, ds, time_zone);
    }
    if format_name == "delta" {
        return delta::read(state, ds, time_zone);
    }
    if format_name == "iceberg" {
        return iceberg::read(state, ds, time_zone);
    }
    // JSON is read by Ember's reader; schemas are inferred from every record when malformed
    // records may matter (else from the first ones, as DataFusion's reader does).
    let mut infer_all_json = false;
    if format_name == "json" {
        if flag(ds, "prefersDecimal", false) {
            return Err(PlanError::Unsupported(
                "JSON read option prefersDecimal".into(),
            ));
        }
        let user_schema = ds.schema.as_deref().filter(|s| !s.trim().is_empty());
        infer_all_json = user_schema.is_none()
            && (malformed_mode(ds) != MalformedMode::Permissive
                || option(ds, "columnNameOfCorruptRecord").is_some()
                || ["multiLine", "allowComments", "primitivesAsString"]
                    .iter()
                    .any(|k| flag(ds, k, false))
                || whole::json_head_is_malformed(state, ds));
    }
    // Directories are listed the way Spark lists them: visible files only, whatever their
    // names end with, and `col=value` directories as partition columns.
    let mut sources = Sources::default();
    for p in &ds.paths {
        if ember_execution::storage::is_object_store_path(p) {
            sources.add_object_path(state, p)?;
            continue;
        }
        sources.add_local_path(p)?;
    }
    let Sources {
        urls,
        files,
        partitions,
        partitioned,
        ..
    } = sources;
    let compression = {
        let mut kinds = files.iter().map(|f| compression_of(f));
        let first = kinds.next().unwrap_or(FileCompressionType::UNCOMPRESSED);
        if kinds.any(|k| k != first) {
            return Err(PlanError::Unsupported(
                "reading files with different compressions together".into(),
            ));
        }
        first
    };
    // Partitioned directories are listed by DataFusion again; the common file name suffix
    // keeps `_SUCCESS` and other non-data files out.
    let extension = if !partitioned {
        String::new()
    } else {
        let mut suffixes = files
            .iter()
            .map(|f| file_name(f).rsplit_once('.').map(|(_, e)| format!(".{e}")));
        let first = suffixes.next().flatten();
        if suffixes.all(|s| s == first) {
            first.unwrap_or_default()
        } else {
            String::new()
        }
    };
    let (format, merge_all): (Arc<dyn FileFormat>, bool) = match format_name.as_str() {
        "parquet" => (
            {
                // Spark writes timestamps as INT96 by default: microsecond instants in UTC.
                let mut parquet = state.table_options().parquet.clone();
                parquet.global.coerce_int96 = Some("us".into());
                parquet.global.coerce_int96_tz = Some("UTC".into());
                Arc::new(ParquetFormat::default().with_options(parquet))
            },
            flag(ds, "mergeSchema", false),
        ),
        // The column names are the first file's header (Spark's too); `inferSchema` reads
        // every row for their types.
        "csv" => (
            Arc::new(csv::CsvFormat::new(csv_options(ds, compression)?)),
            false,
        ),
        "json" => (
            Arc::new(json::JsonFormat::new(json::JsonOptions {
                multi_line: flag(ds, "multiLine", false),
                allow_comments: flag(ds, "allowComments", false),
                primitives_as_string: flag(ds, "primitivesAsString", false),
                mode: malformed_mode(ds),
                corrupt_column: option(ds, "columnNameOfCorruptRecord")
                    .unwrap_or("_corrupt_record")
                    .to_string(),
                infer_all: infer_all_json,
                compression: compression.get_variant().to_string(),
            })),
            true,
        ),
        // Avro through arrow-avro (the schema from the first file, as Spark's reader does).
        "avro" => (
            Arc::new(datafusion::datasource::file_format::avro::AvroFormat),
            false,
        ),
        // ORC through orc-rust (the schema from the first file, unless `mergeSchema`).
        "orc" => (Arc::new(orc::OrcFormat), flag(ds, "mergeSchema", false)),
        // XML by Ember's reader, the schema from every record of every file.
        "xml" => (
            Arc::new(xml::XmlFormat::new(xml::XmlOptions::of_read(
                ds,
                time_zone,
                compression,
                true,
            )?)),
            true,
        ),
        other => return Err(write::data_source_not_found(other).into()),
    };
    let options = ListingOptions::new(format)
        .with_file_extension(extension)
        .with_table_partition_cols(
            partitions
                .iter()
                .map(|(k, _)| (k.clone(), DataType::Utf8))
                .collect(),
        );
    let (date_format, timestamp_format) = match format_name.as_str() {
        "csv" | "json" => datetime_formats(ds, &format_name.to_uppercase())?,
        _ => (None, None),
    };
    let schema: SchemaRef = match &ds.schema {
        Some(s) if !s.trim().is_empty() => Arc::new(types::parse_schema(s, time_zone)?),
        _ => {
            let inferred = if merge_all {
                let mut schemas = Vec::with_capacity(urls.len());
                for url in &urls {
                    schemas.push(
                        block_on(options.infer_schema(state, url))??
                            .as_ref()
                            .clone(),
                    );
                }
                if format_name == "xml" {
                    xml::XmlOptions::of_read(ds, time_zone, compression, true)?
                        .merge_schemas(schemas)
                } else {
                    Schema::try_merge(schemas).map_err(datafusion::error::DataFusionError::from)?
                }
            } else {
                // One file gives the schema (like Spark's parquet footer, or a CSV header).
                let first = match files.first() {
                    Some(f) => file_url(f)?,
                    None => urls[0].clone(),
                };
                let single = ListingOptions::new(options.format.clone())
                    .with_file_extension(options.file_extension.clone());
                block_on(single.infer_schema(state, &first))??
                    .as_ref()
                    .clone()
            };
            let csv = format_name == "csv";
            // CSV columns are strings here; `inferSchema` types them below.
            let mut schema = spark_schema(&inferred, csv);
            if format_name == "json" {
                // Spark orders the fields it infers from JSON by name.
                let mut fields: Vec<Field> =
                    schema.fields().iter().map(|f| f.as_ref().clone()).collect();
                fields.sort_by(|a, b| a.name().cmp(b.name()));
                schema = Schema::new(fields);
            }
            if csv && !flag(ds, "header", false) {
                // Spark names headerless CSV columns `_c0`, `_c1`, ...
                let fields: Vec<Field> = schema
                    .fields()
                    .iter()
                    .enumerate()
                    .map(|(i, f)| f.as_ref().clone().with_name(format!("_c{i}")))
                    .collect();
                schema = Schema::new(fields);
            }
            if csv && flag(ds, "inferSchema", false) && !urls.is_empty() {
                // Every row of every file, as Spark reads them (`samplingRatio` is accepted,
                // and the types inferred from all rows are never narrower than a sample's).
                let file_columns = Schema::new(
                    schema
                        .fields()
                        .iter()
                        .filter(|f| {
                            !partitions
                                .iter()
                                .any(|(k, _)| k.eq_ignore_ascii_case(f.name()))
                        })
                        .cloned()
                        .collect::<Vec<_>>(),
                );
                schema = infer::infer_csv_schema(
                    state,
                    &options,
                    &urls,
                    &file_columns,
                    &infer::Formats {
                        date: date_format.clone(),
                        timestamp: timestamp_format.clone(),
                    },
                    &types::timestamp_type(time_zone),
                )?;
            }
            Arc::new(schema)
        }
    };
    if format_name == "xml" {
        xml::check_schema(&schema)?;
    }
    // Columns of the files that a partition column names are the partition's.
    let partition_names: Vec<&String> = partitions.iter().map(|(k, _)| k).collect();
    let mode = malformed_mode(ds);
    let drop_malformed = format_name == "csv" && mode == MalformedMode::DropMalformed;
    let mut parse = vec![];
    let file_schema = Schema::new(
        schema
            .fields()
            .iter()
            .filter(|f| {
                !partition_names
                    .iter()
                    .any(|p| p.eq_ignore_ascii_case(f.name()))
            })
            .map(|f| {
                let format = match f.data_type() {
                    DataType::Date32 => date_format.as_ref(),
                    DataType::Timestamp(_, Some(_)) => timestamp_format.as_ref(),
                    _ => None,
                };
                // CSV values that may not fit their type are converted after the read, so
                // that a malformed one is NULL or skips its row, as Spark's mode says.
                let csv = format_name == "csv";
                let lenient =
                    csv && mode != MalformedMode::FailFast && f.data_type() != &DataType::Utf8;
                if format.is_none() && !lenient {
                    return f.clone();
                }
                parse.push(ParsedColumn {
                    name: f.name().clone(),
                    format: format.cloned(),
                    data_type: f.data_type().clone(),
                    lenient,
                });
                Arc::new(f.as_ref().clone().with_data_type(DataType::Utf8))
            })
            .collect::<Vec<_>>(),
    );
    if urls.is_empty() {
        return Ok(FileRead {
            provider: Arc::new(EmptyTable::new(Arc::new(file_schema))),
            partitions: vec![],
            parse,
            drop_malformed,
        });
    }
    let config = ListingTableConfig::new_with_multi_paths(urls)
        .with_listing_options(options)
        .with_schema(Arc::new(file_schema));
    let timestamp = types::timestamp_type(time_zone);
    let partitions = partitions
        .iter()
        .map(|(k, values)| {
            // A type the user's schema gives a partition column wins.
            let given = schema
                .fields()
                .iter()
                .find(|f| f.name().eq_ignore_ascii_case(k));
            let t = match given {
                Some(f) => f.data_type().clone(),
                None => discover::infer_type(values, &timestamp),
            };
            (k.clone(), t)
        })
        .collect();
    Ok(FileRead {
        provider: Arc::new(ListingTable::try_new(config)?),
        partitions,
        parse,
        drop_malformed,
    })
}

/// The local file system path of a read's `path` (plain, `file:` or `file://`).
fn local_part(path: &str) -> PlanResult<&str> {
    if let Some((scheme, _)) = path.split_once("://")
        && scheme != "file"
    {
        return Err(PlanError::Unsupported(format!(
            "reading from {scheme}:// paths"
        )));
    }
    Ok(path
        .strip_prefix("file://")
        .or_else(|| path.strip_prefix("file:"))
        .unwrap_or(path))
}

/// Spark's view of an inferred schema: nullable columns, Spark's types; CSV without
/// `inferSchema` reads every column as a string.
fn spark_schema(inferred: &Schema, all_strings: bool) -> Schema {
    let fields: Vec<Field> = inferred
        .fields()
        .iter()
        .map(|f| {
            let dt = if all_strings {
                DataType::Utf8
            } else {
                match f.data_type() {
                    DataType::Utf8View | DataType::LargeUtf8 => DataType::Utf8,
                    DataType::Timestamp(_, Some(_)) => {
                        DataType::Timestamp(TimeUnit::Microsecond, Some(Arc::from("UTC")))
                    }
                    DataType::Timestamp(_, None) => {
                        DataType::Timestamp(TimeUnit::Microsecond, None)
                    }
                    DataType::BinaryView | DataType::LargeBinary => DataType::Binary,
                    other => other.clone(),
                }
            };
            Field::new(f.name(), dt, true)
        })
        .collect();
    Schema::new(fields)
}
