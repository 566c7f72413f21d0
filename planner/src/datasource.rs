//! `spark.read`: files as DataFusion listing tables (parquet, csv, json), with Spark's
//! defaults and errors. Schema inference reads files, so it runs on the I/O of the session.

use std::sync::Arc;

use arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use datafusion::catalog::TableProvider;
use datafusion::datasource::file_format::FileFormat;
use datafusion::datasource::file_format::csv::CsvFormat;
use datafusion::datasource::file_format::json::JsonFormat;
use datafusion::datasource::file_format::parquet::ParquetFormat;
use datafusion::datasource::listing::{
    ListingOptions, ListingTable, ListingTableConfig, ListingTableUrl,
};
use datafusion::execution::SessionState;

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

fn option<'a>(ds: &'a DataSource, key: &str) -> Option<&'a str> {
    ds.options
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(key))
        .map(|(_, v)| v.as_str())
}

fn flag(ds: &DataSource, key: &str, default: bool) -> bool {
    option(ds, key)
        .map(|v| v.eq_ignore_ascii_case("true"))
        .unwrap_or(default)
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

/// The table a `spark.read...load(paths)` reads.
pub fn read(
    state: &SessionState,
    ds: &DataSource,
    time_zone: &str,
) -> PlanResult<Arc<dyn TableProvider>> {
    let format_name = ds
        .format
        .clone()
        .unwrap_or_else(|| "parquet".to_string())
        .to_ascii_lowercase();
    if ds.paths.is_empty() {
        return Err(SparkError::analysis(
            "UNABLE_TO_INFER_SCHEMA",
            "42KD9",
            format!(
                "Unable to infer schema for {}. It must be specified manually.",
                format_name.to_uppercase()
            ),
        )
        .into());
    }
    let mut urls = Vec::with_capacity(ds.paths.len());
    let mut any_directory = false;
    for p in &ds.paths {
        let local = p
            .strip_prefix("file://")
            .or_else(|| p.strip_prefix("file:"))
            .unwrap_or(p);
        let is_glob = local.contains(['*', '?', '[']);
        if !p.contains("://") || p.starts_with("file:") {
            let path = std::path::Path::new(local);
            if !is_glob && !path.exists() {
                let shown = std::path::absolute(path)
                    .map(|a| format!("file:{}", a.display()))
                    .unwrap_or_else(|_| p.clone());
                return Err(path_not_found(&shown));
            }
            any_directory |= path.is_dir();
            let absolute =
                std::path::absolute(path).map_err(|e| PlanError::InvalidPlan(e.to_string()))?;
            let mut text = absolute.to_string_lossy().to_string();
            if path.is_dir() && !text.ends_with('/') {
                text.push('/');
            }
            urls.push(ListingTableUrl::parse(text)?);
        } else {
            urls.push(ListingTableUrl::parse(p)?);
        }
    }
    let (format, extension): (Arc<dyn FileFormat>, &str) = match format_name.as_str() {
        "parquet" => (
            Arc::new(ParquetFormat::default().with_options(state.table_options().parquet.clone())),
            ".parquet",
        ),
        "csv" => {
            // The session's CSV options first: they replace every setting, the header flag too.
            let mut f = CsvFormat::default()
                .with_options(state.table_options().csv.clone())
                .with_has_header(flag(ds, "header", false));
            if let Some(sep) = option(ds, "sep").or_else(|| option(ds, "delimiter"))
                && let Some(b) = sep.bytes().next()
            {
                f = f.with_delimiter(b);
            }
            (Arc::new(f), ".csv")
        }
        "json" => (Arc::new(JsonFormat::default()), ".json"),
        other => {
            return Err(PlanError::Unsupported(format!(
                "data source format {other}"
            )));
        }
    };
    let extension = if any_directory { extension } else { "" };
    let options = ListingOptions::new(format).with_file_extension(extension);
    let schema: SchemaRef = match &ds.schema {
        Some(s) if !s.trim().is_empty() => Arc::new(types::parse_schema(s, time_zone)?),
        _ => {
            let inferred = block_on(options.infer_schema(state, &urls[0]))??;
            Arc::new(spark_schema(
                &inferred,
                format_name == "csv" && !flag(ds, "inferSchema", false),
            ))
        }
    };
    let config = ListingTableConfig::new_with_multi_paths(urls)
        .with_listing_options(options)
        .with_schema(schema);
    Ok(Arc::new(ListingTable::try_new(config)?))
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
                    DataType::BinaryView | DataType::LargeBinary => DataType::Binary,
                    other => other.clone(),
                }
            };
            Field::new(f.name(), dt, true)
        })
        .collect();
    Schema::new(fields)
}
