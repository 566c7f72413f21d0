//! `repartition` (by expressions: hash; without: round robin) and `coalesce`: an exchange
//! node over the input.

use datafusion::logical_expr::LogicalPlan;

use super::Resolver;
use crate::error::PlanResult;
use crate::logical::{ExchangeKind, ExchangeNode};
use crate::spec::{Expr as SExpr, Plan};

impl Resolver<'_> {
    pub(crate) fn resolve_repartition(
        &mut self,
        input: &Plan,
        num_partitions: Option<usize>,
        exprs: &[SExpr],
        shuffle: bool,
    ) -> PlanResult<LogicalPlan> {
        let input = self.resolve(input)?;
        self.repartition_resolved(input, num_partitions, exprs, shuffle)
    }

    /// A repartition of an already resolved input.
    pub(crate) fn repartition_resolved(
        &mut self,
        input: LogicalPlan,
        num_partitions: Option<usize>,
        exprs: &[SExpr],
        shuffle: bool,
    ) -> PlanResult<LogicalPlan> {
        let n = num_partitions
            .unwrap_or(self.config.shuffle_partitions)
            .max(1);
        // (coalesce never adds partitions: a count above the limit changes nothing.)
        let n = if shuffle || !exprs.is_empty() {
            self.partitions(n, "repartition")?
        } else {
            n.min(self.config.max_partitions)
        };
        let kind = if exprs.is_empty() {
            if shuffle {
                ExchangeKind::RoundRobin(n)
            } else {
                ExchangeKind::Coalesce(n)
            }
        } else {
            let schema = input.schema().clone();
            let mut keys = Vec::new();
            for e in exprs {
                let e = match e {
                    SExpr::SortOrder(s) => &s.expr,
                    other => other,
                };
                keys.push(self.resolve_expr(e, &schema)?.0);
            }
            ExchangeKind::Hash(keys, n)
        };
        Ok(ExchangeNode::plan(input, kind))
    }
}
