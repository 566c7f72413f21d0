//! The types and values of XML records as Spark's XML data source infers and reads them:
//! attributes are fields named `attributePrefix` + name, an element's own text is
//! `valueTag`, child elements are fields (repeated ones arrays), and fields are sorted by
//! name. Values become JSON values of their column's type (arrow's JSON decoder builds the
//! batches).

use std::collections::BTreeMap;
use std::sync::Arc;

use arrow::datatypes::{DataType, Field, Fields, TimeUnit};
use chrono::{NaiveDate, NaiveDateTime, TimeZone};
use serde_json::{Map, Value};

use super::XmlOptions;
use super::record::{XmlChild, XmlNode};

impl XmlOptions {
    fn trimmed<'a>(&self, text: &'a str) -> &'a str {
        if self.ignore_surrounding_spaces {
            text.trim()
        } else {
            text
        }
    }

    fn is_null(&self, text: &str) -> bool {
        self.null_value.as_deref() == Some(text)
    }
}

// ---- inference ---------------------------------------------------------------------------

fn is_plain_number(t: &str) -> bool {
    t.bytes().any(|b| b.is_ascii_digit())
        && t.bytes()
            .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-'))
        && t.parse::<f64>().is_ok()
}

/// The type of a text: NULL (no value) when empty or `nullValue`.
fn infer_text(text: &str, o: &XmlOptions) -> DataType {
    let t = o.trimmed(text);
    if t.is_empty() || o.is_null(t) {
        return DataType::Null;
    }
    if !o.infer_schema {
        return DataType::Utf8;
    }
    if t.parse::<i64>().is_ok() {
        return DataType::Int64;
    }
    if is_plain_number(t) {
        return DataType::Float64;
    }
    if t.eq_ignore_ascii_case("true") || t.eq_ignore_ascii_case("false") {
        return DataType::Boolean;
    }
    if parse_date(t, o).is_some() {
        return DataType::Date32;
    }
    if parse_timestamp(t, o, true).is_some() {
        return timestamp();
    }
    DataType::Utf8
}

fn timestamp() -> DataType {
    DataType::Timestamp(TimeUnit::Microsecond, Some(Arc::from("UTC")))
}

fn struct_of(fields: BTreeMap<String, DataType>) -> DataType {
    DataType::Struct(
        fields
            .into_iter()
            .map(|(n, t)| Field::new(n, t, true))
            .collect(),
    )
}

/// Spark's common type of two inferred types.
pub fn merge(a: DataType, b: DataType, o: &XmlOptions) -> DataType {
    use DataType::*;
    match (a, b) {
        (Null, t) | (t, Null) => t,
        (a, b) if a == b => a,
        (Int64, Float64) | (Float64, Int64) => Float64,
        (Date32, t @ Timestamp(..)) | (t @ Timestamp(..), Date32) => t,
        (Struct(x), Struct(y)) => {
            let mut fields: BTreeMap<String, DataType> = x
                .iter()
                .map(|f| (f.name().clone(), f.data_type().clone()))
                .collect();
            for f in y.iter() {
                let t = match fields.remove(f.name()) {
                    Some(old) => merge(old, f.data_type().clone(), o),
                    None => f.data_type().clone(),
                };
                fields.insert(f.name().clone(), t);
            }
            struct_of(fields)
        }
        (List(x), List(y)) => list(merge(x.data_type().clone(), y.data_type().clone(), o)),
        (List(x), other) | (other, List(x)) => list(merge(x.data_type().clone(), other, o)),
        (Struct(x), other) | (other, Struct(x)) if x.iter().any(|f| f.name() == &o.value_tag) => {
            let mut fields: BTreeMap<String, DataType> = x
                .iter()
                .map(|f| (f.name().clone(), f.data_type().clone()))
                .collect();
            if let Some(v) = fields.remove(&o.value_tag) {
                fields.insert(o.value_tag.clone(), merge(v, other, o));
            }
            struct_of(fields)
        }
        _ => Utf8,
    }
}

fn list(t: DataType) -> DataType {
    DataType::List(std::sync::Arc::new(Field::new_list_field(t, true)))
}

/// The type of an element: its text's, or a struct of its attributes, children and text
/// (always a struct for a row).
pub fn infer_node(node: &XmlNode, o: &XmlOptions, row: bool) -> DataType {
    if !row && node.attributes.is_empty() && !node.has_elements() {
        return infer_text(&node.text(), o);
    }
    let mut fields: BTreeMap<String, DataType> = BTreeMap::new();
    for (k, v) in &node.attributes {
        fields.insert(format!("{}{k}", o.attribute_prefix), infer_text(v, o));
    }
    let mut children: BTreeMap<&str, (DataType, usize)> = BTreeMap::new();
    for c in node.elements() {
        let t = infer_node(c, o, false);
        let entry = children.entry(&c.name).or_insert((DataType::Null, 0));
        entry.0 = merge(std::mem::replace(&mut entry.0, DataType::Null), t, o);
        entry.1 += 1;
    }
    for (name, (t, count)) in children {
        let t = if count > 1 { list(t) } else { t };
        let t = match fields.remove(name) {
            Some(old) => merge(old, t, o),
            None => t,
        };
        fields.insert(name.to_string(), t);
    }
    let texts: Vec<&str> = node
        .value_texts()
        .into_iter()
        .filter(|t| !o.trimmed(t).is_empty())
        .collect();
    if !texts.is_empty() {
        let mut t = DataType::Null;
        for text in &texts {
            t = merge(t, infer_text(text, o), o);
        }
        fields.insert(
            o.value_tag.clone(),
            if texts.len() > 1 { list(t) } else { t },
        );
    }
    struct_of(fields)
}

/// An inferred type with no value anywhere (NULL) read as a string, as Spark does.
pub fn canonical(t: DataType) -> DataType {
    match t {
        DataType::Null => DataType::Utf8,
        DataType::List(item) => list(canonical(item.data_type().clone())),
        DataType::Struct(fields) => DataType::Struct(
            fields
                .iter()
                .map(|f| {
                    f.as_ref()
                        .clone()
                        .with_data_type(canonical(f.data_type().clone()))
                })
                .collect(),
        ),
        other => other,
    }
}

// ---- values ------------------------------------------------------------------------------

fn parse_date(t: &str, o: &XmlOptions) -> Option<NaiveDate> {
    NaiveDate::parse_from_str(t, o.date_format.as_deref().unwrap_or("%Y-%m-%d")).ok()
}

/// A trailing zone (`Z`, `+01:00`, `+0100`, `+01`) split off a timestamp, in seconds east.
fn split_zone(t: &str) -> (&str, Option<i32>) {
    if let Some(body) = t.strip_suffix('Z') {
        return (body, Some(0));
    }
    let Some(at) = t.rfind(['+', '-']) else {
        return (t, None);
    };
    let (body, zone) = t.split_at(at);
    let digits: String = zone[1..].chars().filter(|c| *c != ':').collect();
    if !body.contains(':') || !(digits.len() == 2 || digits.len() == 4) {
        return (t, None);
    }
    let (Ok(h), Ok(m)) = (
        digits[..2].parse::<i32>(),
        digits
            .get(2..)
            .filter(|m| !m.is_empty())
            .unwrap_or("0")
            .parse::<i32>(),
    ) else {
        return (t, None);
    };
    let sign = if zone.starts_with('-') { -1 } else { 1 };
    (body, Some(sign * (h * 3600 + m * 60)))
}

/// Microseconds since the epoch of a timestamp: with `timestampFormat`, or ISO 8601 as
/// Spark's parser takes it; a time without a zone is in the session's time zone.
fn parse_timestamp(t: &str, o: &XmlOptions, inferring: bool) -> Option<i64> {
    use crate::values::datetime::{OFFSET_X1, OFFSET_X2, OFFSET_X3};
    if let Some(format) = &o.timestamp_format {
        let zoned = format.replace([OFFSET_X1, OFFSET_X2, OFFSET_X3], "%#z");
        if zoned.contains("%#z") || zoned.contains("%z") || zoned.contains("%:z") {
            return chrono::DateTime::parse_from_str(t, &zoned)
                .ok()
                .map(|d| d.timestamp_micros());
        }
        let naive = NaiveDateTime::parse_from_str(t, format).ok().or_else(|| {
            NaiveDate::parse_from_str(t, format)
                .ok()
                .and_then(|d| d.and_hms_opt(0, 0, 0))
        })?;
        return local_micros(naive, o);
    }
    let (body, zone) = split_zone(t);
    let naive = [
        "%Y-%m-%dT%H:%M:%S%.f",
        "%Y-%m-%d %H:%M:%S%.f",
        "%Y-%m-%dT%H:%M",
        "%Y-%m-%d %H:%M",
    ]
    .iter()
    .find_map(|f| NaiveDateTime::parse_from_str(body, f).ok())
    .or_else(|| {
        (!inferring && zone.is_none())
            .then(|| NaiveDate::parse_from_str(body, "%Y-%m-%d").ok())
            .flatten()
            .and_then(|d| d.and_hms_opt(0, 0, 0))
    })?;
    match zone {
        Some(offset) => Some(naive.and_utc().timestamp_micros() - i64::from(offset) * 1_000_000),
        None => local_micros(naive, o),
    }
}

fn local_micros(naive: NaiveDateTime, o: &XmlOptions) -> Option<i64> {
    let tz: chrono_tz::Tz = o.time_zone.parse().ok()?;
    tz.from_local_datetime(&naive)
        .earliest()
        .map(|d| d.timestamp_micros())
}

/// A text as the JSON value of type `t`; `Err` when it does not read as one.
fn leaf(text: &str, t: &DataType, o: &XmlOptions) -> Result<Value, ()> {
    let text = o.trimmed(text);
    if o.is_null(text) {
        return Ok(Value::Null);
    }
    if t == &DataType::Utf8 {
        return Ok(Value::String(text.to_string()));
    }
    if text.is_empty() {
        return Ok(Value::Null);
    }
    let ok = |v: Option<Value>| v.ok_or(());
    match t {
        DataType::Int8 => ok(text.parse::<i8>().ok().map(Value::from)),
        DataType::Int16 => ok(text.parse::<i16>().ok().map(Value::from)),
        DataType::Int32 => ok(text.parse::<i32>().ok().map(Value::from)),
        DataType::Int64 => ok(text.parse::<i64>().ok().map(Value::from)),
        DataType::Float32 | DataType::Float64 => {
            let special = matches!(text, "NaN" | "Infinity" | "+Infinity" | "-Infinity");
            if !special && !is_plain_number(text) {
                return Err(());
            }
            let v: f64 = text.trim_start_matches('+').parse().map_err(|_| ())?;
            Ok(match serde_json::Number::from_f64(v) {
                Some(n) => Value::Number(n),
                None => Value::String(v.to_string()),
            })
        }
        DataType::Decimal128(p, s) => {
            arrow::compute::kernels::cast_utils::parse_decimal::<arrow::datatypes::Decimal128Type>(
                text, *p, *s,
            )
            .map_err(|_| ())?;
            Ok(Value::String(text.to_string()))
        }
        DataType::Boolean => match text.to_ascii_lowercase().as_str() {
            "true" => Ok(Value::Bool(true)),
            "false" => Ok(Value::Bool(false)),
            _ => Err(()),
        },
        DataType::Date32 => {
            let d = parse_date(text, o).ok_or(())?;
            let epoch = NaiveDate::from_ymd_opt(1970, 1, 1).ok_or(())?;
            Ok(Value::from((d - epoch).num_days()))
        }
        DataType::Timestamp(_, Some(_)) => {
            Ok(Value::from(parse_timestamp(text, o, false).ok_or(())?))
        }
        DataType::Timestamp(_, None) => {
            let utc = XmlOptions {
                time_zone: "UTC".into(),
                ..o.clone()
            };
            Ok(Value::from(parse_timestamp(text, &utc, false).ok_or(())?))
        }
        DataType::Struct(fields) if fields.iter().any(|f| f.name() == &o.value_tag) => {
            let mut m = Map::new();
            if let Some(f) = fields.iter().find(|f| f.name() == &o.value_tag) {
                m.insert(o.value_tag.clone(), leaf(text, f.data_type(), o)?);
            }
            Ok(Value::Object(m))
        }
        DataType::List(item) => Ok(Value::Array(vec![leaf(text, item.data_type(), o)?])),
        _ => Err(()),
    }
}

/// An element as the JSON value of type `t` (`Err` holds what was read before a value that
/// does not fit).
fn node_value(node: &XmlNode, t: &DataType, o: &XmlOptions, src: &str) -> Result<Value, Value> {
    match t {
        DataType::Struct(fields) => struct_value(node, fields, o, src)
            .map(Value::Object)
            .map_err(Value::Object),
        DataType::Utf8 if node.has_elements() => {
            let raw = src.get(node.inner.clone()).unwrap_or_default();
            Ok(Value::String(o.trimmed(raw).to_string()))
        }
        DataType::Map(entries, _) => {
            let DataType::Struct(kv) = entries.data_type() else {
                return Err(Value::Null);
            };
            let value_type = kv
                .get(1)
                .map(|f| f.data_type().clone())
                .unwrap_or(DataType::Utf8);
            // An empty element is a NULL map (as Spark reads `<m/>`).
            if !node.has_elements() {
                return Ok(Value::Null);
            }
            let mut m = Map::new();
            for c in node.elements() {
                m.insert(c.name.clone(), node_value(c, &value_type, o, src)?);
            }
            Ok(Value::Object(m))
        }
        DataType::List(item) => Ok(Value::Array(vec![node_value(
            node,
            item.data_type(),
            o,
            src,
        )?])),
        t => leaf(&node.text(), t, o).map_err(|_| Value::Null),
    }
}

/// The fields of an element (a row, or a struct), in document order as Spark reads them:
/// attributes, then children and text; `Err` holds the fields read before a value that does
/// not fit its type.
pub fn struct_value(
    node: &XmlNode,
    fields: &Fields,
    o: &XmlOptions,
    src: &str,
) -> Result<Map<String, Value>, Map<String, Value>> {
    let mut m = Map::new();
    let field = |name: &str| fields.iter().find(|f| f.name() == name);
    for (k, v) in &node.attributes {
        let name = format!("{}{k}", o.attribute_prefix);
        if let Some(f) = field(&name) {
            match leaf(v, f.data_type(), o) {
                Ok(v) => {
                    m.insert(name, v);
                }
                Err(()) => return Err(m),
            }
        }
    }
    let mixed = node.has_elements();
    for c in &node.children {
        let (name, value) = match c {
            XmlChild::Element(e) => {
                let Some(f) = field(&e.name) else { continue };
                let t = match f.data_type() {
                    DataType::List(item) => item.data_type(),
                    t => t,
                };
                (&e.name, node_value(e, t, o, src))
            }
            XmlChild::Text(text) => {
                if mixed && o.trimmed(text).is_empty() {
                    continue;
                }
                let Some(f) = field(&o.value_tag) else {
                    continue;
                };
                let t = match f.data_type() {
                    DataType::List(item) => item.data_type(),
                    t => t,
                };
                (&o.value_tag, leaf(text, t, o).map_err(|_| Value::Null))
            }
        };
        let is_list = matches!(field(name).map(|f| f.data_type()), Some(DataType::List(_)));
        let (value, failed) = match value {
            Ok(v) => (v, false),
            Err(v) => (v, true),
        };
        if is_list {
            match m
                .entry(name.clone())
                .or_insert_with(|| Value::Array(vec![]))
            {
                Value::Array(items) => items.push(value),
                other => *other = Value::Array(vec![value]),
            }
        } else {
            m.insert(name.clone(), value);
        }
        if failed {
            return Err(m);
        }
    }
    Ok(m)
}

/// Whether Ember reads a column of type `t` from XML.
pub fn readable(t: &DataType) -> bool {
    match t {
        DataType::Utf8
        | DataType::Int8
        | DataType::Int16
        | DataType::Int32
        | DataType::Int64
        | DataType::Float32
        | DataType::Float64
        | DataType::Decimal128(..)
        | DataType::Boolean
        | DataType::Date32
        | DataType::Timestamp(..)
        | DataType::Null => true,
        DataType::List(item) => readable(item.data_type()),
        DataType::Struct(fields) => fields.iter().all(|f| readable(f.data_type())),
        DataType::Map(entries, _) => match entries.data_type() {
            DataType::Struct(kv) => kv.iter().all(|f| readable(f.data_type())),
            _ => false,
        },
        _ => false,
    }
}
