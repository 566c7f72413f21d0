//! Python UDTF calls (`@udtf` classes, eval type 300), from the DataFrame API
//! (`Squares(lit(1), lit(3))`) or SQL's FROM clause after `spark.udtf.register`: the
//! arguments are projected over the input (one row) and go through a `PythonMapNode` whose
//! worker instantiates the class, calls `eval` for each row and `terminate` at the end; the
//! rows it yields have the declared returnType's columns.

use std::sync::Arc;

use arrow::datatypes::{DataType, Schema};
use datafusion::logical_expr::{Expr, LogicalPlan, LogicalPlanBuilder, lit};

use super::Resolver;
use crate::error::{PlanResult, invalid};
use crate::exec::python_map::PythonMapNode;
use crate::spec::{self, Expr as SExpr, Plan, PlanNode};

/// The column names that tell the worker how an argument is passed (`__kw__` as in
/// `worker.py`'s `_call`).
const POSITIONAL: &str = "__ember_arg_";
const KEYWORD: &str = "__kw__";

impl Resolver<'_> {
    /// A UDTF call over `input` (one row for a call in FROM).
    pub(crate) fn resolve_udtf(
        &mut self,
        input: &Plan,
        call: &spec::PythonUdfCall,
    ) -> PlanResult<LogicalPlan> {
        let udf = &call.udf;
        let plan = self.resolve(input)?;
        let schema = plan.schema().clone();
        let mut args = Vec::with_capacity(call.args.len().max(1));
        for (i, a) in call.args.iter().enumerate() {
            args.push(match a {
                SExpr::NamedArgument { name, value } => self
                    .resolve_expr(value, &schema)?
                    .0
                    .alias(format!("{KEYWORD}{name}")),
                _ => self
                    .resolve_expr(a, &schema)?
                    .0
                    .alias(format!("{POSITIONAL}{i}")),
            });
        }
        if args.is_empty() {
            // (A projection needs a column; the worker passes only the ones named above.)
            args.push(lit(0i32).alias("__ember_none"));
        }
        let projected = LogicalPlanBuilder::from(plan).project(args)?.build()?;
        let DataType::Struct(fields) = &udf.output_type else {
            return invalid(format!(
                "Python UDTF {} whose returnType is not a struct",
                udf.name
            ));
        };
        let node = PythonMapNode::plan(
            projected,
            udf.function.clone(),
            self.config.python.clone(),
            self.config.arrow_batch_size,
            Arc::new(Schema::new(fields.clone())),
            None,
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

    /// `FROM name(args)` when `name` is a UDTF the session registered.
    pub(crate) fn registered_udtf(
        &mut self,
        name: &str,
        args: &[SExpr],
    ) -> PlanResult<Option<LogicalPlan>> {
        let Some(udf) = self.catalog().python_function(&name.to_ascii_lowercase()) else {
            return Ok(None);
        };
        if !is_udtf(udf.function.eval_type) {
            return Ok(None);
        }
        let call = spec::PythonUdfCall {
            udf,
            args: args.to_vec(),
        };
        self.resolve_udtf(&Plan::new(PlanNode::OneRow), &call)
            .map(Some)
    }
}

/// The UDTF eval types Ember runs (`@udtf`, with or without Arrow optimization).
pub(crate) fn is_udtf(eval_type: i32) -> bool {
    use ember_execution::python::{SQL_ARROW_TABLE_UDF, SQL_TABLE_UDF};
    eval_type == SQL_TABLE_UDF || eval_type == SQL_ARROW_TABLE_UDF
}
