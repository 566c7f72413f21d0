//! SQL's `x [NOT] [I]LIKE ANY|ALL ('p1', 'p2', ...)` with text patterns, as Spark's `LikeAny`,
//! `LikeAll`, `NotLikeAny` and `NotLikeAll`: one LIKE per pattern joined by OR or AND, named
//! `likeany(x)` (`notlikeall(lower(x))` for ILIKE) and NULL-able whatever its arguments.

use datafusion::common::{DFSchema, ScalarValue};

use super::Resolver;
use super::names::Named;
use crate::error::{PlanError, PlanResult};
use crate::spec::Expr as SExpr;

impl Resolver<'_> {
    /// The call `sql::expression` makes: the kind, the value, the patterns (see
    /// [`crate::spec::QUANTIFIED_LIKE`]).
    pub(super) fn quantified_like(
        &mut self,
        args: &[SExpr],
        schema: &DFSchema,
    ) -> PlanResult<Named> {
        let [
            SExpr::Literal(ScalarValue::Utf8(Some(kind))),
            value,
            patterns @ ..,
        ] = args
        else {
            return Err(PlanError::InvalidPlan("quantified LIKE".into()));
        };
        let negated = kind.starts_with("not");
        let join = if kind.ends_with("any") { "or" } else { "and" };
        let each = patterns.iter().map(|p| {
            let like = SExpr::operator("like", vec![value.clone(), p.clone()]);
            match negated {
                true => SExpr::operator("not", vec![like]),
                false => like,
            }
        });
        let Some(joined) = each.reduce(|a, b| SExpr::operator(join, vec![a, b])) else {
            return Err(PlanError::InvalidPlan(
                "quantified LIKE without patterns".into(),
            ));
        };
        let (_, value_name) = self.resolve_expr(value, schema)?;
        let (expr, _) = self.resolve_expr(&joined, schema)?;
        let expr = crate::functions::nullability::with_nullability(expr, true, schema)?;
        Ok((expr, format!("{kind}({value_name})")))
    }
}
