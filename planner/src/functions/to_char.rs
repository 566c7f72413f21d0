//! `to_char(expr, format)` / `to_varchar`, dispatched on the value's type as Spark's
//! `ToCharacterBuilder` does: dates and timestamps as `date_format`, binary as `base64`, `hex`
//! or `decode(.., 'utf-8')`, numbers (as decimals) with Spark's number format.

use arrow::datatypes::DataType;
use datafusion::common::ScalarValue;
use datafusion::logical_expr::{Expr, cast, lit, try_cast};

use super::native::{Native, NativeUdf, NumberPattern};
use super::{FunctionInput, Naming, RegistryBuilder};
use crate::error::{ErrorKind, PlanResult, SparkError};
use crate::types::is_binary;

pub(super) fn register(b: &mut RegistryBuilder) {
    b.scalar_named(&["to_char", "to_varchar"], Naming::Typed(name), to_char);
}

fn is_datetime(t: &DataType) -> bool {
    matches!(t, DataType::Date32 | DataType::Timestamp(..))
}

/// Spark names the call after the expression it becomes.
/// (`to_varchar` of binary keeps its own name.)
fn name(written: &str, args: &[String], types: &[DataType]) -> String {
    let varchar = written.eq_ignore_ascii_case("to_varchar");
    match (types.first(), args) {
        (Some(t), _) if is_datetime(t) => format!("date_format({})", args.join(", ")),
        (Some(t), [value, format]) if is_binary(t) => {
            let kind = format.trim().to_lowercase();
            let function = match kind.as_str() {
                _ if varchar => "to_varchar",
                "base64" | "hex" => kind.as_str(),
                _ => "decode",
            };
            match kind.as_str() {
                "base64" | "hex" => format!("{function}({value})"),
                _ => format!("{function}({value}, {format})"),
            }
        }
        _ => format!("to_char({})", args.join(", ")),
    }
}

/// The call of the registered function `name` with `f`'s arguments.
fn call(name: &str, f: FunctionInput) -> PlanResult<Expr> {
    match super::registry().get(name) {
        Some(def) => (def.build)(FunctionInput { name, ..f }),
        None => Err(crate::error::PlanError::Unsupported(name.to_string())),
    }
}

fn literal_text(e: &Expr) -> Option<Option<String>> {
    match e {
        Expr::Literal(
            ScalarValue::Utf8(s) | ScalarValue::LargeUtf8(s) | ScalarValue::Utf8View(s),
            _,
        ) => Some(s.clone()),
        Expr::Literal(ScalarValue::Null, _) => Some(None),
        // (A typed NULL, `CAST(NULL AS STRING)`, is a constant too.)
        e if super::is_null_constant(e) => Some(None),
        _ => None,
    }
}

/// The number format (argument 1) of `to_char` or `to_number`: None for NULL; one that is
/// not a constant is DATATYPE_MISMATCH.NON_FOLDABLE_INPUT.
pub(super) fn number_format(f: &FunctionInput) -> PlanResult<Option<String>> {
    super::require_type(f, 1, &["STRING"], super::atomic)?;
    // (A constant of another atomic type is read as its text, as Spark casts it.)
    let constant = || {
        let (e, t) = (f.args.get(1)?, f.types.get(1)?);
        super::constant_text(e, t, &f.config.time_zone).map(Some)
    };
    match f.args.get(1).and_then(literal_text).or_else(constant) {
        Some(format) => Ok(format),
        None => {
            let arg = f.field_names.get(1).cloned().flatten().unwrap_or_default();
            Err(SparkError::analysis(
                "DATATYPE_MISMATCH.NON_FOLDABLE_INPUT",
                "42K09",
                format!(
                    "Cannot resolve \"{}\" due to data type mismatch: the input `format` should be a foldable \"STRING\" expression; however, got \"{arg}\".",
                    f.name
                ),
            )
            .into())
        }
    }
}

fn to_char(f: FunctionInput) -> PlanResult<Expr> {
    f.arity(2, 2)?;
    let value_type = f.types[0].clone();
    if is_datetime(&value_type) {
        // (date_format's format is STRING: an atomic constant is read as its text, as Spark
        // casts it; an ARRAY, MAP or STRUCT is refused.)
        super::require_type(&f, 1, &["STRING"], super::atomic)?;
        let format = match (f.args.get(1), f.types.get(1)) {
            (Some(e), Some(t)) if !crate::types::is_text(t) && *t != DataType::Null => {
                super::constant_text(e, t, &f.config.time_zone)
            }
            _ => None,
        };
        let mut f = f;
        if let (Some(format), Some(arg), Some(t)) = (format, f.args.get_mut(1), f.types.get_mut(1))
        {
            *arg = lit(ScalarValue::Utf8(Some(format)));
            *t = DataType::Utf8;
        }
        return call("date_format", f);
    }
    let format = literal_text(&f.args[1]);
    if is_binary(&value_type) {
        // (An untyped NULL is not a foldable STRING.)
        let untyped = matches!(f.args[1], Expr::Literal(ScalarValue::Null, _));
        let format = match format.filter(|_| !untyped) {
            Some(Some(format)) => format,
            Some(None) => {
                return Err(SparkError::new(
                    ErrorKind::Analysis,
                    "INVALID_PARAMETER_VALUE.NULL",
                    "22023",
                    format!(
                        "The value of parameter(s) `format` in `{}` is invalid: expects a non-NULL value.",
                        f.name
                    ),
                    vec![],
                )
                .into());
            }
            None => {
                return Err(SparkError::new(
                    ErrorKind::Analysis,
                    "NON_FOLDABLE_ARGUMENT",
                    "42K08",
                    format!(
                        "The function `{}` requires the parameter `format` to be a foldable expression of the type \"STRING\", but the actual argument is a non-foldable.",
                        f.name
                    ),
                    vec![],
                )
                .into());
            }
        };
        return match format.trim().to_lowercase().as_str() {
            "base64" => call("base64", FunctionInput { args: vec![f.args[0].clone()], types: vec![value_type], ..f }),
            "hex" => call("hex", FunctionInput { args: vec![f.args[0].clone()], types: vec![value_type], ..f }),
            "utf-8" => call("decode", f),
            other => Err(SparkError::new(
                ErrorKind::Analysis,
                "INVALID_PARAMETER_VALUE.BINARY_FORMAT",
                "22023",
                format!(
                    "The value of parameter(s) `format` in `{}` is invalid: expects one of binary formats 'base64', 'hex', 'utf-8', but got '{other}'.",
                    f.name
                ),
                vec![],
            )
            .into()),
        };
    }
    // Numbers as decimals (Spark's implicit cast to DECIMAL).
    let decimal = match &value_type {
        DataType::Decimal128(..) | DataType::Null => None,
        DataType::Int8 => Some(DataType::Decimal128(3, 0)),
        DataType::Int16 => Some(DataType::Decimal128(5, 0)),
        DataType::Int32 => Some(DataType::Decimal128(10, 0)),
        DataType::Int64 => Some(DataType::Decimal128(20, 0)),
        DataType::Float32 => Some(DataType::Decimal128(14, 7)),
        DataType::Float64 => Some(DataType::Decimal128(30, 15)),
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => {
            Some(DataType::Decimal128(38, 18))
        }
        _ => {
            super::check_type(&f, 0, &["DECIMAL"], |_| false)?;
            None
        }
    };
    let pattern = match number_format(&f)? {
        Some(format) => NumberPattern::new(&format)?,
        None => return Ok(lit(ScalarValue::Utf8(None))),
    };
    let value = f.args[0].clone();
    let value = match (decimal, &value_type) {
        (None, DataType::Null) => return Ok(lit(ScalarValue::Utf8(None))),
        (None, _) => value,
        // NaN and infinities have no decimal: NULL, as Spark casts them.
        (Some(d), DataType::Float32 | DataType::Float64) => {
            let double = cast(value.clone(), DataType::Float64);
            let nan = super::df_udf("isnan")?.call(vec![double.clone()]);
            let finite = nan
                .is_false()
                .and(double.clone().not_eq(lit(f64::INFINITY)))
                .and(double.clone().not_eq(lit(f64::NEG_INFINITY)));
            let null = lit(ScalarValue::Float64(None));
            cast(super::when(finite, double, Some(null)), d)
        }
        // Text outside ANSI mode: NULL where it is not a number, as Spark's implicit cast.
        (Some(d), t) if crate::types::is_text(t) && !f.config.ansi => try_cast(value, d),
        (Some(d), _) => cast(value, d),
    };
    Ok(NativeUdf::udf(Native::ToChar { pattern }).call(vec![value]))
}
