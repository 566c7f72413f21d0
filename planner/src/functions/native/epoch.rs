//! `timestamp_seconds`, `timestamp_millis` and `timestamp_micros` as Spark's
//! `SecondsToTimestamp`/`MillisToTimestamp`/`MicrosToTimestamp`: the microseconds `n` units
//! after the epoch. An integer multiplies exactly (DATETIME_OVERFLOW past a long); a FLOAT or
//! DOUBLE is NULL when NaN or infinite and saturates at a long's ends, as Java's `toLong`
//! does; a DECIMAL multiplies exactly and is DATETIME_OVERFLOW past a long, then "Rounding
//! necessary" when it has more than microseconds (Java's `longValueExact`).

use std::sync::Arc;

use crate::error::{ErrorKind, SparkError, to_datafusion};
use arrow::array::{Array, ArrayRef, AsArray, Int64Array};
use arrow::datatypes::{DataType, Decimal128Type, Float64Type, Int64Type};
use datafusion::common::{Result, internal_err};
use ember_execution::values::java_big_decimal;

/// The unit's name in Spark's overflow message.
fn unit_name(per_second: i64) -> &'static str {
    match per_second {
        1_000_000 => "seconds",
        1_000 => "milliseconds",
        _ => "microseconds",
    }
}

fn overflow(value: String, per_second: i64) -> datafusion::error::DataFusionError {
    to_datafusion(SparkError::new(
        ErrorKind::Arithmetic,
        "DATETIME_OVERFLOW",
        "22008",
        format!(
            "Datetime operation overflow: create a TIMESTAMP from {value} {} since the epoch.",
            unit_name(per_second)
        ),
        vec![],
    ))
}

/// Microseconds since the epoch of `arrays[0]` counted in units of `1 / per_second` seconds.
pub(super) fn epoch_micros(arrays: &[ArrayRef], per_second: i64) -> Result<ArrayRef> {
    let Some(n) = arrays.first() else {
        return internal_err!("timestamp_seconds takes one argument");
    };
    let out: Int64Array = match n.data_type() {
        DataType::Float32 | DataType::Float64 => {
            let n = arrow::compute::cast(n, &DataType::Float64)?;
            n.as_primitive::<Float64Type>()
                .iter()
                .map(|d| {
                    // (`as` saturates at a long's ends, as Java's Double.toLong.)
                    d.filter(|d| d.is_finite())
                        .map(|d| (d * per_second as f64) as i64)
                })
                .collect()
        }
        DataType::Decimal128(_, scale) => {
            let scale = *scale;
            let n = n.as_primitive::<Decimal128Type>();
            let mut out = Int64Array::builder(n.len());
            for v in n.iter() {
                match v {
                    Some(v) => out.append_value(decimal_micros(v, scale, per_second)?),
                    None => out.append_null(),
                }
            }
            out.finish()
        }
        _ => {
            let n = arrow::compute::cast(n, &DataType::Int64)?;
            let n = n.as_primitive::<Int64Type>();
            let mut out = Int64Array::builder(n.len());
            for v in n.iter() {
                match v {
                    Some(v) => match v.checked_mul(per_second) {
                        Some(m) => out.append_value(m),
                        None => return Err(overflow(format!("{v}L"), per_second)),
                    },
                    None => out.append_null(),
                }
            }
            out.finish()
        }
    };
    Ok(Arc::new(out))
}

/// `unscaled / 10^scale` seconds (or units) in microseconds, exactly.
fn decimal_micros(unscaled: i128, scale: i8, per_second: i64) -> Result<i64> {
    let text = || format!("{}BD", java_big_decimal(unscaled, scale));
    let ten = |k: u32| 10i128.checked_pow(k);
    // unscaled * per_second / 10^scale, in 256 bits where it must be.
    let product = arrow::datatypes::i256::from_i128(unscaled)
        .checked_mul(arrow::datatypes::i256::from_i128(per_second as i128));
    let Some(product) = product else {
        return Err(overflow(text(), per_second));
    };
    let (whole, rest) = if scale >= 0 {
        let Some(d) = ten(scale as u32) else {
            return Err(overflow(text(), per_second));
        };
        let d = arrow::datatypes::i256::from_i128(d);
        (product.wrapping_div(d), product.wrapping_rem(d))
    } else {
        let Some(m) = ten(scale.unsigned_abs() as u32) else {
            return Err(overflow(text(), per_second));
        };
        match product.checked_mul(arrow::datatypes::i256::from_i128(m)) {
            Some(p) => (p, arrow::datatypes::i256::ZERO),
            None => return Err(overflow(text(), per_second)),
        }
    };
    // (Past a long is an overflow before a fraction is one: Spark checks the range first.)
    let Some(whole) = whole.to_i128().and_then(|w| i64::try_from(w).ok()) else {
        return Err(overflow(text(), per_second));
    };
    if rest != arrow::datatypes::i256::ZERO {
        return Err(to_datafusion(SparkError::new(
            ErrorKind::Arithmetic,
            "",
            "",
            "Rounding necessary",
            vec![],
        )));
    }
    Ok(whole)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_multiply_exactly() {
        assert_eq!(decimal_micros(11, 1, 1_000_000).ok(), Some(1_100_000));
        assert_eq!(decimal_micros(-15, 1, 1_000_000).ok(), Some(-1_500_000));
        assert_eq!(
            decimal_micros(-9223372036854775808, 6, 1_000_000).ok(),
            Some(i64::MIN)
        );
        assert!(decimal_micros(11234567, 7, 1_000_000).is_err());
        assert!(decimal_micros(-9223372036854775809, 6, 1_000_000).is_err());
    }
}
