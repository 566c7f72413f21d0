//! Key filters between stages: Spark's runtime bloom filters, for shuffled joins.
//!
//! In one process, DataFusion's hash join thins its probe side with a dynamic filter made
//! from its build side. When the job graph cuts both sides of a partitioned join into stages
//! of their own, nothing carries that filter across: the probe stage shuffles every row,
//! though the join keeps only those whose key the build side has (a fact table joined with a
//! filtered dimension). The job graph then adds two nodes (see
//! [`crate::job_graph::add_key_filters`]):
//! - [`KeyFilterBuildExec`], a one-task stage that reads the build stage's output and answers
//!   a bloom filter of its keys' hashes (one batch of `u64` words; no batch when it has more
//!   keys than a filter is worth);
//! - [`KeyFilterExec`] at the top of the probe stage, which drops the rows whose key the
//!   filter does not have before they are shuffled. It stops testing when more than half
//!   the rows pass.
//!
//! Both sides hash their keys with one fixed seed ([`KEY_HASH_SEED`]), as DataFusion's
//! repartition does, so a filter built by one process answers for the same keys in another.

use std::fmt;
use std::sync::Arc;

use arrow::array::{Array, ArrayRef, BooleanArray, RecordBatch, UInt64Array};
use arrow::buffer::BooleanBuffer;
use arrow::compute::filter_record_batch;
use arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use datafusion::common::hash_utils::{RandomState, create_hashes};
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::common::{DataFusionError, Result, internal_err};
use datafusion::execution::memory_pool::MemoryConsumer;
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_expr::{EquivalenceProperties, PhysicalExpr};
use datafusion::physical_plan::execution_plan::{Boundedness, EmissionType};
use datafusion::physical_plan::metrics::{
    BaselineMetrics, Count, ExecutionPlanMetricsSet, MetricBuilder, MetricsSet, RecordOutput,
};
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, ExecutionPlan, Partitioning, PlanProperties,
};
use futures::{StreamExt, TryStreamExt};

use crate::codec::{EncodedNode, NodeDecoder, NodeEncoder};

/// The seed of the keys' hashes on both sides of a key filter.
const KEY_HASH_SEED: u64 = 0x6b65_795f_6669_6c74;

/// A build side with more rows than this gets no filter, as in Spark
/// (`spark.sql.optimizer.runtime.bloomFilter.maxNumItems`): at 16 bits a key its filter is
/// 8 MiB, past the caches, and such a side tends to have most keys of the probe side (TPC-H
/// q21 at SF10: 7.3 million orders pass half of `lineitem`, and the filter, 40 ns a row, cost
/// more than the shuffle it saved).
const MAX_KEYS: usize = 4 << 20;

/// Rows a probe task tests before it may give up on a filter that passes nearly all of them.
const TRIAL_ROWS: usize = 1 << 20;

fn hash_keys(
    keys: &[Arc<dyn PhysicalExpr>],
    batch: &RecordBatch,
    hashes: &mut Vec<u64>,
) -> Result<()> {
    let arrays = keys
        .iter()
        .map(|k| k.evaluate(batch)?.into_array(batch.num_rows()))
        .collect::<Result<Vec<ArrayRef>>>()?;
    hashes.clear();
    hashes.resize(batch.num_rows(), 0);
    create_hashes(&arrays, &RandomState::with_seed(KEY_HASH_SEED), hashes)?;
    Ok(())
}

/// A blocked bloom filter over 64-bit hashes: each hash sets four bits of one word.
#[derive(Debug, Clone, PartialEq)]
pub struct KeyBloom {
    words: Vec<u64>,
}

impl KeyBloom {
    /// An empty filter sized for `keys` keys (16 bits each, a power of two words).
    pub fn for_keys(keys: usize) -> Self {
        let words = keys.div_ceil(4).next_power_of_two().max(64);
        Self {
            words: vec![0; words],
        }
    }

    fn from_words(words: Vec<u64>) -> Option<Self> {
        words.len().is_power_of_two().then_some(Self { words })
    }

    fn position(&self, hash: u64) -> (usize, u64) {
        let word = (hash as usize) & (self.words.len() - 1);
        let bits = (1u64 << (hash >> 58))
            | (1u64 << ((hash >> 52) & 63))
            | (1u64 << ((hash >> 46) & 63))
            | (1u64 << ((hash >> 40) & 63));
        (word, bits)
    }

    pub fn insert(&mut self, hash: u64) {
        let (word, bits) = self.position(hash);
        if let Some(w) = self.words.get_mut(word) {
            *w |= bits;
        }
    }

    pub fn contains(&self, hash: u64) -> bool {
        let (word, bits) = self.position(hash);
        self.words.get(word).is_some_and(|w| w & bits == bits)
    }
}

/// The schema of a key filter's output: the filter's words.
fn key_filter_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![Field::new(
        "bloom",
        DataType::UInt64,
        false,
    )]))
}

/// The properties of a key filter's output (one partition of its words), for the build node
/// and for the placeholder of the stage input that reads it.
pub fn key_filter_properties() -> Arc<PlanProperties> {
    Arc::new(PlanProperties::new(
        EquivalenceProperties::new(key_filter_schema()),
        Partitioning::UnknownPartitioning(1),
        EmissionType::Final,
        Boundedness::Bounded,
    ))
}

/// Reads every partition of its input and answers one partition: a bloom filter of the
/// `keys` of all its rows (see the module documentation).
#[derive(Debug)]
pub struct KeyFilterBuildExec {
    input: Arc<dyn ExecutionPlan>,
    keys: Vec<Arc<dyn PhysicalExpr>>,
    properties: Arc<PlanProperties>,
}

impl KeyFilterBuildExec {
    pub fn new(input: Arc<dyn ExecutionPlan>, keys: Vec<Arc<dyn PhysicalExpr>>) -> Self {
        Self {
            input,
            keys,
            properties: key_filter_properties(),
        }
    }
}

impl DisplayAs for KeyFilterBuildExec {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "KeyFilterBuildExec: keys=[{}]", display_keys(&self.keys))
    }
}

fn display_keys(keys: &[Arc<dyn PhysicalExpr>]) -> String {
    keys.iter()
        .map(|k| k.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

impl ExecutionPlan for KeyFilterBuildExec {
    fn name(&self) -> &str {
        "KeyFilterBuildExec"
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

    fn apply_expressions(
        &self,
        f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> Result<TreeNodeRecursion>,
    ) -> Result<TreeNodeRecursion> {
        apply_keys(&self.keys, f)
    }

    fn with_new_children(
        self: Arc<Self>,
        mut children: Vec<Arc<dyn ExecutionPlan>>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        match children.pop() {
            Some(child) if children.is_empty() => Ok(Arc::new(Self::new(child, self.keys.clone()))),
            _ => internal_err!("KeyFilterBuildExec takes one child"),
        }
    }

    fn execute(
        &self,
        partition: usize,
        context: Arc<TaskContext>,
    ) -> Result<SendableRecordBatchStream> {
        if partition != 0 {
            return internal_err!("KeyFilterBuildExec has one partition, not {partition}");
        }
        let input = self.input.clone();
        let keys = self.keys.clone();
        let schema = key_filter_schema();
        let built = futures::stream::once(async move {
            let words = build_filter(input, keys, context).await?;
            let batch = words
                .map(|w| {
                    RecordBatch::try_new(key_filter_schema(), vec![Arc::new(UInt64Array::from(w))])
                })
                .transpose()?;
            Ok::<_, DataFusionError>(futures::stream::iter(batch.map(Ok)))
        })
        .try_flatten();
        Ok(Box::pin(RecordBatchStreamAdapter::new(schema, built)))
    }
}

/// The filter's words, or `None` when the input has too many rows for a useful filter (or
/// the memory pool cannot hold their hashes).
async fn build_filter(
    input: Arc<dyn ExecutionPlan>,
    keys: Vec<Arc<dyn PhysicalExpr>>,
    context: Arc<TaskContext>,
) -> Result<Option<Vec<u64>>> {
    let reservation = MemoryConsumer::new("KeyFilterBuild").register(context.memory_pool());
    let mut all: Vec<u64> = Vec::new();
    let mut hashes = Vec::new();
    let partitions = input.properties().output_partitioning().partition_count();
    for p in 0..partitions {
        let mut stream = input.execute(p, context.clone())?;
        while let Some(batch) = stream.next().await {
            let batch = batch?;
            if all.len() + batch.num_rows() > MAX_KEYS
                || reservation
                    .try_grow(batch.num_rows() * size_of::<u64>())
                    .is_err()
            {
                return Ok(None);
            }
            hash_keys(&keys, &batch, &mut hashes)?;
            all.extend_from_slice(&hashes);
        }
    }
    let mut bloom = KeyBloom::for_keys(all.len());
    all.iter().for_each(|h| bloom.insert(*h));
    Ok(Some(bloom.words))
}

fn apply_keys(
    keys: &[Arc<dyn PhysicalExpr>],
    f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> Result<TreeNodeRecursion>,
) -> Result<TreeNodeRecursion> {
    for k in keys {
        if f(k)? == TreeNodeRecursion::Stop {
            return Ok(TreeNodeRecursion::Stop);
        }
    }
    Ok(TreeNodeRecursion::Continue)
}

/// Passes on the rows of `input` whose `keys` the filter read from `filter` (partition 0,
/// a [`KeyFilterBuildExec`]'s output) may have.
#[derive(Debug)]
pub struct KeyFilterExec {
    input: Arc<dyn ExecutionPlan>,
    filter: Arc<dyn ExecutionPlan>,
    keys: Vec<Arc<dyn PhysicalExpr>>,
    metrics: ExecutionPlanMetricsSet,
}

impl KeyFilterExec {
    pub fn new(
        input: Arc<dyn ExecutionPlan>,
        filter: Arc<dyn ExecutionPlan>,
        keys: Vec<Arc<dyn PhysicalExpr>>,
    ) -> Self {
        Self {
            input,
            filter,
            keys,
            metrics: ExecutionPlanMetricsSet::new(),
        }
    }

    pub fn input(&self) -> &Arc<dyn ExecutionPlan> {
        &self.input
    }

    /// The plan answering the filter (in a probe stage, the placeholder of its filter stage).
    pub fn filter(&self) -> &Arc<dyn ExecutionPlan> {
        &self.filter
    }
}

impl DisplayAs for KeyFilterExec {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "KeyFilterExec: keys=[{}]", display_keys(&self.keys))
    }
}

impl ExecutionPlan for KeyFilterExec {
    fn name(&self) -> &str {
        "KeyFilterExec"
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        self.input.properties()
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        vec![&self.input, &self.filter]
    }

    fn maintains_input_order(&self) -> Vec<bool> {
        vec![true, false]
    }

    fn benefits_from_input_partitioning(&self) -> Vec<bool> {
        vec![false, false]
    }

    fn apply_expressions(
        &self,
        f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> Result<TreeNodeRecursion>,
    ) -> Result<TreeNodeRecursion> {
        apply_keys(&self.keys, f)
    }

    fn with_new_children(
        self: Arc<Self>,
        children: Vec<Arc<dyn ExecutionPlan>>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        match <[Arc<dyn ExecutionPlan>; 2]>::try_from(children) {
            Ok([input, filter]) => Ok(Arc::new(Self::new(input, filter, self.keys.clone()))),
            Err(_) => internal_err!("KeyFilterExec takes two children"),
        }
    }

    fn metrics(&self) -> Option<MetricsSet> {
        Some(self.metrics.clone_inner())
    }

    fn execute(
        &self,
        partition: usize,
        context: Arc<TaskContext>,
    ) -> Result<SendableRecordBatchStream> {
        let filter = self.filter.execute(0, context.clone())?;
        let input = self.input.execute(partition, context)?;
        let schema = input.schema();
        let mut probe = Probe {
            keys: self.keys.clone(),
            bloom: None,
            seen: 0,
            passed: 0,
            hashes: Vec::new(),
            baseline: BaselineMetrics::new(&self.metrics, partition),
            dropped: MetricBuilder::new(&self.metrics).counter("rows_dropped", partition),
        };
        let rows = futures::stream::once(async move {
            probe.bloom = read_filter(filter).await?;
            let rows = input.map(move |batch| {
                let batch = batch?;
                let time = probe.baseline.elapsed_compute().clone();
                let _timer = time.timer();
                Ok(probe.apply(batch)?.record_output(&probe.baseline))
            });
            Ok::<_, DataFusionError>(rows)
        })
        .try_flatten();
        Ok(Box::pin(RecordBatchStreamAdapter::new(schema, rows)))
    }
}

/// The filter a [`KeyFilterBuildExec`] answered; `None` (no batch) passes every row.
async fn read_filter(mut stream: SendableRecordBatchStream) -> Result<Option<KeyBloom>> {
    let mut words: Vec<u64> = Vec::new();
    while let Some(batch) = stream.next().await {
        let batch = batch?;
        let Some(column) = batch
            .columns()
            .first()
            .and_then(|c| c.as_any().downcast_ref::<UInt64Array>())
        else {
            return internal_err!("a key filter is a column of UInt64 words");
        };
        words.extend(column.values().iter());
    }
    if words.is_empty() {
        return Ok(None);
    }
    match KeyBloom::from_words(words) {
        Some(bloom) => Ok(Some(bloom)),
        None => internal_err!("a key filter's size is a power of two words"),
    }
}

/// One probe task's state: the filter, and how many rows passed it so far.
struct Probe {
    keys: Vec<Arc<dyn PhysicalExpr>>,
    bloom: Option<KeyBloom>,
    seen: usize,
    passed: usize,
    hashes: Vec<u64>,
    baseline: BaselineMetrics,
    dropped: Count,
}

impl Probe {
    fn apply(&mut self, batch: RecordBatch) -> Result<RecordBatch> {
        let Some(bloom) = &self.bloom else {
            return Ok(batch);
        };
        hash_keys(&self.keys, &batch, &mut self.hashes)?;
        let hashes = &self.hashes;
        let keep = BooleanArray::new(
            BooleanBuffer::collect_bool(hashes.len(), |i| {
                hashes.get(i).is_some_and(|h| bloom.contains(*h))
            }),
            None,
        );
        let kept = keep.true_count();
        self.seen += batch.num_rows();
        self.passed += kept;
        self.dropped.add(batch.num_rows() - kept);
        // A filter that passes more than half the rows is not worth its hashing and lookups
        // (about as much as the shuffle and join of the rows it drops).
        if self.seen >= TRIAL_ROWS && self.passed * 2 > self.seen {
            self.bloom = None;
        }
        if kept == batch.num_rows() {
            return Ok(batch);
        }
        Ok(filter_record_batch(&batch, &keep)?)
    }
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct KeyFilterMessage {
    #[prost(message, repeated, tag = "1")]
    keys: Vec<datafusion_proto::protobuf::PhysicalExprNode>,
}

impl EncodedNode for KeyFilterBuildExec {
    const NAME: &'static str = "key_filter_build";
    type Message = KeyFilterMessage;

    fn to_message(&self, encoder: &NodeEncoder) -> Result<KeyFilterMessage> {
        Ok(KeyFilterMessage {
            keys: encoder.exprs(&self.keys)?,
        })
    }

    fn from_message(
        x: KeyFilterMessage,
        inputs: &[Arc<dyn ExecutionPlan>],
        decoder: &NodeDecoder,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let input = crate::codec::one_input(inputs)?;
        let keys = decoder.exprs(&x.keys, &input.schema())?;
        Ok(Arc::new(Self::new(input, keys)))
    }
}

impl EncodedNode for KeyFilterExec {
    const NAME: &'static str = "key_filter";
    type Message = KeyFilterMessage;

    fn to_message(&self, encoder: &NodeEncoder) -> Result<KeyFilterMessage> {
        Ok(KeyFilterMessage {
            keys: encoder.exprs(&self.keys)?,
        })
    }

    fn from_message(
        x: KeyFilterMessage,
        inputs: &[Arc<dyn ExecutionPlan>],
        decoder: &NodeDecoder,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let [input, filter] = inputs else {
            return internal_err!("a key filter takes two inputs");
        };
        let keys = decoder.exprs(&x.keys, &input.schema())?;
        Ok(Arc::new(Self::new(input.clone(), filter.clone(), keys)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::Int64Array;
    use datafusion::physical_expr::expressions::Column;

    #[test]
    fn a_filter_has_every_key_it_was_given_and_few_others() {
        let mut bloom = KeyBloom::for_keys(10_000);
        let hash = |v: i64| {
            let mut h = [0u64];
            let array: ArrayRef = Arc::new(Int64Array::from(vec![v]));
            create_hashes([&array], &RandomState::with_seed(KEY_HASH_SEED), &mut h).unwrap();
            h[0]
        };
        (0..10_000).for_each(|v| bloom.insert(hash(v * 7)));
        assert!((0..10_000).all(|v| bloom.contains(hash(v * 7))));
        let false_positives = (0..100_000)
            .filter(|v| v % 7 != 0 && bloom.contains(hash(*v + 1_000_000)))
            .count();
        assert!(false_positives < 2_000, "{false_positives} false positives");
    }

    #[test]
    fn a_probe_keeps_the_rows_whose_keys_were_built() {
        let schema = Arc::new(Schema::new(vec![Field::new("k", DataType::Int64, true)]));
        let batch = |values: Vec<Option<i64>>| {
            RecordBatch::try_new(schema.clone(), vec![Arc::new(Int64Array::from(values))]).unwrap()
        };
        let keys: Vec<Arc<dyn PhysicalExpr>> = vec![Arc::new(Column::new("k", 0))];
        let mut hashes = Vec::new();
        hash_keys(&keys, &batch(vec![Some(1), Some(5), None]), &mut hashes).unwrap();
        let mut bloom = KeyBloom::for_keys(3);
        hashes.iter().for_each(|h| bloom.insert(*h));
        let metrics = ExecutionPlanMetricsSet::new();
        let mut probe = Probe {
            keys,
            bloom: KeyBloom::from_words(bloom.words.clone()),
            seen: 0,
            passed: 0,
            hashes: Vec::new(),
            baseline: BaselineMetrics::new(&metrics, 0),
            dropped: MetricBuilder::new(&metrics).counter("rows_dropped", 0),
        };
        let values: Vec<Option<i64>> = (0..1000).map(Some).collect();
        let out = probe.apply(batch(values)).unwrap();
        let kept = out.column(0).as_any().downcast_ref::<Int64Array>().unwrap();
        assert!(kept.values().contains(&1) && kept.values().contains(&5));
        assert!(out.num_rows() < 20, "{} rows passed", out.num_rows());
    }
}
