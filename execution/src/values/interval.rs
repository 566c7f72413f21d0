//! The fields of Spark's ANSI interval types: `INTERVAL DAY`, `INTERVAL HOUR TO MINUTE`,
//! `INTERVAL YEAR`, ... Arrow's `Duration` and `Interval(YearMonth)` have no such fields, so
//! a column's Arrow field carries them in its metadata (`spark.interval`); a field without
//! it is Spark's default, DAY TO SECOND or YEAR TO MONTH.
//!
//! Interval values as text, both ways: ANSI intervals as Spark spells and reads them for
//! their type's fields, and calendar intervals as `CalendarInterval.toString` spells them.

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
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
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

    /// The target field of a cast to these fields' type. (Named: DataFusion's cast to a
    /// field without name or metadata keeps its operand's metadata, so a cast to the default
    /// fields, which have none, would keep the operand's fields.)
    pub fn cast_field(&self, dt: DataType, nullable: bool) -> Field {
        self.field("interval", dt, nullable)
    }

    /// The type holding both (Spark's wider interval type: the first start to the last end).
    pub fn wider(&self, other: &Self) -> Self {
        Self {
            year_month: self.year_month,
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }

    /// The size of the type's last field: microseconds (a day, hour, minute or second) or
    /// months (a year or a month).
    pub fn end_unit(&self) -> i64 {
        if self.year_month {
            if self.end == 0 { 12 } else { 1 }
        } else {
            MICROS[self.end as usize]
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

    /// A string cast to this type, as Spark's `castStringToDTInterval` /
    /// `castStringToYMInterval` read it: the type's own form from its first field to its
    /// last (`[+|-]d h:m:s.n`, `[+|-]h:m`, `[+|-]y-m`, spaces around allowed) or its ANSI
    /// literal (`INTERVAL [+|-]'[+|-]d' DAY`). Microseconds or months.
    pub fn parse_value(&self, text: &str) -> Result<i64, TextError> {
        let t = text.trim();
        let (outer_negative, body) = match strip_prefix_ignore_case(t, "interval") {
            Some(rest) => {
                let rest = rest.trim_start();
                let (negative, rest) = split_sign(rest);
                let rest = rest.strip_prefix('\'').ok_or(TextError::Format)?;
                let (body, units) = rest.split_once('\'').ok_or(TextError::Format)?;
                if !units.starts_with(char::is_whitespace)
                    || IntervalFields::parse(units) != Some(*self)
                {
                    return Err(TextError::Format);
                }
                (negative, body)
            }
            None => (false, t),
        };
        let (negative, body) = split_sign(body);
        let value = if self.year_month {
            self.parse_year_month(body)?
        } else {
            self.parse_day_time(body)?
        };
        Ok(if negative != outer_negative {
            -value
        } else {
            value
        })
    }

    fn parse_year_month(&self, body: &str) -> Result<i64, TextError> {
        let number = |s: &str| -> Result<i64, TextError> {
            if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
                return Err(TextError::Format);
            }
            s.parse::<i64>().map_err(|_| TextError::Format)
        };
        let months = match (self.start, self.end) {
            (0, 1) => {
                let (y, m) = body.split_once('-').ok_or(TextError::Format)?;
                let (y, m) = (number(y)?, number(m)?);
                if m > 11 {
                    return Err(TextError::Range(format!("month {m} outside range [0, 11]")));
                }
                y * 12 + m
            }
            (0, _) => number(body)? * 12,
            _ => number(body)?,
        };
        if months > i64::from(i32::MAX) {
            return Err(TextError::Range(format!("interval {body} out of range")));
        }
        Ok(months)
    }

    fn parse_day_time(&self, body: &str) -> Result<i64, TextError> {
        let (start, end) = (self.start as usize, self.end as usize);
        let parts: Vec<&str> = if start == 0 && end > 0 {
            let (days, rest) = body.split_once(' ').ok_or(TextError::Format)?;
            std::iter::once(days).chain(rest.split(':')).collect()
        } else {
            body.split(':').collect()
        };
        if parts.len() != end - start + 1 {
            return Err(TextError::Format);
        }
        const LIMITS: [i64; 4] = [i64::MAX, 23, 59, 59];
        let mut micros: i64 = 0;
        for (i, part) in parts.iter().enumerate() {
            let field = start + i;
            let (whole, fraction) = match part.split_once('.') {
                Some((w, f)) if field == 3 => (w, Some(f)),
                Some(_) => return Err(TextError::Format),
                None => (*part, None),
            };
            let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
            if !digits(whole) || fraction.is_some_and(|f| !digits(f) || f.len() > 9) {
                return Err(TextError::Format);
            }
            let n: i64 = whole.parse().map_err(|_| TextError::Format)?;
            if i > 0 && n > LIMITS[field] {
                return Err(TextError::Range(format!(
                    "{} {n} outside range [0, {}]",
                    DAY_TIME[field], LIMITS[field]
                )));
            }
            let overflow = || TextError::Range(format!("interval {body} out of range"));
            micros = n
                .checked_mul(MICROS[field])
                .and_then(|v| micros.checked_add(v))
                .ok_or_else(overflow)?;
            if let Some(f) = fraction {
                let padded: String = f.chars().chain(std::iter::repeat('0')).take(6).collect();
                micros += padded.parse::<i64>().map_err(|_| TextError::Format)?;
            }
        }
        Ok(micros)
    }

    fn fields_upper(&self) -> String {
        self.sql_name()["INTERVAL ".len()..].to_string()
    }
}

/// Spark's `CalendarInterval.toString`: `1 years 2 months 3 days 4 hours 5.5 seconds`.
pub fn calendar_interval_text(months: i32, days: i32, micros: i64) -> String {
    if months == 0 && days == 0 && micros == 0 {
        return "0 seconds".into();
    }
    let mut parts = Vec::new();
    let mut unit = |v: i64, name: &str| {
        if v != 0 {
            parts.push(format!("{v} {name}"));
        }
    };
    unit(i64::from(months / 12), "years");
    unit(i64::from(months % 12), "months");
    unit(i64::from(days), "days");
    unit(micros / 3_600_000_000, "hours");
    unit((micros % 3_600_000_000) / 60_000_000, "minutes");
    let rest = micros % 60_000_000;
    if rest != 0 {
        let text = super::numbers::decimal_text(i128::from(rest), 6);
        let text = text.trim_end_matches('0').trim_end_matches('.');
        parts.push(format!("{text} seconds"));
    }
    parts.join(" ")
}

/// Why a string is no value of an interval type.
#[derive(Debug, PartialEq, Eq)]
pub enum TextError {
    /// Not in the type's form (Spark's INVALID_INTERVAL_FORMAT).
    Format,
    /// A field beyond its range (Spark's `requirement failed: hour 25 outside range [0, 23]`).
    Range(String),
}

fn strip_prefix_ignore_case<'a>(text: &'a str, prefix: &str) -> Option<&'a str> {
    let head = text.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &text[prefix.len()..])
        .filter(|rest| rest.starts_with(char::is_whitespace))
}

fn split_sign(text: &str) -> (bool, &str) {
    match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
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

    #[test]
    fn reads_strings_as_spark_casts_them() {
        let day = IntervalFields::day_time(0, 0);
        assert_eq!(day.parse_value(" 1 "), Ok(86_400_000_000));
        assert_eq!(day.parse_value("INTERVAL '2' DAY"), Ok(2 * 86_400_000_000));
        assert_eq!(day.parse_value("x"), Err(TextError::Format));
        assert_eq!(day.parse_value("INTERVAL '2' HOUR"), Err(TextError::Format));
        let minute = IntervalFields::day_time(2, 2);
        assert_eq!(minute.parse_value("interval -'5' minute"), Ok(-300_000_000));
        assert_eq!(minute.parse_value("INTERVAL '-5' MINUTE"), Ok(-300_000_000));
        let dts = IntervalFields::DAY_TO_SECOND;
        assert_eq!(
            dts.parse_value("-1 23:59:59.999"),
            Ok(-(172_800_000_000 - 1_000))
        );
        assert!(matches!(
            IntervalFields::day_time(0, 1).parse_value("1 25"),
            Err(TextError::Range(_))
        ));
        let hm = IntervalFields::day_time(1, 2);
        assert_eq!(hm.parse_value("-01:02"), Ok(-3_720_000_000));
        assert_eq!(hm.parse_value("1"), Err(TextError::Format));
        assert_eq!(IntervalFields::YEAR_TO_MONTH.parse_value("-1-11"), Ok(-23));
        assert_eq!(
            IntervalFields::year_month(0, 0).parse_value("1-2"),
            Err(TextError::Format)
        );
        assert_eq!(IntervalFields::year_month(1, 1).parse_value("5"), Ok(5));
    }
}
