//! Cutting a physical plan into stages.
//!
//! The plan is walked from the leaves up. Exchanges become stage boundaries: a
//! `RepartitionExec` becomes a stage whose tasks split their output into channels (Hash or
//! RoundRobin) read by Shuffle; a `CoalescePartitionsExec`, `OrderedCoalesceExec` or
//! `SortPreservingMergeExec` keeps its place and reads the stage below by Merge; a
//! `RescaleExec` reads contiguous ranges by Rescale; the build side of a join that every
//! partition reads in full (collect-left hash joins, cross and nested-loop joins) becomes its
//! own stage read by Broadcast.

use std::fmt;
use std::sync::Arc;

use datafusion::common::tree_node::{Transformed, TreeNode, TreeNodeRecursion};
use datafusion::common::{Result, internal_err};
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_plan::coalesce_partitions::CoalescePartitionsExec;
use datafusion::physical_plan::execution_plan::{Boundedness, EmissionType};
use datafusion::physical_plan::joins::{
    CrossJoinExec, HashJoinExec, NestedLoopJoinExec, PartitionMode,
};
use datafusion::physical_plan::recursive_query::RecursiveQueryExec;
use datafusion::physical_plan::repartition::RepartitionExec;
use datafusion::physical_plan::sorts::sort_preserving_merge::SortPreservingMergeExec;
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, ExecutionPlan, ExecutionPlanProperties, Partitioning,
    PlanProperties, replace_children_if_necessary,
};

use super::{InputMode, JobGraph, OutputDistribution, Placement, Stage, StageInput};
use crate::ordered::OrderedCoalesceExec;
use crate::plan::{ExchangeExec, RescaleExec, StageInputExec};

/// Whether each output partition of a plan is read once, or every consumer partition reads
/// all of it (the build side of a collect-left join).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Usage {
    Once,
    Shared,
}

/// A placeholder that still names the stage it reads; numbered into a `StageInputExec`
/// when the stage containing it is complete.
#[derive(Debug)]
struct PendingInputExec {
    input: StageInput,
    properties: Arc<PlanProperties>,
}

impl DisplayAs for PendingInputExec {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        write!(
            f,
            "PendingInputExec: stage={} mode={:?}",
            self.input.stage, self.input.mode
        )
    }
}

impl ExecutionPlan for PendingInputExec {
    fn name(&self) -> &str {
        "PendingInputExec"
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
        internal_err!("PendingInputExec cannot be executed")
    }
}

pub fn build_job_graph(plan: Arc<dyn ExecutionPlan>) -> Result<JobGraph> {
    let schema = plan.schema();
    let mut stages = Vec::new();
    let last = cut(plan, Usage::Once, &mut stages)?;
    push_stage(
        &mut stages,
        last,
        OutputDistribution::RoundRobin { channels: 1 },
    )?;
    Ok(JobGraph::from_parts(stages, schema))
}

fn cut(
    plan: Arc<dyn ExecutionPlan>,
    usage: Usage,
    stages: &mut Vec<Stage>,
) -> Result<Arc<dyn ExecutionPlan>> {
    // A recursive query runs its step again for each level, within its task: nothing below
    // it is cut.
    if plan.is::<RecursiveQueryExec>() {
        return shared_input(plan, usage, stages);
    }
    let usages = child_usages(&plan);
    let children = plan
        .children()
        .into_iter()
        .zip(usages)
        .map(|(c, u)| cut(c.clone(), u, stages))
        .collect::<Result<Vec<_>>>()?;
    let plan = replace_children_if_necessary(plan, children)?;

    // DataFusion's repartitions and the user's exchanges: the input becomes a stage whose
    // channels the consumer reads by Shuffle (Broadcast when every partition reads it all).
    let exchange = if let Some(r) = plan.downcast_ref::<RepartitionExec>() {
        if r.preserve_order() {
            return datafusion::common::not_impl_err!(
                "order-preserving repartition in a job graph"
            );
        }
        Some((r.input().clone(), r.partitioning().clone()))
    } else {
        plan.downcast_ref::<ExchangeExec>()
            .map(|x| (x.input().clone(), x.partitioning().clone()))
    };
    if let Some((input, partitioning)) = exchange {
        let distribution = match partitioning {
            Partitioning::Hash(keys, n) => OutputDistribution::Hash { keys, channels: n },
            Partitioning::RoundRobinBatch(n) | Partitioning::UnknownPartitioning(n) => {
                OutputDistribution::RoundRobin { channels: n }
            }
            other => return internal_err!("cannot distribute a repartition by {other:?}"),
        };
        let mode = match usage {
            Usage::Once => InputMode::Shuffle,
            Usage::Shared => InputMode::Broadcast,
        };
        let properties = plan.properties().clone();
        let stage = push_stage(stages, input, distribution)?;
        return Ok(placeholder(stage, mode, properties));
    }
    if plan.is::<CoalescePartitionsExec>()
        || plan.is::<OrderedCoalesceExec>()
        || plan.is::<SortPreservingMergeExec>()
    {
        let child = plan.children()[0].clone();
        if child.output_partitioning().partition_count() <= 1 && !child.is::<PendingInputExec>() {
            return Ok(plan);
        }
        let input = merge_input(child, stages)?;
        return replace_children_if_necessary(plan, vec![input]);
    }
    if let Some(rescale) = plan.downcast_ref::<RescaleExec>() {
        let child = rescale.input().clone();
        let stage = push_stage(
            stages,
            child,
            OutputDistribution::RoundRobin { channels: 1 },
        )?;
        return Ok(placeholder(
            stage,
            InputMode::Rescale,
            rescale.properties().clone(),
        ));
    }
    shared_input(plan, usage, stages)
}

/// A plan every consumer partition reads in full becomes a stage of its own, read by
/// Broadcast.
fn shared_input(
    plan: Arc<dyn ExecutionPlan>,
    usage: Usage,
    stages: &mut Vec<Stage>,
) -> Result<Arc<dyn ExecutionPlan>> {
    if usage == Usage::Shared && !plan.is::<PendingInputExec>() {
        let properties = plan.properties().clone();
        let stage = push_stage(stages, plan, OutputDistribution::RoundRobin { channels: 1 })?;
        return Ok(placeholder(stage, InputMode::Broadcast, properties));
    }
    Ok(plan)
}

/// Children a node reads in full from every one of its partitions.
fn child_usages(plan: &Arc<dyn ExecutionPlan>) -> Vec<Usage> {
    let n = plan.children().len();
    let shared_left = if let Some(join) = plan.downcast_ref::<HashJoinExec>() {
        *join.partition_mode() == PartitionMode::CollectLeft
    } else {
        plan.is::<CrossJoinExec>() || plan.is::<NestedLoopJoinExec>()
    };
    (0..n)
        .map(|i| {
            if i == 0 && shared_left && n == 2 {
                Usage::Shared
            } else {
                Usage::Once
            }
        })
        .collect()
}

/// Make `child` a stage whose partitions the consumer reads one by one (Merge).
fn merge_input(
    child: Arc<dyn ExecutionPlan>,
    stages: &mut Vec<Stage>,
) -> Result<Arc<dyn ExecutionPlan>> {
    // An input that is already another stage's output is read by that stage directly.
    if let Some(pending) = child.downcast_ref::<PendingInputExec>()
        && (pending.input.mode == InputMode::Shuffle || pending.input.mode == InputMode::Forward)
    {
        return Ok(child);
    }
    let properties = Arc::new(PlanProperties::new(
        child.equivalence_properties().clone(),
        child.output_partitioning().clone(),
        EmissionType::Incremental,
        Boundedness::Bounded,
    ));
    let stage = push_stage(
        stages,
        child,
        OutputDistribution::RoundRobin { channels: 1 },
    )?;
    Ok(placeholder(stage, InputMode::Merge, properties))
}

fn placeholder(
    stage: usize,
    mode: InputMode,
    properties: Arc<PlanProperties>,
) -> Arc<dyn ExecutionPlan> {
    Arc::new(PendingInputExec {
        input: StageInput { stage, mode },
        properties,
    })
}

/// Add a stage running `plan`, numbering its placeholders; returns the stage index.
fn push_stage(
    stages: &mut Vec<Stage>,
    plan: Arc<dyn ExecutionPlan>,
    distribution: OutputDistribution,
) -> Result<usize> {
    let mut inputs: Vec<StageInput> = Vec::new();
    let plan = plan
        .transform_up(|node| {
            if let Some(pending) = node.downcast_ref::<PendingInputExec>() {
                let index = inputs.len();
                inputs.push(pending.input);
                let numbered: Arc<dyn ExecutionPlan> =
                    Arc::new(StageInputExec::new(index, pending.properties.clone()));
                return Ok(Transformed::yes(numbered));
            }
            Ok(Transformed::no(node))
        })?
        .data;
    stages.push(Stage {
        inputs,
        plan,
        distribution,
        placement: Placement::Worker,
    });
    Ok(stages.len() - 1)
}
