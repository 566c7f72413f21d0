//! `spark_partition_id()` and `monotonically_increasing_id()` need to know which partition a
//! row is in and where in it: a logical node that adds both as columns to its input, and the
//! operator that fills them as the partition's batches stream through.

use std::cmp::Ordering;
use std::fmt;
use std::sync::Arc;

use arrow::array::{Int32Array, Int64Array, RecordBatch};
use arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::common::{DFSchema, DFSchemaRef, Result, internal_err};
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::logical_expr::{
    Expr, Extension, LogicalPlan, UserDefinedLogicalNodeCore, col, lit,
};
use datafusion::physical_expr::{EquivalenceProperties, PhysicalExpr};
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, ExecutionPlan, ExecutionPlanProperties, PlanProperties,
};
use futures::StreamExt;

/// The column holding the partition of each row (an int).
pub const PARTITION_ID: &str = "__ember_partition_id";
/// The column holding the 0-based position of each row in its partition (a bigint).
pub const ROW_IN_PARTITION: &str = "__ember_row_in_partition";

/// `spark_partition_id()` over an input with [`PartitionIdsNode`]'s columns.
pub fn spark_partition_id() -> Expr {
    col(PARTITION_ID)
}

/// `monotonically_increasing_id()`: the partition in the upper 31 bits, the row's position
/// in its partition in the lower 33, as Spark computes it.
pub fn monotonically_increasing_id() -> Expr {
    datafusion::logical_expr::cast(col(PARTITION_ID), DataType::Int64) * lit(1i64 << 33)
        + col(ROW_IN_PARTITION)
}

fn id_fields() -> [Field; 2] {
    [
        Field::new(PARTITION_ID, DataType::Int32, false),
        Field::new(ROW_IN_PARTITION, DataType::Int64, false),
    ]
}

/// The input's columns and the two id columns.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PartitionIdsNode {
    input: LogicalPlan,
    schema: DFSchemaRef,
}

impl PartialOrd for PartitionIdsNode {
    fn partial_cmp(&self, _other: &Self) -> Option<Ordering> {
        None
    }
}

impl PartitionIdsNode {
    pub fn plan(input: LogicalPlan) -> Result<LogicalPlan> {
        let mut fields: Vec<_> = input
            .schema()
            .iter()
            .map(|(q, f)| (q.cloned(), f.clone()))
            .collect();
        fields.extend(id_fields().map(|f| (None, Arc::new(f))));
        let schema = Arc::new(DFSchema::new_with_metadata(
            fields,
            input.schema().metadata().clone(),
        )?);
        Ok(LogicalPlan::Extension(Extension {
            node: Arc::new(PartitionIdsNode { input, schema }),
        }))
    }
}

impl UserDefinedLogicalNodeCore for PartitionIdsNode {
    fn name(&self) -> &str {
        "PartitionIds"
    }

    fn inputs(&self) -> Vec<&LogicalPlan> {
        vec![&self.input]
    }

    fn schema(&self) -> &DFSchemaRef {
        &self.schema
    }

    fn expressions(&self) -> Vec<Expr> {
        vec![]
    }

    fn fmt_for_explain(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "PartitionIds")
    }

    fn with_exprs_and_inputs(
        &self,
        _exprs: Vec<Expr>,
        mut inputs: Vec<LogicalPlan>,
    ) -> Result<Self> {
        let Some(input) = inputs.pop() else {
            return internal_err!("PartitionIds takes one input");
        };
        Ok(Self {
            input,
            schema: self.schema.clone(),
        })
    }

    fn supports_limit_pushdown(&self) -> bool {
        false
    }
}

/// Appends each row's partition and position in it to the input's batches.
#[derive(Debug)]
pub struct PartitionIdsExec {
    input: Arc<dyn ExecutionPlan>,
    properties: Arc<PlanProperties>,
}

impl PartitionIdsExec {
    pub fn new(input: Arc<dyn ExecutionPlan>) -> Self {
        let mut fields: Vec<Field> = input
            .schema()
            .fields()
            .iter()
            .map(|f| f.as_ref().clone())
            .collect();
        fields.extend(id_fields());
        let schema: SchemaRef = Arc::new(Schema::new(fields));
        let properties = Arc::new(PlanProperties::new(
            EquivalenceProperties::new(schema),
            input.output_partitioning().clone(),
            input.pipeline_behavior(),
            input.boundedness(),
        ));
        Self { input, properties }
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
        Ok(Arc::new(Self::new(input)))
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
