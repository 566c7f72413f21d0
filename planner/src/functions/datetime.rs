//! Date and time functions, evaluated in the session time zone.

use arrow::datatypes::DataType;
use datafusion::logical_expr::{Expr, cast};

use super::operators::one;
use super::{RegistryBuilder, add_spark};

pub fn register(b: &mut RegistryBuilder) {
    b.scalar(&["current_date", "curdate"], |f| {
        f.arity(0, 0)?;
        super::df_udf("current_date").map(|u| u.call(vec![]))
    });
    b.scalar(&["current_timestamp", "now"], |f| {
        f.arity(0, 0)?;
        let tz = f.config.time_zone.clone();
        super::df_udf("now").map(|u| cast(u.call(vec![]), crate::types::timestamp_type(&tz)))
    });
    b.scalar_named(
        &["extract", "date_part", "datepart"],
        super::Naming::Custom(|w, a, _| match (w.to_ascii_lowercase().as_str(), a) {
            ("extract", [field, e]) => format!("extract({field} FROM {e})"),
            (name, args) => format!("{name}({})", args.join(", ")),
        }),
        |f| {
            f.arity(2, 2)?;
            let mut args = f.args.into_iter();
            let (Some(field), Some(x)) = (args.next(), args.next()) else {
                return Err(crate::error::PlanError::InvalidPlan("extract".into()));
            };
            let field = match &field {
                Expr::Literal(v, _) => v.to_string().to_ascii_lowercase(),
                _ => {
                    return Err(crate::error::PlanError::Unsupported(
                        "extract of a non-literal field".into(),
                    ));
                }
            };
            let part = match field.trim_end_matches('s') {
                "year" | "y" | "yr" => "year",
                "month" | "mon" => "month",
                "day" | "d" => "day",
                "hour" | "h" | "hr" => "hour",
                "minute" | "min" | "m" => "minute",
                "second" | "sec" => "second",
                "quarter" | "qtr" => "quarter",
                "week" | "w" => "week",
                "dayofweek" | "dow" => "dow",
                "doy" | "dayofyear" => "doy",
                other => {
                    return Err(crate::error::PlanError::Unsupported(format!(
                        "extract of {other}"
                    )));
                }
            };
            let udf = super::df_udf("date_part")?;
            let value = udf.call(vec![datafusion::logical_expr::lit(part), x]);
            Ok(if part == "second" {
                value
            } else {
                cast(value, DataType::Int32)
            })
        },
    );
    date_part(b, &["year"], "year");
    date_part(b, &["month"], "month");
    date_part(b, &["day", "dayofmonth"], "day");
    date_part(b, &["quarter"], "quarter");
    date_part(b, &["dayofyear"], "doy");
    date_part(b, &["weekofyear"], "week");
    add_spark(b, &["hour"], "hour", 1, 1);
    add_spark(b, &["minute"], "minute", 1, 1);
    add_spark(b, &["second"], "second", 1, 1);
    add_spark(b, &["date_add", "dateadd"], "date_add", 2, 2);
    add_spark(b, &["date_sub"], "date_sub", 2, 2);
    add_spark(b, &["datediff", "date_diff"], "date_diff", 2, 2);
    add_spark(b, &["add_months"], "add_months", 2, 2);
    add_spark(b, &["last_day"], "last_day", 1, 1);
    add_spark(b, &["next_day"], "next_day", 2, 2);
    add_spark(b, &["trunc"], "trunc", 2, 2);
    add_spark(b, &["date_trunc"], "date_trunc", 2, 2);
    b.scalar(&["to_date"], |f| {
        if f.args.len() != 1 {
            return Err(crate::error::PlanError::Unsupported(
                "to_date with a format".into(),
            ));
        }
        Ok(cast(one(f)?, DataType::Date32))
    });
}

fn date_part(b: &mut RegistryBuilder, names: &[&str], part: &'static str) {
    b.scalar(names, move |f| {
        let x = one(f)?;
        let udf = super::df_udf("date_part")?;
        Ok(cast(
            udf.call(vec![datafusion::logical_expr::lit(part), x]),
            DataType::Int32,
        ))
    });
    let _: fn(Expr) -> Expr = |e| e;
}
