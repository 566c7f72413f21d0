//! Inner joins with a filtered table move below the joins they do not need.
//!
//! A query's joins run in the order it names its tables (DataFusion reorders none), so in
//! `fact JOIN other_fact ... JOIN dim ... WHERE dim.x = 1` the two facts meet before the
//! filtered dimension thins either. In one process the dimension's dynamic filter reaches the
//! fact's scan anyway; in the job graph the scan is a stage of its own and shuffles every row.
//! TPC-DS q72 (catalog_sales, then inventory, then three filtered dimensions that need only
//! catalog_sales' keys) took 4.9 s in local mode and 35 s in local-cluster mode; with the
//! dimensions first, 0.3 s in both.
//!
//! The rule moves the join of a filtered table `D` below the join of an unfiltered table `R`
//! when `D`'s condition needs only the columns of the other side `L`:
//! `(L ⋈ R) ⋈ D` becomes `(L ⋈ D) ⋈ R`, then again below `L`'s own joins, as far as it goes.
//! Only inner joins move, only past tables read without filters (so the join passed was not
//! one that thins `L`), and filtered tables keep their order among themselves. A projection
//! on top gives back the original columns in their order.

use std::sync::Arc;

use datafusion::common::tree_node::Transformed;
use datafusion::common::{Column, DFSchema, Result};
use datafusion::logical_expr::{
    Expr, Join, JoinConstraint, JoinType, LogicalPlan, Operator, Projection,
};
use datafusion::optimizer::{ApplyOrder, OptimizerConfig, OptimizerRule};

#[derive(Debug, Default)]
pub struct SinkFilteredJoins;

impl OptimizerRule for SinkFilteredJoins {
    fn name(&self) -> &str {
        "ember_sink_filtered_joins"
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
        let Some(sunk) = sink(join) else {
            return Ok(Transformed::no(plan));
        };
        let columns = plan
            .schema()
            .columns()
            .into_iter()
            .map(Expr::Column)
            .collect();
        match Projection::try_new(columns, Arc::new(sunk)) {
            Ok(projection) => Ok(Transformed::yes(LogicalPlan::Projection(projection))),
            Err(_) => Ok(Transformed::no(plan)),
        }
    }
}

/// `join` is `X ⋈ D`; when `D` is a filtered table and `X` is (through projections of columns)
/// `L ⋈ R` with `R` an unfiltered table and `D`'s condition on `L`'s columns only, the plan
/// `(L ⋈ D) ⋈ R` (with `L ⋈ D` sunk further the same way). Its columns are a superset of
/// `join`'s, in another order.
fn sink(join: &Join) -> Option<LogicalPlan> {
    if !movable(join) || table(&join.right) != Some(true) {
        return None;
    }
    let LogicalPlan::Join(below) = under_column_projections(&join.left) else {
        return None;
    };
    if !movable(below) || table(&below.right) != Some(false) {
        return None;
    }
    let l_schema = below.left.schema();
    let d_schema = join.right.schema();
    let needs_only_l = join.on.iter().all(|(l, _)| within(l, l_schema, None))
        && join
            .filter
            .as_ref()
            .is_none_or(|f| within(f, l_schema, Some(d_schema)));
    if !needs_only_l {
        return None;
    }
    let inner = Join::try_new(
        Arc::clone(&below.left),
        Arc::clone(&join.right),
        join.on.clone(),
        join.filter.clone(),
        JoinType::Inner,
        JoinConstraint::On,
        join.null_equality,
        false,
    )
    .ok()?;
    let inner = sink(&inner).unwrap_or(LogicalPlan::Join(inner));
    let outer = Join::try_new(
        Arc::new(inner),
        Arc::clone(&below.right),
        below.on.clone(),
        below.filter.clone(),
        JoinType::Inner,
        below.join_constraint,
        below.null_equality,
        false,
    )
    .ok()?;
    Some(LogicalPlan::Join(outer))
}

/// An inner join on keys (not USING), with deterministic conditions.
pub(super) fn movable(join: &Join) -> bool {
    join.join_type == JoinType::Inner
        && join.join_constraint == JoinConstraint::On
        && !join.null_aware
        && !join.on.is_empty()
        && join
            .on
            .iter()
            .all(|(l, r)| !l.is_volatile() && !r.is_volatile())
        && join.filter.as_ref().is_none_or(|f| !f.is_volatile())
}

/// Under projections that only pick columns.
fn under_column_projections(plan: &LogicalPlan) -> &LogicalPlan {
    match plan {
        LogicalPlan::Projection(p) if p.expr.iter().all(|e| matches!(e, Expr::Column(_))) => {
            under_column_projections(&p.input)
        }
        other => other,
    }
}

/// Whether `expr`'s columns are all in `schema` (or in `other`).
pub(super) fn within(expr: &Expr, schema: &DFSchema, other: Option<&DFSchema>) -> bool {
    expr.column_refs()
        .iter()
        .all(|c: &&Column| schema.has_column(c) || other.is_some_and(|o| o.has_column(c)))
}

/// `Some(filtered)` when `plan` reads one table (projections, filters and aliases over a
/// scan): `filtered` when a condition other than `IS NOT NULL` thins it.
pub(super) fn table(plan: &LogicalPlan) -> Option<bool> {
    match plan {
        LogicalPlan::Projection(p) if p.expr.iter().all(|e| !e.is_volatile()) => table(&p.input),
        LogicalPlan::SubqueryAlias(a) => table(&a.input),
        LogicalPlan::Filter(f) if !f.predicate.is_volatile() => {
            Some(table(&f.input)? || thins(&f.predicate))
        }
        LogicalPlan::TableScan(scan) => Some(scan.filters.iter().any(thins)),
        _ => None,
    }
}

/// A condition that can drop rows with values (not only `x IS NOT NULL`).
fn thins(predicate: &Expr) -> bool {
    match predicate {
        Expr::BinaryExpr(b) if b.op == Operator::And => thins(&b.left) || thins(&b.right),
        Expr::IsNotNull(_) => false,
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_plans::scan;
    use super::*;
    use datafusion::logical_expr::{LogicalPlanBuilder, col, lit};

    fn optimize(plan: LogicalPlan) -> LogicalPlan {
        super::super::test_plans::optimize(SinkFilteredJoins, plan)
    }

    /// The tables joined, in order (left to right, depth first).
    fn tables(plan: &LogicalPlan) -> Vec<String> {
        let mut out = vec![];
        plan.apply(|p| {
            if let LogicalPlan::TableScan(s) = p {
                out.push(s.table_name.to_string());
            }
            Ok(datafusion::common::tree_node::TreeNodeRecursion::Continue)
        })
        .unwrap();
        out
    }

    use datafusion::common::tree_node::TreeNode;

    fn dim(name: &str) -> LogicalPlan {
        scan(name, &[&format!("{name}_k"), &format!("{name}_x")])
            .filter(col(format!("{name}_x")).eq(lit(1i64)))
            .unwrap()
            .build()
            .unwrap()
    }

    fn fact_other() -> LogicalPlanBuilder {
        scan("fact", &["f_other", "f_d1", "f_d2", "f_v"])
            .join(
                scan("other", &["o_k", "o_v"]).build().unwrap(),
                JoinType::Inner,
                (vec!["f_other"], vec!["o_k"]),
                None,
            )
            .unwrap()
    }

    #[test]
    fn filtered_tables_move_below_unfiltered_ones_in_their_order() {
        let plan = fact_other()
            .join(
                dim("d1"),
                JoinType::Inner,
                (vec!["f_d1"], vec!["d1_k"]),
                None,
            )
            .unwrap()
            .join(
                dim("d2"),
                JoinType::Inner,
                (vec!["f_d2"], vec!["d2_k"]),
                None,
            )
            .unwrap()
            .build()
            .unwrap();
        let optimized = optimize(plan.clone());
        assert_eq!(tables(&optimized), ["fact", "d1", "d2", "other"]);
        // The same columns, in the same order.
        assert_eq!(optimized.schema(), plan.schema());
    }

    #[test]
    fn a_condition_on_the_passed_table_or_a_filtered_table_keeps_the_order() {
        // d1 joins on `other`'s column: it cannot pass it.
        let on_other = fact_other()
            .join(
                dim("d1"),
                JoinType::Inner,
                (vec!["o_v"], vec!["d1_k"]),
                None,
            )
            .unwrap()
            .build()
            .unwrap();
        assert_eq!(tables(&optimize(on_other)), ["fact", "other", "d1"]);
        // A filter between d1 and `other`.
        let filter = col("d1_x").lt(col("o_v"));
        let filtered = fact_other()
            .join(
                dim("d1"),
                JoinType::Inner,
                (vec!["f_d1"], vec!["d1_k"]),
                Some(filter),
            )
            .unwrap()
            .build()
            .unwrap();
        assert_eq!(tables(&optimize(filtered)), ["fact", "other", "d1"]);
        // d2 does not pass the filtered d1.
        let after_filtered = scan("fact", &["f_d1", "f_d2"])
            .join(
                dim("d1"),
                JoinType::Inner,
                (vec!["f_d1"], vec!["d1_k"]),
                None,
            )
            .unwrap()
            .join(
                dim("d2"),
                JoinType::Inner,
                (vec!["f_d2"], vec!["d2_k"]),
                None,
            )
            .unwrap()
            .build()
            .unwrap();
        assert_eq!(tables(&optimize(after_filtered)), ["fact", "d1", "d2"]);
    }

    #[test]
    fn only_inner_joins_move() {
        for (lower, upper) in [
            (JoinType::Left, JoinType::Inner),
            (JoinType::Inner, JoinType::Left),
        ] {
            let plan = scan("fact", &["f_other", "f_d1"])
                .join(
                    scan("other", &["o_k"]).build().unwrap(),
                    lower,
                    (vec!["f_other"], vec!["o_k"]),
                    None,
                )
                .unwrap()
                .join(dim("d1"), upper, (vec!["f_d1"], vec!["d1_k"]), None)
                .unwrap()
                .build()
                .unwrap();
            assert_eq!(tables(&optimize(plan)), ["fact", "other", "d1"]);
        }
    }

    #[test]
    fn is_not_null_alone_does_not_make_a_table_filtered() {
        let not_null = scan("d1", &["d1_k"])
            .filter(col("d1_k").is_not_null())
            .unwrap()
            .build()
            .unwrap();
        let plan = fact_other()
            .join(
                not_null,
                JoinType::Inner,
                (vec!["f_d1"], vec!["d1_k"]),
                None,
            )
            .unwrap()
            .build()
            .unwrap();
        assert_eq!(tables(&optimize(plan)), ["fact", "other", "d1"]);
    }
}
