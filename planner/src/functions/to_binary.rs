//! `to_binary(str[, format])` and `try_to_binary`: hex (the default), base64 or the UTF-8
//! bytes of text. The format is a constant string, checked as Spark's `ToBinary` checks it.

use datafusion::common::ScalarValue;
use datafusion::logical_expr::{Expr, lit};

use super::native::{BinaryFormat, Native, NativeUdf};
use super::{FunctionInput, RegistryBuilder};
use crate::error::{PlanError, SparkError};

pub fn register(b: &mut RegistryBuilder) {
    // try_to_binary reads malformed text, and a format that is no format, as NULL.
    for (name, fail) in [("to_binary", true), ("try_to_binary", false)] {
        b.scalar(&[name], move |f| {
            f.arity(1, 2)?;
            let format = match f.args.get(1) {
                None => BinaryFormat::parse("hex"),
                // (A NULL format: NULL.)
                Some(e) if super::is_null_constant(e) => {
                    return Ok(lit(ScalarValue::Binary(None)));
                }
                Some(Expr::Literal(ScalarValue::Utf8(Some(v)), _)) => BinaryFormat::parse(v),
                Some(Expr::Literal(..)) => None,
                Some(e) if !e.column_refs().is_empty() => {
                    return Err(mismatch(
                        &f,
                        "NON_FOLDABLE_INPUT",
                        format!(
                            "the input `fmt` should be a foldable \"STRING\" expression; however, got \"{}\".",
                            f.arg_name(1)
                        ),
                    ));
                }
                Some(_) => {
                    return Err(PlanError::Unsupported(format!(
                        "{name} with a computed format"
                    )));
                }
            };
            let Some(format) = format else {
                if !fail {
                    return Ok(lit(ScalarValue::Binary(None)));
                }
                return Err(mismatch(
                    &f,
                    "INVALID_ARG_VALUE",
                    format!(
                        "The fmt value must be a case-insensitive \"STRING\" literal of 'hex', 'utf-8', 'utf8', or 'base64', but got {}.",
                        f.arg_name(1)
                    ),
                ));
            };
            Ok(NativeUdf::udf(Native::ToBinary { format, fail }).call(vec![f.args[0].clone()]))
        });
    }
}

/// Spark's DATATYPE_MISMATCH.`class` of `to_binary(...)`.
fn mismatch(f: &FunctionInput, class: &str, why: String) -> PlanError {
    SparkError::analysis(
        &format!("DATATYPE_MISMATCH.{class}"),
        "42K09",
        format!(
            "Cannot resolve \"{}\" due to data type mismatch: {why}",
            f.shown()
        ),
    )
    .into()
}
