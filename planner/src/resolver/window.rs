//! Window functions: `f(...) OVER (PARTITION BY ... ORDER BY ... frame)` with Spark's
//! default frames and names.

use datafusion::common::{DFSchema, ScalarValue};
use datafusion::logical_expr::expr::{Sort, WindowFunction};
use datafusion::logical_expr::{
    Expr, ExprFunctionExt, ExprSchemable, WindowFrame as DfFrame, WindowFrameBound,
    WindowFrameUnits, WindowFunctionDefinition, cast, lit,
};

use super::Resolver;
use super::names::Named;
use crate::error::{PlanError, PlanResult, SparkError};
use crate::functions::{FunctionKind, registry};
use crate::spec::{self, Expr as SExpr, FrameBound};

impl Resolver<'_> {
    pub(super) fn resolve_window(
        &mut self,
        w: &spec::WindowSpec,
        schema: &DFSchema,
    ) -> PlanResult<Named> {
        // A Python aggregate (`pandas_udf` Series -> scalar) over a window: from the
        // DataFrame API, or named in SQL as a function of the session.
        let named_python = match &w.function {
            SExpr::Function(call) => self
                .catalog()
                .python_function(&call.name.to_lowercase())
                .map(|udf| (udf, call)),
            _ => None,
        };
        let named_python = match named_python {
            Some((udf, call)) if call.filter.is_some() => {
                return Err(super::python::filter_not_supported(
                    super::python::python_kind_name(&udf),
                ));
            }
            Some((udf, call)) => Some(spec::PythonUdfCall {
                udf,
                args: call.args.clone(),
            }),
            None => None,
        };
        let python = match &w.function {
            SExpr::PythonUdf(p) => Some(p.as_ref()),
            _ => named_python.as_ref(),
        };
        let python_call = python.map(|p| spec::FunctionCall::new(&p.udf.name, p.args.clone()));
        let call = match (&w.function, &python_call) {
            (_, Some(call)) => call,
            (SExpr::Function(call), _) => call.as_ref(),
            _ => return Err(PlanError::InvalidPlan("window over a non-function".into())),
        };
        let kind = match python {
            Some(p)
                if ember_execution::python::is_aggregate_eval_type(p.udf.function.eval_type) =>
            {
                FunctionKind::Aggregate
            }
            Some(_) => FunctionKind::Scalar,
            None => {
                registry()
                    .get(&call.name)
                    .cloned()
                    .ok_or_else(|| SparkError::unresolved_routine(&call.name))?
                    .kind
            }
        };
        if kind == FunctionKind::Scalar {
            // Spark shows the call as it resolved it (`abs(x)`).
            let (_, shown) = match python {
                Some(p) => self.resolve_python_udf(p, schema)?,
                None => self.resolve_function(call, schema)?,
            };
            return Err(SparkError::analysis(
                "UNSUPPORTED_EXPR_FOR_WINDOW",
                "42P20",
                format!("Expression \"{shown}\" not supported within a window function."),
            )
            .into());
        }
        if call.distinct {
            return Err(SparkError::analysis(
                "DISTINCT_WINDOW_FUNCTION_UNSUPPORTED",
                "0A000",
                format!(
                    "Distinct window functions are not supported: {}.",
                    call.name
                ),
            )
            .into());
        }
        // Spark allows window aggregates of non-deterministic values.
        let outer = std::mem::replace(&mut self.in_window, true);
        let resolved = match python {
            Some(p) => self.resolve_python_udf(p, schema),
            None => self.resolve_function(call, schema),
        };
        self.in_window = outer;
        let (fexpr, fname) = resolved?;
        let mut partition = Vec::new();
        let mut partition_names = Vec::new();
        for p in &w.partition_by {
            let (e, n) = self.resolve_expr(p, schema)?;
            partition.push(e);
            partition_names.push(n);
        }
        let mut order = Vec::new();
        let mut order_names = Vec::new();
        for o in &w.order_by {
            let (sort, n) = self.resolve_sort_order(o, schema)?;
            order.push(sort);
            order_names.push(n);
        }
        let lname = call.name.to_ascii_lowercase();
        if order.is_empty()
            && matches!(
                lname.as_str(),
                "row_number"
                    | "rank"
                    | "dense_rank"
                    | "percent_rank"
                    | "cume_dist"
                    | "ntile"
                    | "lag"
                    | "lead"
                    | "counter_diff"
            )
        {
            return Err(SparkError::analysis(
                "WINDOW_FUNCTION_FRAME_NOT_ORDERED",
                "42601",
                format!("Window function {lname} requires the window to be ordered. You need to add an ORDER BY clause. For example: SELECT {lname}(...) OVER (PARTITION BY ... ORDER BY ...) FROM ..."),
            )
            .into());
        }
        // The ordered-set aggregates (`median`, `percentile_cont`, an ordered `listagg`) order
        // their own input: a window of theirs takes neither an ORDER BY nor a frame other than
        // the whole partition.
        let within_group = matches!(call.args.last(), Some(SExpr::SortOrder(_)));
        let ordered_set = matches!(
            lname.as_str(),
            "median" | "percentile_cont" | "percentile_disc"
        ) || (within_group && matches!(lname.as_str(), "listagg" | "string_agg"));
        let whole_frame = w.frame.as_ref().is_none_or(|f| {
            matches!(f.lower, FrameBound::UnboundedPreceding)
                && matches!(f.upper, FrameBound::UnboundedFollowing)
        });
        if ordered_set && (!order.is_empty() || !whole_frame) {
            return Err(SparkError::analysis(
                "INVALID_WINDOW_SPEC_FOR_AGGREGATION_FUNC",
                "42601",
                format!("Cannot specify ORDER BY or a window frame for \"{fname}\"."),
            )
            .into());
        }
        // counter_diff runs over the rows up to the current one only.
        if lname == "counter_diff"
            && w.frame.as_ref().is_some_and(|f| {
                !(f.rows
                    && matches!(f.lower, FrameBound::UnboundedPreceding)
                    && matches!(f.upper, FrameBound::CurrentRow))
            })
        {
            return Err(SparkError::analysis(
                "_LEGACY_ERROR_TEMP_1036",
                "",
                "Window Frame must match the required frame specifiedwindowframe(RowFrame, unboundedpreceding$(), currentrow$()).",
            )
            .into());
        }
        let frame = self.window_frame(
            w,
            &call.name.to_ascii_lowercase(),
            kind,
            !order.is_empty(),
            &call.args,
            schema,
        )?;
        let frame = (range_bounds_typed(frame.0, &order, schema)?, frame.1);
        // Rows that tie in the order go in the input's order, as Spark's stable sort keeps
        // them (see `ties_in_input_order`).
        if ties_in_input_order(w)
            && !self.in_aggregation
            && schema.has_column_with_unqualified_name(crate::logical::partition_ids::PARTITION_ID)
        {
            order.extend(crate::functions::input_order());
        }
        // One window function with this window's partitions, order and frame.
        let window_of = |e: Expr| -> PlanResult<Expr> {
            // Builders may wrap the function in a cast to Spark's result type (rank() is an
            // int).
            let (e, result_type) = match e {
                Expr::Cast(c) => (*c.expr, Some(c.field)),
                other => (other, None),
            };
            // An aggregate that reads its rows in the input's order (see
            // `functions::IN_INPUT_ORDER`): a window without an order of its own orders its
            // rows so.
            let mut window_order = order.clone();
            // The field of the answer to read (see `without_filter`).
            let mut unwrap_field = None;
            let (params_args, fun, null_treatment, filter) = match e {
                Expr::WindowFunction(wf) => {
                    (wf.params.args, wf.fun, wf.params.null_treatment, None)
                }
                Expr::AggregateFunction(af) => {
                    if af.params.order_by == crate::functions::input_order() {
                        if window_order.is_empty() {
                            window_order = af.params.order_by.clone();
                        }
                    } else if !af.params.order_by.is_empty() {
                        return Err(PlanError::Unsupported(format!("{fname} over a window")));
                    }
                    let (args, null_treatment, filter, field) = without_filter(
                        &af.func,
                        af.params.args,
                        af.params.null_treatment,
                        af.params.filter,
                    )?;
                    unwrap_field = field;
                    let fun = match filter {
                        None => sliding_form(af.func, &frame.0),
                        Some(_) => WindowFunctionDefinition::AggregateUDF(
                            crate::functions::DecimalSum::in_window(af.func),
                        ),
                    };
                    (args, fun, null_treatment, filter)
                }
                _ => {
                    return Err(PlanError::InvalidPlan(
                        "window over a non-window function".into(),
                    ));
                }
            };
            // first/last IGNORE NULLS over a sliding frame: the first (last) of the frame's
            // values without NULLs (DataFusion's window first_value/last_value ignore NULLs
            // only over frames that start at the partition's first row).
            let pick = match &fun {
                WindowFunctionDefinition::WindowUDF(u)
                    if null_treatment
                        == Some(datafusion::logical_expr::expr::NullTreatment::IgnoreNulls)
                        && filter.is_none() =>
                {
                    match u.name() {
                        "first_value" => Some(1i64),
                        "last_value" => Some(-1i64),
                        _ => None,
                    }
                }
                _ => None,
            };
            let (fun, null_treatment, pick) =
                match (pick, crate::functions::spark_aggregate("collect_list")) {
                    (Some(at), Some(collect)) => (
                        WindowFunctionDefinition::AggregateUDF(collect),
                        None,
                        Some(at),
                    ),
                    _ => (fun, null_treatment, None),
                };
            let wf = WindowFunction::new(fun, params_args);
            // The builder sets the null treatment of the call (IGNORE NULLS) itself.
            let mut builder = Expr::WindowFunction(Box::new(wf))
                .partition_by(partition.clone())
                .order_by(window_order)
                .window_frame(frame.0.clone())
                .null_treatment(null_treatment);
            if let Some(f) = filter {
                builder = builder.filter(*f);
            }
            let mut expr = builder.build()?;
            if let Some(at) = pick {
                expr = crate::functions::df_udf("array_element")?.call(vec![expr, lit(at)]);
            }
            if let Some(name) = unwrap_field {
                expr = datafusion::functions::core::expr_fn::get_field(expr, name);
            }
            Ok(match result_type {
                Some(field) => cast(expr, field.data_type().clone()),
                None => expr,
            })
        };
        let offset_never_null = offset_never_null(&lname, &fexpr, schema)?;
        let direct = match &fexpr {
            Expr::Cast(c) => matches!(
                c.expr.as_ref(),
                Expr::WindowFunction(_) | Expr::AggregateFunction(_)
            ),
            Expr::WindowFunction(_) | Expr::AggregateFunction(_) => true,
            _ => false,
        };
        let expr = if direct {
            window_of(fexpr)?
        } else {
            // A function of aggregates (Spark's decimal average, skewness, percentiles, ...):
            // each outermost aggregate over the window; aggregates in their arguments
            // (`avg(sum(x)) OVER (...)` over a GROUP BY) stay the grouping's aggregates.
            use datafusion::common::tree_node::{Transformed, TreeNode, TreeNodeRecursion};
            let mut found = false;
            let mut failure = None;
            let rewritten = fexpr.transform_down(|e| match e {
                Expr::AggregateFunction(_) => {
                    found = true;
                    match window_of(e.clone()) {
                        Ok(w) => Ok(Transformed::new(w, true, TreeNodeRecursion::Jump)),
                        Err(err) => {
                            failure = Some(err);
                            Ok(Transformed::no(e))
                        }
                    }
                }
                other => Ok(Transformed::no(other)),
            })?;
            if let Some(err) = failure {
                return Err(err);
            }
            if !found {
                return Err(PlanError::InvalidPlan(
                    "window over a non-window function".into(),
                ));
            }
            rewritten.data
        };
        let expr = match offset_never_null {
            true => crate::functions::nullability::with_nullability(expr, false, schema)?,
            false => expr,
        };
        let mut spec_text = Vec::new();
        if !partition_names.is_empty() {
            spec_text.push(format!("PARTITION BY {}", partition_names.join(", ")));
        }
        if !order_names.is_empty() {
            spec_text.push(format!("ORDER BY {}", order_names.join(", ")));
        }
        spec_text.push(frame.1);
        Ok((expr, format!("{fname} OVER ({})", spec_text.join(" "))))
    }

    fn window_frame(
        &mut self,
        w: &spec::WindowSpec,
        name: &str,
        kind: FunctionKind,
        ordered: bool,
        args: &[SExpr],
        schema: &DFSchema,
    ) -> PlanResult<(DfFrame, String)> {
        // lag/lead show their offset as the frame Spark gives them.
        if matches!(name, "lag" | "lead") {
            let n = match args.get(1) {
                Some(SExpr::Literal(v)) => v.to_string().parse::<i64>().unwrap_or(1),
                _ => 1,
            };
            let n = if name == "lag" { -n } else { n };
            return Ok((
                DfFrame::new_bounds(
                    WindowFrameUnits::Rows,
                    WindowFrameBound::Preceding(ScalarValue::Null),
                    WindowFrameBound::CurrentRow,
                ),
                format!("ROWS BETWEEN {n} FOLLOWING AND {n} FOLLOWING"),
            ));
        }
        let Some(f) = &w.frame else {
            // Spark's defaults: ranking functions use ROWS (cume_dist RANGE) up to the current
            // row; aggregates use RANGE UNBOUNDED PRECEDING..CURRENT ROW when ordered, the
            // whole partition otherwise.
            return Ok(if ordered {
                let rows =
                    kind == FunctionKind::Window && name != "cume_dist" && name != "nth_value";
                let text = if rows {
                    "ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW"
                } else {
                    "RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW"
                };
                let units = if rows {
                    WindowFrameUnits::Rows
                } else {
                    WindowFrameUnits::Range
                };
                (
                    DfFrame::new_bounds(
                        units,
                        WindowFrameBound::Preceding(ScalarValue::Null),
                        WindowFrameBound::CurrentRow,
                    ),
                    text.to_string(),
                )
            } else {
                (
                    DfFrame::new_bounds(
                        WindowFrameUnits::Rows,
                        WindowFrameBound::Preceding(ScalarValue::Null),
                        WindowFrameBound::Following(ScalarValue::Null),
                    ),
                    "ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING".to_string(),
                )
            });
        };
        let units = if f.rows {
            WindowFrameUnits::Rows
        } else {
            WindowFrameUnits::Range
        };
        let (lower, lower_text) = self.frame_bound(&f.lower, f.rows, schema)?;
        let (upper, upper_text) = self.frame_bound(&f.upper, f.rows, schema)?;
        let text = format!(
            "{} BETWEEN {lower_text} AND {upper_text}",
            if f.rows { "ROWS" } else { "RANGE" }
        );
        Ok((DfFrame::new_bounds(units, lower, upper), text))
    }

    fn frame_bound(
        &mut self,
        b: &FrameBound,
        rows: bool,
        schema: &DFSchema,
    ) -> PlanResult<(WindowFrameBound, String)> {
        Ok(match b {
            FrameBound::CurrentRow => (WindowFrameBound::CurrentRow, "CURRENT ROW".into()),
            FrameBound::UnboundedPreceding => (
                WindowFrameBound::Preceding(ScalarValue::Null),
                "UNBOUNDED PRECEDING".into(),
            ),
            FrameBound::UnboundedFollowing => (
                WindowFrameBound::Following(ScalarValue::Null),
                "UNBOUNDED FOLLOWING".into(),
            ),
            FrameBound::Value(v) => {
                let (e, _) = self.resolve_expr(v, schema)?;
                let value = match super::fold_constants(e)? {
                    Expr::Literal(s, _) => s,
                    _ => {
                        return Err(PlanError::Unsupported(
                            "a non-literal window frame boundary".into(),
                        ));
                    }
                };
                let n = match &value {
                    ScalarValue::Int8(Some(v)) => *v as i64,
                    ScalarValue::Int16(Some(v)) => *v as i64,
                    ScalarValue::Int32(Some(v)) => *v as i64,
                    ScalarValue::Int64(Some(v)) => *v,
                    _ => {
                        return Err(PlanError::Unsupported(format!(
                            "window frame boundary {value}"
                        )));
                    }
                };
                let magnitude = if rows {
                    ScalarValue::UInt64(Some(n.unsigned_abs()))
                } else {
                    ScalarValue::Int64(Some(n.abs()))
                };
                // Spark shows SQL's `n PRECEDING` as written and every other offset as
                // `n FOLLOWING` (the DataFrame API's -1 is `-1 FOLLOWING`).
                let preceding_in_sql = matches!(
                    v,
                    SExpr::Function(call) if call.is_operator && call.name == "negative"
                );
                let shown = if preceding_in_sql {
                    format!("{} PRECEDING", n.unsigned_abs())
                } else {
                    format!("{n} FOLLOWING")
                };
                if n < 0 {
                    (WindowFrameBound::Preceding(magnitude), shown)
                } else if n == 0 {
                    (WindowFrameBound::CurrentRow, "CURRENT ROW".into())
                } else {
                    (WindowFrameBound::Following(magnitude), shown)
                }
            }
        })
    }
}

/// A RANGE frame's offsets in the type of the ORDER BY key (DataFusion compares an `Int64`
/// offset with an `Int32` key wrongly).
fn range_bounds_typed(
    mut frame: DfFrame,
    order: &[Sort],
    schema: &DFSchema,
) -> PlanResult<DfFrame> {
    if frame.units != WindowFrameUnits::Range {
        return Ok(frame);
    }
    let Some(key) = order.first() else {
        return Ok(frame);
    };
    let key_type = key.expr.get_type(schema)?;
    if !key_type.is_integer() {
        return Ok(frame);
    }
    for bound in [&mut frame.start_bound, &mut frame.end_bound] {
        if let WindowFrameBound::Preceding(v) | WindowFrameBound::Following(v) = bound
            && !v.is_null()
        {
            *v = v.cast_to(&key_type)?;
        }
    }
    Ok(frame)
}

/// Whether the answer of window `w` depends on the order of rows that tie in its ORDER BY
/// (which Spark's stable sort leaves in the input's order, and a shuffle would leave in the
/// order it delivers them): `row_number`, `ntile`, `lag`, `lead`, and anything over a ROWS
/// frame, but not the functions of peers (`rank`, ...) nor RANGE frames, whose peers tie.
pub(crate) fn ties_in_input_order(w: &spec::WindowSpec) -> bool {
    let name = match &w.function {
        SExpr::Function(f) => f.name.to_ascii_lowercase(),
        _ => return false,
    };
    if w.order_by.is_empty()
        || matches!(
            name.as_str(),
            "rank" | "dense_rank" | "percent_rank" | "cume_dist"
        )
    {
        return false;
    }
    match &w.frame {
        Some(f) => f.rows,
        None => matches!(name.as_str(), "row_number" | "ntile" | "lag" | "lead"),
    }
}

/// Aggregates that skip NULL values (DataFusion's names): a FILTER is the same as their
/// arguments made NULL where it does not hold.
fn skips_nulls(name: &str) -> bool {
    const NAMES: [&str; 28] = [
        "sum",
        "count",
        "avg",
        "min",
        "max",
        "stddev",
        "stddev_pop",
        "var",
        "var_samp",
        "var_pop",
        "bool_and",
        "bool_or",
        "bit_and",
        "bit_or",
        "bit_xor",
        "approx_distinct",
        "median",
        "percentile_cont",
        "corr",
        "covar_samp",
        "covar_pop",
        "string_agg",
        "collect_list",
        "collect_set",
        "try_sum",
        "try_avg",
        "max_by",
        "min_by",
    ];
    NAMES.contains(&name) || name.starts_with("regr_")
}

/// A window aggregate's FILTER moved into its arguments where that is the same, because
/// `datafusion-proto` does not carry a window's filters to the workers (in the cluster modes a
/// filtered window aggregate would read every row): the arguments of aggregates that skip
/// NULLs become NULL where the filter does not hold (but for the constant delimiter of
/// `string_agg` and percentage of `percentile_cont`); `first`/`last` respecting
/// NULLs take a struct of the value (never NULL) where it holds, skip NULLs, and answer its
/// field (returned as the field's name); `array_agg` whose filter leaves out its NULLs (the
/// values of `mode`, percentiles, histograms and bitmaps, see
/// `functions::aggregate::present_values`) masks its argument and ignores NULLs. Other
/// aggregates keep their filter.
#[allow(clippy::type_complexity)]
fn without_filter(
    f: &datafusion::logical_expr::AggregateUDF,
    args: Vec<Expr>,
    null_treatment: Option<datafusion::logical_expr::expr::NullTreatment>,
    filter: Option<Box<Expr>>,
) -> PlanResult<(
    Vec<Expr>,
    Option<datafusion::logical_expr::expr::NullTreatment>,
    Option<Box<Expr>>,
    Option<&'static str>,
)> {
    use datafusion::logical_expr::expr::NullTreatment;
    let Some(p) = filter else {
        return Ok((args, null_treatment, None, None));
    };
    let masked =
        |a: Expr| -> PlanResult<Expr> { Ok(datafusion::logical_expr::when(*p.clone(), a).end()?) };
    // The values, not the parameters that must stay constant (a delimiter, a percentage).
    let with_parameters = matches!(f.name(), "string_agg" | "percentile_cont");
    let masked_values = |args: Vec<Expr>| -> PlanResult<Vec<Expr>> {
        args.into_iter()
            .enumerate()
            .map(|(i, a)| {
                if with_parameters && i > 0 && a.column_refs().is_empty() {
                    Ok(a)
                } else {
                    masked(a)
                }
            })
            .collect()
    };
    let ignoring = null_treatment == Some(NullTreatment::IgnoreNulls);
    let leaves_out_nulls = |args: &[Expr]| match args {
        [x] => datafusion::logical_expr::utils::split_conjunction(&p)
            .into_iter()
            .any(|c| matches!(c, Expr::IsNotNull(e) if e.as_ref() == x)),
        _ => false,
    };
    // Sketches (HLL, theta, KLL, tuple, count-min) skip NULL values as well.
    let inner: &dyn std::any::Any = f.inner().as_ref();
    let sketch = inner
        .downcast_ref::<crate::functions::native::sketch::SketchAgg>()
        .is_some();
    match f.name() {
        "array_agg" if leaves_out_nulls(&args) => Ok((
            masked_values(args)?,
            Some(NullTreatment::IgnoreNulls),
            None,
            None,
        )),
        "first_value" | "last_value" if ignoring => Ok((
            args.into_iter().map(masked).collect::<PlanResult<_>>()?,
            null_treatment,
            None,
            None,
        )),
        "first_value" | "last_value" => {
            let boxed = args
                .into_iter()
                .map(|a| {
                    masked(datafusion::functions::core::expr_fn::named_struct(vec![
                        lit("v"),
                        a,
                    ]))
                })
                .collect::<PlanResult<_>>()?;
            Ok((boxed, Some(NullTreatment::IgnoreNulls), None, Some("v")))
        }
        n if skips_nulls(n) || sketch => Ok((masked_values(args)?, null_treatment, None, None)),
        _ => Ok((args, null_treatment, Some(p), None)),
    }
}

/// The window function that computes aggregate `f` over `frame`: `f` itself, except where the
/// frame slides (starts after the partition's first row) and DataFusion's accumulator of `f`
/// cannot remove rows exactly: `first`/`last` are the window functions
/// `first_value`/`last_value`, `bool_and`/`bool_or` the minimum/maximum of the booleans, and
/// the others are recomputed from the frame's rows (`functions::recompute`).
fn sliding_form(
    f: std::sync::Arc<datafusion::logical_expr::AggregateUDF>,
    frame: &datafusion::logical_expr::WindowFrame,
) -> WindowFunctionDefinition {
    use datafusion::functions_window::nth_value::{first_value_udwf, last_value_udwf};
    let f = crate::functions::DecimalSum::in_window(f);
    if frame.start_bound.is_unbounded() {
        return WindowFunctionDefinition::AggregateUDF(f);
    }
    match f.name() {
        "first_value" => WindowFunctionDefinition::WindowUDF(first_value_udwf()),
        "last_value" => WindowFunctionDefinition::WindowUDF(last_value_udwf()),
        "bool_and" => WindowFunctionDefinition::AggregateUDF(
            datafusion::functions_aggregate::min_max::min_udaf(),
        ),
        "bool_or" => WindowFunctionDefinition::AggregateUDF(
            datafusion::functions_aggregate::min_max::max_udaf(),
        ),
        // Recomputed from the frame's rows where removing rows is not exact or not possible.
        _ => WindowFunctionDefinition::AggregateUDF(crate::functions::recompute::sliding(f)),
    }
}

/// Whether `lag`/`lead` (the call `fexpr`) is never NULL, as Spark says: where the value and
/// the default (of a non-zero offset) never are.
fn offset_never_null(name: &str, fexpr: &Expr, schema: &DFSchema) -> PlanResult<bool> {
    let Expr::WindowFunction(wf) = fexpr else {
        return Ok(false);
    };
    let [value, offset, default] = wf.params.args.as_slice() else {
        return Ok(false);
    };
    let zero = matches!(offset, Expr::Literal(v, _) if v.is_null() || v.to_string() == "0");
    Ok(matches!(name, "lag" | "lead")
        && !zero
        && !value.nullable(schema)?
        && !default.nullable(schema)?)
}
