//! GROUP BY keys that are time windows: `session_window(ts, gap)` keys, whose sessions window
//! functions compute over each key's rows, and SQL's `window.start` / `session_window.end`
//! naming the fields of a window key.

use datafusion::common::{DFSchema, ScalarValue};
use datafusion::logical_expr::expr::ScalarFunction;
use datafusion::logical_expr::{Expr, LogicalPlan, LogicalPlanBuilder};

use super::Resolver;
use crate::error::{PlanError, PlanResult, SparkError};
use crate::spec::{self, Expr as SExpr};

/// The select items of a SQL aggregate with `window` / `window.start` (and `session_window`)
/// read as the fields of a window grouping key, as Spark resolves them (unless the input has
/// a column of that name).
pub(super) fn with_window_key_fields(a: &spec::Aggregate, schema: &DFSchema) -> Vec<SExpr> {
    let keys: Vec<(String, SExpr)> = a
        .grouping
        .iter()
        .filter_map(|g| match g {
            SExpr::Function(f)
                if ["window", "session_window"]
                    .iter()
                    .any(|n| f.name.eq_ignore_ascii_case(n))
                    && !schema.has_column_with_unqualified_name(&f.name.to_lowercase()) =>
            {
                Some((f.name.to_lowercase(), g.clone()))
            }
            _ => None,
        })
        .collect();
    if keys.is_empty() {
        return a.aggregates.clone();
    }
    a.aggregates
        .iter()
        .map(|item| match item {
            // A top-level `window.start` is named by its last part.
            SExpr::Attribute {
                name,
                plan_id: None,
            } if name.len() > 1 => {
                let field = window_key_references(item, &keys);
                if &field == item {
                    field
                } else {
                    SExpr::Alias {
                        expr: Box::new(field),
                        names: vec![name[name.len() - 1].clone()],
                        metadata: None,
                    }
                }
            }
            other => window_key_references(other, &keys),
        })
        .collect()
}

/// A `session_window(ts, gap)` GROUP BY key: the column it becomes, the column of its time
/// (microseconds), the gap and the zone of its bounds.
pub(super) struct Session {
    pub(super) key: String,
    time: String,
    gap: i64,
    time_zone: Option<String>,
}

impl Resolver<'_> {
    /// Spark's TimeWindowing: a `window(ts, ...)` is computed for the rows whose `ts` is not
    /// NULL only (a filter below the projection or aggregation that computes it).
    pub(super) fn rows_with_window_times<'e>(
        &mut self,
        input: LogicalPlan,
        exprs: impl Iterator<Item = &'e SExpr>,
    ) -> PlanResult<LogicalPlan> {
        let times = std::cell::RefCell::new(Vec::new());
        // Distinct time and session windows (Spark's TimeWindowing refuses more than one).
        let windows = std::cell::RefCell::new(Vec::<SExpr>::new());
        for e in exprs {
            e.any(&|e| {
                if let SExpr::Function(f) = e
                    && ["window", "session_window"]
                        .iter()
                        .any(|n| f.name.eq_ignore_ascii_case(n))
                {
                    let mut windows = windows.borrow_mut();
                    if !windows.contains(e) {
                        windows.push(e.clone());
                    }
                    if f.name.eq_ignore_ascii_case("window")
                        && let Some(t) = f.args.first()
                    {
                        times.borrow_mut().push(t.clone());
                    }
                }
                false
            });
        }
        if windows.into_inner().len() > 1 {
            return Err(SparkError::analysis(
                "_LEGACY_ERROR_TEMP_1039",
                "",
                "Multiple time/session window expressions would result in a cartesian product of rows, therefore they are currently not supported.",
            )
            .into());
        }
        let times = times.into_inner();
        if times.is_empty() {
            return Ok(input);
        }
        let schema = input.schema().clone();
        // (A time the input cannot resolve is left to the projection's own error.)
        let conditions: Vec<Expr> = times
            .iter()
            .filter_map(|t| self.resolve_expr(t, &schema).ok())
            .map(|(e, _)| e.is_not_null())
            .collect();
        Ok(
            match datafusion::logical_expr::utils::conjunction(conditions) {
                Some(c) => LogicalPlanBuilder::from(input).filter(c)?.build()?,
                None => input,
            },
        )
    }

    /// A `session_window` key: its time computed (pushed onto `pre`) under a fresh name.
    pub(super) fn session_key(
        &mut self,
        f: &ScalarFunction,
        name: &str,
        pre: &mut Vec<Expr>,
    ) -> PlanResult<Session> {
        let inner: &dyn std::any::Any = f.func.inner().as_ref();
        let settings = inner
            .downcast_ref::<crate::functions::native::NativeUdf>()
            .map(|n| n.kind().clone());
        let Some(crate::functions::native::Native::SessionWindow { gap, time_zone }) = settings
        else {
            return Err(PlanError::InvalidPlan(
                "session_window without its settings".into(),
            ));
        };
        let key = self.fresh(name, vec![]);
        let time = self.fresh("session_time", vec![]);
        let micros = f
            .args
            .first()
            .cloned()
            .unwrap_or(Expr::Literal(ScalarValue::Null, None));
        pre.push(micros.alias(&time));
        Ok(Session {
            key,
            time,
            gap,
            time_zone,
        })
    }

    /// `input` with the session of each row as the column `session.key`, for each value of the
    /// other keys: rows sorted by time, a row starts a new session when it comes after the
    /// latest end (time + gap) of the rows before it (one at that end joins, as in Spark); a
    /// session spans its first time to its latest end. Rows without a time are in no session
    /// (as Spark filters them).
    pub(super) fn sessions(
        &mut self,
        input: LogicalPlan,
        session: &Session,
        others: Vec<Expr>,
    ) -> PlanResult<LogicalPlan> {
        use std::sync::Arc;

        use arrow::datatypes::DataType;
        use datafusion::logical_expr::expr::WindowFunction;
        use datafusion::logical_expr::{
            ExprFunctionExt, WindowFrame, WindowFrameBound, WindowFrameUnits,
            WindowFunctionDefinition, lit, when,
        };
        let time = Self::column(&session.time);
        let end = self.fresh("session_end", vec![]);
        let prev = self.fresh("session_prev", vec![]);
        let id = self.fresh("session_id", vec![]);
        let (low, high) = (
            self.fresh("session_start", vec![]),
            self.fresh("session_stop", vec![]),
        );
        let window = |f: Arc<datafusion::logical_expr::AggregateUDF>,
                      arg: Expr,
                      partition: Vec<Expr>,
                      frame: Option<WindowFrame>|
         -> PlanResult<Expr> {
            let w = Expr::from(WindowFunction::new(
                WindowFunctionDefinition::AggregateUDF(f),
                vec![arg],
            ))
            .partition_by(partition);
            Ok(match frame {
                Some(frame) => w
                    .order_by(vec![time.clone().sort(true, true)])
                    .window_frame(frame)
                    .build()?,
                None => w.build()?,
            })
        };
        let unbounded = WindowFrameBound::Preceding(datafusion::common::ScalarValue::UInt64(None));
        let before = WindowFrame::new_bounds(
            WindowFrameUnits::Rows,
            unbounded.clone(),
            WindowFrameBound::Preceding(datafusion::common::ScalarValue::UInt64(Some(1))),
        );
        let through = WindowFrame::new_bounds(
            WindowFrameUnits::Rows,
            unbounded,
            WindowFrameBound::CurrentRow,
        );
        let columns = |plan: &LogicalPlan| -> Vec<Expr> {
            plan.schema()
                .fields()
                .iter()
                .map(|f| Self::column(f.name()))
                .collect()
        };
        let max = datafusion::functions_aggregate::min_max::max_udaf();
        let min = datafusion::functions_aggregate::min_max::min_udaf();
        let sum = datafusion::functions_aggregate::sum::sum_udaf();
        let plan = LogicalPlanBuilder::from(input)
            .filter(time.clone().is_not_null())?
            .build()?;
        let mut with_end = columns(&plan);
        with_end.push((time.clone() + lit(session.gap)).alias(&end));
        let plan = LogicalPlanBuilder::from(plan)
            .project(with_end)?
            .window(vec![
                window(
                    max.clone(),
                    Self::column(&end),
                    others.clone(),
                    Some(before),
                )?
                .alias(&prev),
            ])?
            .build()?;
        let starts = when(
            Self::column(&prev)
                .is_null()
                .or(time.clone().gt(Self::column(&prev))),
            lit(1i64),
        )
        .otherwise(lit(0i64))?;
        let plan = LogicalPlanBuilder::from(plan)
            .window(vec![
                window(sum, starts, others.clone(), Some(through))?.alias(&id),
            ])?
            .build()?;
        let mut by_session = others;
        by_session.push(Self::column(&id));
        let plan = LogicalPlanBuilder::from(plan)
            .window(vec![
                window(min, time.clone(), by_session.clone(), None)?.alias(&low),
                window(max, Self::column(&end), by_session, None)?.alias(&high),
            ])?
            .build()?;
        let ts = DataType::Timestamp(
            arrow::datatypes::TimeUnit::Microsecond,
            session.time_zone.clone().map(Into::into),
        );
        let bound = |c: &str| datafusion::logical_expr::cast(Self::column(c), ts.clone());
        let mut out = columns(&plan);
        // (Spark's session window is never NULL; its bounds may be.)
        let key = crate::functions::df_udf("named_struct")?.call(vec![
            lit("start"),
            bound(&low),
            lit("end"),
            bound(&high),
        ]);
        out.push(
            crate::functions::nullability::SparkNullability::udf(false)
                .call(vec![key])
                .alias(&session.key),
        );
        Ok(LogicalPlanBuilder::from(plan).project(out)?.build()?)
    }
}

/// `e` with references to window grouping keys by their names (`window`, `window.start`)
/// replaced by the keys' fields.
fn window_key_references(e: &SExpr, keys: &[(String, SExpr)]) -> SExpr {
    match e {
        SExpr::Attribute {
            name,
            plan_id: None,
        } => {
            let key = name
                .first()
                .and_then(|first| keys.iter().find(|(n, _)| first.eq_ignore_ascii_case(n)));
            match key {
                Some((_, key)) => {
                    name[1..]
                        .iter()
                        .fold(key.clone(), |child, part| SExpr::ExtractValue {
                            child: Box::new(child),
                            extraction: Box::new(SExpr::Literal(ScalarValue::Utf8(Some(
                                part.clone(),
                            )))),
                        })
                }
                None => e.clone(),
            }
        }
        SExpr::Function(f) => {
            let mut f = (**f).clone();
            f.args = f
                .args
                .iter()
                .map(|a| window_key_references(a, keys))
                .collect();
            SExpr::Function(Box::new(f))
        }
        SExpr::Alias {
            expr,
            names,
            metadata,
        } => SExpr::Alias {
            expr: Box::new(window_key_references(expr, keys)),
            names: names.clone(),
            metadata: metadata.clone(),
        },
        other => other.clone(),
    }
}
