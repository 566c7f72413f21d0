//! Key filters between the stages of a join (Spark's runtime bloom filters, on by
//! `spark.sql.optimizer.runtime.bloomFilter.enabled`).
//!
//! A hash join whose build side is another stage's output (build stage `B`: a shuffle, or the
//! broadcast of a collect-left join) and whose probe keys are columns of another stage's
//! output (probe stage `P`) gets a one-task stage `F`: `F` reads `B`'s output and answers a
//! bloom filter of its keys ([`KeyFilterBuildExec`]), and `P` reads it by Broadcast and drops,
//! before its output leaves it, the rows whose key it does not have ([`KeyFilterExec`]). `P`
//! then waits for `B`: on a machine whose slots are all busy that costs little, and the probe
//! side (a fact table joined with a filtered dimension) shuffles, spills and joins only the
//! rows that can match.
//!
//! The probe keys need not be `P`'s output itself: they are followed down the consumer
//! stage's plan ([`traced_column`]) through projections, filters, other joins, group keys and
//! sorts to the placeholder they are read from. TPC-H q21 joins `nation` (filtered,
//! broadcast) on `s_nationkey` after `lineitem` met `orders`: the `lineitem` stage below is
//! filtered by it, 36 of 38 million rows fewer at SF10.
//!
//! Where the join's unmatched build rows never reach its output either (inner, semi, right
//! outer and right anti joins), a selective probe side filters the build side's stage the same
//! way: TPC-H q9 builds on `orders` and `partsupp` and probes with the `lineitem` rows of green
//! parts, which filter both. Stages are put back in topological order after each filter. A
//! build side read whole by a collect-left join is small (DataFusion chose to collect it) and
//! is not filtered so.
//!
//! It applies where a probe row without a match never reaches the join's output (inner,
//! left outer, left and right semi, left anti that is not null-aware; keys that never equal
//! NULL), and where the build side is worth it and safe: something below it filters rows (a
//! filter, or a semi join), and nothing below it answers other rows when run again (no
//! volatile expression, no limit), since a lost build output is computed again after the
//! probe side was filtered. `P` must have no other consumer. A build side may read a larger
//! table than the probe side (TPC-H q18's `lineitem` grouped by order and filtered by its
//! HAVING, for `orders`): an earlier rule kept such filters out after TPC-H q7 ran 1.12x
//! slower with one, but with the filters of this module together that no longer held at SF10
//! (without the rule, min of 3: q7 0.91x, q12 0.93x, q14 1.03x, q18 0.97x in cluster mode;
//! 1.03x, 0.92x, 0.95x, 0.90x in local-cluster mode). A filter that would
//! pass most rows gives up at run time instead: past 4 million build keys, or when more
//! than half of a probe task's first million rows pass.
//!
//! A build side that is not a stage of its own (TPC-H q21's `l1`: `lineitem` joined with
//! `orders` and `nation` in the stage that then joins it with the shuffled `l2` and `l3`) is
//! made one first ([`separate_filterable_build_sides`]): it is repartitioned on the join's
//! keys, which moves no row (it is already partitioned on them), and becomes a stage a filter
//! can be built from.

use std::sync::Arc;

use datafusion::common::tree_node::{Transformed, TreeNode, TreeNodeRecursion};
use datafusion::common::{JoinType, NullEquality, Result};
use datafusion::physical_expr::expressions::Column;
use datafusion::physical_expr::{EquivalenceProperties, PhysicalExpr};
use datafusion::physical_expr_common::physical_expr::is_volatile;
use datafusion::physical_plan::aggregates::AggregateExec;
use datafusion::physical_plan::coalesce_partitions::CoalescePartitionsExec;
use datafusion::physical_plan::execution_plan::{Boundedness, EmissionType};
use datafusion::physical_plan::filter::FilterExec;
use datafusion::physical_plan::joins::{HashJoinExec, PartitionMode};
use datafusion::physical_plan::limit::{GlobalLimitExec, LocalLimitExec};
use datafusion::physical_plan::projection::ProjectionExec;
use datafusion::physical_plan::repartition::RepartitionExec;
use datafusion::physical_plan::sorts::sort::SortExec;
use datafusion::physical_plan::sorts::sort_preserving_merge::SortPreservingMergeExec;
use datafusion::physical_plan::{
    ExecutionPlan, ExecutionPlanProperties, Partitioning, PlanProperties,
    replace_children_if_necessary,
};

use super::{InputMode, JobGraph, OutputDistribution, Placement, Stage, StageInput};
use crate::plan::{
    ExchangeExec, KeyFilterBuildExec, KeyFilterExec, StageInputExec, key_filter_properties,
};

/// A join that gets a key filter: the stages of its build and probe sides, and their keys.
struct Candidate {
    /// The stage whose keys make the filter.
    source: usize,
    /// The stage that drops the rows whose key the filter lacks.
    target: usize,
    source_keys: Vec<Arc<dyn PhysicalExpr>>,
    target_keys: Vec<Arc<dyn PhysicalExpr>>,
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

/// The plan with the build side of every partitioned join that would get a key filter if it
/// were a shuffle stage of its own repartitioned on the join's keys, so that it becomes one.
/// The build side is partitioned on those keys already (the join needs it), by the same
/// hash, so the repartition moves no row; it materializes the build side's rows, which the
/// hash join collects anyway. The conditions are those of the key filter itself: a join type
/// that drops unmatched probe rows, a probe side that is a hash repartition on the join's
/// keys, a build side that filters rows and answers the same rows when run again.
pub(crate) fn separate_filterable_build_sides(
    plan: Arc<dyn ExecutionPlan>,
) -> Result<Arc<dyn ExecutionPlan>> {
    plan.transform_up(|node| {
        let Some(join) = node.downcast_ref::<HashJoinExec>() else {
            return Ok(Transformed::no(node));
        };
        let (left, right) = (join.left(), join.right());
        if *join.partition_mode() != PartitionMode::Partitioned
            || !drops_unmatched_probe_rows(join)
            || left.is::<RepartitionExec>()
            || left.is::<ExchangeExec>()
        {
            return Ok(Transformed::no(node));
        }
        let Some(Partitioning::Hash(probe_keys, partitions)) = right
            .downcast_ref::<RepartitionExec>()
            .map(|r| r.partitioning().clone())
        else {
            return Ok(Transformed::no(node));
        };
        let on = join.on();
        let (left_schema, right_schema) = (left.schema(), right.schema());
        let same_keys = probe_keys.len() == on.len()
            && on.iter().zip(&probe_keys).all(|((l, r), p)| {
                r.as_ref() == p.as_ref()
                    && l.data_type(&left_schema).ok() == r.data_type(&right_schema).ok()
            });
        let (selective, repeatable) = filters_repeatably(std::slice::from_ref(left));
        if !same_keys
            || !selective
            || !repeatable
            || left.output_partitioning().partition_count() != partitions
        {
            return Ok(Transformed::no(node));
        }
        let build_keys = on.iter().map(|(l, _)| l.clone()).collect();
        let separate: Arc<dyn ExecutionPlan> = Arc::new(RepartitionExec::try_new(
            left.clone(),
            Partitioning::Hash(build_keys, partitions),
        )?);
        let rewritten = replace_children_if_necessary(node.clone(), vec![separate, right.clone()])?;
        Ok(Transformed::yes(rewritten))
    })
    .map(|t| t.data)
}

/// Whether a probe row without a match never reaches the join's output.
fn drops_unmatched_probe_rows(join: &HashJoinExec) -> bool {
    match join.join_type() {
        JoinType::Inner | JoinType::Left | JoinType::LeftSemi | JoinType::RightSemi => true,
        JoinType::LeftAnti => !join.null_aware,
        _ => false,
    }
}

/// Whether a build row without a match never reaches the join's output.
fn drops_unmatched_build_rows(join: &HashJoinExec) -> bool {
    matches!(
        join.join_type(),
        JoinType::Inner
            | JoinType::Right
            | JoinType::LeftSemi
            | JoinType::RightSemi
            | JoinType::RightAnti
    )
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

/// The stage a stage's placeholder reads.
fn input_stage(stage: &Stage, plan: &Arc<dyn ExecutionPlan>) -> Option<usize> {
    let input = plan.downcast_ref::<StageInputExec>()?;
    Some(stage.inputs.get(input.index())?.stage)
}

/// A join whose two sides' keys are columns of other stages' outputs, carried through the
/// consumer's plan ([`traced_column`]): the stage of the probe side's keys gets a filter of
/// the build side's (the probe rows without a match never reach the output, as in Spark's
/// runtime filters on the larger side), or, for joins whose unmatched build rows never reach
/// the output either (inner, semi, right outer and right anti joins), the other way round:
/// TPC-H q9's `orders` (15 million rows, the build side) by the `lineitem` rows of green parts.
/// The source must filter rows, and be done before the target runs: the target waits. A
/// build side is filtered only when it is shuffled to the join (TPC-H q9 filtered its 25
/// nations, collected for a broadcast join, with 3 million keys of `lineitem` rows).
fn join_candidate(graph: &JobGraph, consumer: &Stage, join: &HashJoinExec) -> Option<Candidate> {
    if *join.partition_mode() == PartitionMode::Auto
        || join.null_equality() != NullEquality::NullEqualsNothing
    {
        return None;
    }
    let (left, right): (Vec<_>, Vec<_>) = join.on().iter().cloned().unzip();
    let build = side_keys(graph, consumer, join.left(), &left);
    let probe = side_keys(graph, consumer, join.right(), &right);
    let (build, probe) = (build?, probe?);
    let forward = drops_unmatched_probe_rows(join)
        .then(|| filter_candidate(graph, build.clone(), probe.clone()))
        .flatten();
    forward.or_else(|| {
        // A build side read whole (collect-left) is small: DataFusion chose to collect it.
        let shuffled_build = || {
            matches!(
                graph.consumers(build.0).as_slice(),
                [(_, InputMode::Shuffle)]
            )
        };
        (drops_unmatched_build_rows(join) && shuffled_build())
            .then(|| filter_candidate(graph, probe, build))
            .flatten()
    })
}

/// The stage one side's join keys are read from, and the keys as columns of its output; `None`
/// when they are not all plain columns of one stage's output, of the same types.
fn side_keys(
    graph: &JobGraph,
    consumer: &Stage,
    side: &Arc<dyn ExecutionPlan>,
    keys: &[Arc<dyn PhysicalExpr>],
) -> Option<(usize, Vec<Arc<dyn PhysicalExpr>>)> {
    let schema = side.schema();
    let mut stage = None;
    let mut columns: Vec<Arc<dyn PhysicalExpr>> = Vec::new();
    for key in keys {
        let key = key.downcast_ref::<Column>()?;
        let (placeholder, column) = traced_column(side, key.index())?;
        let read = consumer.inputs.get(placeholder)?.stage;
        if stage.is_some_and(|s| s != read) {
            return None;
        }
        stage = Some(read);
        let output = graph.stages().get(read)?.plan.schema();
        let field = output.fields().get(column)?;
        if key.data_type(&schema).ok().as_ref() != Some(field.data_type()) {
            return None;
        }
        columns.push(Arc::new(Column::new(field.name(), column)));
    }
    Some((stage?, columns))
}

/// A filter of `source`'s keys for `target`, when it is worth it and safe.
fn filter_candidate(
    graph: &JobGraph,
    (source, source_keys): (usize, Vec<Arc<dyn PhysicalExpr>>),
    (target, target_keys): (usize, Vec<Arc<dyn PhysicalExpr>>),
) -> Option<Candidate> {
    let types = |stage: usize, keys: &[Arc<dyn PhysicalExpr>]| -> Option<Vec<_>> {
        let schema = graph.stages().get(stage)?.plan.schema();
        keys.iter().map(|k| k.data_type(&schema).ok()).collect()
    };
    if source == target
        || types(source, &source_keys)? != types(target, &target_keys)?
        || graph.consumers(target).len() != 1
        || filtered_by(graph, target, source)
        || below(graph, source).iter().any(|(s, _)| *s == target)
        || !worth_filtering(graph, source)
    {
        return None;
    }
    Some(Candidate {
        source,
        target,
        source_keys,
        target_keys,
    })
}

/// Whether `target` already has a key filter made from `source`'s output.
fn filtered_by(graph: &JobGraph, target: usize, source: usize) -> bool {
    let Some(stage) = graph.stages().get(target) else {
        return false;
    };
    let mut plan = &stage.plan;
    while let Some(filter) = plan.downcast_ref::<KeyFilterExec>() {
        let made_from = input_stage(stage, filter.filter())
            .and_then(|f| graph.stages().get(f))
            .and_then(|f| f.inputs.first())
            .map(|i| i.stage);
        if made_from == Some(source) {
            return true;
        }
        plan = filter.input();
    }
    false
}

/// The placeholder (its input index) and column that column `index` of `plan`'s output is
/// read from, when dropping the placeholder's rows whose value in that column no build row
/// has can change only output rows whose value is that one, or NULL: through projections and
/// filters, either side of a hash join (an outer join's null-extended rows carry NULL), group
/// keys of an aggregation, sorts without a limit. The join being filtered drops both kinds.
fn traced_column(plan: &Arc<dyn ExecutionPlan>, index: usize) -> Option<(usize, usize)> {
    // A limit answers other rows when some are dropped below it.
    if index >= plan.schema().fields().len() || plan.fetch().is_some() {
        return None;
    }
    if let Some(input) = plan.downcast_ref::<StageInputExec>() {
        return Some((input.index(), index));
    }
    if let Some(projection) = plan.downcast_ref::<ProjectionExec>() {
        let expr = &projection.expr().get(index)?.expr;
        let column = expr.downcast_ref::<Column>()?;
        return traced_column(projection.input(), column.index());
    }
    if let Some(filter) = plan.downcast_ref::<FilterExec>() {
        let index = match filter.projection() {
            Some(projection) => *projection.get(index)?,
            None => index,
        };
        return traced_column(filter.input(), index);
    }
    if let Some(join) = plan.downcast_ref::<HashJoinExec>() {
        let index = match join.projection.as_deref() {
            Some(projection) => *projection.get(index)?,
            None => index,
        };
        let left_columns = join.left().schema().fields().len();
        return match join.join_type() {
            JoinType::Inner | JoinType::Left | JoinType::Right | JoinType::Full => {
                if index < left_columns {
                    traced_column(join.left(), index)
                } else {
                    traced_column(join.right(), index - left_columns)
                }
            }
            JoinType::LeftSemi | JoinType::LeftAnti | JoinType::LeftMark => {
                traced_column(join.left(), index)
            }
            JoinType::RightSemi | JoinType::RightAnti | JoinType::RightMark => {
                traced_column(join.right(), index)
            }
        };
    }
    if let Some(aggregate) = plan.downcast_ref::<AggregateExec>() {
        let group = aggregate.group_expr();
        if !group.is_single() || aggregate.limit_options().is_some() {
            return None;
        }
        let (expr, _) = group.expr().get(index)?;
        let column = expr.downcast_ref::<Column>()?;
        return traced_column(aggregate.input(), column.index());
    }
    let passes_rows = plan.is::<SortExec>()
        || plan.is::<CoalescePartitionsExec>()
        || plan.is::<SortPreservingMergeExec>();
    match plan.children().as_slice() {
        [child] if passes_rows => traced_column(child, index),
        _ => None,
    }
}

/// The stages a stage reads, itself included, directly or through others; each once (a
/// filter's source is read by its consumer and by the filter stage).
fn below(graph: &JobGraph, stage: usize) -> Vec<(usize, &Stage)> {
    let mut found = Vec::new();
    let mut seen = vec![false; graph.stages().len()];
    let mut pending = vec![stage];
    while let Some(s) = pending.pop() {
        if let (Some(st), Some(seen)) = (graph.stages().get(s), seen.get_mut(s))
            && !*seen
        {
            *seen = true;
            pending.extend(graph.input_stages(s));
            found.push((s, st));
        }
    }
    found
}

/// Whether the plan of `stage` and the stages below it filter rows, and answer the same
/// rows when run again.
fn worth_filtering(graph: &JobGraph, stage: usize) -> bool {
    let plans: Vec<_> = below(graph, stage)
        .iter()
        .map(|(_, st)| st.plan.clone())
        .collect();
    let (selective, repeatable) = filters_repeatably(&plans);
    selective && repeatable
}

/// Whether `plans` filter rows (a filter, or a semi join), and whether they answer the same
/// rows when run again (no volatile expression, no limit).
fn filters_repeatably(plans: &[Arc<dyn ExecutionPlan>]) -> (bool, bool) {
    let mut selective = false;
    let mut repeatable = true;
    for plan in plans {
        let _ = plan.apply(|node| {
            if node.is::<FilterExec>() {
                selective = true;
            }
            if let Some(join) = node.downcast_ref::<HashJoinExec>()
                && matches!(join.join_type(), JoinType::LeftSemi | JoinType::RightSemi)
            {
                selective = true;
            }
            if node.is::<GlobalLimitExec>()
                || node.is::<LocalLimitExec>()
                || node.fetch().is_some()
                || node
                    .downcast_ref::<AggregateExec>()
                    .is_some_and(|a| a.limit_options().is_some())
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
    (selective, repeatable)
}

/// Insert the filter stage of `c` just after its source stage, make the target stage read it,
/// and put the stages back in topological order: a filter made from a stage numbered after
/// its target (the probe side filtering the build side) moves the target, and the stages
/// that read it, after the filter.
fn insert_filter(stages: &mut Vec<Stage>, c: Candidate) {
    let Some(source) = stages.get(c.source) else {
        return;
    };
    let read = Arc::new(PlanProperties::new(
        EquivalenceProperties::new(source.plan.schema()),
        Partitioning::UnknownPartitioning(source.partitions()),
        EmissionType::Incremental,
        Boundedness::Bounded,
    ));
    let filter = Stage {
        inputs: vec![StageInput {
            stage: c.source,
            mode: InputMode::Merge,
        }],
        plan: Arc::new(KeyFilterBuildExec::new(
            Arc::new(StageInputExec::new(0, read)),
            c.source_keys,
        )),
        distribution: OutputDistribution::RoundRobin { channels: 1 },
        placement: Placement::Worker,
    };
    let at = c.source + 1;
    for stage in stages.iter_mut() {
        for input in stage.inputs.iter_mut() {
            if input.stage >= at {
                input.stage += 1;
            }
        }
    }
    stages.insert(at, filter);
    let target = if c.target >= at {
        c.target + 1
    } else {
        c.target
    };
    let Some(target) = stages.get_mut(target) else {
        return;
    };
    let placeholder = Arc::new(StageInputExec::new(
        target.inputs.len(),
        key_filter_properties(),
    ));
    target.plan = Arc::new(KeyFilterExec::new(
        target.plan.clone(),
        placeholder,
        c.target_keys,
    ));
    target.inputs.push(StageInput {
        stage: at,
        mode: InputMode::Broadcast,
    });
    sort_topologically(stages);
}

/// Reorder `stages` so that every stage comes after the stages it reads, keeping the order
/// they have where it already does (the first stage whose inputs are all placed goes next).
fn sort_topologically(stages: &mut Vec<Stage>) {
    let n = stages.len();
    let mut position: Vec<Option<usize>> = vec![None; n];
    let mut order = Vec::with_capacity(n);
    while order.len() < n {
        let placed = |s: usize| position.get(s).copied().flatten().is_some();
        let next = stages
            .iter()
            .enumerate()
            .find(|(s, stage)| !placed(*s) && stage.inputs.iter().all(|i| placed(i.stage)))
            .map(|(s, _)| s);
        let Some(next) = next else {
            return; // a cycle: the candidates never make one
        };
        if let Some(p) = position.get_mut(next) {
            *p = Some(order.len());
        }
        order.push(next);
    }
    let mut taken: Vec<Option<Stage>> = std::mem::take(stages).into_iter().map(Some).collect();
    for old in order {
        if let Some(mut stage) = taken.get_mut(old).and_then(Option::take) {
            for input in stage.inputs.iter_mut() {
                input.stage = position
                    .get(input.stage)
                    .copied()
                    .flatten()
                    .unwrap_or(input.stage);
            }
            stages.push(stage);
        }
    }
}
