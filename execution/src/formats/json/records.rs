//! JSON records as Spark reads them: a file's lines or (`multiLine`) its object or array
//! items, decoded into batches of a schema with the corrupt-record column and the malformed
//! modes, and the schema Spark infers from them. Used by the JSON file reader, by
//! `spark.read.json` of strings, and by `schema_of_json`.

use std::borrow::Cow;
use std::sync::Arc;

use arrow::datatypes::{DataType, Field, Schema, SchemaRef};

use super::text::{JsonTextOptions, rewrite};
use crate::formats::{MalformedMode, spark_schema, unable_to_infer};
use crate::spark_error::{ErrorKind, SparkError, SparkResult};

/// The type Spark infers for one JSON value (`schema_of_json`).
pub fn infer_json_value_type(text: &str) -> SparkResult<DataType> {
    let value: serde_json::Value = serde_json::from_str(text).map_err(|e| {
        SparkError::analysis(
            "INVALID_JSON_SCHEMA_MAP_TYPE",
            "22032",
            format!("Cannot infer a schema from '{text}': {e}"),
        )
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
pub struct JsonRecord {
    value: Option<serde_json::Value>,
    text: Option<String>,
}

impl JsonRecord {
    pub fn is_malformed(&self) -> bool {
        self.value.is_none()
    }

    /// A line of JSON lines: its object, or malformed.
    pub fn of_line(text: String) -> Self {
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

/// The first JSON value of a record's text: like Spark's parser, what follows it (a
/// trailing comma, say) is not read.
fn first_json_value(text: &str) -> Option<serde_json::Value> {
    serde_json::Deserializer::from_str(text)
        .into_iter::<serde_json::Value>()
        .next()?
        .ok()
}

/// The JSON object a record's text starts with (None: a malformed record).
pub fn json_object(text: &str) -> Option<serde_json::Value> {
    first_json_value(text).filter(|v| v.is_object())
}

/// Spark's error for a malformed record under FAILFAST.
pub fn malformed_record() -> SparkError {
    SparkError::new(
        ErrorKind::Spark,
        "MALFORMED_RECORD_IN_PARSING.WITHOUT_SUGGESTION",
        "22023",
        "Malformed records are detected in record parsing: _corrupt_record. Parse Mode: FAILFAST. To process malformed records as null result, try setting the option 'mode' as 'PERMISSIVE'.",
        vec![],
    )
}

/// Where `schema` has the corrupt-record column, and the schema of the other columns (the
/// ones JSON values fill).
pub fn json_data_schema(schema: &SchemaRef, corrupt_column: &str) -> (Option<usize>, SchemaRef) {
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
) -> SparkResult<Vec<arrow::array::RecordBatch>> {
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
    let fits = |v: &serde_json::Value| -> SparkResult<bool> {
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
                        MalformedMode::FailFast => return Err(malformed_record()),
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
pub fn json_file_records(
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
pub fn json_lines_to_batches(
    lines: impl Iterator<Item = String>,
    schema: Option<SchemaRef>,
    mode: MalformedMode,
    corrupt_column: &str,
) -> SparkResult<(SchemaRef, Vec<arrow::array::RecordBatch>)> {
    let rows = lines.map(JsonRecord::of_line).collect();
    json_records_to_batches(rows, schema, mode, corrupt_column)
}

/// JSON records as batches of the given schema or of the one Spark infers, as `mode` says.
fn json_records_to_batches(
    rows: Vec<JsonRecord>,
    schema: Option<SchemaRef>,
    mode: MalformedMode,
    corrupt_column: &str,
) -> SparkResult<(SchemaRef, Vec<arrow::array::RecordBatch>)> {
    let schema = match schema {
        Some(s) => s,
        None => infer_json_records_schema(&rows, mode, corrupt_column)?,
    };
    let batches = json_records_in_mode(&schema, rows, mode, corrupt_column)?;
    Ok((schema, batches))
}

/// The schema Spark infers from JSON records: fields by name, all-NULL ones as strings, and
/// under PERMISSIVE the corrupt-record column when malformed records were met.
pub fn infer_json_records_schema(
    rows: &[JsonRecord],
    mode: MalformedMode,
    corrupt_column: &str,
) -> SparkResult<SchemaRef> {
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
pub fn json_records_in_mode(
    schema: &SchemaRef,
    mut rows: Vec<JsonRecord>,
    mode: MalformedMode,
    corrupt_column: &str,
) -> SparkResult<Vec<arrow::array::RecordBatch>> {
    match mode {
        MalformedMode::FailFast if rows.iter().any(|r| r.value.is_none()) => {
            return Err(malformed_record());
        }
        MalformedMode::DropMalformed => rows.retain(|r| r.value.is_some()),
        _ => {}
    }
    decode_json_rows(schema, &rows, corrupt_column, mode)
}
