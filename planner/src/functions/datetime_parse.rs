//! `to_date`, `to_timestamp`, `unix_timestamp` and their `try_` forms: text read with a
//! Spark pattern or cast without one, numbers as seconds, dates and timestamps converted.

use arrow::datatypes::{DataType, TimeUnit};
use datafusion::logical_expr::{Expr, cast, lit};

use super::FunctionInput;
use super::datetime::{literal_text, text_to_instant};
use super::native::{Native, NativeUdf, ParseTarget};
use super::pattern::chrono_pattern_for;

/// `to_timestamp`/`to_date`/`unix_timestamp` (`fail`: ANSI errors; else NULL): text read
/// with a pattern, or cast without one; timestamps and dates converted.
pub(super) fn parse_datetime(
    f: FunctionInput,
    target: ParseTarget,
    fail: bool,
) -> crate::error::PlanResult<Expr> {
    f.arity(1, 2)?;
    let tz = f.config.time_zone.clone();
    let fail = fail && f.config.ansi;
    if target == ParseTarget::UnixSeconds {
        super::check_type(
            &f,
            0,
            &["STRING", "DATE", "TIMESTAMP", "TIMESTAMP_NTZ"],
            |t| !t.is_numeric(),
        )?;
    }
    super::require_type(
        &f,
        0,
        &["STRING", "DATE", "TIMESTAMP", "TIMESTAMP_NTZ"],
        super::atomic,
    )?;
    super::require_type(&f, 1, &["STRING"], super::atomic)?;
    let mut f = f;
    // (A constant pattern of another atomic type is its text, as Spark casts it: `true`.)
    if let (Some(t), Some(p)) = (f.types.get(1), f.args.get(1))
        && let Some(text) = super::constant_text(p, t, &f.config.time_zone)
    {
        f.args[1] = lit(text);
    }
    let mut x = f.args[0].clone();
    // A boolean or binary value is read as its text (Spark's implicit cast to STRING).
    if matches!(
        f.types[0],
        DataType::Boolean | DataType::Binary | DataType::LargeBinary
    ) {
        x = cast(x, DataType::Utf8);
        f.types[0] = DataType::Utf8;
    }
    // A number is seconds since the epoch as a timestamp (see `cast_rules`); as a date, or
    // read with a pattern, it is read as its text (Spark's implicit cast to STRING).
    if f.types[0].is_numeric() {
        if target == ParseTarget::Timestamp && f.args.len() == 1 {
            let to = crate::types::timestamp_type(&tz);
            if let Some(e) =
                crate::resolver::number_to_timestamp(x.clone(), &f.types[0], &to, !fail, false)
            {
                return Ok(e);
            }
        }
        x = cast(x, DataType::Utf8);
    }
    let is_text = f.types[0].is_numeric()
        || matches!(
            f.types[0],
            DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View
        );
    // A pattern of each row: read by the native function row by row.
    if let (Some(p), true) = (f.args.get(1), is_text)
        && literal_text(p, "to_timestamp").is_err()
    {
        return Ok(NativeUdf::udf(Native::ParseDatetime {
            time_zone: tz,
            pattern: String::new(),
            target,
            fail,
        })
        .call(vec![x, cast(p.clone(), DataType::Utf8)]));
    }
    let spark_pattern = match (f.args.get(1), target) {
        (Some(p), _) => Some(literal_text(p, "to_timestamp")?),
        (None, ParseTarget::UnixSeconds) if is_text => Some("yyyy-MM-dd HH:mm:ss".to_string()),
        (None, _) => None,
    };
    if let (Some(spark_pattern), true) = (spark_pattern, is_text) {
        let pattern = chrono_pattern_for(&spark_pattern, true)?;
        return Ok(NativeUdf::udf(Native::ParseDatetime {
            time_zone: tz,
            pattern,
            target,
            fail,
        })
        .call(vec![x]));
    }
    let to = match target {
        ParseTarget::Date => DataType::Date32,
        _ => crate::types::timestamp_type(&tz),
    };
    let converted = match (&f.types[0], target) {
        // A date's midnight in the session time zone.
        (DataType::Date32, ParseTarget::Timestamp | ParseTarget::UnixSeconds) => cast(
            cast(x, DataType::Timestamp(TimeUnit::Microsecond, None)),
            to,
        ),
        // A local date-time counts as a UTC one (Spark's unix_timestamp of TIMESTAMP_NTZ).
        (DataType::Timestamp(_, None), ParseTarget::UnixSeconds) => x,
        (_, ParseTarget::Timestamp | ParseTarget::UnixSeconds) if is_text => {
            text_to_instant(x, &tz, fail)
        }
        (_, ParseTarget::Date) if is_text => {
            NativeUdf::udf(Native::TextToDate { fail }).call(vec![x])
        }
        _ if fail => cast(x, to),
        _ => Expr::TryCast(datafusion::logical_expr::TryCast::new(Box::new(x), to)),
    };
    Ok(match target {
        ParseTarget::UnixSeconds => {
            let micros = cast(converted, DataType::Int64);
            let floor = super::df_udf("floor")?;
            cast(
                floor.call(vec![cast(micros, DataType::Float64) / lit(1e6)]),
                DataType::Int64,
            )
        }
        _ => converted,
    })
}
