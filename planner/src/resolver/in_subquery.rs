//! `expr [NOT] IN (subquery)`, including Spark's several-column form: a struct built in place
//! (`struct(a, b)`, SQL's `(a, b)`, `struct(df.a, df.b).isin(df2)`) stands for its fields,
//! compared with the subquery's columns one by one (`IN_SUBQUERY_LENGTH_MISMATCH` when the
//! counts differ). DataFusion compares one value: both sides become structs of the same
//! type. Struct equality treats NULL fields as values, which Spark's `a = x AND b = y` does
//! not; where a field may be NULL the rows are compared as NULL when any field is (the same
//! rows pass a filter, but NOT IN and IN's value outside a filter differ), so that form is
//! taken only for `IN` as a conjunct of a filter's condition.

use std::sync::Arc;

use datafusion::common::tree_node::{Transformed, TreeNode};
use datafusion::common::{Column, DFSchema, ScalarValue};
use datafusion::logical_expr::expr::{Case, Exists, InSubquery};
use datafusion::logical_expr::type_coercion::binary::comparison_coercion;
use datafusion::logical_expr::utils::{conjunction, split_conjunction_owned};
use datafusion::logical_expr::{
    Expr, ExprSchemable, LogicalPlanBuilder, Subquery, cast, lit, when,
};

use super::Resolver;
use super::names::Named;
use crate::error::{PlanError, PlanResult, SparkError};
use crate::spec::{Expr as SExpr, Plan};

/// The top-level conjuncts of `condition` that are `IN (subquery)` (by address), which a
/// filter may compare as NULL when a field is.
pub(crate) fn filter_conjuncts(condition: &SExpr, out: &mut Vec<usize>) {
    match condition {
        SExpr::Function(f) if f.name.eq_ignore_ascii_case("and") && f.args.len() == 2 => {
            for a in &f.args {
                filter_conjuncts(a, out);
            }
        }
        SExpr::InSubquery { negated: false, .. } => out.push(condition as *const SExpr as usize),
        _ => {}
    }
}

/// `expr` as a subquery sees it: its columns of the outer query become outer references,
/// added to `refs`.
pub(crate) fn as_outer_value(
    expr: &Expr,
    outer: &DFSchema,
    refs: &mut Vec<Expr>,
) -> datafusion::common::Result<Expr> {
    Ok(expr
        .clone()
        .transform_up(|x| match x {
            Expr::Column(c) => {
                let f = outer.qualified_field_from_column(&c)?.1.clone();
                let r = Expr::OuterReferenceColumn(f, c);
                if !refs.contains(&r) {
                    refs.push(r.clone());
                }
                Ok(Transformed::yes(r))
            }
            other => Ok(Transformed::no(other)),
        })?
        .data)
}

/// A filter's condition with each `x NOT IN (subquery)` that DataFusion would answer
/// differently from Spark rewritten: a correlated one (its null-aware anti join takes a single
/// key and fails) and one that is not a conjunct of its own (under OR or NOT its mark join
/// takes "no row equals x" for FALSE where Spark has NULL: `x NOT IN (...) OR p` passed rows
/// with a NULL `x`), and likewise `NOT (x IN (subquery))`. Each becomes Spark's three-valued
/// `x IN (subquery)`, negated, of EXISTS subqueries (decorrelated as mark joins):
/// `CASE WHEN EXISTS(a row = x) THEN TRUE WHEN EXISTS(a NULL row) OR (x IS NULL AND
/// EXISTS(a row)) THEN NULL ELSE FALSE END`. An uncorrelated NOT IN conjunct of a column stays
/// (a null-aware anti join); one of a constant is rewritten too (its anti join has no key and
/// kept every row when the subquery had a NULL, or the constant was NULL: DataFusion issues
/// 25340, 25473).
pub(crate) fn spark_not_in(condition: Expr, outer: &DFSchema) -> PlanResult<Expr> {
    if !condition.exists(|e| Ok(matches!(e, Expr::InSubquery(_))))? {
        return Ok(condition);
    }
    let conjuncts = split_conjunction_owned(condition)
        .into_iter()
        .map(|c| match c {
            Expr::InSubquery(InSubquery {
                negated: true,
                ref subquery,
                ref expr,
            }) if subquery.outer_ref_columns.is_empty() && !expr.column_refs().is_empty() => Ok(c),
            other => negated_in_as_exists(other, outer),
        })
        .collect::<PlanResult<Vec<_>>>()?;
    Ok(conjunction(conjuncts).unwrap_or(lit(true)))
}

fn negated_in_as_exists(e: Expr, outer: &DFSchema) -> PlanResult<Expr> {
    use datafusion::logical_expr::{BinaryExpr, Operator};
    let is_false = |e: &Expr| matches!(e, Expr::Literal(ScalarValue::Boolean(Some(false)), _));
    Ok(e.transform_up(|e| match e {
        // `(x IN (...)) = false`, which DataFusion simplifies to NOT.
        Expr::BinaryExpr(BinaryExpr {
            left,
            op: Operator::Eq,
            right,
        }) if is_false(&right) => match *left {
            Expr::InSubquery(InSubquery {
                expr,
                subquery,
                negated,
            }) => {
                let value = three_valued_in(&expr, &subquery, outer)?;
                Ok(Transformed::yes(if negated { value } else { !value }))
            }
            left => Ok(Transformed::no(Expr::BinaryExpr(BinaryExpr {
                left: Box::new(left),
                op: Operator::Eq,
                right,
            }))),
        },
        Expr::InSubquery(InSubquery {
            expr,
            subquery,
            negated: true,
        }) => Ok(Transformed::yes(!three_valued_in(&expr, &subquery, outer)?)),
        Expr::Not(inner) => match *inner {
            Expr::InSubquery(InSubquery {
                expr,
                subquery,
                negated: false,
            }) => Ok(Transformed::yes(!three_valued_in(&expr, &subquery, outer)?)),
            other => Ok(Transformed::no(Expr::Not(Box::new(other)))),
        },
        other => Ok(Transformed::no(other)),
    })?
    .data)
}

/// Spark's `value IN (subquery)`: TRUE when a row equals it, else NULL when a row is NULL or
/// the value is NULL (and there are rows), else FALSE.
fn three_valued_in(
    value: &Expr,
    subquery: &Subquery,
    outer: &DFSchema,
) -> datafusion::common::Result<Expr> {
    let plan = subquery.subquery.as_ref();
    let column = Expr::Column(Column::from(plan.schema().qualified_field(0)));
    let exists = |condition: Option<Expr>, refs: Vec<Expr>| -> datafusion::common::Result<Expr> {
        let mut b = LogicalPlanBuilder::from(plan.clone());
        if let Some(c) = condition {
            b = b.filter(c)?;
        }
        Ok(Expr::Exists(Exists::new(
            Subquery {
                subquery: Arc::new(b.build()?),
                outer_ref_columns: refs,
                spans: Default::default(),
            },
            false,
        )))
    };
    let refs = subquery.outer_ref_columns.clone();
    let mut match_refs = refs.clone();
    let outer_value = as_outer_value(value, outer, &mut match_refs)?;
    let found = exists(Some(column.clone().eq(outer_value)), match_refs)?;
    let null_row = exists(Some(column.is_null()), refs.clone())?;
    let any_row = exists(None, refs)?;
    when(found, lit(true))
        .when(
            null_row.or(value.clone().is_null().and(any_row)),
            lit(ScalarValue::Boolean(None)),
        )
        .otherwise(lit(false))
}

impl Resolver<'_> {
    pub(crate) fn resolve_in_subquery(
        &mut self,
        whole: &SExpr,
        expr: &SExpr,
        plan: &Plan,
        negated: bool,
        schema: &DFSchema,
    ) -> PlanResult<Named> {
        let (value, value_name) = self.resolve_expr(expr, schema)?;
        let (subquery, outer_refs) = self.resolve_subquery(plan, schema)?;
        let name = format!("({value_name} IN (listquery()))");
        let name = if negated {
            format!("(NOT {name})")
        } else {
            name
        };
        let fields = match expr {
            SExpr::Function(f) if f.name.eq_ignore_ascii_case("struct") && !f.is_operator => {
                Some(f.args.len())
            }
            _ => None,
        };
        let (value, subquery) = match fields {
            None if subquery.schema().fields().len() != 1 => {
                let right = self.output_names(subquery.schema());
                return Err(length_mismatch(&name, &[value_name], &right));
            }
            None if outer_refs.is_empty() && subquery.schema().qualified_field(0).0.is_none() => {
                // An uncorrelated subquery's column qualified: DataFusion's mark join (IN under
                // OR) resolves an unqualified column as both the subquery's and its alias's and
                // fails on the duplicate (TPC-DS q45). (Correlated subqueries keep theirs: the
                // pulled-up conditions name the unqualified columns.)
                let aliased = LogicalPlanBuilder::from(subquery)
                    .alias("__in_subquery")?
                    .build()?;
                (value, aliased)
            }
            None if subquery.schema().qualified_field(0).0.is_none() => {
                // A correlated one's column renamed in a projection of its own (an alias
                // above it would stop the pulled-up conditions, which name the unqualified
                // columns below): DataFusion's mark join reads the columns of the subquery's
                // first output expression, and a column of the same name as the output is
                // taken twice.
                let (_, field) = subquery.schema().qualified_field(0);
                let column =
                    Expr::Column(datafusion::common::Column::new_unqualified(field.name()))
                        .alias("__in_value");
                let renamed = LogicalPlanBuilder::from(subquery)
                    .project(vec![column])?
                    .build()?;
                (value, renamed)
            }
            None => (value, subquery),
            Some(n) if n != subquery.schema().fields().len() => {
                let left = match value.get_type(schema)? {
                    arrow::datatypes::DataType::Struct(fs) => {
                        fs.iter().map(|f| f.name().clone()).collect::<Vec<_>>()
                    }
                    _ => vec![],
                };
                let right = self.output_names(subquery.schema());
                return Err(length_mismatch(&name, &left, &right));
            }
            Some(_) => {
                let arrow::datatypes::DataType::Struct(left) = value.get_type(schema)? else {
                    return Err(PlanError::InvalidPlan("IN of a struct".into()));
                };
                let sub_schema = subquery.schema().clone();
                let mut lhs = Vec::new();
                let mut rhs = Vec::new();
                let mut nullable = false;
                for (i, (l, (q, r))) in left.iter().zip(sub_schema.iter()).enumerate() {
                    let want =
                        comparison_coercion(l.data_type(), r.data_type()).ok_or_else(|| {
                            PlanError::Unsupported(format!(
                                "IN subquery comparing {} with {}",
                                l.data_type(),
                                r.data_type()
                            ))
                        })?;
                    nullable |= l.is_nullable() || r.is_nullable();
                    let field = datafusion::functions::core::expr_fn::get_field(
                        value.clone(),
                        l.name().as_str(),
                    );
                    let column = Expr::Column(datafusion::common::Column::from((q, r)));
                    lhs.push((format!("c{i}"), cast(field, want.clone())));
                    rhs.push((format!("c{i}"), cast(column, want)));
                }
                let conjunct = self
                    .filter_in_subqueries
                    .contains(&(whole as *const SExpr as usize));
                if nullable && (negated || !conjunct) {
                    return Err(PlanError::Unsupported(format!(
                        "{name} of several columns that may be NULL outside a filter's IN"
                    )));
                }
                let projected = LogicalPlanBuilder::from(subquery)
                    .project(vec![masked_struct(&rhs)?.alias("value")])?
                    .build()?;
                (masked_struct(&lhs)?, projected)
            }
        };
        let sub = Subquery {
            subquery: Arc::new(subquery),
            outer_ref_columns: outer_refs,
            spans: Default::default(),
        };
        let e = Expr::InSubquery(InSubquery::new(Box::new(value), sub, negated));
        Ok((e, name))
    }
}

/// Spark's error for an IN whose sides have different numbers of columns.
fn length_mismatch(name: &str, left: &[String], right: &[String]) -> PlanError {
    let quoted = |v: &[String]| {
        v.iter()
            .map(|n| format!("\"{n}\""))
            .collect::<Vec<_>>()
            .join(", ")
    };
    SparkError::analysis(
        "DATATYPE_MISMATCH.IN_SUBQUERY_LENGTH_MISMATCH",
        "42K09",
        format!(
            "Cannot resolve \"{name}\" due to data type mismatch: The number of columns in the left hand side of an IN subquery does not match the number of columns in the output of subquery. Left hand side columns(length: {}): [{}], right hand side columns(length: {}): [{}].",
            left.len(),
            quoted(left),
            right.len(),
            quoted(right)
        ),
    )
    .into()
}

/// `named_struct(name, value, ...)`, NULL where any value is.
fn masked_struct(values: &[(String, Expr)]) -> PlanResult<Expr> {
    let mut args = Vec::new();
    for (n, v) in values {
        args.push(lit(n.as_str()));
        args.push(v.clone());
    }
    let built = crate::functions::df_udf("named_struct")?.call(args);
    let any_null = values
        .iter()
        .map(|(_, v)| v.clone().is_null())
        .reduce(Expr::or);
    Ok(match any_null {
        None => built,
        Some(c) => Expr::Case(Case::new(
            None,
            vec![(
                Box::new(c),
                Box::new(lit(datafusion::common::ScalarValue::Null)),
            )],
            Some(Box::new(built)),
        )),
    })
}
