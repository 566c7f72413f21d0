//! Spark data types as Arrow types: conversion from and to Spark Connect's `DataType`,
//! Spark's DDL type strings (`"a INT, b ARRAY<STRING>"`), its JSON schema form, and Spark's
//! printed names (`simpleString`, SQL names used in column names such as `CAST(x AS INT)`).
//!
//! Mapping: byte/short/int/long -> Int8/16/32/64, float/double -> Float32/64, decimal(p,s) ->
//! Decimal128(p,s), string/char/varchar -> Utf8, binary -> Binary, boolean -> Boolean, date ->
//! Date32, timestamp -> Timestamp(us, session zone), timestamp_ntz -> Timestamp(us, None),
//! timestamp_ltz(9)/timestamp_ntz(9) (Spark 4.3's nanosecond timestamps) -> Timestamp(ns, ..),
//! day-time interval -> Duration(us), year-month interval -> Interval(YearMonth), calendar
//! interval -> Interval(MonthDayNano), void -> Null, array/map/struct -> List/Map/Struct.

use std::sync::Arc;

use arrow::datatypes::{DataType, Field, Fields, IntervalUnit, Schema, TimeUnit};
use ember_protos::spark::connect as pb;
use ember_protos::spark::connect::data_type::Kind;

use crate::error::{PlanError, PlanResult, SparkError};
use crate::interval::IntervalFields;

mod parse;
pub use parse::{parse_data_type, parse_schema};

/// The zone Ember stores in `Timestamp` types when no session zone is known.
pub const DEFAULT_TIME_ZONE: &str = "UTC";

pub fn timestamp_type(time_zone: &str) -> DataType {
    DataType::Timestamp(TimeUnit::Microsecond, Some(Arc::from(time_zone)))
}

pub fn list_type(element: DataType, contains_null: bool) -> DataType {
    DataType::List(Arc::new(Field::new_list_field(element, contains_null)))
}

pub fn map_type(key: DataType, value: DataType, value_contains_null: bool) -> DataType {
    let entries = Field::new(
        "entries",
        DataType::Struct(Fields::from(vec![
            Field::new("key", key, false),
            Field::new("value", value, value_contains_null),
        ])),
        false,
    );
    DataType::Map(Arc::new(entries), false)
}

/// The field metadata that marks a struct `{value, metadata}` as Spark's VARIANT (PySpark
/// reads such a struct as a `VariantVal`).
pub const VARIANT_KEY: &str = "variant";

/// Spark's VARIANT as Arrow: its binary value and metadata, the metadata field marked.
pub fn variant_type() -> DataType {
    let marker = std::collections::HashMap::from([(VARIANT_KEY.to_string(), "true".to_string())]);
    DataType::Struct(Fields::from(vec![
        Field::new("value", DataType::Binary, false),
        Field::new("metadata", DataType::Binary, false).with_metadata(marker),
    ]))
}

/// Spark's spatial type families.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Spatial {
    Geometry,
    Geography,
}

impl Spatial {
    fn key(self) -> &'static str {
        match self {
            Spatial::Geometry => "geometry",
            Spatial::Geography => "geography",
        }
    }
}

/// The SRID of a spatial type whose values may each have their own.
pub const MIXED_SRID: i32 = -1;

/// Spark's GEOMETRY(srid) and GEOGRAPHY(srid) as PySpark reads them: a struct of the SRID and
/// the WKB, the WKB field tagged with the family and the type's SRID.
pub fn spatial_type(family: Spatial, srid: i32) -> DataType {
    let marker = std::collections::HashMap::from([
        (family.key().to_string(), "true".to_string()),
        ("srid".to_string(), srid.to_string()),
    ]);
    DataType::Struct(Fields::from(vec![
        Field::new("srid", DataType::Int32, false),
        Field::new("wkb", DataType::Binary, false).with_metadata(marker),
    ]))
}

/// The family and SRID of a spatial type (see [`spatial_type`]).
pub fn spatial_of(dt: &DataType) -> Option<(Spatial, i32)> {
    let DataType::Struct(fields) = dt else {
        return None;
    };
    if fields.len() != 2 || fields[0].name() != "srid" {
        return None;
    }
    let wkb = &fields[1];
    let family = [Spatial::Geometry, Spatial::Geography]
        .into_iter()
        .find(|f| wkb.metadata().get(f.key()).is_some_and(|v| v == "true"))?;
    let srid = wkb.metadata().get("srid")?.parse().ok()?;
    Some((family, srid))
}

fn spatial_name(family: Spatial, srid: i32) -> String {
    if srid == MIXED_SRID {
        format!("{}(any)", family.key())
    } else {
        format!("{}({srid})", family.key())
    }
}

/// Whether `dt` is Spark's VARIANT (see [`variant_type`]).
pub fn is_variant(dt: &DataType) -> bool {
    match dt {
        DataType::Struct(fields) => {
            fields.len() == 2
                && fields.iter().any(|f| f.name() == "value")
                && fields.iter().any(|f| {
                    f.name() == "metadata"
                        && f.metadata().get(VARIANT_KEY).is_some_and(|v| v == "true")
                })
        }
        _ => false,
    }
}

/// Spark Connect `DataType` -> Arrow.
pub fn from_proto(dt: &pb::DataType, time_zone: &str) -> PlanResult<DataType> {
    let kind = dt
        .kind
        .as_ref()
        .ok_or_else(|| PlanError::InvalidPlan("data type without kind".into()))?;
    Ok(match kind {
        Kind::Null(_) => DataType::Null,
        Kind::Binary(_) => DataType::Binary,
        Kind::Boolean(_) => DataType::Boolean,
        Kind::Byte(_) => DataType::Int8,
        Kind::Short(_) => DataType::Int16,
        Kind::Integer(_) => DataType::Int32,
        Kind::Long(_) => DataType::Int64,
        Kind::Float(_) => DataType::Float32,
        Kind::Double(_) => DataType::Float64,
        Kind::Decimal(d) => decimal_type(d.precision.unwrap_or(10), d.scale.unwrap_or(0))?,
        Kind::String(_) | Kind::Char(_) | Kind::VarChar(_) => DataType::Utf8,
        Kind::Date(_) => DataType::Date32,
        Kind::Timestamp(_) => timestamp_type(time_zone),
        Kind::TimestampNtz(_) => DataType::Timestamp(TimeUnit::Microsecond, None),
        Kind::CalendarInterval(_) => DataType::Interval(IntervalUnit::MonthDayNano),
        Kind::YearMonthInterval(_) => DataType::Interval(IntervalUnit::YearMonth),
        Kind::DayTimeInterval(_) => DataType::Duration(TimeUnit::Microsecond),
        Kind::Array(a) => {
            let element = a
                .element_type
                .as_ref()
                .ok_or_else(|| PlanError::InvalidPlan("array type without element".into()))?;
            list_type(from_proto(element, time_zone)?, a.contains_null)
        }
        Kind::Struct(s) => DataType::Struct(fields_from_proto(&s.fields, time_zone)?),
        Kind::Map(m) => {
            let (Some(k), Some(v)) = (&m.key_type, &m.value_type) else {
                return Err(PlanError::InvalidPlan(
                    "map type without key or value".into(),
                ));
            };
            map_type(
                from_proto(k, time_zone)?,
                from_proto(v, time_zone)?,
                m.value_contains_null,
            )
        }
        Kind::Unparsed(u) => parse_data_type(&u.data_type_string, time_zone)?,
        Kind::Udt(u) => match &u.sql_type {
            Some(t) => from_proto(t, time_zone)?,
            None => {
                return Err(PlanError::Unsupported(format!(
                    "user-defined type {}",
                    u.r#type
                )));
            }
        },
        Kind::Variant(_) => variant_type(),
        Kind::Geometry(g) => spatial_type(Spatial::Geometry, g.srid),
        Kind::Geography(g) => spatial_type(Spatial::Geography, g.srid),
        Kind::Time(_) => DataType::Time64(TimeUnit::Microsecond),
        Kind::TimestampNtzNanos(_) => DataType::Timestamp(TimeUnit::Nanosecond, None),
        Kind::TimestampLtzNanos(_) => {
            DataType::Timestamp(TimeUnit::Nanosecond, Some(Arc::from(time_zone)))
        }
    })
}

pub fn fields_from_proto(
    fields: &[pb::data_type::StructField],
    time_zone: &str,
) -> PlanResult<Fields> {
    fields
        .iter()
        .map(|f| {
            let dt = f
                .data_type
                .as_ref()
                .ok_or_else(|| PlanError::InvalidPlan(format!("field {} without type", f.name)))?;
            Ok(Field::new(&f.name, from_proto(dt, time_zone)?, f.nullable))
        })
        .collect::<PlanResult<Vec<_>>>()
        .map(Fields::from)
}

pub fn decimal_type(precision: i32, scale: i32) -> PlanResult<DataType> {
    if !(1..=38).contains(&precision) || scale < 0 || scale > precision {
        return Err(SparkError::decimal_precision_exceeds_max(
            precision,
            crate::error::ErrorKind::Analysis,
        )
        .into());
    }
    Ok(DataType::Decimal128(precision as u8, scale as i8))
}

/// The Spark Connect type of a column: its type, with the fields of an interval type its
/// metadata names (see [`crate::interval`]).
pub fn field_to_proto(f: &Field) -> PlanResult<pb::DataType> {
    use pb::data_type as t;
    let kind = match IntervalFields::of_field(f) {
        Some(q) if q.year_month => Kind::YearMonthInterval(t::YearMonthInterval {
            start_field: Some(q.start as i32),
            end_field: Some(q.end as i32),
            type_variation_reference: 0,
        }),
        Some(q) => Kind::DayTimeInterval(t::DayTimeInterval {
            start_field: Some(q.start as i32),
            end_field: Some(q.end as i32),
            type_variation_reference: 0,
        }),
        None => return to_proto(f.data_type()),
    };
    Ok(pb::DataType { kind: Some(kind) })
}

/// Arrow -> Spark Connect `DataType` (for schemas sent to the client).
pub fn to_proto(dt: &DataType) -> PlanResult<pb::DataType> {
    use pb::data_type as t;
    let kind = match dt {
        DataType::Null => Kind::Null(t::Null::default()),
        DataType::Boolean => Kind::Boolean(t::Boolean::default()),
        DataType::Int8 => Kind::Byte(t::Byte::default()),
        DataType::Int16 | DataType::UInt8 => Kind::Short(t::Short::default()),
        DataType::Int32 | DataType::UInt16 => Kind::Integer(t::Integer::default()),
        DataType::Int64 | DataType::UInt32 => Kind::Long(t::Long::default()),
        DataType::UInt64 => Kind::Decimal(t::Decimal {
            precision: Some(20),
            scale: Some(0),
            type_variation_reference: 0,
        }),
        DataType::Float16 | DataType::Float32 => Kind::Float(t::Float::default()),
        DataType::Float64 => Kind::Double(t::Double::default()),
        DataType::Decimal32(p, s) | DataType::Decimal64(p, s) | DataType::Decimal128(p, s) => {
            Kind::Decimal(t::Decimal {
                precision: Some(*p as i32),
                scale: Some(*s as i32),
                type_variation_reference: 0,
            })
        }
        DataType::Decimal256(p, s) => Kind::Decimal(t::Decimal {
            precision: Some((*p as i32).min(38)),
            scale: Some(*s as i32),
            type_variation_reference: 0,
        }),
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => {
            Kind::String(t::String::default())
        }
        DataType::Binary
        | DataType::LargeBinary
        | DataType::BinaryView
        | DataType::FixedSizeBinary(_) => Kind::Binary(t::Binary::default()),
        DataType::Date32 | DataType::Date64 => Kind::Date(t::Date::default()),
        DataType::Timestamp(TimeUnit::Nanosecond, Some(_)) => {
            Kind::TimestampLtzNanos(t::TimestampLtzNanos {
                precision: Some(9),
                type_variation_reference: 0,
            })
        }
        DataType::Timestamp(TimeUnit::Nanosecond, None) => {
            Kind::TimestampNtzNanos(t::TimestampNtzNanos {
                precision: Some(9),
                type_variation_reference: 0,
            })
        }
        DataType::Timestamp(_, Some(_)) => Kind::Timestamp(t::Timestamp::default()),
        DataType::Timestamp(_, None) => Kind::TimestampNtz(t::TimestampNtz::default()),
        DataType::Duration(_) => Kind::DayTimeInterval(t::DayTimeInterval {
            start_field: Some(0),
            end_field: Some(3),
            type_variation_reference: 0,
        }),
        DataType::Interval(IntervalUnit::YearMonth) => {
            Kind::YearMonthInterval(t::YearMonthInterval {
                start_field: Some(0),
                end_field: Some(1),
                type_variation_reference: 0,
            })
        }
        DataType::Interval(_) => Kind::CalendarInterval(t::CalendarInterval::default()),
        DataType::List(f)
        | DataType::LargeList(f)
        | DataType::ListView(f)
        | DataType::LargeListView(f)
        | DataType::FixedSizeList(f, _) => Kind::Array(Box::new(t::Array {
            element_type: Some(Box::new(field_to_proto(f)?)),
            contains_null: f.is_nullable(),
            type_variation_reference: 0,
        })),
        d if is_variant(d) => Kind::Variant(t::Variant::default()),
        d if spatial_of(d).is_some() => match spatial_of(d) {
            Some((Spatial::Geography, srid)) => Kind::Geography(t::Geography {
                srid,
                type_variation_reference: 0,
            }),
            _ => Kind::Geometry(t::Geometry {
                srid: spatial_of(d).map_or(0, |(_, srid)| srid),
                type_variation_reference: 0,
            }),
        },
        DataType::Struct(fields) => Kind::Struct(t::Struct {
            fields: fields
                .iter()
                .map(|f| {
                    Ok(t::StructField {
                        name: f.name().clone(),
                        data_type: Some(field_to_proto(f)?),
                        nullable: f.is_nullable(),
                        metadata: proto_metadata(f),
                    })
                })
                .collect::<PlanResult<Vec<_>>>()?,
            type_variation_reference: 0,
        }),
        DataType::Map(entries, _) => {
            let (key, value) = map_key_value(entries.data_type())?;
            Kind::Map(Box::new(t::Map {
                key_type: Some(Box::new(field_to_proto(key)?)),
                value_type: Some(Box::new(field_to_proto(value)?)),
                value_contains_null: value.is_nullable(),
                type_variation_reference: 0,
            }))
        }
        DataType::Dictionary(_, v) => return to_proto(v),
        DataType::Time32(_) | DataType::Time64(_) => Kind::Time(t::Time {
            precision: Some(6),
            type_variation_reference: 0,
        }),
        other => return Err(PlanError::Unsupported(format!("data type {other}"))),
    };
    Ok(pb::DataType { kind: Some(kind) })
}

/// Whether `t` is one of Arrow's text types (Spark's STRING).
pub fn is_text(t: &DataType) -> bool {
    matches!(t, DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View)
}

/// Whether `t` is one of Arrow's binary types (Spark's BINARY).
pub fn is_binary(t: &DataType) -> bool {
    matches!(
        t,
        DataType::Binary | DataType::LargeBinary | DataType::BinaryView
    )
}

/// The key type of a MAP (None for other types).
pub fn map_key_type(t: &DataType) -> Option<&DataType> {
    match t {
        DataType::Map(entries, _) => map_key_value(entries.data_type())
            .ok()
            .map(|(key, _)| key.data_type()),
        _ => None,
    }
}

fn map_key_value(entries: &DataType) -> PlanResult<(&Arc<Field>, &Arc<Field>)> {
    match entries {
        DataType::Struct(f) if f.len() == 2 => Ok((&f[0], &f[1])),
        other => Err(PlanError::InvalidPlan(format!(
            "bad map entries type {other}"
        ))),
    }
}

pub fn schema_to_proto(schema: &Schema, names: &[String]) -> PlanResult<pb::DataType> {
    use pb::data_type as t;
    let fields = schema
        .fields()
        .iter()
        .zip(names)
        .map(|(f, name)| {
            Ok(t::StructField {
                name: name.clone(),
                data_type: Some(field_to_proto(f)?),
                nullable: f.is_nullable(),
                metadata: proto_metadata(f),
            })
        })
        .collect::<PlanResult<Vec<_>>>()?;
    Ok(pb::DataType {
        kind: Some(Kind::Struct(t::Struct {
            fields,
            type_variation_reference: 0,
        })),
    })
}

/// Spark's JSON form of a type (`DataType.json()`), as the catalog stores table schemas.
/// Field comments (Arrow metadata `comment`) are kept in the field's metadata.
pub fn to_spark_json(dt: &DataType) -> PlanResult<serde_json::Value> {
    use serde_json::{Value, json};
    Ok(match dt {
        d if is_variant(d) => Value::String("variant".into()),
        d if spatial_of(d).is_some() => {
            Value::String(spatial_of(d).map_or_else(String::new, |(f, srid)| spatial_name(f, srid)))
        }
        DataType::Struct(fields) => json!({
            "type": "struct",
            "fields": fields
                .iter()
                .map(|f| field_json(f))
                .collect::<PlanResult<Vec<_>>>()?,
        }),
        DataType::List(f)
        | DataType::LargeList(f)
        | DataType::ListView(f)
        | DataType::LargeListView(f)
        | DataType::FixedSizeList(f, _) => json!({
            "type": "array",
            "elementType": field_spark_json(f)?,
            "containsNull": f.is_nullable(),
        }),
        DataType::Map(entries, _) => {
            let (key, value) = map_key_value(entries.data_type())?;
            json!({
                "type": "map",
                "keyType": field_spark_json(key)?,
                "valueType": field_spark_json(value)?,
                "valueContainsNull": value.is_nullable(),
            })
        }
        other => Value::String(simple_string(other)),
    })
}

fn field_json(f: &Field) -> PlanResult<serde_json::Value> {
    let metadata = spark_metadata(f);
    Ok(serde_json::json!({
        "name": f.name(),
        "type": field_spark_json(f)?,
        "nullable": f.is_nullable(),
        "metadata": metadata,
    }))
}

/// The field metadata key of a column's comment (`COMMENT '...'` in DDL), as in Spark.
pub const COMMENT_KEY: &str = "comment";

/// The field metadata key holding a column's Spark metadata (`alias(metadata=...)`,
/// `withMetadata`) as Spark's JSON object.
pub const SPARK_METADATA_KEY: &str = "spark.metadata";

/// A field's Spark metadata as a JSON object: what `alias(metadata=...)` gave it, and its
/// comment.
pub fn spark_metadata(f: &Field) -> serde_json::Map<String, serde_json::Value> {
    let mut metadata = f
        .metadata()
        .get(SPARK_METADATA_KEY)
        .and_then(|m| serde_json::from_str::<serde_json::Value>(m).ok())
        .and_then(|v| match v {
            serde_json::Value::Object(o) => Some(o),
            _ => None,
        })
        .unwrap_or_default();
    if let Some(c) = f.metadata().get(COMMENT_KEY) {
        metadata.insert(COMMENT_KEY.into(), serde_json::Value::String(c.clone()));
    }
    metadata
}

/// A field's Spark metadata as the JSON text of a proto `StructField` (None when empty).
fn proto_metadata(f: &Field) -> Option<String> {
    let metadata = spark_metadata(f);
    (!metadata.is_empty()).then(|| serde_json::Value::Object(metadata).to_string())
}

/// A field with a column comment.
pub fn with_comment(field: Field, comment: &str) -> Field {
    let mut metadata = field.metadata().clone();
    metadata.insert(COMMENT_KEY.into(), comment.to_string());
    field.with_metadata(metadata)
}

/// Spark's `simpleString` of a column's type (an interval's fields from its metadata).
pub fn field_simple_string(f: &Field) -> String {
    match IntervalFields::of_field(f) {
        Some(q) => q.simple_string(),
        None => simple_string(f.data_type()),
    }
}

/// The fields of a Spark Connect interval type (DAY TO SECOND without them).
pub fn proto_interval_fields(t: &pb::DataType) -> Option<IntervalFields> {
    let field =
        |f: Option<i32>, default: u8| f.and_then(|v| u8::try_from(v).ok()).unwrap_or(default);
    match t.kind.as_ref()? {
        Kind::DayTimeInterval(d) => Some(IntervalFields::day_time(
            field(d.start_field, 0),
            field(d.end_field, 3),
        )),
        Kind::YearMonthInterval(y) => Some(IntervalFields::year_month(
            field(y.start_field, 0),
            field(y.end_field, 1),
        )),
        _ => None,
    }
}

/// Spark's SQL name of a cast's target type, an interval's with `fields`.
pub fn cast_type_name(dt: &DataType, fields: Option<IntervalFields>) -> String {
    match fields {
        Some(q) if IntervalFields::default_of(dt).is_some() => q.sql_name(),
        _ => sql_name(dt),
    }
}

/// Spark's SQL name of a column's type (an interval's fields from its metadata).
pub fn field_sql_name(f: &Field) -> String {
    match IntervalFields::of_field(f) {
        Some(q) => q.sql_name(),
        None => sql_name(f.data_type()),
    }
}

fn field_spark_json(f: &Field) -> PlanResult<serde_json::Value> {
    match IntervalFields::of_field(f) {
        Some(q) => Ok(serde_json::Value::String(q.simple_string())),
        None => to_spark_json(f.data_type()),
    }
}

/// Spark's `simpleString` of a type: `int`, `array<string>`, `struct<a:int,b:string>`.
pub fn simple_string(dt: &DataType) -> String {
    match dt {
        DataType::Null => "void".into(),
        DataType::Boolean => "boolean".into(),
        DataType::Int8 => "tinyint".into(),
        DataType::Int16 | DataType::UInt8 => "smallint".into(),
        DataType::Int32 | DataType::UInt16 => "int".into(),
        DataType::Int64 | DataType::UInt32 => "bigint".into(),
        DataType::UInt64 => "decimal(20,0)".into(),
        DataType::Float16 | DataType::Float32 => "float".into(),
        DataType::Float64 => "double".into(),
        DataType::Decimal32(p, s)
        | DataType::Decimal64(p, s)
        | DataType::Decimal128(p, s)
        | DataType::Decimal256(p, s) => format!("decimal({p},{s})"),
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => "string".into(),
        DataType::Binary
        | DataType::LargeBinary
        | DataType::BinaryView
        | DataType::FixedSizeBinary(_) => "binary".into(),
        DataType::Date32 | DataType::Date64 => "date".into(),
        DataType::Timestamp(TimeUnit::Nanosecond, Some(_)) => "timestamp_ltz(9)".into(),
        DataType::Timestamp(TimeUnit::Nanosecond, None) => "timestamp_ntz(9)".into(),
        DataType::Timestamp(_, Some(_)) => "timestamp".into(),
        DataType::Timestamp(_, None) => "timestamp_ntz".into(),
        DataType::Duration(_) => "interval day to second".into(),
        DataType::Interval(IntervalUnit::YearMonth) => "interval year to month".into(),
        DataType::Interval(_) => "interval".into(),
        DataType::List(f)
        | DataType::LargeList(f)
        | DataType::FixedSizeList(f, _)
        | DataType::ListView(f)
        | DataType::LargeListView(f) => {
            format!("array<{}>", field_simple_string(f))
        }
        d if is_variant(d) => "variant".into(),
        d if spatial_of(d).is_some() => {
            spatial_of(d).map_or_else(String::new, |(f, srid)| spatial_name(f, srid))
        }
        DataType::Struct(fields) => format!(
            "struct<{}>",
            fields
                .iter()
                .map(|f| format!("{}:{}", f.name(), field_simple_string(f)))
                .collect::<Vec<_>>()
                .join(",")
        ),
        DataType::Map(entries, _) => match map_key_value(entries.data_type()) {
            Ok((k, v)) => format!("map<{},{}>", field_simple_string(k), field_simple_string(v)),
            Err(_) => "map".into(),
        },
        DataType::Dictionary(_, v) => simple_string(v),
        DataType::Time32(_) | DataType::Time64(_) => "time(6)".into(),
        other => other.to_string().to_lowercase(),
    }
}

/// Spark's SQL name of a type, upper case: `INT`, `ARRAY<STRING>`, `DECIMAL(10,2)`.
pub fn sql_name(dt: &DataType) -> String {
    match dt {
        d if is_variant(d) => "VARIANT".into(),
        d if spatial_of(d).is_some() => spatial_of(d).map_or_else(String::new, |(f, srid)| {
            spatial_name(f, srid).to_uppercase()
        }),
        DataType::Struct(fields) => format!(
            "STRUCT<{}>",
            fields
                .iter()
                .map(|f| format!("{}: {}", f.name(), field_sql_name(f)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        DataType::List(f) | DataType::LargeList(f) | DataType::FixedSizeList(f, _) => {
            format!("ARRAY<{}>", field_sql_name(f))
        }
        DataType::Map(entries, _) => match map_key_value(entries.data_type()) {
            Ok((k, v)) => format!("MAP<{}, {}>", field_sql_name(k), field_sql_name(v)),
            Err(_) => "MAP".into(),
        },
        DataType::Duration(_) => "INTERVAL DAY TO SECOND".into(),
        DataType::Interval(IntervalUnit::YearMonth) => "INTERVAL YEAR TO MONTH".into(),
        other => simple_string(other).to_uppercase(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_ddl_schemas() {
        let s = parse_schema("id INT, name STRING", "UTC").unwrap();
        assert_eq!(s.fields().len(), 2);
        assert_eq!(s.field(0).data_type(), &DataType::Int32);
        assert_eq!(s.field(1).data_type(), &DataType::Utf8);

        let s = parse_schema(
            "a INT NOT NULL, b ARRAY<STRING>, c MAP<STRING, DECIMAL(10,2)>, d struct<x:int, `y z` double>",
            "UTC",
        )
        .unwrap();
        assert!(!s.field(0).is_nullable());
        assert_eq!(simple_string(s.field(1).data_type()), "array<string>");
        assert_eq!(
            simple_string(s.field(2).data_type()),
            "map<string,decimal(10,2)>"
        );
        assert_eq!(
            simple_string(s.field(3).data_type()),
            "struct<x:int,y z:double>"
        );
    }

    #[test]
    fn parses_single_types() {
        assert_eq!(parse_data_type("bigint", "UTC").unwrap(), DataType::Int64);
        assert_eq!(
            parse_data_type(" Decimal(5, 2) ", "UTC").unwrap(),
            DataType::Decimal128(5, 2)
        );
        assert_eq!(
            parse_data_type("interval day to second", "UTC").unwrap(),
            DataType::Duration(TimeUnit::Microsecond)
        );
        assert!(parse_data_type("notatype", "UTC").is_err());
        assert!(parse_data_type("decimal(50,2)", "UTC").is_err());
    }

    #[test]
    fn parses_names_beyond_ascii() {
        let schema = parse_schema("`a` STRING, `ｉｄ` INT, é BIGINT", "UTC").unwrap();
        let names: Vec<_> = schema.fields().iter().map(|f| f.name().clone()).collect();
        assert_eq!(names, ["a", "ｉｄ", "é"]);
    }

    #[test]
    fn parses_json_schemas() {
        let json = r#"{"type":"struct","fields":[{"name":"id","type":"integer","nullable":true,"metadata":{}},
            {"name":"xs","type":{"type":"array","elementType":"string","containsNull":false},"nullable":false,"metadata":{}}]}"#;
        let s = parse_schema(json, "UTC").unwrap();
        assert_eq!(s.field(0).data_type(), &DataType::Int32);
        assert_eq!(s.field(1).data_type(), &list_type(DataType::Utf8, false));
        assert!(!s.field(1).is_nullable());
    }

    #[test]
    fn round_trips_through_proto() {
        let types = [
            DataType::Int32,
            DataType::Decimal128(12, 3),
            timestamp_type("UTC"),
            DataType::Timestamp(TimeUnit::Microsecond, None),
            list_type(DataType::Utf8, true),
            map_type(DataType::Utf8, DataType::Int64, true),
            DataType::Struct(Fields::from(vec![Field::new("a", DataType::Date32, true)])),
        ];
        for t in types {
            let p = to_proto(&t).unwrap();
            assert_eq!(from_proto(&p, "UTC").unwrap(), t, "{t}");
        }
    }

    #[test]
    fn names_types_like_spark() {
        assert_eq!(sql_name(&DataType::Utf8), "STRING");
        assert_eq!(sql_name(&DataType::Decimal128(10, 2)), "DECIMAL(10,2)");
        assert_eq!(sql_name(&list_type(DataType::Int32, true)), "ARRAY<INT>");
        assert_eq!(simple_string(&DataType::Null), "void");
    }
}
