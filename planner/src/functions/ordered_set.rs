//! Spark's ordered-set aggregates, `f(p) WITHIN GROUP (ORDER BY x [DESC])`: `percentile_cont`
//! (interpolated) and `percentile_disc` (the first value whose cumulative distribution reaches
//! `p`), both of `x` as DOUBLE; `mode() WITHIN GROUP (ORDER BY x)` is `mode`'s (see
//! `aggregate.rs`).

use arrow::datatypes::DataType;
use datafusion::logical_expr::expr::Sort;
use datafusion::logical_expr::{Expr, cast, lit};

use super::aggregate::{agg_double, df, exact_percentile, percentiles};
use super::{FunctionInput, Naming, RegistryBuilder};
use crate::error::{PlanResult, SparkError};

pub fn register(b: &mut RegistryBuilder) {
    for (name, discrete) in [("percentile_cont", false), ("percentile_disc", true)] {
        b.add_named_aggregate(&[name], Naming::Call, move |mut f| {
            let sort = ordering(&f, 1)?;
            f.arity(1, 1)?;
            // The ordering is read here: the aggregates below see plain arguments.
            f.order_by.clear();
            let descending = !sort.asc;
            f.args.insert(0, cast(sort.expr, DataType::Float64));
            percentiles(
                f,
                move |mut f| {
                    let p = cast(f.args.remove(1), DataType::Float64);
                    if discrete {
                        let x = f.args.remove(0);
                        return exact_percentile(x, p, f.filter.take(), descending);
                    }
                    // Interpolated: the fraction p from the end is 1 - p from the start.
                    f.args.push(if descending { lit(1.0) - p } else { p });
                    agg_double(f, df("percentile_cont"))
                },
                2,
                2,
            )
        });
    }
}

/// The orderings of `WITHIN GROUP` an ordered-set aggregate takes: its one ordering when it
/// takes one (`wanted` 1), else none; INVALID_WITHIN_GROUP_EXPRESSION for others.
pub(super) fn ordering(f: &FunctionInput, wanted: usize) -> PlanResult<Sort> {
    let name = f.name;
    match (f.order_by.as_slice(), wanted) {
        ([sort], 1) => Ok(sort.clone()),
        ([], 1) => Err(SparkError::analysis(
            "INVALID_WITHIN_GROUP_EXPRESSION.WITHIN_GROUP_MISSING",
            "42K0K",
            format!(
                "Invalid function `{name}` with WITHIN GROUP. WITHIN GROUP is required for the function."
            ),
        )
        .into()),
        (other, _) => Err(SparkError::analysis(
            "INVALID_WITHIN_GROUP_EXPRESSION.WRONG_NUM_ORDERINGS",
            "42K0K",
            format!(
                "Invalid function `{name}` with WITHIN GROUP. The function requires {wanted} orderings in WITHIN GROUP but got {}.",
                other.len()
            ),
        )
        .into()),
    }
}

/// `mode(x[, deterministic])`: the most frequent non-NULL value (the first seen among ties; the
/// least when deterministic, which Spark names `mode() WITHIN GROUP (ORDER BY x DESC)`).
pub(super) fn mode(mut f: FunctionInput) -> PlanResult<Expr> {
    // `mode() WITHIN GROUP (ORDER BY x [DESC])`: the least (greatest) among ties.
    if !f.order_by.is_empty() {
        let sort = ordering(&f, usize::from(f.args.is_empty()))?;
        let values = super::aggregate::present_values(sort.expr, f.filter)?;
        let order = lit(if sort.asc { "ASC" } else { "DESC" });
        let values = super::df_udf("array_sort")?.call(vec![values, order]);
        return Ok(
            super::native::NativeUdf::udf(super::native::Native::ArrayMode { sorted: true })
                .call(vec![values]),
        );
    }
    // `mode()` takes its value from WITHIN GROUP.
    if f.args.is_empty() {
        ordering(&f, 1)?;
    }
    f.arity(1, 2)?;
    let deterministic = match (f.args.get(1), f.types.get(1)) {
        (None, _) => false,
        (Some(Expr::Literal(datafusion::common::ScalarValue::Boolean(b), _)), _) => {
            b.unwrap_or(false)
        }
        (Some(flag), Some(DataType::Boolean)) if flag.column_refs().is_empty() => {
            match crate::resolver::fold_constants(flag.clone())? {
                Expr::Literal(datafusion::common::ScalarValue::Boolean(b), _) => b.unwrap_or(false),
                _ => {
                    return Err(crate::error::PlanError::Unsupported(
                        "mode with a computed deterministic flag".into(),
                    ));
                }
            }
        }
        (Some(_), Some(DataType::Boolean)) => {
            return Err(crate::error::SparkError::analysis(
                "NON_FOLDABLE_ARGUMENT",
                "42K08",
                "The function `mode` requires the parameter `deterministic` to be a foldable expression of the type \"BOOLEAN\", but the actual argument is a non-foldable.",
            )
            .into());
        }
        (Some(_), t) => {
            let shown = t.map(crate::types::sql_name).unwrap_or_default();
            return Err(crate::error::SparkError::analysis(
                "UNEXPECTED_INPUT_TYPE",
                "42K09",
                format!(
                    "Parameter second of function `mode` requires the \"BOOLEAN\" type, however \"{}\" has the type \"{shown}\".",
                    f.arg_name(1)
                ),
            )
            .into());
        }
    };
    let mut values = super::aggregate::present_values(f.args.remove(0), f.filter)?;
    if deterministic {
        values = super::df_udf("array_sort")?.call(vec![values]);
    }
    let kind = super::native::Native::ArrayMode {
        sorted: deterministic,
    };
    Ok(super::native::NativeUdf::udf(kind).call(vec![values]))
}

/// `body` (a percentile or median of DOUBLE values) of an ANSI interval, as Spark's
/// `Percentile`: of its months or microseconds, each result truncated back to an interval of
/// the default fields (DAY TO SECOND or YEAR TO MONTH, whatever the argument's). Other types
/// go to `body` as they are.
pub(super) fn of_interval_counts(
    mut f: FunctionInput,
    body: impl FnOnce(FunctionInput) -> PlanResult<datafusion::logical_expr::Expr>,
) -> PlanResult<datafusion::logical_expr::Expr> {
    use super::native::{Native, NativeUdf};
    use datafusion::common::ScalarValue;
    let Some(fields) = f
        .types
        .first()
        .and_then(crate::interval::IntervalFields::default_of)
    else {
        return body(f);
    };
    let (Some(x), Some(t)) = (f.args.first_mut(), f.types.first_mut()) else {
        return body(f);
    };
    *x = NativeUdf::udf(Native::CheckedIntegerCast {
        from: fields.sql_name(),
        to: "BIGINT".into(),
        unit: 1,
        arithmetic: false,
    })
    .call(vec![x.clone()]);
    *t = DataType::Int64;
    let count = cast(body(f)?, DataType::Int64);
    let one = if fields.year_month {
        ScalarValue::IntervalYearMonth(Some(1))
    } else {
        ScalarValue::DurationMicrosecond(Some(1))
    };
    Ok(NativeUdf::udf(Native::NumberToInterval {
        cast: ("BIGINT".into(), fields.sql_name()),
    })
    .call(vec![lit(one), count]))
}
