//! `date_trunc(unit, ts)` as Spark's `DateTimeUtils.truncTimestamp`, on microseconds (so
//! that years past 2262, such as the `9999-12-31` that tables use for "no end", work, where
//! a truncation through nanoseconds overflows): milliseconds and seconds floored on the
//! instant, minutes, hours and days truncated in the local time of the session zone (the
//! offset kept where it still applies, as `ZonedDateTime.truncatedTo`), weeks (from Monday),
//! months, quarters and years to their first day's start in the zone.

use std::str::FromStr;
use std::sync::Arc;

use arrow::array::timezone::Tz;
use arrow::array::{ArrayRef, AsArray, TimestampMicrosecondArray};
use arrow::datatypes::{DataType, TimeUnit, TimestampMicrosecondType};
use chrono::{Datelike, NaiveDate, NaiveDateTime, NaiveTime, TimeDelta, Timelike};
use datafusion::common::Result;
use ember_execution::values::zone_rules;

use super::zoned::{instant_micros, of_local};

/// `ts` (microseconds, any zone) truncated to `unit` (one of Spark's, upper case) in
/// `time_zone`; the result is in `time_zone`.
pub(super) fn date_trunc(arrays: &[ArrayRef], unit: &str, time_zone: &str) -> Result<ArrayRef> {
    let tz = Tz::from_str(time_zone)?;
    // (Between zones a cast keeps the instant.)
    let ts = arrow::compute::cast(
        &arrays[0],
        &DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())),
    )?;
    let ts = ts.as_primitive::<TimestampMicrosecondType>();
    let out: TimestampMicrosecondArray = ts
        .iter()
        .map(|t| t.and_then(|t| truncate(t, unit, &tz)))
        .collect();
    Ok(Arc::new(out.with_timezone(time_zone)))
}

fn truncate(micros: i64, unit: &str, tz: &Tz) -> Option<i64> {
    let floor = |step: i64| micros - micros.rem_euclid(step);
    let utc = chrono::DateTime::from_timestamp_micros(micros)?.naive_utc();
    let offset = zone_rules::utc_offset(tz, &utc);
    let local = utc.checked_add_signed(TimeDelta::seconds(i64::from(offset.local_minus_utc())))?;
    let in_day = |local: NaiveDateTime| {
        let (local, offset) = of_local(tz, local, Some(offset));
        Some(instant_micros(local, offset))
    };
    let start_of = |date: NaiveDate| {
        let (local, offset) = of_local(tz, date.and_time(NaiveTime::MIN), None);
        Some(instant_micros(local, offset))
    };
    let date = local.date();
    match unit {
        "MICROSECOND" => Some(micros),
        "MILLISECOND" => Some(floor(1_000)),
        "SECOND" => Some(floor(1_000_000)),
        "MINUTE" => in_day(local.with_second(0)?.with_nanosecond(0)?),
        "HOUR" => in_day(local.date().and_hms_opt(local.hour(), 0, 0)?),
        "DAY" => in_day(date.and_time(NaiveTime::MIN)),
        "WEEK" => {
            start_of(date - TimeDelta::days(i64::from(date.weekday().num_days_from_monday())))
        }
        "MONTH" => start_of(date.with_day(1)?),
        "QUARTER" => start_of(NaiveDate::from_ymd_opt(
            date.year(),
            (date.month0() / 3) * 3 + 1,
            1,
        )?),
        "YEAR" => start_of(NaiveDate::from_ymd_opt(date.year(), 1, 1)?),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> i64 {
        NaiveDateTime::parse_from_str(text, "%Y-%m-%d %H:%M:%S%.f")
            .unwrap()
            .and_utc()
            .timestamp_micros()
    }

    #[test]
    fn units_in_utc_and_far_years() {
        let utc = Tz::from_str("UTC").unwrap();
        let t = at("9999-12-31 23:59:59.5");
        assert_eq!(truncate(t, "MONTH", &utc), Some(at("9999-12-01 00:00:00")));
        assert_eq!(truncate(t, "WEEK", &utc), Some(at("9999-12-27 00:00:00")));
        assert_eq!(
            truncate(t, "QUARTER", &utc),
            Some(at("9999-10-01 00:00:00"))
        );
        assert_eq!(truncate(t, "HOUR", &utc), Some(at("9999-12-31 23:00:00")));
        let before = at("1969-12-31 23:59:59.9995");
        assert_eq!(
            truncate(before, "MILLISECOND", &utc),
            Some(at("1969-12-31 23:59:59.999"))
        );
        assert_eq!(
            truncate(before, "SECOND", &utc),
            Some(at("1969-12-31 23:59:59"))
        );
    }

    #[test]
    fn local_units_keep_the_offset_in_an_overlap() {
        let la = Tz::from_str("America/Los_Angeles").unwrap();
        // 01:30 PST (the second 01:30 of 2024-11-03): its hour starts at 01:00 PST.
        let t = at("2024-11-03 09:30:00");
        assert_eq!(truncate(t, "HOUR", &la), Some(at("2024-11-03 09:00:00")));
        // Its day starts at midnight PDT.
        assert_eq!(truncate(t, "DAY", &la), Some(at("2024-11-03 07:00:00")));
    }
}
