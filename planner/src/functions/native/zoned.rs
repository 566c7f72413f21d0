//! Timestamp arithmetic in the session time zone, as Spark does it with java.time's
//! `ZonedDateTime`: `ts ± interval` moves the local date-time by the interval's months, then
//! its days (keeping the UTC offset where it is still valid, else the earlier offset of an
//! overlap, or moved forward by the length of a gap), then the instant by the rest
//! (`INTERVAL 24 HOURS` is one day: the same local time the next day, across a daylight-saving
//! change too); `ts - ts` is the difference of the local date-times.

use std::str::FromStr;
use std::sync::Arc;

use arrow::array::timezone::Tz;
use arrow::array::{
    Array, ArrayRef, AsArray, Date32Array, DurationMicrosecondArray, TimestampMicrosecondArray,
};
use arrow::datatypes::{
    DataType, Date32Type, DurationMicrosecondType, IntervalMonthDayNanoType, IntervalUnit,
    IntervalYearMonthType, TimeUnit, TimestampMicrosecondType,
};
use chrono::{DateTime, FixedOffset, LocalResult, NaiveDateTime, Offset, TimeDelta, TimeZone};
use datafusion::common::{DataFusionError, Result, internal_err};
use serde::{Deserialize, Serialize};

use crate::error::{ErrorKind, SparkError, to_datafusion};

const MICROS_PER_DAY: i64 = 86_400_000_000;

/// What [`super::Native::Zoned`] computes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ZonedOp {
    /// `timestamp + interval`.
    Add,
    /// `timestamp - interval`.
    Subtract,
    /// `timestamp - timestamp` (either may be a date): an INTERVAL DAY TO SECOND.
    Between,
    /// `date ± interval` of months, days and microseconds: microseconds other than 0 fail
    /// in ANSI mode, else count from the date's midnight.
    DatePlus { subtract: bool, ansi: bool },
}

impl ZonedOp {
    /// The operation Spark does in local time for `left op right`, and whether the operands
    /// are to be swapped (`interval + timestamp`); None where the zone plays no part.
    pub fn of(
        left: &DataType,
        right: &DataType,
        minus: bool,
        ansi: bool,
    ) -> Option<(ZonedOp, bool)> {
        let calendar = |t: &DataType| *t == DataType::Interval(IntervalUnit::MonthDayNano);
        let date_plus = ZonedOp::DatePlus {
            subtract: minus,
            ansi,
        };
        match (left, right) {
            (DataType::Date32, r) if calendar(r) => return Some((date_plus, false)),
            (l, DataType::Date32) if calendar(l) && !minus => return Some((date_plus, true)),
            _ => {}
        }
        let zoned = |t: &DataType| matches!(t, DataType::Timestamp(_, Some(_)));
        let interval = |t: &DataType| matches!(t, DataType::Duration(_) | DataType::Interval(_));
        let datetime = |t: &DataType| matches!(t, DataType::Timestamp(..) | DataType::Date32);
        if zoned(left) && interval(right) {
            Some((
                if minus {
                    ZonedOp::Subtract
                } else {
                    ZonedOp::Add
                },
                false,
            ))
        } else if !minus && interval(left) && zoned(right) {
            Some((ZonedOp::Add, true))
        } else if minus && (zoned(left) || zoned(right)) && datetime(left) && datetime(right) {
            Some((ZonedOp::Between, false))
        } else {
            None
        }
    }

    pub fn return_type(self, arg_types: &[DataType]) -> Result<DataType> {
        match (self, arg_types.first()) {
            (ZonedOp::Between, _) => Ok(DataType::Duration(TimeUnit::Microsecond)),
            (ZonedOp::DatePlus { .. }, _) => Ok(DataType::Date32),
            (_, Some(t)) => Ok(t.clone()),
            (_, None) => internal_err!("timestamp arithmetic without a timestamp"),
        }
    }
}

fn long_overflow() -> DataFusionError {
    to_datafusion(SparkError::new(
        ErrorKind::Arithmetic,
        "",
        "",
        "long overflow",
        vec![],
    ))
}

/// The local date-time `local` of `tz` with its offset, as java.time's
/// `ZonedDateTime.ofLocal`: `preferred` where it is one of an overlap's two offsets, else the
/// earlier one; in a gap, the local time moved forward by the gap's length.
pub(super) fn of_local(
    tz: &Tz,
    local: NaiveDateTime,
    preferred: Option<FixedOffset>,
) -> (NaiveDateTime, FixedOffset) {
    use ember_execution::values::zone_rules;
    match zone_rules::local_offsets(tz, &local) {
        LocalResult::Single(o) => (local, o.fix()),
        LocalResult::Ambiguous(earlier, later) => {
            if Some(later.fix()) == preferred {
                (local, later.fix())
            } else {
                (local, earlier.fix())
            }
        }
        LocalResult::None => {
            let day = TimeDelta::days(1);
            let before = zone_rules::utc_offset(tz, &(local - day));
            let after = zone_rules::utc_offset(tz, &(local + day));
            let gap = i64::from(after.local_minus_utc() - before.local_minus_utc());
            (local + TimeDelta::seconds(gap), after)
        }
    }
}

pub(super) fn instant_micros(local: NaiveDateTime, offset: FixedOffset) -> i64 {
    let utc = local - TimeDelta::seconds(i64::from(offset.local_minus_utc()));
    utc.and_utc().timestamp_micros()
}

/// The instant of a local date-time in `tz` (the earlier of an overlap's two, a gap's time
/// moved forward by the gap's length).
pub(super) fn resolve_local(tz: &Tz, local: NaiveDateTime) -> Option<DateTime<Tz>> {
    let (local, offset) = of_local(tz, local, None);
    tz.timestamp_micros(instant_micros(local, offset)).single()
}

/// `t` plus `months` and `days` in local time, then `micros` (overflow an error).
pub(super) fn plus(tz: &Tz, t: i64, months: i64, days: i64, micros: i64) -> Result<i64> {
    let mut t = t;
    if months != 0 || days != 0 {
        let zoned = match tz.timestamp_micros(t) {
            LocalResult::Single(z) => z,
            _ => return Err(long_overflow()),
        };
        let (mut local, mut offset) = (zoned.naive_local(), zoned.offset().fix());
        if months != 0 {
            let n = chrono::Months::new(
                u32::try_from(months.unsigned_abs()).map_err(|_| long_overflow())?,
            );
            let moved = if months > 0 {
                local.checked_add_months(n)
            } else {
                local.checked_sub_months(n)
            };
            (local, offset) = of_local(tz, moved.ok_or_else(long_overflow)?, Some(offset));
        }
        if days != 0 {
            let moved = TimeDelta::try_days(days).and_then(|d| local.checked_add_signed(d));
            (local, offset) = of_local(tz, moved.ok_or_else(long_overflow)?, Some(offset));
        }
        t = instant_micros(local, offset);
    }
    t.checked_add(micros).ok_or_else(long_overflow)
}

/// (months, days, micros) of each row's interval, negated for `negate`.
fn interval_parts(interval: &ArrayRef, negate: bool) -> Result<Vec<Option<(i64, i64, i64)>>> {
    let sign = if negate { -1 } else { 1 };
    let parts: Vec<Option<(i64, i64, i64)>> = match interval.data_type() {
        DataType::Duration(_) => {
            let d = arrow::compute::cast(interval, &DataType::Duration(TimeUnit::Microsecond))?;
            d.as_primitive::<DurationMicrosecondType>()
                .iter()
                .map(|v| v.map(|v| (0, v / MICROS_PER_DAY, v % MICROS_PER_DAY)))
                .collect()
        }
        DataType::Interval(IntervalUnit::YearMonth) => interval
            .as_primitive::<IntervalYearMonthType>()
            .iter()
            .map(|v| v.map(|m| (i64::from(m), 0, 0)))
            .collect(),
        _ => {
            let i =
                arrow::compute::cast(interval, &DataType::Interval(IntervalUnit::MonthDayNano))?;
            i.as_primitive::<IntervalMonthDayNanoType>()
                .iter()
                .map(|v| v.map(|v| (i64::from(v.months), i64::from(v.days), v.nanoseconds / 1000)))
                .collect()
        }
    };
    Ok(parts
        .into_iter()
        .map(|p| p.map(|(m, d, u)| (sign * m, sign * d, sign * u)))
        .collect())
}

/// Local date-times of timestamps in `tz` (TIMESTAMP_NTZ as they are), or dates' midnights.
fn locals(array: &ArrayRef, tz: &Tz) -> Result<Vec<Option<NaiveDateTime>>> {
    if let DataType::Date32 = array.data_type() {
        return Ok(array
            .as_primitive::<Date32Type>()
            .iter()
            .map(|d| {
                d.and_then(|d| arrow::temporal_conversions::as_datetime::<Date32Type>(i64::from(d)))
            })
            .collect());
    }
    let zoned = matches!(array.data_type(), DataType::Timestamp(_, Some(_)));
    let micros = arrow::compute::cast(array, &DataType::Timestamp(TimeUnit::Microsecond, None))?;
    Ok(micros
        .as_primitive::<TimestampMicrosecondType>()
        .iter()
        .map(|v| {
            let v = v?;
            if zoned {
                tz.timestamp_micros(v).single().map(|z| z.naive_local())
            } else {
                arrow::temporal_conversions::as_datetime::<TimestampMicrosecondType>(v)
            }
        })
        .collect())
}

fn micros_added_to_date() -> DataFusionError {
    to_datafusion(SparkError::new(
        ErrorKind::IllegalArgument,
        "INVALID_INTERVAL_WITH_MICROSECONDS_ADDITION",
        "22006",
        "Cannot add an interval to a date because its microseconds part is not 0. To resolve this, cast the input date to a timestamp, which supports the addition of intervals with non-zero microseconds.",
        vec![],
    ))
}

/// `date ± interval` as Spark's `DateAddInterval`.
fn date_plus(
    dates: &ArrayRef,
    interval: &ArrayRef,
    tz: &Tz,
    subtract: bool,
    ansi: bool,
) -> Result<ArrayRef> {
    let dates = arrow::compute::cast(dates, &DataType::Date32)?;
    let parts = interval_parts(interval, subtract)?;
    let epoch = chrono::NaiveDate::default();
    let out: Date32Array = dates
        .as_primitive::<Date32Type>()
        .iter()
        .zip(parts)
        .map(|(d, p)| {
            let (Some(d), Some((months, days, micros))) = (d, p) else {
                return Ok(None);
            };
            let date = epoch + TimeDelta::days(i64::from(d));
            let moved = if micros == 0 {
                let n = chrono::Months::new(
                    u32::try_from(months.unsigned_abs()).map_err(|_| long_overflow())?,
                );
                let date = if months >= 0 {
                    date.checked_add_months(n)
                } else {
                    date.checked_sub_months(n)
                };
                date.and_then(|d| d.checked_add_signed(TimeDelta::try_days(days)?))
                    .ok_or_else(long_overflow)?
            } else if ansi {
                return Err(micros_added_to_date());
            } else {
                let midnight = date.and_time(chrono::NaiveTime::MIN);
                let (local, offset) = of_local(tz, midnight, None);
                let t = plus(tz, instant_micros(local, offset), months, days, micros)?;
                tz.timestamp_micros(t)
                    .single()
                    .ok_or_else(long_overflow)?
                    .date_naive()
            };
            let days = (moved - epoch).num_days();
            i32::try_from(days).map(Some).map_err(|_| long_overflow())
        })
        .collect::<Result<_>>()?;
    Ok(Arc::new(out))
}

pub(super) fn evaluate(arrays: &[ArrayRef], time_zone: &str, op: ZonedOp) -> Result<ArrayRef> {
    let (Some(left), Some(right)) = (arrays.first(), arrays.get(1)) else {
        return internal_err!("timestamp arithmetic takes two arguments");
    };
    let tz = Tz::from_str(time_zone)?;
    if let ZonedOp::DatePlus { subtract, ansi } = op {
        return date_plus(left, right, &tz, subtract, ansi);
    }
    if op == ZonedOp::Between {
        let (ends, starts) = (locals(left, &tz)?, locals(right, &tz)?);
        let out: DurationMicrosecondArray = ends
            .iter()
            .zip(&starts)
            .map(|(e, s)| match (e, s) {
                (Some(e), Some(s)) => (*e - *s)
                    .num_microseconds()
                    .ok_or_else(long_overflow)
                    .map(Some),
                _ => Ok(None),
            })
            .collect::<Result<_>>()?;
        return Ok(Arc::new(out));
    }
    let DataType::Timestamp(_, zone) = left.data_type() else {
        return internal_err!("timestamp arithmetic of {}", left.data_type());
    };
    let zone = zone.clone();
    let instants = arrow::compute::cast(left, &DataType::Timestamp(TimeUnit::Microsecond, None))?;
    let instants = instants.as_primitive::<TimestampMicrosecondType>();
    let parts = interval_parts(right, op == ZonedOp::Subtract)?;
    let out: TimestampMicrosecondArray = instants
        .iter()
        .zip(parts)
        .map(|(t, p)| match (t, p) {
            (Some(t), Some((months, days, micros))) => plus(&tz, t, months, days, micros).map(Some),
            _ => Ok(None),
        })
        .collect::<Result<_>>()?;
    Ok(Arc::new(out.with_timezone_opt(zone)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn la() -> Tz {
        Tz::from_str("America/Los_Angeles").unwrap()
    }

    fn micros(text: &str) -> i64 {
        chrono::DateTime::parse_from_rfc3339(text)
            .unwrap()
            .timestamp_micros()
    }

    #[test]
    fn days_move_local_time_across_daylight_saving() {
        let tz = la();
        let day = |t: &str, days: i64, rest: i64| plus(&tz, micros(t), 0, days, rest).unwrap();
        // 12:00 PST + 1 day = 12:00 PDT.
        assert_eq!(
            day("2024-03-09T20:00:00Z", 1, 0),
            micros("2024-03-10T19:00:00Z")
        );
        // Into the gap: 02:30 does not exist, 03:30 PDT.
        assert_eq!(
            day("2024-03-09T10:30:00Z", 1, 0),
            micros("2024-03-10T10:30:00Z")
        );
        // Into the overlap: the offset kept (PDT), or the earlier one.
        assert_eq!(
            day("2024-11-02T08:30:00Z", 1, 0),
            micros("2024-11-03T08:30:00Z")
        );
        assert_eq!(
            day("2024-11-04T09:30:00Z", -1, 0),
            micros("2024-11-03T09:30:00Z")
        );
        // Hours move the instant.
        assert_eq!(
            day("2024-03-10T09:30:00Z", 0, 3_600_000_000),
            micros("2024-03-10T10:30:00Z")
        );
        // A month into the gap.
        assert_eq!(
            plus(&tz, micros("2024-02-10T10:30:00Z"), 1, 0, 0).unwrap(),
            micros("2024-03-10T10:30:00Z")
        );
    }
}
