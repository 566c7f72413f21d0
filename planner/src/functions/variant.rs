//! Spark's VARIANT functions: `parse_json`, `variant_get`, `schema_of_variant`, ... (the
//! values themselves are read and written in `native::variant`).

use arrow::datatypes::DataType;
use datafusion::common::ScalarValue;
use datafusion::logical_expr::Expr;

use super::native::{EditKind, Native, NativeUdf, VariantOp};
use super::{FunctionInput, Naming, RegistryBuilder, check_type};
use crate::error::{PlanError, PlanResult, SparkError};
use crate::types::{is_text, is_variant};

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
    register_edits(b);
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

/// `variant_set(v, path, value)` and `variant_strip_nulls(v)` are named with their default
/// flag.
fn with_flag(written: &str, args: &[String], _distinct: bool) -> String {
    let arity = match written.to_ascii_lowercase().as_str() {
        "variant_strip_nulls" => 2,
        _ => 4,
    };
    let mut args = args.to_vec();
    if args.len() < arity {
        args.push("true".to_string());
    }
    format!("{}({})", written.to_lowercase(), args.join(", "))
}

/// The constant BOOLEAN argument `i` named `what` (true when absent; None for NULL).
fn flag(f: &FunctionInput, i: usize, what: &str) -> PlanResult<Option<bool>> {
    let Some(arg) = f.args.get(i) else {
        return Ok(Some(true));
    };
    check_type(f, i, &["BOOLEAN"], |t| *t == DataType::Boolean)?;
    match arg {
        Expr::Literal(ScalarValue::Boolean(b), _) => Ok(*b),
        Expr::Literal(ScalarValue::Null, _) => Ok(None),
        other => Err(SparkError::analysis(
            "DATATYPE_MISMATCH.NON_FOLDABLE_INPUT",
            "42K09",
            format!(
                "Cannot resolve \"{}\" due to data type mismatch: the input `{what}` should be a foldable \"BOOLEAN\" expression; however, got \"{}\".",
                f.name,
                f.field_names.get(i).cloned().flatten().unwrap_or_else(|| other.to_string())
            ),
        )
        .into()),
    }
}

/// Spark 4.3's edits of a variant at a path (see `native::variant::edit`).
fn register_edits(b: &mut RegistryBuilder) {
    for (name, kind, fail) in [
        ("variant_insert", EditKind::Insert, true),
        ("try_variant_insert", EditKind::Insert, false),
        ("variant_set", EditKind::Set { create: true }, true),
        ("try_variant_set", EditKind::Set { create: true }, false),
        ("variant_array_append", EditKind::Append, true),
        ("try_variant_array_append", EditKind::Append, false),
    ] {
        let naming = match kind {
            EditKind::Set { .. } => Naming::Custom(with_flag),
            _ => Naming::Call,
        };
        b.scalar_named(&[name], naming, move |f| {
            let settable = matches!(kind, EditKind::Set { .. });
            f.arity(3, if settable { 4 } else { 3 })?;
            variant_argument(&f)?;
            check_type(&f, 1, &["STRING"], is_text)?;
            let kind = match (kind, flag(&f, 3, "create_if_missing")?) {
                (EditKind::Set { .. }, Some(create)) => EditKind::Set { create },
                (_, None) => return null_variant(),
                (other, _) => other,
            };
            let from = f.types.get(2).cloned().unwrap_or(DataType::Null);
            let mut args = f.args.into_iter();
            let (Some(v), Some(path), Some(value)) = (args.next(), args.next(), args.next()) else {
                return Err(PlanError::InvalidPlan(name.into()));
            };
            let value = to_variant(value, &from, false)?;
            Ok(edit(kind, fail, name, vec![v, path, value]))
        });
    }
    b.scalar(&["variant_delete"], |f| {
        f.arity(2, usize::MAX)?;
        variant_argument(&f)?;
        for i in 1..f.args.len() {
            check_type(&f, i, &["STRING"], is_text)?;
        }
        Ok(edit(EditKind::Delete, true, "variant_delete", f.args))
    });
    b.scalar_named(
        &["variant_strip_nulls"],
        Naming::Custom(with_flag),
        |mut f| {
            f.arity(1, 2)?;
            variant_argument(&f)?;
            let Some(arrays) = flag(&f, 1, "include_arrays")? else {
                return null_variant();
            };
            f.args.truncate(1);
            Ok(call(VariantOp::StripNulls { arrays }, f.args))
        },
    );
}

fn edit(kind: EditKind, fail: bool, function: &str, args: Vec<Expr>) -> Expr {
    call(
        VariantOp::Edit {
            kind,
            fail,
            function: function.to_string(),
        },
        args,
    )
}

/// A NULL of the VARIANT type (a NULL flag makes the call NULL).
fn null_variant() -> PlanResult<Expr> {
    Ok(datafusion::logical_expr::cast(
        Expr::Literal(ScalarValue::Null, None),
        crate::types::variant_type(),
    ))
}
