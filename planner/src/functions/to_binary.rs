//! `to_binary(str[, format])` and `try_to_binary`: hex (the default), base64 or the UTF-8
//! bytes of text. The format is a constant string, checked as Spark's `ToBinary` checks it.

use datafusion::common::ScalarValue;
use datafusion::logical_expr::{Expr, lit};

use super::native::{BinaryFormat, Native, NativeUdf};
use super::{FunctionInput, RegistryBuilder};
use crate::error::{PlanError, PlanResult, SparkError};

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
                Some(_) => {
                    super::require_foldable(&f, 1, "fmt", "STRING")?;
                    // (A constant of another type is no format either.)
                    if !f.types.get(1).is_some_and(crate::types::is_text) {
                        return invalid(&f, fail);
                    }
                    return Err(PlanError::Unsupported(format!(
                        "{name} with a computed format"
                    )));
                }
            };
            let Some(format) = format else {
                return invalid(&f, fail);
            };
            Ok(NativeUdf::udf(Native::ToBinary { format, fail }).call(vec![f.args[0].clone()]))
        });
    }
}

/// A format that is no format: NULL from try_to_binary, Spark's INVALID_ARG_VALUE from
/// to_binary.
fn invalid(f: &FunctionInput, fail: bool) -> PlanResult<Expr> {
    if !fail {
        return Ok(lit(ScalarValue::Binary(None)));
    }
    Err(SparkError::analysis(
        "DATATYPE_MISMATCH.INVALID_ARG_VALUE",
        "42K09",
        format!(
            "Cannot resolve \"{}\" due to data type mismatch: The fmt value must be a case-insensitive \"STRING\" literal of 'hex', 'utf-8', 'utf8', or 'base64', but got {}.",
            f.shown(),
            f.arg_name(1)
        ),
    )
    .into())
}
