//! Rewrites that make a single-process physical plan correct when its partitions run as
//! separate tasks, applied before the plan is cut into stages.

use std::sync::Arc;

use datafusion::common::tree_node::{Transformed, TreeNode};
use datafusion::common::{JoinType, Result};
use datafusion::physical_plan::coalesce_partitions::CoalescePartitionsExec;
use datafusion::physical_plan::joins::{HashJoinExec, NestedLoopJoinExec, PartitionMode};
use datafusion::physical_plan::limit::GlobalLimitExec;
use datafusion::physical_plan::repartition::RepartitionExec;
use datafusion::physical_plan::{
    ExecutionPlan, ExecutionPlanProperties, Partitioning, replace_children_if_necessary,
};

use crate::ordered::{LIMIT_BUFFER, OrderedCoalesceExec};

/// A global LIMIT/OFFSET decides in one place: its input must be a single partition.
pub fn ensure_single_partition_for_global_limit(
    plan: Arc<dyn ExecutionPlan>,
) -> Result<Arc<dyn ExecutionPlan>> {
    plan.transform_up(|node| {
        if let Some(limit) = node.downcast_ref::<GlobalLimitExec>()
            && limit.input().output_partitioning().partition_count() > 1
        {
            let input = Arc::new(OrderedCoalesceExec::new(
                limit.input().clone(),
                None,
                Some(LIMIT_BUFFER),
            ));
            let rewritten: Arc<dyn ExecutionPlan> =
                Arc::new(GlobalLimitExec::new(input, limit.skip(), limit.fetch()));
            return Ok(Transformed::yes(rewritten));
        }
        Ok(Transformed::no(node))
    })
    .map(|t| t.data)
}

/// Join types whose build (left) side emits rows that found no match: when every task holds
/// its own copy of the build side, each task would emit them.
fn emits_unmatched_build_rows(t: &JoinType) -> bool {
    matches!(
        t,
        JoinType::Left
            | JoinType::LeftAnti
            | JoinType::LeftSemi
            | JoinType::LeftMark
            | JoinType::Full
    )
}

/// Collect-left hash joins of those types become partitioned joins with both sides
/// repartitioned on the join keys; nested-loop joins of those types run in one partition.
pub fn ensure_partitioned_join_for_unmatched_build_rows(
    plan: Arc<dyn ExecutionPlan>,
) -> Result<Arc<dyn ExecutionPlan>> {
    plan.transform_up(|node| {
        if let Some(join) = node.downcast_ref::<HashJoinExec>()
            && *join.partition_mode() == PartitionMode::CollectLeft
            && emits_unmatched_build_rows(join.join_type())
        {
            let partitions = join.right().output_partitioning().partition_count().max(1);
            let left_keys = join.on().iter().map(|(l, _)| l.clone()).collect();
            let right_keys = join.on().iter().map(|(_, r)| r.clone()).collect();
            let left = strip_coalesce(join.left());
            let left: Arc<dyn ExecutionPlan> = Arc::new(RepartitionExec::try_new(
                left,
                Partitioning::Hash(left_keys, partitions),
            )?);
            let right: Arc<dyn ExecutionPlan> = Arc::new(RepartitionExec::try_new(
                join.right().clone(),
                Partitioning::Hash(right_keys, partitions),
            )?);
            let rewritten = join
                .builder()
                .with_new_children(vec![left, right])?
                .with_partition_mode(PartitionMode::Partitioned)
                .recompute_properties()
                .build_exec()?;
            return Ok(Transformed::yes(rewritten));
        }
        if let Some(join) = node.downcast_ref::<NestedLoopJoinExec>()
            && emits_unmatched_build_rows(join.join_type())
            && join.right().output_partitioning().partition_count() > 1
        {
            let right: Arc<dyn ExecutionPlan> =
                Arc::new(CoalescePartitionsExec::new(join.right().clone()));
            let rewritten =
                replace_children_if_necessary(node.clone(), vec![join.left().clone(), right])?;
            return Ok(Transformed::yes(rewritten));
        }
        Ok(Transformed::no(node))
    })
    .map(|t| t.data)
}

fn strip_coalesce(plan: &Arc<dyn ExecutionPlan>) -> Arc<dyn ExecutionPlan> {
    if let Some(c) = plan.downcast_ref::<CoalescePartitionsExec>() {
        return c.input().clone();
    }
    if let Some(c) = plan.downcast_ref::<OrderedCoalesceExec>() {
        return c.input().clone();
    }
    plan.clone()
}
