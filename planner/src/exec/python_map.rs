//! `mapInPandas` / `mapInArrow` as a logical node: its input holds the function's arguments
//! (named as Spark names them, which is what the function sees), its schema is the declared
//! result schema. The query planner turns it into `ember_execution::python::map::PythonMapExec`.

use std::cmp::Ordering;
use std::fmt;
use std::sync::Arc;

use arrow::datatypes::SchemaRef;
use datafusion::common::{DFSchema, DFSchemaRef, Result, internal_err};
use datafusion::logical_expr::{Expr, Extension, LogicalPlan, UserDefinedLogicalNodeCore};
use datafusion::physical_plan::ExecutionPlan;
use ember_execution::python::PythonFunction;
use ember_execution::python::map::PythonMapExec;

use crate::error::to_datafusion;
use crate::functions::python::python_error;

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PythonMapNode {
    input: LogicalPlan,
    function: PythonFunction,
    python: Option<String>,
    batch_size: usize,
    schema: DFSchemaRef,
    /// The grouped form's number of keys (the input's first columns).
    group_keys: Option<usize>,
}

impl PartialOrd for PythonMapNode {
    fn partial_cmp(&self, _other: &Self) -> Option<Ordering> {
        None
    }
}

impl PythonMapNode {
    pub fn plan(
        input: LogicalPlan,
        function: PythonFunction,
        python: Option<String>,
        batch_size: usize,
        schema: SchemaRef,
        group_keys: Option<usize>,
    ) -> Result<LogicalPlan> {
        let schema = Arc::new(DFSchema::try_from(schema.as_ref().clone())?);
        Ok(LogicalPlan::Extension(Extension {
            node: Arc::new(Self {
                input,
                function,
                python,
                batch_size,
                schema,
                group_keys,
            }),
        }))
    }

    /// The operator, over the planned input.
    pub fn exec(&self, input: Arc<dyn ExecutionPlan>) -> Arc<dyn ExecutionPlan> {
        let exec = PythonMapExec::new(
            input,
            self.function.clone(),
            self.python.clone(),
            self.batch_size,
            Arc::new(self.schema.as_arrow().clone()),
            map_error,
        );
        Arc::new(match self.group_keys {
            Some(keys) => exec.grouped(keys),
            None => exec,
        })
    }
}

/// How a `mapInPandas` worker failure reaches the client.
pub fn map_error(e: ember_execution::python::PythonError) -> datafusion::error::DataFusionError {
    to_datafusion(python_error(e))
}

impl UserDefinedLogicalNodeCore for PythonMapNode {
    fn name(&self) -> &str {
        "PythonMap"
    }

    fn inputs(&self) -> Vec<&LogicalPlan> {
        vec![&self.input]
    }

    fn schema(&self) -> &DFSchemaRef {
        &self.schema
    }

    fn expressions(&self) -> Vec<Expr> {
        vec![]
    }

    fn fmt_for_explain(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "PythonMap: eval_type={}", self.function.eval_type)
    }

    fn with_exprs_and_inputs(
        &self,
        _exprs: Vec<Expr>,
        mut inputs: Vec<LogicalPlan>,
    ) -> Result<Self> {
        let Some(input) = inputs.pop() else {
            return internal_err!("PythonMap takes one input");
        };
        Ok(Self {
            input,
            ..self.clone()
        })
    }

    fn supports_limit_pushdown(&self) -> bool {
        false
    }

    fn necessary_children_exprs(&self, _output_columns: &[usize]) -> Option<Vec<Vec<usize>>> {
        // The function takes every column of its input.
        Some(vec![(0..self.input.schema().fields().len()).collect()])
    }
}
