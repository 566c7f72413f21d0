//! The operator behind `spark_partition_id()` and `monotonically_increasing_id()`: it adds
//! each row's partition and position in it as two columns while the partition's batches stream
//! through (the planner's `PartitionIdsNode` is its logical side).

use std::fmt;
use std::sync::Arc;

use crate::codec::{EncodedNode, NodeDecoder, NodeEncoder, one_input};
use arrow::array::{Int32Array, Int64Array, RecordBatch};
use arrow::compute::SortOptions;
use arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::common::{Result, internal_err};
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_expr::expressions::Column;
use datafusion::physical_expr::{
    AcrossPartitions, ConstExpr, EquivalenceProperties, LexOrdering, OrderingRequirements,
    PhysicalExpr, PhysicalSortExpr,
};
use datafusion::physical_plan::Distribution;
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, ExecutionPlan, ExecutionPlanProperties, PlanProperties,
};
use futures::StreamExt;

/// The column holding the partition of each row (an int).
pub const PARTITION_ID: &str = "__ember_partition_id";
/// The column holding the 0-based position of each row in its partition (a bigint).
pub const ROW_IN_PARTITION: &str = "__ember_row_in_partition";

/// The two id columns.
pub fn id_fields() -> [Field; 2] {
    [
        Field::new(PARTITION_ID, DataType::Int32, false),
        Field::new(ROW_IN_PARTITION, DataType::Int64, false),
    ]
}

/// Appends each row's partition and position in it to the input's batches.
#[derive(Debug)]
pub struct PartitionIdsExec {
    input: Arc<dyn ExecutionPlan>,
    properties: Arc<PlanProperties>,
    /// The input's order, which the ids number: kept (no optimizer may drop the sort that
    /// made it).
    input_order: Option<LexOrdering>,
    /// Whether the input is one partition (kept so: the ids number its rows as one).
    single: bool,
}

impl PartitionIdsExec {
    pub fn new(input: Arc<dyn ExecutionPlan>) -> Result<Self> {
        let input_order = input.output_ordering().cloned();
        let single = input.output_partitioning().partition_count() == 1;
        Self::numbering(input, input_order, single)
    }

    /// Over `input`, keeping `input_order` and one partition if `single` (what the ids were
    /// planned to number, whatever an optimizer makes of the input later).
    fn numbering(
        input: Arc<dyn ExecutionPlan>,
        input_order: Option<LexOrdering>,
        single: bool,
    ) -> Result<Self> {
        let mut fields: Vec<Field> = input
            .schema()
            .fields()
            .iter()
            .map(|f| f.as_ref().clone())
            .collect();
        fields.extend(id_fields());
        let schema: SchemaRef = Arc::new(Schema::new(fields));
        // The input's orders and constants hold (its columns keep their places); within each
        // partition the rows also come in position order, under one partition id.
        let width = schema.fields().len();
        let mut equivalences = EquivalenceProperties::new(Arc::clone(&schema));
        let given = input.equivalence_properties();
        equivalences.add_constants(given.constants())?;
        equivalences.add_orderings(given.oeq_class().iter().cloned());
        let id: Arc<dyn PhysicalExpr> = Arc::new(Column::new(PARTITION_ID, width - 2));
        let position: Arc<dyn PhysicalExpr> = Arc::new(Column::new(ROW_IN_PARTITION, width - 1));
        equivalences.add_constants([ConstExpr::new(id, AcrossPartitions::Heterogeneous)])?;
        equivalences.add_ordering([PhysicalSortExpr::new(position, SortOptions::default())]);
        let properties = Arc::new(PlanProperties::new(
            equivalences,
            input.output_partitioning().clone(),
            input.pipeline_behavior(),
            input.boundedness(),
        ));
        Ok(Self {
            input,
            properties,
            input_order,
            single,
        })
    }
}

impl DisplayAs for PartitionIdsExec {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "PartitionIdsExec")
    }
}

impl ExecutionPlan for PartitionIdsExec {
    fn name(&self) -> &str {
        "PartitionIdsExec"
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        &self.properties
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        vec![&self.input]
    }

    // The ids number the rows as the input's partitions hold them: never repartition it.
    fn benefits_from_input_partitioning(&self) -> Vec<bool> {
        vec![false]
    }

    fn maintains_input_order(&self) -> Vec<bool> {
        vec![true]
    }

    fn required_input_distribution(&self) -> Vec<Distribution> {
        vec![if self.single {
            Distribution::SinglePartition
        } else {
            Distribution::UnspecifiedDistribution
        }]
    }

    fn required_input_ordering(&self) -> Vec<Option<OrderingRequirements>> {
        vec![self.input_order.clone().map(OrderingRequirements::from)]
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
        let Some(input) = children.pop() else {
            return internal_err!("PartitionIdsExec takes one input");
        };
        Ok(Arc::new(Self::numbering(
            input,
            self.input_order.clone(),
            self.single,
        )?))
    }

    fn execute(
        &self,
        partition: usize,
        context: Arc<TaskContext>,
    ) -> Result<SendableRecordBatchStream> {
        let schema = self.schema();
        let out_schema = schema.clone();
        let id = partition as i32;
        let mut next: i64 = 0;
        let stream = self.input.execute(partition, context)?.map(move |batch| {
            let batch = batch?;
            let rows = batch.num_rows();
            let mut columns = batch.columns().to_vec();
            columns.push(Arc::new(Int32Array::from(vec![id; rows])));
            columns.push(Arc::new(Int64Array::from_iter_values(
                next..next + rows as i64,
            )));
            next += rows as i64;
            Ok(RecordBatch::try_new(out_schema.clone(), columns)?)
        });
        Ok(Box::pin(RecordBatchStreamAdapter::new(schema, stream)))
    }
}

/// Nothing to say: the node's columns follow from its input.
#[derive(Clone, PartialEq, prost::Message)]
pub struct PartitionIdsMessage {}

impl EncodedNode for PartitionIdsExec {
    const NAME: &'static str = "partition_ids";
    type Message = PartitionIdsMessage;

    fn to_message(&self, _encoder: &NodeEncoder) -> Result<PartitionIdsMessage> {
        Ok(PartitionIdsMessage {})
    }

    fn from_message(
        _message: PartitionIdsMessage,
        inputs: &[Arc<dyn ExecutionPlan>],
        _decoder: &NodeDecoder,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        Ok(Arc::new(PartitionIdsExec::new(one_input(inputs)?)?))
    }
}
