//! Plans for the optimizer rules' unit tests: tables of BIGINT columns, and a plan optimized by
//! one rule.

use std::sync::Arc;

use arrow::datatypes::{DataType, Field, Schema};
use datafusion::logical_expr::{LogicalPlan, LogicalPlanBuilder, table_scan};
use datafusion::optimizer::{Optimizer, OptimizerContext, OptimizerRule};

/// A scan of table `name` with BIGINT `columns`.
pub(super) fn scan(name: &str, columns: &[&str]) -> LogicalPlanBuilder {
    let fields: Vec<Field> = columns
        .iter()
        .map(|c| Field::new(*c, DataType::Int64, true))
        .collect();
    table_scan(Some(name), &Schema::new(fields), None).unwrap()
}

/// `plan` optimized by `rule` alone.
pub(super) fn optimize(
    rule: impl OptimizerRule + Send + Sync + 'static,
    plan: LogicalPlan,
) -> LogicalPlan {
    Optimizer::with_rules(vec![Arc::new(rule)])
        .optimize(plan, &OptimizerContext::new(), |_, _| {})
        .unwrap()
}
