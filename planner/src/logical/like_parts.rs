//! Filters by `LIKE` patterns of several parts between `%` (`'%special%requests%'`) run
//! through `functions::native::like_segments` instead of arrow's regular expression, which is
//! compiled again for every batch. Only in filters, where no column is named after the
//! expression; TPC-H q13 and q16 filter so.

use datafusion::common::tree_node::{Transformed, TreeNode};
use datafusion::common::{DFSchema, Result, ScalarValue};
use datafusion::logical_expr::expr::Like;
use datafusion::logical_expr::{Expr, ExprSchemable, LogicalPlan};
use datafusion::optimizer::{ApplyOrder, OptimizerConfig, OptimizerRule};

use crate::functions::native::{Native, NativeUdf, like_segments};

#[derive(Debug, Default)]
pub struct LikeOfParts;

impl OptimizerRule for LikeOfParts {
    fn name(&self) -> &str {
        "ember_like_of_parts"
    }

    fn apply_order(&self) -> Option<ApplyOrder> {
        Some(ApplyOrder::TopDown)
    }

    fn rewrite(
        &self,
        plan: LogicalPlan,
        _config: &dyn OptimizerConfig,
    ) -> Result<Transformed<LogicalPlan>> {
        let LogicalPlan::Filter(filter) = &plan else {
            return Ok(Transformed::no(plan));
        };
        let schema = std::sync::Arc::clone(filter.input.schema());
        plan.map_expressions(|predicate| predicate.transform(|e| of_parts(e, &schema)))
    }
}

fn of_parts(expr: Expr, schema: &DFSchema) -> Result<Transformed<Expr>> {
    let Expr::Like(Like {
        negated,
        expr: text,
        pattern,
        escape_char,
        case_insensitive: false,
    }) = &expr
    else {
        return Ok(Transformed::no(expr));
    };
    let pattern = match pattern.as_ref() {
        Expr::Literal(
            ScalarValue::Utf8(Some(p))
            | ScalarValue::LargeUtf8(Some(p))
            | ScalarValue::Utf8View(Some(p)),
            _,
        ) => p,
        _ => return Ok(Transformed::no(expr)),
    };
    let text_is_string = text.get_type(schema).is_ok_and(|t| t.is_string());
    if !text_is_string
        || !like_segments::serves(pattern)
        || escape_char.is_some_and(|c| pattern.contains(c))
    {
        return Ok(Transformed::no(expr));
    }
    let call = NativeUdf::udf(Native::LikeSegments {
        pattern: pattern.clone(),
    })
    .call(vec![text.as_ref().clone()]);
    Ok(Transformed::yes(if *negated {
        Expr::Not(Box::new(call))
    } else {
        call
    }))
}
