//! What a plan being resolved can see beyond its input: the schemas of enclosing queries (for
//! outer references) and the common table expressions in scope.

use datafusion::common::DFSchemaRef;
use datafusion::logical_expr::LogicalPlan;

use super::Resolver;
use crate::error::PlanResult;
use crate::spec::Plan;

impl Resolver<'_> {
    pub(crate) fn push_outer(&mut self, schema: DFSchemaRef) {
        self.outer.push(schema);
    }

    pub(crate) fn pop_outer(&mut self) {
        self.outer.pop();
    }

    /// The innermost common table expression named `name` and its position in scope.
    pub(crate) fn find_cte(&self, name: &[String]) -> Option<(usize, Plan)> {
        let [single] = name else { return None };
        self.ctes
            .iter()
            .enumerate()
            .rev()
            .find(|(_, (n, _))| self.names_equal(n, single))
            .map(|(i, (_, p))| (i, p.clone()))
    }

    /// Resolve the body of the common table expression at `position` in scope: it sees the
    /// ones defined before it, not itself nor those after it (as in Spark).
    pub(crate) fn resolve_cte(&mut self, position: usize, body: &Plan) -> PlanResult<LogicalPlan> {
        let later = self.ctes.split_off(position);
        let out = self.resolve(body);
        self.ctes.extend(later);
        out
    }
}
