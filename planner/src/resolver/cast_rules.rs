//! Spark's cast matrix where it differs from Arrow's: the casts Spark refuses (numbers to and
//! from dates, numbers and TIMESTAMP_NTZ, booleans and datetimes under ANSI, numbers and
//! binary), the ones it answers with NULL outside ANSI mode (a date as a number), and what
//! numbers mean as timestamps (seconds since the epoch, where Arrow reads microseconds).

use arrow::datatypes::DataType;
use datafusion::common::ScalarValue;
use datafusion::logical_expr::{Expr, cast, lit, try_cast};

use crate::error::{ErrorKind, SparkError};
use crate::types::{self, is_binary};

/// What Spark does with a cast Arrow would perform differently.
pub(super) enum CastRule {
    /// Spark refuses the cast while analysing the query.
    Refused(SparkError),
    /// Spark answers NULL for every value (outside ANSI mode: a date as a number or boolean).
    Null,
}

const MICROS: i64 = 1_000_000;

fn is_integral(t: &DataType) -> bool {
    matches!(
        t,
        DataType::Int8 | DataType::Int16 | DataType::Int32 | DataType::Int64
    )
}

fn is_number(t: &DataType) -> bool {
    is_integral(t)
        || matches!(
            t,
            DataType::Float32 | DataType::Float64 | DataType::Decimal128(..)
        )
}

/// Spark's rule for `CAST(<from> AS <to>)` (`shown` is how Spark shows the cast) when it is
/// not Arrow's: `None` when the cast is one Ember performs as it stands.
pub(super) fn cast_rule(
    from: &DataType,
    to: &DataType,
    ansi: bool,
    shown: &str,
) -> Option<CastRule> {
    use DataType::{Boolean, Date32, Timestamp};
    let local = |t: &DataType| matches!(t, Timestamp(_, None));
    let zoned = |t: &DataType| matches!(t, Timestamp(_, Some(_)));
    let refused = |kind: Refusal| Some(CastRule::Refused(refusal(kind, from, to, shown)));
    let nanos = |t: &DataType| matches!(t, Timestamp(arrow::datatypes::TimeUnit::Nanosecond, _));
    match (from, to) {
        // (Spark 4.3's nanosecond timestamps cast to and from no number or boolean.)
        (f, t)
            if (nanos(f) && (is_number(t) || *t == Boolean))
                || (nanos(t) && (is_number(f) || *f == Boolean)) =>
        {
            refused(Refusal::Plain)
        }
        (f, Date32) if is_number(f) => refused(if ansi {
            Refusal::Function("DATE_FROM_UNIX_DATE")
        } else {
            Refusal::Plain
        }),
        (Date32, t) if is_number(t) || *t == Boolean => {
            if !ansi {
                Some(CastRule::Null)
            } else if *t == Boolean {
                refused(Refusal::Conf)
            } else {
                refused(Refusal::Function("UNIX_DATE"))
            }
        }
        (f, t) if (is_number(f) && local(t)) || (local(f) && is_number(t)) => {
            refused(Refusal::Plain)
        }
        (Boolean, t) | (t, Boolean) if zoned(t) && ansi => refused(Refusal::Conf),
        (f, t) if is_integral(f) && is_binary(t) => {
            if ansi {
                refused(Refusal::Conf)
            } else {
                // (Spark writes the integer's bytes big-endian; Arrow's cast has no such form.)
                Some(CastRule::Refused(SparkError::unsupported(
                    "CAST of an integer to BINARY with spark.sql.ansi.enabled=false",
                )))
            }
        }
        (f, t) if (is_number(f) && is_binary(t)) || (is_binary(f) && is_number(t)) => {
            refused(Refusal::Plain)
        }
        // (Structs cast field by field in order: their fields must be as many, at any depth.)
        (f, t) if struct_widths_differ(f, t) => refused(Refusal::Plain),
        _ => None,
    }
}

/// Whether a struct in `from` has another number of fields than its place in `to`.
fn struct_widths_differ(from: &DataType, to: &DataType) -> bool {
    // (A VARIANT is a struct of its own and casts to any struct.)
    if types::is_variant(from) || types::is_variant(to) {
        return false;
    }
    match (from, to) {
        (DataType::Struct(f), DataType::Struct(t)) => {
            f.len() != t.len()
                || f.iter()
                    .zip(t.iter())
                    .any(|(a, b)| struct_widths_differ(a.data_type(), b.data_type()))
        }
        (DataType::List(f), DataType::List(t)) => {
            struct_widths_differ(f.data_type(), t.data_type())
        }
        (DataType::Map(f, _), DataType::Map(t, _)) => {
            struct_widths_differ(f.data_type(), t.data_type())
        }
        _ => false,
    }
}

enum Refusal {
    Plain,
    Function(&'static str),
    Conf,
}

fn refusal(kind: Refusal, from: &DataType, to: &DataType, shown: &str) -> SparkError {
    let (src, target) = (
        format!("\"{}\"", types::sql_name(from)),
        format!("\"{}\"", types::sql_name(to)),
    );
    let head = format!(
        "Cannot resolve \"{shown}\" due to data type mismatch: cannot cast {src} to {target}"
    );
    let mut parameters = vec![
        ("sqlExpr", format!("\"{shown}\"")),
        ("srcType", src.clone()),
        ("targetType", target.clone()),
    ];
    let (class, message) = match kind {
        Refusal::Plain => (
            "DATATYPE_MISMATCH.CAST_WITHOUT_SUGGESTION",
            format!("{head}."),
        ),
        Refusal::Function(function) => {
            parameters.push(("functionNames", format!("`{function}`")));
            (
                "DATATYPE_MISMATCH.CAST_WITH_FUNC_SUGGESTION",
                format!(
                    "{head}. To convert values from {src} to {target}, you can use the functions `{function}` instead."
                ),
            )
        }
        Refusal::Conf => {
            parameters.push(("config", "\"spark.sql.ansi.enabled\"".to_string()));
            parameters.push(("configVal", "'false'".to_string()));
            (
                "DATATYPE_MISMATCH.CAST_WITH_CONF_SUGGESTION",
                format!(
                    "{head} with ANSI mode on. If you have to cast {src} to {target}, you can set \"spark.sql.ansi.enabled\" as 'false'."
                ),
            )
        }
    };
    SparkError::new(ErrorKind::Analysis, class, "42K09", message, parameters)
}

/// Whether a cast outside ANSI mode answers every value of `from` (no TRY cast needed): one
/// that loses nothing, or a DECIMAL to a FLOAT or DOUBLE.
pub(super) fn total_legacy_cast(from: &DataType, to: &DataType) -> bool {
    crate::functions::nullability::lossless_cast(from, to)
        || (matches!(from, DataType::Decimal128(..) | DataType::Decimal256(..))
            && matches!(to, DataType::Float32 | DataType::Float64))
}

/// A number as a zoned timestamp, as Spark reads it: seconds since the epoch (fractions to the
/// microsecond, truncated toward zero). `None`: not such a cast.
pub(crate) fn number_to_timestamp(
    inner: Expr,
    from: &DataType,
    to: &DataType,
    try_mode: bool,
    wrap: bool,
) -> Option<Expr> {
    if !matches!(to, DataType::Timestamp(_, Some(_))) || !is_number(from) {
        return None;
    }
    let to_micros = |e: Expr| {
        if try_mode {
            try_cast(e, DataType::Int64)
        } else {
            cast(e, DataType::Int64)
        }
    };
    let micros = match from {
        f if is_integral(f) => {
            // (Saturating, as Java's `TimeUnit.SECONDS.toMicros`.)
            let x = cast(inner, DataType::Int64);
            let limit = i64::MAX / MICROS;
            Expr::Case(datafusion::logical_expr::expr::Case::new(
                None,
                vec![
                    (Box::new(x.clone().gt(lit(limit))), Box::new(lit(i64::MAX))),
                    (Box::new(x.clone().lt(lit(-limit))), Box::new(lit(i64::MIN))),
                ],
                Some(Box::new(x * lit(MICROS))),
            ))
        }
        // (Spark's legacy cast (`wrap`) of a decimal of more digits wraps past a BIGINT, as
        // `BigDecimal.longValue`.)
        DataType::Decimal128(p, s) if wrap && (*p > 30 || i16::from(*p) - i16::from(*s) > 12) => {
            use crate::functions::native::{Native, NativeUdf};
            NativeUdf::udf(Native::DecimalMicros).call(vec![inner])
        }
        DataType::Decimal128(p, s) => {
            // (Within 38 digits after the multiplication by 10^6.)
            let wide = DataType::Decimal128((*p).min(30), (*s).min(30));
            let factor = Expr::Literal(
                ScalarValue::Decimal128(Some(i128::from(MICROS)), 7, 0),
                None,
            );
            to_micros(cast(inner, wide) * factor)
        }
        _ => {
            let x = cast(inner, DataType::Float64);
            // (A TRY cast: NaN and the infinities fail below, and a constant's cast is folded
            // while planning, before the guard could hold.)
            let micros = try_cast(x.clone() * lit(MICROS as f64), DataType::Int64);
            if try_mode {
                micros
            } else {
                // NaN and the infinities are no instant: Spark's CAST_INVALID_INPUT.
                use crate::functions::native::{Failure, fail_when};
                let not_finite = datafusion::functions::math::expr_fn::isnan(x.clone())
                    .or(x.clone().eq(lit(f64::INFINITY)))
                    .or(x.clone().eq(lit(f64::NEG_INFINITY)));
                fail_when(not_finite, Failure::NotATimestamp, vec![x], micros)
            }
        }
    };
    Some(cast(micros, to.clone()))
}

/// A zoned timestamp as a number, as Spark reads it: whole seconds since the epoch (rounded
/// down) for integers, seconds with their fraction for fractional numbers. `None`: not such
/// a cast. The caller casts the seconds to `to` itself.
pub(super) fn timestamp_to_seconds(
    inner: Expr,
    from: &DataType,
    to: &DataType,
) -> Option<(Expr, DataType)> {
    if !matches!(from, DataType::Timestamp(_, Some(_))) || !is_number(to) {
        return None;
    }
    // (Ember's timestamps are microseconds; the cast keeps the value, the UTC instant.)
    let micros = cast(inner, DataType::Int64);
    Some(if is_integral(to) {
        // Floor division: -0.5 s is second -1.
        let rest = ((micros.clone() % lit(MICROS)) + lit(MICROS)) % lit(MICROS);
        ((micros - rest) / lit(MICROS), DataType::Int64)
    } else {
        (
            cast(micros, DataType::Float64) / lit(MICROS as f64),
            DataType::Float64,
        )
    })
}
