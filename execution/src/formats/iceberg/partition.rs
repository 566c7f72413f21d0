//! Iceberg partition specs and transforms for writes: a spec from Spark's `PARTITIONED BY`
//! items (`days(ts)`, `bucket(16, id)`, `truncate(4, name)`, columns), each field's partition
//! values computed from the data (the spec's transforms: identity, bucket with Iceberg's
//! Murmur3 hashes, truncate, year, month, day, hour), their result types, their Avro form in
//! manifests and their text in data file paths.

use std::sync::Arc;

use arrow::array::{
    Array, ArrayRef, AsArray, BinaryArray, Date32Array, Decimal128Array, Int32Array, Int64Array,
    StringArray,
};
use arrow::datatypes::{
    DataType, Date32Type, Decimal128Type, Int32Type, Int64Type, TimestampMicrosecondType,
};
use chrono::{Datelike, NaiveDate};
use serde_json::{Value, json};

use super::avro::AvroValue;
use crate::spark_error::{SparkError, SparkResult};

/// A partition transform (Iceberg's names: `identity`, `bucket[N]`, `truncate[W]`, `year`,
/// `month`, `day`, `hour`, `void`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transform {
    Identity,
    Bucket(u32),
    Truncate(u32),
    Year,
    Month,
    Day,
    Hour,
    Void,
}

fn invalid(text: impl Into<String>) -> SparkError {
    SparkError::invalid_plan(text.into())
}

impl Transform {
    /// A transform as a spec's JSON names it.
    pub fn parse(name: &str) -> SparkResult<Transform> {
        let number = |prefix: &str| -> Option<u32> {
            name.strip_prefix(prefix)?
                .strip_suffix(']')?
                .trim()
                .parse()
                .ok()
        };
        Ok(match name {
            "identity" => Transform::Identity,
            "year" => Transform::Year,
            "month" => Transform::Month,
            "day" => Transform::Day,
            "hour" => Transform::Hour,
            "void" => Transform::Void,
            _ => match (number("bucket["), number("truncate[")) {
                (Some(n), _) if n > 0 => Transform::Bucket(n),
                (_, Some(w)) if w > 0 => Transform::Truncate(w),
                _ => {
                    return Err(SparkError::unsupported(format!(
                        "Iceberg partition transform {name}"
                    )));
                }
            },
        })
    }

    pub fn name(&self) -> String {
        match self {
            Transform::Identity => "identity".into(),
            Transform::Bucket(n) => format!("bucket[{n}]"),
            Transform::Truncate(w) => format!("truncate[{w}]"),
            Transform::Year => "year".into(),
            Transform::Month => "month".into(),
            Transform::Day => "day".into(),
            Transform::Hour => "hour".into(),
            Transform::Void => "void".into(),
        }
    }

    /// The partition field's default name for a source column (Iceberg's `PartitionSpec`
    /// builder: `id_bucket`, `ts_day`, ...).
    fn field_name(&self, source: &str) -> String {
        match self {
            Transform::Identity => source.to_string(),
            Transform::Bucket(_) => format!("{source}_bucket"),
            Transform::Truncate(_) => format!("{source}_trunc"),
            Transform::Year => format!("{source}_year"),
            Transform::Month => format!("{source}_month"),
            Transform::Day => format!("{source}_day"),
            Transform::Hour => format!("{source}_hour"),
            Transform::Void => format!("{source}_null"),
        }
    }

    /// The type of the partition values of a source column of type `source`.
    pub fn result_type(&self, source: &DataType) -> SparkResult<DataType> {
        let timestamp = matches!(source, DataType::Timestamp(..));
        let ok = match self {
            Transform::Identity => matches!(
                source,
                DataType::Boolean
                    | DataType::Int32
                    | DataType::Int64
                    | DataType::Float32
                    | DataType::Float64
                    | DataType::Date32
                    | DataType::Timestamp(..)
                    | DataType::Utf8
                    | DataType::Binary
                    | DataType::Decimal128(..)
            ),
            Transform::Void => true,
            Transform::Year | Transform::Month | Transform::Day => {
                timestamp || *source == DataType::Date32
            }
            Transform::Hour => timestamp,
            Transform::Bucket(_) => matches!(
                source,
                DataType::Int32
                    | DataType::Int64
                    | DataType::Date32
                    | DataType::Timestamp(..)
                    | DataType::Utf8
                    | DataType::Binary
                    | DataType::Decimal128(..)
            ),
            Transform::Truncate(_) => matches!(
                source,
                DataType::Int32
                    | DataType::Int64
                    | DataType::Utf8
                    | DataType::Binary
                    | DataType::Decimal128(..)
            ),
        };
        if !ok {
            return Err(invalid(format!(
                "Cannot partition by {}: it cannot transform {source} values",
                self.name()
            )));
        }
        Ok(match self {
            Transform::Identity | Transform::Truncate(_) => source.clone(),
            Transform::Bucket(_) | Transform::Year | Transform::Month | Transform::Hour => {
                DataType::Int32
            }
            Transform::Void => DataType::Int32,
            Transform::Day => DataType::Date32,
        })
    }

    /// The partition values of `array`.
    pub fn apply(&self, array: &ArrayRef) -> SparkResult<ArrayRef> {
        let micros = |a: &ArrayRef| -> Vec<Option<i64>> {
            match a.data_type() {
                DataType::Timestamp(..) => a
                    .as_primitive::<TimestampMicrosecondType>()
                    .iter()
                    .collect(),
                _ => a
                    .as_primitive::<Date32Type>()
                    .iter()
                    .map(|d| d.map(|d| i64::from(d) * 86_400_000_000))
                    .collect(),
            }
        };
        let year_month = |us: i64| -> (i32, u32) {
            let date = chrono::DateTime::from_timestamp_micros(us)
                .map_or(NaiveDate::MIN, |t| t.date_naive());
            (date.year() - 1970, date.month0())
        };
        Ok(match self {
            Transform::Identity => array.clone(),
            Transform::Void => Arc::new(Int32Array::new_null(array.len())),
            Transform::Year => Arc::new(
                micros(array)
                    .into_iter()
                    .map(|v| v.map(|us| year_month(us).0))
                    .collect::<Int32Array>(),
            ),
            Transform::Month => Arc::new(
                micros(array)
                    .into_iter()
                    .map(|v| {
                        v.map(|us| {
                            let (y, m) = year_month(us);
                            y * 12 + m as i32
                        })
                    })
                    .collect::<Int32Array>(),
            ),
            Transform::Day => Arc::new(
                micros(array)
                    .into_iter()
                    .map(|v| v.map(|us| us.div_euclid(86_400_000_000) as i32))
                    .collect::<Date32Array>(),
            ),
            Transform::Hour => Arc::new(
                micros(array)
                    .into_iter()
                    .map(|v| v.map(|us| us.div_euclid(3_600_000_000) as i32))
                    .collect::<Int32Array>(),
            ),
            Transform::Bucket(n) => {
                let n = *n as i32;
                Arc::new(
                    (0..array.len())
                        .map(|i| bucket_hash(array, i).map(|h| (h & i32::MAX) % n))
                        .collect::<Int32Array>(),
                )
            }
            Transform::Truncate(w) => truncate(array, *w)?,
        })
    }
}

/// Iceberg's hash of row `i` (None for NULL): Murmur3 x86 32-bit, seed 0, of the value's
/// bytes as the spec gives them (integers, dates and timestamps as 8-byte little-endian
/// longs, text as UTF-8, decimals as their unscaled value's minimal big-endian two's
/// complement bytes).
fn bucket_hash(array: &ArrayRef, i: usize) -> Option<i32> {
    if array.is_null(i) {
        return None;
    }
    let long = |v: i64| murmur3_32(&v.to_le_bytes());
    Some(match array.data_type() {
        DataType::Int32 => long(i64::from(array.as_primitive::<Int32Type>().value(i))),
        DataType::Int64 => long(array.as_primitive::<Int64Type>().value(i)),
        DataType::Date32 => long(i64::from(array.as_primitive::<Date32Type>().value(i))),
        DataType::Timestamp(..) => long(array.as_primitive::<TimestampMicrosecondType>().value(i)),
        DataType::Utf8 => murmur3_32(array.as_string::<i32>().value(i).as_bytes()),
        DataType::Binary => murmur3_32(array.as_binary::<i32>().value(i)),
        DataType::Decimal128(..) => murmur3_32(&decimal_bytes(
            array.as_primitive::<Decimal128Type>().value(i),
        )),
        _ => return None,
    })
}

/// Java's `BigInteger.toByteArray`: the fewest big-endian bytes that keep the sign.
pub fn decimal_bytes(v: i128) -> Vec<u8> {
    let bytes = v.to_be_bytes();
    let mut start = 0;
    while start < 15 {
        let (b, next) = (bytes[start], bytes[start + 1]);
        if (b == 0 && next & 0x80 == 0) || (b == 0xff && next & 0x80 != 0) {
            start += 1;
        } else {
            break;
        }
    }
    bytes[start..].to_vec()
}

/// Murmur3 x86 32-bit with seed 0 (Guava's `murmur3_32_fixed`, which Iceberg uses).
pub fn murmur3_32(data: &[u8]) -> i32 {
    let (c1, c2) = (0xcc9e_2d51_u32, 0x1b87_3593_u32);
    let mut h: u32 = 0;
    let blocks = data.chunks_exact(4);
    let tail = blocks.remainder();
    for block in blocks {
        let mut k = u32::from_le_bytes([block[0], block[1], block[2], block[3]]);
        k = k.wrapping_mul(c1).rotate_left(15).wrapping_mul(c2);
        h = (h ^ k)
            .rotate_left(13)
            .wrapping_mul(5)
            .wrapping_add(0xe654_6b64);
    }
    if !tail.is_empty() {
        let mut k = 0u32;
        for (i, b) in tail.iter().enumerate() {
            k ^= u32::from(*b) << (8 * i);
        }
        h ^= k.wrapping_mul(c1).rotate_left(15).wrapping_mul(c2);
    }
    h ^= data.len() as u32;
    h ^= h >> 16;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    h ^= h >> 16;
    h as i32
}

fn truncate(array: &ArrayRef, w: u32) -> SparkResult<ArrayRef> {
    Ok(match array.data_type() {
        DataType::Int32 => {
            let w = w as i32;
            Arc::new(
                array
                    .as_primitive::<Int32Type>()
                    .iter()
                    .map(|v| v.map(|v| v - v.rem_euclid(w)))
                    .collect::<Int32Array>(),
            )
        }
        DataType::Int64 => {
            let w = i64::from(w);
            Arc::new(
                array
                    .as_primitive::<Int64Type>()
                    .iter()
                    .map(|v| v.map(|v| v - v.rem_euclid(w)))
                    .collect::<Int64Array>(),
            )
        }
        DataType::Decimal128(p, s) => {
            let w = i128::from(w);
            Arc::new(
                array
                    .as_primitive::<Decimal128Type>()
                    .iter()
                    .map(|v| v.map(|v| v - v.rem_euclid(w)))
                    .collect::<Decimal128Array>()
                    .with_precision_and_scale(*p, *s)
                    .map_err(|e| invalid(e.to_string()))?,
            )
        }
        DataType::Utf8 => Arc::new(
            array
                .as_string::<i32>()
                .iter()
                .map(|v| {
                    v.map(|v| match v.char_indices().nth(w as usize) {
                        Some((end, _)) => &v[..end],
                        None => v,
                    })
                })
                .collect::<StringArray>(),
        ),
        DataType::Binary => Arc::new(
            array
                .as_binary::<i32>()
                .iter()
                .map(|v| v.map(|v| &v[..v.len().min(w as usize)]))
                .collect::<BinaryArray>(),
        ),
        other => return Err(invalid(format!("Cannot truncate {other} values"))),
    })
}

/// One field of a partition spec, bound to the table's columns.
#[derive(Debug, Clone)]
pub struct SpecField {
    /// The source column's position among the table's top-level columns.
    pub source: usize,
    pub field_id: i64,
    pub name: String,
    pub transform: Transform,
    pub result: DataType,
}

/// A spec's JSON fields bound to the table's top-level fields (`ids`: their field ids).
pub fn bind(spec: &Value, ids: &[i64], types: &[DataType]) -> SparkResult<Vec<SpecField>> {
    let fields = spec
        .get("fields")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    fields
        .iter()
        .map(|f| {
            let source_id = f.get("source-id").and_then(Value::as_i64).unwrap_or(-1);
            let source = ids.iter().position(|id| *id == source_id).ok_or_else(|| {
                SparkError::unsupported(format!(
                    "writing Iceberg tables partitioned by a nested or dropped field ({f})"
                ))
            })?;
            let transform = Transform::parse(
                f.get("transform")
                    .and_then(Value::as_str)
                    .unwrap_or_default(),
            )?;
            Ok(SpecField {
                source,
                field_id: f.get("field-id").and_then(Value::as_i64).unwrap_or(1000),
                name: f
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string(),
                transform,
                result: transform.result_type(&types[source])?,
            })
        })
        .collect()
}

/// A partition spec (JSON, spec id 0, field ids from 1000) from Spark's partitioning items
/// (`(name, args)`: `identity(col)`, `bucket(16, col)`, `days(col)`, ...) over the table's
/// top-level columns (`names`, `ids`, `types`).
pub fn spec_from_spark(
    items: &[(String, Vec<String>)],
    names: &[String],
    ids: &[i64],
    types: &[DataType],
) -> SparkResult<Value> {
    let mut fields = vec![];
    for (i, (name, args)) in items.iter().enumerate() {
        let shown = format!("{name}({})", args.join(", "));
        let number: Option<u32> = args.iter().find_map(|a| a.trim().parse().ok());
        let columns: Vec<&String> = args
            .iter()
            .filter(|a| a.trim().parse::<u32>().is_err())
            .collect();
        let transform = match (name.to_ascii_lowercase().as_str(), number) {
            ("identity", None) => Transform::Identity,
            ("bucket", Some(n)) if n > 0 => Transform::Bucket(n),
            ("truncate", Some(w)) if w > 0 => Transform::Truncate(w),
            ("years" | "year", None) => Transform::Year,
            ("months" | "month", None) => Transform::Month,
            ("days" | "day" | "date", None) => Transform::Day,
            ("hours" | "hour" | "date_hour", None) => Transform::Hour,
            _ => return Err(SparkError::unsupported_partition_transform(&shown)),
        };
        let [column] = columns.as_slice() else {
            return Err(SparkError::unsupported(format!(
                "Iceberg partition transforms of several columns ({shown})"
            )));
        };
        // (Iceberg's ValidationExceptions.)
        let source = names
            .iter()
            .position(|n| n.eq_ignore_ascii_case(column))
            .ok_or_else(|| {
                SparkError::illegal_argument("", format!("Cannot find source column: {column}"))
            })?;
        transform.result_type(&types[source]).map_err(|_| {
            let mut next = 0;
            let shown_type = super::types::iceberg_type(&types[source], &mut next)
                .ok()
                .and_then(|t| t.as_str().map(str::to_string))
                .unwrap_or_else(|| types[source].to_string());
            SparkError::illegal_argument(
                "",
                format!(
                    "Invalid source type {shown_type} for transform: {}",
                    transform.name()
                ),
            )
        })?;
        fields.push(json!({
            "source-id": ids[source],
            "field-id": 1000 + i as i64,
            "name": transform.field_name(&names[source]),
            "transform": transform.name(),
        }));
    }
    Ok(json!({"spec-id": 0, "fields": fields}))
}

/// The Avro type of partition values of `t` (nullable), for a manifest's partition record.
pub fn avro_type(t: &DataType, field_id: i64) -> Value {
    let inner = match t {
        DataType::Boolean => json!("boolean"),
        DataType::Int32 => json!("int"),
        DataType::Int64 => json!("long"),
        DataType::Float32 => json!("float"),
        DataType::Float64 => json!("double"),
        DataType::Date32 => json!({"type": "int", "logicalType": "date"}),
        DataType::Timestamp(_, zone) => json!({
            "type": "long",
            "logicalType": "timestamp-micros",
            "adjust-to-utc": zone.is_some(),
        }),
        DataType::Utf8 => json!("string"),
        DataType::Decimal128(p, s) => json!({
            "type": "fixed",
            "name": format!("fixed_{field_id}"),
            "size": decimal_size(*p),
            "logicalType": "decimal",
            "precision": p,
            "scale": s,
        }),
        _ => json!("bytes"),
    };
    json!(["null", inner])
}

/// The bytes of a fixed decimal of precision `p` (Iceberg: the fewest that hold it).
fn decimal_size(p: u8) -> usize {
    (1..=16)
        .find(|bytes| {
            let bits = 8 * bytes - 1;
            (f64::from(p)) <= (bits as f64) * std::f64::consts::LOG10_2
        })
        .unwrap_or(16)
}

/// Row `i` of partition values as an Avro value (a nullable union) and as the text of a
/// data file's directory (`ts_day=2024-03-01`).
pub fn value(array: &ArrayRef, i: usize) -> (AvroValue, String) {
    if array.is_null(i) {
        return (
            AvroValue::Union(0, Box::new(AvroValue::Null)),
            "null".into(),
        );
    }
    let some = |v: AvroValue| AvroValue::Union(1, Box::new(v));
    match array.data_type() {
        DataType::Boolean => {
            let v = array.as_boolean().value(i);
            (some(AvroValue::Boolean(v)), v.to_string())
        }
        DataType::Int32 => {
            let v = array.as_primitive::<Int32Type>().value(i);
            (some(AvroValue::Int(v)), v.to_string())
        }
        DataType::Int64 => {
            let v = array.as_primitive::<Int64Type>().value(i);
            (some(AvroValue::Long(v)), v.to_string())
        }
        DataType::Float32 => {
            let v = array
                .as_primitive::<arrow::datatypes::Float32Type>()
                .value(i);
            (some(AvroValue::Float(v)), v.to_string())
        }
        DataType::Float64 => {
            let v = array
                .as_primitive::<arrow::datatypes::Float64Type>()
                .value(i);
            (some(AvroValue::Double(v)), v.to_string())
        }
        DataType::Date32 => {
            let v = array.as_primitive::<Date32Type>().value(i);
            let text = NaiveDate::from_num_days_from_ce_opt(v + 719_163)
                .map_or(v.to_string(), |d| d.to_string());
            (some(AvroValue::Int(v)), text)
        }
        DataType::Timestamp(..) => {
            let v = array.as_primitive::<TimestampMicrosecondType>().value(i);
            let text = chrono::DateTime::from_timestamp_micros(v).map_or(v.to_string(), |t| {
                t.naive_utc().format("%Y-%m-%dT%H:%M:%S%.f").to_string()
            });
            (some(AvroValue::Long(v)), text)
        }
        DataType::Utf8 => {
            let v = array.as_string::<i32>().value(i).to_string();
            (some(AvroValue::String(v.clone())), v)
        }
        DataType::Decimal128(p, s) => {
            let v = array.as_primitive::<Decimal128Type>().value(i);
            let size = decimal_size(*p);
            let full = v.to_be_bytes();
            let text = arrow::array::Decimal128Array::from(vec![v])
                .with_precision_and_scale(*p, *s)
                .map(|a| a.value_as_string(0))
                .unwrap_or_else(|_| v.to_string());
            (some(AvroValue::Fixed(full[16 - size..].to_vec())), text)
        }
        _ => {
            let v = array.as_binary::<i32>().value(i).to_vec();
            let text = v.iter().map(|b| format!("{b:02x}")).collect();
            (some(AvroValue::Bytes(v)), text)
        }
    }
}

/// A partition directory's text for a transform's value (`2024-03` for a month, `2024-03-01-10`
/// for an hour), escaped for a path.
pub fn path_text(transform: Transform, array: &ArrayRef, i: usize, text: String) -> String {
    let text = if array.is_null(i) {
        text
    } else {
        match transform {
            Transform::Year => (1970 + array.as_primitive::<Int32Type>().value(i)).to_string(),
            Transform::Month => {
                let m = array.as_primitive::<Int32Type>().value(i);
                format!("{:04}-{:02}", 1970 + m.div_euclid(12), m.rem_euclid(12) + 1)
            }
            Transform::Hour => {
                let h = array.as_primitive::<Int32Type>().value(i);
                chrono::DateTime::from_timestamp(i64::from(h) * 3600, 0)
                    .map_or(h.to_string(), |t| t.format("%Y-%m-%d-%H").to_string())
            }
            _ => text,
        }
    };
    percent_encoding::utf8_percent_encode(&text, PATH_ESCAPED).to_string()
}

/// What a partition directory's text escapes: all but letters, digits and `-._:`.
const PATH_ESCAPED: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b':');

#[cfg(test)]
mod tests {
    use super::*;

    /// The hash values of the Iceberg spec's appendix B.
    #[test]
    fn bucket_hashes_are_the_spec_s() {
        let long = |v: i64| murmur3_32(&v.to_le_bytes());
        assert_eq!(long(34), 2_017_239_379);
        assert_eq!(murmur3_32(&decimal_bytes(1420)), -500_754_589);
        assert_eq!(long(17_486), -653_330_422);
        assert_eq!(long(1_510_871_468_000_000), -2_047_944_441);
        assert_eq!(murmur3_32("iceberg".as_bytes()), 1_210_000_089);
        assert_eq!(murmur3_32(&[0, 1, 2, 3]), -188_683_207);
    }

    #[test]
    fn decimal_bytes_are_java_s() {
        assert_eq!(decimal_bytes(0), vec![0]);
        assert_eq!(decimal_bytes(127), vec![0x7f]);
        assert_eq!(decimal_bytes(128), vec![0, 0x80]);
        assert_eq!(decimal_bytes(-1), vec![0xff]);
        assert_eq!(decimal_bytes(-129), vec![0xff, 0x7f]);
        assert_eq!(decimal_size(9), 4);
        assert_eq!(decimal_size(10), 5);
        assert_eq!(decimal_size(38), 16);
    }

    #[test]
    fn transforms_of_times_and_text() {
        let ts: ArrayRef = Arc::new(
            arrow::array::TimestampMicrosecondArray::from(vec![Some(-1), Some(0), None])
                .with_timezone("UTC"),
        );
        let ints = |t: Transform| -> Vec<Option<i32>> {
            t.apply(&ts)
                .unwrap()
                .as_primitive::<Int32Type>()
                .iter()
                .collect()
        };
        assert_eq!(ints(Transform::Year), vec![Some(-1), Some(0), None]);
        assert_eq!(ints(Transform::Month), vec![Some(-1), Some(0), None]);
        assert_eq!(ints(Transform::Hour), vec![Some(-1), Some(0), None]);
        let text: ArrayRef = Arc::new(StringArray::from(vec!["héllo", "a"]));
        let cut = Transform::Truncate(2).apply(&text).unwrap();
        assert_eq!(cut.as_string::<i32>().value(0), "hé");
        assert_eq!(cut.as_string::<i32>().value(1), "a");
        let ints32: ArrayRef = Arc::new(Int32Array::from(vec![-1, 10, 19]));
        let cut = Transform::Truncate(10).apply(&ints32).unwrap();
        let got: Vec<i32> = cut.as_primitive::<Int32Type>().values().to_vec();
        assert_eq!(got, vec![-10, 10, 10]);
    }
}
