//! The fields of Spark's ANSI interval types: `INTERVAL DAY`, `INTERVAL HOUR TO MINUTE`,
//! `INTERVAL YEAR`, ... Arrow's `Duration` and `Interval(YearMonth)` have no such fields, so
//! a column's Arrow field carries them in its metadata (`spark.interval`); a field without
//! it is Spark's default, DAY TO SECOND or YEAR TO MONTH.

use std::collections::{BTreeMap, HashMap};

use arrow::datatypes::{DataType, Field, IntervalUnit};
use datafusion::logical_expr::expr::FieldMetadata;

/// The metadata key holding an interval's fields, as Spark spells the type (`day to hour`).
pub const FIELDS_KEY: &str = "spark.interval";

const DAY_TIME: [&str; 4] = ["day", "hour", "minute", "second"];
const YEAR_MONTH: [&str; 2] = ["year", "month"];

const MICROS: [i64; 4] = [86_400_000_000, 3_600_000_000, 60_000_000, 1_000_000];

/// The first and last field of an ANSI interval type, numbered as Spark numbers them
/// (DAY 0 .. SECOND 3; YEAR 0, MONTH 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IntervalFields {
    pub year_month: bool,
    pub start: u8,
    pub end: u8,
}

impl IntervalFields {
    pub const DAY_TO_SECOND: Self = Self::day_time(0, 3);
    pub const YEAR_TO_MONTH: Self = Self::year_month(0, 1);

    pub const fn day_time(start: u8, end: u8) -> Self {
        Self {
            year_month: false,
            start,
            end,
        }
    }

    pub const fn year_month(start: u8, end: u8) -> Self {
        Self {
            year_month: true,
            start,
            end,
        }
    }

    fn names(&self) -> &'static [&'static str] {
        if self.year_month {
            &YEAR_MONTH
        } else {
            &DAY_TIME
        }
    }

    /// The default of the Arrow type (what a field without metadata is).
    pub fn default_of(dt: &DataType) -> Option<Self> {
        match dt {
            DataType::Duration(_) => Some(Self::DAY_TO_SECOND),
            DataType::Interval(IntervalUnit::YearMonth) => Some(Self::YEAR_TO_MONTH),
            _ => None,
        }
    }

    /// The fields of a column of an interval type (None for other types).
    pub fn of_field(field: &Field) -> Option<Self> {
        Self::of(field.data_type(), field.metadata())
    }

    /// The fields of a value of `dt` whose field has `metadata`.
    pub fn of(dt: &DataType, metadata: &HashMap<String, String>) -> Option<Self> {
        let default = Self::default_of(dt)?;
        Some(
            metadata
                .get(FIELDS_KEY)
                .and_then(|text| Self::parse(text))
                .filter(|f| f.year_month == default.year_month)
                .unwrap_or(default),
        )
    }

    /// `day`, `day to hour`, `year to month` (any case; `INTERVAL ` before it is skipped).
    pub fn parse(text: &str) -> Option<Self> {
        let lower = text.trim().to_ascii_lowercase();
        let lower = lower.strip_prefix("interval").unwrap_or(&lower).trim();
        let (first, last) = match lower.split_once(" to ") {
            Some((a, b)) => (a.trim(), b.trim()),
            None => (lower, lower),
        };
        let find = |names: &[&str], n: &str| names.iter().position(|x| *x == n);
        for (year_month, names) in [(false, &DAY_TIME[..]), (true, &YEAR_MONTH[..])] {
            if let (Some(s), Some(e)) = (find(names, first), find(names, last)) {
                return (s <= e).then_some(Self {
                    year_month,
                    start: s as u8,
                    end: e as u8,
                });
            }
        }
        None
    }

    /// Spark's `simpleString`: `interval day`, `interval hour to second`.
    pub fn simple_string(&self) -> String {
        let names = self.names();
        let (s, e) = (names[self.start as usize], names[self.end as usize]);
        if s == e {
            format!("interval {s}")
        } else {
            format!("interval {s} to {e}")
        }
    }

    /// Spark's SQL name: `INTERVAL DAY TO HOUR`.
    pub fn sql_name(&self) -> String {
        self.simple_string().to_ascii_uppercase()
    }

    fn is_default(&self) -> bool {
        *self == Self::DAY_TO_SECOND || *self == Self::YEAR_TO_MONTH
    }

    /// The field metadata marking these fields (None for the type's default).
    pub fn metadata(&self) -> Option<HashMap<String, String>> {
        (!self.is_default())
            .then(|| HashMap::from([(FIELDS_KEY.to_string(), self.simple_string()[9..].into())]))
    }

    /// As a literal's or cast's metadata.
    pub fn field_metadata(&self) -> Option<FieldMetadata> {
        self.metadata()
            .map(|m| FieldMetadata::from(m.into_iter().collect::<BTreeMap<_, _>>()))
    }

    /// A field of these fields' type named `name`.
    pub fn field(&self, name: &str, dt: DataType, nullable: bool) -> Field {
        Field::new(name, dt, nullable).with_metadata(self.metadata().unwrap_or_default())
    }

    /// The type holding both (Spark's wider interval type: the first start to the last end).
    pub fn wider(&self, other: &Self) -> Self {
        Self {
            year_month: self.year_month,
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }

    /// A day-time value as a value of this type holds it: the fields after the last one
    /// dropped (`CAST(INTERVAL 30 HOURS AS INTERVAL DAY)` is one day).
    pub fn truncate_micros(&self, micros: i64) -> i64 {
        match self.end {
            0..=2 => {
                let unit = MICROS[self.end as usize];
                micros / unit * unit
            }
            _ => micros,
        }
    }

    /// A year-month value as a value of this type holds it (whole years for YEAR).
    pub fn truncate_months(&self, months: i32) -> i32 {
        if self.end == 0 {
            months / 12 * 12
        } else {
            months
        }
    }

    /// Spark's ANSI string of a day-time interval value of this type
    /// (`IntervalUtils.toDayTimeIntervalString`): `INTERVAL '1' DAY`,
    /// `INTERVAL '-01:02' HOUR TO MINUTE`, `INTERVAL '1 02:03:04.5' DAY TO SECOND`.
    pub fn day_time_string(&self, micros: i64) -> String {
        let sign = if micros < 0 { "-" } else { "" };
        let mut rest = micros.unsigned_abs();
        let seconds = |rest: u64| {
            let whole = rest / 1_000_000;
            let frac = rest % 1_000_000;
            let lead = if rest < 10_000_000 { "0" } else { "" };
            if frac == 0 {
                format!("{lead}{whole}")
            } else {
                let digits = format!("{frac:06}");
                format!("{lead}{whole}.{}", digits.trim_end_matches('0'))
            }
        };
        let mut text = String::from(sign);
        let (start, end) = (self.start as usize, self.end as usize);
        for (i, unit) in MICROS.iter().enumerate().take(end + 1).skip(start) {
            let unit = *unit as u64;
            let part = if i == 3 {
                seconds(rest)
            } else {
                let n = rest / unit;
                rest %= unit;
                if i == 0 {
                    n.to_string()
                } else {
                    format!("{n:02}")
                }
            };
            if i > start {
                text.push(if i == 1 { ' ' } else { ':' });
            }
            text.push_str(&part);
        }
        format!("INTERVAL '{text}' {}", self.fields_upper())
    }

    /// Spark's ANSI string of a year-month interval value of this type: `INTERVAL '1' YEAR`,
    /// `INTERVAL '14' MONTH`, `INTERVAL '-1-2' YEAR TO MONTH`.
    pub fn year_month_string(&self, months: i32) -> String {
        let sign = if months < 0 { "-" } else { "" };
        let m = months.unsigned_abs();
        let text = match (self.start, self.end) {
            (0, 0) => format!("{sign}{}", m / 12),
            (0, _) => format!("{sign}{}-{}", m / 12, m % 12),
            _ => format!("{sign}{m}"),
        };
        format!("INTERVAL '{text}' {}", self.fields_upper())
    }

    fn fields_upper(&self) -> String {
        self.sql_name()["INTERVAL ".len()..].to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_strings_as_spark() {
        let day = IntervalFields::parse("day").unwrap();
        assert_eq!(day.simple_string(), "interval day");
        assert_eq!(day.day_time_string(86_400_000_000), "INTERVAL '1' DAY");
        let hm = IntervalFields::parse("INTERVAL HOUR TO MINUTE").unwrap();
        assert_eq!(hm.sql_name(), "INTERVAL HOUR TO MINUTE");
        assert_eq!(
            hm.day_time_string(3_720_000_000),
            "INTERVAL '01:02' HOUR TO MINUTE"
        );
        let hour = IntervalFields::day_time(1, 1);
        assert_eq!(
            hour.day_time_string(30 * 3_600_000_000),
            "INTERVAL '30' HOUR"
        );
        assert_eq!(
            IntervalFields::DAY_TO_SECOND.day_time_string(-(86_400_000_000 + 1_500_000)),
            "INTERVAL '-1 00:00:01.5' DAY TO SECOND"
        );
        assert_eq!(
            IntervalFields::day_time(3, 3).day_time_string(12_000_000),
            "INTERVAL '12' SECOND"
        );
        assert_eq!(
            IntervalFields::year_month(0, 0).year_month_string(14),
            "INTERVAL '1' YEAR"
        );
        assert_eq!(
            IntervalFields::year_month(1, 1).year_month_string(14),
            "INTERVAL '14' MONTH"
        );
        assert_eq!(
            IntervalFields::YEAR_TO_MONTH.year_month_string(-14),
            "INTERVAL '-1-2' YEAR TO MONTH"
        );
        assert_eq!(IntervalFields::parse("hour to day"), None);
        assert!(IntervalFields::DAY_TO_SECOND.metadata().is_none());
        assert_eq!(day.truncate_micros(30 * 3_600_000_000), 86_400_000_000);
    }
}
