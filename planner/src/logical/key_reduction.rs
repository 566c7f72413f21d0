//! An aggregate joined on its grouping key reads only the keys the other side can hold.
//!
//! A correlated subquery (`l_quantity < (SELECT 0.2 * avg(l_quantity) FROM lineitem WHERE
//! l_partkey = p_partkey)`, TPC-H q17; the `min(ps_supplycost)` of q2) becomes a join with an
//! aggregate of the whole table grouped by the correlated key: 6 million rows into 200,000
//! groups, of which the join keeps the 204 parts the outer query's filters leave. When the
//! other side's key comes from a table read with a filter, the rule gives the aggregate's input
//! a semi join with that filtered table's keys: `A ⋈ Agg(R, k)` on `x = k` becomes
//! `A ⋈ Agg(R ⋉ S, k)`, `S` the filtered table `x` comes from. Groups whose key `S` lacks have
//! no partner in the join, and grouping by the key keeps every other group whole, so the answer
//! is the same. The job graph runs the two sides as separate stages, so a join's dynamic filter
//! cannot do this there.
//!
//! Only inner and semi joins on keys (NULLs unequal), aggregates grouped by columns (no grouping
//! sets), keys of one type, traced through projections that pass them on, filters, aliases and
//! inner or semi joins (also across a join's equality to the other side's key).

use std::sync::Arc;

use datafusion::common::tree_node::{Transformed, TreeNode};
use datafusion::common::{Column, NullEquality, Result};
use datafusion::logical_expr::{
    Aggregate, Expr, Join, JoinConstraint, JoinType, LogicalPlan, LogicalPlanBuilder,
};
use datafusion::optimizer::{ApplyOrder, OptimizerConfig, OptimizerRule};

use super::join_order::table;

#[derive(Debug, Default)]
pub struct ReduceAggregateKeys;

impl OptimizerRule for ReduceAggregateKeys {
    fn name(&self) -> &str {
        "ember_reduce_aggregate_keys"
    }

    fn apply_order(&self) -> Option<ApplyOrder> {
        Some(ApplyOrder::TopDown)
    }

    fn rewrite(
        &self,
        plan: LogicalPlan,
        _config: &dyn OptimizerConfig,
    ) -> Result<Transformed<LogicalPlan>> {
        let LogicalPlan::Join(join) = &plan else {
            return Ok(Transformed::no(plan));
        };
        match reduce(join) {
            Some(reduced) if reduced.schema() == plan.schema() => Ok(Transformed::yes(reduced)),
            _ => Ok(Transformed::no(plan)),
        }
    }
}

/// `join` with the aggregate on one side reading only the keys the other side can hold.
fn reduce(join: &Join) -> Option<LogicalPlan> {
    let semi_or_inner = matches!(
        join.join_type,
        JoinType::Inner | JoinType::LeftSemi | JoinType::RightSemi
    );
    // (A NULL key never matches: not under a null-safe equality, where the NULL group would.)
    if !semi_or_inner
        || join.join_constraint != JoinConstraint::On
        || join.null_aware
        || join.null_equality != NullEquality::NullEqualsNothing
        || join.on.is_empty()
    {
        return None;
    }
    for (aggregate_left, pairs) in [
        (
            true,
            join.on.iter().map(|(l, r)| (l, r)).collect::<Vec<_>>(),
        ),
        (false, join.on.iter().map(|(l, r)| (r, l)).collect()),
    ] {
        let (side, other) = if aggregate_left {
            (&join.left, &join.right)
        } else {
            (&join.right, &join.left)
        };
        for (key, other_key) in &pairs {
            let (Expr::Column(key), Expr::Column(other_key)) = (key, other_key) else {
                continue;
            };
            let Some(source) = key_source(other, other_key) else {
                continue;
            };
            if let Some(side) = with_reduced_keys(side, key, &source) {
                let (left, right) = if aggregate_left {
                    (Arc::new(side), Arc::clone(&join.right))
                } else {
                    (Arc::clone(&join.left), Arc::new(side))
                };
                return Join::try_new(
                    left,
                    right,
                    join.on.clone(),
                    join.filter.clone(),
                    join.join_type,
                    join.join_constraint,
                    join.null_equality,
                    join.null_aware,
                )
                .ok()
                .map(LogicalPlan::Join);
            }
        }
    }
    None
}

/// The filtered table (with its projections and filters) whose column `column` holds every
/// value `column` of `plan` can have, if `plan` passes it on from one.
fn key_source(plan: &LogicalPlan, column: &Column) -> Option<(LogicalPlan, Column)> {
    if table(plan) == Some(true) && plan.schema().has_column(column) {
        return Some((plan.clone(), column.clone()));
    }
    match plan {
        LogicalPlan::Join(j)
            if matches!(
                j.join_type,
                JoinType::Inner | JoinType::LeftSemi | JoinType::RightSemi
            ) && j.join_constraint == JoinConstraint::On =>
        {
            let (in_left, in_right) = (
                j.left.schema().has_column(column),
                j.right.schema().has_column(column),
            );
            let (own, across) = match (in_left, in_right) {
                (true, false) => (&j.left, &j.right),
                (false, true) => (&j.right, &j.left),
                _ => return None,
            };
            if let Some(found) = key_source(own, column) {
                return Some(found);
            }
            // (Across the join's equality: the column's values have an equal key there.)
            j.on.iter().find_map(|(l, r)| {
                let (mine, theirs) = if in_left { (l, r) } else { (r, l) };
                match (mine, theirs) {
                    (Expr::Column(c), Expr::Column(t)) if c == column => key_source(across, t),
                    _ => None,
                }
            })
        }
        _ => {
            let (input, inner) = passed_on(plan, column)?;
            key_source(input, &inner)
        }
    }
}

/// The input of a projection, alias or filter and the column of it that `plan` passes on as
/// `column` (a projection only as a plain column).
fn passed_on<'a>(plan: &'a LogicalPlan, column: &Column) -> Option<(&'a LogicalPlan, Column)> {
    match plan {
        LogicalPlan::Projection(p) => {
            let at = p.schema.index_of_column(column).ok()?;
            match p.expr.get(at)? {
                Expr::Column(c) => Some((p.input.as_ref(), c.clone())),
                _ => None,
            }
        }
        LogicalPlan::SubqueryAlias(a) => {
            let at = a.schema.index_of_column(column).ok()?;
            let (qualifier, field) = a.input.schema().qualified_field(at);
            Some((
                a.input.as_ref(),
                Column::new(qualifier.cloned(), field.name()),
            ))
        }
        LogicalPlan::Filter(f) => Some((f.input.as_ref(), column.clone())),
        _ => None,
    }
}

/// `plan` (projections that pass `key` on, aliases and filters over an aggregate grouped by
/// columns) with the aggregate's input reduced to the keys `source` holds (`source.1` its
/// column).
fn with_reduced_keys(
    plan: &LogicalPlan,
    key: &Column,
    source: &(LogicalPlan, Column),
) -> Option<LogicalPlan> {
    if let LogicalPlan::Aggregate(a) = plan {
        return reduced_aggregate(a, key, source);
    }
    let (input, inner) = passed_on(plan, key)?;
    let input = with_reduced_keys(input, &inner, source)?;
    plan.with_new_exprs(plan.expressions(), vec![input]).ok()
}

/// `aggregate` reading only the rows whose grouping column `key` (an output column) has a value
/// in `source`'s column.
fn reduced_aggregate(
    aggregate: &Aggregate,
    key: &Column,
    (source, source_key): &(LogicalPlan, Column),
) -> Option<LogicalPlan> {
    let grouping = match &aggregate.group_expr[..] {
        exprs if !exprs.is_empty() && exprs.iter().all(|e| matches!(e, Expr::Column(_))) => exprs,
        _ => return None,
    };
    let at = aggregate.schema.index_of_column(key).ok()?;
    let Expr::Column(input_key) = grouping.get(at)? else {
        return None;
    };
    // (Once: an input with a semi join on this key already, made by this rule in an earlier
    // pass or written so, stays as it is.)
    let reduced = aggregate.input.exists(|node| {
        Ok(matches!(node, LogicalPlan::Join(j)
            if j.join_type == JoinType::LeftSemi
                && j.on.iter().any(|(l, _)| matches!(l, Expr::Column(c) if c.name == input_key.name))))
    });
    if reduced.unwrap_or(true) {
        return None;
    }
    if aggregate.aggr_expr.iter().any(|e| e.is_volatile()) {
        return None;
    }
    // (Keys of one type: the semi join compares them as they are.)
    let (_, key_type) = aggregate
        .input
        .schema()
        .qualified_field_from_column(input_key)
        .ok()?;
    let (_, source_type) = source
        .schema()
        .qualified_field_from_column(source_key)
        .ok()?;
    if key_type.data_type() != source_type.data_type() {
        return None;
    }
    let keys = LogicalPlanBuilder::from(source.clone())
        .project(vec![Expr::Column(source_key.clone())])
        .ok()?
        .build()
        .ok()?;
    let input = LogicalPlanBuilder::from(aggregate.input.as_ref().clone())
        .join(
            keys,
            JoinType::LeftSemi,
            (vec![input_key.clone()], vec![source_key.clone()]),
            None,
        )
        .ok()?
        .build()
        .ok()?;
    Aggregate::try_new(
        Arc::new(input),
        aggregate.group_expr.clone(),
        aggregate.aggr_expr.clone(),
    )
    .ok()
    .map(LogicalPlan::Aggregate)
}

#[cfg(test)]
mod tests {
    use super::super::test_plans::scan;
    use super::*;
    use datafusion::common::tree_node::TreeNodeRecursion;
    use datafusion::functions_aggregate::expr_fn::avg;
    use datafusion::logical_expr::{col, lit};

    fn optimize(plan: LogicalPlan) -> LogicalPlan {
        super::super::test_plans::optimize(ReduceAggregateKeys, plan)
    }

    /// The tables the inputs of the plan's aggregates semi-join with.
    fn semi_joined_under_aggregates(plan: &LogicalPlan) -> Vec<String> {
        let mut out = vec![];
        plan.apply(|p| {
            if let LogicalPlan::Aggregate(a) = p {
                a.input.apply(|q| {
                    if let LogicalPlan::Join(j) = q
                        && j.join_type == JoinType::LeftSemi
                    {
                        j.right.apply(|r| {
                            if let LogicalPlan::TableScan(s) = r {
                                out.push(s.table_name.to_string());
                            }
                            Ok(TreeNodeRecursion::Continue)
                        })?;
                    }
                    Ok(TreeNodeRecursion::Continue)
                })?;
            }
            Ok(TreeNodeRecursion::Continue)
        })
        .unwrap();
        out
    }

    fn averages() -> LogicalPlan {
        scan("fact", &["f_k", "f_q"])
            .aggregate(vec![col("f_k")], vec![avg(col("f_q")).alias("a")])
            .unwrap()
            .build()
            .unwrap()
    }

    #[test]
    fn the_aggregate_reads_the_filtered_tables_keys_once() {
        let dim = scan("dim", &["d_k", "d_x"])
            .filter(col("d_x").eq(lit(1i64)))
            .unwrap()
            .build()
            .unwrap();
        let plan = LogicalPlanBuilder::from(dim)
            .join(
                averages(),
                JoinType::Inner,
                (vec!["d_k"], vec!["f_k"]),
                None,
            )
            .unwrap()
            .build()
            .unwrap();
        let optimized = optimize(plan.clone());
        assert_eq!(semi_joined_under_aggregates(&optimized), ["dim"]);
        assert_eq!(optimized.schema(), plan.schema());
        // Once: a second run adds nothing.
        assert_eq!(optimize(optimized.clone()), optimized);
    }

    #[test]
    fn an_unfiltered_table_or_an_outer_join_leaves_the_aggregate_alone() {
        let dim = scan("dim", &["d_k", "d_x"]).build().unwrap();
        let plan = LogicalPlanBuilder::from(dim.clone())
            .join(
                averages(),
                JoinType::Inner,
                (vec!["d_k"], vec!["f_k"]),
                None,
            )
            .unwrap()
            .build()
            .unwrap();
        assert!(semi_joined_under_aggregates(&optimize(plan)).is_empty());
        let filtered = LogicalPlanBuilder::from(dim)
            .filter(col("d_x").eq(lit(1i64)))
            .unwrap()
            .build()
            .unwrap();
        let plan = LogicalPlanBuilder::from(filtered.clone())
            .join(averages(), JoinType::Left, (vec!["d_k"], vec!["f_k"]), None)
            .unwrap()
            .build()
            .unwrap();
        assert!(semi_joined_under_aggregates(&optimize(plan)).is_empty());
        // A null-safe equality matches the NULL group too.
        let plan = LogicalPlanBuilder::from(filtered)
            .join_detailed(
                averages(),
                JoinType::Inner,
                (vec!["d_k"], vec!["f_k"]),
                None,
                NullEquality::NullEqualsNull,
            )
            .unwrap()
            .build()
            .unwrap();
        assert!(semi_joined_under_aggregates(&optimize(plan)).is_empty());
    }
}
