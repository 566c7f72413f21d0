//! Sort-merge joins where a hash join's build side would not fit the memory budget.
//!
//! DataFusion's hash join keeps its whole build side in memory and cannot spill; its
//! sort-merge join sorts both sides (sorts spill) and buffers only the rows of one key. As
//! Spark prefers a sort-merge join for large joins, [`SpillableJoins`] replaces a partitioned
//! hash join whose build side is estimated (from DataFusion's statistics) at more than a
//! share of the process's memory limit by a sort-merge join over sorted inputs. Joins whose
//! size is unknown stay hash joins (the fast path when memory is plentiful); a build side
//! that then does not fit fails with the memory-limit error.

use std::sync::Arc;

use arrow::compute::SortOptions;
use arrow::datatypes::{DataType, Schema};
use datafusion::common::config::ConfigOptions;
use datafusion::common::tree_node::{Transformed, TreeNode};
use datafusion::common::{JoinType, Result};
use datafusion::physical_expr::{LexOrdering, PhysicalSortExpr};
use datafusion::physical_optimizer::PhysicalOptimizerRule;
use datafusion::physical_plan::ExecutionPlan;
use datafusion::physical_plan::expressions::Column;
use datafusion::physical_plan::joins::{HashJoinExec, PartitionMode, SortMergeJoinExec};
use datafusion::physical_plan::projection::ProjectionExec;
use datafusion::physical_plan::sorts::sort::SortExec;
use datafusion::physical_plan::statistics::{StatisticsArgs, StatisticsContext};

/// A hash join whose hash table is estimated above `limit / BUILD_SHARE` becomes a
/// sort-merge join. (A smaller share turns more joins into sort-merge joins, whose many
/// sorts then split the fair pool into shares too small for one batch: measured on TPC-H q9.)
const BUILD_SHARE: usize = 2;
/// An Arrow hash table holds about this many times the build side's batches.
const HASH_TABLE_OVERHEAD: usize = 2;

/// The rule; `limit` is the memory budget in bytes (`None`: the process's, if installed).
#[derive(Debug, Default)]
pub struct SpillableJoins {
    pub limit: Option<usize>,
}

impl PhysicalOptimizerRule for SpillableJoins {
    fn optimize(
        &self,
        plan: Arc<dyn ExecutionPlan>,
        _config: &ConfigOptions,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let Some(limit) = self.limit.or_else(|| super::installed().map(|b| b.limit())) else {
            return Ok(plan);
        };
        let threshold = limit / BUILD_SHARE;
        plan.transform_up(|node| {
            let Some(join) = node.downcast_ref::<HashJoinExec>() else {
                return Ok(Transformed::no(node));
            };
            if !convertible(join) {
                return Ok(Transformed::no(node));
            }
            match estimated_bytes(join.left()) {
                Some(bytes) if bytes.saturating_mul(HASH_TABLE_OVERHEAD) > threshold => {
                    tracing::debug!(bytes, threshold, "hash join -> sort-merge join");
                    Ok(Transformed::yes(sort_merge(join)?))
                }
                _ => Ok(Transformed::no(node)),
            }
        })
        .map(|t| t.data)
    }

    fn name(&self) -> &str {
        "SpillableJoins"
    }

    fn schema_check(&self) -> bool {
        true
    }
}

/// Partitioned (both sides hash-partitioned on the keys) equi-joins a sort-merge join
/// answers alike. Null-aware anti joins (`NOT IN`) and mark joins stay hash joins.
fn convertible(join: &HashJoinExec) -> bool {
    *join.partition_mode() == PartitionMode::Partitioned
        && !join.null_aware
        && !join.on().is_empty()
        && !matches!(join.join_type(), JoinType::LeftMark | JoinType::RightMark)
}

/// The same join as a sort-merge join over inputs sorted on the keys, then the hash join's
/// projection.
fn sort_merge(join: &HashJoinExec) -> Result<Arc<dyn ExecutionPlan>> {
    let on = join.on().to_vec();
    let options = vec![SortOptions::default(); on.len()];
    let sorted = |input: &Arc<dyn ExecutionPlan>, keys: Vec<_>| -> Result<Arc<dyn ExecutionPlan>> {
        let exprs = keys
            .into_iter()
            .map(|expr| PhysicalSortExpr::new(expr, SortOptions::default()));
        match LexOrdering::new(exprs) {
            Some(ordering) => Ok(Arc::new(
                SortExec::new(ordering, input.clone()).with_preserve_partitioning(true),
            )),
            None => Ok(input.clone()),
        }
    };
    let left = sorted(join.left(), on.iter().map(|(l, _)| l.clone()).collect())?;
    let right = sorted(join.right(), on.iter().map(|(_, r)| r.clone()).collect())?;
    let merged: Arc<dyn ExecutionPlan> = Arc::new(SortMergeJoinExec::try_new(
        left,
        right,
        on,
        join.filter().cloned(),
        *join.join_type(),
        options,
        join.null_equality(),
    )?);
    let Some(projection) = &join.projection else {
        return Ok(merged);
    };
    let schema = merged.schema();
    let exprs = projection
        .iter()
        .map(|&i| {
            let field = schema.field(i);
            (
                Arc::new(Column::new(field.name(), i)) as _,
                field.name().to_string(),
            )
        })
        .collect::<Vec<_>>();
    Ok(Arc::new(ProjectionExec::try_new(exprs, merged)?))
}

/// The plan's output size from its statistics: bytes, or rows times an estimated row width.
fn estimated_bytes(plan: &Arc<dyn ExecutionPlan>) -> Option<usize> {
    let stats = StatisticsContext::new()
        .compute(plan.as_ref(), &StatisticsArgs::new())
        .ok()?;
    if let Some(bytes) = stats.total_byte_size.get_value() {
        return Some(*bytes);
    }
    let rows = stats.num_rows.get_value()?;
    Some(rows.saturating_mul(row_width(&plan.schema())))
}

fn row_width(schema: &Schema) -> usize {
    schema
        .fields()
        .iter()
        .map(|f| match f.data_type() {
            DataType::Utf8 | DataType::Binary | DataType::Utf8View | DataType::BinaryView => 32,
            DataType::LargeUtf8 | DataType::LargeBinary => 40,
            t => t.primitive_width().unwrap_or(16),
        })
        .sum::<usize>()
        .max(1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::physical_plan::displayable;
    use datafusion::prelude::{SessionConfig, SessionContext};

    async fn plan(limit: usize) -> (String, usize) {
        let mut config = SessionConfig::new().with_target_partitions(2);
        let options = config.options_mut();
        options.optimizer.hash_join_single_partition_threshold = 0;
        options.optimizer.hash_join_single_partition_threshold_rows = 0;
        let ctx = SessionContext::new_with_config(config);
        let rows = |n: i64| {
            (0..n)
                .map(|i| format!("({i}, 'row {i}')"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        for (name, n) in [("a", 2000), ("b", 3000)] {
            ctx.sql(&format!(
                "CREATE TABLE {name} (k BIGINT, v VARCHAR) AS VALUES {}",
                rows(n)
            ))
            .await
            .unwrap();
        }
        let df = ctx
            .sql("SELECT a.v, b.v FROM a JOIN b ON a.k = b.k")
            .await
            .unwrap();
        let physical = df.create_physical_plan().await.unwrap();
        let rule = SpillableJoins { limit: Some(limit) };
        let rewritten = rule.optimize(physical, &ConfigOptions::default()).unwrap();
        let rows = datafusion::physical_plan::collect(rewritten.clone(), ctx.task_ctx())
            .await
            .unwrap()
            .iter()
            .map(|b| b.num_rows())
            .sum();
        (
            displayable(rewritten.as_ref()).indent(false).to_string(),
            rows,
        )
    }

    #[tokio::test]
    async fn large_build_sides_become_sort_merge_joins() {
        let (roomy, rows) = plan(1 << 30).await;
        assert!(roomy.contains("HashJoinExec"), "{roomy}");
        assert_eq!(rows, 2000);
        let (tight, rows) = plan(4 << 10).await;
        assert_eq!(rows, 2000);
        assert!(tight.contains("SortMergeJoinExec"), "{tight}");
        assert!(tight.contains("SortExec"), "{tight}");
        assert!(!tight.contains("HashJoinExec"), "{tight}");
    }
}
