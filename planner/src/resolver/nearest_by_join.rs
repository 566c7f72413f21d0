//! `df.nearestByJoin(other, rankingExpression, k, mode, direction, joinType)`: for each left
//! row the `k` right rows whose ranking is smallest (`distance`) or largest (`similarity`).
//! Spark rewrites it to a cross join grouped by a left row id with `min_by`/`max_by(.., k)`;
//! here it is a join on `ranking IS NOT NULL` (a left outer join keeps the left rows without
//! a candidate once, NULL-padded), each left row's candidates numbered by a window's
//! `row_number()` over the ranking, and the first `k` kept. `approx` answers exactly, as Spark
//! does today. Equal rankings keep the right rows in their order.

use arrow::datatypes::DataType;
use datafusion::common::tree_node::TreeNode;
use datafusion::functions_window::expr_fn::row_number;
use datafusion::logical_expr::{
    Expr, ExprFunctionExt, ExprSchemable, JoinType, LogicalPlan, LogicalPlanBuilder, lit,
};

use super::Resolver;
use super::as_of_join::{MATCH_RANK, RIGHT_PARTITION, RIGHT_ROW};
use super::names::column_exprs;
use crate::error::{PlanResult, SparkError};
use crate::logical::partition_ids::{PARTITION_ID, PartitionIdsNode, ROW_IN_PARTITION};
use crate::spec::NearestByJoin;
use crate::types;

impl Resolver<'_> {
    pub(crate) fn resolve_nearest_by_join(&mut self, j: &NearestByJoin) -> PlanResult<LogicalPlan> {
        let left = self.resolve(&j.left)?;
        let right = self.resolve(&j.right)?;
        let right = self.distinct_from(&left, right)?;
        let outputs: Vec<Expr> =
            [column_exprs(left.schema()), column_exprs(right.schema())].concat();
        // (Resolved over the inputs' own columns: the row ids are no candidates.)
        let joined = left.schema().join(right.schema())?;
        let (ranking, name) = self.resolve_expr(&j.ranking, &joined)?;
        let left = PartitionIdsNode::plan(left)?;
        let right = self.numbered(right)?;
        let computed = ranking.exists(|e| {
            Ok(matches!(
                e,
                Expr::AggregateFunction(_) | Expr::WindowFunction(_)
            ))
        })?;
        if computed {
            return Err(SparkError::analysis(
                "UNSUPPORTED_EXPR_FOR_OPERATOR",
                "42K0E",
                "The query operator NearestByJoin contains one or more unsupported expressions.",
            )
            .into());
        }
        let ranking_type = ranking.get_type(&joined)?;
        if !orderable(&ranking_type) {
            return Err(crate::proto::nearest_error(
                "NON_ORDERABLE_RANKING_EXPRESSION",
                format!(
                    "The ranking expression \"{name}\" of type \"{}\" is not orderable. Provide an expression that returns an orderable type, such as a numeric distance like abs(a.col - b.col) or a numeric similarity score.",
                    types::sql_name(&ranking_type)
                ),
            ));
        }
        let join_type = if j.left_outer {
            JoinType::Left
        } else {
            JoinType::Inner
        };
        // (The window orders by the ranking computed into a column: DataFusion's ordering
        // analysis rejects its own sort of an expression such as `-abs(a - b)` DESC.)
        const RANKING: &str = "__ember_ranking";
        let best = row_number()
            .partition_by(vec![
                Self::column(PARTITION_ID),
                Self::column(ROW_IN_PARTITION),
            ])
            .order_by(vec![
                // (NULL rankings are no candidates; NULLs inside arrays and structs rank
                // lowest, as in Spark.)
                Self::column(RANKING).sort(!j.similarity, !j.similarity),
                Self::column(RIGHT_PARTITION).sort(true, false),
                Self::column(RIGHT_ROW).sort(true, false),
            ])
            .build()?
            .alias(MATCH_RANK);
        let k = u64::try_from(j.num_results).unwrap_or(u64::MAX);
        let joined = LogicalPlanBuilder::from(left)
            .join_on(right, join_type, vec![ranking.clone().is_not_null()])?
            .build()?;
        let mut with_ranking: Vec<Expr> = column_exprs(joined.schema());
        with_ranking.push(ranking.alias(RANKING));
        Ok(LogicalPlanBuilder::from(joined)
            .project(with_ranking)?
            .window(vec![best])?
            .filter(Self::column(MATCH_RANK).lt_eq(lit(k)))?
            .project(outputs)?
            .build()?)
    }
}

/// Whether Spark can order values of a type (maps, variants and spatial values it cannot).
fn orderable(dt: &DataType) -> bool {
    if types::is_variant(dt) || types::spatial_of(dt).is_some() {
        return false;
    }
    match dt {
        DataType::Map(..) => false,
        DataType::List(f) | DataType::LargeList(f) | DataType::FixedSizeList(f, _) => {
            orderable(f.data_type())
        }
        DataType::Struct(fields) => fields.iter().all(|f| orderable(f.data_type())),
        _ => true,
    }
}
