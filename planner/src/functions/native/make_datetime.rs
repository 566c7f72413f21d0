//! `make_date(y, m, d)` and the local date-time of `make_timestamp(y, mo, d, h, mi, s)` as
//! Spark computes them (java.time's `LocalDate.of` / `LocalDateTime.of`): a field out of its
//! range is DATETIME_FIELD_OUT_OF_BOUNDS with java.time's words in ANSI mode (`fail`), NULL
//! outside it. The seconds are a DECIMAL(16,6); 60 with no fraction is the next minute (as
//! PostgreSQL), 60 with a fraction INVALID_FRACTION_OF_SECOND.

use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, Date32Builder, TimestampMicrosecondBuilder};
use arrow::datatypes::{DataType, Decimal128Type, Int32Type};
use datafusion::common::{Result, internal_err};

use crate::error::{ErrorKind, SparkError, to_datafusion};

const MONTHS: [&str; 12] = [
    "JANUARY",
    "FEBRUARY",
    "MARCH",
    "APRIL",
    "MAY",
    "JUNE",
    "JULY",
    "AUGUST",
    "SEPTEMBER",
    "OCTOBER",
    "NOVEMBER",
    "DECEMBER",
];

const OUT_OF_BOUNDS: &str = "DATETIME_FIELD_OUT_OF_BOUNDS.WITHOUT_SUGGESTION";

/// Why a field is out of range, in java.time's words (Spark's message is them, a dot and a
/// space).
fn invalid(field: &str, range: &str, value: impl std::fmt::Display) -> String {
    format!("Invalid value for {field} (valid values {range}): {value}")
}

/// java.time's `LocalDate.of(year, month, day)`: its days since the epoch, or its complaint.
fn date_of(year: i32, month: i32, day: i32) -> std::result::Result<i64, String> {
    if !(-999_999_999..=999_999_999).contains(&year) {
        return Err(invalid("Year", "-999999999 - 999999999", year));
    }
    if !(1..=12).contains(&month) {
        return Err(invalid("MonthOfYear", "1 - 12", month));
    }
    if !(1..=31).contains(&day) {
        return Err(invalid("DayOfMonth", "1 - 28/31", day));
    }
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let length = match month {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    };
    if day > length {
        return Err(if month == 2 && day == 29 {
            format!("Invalid date 'February 29' as '{year}' is not a leap year")
        } else {
            format!("Invalid date '{} {day}'", MONTHS[(month - 1) as usize])
        });
    }
    Ok(days_from_civil(
        i64::from(year),
        i64::from(month),
        i64::from(day),
    ))
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let year_of_era = y - era * 400;
    let day_of_year = (153 * (month + if month > 2 { -3 } else { 9 }) + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

/// The local date-time of the fields in microseconds since the epoch, or the error's class
/// and message.
fn date_time_of(
    fields: [i32; 5],
    seconds_micros: i128,
) -> std::result::Result<Option<i64>, (&'static str, String)> {
    let [year, month, day, hour, minute] = fields;
    let out_of_bounds = |m: String| (OUT_OF_BOUNDS, format!("{m}. "));
    let days = date_of(year, month, day).map_err(out_of_bounds)?;
    if !(0..=23).contains(&hour) {
        return Err(out_of_bounds(invalid("HourOfDay", "0 - 23", hour)));
    }
    if !(0..=59).contains(&minute) {
        return Err(out_of_bounds(invalid("MinuteOfHour", "0 - 59", minute)));
    }
    let (seconds, micros) = (
        seconds_micros.div_euclid(1_000_000),
        seconds_micros.rem_euclid(1_000_000),
    );
    let seconds = match seconds {
        0..=59 => seconds,
        60 if micros == 0 => 60,
        60 => {
            return Err((
                "INVALID_FRACTION_OF_SECOND",
                format!(
                    "Valid range for seconds is [0, 60] (inclusive), but the provided value is {}. To avoid this error, use `try_make_timestamp`, which returns NULL on error.\nIf you do not want to use the session default timestamp version of this function, use `try_make_timestamp_ntz` or `try_make_timestamp_ltz`.",
                    seconds_text(seconds_micros)
                ),
            ));
        }
        s => return Err(out_of_bounds(invalid("SecondOfMinute", "0 - 59", s))),
    };
    // (Years past Spark's microseconds, about ±290,000, are NULL.)
    let minutes = days * 1440 + i64::from(hour) * 60 + i64::from(minute);
    Ok(minutes
        .checked_mul(60_000_000)
        .and_then(|m| m.checked_add(seconds as i64 * 1_000_000 + micros as i64)))
}

/// Seconds as Spark writes them in INVALID_FRACTION_OF_SECOND (no trailing zeros: `60.5`).
fn seconds_text(micros: i128) -> String {
    let sign = if micros < 0 { "-" } else { "" };
    let m = micros.unsigned_abs();
    let fraction = format!("{:06}", m % 1_000_000);
    let fraction = fraction.trim_end_matches('0');
    match fraction {
        "" => format!("{sign}{}", m / 1_000_000),
        f => format!("{sign}{}.{f}", m / 1_000_000),
    }
}

fn fail(class: &'static str, message: String) -> datafusion::error::DataFusionError {
    to_datafusion(SparkError::new(
        ErrorKind::DateTime,
        class,
        "22023",
        message,
        vec![],
    ))
}

fn ints(arrays: &[ArrayRef], n: usize) -> Result<Vec<arrow::array::Int32Array>> {
    if arrays.len() < n {
        return internal_err!("expected {n} fields, got {}", arrays.len());
    }
    arrays[..n]
        .iter()
        .map(|a| {
            Ok(arrow::compute::cast(a, &DataType::Int32)?
                .as_primitive::<Int32Type>()
                .clone())
        })
        .collect()
}

/// `make_date(y, m, d)`.
pub(super) fn make_date(arrays: &[ArrayRef], fail_on_error: bool) -> Result<ArrayRef> {
    let f = ints(arrays, 3)?;
    let mut out = Date32Builder::with_capacity(f[0].len());
    for i in 0..f[0].len() {
        if f.iter().any(|a| a.is_null(i)) {
            out.append_null();
            continue;
        }
        // (Dates past Spark's days, about ±5.8 million years, are NULL.)
        match date_of(f[0].value(i), f[1].value(i), f[2].value(i)) {
            Ok(days) => out.append_option(i32::try_from(days).ok()),
            Err(m) if fail_on_error => {
                return Err(fail(OUT_OF_BOUNDS, format!("{m}. ")));
            }
            Err(_) => out.append_null(),
        }
    }
    Ok(Arc::new(out.finish()))
}

/// The local date-time (TIMESTAMP_NTZ) of `make_timestamp(y, mo, d, h, mi, s)`.
pub(super) fn make_local_date_time(arrays: &[ArrayRef], fail_on_error: bool) -> Result<ArrayRef> {
    let f = ints(arrays, 5)?;
    let seconds = arrow::compute::cast(&arrays[5], &DataType::Decimal128(16, 6))?;
    let seconds = seconds.as_primitive::<Decimal128Type>();
    let mut out = TimestampMicrosecondBuilder::with_capacity(seconds.len());
    for i in 0..seconds.len() {
        if seconds.is_null(i) || f.iter().any(|a| a.is_null(i)) {
            out.append_null();
            continue;
        }
        let fields = [0, 1, 2, 3, 4].map(|j| f[j].value(i));
        match date_time_of(fields, seconds.value(i)) {
            Ok(micros) => out.append_option(micros),
            Err((class, m)) if fail_on_error => return Err(fail(class, m)),
            Err(_) => out.append_null(),
        }
    }
    Ok(Arc::new(out.finish()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_time_words() {
        assert_eq!(date_of(1970, 1, 2), Ok(1));
        assert_eq!(date_of(2024, 2, 29), Ok(19_782));
        assert_eq!(date_of(1, 1, 1), Ok(-719_162));
        assert_eq!(
            date_of(2023, 2, 29),
            Err("Invalid date 'February 29' as '2023' is not a leap year".into())
        );
        assert_eq!(date_of(2024, 4, 31), Err("Invalid date 'APRIL 31'".into()));
        assert_eq!(
            date_of(2024, 13, 1),
            Err("Invalid value for MonthOfYear (valid values 1 - 12): 13".into())
        );
        // 60 seconds without a fraction: the next minute.
        assert_eq!(
            date_time_of([1970, 1, 1, 0, 0], 60_000_000),
            Ok(Some(60_000_000))
        );
        assert_eq!(
            date_time_of([1970, 1, 1, 0, 0], 60_500_000).map_err(|e| e.0),
            Err("INVALID_FRACTION_OF_SECOND")
        );
        assert_eq!(
            date_time_of([1970, 1, 1, 0, 0], -500_000).map_err(|e| e.1),
            Err("Invalid value for SecondOfMinute (valid values 0 - 59): -1. ".into())
        );
        assert_eq!(seconds_text(-500_000), "-0.5");
        assert_eq!(seconds_text(60_000_001), "60.000001");
    }
}
