//! JSON functions: `to_json`, `from_json` (with a DDL schema), `get_json_object`,
//! `json_array_length`, `json_object_keys`.

use std::sync::Arc;

use arrow::array::{
    Array, ArrayRef, AsArray, Int32Builder, ListArray, ListBuilder, MapArray, RecordBatch,
    StringBuilder, StructArray,
};
use arrow::buffer::NullBuffer;
use arrow::datatypes::{DataType, Field, Fields, Schema};
use datafusion::common::{Result, internal_err};
use ember_execution::values::datetime::format_timestamp;
use serde_json::Value;

use super::strings;

/// The type `from_json` reads with `schema` (a DDL string).
pub(super) fn schema_type(schema: &str, time_zone: &str) -> Result<DataType> {
    crate::types::parse_data_type(schema, time_zone)
        .map_err(|e| datafusion::error::DataFusionError::Plan(e.to_string()))
}

/// The chrono patterns `to_json` writes dates and timestamps with (None: arrow's ISO forms).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct JsonFormats {
    pub date: Option<String>,
    pub timestamp: Option<String>,
    pub timestamp_ntz: Option<String>,
}

/// `to_json(value)`: structs as objects (NULL fields left out), arrays and maps as JSON.
pub(super) fn to_json(arrays: &[ArrayRef], formats: &JsonFormats) -> Result<ArrayRef> {
    let Some(value) = arrays.first() else {
        return internal_err!("to_json without a value");
    };
    let value = &text_keys(value)?;
    let value = &match &formats.timestamp {
        Some(pattern) => spell_instants(value, pattern)?,
        None => value.clone(),
    };
    let (batch, wrapped) = match value.data_type() {
        // (The struct's NULL rows are written NULL below: its fields may hold anything there.)
        DataType::Struct(fields) => {
            let fields: Vec<Field> = fields
                .iter()
                .map(|f| f.as_ref().clone().with_nullable(true))
                .collect();
            (
                RecordBatch::try_new_with_options(
                    Arc::new(Schema::new(fields)),
                    value.as_struct().columns().to_vec(),
                    &arrow::array::RecordBatchOptions::new().with_row_count(Some(value.len())),
                )?,
                false,
            )
        }
        other => (
            RecordBatch::try_new(
                Arc::new(Schema::new(vec![Field::new("v", other.clone(), true)])),
                vec![value.clone()],
            )?,
            true,
        ),
    };
    let mut buffer = Vec::new();
    {
        let mut builder = arrow::json::WriterBuilder::new()
            .with_encoder_factory(ember_execution::formats::json::write::spark_json());
        if let Some(f) = &formats.date {
            builder = builder.with_date_format(f.clone());
        }
        if let Some(f) = &formats.timestamp_ntz {
            builder = builder.with_timestamp_format(f.clone());
        }
        let mut writer = builder.build::<_, arrow::json::writer::LineDelimited>(&mut buffer);
        writer.write(&batch)?;
        writer.finish()?;
    }
    let text = String::from_utf8(buffer)
        .map_err(|e| datafusion::error::DataFusionError::Execution(e.to_string()))?;
    let mut out = StringBuilder::with_capacity(value.len(), text.len());
    for (i, line) in text.lines().enumerate() {
        if value.is_null(i) {
            out.append_null();
        } else if wrapped {
            // `{"v":<json>}`
            let inner = line
                .strip_prefix("{\"v\":")
                .and_then(|l| l.strip_suffix('}'));
            match inner {
                Some(json) => out.append_value(json),
                None => out.append_null(),
            }
        } else {
            out.append_value(line);
        }
    }
    Ok(Arc::new(out.finish()))
}

/// Instants (TIMESTAMP) at any depth as the text Spark's JSON writer gives them: `pattern` (a
/// chrono pattern with Ember's offset markers, see `ember_execution::values::pattern`) in
/// their zone. (Arrow's writer knows neither Spark's `XXX` nor a fixed number of digits.)
fn spell_instants(array: &ArrayRef, pattern: &str) -> Result<ArrayRef> {
    Ok(match array.data_type() {
        DataType::Timestamp(unit, Some(zone)) => {
            let mut out = StringBuilder::with_capacity(array.len(), array.len() * 29);
            for i in 0..array.len() {
                if array.is_null(i) {
                    out.append_null();
                } else {
                    out.append_value(format_timestamp(array, unit, Some(zone), i, pattern)?);
                }
            }
            Arc::new(out.finish())
        }
        DataType::Struct(fields) => {
            let s = array.as_struct();
            let columns = s
                .columns()
                .iter()
                .map(|c| spell_instants(c, pattern))
                .collect::<Result<Vec<_>>>()?;
            let fields: Fields = fields
                .iter()
                .zip(&columns)
                .map(|(f, c)| Arc::new(f.as_ref().clone().with_data_type(c.data_type().clone())))
                .collect();
            Arc::new(StructArray::try_new(fields, columns, s.nulls().cloned())?)
        }
        DataType::List(field) => {
            let l = array.as_list::<i32>();
            let values = spell_instants(l.values(), pattern)?;
            let field = Arc::new(
                field
                    .as_ref()
                    .clone()
                    .with_data_type(values.data_type().clone()),
            );
            Arc::new(ListArray::try_new(
                field,
                l.offsets().clone(),
                values,
                l.nulls().cloned(),
            )?)
        }
        DataType::Map(field, sorted) => {
            let m = array.as_map();
            let entries: ArrayRef = Arc::new(m.entries().clone());
            let entries = spell_instants(&entries, pattern)?;
            let field = Arc::new(
                field
                    .as_ref()
                    .clone()
                    .with_data_type(entries.data_type().clone()),
            );
            Arc::new(MapArray::try_new(
                field,
                m.offsets().clone(),
                entries.as_struct().clone(),
                m.nulls().cloned(),
                *sorted,
            )?)
        }
        _ => array.clone(),
    })
}

/// Whether `t` holds a map whose keys are not text.
fn has_other_keys(t: &DataType) -> bool {
    match t {
        DataType::Map(entries, _) => match entries.data_type() {
            DataType::Struct(fields) => {
                fields
                    .first()
                    .is_some_and(|k| k.data_type() != &DataType::Utf8)
                    || fields.iter().any(|f| has_other_keys(f.data_type()))
            }
            _ => false,
        },
        DataType::List(f) => has_other_keys(f.data_type()),
        DataType::Struct(fields) => fields.iter().any(|f| has_other_keys(f.data_type())),
        _ => false,
    }
}

/// `array` with the keys of every map in it as text, as Spark writes them (`{"1":2}`);
/// arrow's JSON writer takes only text keys.
fn text_keys(array: &ArrayRef) -> Result<ArrayRef> {
    use arrow::array::{ListArray, MapArray};
    if !has_other_keys(array.data_type()) {
        return Ok(array.clone());
    }
    let retyped = |f: &Field, values: &ArrayRef| {
        Arc::new(f.clone().with_data_type(values.data_type().clone()))
    };
    Ok(match array.data_type() {
        DataType::Map(entry, sorted) => {
            let map = array.as_map();
            let DataType::Struct(fields) = entry.data_type() else {
                return Ok(array.clone());
            };
            let (Some(key), Some(value)) = (fields.first(), fields.get(1)) else {
                return Ok(array.clone());
            };
            // (Spark writes a key as its internal value's text: a date as its day number, a
            // timestamp as its microseconds.)
            let keys = match map.keys().data_type() {
                DataType::Date32 => arrow::compute::cast(map.keys(), &DataType::Int32)?,
                DataType::Timestamp(..) => arrow::compute::cast(map.keys(), &DataType::Int64)?,
                _ => map.keys().clone(),
            };
            let keys = arrow::compute::cast(&keys, &DataType::Utf8)?;
            let values = text_keys(map.values())?;
            let fields: arrow::datatypes::Fields =
                vec![retyped(key, &keys), retyped(value, &values)].into();
            let entries = StructArray::try_new(fields, vec![keys, values], None)?;
            let entry = retyped(entry, &(Arc::new(entries.clone()) as ArrayRef));
            Arc::new(MapArray::try_new(
                entry,
                map.offsets().clone(),
                entries,
                map.nulls().cloned(),
                *sorted,
            )?)
        }
        DataType::List(field) => {
            let list = array.as_list::<i32>();
            let values = text_keys(list.values())?;
            Arc::new(ListArray::try_new(
                retyped(field, &values),
                list.offsets().clone(),
                values,
                list.nulls().cloned(),
            )?)
        }
        DataType::Struct(fields) => {
            let s = array.as_struct();
            let columns = s
                .columns()
                .iter()
                .map(text_keys)
                .collect::<Result<Vec<_>>>()?;
            let fields: arrow::datatypes::Fields = fields
                .iter()
                .zip(&columns)
                .map(|(f, c)| retyped(f, c))
                .collect();
            Arc::new(StructArray::try_new(fields, columns, s.nulls().cloned())?)
        }
        _ => array.clone(),
    })
}

/// `from_json(text, schema)`: each text read as `target`; text that does not match reads
/// as a struct of NULLs (NULL for other types), as Spark's PERMISSIVE mode; blank text is
/// NULL.
pub(super) fn from_json(
    arrays: &[ArrayRef],
    target: &DataType,
    leniency: super::Leniency,
) -> Result<ArrayRef> {
    let text = strings(arrays, 0)?;
    let text = text.as_string::<i32>();
    let (schema, wrapped) = match target {
        DataType::Struct(fields) => (Arc::new(Schema::new(fields.clone())), false),
        other => (
            Arc::new(Schema::new(vec![Field::new("v", other.clone(), true)])),
            true,
        ),
    };
    let builder = || arrow::json::ReaderBuilder::new(schema.clone()).build_decoder();
    let mut decoder = builder()?;
    let mut batches = Vec::with_capacity(text.len());
    for i in 0..text.len() {
        let row = if text.is_null(i) {
            "{}".to_string()
        } else if wrapped {
            format!("{{\"v\":{}}}", leniency.strict(text.value(i)))
        } else {
            leniency.strict(text.value(i)).into_owned()
        };
        let decoded = decoder
            .decode(row.as_bytes())
            .and_then(|_| decoder.decode(b"\n"))
            .and_then(|_| decoder.flush());
        match decoded {
            Ok(Some(batch)) if batch.num_rows() == 1 => batches.push(batch),
            _ => {
                decoder = builder()?;
                decoder.decode(b"{}\n")?;
                match decoder.flush()? {
                    Some(batch) => batches.push(batch),
                    None => return internal_err!("from_json: no row for an empty object"),
                }
            }
        }
    }
    let batch = arrow::compute::concat_batches(&schema, &batches)?;
    // (Empty or blank text is NULL, as in Spark.)
    let nulls = NullBuffer::from_iter(
        (0..text.len()).map(|i| !text.is_null(i) && !text.value(i).trim().is_empty()),
    );
    if wrapped {
        let column = batch.column(0).clone();
        let merged = NullBuffer::union(column.nulls(), Some(&nulls));
        let data = column.to_data().into_builder().nulls(merged).build()?;
        return Ok(arrow::array::make_array(data));
    }
    let fields = schema.fields().clone();
    Ok(Arc::new(StructArray::try_new(
        fields,
        batch.columns().to_vec(),
        Some(nulls),
    )?))
}

/// A step of a JSON path: `.a` / `['a']`, `[1]`, `[*]`.
#[derive(Debug, Clone, PartialEq)]
enum Step {
    Named(String),
    Index(usize),
    Wildcard,
}

/// Steps of a JSON path: `$.a.b[1]`, `$['a']`, `$.a[*].b`.
fn path_steps(path: &str) -> Option<Vec<Step>> {
    let rest = path.strip_prefix('$')?;
    let chars: Vec<char> = rest.chars().collect();
    let mut steps = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '.' => {
                let start = i + 1;
                i = start;
                while i < chars.len() && chars[i] != '.' && chars[i] != '[' {
                    i += 1;
                }
                let name: String = chars[start..i].iter().collect();
                if name.is_empty() || name == "*" {
                    return None;
                }
                steps.push(Step::Named(name));
            }
            '[' => {
                let close = chars[i..].iter().position(|&c| c == ']')? + i;
                let inside: String = chars[i + 1..close].iter().collect();
                let inside = inside.trim();
                if let Some(name) = inside.strip_prefix('\'').and_then(|s| s.strip_suffix('\'')) {
                    steps.push(Step::Named(name.to_string()));
                } else if inside == "*" {
                    steps.push(Step::Wildcard);
                } else {
                    steps.push(Step::Index(inside.parse::<usize>().ok()?));
                }
                i = close + 1;
            }
            _ => return None,
        }
    }
    Some(steps)
}

/// How a match is written: strings bare (the path's own value), quoted (one of several
/// matches), or arrays flattened into the enclosing one (Hive's double wildcard).
#[derive(Clone, Copy, PartialEq)]
enum Style {
    Raw,
    Quoted,
    Flatten,
}

/// A JSON text being written, with the separators between array elements (as Jackson's
/// generator writes them).
#[derive(Default)]
struct JsonOut {
    text: String,
    /// For each open array, whether it has an element yet.
    open: Vec<bool>,
}

impl JsonOut {
    fn separate(&mut self) {
        if let Some(has) = self.open.last_mut() {
            if *has {
                self.text.push(',');
            }
            *has = true;
        }
    }
    fn value(&mut self, json: &str) {
        self.separate();
        self.text.push_str(json);
    }
    fn start_array(&mut self) {
        self.separate();
        self.text.push('[');
        self.open.push(false);
    }
    fn end_array(&mut self) {
        self.text.push(']');
        self.open.pop();
    }
}

/// Spark's `get_json_object` path evaluation (Hive's: a wildcard's matches as a JSON array,
/// one match unwrapped, NULL values skipped), over a parsed value; whether it wrote a match.
fn evaluate_path(value: &Value, out: &mut JsonOut, style: Style, path: &[Step]) -> bool {
    match (value, path) {
        (Value::String(s), []) if style == Style::Raw => {
            out.value(s);
            true
        }
        (Value::Array(items), []) if style == Style::Flatten => {
            let mut dirty = false;
            for item in items {
                dirty |= evaluate_path(item, out, style, &[]);
            }
            dirty
        }
        (v, []) => {
            out.value(&v.to_string());
            true
        }
        (Value::Object(fields), [Step::Named(name), rest @ ..]) => match fields.get(name) {
            None | Some(Value::Null) => false,
            Some(v) => evaluate_path(v, out, style, rest),
        },
        (Value::Array(items), [Step::Wildcard, Step::Wildcard, rest @ ..]) => {
            let mut dirty = false;
            out.start_array();
            for item in items {
                dirty |= evaluate_path(item, out, Style::Flatten, rest);
            }
            out.end_array();
            dirty
        }
        (Value::Array(items), [Step::Wildcard, rest @ ..]) if style != Style::Quoted => {
            let next = if style == Style::Raw {
                Style::Quoted
            } else {
                Style::Flatten
            };
            let mut inner = JsonOut::default();
            inner.start_array();
            let mut matches = 0;
            for item in items {
                matches += usize::from(evaluate_path(item, &mut inner, next, rest));
            }
            inner.end_array();
            let text = inner.text;
            match matches {
                0 => {}
                1 => out.value(&text[1..text.len() - 1]),
                _ => out.value(&text),
            }
            matches > 0
        }
        (Value::Array(items), [Step::Wildcard, rest @ ..]) => {
            let mut dirty = false;
            out.start_array();
            for item in items {
                dirty |= evaluate_path(item, out, Style::Quoted, rest);
            }
            out.end_array();
            dirty
        }
        (Value::Array(items), [Step::Index(i), rest @ ..]) => {
            let style = if matches!(rest.first(), Some(Step::Wildcard)) {
                Style::Quoted
            } else {
                style
            };
            items
                .get(*i)
                .is_some_and(|item| evaluate_path(item, out, style, rest))
        }
        _ => false,
    }
}

pub(super) fn get_json_object(arrays: &[ArrayRef]) -> Result<ArrayRef> {
    let text = strings(arrays, 0)?;
    let paths = strings(arrays, 1)?;
    let (text, paths) = (text.as_string::<i32>(), paths.as_string::<i32>());
    let mut out = StringBuilder::new();
    for i in 0..text.len() {
        if text.is_null(i) || paths.is_null(i) {
            out.append_null();
            continue;
        }
        let found = (|| {
            let steps = path_steps(paths.value(i))?;
            // (Spark's reader takes single-quoted strings here too.)
            let text = super::Leniency::default().strict(text.value(i));
            let value: Value = serde_json::from_str(&text).ok()?;
            let mut written = JsonOut::default();
            evaluate_path(&value, &mut written, Style::Raw, &steps).then_some(written.text)
        })();
        match found {
            Some(s) => out.append_value(s),
            None => out.append_null(),
        }
    }
    Ok(Arc::new(out.finish()))
}

pub(super) fn json_array_length(arrays: &[ArrayRef]) -> Result<ArrayRef> {
    let text = strings(arrays, 0)?;
    let text = text.as_string::<i32>();
    let mut out = Int32Builder::new();
    for i in 0..text.len() {
        match (!text.is_null(i))
            .then(|| serde_json::from_str::<Value>(text.value(i)).ok())
            .flatten()
        {
            Some(Value::Array(a)) => out.append_value(a.len() as i32),
            _ => out.append_null(),
        }
    }
    Ok(Arc::new(out.finish()))
}

pub(super) fn json_object_keys(arrays: &[ArrayRef]) -> Result<ArrayRef> {
    let text = strings(arrays, 0)?;
    let text = text.as_string::<i32>();
    let mut out = ListBuilder::new(StringBuilder::new());
    for i in 0..text.len() {
        match (!text.is_null(i))
            .then(|| serde_json::from_str::<Value>(text.value(i)).ok())
            .flatten()
        {
            Some(Value::Object(m)) => {
                for k in m.keys() {
                    out.values().append_value(k);
                }
                out.append(true);
            }
            _ => out.append_null(),
        }
    }
    Ok(Arc::new(out.finish()))
}
