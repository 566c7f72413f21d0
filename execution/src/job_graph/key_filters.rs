//! Key filters between the stages of a shuffled join (Spark's runtime bloom filters, on by
//! `spark.sql.optimizer.runtime.bloomFilter.enabled`).
//!
//! A partitioned hash join whose two sides are shuffle stages (build stage `B`, probe stage
//! `P`) gets a one-task stage `F` between them: `F` reads `B`'s output and answers a bloom
//! filter of its keys ([`KeyFilterBuildExec`]), and `P` reads it by Broadcast and drops,
//! before its shuffle, the rows whose key it does not have ([`KeyFilterExec`]). `P` then
//! waits for `B`: on a machine whose slots are all busy that costs little, and the probe
//! side (a fact table joined with a filtered dimension) shuffles, spills and joins only the
//! rows that can match.
//!
//! It applies where a probe row without a match never reaches the join's output (inner,
//! left outer, left and right semi, left anti that is not null-aware), where both stages are
//! hash-partitioned on exactly the join's keys, and where the build side is worth it and
//! safe: something below it filters rows (a filter, or a semi join), no table it reads is
//! larger than the probe side's largest (the fact table is on the probe side), and nothing
//! below it answers other rows when run again (no volatile expression, no limit), since a lost
//! build output is computed again after the probe side was filtered.

use std::sync::Arc;

use datafusion::common::tree_node::{TreeNode, TreeNodeRecursion};
use datafusion::common::{JoinType, Result};
use datafusion::physical_expr::{EquivalenceProperties, PhysicalExpr};
use datafusion::physical_expr_common::physical_expr::is_volatile;
use datafusion::physical_plan::execution_plan::{Boundedness, EmissionType};
use datafusion::physical_plan::filter::FilterExec;
use datafusion::physical_plan::joins::{HashJoinExec, PartitionMode};
use datafusion::physical_plan::limit::{GlobalLimitExec, LocalLimitExec};
use datafusion::physical_plan::statistics::{StatisticsArgs, StatisticsContext};
use datafusion::physical_plan::{ExecutionPlan, Partitioning, PlanProperties};

use super::{InputMode, JobGraph, OutputDistribution, Placement, Stage, StageInput};
use crate::plan::{KeyFilterBuildExec, KeyFilterExec, StageInputExec, key_filter_properties};

/// A join that gets a key filter: the stages of its build and probe sides, and their keys.
struct Candidate {
    build: usize,
    probe: usize,
    build_keys: Vec<Arc<dyn PhysicalExpr>>,
    probe_keys: Vec<Arc<dyn PhysicalExpr>>,
}

impl JobGraph {
    /// The graph with a key filter stage before the probe stage of every join that qualifies
    /// (see the module documentation).
    pub fn with_key_filters(mut self) -> Result<Self> {
        while let Some(c) = candidate(&self)? {
            insert_filter(&mut self.stages, c);
        }
        Ok(self)
    }
}

fn candidate(graph: &JobGraph) -> Result<Option<Candidate>> {
    for stage in graph.stages() {
        let mut found = None;
        stage.plan.apply(|node| {
            if let Some(join) = node.downcast_ref::<HashJoinExec>()
                && let Some(c) = join_candidate(graph, stage, join)
            {
                found = Some(c);
                return Ok(TreeNodeRecursion::Stop);
            }
            Ok(TreeNodeRecursion::Continue)
        })?;
        if found.is_some() {
            return Ok(found);
        }
    }
    Ok(None)
}

/// The stage a join's child reads by Shuffle, when the child is that input's placeholder.
fn shuffled_input(stage: &Stage, child: &Arc<dyn ExecutionPlan>) -> Option<usize> {
    let input = child.downcast_ref::<StageInputExec>()?;
    let read = stage.inputs.get(input.index())?;
    (read.mode == InputMode::Shuffle).then_some(read.stage)
}

fn join_candidate(graph: &JobGraph, consumer: &Stage, join: &HashJoinExec) -> Option<Candidate> {
    let stages = graph.stages();
    let drops_unmatched_probe_rows = match join.join_type() {
        JoinType::Inner | JoinType::Left | JoinType::LeftSemi | JoinType::RightSemi => true,
        JoinType::LeftAnti => !join.null_aware,
        _ => false,
    };
    if *join.partition_mode() != PartitionMode::Partitioned || !drops_unmatched_probe_rows {
        return None;
    }
    let build = shuffled_input(consumer, join.left())?;
    let probe = shuffled_input(consumer, join.right())?;
    let (b, p) = (stages.get(build)?, stages.get(probe)?);
    if p.plan.is::<KeyFilterExec>() || graph.consumers(probe).len() != 1 {
        return None;
    }
    let (OutputDistribution::Hash { keys: bk, .. }, OutputDistribution::Hash { keys: pk, .. }) =
        (&b.distribution, &p.distribution)
    else {
        return None;
    };
    let on = join.on();
    let same_keys = bk.len() == on.len()
        && pk.len() == on.len()
        && on
            .iter()
            .zip(bk.iter().zip(pk))
            .all(|((l, r), (b_key, p_key))| {
                l.as_ref() == b_key.as_ref()
                    && r.as_ref() == p_key.as_ref()
                    && b_key.data_type(&b.plan.schema()).ok()
                        == p_key.data_type(&p.plan.schema()).ok()
            });
    if !same_keys || !worth_filtering(graph, build) {
        return None;
    }
    // The fact table on the probe side: a build side that reads a larger table (TPC-H q7's
    // `lineitem` joined on to `orders`) takes long enough that the probe side, which waits for
    // it, gains less than it loses (1.12x at SF10 in one process).
    if let (Some(b), Some(p)) = (largest_scan(graph, build), largest_scan(graph, probe))
        && p < b
    {
        return None;
    }
    Some(Candidate {
        build,
        probe,
        build_keys: bk.clone(),
        probe_keys: pk.clone(),
    })
}

/// The stages a stage reads, itself included, directly or through others.
fn below(graph: &JobGraph, stage: usize) -> Vec<&Stage> {
    let mut found = Vec::new();
    let mut pending = vec![stage];
    while let Some(s) = pending.pop() {
        if let Some(st) = graph.stages().get(s) {
            pending.extend(graph.input_stages(s));
            found.push(st);
        }
    }
    found
}

/// The most rows one source (a leaf that is not another stage's output) of `stage` and the
/// stages below it reads, by its statistics; `None` when one of them does not know.
fn largest_scan(graph: &JobGraph, stage: usize) -> Option<usize> {
    let mut largest = Some(0);
    for st in below(graph, stage) {
        let _ = st.plan.apply(|node| {
            if node.children().is_empty() && !node.is::<StageInputExec>() {
                let rows = StatisticsContext::new()
                    .compute(node.as_ref(), &StatisticsArgs::new())
                    .ok()
                    .and_then(|s| s.num_rows.get_value().copied());
                largest = largest.zip(rows).map(|(a, b)| a.max(b));
            }
            Ok(TreeNodeRecursion::Continue)
        });
    }
    largest
}

/// Whether the plan of `stage` and the stages below it filter rows, and answer the same
/// rows when run again.
fn worth_filtering(graph: &JobGraph, stage: usize) -> bool {
    let mut selective = false;
    let mut repeatable = true;
    for st in below(graph, stage) {
        let _ = st.plan.apply(|node| {
            if node.is::<FilterExec>() {
                selective = true;
            }
            if let Some(join) = node.downcast_ref::<HashJoinExec>()
                && matches!(join.join_type(), JoinType::LeftSemi | JoinType::RightSemi)
            {
                selective = true;
            }
            if node.is::<GlobalLimitExec>() || node.is::<LocalLimitExec>() || node.fetch().is_some()
            {
                repeatable = false;
            }
            let _ = node.apply_expressions(&mut |e| {
                if is_volatile(e) {
                    repeatable = false;
                    return Ok(TreeNodeRecursion::Stop);
                }
                Ok(TreeNodeRecursion::Continue)
            });
            Ok(TreeNodeRecursion::Continue)
        });
    }
    selective && repeatable
}

/// Insert the filter stage of `c` just before its probe stage (stages stay in topological
/// order), and make the probe stage read it.
fn insert_filter(stages: &mut Vec<Stage>, c: Candidate) {
    let Some(build) = stages.get(c.build) else {
        return;
    };
    let read = Arc::new(PlanProperties::new(
        EquivalenceProperties::new(build.plan.schema()),
        Partitioning::UnknownPartitioning(build.partitions()),
        EmissionType::Incremental,
        Boundedness::Bounded,
    ));
    let filter = Stage {
        inputs: vec![StageInput {
            stage: c.build,
            mode: InputMode::Merge,
        }],
        plan: Arc::new(KeyFilterBuildExec::new(
            Arc::new(StageInputExec::new(0, read)),
            c.build_keys,
        )),
        distribution: OutputDistribution::RoundRobin { channels: 1 },
        placement: Placement::Worker,
    };
    let at = c.probe;
    for stage in stages.iter_mut() {
        for input in stage.inputs.iter_mut() {
            if input.stage >= at {
                input.stage += 1;
            }
        }
    }
    stages.insert(at, filter);
    let Some(probe) = stages.get_mut(at + 1) else {
        return;
    };
    let placeholder = Arc::new(StageInputExec::new(
        probe.inputs.len(),
        key_filter_properties(),
    ));
    probe.plan = Arc::new(KeyFilterExec::new(
        probe.plan.clone(),
        placeholder,
        c.probe_keys,
    ));
    probe.inputs.push(StageInput {
        stage: at,
        mode: InputMode::Broadcast,
    });
}
