//! Spark's nullability of casts: which casts may answer NULL for a value (its
//! `Cast.forceNullable`, and the casts outside ANSI mode and TRY_CASTs that do), and the cast
//! with that nullability stated.

use arrow::datatypes::DataType;
use datafusion::common::{DFSchema, Result};
use datafusion::logical_expr::{Expr, ExprSchemable};

use super::nullability::with_nullability;
use crate::types::{is_binary, is_text};

/// How a cast answers a value it cannot convert, for [`cast`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CastNulls {
    /// An error (ANSI mode).
    Fails,
    /// NULL or Spark's legacy value (a cast outside ANSI mode).
    Legacy,
    /// NULL (TRY_CAST).
    Try,
}

/// A cast (`out`) of a value of type `from` with Spark's nullability: NULL where the value
/// is, and where the cast may fail to NULL (outside ANSI mode and in TRY_CAST, whose NULLs
/// Ember's cast may answer for other values too: only made nullable; a cast that cannot
/// fail, [`lossless_cast`], keeps its value's nullability, and so do the legacy casts Ember
/// answers as Spark, [`legacy_exact`]).
pub fn cast(
    out: Expr,
    from: &DataType,
    inner_nullable: bool,
    mode: CastNulls,
    schema: &DFSchema,
) -> Result<Expr> {
    let to = out.get_type(schema)?;
    let r#try = match mode {
        CastNulls::Fails => false,
        // (Spark's legacy cast to text answers for every value but a VARIANT's.)
        CastNulls::Legacy => {
            !lossless_cast(from, &to)
                && !legacy_exact(from, &to)
                && (!is_text(&to) || crate::types::is_variant(from))
        }
        CastNulls::Try => !lossless_cast(from, &to) && !try_cast_total(from, &to),
    };
    let spark = r#try || inner_nullable || cast_may_fail(from, &to);
    // (VARIANT and spatial values are structs to Arrow; Spark's rules name other types.)
    let opaque =
        |t: &DataType| crate::types::is_variant(t) || crate::types::spatial_of(t).is_some();
    if !spark && (r#try || opaque(from) || opaque(&to)) {
        return Ok(out);
    }
    with_nullability(out, spark, schema)
}

/// Whether Spark calls a TRY_CAST from `from` to `to` as nullable as its value: to text from
/// any type but arrays, maps and structs, and from text to binary.
fn try_cast_total(from: &DataType, to: &DataType) -> bool {
    let nested = matches!(
        from,
        DataType::List(_) | DataType::LargeList(_) | DataType::Struct(_) | DataType::Map(..)
    );
    (is_text(to) && !nested) || (is_text(from) && is_binary(to))
}

/// Whether Spark's legacy cast (outside ANSI mode) from `from` to `to` answers a value for
/// every value, and Ember's answers the same: integers to narrower integers (they wrap),
/// integers to a TIMESTAMP (the microseconds saturate), a DECIMAL whose seconds stay within
/// a TIMESTAMP's microseconds to a TIMESTAMP (Spark's beyond them wrap), a TIMESTAMP to a
/// BIGINT (its seconds), DOUBLE to FLOAT (infinity beyond).
pub fn legacy_exact(from: &DataType, to: &DataType) -> bool {
    use DataType::*;
    let integral = |t: &DataType| matches!(t, Int8 | Int16 | Int32 | Int64);
    let zoned = |t: &DataType| matches!(t, Timestamp(_, Some(_)));
    // (A DECIMAL's microseconds wrap past a BIGINT, as Spark's `BigDecimal.longValue`.)
    (integral(from) && integral(to))
        || ((integral(from) || matches!(from, Decimal128(..))) && zoned(to))
        || (zoned(from) && to == &Int64)
        || (from == &Float64 && to == &Float32)
        || (matches!(from, Decimal128(..) | Decimal256(..)) && matches!(to, Float32 | Float64))
}

/// Spark's `Cast.forceNullable`: whether a cast from `from` to `to` may answer NULL for a
/// value (text that is no number, a NaN to an integer, a number beyond a DECIMAL).
pub fn cast_may_fail(from: &DataType, to: &DataType) -> bool {
    use DataType::*;
    let text = is_text;
    let integral = |t: &DataType| matches!(t, Int8 | Int16 | Int32 | Int64);
    let fractional = |t: &DataType| {
        matches!(
            t,
            Float16 | Float32 | Float64 | Decimal128(..) | Decimal256(..)
        )
    };
    if from == to {
        return false;
    }
    match (from, to) {
        (Null, _) => false,
        (List(a), List(b)) | (LargeList(a), LargeList(b)) => {
            cast_may_fail(a.data_type(), b.data_type())
        }
        (Struct(a), Struct(b)) => a
            .iter()
            .zip(b.iter())
            .any(|(x, y)| cast_may_fail(x.data_type(), y.data_type())),
        (Map(a, _), Map(b, _)) => cast_may_fail(a.data_type(), b.data_type()),
        (f, Binary | LargeBinary | BinaryView) if text(f) => false,
        (f, t) if text(f) && text(t) => false,
        (f, _) if text(f) => true,
        (_, t) if text(t) => false,
        // (Spark's rules name TIMESTAMP, not TIMESTAMP_NTZ, for the casts between dates and
        // timestamps that cannot fail.)
        (Timestamp(..), Int8 | Int16 | Int32) => true,
        (Float32 | Float64, Timestamp(..)) => true,
        (Timestamp(_, Some(_)), Date32) => false,
        (_, Date32) => true,
        (Date32, Timestamp(_, Some(_))) => false,
        (Date32, _) => true,
        (_, Decimal128(p, s)) => !fits_decimal(from, *p, *s),
        (f, t) if fractional(f) && integral(t) => true,
        _ => false,
    }
}

/// Whether every value casts from `from` to `to` without failing, so a cast outside
/// ANSI mode needs no TRY_CAST (which would make its value nullable where Spark's is not):
/// the same type but for its nested nullability (`array<int>` holding no NULL to one that
/// may), integers to wider integers or to floating-point numbers, FLOAT to DOUBLE, and
/// integers or decimals to a DECIMAL that holds them.
pub fn lossless_cast(from: &DataType, to: &DataType) -> bool {
    use DataType::*;
    let rank = |t: &DataType| match t {
        Int8 => Some(1),
        Int16 => Some(2),
        Int32 => Some(3),
        Int64 => Some(4),
        _ => None,
    };
    if from == to {
        return true;
    }
    match (from, to) {
        (List(a), List(b)) | (LargeList(a), LargeList(b)) => {
            lossless_cast(a.data_type(), b.data_type())
        }
        (Struct(a), Struct(b)) => {
            a.len() == b.len()
                && a.iter().zip(b.iter()).all(|(x, y)| {
                    x.name() == y.name() && lossless_cast(x.data_type(), y.data_type())
                })
        }
        (Map(a, x), Map(b, y)) => x == y && lossless_cast(a.data_type(), b.data_type()),
        (Float32, Float64) => true,
        (f, Float32 | Float64) if rank(f).is_some() => true,
        (f, t) if rank(f).is_some() && rank(t).is_some() => rank(f) <= rank(t),
        (Int8 | Int16 | Int32 | Int64 | Decimal128(..), Decimal128(p, s)) => {
            fits_decimal(from, *p, *s)
        }
        _ => false,
    }
}

/// Spark's `canNullSafeCastToDecimal`.
fn fits_decimal(from: &DataType, precision: u8, scale: i8) -> bool {
    use DataType::*;
    let digits = i32::from(precision) - i32::from(scale);
    match from {
        Boolean => true,
        Int8 => digits >= 3,
        Int16 => digits >= 5,
        Int32 => digits >= 10,
        Int64 => digits >= 20,
        Decimal128(p, s) => digits >= i32::from(*p) - i32::from(*s) && scale >= *s,
        _ => false,
    }
}
