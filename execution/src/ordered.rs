//! Partition-ordered coalescing: all input partitions run at once, and their batches come out
//! partition 0 first, then 1, and so on. This is Spark's order for `collect()` and `limit`:
//! `spark.range(10).collect()` is `0..9`, and `limit(n)` keeps the first rows of the first
//! partitions. DataFusion's `CoalescePartitionsExec` interleaves partitions instead.

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use arrow::array::RecordBatch;
use datafusion::execution::memory_pool::{MemoryConsumer, MemoryReservation};
use parking_lot::Mutex;
use tokio::sync::Notify;

use crate::codec::{EncodedNode, NodeDecoder, NodeEncoder, one_input};
use datafusion::common::Result;
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_expr::{EquivalenceProperties, PhysicalExpr};
use datafusion::physical_plan::execution_plan::{Boundedness, EmissionType, SchedulingType};
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, ExecutionPlan, ExecutionPlanProperties, Partitioning,
    PlanProperties,
};
use datafusion_common_runtime::SpawnedTask;
use futures::StreamExt;
use tokio::sync::mpsc;

/// Batches buffered per partition when the consumer may stop early (limits).
pub const LIMIT_BUFFER: usize = 2;

#[derive(Debug)]
pub struct OrderedCoalesceExec {
    input: Arc<dyn ExecutionPlan>,
    fetch: Option<usize>,
    /// Batches each partition may run ahead of the consumer; `None` buffers without bound.
    buffer: Option<usize>,
    properties: Arc<PlanProperties>,
}

impl OrderedCoalesceExec {
    pub fn new(input: Arc<dyn ExecutionPlan>, fetch: Option<usize>, buffer: Option<usize>) -> Self {
        let properties = Arc::new(
            PlanProperties::new(
                EquivalenceProperties::new(input.schema()),
                Partitioning::UnknownPartitioning(1),
                EmissionType::Incremental,
                Boundedness::Bounded,
            )
            .with_scheduling_type(SchedulingType::Cooperative),
        );
        Self {
            input,
            fetch,
            buffer,
            properties,
        }
    }

    pub fn input(&self) -> &Arc<dyn ExecutionPlan> {
        &self.input
    }

    pub fn fetch(&self) -> Option<usize> {
        self.fetch
    }

    pub fn buffer(&self) -> Option<usize> {
        self.buffer
    }
}

impl DisplayAs for OrderedCoalesceExec {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "OrderedCoalesceExec")?;
        if let Some(fetch) = self.fetch {
            write!(f, ": fetch={fetch}")?;
        }
        Ok(())
    }
}

impl ExecutionPlan for OrderedCoalesceExec {
    fn name(&self) -> &str {
        "OrderedCoalesceExec"
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
            Some(child) if children.is_empty() => {
                Ok(Arc::new(Self::new(child, self.fetch, self.buffer)))
            }
            _ => datafusion::common::internal_err!("OrderedCoalesceExec takes one child"),
        }
    }

    fn execute(
        &self,
        partition: usize,
        context: Arc<TaskContext>,
    ) -> Result<SendableRecordBatchStream> {
        if partition != 0 {
            return datafusion::common::internal_err!(
                "OrderedCoalesceExec has one partition, not {partition}"
            );
        }
        let stream = ordered_concat(&self.input, context, self.buffer)?;
        Ok(match self.fetch {
            Some(n) => limit_stream(stream, n),
            None => stream,
        })
    }

    fn supports_limit_pushdown(&self) -> bool {
        true
    }

    fn with_fetch(&self, limit: Option<usize>) -> Option<Arc<dyn ExecutionPlan>> {
        Some(Arc::new(Self::new(
            self.input.clone(),
            limit,
            self.buffer.or(Some(LIMIT_BUFFER)),
        )))
    }

    fn fetch(&self) -> Option<usize> {
        self.fetch
    }
}

/// Run every partition of `plan` concurrently and emit their batches in partition order.
///
/// With `buffer`, each partition runs at most that many batches ahead of the consumer. Without
/// it, partitions run ahead while the memory pool grants their buffered batches, up to
/// [`AHEAD_BYTES`] each (a quarter of the memory limit over all partitions if less; a few
/// batches each are always allowed); beyond, a later partition waits until the consumer
/// reaches it, so a slow client never makes the process buffer the whole result.
pub fn ordered_concat(
    plan: &Arc<dyn ExecutionPlan>,
    context: Arc<TaskContext>,
    buffer: Option<usize>,
) -> Result<SendableRecordBatchStream> {
    let partitions = plan.output_partitioning().partition_count();
    if partitions == 1 {
        return plan.execute(0, context);
    }
    let schema = plan.schema();
    let cap = crate::memory::installed().map_or(AHEAD_BYTES, |b| {
        (b.limit() / 4 / partitions).min(AHEAD_BYTES)
    });
    let mut outputs = Vec::with_capacity(partitions);
    for p in 0..partitions {
        let mut stream = plan.execute(p, context.clone())?;
        let (sender, receiver) = match buffer {
            Some(n) => {
                let (tx, rx) = mpsc::channel(n.max(1));
                (Sender::Bounded(tx), Receiver::Bounded(rx))
            }
            None => {
                let (tx, rx) = mpsc::unbounded_channel();
                let gate = Arc::new(Gate {
                    reservation: Mutex::new(
                        MemoryConsumer::new(format!("OrderedCoalesce[{p}]"))
                            .register(context.memory_pool()),
                    ),
                    queued: AtomicUsize::new(0),
                    freed: Notify::new(),
                    cap,
                });
                (
                    Sender::Unbounded(tx, gate.clone()),
                    Receiver::Unbounded(rx, gate),
                )
            }
        };
        let task = SpawnedTask::spawn(async move {
            while let Some(item) = stream.next().await {
                let failed = item.is_err();
                if !sender.send(item).await || failed {
                    break;
                }
            }
        });
        outputs.push((receiver, task));
    }
    let batches = futures::stream::iter(outputs).flat_map(|(receiver, task)| {
        futures::stream::unfold((receiver, Some(task)), |(mut receiver, task)| async move {
            match receiver.recv().await {
                Some(item) => Some((item, (receiver, task))),
                // The partition ended: if its task panicked, that is the partition's
                // error (its rows would otherwise be missing without a word).
                None => crate::panic::panic_of(task?)
                    .await
                    .map(|error| (Err(error), (receiver, None))),
            }
        })
    });
    Ok(Box::pin(RecordBatchStreamAdapter::new(schema, batches)))
}

/// Batches a partition may always buffer, whatever the memory pool says.
const FREE_BUFFER: usize = 2;

/// Bytes a partition may buffer ahead of the consumer, at most.
pub const AHEAD_BYTES: usize = 64 << 20;

/// The memory a partition's buffered batches hold, granted by the pool.
struct Gate {
    reservation: Mutex<MemoryReservation>,
    queued: AtomicUsize,
    freed: Notify,
    /// Bytes the partition may hold beyond its free batches.
    cap: usize,
}

impl Gate {
    /// Wait until a batch of `bytes` may be buffered; the bytes accounted for it.
    async fn admit(&self, bytes: usize) -> usize {
        loop {
            if self.queued.load(Ordering::Acquire) < FREE_BUFFER {
                return 0;
            }
            {
                let reservation = self.reservation.lock();
                if reservation.size() + bytes <= self.cap && reservation.try_grow(bytes).is_ok() {
                    return bytes;
                }
            }
            self.freed.notified().await;
        }
    }

    fn release(&self, accounted: usize) {
        self.queued.fetch_sub(1, Ordering::AcqRel);
        self.reservation.lock().shrink(accounted);
        self.freed.notify_one();
    }
}

type Item = Result<RecordBatch>;

enum Sender {
    Bounded(mpsc::Sender<Item>),
    Unbounded(mpsc::UnboundedSender<(Item, usize)>, Arc<Gate>),
}

impl Sender {
    async fn send(&self, item: Item) -> bool {
        match self {
            Sender::Bounded(s) => s.send(item).await.is_ok(),
            Sender::Unbounded(s, gate) => {
                let bytes = item.as_ref().map_or(0, |b| b.get_array_memory_size());
                let accounted = gate.admit(bytes).await;
                gate.queued.fetch_add(1, Ordering::AcqRel);
                s.send((item, accounted)).is_ok()
            }
        }
    }
}

enum Receiver {
    Bounded(mpsc::Receiver<Item>),
    Unbounded(mpsc::UnboundedReceiver<(Item, usize)>, Arc<Gate>),
}

impl Receiver {
    async fn recv(&mut self) -> Option<Item> {
        match self {
            Receiver::Bounded(r) => r.recv().await,
            Receiver::Unbounded(r, gate) => {
                let (item, accounted) = r.recv().await?;
                gate.release(accounted);
                Some(item)
            }
        }
    }
}

/// Stop after `n` rows.
fn limit_stream(stream: SendableRecordBatchStream, n: usize) -> SendableRecordBatchStream {
    let schema = stream.schema();
    let limited = futures::stream::unfold((stream, n), |(mut stream, remaining)| async move {
        if remaining == 0 {
            return None;
        }
        match stream.next().await {
            Some(Ok(batch)) => {
                let take = batch.num_rows().min(remaining);
                Some((Ok(batch.slice(0, take)), (stream, remaining - take)))
            }
            Some(Err(e)) => Some((Err(e), (stream, 0))),
            None => None,
        }
    });
    Box::pin(RecordBatchStreamAdapter::new(schema, limited))
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct OrderedCoalesceMessage {
    #[prost(uint64, optional, tag = "1")]
    fetch: Option<u64>,
    #[prost(uint64, optional, tag = "2")]
    buffer: Option<u64>,
}

impl EncodedNode for OrderedCoalesceExec {
    const NAME: &'static str = "ordered_coalesce";
    type Message = OrderedCoalesceMessage;

    fn to_message(&self, _encoder: &NodeEncoder) -> Result<OrderedCoalesceMessage> {
        Ok(OrderedCoalesceMessage {
            fetch: self.fetch().map(|f| f as u64),
            buffer: self.buffer().map(|b| b as u64),
        })
    }

    fn from_message(
        c: OrderedCoalesceMessage,
        inputs: &[Arc<dyn ExecutionPlan>],
        _decoder: &NodeDecoder,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        Ok(Arc::new(OrderedCoalesceExec::new(
            one_input(inputs)?,
            c.fetch.map(|f| f as usize),
            c.buffer.map(|b| b as usize),
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::{Int64Array, RecordBatch};
    use arrow::datatypes::{DataType, Field, Schema};
    use datafusion::datasource::memory::MemorySourceConfig;
    use datafusion::prelude::SessionContext;
    use futures::TryStreamExt;

    fn partitioned(parts: usize, rows: i64) -> Arc<dyn ExecutionPlan> {
        let schema = Arc::new(Schema::new(vec![Field::new("x", DataType::Int64, false)]));
        let data = (0..parts)
            .map(|p| {
                let start = p as i64 * rows;
                vec![
                    RecordBatch::try_new(
                        schema.clone(),
                        vec![Arc::new(Int64Array::from_iter_values(start..start + rows))],
                    )
                    .unwrap(),
                ]
            })
            .collect::<Vec<_>>();
        MemorySourceConfig::try_new_exec(&data, schema, None).unwrap()
    }

    #[tokio::test]
    async fn emits_partitions_in_order() {
        let ctx = SessionContext::new();
        let plan = partitioned(4, 3);
        let out: Vec<RecordBatch> = ordered_concat(&plan, ctx.task_ctx(), None)
            .unwrap()
            .try_collect()
            .await
            .unwrap();
        let values: Vec<i64> = out
            .iter()
            .flat_map(|b| {
                b.column(0)
                    .as_any()
                    .downcast_ref::<Int64Array>()
                    .unwrap()
                    .values()
                    .to_vec()
            })
            .collect();
        assert_eq!(values, (0..12).collect::<Vec<_>>());
        let limited = OrderedCoalesceExec::new(plan, Some(5), Some(1));
        let out: Vec<RecordBatch> = limited
            .execute(0, ctx.task_ctx())
            .unwrap()
            .try_collect()
            .await
            .unwrap();
        assert_eq!(out.iter().map(|b| b.num_rows()).sum::<usize>(), 5);
    }

    /// A partition whose task panics fails the stream (its rows were silently missing).
    #[tokio::test]
    async fn a_panicking_partition_is_an_error() {
        use datafusion::physical_plan::test::exec::PanicExec;
        let ctx = SessionContext::new();
        let schema = Arc::new(Schema::new(vec![Field::new("x", DataType::Int64, false)]));
        let plan: Arc<dyn ExecutionPlan> =
            Arc::new(PanicExec::new(schema, 2).with_partition_panic(1, 1));
        for buffer in [None, Some(1)] {
            let out: Result<Vec<RecordBatch>> = ordered_concat(&plan, ctx.task_ctx(), buffer)
                .unwrap()
                .try_collect()
                .await;
            let error = out.expect_err("a panic is an error").to_string();
            assert!(error.contains("panicked"), "{error}");
        }
    }

    /// Under a pool too small for any buffered batch, later partitions wait for the consumer
    /// instead of buffering, and the order holds.
    #[tokio::test]
    async fn later_partitions_wait_when_the_pool_refuses() {
        use datafusion::execution::memory_pool::{GreedyMemoryPool, MemoryPool};
        use datafusion::execution::runtime_env::RuntimeEnvBuilder;
        let schema = Arc::new(Schema::new(vec![Field::new("x", DataType::Int64, false)]));
        let data = (0..4i64)
            .map(|p| {
                (0..20i64)
                    .map(|b| {
                        let start = (p * 20 + b) * 100;
                        RecordBatch::try_new(
                            schema.clone(),
                            vec![Arc::new(Int64Array::from_iter_values(start..start + 100))],
                        )
                        .unwrap()
                    })
                    .collect::<Vec<_>>()
            })
            .collect::<Vec<_>>();
        let plan: Arc<dyn ExecutionPlan> =
            MemorySourceConfig::try_new_exec(&data, schema, None).unwrap();
        let pool: Arc<dyn MemoryPool> = Arc::new(GreedyMemoryPool::new(1024));
        let runtime = RuntimeEnvBuilder::new()
            .with_memory_pool(pool.clone())
            .build_arc()
            .unwrap();
        let ctx = SessionContext::new_with_config_rt(Default::default(), runtime);
        let mut stream = ordered_concat(&plan, ctx.task_ctx(), None).unwrap();
        let mut values = Vec::new();
        while let Some(batch) = stream.next().await {
            let batch = batch.unwrap();
            assert!(pool.reserved() <= 1024);
            // A slow reader: producers of later partitions would run ahead.
            tokio::task::yield_now().await;
            values.extend_from_slice(
                batch
                    .column(0)
                    .as_any()
                    .downcast_ref::<Int64Array>()
                    .unwrap()
                    .values(),
            );
        }
        assert_eq!(values, (0..8000).collect::<Vec<_>>());
        drop(stream);
        assert_eq!(pool.reserved(), 0);
    }
}
