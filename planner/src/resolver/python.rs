//! Python UDF calls (`udf`, `pandas_udf`, `arrow_udf`, and functions the session registered
//! with `spark.udf.register`): resolved into a call of a [`PythonScalarUdf`], named as Spark
//! names them (`plus_one(id)`).

use std::sync::Arc;

use arrow::datatypes::{DataType, Fields, Schema};
use datafusion::common::DFSchema;
use datafusion::logical_expr::expr::ScalarFunction;
use datafusion::logical_expr::{Expr, LogicalPlan, LogicalPlanBuilder};
use ember_execution::python;

use super::Resolver;
use super::names::Named;
use crate::error::{PlanError, PlanResult, SparkError, invalid, unsupported};
use crate::functions::python::PythonScalarUdf;
use crate::functions::python_agg::PythonAggUdf;
use crate::logical::python_map::PythonMapNode;
use crate::spec::{self, Expr as SExpr, Plan};

/// What the eval types Ember does not run yet are, for the `not supported` message.
fn eval_type_name(eval_type: i32) -> String {
    match eval_type {
        201 | 209 | 215 | 216 => "applyInPandas/applyInArrow".into(),
        203 | 253 => "window aggregate pandas_udf/arrow_udf".into(),
        206 | 210 => "cogroup().applyInPandas/applyInArrow".into(),
        208 => "applyInPandasWithState".into(),
        211..=214 => "transformWithState".into(),
        300..=302 => "Python UDTF".into(),
        other => format!("Python UDF eval type {other}"),
    }
}

impl Resolver<'_> {
    pub(crate) fn resolve_python_udf(
        &mut self,
        call: &spec::PythonUdfCall,
        schema: &DFSchema,
    ) -> PlanResult<Named> {
        let udf = &call.udf;
        let aggregate = python::is_aggregate_eval_type(udf.function.eval_type);
        if !aggregate && !python::is_scalar_eval_type(udf.function.eval_type) {
            return unsupported(format!(
                "{} ({})",
                eval_type_name(udf.function.eval_type),
                udf.name
            ));
        }
        let mut args = Vec::with_capacity(call.args.len());
        let mut names = Vec::with_capacity(call.args.len());
        let mut keywords = Vec::with_capacity(call.args.len());
        for a in &call.args {
            match a {
                SExpr::NamedArgument { name, value } => {
                    if aggregate {
                        return unsupported(format!(
                            "keyword arguments of aggregate Python UDF {}",
                            udf.name
                        ));
                    }
                    let (e, n) = self.resolve_expr(value, schema)?;
                    args.push(e);
                    names.push(format!("{name} => {n}"));
                    keywords.push(Some(name.clone()));
                }
                _ => {
                    let (e, n) = self.resolve_expr(a, schema)?;
                    args.push(e);
                    names.push(n);
                    keywords.push(None);
                }
            }
        }
        let name = format!("{}({})", udf.name, names.join(", "));
        if aggregate {
            let function = PythonAggUdf::new(
                udf.name.clone(),
                udf.function.clone(),
                udf.output_type.clone(),
                self.config.python.clone(),
            )
            .udaf();
            return Ok((function.call(args), name));
        }
        let function = PythonScalarUdf::new(
            udf.name.clone(),
            udf.function.clone(),
            udf.output_type.clone(),
            self.config.python.clone(),
            self.config.arrow_batch_size,
            udf.deterministic,
        )
        .with_keywords(keywords)
        .udf();
        Ok((
            Expr::ScalarFunction(ScalarFunction::new_udf(function, args)),
            name,
        ))
    }

    /// `mapInPandas` / `mapInArrow` (eval types 205 and 207): the input's columns, under
    /// their Spark names, through the function; its declared schema out.
    pub(crate) fn resolve_map_partitions(
        &mut self,
        input: &Plan,
        grouping: &[SExpr],
        call: &spec::PythonUdfCall,
        grouped: bool,
    ) -> PlanResult<LogicalPlan> {
        let udf = &call.udf;
        if !grouped && super::udtf::is_udtf(udf.function.eval_type) {
            return self.resolve_udtf(input, call);
        }
        let expected: &[i32] = if grouped {
            &[
                python::SQL_GROUPED_MAP_PANDAS_UDF,
                python::SQL_GROUPED_MAP_ARROW_UDF,
                python::SQL_GROUPED_MAP_PANDAS_ITER_UDF,
                python::SQL_GROUPED_MAP_ARROW_ITER_UDF,
            ]
        } else {
            &[
                python::SQL_MAP_PANDAS_ITER_UDF,
                python::SQL_MAP_ARROW_ITER_UDF,
            ]
        };
        if !expected.contains(&udf.function.eval_type) {
            return unsupported(format!(
                "{} ({})",
                eval_type_name(udf.function.eval_type),
                udf.name
            ));
        }
        let plan = self.resolve(input)?;
        let schema = plan.schema().clone();
        let mut args = Vec::with_capacity(grouping.len() + call.args.len());
        for (i, g) in grouping.iter().enumerate() {
            let (e, _) = self.resolve_expr(g, &schema)?;
            args.push(e.alias(format!("__ember_key_{i}")));
        }
        for a in &call.args {
            let (e, n) = self.resolve_expr(a, &schema)?;
            args.push(e.alias(n));
        }
        let projected = LogicalPlanBuilder::from(plan).project(args)?.build()?;
        let DataType::Struct(fields) = &udf.output_type else {
            return invalid("mapInPandas whose schema is not a struct");
        };
        self.python_map(
            projected,
            udf.function.clone(),
            fields,
            grouped.then_some(grouping.len()),
        )
    }

    /// `input` through a Python function that answers rows of `fields` (a map, a grouped or
    /// cogrouped map, a data source's reader), its columns given fresh names.
    pub(crate) fn python_map(
        &mut self,
        input: LogicalPlan,
        function: python::PythonFunction,
        fields: &Fields,
        group_keys: Option<usize>,
    ) -> PlanResult<LogicalPlan> {
        let node = PythonMapNode::plan(
            input,
            function,
            self.config.python.clone(),
            self.config.arrow_batch_size,
            Arc::new(Schema::new(fields.clone())),
            group_keys,
        )?;
        let exprs: Vec<Expr> = fields
            .iter()
            .map(|f| {
                let fresh = self.fresh(f.name(), vec![]);
                Self::column(f.name()).alias(fresh)
            })
            .collect();
        Ok(LogicalPlanBuilder::from(node).project(exprs)?.build()?)
    }
}

/// Spark runs pandas aggregates in an operator of their own: beside built-in aggregates they
/// are refused (INVALID_PANDAS_UDF_PLACEMENT).
pub(crate) fn check_python_aggregates(aggregates: &[Expr]) -> PlanResult<()> {
    let python = |e: &Expr| match e {
        Expr::AggregateFunction(f) => {
            let inner: &dyn std::any::Any = f.func.inner().as_ref();
            inner
                .downcast_ref::<PythonAggUdf>()
                .map(|_| f.func.name().to_string())
        }
        _ => None,
    };
    let names: Vec<String> = aggregates.iter().filter_map(python).collect();
    if names.is_empty() || names.len() == aggregates.len() {
        return Ok(());
    }
    let list = names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ");
    Err(crate::error::SparkError::new(
        crate::error::ErrorKind::Analysis,
        "INVALID_PANDAS_UDF_PLACEMENT",
        "0A000",
        format!(
            "The group aggregate pandas UDF {list} cannot be invoked together with as other, non-pandas aggregate functions."
        ),
        vec![("functionList", list.clone())],
    )
    .into())
}

/// Spark's error for a FILTER clause on a function that takes none (not an aggregate, or a
/// Python one), named as Spark names it.
pub(crate) fn filter_not_supported(name: &str) -> PlanError {
    SparkError::analysis(
        "INVALID_SQL_SYNTAX.FUNCTION_WITH_UNSUPPORTED_SYNTAX",
        "42000",
        format!("Invalid SQL syntax: The function `{name}` does not support FILTER CLAUSE."),
    )
    .into()
}

/// How Spark names a Python function in its errors: `pythonudaf` or `pythonudf`.
pub(crate) fn python_kind_name(udf: &spec::PythonUdf) -> &'static str {
    if python::is_aggregate_eval_type(udf.function.eval_type) {
        "pythonudaf"
    } else {
        "pythonudf"
    }
}
