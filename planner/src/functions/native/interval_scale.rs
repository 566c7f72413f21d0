//! An ANSI interval multiplied or divided by a number (`INTERVAL 1 DAY * 1.5`,
//! `INTERVAL 3 MONTHS / 2`), as Spark's `MultiplyDTInterval`/`DivideYMInterval` compute it:
//! exact for integers (overflow is an error), rounded half away from zero otherwise, a
//! division by zero INTERVAL_DIVIDED_BY_ZERO.

use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, DurationMicrosecondArray, IntervalYearMonthArray};
use arrow::datatypes::{DataType, Decimal128Type, Float64Type, Int64Type, IntervalUnit};
use datafusion::common::{Result, internal_err};

use crate::error::{ErrorKind, SparkError, to_datafusion};

fn arithmetic(message: &str) -> datafusion::error::DataFusionError {
    to_datafusion(SparkError::new(
        ErrorKind::Arithmetic,
        "",
        "",
        message,
        vec![],
    ))
}

fn divided_by_zero() -> datafusion::error::DataFusionError {
    to_datafusion(SparkError::new(
        ErrorKind::Arithmetic,
        "INTERVAL_DIVIDED_BY_ZERO",
        "22012",
        "Division by zero. Use `try_divide` to tolerate divisor being 0 and return NULL instead.",
        vec![],
    ))
}

/// `n / d` rounded half away from zero (`d` not zero).
fn divide_half_up(n: i128, d: i128) -> i128 {
    let (q, r) = (n / d, n % d);
    if 2 * r.abs() >= d.abs() {
        q + if (n < 0) == (d < 0) { 1 } else { -1 }
    } else {
        q
    }
}

/// One value scaled by the row's factor (integer, double or decimal).
fn scale(value: i64, factor: &Factor, row: usize, divide: bool) -> Result<i128> {
    let v = i128::from(value);
    Ok(match factor {
        Factor::Integer(a) => {
            let n = i128::from(a.value(row));
            match (divide, n) {
                (true, 0) => return Err(divided_by_zero()),
                (true, n) => divide_half_up(v, n),
                (false, n) => v * n,
            }
        }
        Factor::Double(a) => {
            let d = a.value(row);
            if divide && d == 0.0 {
                return Err(divided_by_zero());
            }
            let x = if divide {
                value as f64 / d
            } else {
                value as f64 * d
            };
            if !x.is_finite() {
                return Err(arithmetic("input is infinite or NaN"));
            }
            // (Values beyond i64 are refused by the caller's range check.)
            x.round() as i128
        }
        Factor::Decimal(a, scale) => {
            let unscaled = a.value(row);
            let ten = 10i128.pow(u32::from(*scale));
            let overflow = || arithmetic("long overflow");
            if divide {
                if unscaled == 0 {
                    return Err(divided_by_zero());
                }
                divide_half_up(v.checked_mul(ten).ok_or_else(overflow)?, unscaled)
            } else {
                divide_half_up(v.checked_mul(unscaled).ok_or_else(overflow)?, ten)
            }
        }
    })
}

enum Factor {
    Integer(arrow::array::PrimitiveArray<Int64Type>),
    Double(arrow::array::PrimitiveArray<Float64Type>),
    Decimal(arrow::array::PrimitiveArray<Decimal128Type>, u8),
}

pub(super) fn evaluate(arrays: &[ArrayRef], divide: bool) -> Result<ArrayRef> {
    let [interval, factor] = arrays else {
        return internal_err!("interval arithmetic takes an interval and a number");
    };
    let factor = match factor.data_type() {
        DataType::Decimal128(_, s) => Factor::Decimal(
            factor.as_primitive::<Decimal128Type>().clone(),
            u8::try_from(*s).unwrap_or(0),
        ),
        DataType::Float16 | DataType::Float32 | DataType::Float64 => Factor::Double(
            arrow::compute::cast(factor, &DataType::Float64)?
                .as_primitive::<Float64Type>()
                .clone(),
        ),
        _ => Factor::Integer(
            arrow::compute::cast(factor, &DataType::Int64)?
                .as_primitive::<Int64Type>()
                .clone(),
        ),
    };
    let null = |i: usize| interval.is_null(i) || arrays[1].is_null(i);
    match interval.data_type() {
        DataType::Interval(IntervalUnit::YearMonth) => {
            let months = interval.as_primitive::<arrow::datatypes::IntervalYearMonthType>();
            let mut out = Vec::with_capacity(months.len());
            for i in 0..months.len() {
                if null(i) {
                    out.push(None);
                    continue;
                }
                let v = scale(i64::from(months.value(i)), &factor, i, divide)?;
                out.push(Some(
                    i32::try_from(v).map_err(|_| arithmetic("integer overflow"))?,
                ));
            }
            Ok(Arc::new(IntervalYearMonthArray::from(out)))
        }
        DataType::Duration(_) => {
            let micros = arrow::compute::cast(
                interval,
                &DataType::Duration(arrow::datatypes::TimeUnit::Microsecond),
            )?;
            let micros = micros.as_primitive::<arrow::datatypes::DurationMicrosecondType>();
            let mut out = Vec::with_capacity(micros.len());
            for i in 0..micros.len() {
                if null(i) {
                    out.push(None);
                    continue;
                }
                let v = scale(micros.value(i), &factor, i, divide)?;
                out.push(Some(
                    i64::try_from(v).map_err(|_| arithmetic("long overflow"))?,
                ));
            }
            Ok(Arc::new(DurationMicrosecondArray::from(out)))
        }
        other => internal_err!("interval arithmetic of {other}"),
    }
}

/// `CAST(x AS INTERVAL DAY)` / `AS INTERVAL YEAR`: each value a whole multiple of `unit`
/// (microseconds for day-time intervals, months for year-month ones), toward zero.
pub(super) fn truncate(arrays: &[ArrayRef], unit: i64) -> Result<ArrayRef> {
    let [interval] = arrays else {
        return internal_err!("interval truncation takes an interval");
    };
    match interval.data_type() {
        DataType::Interval(IntervalUnit::YearMonth) => {
            let unit = i32::try_from(unit).unwrap_or(1);
            let months = interval.as_primitive::<arrow::datatypes::IntervalYearMonthType>();
            let out: IntervalYearMonthArray = months.unary(|m| m / unit * unit);
            Ok(Arc::new(out))
        }
        DataType::Duration(_) => {
            let micros = arrow::compute::cast(
                interval,
                &DataType::Duration(arrow::datatypes::TimeUnit::Microsecond),
            )?;
            let micros = micros.as_primitive::<arrow::datatypes::DurationMicrosecondType>();
            let out: DurationMicrosecondArray = micros.unary(|m| m / unit * unit);
            Ok(Arc::new(out))
        }
        other => internal_err!("interval truncation of {other}"),
    }
}

#[cfg(test)]
mod tests {
    use super::divide_half_up;

    #[test]
    fn rounds_half_away_from_zero() {
        assert_eq!(divide_half_up(1, 2), 1);
        assert_eq!(divide_half_up(-1, 2), -1);
        assert_eq!(divide_half_up(5, 3), 2);
        assert_eq!(divide_half_up(4, 3), 1);
        assert_eq!(divide_half_up(-5, -3), 2);
    }
}
