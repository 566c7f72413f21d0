//! `spark.range(start, end, step, numPartitions)`: a bigint `id` column generated lazily in
//! `numPartitions` contiguous slices, like Spark's Range.

use std::fmt;
use std::sync::Arc;

use crate::codec::{EncodedNode, NodeDecoder, NodeEncoder};
use arrow::array::Int64Array;
use arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use arrow::record_batch::RecordBatch;
use datafusion::common::stats::Precision;
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::common::{ColumnStatistics, Result, ScalarValue, Statistics};
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_expr::{EquivalenceProperties, PhysicalExpr};
use datafusion::physical_plan::coop::make_cooperative;
use datafusion::physical_plan::execution_plan::{Boundedness, EmissionType, SchedulingType};
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, ExecutionPlan, Partitioning, PlanProperties, StatisticsArgs,
};

const BATCH_SIZE: i64 = 8192;

pub fn range_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![Field::new("id", DataType::Int64, false)]))
}

/// The values `start, start+step, ...` strictly before `end`, split into partitions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RangeSpec {
    pub start: i64,
    pub end: i64,
    pub step: i64,
    pub partitions: usize,
}

impl RangeSpec {
    pub fn count(&self) -> u64 {
        if self.step == 0 {
            return 0;
        }
        let span = self.end as i128 - self.start as i128;
        if (span > 0) != (self.step > 0) || span == 0 {
            return 0;
        }
        let step = self.step as i128;
        ((span + step - step.signum()) / step) as u64
    }

    /// Element index range `[lo, hi)` of one partition (Spark's even split).
    pub fn slice(&self, partition: usize) -> (u64, u64) {
        let n = self.count() as u128;
        let p = self.partitions.max(1) as u128;
        let lo = n * partition as u128 / p;
        let hi = n * (partition as u128 + 1) / p;
        (lo as u64, hi as u64)
    }
}

#[derive(Debug)]
pub struct RangeExec {
    spec: RangeSpec,
    /// `false` produces batches without columns (only row counts, for `count(*)`).
    with_id: bool,
    properties: Arc<PlanProperties>,
}

impl RangeExec {
    pub fn new(spec: RangeSpec) -> Self {
        Self::with_projection(spec, true)
    }

    pub fn try_new(spec: RangeSpec, with_id: bool) -> Result<Self> {
        Ok(Self::with_projection(spec, with_id))
    }

    fn with_projection(spec: RangeSpec, with_id: bool) -> Self {
        let schema = if with_id {
            range_schema()
        } else {
            Arc::new(Schema::empty())
        };
        let properties = Arc::new(
            PlanProperties::new(
                EquivalenceProperties::new(schema),
                Partitioning::UnknownPartitioning(spec.partitions.max(1)),
                EmissionType::Incremental,
                Boundedness::Bounded,
            )
            .with_scheduling_type(SchedulingType::Cooperative),
        );
        Self {
            spec,
            with_id,
            properties,
        }
    }

    pub fn spec(&self) -> &RangeSpec {
        &self.spec
    }

    pub fn with_id(&self) -> bool {
        self.with_id
    }
}

impl DisplayAs for RangeExec {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        write!(
            f,
            "RangeExec: start={}, end={}, step={}, partitions={}",
            self.spec.start, self.spec.end, self.spec.step, self.spec.partitions
        )?;
        if !self.with_id {
            write!(f, ", projection=[]")?;
        }
        Ok(())
    }
}

impl ExecutionPlan for RangeExec {
    fn name(&self) -> &str {
        "RangeExec"
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

    /// Exact: the row count and the first and last values of a slice are known before it runs
    /// (EXPLAIN COST shows them; the optimizer uses them for joins and `count(*)`).
    fn statistics_from_inputs(
        &self,
        _input_stats: &[Arc<Statistics>],
        args: &StatisticsArgs,
    ) -> Result<Arc<Statistics>> {
        let (lo, hi) = match args.partition() {
            Some(partition) => self.spec.slice(partition),
            None => (0, self.spec.count()),
        };
        let rows = (hi - lo) as usize;
        let mut stats = Statistics::new_unknown(&self.schema());
        stats.num_rows = Precision::Exact(rows);
        if !self.with_id {
            stats.total_byte_size = Precision::Exact(0);
            return Ok(Arc::new(stats));
        }
        stats.total_byte_size = Precision::Exact(rows.saturating_mul(8));
        let value = |i: u64| {
            let v = self
                .spec
                .start
                .wrapping_add((i as i64).wrapping_mul(self.spec.step));
            Precision::Exact(ScalarValue::Int64(Some(v)))
        };
        let mut id = ColumnStatistics::new_unknown();
        id.null_count = Precision::Exact(0);
        id.byte_size = stats.total_byte_size;
        if rows > 0 {
            let (first, last) = (value(lo), value(hi - 1));
            (id.min_value, id.max_value) = if self.spec.step > 0 {
                (first, last)
            } else {
                (last, first)
            };
            id.distinct_count = Precision::Exact(rows);
        }
        stats.column_statistics = vec![id];
        Ok(Arc::new(stats))
    }

    fn execute(
        &self,
        partition: usize,
        _context: Arc<TaskContext>,
    ) -> Result<SendableRecordBatchStream> {
        let (lo, hi) = self.spec.slice(partition);
        let (start, step) = (self.spec.start, self.spec.step);
        let schema = self.schema();
        let batch_schema = schema.clone();
        let with_id = self.with_id;
        let batches =
            futures::stream::iter((lo..hi).step_by(BATCH_SIZE as usize).map(move |from| {
                let to = (from + BATCH_SIZE as u64).min(hi);
                if !with_id {
                    let options = arrow::array::RecordBatchOptions::new()
                        .with_row_count(Some((to - from) as usize));
                    return RecordBatch::try_new_with_options(
                        batch_schema.clone(),
                        vec![],
                        &options,
                    )
                    .map_err(Into::into);
                }
                let values: Int64Array = (from..to)
                    .map(|i| start.wrapping_add((i as i64).wrapping_mul(step)))
                    .collect();
                RecordBatch::try_new(batch_schema.clone(), vec![Arc::new(values)])
                    .map_err(Into::into)
            }));
        // The generator never waits; cooperative scheduling lets the task yield (and be cancelled).
        Ok(make_cooperative(Box::pin(RecordBatchStreamAdapter::new(
            schema, batches,
        ))))
    }
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct RangeMessage {
    #[prost(int64, tag = "1")]
    start: i64,
    #[prost(int64, tag = "2")]
    end: i64,
    #[prost(int64, tag = "3")]
    step: i64,
    #[prost(uint64, tag = "4")]
    partitions: u64,
    #[prost(bool, tag = "5")]
    with_id: bool,
}

impl EncodedNode for RangeExec {
    const NAME: &'static str = "range";
    type Message = RangeMessage;

    fn to_message(&self, _encoder: &NodeEncoder) -> Result<RangeMessage> {
        let s = &self.spec;
        Ok(RangeMessage {
            start: s.start,
            end: s.end,
            step: s.step,
            partitions: s.partitions as u64,
            with_id: self.with_id,
        })
    }

    fn from_message(
        r: RangeMessage,
        _inputs: &[Arc<dyn ExecutionPlan>],
        _decoder: &NodeDecoder,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let spec = RangeSpec {
            start: r.start,
            end: r.end,
            step: r.step,
            partitions: r.partitions as usize,
        };
        Ok(Arc::new(RangeExec::try_new(spec, r.with_id)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_slices_like_spark() {
        let s = RangeSpec {
            start: 0,
            end: 10,
            step: 1,
            partitions: 3,
        };
        assert_eq!(s.count(), 10);
        assert_eq!(
            (0..3).map(|p| s.slice(p)).collect::<Vec<_>>(),
            vec![(0, 3), (3, 6), (6, 10)]
        );
        let s = RangeSpec {
            start: 10,
            end: 0,
            step: -3,
            partitions: 1,
        };
        assert_eq!(s.count(), 4);
        let s = RangeSpec {
            start: 0,
            end: 10,
            step: -1,
            partitions: 1,
        };
        assert_eq!(s.count(), 0);
    }
}

#[cfg(test)]
mod projection_tests {
    use super::*;
    use datafusion::physical_plan::repartition::RepartitionExec;
    use datafusion::prelude::SessionContext;
    use futures::TryStreamExt;

    #[tokio::test]
    async fn counts_without_columns_through_a_repartition() {
        let ctx = SessionContext::new();
        let spec = RangeSpec {
            start: 0,
            end: 2,
            step: 1,
            partitions: 2,
        };
        let range: Arc<dyn ExecutionPlan> = Arc::new(RangeExec::try_new(spec, false).unwrap());
        let plan =
            Arc::new(RepartitionExec::try_new(range, Partitioning::RoundRobinBatch(3)).unwrap());
        let direct: Vec<RecordBatch> = RangeExec::try_new(
            RangeSpec {
                start: 0,
                end: 2,
                step: 1,
                partitions: 2,
            },
            false,
        )
        .unwrap()
        .execute(1, ctx.task_ctx())
        .unwrap()
        .try_collect()
        .await
        .unwrap();
        assert!(direct.iter().all(|b| b.num_columns() == 0), "{direct:?}");
        let mut rows = 0;
        for p in 0..3 {
            let batches: Vec<RecordBatch> = plan
                .execute(p, ctx.task_ctx())
                .unwrap()
                .try_collect()
                .await
                .unwrap();
            rows += batches.iter().map(|b| b.num_rows()).sum::<usize>();
        }
        assert_eq!(rows, 2);
    }
}
