//! `reflect`, `java_method` and `try_reflect`: calls of JDK static methods (`native::reflect`).

use arrow::datatypes::DataType;
use datafusion::common::ScalarValue;
use datafusion::logical_expr::Expr;

use super::native::reflect::{JavaType, ReflectCall, find, known_class};
use super::native::{Native, NativeUdf};
use super::{FunctionInput, RegistryBuilder};
use crate::error::{PlanError, PlanResult, SparkError};
use crate::types::sql_name;

fn mismatch(f: &FunctionInput, class: &str, message: String) -> PlanError {
    SparkError::analysis(
        &format!("DATATYPE_MISMATCH.{class}"),
        "42K09",
        format!(
            "Cannot resolve \"{}\" due to data type mismatch: {message}",
            f.name
        ),
    )
    .into()
}

/// The constant string argument `i` (the class or the method name).
fn constant(f: &FunctionInput, i: usize, what: &str) -> PlanResult<String> {
    match f.args.get(i) {
        Some(Expr::Literal(ScalarValue::Utf8(Some(s)) | ScalarValue::Utf8View(Some(s)), _)) => {
            Ok(s.clone())
        }
        _ => {
            let arg = f.field_names.get(i).cloned().flatten().unwrap_or_default();
            Err(mismatch(
                f,
                "NON_FOLDABLE_INPUT",
                format!(
                    "the input `{what}` should be a foldable \"STRING\" expression; however, got \"{arg}\"."
                ),
            ))
        }
    }
}

fn build(mut f: FunctionInput, fail: bool) -> PlanResult<Expr> {
    f.arity(2, usize::MAX)?;
    let class = constant(&f, 0, "class")?;
    let method = constant(&f, 1, "method")?;
    let ordinals = ["third", "fourth", "fifth", "sixth", "seventh", "eighth"];
    let mut params = Vec::new();
    for (i, t) in f.types.iter().enumerate().skip(2) {
        let accepted = matches!(
            t,
            DataType::Boolean
                | DataType::Int8
                | DataType::Int16
                | DataType::Int32
                | DataType::Int64
                | DataType::Float32
                | DataType::Float64
                | DataType::Utf8
                | DataType::LargeUtf8
                | DataType::Utf8View
                | DataType::Null
        );
        if !accepted {
            let arg = f.field_names.get(i).cloned().flatten().unwrap_or_default();
            return Err(mismatch(
                &f,
                "UNEXPECTED_INPUT_TYPE",
                format!(
                    "The {} parameter requires the (\"BOOLEAN\" or \"TINYINT\" or \"SMALLINT\" or \"INT\" or \"BIGINT\" or \"FLOAT\" or \"DOUBLE\" or \"STRING\") type, however \"{arg}\" has the type \"{}\".",
                    ordinals.get(i - 2).copied().unwrap_or("next"),
                    sql_name(t)
                ),
            ));
        }
        // A NULL literal is a String (Spark's NullType argument matches no primitive).
        params.push(JavaType::of(t).unwrap_or(JavaType::String));
    }
    if !known_class(&class) {
        return Err(PlanError::Unsupported(format!(
            "{}('{class}', '{method}'): Ember calls methods of java.util.UUID, java.lang.Math, \
             Integer, Long, Double, Boolean, String, java.net.URLEncoder and URLDecoder",
            f.name
        )));
    }
    if !find(&class, &method, &params) {
        let named = super::native::reflect::has_method(&class, &method);
        if !named {
            return Err(PlanError::Unsupported(format!(
                "{}('{class}', '{method}'): a method Ember does not call",
                f.name
            )));
        }
        return Err(mismatch(
            &f,
            "UNEXPECTED_STATIC_METHOD",
            format!(
                "cannot find a static method {method} that matches the argument types in {class}."
            ),
        ));
    }
    let call = ReflectCall {
        class,
        method,
        params,
        fail,
    };
    let mut args = f.args.split_off(2);
    if args.is_empty() {
        // A call needs an argument to be evaluated per row; the class name is ignored.
        args.push(datafusion::logical_expr::lit(call.class.clone()));
    }
    Ok(NativeUdf::udf(Native::Reflect { call }).call(args))
}

pub fn register(b: &mut RegistryBuilder) {
    b.scalar(&["reflect", "java_method"], |f| build(f, true));
    b.scalar(&["try_reflect"], |f| build(f, false));
}
