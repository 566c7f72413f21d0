//! Python UDTF calls (`@udtf` classes, eval type 300), from the DataFrame API
//! (`Squares(lit(1), lit(3))`) or SQL's FROM clause after `spark.udtf.register`: the
//! arguments are projected over the input (one row) and go through a `PythonMapNode` whose
//! worker instantiates the class, calls `eval` for each row and `terminate` at the end; the
//! rows it yields have the declared returnType's columns. `LATERAL f(t.x)` runs the same
//! over the left side's rows, which the worker passes through beside each row they yield.

use std::sync::Arc;

use arrow::datatypes::{DataType, Schema};
use datafusion::common::ScalarValue;
use datafusion::logical_expr::{Expr, LogicalPlan, LogicalPlanBuilder, lit};

use super::Resolver;
use crate::error::{PlanResult, invalid, unsupported};
use crate::exec::python_map::PythonMapNode;
use crate::spec::{self, Expr as SExpr, JoinType, Plan, PlanNode};

/// The column names that tell the worker how an argument is passed (`__kw__` as in
/// `worker.py`'s `_call`).
const POSITIONAL: &str = "__ember_arg_";
const KEYWORD: &str = "__kw__";
/// The input columns a lateral call passes through (`worker.py`'s `_table_udf`).
const PASS: &str = "__ember_pass_";
/// The column marking a `LEFT JOIN LATERAL` call.
const OUTER: &str = "__ember_outer";

/// How a lateral call joins: rows without output vanish (inner) or keep nulls (left outer).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Lateral {
    Inner,
    Outer,
}

impl Resolver<'_> {
    /// A UDTF call over `input` (one row for a call in FROM).
    pub(crate) fn resolve_udtf(
        &mut self,
        input: &Plan,
        call: &spec::PythonUdfCall,
    ) -> PlanResult<LogicalPlan> {
        let plan = self.resolve(input)?;
        self.udtf_over(plan, call, None, vec![], &[])
    }

    /// The UDTF over the rows of `plan`; with `lateral`, each output row also carries the
    /// columns of the input row it came from (first), as `FROM t, LATERAL f(t.x)` gives them.
    /// The UDTF's columns take `qualifier`, and the names in `renames` when given.
    fn udtf_over(
        &mut self,
        plan: LogicalPlan,
        call: &spec::PythonUdfCall,
        lateral: Option<Lateral>,
        qualifier: Vec<String>,
        renames: &[String],
    ) -> PlanResult<LogicalPlan> {
        let udf = &call.udf;
        let schema = plan.schema().clone();
        let DataType::Struct(fields) = &udf.output_type else {
            return invalid(format!(
                "Python UDTF {} whose returnType is not a struct",
                udf.name
            ));
        };
        if !renames.is_empty() && renames.len() != fields.len() {
            return invalid(format!(
                "{} column aliases for Python UDTF {} of {} columns",
                renames.len(),
                udf.name,
                fields.len()
            ));
        }
        let mut args = Vec::with_capacity(call.args.len() + 1);
        let mut out_fields = Vec::new();
        let mut passed = Vec::new();
        if let Some(mode) = lateral {
            if mode == Lateral::Outer {
                // (The worker gives an input row without output rows one row of nulls.)
                args.push(lit(true).alias(OUTER));
            }
            for (i, (c, f)) in schema
                .columns()
                .into_iter()
                .zip(schema.fields())
                .enumerate()
            {
                let name = format!("{PASS}{i}");
                args.push(Expr::Column(c.clone()).alias(&name));
                out_fields.push(Arc::new(f.as_ref().clone().with_name(&name)));
                passed.push((name, c.name));
            }
        }
        for (i, a) in call.args.iter().enumerate() {
            if matches!(a, SExpr::Function(f) if f.name.eq_ignore_ascii_case("table")) {
                return unsupported(format!("TABLE arguments of Python UDTF {}", udf.name));
            }
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
        out_fields.extend(fields.iter().cloned());
        let node = PythonMapNode::plan(
            projected,
            udf.function.clone(),
            self.config.python.clone(),
            self.config.arrow_batch_size,
            Arc::new(Schema::new(out_fields)),
            None,
        )?;
        let mut exprs: Vec<Expr> = passed
            .iter()
            .map(|(pass, internal)| Self::column(pass).alias(internal))
            .collect();
        for (i, f) in fields.iter().enumerate() {
            let shown = renames.get(i).map_or(f.name().as_str(), String::as_str);
            let fresh = self.fresh(shown, qualifier.clone());
            exprs.push(Self::column(f.name()).alias(fresh));
        }
        Ok(LogicalPlanBuilder::from(node).project(exprs)?.build()?)
    }

    /// `FROM t, LATERAL f(t.x)` / `t JOIN LATERAL f(x) [AS a(c1, ...)]` with `f` a registered
    /// UDTF: `None` when the right side is not a table function call.
    pub(crate) fn lateral_udtf(&mut self, j: &spec::Join) -> PlanResult<Option<LogicalPlan>> {
        let (call, qualifier, renames) = match &j.right.node {
            PlanNode::TableFunction { name, args } => ((name, args), vec![], vec![]),
            // `df.lateralJoin(Squares(col("a").outer(), ...))`.
            PlanNode::MapPartitions { input, function }
                if matches!(input.node, PlanNode::OneRow)
                    && is_udtf(function.udf.function.eval_type) =>
            {
                // (Spark 4.3 answers `how="left"` here without the null rows of input rows
                // the UDTF yields nothing for, unlike SQL's LEFT JOIN LATERAL: as recorded.)
                return self.lateral_call(j, function.as_ref().clone(), vec![], &[], false);
            }
            PlanNode::SubqueryAlias {
                input,
                alias,
                columns,
            } => match &input.node {
                PlanNode::TableFunction { name, args } => {
                    ((name, args), vec![alias.clone()], columns.clone())
                }
                _ => return Ok(None),
            },
            _ => return Ok(None),
        };
        let (name, args) = call;
        let udf = self
            .catalog()
            .python_function(&name.to_ascii_lowercase())
            .filter(|u| is_udtf(u.function.eval_type));
        let Some(udf) = udf else {
            return unsupported(format!("LATERAL {name}(...): only Python UDTFs"));
        };
        let call = spec::PythonUdfCall {
            udf,
            args: args.clone(),
        };
        self.lateral_call(j, call, qualifier, &renames, true)
    }

    fn lateral_call(
        &mut self,
        j: &spec::Join,
        call: spec::PythonUdfCall,
        qualifier: Vec<String>,
        renames: &[String],
        keep_unmatched: bool,
    ) -> PlanResult<Option<LogicalPlan>> {
        let always = match &j.condition {
            None => true,
            Some(SExpr::Literal(ScalarValue::Boolean(Some(true)))) => true,
            Some(_) => false,
        };
        let outer = keep_unmatched && matches!(j.join_type, JoinType::LeftOuter);
        if !always
            || !matches!(
                j.join_type,
                JoinType::Inner | JoinType::Cross | JoinType::LeftOuter
            )
        {
            return unsupported(format!(
                "LATERAL Python UDTF {} in a join other than an inner or left outer join without a condition",
                call.udf.name
            ));
        }
        let left = self.resolve(&j.left)?;
        let mode = if outer {
            Lateral::Outer
        } else {
            Lateral::Inner
        };
        self.udtf_over(left, &call, Some(mode), qualifier, renames)
            .map(Some)
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
