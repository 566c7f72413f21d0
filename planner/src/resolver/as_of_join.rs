//! `df._joinAsOf(...)` (Spark Connect's AsOfJoin): every left row joined with the right
//! row of equal keys whose as-of value is the closest before it (`backward`), after it
//! (`forward`) or either side (`nearest`), within a tolerance. Planned as a join on the keys
//! and the direction's inequality, then the best match of each left row (numbered by a
//! PartitionIds node) kept by a window's `row_number()`.

use datafusion::functions_window::expr_fn::row_number;
use datafusion::logical_expr::{
    Expr, ExprFunctionExt, JoinType, LogicalPlan, LogicalPlanBuilder, lit,
};

use super::Resolver;
use crate::error::{PlanError, PlanResult};
use crate::exec::partition_ids::{PARTITION_ID, PartitionIdsNode, ROW_IN_PARTITION};
use crate::spec::AsOfJoin;

impl Resolver<'_> {
    pub(crate) fn resolve_as_of_join(&mut self, j: &AsOfJoin) -> PlanResult<LogicalPlan> {
        let left = self.resolve(&j.left)?;
        let right = self.resolve(&j.right)?;
        let right = self.distinct_from(&left, right)?;
        let (left_as_of, _) = self.resolve_expr(&j.left_as_of, left.schema())?;
        let (right_as_of, _) = self.resolve_expr(&j.right_as_of, right.schema())?;
        let outputs: Vec<Expr> = left
            .schema()
            .columns()
            .into_iter()
            .chain(right.schema().columns())
            .map(Expr::Column)
            .collect();
        // Each left row's identity, for choosing its best match.
        let left = PartitionIdsNode::plan(left)?;
        let joined_schema = left.schema().join(right.schema())?;
        let mut condition = vec![];
        for name in &j.using {
            let l = self.existing_column(left.schema(), name)?;
            let r = self.existing_column(right.schema(), name)?;
            condition.push(Self::column(&l).eq(Self::column(&r)));
        }
        if let Some(c) = &j.condition {
            condition.push(self.resolve_expr(c, &joined_schema)?.0);
        }
        let (l, r) = (left_as_of, right_as_of);
        let exact = j.allow_exact_matches;
        let (direction, order) = match j.direction.as_str() {
            "backward" => (
                Some(if exact {
                    r.clone().lt_eq(l.clone())
                } else {
                    r.clone().lt(l.clone())
                }),
                r.clone().sort(false, false),
            ),
            "forward" => (
                Some(if exact {
                    r.clone().gt_eq(l.clone())
                } else {
                    r.clone().gt(l.clone())
                }),
                r.clone().sort(true, false),
            ),
            "nearest" => (
                (!exact).then(|| r.clone().not_eq(l.clone())),
                distance(&l, &r).sort(true, false),
            ),
            other => {
                return Err(PlanError::Unsupported(format!(
                    "as-of join direction {other}"
                )));
            }
        };
        condition.extend(direction);
        if let Some(t) = &j.tolerance {
            let (t, _) = self.resolve_expr(t, &joined_schema)?;
            condition.push(distance(&l, &r).lt_eq(t));
        }
        let join_type = match j.join_type.as_str() {
            "inner" => JoinType::Inner,
            "left" | "leftouter" | "left_outer" => JoinType::Left,
            other => {
                return Err(PlanError::Unsupported(format!(
                    "as-of join of type {other}"
                )));
            }
        };
        let on = condition
            .into_iter()
            .reduce(Expr::and)
            .unwrap_or_else(|| lit(true));
        let best = row_number()
            .partition_by(vec![
                Self::column(PARTITION_ID),
                Self::column(ROW_IN_PARTITION),
            ])
            .order_by(vec![order])
            .build()?
            .alias("__ember_match");
        let plan = LogicalPlanBuilder::from(left)
            .join_on(right, join_type, vec![on])?
            .window(vec![best])?
            .filter(Self::column("__ember_match").eq(lit(1u64)))?
            .project(outputs)?
            .build()?;
        Ok(plan)
    }
}

/// How far apart `l` and `r` are (`|l - r|`; an interval for timestamps).
fn distance(l: &Expr, r: &Expr) -> Expr {
    crate::functions::when(
        r.clone().lt_eq(l.clone()),
        l.clone() - r.clone(),
        Some(r.clone() - l.clone()),
    )
}
