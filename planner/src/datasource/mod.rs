//! `spark.read` planned: the paths listed (through `ember_execution::formats::listing`), a
//! format chosen by name with Spark's options turned into its options, the schema given or
//! inferred by the format's code, and a DataFusion listing table over the files, with Spark's
//! defaults and errors. The formats themselves (readers, writers, inference) are
//! `ember_execution::formats`; Delta and Iceberg tables are planned here too (`delta.rs`,
//! `iceberg.rs`). Schema inference reads files, so it runs on the I/O of the session.

use std::io::Read as _;
use std::sync::Arc;

use arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use datafusion::catalog::TableProvider;
use datafusion::datasource::empty::EmptyTable;
use datafusion::datasource::file_format::FileFormat;
use datafusion::datasource::file_format::file_compression_type::FileCompressionType;
use datafusion::datasource::file_format::parquet::ParquetFormat;
use datafusion::datasource::listing::{
    ListingOptions, ListingTable, ListingTableConfig, ListingTableUrl,
};
use datafusion::execution::SessionState;

pub mod delta;
pub mod iceberg;
mod parsed;
pub mod range;
pub use parsed::ParsedColumn;
pub mod text;
pub mod unfinished;
pub mod write;

pub use ember_execution::formats::{MalformedMode, csv, json, orc, xml};

use ember_execution::formats::csv::{csv_options, infer};
use ember_execution::formats::listing::{self, LocalPath, ObjectPath};
use ember_execution::formats::spark_schema;

use crate::error::{ErrorKind, PlanError, PlanResult, SparkError};
use crate::spec::DataSource;
use crate::types;
use unfinished::FinishingCommits;

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
    ember_execution::formats::option(&ds.options, key)
}

pub(crate) fn flag(ds: &DataSource, key: &str, default: bool) -> bool {
    ember_execution::formats::flag(&ds.options, key, default)
}

fn unable_to_infer(format_name: &str) -> PlanError {
    ember_execution::formats::unable_to_infer(format_name).into()
}

/// A read or write outside `ember server --allowed-paths` (Spark's class for a denied
/// permission).
pub fn path_not_allowed(path: &str) -> PlanError {
    ember_execution::sandbox::not_allowed(path).into()
}

/// Refuse `path` when it is outside `--allowed-paths`.
pub fn check_allowed(path: &str) -> PlanResult<()> {
    Ok(ember_execution::sandbox::check(path)?)
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

/// The one path of a table format's read (`what`: "Delta", "Iceberg"), which takes no schema
/// (`schema_given`: the format's error when one is given).
fn table_path<'a>(
    ds: &'a DataSource,
    what: &str,
    schema_given: impl FnOnce() -> SparkError,
) -> PlanResult<&'a str> {
    let [path] = ds.paths.as_slice() else {
        return Err(PlanError::Unsupported(format!(
            "reading several {what} tables in one load"
        )));
    };
    if ds.schema.as_deref().is_some_and(|s| !s.trim().is_empty()) {
        return Err(schema_given().into());
    }
    Ok(path)
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

/// The `mode` of a read; Spark takes an unknown mode for PERMISSIVE.
pub(crate) fn malformed_mode(ds: &DataSource) -> MalformedMode {
    ember_execution::formats::malformed_mode(&ds.options)
}

/// The `dateFormat` and `timestampFormat` of a CSV or JSON read, as chrono formats.
fn datetime_formats(
    ds: &DataSource,
    format_name: &str,
) -> PlanResult<(Option<String>, Option<String>)> {
    Ok(ember_execution::formats::datetime_formats(
        &ds.options,
        format_name,
    )?)
}

/// A given schema's types must be ones Ember reads from XML.
pub fn check_xml_schema(schema: &Schema) -> PlanResult<()> {
    match schema
        .fields()
        .iter()
        .find(|f| !xml::readable(f.data_type()))
    {
        Some(f) => Err(PlanError::Unsupported(format!(
            "reading XML into a column of type {}",
            types::sql_name(f.data_type())
        ))),
        None => Ok(()),
    }
}

/// The last part of a path or URL.
fn file_name(file: &str) -> &str {
    file.rsplit('/').next().unwrap_or(file)
}

pub use ember_execution::formats::storage::compression_of;

/// The listing URL of one file: a local path or an object's URL.
fn file_url(file: &str) -> PlanResult<ListingTableUrl> {
    if ember_execution::formats::storage::is_object_store_path(file) {
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
    /// Commits to listed directories that a crash interrupted: the scan finishes them.
    unfinished: Vec<listing::Unfinished>,
    /// Where files of `files` are until then (see [`Sources::readable`]).
    moved: std::collections::HashMap<String, String>,
}

impl Sources {
    /// A listed directory: its files, or the directory itself when it is partitioned.
    fn add_directory(&mut self, listing: listing::Listing, url: ListingTableUrl) -> PlanResult<()> {
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
        self.unfinished.extend(listing.unfinished);
        self.moved.extend(listing.moved);
        Ok(())
    }

    /// Where `file` (one of `files`) can be read while planning: its place now, which an
    /// unfinished commit has not moved it from yet.
    fn readable<'a>(&'a self, file: &'a str) -> &'a str {
        self.moved.get(file).map_or(file, String::as_str)
    }

    /// The URLs that reads while planning (schema inference) take: `urls`, or with an
    /// unfinished commit each file where it is now (DataFusion would list directories as
    /// they are, not as the commit leaves them).
    fn readable_urls(&self) -> PlanResult<Vec<ListingTableUrl>> {
        if self.unfinished.is_empty() {
            return Ok(self.urls.clone());
        }
        self.files
            .iter()
            .map(|f| file_url(self.readable(f)))
            .collect()
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
                    .is_some_and(|n| listing::hidden(&n.to_string_lossy()))
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
        let absolute = std::path::absolute(std::path::Path::new(local))
            .map_err(|e| PlanError::InvalidPlan(e.to_string()))?;
        let listing = match listing::list_path(&absolute)? {
            LocalPath::Missing => {
                return Err(path_not_found(&format!("file:{}", absolute.display())));
            }
            LocalPath::File => {
                self.files.push(absolute.to_string_lossy().to_string());
                self.file_partitions.push(vec![]);
                self.urls.push(local_url(&absolute, false)?);
                return Ok(());
            }
            LocalPath::Directory(listing) => listing,
        };
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
        let listed = block_on(listing::list_object_path(
            store.as_ref(),
            store_url.as_str(),
            &prefix,
            url.is_collection(),
        ))??;
        let listing = match listed {
            ObjectPath::Object => {
                self.files.push(path.to_string());
                self.file_partitions.push(vec![]);
                self.urls.push(url);
                return Ok(());
            }
            ObjectPath::Missing => return Err(path_not_found(path)),
            ObjectPath::Directory(listing) => listing,
        };
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
        return text::read_text(state, ds, time_zone);
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
                || json_head_is_malformed(state, ds));
    }
    // Directories are listed the way Spark lists them: visible files only, whatever their
    // names end with, and `col=value` directories as partition columns.
    let mut sources = Sources::default();
    for p in &ds.paths {
        if ember_execution::formats::storage::is_object_store_path(p) {
            sources.add_object_path(state, p)?;
            continue;
        }
        sources.add_local_path(p)?;
    }
    let readable_urls = sources.readable_urls()?;
    let first_readable = match sources.files.first() {
        Some(f) => Some(file_url(sources.readable(f))?),
        None => None,
    };
    let Sources {
        urls,
        files,
        partitions,
        partitioned,
        unfinished,
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
            Arc::new(csv::CsvFormat::new(csv_options(&ds.options, compression)?)),
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
        "orc" => (
            Arc::new(orc::OrcFormat::new(())),
            flag(ds, "mergeSchema", false),
        ),
        // XML by Ember's reader, the schema from every record of every file.
        "xml" => (
            Arc::new(xml::XmlFormat::new(xml::XmlOptions::of_read(
                &ds.options,
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
                let mut schemas = Vec::with_capacity(readable_urls.len());
                for url in &readable_urls {
                    schemas.push(
                        block_on(options.infer_schema(state, url))??
                            .as_ref()
                            .clone(),
                    );
                }
                if format_name == "xml" {
                    xml::XmlOptions::of_read(&ds.options, time_zone, compression, true)?
                        .merge_schemas(schemas)
                } else {
                    Schema::try_merge(schemas).map_err(datafusion::error::DataFusionError::from)?
                }
            } else {
                // One file gives the schema (like Spark's parquet footer, or a CSV header).
                let first = match first_readable {
                    Some(f) => f,
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
                // (Files named one by one have no partition directories.)
                let options = match unfinished.is_empty() {
                    true => options.clone(),
                    false => options.clone().with_table_partition_cols(vec![]),
                };
                schema = block_on(infer::infer_csv_schema(
                    state,
                    &options,
                    &readable_urls,
                    &file_columns,
                    &infer::Formats {
                        date: date_format.clone(),
                        timestamp: timestamp_format.clone(),
                    },
                    &types::timestamp_type(time_zone),
                ))??;
            }
            Arc::new(schema)
        }
    };
    if format_name == "xml" {
        check_xml_schema(&schema)?;
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
                None => listing::infer_type(values, &timestamp),
            };
            (k.clone(), t)
        })
        .collect();
    Ok(FileRead {
        provider: FinishingCommits::wrap(Arc::new(ListingTable::try_new(config)?), unfinished),
        partitions,
        parse,
        drop_malformed,
    })
}

/// The local file system path of a read's `path` (plain, `file:` or `file://`).
fn local_part(path: &str) -> PlanResult<&str> {
    Ok(ember_execution::formats::local_part(path)?)
}

/// The paths of a read listed as parquet/CSV/JSON reads list them (local paths and
/// objects), each file with its partition values; globs of objects are not supported here.
fn list_paths(state: &SessionState, ds: &DataSource, what: &str) -> PlanResult<Sources> {
    let mut sources = Sources::default();
    for p in &ds.paths {
        if ember_execution::formats::storage::is_object_store_path(p) {
            if p.contains(['*', '?', '[']) {
                return Err(PlanError::Unsupported(format!(
                    "globs in object paths of {what}"
                )));
            }
            sources.add_object_path(state, p)?;
        } else {
            sources.add_local_path(p)?;
        }
    }
    Ok(sources)
}

/// The files of a read that reads files whole (no partition directories), where they can be
/// read while planning.
fn whole_files(state: &SessionState, ds: &DataSource, what: &str) -> PlanResult<Vec<String>> {
    let sources = list_paths(state, ds, what)?;
    if !sources.partitions.is_empty() {
        return Err(PlanError::Unsupported(format!(
            "partitioned directories of {what}"
        )));
    }
    Ok(sources
        .files
        .iter()
        .map(|f| sources.readable(f).to_string())
        .collect())
}

/// Whether the first MiB of the first (local, uncompressed) file of a JSON lines read has a
/// record that is not a JSON object: such reads take the path that keeps malformed records.
fn json_head_is_malformed(state: &SessionState, ds: &DataSource) -> bool {
    const HEAD: u64 = 1 << 20;
    let Ok(files) = whole_files(state, ds, "JSON") else {
        return false;
    };
    let Some(first) = files.first() else {
        return false;
    };
    if ember_execution::formats::storage::is_object_store_path(first)
        || compression_of(first) != FileCompressionType::UNCOMPRESSED
    {
        return false;
    }
    let mut head = Vec::new();
    let read = std::fs::File::open(first).and_then(|f| f.take(HEAD).read_to_end(&mut head));
    let Ok(len) = read else {
        return false;
    };
    let text = String::from_utf8_lossy(&head);
    let mut lines: Vec<&str> = text.lines().collect();
    if len as u64 == HEAD {
        lines.pop(); // may be cut
    }
    lines
        .iter()
        .filter(|l| !l.trim().is_empty())
        .any(|l| ember_execution::formats::json::records::json_object(l).is_none())
}
