//! SQL queries (SELECT, set operations, VALUES, CTEs) -> [`spec::Plan`], following the clause
//! order of Spark's AstBuilder: FROM, WHERE, GROUP BY/HAVING, SELECT, DISTINCT, ORDER BY, LIMIT.

use datafusion::common::ScalarValue;
use sqlparser::ast::{
    self, GroupByExpr, JoinConstraint, JoinOperator, SelectItem, SetExpr, SetOperator,
    SetQuantifier, TableFactor,
};

use super::expression::{NamedWindows, lower, lower_with_windows, order_by_expr};
use super::table_modifiers::{table_sample, time_travel};
use super::{Lowering, ident_name, object_name_parts};
use crate::error::{PlanError, PlanResult, unsupported};
use crate::spec::{
    Aggregate, Expr, GroupType, Join, JoinType, Plan, PlanNode, SetOpKind, SetOperation, SortOrder,
};

pub(crate) fn lower_query(l: &Lowering, q: ast::Query) -> PlanResult<Plan> {
    let ast::Query {
        with,
        body,
        order_by,
        limit_clause,
        fetch,
        ..
    } = q;
    if fetch.is_some() {
        return unsupported("FETCH");
    }
    let mut plan = lower_set_expr(l, *body)?;
    if let Some(order_by) = order_by {
        let order = match order_by.kind {
            ast::OrderByKind::Expressions(exprs) => exprs
                .into_iter()
                .map(|o| order_by_expr(l, o, &Vec::new()))
                .collect::<PlanResult<Vec<_>>>()?,
            ast::OrderByKind::All(_) => return unsupported("ORDER BY ALL"),
        };
        plan = Plan::new(PlanNode::Sort {
            input: Box::new(plan),
            order,
            global: true,
        });
    }
    if let Some(limit) = limit_clause {
        let (limit, offset) = match limit {
            ast::LimitClause::LimitOffset {
                limit,
                offset,
                limit_by,
            } => {
                if !limit_by.is_empty() {
                    return unsupported("LIMIT BY");
                }
                (limit, offset.map(|o| o.value))
            }
            ast::LimitClause::OffsetCommaLimit { offset, limit } => (Some(limit), Some(offset)),
        };
        if let Some(offset) = offset {
            plan = Plan::new(PlanNode::Offset {
                input: Box::new(plan),
                offset: constant_usize(l, offset, "OFFSET")?,
            });
        }
        if let Some(limit) = limit
            && !matches!(
                limit,
                ast::Expr::Value(ast::ValueWithSpan {
                    value: ast::Value::Null,
                    ..
                })
            )
        {
            plan = Plan::new(PlanNode::Limit {
                input: Box::new(plan),
                limit: constant_usize(l, limit, "LIMIT")?,
            });
        }
    }
    if let Some(with) = with {
        let recursive = with.recursive;
        let ctes = with
            .cte_tables
            .into_iter()
            .map(|cte| {
                let name = ident_name(&cte.alias.name);
                let columns: Vec<String> = cte
                    .alias
                    .columns
                    .iter()
                    .map(|c| ident_name(&c.name))
                    .collect();
                let named = |body: Plan| match columns.is_empty() {
                    true => body,
                    false => Plan::new(PlanNode::ToDf {
                        input: Box::new(body),
                        names: columns.clone(),
                    }),
                };
                // `WITH RECURSIVE r AS (anchor UNION [ALL] step)`: the step may read `r`
                // (the resolver makes it an ordinary union when it does not).
                if recursive
                    && let ast::Query {
                        with: None,
                        order_by: None,
                        limit_clause: None,
                        fetch: None,
                        ..
                    } = cte.query.as_ref()
                    && let SetExpr::SetOperation {
                        op: SetOperator::Union,
                        set_quantifier:
                            quantifier @ (SetQuantifier::All
                            | SetQuantifier::Distinct
                            | SetQuantifier::None),
                        ..
                    } = cte.query.body.as_ref()
                {
                    let all = *quantifier == SetQuantifier::All;
                    let SetExpr::SetOperation { left, right, .. } = *cte.query.body else {
                        return unsupported("WITH RECURSIVE of this body");
                    };
                    let body = PlanNode::RecursiveCte {
                        name: name.clone(),
                        anchor: Box::new(named(lower_set_expr(l, *left)?)),
                        recursive: Some(Box::new(lower_set_expr(l, *right)?)),
                        all,
                    };
                    return Ok((name, Plan::new(body)));
                }
                let body = named(lower_query(l, *cte.query)?);
                if recursive {
                    let body = PlanNode::RecursiveCte {
                        name: name.clone(),
                        anchor: Box::new(body),
                        recursive: None,
                        all: true,
                    };
                    return Ok((name, Plan::new(body)));
                }
                Ok((name, body))
            })
            .collect::<PlanResult<Vec<_>>>()?;
        plan = Plan::new(PlanNode::With {
            ctes,
            body: Box::new(plan),
        });
    }
    Ok(plan)
}

/// An integer constant of literals and `+`, `-`, `*`, `div`, `%` and negation (`LIMIT 1 + 1`:
/// Spark folds a LIMIT's constant expression).
fn folded_integer(e: &Expr) -> Option<i64> {
    let integer = |v: &ScalarValue| match v {
        ScalarValue::Int8(Some(n)) => Some(i64::from(*n)),
        ScalarValue::Int16(Some(n)) => Some(i64::from(*n)),
        ScalarValue::Int32(Some(n)) => Some(i64::from(*n)),
        ScalarValue::Int64(Some(n)) => Some(*n),
        _ => None,
    };
    match e {
        Expr::Literal(v) => integer(v),
        Expr::Function(call) if call.is_operator || call.name == "div" => {
            let args: Option<Vec<i64>> = call.args.iter().map(folded_integer).collect();
            match (call.name.as_str(), args?.as_slice()) {
                ("negative", [a]) => a.checked_neg(),
                ("+", [a, b]) => a.checked_add(*b),
                ("-", [a, b]) => a.checked_sub(*b),
                ("*", [a, b]) => a.checked_mul(*b),
                ("div", [a, b]) => a.checked_div(*b),
                ("%", [a, b]) => a.checked_rem(*b),
                _ => None,
            }
        }
        _ => None,
    }
}

fn constant_usize(l: &Lowering, e: ast::Expr, what: &str) -> PlanResult<usize> {
    let lowered = lower(l, e)?;
    let lowered = match folded_integer(&lowered) {
        Some(n) if !matches!(lowered, Expr::Literal(_)) => {
            Expr::Literal(ScalarValue::Int64(Some(n)))
        }
        _ => lowered,
    };
    match lowered {
        Expr::Literal(v) => match v {
            ScalarValue::Int8(Some(n)) if n >= 0 => Ok(n as usize),
            ScalarValue::Int16(Some(n)) if n >= 0 => Ok(n as usize),
            ScalarValue::Int32(Some(n)) if n >= 0 => Ok(n as usize),
            ScalarValue::Int64(Some(n)) if n >= 0 => Ok(n as usize),
            other => Err(crate::error::SparkError::analysis(
                "INVALID_LIMIT_LIKE_EXPRESSION.IS_NEGATIVE",
                "42K0E",
                format!(
                    "The {what} expression {other} is invalid: it must be a non-negative integer."
                ),
            )
            .into()),
        },
        other => unsupported(format!("non-literal {what} {other:?}")),
    }
}

fn lower_set_expr(l: &Lowering, body: SetExpr) -> PlanResult<Plan> {
    match body {
        SetExpr::Select(s) => lower_select(l, *s),
        SetExpr::Query(q) => lower_query(l, *q),
        SetExpr::SetOperation {
            left,
            op,
            set_quantifier,
            right,
        } => {
            let kind = match op {
                SetOperator::Union => SetOpKind::Union,
                SetOperator::Intersect => SetOpKind::Intersect,
                SetOperator::Except | SetOperator::Minus => SetOpKind::Except,
            };
            let (all, by_name) = match set_quantifier {
                SetQuantifier::All => (true, false),
                SetQuantifier::Distinct | SetQuantifier::None => (false, false),
                SetQuantifier::ByName | SetQuantifier::DistinctByName => (false, true),
                SetQuantifier::AllByName => (true, true),
            };
            Ok(Plan::new(PlanNode::SetOperation(SetOperation {
                left: Box::new(lower_set_expr(l, *left)?),
                right: Box::new(lower_set_expr(l, *right)?),
                kind,
                all,
                by_name,
                allow_missing_columns: false,
            })))
        }
        SetExpr::Values(v) => lower_values(l, v),
        SetExpr::Table(t) => {
            let name = match (t.schema_name, t.table_name) {
                (Some(s), Some(n)) => vec![s, n],
                (None, Some(n)) => vec![n],
                _ => return unsupported("TABLE without a name"),
            };
            Ok(Plan::new(PlanNode::Table { name }))
        }
        other => unsupported(format!("query body {other}")),
    }
}

fn lower_values(l: &Lowering, v: ast::Values) -> PlanResult<Plan> {
    let rows = v
        .rows
        .into_iter()
        .map(|row| {
            row.content
                .into_iter()
                .map(|e| lower(l, e))
                .collect::<PlanResult<Vec<_>>>()
        })
        .collect::<PlanResult<Vec<_>>>()?;
    Ok(Plan::new(PlanNode::Values { rows }))
}

fn lower_select(l: &Lowering, s: ast::Select) -> PlanResult<Plan> {
    if s.into.is_some() {
        return unsupported("SELECT INTO");
    }
    if s.top.is_some() {
        return unsupported("TOP");
    }
    if s.prewhere.is_some() || !s.connect_by.is_empty() {
        return unsupported("PREWHERE / CONNECT BY");
    }
    let windows: NamedWindows = s
        .named_window
        .into_iter()
        .map(|ast::NamedWindowDefinition(name, expr)| match expr {
            ast::NamedWindowExpr::WindowSpec(spec) => Ok((name.value, spec)),
            ast::NamedWindowExpr::NamedWindow(_) => {
                unsupported("a window defined as another window")
            }
        })
        .collect::<PlanResult<_>>()?;

    // FROM
    let mut plan = if s.from.is_empty() {
        Plan::new(PlanNode::OneRow)
    } else {
        let mut relations = s.from.into_iter();
        let first = relations
            .next()
            .ok_or_else(|| PlanError::InvalidPlan("empty FROM".into()))?;
        let mut plan = lower_table_with_joins(l, first)?;
        for r in relations {
            let lateral = is_lateral(&r.relation);
            plan = Plan::new(PlanNode::Join(Join {
                left: Box::new(plan),
                right: Box::new(lower_table_with_joins(l, r)?),
                join_type: JoinType::Cross,
                condition: None,
                using: vec![],
                natural: false,
                lateral,
            }));
        }
        plan
    };
    for view in s.lateral_views {
        let generator = match lower_with_windows(l, view.lateral_view, &windows)? {
            crate::spec::Expr::Function(call) => call,
            other => {
                return unsupported(format!("LATERAL VIEW of {other:?}"));
            }
        };
        let alias = object_name_parts(&view.lateral_view_name)?.pop();
        plan = Plan::new(PlanNode::Generate {
            input: Box::new(plan),
            generator,
            outer: view.outer,
            alias,
            columns: view
                .lateral_col_alias
                .iter()
                .map(|i| i.value.clone())
                .collect(),
        });
    }
    // WHERE
    if let Some(selection) = s.selection {
        plan = Plan::new(PlanNode::Filter {
            input: Box::new(plan),
            condition: lower_with_windows(l, selection, &windows)?,
        });
    }
    // SELECT list
    let mut exprs = Vec::with_capacity(s.projection.len());
    for item in s.projection {
        exprs.push(match item {
            SelectItem::UnnamedExpr(e) => lower_with_windows(l, e, &windows)?,
            SelectItem::ExprWithAlias { expr, alias } => {
                lower_with_windows(l, expr, &windows)?.alias(&alias.value)
            }
            SelectItem::ExprWithAliases { expr, aliases } => Expr::Alias {
                expr: Box::new(lower_with_windows(l, expr, &windows)?),
                names: aliases.into_iter().map(|a| a.value).collect(),
                metadata: None,
            },
            SelectItem::Wildcard(opts) => star(None, opts)?,
            SelectItem::QualifiedWildcard(kind, opts) => match kind {
                ast::SelectItemQualifiedWildcardKind::ObjectName(n) => {
                    star(Some(object_name_parts(&n)?), opts)?
                }
                ast::SelectItemQualifiedWildcardKind::Expr(e) => {
                    return unsupported(format!("wildcard on expression {e}"));
                }
            },
        });
    }
    // GROUP BY / HAVING
    let having = s
        .having
        .map(|h| lower_with_windows(l, h, &windows))
        .transpose()?;
    let (grouping, group_type, grouping_sets, group_all) = match s.group_by {
        GroupByExpr::All(mods) => {
            if !mods.is_empty() {
                return unsupported("GROUP BY ALL with modifiers");
            }
            (vec![], GroupType::GroupBy, vec![], true)
        }
        GroupByExpr::Expressions(exprs, mods) => {
            let mut group_type = GroupType::GroupBy;
            for m in &mods {
                group_type = match m {
                    ast::GroupByWithModifier::Rollup => GroupType::Rollup,
                    ast::GroupByWithModifier::Cube => GroupType::Cube,
                    other => return unsupported(format!("GROUP BY ... {other}")),
                };
            }
            let mut grouping = Vec::new();
            let mut sets: Vec<Vec<Expr>> = Vec::new();
            for e in exprs {
                match e {
                    ast::Expr::Rollup(groups) | ast::Expr::Cube(groups)
                        if exprs_len_one(&grouping) =>
                    {
                        return unsupported(format!("mixed GROUP BY with ROLLUP/CUBE {groups:?}"));
                    }
                    ast::Expr::Rollup(groups) => {
                        group_type = GroupType::Rollup;
                        for g in groups {
                            grouping.push(group_item(l, g, &windows)?);
                        }
                    }
                    ast::Expr::Cube(groups) => {
                        group_type = GroupType::Cube;
                        for g in groups {
                            grouping.push(group_item(l, g, &windows)?);
                        }
                    }
                    ast::Expr::GroupingSets(gs) => {
                        group_type = GroupType::GroupingSets;
                        for set in gs {
                            sets.push(
                                set.into_iter()
                                    .map(|e| lower_with_windows(l, e, &windows))
                                    .collect::<PlanResult<_>>()?,
                            );
                        }
                    }
                    other => grouping.push(lower_with_windows(l, other, &windows)?),
                }
            }
            (grouping, group_type, sets, false)
        }
    };
    let is_aggregate =
        group_all || !grouping.is_empty() || !grouping_sets.is_empty() || having.is_some();
    plan = if is_aggregate {
        let grouping = if group_all {
            vec![Expr::function("__group_by_all", vec![])]
        } else {
            grouping
        };
        Plan::new(PlanNode::Aggregate(Aggregate {
            input: Box::new(plan),
            group_type,
            grouping,
            aggregates: exprs,
            grouping_sets,
            pivot: None,
            having,
            output_grouping: false,
        }))
    } else {
        Plan::new(PlanNode::Project {
            input: Box::new(plan),
            exprs,
        })
    };
    // QUALIFY
    if let Some(q) = s.qualify {
        plan = Plan::new(PlanNode::Filter {
            input: Box::new(plan),
            condition: lower_with_windows(l, q, &windows)?,
        });
    }
    // DISTINCT
    match s.distinct {
        None | Some(ast::Distinct::All) => {}
        Some(ast::Distinct::Distinct) => {
            plan = Plan::new(PlanNode::Deduplicate {
                input: Box::new(plan),
                columns: vec![],
                all_columns: true,
                sql: true,
            });
        }
        Some(ast::Distinct::On(_)) => return unsupported("DISTINCT ON"),
    }
    // DISTRIBUTE BY / CLUSTER BY / SORT BY
    if !s.distribute_by.is_empty() || !s.cluster_by.is_empty() {
        let exprs = s
            .distribute_by
            .into_iter()
            .chain(s.cluster_by.iter().cloned())
            .map(|e| lower(l, e))
            .collect::<PlanResult<Vec<_>>>()?;
        plan = Plan::new(PlanNode::Repartition {
            input: Box::new(plan),
            num_partitions: None,
            exprs,
            shuffle: true,
        });
    }
    if !s.sort_by.is_empty() || !s.cluster_by.is_empty() {
        let mut order: Vec<SortOrder> = s
            .cluster_by
            .into_iter()
            .map(|e| {
                Ok(SortOrder {
                    expr: lower(l, e)?,
                    ascending: true,
                    nulls_first: None,
                })
            })
            .collect::<PlanResult<_>>()?;
        for o in s.sort_by {
            order.push(order_by_expr(l, o, &windows)?);
        }
        plan = Plan::new(PlanNode::Sort {
            input: Box::new(plan),
            order,
            global: false,
        });
    }
    Ok(plan)
}

fn exprs_len_one(_g: &[Expr]) -> bool {
    false
}

fn group_item(l: &Lowering, g: Vec<ast::Expr>, windows: &NamedWindows) -> PlanResult<Expr> {
    let mut items = g
        .into_iter()
        .map(|e| lower_with_windows(l, e, windows))
        .collect::<PlanResult<Vec<_>>>()?;
    if items.len() == 1 {
        items
            .pop()
            .ok_or_else(|| PlanError::InvalidPlan("group".into()))
    } else {
        Ok(Expr::function("struct", items))
    }
}

/// `*` / `t.*`, with Spark's `EXCEPT (columns)`.
fn star(target: Option<Vec<String>>, mut opts: ast::WildcardAdditionalOptions) -> PlanResult<Expr> {
    let except = opts.opt_except.take();
    reject_wildcard_options(&opts)?;
    Ok(match except {
        Some(e) => Expr::StarExcept {
            target,
            except: std::iter::once(e.first_element)
                .chain(e.additional_elements)
                .map(|i| vec![i.value])
                .collect(),
        },
        None => Expr::Star {
            target,
            plan_id: None,
        },
    })
}

fn reject_wildcard_options(opts: &ast::WildcardAdditionalOptions) -> PlanResult<()> {
    if opts.opt_except.is_some()
        || opts.opt_exclude.is_some()
        || opts.opt_rename.is_some()
        || opts.opt_replace.is_some()
        || opts.opt_ilike.is_some()
    {
        return unsupported("wildcard options (EXCEPT/EXCLUDE/REPLACE)");
    }
    Ok(())
}

fn lower_table_with_joins(l: &Lowering, t: ast::TableWithJoins) -> PlanResult<Plan> {
    let mut plan = lower_table_factor(l, t.relation)?;
    for j in t.joins {
        let lateral = is_lateral(&j.relation);
        let right = lower_table_factor(l, j.relation)?;
        let (join_type, constraint) = match j.join_operator {
            JoinOperator::Join(c) | JoinOperator::Inner(c) => (JoinType::Inner, c),
            JoinOperator::Left(c) | JoinOperator::LeftOuter(c) => (JoinType::LeftOuter, c),
            JoinOperator::Right(c) | JoinOperator::RightOuter(c) => (JoinType::RightOuter, c),
            JoinOperator::FullOuter(c) => (JoinType::FullOuter, c),
            JoinOperator::CrossJoin(c) => (JoinType::Cross, c),
            JoinOperator::Semi(c) | JoinOperator::LeftSemi(c) => (JoinType::LeftSemi, c),
            JoinOperator::Anti(c) | JoinOperator::LeftAnti(c) => (JoinType::LeftAnti, c),
            other => return unsupported(format!("join {other:?}")),
        };
        let constraint_kind = match &constraint {
            JoinConstraint::Natural => Constraint::Natural,
            _ => Constraint::Other,
        };
        let (condition, using) = match constraint {
            JoinConstraint::On(e) => (Some(lower(l, e)?), vec![]),
            JoinConstraint::Using(cols) => (
                None,
                cols.iter()
                    .map(|c| object_name_parts(c).map(|p| p.join(".")))
                    .collect::<PlanResult<_>>()?,
            ),
            JoinConstraint::Natural => (None, vec![]),
            JoinConstraint::None => (None, vec![]),
        };
        let natural = matches!(constraint_kind, Constraint::Natural);
        plan = Plan::new(PlanNode::Join(Join {
            left: Box::new(plan),
            right: Box::new(right),
            join_type,
            condition,
            using,
            natural,
            lateral,
        }));
    }
    Ok(plan)
}

/// `LATERAL (subquery)` or `LATERAL f(...)`: it may reference the columns of the relations
/// before it.
fn is_lateral(t: &TableFactor) -> bool {
    matches!(
        t,
        TableFactor::Derived { lateral: true, .. } | TableFactor::Function { lateral: true, .. }
    )
}

enum Constraint {
    Natural,
    Other,
}

fn with_alias(plan: Plan, alias: Option<ast::TableAlias>) -> Plan {
    match alias {
        Some(a) => Plan::new(PlanNode::SubqueryAlias {
            input: Box::new(plan),
            alias: ident_name(&a.name),
            columns: a.columns.iter().map(|c| ident_name(&c.name)).collect(),
        }),
        None => plan,
    }
}

pub(crate) fn lower_table_factor(l: &Lowering, t: TableFactor) -> PlanResult<Plan> {
    match t {
        TableFactor::Table {
            name,
            alias,
            args,
            sample,
            with_hints,
            version,
            ..
        } => {
            let _ = with_hints;
            let parts = object_name_parts(&name)?;
            if let Some(version) = version {
                let at = time_travel(l, version)?;
                if args.is_some() {
                    return unsupported("time travel of a table function");
                }
                let plan = Plan::new(PlanNode::TimeTravel { name: parts, at });
                return Ok(with_alias(plan, alias));
            }
            let plan = match args {
                Some(args) => {
                    let args = args
                        .args
                        .into_iter()
                        .map(|a| match a {
                            ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(e)) => lower(l, e),
                            other => unsupported(format!("table function argument {other}")),
                        })
                        .collect::<PlanResult<Vec<_>>>()?;
                    Plan::new(PlanNode::TableFunction {
                        name: parts.join("."),
                        args,
                    })
                }
                None => Plan::new(PlanNode::Table { name: parts }),
            };
            let plan = match sample {
                Some(
                    ast::TableSampleKind::BeforeTableAlias(s)
                    | ast::TableSampleKind::AfterTableAlias(s),
                ) => table_sample(l, plan, *s)?,
                None => plan,
            };
            Ok(with_alias(plan, alias))
        }
        // LATERAL makes the join that has this factor on its right lateral.
        TableFactor::Derived {
            subquery, alias, ..
        } => {
            let plan = lower_query(l, *subquery)?;
            Ok(match alias {
                Some(_) => with_alias(plan, alias),
                None => Plan::new(PlanNode::SubqueryAlias {
                    input: Box::new(plan),
                    alias: String::new(),
                    columns: vec![],
                }),
            })
        }
        TableFactor::NestedJoin {
            table_with_joins,
            alias,
        } => Ok(with_alias(
            lower_table_with_joins(l, *table_with_joins)?,
            alias,
        )),
        TableFactor::Function {
            name,
            args,
            alias,
            lateral,
            ..
        } => {
            // (LATERAL makes the join that has this factor on its right lateral.)
            let _ = lateral;
            let args = args
                .into_iter()
                .map(|a| match a {
                    ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(e)) => lower(l, e),
                    other => unsupported(format!("table function argument {other}")),
                })
                .collect::<PlanResult<Vec<_>>>()?;
            let plan = Plan::new(PlanNode::TableFunction {
                name: object_name_parts(&name)?.join("."),
                args,
            });
            Ok(with_alias(plan, alias))
        }
        TableFactor::Pivot {
            table,
            aggregate_functions,
            value_column,
            value_source,
            default_on_null,
            alias,
        } => {
            if default_on_null.is_some() {
                return unsupported("PIVOT ... DEFAULT ON NULL");
            }
            // Several columns pivot as one struct of them, matched field by field against
            // each value's tuple (see `Resolver::resolve_pivot`).
            let column = match value_column.as_slice() {
                [column] => column.clone(),
                [] => return unsupported("PIVOT without a column"),
                columns => ast::Expr::Tuple(columns.to_vec()),
            };
            let values = match value_source {
                ast::PivotValueSource::List(values) => values
                    .into_iter()
                    .map(|v| {
                        let e = lower(l, v.expr)?;
                        Ok(match v.alias {
                            Some(a) => e.alias(&a.value),
                            None => e,
                        })
                    })
                    .collect::<PlanResult<Vec<_>>>()?,
                _ => return unsupported("PIVOT without a list of values"),
            };
            let aggregates = aggregate_functions
                .into_iter()
                .map(|a| {
                    let e = lower(l, a.expr)?;
                    Ok(match a.alias {
                        Some(alias) => e.alias(&alias.value),
                        None => e,
                    })
                })
                .collect::<PlanResult<Vec<_>>>()?;
            let plan = Plan::new(PlanNode::Aggregate(Aggregate {
                input: Box::new(lower_table_factor(l, *table)?),
                group_type: GroupType::Pivot,
                // The columns PIVOT does not use group the rows (see `Aggregate::pivot`).
                grouping: vec![],
                aggregates,
                grouping_sets: vec![],
                pivot: Some((lower(l, column)?, values)),
                having: None,
                output_grouping: false,
            }));
            Ok(with_alias(plan, alias))
        }
        TableFactor::Unpivot {
            table,
            value,
            name,
            columns,
            null_inclusion,
            alias,
        } => {
            let ast::Expr::Identifier(value) = value else {
                return unsupported("UNPIVOT into several value columns");
            };
            let values = columns
                .into_iter()
                .map(|c| Ok((lower(l, c.expr)?, c.alias.map(|a| a.value))))
                .collect::<PlanResult<Vec<_>>>()?;
            let plan = Plan::new(PlanNode::Unpivot {
                input: Box::new(lower_table_factor(l, *table)?),
                ids: None,
                values: Some(values),
                variable_column: name.value,
                value_column: value.value,
                include_nulls: matches!(null_inclusion, Some(ast::NullInclusion::IncludeNulls)),
            });
            Ok(with_alias(plan, alias))
        }
        other => unsupported(format!("FROM clause item {other}")),
    }
}
