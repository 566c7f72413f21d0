//! What a plan being resolved can see beyond its input: the schemas of enclosing queries (for
//! outer references) and the common table expressions in scope.

use datafusion::common::DFSchemaRef;
use datafusion::logical_expr::LogicalPlan;

use super::Resolver;
use crate::error::{PlanResult, SparkError};
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

    /// `WITH name AS (...), ... body`: the CTEs in scope of the body.
    pub(crate) fn resolve_with(
        &mut self,
        ctes: &[(String, Plan)],
        body: &Plan,
    ) -> PlanResult<LogicalPlan> {
        for (i, (name, _)) in ctes.iter().enumerate() {
            if ctes[..i].iter().any(|(n, _)| self.names_equal(n, name)) {
                // (A ParseException in Spark, raised by its parser.)
                return Err(SparkError::new(
                    crate::error::ErrorKind::Parse,
                    "DUPLICATED_CTE_NAMES",
                    "42602",
                    format!("CTE definition can't have duplicate names: `{name}`."),
                    vec![("duplicateNames", format!("`{name}`"))],
                )
                .into());
            }
        }
        let depth = self.ctes.len();
        for (name, cte) in ctes {
            self.ctes.push((name.clone(), cte.clone()));
        }
        let out = self.resolve(body);
        self.ctes.truncate(depth);
        out
    }
}
