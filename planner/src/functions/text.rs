//! Spark 4.3's encodings, MACs and similarity of text and binary values: `to_base32`,
//! `from_base32`, `hmac` and `jaro_winkler_similarity` (computed in `native`).

use arrow::datatypes::DataType;
use datafusion::logical_expr::{Expr, cast};

use super::native::{Native, NativeUdf};
use super::{FunctionInput, Naming, RegistryBuilder, check_type};
use crate::error::PlanResult;

fn is_binary_or_text(t: &DataType) -> bool {
    matches!(
        t,
        DataType::Binary
            | DataType::LargeBinary
            | DataType::BinaryView
            | DataType::Utf8
            | DataType::LargeUtf8
            | DataType::Utf8View
    )
}

/// Scalar types, which Spark casts to STRING where one is expected.
fn is_scalar(t: &DataType) -> bool {
    !t.is_nested()
}

/// The arguments, each checked with `ok` and cast to `to` unless it already has one of `keep`.
fn args_as(
    f: FunctionInput,
    accepted: &str,
    ok: fn(&DataType) -> bool,
    keep: fn(&DataType) -> bool,
    to: DataType,
) -> PlanResult<Vec<Expr>> {
    for i in 0..f.args.len() {
        check_type(&f, i, &[accepted], ok)?;
    }
    Ok(f.args
        .into_iter()
        .zip(&f.types)
        .map(|(a, t)| if keep(t) { a } else { cast(a, to.clone()) })
        .collect())
}

/// `hmac(key, message)` is named with its default algorithm.
fn hmac_name(_: &str, args: &[String], _: bool) -> String {
    let mut args = args.to_vec();
    if args.len() < 3 {
        args.push("SHA-256".to_string());
    }
    format!("hmac({})", args.join(", "))
}

pub fn register(b: &mut RegistryBuilder) {
    b.scalar(&["to_base32"], |f| {
        f.arity(1, 1)?;
        let args = args_as(
            f,
            "BINARY",
            is_binary_or_text,
            is_binary_or_text,
            DataType::Binary,
        )?;
        Ok(NativeUdf::udf(Native::Base32 { encode: true }).call(args))
    });
    b.scalar(&["from_base32"], |f| {
        f.arity(1, 1)?;
        let args = args_as(f, "STRING", is_scalar, is_binary_or_text, DataType::Utf8)?;
        Ok(NativeUdf::udf(Native::Base32 { encode: false }).call(args))
    });
    b.scalar_named(&["hmac"], Naming::Custom(hmac_name), |f| {
        f.arity(2, 3)?;
        for i in 0..2 {
            check_type(&f, i, &["BINARY"], is_binary_or_text)?;
        }
        check_type(&f, 2, &["STRING"], is_scalar)?;
        Ok(NativeUdf::udf(Native::Hmac).call(f.args))
    });
    b.scalar(&["jaro_winkler_similarity"], |f| {
        f.arity(2, 2)?;
        let args = args_as(f, "STRING", is_scalar, is_binary_or_text, DataType::Utf8)?;
        Ok(NativeUdf::udf(Native::JaroWinkler).call(args))
    });
}
