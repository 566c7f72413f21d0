//! `df1.groupBy(k).cogroup(df2.groupBy(k)).applyInPandas` / `applyInArrow` (eval types 206
//! and 210), planned on the grouped-map machinery: both sides become one input (the union of
//! `keys, side, left columns…, right columns…`, each side's rows with the other side's columns
//! null), grouped by the keys, so every key's rows of both sides reach the worker as one group;
//! `worker.py` splits a group by side and calls the function with (left, right) or
//! (key, left, right). Column names tell the worker the sides: `__ember_side`, `l:<name>`,
//! `r:<name>`.

use arrow::datatypes::DataType;
use datafusion::common::ScalarValue;
use datafusion::logical_expr::type_coercion::binary::comparison_coercion;
use datafusion::logical_expr::{Expr, ExprSchemable, LogicalPlan, LogicalPlanBuilder, cast, lit};
use ember_execution::python;

use super::Resolver;
use crate::error::{PlanResult, invalid, unsupported};
use crate::spec::{self, Expr as SExpr, Plan};

impl Resolver<'_> {
    pub(crate) fn resolve_co_group_map(
        &mut self,
        input: &Plan,
        grouping: &[SExpr],
        other: &Plan,
        other_grouping: &[SExpr],
        call: &spec::PythonUdfCall,
    ) -> PlanResult<LogicalPlan> {
        let udf = &call.udf;
        let eval_type = udf.function.eval_type;
        if eval_type != python::SQL_COGROUPED_MAP_PANDAS_UDF
            && eval_type != python::SQL_COGROUPED_MAP_ARROW_UDF
        {
            return unsupported(format!(
                "Python UDF eval type {eval_type} in cogroup ({})",
                udf.name
            ));
        }
        if grouping.len() != other_grouping.len() {
            // Spark's `require` in `flatMapCoGroupsInPandas`: no error class.
            return Err(crate::error::SparkError::illegal_argument(
                "",
                format!(
                    "requirement failed: Cogroup keys must have same size: {} != {}",
                    grouping.len(),
                    other_grouping.len()
                ),
            )
            .into());
        }
        let left = self.resolve(input)?;
        let right = self.resolve(other)?;
        let (left_schema, right_schema) = (left.schema().clone(), right.schema().clone());
        let mut left_keys = Vec::with_capacity(grouping.len());
        for g in grouping {
            left_keys.push(self.resolve_expr(g, &left_schema)?.0);
        }
        let mut right_keys = Vec::with_capacity(other_grouping.len());
        for g in other_grouping {
            right_keys.push(self.resolve_expr(g, &right_schema)?.0);
        }
        let mut left_exprs = Vec::new();
        let mut right_exprs = Vec::new();
        for (i, (l, r)) in left_keys.into_iter().zip(right_keys).enumerate() {
            let lt = l.get_type(&left_schema)?;
            let rt = r.get_type(&right_schema)?;
            let common = comparison_coercion(&lt, &rt).unwrap_or(lt);
            let name = format!("__ember_key_{i}");
            left_exprs.push(cast(l, common.clone()).alias(&name));
            right_exprs.push(cast(r, common).alias(name));
        }
        left_exprs.push(lit(0i8).alias("__ember_side"));
        right_exprs.push(lit(1i8).alias("__ember_side"));
        let null_of = |t: &DataType| -> PlanResult<Expr> {
            Ok(Expr::Literal(ScalarValue::try_from(t)?, None))
        };
        let left_names = self.output_names(&left_schema);
        for (f, n) in left_schema.fields().iter().zip(&left_names) {
            let name = format!("l:{n}");
            left_exprs.push(Self::column(f.name()).alias(&name));
            right_exprs.push(null_of(f.data_type())?.alias(name));
        }
        let right_names = self.output_names(&right_schema);
        for (f, n) in right_schema.fields().iter().zip(&right_names) {
            let name = format!("r:{n}");
            left_exprs.push(null_of(f.data_type())?.alias(&name));
            right_exprs.push(Self::column(f.name()).alias(name));
        }
        let union = LogicalPlanBuilder::from(left)
            .project(left_exprs)?
            .union(
                LogicalPlanBuilder::from(right)
                    .project(right_exprs)?
                    .build()?,
            )?
            .build()?;
        let DataType::Struct(fields) = &udf.output_type else {
            return invalid("cogroup applyInPandas whose schema is not a struct");
        };
        self.python_map(union, udf.function.clone(), fields, Some(grouping.len()))
    }
}
