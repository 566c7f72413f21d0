//! Join estimates whose byte sizes follow the join's row estimate, for choosing join modes.
//!
//! DataFusion 55 estimates the rows of an inner or outer join but keeps each input column's
//! byte size as it was on the input: after `lineitem ⋈ supplier ⋈ orders` the kept columns
//! still weigh what all 6 million rows of `lineitem` weigh. A semi join above scales those by
//! its own row ratio, so TPC-H q21's semi join of about 60,000 rows is estimated at 95 MB, and
//! the anti join over it hashes 3.8 million probe rows into partitions instead of collecting
//! the small side (on files with string statistics, as Spark and Ember write them; tpchgen's
//! carry none for `s_name`, so the estimate falls back to rows and the side is collected).
//!
//! [`registry`] is the statistics registry DataFusion's `join_selection` reads (with
//! `datafusion.optimizer.use_statistics_registry`): joins' columns weigh what the rows they
//! keep weigh ([`JoinByteSizes`]), and filters, projections, exchanges, limits and unions pass
//! those estimates up (DataFusion's providers). Row counts stay DataFusion's own estimates.

use std::sync::Arc;

use datafusion::common::stats::Precision;
use datafusion::common::{JoinSide, JoinType, Result, Statistics};
use datafusion::physical_plan::ExecutionPlan;
use datafusion::physical_plan::joins::utils::build_join_schema;
use datafusion::physical_plan::joins::{HashJoinExec, SortMergeJoinExec};
use datafusion::physical_plan::operator_statistics::{
    DefaultStatisticsProvider, ExtendedStatistics, FilterStatisticsProvider,
    LimitStatisticsProvider, PassthroughStatisticsProvider, ProjectionStatisticsProvider,
    StatisticsProvider, StatisticsRegistry, StatisticsResult, UnionStatisticsProvider,
};
use datafusion::physical_plan::statistics::{StatisticsArgs, StatisticsContext};

/// The registry for a session's join selection.
pub fn registry() -> StatisticsRegistry {
    StatisticsRegistry::with_providers(vec![
        Arc::new(JoinByteSizes),
        Arc::new(FilterStatisticsProvider),
        Arc::new(ProjectionStatisticsProvider),
        Arc::new(PassthroughStatisticsProvider),
        Arc::new(LimitStatisticsProvider),
        Arc::new(UnionStatisticsProvider),
        Arc::new(DefaultStatisticsProvider),
    ])
}

/// Hash and sort-merge joins: DataFusion's estimate, with each output column's byte size its
/// input column's, scaled from the input's rows to the join's.
#[derive(Debug, Default)]
pub struct JoinByteSizes;

impl StatisticsProvider for JoinByteSizes {
    fn compute_statistics(
        &self,
        plan: &dyn ExecutionPlan,
        child_stats: &[ExtendedStatistics],
    ) -> Result<StatisticsResult> {
        let (join_type, projection) = if let Some(join) = plan.downcast_ref::<HashJoinExec>() {
            (
                *join.join_type(),
                join.projection.as_deref().map(<[usize]>::to_vec),
            )
        } else if let Some(join) = plan.downcast_ref::<SortMergeJoinExec>() {
            (join.join_type(), None)
        } else {
            return Ok(StatisticsResult::Delegate);
        };
        let children = plan.children();
        let ([left, right], [left_plan, right_plan]) = (child_stats, children.as_slice()) else {
            return Ok(StatisticsResult::Delegate);
        };
        let mut stats =
            Arc::unwrap_or_clone(StatisticsContext::new().compute(plan, &StatisticsArgs::new())?);
        let (_, columns) = build_join_schema(&left_plan.schema(), &right_plan.schema(), &join_type);
        let outputs: Vec<usize> = projection.unwrap_or_else(|| (0..columns.len()).collect());
        if outputs.len() != stats.column_statistics.len() {
            return Ok(StatisticsResult::Computed(ExtendedStatistics::new(stats)));
        }
        let rows = stats.num_rows;
        for (column, &index) in stats.column_statistics.iter_mut().zip(&outputs) {
            column.byte_size = match columns.get(index) {
                Some(c) if c.side == JoinSide::Left => scaled(left.base(), c.index, rows),
                Some(c) if c.side == JoinSide::Right => scaled(right.base(), c.index, rows),
                // A mark join's flag: a boolean per row.
                Some(_) if matches!(join_type, JoinType::LeftMark | JoinType::RightMark) => {
                    rows.map(|rows| rows.div_ceil(8))
                }
                _ => Precision::Absent,
            };
        }
        stats.total_byte_size = stats
            .column_statistics
            .iter()
            .try_fold(0usize, |sum, c| {
                c.byte_size.get_value().map(|b| sum.saturating_add(*b))
            })
            .map_or(Precision::Absent, Precision::Inexact);
        Ok(StatisticsResult::Computed(ExtendedStatistics::new(stats)))
    }
}

/// The byte size of `input`'s column `index` over `rows` rows instead of the input's.
fn scaled(input: &Statistics, index: usize, rows: Precision<usize>) -> Precision<usize> {
    let bytes = input
        .column_statistics
        .get(index)
        .and_then(|c| c.byte_size.get_value().copied());
    match (bytes, input.num_rows.get_value(), rows.get_value()) {
        (Some(bytes), Some(&from), Some(&to)) if from > 0 => {
            Precision::Inexact((bytes as f64 * to as f64 / from as f64).round() as usize)
        }
        (Some(0), _, _) => Precision::Inexact(0),
        _ => Precision::Absent,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::datatypes::{DataType, Field, Schema};
    use datafusion::common::stats::ColumnStatistics;
    use datafusion::common::{NullEquality, ScalarValue};
    use datafusion::physical_plan::expressions::Column;
    use datafusion::physical_plan::joins::PartitionMode;
    use datafusion::physical_plan::test::exec::StatisticsExec;

    fn side(name: &str, rows: usize, key_distinct: usize) -> Arc<dyn ExecutionPlan> {
        let schema = Schema::new(vec![
            Field::new(format!("{name}_key"), DataType::Int64, false),
            Field::new(format!("{name}_text"), DataType::Utf8, false),
        ]);
        let column = |bytes: usize, distinct: usize| ColumnStatistics {
            distinct_count: Precision::Inexact(distinct),
            min_value: Precision::Inexact(ScalarValue::Int64(Some(0))),
            max_value: Precision::Inexact(ScalarValue::Int64(Some(key_distinct as i64))),
            byte_size: Precision::Inexact(bytes),
            ..Default::default()
        };
        let stats = Statistics {
            num_rows: Precision::Inexact(rows),
            total_byte_size: Precision::Inexact(rows * 40),
            column_statistics: vec![column(rows * 8, key_distinct), column(rows * 32, rows)],
        };
        Arc::new(StatisticsExec::new(stats, schema))
    }

    #[test]
    fn inner_join_columns_weigh_the_rows_they_keep() -> Result<()> {
        // 1,000,000 rows of a unique key joined to 100 rows: about 100 rows come out, and
        // the columns of `big` weigh 100 of its rows (DataFusion's own estimate keeps the
        // 1,000,000 rows' 40 MB).
        let big = side("big", 1_000_000, 1_000_000);
        let small = side("small", 100, 100);
        let on = vec![(
            Arc::new(Column::new("small_key", 0)) as _,
            Arc::new(Column::new("big_key", 0)) as _,
        )];
        let join = HashJoinExec::try_new(
            small,
            big,
            on,
            None,
            &JoinType::Inner,
            None,
            PartitionMode::Partitioned,
            NullEquality::NullEqualsNothing,
            false,
        )?;
        let stats = registry().compute_base(&join)?;
        assert_eq!(stats.num_rows, Precision::Inexact(100));
        let bytes: Vec<_> = stats
            .column_statistics
            .iter()
            .map(|c| c.byte_size)
            .collect();
        assert_eq!(
            bytes,
            [800, 3_200, 800, 3_200].map(Precision::Inexact).to_vec()
        );
        assert_eq!(stats.total_byte_size, Precision::Inexact(8_000));
        // DataFusion's own estimate keeps `big`'s key at 1,000,000 rows' bytes (when it scales
        // them itself, this provider can go).
        let theirs = StatisticsContext::new().compute(&join, &StatisticsArgs::new())?;
        assert_eq!(
            theirs.column_statistics[2].byte_size,
            Precision::Inexact(8_000_000)
        );
        Ok(())
    }
}
