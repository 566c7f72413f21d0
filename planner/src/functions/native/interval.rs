//! ANSI intervals computed as Spark computes them: multiplied or divided by a number
//! (`INTERVAL 1 DAY * 1.5`, `INTERVAL 3 MONTHS / 2`, Spark's `MultiplyDTInterval` /
//! `DivideYMInterval`: exact for integers, an overflow an error, rounded half away from zero
//! otherwise, a division by zero INTERVAL_DIVIDED_BY_ZERO), truncated to a type's last
//! field, read from strings, and numbers cast to integers with Spark's CAST_OVERFLOW.

use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, DurationMicrosecondArray, IntervalYearMonthArray};
use arrow::datatypes::{DataType, Decimal128Type, Float64Type, Int64Type, IntervalUnit};
use datafusion::common::{Result, internal_err};

use crate::error::{ErrorKind, SparkError, to_datafusion};
use crate::interval::{IntervalFields, TextError};

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

/// `evaluate`, for a cast of a number to an interval type (`cast`: the number's and the
/// interval's Spark type names): an overflow is Spark's CAST_OVERFLOW.
pub(super) fn evaluate_cast(arrays: &[ArrayRef], cast: &(String, String)) -> Result<ArrayRef> {
    evaluate(arrays, false).map_err(|e| {
        let [_, number] = arrays else {
            return e;
        };
        // The first value out of range names the error, as Spark's does.
        let out_of_range = (0..number.len()).find(|&row| {
            !number.is_null(row)
                && evaluate(&[arrays[0].slice(row, 1), number.slice(row, 1)], false).is_err()
        });
        match out_of_range {
            Some(row) => cast_overflow(&sql_value(number.as_ref(), row), &cast.0, &cast.1),
            None => e,
        }
    })
}

fn cast_overflow(value: &str, from: &str, to: &str) -> datafusion::error::DataFusionError {
    to_datafusion(SparkError::new(
        ErrorKind::Arithmetic,
        "CAST_OVERFLOW",
        "22003",
        format!(
            "The value {value} of the type \"{from}\" cannot be cast to \"{to}\" due to an overflow. Use `try_cast` to tolerate overflow and return NULL instead."
        ),
        vec![],
    ))
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
    // Months or microseconds, each scaled (NULL where either side is).
    let (values, year_month): (Vec<Option<i64>>, bool) = match interval.data_type() {
        DataType::Interval(IntervalUnit::YearMonth) => (
            interval
                .as_primitive::<arrow::datatypes::IntervalYearMonthType>()
                .iter()
                .map(|m| m.map(i64::from))
                .collect(),
            true,
        ),
        DataType::Duration(_) => (
            arrow::compute::cast(
                interval,
                &DataType::Duration(arrow::datatypes::TimeUnit::Microsecond),
            )?
            .as_primitive::<arrow::datatypes::DurationMicrosecondType>()
            .iter()
            .collect(),
            false,
        ),
        other => return internal_err!("interval arithmetic of {other}"),
    };
    let scaled = values
        .into_iter()
        .enumerate()
        .map(|(i, v)| match v {
            Some(v) if !arrays[1].is_null(i) => scale(v, &factor, i, divide).map(Some),
            _ => Ok(None),
        })
        .collect::<Result<Vec<Option<i128>>>>()?;
    if year_month {
        let months = scaled
            .into_iter()
            .map(|v| {
                v.map(|v| i32::try_from(v).map_err(|_| arithmetic("integer overflow")))
                    .transpose()
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Arc::new(IntervalYearMonthArray::from(months)))
    } else {
        let micros = scaled
            .into_iter()
            .map(|v| {
                v.map(|v| i64::try_from(v).map_err(|_| arithmetic("long overflow")))
                    .transpose()
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Arc::new(DurationMicrosecondArray::from(micros)))
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

/// `CAST(text AS INTERVAL ...)`: see `IntervalFields::parse_value`; a string of another
/// form fails (`fail`, CAST) or is NULL (TRY_CAST).
pub(super) fn from_text(
    arrays: &[ArrayRef],
    fields: IntervalFields,
    fail: bool,
) -> Result<ArrayRef> {
    let [text] = arrays else {
        return internal_err!("a cast to an interval takes a string");
    };
    let text = arrow::compute::cast(text, &DataType::Utf8)?;
    let text = text.as_string::<i32>();
    let mut values: Vec<Option<i64>> = Vec::with_capacity(text.len());
    for s in text.iter() {
        let Some(s) = s else {
            values.push(None);
            continue;
        };
        match fields.parse_value(s) {
            Ok(v) => values.push(Some(v)),
            Err(_) if !fail => values.push(None),
            Err(TextError::Range(_)) if fields.year_month => {
                return Err(to_datafusion(SparkError::new(
                    ErrorKind::IllegalArgument,
                    "INVALID_INTERVAL_FORMAT.INTERVAL_PARSING",
                    "22006",
                    format!(
                        "Error parsing '{s}' to interval. Please ensure that the value provided is in a valid format for defining an interval. You can reference the documentation for the correct format. Error parsing interval year-month string."
                    ),
                    vec![],
                )));
            }
            Err(TextError::Range(message)) => {
                return Err(to_datafusion(SparkError::new(
                    ErrorKind::IllegalArgument,
                    "",
                    "",
                    format!("requirement failed: {message}"),
                    vec![],
                )));
            }
            Err(TextError::Format) => return Err(to_datafusion(unmatched_format(s, fields))),
        }
    }
    if fields.year_month {
        let months: IntervalYearMonthArray = values
            .into_iter()
            .map(|v| v.and_then(|m| i32::try_from(m).ok()))
            .collect();
        Ok(Arc::new(months))
    } else {
        Ok(Arc::new(DurationMicrosecondArray::from(values)))
    }
}

/// Spark's INVALID_INTERVAL_FORMAT for a string not in the form of `fields`.
fn unmatched_format(text: &str, fields: IntervalFields) -> SparkError {
    const DAY_TIME: [&str; 4] = ["d", "h", "m", "s.n"];
    let form = if fields.year_month {
        match (fields.start, fields.end) {
            (0, 1) => "y-m".to_string(),
            (0, _) => "y".to_string(),
            _ => "m".to_string(),
        }
    } else {
        let parts = &DAY_TIME[fields.start as usize..=fields.end as usize];
        match parts.split_first() {
            Some((&"d", rest)) if !rest.is_empty() => format!("d {}", rest.join(":")),
            _ => parts.join(":"),
        }
    };
    let units = &fields.sql_name()["INTERVAL ".len()..];
    let (class, kind, notice) = if fields.year_month {
        (
            "INVALID_INTERVAL_FORMAT.UNMATCHED_FORMAT_STRING",
            "year-month",
            "",
        )
    } else {
        (
            "INVALID_INTERVAL_FORMAT.UNMATCHED_FORMAT_STRING_WITH_NOTICE",
            "day-time",
            ". Set \"spark.sql.legacy.fromDayTimeString.enabled\" to \"true\" to restore the behavior before Spark 3.0",
        )
    };
    SparkError::new(
        ErrorKind::IllegalArgument,
        class,
        "22006",
        format!(
            "Error parsing '{text}' to interval. Please ensure that the value provided is in a valid format for defining an interval. You can reference the documentation for the correct format. Interval string does not match {kind} format of `[+|-]{form}`, `INTERVAL [+|-]'[+|-]{form}' {units}` when cast to {}: {text}{notice}.",
            fields.simple_string()
        ),
        vec![],
    )
}

/// A number (or an ANSI interval, counted in `unit`s of its last field) cast to an integer
/// type, an out-of-range value Spark's CAST_OVERFLOW (`from`/`to` Spark's type names).
pub(super) fn checked_integer_cast(
    arrays: &[ArrayRef],
    from: &str,
    to: &DataType,
    unit: i64,
    arithmetic: bool,
) -> Result<ArrayRef> {
    let [input] = arrays else {
        return internal_err!("a cast takes one value");
    };
    let interval = crate::interval::IntervalFields::parse(from)
        .filter(|_| crate::interval::IntervalFields::default_of(input.data_type()).is_some());
    let numbers = match input.data_type() {
        DataType::Duration(_) => {
            let micros = arrow::compute::cast(
                input,
                &DataType::Duration(arrow::datatypes::TimeUnit::Microsecond),
            )?;
            let counts: arrow::array::Int64Array = micros
                .as_primitive::<arrow::datatypes::DurationMicrosecondType>()
                .unary(|v| v / unit);
            Arc::new(counts) as ArrayRef
        }
        DataType::Interval(IntervalUnit::YearMonth) => {
            let counts: arrow::array::Int64Array = input
                .as_primitive::<arrow::datatypes::IntervalYearMonthType>()
                .unary(|v| i64::from(v) / unit);
            Arc::new(counts) as ArrayRef
        }
        _ => Arc::clone(input),
    };
    let out = arrow::compute::cast(&numbers, to)?;
    // (Values out of range are the NULLs the cast added.)
    if out.null_count() == input.null_count() {
        return Ok(out);
    }
    for row in 0..out.len() {
        if out.is_null(row) && !input.is_null(row) && arithmetic {
            return Err(to_datafusion(SparkError::arithmetic_overflow(
                "overflow", "try_add",
            )));
        }
        if out.is_null(row) && !input.is_null(row) {
            let value = match interval {
                Some(f) => crate::show::cast_string(input.as_ref(), row, "UTC", Some(f)),
                None => sql_value(input.as_ref(), row),
            };
            return Err(cast_overflow(&value, from, &crate::types::sql_name(to)));
        }
    }
    Ok(out)
}

/// A number as Spark's `toSQLValue` shows it in messages: `300S`, `3000000000L`, `1.0E20D`.
fn sql_value(array: &dyn Array, row: usize) -> String {
    let text = crate::show::cast_string(array, row, "UTC", None);
    match array.data_type() {
        DataType::Int8 => format!("{text}Y"),
        DataType::Int16 => format!("{text}S"),
        DataType::Int64 => format!("{text}L"),
        DataType::Float64 if text.bytes().any(|b| b.is_ascii_digit()) => format!("{text}D"),
        DataType::Decimal128(..) | DataType::Decimal256(..) => format!("{text}BD"),
        _ => text,
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
