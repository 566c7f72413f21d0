//! Physical rewrites for Spark's semantics that DataFusion's planner does not know about.

use std::sync::Arc;

use datafusion::common::Result;
use datafusion::common::config::ConfigOptions;
use datafusion::common::tree_node::{Transformed, TreeNode};
use datafusion::datasource::source::DataSourceExec;
use datafusion::functions::core::input_file_name::InputFileNameFunc;
use datafusion::physical_expr::ScalarFunctionExpr;
use datafusion::physical_optimizer::PhysicalOptimizerRule;
use datafusion::physical_plan::ExecutionPlan;
use datafusion::physical_plan::coalesce_partitions::CoalescePartitionsExec;
use datafusion::physical_plan::limit::GlobalLimitExec;
use datafusion::physical_plan::projection::ProjectionExec;
use datafusion::physical_plan::repartition::RepartitionExec;
use datafusion::physical_plan::{ExecutionPlanProperties, Partitioning, PhysicalExpr};

use crate::ordered::{LIMIT_BUFFER, OrderedCoalesceExec};

/// A global LIMIT takes the first rows in partition order, as Spark's CollectLimit does:
/// the coalescing below a limit (or carrying a pushed-down fetch) keeps partition order.
#[derive(Debug, Default)]
pub struct SparkLimitOrder;

impl PhysicalOptimizerRule for SparkLimitOrder {
    fn optimize(
        &self,
        plan: Arc<dyn ExecutionPlan>,
        _config: &ConfigOptions,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        // (The first of Ember's rules after DataFusion's: the fences have done their work.)
        let plan = crate::limit_fence::remove_fences(plan)?;
        plan.transform_down(|node| {
            if let Some(limit) = node.downcast_ref::<GlobalLimitExec>()
                && let Some(coalesce) = limit.input().downcast_ref::<CoalescePartitionsExec>()
            {
                let ordered = Arc::new(OrderedCoalesceExec::new(
                    coalesce.input().clone(),
                    coalesce.fetch(),
                    Some(LIMIT_BUFFER),
                ));
                let new_limit =
                    Arc::new(GlobalLimitExec::new(ordered, limit.skip(), limit.fetch()));
                return Ok(Transformed::yes(new_limit as Arc<dyn ExecutionPlan>));
            }
            if let Some(coalesce) = node.downcast_ref::<CoalescePartitionsExec>()
                && coalesce.fetch().is_some()
            {
                let ordered = Arc::new(OrderedCoalesceExec::new(
                    coalesce.input().clone(),
                    coalesce.fetch(),
                    Some(LIMIT_BUFFER),
                ));
                return Ok(Transformed::yes(ordered as Arc<dyn ExecutionPlan>));
            }
            Ok(Transformed::no(node))
        })?
        .data
        // A round-robin spread of a limit's output (DataFusion adds it for parallelism) would
        // interleave its batches: as in Spark, what follows a limit keeps the limit's order.
        .transform_up(|node| {
            if let Some(repartition) = node.downcast_ref::<RepartitionExec>()
                && matches!(repartition.partitioning(), Partitioning::RoundRobinBatch(_))
                && ordered_single_partition(repartition.input())
            {
                return Ok(Transformed::yes(repartition.input().clone()));
            }
            Ok(Transformed::no(node))
        })
        .map(|t| t.data)
    }

    fn name(&self) -> &str {
        "spark_limit_order"
    }

    fn schema_check(&self) -> bool {
        true
    }
}

/// Whether `plan` is one partition whose rows come in partition order from an
/// [`OrderedCoalesceExec`], or in the order a recursive CTE's steps make them (through nodes
/// of one input and one partition, e.g. a limit). (A round-robin spread of a recursive CTE
/// would also run its steps ahead of a LIMIT, which Spark's answers without them.)
fn ordered_single_partition(plan: &Arc<dyn ExecutionPlan>) -> bool {
    let mut node = plan;
    loop {
        if node.output_partitioning().partition_count() != 1 {
            return false;
        }
        if node.is::<OrderedCoalesceExec>() || node.is::<crate::plan::RecursionLimitExec>() {
            return true;
        }
        match node.children().as_slice() {
            [child] => node = child,
            _ => return false,
        }
    }
}

/// `input_file_name()` is known only inside the file scan that reads a row (DataFusion's scans
/// replace it by each file's location): a projection computing it stays in the scan, even
/// where DataFusion would compute it after spreading the scan's rows over more partitions
/// (a round-robin repartition of a scan of fewer files than partitions).
#[derive(Debug, Default)]
pub struct InputFileInScan;

impl PhysicalOptimizerRule for InputFileInScan {
    fn optimize(
        &self,
        plan: Arc<dyn ExecutionPlan>,
        _config: &ConfigOptions,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        plan.transform_up(|node| {
            let Some(projection) = node.downcast_ref::<ProjectionExec>() else {
                return Ok(Transformed::no(node));
            };
            let Some(repartition) = projection.input().downcast_ref::<RepartitionExec>() else {
                return Ok(Transformed::no(node));
            };
            let reads_file_name = projection
                .expr()
                .iter()
                .any(|p| calls_input_file_name(&p.expr));
            if !reads_file_name
                || !matches!(repartition.partitioning(), Partitioning::RoundRobinBatch(_))
                || !repartition.input().is::<DataSourceExec>()
            {
                return Ok(Transformed::no(node));
            }
            let below = ProjectionExec::try_new(
                projection.expr().iter().cloned(),
                repartition.input().clone(),
            )?;
            let Some(scan) = repartition.input().try_swapping_with_projection(&below)? else {
                return Ok(Transformed::no(node));
            };
            let spread = RepartitionExec::try_new(scan, repartition.partitioning().clone())?;
            Ok(Transformed::yes(Arc::new(spread) as Arc<dyn ExecutionPlan>))
        })
        .map(|t| t.data)
    }

    fn name(&self) -> &str {
        "input_file_in_scan"
    }

    fn schema_check(&self) -> bool {
        true
    }
}

fn calls_input_file_name(expr: &Arc<dyn PhysicalExpr>) -> bool {
    expr.exists(|e| {
        Ok(e.downcast_ref::<ScalarFunctionExpr>()
            .is_some_and(|f| f.fun().inner().is::<InputFileNameFunc>()))
    })
    .unwrap_or(false)
}
