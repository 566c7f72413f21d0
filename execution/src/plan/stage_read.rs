//! `StageReadExec`: a task's view of an input stage. Partition `k` reads, in order, the
//! streams the driver assigned to it (by the input mode's channel mapping).

use std::fmt;
use std::sync::Arc;

use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::common::{Result, internal_err};
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{DisplayAs, DisplayFormatType, ExecutionPlan, PlanProperties};
use futures::StreamExt;

use crate::stream::{StreamRef, StreamSource};

#[derive(Debug)]
pub struct StageReadExec {
    index: usize,
    partitions: Vec<Vec<StreamRef>>,
    source: Arc<dyn StreamSource>,
    properties: Arc<PlanProperties>,
}

impl StageReadExec {
    pub fn new(
        index: usize,
        partitions: Vec<Vec<StreamRef>>,
        source: Arc<dyn StreamSource>,
        properties: Arc<PlanProperties>,
    ) -> Self {
        Self {
            index,
            partitions,
            source,
            properties,
        }
    }
}

impl DisplayAs for StageReadExec {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "StageReadExec: input={}", self.index)
    }
}

impl ExecutionPlan for StageReadExec {
    fn name(&self) -> &str {
        "StageReadExec"
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
        partition: usize,
        _context: Arc<TaskContext>,
    ) -> Result<SendableRecordBatchStream> {
        let Some(refs) = self.partitions.get(partition) else {
            return internal_err!("stage input {} has no partition {partition}", self.index);
        };
        let schema = self.schema();
        let streams = refs
            .iter()
            .map(|r| self.source.open(r, schema.clone()))
            .collect::<Result<Vec<_>>>()?;
        Ok(Box::pin(RecordBatchStreamAdapter::new(
            schema,
            futures::stream::iter(streams).flatten(),
        )))
    }
}
