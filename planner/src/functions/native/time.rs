//! Spark's TIME functions: a TIME is microseconds since midnight (Arrow `Time64(us)`).

use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, Decimal128Array, Int64Array, Time64MicrosecondArray};
use arrow::datatypes::{DataType, Decimal128Type, Int64Type, Time64MicrosecondType, TimeUnit};
use chrono::{NaiveTime, Timelike};
use datafusion::common::{Result, internal_err};
use serde::{Deserialize, Serialize};

use crate::error::{ErrorKind, SparkError, to_datafusion};

const DAY_MICROS: i64 = 86_400_000_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TimeField {
    Hour,
    Minute,
    Second,
    Millisecond,
    Microsecond,
}

impl TimeField {
    /// The unit a function names (`'HOUR'`, `'minute'`, ...), or INVALID_PARAMETER_VALUE.
    pub fn parse(unit: &str, function: &str) -> crate::error::PlanResult<Self> {
        Ok(match unit.to_ascii_uppercase().as_str() {
            "HOUR" => TimeField::Hour,
            "MINUTE" => TimeField::Minute,
            "SECOND" => TimeField::Second,
            "MILLISECOND" => TimeField::Millisecond,
            "MICROSECOND" => TimeField::Microsecond,
            _ => {
                return Err(SparkError::new(
                    ErrorKind::IllegalArgument,
                    "INVALID_PARAMETER_VALUE.TIME_UNIT",
                    "22023",
                    format!(
                        "The value of parameter(s) `unit` in `{function}` is invalid: expects one of the units 'HOUR', 'MINUTE', 'SECOND', 'MILLISECOND', 'MICROSECOND', but got ''{unit}''."
                    ),
                    vec![
                        ("parameter", "`unit`".into()),
                        ("functionName", format!("`{function}`")),
                        ("invalidValue", format!("'{unit}'")),
                    ],
                )
                .into());
            }
        })
    }

    fn micros(self) -> i64 {
        match self {
            TimeField::Hour => 3_600_000_000,
            TimeField::Minute => 60_000_000,
            TimeField::Second => 1_000_000,
            TimeField::Millisecond => 1_000,
            TimeField::Microsecond => 1,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TimeOp {
    /// `make_time(hour, minute, seconds)`: seconds a DECIMAL(16,6).
    Make,
    /// `to_time(text[, pattern])` (`fail`), `try_to_time`, and `CAST(text AS TIME)` (`cast`:
    /// CAST_INVALID_INPUT rather than CANNOT_PARSE_TIME).
    Parse {
        pattern: Option<String>,
        fail: bool,
        cast: bool,
    },
    /// `time_diff(unit, start, end)`: whole units from start to end.
    Diff { unit: TimeField },
    /// `time_trunc(unit, time)`.
    Trunc { unit: TimeField },
    /// `time_to_seconds` (a DECIMAL(14,6)), `time_to_millis`, `time_to_micros`.
    To { unit: TimeField },
    /// `time_from_seconds` (any number), `time_from_millis`, `time_from_micros`.
    From { unit: TimeField },
}

impl TimeOp {
    pub(super) fn return_type(&self) -> DataType {
        match self {
            TimeOp::Diff { .. } => DataType::Int64,
            TimeOp::To {
                unit: TimeField::Second,
            } => DataType::Decimal128(14, 6),
            TimeOp::To { .. } => DataType::Int64,
            _ => DataType::Time64(TimeUnit::Microsecond),
        }
    }
}

fn out_of_bounds(message: String) -> datafusion::error::DataFusionError {
    to_datafusion(SparkError::new(
        ErrorKind::DateTime,
        "DATETIME_FIELD_OUT_OF_BOUNDS.WITHOUT_SUGGESTION",
        "22023",
        message,
        vec![],
    ))
}

fn micros_of(array: &ArrayRef) -> Result<Time64MicrosecondArray> {
    let t = arrow::compute::cast(array, &DataType::Time64(TimeUnit::Microsecond))?;
    Ok(t.as_primitive::<Time64MicrosecondType>().clone())
}

/// Spark's text of a TIME: `01:02:03`, `01:02:03.0001`.
pub use ember_execution::values::time_text;

fn parse_text(text: &str, pattern: Option<&str>) -> Option<i64> {
    let text = text.trim();
    let time = match pattern {
        Some(p) => {
            // Fields a pattern leaves out are zero (`h a` reads `10 PM`).
            let mut parsed = chrono::format::Parsed::new();
            chrono::format::parse(&mut parsed, text, chrono::format::StrftimeItems::new(p)).ok()?;
            match parsed.to_naive_time() {
                Ok(t) => t,
                Err(_) => {
                    let _ = parsed.set_minute(0);
                    parsed.to_naive_time().ok()?
                }
            }
        }
        None => {
            // `H:m[:s[.fraction]]`, hours 0-23 (fractions past microseconds cut).
            let mut parts = text.splitn(3, ':');
            let h: u32 = parts.next()?.parse().ok()?;
            let m: u32 = parts.next()?.parse().ok()?;
            let (s, frac) = match parts.next() {
                None => (0, 0),
                Some(rest) => {
                    let (s, f) = rest.split_once('.').unwrap_or((rest, ""));
                    if !f.bytes().all(|c| c.is_ascii_digit()) || f.len() > 9 {
                        return None;
                    }
                    let digits: String = f.chars().chain(std::iter::repeat('0')).take(6).collect();
                    (s.parse().ok()?, digits.parse::<u32>().ok()?)
                }
            };
            NaiveTime::from_hms_micro_opt(h, m, s, frac)?
        }
    };
    Some(
        i64::from(time.num_seconds_from_midnight()) * 1_000_000
            + i64::from(time.nanosecond() / 1000),
    )
}

pub(super) fn evaluate(op: &TimeOp, arrays: &[ArrayRef]) -> Result<ArrayRef> {
    let Some(first) = arrays.first() else {
        return internal_err!("a TIME function without arguments");
    };
    let rows = first.len();
    Ok(match op {
        TimeOp::Make => {
            let [h, m, s] = arrays else {
                return internal_err!("make_time takes three arguments");
            };
            let h = arrow::compute::cast(h, &DataType::Int64)?;
            let m = arrow::compute::cast(m, &DataType::Int64)?;
            let s = arrow::compute::cast(s, &DataType::Decimal128(16, 6))?;
            let (h, m, s) = (
                h.as_primitive::<Int64Type>(),
                m.as_primitive::<Int64Type>(),
                s.as_primitive::<Decimal128Type>(),
            );
            let mut out = Vec::with_capacity(rows);
            for i in 0..rows {
                if h.is_null(i) || m.is_null(i) || s.is_null(i) {
                    out.push(None);
                    continue;
                }
                let (h, m, s) = (h.value(i), m.value(i), s.value(i));
                let check = |v: i64, max: i64, name: &str| {
                    if (0..=max).contains(&v) {
                        Ok(())
                    } else {
                        Err(out_of_bounds(format!(
                            "Invalid value for {name} (valid values 0 - {max}): {v}."
                        )))
                    }
                };
                check(h, 23, "HourOfDay")?;
                check(m, 59, "MinuteOfHour")?;
                let secs = s.div_euclid(1_000_000) as i64;
                check(secs, 59, "SecondOfMinute")?;
                out.push(Some(h * 3_600_000_000 + m * 60_000_000 + s as i64));
            }
            Arc::new(Time64MicrosecondArray::from(out))
        }
        TimeOp::Parse {
            pattern,
            fail,
            cast,
        } => {
            let text = arrow::compute::cast(first, &DataType::Utf8)?;
            let text = text.as_string::<i32>();
            let mut out = Vec::with_capacity(rows);
            for i in 0..rows {
                if text.is_null(i) {
                    out.push(None);
                    continue;
                }
                let t = text.value(i);
                match parse_text(t, pattern.as_deref()) {
                    Some(v) => out.push(Some(v)),
                    None if !fail => out.push(None),
                    None if *cast => {
                        return Err(to_datafusion(SparkError::new(
                            ErrorKind::DateTime,
                            "CAST_INVALID_INPUT",
                            "22018",
                            format!(
                                "The value '{t}' of the type \"STRING\" cannot be cast to \"TIME(6)\" because it is malformed. Correct the value as per the syntax, or change its target type. Use `try_cast` to tolerate malformed input and return NULL instead."
                            ),
                            vec![
                                ("expression", format!("'{t}'")),
                                ("sourceType", "\"STRING\"".into()),
                                ("targetType", "\"TIME(6)\"".into()),
                            ],
                        )));
                    }
                    None => {
                        return Err(to_datafusion(SparkError::new(
                            ErrorKind::DateTime,
                            "CANNOT_PARSE_TIME",
                            "22010",
                            format!(
                                "The input string '{t}' cannot be parsed to a TIME value because it does not match to the datetime format '{}'.",
                                "HH:mm:ss.SSSSSS"
                            ),
                            vec![("input", format!("'{t}'"))],
                        )));
                    }
                }
            }
            Arc::new(Time64MicrosecondArray::from(out))
        }
        TimeOp::Diff { unit } => {
            let [start, end] = arrays else {
                return internal_err!("time_diff takes a start and an end");
            };
            let (start, end) = (micros_of(start)?, micros_of(end)?);
            let out: Int64Array = start
                .iter()
                .zip(end.iter())
                .map(|(a, b)| Some((b? - a?) / unit.micros()))
                .collect();
            Arc::new(out)
        }
        TimeOp::Trunc { unit } => {
            let t = micros_of(first)?;
            let out: Time64MicrosecondArray =
                t.iter().map(|v| v.map(|v| v - v % unit.micros())).collect();
            Arc::new(out)
        }
        TimeOp::To { unit } => {
            let t = micros_of(first)?;
            match unit {
                TimeField::Second => Arc::new(
                    t.iter()
                        .map(|v| v.map(i128::from))
                        .collect::<Decimal128Array>()
                        .with_precision_and_scale(14, 6)?,
                ),
                _ => Arc::new(
                    t.iter()
                        .map(|v| v.map(|v| v / unit.micros()))
                        .collect::<Int64Array>(),
                ),
            }
        }
        TimeOp::From { unit } => {
            // Seconds may carry a fraction: read them as microseconds of a DECIMAL(38,6)
            // (doubles rounded to the microsecond).
            let micros: Vec<Option<i128>> = match (unit, first.data_type()) {
                (TimeField::Second, t) if !t.is_integer() => {
                    let d = arrow::compute::cast(first, &DataType::Decimal128(38, 6))?;
                    d.as_primitive::<Decimal128Type>().iter().collect()
                }
                _ => {
                    let n = arrow::compute::cast(first, &DataType::Int64)?;
                    n.as_primitive::<Int64Type>()
                        .iter()
                        .map(|v| v.map(|v| i128::from(v) * i128::from(unit.micros())))
                        .collect()
                }
            };
            let mut out = Vec::with_capacity(rows);
            for m in micros {
                match m {
                    None => out.push(None),
                    Some(m) if (0..i128::from(DAY_MICROS)).contains(&m) => out.push(Some(m as i64)),
                    Some(m) => {
                        return Err(out_of_bounds(format!(
                            "Invalid TIME value: must be between 00:00:00 and 23:59:59.999999999, but got {} nanoseconds.",
                            m.saturating_mul(1000)
                        )));
                    }
                }
            }
            Arc::new(Time64MicrosecondArray::from(out))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_text_and_parse() {
        assert_eq!(time_text(3_723_000_100), "01:02:03.0001");
        assert_eq!(time_text(0), "00:00:00");
        assert_eq!(parse_text("1:2:3", None), Some(3_723_000_000));
        assert_eq!(parse_text("12:34", None), Some(45_240_000_000));
        assert_eq!(parse_text("12:34:56.1234567", None), Some(45_296_123_456));
        assert_eq!(parse_text("25:00:00", None), None);
        assert_eq!(parse_text("xx", None), None);
    }
}
