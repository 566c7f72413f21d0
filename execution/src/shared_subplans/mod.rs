//! Identical subplans computed once, in one process (Spark's `ReuseExchange`).
//!
//! A query that names a common table expression, a view or a DataFrame twice gets two copies of
//! its plan: TPC-H q15 aggregates three months of `lineitem` per supplier once to find the
//! largest revenue and once more to join it with `supplier`, reading all 6 million rows twice.
//! Spark computes such a subplan once (`ReuseExchange`: the second exchange reads the first's
//! output); DataFusion has no such rule.
//!
//! [`share_subplans`] finds subplans that compute the same thing: the same operators with the
//! same expressions, schemas and files, up to the names of their columns (Ember gives every
//! reference of a relation columns of its own, `#70` in one copy and `#33` in the other, so
//! names are compared up to a consistent renaming). It shares the largest such subplans whose
//! result is an aggregate's (passed on through projections, filters, sorts or coalescing), as
//! those are the ones whose output is small next to their work. Only file scans and
//! DataFusion's own relational operators take part, and none with a volatile function. The
//! first copy (one that does not read a dynamic filter from outside the subplan, as that
//! filter would thin the result for one reader only) becomes a [`SharedExec`] with the copy
//! below it; every other copy becomes a [`SharedExec`] without children that reads the first's
//! output.
//!
//! A partition of the shared subplan runs once, in a task of its own started by the first
//! reader that polls it (so a reader whose parent waits for another reader cannot hold the
//! computation up), into memory the memory pool grants and past that into a spill file; every
//! reader then reads it in order, each with its own column names, and the output is freed when
//! the last reader has read it. Only the local runner applies this (stages of a job graph are
//! planned on their own).

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use arrow::array::RecordBatch;
use arrow::datatypes::SchemaRef;
use datafusion::common::runtime::SpawnedTask;
use datafusion::common::tree_node::{TreeNode, TreeNodeRecursion};
use datafusion::common::{DataFusionError, Result};
use datafusion::datasource::physical_plan::FileScanConfig;
use datafusion::datasource::source::DataSourceExec;
use datafusion::execution::SpillFile;
use datafusion::execution::memory_pool::{MemoryConsumer, MemoryReservation};
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::logical_expr::Volatility;
use datafusion::physical_expr::expressions::DynamicFilterPhysicalExpr;
use datafusion::physical_expr::{ScalarFunctionExpr, split_conjunction};
use datafusion::physical_plan::aggregates::{AggregateExec, AggregateMode};
use datafusion::physical_plan::display::DisplayableExecutionPlan;
use datafusion::physical_plan::metrics::{ExecutionPlanMetricsSet, MetricsSet, SpillMetrics};
use datafusion::physical_plan::spill::SpillManager;
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, ExecutionPlan, PlanProperties, replace_children_if_necessary,
};
use futures::{StreamExt, TryStreamExt};
use parking_lot::Mutex;
use tokio::sync::watch;

/// Operators whose display (with their expressions and schema) says all they compute.
const SHAREABLE: &[&str] = &[
    "DataSourceExec",
    "FilterExec",
    "ProjectionExec",
    "AggregateExec",
    "RepartitionExec",
    "CoalescePartitionsExec",
    "CoalesceBatchesExec",
    "HashJoinExec",
    "SortExec",
    "SortPreservingMergeExec",
    "CrossJoinExec",
    "UnionExec",
];

/// What a subplan computes, for comparison with others.
struct Described {
    /// Every operator's display, expressions and schema, children in order.
    text: String,
    /// Dynamic filters its scans read, and those its joins produce.
    read: HashSet<u64>,
    produced: HashSet<u64>,
}

/// A candidate subplan: its canonical text, and whether it reads a dynamic filter produced
/// outside it.
struct Candidate {
    key: String,
    reads_outside: bool,
}

fn address(plan: &Arc<dyn ExecutionPlan>) -> usize {
    Arc::as_ptr(plan) as *const () as usize
}

/// `plan` with each set of identical aggregate subplans computed once (module docs).
pub fn share_subplans(plan: Arc<dyn ExecutionPlan>) -> Result<Arc<dyn ExecutionPlan>> {
    let mut candidates = HashMap::new();
    describe(&plan, &mut candidates);
    if candidates.len() < 2 {
        return Ok(plan);
    }
    // Keys with two copies or more where the walk from the root reaches them (a copy inside
    // a shared copy is not reached, and one of them must read no filter from outside): a key
    // reached once, or only in copies that read such filters, is dropped, and the walk goes
    // below it next time (where it may reach other keys twice).
    let mut keys: HashSet<String> = count(candidates.values().map(|c| c.key.clone()))
        .into_iter()
        .filter(|(_, n)| *n >= 2)
        .map(|(k, _)| k)
        .collect();
    loop {
        let mut reached = Vec::new();
        reach(&plan, &candidates, &keys, &mut reached);
        let counts = count(reached.iter().map(|a| candidates[a].key.clone()));
        let dropped: Vec<String> = counts
            .into_iter()
            .filter(|(key, n)| {
                *n < 2
                    || !reached
                        .iter()
                        .any(|a| &candidates[a].key == key && !candidates[a].reads_outside)
            })
            .map(|(k, _)| k)
            .collect();
        if dropped.is_empty() {
            break;
        }
        for key in dropped {
            keys.remove(&key);
        }
    }
    if keys.is_empty() {
        return Ok(plan);
    }
    let mut reached = Vec::new();
    reach(&plan, &candidates, &keys, &mut reached);
    let readers = count(reached.iter().map(|a| candidates[a].key.clone()));
    // Each key's first copy that reads no filter from outside it runs for all.
    let mut groups: HashMap<String, (usize, Arc<Shared>)> = HashMap::new();
    let mut next_id = 0;
    plan.apply(|node| {
        let at = address(node);
        if let Some(candidate) = candidates.get(&at)
            && keys.contains(&candidate.key)
            && !candidate.reads_outside
            && !groups.contains_key(&candidate.key)
            && reached.contains(&at)
        {
            next_id += 1;
            let readers = readers.get(&candidate.key).copied().unwrap_or(1);
            let shared = Shared::new(next_id, Arc::clone(node), readers);
            groups.insert(candidate.key.clone(), (at, shared));
        }
        Ok(TreeNodeRecursion::Continue)
    })?;
    rewrite(&plan, &candidates, &groups)
}

fn count(keys: impl Iterator<Item = String>) -> HashMap<String, usize> {
    let mut counts = HashMap::new();
    for key in keys {
        *counts.entry(key).or_insert(0) += 1;
    }
    counts
}

/// The candidates the walk from `plan` reaches, not descending below one of `keys`.
fn reach(
    plan: &Arc<dyn ExecutionPlan>,
    candidates: &HashMap<usize, Candidate>,
    keys: &HashSet<String>,
    reached: &mut Vec<usize>,
) {
    let at = address(plan);
    if candidates.get(&at).is_some_and(|c| keys.contains(&c.key)) {
        reached.push(at);
        return;
    }
    for child in plan.children() {
        reach(child, candidates, keys, reached);
    }
}

fn rewrite(
    plan: &Arc<dyn ExecutionPlan>,
    candidates: &HashMap<usize, Candidate>,
    groups: &HashMap<String, (usize, Arc<Shared>)>,
) -> Result<Arc<dyn ExecutionPlan>> {
    let at = address(plan);
    if let Some((first, shared)) = candidates.get(&at).and_then(|c| groups.get(&c.key)) {
        let input = (*first == at).then(|| Arc::clone(plan));
        return Ok(Arc::new(SharedExec::new(input, plan, Arc::clone(shared))));
    }
    let children = plan.children();
    if children.is_empty() {
        return Ok(Arc::clone(plan));
    }
    let mut changed = false;
    let mut new_children = Vec::with_capacity(children.len());
    for child in children {
        let new_child = rewrite(child, candidates, groups)?;
        changed |= !Arc::ptr_eq(&new_child, child);
        new_children.push(new_child);
    }
    if changed {
        replace_children_if_necessary(Arc::clone(plan), new_children)
    } else {
        Ok(Arc::clone(plan))
    }
}

/// What `plan` computes (see [`describe_node`]); every subplan at or below it that could be
/// shared goes to `out`, by address. Each operator is described once, its text reused by the
/// subplans above it.
fn describe(
    plan: &Arc<dyn ExecutionPlan>,
    out: &mut HashMap<usize, Candidate>,
) -> Option<Described> {
    let children: Vec<Option<Described>> = plan
        .children()
        .into_iter()
        .map(|c| describe(c, out))
        .collect();
    let described = describe_node(plan, children)?;
    if aggregate_result(plan) {
        out.insert(
            address(plan),
            Candidate {
                key: canonical(&described.text),
                reads_outside: !described.read.is_subset(&described.produced),
            },
        );
    }
    Some(described)
}

/// Whether `plan` passes on an aggregate's result (through projections, filters, sorts and
/// coalescing), whose output is small next to the work below it.
fn aggregate_result(plan: &Arc<dyn ExecutionPlan>) -> bool {
    let mut node = Arc::clone(plan);
    loop {
        if let Some(aggregate) = node.downcast_ref::<AggregateExec>() {
            return !matches!(aggregate.mode(), AggregateMode::Partial);
        }
        let passes = matches!(
            node.name(),
            "ProjectionExec"
                | "FilterExec"
                | "CoalesceBatchesExec"
                | "SortExec"
                | "CoalescePartitionsExec"
        );
        let children = node.children();
        if !passes || children.len() != 1 {
            return false;
        }
        node = Arc::clone(children[0]);
    }
}

/// What `plan` computes, given what its children compute, or `None` when it has an operator
/// whose display may not say all it does, a volatile function, or a dynamic filter already
/// filled in.
fn describe_node(
    plan: &Arc<dyn ExecutionPlan>,
    children: Vec<Option<Described>>,
) -> Option<Described> {
    if !SHAREABLE.contains(&plan.name()) {
        return None;
    }
    if let Some(scan) = plan.downcast_ref::<DataSourceExec>()
        && scan
            .data_source()
            .downcast_ref::<FileScanConfig>()
            .is_none()
    {
        // (An in-memory source displays its sizes, not its rows.)
        return None;
    }
    let mut read = HashSet::new();
    let mut volatile = false;
    let mut expressions = String::new();
    let mut filled = false;
    let _ = plan.apply_expressions(&mut |root| {
        // A scan's dynamic filters (conjuncts of its predicate) are left out: their debug form
        // has their current state, and the display has them empty.
        for conjunct in split_conjunction(root) {
            if conjunct
                .downcast_ref::<DynamicFilterPhysicalExpr>()
                .is_some()
            {
                read.extend(conjunct.expression_id());
                continue;
            }
            let _ = conjunct.apply(|e| {
                if e.downcast_ref::<DynamicFilterPhysicalExpr>().is_some() {
                    // (One deeper in an expression: not compared.)
                    filled = true;
                }
                if let Some(function) = e.downcast_ref::<ScalarFunctionExpr>()
                    && function.fun().signature().volatility == Volatility::Volatile
                {
                    volatile = true;
                }
                Ok(TreeNodeRecursion::Continue)
            });
            expressions.push_str(&format!("{conjunct:?};"));
        }
        Ok(TreeNodeRecursion::Continue)
    });
    if filled {
        return None;
    }
    if volatile {
        return None;
    }
    let display = DisplayableExecutionPlan::new(plan.as_ref())
        .one_line()
        .to_string();
    let display = strip_dynamic_filters(&display)?;
    let mut produced: HashSet<u64> = plan
        .dynamic_expressions_produced()
        .iter()
        .filter_map(|e| e.expression_id())
        .collect();
    let mut text = format!(
        "{}\u{1}{display}\u{1}{expressions}\u{1}{:?}(",
        plan.name(),
        plan.schema().fields()
    );
    for child in children {
        let described = child?;
        text.push_str(&described.text);
        text.push('\u{2}');
        read.extend(described.read);
        produced.extend(described.produced);
    }
    text.push(')');
    Some(Described {
        text,
        read,
        produced,
    })
}

/// `display` without its unfilled dynamic filters; `None` when one is filled in.
fn strip_dynamic_filters(display: &str) -> Option<String> {
    let mut text = display
        .replace(" AND DynamicFilter [ empty ]", "")
        .replace("DynamicFilter [ empty ] AND ", "")
        .replace(", predicate=DynamicFilter [ empty ]", "")
        .replace(", dynamic_rg_pruning=eligible", "");
    if text.contains("DynamicFilter") {
        return None;
    }
    text.shrink_to_fit();
    Some(text)
}

/// `text` with Ember's column names (`#` and digits) renamed in the order they first appear,
/// so that two copies that differ only in their columns' names read the same.
fn canonical(text: &str) -> String {
    let mut names: HashMap<&str, usize> = HashMap::new();
    let mut out = String::with_capacity(text.len());
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'#' {
            let end = i
                + 1
                + bytes[i + 1..]
                    .iter()
                    .take_while(|b| b.is_ascii_digit())
                    .count();
            if end > i + 1 {
                let next = names.len();
                let n = *names.entry(&text[i..end]).or_insert(next);
                out.push_str(&format!("#~{n}"));
                i = end;
                continue;
            }
        }
        let c = text[i..].chars().next().unwrap_or('\u{fffd}');
        out.push(c);
        i += c.len_utf8().max(1);
    }
    out
}

/// The output of one partition of a shared subplan, as its readers see it.
#[derive(Clone)]
enum State {
    Pending,
    Ready(Arc<Output>),
    Failed(Arc<DataFusionError>),
    /// Every reader has read it.
    Released,
}

/// A partition's output: the batches memory held, then those spilled.
struct Output {
    batches: Vec<RecordBatch>,
    spilled: Option<Arc<dyn SpillFile>>,
    spill_manager: SpillManager,
    _reservation: MemoryReservation,
}

struct Slot {
    started: AtomicBool,
    task: Mutex<Option<SpawnedTask<()>>>,
    state: watch::Sender<State>,
    unread: AtomicUsize,
}

/// A shared subplan: the plan (the first copy, as it is in the final plan) and its partitions'
/// outputs.
pub struct Shared {
    id: usize,
    plan: Mutex<Arc<dyn ExecutionPlan>>,
    slots: Vec<Arc<Slot>>,
    /// The readers of each partition: the copies replaced by a [`SharedExec`].
    readers: usize,
    metrics: ExecutionPlanMetricsSet,
}

impl fmt::Debug for Shared {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Shared")
            .field("id", &self.id)
            .field("readers", &self.readers)
            .finish()
    }
}

impl Shared {
    fn new(id: usize, plan: Arc<dyn ExecutionPlan>, readers: usize) -> Arc<Self> {
        let partitions = plan.properties().partitioning.partition_count();
        let slots = (0..partitions)
            .map(|_| {
                Arc::new(Slot {
                    started: AtomicBool::new(false),
                    task: Mutex::new(None),
                    state: watch::Sender::new(State::Pending),
                    unread: AtomicUsize::new(readers),
                })
            })
            .collect();
        Arc::new(Self {
            id,
            plan: Mutex::new(plan),
            slots,
            readers,
            metrics: ExecutionPlanMetricsSet::new(),
        })
    }

    /// Start computing `partition` unless a reader already did.
    fn start(&self, partition: usize, context: Arc<TaskContext>) {
        let Some(slot) = self.slots.get(partition) else {
            return;
        };
        if slot.started.swap(true, Ordering::AcqRel) {
            return;
        }
        let plan = Arc::clone(&*self.plan.lock());
        let metrics = self.metrics.clone();
        let weak = Arc::downgrade(slot);
        let task = SpawnedTask::spawn(async move {
            let state = match compute(plan, partition, context, &metrics).await {
                Ok(output) => State::Ready(Arc::new(output)),
                Err(e) => State::Failed(Arc::new(e)),
            };
            if let Some(slot) = weak.upgrade() {
                slot.state.send_replace(state);
            }
        });
        *slot.task.lock() = Some(task);
    }
}

/// Run one partition of `plan` into memory the pool grants, and past that into a spill file.
async fn compute(
    plan: Arc<dyn ExecutionPlan>,
    partition: usize,
    context: Arc<TaskContext>,
    metrics: &ExecutionPlanMetricsSet,
) -> Result<Output> {
    let mut stream = plan.execute(partition, Arc::clone(&context))?;
    let reservation = MemoryConsumer::new(format!("SharedExec[{partition}]"))
        .with_can_spill(true)
        .register(context.memory_pool());
    let spill_manager = SpillManager::new(
        context.runtime_env(),
        SpillMetrics::new(metrics, partition),
        plan.schema(),
    )
    .with_compression_type(
        context
            .session_config()
            .options()
            .execution
            .spill_compression,
    );
    let mut batches = Vec::new();
    let mut file = None;
    while let Some(batch) = stream.next().await {
        let batch = batch?;
        if file.is_none() && reservation.try_grow(batch.get_array_memory_size()).is_ok() {
            batches.push(batch);
            continue;
        }
        if file.is_none() {
            file = Some(spill_manager.create_in_progress_file("SharedExec")?);
        }
        if let Some(file) = file.as_mut() {
            file.append_batch(&batch)?;
        }
    }
    let spilled = match file.as_mut() {
        Some(file) => file.finish()?,
        None => None,
    };
    Ok(Output {
        batches,
        spilled,
        spill_manager,
        _reservation: reservation,
    })
}

/// A copy of a shared subplan: the first copy has it as its child; the others read its output
/// (module docs).
#[derive(Debug)]
pub struct SharedExec {
    input: Option<Arc<dyn ExecutionPlan>>,
    shared: Arc<Shared>,
    /// This copy's own schema and properties (its columns' names).
    schema: SchemaRef,
    properties: Arc<PlanProperties>,
}

impl SharedExec {
    fn new(
        input: Option<Arc<dyn ExecutionPlan>>,
        copy: &Arc<dyn ExecutionPlan>,
        shared: Arc<Shared>,
    ) -> Self {
        Self {
            input,
            shared,
            schema: copy.schema(),
            properties: Arc::clone(copy.properties()),
        }
    }
}

impl DisplayAs for SharedExec {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        match self.input {
            Some(_) => write!(
                f,
                "SharedExec: subplan={}, readers={}",
                self.shared.id, self.shared.readers
            ),
            None => write!(f, "SharedExec: reads subplan={}", self.shared.id),
        }
    }
}

impl ExecutionPlan for SharedExec {
    fn name(&self) -> &str {
        "SharedExec"
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        &self.properties
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        self.input.iter().collect()
    }

    fn maintains_input_order(&self) -> Vec<bool> {
        vec![true; self.input.iter().count()]
    }

    fn apply_expressions(
        &self,
        _f: &mut dyn FnMut(
            &Arc<dyn datafusion::physical_expr::PhysicalExpr>,
        ) -> Result<TreeNodeRecursion>,
    ) -> Result<TreeNodeRecursion> {
        Ok(TreeNodeRecursion::Continue)
    }

    fn with_new_children(
        self: Arc<Self>,
        children: Vec<Arc<dyn ExecutionPlan>>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        match (self.input.as_ref(), children.into_iter().next()) {
            (Some(_), Some(child)) => {
                // The first copy's plan as the final plan has it (with its progress and
                // filters) is the one its partitions run.
                *self.shared.plan.lock() = Arc::clone(&child);
                Ok(Arc::new(Self {
                    input: Some(child),
                    shared: Arc::clone(&self.shared),
                    schema: Arc::clone(&self.schema),
                    properties: Arc::clone(&self.properties),
                }))
            }
            _ => Ok(self),
        }
    }

    fn metrics(&self) -> Option<MetricsSet> {
        self.input
            .as_ref()
            .map(|_| self.shared.metrics.clone_inner())
    }

    fn execute(
        &self,
        partition: usize,
        context: Arc<TaskContext>,
    ) -> Result<SendableRecordBatchStream> {
        let Some(slot) = self.shared.slots.get(partition).cloned() else {
            return Err(DataFusionError::Internal(format!(
                "shared subplan {} has no partition {partition}",
                self.shared.id
            )));
        };
        let shared = Arc::clone(&self.shared);
        let schema = Arc::clone(&self.schema);
        let rows = async move {
            shared.start(partition, context);
            let mut state = slot.state.subscribe();
            let ready = state
                .wait_for(|s| !matches!(s, State::Pending))
                .await
                .map(|s| s.clone())
                .map_err(|e| DataFusionError::Internal(e.to_string()))?;
            let read = Reading(Arc::clone(&slot));
            match ready {
                State::Ready(output) => replay(&output, read),
                State::Failed(e) => Err(DataFusionError::Shared(e)),
                State::Released | State::Pending => Err(DataFusionError::Internal(format!(
                    "shared subplan {} read more often than it has readers",
                    shared.id
                ))),
            }
        };
        let stream = futures::stream::once(rows).try_flatten().map(move |batch| {
            batch.and_then(|b| {
                RecordBatch::try_new(Arc::clone(&schema), b.columns().to_vec()).map_err(Into::into)
            })
        });
        Ok(Box::pin(RecordBatchStreamAdapter::new(
            Arc::clone(&self.schema),
            stream,
        )))
    }
}

/// One reader's hold on a partition's output: when the last reader is done, it is freed.
struct Reading(Arc<Slot>);

impl Drop for Reading {
    fn drop(&mut self) {
        if self.0.unread.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.0.state.send_replace(State::Released);
        }
    }
}

/// The batches of `output` in order, held by `read` until the stream ends.
fn replay(
    output: &Arc<Output>,
    read: Reading,
) -> Result<futures::stream::BoxStream<'static, Result<RecordBatch>>> {
    let in_memory = futures::stream::iter(output.batches.clone().into_iter().map(Ok));
    let spilled = match &output.spilled {
        Some(file) => output
            .spill_manager
            .read_spill_as_stream(Arc::clone(file), None)?
            .boxed(),
        None => futures::stream::empty().boxed(),
    };
    let held = Arc::clone(output);
    let end = futures::stream::once(async move {
        drop((held, read));
        None
    })
    .filter_map(|x: Option<Result<RecordBatch>>| async move { x });
    Ok(in_memory.chain(spilled).chain(end).boxed())
}

#[cfg(test)]
mod tests;
