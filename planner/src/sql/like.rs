//! SQL's `[NOT] LIKE` and `[NOT] ILIKE` as Spark's parser makes them: with an ESCAPE
//! character, or over ANY/ALL of several patterns.

use datafusion::common::ScalarValue;
use sqlparser::ast::{self, Value};

use super::Lowering;
use super::expression::{bool_lit, negate_if};
use super::literal::value_to_expr;
use crate::error::{PlanError, PlanResult, unsupported};
use crate::spec::Expr;

/// The LIKE or ILIKE expression `e`, its parts lowered by `go`.
pub(super) fn like(
    e: ast::Expr,
    l: &Lowering,
    go: &impl Fn(ast::Expr) -> PlanResult<Expr>,
) -> PlanResult<Expr> {
    let (ilike, negated, expr, pattern, escape_char, any) = match e {
        ast::Expr::Like {
            negated,
            expr,
            pattern,
            escape_char,
            any,
        } => (false, negated, *expr, *pattern, escape_char, any),
        ast::Expr::ILike {
            negated,
            expr,
            pattern,
            escape_char,
            any,
        } => (true, negated, *expr, *pattern, escape_char, any),
        other => return unsupported(format!("SQL expression {other}")),
    };
    let name = if ilike { "ilike" } else { "like" };
    let upper = name.to_uppercase();
    if any {
        // `x [NOT] LIKE ANY (p1, p2, ...)`: some pattern matches (or does not).
        if escape_char.is_some() {
            return unsupported(format!("{upper} ANY with ESCAPE"));
        }
        let patterns = match pattern {
            ast::Expr::Tuple(items) => items,
            ast::Expr::Nested(item) => vec![*item],
            other => vec![other],
        };
        return like_each(go(expr)?, patterns, negated, "or", ilike, go);
    }
    // `x [NOT] LIKE ALL (p1, p2, ...)` reaches here as a call of `all`: every pattern
    // matches (or none does).
    if let ast::Expr::Function(f) = &pattern
        && f.name.to_string().eq_ignore_ascii_case("all")
        && let ast::FunctionArguments::List(list) = &f.args
        && escape_char.is_none()
    {
        let mut patterns = Vec::with_capacity(list.args.len());
        for arg in &list.args {
            let ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(p)) = arg else {
                return unsupported(format!("{upper} ALL with this pattern"));
            };
            patterns.push(p.clone());
        }
        return like_each(go(expr)?, patterns, negated, "and", ilike, go);
    }
    let mut args = vec![go(expr)?, go(pattern)?];
    if let Some(esc) = escape_char {
        args.push(value_to_expr(l, esc.value)?);
    }
    Ok(negate_if(Expr::operator(name, args), negated))
}

/// `value [NOT] [I]LIKE ANY|ALL (patterns)` (`join`: `or` for ANY, `and` for ALL). As Spark's
/// parser: text literals only make one quantified LIKE (`likeany(value)`, NULL-able whatever
/// its arguments; ILIKE compares `lower(value)` with the lowered patterns), other patterns one
/// LIKE per pattern joined by OR or AND.
fn like_each(
    value: Expr,
    patterns: Vec<ast::Expr>,
    negated: bool,
    join: &str,
    ilike: bool,
    go: &impl Fn(ast::Expr) -> PlanResult<Expr>,
) -> PlanResult<Expr> {
    let what = if join == "or" { "ANY" } else { "ALL" };
    if patterns.is_empty() {
        return Err(PlanError::Unsupported(format!(
            "LIKE {what} without patterns"
        )));
    }
    let texts: Option<Vec<String>> = patterns
        .iter()
        .map(|p| match p {
            ast::Expr::Value(v) => match &v.value {
                Value::SingleQuotedString(t) | Value::DoubleQuotedString(t) => Some(t.clone()),
                _ => None,
            },
            _ => None,
        })
        .collect();
    if let Some(texts) = texts {
        let kind = format!(
            "{}like{}",
            if negated { "not" } else { "" },
            what.to_lowercase()
        );
        let value = if ilike {
            Expr::function("lower", vec![value])
        } else {
            value
        };
        let mut args = vec![Expr::Literal(ScalarValue::Utf8(Some(kind))), value];
        args.extend(texts.into_iter().map(|t| {
            let t = if ilike { t.to_lowercase() } else { t };
            Expr::Literal(ScalarValue::Utf8(Some(t)))
        }));
        return Ok(Expr::operator(crate::spec::QUANTIFIED_LIKE, args));
    }
    let name = if ilike { "ilike" } else { "like" };
    let mut likes = Vec::with_capacity(patterns.len());
    for p in patterns {
        let like = Expr::operator(name, vec![value.clone(), go(p)?]);
        likes.push(negate_if(like, negated));
    }
    Ok(likes
        .into_iter()
        .reduce(|a, b| Expr::operator(join, vec![a, b]))
        .unwrap_or_else(|| bool_lit(false)))
}
