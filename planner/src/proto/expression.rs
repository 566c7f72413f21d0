//! Spark Connect `Expression` -> [`spec::Expr`].

use ember_protos::spark::connect as pb;
use ember_protos::spark::connect::expression::ExprType;
use ember_protos::spark::connect::expression::sort_order::{NullOrdering, SortDirection};
use ember_protos::spark::connect::expression::window::window_frame::{
    FrameType, frame_boundary::Boundary,
};

use super::ProtoContext;
use crate::error::{PlanError, PlanResult, invalid, unsupported};
use crate::interval::IntervalFields;
use crate::spec::{self, CastMode, Expr, FrameBound, FunctionCall, WindowFrame, WindowSpec};
use crate::{literal, sql, types};

/// Converts one expression, refusing one that nests deeper than
/// [`sql::max_expression_depth`] before any planning work.
pub fn convert(ctx: &ProtoContext, e: &pb::Expression) -> PlanResult<Expr> {
    let depth = ctx.expr_depth.get() + 1;
    let max = sql::max_expression_depth();
    if depth > max {
        return Err(crate::error::SparkError::illegal_argument(
            "INVALID_PARAMETER_VALUE",
            format!(
                "The expression nests more than {max} levels (the static setting \
                 spark.ember.maxExpressionDepth). Build it from fewer nested calls."
            ),
        )
        .into());
    }
    ctx.expr_depth.set(depth);
    let out = convert_nested(ctx, e);
    ctx.expr_depth.set(depth - 1);
    out
}

fn convert_nested(ctx: &ProtoContext, e: &pb::Expression) -> PlanResult<Expr> {
    let Some(expr) = &e.expr_type else {
        return invalid("expression without a type");
    };
    Ok(match expr {
        ExprType::Literal(l) => Expr::Literal(literal::from_proto(l, &ctx.time_zone)?),
        ExprType::UnresolvedAttribute(a) => {
            let name = sql::parse_identifier_parts(&a.unparsed_identifier)?;
            Expr::Attribute {
                name,
                plan_id: a.plan_id,
            }
        }
        ExprType::UnresolvedFunction(f) => {
            let args = convert_all(ctx, &f.arguments)?;
            // Partition transforms (`F.years(col)`, `F.bucket(n, col)`) are calls of no function
            // (Spark Connect makes them transforms): valid only in `writeTo().partitionedBy()`.
            let name = match f.function_name.as_str() {
                "years" | "months" | "days" | "hours" | "bucket" if !f.is_user_defined_function => {
                    format!("{}{}", crate::spec::PARTITION_TRANSFORM, f.function_name)
                }
                // The row index of `zipWithIndex`, which Spark Connect knows and SQL does not.
                "distributed_sequence_id" if !f.is_user_defined_function => {
                    crate::functions::DISTRIBUTED_SEQUENCE_ID.to_string()
                }
                // Spark Connect's one-argument `product` aggregate, unknown to SQL.
                "product" if !f.is_user_defined_function && args.len() == 1 => {
                    crate::functions::CONNECT_PRODUCT.to_string()
                }
                name => name.to_string(),
            };
            Expr::Function(Box::new(FunctionCall {
                name,
                args,
                distinct: f.is_distinct,
                filter: None,
                ignore_nulls: None,
                is_operator: is_operator_name(&f.function_name),
            }))
        }
        ExprType::CallFunction(f) => {
            Expr::function(&f.function_name, convert_all(ctx, &f.arguments)?)
        }
        ExprType::ExpressionString(s) => sql::parse_expression(&s.expression)?,
        ExprType::UnresolvedStar(s) => {
            let target = match &s.unparsed_target {
                Some(t) => {
                    let t = t.strip_suffix(".*").unwrap_or(t);
                    Some(sql::parse_identifier_parts(t)?)
                }
                None => None,
            };
            Expr::Star {
                target,
                plan_id: s.plan_id,
            }
        }
        ExprType::Alias(a) => {
            let inner = a
                .expr
                .as_deref()
                .ok_or_else(|| PlanError::InvalidPlan("alias without expression".into()))?;
            Expr::Alias {
                expr: Box::new(convert(ctx, inner)?),
                names: a.name.clone(),
                metadata: a.metadata.clone(),
            }
        }
        ExprType::Cast(c) => {
            use pb::expression::cast::{CastToType, EvalMode};
            let inner = c
                .expr
                .as_deref()
                .ok_or_else(|| PlanError::InvalidPlan("cast without expression".into()))?;
            let (to, type_name) = match &c.cast_to_type {
                Some(CastToType::Type(t)) => {
                    let dt = types::from_proto(t, &ctx.time_zone)?;
                    let name = types::cast_type_name(&dt, types::proto_interval_fields(t));
                    (dt, name)
                }
                Some(CastToType::TypeStr(s)) => {
                    let dt = types::parse_data_type(s, &ctx.time_zone)?;
                    let name = types::cast_type_name(&dt, IntervalFields::parse(s));
                    (dt, name)
                }
                None => return invalid("cast without target type"),
            };
            let mode = match EvalMode::try_from(c.eval_mode).unwrap_or(EvalMode::Unspecified) {
                EvalMode::Unspecified => CastMode::Default,
                EvalMode::Legacy => CastMode::Legacy,
                EvalMode::Ansi => CastMode::Ansi,
                EvalMode::Try => CastMode::Try,
            };
            Expr::Cast {
                expr: Box::new(convert(ctx, inner)?),
                to,
                mode,
                type_name,
            }
        }
        ExprType::UnresolvedRegex(r) => Expr::Regex {
            pattern: r.col_name.clone(),
            plan_id: r.plan_id,
        },
        ExprType::SortOrder(s) => Expr::SortOrder(Box::new(sort_order(ctx, s)?)),
        ExprType::LambdaFunction(l) => {
            let function = l
                .function
                .as_deref()
                .ok_or_else(|| PlanError::InvalidPlan("lambda without body".into()))?;
            Expr::Lambda {
                function: Box::new(convert(ctx, function)?),
                args: l.arguments.iter().map(|a| a.name_parts.join(".")).collect(),
            }
        }
        ExprType::UnresolvedNamedLambdaVariable(v) => Expr::LambdaVariable(v.name_parts.clone()),
        ExprType::Window(w) => {
            let function = w
                .window_function
                .as_deref()
                .ok_or_else(|| PlanError::InvalidPlan("window without function".into()))?;
            let frame = match &w.frame_spec {
                Some(f) => Some(window_frame(ctx, f)?),
                None => None,
            };
            Expr::Window(Box::new(WindowSpec {
                function: convert(ctx, function)?,
                partition_by: convert_all(ctx, &w.partition_spec)?,
                order_by: w
                    .order_spec
                    .iter()
                    .map(|s| sort_order(ctx, s))
                    .collect::<PlanResult<_>>()?,
                frame,
            }))
        }
        ExprType::UnresolvedExtractValue(x) => {
            let (Some(child), Some(extraction)) = (&x.child, &x.extraction) else {
                return invalid("extract value without child or extraction");
            };
            Expr::ExtractValue {
                child: Box::new(convert(ctx, child)?),
                extraction: Box::new(convert(ctx, extraction)?),
            }
        }
        ExprType::UpdateFields(u) => {
            let inner = u
                .struct_expression
                .as_deref()
                .ok_or_else(|| PlanError::InvalidPlan("update fields without struct".into()))?;
            Expr::UpdateFields {
                expr: Box::new(convert(ctx, inner)?),
                field: sql::parse_identifier_parts(&u.field_name)?,
                value: match &u.value_expression {
                    Some(v) => Some(Box::new(convert(ctx, v)?)),
                    None => None,
                },
            }
        }
        ExprType::NamedArgumentExpression(n) => {
            let value = n
                .value
                .as_deref()
                .ok_or_else(|| PlanError::InvalidPlan("named argument without value".into()))?;
            Expr::NamedArgument {
                name: n.key.clone(),
                value: Box::new(convert(ctx, value)?),
            }
        }
        ExprType::SubqueryExpression(s) => {
            use pb::subquery_expression::SubqueryType;
            let plan = Box::new(spec::Plan::new(spec::PlanNode::PlanReference {
                plan_id: s.plan_id,
            }));
            match SubqueryType::try_from(s.subquery_type).unwrap_or(SubqueryType::Unknown) {
                SubqueryType::Scalar => Expr::ScalarSubquery(plan),
                SubqueryType::Exists => Expr::Exists {
                    plan,
                    negated: false,
                },
                SubqueryType::In => {
                    let values = convert_all(ctx, &s.in_subquery_values)?;
                    let expr = match values.len() {
                        1 => values
                            .into_iter()
                            .next()
                            .ok_or_else(|| PlanError::InvalidPlan("IN".into()))?,
                        _ => Expr::function("struct", values),
                    };
                    Expr::InSubquery {
                        expr: Box::new(expr),
                        plan,
                        negated: false,
                    }
                }
                SubqueryType::TableArg => table_arg(ctx, *plan, s.table_arg_options.as_ref())?,
                other => return unsupported(format!("subquery expression {other:?}")),
            }
        }
        ExprType::CommonInlineUserDefinedFunction(f) => {
            Expr::PythonUdf(Box::new(spec::PythonUdfCall {
                udf: python_udf(ctx, f)?,
                args: convert_all(ctx, &f.arguments)?,
            }))
        }
        ExprType::MergeAction(_) => return unsupported("MERGE action"),
        ExprType::TypedAggregateExpression(_) => return unsupported("typed aggregate expression"),
        ExprType::DirectShufflePartitionId(_) => return unsupported("direct shuffle partition id"),
        ExprType::Extension(_) => return unsupported("expression extension"),
    })
}

/// The Python function of a `CommonInlineUserDefinedFunction` (also what
/// `spark.udf.register` sends).
pub fn python_udf(
    ctx: &ProtoContext,
    f: &pb::CommonInlineUserDefinedFunction,
) -> PlanResult<spec::PythonUdf> {
    use pb::common_inline_user_defined_function::Function;
    let udf = match &f.function {
        Some(Function::PythonUdf(p)) => p,
        Some(Function::ScalarScalaUdf(_)) => {
            return unsupported(format!("Scala user-defined function {}", f.function_name));
        }
        Some(Function::JavaUdf(_)) => {
            return unsupported(format!("Java user-defined function {}", f.function_name));
        }
        None => return invalid("user-defined function without a function"),
    };
    let output_type = match &udf.output_type {
        Some(t) => types::from_proto(t, &ctx.time_zone)?,
        None => return invalid("Python UDF without an output type"),
    };
    Ok(spec::PythonUdf {
        name: f.function_name.clone(),
        function: ember_execution::python::PythonFunction {
            eval_type: udf.eval_type,
            command: udf.command.as_slice().into(),
            python_ver: udf.python_ver.clone(),
            artifacts: ctx.python_artifacts.clone(),
        },
        output_type,
        deterministic: f.deterministic,
    })
}

pub fn convert_all(ctx: &ProtoContext, exprs: &[pb::Expression]) -> PlanResult<Vec<Expr>> {
    exprs.iter().map(|e| convert(ctx, e)).collect()
}

pub fn sort_order(
    ctx: &ProtoContext,
    s: &pb::expression::SortOrder,
) -> PlanResult<spec::SortOrder> {
    let child = s
        .child
        .as_deref()
        .ok_or_else(|| PlanError::InvalidPlan("sort order without expression".into()))?;
    let ascending = !matches!(
        SortDirection::try_from(s.direction).unwrap_or(SortDirection::Unspecified),
        SortDirection::Descending
    );
    let nulls_first = match NullOrdering::try_from(s.null_ordering)
        .unwrap_or(NullOrdering::SortNullsUnspecified)
    {
        NullOrdering::SortNullsFirst => Some(true),
        NullOrdering::SortNullsLast => Some(false),
        NullOrdering::SortNullsUnspecified => None,
    };
    Ok(spec::SortOrder {
        expr: convert(ctx, child)?,
        ascending,
        nulls_first,
    })
}

/// `df.asTable()[.partitionBy(...)|.withSinglePartition()][.orderBy(...)]` as a UDTF's
/// argument: the form SQL's `TABLE(t) PARTITION BY ... ORDER BY ...` takes
/// (`sql/table_args.rs`).
fn table_arg(
    ctx: &ProtoContext,
    plan: spec::Plan,
    options: Option<&pb::subquery_expression::TableArgOptions>,
) -> PlanResult<Expr> {
    use crate::sql::table_args::{ORDER_BY, PARTITION_BY, SINGLE_PARTITION, SORT, TABLE_ARG};
    let mut args = vec![Expr::ScalarSubquery(Box::new(plan))];
    if let Some(o) = options {
        if o.with_single_partition == Some(true) {
            args.push(Expr::function(SINGLE_PARTITION, vec![]));
        } else if !o.partition_spec.is_empty() {
            args.push(Expr::function(
                PARTITION_BY,
                convert_all(ctx, &o.partition_spec)?,
            ));
        }
        if !o.order_spec.is_empty() {
            let text =
                |s: &str| Expr::Literal(datafusion::common::ScalarValue::Utf8(Some(s.into())));
            let keys = o
                .order_spec
                .iter()
                .map(|s| {
                    let order = sort_order(ctx, s)?;
                    let nulls = match order.nulls_first {
                        Some(true) => "first",
                        Some(false) => "last",
                        None => "default",
                    };
                    let direction = if order.ascending { "asc" } else { "desc" };
                    Ok(Expr::function(
                        SORT,
                        vec![order.expr, text(direction), text(nulls)],
                    ))
                })
                .collect::<PlanResult<Vec<_>>>()?;
            args.push(Expr::function(ORDER_BY, keys));
        }
    }
    Ok(Expr::function(TABLE_ARG, args))
}

/// A sort expression: a `SortOrder`, or a plain expression sorted ascending.
pub fn as_sort_order(e: Expr) -> spec::SortOrder {
    match e {
        Expr::SortOrder(s) => *s,
        other => spec::SortOrder {
            expr: other,
            ascending: true,
            nulls_first: None,
        },
    }
}

fn window_frame(
    ctx: &ProtoContext,
    f: &pb::expression::window::WindowFrame,
) -> PlanResult<WindowFrame> {
    let rows = match FrameType::try_from(f.frame_type).unwrap_or(FrameType::Undefined) {
        FrameType::Row => true,
        FrameType::Range => false,
        FrameType::Undefined => return invalid("window frame without type"),
    };
    let bound = |b: &Option<Box<pb::expression::window::window_frame::FrameBoundary>>,
                 lower: bool|
     -> PlanResult<FrameBound> {
        let Some(b) = b else {
            return invalid("window frame without boundary");
        };
        Ok(match &b.boundary {
            Some(Boundary::CurrentRow(_)) => FrameBound::CurrentRow,
            Some(Boundary::Unbounded(_)) => {
                if lower {
                    FrameBound::UnboundedPreceding
                } else {
                    FrameBound::UnboundedFollowing
                }
            }
            Some(Boundary::Value(v)) => FrameBound::Value(convert(ctx, v)?),
            None => return invalid("window frame boundary without value"),
        })
    };
    Ok(WindowFrame {
        rows,
        lower: bound(&f.lower, true)?,
        upper: bound(&f.upper, false)?,
    })
}

/// Operators the PySpark client sends as functions; their generated names use infix form.
pub fn is_operator_name(name: &str) -> bool {
    matches!(
        name,
        "+" | "-"
            | "*"
            | "/"
            | "%"
            | "=="
            | "!="
            | "<"
            | "<="
            | ">"
            | ">="
            | "<=>"
            | "and"
            | "or"
            | "not"
            | "&"
            | "|"
            | "^"
            | "~"
            | "div"
    )
}
