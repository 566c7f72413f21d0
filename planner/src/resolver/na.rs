//! `df.na.fill`, `df.na.drop` and `df.na.replace` (Spark's `DataFrameNaFunctions`): a value
//! applies to the columns of its kind (numbers to numeric columns, strings to string columns,
//! booleans to boolean columns), cast to the column's type; NaN counts as missing in numeric
//! columns of floating point.

use arrow::datatypes::DataType;
use datafusion::common::{DFSchema, ScalarValue};
use datafusion::logical_expr::{Expr, LogicalPlan, LogicalPlanBuilder, cast, lit, when};

use super::Resolver;
use super::names::Named;
use crate::error::{PlanResult, SparkError};
use crate::spec::Plan;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Number,
    String,
    Boolean,
    Other,
}

fn kind(t: &DataType) -> Kind {
    match t {
        t if t.is_numeric() => Kind::Number,
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => Kind::String,
        DataType::Boolean => Kind::Boolean,
        _ => Kind::Other,
    }
}

fn is_float(t: &DataType) -> bool {
    matches!(t, DataType::Float16 | DataType::Float32 | DataType::Float64)
}

/// `column`, with NaN as NULL for floating point columns.
fn nan_as_null(column: Expr, t: &DataType) -> PlanResult<Expr> {
    if !is_float(t) {
        return Ok(column);
    }
    let null = ScalarValue::try_from(t)?;
    Ok(datafusion::functions::math::expr_fn::nanvl(
        column,
        lit(null),
    ))
}

impl Resolver<'_> {
    /// The internal names of the columns a subset names (all columns when empty).
    fn na_columns(&self, schema: &DFSchema, subset: &[String]) -> PlanResult<Vec<String>> {
        if subset.is_empty() {
            return Ok(schema.fields().iter().map(|f| f.name().clone()).collect());
        }
        let mut out = vec![];
        for name in subset {
            out.extend(self.existing_columns(schema, name)?);
        }
        Ok(out)
    }

    /// Every column of `input`, with `replace` giving the new value of some.
    fn na_project(
        &mut self,
        input: LogicalPlan,
        mut replace: impl FnMut(&str, &DataType, Expr) -> PlanResult<Option<Expr>>,
    ) -> PlanResult<LogicalPlan> {
        let schema = input.schema().clone();
        let mut items: Vec<Named> = Vec::with_capacity(schema.fields().len());
        for f in schema.fields() {
            let column = Self::column(f.name());
            let value = replace(f.name(), f.data_type(), column.clone())?.unwrap_or(column);
            items.push((value, self.info(f.name()).name));
        }
        self.project_items(input, items)
    }

    /// `na.fill`: one value for the columns of its kind (of `cols`, or all), or one value per
    /// column of `cols`.
    pub(crate) fn resolve_fill_na(
        &mut self,
        input: &Plan,
        cols: &[String],
        values: &[ScalarValue],
    ) -> PlanResult<LogicalPlan> {
        let input = self.resolve(input)?;
        let schema = input.schema().clone();
        let targets: Vec<(String, ScalarValue)> = match values {
            [value] => self
                .na_columns(&schema, cols)?
                .into_iter()
                .map(|c| (c, value.clone()))
                .collect(),
            _ if values.len() == cols.len() => {
                let mut out = vec![];
                for (name, value) in cols.iter().zip(values) {
                    for c in self.na_columns(&schema, std::slice::from_ref(name))? {
                        out.push((c, value.clone()));
                    }
                }
                out
            }
            _ => {
                return Err(SparkError::illegal_argument(
                    "INVALID_PARAMETER_VALUE",
                    "na.fill takes one value, or one value per column.",
                )
                .into());
            }
        };
        self.na_project(input, |name, t, column| {
            let Some((_, value)) = targets.iter().rev().find(|(c, _)| c == name) else {
                return Ok(None);
            };
            if kind(t) == Kind::Other || kind(t) != kind(&value.data_type()) {
                return Ok(None);
            }
            // (Spark's cast of the value is nullable where it may fail: 1.5 to an INT.)
            let fill = crate::functions::nullability::cast(
                cast(lit(value.clone()), t.clone()),
                &value.data_type(),
                false,
                crate::functions::nullability::CastNulls::Fails,
                &datafusion::common::DFSchema::empty(),
            )?;
            Ok(Some(datafusion::functions::core::expr_fn::coalesce(vec![
                nan_as_null(column, t)?,
                fill,
            ])))
        })
    }

    /// `na.drop`: rows with fewer than `min_non_nulls` values that are neither NULL nor NaN
    /// among `cols` (default: all of them must be).
    pub(crate) fn resolve_drop_na(
        &mut self,
        input: &Plan,
        cols: &[String],
        min_non_nulls: Option<usize>,
    ) -> PlanResult<LogicalPlan> {
        let input = self.resolve(input)?;
        let schema = input.schema().clone();
        let columns = self.na_columns(&schema, cols)?;
        let needed = min_non_nulls.unwrap_or(columns.len());
        let mut present = Vec::with_capacity(columns.len());
        for c in &columns {
            let t = schema.field_with_unqualified_name(c)?.data_type().clone();
            let value = nan_as_null(Self::column(c), &t)?;
            present.push(when(value.is_not_null(), lit(1i64)).otherwise(lit(0i64))?);
        }
        let count = present
            .into_iter()
            .reduce(|a, b| a + b)
            .unwrap_or_else(|| lit(0i64));
        let plan = LogicalPlanBuilder::from(input)
            .filter(count.gt_eq(lit(needed as i64)))?
            .build()?;
        Ok(plan)
    }

    /// `na.replace`: each old value of a column's kind becomes its new value (NULL allowed).
    pub(crate) fn resolve_replace_na(
        &mut self,
        input: &Plan,
        cols: &[String],
        replacements: &[(ScalarValue, ScalarValue)],
    ) -> PlanResult<LogicalPlan> {
        let input = self.resolve(input)?;
        let schema = input.schema().clone();
        let targets = self.na_columns(&schema, cols)?;
        self.na_project(input, |name, t, column| {
            if !targets.iter().any(|c| c == name) || kind(t) == Kind::Other {
                return Ok(None);
            }
            let mut cases = vec![];
            for (old, new) in replacements {
                if old.is_null() || kind(&old.data_type()) != kind(t) {
                    continue;
                }
                let new = if new.is_null() {
                    lit(ScalarValue::try_from(t)?)
                } else {
                    cast(lit(new.clone()), t.clone())
                };
                // Numbers compare as doubles, as Spark's replacement keys are.
                let condition = if kind(t) == Kind::Number {
                    cast(column.clone(), DataType::Float64)
                        .eq(cast(lit(old.clone()), DataType::Float64))
                } else {
                    column.clone().eq(lit(old.clone()))
                };
                cases.push((condition, new));
            }
            let Some(((first, value), rest)) = cases.split_first() else {
                return Ok(None);
            };
            let mut case = when(first.clone(), value.clone());
            for (condition, value) in rest {
                case = case.when(condition.clone(), value.clone());
            }
            Ok(Some(case.otherwise(column)?))
        })
    }
}
