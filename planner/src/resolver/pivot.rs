//! `pivot(col, values).agg(...)` and SQL PIVOT: one aggregate per (value, aggregate).

use arrow::datatypes::DataType;
use datafusion::common::ScalarValue;
use datafusion::logical_expr::ExprSchemable;
use datafusion::logical_expr::{Expr, LogicalPlan, LogicalPlanBuilder};

use super::Resolver;
use crate::error::{PlanError, PlanResult, SparkError};
use crate::spec::{self, Expr as SExpr, GroupType};

impl Resolver<'_> {
    /// `pivot(col, values).agg(...)` / SQL PIVOT: one aggregate per (value, aggregate), each
    /// over the rows whose pivot column is that value (`agg(...) FILTER (WHERE col <=> v)`),
    /// named as Spark names them.
    pub(super) fn resolve_pivot(
        &mut self,
        input: LogicalPlan,
        a: &spec::Aggregate,
        column: &SExpr,
        values: &[SExpr],
    ) -> PlanResult<LogicalPlan> {
        let schema = input.schema().clone();
        let values: Vec<(SExpr, String)> = if values.is_empty() {
            self.distinct_values(&input, column)?
        } else {
            values
                .iter()
                .map(|v| match v {
                    SExpr::Alias { expr, names, .. } if names.len() == 1 => {
                        Ok(((**expr).clone(), names[0].clone()))
                    }
                    SExpr::Literal(l) => Ok((v.clone(), pivot_value_name(l))),
                    // A tuple of literals (a pivot on several columns): `{1, a}`.
                    SExpr::Function(call)
                        if call.name == "struct"
                            && call.args.iter().all(|a| matches!(a, SExpr::Literal(_))) =>
                    {
                        let names: Vec<String> = call
                            .args
                            .iter()
                            .filter_map(|a| match a {
                                SExpr::Literal(l) => Some(pivot_value_name(l)),
                                _ => None,
                            })
                            .collect();
                        Ok((v.clone(), format!("{{{}}}", names.join(", "))))
                    }
                    other => Ok((other.clone(), self.resolve_expr(other, &schema)?.1)),
                })
                .collect::<PlanResult<_>>()?
        };
        // Spark aggregates per (group, value) and spreads the results over the value columns
        // (PivotFirst) when every aggregate's type allows it (numbers, booleans): a group
        // without rows for a value is NULL there. Otherwise each aggregate reads only its
        // value's rows, and an empty cell is what the aggregate gives for no rows (`count` 0,
        // `collect_list` []).
        let mut spread = true;
        let named_aggregates: Vec<(spec::FunctionCall, String)> = a
            .aggregates
            .iter()
            .map(|e| {
                // `pivot(...).agg(count("*"))`: Spark expands no star under a DataFrame pivot
                // (SQL's `count(*)` is `count(1)` by then).
                if a.output_grouping && has_star_argument(e) {
                    return Err(SparkError::analysis(
                        "INVALID_USAGE_OF_STAR_OR_REGEX",
                        "42000",
                        "Invalid usage of '*' in Pivot.",
                    )
                    .into());
                }
                let (resolved, name) = self.resolve_expr(e, &schema)?;
                spread &= pivot_first_type(&resolved.get_type(&schema)?);
                match e {
                    SExpr::Function(call) => Ok(((**call).clone(), name)),
                    SExpr::Alias { expr, .. } => match expr.as_ref() {
                        SExpr::Function(call) => Ok(((**call).clone(), name)),
                        _ => Err(PlanError::Unsupported(format!("pivot of {name}"))),
                    },
                    _ => Err(PlanError::Unsupported(format!("pivot of {name}"))),
                }
            })
            .collect::<PlanResult<_>>()?;
        let grouping = if a.grouping.is_empty() && !a.output_grouping {
            // SQL PIVOT: group by the input columns the clause does not use.
            let mut used = std::collections::HashSet::new();
            for e in a.aggregates.iter().chain(std::iter::once(column)) {
                let (resolved, _) = self.resolve_expr(e, &schema)?;
                for c in resolved.column_refs() {
                    used.insert(c.name.clone());
                }
            }
            schema
                .fields()
                .iter()
                .filter(|f| !used.contains(f.name()))
                .map(|f| SExpr::Attribute {
                    name: vec![self.info(f.name()).name],
                    plan_id: None,
                })
                .collect()
        } else {
            a.grouping.clone()
        };
        let single = named_aggregates.len() == 1;
        let mut aggregates = vec![];
        for (value, value_name) in &values {
            let matches = self.pivot_match(column, value, value_name, &schema)?;
            for (call, agg_name) in &named_aggregates {
                let mut filtered = call.clone();
                filtered.filter = Some(match filtered.filter.take() {
                    Some(f) => SExpr::operator("and", vec![f, matches.clone()]),
                    None => matches.clone(),
                });
                let value = if spread {
                    // A group without rows for the value gets NULL, whatever the aggregate.
                    let mut rows = spec::FunctionCall::new(
                        "count",
                        vec![SExpr::Literal(ScalarValue::Int32(Some(1)))],
                    );
                    rows.filter = Some(matches.clone());
                    SExpr::function(
                        "if",
                        vec![
                            SExpr::operator(
                                "==",
                                vec![
                                    SExpr::Function(Box::new(rows)),
                                    SExpr::Literal(ScalarValue::Int64(Some(0))),
                                ],
                            ),
                            SExpr::Literal(ScalarValue::Null),
                            SExpr::Function(Box::new(filtered)),
                        ],
                    )
                } else {
                    SExpr::Function(Box::new(filtered))
                };
                let name = if single {
                    value_name.clone()
                } else {
                    format!("{value_name}_{agg_name}")
                };
                aggregates.push(value.alias(&name));
            }
        }
        let plain = spec::Aggregate {
            input: a.input.clone(),
            group_type: GroupType::GroupBy,
            grouping,
            aggregates,
            grouping_sets: vec![],
            pivot: None,
            having: a.having.clone(),
            output_grouping: true,
        };
        self.aggregate_resolved(input, &plain)
    }

    /// Whether a row's pivot column is `value` (`column <=> value`); a pivot on several
    /// columns (a struct of them) matches a tuple of as many values field by field, and
    /// any other value is Spark's PIVOT_VALUE_DATA_TYPE_MISMATCH.
    fn pivot_match(
        &mut self,
        column: &SExpr,
        value: &SExpr,
        value_name: &str,
        schema: &datafusion::common::DFSchema,
    ) -> PlanResult<SExpr> {
        let fields = |e: &SExpr| match e {
            SExpr::Function(call) if call.name == "struct" => Some(call.args.clone()),
            _ => None,
        };
        let Some(columns) = fields(column) else {
            return Ok(SExpr::operator("<=>", vec![column.clone(), value.clone()]));
        };
        match fields(value) {
            Some(values) if values.len() == columns.len() => Ok(columns
                .into_iter()
                .zip(values)
                .map(|(c, v)| SExpr::operator("<=>", vec![c, v]))
                .reduce(|a, b| SExpr::operator("and", vec![a, b]))
                .unwrap_or(SExpr::Literal(ScalarValue::Boolean(Some(true))))),
            _ => {
                let type_of = |r: &mut Self, e: &SExpr| -> PlanResult<String> {
                    use datafusion::logical_expr::ExprSchemable;
                    let (e, _) = r.resolve_expr(e, schema)?;
                    Ok(crate::types::simple_string(&e.get_type(schema)?))
                };
                let (value_type, column_type) = (type_of(self, value)?, type_of(self, column)?);
                Err(SparkError::analysis(
                    "PIVOT_VALUE_DATA_TYPE_MISMATCH",
                    "42K09",
                    format!(
                        "Invalid pivot value '{value_name}': value data type {value_type} does not match pivot column data type {column_type}."
                    ),
                )
                .into())
            }
        }
    }

    /// The distinct values of the pivot column, in order (Spark runs a job for them too).
    fn distinct_values(
        &mut self,
        input: &LogicalPlan,
        column: &SExpr,
    ) -> PlanResult<Vec<(SExpr, String)>> {
        let (e, _) = self.resolve_expr(column, input.schema())?;
        let plan = LogicalPlanBuilder::from(input.clone())
            .project(vec![e.alias("v")])?
            .distinct()?
            .sort(vec![
                Expr::Column(datafusion::common::Column::from_name("v")).sort(true, true),
            ])?
            .limit(0, Some(10_001))?
            .build()?;
        let batches = self.collect_at_planning(&plan, "pivot without values")?;
        let mut out = vec![];
        for b in &batches {
            for i in 0..b.num_rows() {
                let v = datafusion::common::ScalarValue::try_from_array(b.column(0), i)?;
                let name = pivot_value_name(&v);
                out.push((SExpr::Literal(v), name));
            }
        }
        if out.len() > 10_000 {
            return Err(SparkError::analysis(
                "_LEGACY_ERROR_TEMP_1324",
                "",
                "The pivot column has more than 10000 distinct values, this could indicate an error. If this was intended, set spark.sql.pivotMaxValues to at least the number of distinct values of the pivot column.",
            )
            .into());
        }
        Ok(out)
    }
}

/// How Spark names the column of a pivot value: its text, `null` for NULL.
/// Whether Spark's PivotFirst spreads aggregates of this type (`PivotFirst.supportsDataType`).
/// An aggregate call (aliased or not) with `*` (or a regex) as an argument.
fn has_star_argument(e: &SExpr) -> bool {
    match e {
        SExpr::Alias { expr, .. } => has_star_argument(expr),
        SExpr::Function(call) => call.args.iter().any(|a| {
            matches!(
                a,
                SExpr::Star { .. } | SExpr::StarExcept { .. } | SExpr::Regex { .. }
            )
        }),
        _ => false,
    }
}

fn pivot_first_type(data_type: &DataType) -> bool {
    matches!(
        data_type,
        DataType::Float64
            | DataType::Float32
            | DataType::Int64
            | DataType::Int32
            | DataType::Int16
            | DataType::Int8
            | DataType::Boolean
            | DataType::Decimal128(..)
    )
}

fn pivot_value_name(v: &ScalarValue) -> String {
    if v.is_null() {
        "null".to_string()
    } else {
        crate::literal::display(v)
    }
}
