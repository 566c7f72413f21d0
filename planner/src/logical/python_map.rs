//! `mapInPandas` / `mapInArrow` as a logical node: its input holds the function's arguments
//! (named as Spark names them, which is what the function sees), its schema is the declared
//! result schema. The query planner turns it into `ember_execution::python::map::PythonMapExec`.

use std::cmp::Ordering;
use std::fmt;
use std::sync::Arc;

use arrow::datatypes::SchemaRef;
use datafusion::common::{DFSchema, DFSchemaRef, DataFusionError, Result, internal_err};
use datafusion::logical_expr::{Expr, Extension, LogicalPlan, UserDefinedLogicalNodeCore};
use datafusion::physical_plan::ExecutionPlan;
use ember_execution::codec::{CodecPart, NodeDecoder, NodeEncoder, one_input};
use ember_execution::python::map::PythonMapExec;
use ember_execution::python::{PythonFunction, PythonFunctionMessage};

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

/// A `PythonMapExec` on the wire (its codec part is here, where its error mapping is).
#[derive(Clone, PartialEq, prost::Message)]
struct PythonMapMessage {
    #[prost(message, optional, tag = "1")]
    function: Option<PythonFunctionMessage>,
    #[prost(string, optional, tag = "4")]
    python: Option<String>,
    #[prost(uint64, tag = "5")]
    batch_size: u64,
    /// The result schema, as Arrow IPC.
    #[prost(bytes = "vec", tag = "6")]
    schema: Vec<u8>,
    #[prost(uint64, optional, tag = "7")]
    group_keys: Option<u64>,
}

/// The codec part of `PythonMapExec`.
pub fn codec_part() -> Arc<dyn CodecPart> {
    Arc::new(PythonMapPart)
}

#[derive(Debug)]
struct PythonMapPart;

impl CodecPart for PythonMapPart {
    fn name(&self) -> &'static str {
        "python_map"
    }

    fn encode_node(
        &self,
        node: &Arc<dyn ExecutionPlan>,
        _encoder: &NodeEncoder,
    ) -> Result<Option<Vec<u8>>> {
        let Some(map) = node.downcast_ref::<PythonMapExec>() else {
            return Ok(None);
        };
        let schema = ember_execution::python::schema_bytes(&map.schema())
            .map_err(|e| DataFusionError::External(Box::new(e)))?;
        let message = PythonMapMessage {
            function: Some(map.function().to_message()),
            python: map.python().map(str::to_string),
            batch_size: map.batch_size() as u64,
            schema,
            group_keys: map.group_keys().map(|k| k as u64),
        };
        Ok(Some(prost::Message::encode_to_vec(&message)))
    }

    fn decode_node(
        &self,
        payload: &[u8],
        inputs: &[Arc<dyn ExecutionPlan>],
        _decoder: &NodeDecoder,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let bad = |what: &str| DataFusionError::Internal(format!("bad mapInPandas {what}"));
        let m: PythonMapMessage = prost::Message::decode(payload).map_err(|_| bad("node"))?;
        let schema =
            ember_execution::python::schema_from_bytes(&m.schema).map_err(|_| bad("schema"))?;
        let function = PythonFunction::from_message(m.function.ok_or_else(|| bad("function"))?);
        let batch_size = usize::try_from(m.batch_size).map_err(|_| bad("batch size"))?;
        let exec = PythonMapExec::new(
            one_input(inputs)?,
            function,
            m.python,
            batch_size,
            schema,
            map_error,
        );
        Ok(Arc::new(match m.group_keys {
            Some(keys) => exec.grouped(keys as usize),
            None => exec,
        }))
    }
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
