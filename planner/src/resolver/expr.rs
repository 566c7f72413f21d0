//! Expression resolution: spec expressions -> DataFusion expressions, with Spark's column names.

use std::sync::Arc;

use arrow::datatypes::DataType;
use datafusion::common::{DFSchema, ScalarValue};
use datafusion::logical_expr::expr::{Case, InList, Sort};
use datafusion::logical_expr::{Between, Expr, ExprSchemable, Subquery, lit};

use super::Resolver;
use super::names::Named;
use crate::error::{PlanError, PlanResult, SparkError};
use crate::functions::nullability::CastNulls;
use crate::spec::{self, CastMode, Expr as SExpr};
use crate::{literal, types};

impl Resolver<'_> {
    pub(crate) fn resolve_expr(&mut self, e: &SExpr, schema: &DFSchema) -> PlanResult<Named> {
        match e {
            SExpr::Literal(v) => Ok((lit(self.literal_in_zone(v.clone())), literal::display(v))),
            SExpr::Attribute { name, plan_id } => match self.lambda_variable(name) {
                Some(variable) => Ok(variable),
                // `acc.field` of a struct lambda variable.
                None if name.len() > 1 && self.lambda_variable(&name[..1]).is_some() => {
                    let field = name[1..].iter().fold(
                        SExpr::LambdaVariable(name[..1].to_vec()),
                        |child, part| SExpr::ExtractValue {
                            child: Box::new(child),
                            extraction: Box::new(SExpr::Literal(ScalarValue::Utf8(Some(
                                part.clone(),
                            )))),
                        },
                    );
                    self.resolve_expr(&field, schema)
                }
                None => {
                    let (e, shown) = self.resolve_attribute(name, *plan_id, schema)?;
                    match &e {
                        Expr::Column(c) if self.lateral_aliases.contains(&c.name) => {
                            Ok((e, format!("lateralAliasReference({shown})")))
                        }
                        _ => Ok((e, shown)),
                    }
                }
            },
            SExpr::Star { .. } | SExpr::StarExcept { .. } | SExpr::Regex { .. } => {
                Err(SparkError::analysis(
                    "INVALID_USAGE_OF_STAR_OR_REGEX",
                    "42000",
                    "Invalid usage of '*' or regex in this expression.",
                )
                .into())
            }
            SExpr::Function(call) => self.resolve_function(call, schema),
            SExpr::PythonUdf(call) => self.resolve_python_udf(call, schema),
            SExpr::Alias {
                expr,
                names,
                metadata,
            } => {
                let (resolved, _) = self.resolve_expr(expr, schema)?;
                match names.as_slice() {
                    // `alias(name, metadata=...)`/`withMetadata`: Spark's column metadata (a
                    // JSON object) rides in the field's metadata.
                    [name] if metadata.as_deref().is_some_and(|m| !m.is_empty()) => {
                        let json = metadata.clone().unwrap_or_default();
                        let field_metadata = datafusion::common::metadata::FieldMetadata::from(
                            std::collections::BTreeMap::from([(
                                types::SPARK_METADATA_KEY.to_string(),
                                json,
                            )]),
                        );
                        Ok((
                            resolved.alias_with_metadata(name.clone(), Some(field_metadata)),
                            name.clone(),
                        ))
                    }
                    [name] => Ok((resolved, name.clone())),
                    _ => Err(PlanError::Unsupported(
                        "multi-name alias outside a generator".into(),
                    )),
                }
            }
            SExpr::Cast {
                expr,
                to,
                mode,
                type_name,
            } => {
                let (inner, inner_name) = self.resolve_expr(expr, schema)?;
                let inner_name = self.argument_name(expr, inner_name, schema);
                // (Spark names a cast of a VARIANT to a nested type after the variant.)
                let from_variant = types::is_variant(&inner.get_type(schema)?);
                let try_mode = matches!(mode, CastMode::Try)
                    || (matches!(mode, CastMode::Default | CastMode::Legacy) && !self.config.ansi);
                let nulls = match mode {
                    CastMode::Try => CastNulls::Try,
                    _ if try_mode => CastNulls::Legacy,
                    _ => CastNulls::Fails,
                };
                let from = inner.get_type(schema)?;
                let inner_nullable = inner.nullable(schema)?;
                let shown = format!("CAST({inner_name} AS {type_name})");
                if let Some(null) = self.check_cast(&inner, to, *mode, &shown, schema)? {
                    return Ok((null, shown));
                }
                let out = match self.interval_cast(&inner, to, type_name, try_mode, schema)? {
                    Some(out) => out,
                    None => {
                        let out = self.cast_to(inner, to, *mode, schema)?;
                        self.cast_interval_fields(out, to, type_name, schema)?
                    }
                };
                let out =
                    crate::functions::nullability::cast(out, &from, inner_nullable, nulls, schema)?;
                // (At the top of a select list a cast of a column keeps the column's name,
                // see `resolve_items`; so does a cast of a column to a nested type, as
                // Spark names them.)
                let nested = matches!(
                    to,
                    DataType::List(_) | DataType::Struct(_) | DataType::Map(..)
                );
                let named_child = matches!(
                    &**expr,
                    SExpr::Attribute { .. } | SExpr::ExtractValue { .. }
                );
                let name = if nested && (named_child || from_variant) {
                    inner_name
                } else if matches!(mode, CastMode::Try) {
                    format!("TRY_CAST({inner_name} AS {type_name})")
                } else {
                    format!("CAST({inner_name} AS {type_name})")
                };
                Ok((out, name))
            }
            SExpr::Case {
                operand,
                branches,
                otherwise,
            } => {
                let operand = match operand {
                    Some(o) => Some(self.resolve_expr(o, schema)?),
                    None => None,
                };
                let mut whens = Vec::with_capacity(branches.len());
                let mut values = Vec::with_capacity(branches.len() + 1);
                // Spark shows `CASE x WHEN v ...` as `CASE WHEN (x = v) ...`.
                let mut name = String::from("CASE");
                for (w, t) in branches {
                    let (w, wn) = self.resolve_expr(w, schema)?;
                    // A condition must be a BOOLEAN (or NULL), as Spark's analyzer checks.
                    let condition_type = w.get_type(schema)?;
                    if operand.is_none()
                        && !matches!(condition_type, DataType::Boolean | DataType::Null)
                    {
                        return Err(SparkError::analysis(
                            "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
                            "42K09",
                            format!(
                                "Cannot resolve \"CASE WHEN {wn} ...\" due to data type mismatch: the WHEN expressions in CaseWhen should all be boolean type, however \"{wn}\" has the type \"{}\".",
                                types::sql_name(&condition_type)
                            ),
                        )
                        .into());
                    }
                    let (t, tn) = self.resolve_expr(t, schema)?;
                    match &operand {
                        Some((_, on)) => name.push_str(&format!(" WHEN ({on} = {wn}) THEN {tn}")),
                        None => name.push_str(&format!(" WHEN {wn} THEN {tn}")),
                    }
                    whens.push(w);
                    values.push(t);
                }
                if let Some(o) = otherwise {
                    let (o, on) = self.resolve_expr(o, schema)?;
                    name.push_str(&format!(" ELSE {on}"));
                    values.push(o);
                }
                // The branches' values share Spark's common type.
                let mut types = values
                    .iter()
                    .map(|v| v.get_type(schema))
                    .collect::<Result<Vec<_>, _>>()?;
                super::coercion::check_same_type(
                    "casewhen",
                    0,
                    &format!("{name} END"),
                    &types,
                    self.config.ansi,
                )?;
                self.coerce_together(&mut values, &mut types, schema)?;
                // (Nested fields nullable where they are in any branch, as Spark merges them.)
                crate::functions::nested_nullability::merge_values(&mut values, &mut types);
                let value_fields = values
                    .iter()
                    .map(|v| v.to_field(schema).map(|(_, f)| f))
                    .collect::<Result<Vec<_>, _>>()?;
                let interval = super::intervals::call_interval("coalesce", &value_fields);
                let otherwise = match otherwise {
                    Some(_) => values.pop().map(Box::new),
                    None => None,
                };
                let when_then = whens
                    .into_iter()
                    .zip(values)
                    .map(|(w, t)| (Box::new(w), Box::new(t)))
                    .collect();
                name.push_str(" END");
                let case = crate::functions::nullability::case(
                    Expr::Case(Case::new(
                        operand.map(|(o, _)| Box::new(o)),
                        when_then,
                        otherwise,
                    )),
                    schema,
                )?;
                Ok(match (interval, types.first()) {
                    (Some(q), Some(dt)) => (super::intervals::retype_interval(case, dt, q), name),
                    _ => (case, name),
                })
            }
            SExpr::SortOrder(_) => Err(SparkError::analysis(
                "INVALID_SORT_ORDER",
                "42000",
                "A sort order can only be used to sort.",
            )
            .into()),
            SExpr::Window(w) => self.resolve_window(w, schema),
            SExpr::ExtractValue { child, extraction } => {
                let (base, base_name) = self.resolve_expr(child, schema)?;
                let (key, key_name) = self.resolve_expr(extraction, schema)?;
                let dt = base.get_type(schema)?;
                match &dt {
                    DataType::Struct(_) => {
                        let Expr::Literal(ScalarValue::Utf8(Some(field)), _) = &key else {
                            return Err(PlanError::Unsupported("struct field access with a non-literal name".into()));
                        };
                        Ok((self.struct_field(base, &dt, field, schema)?, format!("{base_name}.{field}")))
                    }
                    DataType::List(_) | DataType::LargeList(_) | DataType::FixedSizeList(..) => {
                        let udf = crate::functions::udf::ArrayIndex::udf(false, self.config.ansi);
                        let item = crate::functions::nullability::array_item(
                            udf.call(vec![base.clone(), key.clone()]),
                            &base,
                            &key,
                            false,
                            self.config.ansi,
                            schema,
                        )?;
                        Ok((item, format!("{base_name}[{key_name}]")))
                    }
                    DataType::Map(..) => Ok((
                        datafusion::functions::core::get_field().call(vec![base, key]),
                        format!("{base_name}[{key_name}]"),
                    )),
                    other => Err(SparkError::analysis(
                        "INVALID_EXTRACT_BASE_FIELD_TYPE",
                        "42000",
                        format!(
                            "Can't extract a value from {base_name}. Need a complex type [STRUCT, ARRAY, MAP] but got \"{}\".",
                            types::sql_name(other)
                        ),
                    )
                    .into()),
                }
            }
            SExpr::UpdateFields { expr, field, value } => {
                let (base, base_name) = self.resolve_expr(expr, schema)?;
                let value = match value {
                    Some(v) => Some(self.resolve_expr(v, schema)?),
                    None => None,
                };
                let dt = base.get_type(schema)?;
                let updated = self.update_fields(
                    base.clone(),
                    &dt,
                    field,
                    value.as_ref().map(|(e, _)| e.clone()),
                )?;
                let name = self.update_fields_name(
                    matches!(expr.as_ref(), SExpr::UpdateFields { .. }),
                    base_name,
                    field,
                    value.as_ref().map(|(_, n)| n.as_str()),
                );
                // withField/dropFields of a NULL struct is NULL.
                let value_nullable = match &value {
                    Some((v, _)) => v.nullable(schema)?,
                    None => false,
                };
                let masked = crate::functions::null_if_null(base.clone(), updated);
                let have = masked.get_type(schema)?;
                let nullable = base.nullable(schema)?;
                let want = self.updated_type(&have, &dt, field, nullable, value_nullable);
                let typed = crate::functions::nested_nullability::retyped(masked, &have, want);
                Ok((
                    crate::functions::nullability::with_nullability(typed, nullable, schema)?,
                    name,
                ))
            }
            SExpr::LambdaVariable(name) => self.lambda_variable(name).ok_or_else(|| {
                PlanError::InvalidPlan(format!("unknown lambda variable {}", name.join(".")))
            }),
            SExpr::Lambda { .. } => Err(PlanError::Unsupported(
                "lambda functions outside transform, filter, exists and forall".into(),
            )),
            SExpr::NamedArgument { name, .. } => Err(PlanError::Unsupported(format!(
                "named argument {name} here"
            ))),
            SExpr::ScalarSubquery(plan) => {
                let (subquery, outer_refs) = self.resolve_subquery(plan, schema)?;
                if subquery.schema().fields().len() != 1 {
                    return Err(SparkError::analysis(
                        "INVALID_SUBQUERY_EXPRESSION.SCALAR_SUBQUERY_RETURN_MORE_THAN_ONE_OUTPUT_COLUMN",
                        "42823",
                        format!(
                            "Invalid subquery: Scalar subquery must return only one column, but got {}.",
                            subquery.schema().fields().len()
                        ),
                    )
                    .into());
                }
                // (NULL where it has no row: nullable, as Spark's.)
                let scalar = Expr::ScalarSubquery(Subquery {
                    subquery: Arc::new(subquery),
                    outer_ref_columns: outer_refs,
                    spans: Default::default(),
                });
                Ok((
                    crate::functions::nullability::with_nullability(scalar, true, schema)?,
                    "scalarsubquery()".into(),
                ))
            }
            SExpr::Exists { plan, negated } => {
                let (subquery, outer_refs) = self.resolve_subquery(plan, schema)?;
                let sub = Subquery {
                    subquery: Arc::new(subquery),
                    outer_ref_columns: outer_refs,
                    spans: Default::default(),
                };
                let e = Expr::Exists(datafusion::logical_expr::expr::Exists::new(sub, *negated));
                let name = if *negated {
                    "(NOT exists())"
                } else {
                    "exists()"
                };
                Ok((e, name.into()))
            }
            SExpr::InSubquery {
                expr,
                plan,
                negated,
            } => self.resolve_in_subquery(e, expr, plan, *negated, schema),
            SExpr::InList {
                expr,
                list,
                negated,
            } => {
                let (value, value_name) = self.resolve_expr(expr, schema)?;
                let mut items = Vec::with_capacity(list.len());
                let mut names = Vec::with_capacity(list.len());
                for item in list {
                    let (e, n) = self.resolve_expr(item, schema)?;
                    items.push(e);
                    names.push(n);
                }
                let name = format!("({value_name} IN ({}))", names.join(", "));
                let types = std::iter::once(&value)
                    .chain(&items)
                    .map(|e| e.get_type(schema))
                    .collect::<datafusion::common::Result<Vec<_>>>()?;
                crate::functions::comparison::check_in_types(&types, &name)?;
                let mut all = self
                    .dates_as_timestamps(std::iter::once(value).chain(items).collect(), schema)?;
                let items = all.split_off(1);
                let value = all.remove(0);
                let e = Expr::InList(InList::new(Box::new(value), items, *negated));
                Ok((
                    e,
                    if *negated {
                        format!("(NOT {name})")
                    } else {
                        name
                    },
                ))
            }
            SExpr::Between {
                expr,
                low,
                high,
                negated,
            } => {
                let (v, vn) = self.resolve_expr(expr, schema)?;
                let (l, ln) = self.resolve_expr(low, schema)?;
                let (h, hn) = self.resolve_expr(high, schema)?;
                let name = format!("between({vn}, {ln}, {hn})");
                let [v, l, h]: [Expr; 3] = self
                    .dates_as_timestamps(vec![v, l, h], schema)?
                    .try_into()
                    .map_err(|_| PlanError::InvalidPlan("BETWEEN".into()))?;
                let e = Expr::Between(Between::new(
                    Box::new(v),
                    *negated,
                    Box::new(l),
                    Box::new(h),
                ));
                Ok((
                    e,
                    if *negated {
                        format!("(NOT {name})")
                    } else {
                        name
                    },
                ))
            }
            SExpr::Parameter(name) => Err(SparkError::analysis(
                "UNBOUND_SQL_PARAMETER",
                "42P02",
                format!("Found the unbound parameter: {name}."),
            )
            .into()),
        }
    }

    /// Timestamp literals and types carry the session time zone.
    fn literal_in_zone(&self, v: ScalarValue) -> ScalarValue {
        match v {
            ScalarValue::TimestampMicrosecond(t, Some(_)) => ScalarValue::TimestampMicrosecond(
                t,
                Some(Arc::from(self.config.time_zone.as_str())),
            ),
            other => other,
        }
    }

    pub(crate) fn in_session_zone(&self, dt: DataType) -> DataType {
        match dt {
            DataType::Timestamp(unit, Some(_)) => {
                DataType::Timestamp(unit, Some(Arc::from(self.config.time_zone.as_str())))
            }
            other => other,
        }
    }

    pub(super) fn resolve_subquery(
        &mut self,
        plan: &spec::Plan,
        schema: &DFSchema,
    ) -> PlanResult<(datafusion::logical_expr::LogicalPlan, Vec<Expr>)> {
        self.push_outer(Arc::new(schema.clone()));
        let resolved = self.resolve(plan);
        self.pop_outer();
        let resolved = resolved?;
        let outer_refs = collect_outer_refs(&resolved);
        Ok((resolved, outer_refs))
    }

    /// A sort order: `expr ASC NULLS FIRST` by Spark's defaults.
    pub(crate) fn resolve_sort_order(
        &mut self,
        o: &spec::SortOrder,
        schema: &DFSchema,
    ) -> PlanResult<(Sort, String)> {
        let (e, n) = self.resolve_expr(&o.expr, schema)?;
        Ok((Sort::new(e, o.ascending, o.nulls_first()), sort_name(&n, o)))
    }

    /// Operands compared together, DATE values among TIMESTAMP ones read as timestamps (see
    /// `comparison::dates_as_timestamps`).
    fn dates_as_timestamps(
        &self,
        mut exprs: Vec<Expr>,
        schema: &DFSchema,
    ) -> PlanResult<Vec<Expr>> {
        let mut types = exprs
            .iter()
            .map(|e| e.get_type(schema))
            .collect::<datafusion::common::Result<Vec<_>>>()?;
        crate::functions::comparison::dates_as_timestamps(
            &mut exprs,
            &mut types,
            &self.config.time_zone,
        );
        Ok(exprs)
    }
}

pub(crate) fn sort_name(expr_name: &str, o: &spec::SortOrder) -> String {
    format!(
        "{expr_name} {} {}",
        if o.ascending { "ASC" } else { "DESC" },
        if o.nulls_first() {
            "NULLS FIRST"
        } else {
            "NULLS LAST"
        }
    )
}

/// Outer columns a resolved subquery references.
pub(super) fn collect_outer_refs(plan: &datafusion::logical_expr::LogicalPlan) -> Vec<Expr> {
    use datafusion::common::tree_node::{TreeNode, TreeNodeRecursion};
    let mut out = Vec::new();
    let _ = plan.apply_with_subqueries(|p| {
        for e in p.expressions() {
            let _ = e.apply(|x| {
                if let Expr::OuterReferenceColumn(..) = x
                    && !out.contains(x)
                {
                    out.push(x.clone());
                }
                Ok(TreeNodeRecursion::Continue)
            });
        }
        Ok(TreeNodeRecursion::Continue)
    });
    out
}
