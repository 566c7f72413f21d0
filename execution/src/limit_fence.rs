//! A LIMIT keeps its place below a sort. Spark's `df.limit(3).orderBy("x")` takes the first
//! three rows (in partition order) and sorts those; DataFusion 55's sort pushdown
//! (`EnsureRequirements`) moves a sort below a limit whose input has no ordering, turning the
//! query into "the top three of all rows" (`range(10).limit(3).orderBy(desc("id"))` gave
//! 7, 6, 5 instead of 2, 1, 0). [`FenceLimits`], run before DataFusion's rules, puts a
//! [`LimitFenceExec`] over every such limit that has a parent: a pass-through node that does
//! not claim to keep its input's order, so no ordering requirement is pushed through it.
//! [`remove_fences`] takes them out again once DataFusion's rules have run. Upstream:
//! apache/datafusion#25378 (fix proposed in #25408); remove this module once a DataFusion
//! release keeps such sorts above their limits.

use std::fmt;
use std::sync::Arc;

use datafusion::common::Result;
use datafusion::common::config::ConfigOptions;
use datafusion::common::tree_node::{Transformed, TreeNode, TreeNodeRecursion};
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_expr::{EquivalenceProperties, PhysicalExpr};
use datafusion::physical_optimizer::PhysicalOptimizerRule;
use datafusion::physical_plan::limit::GlobalLimitExec;
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, ExecutionPlan, ExecutionPlanProperties, PlanProperties,
    replace_children_if_necessary,
};

/// Fences the limits that have a parent and an unordered input (see the module docs).
#[derive(Debug, Default)]
pub struct FenceLimits;

impl PhysicalOptimizerRule for FenceLimits {
    fn optimize(
        &self,
        plan: Arc<dyn ExecutionPlan>,
        _config: &ConfigOptions,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        // (Fences go over children: the root's own limit has no parent to push a sort below it.)
        plan.transform_up(fence_children).map(|t| t.data)
    }

    fn name(&self) -> &str {
        "fence_limits"
    }

    fn schema_check(&self) -> bool {
        true
    }
}

fn needs_fence(plan: &Arc<dyn ExecutionPlan>) -> bool {
    plan.downcast_ref::<GlobalLimitExec>()
        .is_some_and(|limit| limit.input().output_ordering().is_none())
}

/// `node` with a fence over each child that needs one.
fn fence_children(node: Arc<dyn ExecutionPlan>) -> Result<Transformed<Arc<dyn ExecutionPlan>>> {
    if node.is::<LimitFenceExec>() || !node.children().iter().any(|c| needs_fence(c)) {
        return Ok(Transformed::no(node));
    }
    let children = node
        .children()
        .into_iter()
        .map(|c| {
            if needs_fence(c) {
                Arc::new(LimitFenceExec::new(c.clone())) as Arc<dyn ExecutionPlan>
            } else {
                c.clone()
            }
        })
        .collect();
    Ok(Transformed::yes(replace_children_if_necessary(
        node, children,
    )?))
}

/// `plan` without its fences.
pub fn remove_fences(plan: Arc<dyn ExecutionPlan>) -> Result<Arc<dyn ExecutionPlan>> {
    plan.transform_up(|node| match node.downcast_ref::<LimitFenceExec>() {
        Some(fence) => Ok(Transformed::yes(fence.input.clone())),
        None => Ok(Transformed::no(node)),
    })
    .map(|t| t.data)
}

/// Passes its input through; claims no order, so sorts stay above it.
#[derive(Debug)]
pub struct LimitFenceExec {
    input: Arc<dyn ExecutionPlan>,
    properties: Arc<PlanProperties>,
}

impl LimitFenceExec {
    fn new(input: Arc<dyn ExecutionPlan>) -> Self {
        let properties = Arc::new(PlanProperties::new(
            EquivalenceProperties::new(input.schema()),
            input.output_partitioning().clone(),
            input.pipeline_behavior(),
            input.boundedness(),
        ));
        Self { input, properties }
    }
}

impl DisplayAs for LimitFenceExec {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "LimitFenceExec")
    }
}

impl ExecutionPlan for LimitFenceExec {
    fn name(&self) -> &str {
        "LimitFenceExec"
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        &self.properties
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        vec![&self.input]
    }

    fn maintains_input_order(&self) -> Vec<bool> {
        vec![false]
    }

    fn apply_expressions(
        &self,
        _f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> Result<TreeNodeRecursion>,
    ) -> Result<TreeNodeRecursion> {
        Ok(TreeNodeRecursion::Continue)
    }

    fn with_new_children(
        self: Arc<Self>,
        children: Vec<Arc<dyn ExecutionPlan>>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        match children.as_slice() {
            [child] => Ok(Arc::new(Self::new(child.clone()))),
            _ => datafusion::common::internal_err!("LimitFenceExec has one child"),
        }
    }

    fn execute(
        &self,
        partition: usize,
        context: Arc<TaskContext>,
    ) -> Result<SendableRecordBatchStream> {
        self.input.execute(partition, context)
    }
}

/// DataFusion's physical optimizer rules, [`FenceLimits`] first.
pub fn fenced_default_rules() -> Vec<Arc<dyn PhysicalOptimizerRule + Send + Sync>> {
    let mut rules: Vec<Arc<dyn PhysicalOptimizerRule + Send + Sync>> = vec![Arc::new(FenceLimits)];
    rules.extend(datafusion::physical_optimizer::optimizer::PhysicalOptimizer::new().rules);
    rules
}
