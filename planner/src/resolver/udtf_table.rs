//! TABLE arguments of Python UDTFs (`f(TABLE(t) PARTITION BY k ORDER BY v)`, written as
//! `sql/table_args.rs` rewrites them) and the UDTFs' static `analyze` methods, which a worker
//! runs at planning time to give the result schema and, for a TABLE argument, the
//! partitioning, ordering and selection of its columns (Spark's `AnalyzeResult`).

use arrow::array::{ArrayRef, RecordBatch, RecordBatchOptions, new_null_array};
use arrow::datatypes::{DataType, Field, Fields, Schema};
use datafusion::common::{DFSchema, ScalarValue};
use datafusion::logical_expr::{Expr, ExprSchemable};
use std::collections::HashMap;
use std::sync::Arc;

use super::Resolver;
use crate::error::{ErrorKind, PlanResult, SparkError, invalid, unsupported};
use crate::functions::python::python_error;
use crate::spec::{self, Expr as SExpr, Plan, PlanNode};
use crate::sql::table_args::{ORDER_BY, PARTITION_BY, SINGLE_PARTITION, SORT, TABLE_ARG};

/// How a TABLE argument's rows are split among instances of the UDTF.
#[derive(Debug, Clone, Default)]
pub(super) enum Partitioning {
    /// As they come (one instance per partition of the input).
    #[default]
    Any,
    /// One instance over every row.
    Single,
    /// One instance per value of these expressions.
    By(Vec<SExpr>),
}

#[derive(Debug, Clone)]
pub(super) struct SortKey {
    pub expr: SExpr,
    pub ascending: bool,
    pub nulls_first: bool,
}

#[derive(Debug, Clone)]
pub(super) struct TableArg {
    pub plan: Plan,
    pub partitioning: Partitioning,
    pub order: Vec<SortKey>,
    /// The columns `eval` sees (expression, name); all the table's when empty.
    pub select: Vec<(SExpr, String)>,
}

fn string_literal(e: &SExpr) -> Option<&str> {
    match e {
        SExpr::Literal(datafusion::common::ScalarValue::Utf8(Some(s))) => Some(s),
        _ => None,
    }
}

/// The TABLE argument `e` (maybe passed by keyword), if it is one.
pub(super) fn table_arg(e: &SExpr) -> PlanResult<Option<TableArg>> {
    let call = match e {
        SExpr::Function(f) if f.name == TABLE_ARG => f,
        SExpr::NamedArgument { value, .. } => return table_arg(value),
        _ => return Ok(None),
    };
    let Some((source, rest)) = call.args.split_first() else {
        return invalid("TABLE argument without a table");
    };
    let plan = match source {
        SExpr::Attribute { name, .. } => Plan::new(PlanNode::Table { name: name.clone() }),
        SExpr::ScalarSubquery(plan) => plan.as_ref().clone(),
        other => return unsupported(format!("TABLE argument {other:?}")),
    };
    let mut arg = TableArg {
        plan,
        partitioning: Partitioning::Any,
        order: vec![],
        select: vec![],
    };
    for r in rest {
        let SExpr::Function(f) = r else { continue };
        match f.name.as_str() {
            SINGLE_PARTITION => arg.partitioning = Partitioning::Single,
            PARTITION_BY => arg.partitioning = Partitioning::By(f.args.clone()),
            ORDER_BY => {
                for item in &f.args {
                    let SExpr::Function(s) = item else { continue };
                    if s.name != SORT || s.args.len() != 3 {
                        continue;
                    }
                    let ascending = string_literal(&s.args[1]) != Some("desc");
                    let nulls_first = match string_literal(&s.args[2]) {
                        Some("first") => true,
                        Some("last") => false,
                        _ => ascending,
                    };
                    arg.order.push(SortKey {
                        expr: s.args[0].clone(),
                        ascending,
                        nulls_first,
                    });
                }
            }
            _ => {}
        }
    }
    Ok(Some(arg))
}

/// What the planner knows of one argument when `analyze` runs.
pub(super) struct AnalyzeInput {
    /// The request's column name (`__ember_arg_<i>`, `__kw__<name>`).
    pub name: String,
    /// The argument's expression (None for the TABLE argument).
    pub expr: Option<Expr>,
    /// For the TABLE argument: the table's fields.
    pub table: Option<Fields>,
}

fn analysis_error(message: String) -> crate::error::PlanError {
    SparkError::new(
        ErrorKind::Analysis,
        "TABLE_VALUED_FUNCTION_FAILED_TO_ANALYZE_IN_PYTHON",
        "38000",
        format!("Failed to analyze the Python user defined table function: {message}"),
        vec![("msg", message.clone())],
    )
    .into()
}

impl Resolver<'_> {
    /// Run the UDTF's `analyze`: its result fields, and what it asks of the TABLE argument
    /// (merged into `table`).
    pub(super) fn analyze_udtf(
        &mut self,
        udf: &spec::PythonUdf,
        inputs: &[AnalyzeInput],
        schema: &DFSchema,
        table: Option<&mut TableArg>,
    ) -> PlanResult<Fields> {
        let mut fields = Vec::with_capacity(inputs.len());
        let mut columns: Vec<ArrayRef> = Vec::with_capacity(inputs.len());
        for input in inputs {
            let (data_type, kind, column) = match (&input.table, &input.expr) {
                (Some(t), _) => {
                    let dt = DataType::Struct(t.clone());
                    let column = new_null_array(&dt, 1);
                    (dt, "table", column)
                }
                (None, Some(Expr::Literal(v, _))) => {
                    let dt = constant_type(v);
                    let column = arrow::compute::cast(&v.to_array_of_size(1)?, &dt)
                        .map_err(datafusion::error::DataFusionError::from)?;
                    (dt, "constant", column)
                }
                (None, Some(e)) => {
                    let dt = e.get_type(schema)?;
                    let column = new_null_array(&dt, 1);
                    (dt, "expr", column)
                }
                (None, None) => continue,
            };
            let metadata = HashMap::from([("ember.kind".to_string(), kind.to_string())]);
            fields.push(Field::new(&input.name, data_type, true).with_metadata(metadata));
            columns.push(column);
        }
        let batch = RecordBatch::try_new_with_options(
            Arc::new(Schema::new(fields)),
            columns,
            &RecordBatchOptions::new().with_row_count(Some(1)),
        )
        .map_err(datafusion::error::DataFusionError::from)?;
        let python = ember_execution::python::python_executable(self.config.python.as_deref());
        let analyzed = ember_execution::python::analyze_udtf(&udf.function, &python, &batch)
            .map_err(|e| match e {
                ember_execution::python::PythonError::Exception { traceback, .. } => {
                    analysis_error(traceback)
                }
                other => python_error(other).into(),
            })?;
        let DataType::Struct(out) =
            crate::types::parse_data_type(&analyzed.schema, &self.config.time_zone)?
        else {
            return Err(analysis_error(format!(
                "the schema {} is not a struct",
                analyzed.schema
            )));
        };
        let rest: serde_json::Value = serde_json::from_str(&analyzed.rest)
            .map_err(|e| analysis_error(format!("unreadable AnalyzeResult: {e}")))?;
        let Some(table) = table else {
            return Ok(out);
        };
        let single = rest["withSinglePartition"].as_bool().unwrap_or(false);
        let partition_by: Vec<&str> = rest["partitionBy"]
            .as_array()
            .map(|v| v.iter().filter_map(|x| x.as_str()).collect())
            .unwrap_or_default();
        if (single || !partition_by.is_empty()) && !matches!(table.partitioning, Partitioning::Any)
        {
            let message = format!(
                "Failed to evaluate the table function `{}` because its table metadata includes required partitioning or ordering, but the function call also included a PARTITION BY or ORDER BY clause.",
                udf.name
            );
            return Err(SparkError::new(
                ErrorKind::Analysis,
                "TABLE_VALUED_FUNCTION_REQUIRED_METADATA_INCOMPATIBLE_WITH_CALL",
                "22023",
                message,
                vec![("functionName", udf.name.clone())],
            )
            .into());
        }
        if single {
            table.partitioning = Partitioning::Single;
        } else if !partition_by.is_empty() {
            table.partitioning = Partitioning::By(
                partition_by
                    .iter()
                    .map(|s| crate::sql::parse_expression(s))
                    .collect::<PlanResult<_>>()?,
            );
        }
        if let Some(order) = rest["orderBy"].as_array().filter(|o| !o.is_empty()) {
            table.order = order
                .iter()
                .map(|o| {
                    let ascending = o[1].as_bool().unwrap_or(true);
                    Ok(SortKey {
                        expr: crate::sql::parse_expression(o[0].as_str().unwrap_or_default())?,
                        ascending,
                        nulls_first: o[2].as_bool().unwrap_or(ascending),
                    })
                })
                .collect::<PlanResult<_>>()?;
        }
        if let Some(select) = rest["select"].as_array() {
            table.select = select
                .iter()
                .map(|s| {
                    let name = s[0].as_str().unwrap_or_default();
                    let alias = s[1].as_str().filter(|a| !a.is_empty()).unwrap_or(name);
                    Ok((crate::sql::parse_expression(name)?, alias.to_string()))
                })
                .collect::<PlanResult<_>>()?;
        }
        Ok(out)
    }
}

/// A constant's type as Spark states it: an array's items NULL-able only where one is NULL
/// (`array(3)` is an ARRAY<INT> of no NULLs).
fn constant_type(v: &ScalarValue) -> DataType {
    match (v, v.data_type()) {
        (ScalarValue::List(a), DataType::List(item)) => {
            let nulls = a.values().null_count() > 0;
            DataType::List(Arc::new(item.as_ref().clone().with_nullable(nulls)))
        }
        (_, t) => t,
    }
}
