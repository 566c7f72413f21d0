//! `make_date(y, m, d)`, `make_timestamp(y, mo, d, h, mi, s[, tz])`,
//! `make_timestamp(date, time[, tz])` and its `_ltz`, `_ntz` and `try_` forms: the local
//! date-time of the fields (`Native::MakeLocalDateTime`: fields out of range fail in ANSI mode
//! and are NULL outside it), as an instant of the time zone.

use arrow::datatypes::{DataType, TimeUnit};
use datafusion::logical_expr::{Expr, cast, lit};

use super::datetime::java_zone_literal;
use super::native::{Native, NativeUdf};
use super::{Naming, RegistryBuilder};

pub(super) fn register(b: &mut RegistryBuilder) {
    // make_date(y, m, d): the fields are INTs (the resolver's implicit casts).
    b.scalar(&["make_date"], |f| {
        f.arity(3, 3)?;
        Ok(NativeUdf::udf(Native::MakeDate {
            fail: f.config.ansi,
        })
        .call(f.args))
    });
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
            let local_time = if f.args.len() == 2 {
                super::check_type(&f, 0, &["DATE"], |t| matches!(t, DataType::Date32))?;
                super::check_type(&f, 1, &["TIME"], |t| matches!(t, DataType::Time64(_)))?;
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
                // (The fields are INTs and the seconds a DECIMAL(16,6): the resolver's implicit
                // casts.)
                NativeUdf::udf(Native::MakeLocalDateTime { fail }).call(f.args)
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
