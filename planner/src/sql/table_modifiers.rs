//! What may follow a table name in a query's FROM: `TABLESAMPLE` and time travel
//! (`VERSION AS OF`, `TIMESTAMP AS OF`).

use datafusion::common::ScalarValue;
use sqlparser::ast;

use super::Lowering;
use super::expression::lower;
use crate::error::{PlanError, PlanResult, unsupported};
use crate::spec::{Expr, Plan, PlanNode};

/// `TABLESAMPLE (n ROWS)` keeps the first n rows; `(x PERCENT)` and `(BUCKET x OUT OF y)` keep
/// each row with that probability, as Spark's Bernoulli sampling does (the rows kept differ
/// from Spark's, whose random numbers are its own).
pub(super) fn table_sample(l: &Lowering, plan: Plan, s: ast::TableSample) -> PlanResult<Plan> {
    if s.seed.is_some() || s.offset.is_some() || s.name.is_some() {
        return unsupported("TABLESAMPLE with a method, seed or offset");
    }
    let fraction = match (s.quantity, s.bucket) {
        (Some(q), None) => {
            let value = lower(l, q.value)?;
            match q.unit {
                Some(ast::TableSampleUnit::Rows) => {
                    let Expr::Literal(v) = value else {
                        return unsupported("TABLESAMPLE with a non-literal row count");
                    };
                    let n = v
                        .cast_to(&arrow::datatypes::DataType::Int64)
                        .ok()
                        .and_then(|v| match v {
                            ScalarValue::Int64(Some(n)) if n >= 0 => Some(n as usize),
                            _ => None,
                        })
                        .ok_or_else(|| PlanError::Unsupported(format!("TABLESAMPLE ({v} ROWS)")))?;
                    return Ok(Plan::new(PlanNode::Limit {
                        input: Box::new(plan),
                        limit: n,
                    }));
                }
                Some(ast::TableSampleUnit::Percent) => Expr::operator(
                    "/",
                    vec![value, Expr::Literal(ScalarValue::Float64(Some(100.0)))],
                ),
                None => return unsupported("TABLESAMPLE without ROWS or PERCENT"),
            }
        }
        (None, Some(b)) => {
            if b.on.is_some() {
                return unsupported("TABLESAMPLE (BUCKET ... ON ...)");
            }
            let number = |v: &ast::ValueWithSpan| -> PlanResult<f64> {
                match &v.value {
                    ast::Value::Number(n, _) => n
                        .parse::<f64>()
                        .map_err(|_| PlanError::Unsupported(format!("bucket {n}"))),
                    other => Err(PlanError::Unsupported(format!("bucket {other}"))),
                }
            };
            let (x, y) = (number(&b.bucket)?, number(&b.total)?);
            if y <= 0.0 || x > y {
                return unsupported(format!("TABLESAMPLE (BUCKET {x} OUT OF {y})"));
            }
            Expr::Literal(ScalarValue::Float64(Some(1.0 / y)))
        }
        _ => return unsupported("this TABLESAMPLE form"),
    };
    Ok(Plan::new(PlanNode::Filter {
        input: Box::new(plan),
        condition: Expr::operator("<", vec![Expr::function("rand", vec![]), fraction]),
    }))
}

/// `VERSION AS OF n` or `TIMESTAMP AS OF 'text'` after a table name.
pub(super) fn time_travel(
    l: &Lowering,
    version: ast::TableVersion,
) -> PlanResult<crate::spec::TimeTravel> {
    use crate::spec::{Expr as SExpr, TimeTravel};
    let literal = |e: ast::Expr| -> PlanResult<Option<String>> {
        let text = |v: ScalarValue| match v {
            ScalarValue::Utf8(Some(s)) | ScalarValue::Utf8View(Some(s)) => Some(s),
            _ => None,
        };
        match lower(l, e)? {
            SExpr::Literal(v) => Ok(text(v)),
            SExpr::Cast { expr, .. } => match *expr {
                SExpr::Literal(v) => Ok(text(v)),
                _ => Ok(None),
            },
            _ => Ok(None),
        }
    };
    match version {
        ast::TableVersion::VersionAsOf(e) => {
            let text = e.to_string();
            match text.trim().parse::<i64>() {
                Ok(v) => Ok(TimeTravel::Version(v)),
                Err(_) => unsupported(format!("VERSION AS OF {text}")),
            }
        }
        ast::TableVersion::TimestampAsOf(e) => {
            let shown = e.to_string();
            match literal(e)? {
                Some(v) => Ok(TimeTravel::Timestamp(v)),
                _ => unsupported(format!(
                    "TIMESTAMP AS OF {shown} (only a literal is supported)"
                )),
            }
        }
        other => unsupported(format!("time travel {other}")),
    }
}
