//! `StageInputExec`: where a stage reads another stage's output. It is a placeholder in a
//! stage's plan, replaced by a [`StageReadExec`](super::StageReadExec) when a task runs;
//! executing it directly is an error.

use std::fmt;
use std::sync::Arc;

use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::common::{Result, internal_err};
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_plan::{DisplayAs, DisplayFormatType, ExecutionPlan, PlanProperties};

/// The placeholder for input number `index` of the stage, with the properties (schema,
/// partitioning, ordering) the plan above it was planned with.
#[derive(Debug, Clone)]
pub struct StageInputExec {
    index: usize,
    properties: Arc<PlanProperties>,
}

impl StageInputExec {
    pub fn new(index: usize, properties: Arc<PlanProperties>) -> Self {
        Self { index, properties }
    }

    pub fn index(&self) -> usize {
        self.index
    }
}

impl DisplayAs for StageInputExec {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "StageInputExec: input={}", self.index)
    }
}

impl ExecutionPlan for StageInputExec {
    fn name(&self) -> &str {
        "StageInputExec"
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        &self.properties
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        vec![]
    }

    fn apply_expressions(
        &self,
        _f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> Result<TreeNodeRecursion>,
    ) -> Result<TreeNodeRecursion> {
        Ok(TreeNodeRecursion::Continue)
    }

    fn with_new_children(
        self: Arc<Self>,
        _children: Vec<Arc<dyn ExecutionPlan>>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        Ok(self)
    }

    fn execute(
        &self,
        _partition: usize,
        _context: Arc<TaskContext>,
    ) -> Result<SendableRecordBatchStream> {
        internal_err!(
            "StageInputExec {} must be resolved before execution",
            self.index
        )
    }
}
