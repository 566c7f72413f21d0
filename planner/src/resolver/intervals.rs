//! Spark's ANSI intervals in the resolver: interval literals with their fields, casts to
//! `INTERVAL DAY` and friends (the value truncated to the type's last field).

use std::sync::Arc;

use arrow::datatypes::{DataType, Field};
use datafusion::common::{DFSchema, ScalarValue};
use datafusion::logical_expr::{Expr, ExprSchemable, expr::Cast};

use super::Resolver;
use super::names::Named;
use crate::error::{PlanError, PlanResult, SparkError};
use crate::functions::native::{Native, NativeUdf};
use crate::interval::IntervalFields;
use crate::spec::Expr as SExpr;

impl Resolver<'_> {
    /// A multi-unit interval literal (`INTERVAL 1 DAY 2 HOURS`, see
    /// `sql::dialect::multi_unit_intervals`): typed from its first to its last unit.
    pub(super) fn interval_units(&self, args: &[SExpr]) -> PlanResult<Named> {
        let [SExpr::Literal(ScalarValue::Utf8(Some(text)))] = args else {
            return Err(PlanError::InvalidPlan("interval units".into()));
        };
        let (value, fields) = multi_unit_interval(text)?;
        let name = match value {
            ScalarValue::DurationMicrosecond(Some(us)) => fields.day_time_string(us),
            ScalarValue::IntervalYearMonth(Some(m)) => fields.year_month_string(m),
            _ => text.clone(),
        };
        Ok((Expr::Literal(value, fields.field_metadata()), name))
    }

    /// `date ± interval` (either order for `+`) with a day-time interval of hours or smaller:
    /// Spark adds it to the date's midnight as a TIMESTAMP, so the date is cast to one.
    pub(super) fn date_plus_time_as_timestamp(
        &self,
        function: &str,
        args: &mut [Expr],
        types: &mut [DataType],
        schema: &DFSchema,
    ) -> PlanResult<()> {
        let date = match (function, &*types) {
            ("+" | "-", [DataType::Date32, DataType::Duration(_)]) => 0,
            ("+", [DataType::Duration(_), DataType::Date32]) => 1,
            _ => return Ok(()),
        };
        let (_, field) = args[1 - date].to_field(schema)?;
        if IntervalFields::of_field(&field) == Some(IntervalFields::day_time(0, 0)) {
            return Ok(());
        }
        let timestamp = crate::types::timestamp_type(&self.config.time_zone);
        let mode = crate::spec::CastMode::Default;
        args[date] = self.cast_to(args[date].clone(), &timestamp, mode, schema)?;
        types[date] = timestamp;
        Ok(())
    }

    /// The casts Spark makes between ANSI intervals and other types: strings and exact
    /// numbers to intervals (`CAST('1 02' AS INTERVAL DAY TO HOUR)`, `CAST(5 AS INTERVAL
    /// HOUR)`, counted in the type's last field), intervals to integers (`CAST(INTERVAL 3
    /// HOURS AS INT)` is 3); day-time and year-month intervals do not cast to each other.
    /// None for the casts `cast_to` makes.
    pub(super) fn interval_cast(
        &self,
        inner: &Expr,
        to: &DataType,
        type_name: &str,
        try_mode: bool,
        schema: &DFSchema,
    ) -> PlanResult<Option<Expr>> {
        let (_, from_field) = inner.to_field(schema)?;
        let from = from_field.data_type();
        let source = IntervalFields::of_field(&from_field);
        let target = IntervalFields::default_of(to).and_then(|d| {
            IntervalFields::parse(type_name)
                .filter(|f| f.year_month == d.year_month)
                .or(Some(d))
        });
        let mismatch = || -> PlanResult<Option<Expr>> {
            Err(SparkError::analysis(
                "DATATYPE_MISMATCH.CAST_WITHOUT_SUGGESTION",
                "42K09",
                format!(
                    "Cannot resolve \"CAST\" due to data type mismatch: cannot cast \"{}\" to \"{}\".",
                    crate::types::field_sql_name(&from_field),
                    crate::types::cast_type_name(to, target)
                ),
            )
            .into())
        };
        match (source, target) {
            (Some(s), Some(t)) if s.year_month != t.year_month => mismatch(),
            (Some(s), None) if to.is_integer() => {
                let unit = s.end_unit();
                let count = |to: &DataType| {
                    NativeUdf::udf(Native::CheckedIntegerCast {
                        from: s.sql_name(),
                        to: crate::types::sql_name(to),
                        unit,
                        arithmetic: false,
                    })
                    .call(vec![inner.clone()])
                };
                Ok(Some(if try_mode {
                    Expr::TryCast(datafusion::logical_expr::TryCast::new(
                        Box::new(count(&DataType::Int64)),
                        to.clone(),
                    ))
                } else {
                    count(to)
                }))
            }
            (Some(s), None) if to.is_numeric() => Err(PlanError::Unsupported(format!(
                "CAST({} AS {})",
                s.sql_name(),
                crate::types::sql_name(to)
            ))),
            (None, Some(t))
                if matches!(
                    from,
                    DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View
                ) =>
            {
                let value = NativeUdf::udf(Native::TextToInterval {
                    fields: t,
                    fail: !try_mode,
                })
                .call(vec![inner.clone()]);
                Ok(Some(retype_interval(value, to, t)))
            }
            (None, Some(t)) if from.is_integer() || matches!(from, DataType::Decimal128(..)) => {
                let one = if t.year_month {
                    ScalarValue::IntervalYearMonth(Some(t.end_unit() as i32))
                } else {
                    ScalarValue::DurationMicrosecond(Some(t.end_unit()))
                };
                let cast = (crate::types::sql_name(from), t.sql_name());
                let value = NativeUdf::udf(Native::NumberToInterval { cast })
                    .call(vec![Expr::Literal(one, None), inner.clone()]);
                Ok(Some(retype_interval(value, to, t)))
            }
            (None, Some(_)) if from != &DataType::Null => mismatch(),
            _ => Ok(None),
        }
    }

    /// A cast to an ANSI interval type as Spark casts: the value keeps the fields up to the
    /// type's last (`CAST(INTERVAL 30 HOURS AS INTERVAL DAY)` is one day) and is typed with
    /// the type's fields.
    pub(super) fn cast_interval_fields(
        &self,
        cast: Expr,
        to: &DataType,
        type_name: &str,
        schema: &DFSchema,
    ) -> PlanResult<Expr> {
        let Some(fields) = IntervalFields::default_of(to)
            .and_then(|_| IntervalFields::parse(type_name))
            .filter(|f| Some(f.year_month) == IntervalFields::default_of(to).map(|d| d.year_month))
        else {
            return Ok(cast);
        };
        let unit = match (fields.year_month, fields.end) {
            (false, end @ 0..=2) => [86_400_000_000i64, 3_600_000_000, 60_000_000][end as usize],
            (true, 0) => 12,
            _ => 1,
        };
        let value = if unit == 1 {
            cast
        } else {
            NativeUdf::udf(Native::IntervalTruncate { unit }).call(vec![cast])
        };
        let nullable = value.nullable(schema)?;
        Ok(Expr::Cast(Cast::new_from_field(
            Box::new(value),
            Arc::new(fields.cast_field(to.clone(), nullable)),
        )))
    }

    /// `INTERVAL '1' DAY`, `INTERVAL '1-2' YEAR TO MONTH`, `INTERVAL 3 HOURS`.
    pub(super) fn interval_literal(
        &mut self,
        args: &[SExpr],
        schema: &DFSchema,
    ) -> PlanResult<Named> {
        let [value, leading, last] = args else {
            return Err(PlanError::InvalidPlan("interval literal".into()));
        };
        let field = |e: &SExpr| match e {
            SExpr::Literal(ScalarValue::Utf8(Some(s))) => Some(s.trim_end_matches('S').to_string()),
            _ => None,
        };
        let (leading, last) = (field(leading), field(last));
        let (v, _) = self.resolve_expr(value, schema)?;
        let text = match &v {
            Expr::Literal(s, _) if !s.is_null() => s.to_string(),
            _ => {
                return Err(PlanError::Unsupported(
                    "interval with a non-literal value".into(),
                ));
            }
        };
        let text = text.trim().to_string();
        let bad = || {
            PlanError::from(SparkError::new(
                crate::error::ErrorKind::Parse,
                "INVALID_INTERVAL_FORMAT",
                "22006",
                format!("Error parsing interval '{text}'."),
                vec![],
            ))
        };
        let lead = leading.clone().unwrap_or_default();
        match lead.as_str() {
            "YEAR" | "MONTH" => {
                let months = match (lead.as_str(), last.as_deref()) {
                    ("YEAR", Some("MONTH")) => {
                        let neg = text.starts_with('-');
                        let t = text.trim_start_matches(['-', '+']);
                        let (y, m) = t.split_once('-').ok_or_else(bad)?;
                        let total = y.parse::<i32>().map_err(|_| bad())? * 12
                            + m.parse::<i32>().map_err(|_| bad())?;
                        if neg { -total } else { total }
                    }
                    ("YEAR", _) => text.parse::<i32>().map_err(|_| bad())? * 12,
                    _ => text.parse::<i32>().map_err(|_| bad())?,
                };
                let value = ScalarValue::IntervalYearMonth(Some(months));
                let fields = match (lead.as_str(), last.as_deref()) {
                    ("YEAR", Some("MONTH")) => IntervalFields::YEAR_TO_MONTH,
                    ("YEAR", _) => IntervalFields::year_month(0, 0),
                    _ => IntervalFields::year_month(1, 1),
                };
                let name = fields.year_month_string(months);
                Ok((Expr::Literal(value, fields.field_metadata()), name))
            }
            "DAY" | "HOUR" | "MINUTE" | "SECOND" => {
                let last = last.unwrap_or_else(|| lead.clone());
                let (micros, shown) = day_time_literal(&text, &lead, &last).ok_or_else(bad)?;
                let value = ScalarValue::DurationMicrosecond(Some(micros));
                let fields = IntervalFields::parse(&format!("{lead} TO {last}")).ok_or_else(bad)?;
                let name = format!("INTERVAL '{shown}' {}", &fields.sql_name()[9..]);
                Ok((Expr::Literal(value, fields.field_metadata()), name))
            }
            _ => Err(PlanError::Unsupported(format!(
                "interval literal '{text}' {lead} TO {}",
                last.unwrap_or_default()
            ))),
        }
    }
}

/// A day-time interval literal's text for its fields (`'1 2:03' DAY TO MINUTE`,
/// `'-02:03:04.5' HOUR TO SECOND`, `'1.5' SECOND`): its microseconds and the text Spark
/// shows (fields after the first two digits wide).
fn day_time_literal(text: &str, lead: &str, last: &str) -> Option<(i64, String)> {
    const UNITS: [(&str, i64); 4] = [
        ("DAY", 86_400_000_000),
        ("HOUR", 3_600_000_000),
        ("MINUTE", 60_000_000),
        ("SECOND", 1_000_000),
    ];
    let first = UNITS.iter().position(|(u, _)| *u == lead)?;
    let end = UNITS.iter().position(|(u, _)| *u == last)?;
    if end < first {
        return None;
    }
    let negative = text.starts_with('-');
    let body = text.trim_start_matches(['-', '+']);
    // Days are separated by a space, the other fields by colons.
    let parts: Vec<&str> = if lead == "DAY" && end > first {
        let (days, rest) = body.split_once(' ')?;
        std::iter::once(days).chain(rest.split(':')).collect()
    } else {
        body.split(':').collect()
    };
    if parts.len() != end - first + 1 {
        return None;
    }
    let mut micros: i64 = 0;
    let mut shown = Vec::with_capacity(parts.len());
    for (part, (unit, size)) in parts.iter().zip(&UNITS[first..=end]) {
        let (whole, fraction) = match part.split_once('.') {
            Some((w, f)) if *unit == "SECOND" => (w, Some(f)),
            Some(_) => return None,
            None => (*part, None),
        };
        let n: i64 = whole.parse().ok()?;
        micros = micros.checked_add(n.checked_mul(*size)?)?;
        let mut text = if *unit == "DAY" {
            n.to_string()
        } else {
            format!("{n:02}")
        };
        if let Some(f) = fraction {
            let digits: String = f.chars().take(6).collect();
            let scaled: i64 = format!("{digits:0<6}").parse().ok()?;
            micros = micros.checked_add(scaled)?;
            text = format!("{text}.{f}");
        }
        shown.push(text);
    }
    let joined = if lead == "DAY" && shown.len() > 1 {
        format!("{} {}", shown[0], shown[1..].join(":"))
    } else {
        shown.join(":")
    };
    let sign = if negative { "-" } else { "" };
    Some((
        if negative { -micros } else { micros },
        format!("{sign}{joined}"),
    ))
}

/// The interval type of a call's value where Spark's is its arguments' (wider) type and
/// DataFusion's carries no fields: `INTERVAL 1 DAY + INTERVAL 2 HOURS` is DAY TO HOUR,
/// `max` of an `INTERVAL DAY` column an `INTERVAL DAY`.
pub(super) fn call_interval(function: &str, args: &[Arc<Field>]) -> Option<IntervalFields> {
    let values = match function {
        "+" | "-" | "try_add" | "try_subtract" | "coalesce" | "nvl" | "ifnull" | "greatest"
        | "least" => args,
        "nvl2" | "if" | "iff" => args.get(1..)?,
        "nullif" | "sum" | "try_sum" | "min" | "max" | "first" | "last" | "any_value"
        | "first_value" | "last_value" | "mode" | "lag" | "lead" | "nth_value"
        | "percentile_approx" | "approx_percentile" | "histogram_numeric" => args.get(..1)?,
        _ => return None,
    };
    let mut out: Option<IntervalFields> = None;
    for f in values {
        if f.data_type() == &DataType::Null {
            continue;
        }
        let q = IntervalFields::of_field(f)?;
        out = Some(match out {
            Some(o) if o.year_month != q.year_month => return None,
            Some(o) => o.wider(&q),
            None => q,
        });
    }
    out
}

/// Spark's wider interval type of values of `fields` (one column of a union or of VALUES),
/// when their fields differ: `INTERVAL DAY` and `INTERVAL HOUR` make `DAY TO HOUR`.
pub(super) fn wider_interval<'a>(
    fields: impl IntoIterator<Item = &'a Field>,
) -> Option<IntervalFields> {
    let mut seen: Option<IntervalFields> = None;
    let mut differ = false;
    for f in fields {
        let q = IntervalFields::of_field(f)?;
        if let Some(s) = seen {
            if s.year_month != q.year_month {
                return None;
            }
            differ |= s != q;
            seen = Some(s.wider(&q));
        } else {
            seen = Some(q);
        }
    }
    seen.filter(|_| differ)
}

/// `e` (an interval of type `dt`) typed with `fields`, its values unchanged.
/// A list of intervals (`percentile_approx(x, array(...))`), or of structs whose `x` is one
/// (`histogram_numeric`'s bins), typed with the fields `q`; None for other types.
pub(super) fn list_with_interval(dt: &DataType, q: IntervalFields) -> Option<DataType> {
    let DataType::List(item) = dt else {
        return None;
    };
    let is_interval =
        |t: &DataType| IntervalFields::default_of(t).is_some_and(|d| d.year_month == q.year_month);
    let item = match item.data_type() {
        t if is_interval(t) => q.field(item.name(), t.clone(), item.is_nullable()),
        DataType::Struct(fields)
            if fields
                .iter()
                .any(|f| f.name() == "x" && is_interval(f.data_type())) =>
        {
            let fields: arrow::datatypes::Fields = fields
                .iter()
                .map(|f| match f.name() == "x" {
                    true => Arc::new(q.field("x", f.data_type().clone(), f.is_nullable())),
                    false => Arc::clone(f),
                })
                .collect();
            Field::new(item.name(), DataType::Struct(fields), item.is_nullable())
        }
        _ => return None,
    };
    Some(DataType::List(Arc::new(item)))
}

pub(super) fn retype_interval(e: Expr, dt: &DataType, fields: IntervalFields) -> Expr {
    Expr::Cast(Cast::new_from_field(
        Box::new(e),
        Arc::new(fields.cast_field(dt.clone(), true)),
    ))
}

/// `1 DAY 2 HOURS 3.5 SECONDS` / `1 YEAR 2 MONTHS` / `2 WEEKS`: the value (microseconds or
/// months) and its type's fields.
fn multi_unit_interval(text: &str) -> PlanResult<(ScalarValue, IntervalFields)> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let invalid = |detail: &str| {
        PlanError::from(SparkError::new(
            crate::error::ErrorKind::Parse,
            "INVALID_INTERVAL_FORMAT",
            "22006",
            format!("Error parsing interval '{text}': {detail}."),
            vec![],
        ))
    };
    let (mut micros, mut months) = (0i64, 0i32);
    let (mut day_time, mut year_month): (Option<IntervalFields>, Option<IntervalFields>) =
        (None, None);
    for pair in words.chunks(2) {
        let [value, unit] = pair else {
            return Err(invalid("a value without unit"));
        };
        let upper = unit.to_ascii_uppercase();
        let unit = upper.strip_suffix('S').unwrap_or(&upper);
        // (field, microseconds per unit) for day-time units, months for year-month ones.
        let (field, size, ym) = match unit {
            "YEAR" => (0, 12i64, true),
            "MONTH" => (1, 1, true),
            "WEEK" => (0, 7 * 86_400_000_000, false),
            "DAY" => (0, 86_400_000_000, false),
            "HOUR" => (1, 3_600_000_000, false),
            "MINUTE" => (2, 60_000_000, false),
            "SECOND" => (3, 1_000_000, false),
            "MILLISECOND" => (3, 1_000, false),
            "MICROSECOND" => (3, 1, false),
            _ => return Err(invalid(&format!("invalid unit '{unit}'"))),
        };
        let overflow = || invalid("interval overflow");
        if ym {
            let n: i32 = value
                .parse()
                .map_err(|_| invalid(&format!("invalid value '{value}'")))?;
            months = n
                .checked_mul(size as i32)
                .and_then(|v| months.checked_add(v))
                .ok_or_else(overflow)?;
        } else {
            // Seconds and smaller units take a fraction (to the microsecond).
            let n = millionths(value)
                .filter(|v| size <= 1_000_000 || v % 1_000_000 == 0)
                .ok_or_else(|| invalid(&format!("invalid value '{value}'")))?;
            let add = n
                .checked_mul(i128::from(size))
                .map(|v| v / 1_000_000)
                .and_then(|v| i64::try_from(v).ok())
                .ok_or_else(overflow)?;
            micros = micros.checked_add(add).ok_or_else(overflow)?;
        }
        let this = if ym {
            IntervalFields::year_month(field, field)
        } else {
            IntervalFields::day_time(field, field)
        };
        let slot = if ym { &mut year_month } else { &mut day_time };
        *slot = Some(slot.map_or(this, |f| f.wider(&this)));
    }
    match (day_time, year_month) {
        (Some(_), Some(_)) => Err(SparkError::new(
            crate::error::ErrorKind::Parse,
            "_LEGACY_ERROR_TEMP_0029",
            "",
            format!("Cannot mix year-month and day-time fields: INTERVAL {text}."),
            vec![],
        )
        .into()),
        (Some(f), None) => Ok((ScalarValue::DurationMicrosecond(Some(micros)), f)),
        (None, Some(f)) => Ok((ScalarValue::IntervalYearMonth(Some(months)), f)),
        (None, None) => Err(invalid("no unit")),
    }
}

/// `-1.5` as -1_500_000 (millionths; digits past the sixth dropped).
fn millionths(text: &str) -> Option<i128> {
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    let (whole, fraction) = digits.split_once('.').unwrap_or((digits, ""));
    let all_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if (whole.is_empty() && fraction.is_empty()) || !all_digits(whole) || !all_digits(fraction) {
        return None;
    }
    let whole: i128 = if whole.is_empty() {
        0
    } else {
        whole.parse().ok()?
    };
    let fraction: String = fraction
        .chars()
        .chain(std::iter::repeat('0'))
        .take(6)
        .collect();
    let v = whole.checked_mul(1_000_000)? + fraction.parse::<i128>().ok()?;
    Some(if negative { -v } else { v })
}
