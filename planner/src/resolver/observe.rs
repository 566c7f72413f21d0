//! `df.observe(name, *metrics)` (Spark's CollectMetrics): the relation passes its input's
//! rows through; the metrics are aggregates over those rows that the server computes once
//! the query has finished and sends to the client as observed metrics.

use datafusion::common::tree_node::{TreeNode, TreeNodeRecursion};
use datafusion::logical_expr::{Expr, LogicalPlan};

use super::Resolver;
use crate::error::{PlanResult, SparkError};
use crate::spec::{self, Expr as SExpr, GroupType, Plan, PlanNode};

/// The metrics of one `observe`: an aggregation of the observed relation to one row.
#[derive(Debug, Clone)]
pub struct Observation {
    pub name: String,
    pub plan_id: i64,
    pub plan: LogicalPlan,
    /// The metrics' names, in the order of the plan's columns.
    pub keys: Vec<String>,
}

impl Resolver<'_> {
    /// Register the metrics observed on `input` (already resolved) under `name`.
    pub(crate) fn observe(
        &mut self,
        input: &LogicalPlan,
        name: &str,
        metrics: &[SExpr],
        plan_id: Option<i64>,
    ) -> PlanResult<()> {
        let schema = input.schema().clone();
        let items = self.resolve_items(metrics, &schema)?;
        for (metric, (resolved, _)) in metrics.iter().zip(&items) {
            self.check_metric(metric, resolved, &schema)?;
        }
        let aggregate = spec::Aggregate {
            input: Box::new(Plan::new(PlanNode::OneRow)),
            group_type: GroupType::GroupBy,
            grouping: vec![],
            aggregates: metrics.to_vec(),
            grouping_sets: vec![],
            pivot: None,
            having: None,
            output_grouping: true,
        };
        let plan = self.aggregate_resolved(input.clone(), &aggregate)?;
        let keys = self.output_names(plan.schema());
        if !self.observations.iter().any(|o| o.name == name) {
            self.observations.push(Observation {
                name: name.to_string(),
                plan_id: plan_id.unwrap_or_default(),
                plan,
                keys,
            });
        }
        Ok(())
    }

    /// Spark's checks of an observed metric: columns only inside aggregate functions, and
    /// no DISTINCT aggregates.
    fn check_metric(
        &mut self,
        metric: &SExpr,
        resolved: &Expr,
        schema: &datafusion::common::DFSchema,
    ) -> PlanResult<()> {
        let mut problem = None;
        resolved.apply(|e| {
            Ok(match e {
                Expr::AggregateFunction(f) => {
                    if f.params.distinct {
                        problem = Some("AGGREGATE_EXPRESSION_WITH_DISTINCT_UNSUPPORTED");
                        TreeNodeRecursion::Stop
                    } else {
                        TreeNodeRecursion::Jump
                    }
                }
                Expr::Column(_) => {
                    problem = Some("NON_AGGREGATE_FUNC_ARG_IS_ATTRIBUTE");
                    TreeNodeRecursion::Stop
                }
                _ => TreeNodeRecursion::Continue,
            })
        })?;
        let Some(subclass) = problem else {
            return Ok(());
        };
        let text = match metric {
            SExpr::Alias { expr, names, .. } => {
                let inner = self.resolve_expr(expr, schema)?.1;
                format!("{inner} AS {}", names.join(", "))
            }
            other => self.resolve_expr(other, schema)?.1,
        };
        let message = match subclass {
            "AGGREGATE_EXPRESSION_WITH_DISTINCT_UNSUPPORTED" => format!(
                "Invalid observed metrics. Aggregate expressions with DISTINCT are not allowed in observed metrics, but found: \"{text}\"."
            ),
            _ => format!(
                "Invalid observed metrics. Attribute \"{text}\" can only be used as an argument to an aggregate function."
            ),
        };
        Err(SparkError::analysis(
            &format!("INVALID_OBSERVED_METRICS.{subclass}"),
            "42K0E",
            message,
        )
        .into())
    }
}
