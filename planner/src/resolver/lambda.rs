//! Higher-order functions: `transform`, `filter`, `exists` and `forall` with a lambda
//! function, onto DataFusion's `array_transform`, `array_filter` and `array_any_match`
//! (`forall(a, p)` is `NOT exists(a, NOT p)`, which keeps Spark's NULLs). Lambda variables
//! are in scope while their body is resolved and shadow columns of the same name, as in Spark.

use std::sync::Arc;

use arrow::datatypes::{DataType, Field};
use datafusion::common::DFSchema;
use datafusion::functions_nested::{array_any_match, array_filter, array_transform};
use datafusion::logical_expr::expr::{HigherOrderFunction, Lambda, LambdaVariable};
use datafusion::logical_expr::{Expr, ExprSchemable, HigherOrderUDF};

use super::Resolver;
use super::names::Named;
use crate::error::{PlanError, PlanResult, SparkError};
use crate::spec::{self, Expr as SExpr};
use crate::types;

impl Resolver<'_> {
    /// A lambda variable in scope named `name`, innermost first.
    pub(crate) fn lambda_variable(&self, name: &[String]) -> Option<Named> {
        let [name] = name else {
            return None;
        };
        let (_, field) = self
            .lambda_variables
            .iter()
            .rev()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))?;
        Some((
            Expr::LambdaVariable(LambdaVariable::new(
                field.name().clone(),
                Some(field.clone()),
            )),
            "namedlambdavariable()".to_string(),
        ))
    }

    /// `name(array, x -> body)`.
    pub(crate) fn higher_order_function(
        &mut self,
        name: &str,
        call: &spec::FunctionCall,
        schema: &DFSchema,
    ) -> PlanResult<Named> {
        let function: Arc<HigherOrderUDF> = match name {
            "transform" => array_transform::array_transform_higher_order_function(),
            "filter" => array_filter::array_filter_higher_order_function(),
            "exists" | "forall" => array_any_match::array_any_match_higher_order_function(),
            other => {
                return Err(PlanError::Unsupported(format!(
                    "the higher-order function {other}"
                )));
            }
        };
        let [
            array,
            SExpr::Lambda {
                function: body,
                args: params,
            },
        ] = call.args.as_slice()
        else {
            return Err(SparkError::analysis(
                "WRONG_NUM_ARGS.WITHOUT_SUGGESTION",
                "42605",
                format!(
                    "The `{name}` requires 2 parameters but the actual number is {}.",
                    call.args.len()
                ),
            )
            .into());
        };
        let [param] = params.as_slice() else {
            return Err(PlanError::Unsupported(format!(
                "{name} with a lambda function of {} arguments",
                params.len()
            )));
        };
        let (array, array_name) = self.resolve_expr(array, schema)?;
        let item = match array.get_type(schema)? {
            DataType::List(item) | DataType::LargeList(item) => item,
            other => {
                return Err(SparkError::analysis(
                    "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
                    "42K09",
                    format!(
                        "Cannot resolve \"{name}({array_name}, ...)\" due to data type mismatch: the first parameter requires the \"ARRAY\" type, however \"{array_name}\" has the type \"{}\".",
                        types::sql_name(&other)
                    ),
                )
                .into());
            }
        };
        // A name of its own, so that nested lambdas with the same parameter never clash.
        self.next_id += 1;
        let internal = format!("{param}@{}", self.next_id);
        let field = Arc::new(Field::new(&internal, item.data_type().clone(), true));
        self.lambda_variables.push((param.clone(), field));
        let resolved = self.resolve_expr(body, schema);
        self.lambda_variables.pop();
        let (body, body_name) = resolved?;
        let body = if name == "forall" {
            Expr::Not(Box::new(body))
        } else {
            body
        };
        let call = Expr::HigherOrderFunction(HigherOrderFunction::new(
            function,
            vec![array, Expr::Lambda(Lambda::new(vec![internal], body))],
        ));
        let out = if name == "forall" {
            Expr::Not(Box::new(call))
        } else {
            call
        };
        Ok((
            out,
            format!("{name}({array_name}, lambdafunction({body_name}, namedlambdavariable()))"),
        ))
    }
}
