//! Reads that take files whole or line by line in Ember's own code rather than through a
//! DataFusion listing table: JSON read whole (multi-line files, comments, primitives as
//! strings) and text.

use std::borrow::Cow;
use std::io::Read as _;
use std::sync::Arc;

use arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use datafusion::datasource::file_format::file_compression_type::FileCompressionType;
use datafusion::datasource::listing::ListingTableUrl;
use datafusion::execution::SessionState;

use super::json_text::{JsonTextOptions, rewrite};
use super::{
    FileRead, MalformedMode, Sources, block_on, compression_of, discover, flag, option,
    spark_schema, unable_to_infer,
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
/// One JSON record of a read: its object (None: malformed) and, for JSON lines, its text.
struct JsonRecord {
    value: Option<serde_json::Value>,
    text: Option<String>,
}

impl JsonRecord {
    fn text(&self) -> String {
        match (&self.text, &self.value) {
            (Some(t), _) => t.clone(),
            (None, Some(v)) => v.to_string(),
            (None, None) => String::new(),
        }
    }
}

/// Whether the first MiB of the first (local, uncompressed) file of a JSON lines read has a
/// record that is not a JSON object: such reads take the path that keeps malformed records.
pub(super) fn json_head_is_malformed(state: &SessionState, ds: &DataSource) -> bool {
    const HEAD: u64 = 1 << 20;
    let Ok(files) = whole_files(state, ds, "JSON") else {
        return false;
    };
    let Some(first) = files.first() else {
        return false;
    };
    if ember_execution::storage::is_object_store_path(first)
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
        .any(|l| !serde_json::from_str::<serde_json::Value>(l).is_ok_and(|v| v.is_object()))
}

/// Spark's error for a malformed record under FAILFAST.
fn malformed_record() -> SparkError {
    SparkError::new(
        crate::error::ErrorKind::Spark,
        "MALFORMED_RECORD_IN_PARSING.WITHOUT_SUGGESTION",
        "22023",
        "Malformed records are detected in record parsing: _corrupt_record. Parse Mode: FAILFAST. To process malformed records as null result, try setting the option 'mode' as 'PERMISSIVE'.",
        vec![],
    )
}

/// JSON records as batches of `schema`. A record that is not an object, or whose values do
/// not fit their columns, is malformed: under PERMISSIVE its columns are NULL and its text
/// goes to the corrupt-record column (when `schema` has one), DROPMALFORMED skips it,
/// FAILFAST fails the read.
fn decode_json_rows(
    schema: &SchemaRef,
    rows: &[JsonRecord],
    corrupt_column: &str,
    mode: MalformedMode,
) -> PlanResult<Vec<arrow::array::RecordBatch>> {
    use arrow::array::{ArrayRef, RecordBatch, StringArray};
    let corrupt_at = schema.index_of(corrupt_column).ok();
    let data_schema: SchemaRef = Arc::new(Schema::new(
        schema
            .fields()
            .iter()
            .enumerate()
            .filter(|(i, _)| Some(*i) != corrupt_at)
            .map(|(_, f)| f.as_ref().clone())
            .collect::<Vec<_>>(),
    ));
    // Numbers and booleans read into string columns as their text (Spark's inference
    // makes a column of mixed types a string column).
    let decoder = || {
        arrow::json::ReaderBuilder::new(data_schema.clone())
            .with_coerce_primitive(true)
            .build_decoder()
            .map_err(datafusion::error::DataFusionError::from)
    };
    let fits = |v: &serde_json::Value| -> PlanResult<bool> {
        let mut probe = decoder()?;
        Ok(probe
            .serialize(std::slice::from_ref(v))
            .and_then(|_| probe.flush())
            .is_ok())
    };
    let empty = serde_json::Value::Object(Default::default());
    let mut batches = vec![];
    for chunk in rows.chunks(8192) {
        // Borrowed as read; only records that do not fit are rebuilt.
        let mut values: Vec<Cow<serde_json::Value>> = chunk
            .iter()
            .map(|r| Cow::Borrowed(r.value.as_ref().unwrap_or(&empty)))
            .collect();
        let mut corrupt: Vec<Option<String>> = chunk
            .iter()
            .map(|r| r.value.is_none().then(|| r.text()))
            .collect();
        let mut keep = vec![true; chunk.len()];
        let mut d = decoder()?;
        let whole = d.serialize(&values).and_then(|_| d.flush());
        let data = match whole {
            Ok(Some(b)) => b,
            Ok(None) => RecordBatch::new_empty(data_schema.clone()),
            // Some record's values do not fit: find them, keep their fields that fit.
            Err(_) => {
                for (i, v) in values.iter_mut().enumerate() {
                    if fits(v)? {
                        continue;
                    }
                    match mode {
                        MalformedMode::FailFast => return Err(malformed_record().into()),
                        MalformedMode::DropMalformed => keep[i] = false,
                        MalformedMode::Permissive => corrupt[i] = Some(chunk[i].text()),
                    }
                    let mut partial = serde_json::Map::new();
                    if let serde_json::Value::Object(fields) = v.as_ref() {
                        for (k, field) in fields.iter() {
                            let one = serde_json::Value::Object(
                                [(k.clone(), field.clone())].into_iter().collect(),
                            );
                            if fits(&one)? {
                                partial.insert(k.clone(), field.clone());
                            }
                        }
                    }
                    *v = Cow::Owned(serde_json::Value::Object(partial));
                }
                let mut d = decoder()?;
                d.serialize(&values)
                    .map_err(datafusion::error::DataFusionError::from)?;
                d.flush()
                    .map_err(datafusion::error::DataFusionError::from)?
                    .unwrap_or_else(|| RecordBatch::new_empty(data_schema.clone()))
            }
        };
        let mut columns: Vec<ArrayRef> = data.columns().to_vec();
        if let Some(at) = corrupt_at {
            columns.insert(at, Arc::new(StringArray::from(corrupt)));
        }
        let batch = RecordBatch::try_new(schema.clone(), columns)
            .map_err(datafusion::error::DataFusionError::from)?;
        let batch = if keep.iter().all(|k| *k) {
            batch
        } else {
            arrow::compute::filter_record_batch(&batch, &keep.into())
                .map_err(datafusion::error::DataFusionError::from)?
        };
        batches.push(batch);
    }
    Ok(batches)
}

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
    let mode = super::malformed_mode(ds);
    let corrupt_column = option(ds, "columnNameOfCorruptRecord")
        .unwrap_or("_corrupt_record")
        .to_string();
    // Each record: its JSON object, or its text when it is not one (malformed).
    let mut rows: Vec<JsonRecord> = vec![];
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
        let record = |text: &str| JsonRecord {
            value: serde_json::from_str::<serde_json::Value>(text)
                .ok()
                .filter(|v| v.is_object()),
            text: Some(text.to_string()),
        };
        if !multi_line {
            for line in text.lines().filter(|l| !l.trim().is_empty()) {
                rows.push(record(line));
            }
            continue;
        }
        match serde_json::from_str::<serde_json::Value>(&text) {
            Ok(serde_json::Value::Array(items)) => rows.extend(items.into_iter().map(|v| {
                if v.is_object() {
                    JsonRecord {
                        value: Some(v),
                        text: None,
                    }
                } else {
                    JsonRecord {
                        text: Some(v.to_string()),
                        value: None,
                    }
                }
            })),
            _ => rows.push(record(&text)),
        }
    }
    let given = match &ds.schema {
        Some(s) if !s.trim().is_empty() => Some(Arc::new(types::parse_schema(s, time_zone)?)),
        _ => None,
    };
    let (schema, batches) = json_records_to_batches(rows, given, mode, &corrupt_column)?;
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

/// JSON lines (`spark.read.json` of a DataFrame of strings): each a record.
pub(crate) fn json_lines_to_batches(
    lines: impl Iterator<Item = String>,
    schema: Option<SchemaRef>,
    mode: MalformedMode,
    corrupt_column: &str,
) -> PlanResult<(SchemaRef, Vec<arrow::array::RecordBatch>)> {
    let rows = lines
        .map(|text| JsonRecord {
            value: serde_json::from_str::<serde_json::Value>(&text)
                .ok()
                .filter(|v| v.is_object()),
            text: Some(text),
        })
        .collect();
    json_records_to_batches(rows, schema, mode, corrupt_column)
}

/// JSON records as batches of the given schema or of the one Spark infers (fields by
/// name, the corrupt-record column when malformed records were met), as `mode` says.
fn json_records_to_batches(
    mut rows: Vec<JsonRecord>,
    schema: Option<SchemaRef>,
    mode: MalformedMode,
    corrupt_column: &str,
) -> PlanResult<(SchemaRef, Vec<arrow::array::RecordBatch>)> {
    let malformed_found = rows.iter().any(|r| r.value.is_none());
    match mode {
        MalformedMode::FailFast if malformed_found => return Err(malformed_record().into()),
        MalformedMode::DropMalformed => rows.retain(|r| r.value.is_some()),
        _ => {}
    }
    let schema: SchemaRef = match schema {
        Some(s) => s,
        None => {
            if rows.is_empty() {
                return Err(unable_to_infer("json"));
            }
            let inferred = arrow::json::reader::infer_json_schema_from_iterator(
                rows.iter()
                    .filter_map(|r| r.value.as_ref())
                    .map(Ok::<_, arrow::error::ArrowError>),
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
            // Spark adds the corrupt-record column when it met malformed records.
            if malformed_found && mode == MalformedMode::Permissive {
                fields.push(Field::new(corrupt_column, DataType::Utf8, true));
            }
            fields.sort_by(|a, b| a.name().cmp(b.name()));
            Arc::new(Schema::new(fields))
        }
    };
    let batches = decode_json_rows(&schema, &rows, corrupt_column, mode)?;
    Ok((schema, batches))
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
