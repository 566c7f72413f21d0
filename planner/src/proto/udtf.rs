//! Python UDTFs (`@udtf` classes): the relation a call builds
//! (`CommonInlineUserDefinedTableFunction`) and what `spark.udtf.register` sends. A call runs
//! as a map over one row holding its arguments (see `resolver/udtf.rs`).

use arrow::datatypes::DataType;
use ember_protos::spark::connect as pb;

use super::ProtoContext;
use super::expression::convert_all;
use crate::error::{PlanResult, invalid, unsupported};
use crate::spec::{self, Plan, PlanNode, PythonUdfCall};
use crate::types;

/// `Squares(lit(1), lit(3))`: the function over one row of its arguments.
pub(super) fn table_function(
    ctx: &ProtoContext,
    f: &pb::CommonInlineUserDefinedTableFunction,
) -> PlanResult<PlanNode> {
    Ok(PlanNode::MapPartitions {
        input: Box::new(Plan::new(PlanNode::OneRow)),
        function: Box::new(PythonUdfCall {
            udf: python_udtf(ctx, f)?,
            args: convert_all(ctx, &f.arguments)?,
        }),
    })
}

/// The class of a UDTF with its declared result type (a struct).
pub fn python_udtf(
    ctx: &ProtoContext,
    f: &pb::CommonInlineUserDefinedTableFunction,
) -> PlanResult<spec::PythonUdf> {
    use pb::common_inline_user_defined_table_function::Function;
    let Some(Function::PythonUdtf(udtf)) = &f.function else {
        return invalid("user-defined table function without a function");
    };
    match udtf.eval_type {
        ember_execution::python::SQL_TABLE_UDF
        | ember_execution::python::SQL_ARROW_TABLE_UDF
        | ember_execution::python::SQL_ARROW_UDTF => {}
        other => return unsupported(format!("Python UDTF eval type {other}")),
    }
    // Without a returnType, the class's static `analyze` gives the schema at planning time
    // (`resolver/udtf_table.rs`): `Null` marks that.
    let output_type = match &udtf.return_type {
        Some(t) => types::from_proto(t, &ctx.time_zone)?,
        None => DataType::Null,
    };
    if !matches!(output_type, DataType::Struct(_) | DataType::Null) {
        return invalid(format!(
            "the returnType of Python UDTF {} is not a struct",
            f.function_name
        ));
    }
    Ok(spec::PythonUdf {
        name: f.function_name.clone(),
        function: ember_execution::python::PythonFunction {
            eval_type: udtf.eval_type,
            command: udtf.command.as_slice().into(),
            python_ver: udtf.python_ver.clone(),
            artifacts: ctx.python_artifacts.clone(),
        },
        output_type,
        deterministic: f.deterministic,
    })
}
