//! `make_timestamp(y, mo, d, h, mi, s[, tz])`, `make_timestamp(date, time[, tz])` and their
//! `_ltz`, `_ntz` and `try_` forms: the fields written as a date-time text and read as Spark's
//! cast reads one (so that fields out of range fail in ANSI mode and are NULL outside it).

use arrow::datatypes::{DataType, TimeUnit};
use datafusion::logical_expr::{Expr, cast, lit};

use super::datetime::{java_zone_literal, text_to_instant};
use super::native::{Native, NativeUdf};
use super::{Naming, RegistryBuilder};

pub(super) fn register(b: &mut RegistryBuilder) {
    // make_timestamp(y, mo, d, h, mi, s[, tz]) and make_timestamp(date, time[, tz]): a local
    // date-time of `tz` (by default the session time zone) as an instant; the _ntz forms the
    // local date-time itself.
    for (names, local) in [
        (
            &[
                "make_timestamp",
                "try_make_timestamp",
                "make_timestamp_ltz",
                "try_make_timestamp_ltz",
            ][..],
            false,
        ),
        (&["make_timestamp_ntz", "try_make_timestamp_ntz"][..], true),
    ] {
        b.scalar_named(names, Naming::Custom(make_timestamp_name), move |mut f| {
            f.arity_of(if local { &[2, 6] } else { &[2, 3, 6, 7] })?;
            let fail = !f.name.starts_with("try_") && f.config.ansi;
            let session = f.config.time_zone.clone();
            let zone = match f.args.len() {
                3 | 7 => {
                    let mut tz = f.args.pop();
                    if let Some(tz) = tz.as_mut() {
                        java_zone_literal(tz)?;
                    }
                    tz
                }
                _ => None,
            };
            if f.args.len() == 2 {
                super::check_type(&f, 0, &["DATE"], |t| matches!(t, DataType::Date32))?;
                super::check_type(&f, 1, &["TIME"], |t| matches!(t, DataType::Time64(_)))?;
            } else if !local && zone.is_none() {
                // A local date-time of the session time zone, read as such.
                return Ok(text_to_instant(
                    date_time_text(&f.args, &f.types)?,
                    &session,
                    fail,
                ));
            }
            let local_time = if f.args.len() == 2 {
                // The date's midnight plus the time of day, in microseconds.
                let micros = |e: Expr, t: DataType| cast(cast(e, t), DataType::Int64);
                let midnight = micros(
                    f.args[0].clone(),
                    DataType::Timestamp(TimeUnit::Microsecond, None),
                );
                let time_of_day = micros(f.args[1].clone(), DataType::Int64);
                cast(
                    midnight + time_of_day,
                    DataType::Timestamp(TimeUnit::Microsecond, None),
                )
            } else {
                // A local date-time is the UTC date-time of the instant read in UTC.
                let utc = text_to_instant(date_time_text(&f.args, &f.types)?, "UTC", fail);
                NativeUdf::udf(Native::ShiftZone {
                    time_zone: "UTC".to_string(),
                    to_local: true,
                })
                .call(vec![utc])
            };
            if local {
                return Ok(local_time);
            }
            // The local date-time of `tz` as the session time zone's, then as an instant.
            let local_time = match zone {
                Some(tz) => NativeUdf::udf(Native::ConvertTimezone).call(vec![
                    tz,
                    lit(session.clone()),
                    local_time,
                ]),
                None => local_time,
            };
            Ok(NativeUdf::udf(Native::ShiftZone {
                time_zone: session,
                to_local: false,
            })
            .call(vec![local_time]))
        });
    }
}

/// `y-mm-dd hh:mm:ss.ffffff` of make_timestamp's fields (the seconds with a fraction).
fn date_time_text(a: &[Expr], types: &[DataType]) -> crate::error::PlanResult<Expr> {
    let text = |e: Expr| cast(e, DataType::Utf8);
    // (Padded, never cut: a day of 2147483647 stays out of range, not "21".)
    let pad = |e: Expr, n: i64| -> crate::error::PlanResult<Expr> {
        let width = super::df_udf("greatest")?.call(vec![
            lit(n),
            cast(
                super::df_udf("character_length")?.call(vec![text(e.clone())]),
                DataType::Int64,
            ),
        ]);
        Ok(super::df_udf("lpad")?.call(vec![text(e), width, lit("0")]))
    };
    // (Spark's fields are INTs: fractions are cast to one, `12.345` to 12; text stays text,
    // read with the rest.)
    let fields: Vec<Expr> = a
        .iter()
        .zip(types)
        .map(|(e, t)| match t {
            DataType::Float32 | DataType::Float64 | DataType::Decimal128(..) => {
                cast(e.clone(), DataType::Int32)
            }
            _ => e.clone(),
        })
        .collect();
    let [year, month, day, hour, minute, _] = fields.as_slice() else {
        return Err(crate::error::PlanError::InvalidPlan(
            "make_timestamp without its six fields".into(),
        ));
    };
    let seconds = cast(a[5].clone(), DataType::Decimal128(8, 6));
    // (NULL where a field is: `concat` leaves NULLs out, and '-02-29 ...' is no date-time.)
    let any_null = super::any_null(&a[..6]);
    let text_of = super::df_udf("concat")?.call(vec![
        text(year.clone()),
        lit("-"),
        pad(month.clone(), 2)?,
        lit("-"),
        pad(day.clone(), 2)?,
        lit(" "),
        pad(hour.clone(), 2)?,
        lit(":"),
        pad(minute.clone(), 2)?,
        lit(":"),
        pad(seconds, 9)?,
    ]);
    Ok(super::null_when(any_null, text_of))
}

/// Spark's names of the make_timestamp family: as written, except that try_make_timestamp
/// leaves out a time zone after its six fields and try_make_timestamp_ntz(date, time) shows
/// the make_timestamp_ntz it stands for.
fn make_timestamp_name(w: &str, a: &[String], _: bool) -> String {
    let w = w.to_lowercase();
    match (w.as_str(), a.len()) {
        ("try_make_timestamp", 7) => format!("{w}({})", a[..6].join(", ")),
        ("try_make_timestamp_ntz", 2) => format!("{w}(make_timestamp_ntz({}))", a.join(", ")),
        _ => format!("{w}({})", a.join(", ")),
    }
}
