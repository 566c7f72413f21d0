//! Aggregate functions.

use std::sync::Arc;

use arrow::datatypes::DataType;
use datafusion::logical_expr::expr::{AggregateFunction, NullTreatment};
use datafusion::logical_expr::{AggregateUDF, Expr, cast, lit};

use super::{FunctionInput, Naming, RegistryBuilder, datafusion_aggregate, spark_aggregate};
use crate::error::{PlanError, PlanResult};

pub fn register(b: &mut RegistryBuilder) {
    b.aggregate(&["count"], |mut f| {
        if f.args.is_empty() {
            f.args.push(lit(1i64));
        }
        f.args = count_tuple(std::mem::take(&mut f.args));
        agg(f, df("count"), 1, usize::MAX)
    });
    b.add(
        &["count_distinct", "countdistinct"],
        super::FunctionKind::Aggregate,
        Naming::Custom(|_, a, _| format!("count(DISTINCT {})", a.join(", "))),
        Arc::new(|mut f: FunctionInput| {
            f.distinct = true;
            f.args = count_tuple(std::mem::take(&mut f.args));
            agg(f, df("count"), 1, usize::MAX)
        }),
    );
    b.aggregate(&["sum"], |f| agg(f, df("sum"), 1, 1));
    b.aggregate(&["avg", "mean"], |f| agg(f, df("avg"), 1, 1));
    b.aggregate(&["min"], |f| agg(f, df("min"), 1, 1));
    b.aggregate(&["max"], |f| agg(f, df("max"), 1, 1));
    b.aggregate(&["first", "first_value"], |f| first_last(f, "first_value"));
    b.aggregate(&["last", "last_value"], |f| first_last(f, "last_value"));
    b.aggregate(&["any_value"], |f| first_last(f, "first_value"));
    b.aggregate(&["collect_list", "array_agg"], |f| {
        agg(f, spark("collect_list"), 1, 1)
    });
    b.aggregate(&["collect_set"], |f| agg(f, spark("collect_set"), 1, 1));
    b.aggregate(&["stddev", "std", "stddev_samp"], |f| {
        agg_double(f, df("stddev"))
    });
    b.aggregate(&["stddev_pop"], |f| agg_double(f, df("stddev_pop")));
    b.aggregate(&["variance", "var_samp"], |f| agg_double(f, df("var")));
    b.aggregate(&["var_pop"], |f| agg_double(f, df("var_pop")));
    b.aggregate(&["corr"], |f| agg_double(f, df("corr")));
    b.aggregate(&["covar_samp"], |f| agg_double(f, df("covar_samp")));
    b.aggregate(&["covar_pop"], |f| agg_double(f, df("covar_pop")));
    b.aggregate(&["approx_count_distinct"], |mut f| {
        f.args.truncate(1);
        agg(f, df("approx_distinct"), 1, 1)
    });
    b.aggregate(&["bool_and", "every"], |f| agg(f, df("bool_and"), 1, 1));
    b.aggregate(&["bool_or", "some", "any"], |f| agg(f, df("bool_or"), 1, 1));
    b.aggregate(&["median"], |f| agg_double(f, df("median")));
    b.aggregate(&["try_sum"], |f| agg(f, spark("try_sum"), 1, 1));
    b.aggregate(&["bit_and"], |f| agg(f, df("bit_and"), 1, 1));
    b.aggregate(&["bit_or"], |f| agg(f, df("bit_or"), 1, 1));
    b.aggregate(&["bit_xor"], |f| agg(f, df("bit_xor"), 1, 1));
    // Whether a grouping column is aggregated away in this row of ROLLUP/CUBE/GROUPING SETS
    // (DataFusion resolves them against the grouping sets).
    b.aggregate(&["grouping"], |f| {
        Ok(cast(agg(f, df("grouping"), 1, 1)?, DataType::Int8))
    });
    // Without arguments: every grouping column (filled in by the aggregation).
    b.aggregate(&["grouping_id"], |f| {
        Ok(cast(
            agg(f, df("grouping"), 0, usize::MAX)?,
            DataType::Int64,
        ))
    });
}

fn df(name: &str) -> PlanResult<Arc<AggregateUDF>> {
    datafusion_aggregate(name).ok_or_else(|| PlanError::Unsupported(format!("aggregate {name}")))
}

fn spark(name: &str) -> PlanResult<Arc<AggregateUDF>> {
    spark_aggregate(name).ok_or_else(|| PlanError::Unsupported(format!("aggregate {name}")))
}

/// An aggregate call with the common options (DISTINCT, FILTER, IGNORE NULLS).
pub(crate) fn agg(
    f: FunctionInput,
    udaf: PlanResult<Arc<AggregateUDF>>,
    min: usize,
    max: usize,
) -> PlanResult<Expr> {
    f.arity(min, max)?;
    let null_treatment = f.ignore_nulls.map(|ignore| {
        if ignore {
            NullTreatment::IgnoreNulls
        } else {
            NullTreatment::RespectNulls
        }
    });
    Ok(Expr::AggregateFunction(AggregateFunction::new_udf(
        udaf?,
        f.args,
        f.distinct,
        f.filter.map(Box::new),
        vec![],
        null_treatment,
    )))
}

fn agg_double(mut f: FunctionInput, udaf: PlanResult<Arc<AggregateUDF>>) -> PlanResult<Expr> {
    f.args = f
        .args
        .into_iter()
        .map(|a| cast(a, DataType::Float64))
        .collect();
    let n = f.args.len().max(1);
    agg(f, udaf, n, n)
}

/// `first(x[, ignoreNulls])` / `last(...)`.
fn first_last(mut f: FunctionInput, name: &str) -> PlanResult<Expr> {
    f.arity(1, 2)?;
    if f.args.len() == 2 {
        let flag = f.args.pop();
        let ignore = match flag {
            Some(Expr::Literal(datafusion::common::ScalarValue::Boolean(Some(b)), _)) => b,
            _ => {
                return Err(PlanError::Unsupported(format!(
                    "{name} with a non-literal ignoreNulls"
                )));
            }
        };
        f.ignore_nulls = Some(ignore);
    }
    let ignore = f.ignore_nulls.unwrap_or(false);
    f.ignore_nulls = Some(ignore);
    agg(f, df(name), 1, 1)
}

/// `count(a, b, ...)` counts the rows where no argument is NULL (distinct tuples with
/// DISTINCT): one struct of the arguments, NULL when any of them is.
fn count_tuple(args: Vec<Expr>) -> Vec<Expr> {
    if args.len() < 2 {
        return args;
    }
    let all_present = args
        .iter()
        .map(|a| a.clone().is_not_null())
        .reduce(Expr::and)
        .unwrap_or_else(|| lit(true));
    let tuple = datafusion::functions::core::expr_fn::r#struct(args);
    vec![Expr::Case(datafusion::logical_expr::expr::Case::new(
        None,
        vec![(Box::new(all_present), Box::new(tuple))],
        None,
    ))]
}
