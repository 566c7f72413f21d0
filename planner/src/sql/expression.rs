//! SQL expressions -> [`spec::Expr`], with Spark's operator names (literals are in `literal`).

use datafusion::common::ScalarValue;
use sqlparser::ast::{
    self, BinaryOperator, CastKind, FunctionArg, FunctionArgExpr, FunctionArgumentClause,
    FunctionArguments, NullTreatment, UnaryOperator, Value, WindowFrameBound, WindowType,
};

use super::literal::{interval, number_literal, spark_type_text, typed_string, value_to_expr};
use super::{Lowering, ident_name, object_name_parts, query};
use crate::error::{PlanError, PlanResult, SparkError, unsupported};
use crate::interval::IntervalFields;
use crate::spec::{self, CastMode, Expr, FrameBound, FunctionCall, WindowFrame, WindowSpec};
use crate::types;

/// Whether `e` is one of Spark's predicates (`IS [NOT] NULL`, `IS TRUE`, `IS DISTINCT FROM`,
/// `BETWEEN`, `IN`, `LIKE`, ...) written without parentheses.
fn is_predicate(e: &ast::Expr) -> bool {
    matches!(
        e,
        ast::Expr::IsNull(_)
            | ast::Expr::IsNotNull(_)
            | ast::Expr::IsTrue(_)
            | ast::Expr::IsFalse(_)
            | ast::Expr::IsNotTrue(_)
            | ast::Expr::IsNotFalse(_)
            | ast::Expr::IsUnknown(_)
            | ast::Expr::IsNotUnknown(_)
            | ast::Expr::IsDistinctFrom(..)
            | ast::Expr::IsNotDistinctFrom(..)
            | ast::Expr::InList { .. }
            | ast::Expr::InSubquery { .. }
            | ast::Expr::Between { .. }
            | ast::Expr::Like { .. }
            | ast::Expr::ILike { .. }
            | ast::Expr::RLike { .. }
            | ast::Expr::SimilarTo { .. }
    )
}

/// Spark's grammar applies a predicate (and a comparison or arithmetic) to a value expression
/// only: `x IS NULL IS NULL`, `x IN (1) = TRUE` or `x BETWEEN 0 AND 2 IS NULL` are syntax errors
/// (parenthesized, `(x IS NULL) IS NULL`, they are not). sqlparser accepts them.
fn check_predicate_operands(e: &ast::Expr) -> PlanResult<()> {
    let (operands, near): (Vec<&ast::Expr>, &str) = match e {
        ast::Expr::IsNull(x) | ast::Expr::IsNotNull(x) => (vec![x], "'NULL'"),
        ast::Expr::IsTrue(x) | ast::Expr::IsNotTrue(x) => (vec![x], "'TRUE'"),
        ast::Expr::IsFalse(x) | ast::Expr::IsNotFalse(x) => (vec![x], "'FALSE'"),
        ast::Expr::IsUnknown(x) | ast::Expr::IsNotUnknown(x) => (vec![x], "'UNKNOWN'"),
        ast::Expr::IsDistinctFrom(a, b) | ast::Expr::IsNotDistinctFrom(a, b) => {
            (vec![a, b], "'DISTINCT'")
        }
        ast::Expr::InList { expr, .. } | ast::Expr::InSubquery { expr, .. } => (vec![expr], "'IN'"),
        ast::Expr::Between { expr, .. } => (vec![expr], "'BETWEEN'"),
        ast::Expr::Like { expr, .. } | ast::Expr::ILike { expr, .. } => (vec![expr], "'LIKE'"),
        ast::Expr::RLike { expr, .. } => (vec![expr], "'RLIKE'"),
        ast::Expr::BinaryOp { left, op, right }
            if !matches!(op, BinaryOperator::And | BinaryOperator::Or) =>
        {
            (vec![left, right], "")
        }
        _ => return Ok(()),
    };
    if operands.into_iter().any(is_predicate) {
        let near = if near.is_empty() {
            match e {
                ast::Expr::BinaryOp { op, .. } => format!("'{op}'"),
                _ => String::new(),
            }
        } else {
            near.to_string()
        };
        return Err(SparkError::parse_syntax(&near, "").into());
    }
    Ok(())
}

/// Named windows of the enclosing SELECT (`WINDOW w AS (...)`).
pub(crate) type NamedWindows = Vec<(String, ast::WindowSpec)>;

pub(crate) fn lower(l: &Lowering, e: ast::Expr) -> PlanResult<Expr> {
    lower_with_windows(l, e, &Vec::new())
}

/// Lowers one expression, refusing one that nests deeper than
/// [`super::max_expression_depth`] (FAILED_TO_PARSE_TOO_COMPLEX, as Spark's parser).
pub(crate) fn lower_with_windows(
    l: &Lowering,
    e: ast::Expr,
    windows: &NamedWindows,
) -> PlanResult<Expr> {
    let depth = l.depth.get() + 1;
    if depth > super::max_expression_depth() {
        return Err(crate::error::SparkError::too_complex_to_parse().into());
    }
    l.depth.set(depth);
    let out = lower_nested(l, e, windows);
    l.depth.set(depth - 1);
    out
}

fn lower_nested(l: &Lowering, e: ast::Expr, windows: &NamedWindows) -> PlanResult<Expr> {
    check_predicate_operands(&e)?;
    let go = |e: ast::Expr| lower_with_windows(l, e, windows);
    let go_box = |e: Box<ast::Expr>| lower_with_windows(l, *e, windows).map(Box::new);
    Ok(match e {
        ast::Expr::Identifier(i) => Expr::Attribute {
            name: vec![ident_name(&i)],
            plan_id: None,
        },
        ast::Expr::CompoundIdentifier(parts) => Expr::Attribute {
            name: parts.iter().map(ident_name).collect(),
            plan_id: None,
        },
        ast::Expr::CompoundFieldAccess { root, access_chain } => {
            let mut out = go(*root)?;
            for access in access_chain {
                out = match access {
                    ast::AccessExpr::Dot(ast::Expr::Identifier(i)) => Expr::ExtractValue {
                        child: Box::new(out),
                        extraction: Box::new(Expr::Literal(ScalarValue::Utf8(Some(i.value)))),
                    },
                    ast::AccessExpr::Dot(other) => {
                        return unsupported(format!("field access {other}"));
                    }
                    ast::AccessExpr::Subscript(ast::Subscript::Index { index }) => {
                        Expr::ExtractValue {
                            child: Box::new(out),
                            extraction: Box::new(go(index)?),
                        }
                    }
                    ast::AccessExpr::Subscript(s) => return unsupported(format!("slice {s}")),
                };
            }
            out
        }
        // `v:a.b[0]`: variant_get(v, '$.a.b[0]') as a VARIANT, named after its last key.
        ast::Expr::JsonAccess { value, path } => {
            let mut text = String::from("$");
            let mut name = None;
            for elem in path.path {
                let key = match elem {
                    ast::JsonPathElem::Dot { key, .. } => ScalarValue::Utf8(Some(key)),
                    ast::JsonPathElem::Bracket { key }
                    | ast::JsonPathElem::ColonBracket { key } => match go(key)? {
                        Expr::Literal(v) => v,
                        other => return unsupported(format!("variant path step {other:?}")),
                    },
                };
                match key {
                    ScalarValue::Utf8(Some(k)) => {
                        let quote = if k.contains('\'') { '"' } else { '\'' };
                        text.push_str(&format!("[{quote}{k}{quote}]"));
                        name = Some(k);
                    }
                    v if v.data_type().is_integer() => text.push_str(&format!("[{v}]")),
                    other => return unsupported(format!("variant path step {other}")),
                }
            }
            let call = Expr::Function(Box::new(FunctionCall {
                name: "variant_get".into(),
                args: vec![
                    go(*value)?,
                    Expr::Literal(ScalarValue::Utf8(Some(text.clone()))),
                ],
                distinct: false,
                filter: None,
                ignore_nulls: None,
                is_operator: false,
            }));
            Expr::Alias {
                expr: Box::new(call),
                names: vec![name.unwrap_or(text)],
                metadata: None,
            }
        }
        ast::Expr::IsNull(e) => Expr::operator("isnull", vec![go(*e)?]),
        ast::Expr::IsNotNull(e) => Expr::operator("isnotnull", vec![go(*e)?]),
        ast::Expr::IsTrue(e) => Expr::operator("<=>", vec![go(*e)?, bool_lit(true)]),
        ast::Expr::IsFalse(e) => Expr::operator("<=>", vec![go(*e)?, bool_lit(false)]),
        ast::Expr::IsNotTrue(e) => Expr::operator(
            "not",
            vec![Expr::operator("<=>", vec![go(*e)?, bool_lit(true)])],
        ),
        ast::Expr::IsNotFalse(e) => Expr::operator(
            "not",
            vec![Expr::operator("<=>", vec![go(*e)?, bool_lit(false)])],
        ),
        ast::Expr::IsUnknown(e) => Expr::operator("isnull", vec![go(*e)?]),
        ast::Expr::IsNotUnknown(e) => Expr::operator("isnotnull", vec![go(*e)?]),
        ast::Expr::IsDistinctFrom(a, b) => {
            Expr::operator("not", vec![Expr::operator("<=>", vec![go(*a)?, go(*b)?])])
        }
        ast::Expr::IsNotDistinctFrom(a, b) => Expr::operator("<=>", vec![go(*a)?, go(*b)?]),
        ast::Expr::InList {
            expr,
            list,
            negated,
        } => Expr::InList {
            expr: go_box(expr)?,
            list: list.into_iter().map(go).collect::<PlanResult<_>>()?,
            negated,
        },
        ast::Expr::InSubquery {
            expr,
            subquery,
            negated,
        } => Expr::InSubquery {
            expr: go_box(expr)?,
            plan: Box::new(query::lower_query(l, *subquery)?),
            negated,
        },
        ast::Expr::Between {
            expr,
            negated,
            low,
            high,
        } => Expr::Between {
            expr: go_box(expr)?,
            low: go_box(low)?,
            high: go_box(high)?,
            negated,
        },
        ast::Expr::BinaryOp { left, op, right } => {
            let (left, right) = (go(*left)?, go(*right)?);
            let name = match op {
                BinaryOperator::Plus => "+",
                BinaryOperator::Minus => "-",
                BinaryOperator::Multiply => "*",
                BinaryOperator::Divide => "/",
                BinaryOperator::Modulo => "%",
                BinaryOperator::StringConcat => "||",
                BinaryOperator::Gt => ">",
                BinaryOperator::Lt => "<",
                BinaryOperator::GtEq => ">=",
                BinaryOperator::LtEq => "<=",
                BinaryOperator::Spaceship => "<=>",
                BinaryOperator::Eq => "=",
                BinaryOperator::NotEq => "!=",
                BinaryOperator::And => "and",
                BinaryOperator::Or => "or",
                BinaryOperator::BitwiseOr => "|",
                BinaryOperator::BitwiseAnd => "&",
                BinaryOperator::BitwiseXor => "^",
                BinaryOperator::MyIntegerDivide | BinaryOperator::DuckIntegerDivide => "div",
                BinaryOperator::PGBitwiseShiftLeft => "<<",
                BinaryOperator::PGBitwiseShiftRight => ">>",
                other => return unsupported(format!("operator {other}")),
            };
            Expr::operator(name, vec![left, right])
        }
        e @ (ast::Expr::Like { .. } | ast::Expr::ILike { .. }) => super::like::like(e, l, &go)?,
        ast::Expr::RLike {
            negated,
            expr,
            pattern,
            ..
        } => negate_if(
            Expr::operator("rlike", vec![go(*expr)?, go(*pattern)?]),
            negated,
        ),
        ast::Expr::SimilarTo { .. } => return unsupported("SIMILAR TO"),
        ast::Expr::UnaryOp { op, expr } => match op {
            UnaryOperator::Minus => match *expr {
                ast::Expr::Value(v) => match &v.value {
                    Value::Number(n, long) => {
                        number_literal(&format!("-{n}{}", if *long { "L" } else { "" }))?
                    }
                    _ => Expr::operator("negative", vec![value_to_expr(l, v.value)?]),
                },
                other => Expr::operator("negative", vec![go(other)?]),
            },
            UnaryOperator::Plus => Expr::operator("positive", vec![go(*expr)?]),
            UnaryOperator::Not | UnaryOperator::BangNot => Expr::operator("not", vec![go(*expr)?]),
            UnaryOperator::BitwiseNot => Expr::operator("~", vec![go(*expr)?]),
            other => return unsupported(format!("unary operator {other}")),
        },
        ast::Expr::Cast {
            kind,
            expr,
            data_type,
            format,
            ..
        } => {
            if format.is_some() {
                return unsupported("CAST ... FORMAT");
            }
            let type_text = spark_type_text(&data_type.to_string());
            let to = types::parse_data_type(&type_text, types::DEFAULT_TIME_ZONE)?;
            let mode = match kind {
                CastKind::TryCast | CastKind::SafeCast => CastMode::Try,
                CastKind::Cast | CastKind::DoubleColon => CastMode::Default,
            };
            Expr::Cast {
                expr: go_box(expr)?,
                type_name: types::cast_type_name(&to, IntervalFields::parse(&type_text)),
                to,
                mode,
            }
        }
        ast::Expr::AtTimeZone { .. } => return unsupported("AT TIME ZONE"),
        ast::Expr::Extract { field, expr, .. } => Expr::function(
            "extract",
            vec![
                Expr::Literal(ScalarValue::Utf8(Some(field.to_string()))),
                go(*expr)?,
            ],
        ),
        ast::Expr::Ceil { expr, field } => ceil_floor("ceil", go(*expr)?, field, l)?,
        ast::Expr::Floor { expr, field } => ceil_floor("floor", go(*expr)?, field, l)?,
        ast::Expr::Position { expr, r#in } => {
            Expr::function("locate", vec![go(*expr)?, go(*r#in)?])
        }
        ast::Expr::Substring {
            expr,
            substring_from,
            substring_for,
            special,
            shorthand,
        } => {
            let mut args = vec![go(*expr)?];
            // `substring(s)` is a call of one argument (WRONG_NUM_ARGS).
            match substring_from {
                Some(f) => args.push(go(*f)?),
                None if substring_for.is_some() => {
                    args.push(Expr::Literal(ScalarValue::Int32(Some(1))))
                }
                None => {}
            }
            if let Some(n) = substring_for {
                args.push(go(*n)?);
            }
            // Spark names `substr(s, 2)` as written, `substr(s FROM 2)` as `substring`.
            let name = if shorthand && special {
                "substr"
            } else {
                "substring"
            };
            Expr::function(name, args)
        }
        ast::Expr::Trim {
            trim_where,
            trim_what,
            expr,
            trim_characters,
        } => {
            let name = match trim_where {
                Some(ast::TrimWhereField::Leading) => "ltrim",
                Some(ast::TrimWhereField::Trailing) => "rtrim",
                _ => "trim",
            };
            // Spark's trim functions take the trim string first: `trim(trimStr, str)`.
            let mut args = Vec::new();
            if let Some(what) = trim_what {
                args.push(go(*what)?);
            }
            args.push(go(*expr)?);
            if let Some(chars) = trim_characters {
                for c in chars {
                    args.push(go(c)?);
                }
            }
            Expr::function(name, args)
        }
        ast::Expr::Overlay {
            expr,
            overlay_what,
            overlay_from,
            overlay_for,
        } => {
            let mut args = vec![go(*expr)?, go(*overlay_what)?, go(*overlay_from)?];
            if let Some(f) = overlay_for {
                args.push(go(*f)?);
            }
            Expr::function("overlay", args)
        }
        ast::Expr::Collate { .. } => return unsupported("COLLATE"),
        ast::Expr::Nested(e) => go(*e)?,
        ast::Expr::Value(v) => value_to_expr(l, v.value)?,
        ast::Expr::TypedString(t) => typed_string(&t.data_type, t.value.value)?,
        ast::Expr::Function(f) => function(l, f, windows)?,
        ast::Expr::Case {
            operand,
            conditions,
            else_result,
            ..
        } => Expr::Case {
            operand: operand.map(go_box).transpose()?,
            branches: conditions
                .into_iter()
                .map(|c| Ok((go(c.condition)?, go(c.result)?)))
                .collect::<PlanResult<_>>()?,
            otherwise: else_result.map(go_box).transpose()?,
        },
        ast::Expr::Exists { subquery, negated } => Expr::Exists {
            plan: Box::new(query::lower_query(l, *subquery)?),
            negated,
        },
        ast::Expr::Subquery(q) => Expr::ScalarSubquery(Box::new(query::lower_query(l, *q)?)),
        ast::Expr::Tuple(items) => Expr::function(
            "struct",
            items.into_iter().map(go).collect::<PlanResult<_>>()?,
        ),
        ast::Expr::Struct { values, fields } => {
            if !fields.is_empty() {
                return unsupported("typed STRUCT literal");
            }
            Expr::function(
                "struct",
                values.into_iter().map(go).collect::<PlanResult<_>>()?,
            )
        }
        ast::Expr::Named { expr, name } => go(*expr)?.alias(&name.value),
        ast::Expr::Array(a) => Expr::function(
            "array",
            a.elem.into_iter().map(go).collect::<PlanResult<_>>()?,
        ),
        ast::Expr::Interval(i) => interval(l, i)?,
        ast::Expr::Wildcard(_) => Expr::Star {
            target: None,
            plan_id: None,
        },
        ast::Expr::QualifiedWildcard(name, _) => Expr::Star {
            target: Some(object_name_parts(&name)?),
            plan_id: None,
        },
        ast::Expr::Lambda(lambda) => {
            let args = match lambda.params {
                ast::OneOrManyWithParens::One(p) => vec![p.name.value],
                ast::OneOrManyWithParens::Many(ps) => {
                    ps.into_iter().map(|p| p.name.value).collect()
                }
            };
            Expr::Lambda {
                function: go_box(lambda.body)?,
                args,
            }
        }
        other => return unsupported(format!("SQL expression {other}")),
    })
}

pub(super) fn negate_if(e: Expr, negated: bool) -> Expr {
    if negated {
        Expr::operator("not", vec![e])
    } else {
        e
    }
}

/// `CEIL(x [, scale])` or `FLOOR(x [, scale])` (`name`).
fn ceil_floor(
    name: &str,
    value: Expr,
    field: ast::CeilFloorKind,
    l: &Lowering,
) -> PlanResult<Expr> {
    Ok(match field {
        ast::CeilFloorKind::DateTimeField(ast::DateTimeField::NoDateTime) => {
            Expr::function(name, vec![value])
        }
        ast::CeilFloorKind::Scale(v) => {
            Expr::function(name, vec![value, value_to_expr(l, v.value)?])
        }
        other => {
            return unsupported(format!("{} TO {other:?}", name.to_uppercase()));
        }
    })
}

pub(super) fn bool_lit(b: bool) -> Expr {
    Expr::Literal(ScalarValue::Boolean(Some(b)))
}

fn function(l: &Lowering, f: ast::Function, windows: &NamedWindows) -> PlanResult<Expr> {
    let name_parts = object_name_parts(&f.name)?;
    let name = name_parts.join(".");
    let mut distinct = false;
    let mut args = Vec::new();
    let mut ignore_nulls = f
        .null_treatment
        .as_ref()
        .map(|n| matches!(n, NullTreatment::IgnoreNulls));
    match f.args {
        FunctionArguments::None => {}
        FunctionArguments::Subquery(_) => return unsupported("subquery as function argument"),
        FunctionArguments::List(list) => {
            distinct = matches!(
                list.duplicate_treatment,
                Some(ast::DuplicateTreatment::Distinct)
            );
            for a in list.args {
                args.push(function_arg(l, a, windows)?);
            }
            for clause in list.clauses {
                match clause {
                    FunctionArgumentClause::IgnoreOrRespectNulls(n) => {
                        ignore_nulls = Some(matches!(n, NullTreatment::IgnoreNulls));
                    }
                    other => return unsupported(format!("function argument clause {other}")),
                }
            }
        }
    }
    let filter = match f.filter {
        Some(e) => Some(lower_with_windows(l, *e, windows)?),
        None => None,
    };
    if !matches!(f.parameters, FunctionArguments::None) {
        return unsupported(format!("parameterized function {name}"));
    }
    if !f.within_group.is_empty() {
        // `percentile_cont(0.5) WITHIN GROUP (ORDER BY x)`: pass the sort as a final argument.
        for o in f.within_group {
            args.push(Expr::SortOrder(Box::new(order_by_expr(l, o, windows)?)));
        }
    }
    let call = Expr::Function(Box::new(FunctionCall {
        name,
        args,
        distinct,
        filter,
        ignore_nulls,
        is_operator: false,
    }));
    Ok(match f.over {
        None => call,
        Some(WindowType::WindowSpec(spec)) => {
            Expr::Window(Box::new(window_spec(l, call, spec, windows)?))
        }
        Some(WindowType::NamedWindow(name)) => {
            let spec = windows
                .iter()
                .find(|(n, _)| n.eq_ignore_ascii_case(&name.value))
                .map(|(_, s)| s.clone())
                .ok_or_else(|| {
                    PlanError::from(SparkError::analysis(
                        "MISSING_WINDOW_SPECIFICATION",
                        "42P20",
                        format!(
                            "Window specification {} is not defined in the WINDOW clause.",
                            name.value
                        ),
                    ))
                })?;
            Expr::Window(Box::new(window_spec(l, call, spec, windows)?))
        }
    })
}

fn function_arg(l: &Lowering, a: FunctionArg, windows: &NamedWindows) -> PlanResult<Expr> {
    let arg_expr = |e: FunctionArgExpr| -> PlanResult<Expr> {
        Ok(match e {
            FunctionArgExpr::Expr(e) => lower_with_windows(l, e, windows)?,
            FunctionArgExpr::Wildcard => Expr::Star {
                target: None,
                plan_id: None,
            },
            FunctionArgExpr::QualifiedWildcard(n) => Expr::Star {
                target: Some(object_name_parts(&n)?),
                plan_id: None,
            },
            FunctionArgExpr::WildcardWithOptions(_) => return unsupported("wildcard options"),
        })
    };
    Ok(match a {
        FunctionArg::Unnamed(e) => arg_expr(e)?,
        FunctionArg::Named { name, arg, .. } => Expr::NamedArgument {
            name: name.value,
            value: Box::new(arg_expr(arg)?),
        },
        FunctionArg::ExprNamed { name, arg, .. } => match name {
            ast::Expr::Identifier(i) => Expr::NamedArgument {
                name: i.value,
                value: Box::new(arg_expr(arg)?),
            },
            other => return unsupported(format!("named argument {other}")),
        },
    })
}

pub(crate) fn window_spec(
    l: &Lowering,
    function: Expr,
    spec: ast::WindowSpec,
    windows: &NamedWindows,
) -> PlanResult<WindowSpec> {
    // A spec may extend a named window: `OVER (w ORDER BY x)`.
    let mut base = match &spec.window_name {
        Some(name) => windows
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(&name.value))
            .map(|(_, s)| s.clone()),
        None => None,
    };
    let (partition_by, order_by, frame) = match base.take() {
        Some(b) => (
            if spec.partition_by.is_empty() {
                b.partition_by
            } else {
                spec.partition_by
            },
            if spec.order_by.is_empty() {
                b.order_by
            } else {
                spec.order_by
            },
            spec.window_frame.or(b.window_frame),
        ),
        None => (spec.partition_by, spec.order_by, spec.window_frame),
    };
    let frame = match frame {
        Some(f) => Some(WindowFrame {
            rows: matches!(f.units, ast::WindowFrameUnits::Rows),
            lower: frame_bound(l, f.start_bound, true)?,
            upper: match f.end_bound {
                Some(b) => frame_bound(l, b, false)?,
                None => FrameBound::CurrentRow,
            },
        }),
        None => None,
    };
    if let Some(f) = &frame {
        let _ = f;
    }
    Ok(WindowSpec {
        function,
        partition_by: partition_by
            .into_iter()
            .map(|e| lower_with_windows(l, e, windows))
            .collect::<PlanResult<_>>()?,
        order_by: order_by
            .into_iter()
            .map(|o| order_by_expr(l, o, windows))
            .collect::<PlanResult<_>>()?,
        frame,
    })
}

fn frame_bound(l: &Lowering, b: WindowFrameBound, _lower: bool) -> PlanResult<FrameBound> {
    Ok(match b {
        WindowFrameBound::CurrentRow => FrameBound::CurrentRow,
        WindowFrameBound::Preceding(None) => FrameBound::UnboundedPreceding,
        WindowFrameBound::Following(None) => FrameBound::UnboundedFollowing,
        WindowFrameBound::Preceding(Some(e)) => {
            FrameBound::Value(Expr::operator("negative", vec![lower(l, *e)?]))
        }
        WindowFrameBound::Following(Some(e)) => FrameBound::Value(lower(l, *e)?),
    })
}

pub(crate) fn order_by_expr(
    l: &Lowering,
    o: ast::OrderByExpr,
    windows: &NamedWindows,
) -> PlanResult<spec::SortOrder> {
    Ok(spec::SortOrder {
        expr: lower_with_windows(l, o.expr, windows)?,
        ascending: o.options.asc.unwrap_or(true),
        nulls_first: o.options.nulls_first,
    })
}
