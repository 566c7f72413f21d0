//! `RescaleExec`: fewer partitions without a shuffle (Spark's `coalesce(n)`): output
//! partition `i` concatenates a contiguous range of input partitions.

use std::fmt;
use std::sync::Arc;

use crate::codec::{EncodedNode, NodeDecoder, NodeEncoder, one_input};
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::common::{Result, internal_err};
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_expr::{EquivalenceProperties, PhysicalExpr};
use datafusion::physical_plan::execution_plan::{Boundedness, EmissionType, SchedulingType};
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, ExecutionPlan, ExecutionPlanProperties, Partitioning,
    PlanProperties,
};
use futures::StreamExt;

#[derive(Debug)]
pub struct RescaleExec {
    input: Arc<dyn ExecutionPlan>,
    partitions: usize,
    properties: Arc<PlanProperties>,
}

impl RescaleExec {
    pub fn new(input: Arc<dyn ExecutionPlan>, partitions: usize) -> Self {
        let partitions = partitions.max(1);
        let properties = Arc::new(
            PlanProperties::new(
                EquivalenceProperties::new(input.schema()),
                Partitioning::UnknownPartitioning(partitions),
                EmissionType::Incremental,
                Boundedness::Bounded,
            )
            .with_scheduling_type(SchedulingType::Cooperative),
        );
        Self {
            input,
            partitions,
            properties,
        }
    }

    pub fn input(&self) -> &Arc<dyn ExecutionPlan> {
        &self.input
    }

    /// Input partitions `[start, end)` read by output partition `partition`.
    pub fn range(
        partition: usize,
        input_partitions: usize,
        output_partitions: usize,
    ) -> (usize, usize) {
        let out = output_partitions.max(1);
        (
            partition * input_partitions / out,
            (partition + 1) * input_partitions / out,
        )
    }
}

impl DisplayAs for RescaleExec {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "RescaleExec: partitions={}", self.partitions)
    }
}

impl ExecutionPlan for RescaleExec {
    fn name(&self) -> &str {
        "RescaleExec"
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        &self.properties
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        vec![&self.input]
    }

    fn apply_expressions(
        &self,
        _f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> Result<TreeNodeRecursion>,
    ) -> Result<TreeNodeRecursion> {
        Ok(TreeNodeRecursion::Continue)
    }

    fn with_new_children(
        self: Arc<Self>,
        mut children: Vec<Arc<dyn ExecutionPlan>>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        match children.pop() {
            Some(child) if children.is_empty() => Ok(Arc::new(Self::new(child, self.partitions))),
            _ => internal_err!("RescaleExec takes one child"),
        }
    }

    fn execute(
        &self,
        partition: usize,
        context: Arc<TaskContext>,
    ) -> Result<SendableRecordBatchStream> {
        let (start, end) = Self::range(
            partition,
            self.input.output_partitioning().partition_count(),
            self.partitions,
        );
        let streams = (start..end)
            .map(|p| self.input.execute(p, context.clone()))
            .collect::<Result<Vec<_>>>()?;
        let schema = self.input.schema();
        Ok(Box::pin(RecordBatchStreamAdapter::new(
            schema,
            futures::stream::iter(streams).flatten(),
        )))
    }
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct RescaleMessage {
    #[prost(uint32, tag = "1")]
    partitions: u32,
}

impl EncodedNode for RescaleExec {
    const NAME: &'static str = "rescale";
    type Message = RescaleMessage;

    fn to_message(&self, _encoder: &NodeEncoder) -> Result<RescaleMessage> {
        Ok(RescaleMessage {
            partitions: self.properties().output_partitioning().partition_count() as u32,
        })
    }

    fn from_message(
        r: RescaleMessage,
        inputs: &[Arc<dyn ExecutionPlan>],
        _decoder: &NodeDecoder,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        Ok(Arc::new(RescaleExec::new(
            one_input(inputs)?,
            r.partitions as usize,
        )))
    }
}
