//! Datetime formatting and parsing with Spark's patterns, and `months_between`, in the
//! session time zone.

use std::str::FromStr;
use std::sync::Arc;

use arrow::array::timezone::Tz;
use arrow::array::{
    Array, ArrayRef, AsArray, Date32Builder, Float64Builder, Int64Builder, StringBuilder,
    TimestampMicrosecondArray, TimestampMicrosecondBuilder, TimestampNanosecondArray,
};
use arrow::datatypes::{DataType, Date32Type, TimeUnit, TimestampMicrosecondType};
use chrono::{DateTime, Datelike, NaiveDate, NaiveDateTime, TimeZone, Timelike, Utc};
use datafusion::common::{Result, internal_err};
use ember_execution::values::datetime::format_instant;

use super::{ParseTarget, strings};
use crate::error::{ErrorKind, SparkError, to_datafusion};

const MICROS_PER_DAY: i64 = 86_400_000_000;

fn zone(time_zone: &str) -> Result<Tz> {
    Ok(Tz::from_str(time_zone)?)
}

/// Instants of a timestamp argument (dates and text are cast to timestamps when planned).
fn instants(array: &ArrayRef) -> Result<ArrayRef> {
    Ok(arrow::compute::cast(
        array,
        &DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())),
    )?)
}

/// The Spark pattern of each row (a function's second argument, if it has one), turned into
/// chrono's once per distinct pattern.
struct RowPatterns {
    patterns: Option<ArrayRef>,
    chrono_of: std::collections::HashMap<String, String>,
    /// Patterns for parsing text (Spark refuses some letters there).
    parsing: bool,
}

impl RowPatterns {
    fn new(arrays: &[ArrayRef], parsing: bool) -> Result<Self> {
        Ok(Self {
            patterns: match arrays.get(1) {
                Some(_) => Some(strings(arrays, 1)?),
                None => None,
            },
            chrono_of: Default::default(),
            parsing,
        })
    }

    /// Row `i`'s chrono pattern: `literal` (already chrono's) without a pattern argument, None
    /// where the row's pattern is NULL; a pattern Spark refuses fails the query.
    fn at<'a>(&'a mut self, i: usize, literal: &'a str) -> Result<Option<&'a str>> {
        let Some(patterns) = &self.patterns else {
            return Ok(Some(literal));
        };
        let patterns = patterns.as_string::<i32>();
        if patterns.is_null(i) {
            return Ok(None);
        }
        let spark = patterns.value(i);
        if !self.chrono_of.contains_key(spark) {
            let chrono = crate::functions::pattern::chrono_pattern_for(spark, self.parsing)
                .map_err(|e| to_datafusion(e.into_spark()))?;
            self.chrono_of.insert(spark.to_string(), chrono);
        }
        Ok(self.chrono_of.get(spark).map(String::as_str))
    }
}

/// `date_format(x, pattern)`: `pattern` the chrono pattern of a literal, or, with a second
/// array, each row's Spark pattern (a NULL pattern gives NULL).
pub(super) fn date_format(arrays: &[ArrayRef], time_zone: &str, pattern: &str) -> Result<ArrayRef> {
    let Some(values) = arrays.first() else {
        return internal_err!("date_format without a value");
    };
    let tz = zone(time_zone)?;
    let mut row_patterns = RowPatterns::new(arrays, false)?;
    // The instant of each row (a date's midnight in the zone: a date has no zone).
    let micros: Vec<Option<i64>> = if let DataType::Date32 = values.data_type() {
        let dates = values.as_primitive::<Date32Type>();
        (0..dates.len())
            .map(|i| {
                if dates.is_null(i) {
                    return None;
                }
                let local =
                    arrow::temporal_conversions::as_datetime::<Date32Type>(dates.value(i) as i64)?;
                Some(match tz.from_local_datetime(&local).earliest() {
                    Some(at) => at.timestamp_micros(),
                    None => local.and_utc().timestamp_micros(),
                })
            })
            .collect()
    } else {
        let at = instants(values)?;
        at.as_primitive::<TimestampMicrosecondType>()
            .iter()
            .collect()
    };
    let mut out = StringBuilder::with_capacity(micros.len(), micros.len() * 20);
    for (i, at) in micros.into_iter().enumerate() {
        match (at, row_patterns.at(i, pattern)?) {
            (Some(at), Some(pattern)) => out.append_value(format_instant(at, tz, pattern)?),
            _ => out.append_null(),
        }
    }
    Ok(Arc::new(out.finish()))
}

/// Local date-time of `text` read with a chrono pattern; fields the pattern lacks are as
/// Spark fills them (year 1970, month and day 1, midnight).
fn parse_local(text: &str, pattern: &str) -> Option<NaiveDateTime> {
    if let Ok(t) = NaiveDateTime::parse_from_str(text, pattern) {
        return Some(t);
    }
    let mut parsed = chrono::format::Parsed::new();
    chrono::format::parse(
        &mut parsed,
        text,
        chrono::format::StrftimeItems::new(pattern),
    )
    .ok()?;
    let dated = parsed.year().is_some()
        || parsed.year_div_100().is_some()
        || parsed.year_mod_100().is_some()
        || parsed.isoyear().is_some();
    if !dated {
        parsed.set_year(1970).ok()?;
    }
    if parsed.month().is_none() && parsed.ordinal().is_none() && parsed.isoweek().is_none() {
        parsed.set_month(1).ok()?;
    }
    if parsed.day().is_none() && parsed.ordinal().is_none() && parsed.weekday().is_none() {
        parsed.set_day(1).ok()?;
    }
    if parsed.hour_div_12().is_none() && parsed.hour_mod_12().is_none() {
        parsed.set_hour(0).ok()?;
    }
    if parsed.minute().is_none() {
        parsed.set_minute(0).ok()?;
    }
    let date = parsed.to_naive_date().ok()?;
    let time = parsed.to_naive_time().ok()?;
    Some(date.and_time(time))
}

/// The instant of a local date-time in `tz`: the earlier of two in an overlap, shifted
/// forward by the gap in a gap (as java.time does).
fn resolve(tz: Tz, local: NaiveDateTime) -> Option<DateTime<Tz>> {
    super::zoned::resolve_local(&tz, local)
}

fn cannot_parse(text: &str, function: &str) -> datafusion::error::DataFusionError {
    to_datafusion(SparkError::new(
        ErrorKind::DateTime,
        "CANNOT_PARSE_TIMESTAMP",
        "22007",
        format!(
            "Text '{text}' could not be parsed. Use `{function}` to tolerate invalid input string and return NULL instead."
        ),
        vec![
            ("message", format!("Text '{text}' could not be parsed")),
            ("func", format!("`{function}`")),
        ],
    ))
}

/// Whether the digits of `text` have the widths the pattern's numeric fields require, as
/// java.time requires them where chrono does not: `yyyy` exactly four digits, `MM`, `dd`,
/// `HH`, `mm`, `ss` exactly two, their one-letter forms one or two (`y` any number). Only the
/// pattern's start up to its first field of another kind (names, zones, fractions) is
/// checked; chrono reads the rest.
pub(super) fn widths_fit(text: &str, pattern: &str) -> bool {
    let text = text.as_bytes();
    let mut p = pattern.chars().peekable();
    let mut at = 0;
    while let Some(c) = p.next() {
        if c != '%' {
            // A literal: the text must have it; chrono decides otherwise.
            if c.is_ascii() && text.get(at) == Some(&(c as u8)) {
                at += 1;
                continue;
            }
            return true;
        }
        let unpadded = p.peek() == Some(&'-');
        if unpadded {
            p.next();
        }
        let (min, max) = match (p.next(), unpadded) {
            (Some('Y'), false) => (4, 4),
            (Some('Y'), true) => (1, 10),
            (Some('y' | 'm' | 'd' | 'H' | 'I' | 'M' | 'S'), false) => (2, 2),
            (Some('m' | 'd' | 'H' | 'I' | 'M' | 'S'), true) => (1, 2),
            _ => return true,
        };
        let digits = text[at.min(text.len())..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        let next_is_field = p.peek() == Some(&'%');
        if min < max && next_is_field {
            // Two fields of variable width side by side: left to chrono.
            return true;
        }
        if digits < min || (digits > max && !next_is_field) {
            return false;
        }
        at += digits.min(max);
    }
    true
}

/// The instant and local date of `s` read with a chrono pattern in `tz`.
fn read_with(s: &str, pattern: &str, tz: Tz) -> Option<(i64, NaiveDate)> {
    if !widths_fit(s, pattern) {
        return None;
    }
    let zoned = pattern.contains("%z") || pattern.contains("%:z") || pattern.contains("%Z");
    if zoned && let Ok(t) = DateTime::parse_from_str(s, pattern) {
        let local = t.with_timezone(&tz).date_naive();
        return Some((t.with_timezone(&Utc).timestamp_micros(), local));
    }
    let local = parse_local(s, pattern)?;
    Some((resolve(tz, local)?.timestamp_micros(), local.date()))
}

/// Each row's text read with `pattern`, or with the row's Spark pattern of a second
/// argument (NULL where it is NULL; a pattern Spark refuses fails the query).
pub(super) fn parse(
    arrays: &[ArrayRef],
    time_zone: &str,
    pattern: &str,
    target: ParseTarget,
    fail: bool,
) -> Result<ArrayRef> {
    let text = strings(arrays, 0)?;
    let text = text.as_string::<i32>();
    let tz = zone(time_zone)?;
    let mut row_patterns = RowPatterns::new(arrays, true)?;
    let try_function = match target {
        ParseTarget::Date => "try_to_date",
        _ => "try_to_timestamp",
    };
    // Per row: NULL, or what the text reads as (None where it does not match).
    let mut read = |i: usize| -> Result<Option<Option<(i64, NaiveDate)>>> {
        if text.is_null(i) {
            return Ok(None);
        }
        let Some(pattern) = row_patterns.at(i, pattern)? else {
            return Ok(None);
        };
        match read_with(text.value(i), pattern, tz) {
            None if fail => Err(cannot_parse(text.value(i), try_function)),
            read => Ok(Some(read)),
        }
    };
    match target {
        ParseTarget::Timestamp => {
            let mut out =
                TimestampMicrosecondBuilder::with_capacity(text.len()).with_timezone(time_zone);
            for i in 0..text.len() {
                out.append_option(read(i)?.flatten().map(|(micros, _)| micros));
            }
            Ok(Arc::new(out.finish()))
        }
        ParseTarget::Date => {
            let mut out = Date32Builder::with_capacity(text.len());
            let epoch = NaiveDate::from_ymd_opt(1970, 1, 1).unwrap_or_default();
            for i in 0..text.len() {
                out.append_option(
                    read(i)?
                        .flatten()
                        .map(|(_, date)| (date - epoch).num_days() as i32),
                );
            }
            Ok(Arc::new(out.finish()))
        }
        ParseTarget::UnixSeconds => {
            let mut out = Int64Builder::with_capacity(text.len());
            for i in 0..text.len() {
                out.append_option(
                    read(i)?
                        .flatten()
                        .map(|(micros, _)| micros.div_euclid(1_000_000)),
                );
            }
            Ok(Arc::new(out.finish()))
        }
    }
}

/// Microseconds of a fixed-length unit, or None for calendar units (DAY and up) and
/// units Spark does not know.
pub fn unit_micros(unit: &str) -> Option<i64> {
    Some(match unit {
        "MICROSECOND" => 1,
        "MILLISECOND" => 1_000,
        "SECOND" => 1_000_000,
        "MINUTE" => 60_000_000,
        "HOUR" => 3_600_000_000,
        _ => return None,
    })
}

/// Months of a calendar unit of months, days of one of days.
fn calendar(unit: &str) -> Option<(i64, i64)> {
    Some(match unit {
        "DAY" | "DAYOFYEAR" => (0, 1),
        "WEEK" => (0, 7),
        "MONTH" => (1, 0),
        "QUARTER" => (3, 0),
        "YEAR" => (12, 0),
        _ => return None,
    })
}

pub(super) fn timestamp_add(arrays: &[ArrayRef], unit: &str, time_zone: &str) -> Result<ArrayRef> {
    let (Some(n), Some(at)) = (arrays.get(1), arrays.get(2)) else {
        return internal_err!("timestampadd takes a unit, a quantity and a timestamp");
    };
    let tz = zone(time_zone)?;
    let n = arrow::compute::cast(n, &DataType::Int64)?;
    let n = n.as_primitive::<arrow::datatypes::Int64Type>();
    let ntz = matches!(at.data_type(), DataType::Timestamp(_, None));
    let at = instants(at)?;
    let at = at.as_primitive::<TimestampMicrosecondType>();
    let mut out = TimestampMicrosecondBuilder::with_capacity(at.len()).with_timezone(time_zone);
    for i in 0..at.len() {
        if n.is_null(i) || at.is_null(i) {
            out.append_null();
            continue;
        }
        let (k, t) = (n.value(i), at.value(i));
        let value = if let Some(per) = unit_micros(unit) {
            k.checked_mul(per).and_then(|d| t.checked_add(d))
        } else if let Some((months, days)) = calendar(unit) {
            // In local time, keeping the offset where still valid (as `ts + interval`).
            match (k.checked_mul(months), k.checked_mul(days)) {
                (Some(m), Some(d)) => super::zoned::plus(&tz, t, m, d, 0).ok(),
                _ => None,
            }
        } else {
            return internal_err!("timestampadd unit {unit}");
        };
        match value {
            Some(v) => out.append_value(v),
            None => return Err(overflow(k, unit, t, ntz, time_zone)),
        }
    }
    Ok(Arc::new(out.finish()))
}

/// Spark's DATETIME_OVERFLOW of `timestampadd` (its value beyond a timestamp's range): the
/// timestamp `t` as Spark shows it (a TIMESTAMP_NTZ's local date-time, a TIMESTAMP's in the
/// session time zone).
fn overflow(
    k: i64,
    unit: &str,
    t: i64,
    ntz: bool,
    time_zone: &str,
) -> datafusion::error::DataFusionError {
    let (kind, zone) = if ntz {
        ("TIMESTAMP_NTZ", None)
    } else {
        ("TIMESTAMP", Some(time_zone))
    };
    let text = ember_execution::values::datetime::timestamp_text(t, zone, false);
    to_datafusion(SparkError::new(
        ErrorKind::Arithmetic,
        "DATETIME_OVERFLOW",
        "22008",
        format!("Datetime operation overflow: add {k}L {unit} to {kind} '{text}'."),
        vec![],
    ))
}

pub(super) fn timestamp_diff(arrays: &[ArrayRef], unit: &str, time_zone: &str) -> Result<ArrayRef> {
    let (Some(a), Some(b)) = (arrays.get(1), arrays.get(2)) else {
        return internal_err!("timestampdiff takes a unit and two timestamps");
    };
    let tz = zone(time_zone)?;
    let (a, b) = (instants(a)?, instants(b)?);
    let (a, b) = (
        a.as_primitive::<TimestampMicrosecondType>(),
        b.as_primitive::<TimestampMicrosecondType>(),
    );
    let mut out = Int64Builder::with_capacity(a.len());
    for i in 0..a.len() {
        if a.is_null(i) || b.is_null(i) {
            out.append_null();
            continue;
        }
        let (x, y) = (a.value(i), b.value(i));
        // As Spark: every unit between the local date-times of the session time zone.
        let local = |t: i64| tz.timestamp_micros(t).single().map(|z| z.naive_local());
        let value = if let Some(per) = unit_micros(unit) {
            match (local(x), local(y)) {
                (Some(lx), Some(ly)) => (ly - lx).num_microseconds().map(|d| d / per),
                _ => None,
            }
        } else if let Some((months, days)) = calendar(unit) {
            match (local(x), local(y)) {
                (Some(lx), Some(ly)) if months == 0 => {
                    let micros = (ly - lx).num_microseconds().unwrap_or(0);
                    Some(micros / (MICROS_PER_DAY * days))
                }
                (Some(lx), Some(ly)) => {
                    let mut total = (ly.year() as i64 * 12 + ly.month() as i64)
                        - (lx.year() as i64 * 12 + lx.month() as i64);
                    // Whole months only: the end's day and time must reach the start's.
                    let rest = |t: NaiveDateTime| (t.day(), t.time());
                    if total > 0 && rest(ly) < rest(lx) {
                        total -= 1;
                    } else if total < 0 && rest(ly) > rest(lx) {
                        total += 1;
                    }
                    Some(total / months)
                }
                _ => None,
            }
        } else {
            return internal_err!("timestampdiff unit {unit}");
        };
        match value {
            Some(v) => out.append_value(v),
            None => out.append_null(),
        }
    }
    Ok(Arc::new(out.finish()))
}

pub(super) fn convert_timezone(arrays: &[ArrayRef]) -> Result<ArrayRef> {
    let from = strings(arrays, 0)?;
    let to = strings(arrays, 1)?;
    let (from, to) = (from.as_string::<i32>(), to.as_string::<i32>());
    let Some(at) = arrays.get(2) else {
        return internal_err!("convert_timezone takes a timestamp");
    };
    let at = arrow::compute::cast(at, &DataType::Timestamp(TimeUnit::Microsecond, None))?;
    let at = at.as_primitive::<TimestampMicrosecondType>();
    let mut out = TimestampMicrosecondBuilder::with_capacity(at.len());
    for i in 0..at.len() {
        if from.is_null(i) || to.is_null(i) || at.is_null(i) {
            out.append_null();
            continue;
        }
        let (source, target) = (zone(from.value(i))?, zone(to.value(i))?);
        let local =
            arrow::temporal_conversions::as_datetime::<TimestampMicrosecondType>(at.value(i));
        match local.and_then(|l| resolve(source, l)).map(|t| {
            ember_execution::values::zone_rules::in_zone(&target, t.with_timezone(&Utc))
                .naive_local()
        }) {
            Some(t) => out.append_value(t.and_utc().timestamp_micros()),
            None => out.append_null(),
        }
    }
    Ok(Arc::new(out.finish()))
}

/// Instants as local date-times of `time_zone` (`to_local`), or local date-times as
/// instants.
pub(super) fn shift_zone(arrays: &[ArrayRef], time_zone: &str, to_local: bool) -> Result<ArrayRef> {
    use ember_execution::values::zone_rules;
    let Some(at) = arrays.first() else {
        return internal_err!("a timestamp to shift");
    };
    let tz = zone(time_zone)?;
    if let DataType::Timestamp(TimeUnit::Nanosecond, _) = at.data_type() {
        return shift_zone_nanos(at, tz, time_zone, to_local);
    }
    // The stored microseconds, whatever the zone of the type.
    let micros = arrow::compute::cast(at, &DataType::Int64)?;
    let micros = micros.as_primitive::<arrow::datatypes::Int64Type>();
    let shifted = micros.iter().map(|v| {
        let v = v?;
        if to_local {
            let local = zone_rules::in_zone(&tz, DateTime::from_timestamp_micros(v)?).naive_local();
            Some(local.and_utc().timestamp_micros())
        } else {
            let local = arrow::temporal_conversions::as_datetime::<TimestampMicrosecondType>(v)?;
            resolve(tz, local).map(|t| t.timestamp_micros())
        }
    });
    let out: TimestampMicrosecondArray = shifted.collect();
    Ok(Arc::new(if to_local {
        out
    } else {
        out.with_timezone(time_zone)
    }))
}

/// [`shift_zone`] of nanosecond timestamps (TIMESTAMP_LTZ(9) and TIMESTAMP_NTZ(9)).
fn shift_zone_nanos(at: &ArrayRef, tz: Tz, time_zone: &str, to_local: bool) -> Result<ArrayRef> {
    use ember_execution::values::zone_rules;
    let nanos = arrow::compute::cast(at, &DataType::Int64)?;
    let nanos = nanos.as_primitive::<arrow::datatypes::Int64Type>();
    let shifted = nanos.iter().map(|v| {
        // (The microseconds shifted as `shift_zone` shifts them, the nanoseconds kept.)
        let v = v?;
        let (micros, below) = (v.div_euclid(1000), v.rem_euclid(1000));
        let shifted = if to_local {
            let local =
                zone_rules::in_zone(&tz, DateTime::from_timestamp_micros(micros)?).naive_local();
            local.and_utc().timestamp_micros()
        } else {
            let local =
                arrow::temporal_conversions::as_datetime::<TimestampMicrosecondType>(micros)?;
            resolve(tz, local)?.timestamp_micros()
        };
        shifted.checked_mul(1000)?.checked_add(below)
    });
    let out: TimestampNanosecondArray = shifted.collect();
    Ok(Arc::new(if to_local {
        out
    } else {
        out.with_timezone(time_zone)
    }))
}

/// Local date-times in `tz` of timestamps, or the midnights of dates.
fn locals(array: &ArrayRef, tz: Tz) -> Result<Vec<Option<NaiveDateTime>>> {
    if let DataType::Date32 = array.data_type() {
        let dates = array.as_primitive::<Date32Type>();
        return Ok(dates
            .iter()
            .map(|d| {
                d.and_then(|d| arrow::temporal_conversions::as_datetime::<Date32Type>(d as i64))
            })
            .collect());
    }
    let at = instants(array)?;
    Ok(at
        .as_primitive::<TimestampMicrosecondType>()
        .iter()
        .map(|v| {
            v.and_then(|v| tz.timestamp_micros(v).single())
                .map(|t| t.naive_local())
        })
        .collect())
}

/// Spark's `months_between`: whole months when the days of month match (or both are month
/// ends), otherwise the months plus the remaining time over 31 days.
pub(super) fn months_between(
    arrays: &[ArrayRef],
    time_zone: &str,
    round_off: bool,
) -> Result<ArrayRef> {
    let (Some(a), Some(b)) = (arrays.first(), arrays.get(1)) else {
        return internal_err!("months_between takes two timestamps");
    };
    let tz = zone(time_zone)?;
    let (a, b) = (locals(a, tz)?, locals(b, tz)?);
    let is_month_end = |d: NaiveDate| d.succ_opt().is_none_or(|n| n.month() != d.month());
    let mut out = Float64Builder::with_capacity(a.len());
    for (x, y) in a.into_iter().zip(b) {
        let (Some(x), Some(y)) = (x, y) else {
            out.append_null();
            continue;
        };
        let months = (x.year() * 12 + x.month() as i32) - (y.year() * 12 + y.month() as i32);
        if x.day() == y.day() || (is_month_end(x.date()) && is_month_end(y.date())) {
            out.append_value(months as f64);
            continue;
        }
        let micros_of_day = |t: NaiveDateTime| {
            t.num_seconds_from_midnight() as i64 * 1_000_000 + (t.nanosecond() / 1000) as i64
        };
        let diff = (x.day() as i64 - y.day() as i64) * MICROS_PER_DAY + micros_of_day(x)
            - micros_of_day(y);
        let value = months as f64 + diff as f64 / (31 * MICROS_PER_DAY) as f64;
        out.append_value(if round_off {
            (value * 1e8).round() / 1e8
        } else {
            value
        });
    }
    Ok(Arc::new(out.finish()))
}

#[cfg(test)]
mod width_tests {
    use super::widths_fit;

    #[test]
    fn digits_have_the_widths_java_requires() {
        assert!(widths_fit("2020-01-01", "%Y-%m-%d"));
        assert!(!widths_fit("2020-1-1", "%Y-%m-%d"));
        assert!(widths_fit("2020-1-1", "%Y-%-m-%-d"));
        assert!(widths_fit("20240101", "%Y%m%d"));
        assert!(!widths_fit("12345", "%Y"));
        assert!(!widths_fit("12", "%Y"));
        assert!(widths_fit("12", "%-Y"));
        assert!(!widths_fit("2020-01-01 1:2:3", "%Y-%m-%d %H:%M:%S"));
        assert!(widths_fit("2020-01-01 1:2:3", "%Y-%m-%d %-H:%-M:%-S"));
        assert!(widths_fit("Jan 2020", "%b %Y"));
    }
}
