//! `StageInputExec`: where a stage reads another stage's output. It is a placeholder in a
//! stage's plan, replaced by a [`StageReadExec`](super::StageReadExec) when a task runs;
//! executing it directly is an error.

use std::fmt;
use std::sync::Arc;

use arrow::datatypes::Schema;
use datafusion::common::ScalarValue;
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::common::{Result, internal_err};
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_expr::{AcrossPartitions, ConstExpr, EquivalenceProperties, PhysicalExpr};
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
/// example an interleave of hash-partitioned inputs), and on what its rows are known to hold
/// (a window over columns of which a filter in the stage below fixed one sorts by the others
/// only, and a worker rebuilding that window checks the partition columns against its input's
/// sort order and constants), so they travel with it.
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
    /// Expressions equal in every row, one list per equivalence class.
    #[prost(message, repeated, tag = "6")]
    equal: Vec<ExprList>,
    /// Expressions constant in each partition.
    #[prost(message, repeated, tag = "7")]
    constants: Vec<Constant>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct ExprList {
    #[prost(message, repeated, tag = "1")]
    exprs: Vec<datafusion_proto::protobuf::PhysicalExprNode>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct Constant {
    #[prost(message, optional, tag = "1")]
    expr: Option<datafusion_proto::protobuf::PhysicalExprNode>,
    /// The same in every partition (with this value, when known).
    #[prost(bool, tag = "2")]
    uniform: bool,
    #[prost(message, optional, tag = "3")]
    value: Option<datafusion_proto::protobuf::ScalarValue>,
}

impl EncodedNode for StageInputExec {
    const NAME: &'static str = "stage_input";
    type Message = StageInputMessage;

    fn to_message(&self, encoder: &NodeEncoder) -> Result<StageInputMessage> {
        let properties = self.properties();
        let known = properties.equivalence_properties();
        let equal = known
            .eq_group()
            .iter()
            .filter(|class| class.len() > 1)
            .map(|class| {
                let exprs: Vec<_> = class.iter().cloned().collect();
                Ok(ExprList {
                    exprs: encoder.exprs(&exprs)?,
                })
            })
            .collect::<Result<_>>()?;
        let constants = known
            .constants()
            .into_iter()
            .map(|c| {
                let (uniform, value) = match &c.across_partitions {
                    AcrossPartitions::Heterogeneous => (false, None),
                    AcrossPartitions::Uniform(value) => (
                        true,
                        value
                            .as_ref()
                            .map(datafusion_proto::protobuf::ScalarValue::try_from)
                            .transpose()?,
                    ),
                };
                Ok(Constant {
                    expr: encoder.exprs(&[c.expr])?.pop(),
                    uniform,
                    value,
                })
            })
            .collect::<Result<_>>()?;
        Ok(StageInputMessage {
            equal,
            constants,
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
        let mut equivalence = match decoder.sort_exprs(&s.ordering, &schema)? {
            Some(ordering) => EquivalenceProperties::new_with_orderings(schema.clone(), [ordering]),
            None => EquivalenceProperties::new(schema.clone()),
        };
        for class in &s.equal {
            let exprs = decoder.exprs(&class.exprs, &schema)?;
            for other in exprs.iter().skip(1) {
                equivalence.add_equal_conditions(exprs[0].clone(), other.clone())?;
            }
        }
        let mut constants = vec![];
        for c in &s.constants {
            let Some(expr) = decoder.exprs(c.expr.as_slice(), &schema)?.pop() else {
                return internal_err!("stage input constant without expression");
            };
            let across = if c.uniform {
                AcrossPartitions::Uniform(c.value.as_ref().map(ScalarValue::try_from).transpose()?)
            } else {
                AcrossPartitions::Heterogeneous
            };
            constants.push(ConstExpr::new(expr, across));
        }
        equivalence.add_constants(constants)?;
        let properties = Arc::new(PlanProperties::new(
            equivalence,
            partitioning,
            EmissionType::Incremental,
            Boundedness::Bounded,
        ));
        Ok(Arc::new(StageInputExec::new(s.index as usize, properties)))
    }
}
