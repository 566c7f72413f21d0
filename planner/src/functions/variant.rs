//! Spark's VARIANT functions: `parse_json`, `variant_get`, `schema_of_variant`, ... (the
//! values themselves are read and written in `native::variant`).

use arrow::datatypes::DataType;
use datafusion::common::ScalarValue;
use datafusion::logical_expr::Expr;

use super::native::{Native, NativeUdf, VariantOp};
use super::{Naming, RegistryBuilder};
use crate::error::{PlanError, PlanResult, SparkError};
use crate::types::is_variant;

fn call(op: VariantOp, args: Vec<Expr>) -> Expr {
    NativeUdf::udf(Native::Variant { op }).call(args)
}

/// DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE unless the first argument is a VARIANT.
fn variant_argument(f: &super::FunctionInput) -> PlanResult<()> {
    match f.types.first() {
        Some(t) if is_variant(t) || *t == DataType::Null => Ok(()),
        Some(t) => Err(SparkError::analysis(
            "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
            "42K09",
            format!(
                "Cannot resolve \"{}\" due to data type mismatch: The first parameter requires the \"VARIANT\" type, however the input has the type \"{}\".",
                f.name,
                crate::types::sql_name(t)
            ),
        )
        .into()),
        None => Ok(()),
    }
}

/// `variant_get(v, path)`: Spark leaves the type argument out of the column name.
fn without_type(written: &str, args: &[String], _distinct: bool) -> String {
    format!(
        "{}({})",
        written.to_lowercase(),
        args.iter().take(2).cloned().collect::<Vec<_>>().join(", ")
    )
}

/// `variant_get`/`try_variant_get` and casts from a variant: `v` read at `path` as the
/// DDL type `target` (none for VARIANT).
pub fn variant_get(
    v: Expr,
    path: Expr,
    target: Option<&DataType>,
    fail: bool,
    function: &str,
    time_zone: &str,
) -> Expr {
    let target = target
        .filter(|t| !is_variant(t))
        .map(crate::types::simple_string);
    call(
        VariantOp::Get {
            target,
            fail,
            function: function.to_string(),
            time_zone: time_zone.to_string(),
        },
        vec![v, path],
    )
}

/// `CAST(x AS VARIANT)` (`object`: `to_variant_object`, which also takes structs and maps).
pub fn to_variant(x: Expr, from: &DataType, object: bool) -> PlanResult<Expr> {
    fn nested_object(t: &DataType) -> bool {
        match t {
            DataType::Struct(_) | DataType::Map(..) => !is_variant(t),
            DataType::List(f) | DataType::LargeList(f) => nested_object(f.data_type()),
            _ => false,
        }
    }
    if !object && nested_object(from) {
        return Err(SparkError::analysis(
            "DATATYPE_MISMATCH.CAST_WITHOUT_SUGGESTION",
            "42K09",
            format!(
                "Cannot resolve \"CAST(... AS VARIANT)\" due to data type mismatch: cannot cast \"{}\" to \"VARIANT\".",
                crate::types::sql_name(from)
            ),
        )
        .into());
    }
    if is_variant(from) {
        return Ok(x);
    }
    Ok(call(VariantOp::From, vec![x]))
}

pub fn register(b: &mut RegistryBuilder) {
    for (name, fail) in [("parse_json", true), ("try_parse_json", false)] {
        b.scalar(&[name], move |f| {
            f.arity(1, 1)?;
            Ok(call(VariantOp::Parse { fail }, f.args))
        });
    }
    for (name, fail) in [("variant_get", true), ("try_variant_get", false)] {
        b.scalar_named(&[name], Naming::Custom(without_type), move |f| {
            f.arity(2, 3)?;
            variant_argument(&f)?;
            let target = match f.args.get(2) {
                None => None,
                Some(Expr::Literal(ScalarValue::Utf8(Some(t)), _)) => Some(
                    crate::types::parse_data_type(t, &f.config.time_zone).map_err(|e| {
                        let mut e = SparkError::parse_syntax(&e.to_string(), "");
                        e.kind = crate::error::ErrorKind::Analysis;
                        e
                    })?,
                ),
                Some(_) => {
                    return Err(PlanError::Unsupported(format!(
                        "{name} with a type that is not a literal string"
                    )));
                }
            };
            let mut args = f.args.into_iter();
            let (Some(v), Some(path)) = (args.next(), args.next()) else {
                return Err(PlanError::InvalidPlan(name.into()));
            };
            Ok(variant_get(
                v,
                path,
                target.as_ref(),
                fail,
                name,
                &f.config.time_zone,
            ))
        });
    }
    for (name, op) in [
        ("is_variant_null", VariantOp::IsNull),
        ("is_valid_variant", VariantOp::IsValid),
        ("schema_of_variant", VariantOp::Schema),
    ] {
        b.scalar(&[name], move |f| {
            f.arity(1, 1)?;
            variant_argument(&f)?;
            let out = call(op.clone(), f.args);
            // is_variant_null(NULL) is false.
            Ok(if matches!(op, VariantOp::IsNull) {
                super::df_udf("coalesce")?.call(vec![out, datafusion::logical_expr::lit(false)])
            } else {
                out
            })
        });
    }
    b.scalar(&["to_variant_object"], |f| {
        f.arity(1, 1)?;
        let from = f.types.first().cloned().unwrap_or(DataType::Null);
        let x = f
            .args
            .into_iter()
            .next()
            .ok_or_else(|| PlanError::InvalidPlan("to_variant_object".into()))?;
        to_variant(x, &from, true)
    });
    b.aggregate(&["schema_of_variant_agg"], |mut f| {
        f.arity(1, 1)?;
        variant_argument(&f)?;
        let values = super::aggregate::present_values(f.args.remove(0), f.filter)?;
        Ok(call(VariantOp::SchemaAgg, vec![values]))
    });
}

/// `to_json(v)` of a VARIANT.
pub fn variant_to_json(v: Expr, time_zone: &str) -> Expr {
    call(
        VariantOp::ToJson {
            time_zone: time_zone.to_string(),
        },
        vec![v],
    )
}
