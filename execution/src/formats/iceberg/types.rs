//! Iceberg's JSON types of Spark's Arrow types, with field ids (a new table's schema, the
//! schema of a replacement), and the Arrow types a data file is written in: the table's
//! types, each field carrying its Iceberg field id (parquet `field_id`).

use std::collections::HashMap;
use std::sync::Arc;

use arrow::datatypes::{DataType, Field};
use serde_json::{Value, json};

use super::{self as iceberg, FIELD_ID, TableMetadata};
use crate::spark_error::{SparkError, SparkResult};

fn invalid(text: impl Into<String>) -> SparkError {
    SparkError::invalid_plan(text.into())
}

/// The Iceberg type of an Arrow type (Spark's types), with field ids from `next` for nested
/// fields.
pub(super) fn iceberg_type(t: &DataType, next: &mut i64) -> SparkResult<Value> {
    Ok(match t {
        DataType::Boolean => json!("boolean"),
        DataType::Int8 | DataType::Int16 | DataType::Int32 => json!("int"),
        DataType::Int64 => json!("long"),
        DataType::Float32 => json!("float"),
        DataType::Float64 => json!("double"),
        DataType::Decimal128(p, s) => json!(format!("decimal({p}, {s})")),
        DataType::Date32 => json!("date"),
        DataType::Timestamp(_, None) => json!("timestamp"),
        DataType::Timestamp(_, Some(_)) => json!("timestamptz"),
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => json!("string"),
        DataType::Binary | DataType::LargeBinary | DataType::BinaryView => json!("binary"),
        DataType::Struct(fields) => {
            let ids: Vec<i64> = fields.iter().map(|_| take(next)).collect();
            let mut out = vec![];
            for (f, id) in fields.iter().zip(ids) {
                out.push(json!({
                    "id": id,
                    "name": f.name(),
                    "required": !f.is_nullable(),
                    "type": iceberg_type(f.data_type(), next)?,
                }));
            }
            json!({"type": "struct", "fields": out})
        }
        DataType::List(element) => {
            let id = take(next);
            json!({
                "type": "list",
                "element-id": id,
                "element-required": !element.is_nullable(),
                "element": iceberg_type(element.data_type(), next)?,
            })
        }
        DataType::Map(entries, _) => {
            let DataType::Struct(kv) = entries.data_type() else {
                return Err(invalid("a map without entries"));
            };
            let (key_id, value_id) = (take(next), take(next));
            json!({
                "type": "map",
                "key-id": key_id,
                "key": iceberg_type(kv[0].data_type(), next)?,
                "value-id": value_id,
                "value-required": !kv[1].is_nullable(),
                "value": iceberg_type(kv[1].data_type(), next)?,
            })
        }
        other => {
            return Err(SparkError::unsupported(format!(
                "writing {other} columns to Iceberg tables"
            )));
        }
    })
}

pub(super) fn take(next: &mut i64) -> i64 {
    *next += 1;
    *next
}

/// An Iceberg schema (ids from 1) for Arrow fields.
pub fn schema_json(fields: &[Field]) -> SparkResult<(Value, i64)> {
    let mut next = fields.len() as i64;
    let mut out = vec![];
    for (i, f) in fields.iter().enumerate() {
        out.push(json!({
            "id": i as i64 + 1,
            "name": f.name(),
            "required": false,
            "type": iceberg_type(f.data_type(), &mut next)?,
        }));
    }
    Ok((
        json!({"type": "struct", "schema-id": 0, "identifier-field-ids": [], "fields": out}),
        next,
    ))
}

/// The Arrow fields of an Iceberg struct's fields with their field ids (parquet `field_id`).
pub(super) fn with_ids(fields: &[Field], json_fields: &[Value]) -> SparkResult<Vec<Field>> {
    fields
        .iter()
        .zip(json_fields)
        .map(|(f, j)| {
            let id = j.get("id").and_then(Value::as_i64).unwrap_or(0);
            let t = typed_ids(f.data_type(), j.get("type").unwrap_or(&Value::Null))?;
            Ok(Field::new(f.name(), t, f.is_nullable())
                .with_metadata(HashMap::from([(FIELD_ID.to_string(), id.to_string())])))
        })
        .collect()
}

fn id_field(f: &Field, id: Option<i64>, t: &Value) -> SparkResult<Field> {
    let inner = typed_ids(f.data_type(), t)?;
    Ok(
        Field::new(f.name(), inner, f.is_nullable()).with_metadata(HashMap::from([(
            FIELD_ID.to_string(),
            id.unwrap_or(0).to_string(),
        )])),
    )
}

fn typed_ids(t: &DataType, j: &Value) -> SparkResult<DataType> {
    Ok(match t {
        DataType::Struct(fields) => {
            let json_fields = j
                .get("fields")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            let plain: Vec<Field> = fields.iter().map(|f| f.as_ref().clone()).collect();
            DataType::Struct(with_ids(&plain, &json_fields)?.into())
        }
        DataType::List(element) => DataType::List(Arc::new(id_field(
            element,
            j.get("element-id").and_then(Value::as_i64),
            j.get("element").unwrap_or(&Value::Null),
        )?)),
        DataType::Map(entries, sorted) => {
            let DataType::Struct(kv) = entries.data_type() else {
                return Err(invalid("a map without entries"));
            };
            let key = id_field(
                &kv[0],
                j.get("key-id").and_then(Value::as_i64),
                j.get("key").unwrap_or(&Value::Null),
            )?;
            let value = id_field(
                &kv[1],
                j.get("value-id").and_then(Value::as_i64),
                j.get("value").unwrap_or(&Value::Null),
            )?;
            DataType::Map(
                Arc::new(Field::new(
                    entries.name(),
                    DataType::Struct(vec![key, value].into()),
                    false,
                )),
                *sorted,
            )
        }
        other => other.clone(),
    })
}

/// The table's current schema as Arrow fields (Spark's types).
pub fn table_fields(table: &TableMetadata) -> SparkResult<Vec<Field>> {
    let schema = table.schema_for(None, false)?;
    Ok(iceberg::arrow_schema(schema)?
        .fields()
        .iter()
        .map(|f| f.as_ref().clone())
        .collect())
}
