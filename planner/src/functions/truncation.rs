//! Truncating dates and timestamps to a unit: `trunc(date, fmt)` and `date_trunc(unit, ts)`.
//! Both take Spark's unit names in any case (NULL for a name Spark does not know), as a
//! literal or a column (then chosen row by row).

use arrow::datatypes::DataType;
use datafusion::common::ScalarValue;
use datafusion::logical_expr::{Expr, cast, lit};

use super::RegistryBuilder;
use super::datetime::to_date;
use super::native::{Native, NativeUdf};
use crate::error::PlanResult;

/// Spark's units, by the unit each names; `trunc` takes the first four (a date's).
const UNITS: [(&str, &[&str]); 10] = [
    ("YEAR", &["YEAR", "YYYY", "YY"]),
    ("QUARTER", &["QUARTER"]),
    ("MONTH", &["MONTH", "MM", "MON"]),
    ("WEEK", &["WEEK"]),
    ("DAY", &["DAY", "DD"]),
    ("HOUR", &["HOUR"]),
    ("MINUTE", &["MINUTE"]),
    ("SECOND", &["SECOND"]),
    ("MILLISECOND", &["MILLISECOND"]),
    ("MICROSECOND", &["MICROSECOND"]),
];

/// The units of a date.
const DATE_UNITS: &[(&str, &[&str])] = UNITS.split_at(4).0;

pub(super) fn register(b: &mut RegistryBuilder) {
    // trunc(date, fmt).
    b.scalar(&["trunc"], |f| {
        f.arity(2, 2)?;
        // A date (text and timestamps cast to one), and a format of an atomic type.
        super::require_type(&f, 0, &["DATE"], super::date_like)?;
        super::require_type(&f, 1, &["STRING"], super::atomic)?;
        let date = match f.types.first() {
            Some(DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View) => {
                to_date(f.args[0].clone(), f.types.first(), f.config.ansi)
            }
            _ => cast(f.args[0].clone(), DataType::Date32),
        };
        trunc_date(date, f.args[1].clone())
    });
    // date_trunc(unit, ts): NULL for a NULL unit (datafusion-spark's refuses it).
    b.scalar(&["date_trunc"], |f| {
        f.arity(2, 2)?;
        if f.args.first().is_some_and(super::is_null_constant) {
            let t = match f.types.get(1) {
                Some(t @ DataType::Timestamp(..)) => t.clone(),
                _ => crate::types::timestamp_type(&f.config.time_zone),
            };
            return Ok(Expr::Literal(ScalarValue::try_from(&t)?, None));
        }
        // (A unit is text: other atomic values are read as theirs, and name no unit.)
        super::require_type(&f, 0, &["STRING"], super::atomic)?;
        super::require_type(&f, 1, &["TIMESTAMP"], super::date_like)?;
        let time_zone = f.config.time_zone.clone();
        let ts = match f.types.get(1) {
            // A local date-time is read as the instant it is in the session zone.
            Some(DataType::Timestamp(_, None)) => NativeUdf::udf(Native::ShiftZone {
                time_zone: time_zone.clone(),
                to_local: false,
            })
            .call(vec![f.args[1].clone()]),
            _ => f.args[1].clone(),
        };
        let trunc = |unit: &str| {
            NativeUdf::udf(Native::DateTrunc {
                unit: unit.to_string(),
                time_zone: time_zone.clone(),
            })
            .call(vec![ts.clone()])
        };
        if let Expr::Literal(v, _) = &f.args[0] {
            // (An unknown literal unit: NULL, of the type a known one gives.)
            return Ok(match unit_of(&UNITS, v) {
                Some(unit) => trunc(unit),
                None => super::null_when(lit(true), trunc("YEAR")),
            });
        }
        per_row_unit(f.args[0].clone(), &UNITS, trunc)
    });
}

/// The unit of `units` that a literal names (any case), if any.
fn unit_of(units: &[(&'static str, &[&str])], name: &ScalarValue) -> Option<&'static str> {
    let name = name.to_string().to_ascii_uppercase();
    units
        .iter()
        .find(|(_, names)| names.contains(&name.as_str()))
        .map(|(unit, _)| *unit)
}

/// `value(unit)` for the unit a column names in each row; NULL where it names none.
fn per_row_unit(
    unit: Expr,
    units: &[(&str, &[&str])],
    value: impl Fn(&str) -> Expr,
) -> PlanResult<Expr> {
    let unit = super::df_udf("upper")?.call(vec![cast(unit, DataType::Utf8)]);
    let mut case = datafusion::logical_expr::case(unit);
    for (to, names) in units {
        for name in *names {
            case.when(lit(*name), value(to));
        }
    }
    Ok(case.end()?)
}

/// `trunc(date, format)` on the date's day number (datafusion-spark's goes through a
/// nanosecond timestamp, which dates before 1677 overflow, and takes only a literal format):
/// the first day of its year, quarter, month or (Monday) week; NULL for another format. A
/// literal format plans its own unit only.
fn trunc_date(date: Expr, format: Expr) -> PlanResult<Expr> {
    let date_part = super::df_udf("date_part")?;
    let part = |p: &str| cast(date_part.call(vec![lit(p), date.clone()]), DataType::Int32);
    let days = cast(date.clone(), DataType::Int32);
    let back = |n: Expr| cast(days.clone() - n, DataType::Date32);
    let make_date = super::df_udf("make_date")?;
    let first_day = |unit: &str| match unit {
        "YEAR" => back(part("doy") - lit(1)),
        "MONTH" => back(part("day") - lit(1)),
        "QUARTER" => make_date.call(vec![
            part("year"),
            (part("month") - lit(1)) / lit(3) * lit(3) + lit(1),
            lit(1),
        ]),
        // Monday: date_part's dow counts from Sunday (0).
        _ => back((part("dow") + lit(6)) % lit(7)),
    };
    let null = Expr::Literal(ScalarValue::Date32(None), None);
    match format {
        Expr::Literal(v, _) if v.is_null() => Ok(null),
        Expr::Literal(v, _) => Ok(unit_of(DATE_UNITS, &v).map_or(null, first_day)),
        format => per_row_unit(format, DATE_UNITS, first_day),
    }
}
