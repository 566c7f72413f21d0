//! Semi and anti joins (`IN` and `EXISTS` subqueries) move below the inner joins they do not
//! need.
//!
//! DataFusion plans `WHERE o_orderkey IN (SELECT ...)` over `customer, orders, lineitem` as a
//! semi join on top of the two inner joins, so every row of `customer ⋈ orders ⋈ lineitem`
//! (six million at TPC-H SF1, q18) is built before the subquery's 57 keys thin them. When the
//! semi join's condition needs the columns of one side of an inner join only, `(A ⋈ B) ⋉ S`
//! is `(A ⋉ S) ⋈ B`: the rule moves it there, as far down as it goes. It passes only inner
//! joins whose other side is a table read without filters (a join that may thin `A` first
//! stays below the semi join, whose probe it makes smaller), and no NULL-aware anti join
//! (`NOT IN`). The columns are the same, in the same order.

use std::sync::Arc;

use datafusion::common::tree_node::Transformed;
use datafusion::common::{DFSchema, Result};
use datafusion::logical_expr::{Join, JoinConstraint, JoinType, LogicalPlan, Projection};
use datafusion::optimizer::{ApplyOrder, OptimizerConfig, OptimizerRule};

use super::join_order::{movable, table, within};

#[derive(Debug, Default)]
pub struct SinkSemiJoins;

impl OptimizerRule for SinkSemiJoins {
    fn name(&self) -> &str {
        "ember_sink_semi_joins"
    }

    fn apply_order(&self) -> Option<ApplyOrder> {
        Some(ApplyOrder::BottomUp)
    }

    fn rewrite(
        &self,
        plan: LogicalPlan,
        _config: &dyn OptimizerConfig,
    ) -> Result<Transformed<LogicalPlan>> {
        let LogicalPlan::Join(join) = &plan else {
            return Ok(Transformed::no(plan));
        };
        match sink(join) {
            Some(sunk) if sunk.schema() == plan.schema() => Ok(Transformed::yes(sunk)),
            _ => Ok(Transformed::no(plan)),
        }
    }
}

/// A semi or anti join that may move: on keys, deterministic, not NULL-aware.
fn sinkable(semi: &Join) -> bool {
    matches!(semi.join_type, JoinType::LeftSemi | JoinType::LeftAnti)
        && semi.join_constraint == JoinConstraint::On
        && !semi.null_aware
        && !semi.on.is_empty()
        && semi
            .on
            .iter()
            .all(|(l, r)| !l.is_volatile() && !r.is_volatile())
        && semi.filter.as_ref().is_none_or(|f| !f.is_volatile())
}

/// `semi` (`X ⋉ S`) with `X` an inner join (under projections of columns) one of whose sides
/// holds every column the condition reads of `X`, the other side an unfiltered table: the
/// plan with the semi join moved onto that side, as far as it goes.
fn sink(semi: &Join) -> Option<LogicalPlan> {
    if !sinkable(semi) {
        return None;
    }
    sink_into(&semi.left, semi)
}

/// `input ⋉ S` (the semi join `semi` of another left side) moved into `input`.
fn sink_into(input: &Arc<LogicalPlan>, semi: &Join) -> Option<LogicalPlan> {
    match input.as_ref() {
        LogicalPlan::Projection(p)
            if p.expr
                .iter()
                .all(|e| matches!(e, datafusion::logical_expr::Expr::Column(_))) =>
        {
            let below = sink_into(&p.input, semi)?;
            Projection::try_new(p.expr.clone(), Arc::new(below))
                .ok()
                .map(LogicalPlan::Projection)
        }
        LogicalPlan::Join(inner) if movable(inner) => {
            let needs = |schema: &DFSchema| {
                semi.on.iter().all(|(l, _)| within(l, schema, None))
                    && semi
                        .filter
                        .as_ref()
                        .is_none_or(|f| within(f, schema, Some(semi.right.schema())))
            };
            let into_left = if needs(inner.left.schema()) && table(&inner.right) == Some(false) {
                true
            } else if needs(inner.right.schema()) && table(&inner.left) == Some(false) {
                false
            } else {
                return None;
            };
            let side = if into_left { &inner.left } else { &inner.right };
            let moved = sink_into(side, semi).or_else(|| {
                Join::try_new(
                    Arc::clone(side),
                    Arc::clone(&semi.right),
                    semi.on.clone(),
                    semi.filter.clone(),
                    semi.join_type,
                    JoinConstraint::On,
                    semi.null_equality,
                    false,
                )
                .ok()
                .map(LogicalPlan::Join)
            })?;
            let (left, right) = if into_left {
                (Arc::new(moved), Arc::clone(&inner.right))
            } else {
                (Arc::clone(&inner.left), Arc::new(moved))
            };
            Join::try_new(
                left,
                right,
                inner.on.clone(),
                inner.filter.clone(),
                JoinType::Inner,
                inner.join_constraint,
                inner.null_equality,
                false,
            )
            .ok()
            .map(LogicalPlan::Join)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_plans::scan;
    use super::*;
    use datafusion::common::tree_node::{TreeNode, TreeNodeRecursion};
    use datafusion::logical_expr::{col, lit};

    fn optimize(plan: LogicalPlan) -> LogicalPlan {
        super::super::test_plans::optimize(SinkSemiJoins, plan)
    }

    /// The table the semi join's left side reads, if it reads one.
    fn semi_left_tables(plan: &LogicalPlan) -> Vec<String> {
        let mut out = vec![];
        plan.apply(|p| {
            if let LogicalPlan::Join(j) = p
                && j.join_type == JoinType::LeftSemi
            {
                j.left.apply(|q| {
                    if let LogicalPlan::TableScan(s) = q {
                        out.push(s.table_name.to_string());
                    }
                    Ok(TreeNodeRecursion::Continue)
                })?;
            }
            Ok(TreeNodeRecursion::Continue)
        })
        .unwrap();
        out
    }

    fn keys() -> LogicalPlan {
        scan("keys", &["k"]).build().unwrap()
    }

    #[test]
    fn a_semi_join_moves_onto_the_table_it_needs() {
        // (customer ⋈ orders ⋈ lineitem) ⋉ keys on orders' key: onto orders.
        let plan = scan("customer", &["c_k", "c_v"])
            .join(
                scan("orders", &["o_k", "o_c"]).build().unwrap(),
                JoinType::Inner,
                (vec!["c_k"], vec!["o_c"]),
                None,
            )
            .unwrap()
            .join(
                scan("lineitem", &["l_o", "l_v"]).build().unwrap(),
                JoinType::Inner,
                (vec!["o_k"], vec!["l_o"]),
                None,
            )
            .unwrap()
            .join(keys(), JoinType::LeftSemi, (vec!["o_k"], vec!["k"]), None)
            .unwrap()
            .build()
            .unwrap();
        let optimized = optimize(plan.clone());
        assert_eq!(semi_left_tables(&optimized), ["orders"]);
        assert_eq!(optimized.schema(), plan.schema());
    }

    #[test]
    fn a_semi_join_stays_above_a_join_that_may_thin_its_side() {
        // lineitem's join with a filtered part may drop lineitem rows: the semi join stays.
        let part = scan("part", &["p_k", "p_x"])
            .filter(col("p_x").eq(lit(1i64)))
            .unwrap()
            .build()
            .unwrap();
        let plan = scan("lineitem", &["l_o", "l_p"])
            .join(part, JoinType::Inner, (vec!["l_p"], vec!["p_k"]), None)
            .unwrap()
            .join(keys(), JoinType::LeftSemi, (vec!["l_o"], vec!["k"]), None)
            .unwrap()
            .build()
            .unwrap();
        let optimized = optimize(plan.clone());
        assert_eq!(semi_left_tables(&optimized), ["lineitem", "part"]);
    }
}
