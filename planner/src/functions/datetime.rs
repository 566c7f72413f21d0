//! Date and time functions, evaluated in the session time zone.

use arrow::datatypes::{DataType, TimeUnit};
use datafusion::common::ScalarValue;
use datafusion::logical_expr::{Expr, cast, lit};

use super::FunctionInput;
use super::datetime_parse::parse_datetime;
use super::native::{Native, NativeUdf, ParseTarget};
use super::pattern::chrono_pattern;

use super::operators::one;
use super::{Naming, RegistryBuilder, add_spark};
use crate::error::{PlanResult, SparkError};

/// The pattern of `from_unixtime`/`unix_timestamp` when none is given.
const DEFAULT_PATTERN: &str = "yyyy-MM-dd HH:mm:ss";

pub fn register(b: &mut RegistryBuilder) {
    b.scalar_named(
        &["current_date", "curdate"],
        Naming::Fixed("current_date"),
        |f| {
            f.arity(0, 0)?;
            super::df_udf("current_date").map(|u| u.call(vec![]))
        },
    );
    b.scalar(&["current_timestamp", "now"], |f| {
        f.arity(0, 0)?;
        let tz = f.config.time_zone.clone();
        super::df_udf("now").map(|u| cast(u.call(vec![]), crate::types::timestamp_type(&tz)))
    });
    b.scalar_named(
        &["extract", "date_part", "datepart"],
        super::Naming::Custom(|w, a, _| match (w.to_ascii_lowercase().as_str(), a) {
            (name @ ("extract" | "datepart"), [field, e]) => format!("{name}({field} FROM {e})"),
            (name, args) => format!("{name}({})", args.join(", ")),
        }),
        |f| {
            f.arity(2, 2)?;
            let source = f.arg_name(1);
            let mut args = f.args.into_iter();
            let (Some(field), Some(x)) = (args.next(), args.next()) else {
                return Err(crate::error::PlanError::InvalidPlan("extract".into()));
            };
            // (A NULL field: a NULL DOUBLE, as Spark's.)
            if super::is_null_constant(&field) {
                return Ok(lit(ScalarValue::Float64(None)));
            }
            // (The field: a literal string, as Spark's.)
            let field = match &field {
                Expr::Literal(
                    ScalarValue::Utf8(Some(v))
                    | ScalarValue::LargeUtf8(Some(v))
                    | ScalarValue::Utf8View(Some(v)),
                    _,
                ) => v.to_ascii_lowercase(),
                _ => {
                    return Err(crate::error::SparkError::new(
                        crate::error::ErrorKind::Analysis,
                        "NON_FOLDABLE_ARGUMENT",
                        "42K08",
                        format!(
                            "The function `{}` requires the parameter `field` to be a foldable expression of the type \"STRING\", but the actual argument is a non-foldable.",
                            f.name.to_ascii_lowercase()
                        ),
                        vec![],
                    )
                    .into());
                }
            };
            // Spark's names of each field (DatePart.parseExtractField).
            let part = match field.as_str() {
                "year" | "y" | "years" | "yr" | "yrs" => "year",
                "month" | "mon" | "mons" | "months" => "month",
                "day" | "d" | "days" => "day",
                "hour" | "h" | "hours" | "hr" | "hrs" => "hour",
                "minute" | "m" | "min" | "mins" | "minutes" => "minute",
                "second" | "s" | "sec" | "seconds" | "secs" => "second",
                "quarter" | "qtr" => "quarter",
                "week" | "w" | "weeks" => "week",
                "dayofweek" | "dow" => "dow",
                "doy" | "dayofyear" => "doy",
                other => {
                    return Err(crate::error::SparkError::analysis(
                        "INVALID_EXTRACT_FIELD",
                        "42601",
                        format!("Cannot extract `{other}` from \"{source}\"."),
                    )
                    .into());
                }
            };
            let udf = super::df_udf("date_part")?;
            if part == "second" {
                // Seconds with their fraction, a DECIMAL(8, 6) as in Spark (DataFusion's
                // `second` drops the fraction; `microsecond` counts the minute's).
                let micros = udf.call(vec![datafusion::logical_expr::lit("microsecond"), x]);
                let seconds =
                    cast(micros, DataType::Float64) / datafusion::logical_expr::lit(1_000_000f64);
                return Ok(cast(seconds, DataType::Decimal128(8, 6)));
            }
            let value = udf.call(vec![datafusion::logical_expr::lit(part), x]);
            Ok(match part {
                // Spark's DAYOFWEEK counts from 1 (Sunday).
                "dow" => cast(value, DataType::Int32) + datafusion::logical_expr::lit(1),
                _ => cast(value, DataType::Int32),
            })
        },
    );
    date_part(b, &["year"], "year");
    date_part(b, &["month"], "month");
    date_part(b, &["day", "dayofmonth"], "day");
    date_part(b, &["quarter"], "quarter");
    date_part(b, &["dayofyear"], "doy");
    date_part(b, &["weekofyear"], "week");
    on_timestamp(b, &["hour"], "hour");
    on_timestamp(b, &["minute"], "minute");
    on_timestamp(b, &["second"], "second");
    // (Spark names dateadd(d, n) `date_add(d, n)`.)
    on_date(b, &["date_add", "dateadd"], "date_add", 2);
    on_date(b, &["date_sub"], "date_sub", 2);
    on_date(b, &["datediff", "date_diff"], "date_diff", 2);
    on_date(b, &["add_months"], "add_months", 2);
    on_date(b, &["last_day"], "last_day", 1);
    // next_day(date, day): a date, or a timestamp or text read as one; the day's name, or an
    // atomic value read as its text.
    b.scalar(&["next_day"], |f| {
        f.arity(2, 2)?;
        super::require_type(&f, 0, &["DATE"], super::date_like)?;
        super::require_type(&f, 1, &["STRING"], super::atomic)?;
        let date = to_date(f.args[0].clone(), f.types.first(), f.config.ansi);
        let day = cast(f.args[1].clone(), DataType::Utf8);
        Ok(NativeUdf::udf(Native::NextDay {
            ansi: f.config.ansi,
        })
        .call(vec![date, day]))
    });
    on_date(b, &["weekday"], "weekday", 1);
    on_date(b, &["monthname"], "monthname", 1);
    on_date(b, &["unix_date"], "unix_date", 1);
    // dayofweek: 1 = Sunday .. 7 = Saturday.
    b.scalar(&["dayofweek"], |f| {
        let (t, ansi) = (f.types.first().cloned(), f.config.ansi);
        let x = to_date(one(f)?, t.as_ref(), ansi);
        let udf = super::df_udf("date_part")?;
        Ok(cast(
            udf.call(vec![datafusion::logical_expr::lit("dow"), x]),
            DataType::Int32,
        ) + datafusion::logical_expr::lit(1))
    });
    b.scalar(&["dayname"], |f| {
        let (t, ansi) = (f.types.first().cloned(), f.config.ansi);
        let x = to_date(one(f)?, t.as_ref(), ansi);
        Ok(super::df_udf("to_char")?.call(vec![x, datafusion::logical_expr::lit("%a")]))
    });
    b.scalar(&["date_from_unix_date"], |f| {
        Ok(cast(cast(one(f)?, DataType::Int32), DataType::Date32))
    });
    // Listed for the catalog; the resolver answers these from the session.
    b.scalar(
        &[
            "current_database",
            "current_schema",
            "current_catalog",
            "current_path",
        ],
        |f| {
            Err(crate::error::PlanError::Unsupported(format!(
                "{} with arguments",
                f.name
            )))
        },
    );
    b.scalar(&["current_timezone"], |f| {
        f.arity(0, 0)?;
        Ok(datafusion::logical_expr::lit(f.config.time_zone.clone()))
    });
    // timestamp_seconds/millis/micros(n): instants n units after the epoch.
    for (name, per_second) in [
        ("timestamp_seconds", 1_000_000i64),
        ("timestamp_millis", 1_000),
        ("timestamp_micros", 1),
    ] {
        b.scalar(&[name], move |f| {
            let tz = f.config.time_zone.clone();
            let integral = f.types.first().is_some_and(|t| t.is_integer());
            let x = one(f)?;
            // (A DECIMAL exactly, a NaN or infinite DOUBLE is NULL: Spark's SecondsToTimestamp.)
            let micros = if per_second == 1 && integral {
                cast(x, DataType::Int64)
            } else {
                NativeUdf::udf(Native::EpochMicros { per_second }).call(vec![x])
            };
            Ok(cast(
                cast(
                    micros,
                    DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())),
                ),
                crate::types::timestamp_type(&tz),
            ))
        });
    }
    // unix_seconds/millis/micros(ts): whole units since the epoch, rounded down.
    for (name, per_unit) in [
        ("unix_seconds", 1_000_000i64),
        ("unix_millis", 1_000),
        ("unix_micros", 1),
    ] {
        b.scalar(&[name], move |f| {
            let x = one(f)?;
            let micros = cast(
                cast(x, crate::types::timestamp_type("UTC")),
                DataType::Int64,
            );
            if per_unit == 1 {
                return Ok(micros);
            }
            // Math.floorDiv in integers (a double loses digits past 2^53).
            let unit = || datafusion::logical_expr::lit(per_unit);
            let below = (micros.clone() % unit() + unit()) % unit();
            Ok((micros - below) / unit())
        });
    }
    add_spark(b, &["make_interval"], "make_interval", 0, 7);
    // (datafusion-spark's make_interval is NULL on overflow: try_make_interval's answer.)
    add_spark(b, &["try_make_interval"], "make_interval", 0, 7);
    // make_dt_interval([days[, hours[, mins[, secs]]]]), summed in longs as Spark sums it.
    b.scalar_named(
        &["make_dt_interval"],
        Naming::Defaults {
            from: 0,
            values: &["0", "0", "0", "0.000000"],
        },
        |mut f| {
            f.arity(0, 4)?;
            while f.args.len() < 3 {
                f.args.push(datafusion::logical_expr::lit(0i32));
            }
            if f.args.len() < 4 {
                f.args
                    .push(datafusion::logical_expr::lit(ScalarValue::Decimal128(
                        Some(0),
                        18,
                        6,
                    )));
            }
            Ok(NativeUdf::udf(Native::MakeDtInterval).call(f.args))
        },
    );
    // A literal zone as Java reads it (`PST`, `GMT+1`); INVALID_TIMEZONE for one it refuses.
    for name in ["from_utc_timestamp", "to_utc_timestamp"] {
        b.scalar(&[name], move |mut f| {
            f.arity(2, 2)?;
            java_zone_literal(&mut f.args[1])?;
            if !matches!(f.args[1], Expr::Literal(..)) {
                // A column of zone names: each read as Java reads it (`JST`, `GMT+1`).
                let zones = f.args[1].clone();
                f.args[1] = super::native::NativeUdf::udf(super::native::Native::JavaZoneId)
                    .call(vec![zones]);
            }
            Ok(super::sp_udf(name)?.call(f.args))
        });
    }
    super::make_timestamp::register(b);
    // localtimestamp(): the current time as a local date-time of the session time zone.
    b.scalar(&["localtimestamp"], |f| {
        f.arity(0, 0)?;
        let now = cast(
            super::df_udf("now")?.call(vec![]),
            crate::types::timestamp_type(&f.config.time_zone),
        );
        Ok(NativeUdf::udf(Native::ShiftZone {
            time_zone: f.config.time_zone.clone(),
            to_local: true,
        })
        .call(vec![now]))
    });
    // timestampadd(unit, n, ts) / timestampdiff(unit, start, end), the unit a literal.
    for (name, add) in [("timestampadd", true), ("timestampdiff", false)] {
        b.scalar(&[name], move |f| {
            f.arity(3, 3)?;
            let unit = literal_text(&f.args[0], name)?.to_ascii_uppercase();
            let known = super::native::unit_micros(&unit).is_some()
                || matches!(
                    unit.as_str(),
                    "DAY" | "DAYOFYEAR" | "WEEK" | "MONTH" | "QUARTER" | "YEAR"
                );
            if !known {
                return Err(crate::error::SparkError::analysis(
                    "INVALID_PARAMETER_VALUE.DATETIME_UNIT",
                    "22023",
                    format!(
                        "The value of parameter(s) `unit` in `{name}` is invalid: expects one of the units without quotes YEAR, QUARTER, MONTH, WEEK, DAY, DAYOFYEAR, HOUR, MINUTE, SECOND, MILLISECOND, MICROSECOND, but got the string literal '{unit}'."
                    ),
                )
                .into());
            }
            let tz = f.config.time_zone.clone();
            let mut args = f.args;
            for i in [1, 2] {
                if !add || i == 2 {
                    let (x, _) = as_instant(args[i].clone(), &f.types[i], &tz, f.config.ansi);
                    args[i] = match &f.types[i] {
                        // A date's midnight in the session time zone.
                        DataType::Date32 => cast(
                            cast(args[i].clone(), DataType::Timestamp(TimeUnit::Microsecond, None)),
                            crate::types::timestamp_type(&tz),
                        ),
                        _ => x,
                    };
                }
            }
            let kind = if add {
                Native::TimestampAdd { unit, time_zone: tz }
            } else {
                Native::TimestampDiff { unit, time_zone: tz }
            };
            Ok(NativeUdf::udf(kind).call(args))
        });
    }
    // convert_timezone([from, ]to, ts): from defaults to the session time zone.
    b.scalar_named(
        &["convert_timezone"],
        Naming::Custom(|_, a, _| match a {
            [to, ts] => format!("convert_timezone(current_timezone(), {to}, {ts})"),
            args => format!("convert_timezone({})", args.join(", ")),
        }),
        |f| {
            f.arity(2, 3)?;
            let mut args = f.args;
            if args.len() == 2 {
                args.insert(0, lit(f.config.time_zone.clone()));
            }
            for zone in args.iter_mut().take(2) {
                java_zone_literal(zone)?;
            }
            Ok(NativeUdf::udf(Native::ConvertTimezone).call(args))
        },
    );
    b.scalar(&["to_date"], |f| parse_datetime(f, ParseTarget::Date, true));
    b.scalar(&["try_to_date"], |f| {
        parse_datetime(f, ParseTarget::Date, false)
    });
    b.scalar(&["to_timestamp", "to_timestamp_ltz"], |f| {
        parse_datetime(f, ParseTarget::Timestamp, true)
    });
    b.scalar(&["try_to_timestamp"], |f| {
        parse_datetime(f, ParseTarget::Timestamp, false)
    });
    // Local date-times: read as instants in UTC, whose UTC date-times they are (a number as
    // its text: Spark has no number of seconds as a local date-time).
    b.scalar(&["to_timestamp_ntz"], |mut f| {
        let utc = crate::resolver::PlannerConfig {
            time_zone: "UTC".to_string(),
            ..f.config.clone()
        };
        if let (Some(a), Some(t)) = (f.args.first_mut(), f.types.first_mut())
            && t.is_numeric()
        {
            *a = cast(a.clone(), DataType::Utf8);
            *t = DataType::Utf8;
        }
        // Text without a pattern: as `CAST(text AS TIMESTAMP_NTZ)` (a zone in it ignored).
        if let ([x], [DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View]) =
            (f.args.as_slice(), f.types.as_slice())
        {
            let local = NativeUdf::udf(Native::TextToTimestamp {
                time_zone: "UTC".to_string(),
                fail: f.config.ansi,
                nanos: false,
                local: true,
            })
            .call(vec![x.clone()]);
            return Ok(cast(
                local,
                DataType::Timestamp(TimeUnit::Microsecond, None),
            ));
        }
        let instant = parse_datetime(
            FunctionInput { config: &utc, ..f },
            ParseTarget::Timestamp,
            true,
        )?;
        Ok(NativeUdf::udf(Native::ShiftZone {
            time_zone: "UTC".to_string(),
            to_local: true,
        })
        .call(vec![instant]))
    });
    // Named with the defaults: the current time, Spark's default pattern.
    let defaults = Naming::Defaults {
        from: 0,
        values: &["current_timestamp()", DEFAULT_PATTERN],
    };
    b.scalar_named(&["unix_timestamp", "to_unix_timestamp"], defaults, |f| {
        if f.args.is_empty() {
            let now = super::df_udf("now")?.call(vec![]);
            return Ok(cast(now, DataType::Int64) / lit(1_000_000_000i64));
        }
        parse_datetime(f, ParseTarget::UnixSeconds, true)
    });
    b.scalar(&["date_format"], |f| {
        f.arity(2, 2)?;
        // (A timestamp, or a date or text Spark casts to one.)
        super::require_type(&f, 0, &["TIMESTAMP"], super::date_like)?;
        let (x, time_zone) = as_instant(
            f.args[0].clone(),
            &f.types[0],
            &f.config.time_zone,
            f.config.ansi,
        );
        // A pattern of each row: read by the native function row by row.
        if literal_text(&f.args[1], "date_format").is_err() {
            let pattern = cast(f.args[1].clone(), DataType::Utf8);
            return Ok(NativeUdf::udf(Native::DateFormat {
                time_zone,
                pattern: String::new(),
            })
            .call(vec![x, pattern]));
        }
        let spark_pattern = literal_text(&f.args[1], "date_format")?;
        let pattern = chrono_pattern(&spark_pattern)?;
        Ok(NativeUdf::udf(Native::DateFormat { time_zone, pattern }).call(vec![x]))
    });
    let defaults = Naming::Defaults {
        from: 1,
        values: &[DEFAULT_PATTERN],
    };
    b.scalar_named(&["from_unixtime"], defaults, |f| {
        f.arity(1, 2)?;
        let seconds = cast(f.args[0].clone(), DataType::Int64);
        let instant = cast(
            seconds * lit(1_000_000i64),
            DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())),
        );
        let spark_pattern = match f.args.get(1) {
            // A pattern of each row (or a constant of another type, as its text): read by
            // the native function row by row.
            Some(p) if literal_text(p, "from_unixtime").is_err() => {
                let pattern = cast(p.clone(), DataType::Utf8);
                return Ok(NativeUdf::udf(Native::DateFormat {
                    time_zone: f.config.time_zone.clone(),
                    pattern: String::new(),
                })
                .call(vec![instant, pattern]));
            }
            Some(p) => literal_text(p, "from_unixtime")?,
            None => DEFAULT_PATTERN.to_string(),
        };
        let pattern = chrono_pattern(&spark_pattern)?;
        Ok(NativeUdf::udf(Native::DateFormat {
            time_zone: f.config.time_zone.clone(),
            pattern,
        })
        .call(vec![instant]))
    });
    let defaults = Naming::Defaults {
        from: 2,
        values: &["true"],
    };
    b.scalar_named(&["months_between"], defaults, |f| {
        f.arity(2, 3)?;
        // (Timestamps, dates and text are read as timestamps, other types refused; roundOff
        // is a BOOLEAN, or text read as one in ANSI mode.)
        for i in 0..2 {
            super::require_type(&f, i, &["TIMESTAMP"], |t| {
                matches!(
                    t,
                    DataType::Timestamp(..)
                        | DataType::Date32
                        | DataType::Utf8
                        | DataType::Utf8View
                        | DataType::LargeUtf8
                        | DataType::Null
                )
            })?;
        }
        let ansi = f.config.ansi;
        super::require_type(&f, 2, &["BOOLEAN"], |t| {
            matches!(t, DataType::Boolean | DataType::Null)
                || (ansi && matches!(t, DataType::Utf8 | DataType::Utf8View | DataType::LargeUtf8))
        })?;
        let tz = f.config.time_zone.clone();
        let (a, _) = as_instant(f.args[0].clone(), &f.types[0], &tz, f.config.ansi);
        let (b2, _) = as_instant(f.args[1].clone(), &f.types[1], &tz, f.config.ansi);
        let between = |round_off: bool| {
            NativeUdf::udf(Native::MonthsBetween {
                time_zone: tz.clone(),
                round_off,
            })
            .call(vec![a.clone(), b2.clone()])
        };
        match f.args.get(2) {
            None => Ok(between(true)),
            Some(Expr::Literal(ScalarValue::Boolean(Some(b)), _)) => Ok(between(*b)),
            // roundOff of each row (NULL where it is).
            Some(round_off) => Ok(datafusion::logical_expr::when(
                cast(round_off.clone(), DataType::Boolean),
                between(true),
            )
            .when(
                datafusion::logical_expr::not(cast(round_off.clone(), DataType::Boolean)),
                between(false),
            )
            .end()?),
        }
    });
}

/// A date argument: timestamps as dates, text read as Spark reads a date (outside ANSI mode,
/// `ansi` false, text that is no date is NULL, as Spark's implicit cast).
pub(super) fn to_date(x: Expr, t: Option<&DataType>, ansi: bool) -> Expr {
    match t {
        Some(DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View) => {
            NativeUdf::udf(Native::TextToDate { fail: ansi }).call(vec![x])
        }
        _ => cast(x, DataType::Date32),
    }
}

/// A datafusion-spark date function whose first argument is a date (strings cast).
fn on_date(b: &mut RegistryBuilder, names: &[&str], spark_name: &'static str, n: usize) {
    let naming = match spark_name {
        "date_add" => Naming::Fixed("date_add"),
        _ => Naming::Call,
    };
    b.scalar_named(names, naming, move |f| {
        f.arity(n, n)?;
        // (unix_date takes a DATE, nothing cast to one.)
        if spark_name == "unix_date" {
            super::require_type(&f, 0, &["DATE"], |t| {
                matches!(t, DataType::Date32 | DataType::Null)
            })?;
        }
        let mut args = f.args;
        for (i, t) in f.types.iter().enumerate() {
            let is_text = matches!(t, DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View);
            // (Timestamps as their dates in the session time zone, as Spark casts them.)
            let is_time = matches!(t, DataType::Timestamp(..));
            // datediff takes two dates; the others one date and a number or text.
            if (is_text || is_time) && (i == 0 || spark_name == "date_diff") {
                args[i] = to_date(args[i].clone(), Some(t), f.config.ansi);
            }
        }
        Ok(super::sp_udf(spark_name)?.call(args))
    });
}

/// A datafusion-spark time-of-day function of a timestamp (strings read as timestamps in
/// the session time zone).
fn on_timestamp(b: &mut RegistryBuilder, names: &[&str], spark_name: &'static str) {
    // (Spark's builders of hour, minute and second read their first argument and pass over
    // any other, which their names do not show.)
    let first_only = |w: &str, a: &[String], _: bool| {
        format!(
            "{}({})",
            w.to_lowercase(),
            a.first().cloned().unwrap_or_default()
        )
    };
    b.scalar_named(names, super::Naming::Custom(first_only), move |mut f| {
        f.args.truncate(1);
        f.types.truncate(1);
        let tz = f.config.time_zone.clone();
        let text = matches!(
            f.types.first(),
            Some(DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View)
        );
        let time = matches!(f.types.first(), Some(DataType::Time64(_)));
        let zoned = matches!(f.types.first(), Some(DataType::Timestamp(_, Some(_))));
        let ansi = f.config.ansi;
        let x = one(f)?;
        if time {
            // The fields of a TIME.
            let part = super::df_udf("date_part")?.call(vec![lit(spark_name), x]);
            return Ok(cast(part, DataType::Int32));
        }
        let x = if text {
            text_to_instant(x, &tz, ansi)
        } else {
            x
        };
        Ok(super::sp_udf(spark_name)?.call(vec![local_of(x, zoned, &tz)]))
    });
}

/// A TIMESTAMP (`zoned`) as its local date-time in the session time zone `tz` (Ember's
/// offsets, which follow a zone's last rule after 2037 where Arrow's stop), else `x`.
fn local_of(x: Expr, zoned: bool, tz: &str) -> Expr {
    if !zoned {
        return x;
    }
    NativeUdf::udf(Native::ShiftZone {
        time_zone: tz.to_string(),
        to_local: true,
    })
    .call(vec![x])
}

fn date_part(b: &mut RegistryBuilder, names: &[&str], part: &'static str) {
    b.scalar(names, move |f| {
        let text = matches!(
            f.types.first(),
            Some(DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View)
        );
        let zoned = matches!(f.types.first(), Some(DataType::Timestamp(_, Some(_))));
        let tz = f.config.time_zone.clone();
        let ansi = f.config.ansi;
        let x = one(f)?;
        let x = if text {
            to_date(x, Some(&DataType::Utf8), ansi)
        } else {
            local_of(x, zoned, &tz)
        };
        let udf = super::df_udf("date_part")?;
        Ok(cast(
            udf.call(vec![datafusion::logical_expr::lit(part), x]),
            DataType::Int32,
        ))
    });
    let _: fn(Expr) -> Expr = |e| e;
}

/// Text read as an instant in the session time zone, as `CAST(text AS TIMESTAMP)`.
pub(super) fn text_to_instant(x: Expr, tz: &str, fail: bool) -> Expr {
    NativeUdf::udf(Native::TextToTimestamp {
        time_zone: tz.to_string(),
        fail,
        nanos: false,
        local: false,
    })
    .call(vec![x])
}

/// A value as a timestamp for formatting, with the zone to format it in: text read in the
/// session zone, TIMESTAMP_NTZ values as they are (formatted in UTC), dates kept.
fn as_instant(x: Expr, t: &DataType, tz: &str, ansi: bool) -> (Expr, String) {
    match t {
        DataType::Date32 => (x, tz.to_string()),
        DataType::Timestamp(_, None) => (
            cast(
                x,
                DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())),
            ),
            "UTC".to_string(),
        ),
        DataType::Timestamp(_, Some(_)) => (x, tz.to_string()),
        _ => (text_to_instant(x, tz, ansi), tz.to_string()),
    }
}

pub(super) fn literal_text(e: &Expr, function: &str) -> crate::error::PlanResult<String> {
    match e {
        Expr::Literal(ScalarValue::Utf8(Some(s)), _)
        | Expr::Literal(ScalarValue::LargeUtf8(Some(s)), _)
        | Expr::Literal(ScalarValue::Utf8View(Some(s)), _) => Ok(s.clone()),
        _ => Err(crate::error::PlanError::Unsupported(format!(
            "{function} with a pattern that is not a literal"
        ))),
    }
}

/// Replace a literal zone name by the zone Java's `ZoneId.of` reads from it (Spark's short
/// ids, `GMT+1`, offsets); INVALID_TIMEZONE for a name Java refuses. Other arguments are left.
pub(crate) fn java_zone_literal(arg: &mut Expr) -> PlanResult<()> {
    // (A constant of another type is its text: `make_timestamp(..., 1)` names zone '1'.)
    if !matches!(arg, Expr::Literal(..))
        && arg.column_refs().is_empty()
        && let Ok(folded @ Expr::Literal(ScalarValue::Utf8(Some(_)), _)) =
            crate::resolver::fold_constants(arg.clone())
    {
        *arg = folded;
    }
    if let Expr::Literal(ScalarValue::Utf8(Some(name)), _) = arg {
        let Some(id) = ember_execution::values::pattern::java_zone_id(name) else {
            return Err(SparkError::new(
                crate::error::ErrorKind::DateTime,
                "INVALID_TIMEZONE",
                "22009",
                ember_execution::values::pattern::invalid_timezone_message(name),
                vec![("timeZone", name.clone())],
            )
            .into());
        };
        *arg = datafusion::logical_expr::lit(id);
    }
    Ok(())
}
