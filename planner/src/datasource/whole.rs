//! Reads that take files whole or line by line in Ember's own code rather than through a
//! DataFusion listing table: JSON read whole (multi-line files, comments, primitives as
//! strings) and text.

use std::io::Read as _;
use std::sync::Arc;

use arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use datafusion::datasource::listing::ListingTableUrl;
use datafusion::execution::SessionState;

use super::json_text::{JsonTextOptions, rewrite};
use super::{
    FileRead, Sources, block_on, compression_of, discover, flag, option, spark_schema,
    unable_to_infer,
};
use crate::error::{PlanError, PlanResult, SparkError};
use crate::spec::DataSource;
use crate::types;

/// The paths of a read listed as parquet/CSV/JSON reads list them (local paths and
/// objects), each file with its partition values; globs are not supported here.
fn list_paths(state: &SessionState, ds: &DataSource, what: &str) -> PlanResult<Sources> {
    let mut sources = Sources::default();
    for p in &ds.paths {
        if p.contains(['*', '?', '[']) {
            return Err(PlanError::Unsupported(format!("globs in paths of {what}")));
        }
        if ember_execution::storage::is_object_store_path(p) {
            sources.add_object_path(state, p)?;
        } else {
            sources.add_local_path(p)?;
        }
    }
    Ok(sources)
}

/// The files of a read that reads files whole (no partition directories).
fn whole_files(state: &SessionState, ds: &DataSource, what: &str) -> PlanResult<Vec<String>> {
    let sources = list_paths(state, ds, what)?;
    if !sources.partitions.is_empty() {
        return Err(PlanError::Unsupported(format!(
            "partitioned directories of {what}"
        )));
    }
    Ok(sources.files)
}

/// The bytes of a local file or an object.
fn file_bytes(state: &SessionState, file: &str) -> PlanResult<Vec<u8>> {
    if !ember_execution::storage::is_object_store_path(file) {
        return std::fs::read(file)
            .map_err(|e| PlanError::InvalidPlan(format!("cannot read {file}: {e}")));
    }
    use object_store::ObjectStoreExt as _;
    let url = ListingTableUrl::parse(file)?;
    let store = state.runtime_env().object_store(url.object_store())?;
    let bytes = block_on(async { store.get(url.prefix()).await?.bytes().await })?
        .map_err(|e| PlanError::InvalidPlan(format!("cannot read {file}: {e}")))?;
    Ok(bytes.to_vec())
}

/// The type Spark infers for one JSON value (`schema_of_json`).
pub(crate) fn infer_json_value_type(text: &str) -> PlanResult<DataType> {
    let value: serde_json::Value = serde_json::from_str(text).map_err(|e| {
        PlanError::from(crate::error::SparkError::analysis(
            "INVALID_JSON_SCHEMA_MAP_TYPE",
            "22032",
            format!("Cannot infer a schema from '{text}': {e}"),
        ))
    })?;
    let wrapped = serde_json::json!({ "v": value });
    let inferred =
        arrow::json::reader::infer_json_schema_from_iterator(std::iter::once(Ok::<
            _,
            arrow::error::ArrowError,
        >(wrapped)))
        .map_err(datafusion::error::DataFusionError::from)?;
    let t = inferred
        .field_with_name("v")
        .map(|f| f.data_type().clone())
        .unwrap_or(DataType::Utf8);
    Ok(spark_json_type(&t))
}

/// The type Spark infers for JSON values arrow inferred as `data_type`: fields of objects
/// sorted by name, all-NULL values as strings.
fn spark_json_type(data_type: &DataType) -> DataType {
    match data_type {
        DataType::Null => DataType::Utf8,
        DataType::Struct(fields) => {
            let mut fields: Vec<Field> = fields
                .iter()
                .map(|f| Field::new(f.name(), spark_json_type(f.data_type()), true))
                .collect();
            fields.sort_by(|a, b| a.name().cmp(b.name()));
            DataType::Struct(fields.into())
        }
        DataType::List(item) => DataType::List(Arc::new(Field::new(
            item.name(),
            spark_json_type(item.data_type()),
            true,
        ))),
        other => other.clone(),
    }
}

/// JSON read in Ember's own code, files whole: `multiLine` files (each one JSON object or an
/// array of them, one row each, as Spark reads them), and JSON lines with `allowComments` or
/// `primitivesAsString`, which DataFusion's reader has no settings for. The rows are parsed
/// while planning and held in memory.
pub(super) fn read_whole_json(
    state: &SessionState,
    ds: &DataSource,
    time_zone: &str,
    multi_line: bool,
    text_options: JsonTextOptions,
) -> PlanResult<FileRead> {
    for key in [
        "dateFormat",
        "timestampFormat",
        "timestampNTZFormat",
        "locale",
    ] {
        if option(ds, key).is_some() {
            let with = if multi_line {
                "multiLine"
            } else {
                "allowComments or primitivesAsString"
            };
            return Err(PlanError::Unsupported(format!("JSON {with} with {key}")));
        }
    }
    let mut rows: Vec<serde_json::Value> = vec![];
    for file in whole_files(state, ds, "multi-line JSON files")? {
        let mut text = String::new();
        let bytes = file_bytes(state, &file)?;
        compression_of(&file)
            .convert_read(std::io::Cursor::new(bytes))?
            .read_to_string(&mut text)
            .map_err(|e| PlanError::InvalidPlan(format!("cannot read {file}: {e}")))?;
        if text_options.any() {
            text = rewrite(&text, text_options)
                .map_err(|e| PlanError::Unsupported(format!("malformed JSON in {file} ({e})")))?;
        }
        if text.trim().is_empty() {
            continue;
        }
        let malformed = |e: serde_json::Error| {
            PlanError::Unsupported(format!("malformed JSON in {file} ({e})"))
        };
        if !multi_line {
            for value in serde_json::Deserializer::from_str(&text).into_iter() {
                rows.push(value.map_err(malformed)?);
            }
            continue;
        }
        let value: serde_json::Value = serde_json::from_str(&text).map_err(malformed)?;
        match value {
            serde_json::Value::Array(items) => rows.extend(items),
            other => rows.push(other),
        }
    }
    if let Some(bad) = rows.iter().find(|r| !r.is_object()) {
        return Err(PlanError::Unsupported(format!(
            "JSON rows that are not objects: {bad}"
        )));
    }
    let schema: SchemaRef = match &ds.schema {
        Some(s) if !s.trim().is_empty() => Arc::new(types::parse_schema(s, time_zone)?),
        _ => {
            if rows.is_empty() {
                return Err(unable_to_infer("json"));
            }
            let inferred = arrow::json::reader::infer_json_schema_from_iterator(
                rows.iter().map(Ok::<_, arrow::error::ArrowError>),
            )
            .map_err(datafusion::error::DataFusionError::from)?;
            let mut fields: Vec<Field> = spark_schema(&inferred, false)
                .fields()
                .iter()
                .map(|f| {
                    f.as_ref()
                        .clone()
                        .with_data_type(spark_json_type(f.data_type()))
                })
                .collect();
            fields.sort_by(|a, b| a.name().cmp(b.name()));
            Arc::new(Schema::new(fields))
        }
    };
    let mut decoder = arrow::json::ReaderBuilder::new(schema.clone())
        .build_decoder()
        .map_err(datafusion::error::DataFusionError::from)?;
    let mut batches = vec![];
    for chunk in rows.chunks(8192) {
        decoder
            .serialize(chunk)
            .map_err(datafusion::error::DataFusionError::from)?;
        if let Some(b) = decoder
            .flush()
            .map_err(datafusion::error::DataFusionError::from)?
        {
            batches.push(b);
        }
    }
    Ok(FileRead {
        provider: Arc::new(datafusion::datasource::MemTable::try_new(
            schema,
            vec![batches],
        )?),
        partitions: vec![],
        parse: vec![],
        drop_malformed: false,
    })
}

/// `spark.read.text`: the lines (or `wholetext` contents) of local files, with the partition
/// columns of partitioned directories.
pub(super) fn read_text(
    state: &SessionState,
    ds: &DataSource,
    time_zone: &str,
) -> PlanResult<FileRead> {
    use crate::exec::text::{TextFile, TextOptions, TextTable};
    if ds.schema.as_ref().is_some_and(|s| !s.trim().is_empty()) {
        return Err(PlanError::Unsupported("a schema for text files".into()));
    }
    let line_sep = match option(ds, "lineSep") {
        None | Some("\n") | Some("\r\n") => None,
        Some("") => {
            return Err(SparkError::illegal_argument(
                "_LEGACY_ERROR_TEMP_3249",
                "requirement failed: 'lineSep' cannot be an empty string.",
            )
            .into());
        }
        Some(sep) => Some(sep.to_string()),
    };
    let options = TextOptions {
        wholetext: flag(ds, "wholetext", false),
        line_sep,
    };
    let sources = list_paths(state, ds, "text files")?;
    if !sources.partitions.is_empty() && sources.file_partitions.iter().any(Vec::is_empty) {
        return Err(PlanError::Unsupported(
            "text files with and without partition columns together".into(),
        ));
    }
    let files = sources
        .files
        .into_iter()
        .zip(sources.file_partitions)
        .map(|(path, partition_values)| TextFile {
            path,
            partition_values,
        })
        .collect();
    let partitions = sources.partitions;
    let timestamp = types::timestamp_type(time_zone);
    let names = partitions.iter().map(|(k, _)| k.clone()).collect();
    Ok(FileRead {
        provider: Arc::new(TextTable::new(files, names, options)),
        partitions: partitions
            .iter()
            .map(|(k, values)| (k.clone(), discover::infer_type(values, &timestamp)))
            .collect(),
        parse: vec![],
        drop_malformed: false,
    })
}
