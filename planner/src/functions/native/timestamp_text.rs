//! `CAST(text AS TIMESTAMP)` and `CAST(text AS TIMESTAMP_NTZ)` by Spark's rules
//! (`SparkDateTimeUtils.parseTimestampString`): the forms
//!
//! - `[+-]yyyy[y..]`, `[+-]yyyy[y..]-[m]m`, `[+-]yyyy[y..]-[m]m-[d]d`,
//! - then a space or `T` and `[h]h:[m]m:[s]s.[fraction][zone]` (minutes, seconds, fraction
//!   optional, but a zone only after the seconds),
//! - or only a time, `[h]h:[m]m...` or `T[h]h...`: today's date where the time is.
//!
//! A zone is read as Java's `ZoneId.of(zone, SHORT_IDS)` reads it (`Z`, `+01:00`, `UTC+1`,
//! `PST`, `Europe/Paris`). An instant takes the text's zone, else the session's; a local
//! date-time (TIMESTAMP_NTZ) ignores the zone and refuses a text without a date.

use std::str::FromStr;
use std::sync::Arc;

use arrow::array::timezone::Tz;
use arrow::array::{Array, ArrayRef, AsArray, TimestampMicrosecondArray, TimestampNanosecondArray};
use chrono::{NaiveDate, NaiveDateTime, NaiveTime, Timelike, Utc};
use datafusion::common::{Result, ScalarValue};
use ember_execution::values::pattern::java_zone_id;

use super::strings;
use crate::error::{ErrorKind, SparkError, to_datafusion};

/// A timestamp text read by Spark's rules.
#[derive(Debug, PartialEq)]
struct TimestampText {
    /// None when the text is only a time.
    date: Option<NaiveDate>,
    time: NaiveTime,
    /// The zone the text names (as Arrow's zones take it), if any.
    zone: Option<String>,
}

/// Spark's `isValidDigits`: years of four to six digits, a fraction of any number, a zone's
/// hours of up to two, every other field one or two.
fn valid_digits(segment: usize, digits: usize) -> bool {
    match segment {
        0 => (4..=6).contains(&digits),
        6 => true,
        7 => digits <= 2,
        _ => (1..=2).contains(&digits),
    }
}

/// The text read as Spark's `parseTimestampString` reads it (segments: year, month, day, hour,
/// minute, second, fraction, zone), or None when it is in none of Spark's forms.
fn parse(text: &str) -> Option<TimestampText> {
    let bytes = text.trim().as_bytes();
    if bytes.is_empty() {
        return None;
    }
    let mut segments: [i64; 9] = [1, 1, 1, 0, 0, 0, 0, 0, 0];
    let (mut i, mut j) = (0usize, 0usize);
    let (mut value, mut digits) = (0i64, 0usize);
    let mut fraction_digits = 0usize;
    let mut just_time = false;
    let mut zone: Option<&[u8]> = None;
    let mut year_sign: Option<i64> = None;
    if matches!(bytes[0], b'-' | b'+') {
        year_sign = Some(if bytes[0] == b'-' { -1 } else { 1 });
        j = 1;
    }
    // Ends the current segment (its digits checked) and moves to the next.
    macro_rules! next_segment {
        () => {{
            if !valid_digits(i, digits) {
                return None;
            }
            segments[i] = value;
            value = 0;
            digits = 0;
            i += 1;
        }};
    }
    while j < bytes.len() {
        let b = bytes[j];
        if !b.is_ascii_digit() {
            if j == 0 && b == b'T' {
                just_time = true;
                i += 3;
            } else if i < 2 {
                if b == b'-' {
                    next_segment!();
                } else if i == 0 && b == b':' && year_sign.is_none() {
                    just_time = true;
                    if !valid_digits(3, digits) {
                        return None;
                    }
                    segments[3] = value;
                    value = 0;
                    digits = 0;
                    i = 4;
                } else {
                    return None;
                }
            } else if i == 2 {
                if b == b' ' || b == b'T' {
                    next_segment!();
                } else {
                    return None;
                }
            } else if i == 3 || i == 4 {
                if b == b':' {
                    next_segment!();
                } else {
                    return None;
                }
            } else if i == 5 || i == 6 {
                if b == b'.' && i == 5 {
                    next_segment!();
                } else {
                    next_segment!();
                    zone = Some(&bytes[j..]);
                    j = bytes.len() - 1;
                }
                if i == 6 && b != b'.' {
                    i += 1;
                }
            } else {
                return None;
            }
        } else {
            if i == 6 {
                fraction_digits += 1;
            }
            // (Nanoseconds are kept; Spark's microseconds truncate them.)
            if i != 6 || digits < 9 {
                value = value.saturating_mul(10).saturating_add(i64::from(b - b'0'));
            }
            digits += 1;
        }
        j += 1;
    }
    if !valid_digits(i, digits) {
        return None;
    }
    segments[i] = value;
    let mut nanos = segments[6];
    for _ in fraction_digits.min(9)..9 {
        nanos *= 10;
    }
    let zone = match zone {
        // (Spark's `getZoneId`; its `+h:mm` and `+hh:m` are offsets here too.)
        Some(z) => Some(java_zone_id(std::str::from_utf8(z).ok()?.trim())?),
        None => None,
    };
    let time = NaiveTime::from_hms_nano_opt(
        u32::try_from(segments[3]).ok()?,
        u32::try_from(segments[4]).ok()?,
        u32::try_from(segments[5]).ok()?,
        u32::try_from(nanos).ok()?,
    )?;
    let date = if just_time {
        None
    } else {
        let year = i32::try_from(segments[0] * year_sign.unwrap_or(1)).ok()?;
        Some(NaiveDate::from_ymd_opt(
            year,
            u32::try_from(segments[1]).ok()?,
            u32::try_from(segments[2]).ok()?,
        )?)
    };
    Some(TimestampText { date, time, zone })
}

/// Micro- or nanoseconds since the epoch of a text read as an instant (in its own zone, else
/// `session`), or None when Spark's cast answers NULL.
fn instant(text: &str, session: &Tz, nanos: bool) -> Option<i64> {
    let parsed = parse(text)?;
    let own;
    let tz = match &parsed.zone {
        Some(z) => {
            own = Tz::from_str(z).ok()?;
            &own
        }
        None => session,
    };
    let date = match parsed.date {
        Some(d) => d,
        None => Utc::now().with_timezone(tz).date_naive(),
    };
    let local = NaiveDateTime::new(date, parsed.time);
    // (Resolved to microseconds, as java.time resolves a gap or an overlap; the nanoseconds
    // below them added back.)
    let below = i64::from(parsed.time.nanosecond() % 1000);
    let at = super::zoned::resolve_local(tz, local)?;
    if nanos {
        Some(at.timestamp_nanos_opt()? + below)
    } else {
        Some(at.timestamp_micros())
    }
}

/// Micro- or nanoseconds of a text read as a local date-time (any zone ignored), or None.
fn local(text: &str, nanos: bool) -> Option<i64> {
    let parsed = parse(text)?;
    let at = NaiveDateTime::new(parsed.date?, parsed.time).and_utc();
    if nanos {
        at.timestamp_nanos_opt()
    } else {
        Some(at.timestamp_micros())
    }
}

/// `CAST(text AS TIMESTAMP)` in `time_zone` (`local`: the local date-time of
/// `CAST(text AS TIMESTAMP_NTZ)`, as if in UTC); `fail`: CAST_INVALID_INPUT for a text Spark
/// cannot read, else NULL.
pub(super) fn text_to_timestamp(
    arrays: &[ArrayRef],
    time_zone: &str,
    fail: bool,
    nanos: bool,
    to_local: bool,
) -> Result<ArrayRef> {
    let text = strings(arrays, 0)?;
    let text = text.as_string::<i32>();
    let tz = Tz::from_str(time_zone)?;
    let mut out: Vec<Option<i64>> = Vec::with_capacity(text.len());
    for i in 0..text.len() {
        if text.is_null(i) {
            out.push(None);
            continue;
        }
        let original = text.value(i).trim();
        let at = if to_local {
            local(original, nanos)
        } else {
            instant(original, &tz, nanos)
        };
        match at {
            Some(v) => out.push(Some(v)),
            None if fail => {
                let target = match (to_local, nanos) {
                    (true, _) => "TIMESTAMP_NTZ",
                    (false, true) => "TIMESTAMP_LTZ(9)",
                    (false, false) => "TIMESTAMP",
                };
                let mut e = SparkError::cast_invalid_input(original, "STRING", target);
                e.kind = ErrorKind::DateTime;
                return Err(to_datafusion(e));
            }
            None => out.push(None),
        }
    }
    Ok(if nanos {
        Arc::new(TimestampNanosecondArray::from(out).with_timezone(time_zone))
    } else {
        Arc::new(TimestampMicrosecondArray::from(out).with_timezone(time_zone))
    })
}

/// A `TIMESTAMP '...'` (`local`: `TIMESTAMP_NTZ '...'`) literal read as the cast reads its
/// text, or None for a text Spark refuses (INVALID_TYPED_LITERAL).
pub fn timestamp_literal(text: &str, time_zone: &str, local: bool) -> Option<ScalarValue> {
    let text = text.trim();
    Some(if local {
        ScalarValue::TimestampMicrosecond(Some(self::local(text, false)?), None)
    } else {
        let tz = Tz::from_str(time_zone).ok()?;
        ScalarValue::TimestampMicrosecond(Some(instant(text, &tz, false)?), Some(time_zone.into()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> Option<String> {
        let p = parse(s)?;
        Some(format!("{:?} {} {:?}", p.date, p.time, p.zone))
    }

    #[test]
    fn forms() {
        assert_eq!(
            at("2024").as_deref(),
            Some("Some(2024-01-01) 00:00:00 None")
        );
        assert_eq!(
            at("2024-1-5 9:3").as_deref(),
            Some("Some(2024-01-05) 09:03:00 None")
        );
        assert_eq!(
            at("2024-01-05T09:30:00.1234567+01:00").as_deref(),
            Some("Some(2024-01-05) 09:30:00.123456700 Some(\"+01:00\")")
        );
        assert_eq!(at("12:34").as_deref(), Some("None 12:34:00 None"));
        assert_eq!(at("T12").as_deref(), Some("None 12:00:00 None"));
        // A zone only after the seconds; a two-digit year; a sign before a time.
        assert_eq!(at("2024-01-01 12:34Z"), None);
        assert_eq!(at("12"), None);
        assert_eq!(at("-12:34"), None);
        assert_eq!(at("24:00"), None);
        assert_eq!(at("2024-02-30"), None);
    }

    #[test]
    fn only_a_time_is_today_where_the_time_is() {
        let session = Tz::from_str("America/Los_Angeles").unwrap();
        for (text, hours) in [("T23:59:59+14:00", 14), ("00:00:00 -12:00", -12)] {
            let offset = chrono::FixedOffset::east_opt(hours * 3600).unwrap();
            let before = Utc::now().with_timezone(&offset).date_naive();
            let micros = instant(text, &session, false).unwrap();
            let after = Utc::now().with_timezone(&offset).date_naive();
            let date = chrono::DateTime::from_timestamp_micros(micros)
                .unwrap()
                .with_timezone(&offset)
                .date_naive();
            assert!(date == before || date == after, "{text}: {date}");
        }
        assert_eq!(local("12:34", false), None);
        assert_eq!(
            local("2024-01-01 12:00:00+01:00", false),
            Some(1_704_110_400_000_000)
        );
    }
}
