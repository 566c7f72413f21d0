//! `StageInputExec`: where a stage reads another stage's output. It is a placeholder in a
//! stage's plan, replaced by a [`StageReadExec`](super::StageReadExec) when a task runs;
//! executing it directly is an error.

use std::fmt;
use std::sync::Arc;

use arrow::datatypes::Schema;
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::common::{Result, internal_err};
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_expr::EquivalenceProperties;
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_plan::execution_plan::{Boundedness, EmissionType};
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, ExecutionPlan, Partitioning, PlanProperties,
};

use crate::codec::{EncodedNode, NodeDecoder, NodeEncoder};

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

/// A stage input on the wire: operators above it rely on its partitioning and ordering (for
/// example an interleave of hash-partitioned inputs), so they travel with it.
#[derive(Clone, PartialEq, prost::Message)]
pub struct StageInputMessage {
    #[prost(uint32, tag = "1")]
    index: u32,
    #[prost(message, optional, tag = "2")]
    schema: Option<datafusion_proto::protobuf::Schema>,
    #[prost(uint32, tag = "3")]
    partitions: u32,
    #[prost(message, optional, tag = "4")]
    partitioning: Option<datafusion_proto::protobuf::Partitioning>,
    /// The output ordering, if any.
    #[prost(message, repeated, tag = "5")]
    ordering: Vec<datafusion_proto::protobuf::PhysicalSortExprNode>,
}

impl EncodedNode for StageInputExec {
    const NAME: &'static str = "stage_input";
    type Message = StageInputMessage;

    fn to_message(&self, encoder: &NodeEncoder) -> Result<StageInputMessage> {
        let properties = self.properties();
        Ok(StageInputMessage {
            index: self.index as u32,
            schema: Some(datafusion_proto::protobuf::Schema::try_from(
                self.schema().as_ref(),
            )?),
            partitions: properties.output_partitioning().partition_count() as u32,
            partitioning: Some(encoder.partitioning(properties.output_partitioning())?),
            ordering: encoder.sort_exprs(properties.output_ordering())?,
        })
    }

    fn from_message(
        s: StageInputMessage,
        _inputs: &[Arc<dyn ExecutionPlan>],
        decoder: &NodeDecoder,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let Some(schema) = s.schema.as_ref() else {
            return internal_err!("stage input without schema");
        };
        let schema = Arc::new(Schema::try_from(schema)?);
        let partitioning = match &s.partitioning {
            Some(p) => decoder.partitioning(p, &schema)?,
            None => Partitioning::UnknownPartitioning(s.partitions as usize),
        };
        let equivalence = match decoder.sort_exprs(&s.ordering, &schema)? {
            Some(ordering) => EquivalenceProperties::new_with_orderings(schema, [ordering]),
            None => EquivalenceProperties::new(schema),
        };
        let properties = Arc::new(PlanProperties::new(
            equivalence,
            partitioning,
            EmissionType::Incremental,
            Boundedness::Bounded,
        ));
        Ok(Arc::new(StageInputExec::new(s.index as usize, properties)))
    }
}
