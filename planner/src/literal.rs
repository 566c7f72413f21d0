//! Spark literals: Spark Connect `Expression.Literal` -> DataFusion `ScalarValue`, and the way
//! Spark prints a literal inside a generated column name (`1`, `x`, `DATE '2020-01-01'`).

use std::sync::Arc;

use arrow::array::{ArrayRef, new_empty_array};
use arrow::datatypes::{DataType, Field, Fields, IntervalMonthDayNano, IntervalUnit, TimeUnit};
use datafusion::common::ScalarValue;
use datafusion::common::utils::SingleRowListArrayBuilder;
use ember_execution::values;
use ember_protos::spark::connect::expression::Literal;
use ember_protos::spark::connect::expression::literal::LiteralType;

use crate::error::{PlanError, PlanResult};
use crate::types;

/// Convert a Spark Connect literal. Old clients still fill the deprecated type fields.
#[allow(deprecated)]
pub fn from_proto(lit: &Literal, time_zone: &str) -> PlanResult<ScalarValue> {
    let Some(value) = &lit.literal_type else {
        return Err(PlanError::InvalidPlan("literal without value".into()));
    };
    let tz = || Some(Arc::from(time_zone));
    Ok(match value {
        LiteralType::Null(dt) => {
            let dt = types::from_proto(dt, time_zone)?;
            ScalarValue::try_from(&dt)?
        }
        LiteralType::Binary(b) => ScalarValue::Binary(Some(b.clone())),
        LiteralType::Boolean(b) => ScalarValue::Boolean(Some(*b)),
        LiteralType::Byte(v) => ScalarValue::Int8(Some(*v as i8)),
        LiteralType::Short(v) => ScalarValue::Int16(Some(*v as i16)),
        LiteralType::Integer(v) => ScalarValue::Int32(Some(*v)),
        LiteralType::Long(v) => ScalarValue::Int64(Some(*v)),
        LiteralType::Float(v) => ScalarValue::Float32(Some(*v)),
        LiteralType::Double(v) => ScalarValue::Float64(Some(*v)),
        LiteralType::Decimal(d) => proto_decimal(d)?,
        LiteralType::String(s) => ScalarValue::Utf8(Some(s.clone())),
        LiteralType::Date(d) => ScalarValue::Date32(Some(*d)),
        LiteralType::Timestamp(t) => ScalarValue::TimestampMicrosecond(Some(*t), tz()),
        LiteralType::TimestampNtz(t) => ScalarValue::TimestampMicrosecond(Some(*t), None),
        LiteralType::CalendarInterval(i) => ScalarValue::IntervalMonthDayNano(Some(
            IntervalMonthDayNano::new(i.months, i.days, i.microseconds.saturating_mul(1000)),
        )),
        LiteralType::YearMonthInterval(m) => ScalarValue::IntervalYearMonth(Some(*m)),
        LiteralType::DayTimeInterval(us) => ScalarValue::DurationMicrosecond(Some(*us)),
        LiteralType::Array(a) => {
            let element_type = match (&lit.data_type, &a.element_type) {
                (Some(dt), _) => match types::from_proto(dt, time_zone)? {
                    DataType::List(f) => Some(f.data_type().clone()),
                    _ => None,
                },
                (None, Some(et)) => Some(types::from_proto(et, time_zone)?),
                _ => None,
            };
            let values = a
                .elements
                .iter()
                .map(|e| from_proto(e, time_zone))
                .collect::<PlanResult<Vec<_>>>()?;
            list_scalar(values, element_type)?
        }
        LiteralType::Map(m) => {
            let (key_type, value_type) = match (&lit.data_type, &m.key_type, &m.value_type) {
                (Some(dt), _, _) => match types::from_proto(dt, time_zone)? {
                    DataType::Map(entries, _) => match entries.data_type() {
                        DataType::Struct(f) if f.len() == 2 => (
                            Some(f[0].data_type().clone()),
                            Some(f[1].data_type().clone()),
                        ),
                        _ => (None, None),
                    },
                    _ => (None, None),
                },
                (None, k, v) => (
                    k.as_ref()
                        .map(|t| types::from_proto(t, time_zone))
                        .transpose()?,
                    v.as_ref()
                        .map(|t| types::from_proto(t, time_zone))
                        .transpose()?,
                ),
            };
            let keys = m
                .keys
                .iter()
                .map(|e| from_proto(e, time_zone))
                .collect::<PlanResult<Vec<_>>>()?;
            let values = m
                .values
                .iter()
                .map(|e| from_proto(e, time_zone))
                .collect::<PlanResult<Vec<_>>>()?;
            map_scalar(keys, values, key_type, value_type)?
        }
        LiteralType::Struct(s) => {
            let struct_type = match (&lit.data_type, &s.struct_type) {
                (Some(dt), _) | (None, Some(dt)) => Some(types::from_proto(dt, time_zone)?),
                _ => None,
            };
            let values = s
                .elements
                .iter()
                .map(|e| from_proto(e, time_zone))
                .collect::<PlanResult<Vec<_>>>()?;
            let fields: Fields = match struct_type {
                Some(DataType::Struct(f)) if f.len() == values.len() => f,
                _ => values
                    .iter()
                    .enumerate()
                    .map(|(i, v)| Field::new(format!("col{}", i + 1), v.data_type(), true))
                    .collect(),
            };
            let arrays = values
                .iter()
                .zip(fields.iter())
                .map(|(v, f)| Ok(v.cast_to(f.data_type())?.to_array()?))
                .collect::<PlanResult<Vec<ArrayRef>>>()?;
            ScalarValue::Struct(Arc::new(
                arrow::array::StructArray::try_new(fields, arrays, None)
                    .map_err(|e| PlanError::DataFusion(e.into()))?,
            ))
        }
        LiteralType::SpecializedArray(a) => {
            use ember_protos::spark::connect::expression::literal::specialized_array::ValueType;
            let values: Vec<ScalarValue> = match &a.value_type {
                Some(ValueType::Bools(v)) => v
                    .values
                    .iter()
                    .map(|x| ScalarValue::Boolean(Some(*x)))
                    .collect(),
                Some(ValueType::Ints(v)) => v
                    .values
                    .iter()
                    .map(|x| ScalarValue::Int32(Some(*x)))
                    .collect(),
                Some(ValueType::Longs(v)) => v
                    .values
                    .iter()
                    .map(|x| ScalarValue::Int64(Some(*x)))
                    .collect(),
                Some(ValueType::Floats(v)) => v
                    .values
                    .iter()
                    .map(|x| ScalarValue::Float32(Some(*x)))
                    .collect(),
                Some(ValueType::Doubles(v)) => v
                    .values
                    .iter()
                    .map(|x| ScalarValue::Float64(Some(*x)))
                    .collect(),
                Some(ValueType::Strings(v)) => v
                    .values
                    .iter()
                    .map(|x| ScalarValue::Utf8(Some(x.clone())))
                    .collect(),
                None => return Err(PlanError::InvalidPlan("empty specialized array".into())),
            };
            list_scalar(values, None)?
        }
        LiteralType::Time(t) => ScalarValue::Time64Microsecond(Some(t.nano / 1000)),
        LiteralType::TimestampNtzNanos(t) => ScalarValue::TimestampNanosecond(
            Some(t.epoch_micros.saturating_mul(1000) + t.nanos_within_micro as i64),
            None,
        ),
        LiteralType::TimestampLtzNanos(t) => ScalarValue::TimestampNanosecond(
            Some(t.epoch_micros.saturating_mul(1000) + t.nanos_within_micro as i64),
            tz(),
        ),
    })
}

/// A decimal literal from its text, with Spark's precision/scale when not given.
/// A Spark Connect decimal literal as Spark reads it: the value's own precision and scale,
/// widened to those the client sent (PySpark sends DECIMAL(10, 0) for every `lit(Decimal(..))`:
/// `lit(Decimal("1.25"))` is DECIMAL(10, 2) 1.25, not 1).
fn proto_decimal(
    d: &ember_protos::spark::connect::expression::literal::Decimal,
) -> PlanResult<ScalarValue> {
    let (precision, scale) = match parse_decimal(&d.value, None, None)? {
        ScalarValue::Decimal128(_, p, s) => (i32::from(p), i32::from(s)),
        _ => (d.precision.unwrap_or(0), d.scale.unwrap_or(0)),
    };
    let scale = scale.max(d.scale.unwrap_or(0));
    let precision = precision.max(d.precision.unwrap_or(0)).max(scale);
    parse_decimal(&d.value, Some(precision), Some(scale))
}

pub fn parse_decimal(
    text: &str,
    precision: Option<i32>,
    scale: Option<i32>,
) -> PlanResult<ScalarValue> {
    let text = text.trim();
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    let (mantissa, exponent) = match digits.find(['e', 'E']) {
        Some(i) => (
            &digits[..i],
            digits[i + 1..]
                .parse::<i32>()
                .map_err(|_| PlanError::InvalidPlan(format!("bad decimal {text}")))?,
        ),
        None => (digits, 0),
    };
    let (int_part, frac_part) = match mantissa.find('.') {
        Some(i) => (&mantissa[..i], &mantissa[i + 1..]),
        None => (mantissa, ""),
    };
    let mut all_digits = format!("{int_part}{frac_part}");
    let mut s = frac_part.len() as i32 - exponent;
    if s < 0 {
        all_digits.push_str(&"0".repeat((-s) as usize));
        s = 0;
    }
    let trimmed = all_digits.trim_start_matches('0');
    let mut p = (trimmed.len() as i32).max(1);
    if p < s {
        p = s;
    }
    let p = precision.unwrap_or(p);
    let mut sc = scale.unwrap_or(s);
    let mut value: i128 = if trimmed.is_empty() {
        0
    } else {
        trimmed
            .parse::<i128>()
            .map_err(|_| PlanError::InvalidPlan(format!("decimal literal out of range: {text}")))?
    };
    // Rescale when an explicit scale differs from the text's.
    while sc > s {
        value = value.saturating_mul(10);
        s += 1;
    }
    while sc < s {
        value /= 10;
        s -= 1;
    }
    sc = s;
    if p > 38 {
        return Err(PlanError::InvalidPlan(format!(
            "decimal literal out of range: {text}"
        )));
    }
    if negative {
        value = -value;
    }
    Ok(ScalarValue::Decimal128(Some(value), p as u8, sc as i8))
}

/// Build a list scalar from element scalars (coercing to a common element type).
pub fn list_scalar(
    values: Vec<ScalarValue>,
    element_type: Option<DataType>,
) -> PlanResult<ScalarValue> {
    let element_type = match element_type {
        Some(t) => t,
        None => common_type(values.iter().map(|v| v.data_type()))?,
    };
    let values = values
        .iter()
        .map(|v| v.cast_to(&element_type))
        .collect::<Result<Vec<_>, _>>()?;
    let array: ArrayRef = if values.is_empty() {
        new_empty_array(&element_type)
    } else {
        ScalarValue::iter_to_array(values)?
    };
    Ok(ScalarValue::List(Arc::new(
        SingleRowListArrayBuilder::new(array)
            .with_nullable(true)
            .build_list_array(),
    )))
}

fn map_scalar(
    keys: Vec<ScalarValue>,
    values: Vec<ScalarValue>,
    key_type: Option<DataType>,
    value_type: Option<DataType>,
) -> PlanResult<ScalarValue> {
    let key_type = match key_type {
        Some(t) => t,
        None => common_type(keys.iter().map(|v| v.data_type()))?,
    };
    let value_type = match value_type {
        Some(t) => t,
        None => common_type(values.iter().map(|v| v.data_type()))?,
    };
    let to_array = |vals: &[ScalarValue], t: &DataType| -> PlanResult<ArrayRef> {
        if vals.is_empty() {
            Ok(new_empty_array(t))
        } else {
            let cast = vals
                .iter()
                .map(|v| v.cast_to(t))
                .collect::<Result<Vec<_>, _>>()?;
            Ok(ScalarValue::iter_to_array(cast)?)
        }
    };
    let key_array = to_array(&keys, &key_type)?;
    let value_array = to_array(&values, &value_type)?;
    let map_type = types::map_type(key_type, value_type, true);
    let DataType::Map(entries_field, _) = &map_type else {
        return Err(PlanError::InvalidPlan("map type".into()));
    };
    let DataType::Struct(entry_fields) = entries_field.data_type() else {
        return Err(PlanError::InvalidPlan("map entries".into()));
    };
    let entries = arrow::array::StructArray::try_new(
        entry_fields.clone(),
        vec![key_array, value_array],
        None,
    )
    .map_err(|e| PlanError::DataFusion(e.into()))?;
    let offsets = arrow::buffer::OffsetBuffer::new(vec![0i32, keys.len() as i32].into());
    let map = arrow::array::MapArray::try_new(entries_field.clone(), offsets, entries, None, false)
        .map_err(|e| PlanError::DataFusion(e.into()))?;
    Ok(ScalarValue::Map(Arc::new(map)))
}

/// The smallest type all given types widen to (for literal collections).
fn common_type(types: impl Iterator<Item = DataType>) -> PlanResult<DataType> {
    let mut out = DataType::Null;
    for t in types {
        if out == DataType::Null {
            out = t;
        } else if t != DataType::Null && t != out {
            out = datafusion::logical_expr::type_coercion::binary::comparison_coercion(&out, &t)
                .ok_or_else(|| {
                    PlanError::InvalidPlan(format!("no common type for {out} and {t}"))
                })?;
        }
    }
    Ok(out)
}

/// How Spark prints a literal inside a generated column name.
pub fn display(value: &ScalarValue) -> String {
    if value.is_null() {
        return "NULL".into();
    }
    match value {
        ScalarValue::Utf8(Some(s))
        | ScalarValue::LargeUtf8(Some(s))
        | ScalarValue::Utf8View(Some(s)) => s.clone(),
        ScalarValue::Float64(Some(v)) => format_double(*v),
        ScalarValue::Float32(Some(v)) => ember_execution::values::java_float(*v),
        ScalarValue::Date32(Some(d)) => format!("DATE '{}'", values::datetime::date_text(*d)),
        ScalarValue::TimestampNanosecond(Some(ns), tz) => {
            let kw = if tz.is_some() {
                "TIMESTAMP"
            } else {
                "TIMESTAMP_NTZ"
            };
            let text = values::datetime::timestamp_nanos_text(*ns, tz.as_deref(), false);
            format!("{kw} '{text}'")
        }
        ScalarValue::TimestampMicrosecond(Some(us), tz) => {
            let kw = if tz.is_some() {
                "TIMESTAMP"
            } else {
                "TIMESTAMP_NTZ"
            };
            let text = values::timestamp_text(*us, tz.as_deref(), false);
            format!("{kw} '{text}'")
        }
        ScalarValue::Binary(Some(b))
        | ScalarValue::LargeBinary(Some(b))
        | ScalarValue::BinaryView(Some(b)) => {
            format!(
                "X'{}'",
                b.iter().map(|x| format!("{x:02X}")).collect::<String>()
            )
        }
        ScalarValue::List(arr) => {
            let values = arr.value(0);
            let items = (0..values.len())
                .map(|i| {
                    ScalarValue::try_from_array(&values, i)
                        .map(|v| display(&v))
                        .unwrap_or_default()
                })
                .collect::<Vec<_>>();
            format!("array({})", items.join(", "))
        }
        ScalarValue::IntervalYearMonth(Some(m)) => {
            crate::interval::IntervalFields::YEAR_TO_MONTH.year_month_string(*m)
        }
        ScalarValue::DurationMicrosecond(Some(us)) => {
            crate::interval::IntervalFields::DAY_TO_SECOND.day_time_string(*us)
        }
        ScalarValue::Decimal128(Some(_), _, _) => value.to_string(),
        _ => value.to_string(),
    }
}

/// Java's `Double.toString` (Spark prints doubles that way).
pub use ember_execution::values::java_double as format_double;

/// The Arrow type of a typed null literal of a Spark type name (used by `CAST(NULL AS ..)`).
pub fn null_of(dt: &DataType) -> PlanResult<ScalarValue> {
    Ok(ScalarValue::try_from(dt)?)
}

/// True if the interval/duration/timestamp types here are what Spark literals map to.
pub fn is_timestamp(dt: &DataType) -> bool {
    matches!(dt, DataType::Timestamp(TimeUnit::Microsecond, _))
}

pub fn is_year_month(dt: &DataType) -> bool {
    matches!(dt, DataType::Interval(IntervalUnit::YearMonth))
}

/// DataFusion `ScalarValue` -> Spark Connect literal (observed metrics sent to the client).
/// Nested literals carry their element/key/value/struct types in the fields the 4.0 client
/// reads, and the whole type in `data_type`.
#[allow(deprecated)]
pub fn to_proto(value: &ScalarValue) -> PlanResult<Literal> {
    use ember_protos::spark::connect::expression::literal as lit;
    let data_type = value.data_type();
    let proto_type = || types::to_proto(&data_type);
    if value.is_null() {
        return Ok(Literal {
            literal_type: Some(LiteralType::Null(proto_type()?)),
            data_type: None,
        });
    }
    let elements = |array: &ArrayRef| -> PlanResult<Vec<Literal>> {
        (0..array.len())
            .map(|i| to_proto(&ScalarValue::try_from_array(array, i)?))
            .collect()
    };
    let kind = match value {
        ScalarValue::Boolean(Some(b)) => LiteralType::Boolean(*b),
        ScalarValue::Int8(Some(v)) => LiteralType::Byte(i32::from(*v)),
        ScalarValue::Int16(Some(v)) => LiteralType::Short(i32::from(*v)),
        ScalarValue::UInt8(Some(v)) => LiteralType::Short(i32::from(*v)),
        ScalarValue::Int32(Some(v)) => LiteralType::Integer(*v),
        ScalarValue::UInt16(Some(v)) => LiteralType::Integer(i32::from(*v)),
        ScalarValue::Int64(Some(v)) => LiteralType::Long(*v),
        ScalarValue::UInt32(Some(v)) => LiteralType::Long(i64::from(*v)),
        ScalarValue::Float32(Some(v)) => LiteralType::Float(*v),
        ScalarValue::Float64(Some(v)) => LiteralType::Double(*v),
        ScalarValue::Decimal128(Some(_), p, s) => LiteralType::Decimal(lit::Decimal {
            value: value.to_string(),
            precision: Some(i32::from(*p)),
            scale: Some(i32::from(*s)),
        }),
        ScalarValue::Utf8(Some(s))
        | ScalarValue::LargeUtf8(Some(s))
        | ScalarValue::Utf8View(Some(s)) => LiteralType::String(s.clone()),
        ScalarValue::Binary(Some(b))
        | ScalarValue::LargeBinary(Some(b))
        | ScalarValue::BinaryView(Some(b)) => LiteralType::Binary(b.clone()),
        ScalarValue::Date32(Some(d)) => LiteralType::Date(*d),
        ScalarValue::TimestampMicrosecond(Some(t), tz) => match tz {
            Some(_) => LiteralType::Timestamp(*t),
            None => LiteralType::TimestampNtz(*t),
        },
        ScalarValue::TimestampNanosecond(Some(t), tz) => {
            let (epoch_micros, nanos_within_micro) =
                (t.div_euclid(1000), t.rem_euclid(1000) as i32);
            match tz {
                Some(_) => LiteralType::TimestampLtzNanos(lit::TimestampLtzNanos {
                    epoch_micros,
                    nanos_within_micro,
                    precision: Some(9),
                }),
                None => LiteralType::TimestampNtzNanos(lit::TimestampNtzNanos {
                    epoch_micros,
                    nanos_within_micro,
                    precision: Some(9),
                }),
            }
        }
        ScalarValue::IntervalYearMonth(Some(m)) => LiteralType::YearMonthInterval(*m),
        ScalarValue::DurationMicrosecond(Some(us)) => LiteralType::DayTimeInterval(*us),
        ScalarValue::IntervalMonthDayNano(Some(i)) => {
            LiteralType::CalendarInterval(lit::CalendarInterval {
                months: i.months,
                days: i.days,
                microseconds: i.nanoseconds / 1000,
            })
        }
        ScalarValue::List(list) => {
            let DataType::List(field) = &data_type else {
                return Err(PlanError::InvalidPlan("list literal type".into()));
            };
            LiteralType::Array(lit::Array {
                element_type: Some(types::to_proto(field.data_type())?),
                elements: elements(&list.value(0))?,
            })
        }
        ScalarValue::Map(map) => {
            let entries = map.value(0);
            let (keys, values) = (entries.column(0).clone(), entries.column(1).clone());
            LiteralType::Map(lit::Map {
                key_type: Some(types::to_proto(keys.data_type())?),
                value_type: Some(types::to_proto(values.data_type())?),
                keys: elements(&keys)?,
                values: elements(&values)?,
            })
        }
        ScalarValue::Struct(s) => LiteralType::Struct(lit::Struct {
            struct_type: Some(proto_type()?),
            elements: s
                .columns()
                .iter()
                .map(|c| to_proto(&ScalarValue::try_from_array(c, 0)?))
                .collect::<PlanResult<_>>()?,
        }),
        other => {
            return Err(PlanError::Unsupported(format!(
                "a {} value as a literal",
                other.data_type()
            )));
        }
    };
    Ok(Literal {
        literal_type: Some(kind),
        data_type: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_sent_to_the_client_read_back_as_the_same_values() {
        let tz = "UTC";
        let values = vec![
            ScalarValue::Int64(Some(7)),
            ScalarValue::Float64(Some(4.5)),
            ScalarValue::Decimal128(Some(1234), 10, 2),
            ScalarValue::Utf8(Some("x".into())),
            ScalarValue::Date32(Some(19000)),
            ScalarValue::TimestampMicrosecond(Some(5), Some(Arc::from(tz))),
            ScalarValue::Int32(None),
            list_scalar(
                vec![ScalarValue::Int64(Some(1)), ScalarValue::Int64(None)],
                None,
            )
            .unwrap(),
            map_scalar(
                vec![ScalarValue::Utf8(Some("k".into()))],
                vec![ScalarValue::Int32(Some(1))],
                None,
                None,
            )
            .unwrap(),
        ];
        for v in values {
            let back = from_proto(&to_proto(&v).unwrap(), tz).unwrap();
            assert_eq!(back, v, "{v:?}");
        }
    }

    #[test]
    fn decimals_keep_spark_precision_and_scale() {
        assert_eq!(
            parse_decimal("1.5", None, None).unwrap(),
            ScalarValue::Decimal128(Some(15), 2, 1)
        );
        assert_eq!(
            parse_decimal("-0.05", None, None).unwrap(),
            ScalarValue::Decimal128(Some(-5), 2, 2)
        );
        assert_eq!(
            parse_decimal("123", None, None).unwrap(),
            ScalarValue::Decimal128(Some(123), 3, 0)
        );
        assert_eq!(
            parse_decimal("1.5", Some(10), Some(3)).unwrap(),
            ScalarValue::Decimal128(Some(1500), 10, 3)
        );
        assert_eq!(
            parse_decimal("1e2", None, None).unwrap(),
            ScalarValue::Decimal128(Some(100), 3, 0)
        );
    }

    #[test]
    fn proto_decimals_keep_their_digits() {
        use ember_protos::spark::connect::expression::literal::Decimal;
        let d = |value: &str, p, s| Decimal {
            value: value.into(),
            precision: Some(p),
            scale: Some(s),
        };
        // What Spark 4.3 answers PySpark's lit(Decimal(..)), sent as DECIMAL(10, 0).
        for (value, want) in [
            ("1.25", ScalarValue::Decimal128(Some(125), 10, 2)),
            ("100", ScalarValue::Decimal128(Some(100), 10, 0)),
            ("1.250", ScalarValue::Decimal128(Some(1250), 10, 3)),
            ("-0.5", ScalarValue::Decimal128(Some(-5), 10, 1)),
            (
                "12345678901.5",
                ScalarValue::Decimal128(Some(123456789015), 12, 1),
            ),
        ] {
            assert_eq!(proto_decimal(&d(value, 10, 0)).unwrap(), want, "{value}");
        }
        assert_eq!(
            proto_decimal(&d("1.5", 10, 3)).unwrap(),
            ScalarValue::Decimal128(Some(1500), 10, 3)
        );
    }

    #[test]
    fn displays_literals_like_spark() {
        assert_eq!(display(&ScalarValue::Int32(Some(1))), "1");
        assert_eq!(display(&ScalarValue::Utf8(Some("x".into()))), "x");
        assert_eq!(display(&ScalarValue::Float64(Some(1000.0))), "1000.0");
        assert_eq!(display(&ScalarValue::Float64(Some(1.5))), "1.5");
        assert_eq!(display(&ScalarValue::Int32(None)), "NULL");
        assert_eq!(
            display(&ScalarValue::Date32(Some(18262))),
            "DATE '2020-01-01'"
        );
        assert_eq!(
            display(&ScalarValue::TimestampMicrosecond(
                Some(1_577_836_800_000_000),
                Some("UTC".into())
            )),
            "TIMESTAMP '2020-01-01 00:00:00'"
        );
        assert_eq!(display(&ScalarValue::Binary(Some(vec![1]))), "X'01'");
        assert_eq!(display(&ScalarValue::Decimal128(Some(15), 2, 1)), "1.5");
    }

    #[test]
    fn formats_doubles_like_java() {
        assert_eq!(format_double(1e10), "1.0E10");
        assert_eq!(format_double(0.1), "0.1");
        assert_eq!(format_double(1.5e-5), "1.5E-5");
    }

    #[test]
    fn builds_collection_literals() {
        let l = list_scalar(
            vec![ScalarValue::Int32(Some(1)), ScalarValue::Int64(Some(2))],
            None,
        )
        .unwrap();
        assert_eq!(display(&l), "array(1, 2)");
        let m = map_scalar(
            vec![ScalarValue::Utf8(Some("a".into()))],
            vec![ScalarValue::Int32(Some(1))],
            None,
            None,
        )
        .unwrap();
        assert!(matches!(m.data_type(), DataType::Map(..)));
    }
}
