//! A time zone's UTC offset at an instant, also past the zone's last listed transition.
//! chrono-tz lists transitions only up to 2037 and keeps the last offset after it (Los
//! Angeles stays on standard time from 2038 on), where Java (and so Spark) goes on applying
//! the zone's final recurring rule (daylight-saving time every summer). A rule names months
//! and weekdays ("the second Sunday of March"), so an instant after 2037 takes the offset
//! of the same date and time in a year of 2010..=2037 with the same calendar (leap year and
//! weekday of January 1st), where chrono-tz still lists the rule's transitions.

use chrono::{
    DateTime, Datelike, FixedOffset, LocalResult, NaiveDate, NaiveDateTime, Offset, TimeZone, Utc,
};

/// The last year whose transitions chrono-tz lists.
const LAST_LISTED_YEAR: i32 = 2037;

/// A year of 2010..=2037 with the calendar of `year` (leap or not, January 1st on the same
/// weekday); every one of the 14 calendars occurs in those 28 years.
fn same_calendar_year(year: i32) -> Option<i32> {
    let first = NaiveDate::from_ymd_opt(year, 1, 1)?.weekday();
    let leap = NaiveDate::from_ymd_opt(year, 2, 29).is_some();
    (2010..=LAST_LISTED_YEAR).find(|y| {
        NaiveDate::from_ymd_opt(*y, 2, 29).is_some() == leap
            && NaiveDate::from_ymd_opt(*y, 1, 1).map(|d| d.weekday()) == Some(first)
    })
}

/// The offset of `tz` at the instant `utc` (a UTC date-time), past 2037 by the zone's last
/// rule.
pub fn utc_offset<Z: TimeZone>(tz: &Z, utc: &NaiveDateTime) -> FixedOffset {
    if utc.year() > LAST_LISTED_YEAR
        && let Some(y) = same_calendar_year(utc.year())
        && let Some(mapped) = utc.with_year(y)
    {
        return tz.offset_from_utc_datetime(&mapped).fix();
    }
    tz.offset_from_utc_datetime(utc).fix()
}

/// The offsets `tz` may have at the local date-time `local` (one, two in an overlap, none in
/// a gap), past 2037 by the zone's last rule.
pub fn local_offsets<Z: TimeZone>(tz: &Z, local: &NaiveDateTime) -> LocalResult<FixedOffset> {
    if local.year() > LAST_LISTED_YEAR
        && let Some(y) = same_calendar_year(local.year())
        && let Some(mapped) = local.with_year(y)
    {
        return tz.offset_from_local_datetime(&mapped).map(|o| o.fix());
    }
    tz.offset_from_local_datetime(local).map(|o| o.fix())
}

/// The instant `utc` in `tz`, past 2037 by the zone's last rule.
pub fn in_zone<Z: TimeZone>(tz: &Z, utc: DateTime<Utc>) -> DateTime<FixedOffset> {
    utc.with_timezone(&utc_offset(tz, &utc.naive_utc()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn daylight_saving_after_2037() {
        let la: chrono_tz::Tz = "America/Los_Angeles".parse().unwrap();
        let at = |s: &str| {
            NaiveDateTime::parse_from_str(s, "%Y-%m-%d %H:%M:%S")
                .unwrap()
                .and_utc()
        };
        // Summer: PDT (UTC-7), as Java; chrono-tz alone says PST after 2037.
        assert_eq!(
            in_zone(&la, at("2100-07-01 12:00:00"))
                .naive_local()
                .to_string(),
            "2100-07-01 05:00:00"
        );
        assert_eq!(
            in_zone(&la, at("2100-01-01 12:00:00"))
                .naive_local()
                .to_string(),
            "2100-01-01 04:00:00"
        );
        // 2038: DST starts on the second Sunday of March (14 March 2038) at 10:00 UTC.
        assert_eq!(
            in_zone(&la, at("2038-03-14 09:59:59"))
                .offset()
                .local_minus_utc(),
            -8 * 3600
        );
        assert_eq!(
            in_zone(&la, at("2038-03-14 10:00:00"))
                .offset()
                .local_minus_utc(),
            -7 * 3600
        );
        assert_eq!(same_calendar_year(2100), Some(2010));
        assert_eq!(same_calendar_year(2040).map(|y| y % 4), Some(0));
    }
}
