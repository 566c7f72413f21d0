//! Spark's time windows as functions: `window(ts, duration[, slide[, start]])` (tumbling
//! windows, or the list of sliding windows holding `ts` that a GROUP BY unnests),
//! `session_window(ts, gap)` (a GROUP BY key computed by the aggregate, see
//! `resolver::time_windows`) and `window_time(window)`.

use arrow::datatypes::{DataType, TimeUnit};
use datafusion::common::ScalarValue;
use datafusion::logical_expr::{Expr, cast, lit};

use super::FunctionInput;
use super::native::{Native, NativeUdf};

use super::RegistryBuilder;
use super::operators::one;

pub fn register(b: &mut RegistryBuilder) {
    // window_time(window): the last instant of a time window.
    b.scalar(&["window_time"], |f| {
        let w = one(f)?;
        let end = datafusion::functions::core::expr_fn::get_field(w, "end");
        Ok(end
            - lit(ScalarValue::IntervalMonthDayNano(Some(
                arrow::datatypes::IntervalMonthDayNano::new(0, 0, 1000),
            ))))
    });
    // window(ts, duration[, slide[, start]]): the tumbling window holding ts, as Spark's
    // struct<start, end>; windows are aligned to the epoch shifted by `start`.
    b.scalar_named(
        &["window"],
        super::Naming::Custom(|_, _, _| "window".to_string()),
        |f| {
            f.arity(2, 4)?;
            let duration_of = |e: &Expr, what: &str| match e {
                Expr::Literal(ScalarValue::Utf8(Some(text)), _) => {
                    window_micros(text).ok_or_else(|| {
                        crate::error::PlanError::from(crate::error::SparkError::illegal_argument(
                            "",
                            format!("The provided interval ({text}) did not correspond to a valid interval string."),
                        ))
                    })
                }
                _ => Err(crate::error::PlanError::Unsupported(format!(
                    "window with a computed {what}"
                ))),
            };
            let width = duration_of(&f.args[1], "duration")?;
            let slide = match f.args.get(2) {
                Some(s) => duration_of(s, "slide")?,
                None => width,
            };
            let start = match f.args.get(3) {
                Some(s) => duration_of(s, "start time")?,
                None => 0,
            };
            if slide != width {
                return sliding_windows(&f, width, slide, start);
            }
            if width <= 0 {
                return Err(crate::error::PlanError::Unsupported(
                    "window with a duration that is not positive".into(),
                ));
            }
            // (A TIMESTAMP_NTZ gives windows of local date-times, aligned as if in UTC.)
            let ts_type = match f.types.first() {
                Some(DataType::Timestamp(_, None)) => DataType::Timestamp(TimeUnit::Microsecond, None),
                _ => crate::types::timestamp_type(&f.config.time_zone),
            };
            let micros = cast(cast(f.args[0].clone(), ts_type.clone()), DataType::Int64);
            let stride = |micros: i64| {
                lit(ScalarValue::IntervalMonthDayNano(Some(
                    arrow::datatypes::IntervalMonthDayNano::new(0, 0, micros.saturating_mul(1000)),
                )))
            };
            // The window start at or before ts: ts - ((ts - start) mod width), mod non-negative
            // (in microseconds: DataFusion's date_bin works in nanoseconds, which years past
            // 2262 overflow).
            let offset = (micros.clone() - lit(start)) % lit(width);
            let offset = (offset + lit(width)) % lit(width);
            let begin = cast(micros - offset, ts_type);
            let end = begin.clone() + stride(width);
            // (Spark's window is never NULL; its bounds may be.)
            let window =
                super::df_udf("named_struct")?.call(vec![lit("start"), begin, lit("end"), end]);
            Ok(super::nullability::SparkNullability::udf(false).call(vec![window]))
        },
    );
    // session_window(ts, gap): as a GROUP BY key, the sessions of rows at most `gap` apart
    // (computed by the aggregate); the gap a literal duration.
    b.scalar_named(
        &["session_window"],
        super::Naming::Custom(|_, _, _| "session_window".to_string()),
        |f| {
            f.arity(2, 2)?;
            let gap = match &f.args[1] {
                Expr::Literal(ScalarValue::Utf8(Some(text)), _) => window_micros(text)
                    .filter(|g| *g > 0)
                    .ok_or_else(|| {
                        crate::error::PlanError::from(crate::error::SparkError::illegal_argument(
                            "",
                            format!("The provided interval ({text}) did not correspond to a valid interval string."),
                        ))
                    })?,
                _ => {
                    return Err(crate::error::PlanError::Unsupported(
                        "session_window with a computed gap duration".into(),
                    ));
                }
            };
            let time_zone = match f.types.first() {
                Some(DataType::Timestamp(_, None)) => None,
                _ => Some(f.config.time_zone.clone()),
            };
            let ts_type = DataType::Timestamp(TimeUnit::Microsecond, time_zone.clone().map(Into::into));
            let micros = cast(cast(f.args[0].clone(), ts_type), DataType::Int64);
            Ok(NativeUdf::udf(Native::SessionWindow { gap, time_zone }).call(vec![micros]))
        },
    );
}

/// `window(ts, width, slide, start)` with a slide other than its width: the windows holding
/// `ts` (latest first, as Spark's Expand lists them), a list that a GROUP BY unnests into one
/// row per window (see `SlidingWindows`).
fn sliding_windows(
    f: &FunctionInput,
    width: i64,
    slide: i64,
    start: i64,
) -> crate::error::PlanResult<Expr> {
    if slide <= 0 || width <= 0 {
        return Err(crate::error::PlanError::Unsupported(
            "window with a duration or slide that is not positive".into(),
        ));
    }
    let zoned = !matches!(f.types.first(), Some(DataType::Timestamp(_, None)));
    let ts_type = if zoned {
        crate::types::timestamp_type(&f.config.time_zone)
    } else {
        DataType::Timestamp(TimeUnit::Microsecond, None)
    };
    let micros = cast(cast(f.args[0].clone(), ts_type.clone()), DataType::Int64);
    // The last window start at or before ts: ts - ((ts - start) mod slide), mod non-negative.
    let offset = (micros.clone() - lit(start)) % lit(slide);
    let offset = (offset + lit(slide)) % lit(slide);
    let last_start = micros.clone() - offset;
    let count = (width + slide - 1) / slide;
    let windows = (0..count)
        .map(|i| {
            let begin = last_start.clone() - lit(i * slide);
            let end = begin.clone() + lit(width);
            let holds = begin
                .clone()
                .lt_eq(micros.clone())
                .and(micros.clone().lt(end.clone()));
            let window = super::df_udf("named_struct")?.call(vec![
                lit("start"),
                cast(cast(begin, DataType::Int64), ts_type.clone()),
                lit("end"),
                cast(cast(end, DataType::Int64), ts_type.clone()),
            ]);
            Ok(super::when(holds, window, None))
        })
        .collect::<crate::error::PlanResult<Vec<_>>>()?;
    let list = super::df_udf("make_array")?.call(windows);
    let present = super::df_udf("array_compact")?.call(vec![list]);
    Ok(NativeUdf::udf(Native::SlidingWindows).call(vec![present]))
}

/// Microseconds of a window duration (`10 minutes`, `1 hour 30 minutes`, `2 days`).
fn window_micros(text: &str) -> Option<i64> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let words = match words.first() {
        Some(w) if w.eq_ignore_ascii_case("interval") => &words[1..],
        _ => &words[..],
    };
    if words.is_empty() || words.len() % 2 != 0 {
        return None;
    }
    let mut total: i64 = 0;
    for pair in words.chunks(2) {
        let n: i64 = pair[0].parse().ok()?;
        let unit = pair[1].to_ascii_lowercase();
        let size = match unit.trim_end_matches('s') {
            "microsecond" => 1,
            "millisecond" => 1_000,
            "second" => 1_000_000,
            "minute" => 60_000_000,
            "hour" => 3_600_000_000,
            "day" => 86_400_000_000,
            "week" => 604_800_000_000,
            _ => return None,
        };
        total = total.checked_add(n.checked_mul(size)?)?;
    }
    (total > 0).then_some(total)
}
