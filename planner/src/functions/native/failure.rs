//! Spark's runtime errors that a native function raises for the rows that reach it
//! ([`Native::Fail`]) under ANSI: a remainder by zero, an array index out of bounds, an
//! arithmetic overflow; and [`fail_when`], which plans one for the rows where a condition
//! holds.

use super::*;

/// The errors [`Native::Fail`] raises.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Failure {
    /// `x % 0`, `pmod(x, 0)` under ANSI.
    RemainderByZero,
    /// `elt(n, ...)` beyond its arguments under ANSI: arguments (index, count).
    InvalidArrayIndex,
    /// An integer result beyond its type under ANSI (`abs` of the least INT).
    ArithmeticOverflow,
    /// A NaN or infinite DOUBLE cast to TIMESTAMP under ANSI: argument (the value).
    NotATimestamp,
    /// A 1-based index of 0 (`array_insert(a, 0, v)`), an error in any mode.
    IndexOfZero,
    /// `sequence(start, stop, step)` whose step does not lead from start to stop: arguments
    /// (start, stop, step); Spark's `require` (an IllegalArgumentException, no class).
    IllegalSequenceBoundaries,
    /// An array of more elements than one value may hold (`functions::size_limit`), in any
    /// mode: arguments (the element count, the function's name).
    ArraySizeLimit,
    /// Java's IllegalArgumentException without an error class: argument (its message).
    IllegalArgument,
    /// `next_day(d, day)` of a day that names none, under ANSI: argument (the day).
    IllegalDayOfWeek,
}

impl Failure {
    pub(super) fn error(self, arrays: &[ArrayRef]) -> crate::error::SparkError {
        use crate::error::{ErrorKind, SparkError};
        match self {
            Failure::RemainderByZero => SparkError::new(
                ErrorKind::Arithmetic,
                "REMAINDER_BY_ZERO",
                "22012",
                "Remainder by zero. Use `try_mod` to tolerate divisor being 0 and return NULL instead. If necessary set \"spark.sql.ansi.enabled\" to \"false\" to bypass this error.",
                vec![("config", "\"spark.sql.ansi.enabled\"".to_string())],
            ),
            Failure::ArithmeticOverflow => SparkError::arithmetic_overflow("overflow", ""),
            Failure::IndexOfZero => SparkError::new(
                ErrorKind::Runtime,
                "INVALID_INDEX_OF_ZERO",
                "22003",
                "The index 0 is invalid. An index shall be either < 0 or > 0 (the first element has index 1).",
                vec![],
            ),
            Failure::NotATimestamp => {
                let value = arrays
                    .first()
                    .and_then(|a| ScalarValue::try_from_array(a, 0).ok())
                    .and_then(|v| match v {
                        ScalarValue::Float64(Some(x)) => Some(x),
                        _ => None,
                    })
                    .map(|x| match x {
                        x if x.is_nan() => "NaN".to_string(),
                        x if x > 0.0 => "Infinity".to_string(),
                        _ => "-Infinity".to_string(),
                    })
                    .unwrap_or_default();
                let mut e = SparkError::cast_invalid_input(&value, "DOUBLE", "TIMESTAMP");
                // (Spark shows the number unquoted.)
                e.message = e.message.replacen(&format!("'{value}'"), &value, 1);
                e.kind = ErrorKind::DateTime;
                e
            }
            Failure::ArraySizeLimit => {
                let value = |i: usize| {
                    arrays
                        .get(i)
                        .and_then(|a| ScalarValue::try_from_array(a, 0).ok())
                        .map(|v| match v {
                            ScalarValue::Float64(Some(x)) => format!("{x:.0}"),
                            v => v.to_string(),
                        })
                        .unwrap_or_default()
                };
                let (count, function) = (value(0), value(1));
                let limit = crate::functions::size_limit::MAX_ARRAY_ELEMENTS.to_string();
                let (class, message) = match function.as_str() {
                    "array_repeat" => (
                        "COLLECTION_SIZE_LIMIT_EXCEEDED.PARAMETER",
                        format!(
                            "Can't create array with {count} elements which exceeding the array size limit {limit}, the value of parameter(s) `count` in the function `{function}` is invalid."
                        ),
                    ),
                    _ => (
                        "COLLECTION_SIZE_LIMIT_EXCEEDED.FUNCTION",
                        format!(
                            "Can't create array with {count} elements which exceeding the array size limit {limit}, unsuccessful try to create arrays in the function `{function}`."
                        ),
                    ),
                };
                SparkError::new(
                    ErrorKind::Runtime,
                    class,
                    "54000",
                    message,
                    vec![
                        ("numberOfElements", count),
                        ("maxRoundedArrayLength", limit),
                        ("functionName", format!("`{function}`")),
                    ],
                )
            }
            Failure::IllegalSequenceBoundaries => {
                let value = |i: usize| argument_text(arrays, i);
                SparkError::illegal_argument(
                    "",
                    format!(
                        "requirement failed: Illegal sequence boundaries: {} to {} by {}",
                        value(0),
                        value(1),
                        value(2)
                    ),
                )
            }
            Failure::IllegalArgument => SparkError::illegal_argument("", argument_text(arrays, 0)),
            Failure::IllegalDayOfWeek => {
                let day = argument_text(arrays, 0);
                SparkError::new(
                    ErrorKind::IllegalArgument,
                    "ILLEGAL_DAY_OF_WEEK",
                    "22009",
                    format!("Illegal input for day of week: {day}."),
                    vec![("string", day)],
                )
            }
            Failure::InvalidArrayIndex => {
                let value = |i: usize| argument_text(arrays, i);
                let (index, size) = (value(0), value(1));
                SparkError::new(
                    ErrorKind::ArrayIndexOutOfBounds,
                    "INVALID_ARRAY_INDEX",
                    "22003",
                    format!(
                        "The index {index} is out of bounds. The array has {size} elements. Use the SQL function `get()` to tolerate accessing element at invalid index and return NULL instead."
                    ),
                    vec![("indexValue", index), ("arraySize", size)],
                )
            }
        }
    }
}

/// The first value of argument `i` as text (empty when there is none).
fn argument_text(arrays: &[ArrayRef], i: usize) -> String {
    arrays
        .get(i)
        .and_then(|a| ScalarValue::try_from_array(a, 0).ok())
        .map(|v| v.to_string())
        .unwrap_or_default()
}

/// `value`, or `failure` raised for the rows where `cond` holds.
pub fn fail_when(
    cond: datafusion::logical_expr::Expr,
    failure: Failure,
    args: Vec<datafusion::logical_expr::Expr>,
    value: datafusion::logical_expr::Expr,
) -> datafusion::logical_expr::Expr {
    crate::functions::when(
        cond,
        NativeUdf::udf(Native::Fail { failure }).call(args),
        Some(value),
    )
}
