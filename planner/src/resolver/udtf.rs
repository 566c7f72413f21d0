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
use super::udtf_table::{AnalyzeInput, Partitioning, table_arg};
use crate::error::{PlanResult, invalid, unsupported};
use crate::logical::python_map::PythonMapNode;
use crate::spec::{self, Expr as SExpr, JoinType, Plan, PlanNode};

/// The column names that tell the worker how an argument is passed (`__kw__` as in
/// `worker.py`'s `_call`).
const POSITIONAL: &str = "__ember_arg_";
const KEYWORD: &str = "__kw__";
/// The columns of a TABLE argument (`worker_udtf.py`'s `_udtf_args`).
const TABLE_COL: &str = "__ember_tab_";
/// The input columns a lateral call passes through (`worker_udtf.py`'s `_table_udf`).
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
        // A TABLE argument: the UDTF runs over the table's rows instead.
        let mut table = None;
        for (i, a) in call.args.iter().enumerate() {
            if let Some(t) = table_arg(a)? {
                if table.is_some() || lateral.is_some() {
                    return unsupported(format!(
                        "Python UDTF {} with more than one TABLE argument or in a LATERAL join",
                        udf.name
                    ));
                }
                table = Some((i, t));
            }
        }
        let plan = match &table {
            Some((_, t)) => self.resolve(&t.plan)?,
            None => plan,
        };
        let schema = plan.schema().clone();
        // The arguments but the TABLE one, resolved over the input.
        let mut resolved: Vec<Option<(Expr, String)>> = Vec::with_capacity(call.args.len());
        for (i, a) in call.args.iter().enumerate() {
            if table.as_ref().is_some_and(|(t, _)| *t == i) {
                resolved.push(None);
                continue;
            }
            resolved.push(Some(match a {
                SExpr::NamedArgument { name, value } => (
                    self.resolve_expr(value, &schema)?.0,
                    format!("{KEYWORD}{name}"),
                ),
                _ => (self.resolve_expr(a, &schema)?.0, format!("{POSITIONAL}{i}")),
            }));
        }
        let table_key = |i: usize| match &call.args[i] {
            SExpr::NamedArgument { name, .. } => format!("kw={name}"),
            _ => i.to_string(),
        };
        let fields = match &udf.output_type {
            DataType::Struct(fields) => fields.clone(),
            // No returnType: the UDTF's `analyze` gives it.
            DataType::Null => {
                let inputs: Vec<AnalyzeInput> = resolved
                    .iter()
                    .enumerate()
                    .map(|(i, r)| match r {
                        Some((e, name)) => AnalyzeInput {
                            name: name.clone(),
                            expr: Some(e.clone()),
                            table: None,
                        },
                        None => AnalyzeInput {
                            name: match &call.args[i] {
                                SExpr::NamedArgument { name, .. } => format!("{KEYWORD}{name}"),
                                _ => format!("{POSITIONAL}{i}"),
                            },
                            expr: None,
                            table: Some(
                                schema
                                    .fields()
                                    .iter()
                                    .filter(|f| !super::is_hidden(f.name()))
                                    .map(|f| {
                                        let shown = self.info(f.name()).name;
                                        Arc::new(f.as_ref().clone().with_name(shown))
                                    })
                                    .collect(),
                            ),
                        },
                    })
                    .collect();
                let t = table.as_mut().map(|(_, t)| t);
                self.analyze_udtf(udf, &inputs, &schema, t)?
            }
            _ => {
                return invalid(format!(
                    "Python UDTF {} whose returnType is not a struct",
                    udf.name
                ));
            }
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
        // A partitioned TABLE argument: the keys first, then the sort keys.
        let mut group_keys = None;
        if let Some((_, t)) = &table {
            match &t.partitioning {
                Partitioning::Any => {}
                Partitioning::Single => group_keys = Some(0),
                Partitioning::By(keys) => {
                    for (j, k) in keys.iter().enumerate() {
                        let (e, _) = self.resolve_expr(k, &schema)?;
                        args.push(e.alias(format!("__ember_key_{j}")));
                    }
                    group_keys = Some(keys.len());
                }
            }
            if !t.order.is_empty() && group_keys.is_none() {
                // (ORDER BY without PARTITION BY sorts one partition of every row.)
                group_keys = Some(0);
            }
            for (j, k) in t.order.iter().enumerate() {
                let (e, _) = self.resolve_expr(&k.expr, &schema)?;
                let direction = if k.ascending { "asc" } else { "desc" };
                let nulls = if k.nulls_first { "first" } else { "last" };
                args.push(e.alias(format!("__ember_ord_{j}_{direction}_{nulls}")));
            }
        }
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
        for (i, r) in resolved.into_iter().enumerate() {
            match r {
                Some((e, name)) => args.push(e.alias(name)),
                None => {
                    let key = table_key(i);
                    let select = table
                        .as_ref()
                        .map(|(_, t)| t.select.clone())
                        .unwrap_or_default();
                    if select.is_empty() {
                        for c in schema.columns() {
                            if super::is_hidden(&c.name) {
                                continue;
                            }
                            let shown = self.info(&c.name).name;
                            args.push(Expr::Column(c).alias(format!("{TABLE_COL}{key}:{shown}")));
                        }
                    }
                    for (e, alias) in select {
                        let (e, _) = self.resolve_expr(&e, &schema)?;
                        args.push(e.alias(format!("{TABLE_COL}{key}:{alias}")));
                    }
                }
            }
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
            group_keys,
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

/// The UDTF eval types Ember runs (`@udtf`, with or without Arrow optimization, and
/// `@arrow_udtf`).
pub(crate) fn is_udtf(eval_type: i32) -> bool {
    use ember_execution::python::{SQL_ARROW_TABLE_UDF, SQL_ARROW_UDTF, SQL_TABLE_UDF};
    matches!(
        eval_type,
        SQL_TABLE_UDF | SQL_ARROW_TABLE_UDF | SQL_ARROW_UDTF
    )
}
