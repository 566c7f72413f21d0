//! A projection's Python UDF calls evaluated by `PythonEvalExec`, as Spark's ExtractPythonUDFs
//! moves them out of a projection into an ArrowEvalPython node: a physical optimizer rule
//! ([`ExtractPythonUdfs`]) replaces each call by a column that a `PythonEvalExec` under the
//! projection appends, innermost calls first (`f(g(x))`: `g` below, `f` over its column). The
//! worker then streams a partition's arguments while Ember computes the next ones, where a
//! call per batch would alternate between the two. Calls inside a lambda stay where they are
//! (their arguments are the lambda's), and so do calls in filters, join conditions and
//! aggregates.

use std::sync::Arc;

use arrow::datatypes::Field;
use datafusion::common::tree_node::{Transformed, TransformedResult, TreeNode, TreeNodeRecursion};
use datafusion::common::{DataFusionError, Result};
use datafusion::config::ConfigOptions;
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_expr::ScalarFunctionExpr;
use datafusion::physical_expr::expressions::{Column, LambdaExpr};
use datafusion::physical_optimizer::PhysicalOptimizerRule;
use datafusion::physical_plan::ExecutionPlan;
use datafusion::physical_plan::projection::{ProjectionExec, ProjectionExpr};
use ember_execution::codec::{CodecPart, NodeDecoder, NodeEncoder, PhysicalExprNode, one_input};
use ember_execution::python::eval::{PythonCall, PythonEvalExec};

use super::python_map::map_error;
use crate::functions::python::{EncodedPython, PythonScalarUdf, PythonUdfMessage};

/// Moves the Python UDF calls of projections into `PythonEvalExec`s under them.
#[derive(Debug, Default)]
pub struct ExtractPythonUdfs;

impl PhysicalOptimizerRule for ExtractPythonUdfs {
    fn optimize(
        &self,
        plan: Arc<dyn ExecutionPlan>,
        _config: &ConfigOptions,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        plan.transform_up(|node| match node.downcast_ref::<ProjectionExec>() {
            Some(projection) => match extract(projection)? {
                Some(extracted) => Ok(Transformed::yes(extracted)),
                None => Ok(Transformed::no(node)),
            },
            None => Ok(Transformed::no(node)),
        })
        .data()
    }

    fn name(&self) -> &str {
        "extract_python_udfs"
    }

    fn schema_check(&self) -> bool {
        true
    }
}

/// `projection` over `PythonEvalExec`s of its calls, if it makes any.
fn extract(projection: &ProjectionExec) -> Result<Option<Arc<dyn ExecutionPlan>>> {
    let mut input = projection.input().clone();
    let mut exprs: Vec<ProjectionExpr> = projection.expr().to_vec();
    let mut changed = false;
    while let Some(call) = exprs.iter().find_map(|e| innermost_call(&e.expr)) {
        let Some((scalar, function)) = python_udf(&call) else {
            break;
        };
        let index = input.schema().fields().len();
        let name = format!("__ember_python_{index}");
        let exec = PythonEvalExec::try_new(
            input,
            scalar.args().to_vec(),
            PythonCall {
                function: function.function().clone(),
                python: function.python().map(str::to_string),
                batch_size: function.batch_size(),
                keywords: function.keywords().to_vec(),
                result: Arc::new(Field::new(&name, function.return_type().clone(), true)),
            },
            map_error,
        )?;
        let column: Arc<dyn PhysicalExpr> = Arc::new(Column::new(&name, index));
        for e in &mut exprs {
            e.expr = replace(&e.expr, &call, &column)?;
        }
        input = Arc::new(exec);
        changed = true;
    }
    if !changed {
        return Ok(None);
    }
    Ok(Some(Arc::new(ProjectionExec::try_new(exprs, input)?)))
}

/// The call and the Python UDF `expr` calls, if it is such a call (of a scalar eval type).
fn python_udf(expr: &Arc<dyn PhysicalExpr>) -> Option<(&ScalarFunctionExpr, &PythonScalarUdf)> {
    let scalar = expr.downcast_ref::<ScalarFunctionExpr>()?;
    let inner: &dyn std::any::Any = scalar.fun().inner().as_ref();
    let udf = inner.downcast_ref::<PythonScalarUdf>()?;
    ember_execution::python::is_scalar_eval_type(udf.function().eval_type).then_some((scalar, udf))
}

/// A Python UDF call in `expr` whose arguments call none (outside lambdas, whose calls are
/// never moved).
fn innermost_call(expr: &Arc<dyn PhysicalExpr>) -> Option<Arc<dyn PhysicalExpr>> {
    let mut found = None;
    let _ = expr.apply(|e| {
        if e.downcast_ref::<LambdaExpr>().is_some() {
            return Ok(TreeNodeRecursion::Jump);
        }
        if python_udf(e).is_some() {
            // (Visited top-down: a call found later inside this one replaces it.)
            found = Some(e.clone());
        }
        Ok::<_, DataFusionError>(TreeNodeRecursion::Continue)
    });
    found
}

/// `expr` with the call `call` (that very node) replaced by `column`.
fn replace(
    expr: &Arc<dyn PhysicalExpr>,
    call: &Arc<dyn PhysicalExpr>,
    column: &Arc<dyn PhysicalExpr>,
) -> Result<Arc<dyn PhysicalExpr>> {
    expr.clone()
        .transform_down(|e| {
            if std::ptr::addr_eq(Arc::as_ptr(&e), Arc::as_ptr(call)) {
                Ok(Transformed::new(
                    column.clone(),
                    true,
                    TreeNodeRecursion::Jump,
                ))
            } else {
                Ok(Transformed::no(e))
            }
        })
        .data()
}

/// A `PythonEvalExec` on the wire.
#[derive(Clone, PartialEq, prost::Message)]
struct PythonEvalMessage {
    #[prost(message, optional, tag = "1")]
    function: Option<PythonUdfMessage>,
    #[prost(message, repeated, tag = "2")]
    args: Vec<PhysicalExprNode>,
}

/// The codec part of `PythonEvalExec`.
pub fn codec_part() -> Arc<dyn CodecPart> {
    Arc::new(PythonEvalPart)
}

#[derive(Debug)]
struct PythonEvalPart;

impl CodecPart for PythonEvalPart {
    fn name(&self) -> &'static str {
        "python_eval"
    }

    fn encode_node(
        &self,
        node: &Arc<dyn ExecutionPlan>,
        encoder: &NodeEncoder,
    ) -> Result<Option<Vec<u8>>> {
        let Some(exec) = node.downcast_ref::<PythonEvalExec>() else {
            return Ok(None);
        };
        let call = exec.call();
        let function = EncodedPython {
            name: call.result.name().clone(),
            function: call.function.clone(),
            return_type: call.result.data_type().clone(),
            python: call.python.clone(),
            batch_size: call.batch_size,
            deterministic: true,
            keywords: call.keywords.clone(),
        }
        .to_message();
        let message = PythonEvalMessage {
            function,
            args: encoder.exprs(exec.args())?,
        };
        Ok(Some(prost::Message::encode_to_vec(&message)))
    }

    fn decode_node(
        &self,
        payload: &[u8],
        inputs: &[Arc<dyn ExecutionPlan>],
        decoder: &NodeDecoder,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let bad = |what: &str| DataFusionError::Internal(format!("bad Python UDF {what}"));
        let m: PythonEvalMessage = prost::Message::decode(payload).map_err(|_| bad("node"))?;
        let input = one_input(inputs)?;
        let args = decoder.exprs(&m.args, &input.schema())?;
        let p = EncodedPython::from_message(m.function.ok_or_else(|| bad("function"))?)?;
        let call = PythonCall {
            result: Arc::new(Field::new(&p.name, p.return_type, true)),
            function: p.function,
            python: p.python,
            batch_size: p.batch_size,
            keywords: p.keywords,
        };
        Ok(Arc::new(PythonEvalExec::try_new(
            input, args, call, map_error,
        )?))
    }
}
