//! Spark's `round`/`bround(x, scale)` of integers and floating point numbers: Spark rounds a
//! `java.math.BigDecimal` of the value (a double's shortest decimal text, an integer exactly)
//! with `setScale(scale, HALF_UP | HALF_EVEN)`, so `round(1.005D, 2)` is 1.01 (not
//! `(1.005 * 100).round() / 100`), a float is rounded as its double's text, and a scale too
//! large for `BigDecimal` fails as Java's arithmetic does ("BigInteger would overflow supported
//! range", "Underflow"): under ANSI an integer's failures and overflows are ARITHMETIC_OVERFLOW,
//! otherwise bare `ArithmeticException`s (an integer then wraps, as `BigDecimal.intValue()`).

use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray};
use arrow::datatypes::{
    ArrowPrimitiveType, DataType, Float32Type, Float64Type, Int8Type, Int16Type, Int32Type,
    Int64Type,
};
use datafusion::common::{Result, internal_err};

use crate::error::{ErrorKind, SparkError, to_datafusion};

/// Java's `BigInteger.pow` refuses 10^n once `4 * n / 32` exceeds its largest magnitude
/// (2^26 ints): `BigDecimal.setScale` then fails with "BigInteger would overflow supported range".
const MAX_POWER_OF_TEN: i64 = 536_870_919;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Failure {
    /// `BigInteger.pow(10, n)` too large.
    Overflow,
    /// A scale difference past an `int` (`BigDecimal.checkScale`).
    Underflow,
    /// An integer's result outside its type (`intValueExact`).
    OutOfRange,
}

impl Failure {
    fn error(self, ansi_integer: bool) -> datafusion::error::DataFusionError {
        let java = match self {
            Failure::Overflow => "BigInteger would overflow supported range",
            Failure::Underflow => "Underflow",
            Failure::OutOfRange => "Overflow",
        };
        to_datafusion(if ansi_integer {
            SparkError::new(
                ErrorKind::Arithmetic,
                "ARITHMETIC_OVERFLOW",
                "22003",
                format!(
                    "{java}. If necessary set \"spark.sql.ansi.enabled\" to \"false\" to bypass this error."
                ),
                vec![
                    ("message", java.to_string()),
                    ("alternative", String::new()),
                    ("config", "\"spark.sql.ansi.enabled\"".to_string()),
                ],
            )
        } else {
            SparkError::new(ErrorKind::Arithmetic, "", "", java, vec![])
        })
    }
}

/// What `setScale(scale)` of a nonzero value of `BigDecimal` scale `value_scale` does:
/// `Ok(true)` when it drops digits, `Ok(false)` when the value stays as it is.
fn drops_digits(value_scale: i64, scale: i32) -> std::result::Result<bool, Failure> {
    let raise = i64::from(scale) - value_scale;
    if raise == 0 {
        return Ok(false);
    }
    if raise.abs() > i64::from(i32::MAX) {
        return Err(Failure::Underflow);
    }
    // (Powers of ten past a long's table come from BigInteger.pow.)
    if raise.abs() > MAX_POWER_OF_TEN {
        return Err(Failure::Overflow);
    }
    Ok(raise < 0)
}

/// `v` rounded to a multiple of 10^`digits` (`digits` > 0), half up or half even.
fn round_integer(v: i128, digits: i64, half_even: bool) -> i128 {
    let Ok(digits) = u32::try_from(digits) else {
        return 0;
    };
    // (|v| < 2^127 < 10^39 / 2: past 38 digits every value rounds to 0.)
    let Some(m) = 10i128.checked_pow(digits) else {
        return 0;
    };
    let (q, r) = (v / m, v % m);
    let twice = 2 * r.unsigned_abs();
    let half = m.unsigned_abs();
    let up = twice > half || (twice == half && (!half_even || q % 2 != 0));
    let q = if up { q + v.signum() } else { q };
    q.checked_mul(m).unwrap_or(0)
}

/// Spark's rounding of an integer: `None` for NULL is the caller's; this answers the rounded
/// value in i128 or the failure.
fn integer(v: i128, scale: i32, half_even: bool) -> std::result::Result<i128, Failure> {
    if v == 0 {
        return Ok(0);
    }
    if drops_digits(0, scale)? {
        Ok(round_integer(v, -i64::from(scale), half_even))
    } else {
        Ok(v)
    }
}

/// The decimal digits and `BigDecimal` scale of a finite nonzero double as Java's
/// `Double.toString` writes it (plain for 10^-3 <= |x| < 10^7 with at least one decimal,
/// otherwise `d.dddE±n` with at least one decimal): (digits without trailing zeros, the scale of
/// those digits, Java's scale).
fn decimal_of(x: f64) -> (String, i64, i64) {
    let text = format!("{:e}", x.abs());
    let (mantissa, exponent) = text.split_once('e').unwrap_or((&text, "0"));
    let exponent: i64 = exponent.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(|c| c.is_ascii_digit()).collect();
    let fraction = digits.len() as i64 - 1;
    let scale = fraction - exponent;
    let java_scale = if (1e-3..1e7).contains(&x.abs()) {
        scale.max(1)
    } else {
        fraction.max(1) - exponent
    };
    (digits, scale, java_scale)
}

/// Spark's rounding of a double, as the decimal text of the result (parsed into the result's
/// type by the caller, as `BigDecimal.doubleValue()`/`floatValue()` do).
fn float_text(x: f64, scale: i32, half_even: bool) -> std::result::Result<Option<String>, Failure> {
    if !x.is_finite() {
        return Ok(None);
    }
    if x == 0.0 {
        return Ok(Some("0".into()));
    }
    let (digits, digits_scale, java_scale) = decimal_of(x);
    if !drops_digits(java_scale, scale)? || i64::from(scale) >= digits_scale {
        return Ok(None);
    }
    // Drop the digits past 10^-scale, rounding on the first dropped one.
    let drop = digits_scale - i64::from(scale);
    let keep = digits.len() as i64 - drop;
    let (kept, dropped) = if keep > 0 {
        digits.split_at(keep as usize)
    } else {
        ("", digits.as_str())
    };
    let kept: i128 = if kept.is_empty() {
        0
    } else {
        kept.parse().unwrap_or(0)
    };
    let up = if keep < 0 {
        false
    } else {
        let mut rest = dropped.bytes();
        match rest.next() {
            Some(b'5') => rest.any(|d| d != b'0') || !half_even || kept % 2 != 0,
            Some(d) => d > b'5',
            None => false,
        }
    };
    let rounded = kept + i128::from(up);
    if rounded == 0 {
        return Ok(Some("0".into()));
    }
    let sign = if x < 0.0 { "-" } else { "" };
    Ok(Some(format!("{sign}{rounded}e{}", -i64::from(scale))))
}

/// Whether `x * 10^scale` is far enough from a tie for the double's own arithmetic to round it
/// as its decimal text would (the common case, without formatting the value).
fn fast_float(x: f64, scale: i32) -> Option<f64> {
    if !(-22..=22).contains(&scale) || !x.is_finite() {
        return None;
    }
    let m = 10f64.powi(scale.abs());
    let y = if scale >= 0 { x * m } else { x / m };
    // (Within 10^9 the product is off its decimal by less than 10^-6.)
    if y.abs() >= 1e9 || ((y - y.floor()) - 0.5).abs() <= 1e-6 {
        return None;
    }
    let k = y.round();
    let r = if scale >= 0 { k / m } else { k * m };
    // (Java's BigDecimal has no negative zero.)
    Some(if r == 0.0 { 0.0 } else { r })
}

/// Each value of `a` through `round` (NULLs stay NULL and are not rounded).
fn each<T: ArrowPrimitiveType>(
    a: &ArrayRef,
    round: impl Fn(T::Native) -> Result<T::Native>,
) -> Result<ArrayRef> {
    Ok(Arc::new(a.as_primitive::<T>().try_unary::<_, T, _>(round)?))
}

fn floats<T: ArrowPrimitiveType>(
    a: &ArrayRef,
    scale: i32,
    half_even: bool,
    to_f64: fn(T::Native) -> f64,
    from_f64: fn(f64) -> T::Native,
    parse: fn(&str) -> Option<T::Native>,
) -> Result<ArrayRef> {
    each::<T>(a, |v| {
        let x = to_f64(v);
        Ok(match fast_float(x, scale) {
            // (A float is rounded as its double's text, never so.)
            Some(r) if T::DATA_TYPE == DataType::Float64 => from_f64(r),
            _ => match float_text(x, scale, half_even) {
                Ok(Some(text)) => parse(&text).unwrap_or(v),
                Ok(None) => v,
                Err(f) => return Err(f.error(false)),
            },
        })
    })
}

fn integers<T: ArrowPrimitiveType>(
    a: &ArrayRef,
    scale: i32,
    half_even: bool,
    ansi: bool,
    from: fn(T::Native) -> i128,
    into: fn(i128) -> Option<T::Native>,
    wrap: fn(i128) -> T::Native,
) -> Result<ArrayRef> {
    each::<T>(a, |v| {
        let r = integer(from(v), scale, half_even).map_err(|f| f.error(ansi))?;
        match into(r) {
            Some(r) => Ok(r),
            None if ansi => Err(Failure::OutOfRange.error(true)),
            None => Ok(wrap(r)),
        }
    })
}

/// `round` (`half_even` false) or `bround` of an integer or floating point column to `scale`
/// decimal digits, in its type.
pub(super) fn round(
    arrays: &[ArrayRef],
    scale: i32,
    half_even: bool,
    ansi: bool,
) -> Result<ArrayRef> {
    let Some(a) = arrays.first() else {
        return internal_err!("rounding without a value");
    };
    // (An integer type's result in its type: exactly, or wrapped outside ANSI mode.)
    macro_rules! integers {
        ($t:ty, $n:ty) => {
            integers::<$t>(
                a,
                scale,
                half_even,
                ansi,
                i128::from,
                |r| <$n>::try_from(r).ok(),
                |r| r as $n,
            )
        };
    }
    match a.data_type() {
        DataType::Float64 => {
            floats::<Float64Type>(a, scale, half_even, |x| x, |x| x, |t| t.parse().ok())
        }
        DataType::Float32 => floats::<Float32Type>(
            a,
            scale,
            half_even,
            f64::from,
            |x| x as f32,
            |t| t.parse().ok(),
        ),
        DataType::Int8 => integers!(Int8Type, i8),
        DataType::Int16 => integers!(Int16Type, i16),
        DataType::Int32 => integers!(Int32Type, i32),
        DataType::Int64 => integers!(Int64Type, i64),
        DataType::Null => Ok(Arc::clone(a)),
        other => internal_err!("rounding of {other}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::PrimitiveArray;

    fn f(x: f64, scale: i32, half_even: bool) -> f64 {
        let a: ArrayRef = Arc::new(PrimitiveArray::<Float64Type>::from(vec![Some(x)]));
        let r = round(&[a], scale, half_even, true).unwrap();
        r.as_primitive::<Float64Type>().value(0)
    }

    #[test]
    fn doubles_round_as_their_decimal_text() {
        assert_eq!(f(1.005, 2, false), 1.01);
        assert_eq!(f(2.675, 2, false), 2.68);
        assert_eq!(f(2.665, 2, true), 2.66);
        assert_eq!(f(-2.5, 0, false), -3.0);
        assert_eq!(f(-2.5, 0, true), -2.0);
        assert_eq!(f(125.0, -1, false), 130.0);
        assert_eq!(f(125.0, -1, true), 120.0);
        assert_eq!(f(2.5, 400, true), 2.5);
        assert_eq!(f(2.5, -400, false), 0.0);
        assert_eq!(f(1e300, -300, false), 1e300);
        assert_eq!(f(123_456_789.123_456_79, 5, false), 123_456_789.123_46);
        assert!(f(-0.4, 0, false).is_sign_positive());
        assert!(f(f64::NAN, 2_147_483_647, false).is_nan());
        assert_eq!(f(0.0, 2_147_483_647, false), 0.0);
    }

    #[test]
    fn extreme_scales_fail_as_java() {
        assert_eq!(float_text(2.5, i32::MAX, false), Err(Failure::Overflow));
        assert_eq!(float_text(2.5, i32::MIN, true), Err(Failure::Underflow));
        assert_eq!(integer(25, i32::MAX, false), Err(Failure::Overflow));
        assert_eq!(integer(25, i32::MIN, false), Err(Failure::Underflow));
        assert_eq!(integer(0, i32::MIN, false), Ok(0));
        assert_eq!(integer(25, -400, false), Ok(0));
        assert_eq!(integer(25, 400, false), Ok(25));
        assert_eq!(integer(2_147_483_647, -1, false), Ok(2_147_483_650));
        assert_eq!(integer(25, -1, true), Ok(20));
        assert_eq!(integer(-25, -1, false), Ok(-30));
        assert_eq!(integer(50, -2, false), Ok(100));
    }
}
