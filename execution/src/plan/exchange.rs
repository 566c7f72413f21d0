//! `ExchangeExec`: a repartition the user asked for (Spark's `repartition(n)`,
//! `repartition(n, cols)`, `DISTRIBUTE BY`), which the physical optimizer must keep.
//!
//! DataFusion's optimizer removes every `RepartitionExec` and re-adds only those its operators
//! need, so a user's repartition would vanish (and with it, for example, the number of files a
//! write produces). This node is not a `RepartitionExec`; in-process it runs one internally, and
//! the job graph cuts at it like at any repartition (a Shuffle input).
//!
//! Round-robin spreads rows, not batches, over the output partitions, as Spark does: every
//! batch is cut into one slice per output partition first.

use std::fmt;
use std::sync::{Arc, OnceLock};

use crate::codec::{EncodedNode, NodeDecoder, NodeEncoder, one_input};
use arrow::array::RecordBatch;
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::common::{Result, internal_err};
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_expr::{EquivalenceProperties, PhysicalExpr};
use datafusion::physical_plan::execution_plan::{Boundedness, EmissionType};
use datafusion::physical_plan::repartition::RepartitionExec;
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, ExecutionPlan, Partitioning, PlanProperties,
};
use futures::StreamExt;

#[derive(Debug)]
pub struct ExchangeExec {
    input: Arc<dyn ExecutionPlan>,
    /// `Hash(keys, n)` or `RoundRobinBatch(n)` (rows, see the module documentation).
    partitioning: Partitioning,
    properties: Arc<PlanProperties>,
    /// The in-process repartition, shared by the output partitions' streams.
    local: OnceLock<Result<Arc<RepartitionExec>>>,
}

impl ExchangeExec {
    pub fn try_new(input: Arc<dyn ExecutionPlan>, partitioning: Partitioning) -> Result<Self> {
        let output = match &partitioning {
            Partitioning::Hash(..) => partitioning.clone(),
            Partitioning::RoundRobinBatch(n) => Partitioning::UnknownPartitioning(*n),
            other => return internal_err!("ExchangeExec cannot partition by {other:?}"),
        };
        let properties = Arc::new(PlanProperties::new(
            EquivalenceProperties::new(input.schema()),
            output,
            EmissionType::Incremental,
            Boundedness::Bounded,
        ));
        Ok(Self {
            input,
            partitioning,
            properties,
            local: OnceLock::new(),
        })
    }

    pub fn input(&self) -> &Arc<dyn ExecutionPlan> {
        &self.input
    }

    pub fn partitioning(&self) -> &Partitioning {
        &self.partitioning
    }

    fn local(&self) -> Result<Arc<RepartitionExec>> {
        let made = self.local.get_or_init(|| {
            let input: Arc<dyn ExecutionPlan> = match self.partitioning {
                Partitioning::RoundRobinBatch(n) => {
                    Arc::new(SlicedExec::new(self.input.clone(), n))
                }
                _ => self.input.clone(),
            };
            Ok(Arc::new(RepartitionExec::try_new(
                input,
                self.partitioning.clone(),
            )?))
        });
        match made {
            Ok(r) => Ok(r.clone()),
            Err(e) => internal_err!("cannot build the exchange: {e}"),
        }
    }
}

/// Cut `batch` into `parts` slices of nearly equal row counts (none empty).
pub fn slice_rows(batch: &RecordBatch, parts: usize) -> Vec<RecordBatch> {
    let rows = batch.num_rows();
    let parts = parts.clamp(1, rows.max(1));
    (0..parts)
        .map(|i| {
            let start = i * rows / parts;
            let end = (i + 1) * rows / parts;
            batch.slice(start, end - start)
        })
        .filter(|b| b.num_rows() > 0)
        .collect()
}

impl DisplayAs for ExchangeExec {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        match &self.partitioning {
            Partitioning::Hash(keys, n) => {
                let keys: Vec<String> = keys.iter().map(|k| k.to_string()).collect();
                write!(
                    f,
                    "ExchangeExec: partitioning=Hash([{}], {n})",
                    keys.join(", ")
                )
            }
            Partitioning::RoundRobinBatch(n) => {
                write!(f, "ExchangeExec: partitioning=RoundRobin({n})")
            }
            other => write!(f, "ExchangeExec: partitioning={other:?}"),
        }
    }
}

impl ExecutionPlan for ExchangeExec {
    fn name(&self) -> &str {
        "ExchangeExec"
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        &self.properties
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        vec![&self.input]
    }

    fn benefits_from_input_partitioning(&self) -> Vec<bool> {
        vec![false]
    }

    fn maintains_input_order(&self) -> Vec<bool> {
        vec![false]
    }

    fn apply_expressions(
        &self,
        f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> Result<TreeNodeRecursion>,
    ) -> Result<TreeNodeRecursion> {
        if let Partitioning::Hash(keys, _) = &self.partitioning {
            for k in keys {
                if f(k)? == TreeNodeRecursion::Stop {
                    return Ok(TreeNodeRecursion::Stop);
                }
            }
        }
        Ok(TreeNodeRecursion::Continue)
    }

    fn with_new_children(
        self: Arc<Self>,
        mut children: Vec<Arc<dyn ExecutionPlan>>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        match children.pop() {
            Some(child) if children.is_empty() => {
                Ok(Arc::new(Self::try_new(child, self.partitioning.clone())?))
            }
            _ => internal_err!("ExchangeExec takes one child"),
        }
    }

    fn execute(
        &self,
        partition: usize,
        context: Arc<TaskContext>,
    ) -> Result<SendableRecordBatchStream> {
        self.local()?.execute(partition, context)
    }
}

/// The input with every batch cut into row slices (see [`slice_rows`]); internal to
/// [`ExchangeExec`], never part of a plan tree that is optimized or sent.
#[derive(Debug)]
struct SlicedExec {
    input: Arc<dyn ExecutionPlan>,
    parts: usize,
}

impl SlicedExec {
    fn new(input: Arc<dyn ExecutionPlan>, parts: usize) -> Self {
        Self { input, parts }
    }
}

impl DisplayAs for SlicedExec {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "SlicedExec: parts={}", self.parts)
    }
}

impl ExecutionPlan for SlicedExec {
    fn name(&self) -> &str {
        "SlicedExec"
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        self.input.properties()
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
            Some(child) if children.is_empty() => Ok(Arc::new(Self::new(child, self.parts))),
            _ => internal_err!("SlicedExec takes one child"),
        }
    }

    fn execute(
        &self,
        partition: usize,
        context: Arc<TaskContext>,
    ) -> Result<SendableRecordBatchStream> {
        let parts = self.parts;
        let input = self.input.execute(partition, context)?;
        let schema = input.schema();
        let sliced = input.flat_map(move |batch| {
            let out: Vec<Result<RecordBatch>> = match batch {
                Ok(b) => slice_rows(&b, parts).into_iter().map(Ok).collect(),
                Err(e) => vec![Err(e)],
            };
            futures::stream::iter(out)
        });
        Ok(Box::pin(RecordBatchStreamAdapter::new(schema, sliced)))
    }
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct ExchangeMessage {
    #[prost(message, optional, tag = "1")]
    partitioning: Option<datafusion_proto::protobuf::Partitioning>,
}

impl EncodedNode for ExchangeExec {
    const NAME: &'static str = "exchange";
    type Message = ExchangeMessage;

    fn to_message(&self, encoder: &NodeEncoder) -> Result<ExchangeMessage> {
        Ok(ExchangeMessage {
            partitioning: Some(encoder.partitioning(self.partitioning())?),
        })
    }

    fn from_message(
        x: ExchangeMessage,
        inputs: &[Arc<dyn ExecutionPlan>],
        decoder: &NodeDecoder,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let input = one_input(inputs)?;
        let Some(partitioning) = x.partitioning.as_ref() else {
            return internal_err!("exchange without partitioning");
        };
        let partitioning = decoder.partitioning(partitioning, &input.schema())?;
        Ok(Arc::new(ExchangeExec::try_new(input, partitioning)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::Int64Array;
    use arrow::datatypes::{DataType, Field, Schema};

    #[test]
    fn slices_spread_rows_evenly() {
        let schema = Arc::new(Schema::new(vec![Field::new("v", DataType::Int64, false)]));
        let batch =
            RecordBatch::try_new(schema, vec![Arc::new(Int64Array::from_iter_values(0..10))])
                .unwrap();
        let sizes: Vec<usize> = slice_rows(&batch, 4).iter().map(|b| b.num_rows()).collect();
        assert_eq!(sizes, vec![2, 3, 2, 3]);
        let sizes: Vec<usize> = slice_rows(&batch.slice(0, 2), 4)
            .iter()
            .map(|b| b.num_rows())
            .collect();
        assert_eq!(sizes, vec![1, 1]);
    }
}
