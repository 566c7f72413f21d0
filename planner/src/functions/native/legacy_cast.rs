//! A number cast to an integer type outside ANSI mode, as Spark's legacy cast does it (Java's
//! conversions): an integer or a decimal keeps the low bits of its integer part (`CAST(300 AS
//! TINYINT)` is 44, a decimal's integer part is first taken as a BIGINT), a floating point
//! number saturates at the bounds of INT or BIGINT (NaN is 0) and, for TINYINT and SMALLINT,
//! saturates at INT's bounds before keeping the low bits (`CAST(1e10 AS SMALLINT)` is -1).
//! Text is read as Spark's `UTF8String.toLong` reads it: trimmed, a sign, digits and a
//! fraction that is dropped (`CAST('1.9' AS INT)` is 1); NULL where it is no such number or
//! out of the type's range (`CAST('300' AS TINYINT)`).

use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, Int64Array, PrimitiveArray};
use arrow::datatypes::{
    ArrowPrimitiveType, DataType, Decimal128Type, Float32Type, Float64Type, Int8Type, Int16Type,
    Int32Type, Int64Type, UInt8Type, UInt16Type, UInt32Type, UInt64Type,
};
use datafusion::common::{Result, internal_err};

/// The integer (as a BIGINT, before narrowing) of each value, `None` for a NULL.
fn as_long(input: &ArrayRef, narrow: bool) -> Result<Int64Array> {
    fn ints<T: ArrowPrimitiveType>(a: &ArrayRef, f: impl Fn(T::Native) -> i64) -> Int64Array {
        a.as_primitive::<T>().unary(f)
    }
    // Java's double to int/long: NaN is 0, beyond the bounds the bound.
    let float = move |v: f64| -> i64 { if narrow { v as i32 as i64 } else { v as i64 } };
    Ok(match input.data_type() {
        DataType::Int8 => ints::<Int8Type>(input, i64::from),
        DataType::Int16 => ints::<Int16Type>(input, i64::from),
        DataType::Int32 => ints::<Int32Type>(input, i64::from),
        DataType::Int64 => input.as_primitive::<Int64Type>().clone(),
        DataType::UInt8 => ints::<UInt8Type>(input, i64::from),
        DataType::UInt16 => ints::<UInt16Type>(input, i64::from),
        DataType::UInt32 => ints::<UInt32Type>(input, i64::from),
        DataType::UInt64 => ints::<UInt64Type>(input, |v| v as i64),
        DataType::Float32 => ints::<Float32Type>(input, |v| float(f64::from(v))),
        DataType::Float64 => ints::<Float64Type>(input, float),
        DataType::Decimal128(_, scale) => {
            let divisor = 10i128.pow(u32::from(scale.unsigned_abs()));
            let scale = *scale;
            ints::<Decimal128Type>(input, move |v| {
                let integer = if scale >= 0 {
                    v / divisor
                } else {
                    v.wrapping_mul(divisor)
                };
                integer as i64
            })
        }
        other => return internal_err!("a legacy integer cast of {other}"),
    })
}

fn narrowed<T: ArrowPrimitiveType>(longs: &Int64Array, f: impl Fn(i64) -> T::Native) -> ArrayRef {
    let out: PrimitiveArray<T> = longs.unary(f);
    Arc::new(out)
}

/// Text as Spark's legacy cast reads an integer (`UTF8String.toLong` and `toInt`): without
/// the whitespace and control characters around it, an optional sign, digits, and an
/// optional `.` followed by digits only, which are dropped; `None` where it is no such number
/// or out of `to`'s range.
fn parse_integer(text: &str, to: &DataType) -> Option<i64> {
    let text = text.trim_matches(|c: char| c.is_whitespace() || c.is_control());
    let bytes = text.as_bytes();
    let negative = bytes.first() == Some(&b'-');
    let signed = negative || bytes.first() == Some(&b'+');
    if bytes.is_empty() || (signed && bytes.len() == 1) {
        return None;
    }
    let mut rest = &bytes[usize::from(signed)..];
    // (Accumulated below zero, as Spark does, so that the least value fits.)
    let mut value: i64 = 0;
    while let Some((&b, tail)) = rest.split_first() {
        rest = tail;
        if b == b'.' {
            break;
        }
        if !b.is_ascii_digit() {
            return None;
        }
        value = value.checked_mul(10)?.checked_sub(i64::from(b - b'0'))?;
    }
    if !rest.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let value = if negative {
        value
    } else {
        value.checked_neg()?
    };
    let fits = match to {
        DataType::Int8 => i8::try_from(value).is_ok(),
        DataType::Int16 => i16::try_from(value).is_ok(),
        DataType::Int32 => i32::try_from(value).is_ok(),
        _ => true,
    };
    fits.then_some(value)
}

/// Each text of `input` as [`parse_integer`] reads it.
fn parse_texts(input: &ArrayRef, to: &DataType) -> Result<Int64Array> {
    let parse = |v: Option<&str>| v.and_then(|t| parse_integer(t, to));
    Ok(match input.data_type() {
        DataType::Utf8 => input.as_string::<i32>().iter().map(parse).collect(),
        DataType::LargeUtf8 => input.as_string::<i64>().iter().map(parse).collect(),
        DataType::Utf8View => input.as_string_view().iter().map(parse).collect(),
        other => return internal_err!("a legacy integer cast of {other}"),
    })
}

/// `CAST(x AS to)` of numbers and text outside ANSI mode (`to` an integer type).
pub(super) fn evaluate(arrays: &[ArrayRef], to: &DataType) -> Result<ArrayRef> {
    let [input] = arrays else {
        return internal_err!("a cast takes one value");
    };
    if matches!(
        input.data_type(),
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View
    ) {
        let longs = parse_texts(input, to)?;
        return arrow::compute::cast(&longs, to).map_err(Into::into);
    }
    let narrow = matches!(to, DataType::Int8 | DataType::Int16 | DataType::Int32);
    let longs = as_long(input, narrow)?;
    Ok(match to {
        DataType::Int8 => narrowed::<Int8Type>(&longs, |v| v as i8),
        DataType::Int16 => narrowed::<Int16Type>(&longs, |v| v as i16),
        DataType::Int32 => narrowed::<Int32Type>(&longs, |v| v as i32),
        DataType::Int64 => Arc::new(longs),
        other => return internal_err!("a legacy integer cast to {other}"),
    })
}

/// Whether Spark's legacy cast of a `from` value to `to` differs from a cast that is NULL out
/// of range: a number to a narrower integer type (or a fractional number to any).
pub(crate) fn applies(from: &DataType, to: &DataType) -> bool {
    let to_rank = match to {
        DataType::Int8 => 1,
        DataType::Int16 => 2,
        DataType::Int32 => 3,
        DataType::Int64 => 4,
        _ => return false,
    };
    match from {
        DataType::Int8 | DataType::UInt8 => false,
        DataType::Int16 | DataType::UInt16 => to_rank < 2,
        DataType::Int32 | DataType::UInt32 => to_rank < 3,
        DataType::Int64 | DataType::UInt64 => to_rank < 4,
        DataType::Float32 | DataType::Float64 | DataType::Decimal128(..) => true,
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => true,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::{Decimal128Array, Float64Array, Int32Array};

    fn cast(input: ArrayRef, to: DataType) -> Vec<Option<i64>> {
        let out = evaluate(&[input], &to).unwrap_or_else(|e| panic!("{e}"));
        let out = arrow::compute::cast(&out, &DataType::Int64).unwrap_or_else(|e| panic!("{e}"));
        out.as_primitive::<Int64Type>().iter().collect()
    }

    #[test]
    fn text_as_spark_reads_it_outside_ansi_mode() {
        // (Answers of Spark 4.3, spark.sql.ansi.enabled=false.)
        let int = DataType::Int32;
        for (text, want) in [
            ("1.5", Some(1)),
            (" 2.5 ", Some(2)),
            ("\t3\n", Some(3)),
            ("-1.9", Some(-1)),
            ("1.", Some(1)),
            (".5", Some(0)),
            ("-.5", Some(0)),
            (".", Some(0)),
            ("+.", Some(0)),
            ("+1", Some(1)),
            ("-2147483648", Some(-2147483648)),
            ("2147483648", None),
            ("-", None),
            ("", None),
            ("1.5.5", None),
            ("1.9e", None),
            ("1e3", None),
            ("1 2", None),
            ("0x10", None),
        ] {
            assert_eq!(parse_integer(text, &int), want, "{text:?}");
        }
        assert_eq!(parse_integer("300", &DataType::Int8), None);
        assert_eq!(parse_integer("-128.9", &DataType::Int8), Some(-128));
        assert_eq!(
            parse_integer("9223372036854775807.9", &DataType::Int64),
            Some(i64::MAX)
        );
        assert_eq!(
            parse_integer("-9223372036854775808", &DataType::Int64),
            Some(i64::MIN)
        );
        assert_eq!(parse_integer("9223372036854775808", &DataType::Int64), None);
    }

    #[test]
    fn as_spark_legacy_casts() {
        let ints: ArrayRef = Arc::new(Int64Array::from(vec![
            Some(300),
            Some(-129),
            None,
            Some(3_000_000_000),
        ]));
        assert_eq!(
            cast(ints.clone(), DataType::Int8),
            vec![Some(44), Some(127), None, Some(0)]
        );
        assert_eq!(cast(ints, DataType::Int32)[3], Some(-1_294_967_296));
        let doubles: ArrayRef = Arc::new(Float64Array::from(vec![
            1e20,
            -1e20,
            f64::NAN,
            3.9,
            -3.9,
            1e10,
            -200.7,
        ]));
        assert_eq!(
            cast(doubles.clone(), DataType::Int32),
            vec![
                Some(2147483647),
                Some(-2147483648),
                Some(0),
                Some(3),
                Some(-3),
                Some(2147483647),
                Some(-200)
            ]
        );
        assert_eq!(cast(doubles.clone(), DataType::Int64)[1], Some(i64::MIN));
        assert_eq!(cast(doubles, DataType::Int16)[5], Some(-1));
        let decimals: ArrayRef = Arc::new(
            Decimal128Array::from(vec![123_456_789_015i128])
                .with_precision_and_scale(12, 1)
                .unwrap_or_else(|e| panic!("{e}")),
        );
        assert_eq!(cast(decimals, DataType::Int32), vec![Some(-539_222_987)]);
        let small: ArrayRef = Arc::new(Int32Array::from(vec![70000]));
        assert_eq!(cast(small, DataType::Int16), vec![Some(4464)]);
    }
}
