//! Spark's TIME functions (`make_time`, `to_time`, `time_diff`, ...) and `time_bucket`.

use arrow::datatypes::{DataType, TimeUnit};
use datafusion::common::ScalarValue;
use datafusion::logical_expr::{Expr, cast, lit};

use super::native::{Native, NativeUdf, TimeField, TimeOp};
use super::{Naming, RegistryBuilder};
use crate::error::{PlanError, PlanResult};

fn call(op: TimeOp, args: Vec<Expr>) -> Expr {
    NativeUdf::udf(Native::Time { op }).call(args)
}

fn time_type() -> DataType {
    DataType::Time64(TimeUnit::Microsecond)
}

/// `CAST(text AS TIME)` (`fail`: CAST_INVALID_INPUT for malformed text, else NULL).
pub fn text_to_time(text: Expr, fail: bool) -> Expr {
    call(
        TimeOp::Parse {
            pattern: None,
            fail,
            cast: true,
        },
        vec![text],
    )
}

fn unit_of(e: &Expr, function: &str) -> PlanResult<TimeField> {
    match e {
        Expr::Literal(ScalarValue::Utf8(Some(u)), _) => TimeField::parse(u, function),
        _ => Err(PlanError::Unsupported(format!(
            "{function} with a unit that is not a literal string"
        ))),
    }
}

/// `time_bucket(width, ts)`: Spark names it with the default origin.
fn bucket_name(written: &str, args: &[String], _distinct: bool) -> String {
    let mut args = args.to_vec();
    if args.len() == 2 {
        args.push("TIMESTAMP '1970-01-01 00:00:00'".into());
    }
    format!("{}({})", written.to_lowercase(), args.join(", "))
}

pub fn register(b: &mut RegistryBuilder) {
    b.scalar(&["make_time"], |f| {
        f.arity(3, 3)?;
        Ok(call(TimeOp::Make, f.args))
    });
    for (name, fail) in [("to_time", true), ("try_to_time", false)] {
        b.scalar(&[name], move |f| {
            f.arity(1, 2)?;
            let pattern = match f.args.get(1) {
                None => None,
                Some(Expr::Literal(ScalarValue::Utf8(Some(p)), _)) => {
                    // (chrono parses without padding flags.)
                    Some(ember_execution::values::pattern::to_chrono(p)?.replace("%-", "%"))
                }
                Some(_) => {
                    return Err(PlanError::Unsupported(format!(
                        "{name} with a format that is not a literal string"
                    )));
                }
            };
            let op = TimeOp::Parse {
                pattern,
                fail,
                cast: false,
            };
            Ok(call(op, vec![f.args[0].clone()]))
        });
    }
    b.scalar(&["time_diff"], |f| {
        f.arity(3, 3)?;
        let unit = unit_of(&f.args[0], "time_diff")?;
        Ok(call(TimeOp::Diff { unit }, f.args[1..].to_vec()))
    });
    b.scalar(&["time_trunc"], |f| {
        f.arity(2, 2)?;
        let unit = unit_of(&f.args[0], "time_trunc")?;
        Ok(call(TimeOp::Trunc { unit }, vec![f.args[1].clone()]))
    });
    for (suffix, unit) in [
        ("seconds", TimeField::Second),
        ("millis", TimeField::Millisecond),
        ("micros", TimeField::Microsecond),
    ] {
        b.scalar(&[&format!("time_to_{suffix}")], move |f| {
            f.arity(1, 1)?;
            Ok(call(TimeOp::To { unit }, f.args))
        });
        b.scalar(&[&format!("time_from_{suffix}")], move |f| {
            f.arity(1, 1)?;
            Ok(call(TimeOp::From { unit }, f.args))
        });
    }
    // current_time([precision]): the session zone's time of day now.
    b.scalar(&["current_time"], |f| {
        f.arity(0, 1)?;
        let unit = match f.args.first() {
            None => TimeField::Microsecond,
            Some(Expr::Literal(v, _)) => match v.to_string().as_str() {
                "0" => TimeField::Second,
                "3" => TimeField::Millisecond,
                "6" => TimeField::Microsecond,
                p => {
                    return Err(PlanError::Unsupported(format!(
                        "current_time with the precision {p}"
                    )));
                }
            },
            Some(_) => {
                return Err(PlanError::Unsupported(
                    "current_time with a computed precision".into(),
                ));
            }
        };
        let now = cast(
            super::df_udf("now")?.call(vec![]),
            crate::types::timestamp_type(&f.config.time_zone),
        );
        let local = NativeUdf::udf(Native::ShiftZone {
            time_zone: f.config.time_zone.clone(),
            to_local: true,
        })
        .call(vec![now]);
        Ok(call(TimeOp::Trunc { unit }, vec![cast(local, time_type())]))
    });
    // time_bucket(width, ts[, origin]): the start of the bucket holding ts, buckets counted
    // from the origin (1970-01-01 00:00:00 local time) in the session time zone.
    b.scalar_named(&["time_bucket"], Naming::Custom(bucket_name), |f| {
        f.arity(2, 3)?;
        if let Some(t) = f.types.get(1).filter(|t| !matches!(t, DataType::Timestamp(..))) {
            return Err(crate::error::SparkError::analysis(
                "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
                "42K09",
                format!(
                    "Cannot resolve \"time_bucket\" due to data type mismatch: The second parameter requires the \"(TIMESTAMP OR TIMESTAMP WITHOUT TIME ZONE)\" type, however the input has the type \"{}\".",
                    crate::types::sql_name(t)
                ),
            )
            .into());
        }
        let zoned = matches!(f.types.get(1), Some(DataType::Timestamp(_, Some(_))));
        let to_local = |e: Expr| {
            NativeUdf::udf(Native::ShiftZone {
                time_zone: f.config.time_zone.clone(),
                to_local: true,
            })
            .call(vec![e])
        };
        let local = |e: Expr, t: Option<&DataType>| match t {
            Some(DataType::Timestamp(_, Some(_))) => to_local(e),
            _ => cast(e, DataType::Timestamp(TimeUnit::Microsecond, None)),
        };
        let ts = local(f.args[1].clone(), f.types.get(1));
        let origin = match f.args.get(2) {
            Some(o) => local(o.clone(), f.types.get(2)),
            None => lit(ScalarValue::TimestampMicrosecond(Some(0), None)),
        };
        let width = cast(
            f.args[0].clone(),
            DataType::Interval(arrow::datatypes::IntervalUnit::MonthDayNano),
        );
        let start = cast(
            super::df_udf("date_bin")?.call(vec![width, ts, origin]),
            DataType::Timestamp(TimeUnit::Microsecond, None),
        );
        Ok(if zoned {
            NativeUdf::udf(Native::ShiftZone {
                time_zone: f.config.time_zone.clone(),
                to_local: false,
            })
            .call(vec![start])
        } else {
            start
        })
    });
}
