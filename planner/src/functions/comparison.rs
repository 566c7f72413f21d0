//! Spark's rules for comparing values of two types where DataFusion's coercion differs:
//! dates read as timestamps next to timestamps, booleans as numbers in equalities outside
//! ANSI mode, and the comparisons Spark refuses (a date with a number, maps, IN lists of no
//! common type).

use arrow::datatypes::{DataType, TimeUnit};
use datafusion::logical_expr::{Expr, cast};

use crate::error::{PlanResult, SparkError};

/// DATE values among TIMESTAMP (or TIMESTAMP_NTZ) ones read as their midnight in that type
/// (in the session zone), as Spark's implicit cast for a comparison reads them: DataFusion's
/// coercion of the two goes through nanoseconds, which `DATE'9999-12-31'` overflows.
pub(crate) fn dates_as_timestamps(args: &mut [Expr], types: &mut [DataType], time_zone: &str) {
    let Some(zoned) = types.iter().find_map(|t| match t {
        DataType::Timestamp(_, zone) => Some(zone.is_some()),
        _ => None,
    }) else {
        return;
    };
    for (a, t) in args.iter_mut().zip(types.iter_mut()) {
        if *t != DataType::Date32 {
            continue;
        }
        let local = cast(a.clone(), DataType::Timestamp(TimeUnit::Microsecond, None));
        (*a, *t) = if zoned {
            let shift = super::native::Native::ShiftZone {
                time_zone: time_zone.to_string(),
                to_local: false,
            };
            (
                super::native::NativeUdf::udf(shift).call(vec![local]),
                crate::types::timestamp_type(time_zone),
            )
        } else {
            (local, DataType::Timestamp(TimeUnit::Microsecond, None))
        };
    }
}

/// A boolean meeting a number in an equality, cast to the number's type.
pub(crate) fn booleans_as_numbers(args: &mut [Expr], types: &mut [DataType]) {
    let Some(number) = types.iter().find(|t| t.is_numeric()).cloned() else {
        return;
    };
    for (a, t) in args.iter_mut().zip(types.iter_mut()) {
        if *t == DataType::Boolean {
            // (Through an INT: arrow casts no boolean to a decimal.)
            *a = cast(cast(a.clone(), DataType::Int32), number.clone());
            *t = number.clone();
        }
    }
}

/// Whether `t` holds a map at any depth (no equality and no order in Spark).
fn has_map(t: &DataType) -> bool {
    match t {
        DataType::Map(..) => true,
        DataType::List(f) | DataType::LargeList(f) | DataType::FixedSizeList(f, _) => {
            has_map(f.data_type())
        }
        DataType::Struct(fields) => fields.iter().any(|f| has_map(f.data_type())),
        _ => false,
    }
}

/// Spark's refusal of a comparison (`=`, `<`, `<=>`, `nullif`, ...) of `a` and `b` that
/// DataFusion would coerce: a date or timestamp with a number, a year-month interval with a
/// day-time one (BINARY_OP_DIFF_TYPES), a map at any depth (INVALID_ORDERING_TYPE).
pub(crate) fn check_comparable(
    a: &DataType,
    b: &DataType,
    op: &str,
    shown: &str,
) -> PlanResult<()> {
    use DataType::{Date32, Duration, Interval, Timestamp};
    let datetime = |t: &DataType| matches!(t, Date32 | Timestamp(..));
    let number = |t: &DataType| t.is_numeric();
    let year_month =
        |t: &DataType| matches!(t, Interval(arrow::datatypes::IntervalUnit::YearMonth));
    let day_time = |t: &DataType| matches!(t, Duration(_));
    if let Some(t) = [a, b].into_iter().find(|t| has_map(t)) {
        return Err(SparkError::analysis(
            "DATATYPE_MISMATCH.INVALID_ORDERING_TYPE",
            "42K09",
            format!(
                "Cannot resolve \"{shown}\" due to data type mismatch: The `{op}` does not support ordering on type \"{}\".",
                crate::types::sql_name(t)
            ),
        )
        .into());
    }
    let differ = (datetime(a) && number(b))
        || (number(a) && datetime(b))
        || (year_month(a) && day_time(b))
        || (day_time(a) && year_month(b));
    if !differ {
        return Ok(());
    }
    Err(binary_op_diff_types(shown, a, b))
}

/// Spark's BINARY_OP_DIFF_TYPES of the binary operator shown as `shown` on `a` and `b`.
pub(crate) fn binary_op_diff_types(
    shown: &str,
    a: &DataType,
    b: &DataType,
) -> crate::error::PlanError {
    SparkError::analysis(
        "DATATYPE_MISMATCH.BINARY_OP_DIFF_TYPES",
        "42K09",
        format!(
            "Cannot resolve \"{shown}\" due to data type mismatch: the left and right operands of the binary operator have incompatible types (\"{}\" and \"{}\").",
            crate::types::sql_name(a),
            crate::types::sql_name(b)
        ),
    )
    .into()
}

/// Spark's refusal of an IN list of values with no common type that DataFusion would coerce
/// (DATA_DIFF_TYPES): those [`check_comparable`] refuses, and booleans with numbers.
pub(crate) fn check_in_types(types: &[DataType], shown: &str) -> PlanResult<()> {
    let Some(value) = types.first() else {
        return Ok(());
    };
    let refused = types[1..].iter().any(|t| {
        check_comparable(value, t, "in", shown).is_err()
            || (*value == DataType::Boolean && t.is_numeric())
            || (value.is_numeric() && *t == DataType::Boolean)
    });
    if !refused {
        return Ok(());
    }
    let names: Vec<String> = types
        .iter()
        .map(|t| format!("\"{}\"", crate::types::sql_name(t)))
        .collect();
    Err(SparkError::analysis(
        "DATATYPE_MISMATCH.DATA_DIFF_TYPES",
        "42K09",
        format!(
            "Cannot resolve \"{shown}\" due to data type mismatch: Input to `in` should all be the same type, but it's [{}].",
            names.join(", ")
        ),
    )
    .into())
}
