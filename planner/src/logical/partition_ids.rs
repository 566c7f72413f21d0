//! `spark_partition_id()` and `monotonically_increasing_id()` need to know which partition a
//! row is in and where in it: a logical node that adds both as columns to its input (execution's
//! `PartitionIdsExec` fills them).

use std::cmp::Ordering;
use std::fmt;
use std::sync::Arc;

use arrow::datatypes::DataType;
use datafusion::common::{DFSchema, DFSchemaRef, Result, internal_err};
use datafusion::logical_expr::{
    Expr, Extension, LogicalPlan, UserDefinedLogicalNodeCore, col, lit,
};
pub use ember_execution::plan::partition_ids::{
    PARTITION_ID, PartitionIdsExec, ROW_IN_PARTITION, id_fields,
};

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
        // The input may have lost columns no one reads (see `necessary_children_exprs`).
        match Self::plan(input)? {
            LogicalPlan::Extension(e) => match e.node.as_any().downcast_ref::<Self>() {
                Some(node) => Ok(node.clone()),
                None => internal_err!("PartitionIds lost its node"),
            },
            _ => internal_err!("PartitionIds lost its node"),
        }
    }

    /// The input's columns that are read above (the id columns are this node's own), so that
    /// unread columns are not scanned.
    fn necessary_children_exprs(&self, output_columns: &[usize]) -> Option<Vec<Vec<usize>>> {
        let width = self.input.schema().fields().len();
        Some(vec![
            output_columns
                .iter()
                .copied()
                .filter(|&i| i < width)
                .collect(),
        ])
    }

    fn supports_limit_pushdown(&self) -> bool {
        false
    }
}
