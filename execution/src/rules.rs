//! Physical rewrites for Spark's semantics that DataFusion's planner does not know about.

use std::sync::Arc;

use datafusion::common::Result;
use datafusion::common::config::ConfigOptions;
use datafusion::common::tree_node::{Transformed, TreeNode};
use datafusion::physical_optimizer::PhysicalOptimizerRule;
use datafusion::physical_plan::ExecutionPlan;
use datafusion::physical_plan::coalesce_partitions::CoalescePartitionsExec;
use datafusion::physical_plan::limit::GlobalLimitExec;

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
