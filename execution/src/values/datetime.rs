//! Dates, timestamps and times as Spark writes them as text: as a cast to string spells them
//! (`2020-01-02 03:04:05.5`, fractions without trailing zeros, in the session time zone), and
//! with a datetime pattern (the text writers' `dateFormat`/`timestampFormat`, `date_format`).
//!
//! Patterns arrive as chrono format strings in which Spark's zone-offset letters `X`, `XX`
//! and `XXX` (which print `Z` for UTC, unlike chrono's `%z`) are the private characters
//! [`OFFSET_X1`], [`OFFSET_X2`] and [`OFFSET_X3`].

use std::fmt::Write as _;

use arrow::array::timezone::Tz;
use arrow::array::{Array, ArrayRef, AsArray};
use arrow::datatypes::{
    Date32Type, TimeUnit, TimestampMicrosecondType, TimestampMillisecondType,
    TimestampNanosecondType, TimestampSecondType,
};
use arrow::temporal_conversions::{as_datetime, as_datetime_with_timezone};
use chrono::{DateTime, Datelike, NaiveDate, NaiveDateTime, Offset};
use datafusion::common::{DataFusionError, Result};

pub const OFFSET_X1: char = '\u{E001}';
pub const OFFSET_X2: char = '\u{E002}';
pub const OFFSET_X3: char = '\u{E003}';

/// `.fraction` of `micros` (below one second) without trailing zeros; empty for none.
fn fraction(micros: u32) -> String {
    if micros == 0 {
        return String::new();
    }
    format!(".{micros:06}").trim_end_matches('0').to_string()
}

/// `.fraction` of `nanos` (below one second) without trailing zeros; empty for none.
fn nano_fraction(nanos: u32) -> String {
    if nanos == 0 {
        return String::new();
    }
    format!(".{nanos:09}").trim_end_matches('0').to_string()
}

/// A date (days since the epoch) as `yyyy-MM-dd`.
pub fn date_text(days: i32) -> String {
    NaiveDate::from_num_days_from_ce_opt(days + 719_163)
        .map(|d| d.format("%Y-%m-%d").to_string())
        .unwrap_or_else(|| days.to_string())
}

/// A local date-time as a cast spells it: `yyyy-MM-dd HH:mm:ss[.fraction]`.
/// Nanoseconds (of TIMESTAMP_NTZ(9) and TIMESTAMP_LTZ(9)) are spelled to the nanosecond.
pub fn local_text(t: NaiveDateTime) -> String {
    let base = t.format("%Y-%m-%d %H:%M:%S").to_string();
    base + &nano_fraction(t.and_utc().timestamp_subsec_nanos())
}

/// A timestamp (microseconds since the epoch) as a cast spells it: its local date-time in
/// `zone` (None: a TIMESTAMP_NTZ, or a zone that is not known, read as UTC), followed by the
/// zone's offset (`+01:00`) when `offset` is asked for and a zone is given (variant JSON).
pub fn timestamp_text(micros: i64, zone: Option<&str>, offset: bool) -> String {
    if let Some(utc) = DateTime::from_timestamp_micros(micros) {
        return utc_text(utc, zone, offset, 0);
    }
    // Past chrono's years (±262,143; a long of microseconds reaches +294247 and -290308):
    // 40,000 years nearer, a whole number of 400-year Gregorian cycles, so that dates,
    // weekdays and a zone's rules fall alike, and the years added back.
    const CYCLES_MICROS: i64 = 100 * 146_097 * 86_400 * 1_000_000;
    let shifted = micros - micros.signum() * CYCLES_MICROS;
    match DateTime::from_timestamp_micros(shifted) {
        Some(utc) => utc_text(utc, zone, offset, micros.signum() as i32 * 40_000),
        None => micros.to_string(),
    }
}

/// A nanosecond timestamp (TIMESTAMP_NTZ(9), TIMESTAMP_LTZ(9): nanoseconds since the epoch)
/// as a cast spells it, as [`timestamp_text`] does (up to nine fraction digits).
pub fn timestamp_nanos_text(nanos: i64, zone: Option<&str>, offset: bool) -> String {
    utc_text(DateTime::from_timestamp_nanos(nanos), zone, offset, 0)
}

/// `years` added to the local date's year (see [`timestamp_text`]).
fn utc_text(utc: DateTime<chrono::Utc>, zone: Option<&str>, offset: bool, years: i32) -> String {
    let (local, suffix) = match zone.and_then(|z| z.parse::<chrono_tz::Tz>().ok()) {
        Some(z) => {
            let t = super::zone_rules::in_zone(&z, utc);
            (t.naive_local(), t.format("%:z").to_string())
        }
        None => (utc.naive_utc(), "+00:00".to_string()),
    };
    let text = if years == 0 {
        local_text(local)
    } else {
        let year = local.year() + years;
        let year = if year > 9999 {
            format!("+{year}")
        } else {
            format!("{year:05}")
        };
        let rest = local.format("-%m-%d %H:%M:%S").to_string();
        year + &rest + &nano_fraction(local.and_utc().timestamp_subsec_nanos())
    };
    if offset && zone.is_some() {
        text + &suffix
    } else {
        text
    }
}

/// Spark's text of a TIME (microseconds since midnight): `01:02:03`, `01:02:03.0001`.
pub fn time_text(micros: i64) -> String {
    let (secs, frac) = (micros.div_euclid(1_000_000), micros.rem_euclid(1_000_000));
    let s = format!(
        "{:02}:{:02}:{:02}",
        secs / 3600,
        (secs / 60) % 60,
        secs % 60
    );
    s + &fraction(frac as u32)
}

/// An instant (microseconds since the epoch) in `tz`, formatted with a chrono pattern from
/// Spark's datetime pattern (offset markers spelled as Spark's `X`).
pub fn format_instant(micros: i64, tz: Tz, pattern: &str) -> Result<String> {
    let at = as_datetime_with_timezone::<TimestampMicrosecondType>(micros, tz)
        .ok_or_else(|| bad_value("timestamp", micros))?;
    let at = super::zone_rules::in_zone(&tz, at.with_timezone(&chrono::Utc));
    let mut text = String::new();
    format_with(&mut text, at.format(pattern))?;
    Ok(with_offsets(&text, at.offset().fix().local_minus_utc()))
}

/// A date (days since the epoch) formatted with a chrono pattern.
pub fn format_date(days: i32, pattern: &str) -> Result<String> {
    let date = arrow::temporal_conversions::as_date::<Date32Type>(days as i64)
        .ok_or_else(|| bad_value("date", days as i64))?;
    let mut text = String::new();
    format_with(&mut text, date.format(pattern))?;
    Ok(text)
}

/// Row `i` of a timestamp column of any unit, formatted with a chrono pattern: in the
/// column's zone (offset markers spelled as Spark's `X`), or as a local date-time.
pub fn format_timestamp(
    array: &ArrayRef,
    unit: &TimeUnit,
    zone: Option<&str>,
    i: usize,
    pattern: &str,
) -> Result<String> {
    let value = timestamp_value(array, unit, i);
    let mut text = String::new();
    match zone {
        Some(zone) => {
            let tz: Tz = zone.parse()?;
            let at = timestamp_in(value, unit, tz).ok_or_else(|| bad_value("timestamp", value))?;
            let at = super::zone_rules::in_zone(&tz, at.with_timezone(&chrono::Utc));
            format_with(&mut text, at.format(pattern))?;
            Ok(with_offsets(&text, at.offset().fix().local_minus_utc()))
        }
        None => {
            let at = naive_timestamp(value, unit).ok_or_else(|| bad_value("timestamp", value))?;
            format_with(&mut text, at.format(pattern))?;
            Ok(text)
        }
    }
}

/// Row `i` of a timestamp column of any unit, in microseconds since the epoch.
pub fn timestamp_micros(array: &dyn Array, unit: &TimeUnit, i: usize) -> i64 {
    match unit {
        TimeUnit::Second => array.as_primitive::<TimestampSecondType>().value(i) * 1_000_000,
        TimeUnit::Millisecond => array.as_primitive::<TimestampMillisecondType>().value(i) * 1000,
        TimeUnit::Microsecond => array.as_primitive::<TimestampMicrosecondType>().value(i),
        TimeUnit::Nanosecond => array.as_primitive::<TimestampNanosecondType>().value(i) / 1000,
    }
}

fn bad_value(what: &str, v: i64) -> DataFusionError {
    DataFusionError::Execution(format!("{what} value {v} is out of range"))
}

fn format_with(out: &mut String, value: impl std::fmt::Display) -> Result<()> {
    write!(out, "{value}").map_err(|_| {
        DataFusionError::Execution("cannot format a datetime with this pattern".into())
    })
}

fn timestamp_value(array: &ArrayRef, unit: &TimeUnit, i: usize) -> i64 {
    match unit {
        TimeUnit::Second => array.as_primitive::<TimestampSecondType>().value(i),
        TimeUnit::Millisecond => array.as_primitive::<TimestampMillisecondType>().value(i),
        TimeUnit::Microsecond => array.as_primitive::<TimestampMicrosecondType>().value(i),
        TimeUnit::Nanosecond => array.as_primitive::<TimestampNanosecondType>().value(i),
    }
}

fn timestamp_in(v: i64, unit: &TimeUnit, tz: Tz) -> Option<chrono::DateTime<Tz>> {
    match unit {
        TimeUnit::Second => as_datetime_with_timezone::<TimestampSecondType>(v, tz),
        TimeUnit::Millisecond => as_datetime_with_timezone::<TimestampMillisecondType>(v, tz),
        TimeUnit::Microsecond => as_datetime_with_timezone::<TimestampMicrosecondType>(v, tz),
        TimeUnit::Nanosecond => as_datetime_with_timezone::<TimestampNanosecondType>(v, tz),
    }
}

fn naive_timestamp(v: i64, unit: &TimeUnit) -> Option<chrono::NaiveDateTime> {
    match unit {
        TimeUnit::Second => as_datetime::<TimestampSecondType>(v),
        TimeUnit::Millisecond => as_datetime::<TimestampMillisecondType>(v),
        TimeUnit::Microsecond => as_datetime::<TimestampMicrosecondType>(v),
        TimeUnit::Nanosecond => as_datetime::<TimestampNanosecondType>(v),
    }
}

/// Replace the offset markers with Spark's `X` spellings of `offset` (seconds east of UTC).
fn with_offsets(text: &str, offset: i32) -> String {
    if !text.contains([OFFSET_X1, OFFSET_X2, OFFSET_X3]) {
        return text.to_string();
    }
    let sign = if offset < 0 { '-' } else { '+' };
    let (h, m) = (offset.abs() / 3600, offset.abs() % 3600 / 60);
    let spell = |letters: u8| -> String {
        if offset == 0 {
            return "Z".into();
        }
        match letters {
            1 if m == 0 => format!("{sign}{h:02}"),
            1 | 2 => format!("{sign}{h:02}{m:02}"),
            _ => format!("{sign}{h:02}:{m:02}"),
        }
    };
    text.replace(OFFSET_X1, &spell(1))
        .replace(OFFSET_X2, &spell(2))
        .replace(OFFSET_X3, &spell(3))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_spell_z_for_utc() {
        let t = format!("12:00{OFFSET_X3}");
        assert_eq!(with_offsets(&t, 0), "12:00Z");
        assert_eq!(with_offsets(&t, 3600), "12:00+01:00");
        assert_eq!(with_offsets(&format!("{OFFSET_X1}"), -5400), "-0130");
        assert_eq!(with_offsets(&format!("{OFFSET_X1}"), -3600), "-01");
        assert_eq!(with_offsets(&format!("{OFFSET_X2}"), 19800), "+0530");
    }

    #[test]
    fn a_long_of_microseconds_is_spelled_at_both_ends() {
        assert_eq!(
            timestamp_text(i64::MAX, Some("UTC"), false),
            "+294247-01-10 04:00:54.775807"
        );
        assert_eq!(
            timestamp_text(i64::MIN, None, false),
            "-290308-12-21 19:59:05.224192"
        );
    }
}
