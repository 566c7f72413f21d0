//! Reads that take files whole or line by line in Ember's own code rather than through a
//! DataFusion listing table: JSON read whole (multi-line files, comments, primitives as
//! strings) and text.

use std::borrow::Cow;
use std::io::Read as _;
use std::sync::Arc;

use arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use datafusion::datasource::file_format::file_compression_type::FileCompressionType;
use datafusion::execution::SessionState;

use super::json_text::{JsonTextOptions, rewrite};
use super::{
    FileRead, MalformedMode, Sources, compression_of, discover, flag, option, spark_schema,
    unable_to_infer,
};
use crate::error::{PlanError, PlanResult, SparkError};
use crate::spec::DataSource;
use crate::types;

/// The paths of a read listed as parquet/CSV/JSON reads list them (local paths and
/// objects), each file with its partition values; globs of objects are not supported here.
fn list_paths(state: &SessionState, ds: &DataSource, what: &str) -> PlanResult<Sources> {
    let mut sources = Sources::default();
    for p in &ds.paths {
        if ember_execution::storage::is_object_store_path(p) {
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

/// One JSON record of a read: its object (None: malformed) and, for JSON lines, its text.
pub(super) struct JsonRecord {
    value: Option<serde_json::Value>,
    text: Option<String>,
}

impl JsonRecord {
    pub(super) fn is_malformed(&self) -> bool {
        self.value.is_none()
    }

    /// A line of JSON lines: its object, or malformed.
    pub(super) fn of_line(text: String) -> Self {
        Self {
            value: json_object(&text),
            text: Some(text),
        }
    }

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
        .any(|l| json_object(l).is_none())
}

/// The first JSON value of a record's text: like Spark's parser, what follows it (a
/// trailing comma, say) is not read.
fn first_json_value(text: &str) -> Option<serde_json::Value> {
    serde_json::Deserializer::from_str(text)
        .into_iter::<serde_json::Value>()
        .next()?
        .ok()
}

/// The JSON object a record's text starts with (None: a malformed record).
fn json_object(text: &str) -> Option<serde_json::Value> {
    first_json_value(text).filter(|v| v.is_object())
}

/// Spark's error for a malformed record under FAILFAST.
pub(super) fn malformed_record() -> SparkError {
    SparkError::new(
        crate::error::ErrorKind::Spark,
        "MALFORMED_RECORD_IN_PARSING.WITHOUT_SUGGESTION",
        "22023",
        "Malformed records are detected in record parsing: _corrupt_record. Parse Mode: FAILFAST. To process malformed records as null result, try setting the option 'mode' as 'PERMISSIVE'.",
        vec![],
    )
}

/// Where `schema` has the corrupt-record column, and the schema of the other columns (the
/// ones JSON values fill).
pub(super) fn json_data_schema(
    schema: &SchemaRef,
    corrupt_column: &str,
) -> (Option<usize>, SchemaRef) {
    let corrupt_at = schema.index_of(corrupt_column).ok();
    let data = schema
        .fields()
        .iter()
        .enumerate()
        .filter(|(i, _)| Some(*i) != corrupt_at)
        .map(|(_, f)| f.as_ref().clone())
        .collect::<Vec<_>>();
    (corrupt_at, Arc::new(Schema::new(data)))
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
    let (corrupt_at, data_schema) = json_data_schema(schema, corrupt_column);
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
        // Without columns (`count()`), a batch still has its rows.
        let batch = RecordBatch::try_new_with_options(
            schema.clone(),
            columns,
            &arrow::array::RecordBatchOptions::new().with_row_count(Some(chunk.len())),
        )
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

/// The records of one JSON file's text: its lines, or with `multiLine` its object or the
/// items of its array. A record that is not a JSON object is malformed (no value).
pub(super) fn json_file_records(
    mut text: String,
    multi_line: bool,
    text_options: JsonTextOptions,
) -> Result<Vec<JsonRecord>, String> {
    if text_options.any() {
        text = rewrite(&text, text_options)?;
    }
    let mut rows = vec![];
    if text.trim().is_empty() {
        return Ok(rows);
    }
    let record = |text: &str| JsonRecord::of_line(text.to_string());
    if !multi_line {
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            rows.push(record(line));
        }
        return Ok(rows);
    }
    match first_json_value(&text) {
        Some(serde_json::Value::Array(items)) => rows.extend(items.into_iter().map(|v| {
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
    Ok(rows)
}

/// JSON lines (`spark.read.json` of a DataFrame of strings): each a record.
pub(crate) fn json_lines_to_batches(
    lines: impl Iterator<Item = String>,
    schema: Option<SchemaRef>,
    mode: MalformedMode,
    corrupt_column: &str,
) -> PlanResult<(SchemaRef, Vec<arrow::array::RecordBatch>)> {
    let rows = lines.map(JsonRecord::of_line).collect();
    json_records_to_batches(rows, schema, mode, corrupt_column)
}

/// JSON records as batches of the given schema or of the one Spark infers, as `mode` says.
fn json_records_to_batches(
    rows: Vec<JsonRecord>,
    schema: Option<SchemaRef>,
    mode: MalformedMode,
    corrupt_column: &str,
) -> PlanResult<(SchemaRef, Vec<arrow::array::RecordBatch>)> {
    let schema = match schema {
        Some(s) => s,
        None => infer_json_records_schema(&rows, mode, corrupt_column)?,
    };
    let batches = json_records_in_mode(&schema, rows, mode, corrupt_column)?;
    Ok((schema, batches))
}

/// The schema Spark infers from JSON records: fields by name, all-NULL ones as strings, and
/// under PERMISSIVE the corrupt-record column when malformed records were met.
pub(super) fn infer_json_records_schema(
    rows: &[JsonRecord],
    mode: MalformedMode,
    corrupt_column: &str,
) -> PlanResult<SchemaRef> {
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
    if rows.iter().any(|r| r.value.is_none()) && mode == MalformedMode::Permissive {
        fields.push(Field::new(corrupt_column, DataType::Utf8, true));
    }
    fields.sort_by(|a, b| a.name().cmp(b.name()));
    Ok(Arc::new(Schema::new(fields)))
}

/// JSON records as batches of `schema`: records that are not objects fail the read
/// (FAILFAST), are skipped (DROPMALFORMED) or keep their text in the corrupt-record column.
pub(super) fn json_records_in_mode(
    schema: &SchemaRef,
    mut rows: Vec<JsonRecord>,
    mode: MalformedMode,
    corrupt_column: &str,
) -> PlanResult<Vec<arrow::array::RecordBatch>> {
    match mode {
        MalformedMode::FailFast if rows.iter().any(|r| r.value.is_none()) => {
            return Err(malformed_record().into());
        }
        MalformedMode::DropMalformed => rows.retain(|r| r.value.is_some()),
        _ => {}
    }
    decode_json_rows(schema, &rows, corrupt_column, mode)
}

/// The column a schema gives text files: a single string column, as Spark's text source allows.
fn text_column(schema: &str, time_zone: &str) -> PlanResult<String> {
    let schema = types::parse_schema(schema, time_zone)?;
    let [field] = schema.fields().iter().collect::<Vec<_>>()[..] else {
        return Err(SparkError::analysis(
            "_LEGACY_ERROR_TEMP_1290",
            "",
            format!(
                "Text data source supports only a single column, and you have {} columns.",
                schema.fields().len()
            ),
        )
        .into());
    };
    if !matches!(
        field.data_type(),
        DataType::Utf8 | DataType::Utf8View | DataType::LargeUtf8
    ) {
        return Err(SparkError::new(
            crate::error::ErrorKind::Analysis,
            "UNSUPPORTED_DATA_TYPE_FOR_DATASOURCE",
            "0A000",
            format!(
                "The Text datasource doesn't support the column `{}` of the type \"{}\".",
                field.name(),
                types::sql_name(field.data_type()).to_uppercase()
            ),
            vec![
                ("format", "Text".into()),
                ("columnName", format!("`{}`", field.name())),
                (
                    "columnType",
                    format!("\"{}\"", types::sql_name(field.data_type()).to_uppercase()),
                ),
            ],
        )
        .into());
    }
    Ok(field.name().clone())
}

/// `spark.read.text`: the lines (or `wholetext` contents) of local files, with the partition
/// columns of partitioned directories.
pub(super) fn read_text(
    state: &SessionState,
    ds: &DataSource,
    time_zone: &str,
) -> PlanResult<FileRead> {
    use crate::datasource::text::{TextFile, TextOptions, TextTable};
    let column = match ds.schema.as_deref().map(str::trim) {
        Some(text) if !text.is_empty() => Some(text_column(text, time_zone)?),
        _ => None,
    };
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
        column,
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
