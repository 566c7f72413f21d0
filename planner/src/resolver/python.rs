//! Python UDF calls (`udf`, `pandas_udf`, `arrow_udf`, and functions the session registered
//! with `spark.udf.register`): resolved into a call of a [`PythonScalarUdf`], named as Spark
//! names them (`plus_one(id)`).

use datafusion::common::DFSchema;
use datafusion::logical_expr::Expr;
use datafusion::logical_expr::expr::ScalarFunction;
use ember_execution::python;

use super::Resolver;
use super::names::Named;
use crate::error::{PlanResult, unsupported};
use crate::functions::python::PythonScalarUdf;
use crate::spec::{self, Expr as SExpr};

/// What the eval types Ember does not run yet are, for the `not supported` message.
fn eval_type_name(eval_type: i32) -> String {
    match eval_type {
        201 => "grouped map pandas_udf".into(),
        202 => "grouped aggregate pandas_udf".into(),
        203 => "window aggregate pandas_udf".into(),
        205 => "mapInPandas".into(),
        206 => "cogrouped applyInPandas".into(),
        207 => "mapInArrow".into(),
        252 | 253 => "aggregate arrow_udf".into(),
        300..=303 => "Python UDTF".into(),
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
        if !python::is_scalar_eval_type(udf.function.eval_type) {
            return unsupported(format!(
                "{} ({})",
                eval_type_name(udf.function.eval_type),
                udf.name
            ));
        }
        let mut args = Vec::with_capacity(call.args.len());
        let mut names = Vec::with_capacity(call.args.len());
        for a in &call.args {
            if matches!(a, SExpr::NamedArgument { .. }) {
                return unsupported(format!("keyword arguments of Python UDF {}", udf.name));
            }
            let (e, n) = self.resolve_expr(a, schema)?;
            args.push(e);
            names.push(n);
        }
        let function = PythonScalarUdf::new(
            udf.name.clone(),
            udf.function.clone(),
            udf.output_type.clone(),
            self.config.python.clone(),
            self.config.arrow_batch_size,
            udf.deterministic,
        )
        .udf();
        let name = format!("{}({})", udf.name, names.join(", "));
        Ok((
            Expr::ScalarFunction(ScalarFunction::new_udf(function, args)),
            name,
        ))
    }
}
