//! JSON functions: `to_json`, `from_json` (with a DDL schema), `get_json_object`,
//! `json_array_length`, `json_object_keys`.

use std::sync::Arc;

use arrow::array::{
    Array, ArrayRef, AsArray, Int32Builder, ListBuilder, RecordBatch, StringBuilder, StructArray,
};
use arrow::buffer::NullBuffer;
use arrow::datatypes::{DataType, Field, Schema};
use datafusion::common::{Result, internal_err};
use serde_json::Value;

use super::strings;

/// The type `from_json` reads with `schema` (a DDL string).
pub(super) fn schema_type(schema: &str, time_zone: &str) -> Result<DataType> {
    crate::types::parse_data_type(schema, time_zone)
        .map_err(|e| datafusion::error::DataFusionError::Plan(e.to_string()))
}

/// `to_json(value)`: structs as objects (NULL fields left out), arrays and maps as JSON.
pub(super) fn to_json(arrays: &[ArrayRef]) -> Result<ArrayRef> {
    let Some(value) = arrays.first() else {
        return internal_err!("to_json without a value");
    };
    let (batch, wrapped) = match value.data_type() {
        DataType::Struct(_) => (RecordBatch::from(value.as_struct().clone()), false),
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
        let mut writer = arrow::json::LineDelimitedWriter::new(&mut buffer);
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

/// `from_json(text, schema)`: each text read as `target`; text that does not match reads
/// as a struct of NULLs (NULL for other types), as Spark's PERMISSIVE mode.
pub(super) fn from_json(arrays: &[ArrayRef], target: &DataType) -> Result<ArrayRef> {
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
            format!("{{\"v\":{}}}", text.value(i))
        } else {
            text.value(i).to_string()
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
    let nulls = NullBuffer::from_iter((0..text.len()).map(|i| !text.is_null(i)));
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

/// Steps of a JSON path: `$.a.b[1]`, `$['a']`.
fn path_steps(path: &str) -> Option<Vec<Result<String, usize>>> {
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
                if i == start {
                    return None;
                }
                steps.push(Ok(chars[start..i].iter().collect()));
            }
            '[' => {
                let close = chars[i..].iter().position(|&c| c == ']')? + i;
                let inside: String = chars[i + 1..close].iter().collect();
                let inside = inside.trim();
                if let Some(name) = inside.strip_prefix('\'').and_then(|s| s.strip_suffix('\'')) {
                    steps.push(Ok(name.to_string()));
                } else {
                    steps.push(Err(inside.parse::<usize>().ok()?));
                }
                i = close + 1;
            }
            _ => return None,
        }
    }
    Some(steps)
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
            let mut value: Value = serde_json::from_str(text.value(i)).ok()?;
            for step in steps {
                value = match (step, value) {
                    (Ok(name), Value::Object(mut m)) => m.remove(&name)?,
                    (Err(n), Value::Array(mut a)) if n < a.len() => a.swap_remove(n),
                    _ => return None,
                };
            }
            match value {
                Value::Null => None,
                Value::String(s) => Some(s),
                other => Some(other.to_string()),
            }
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
