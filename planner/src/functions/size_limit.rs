//! Caps on the size one value may take, checked before it is built: `repeat`, `lpad`, `rpad`
//! and `space` make strings of at most [`MAX_STRING_BYTES`], `array_repeat` and `array_insert`
//! (whose position past the end pads with NULLs) arrays of at most [`MAX_ARRAY_ELEMENTS`]. Beyond them the query fails with an error naming the function,
//! rather than the process trying (and failing, which aborts it) to allocate gigabytes.
//! Spark's own ceiling is 2 GiB per value (past it the JVM answers "Requested array size
//! exceeds VM limit"), and `array_repeat` past 2,147,483,632 elements fails with
//! COLLECTION_SIZE_LIMIT_EXCEEDED.PARAMETER; Ember stops earlier.

use arrow::datatypes::DataType;
use datafusion::logical_expr::{Expr, cast, lit, when};

use super::{FunctionInput, RegistryBuilder};

/// Bytes of one string value (1 GiB).
pub const MAX_STRING_BYTES: i64 = 1 << 30;
/// Elements of one array value.
pub const MAX_ARRAY_ELEMENTS: i64 = 1 << 28;

/// What one unit of the count costs.
#[derive(Clone, Copy)]
enum Unit {
    /// One (a character, an element).
    One,
    /// The bytes of the given argument (`repeat`'s string).
    BytesOf(usize),
    /// One, counted from either end (`array_insert`'s position, which pads with NULLs).
    Magnitude,
}

/// Wrap the registered functions' count arguments in their checks.
pub(super) fn register(b: &mut RegistryBuilder) {
    guard(b, "repeat", 1, Unit::BytesOf(0), MAX_STRING_BYTES, "bytes");
    guard(b, "lpad", 1, Unit::One, MAX_STRING_BYTES, "characters");
    guard(b, "rpad", 1, Unit::One, MAX_STRING_BYTES, "characters");
    guard(b, "space", 0, Unit::One, MAX_STRING_BYTES, "characters");
    guard(
        b,
        "array_insert",
        1,
        Unit::Magnitude,
        MAX_ARRAY_ELEMENTS,
        "elements",
    );
    guard(
        b,
        "array_repeat",
        1,
        Unit::One,
        MAX_ARRAY_ELEMENTS,
        "elements",
    );
}

fn guard(
    b: &mut RegistryBuilder,
    name: &'static str,
    at: usize,
    unit: Unit,
    max: i64,
    what: &'static str,
) {
    let Some(def) = b.functions.get_mut(name) else {
        return;
    };
    let inner = def.build.clone();
    def.build = std::sync::Arc::new(move |mut f: FunctionInput| {
        if let Some(count) = f.args.get(at).cloned() {
            let size = match unit {
                Unit::One => cast(count.clone(), DataType::Float64),
                Unit::Magnitude => {
                    super::df_udf("abs")?.call(vec![cast(count.clone(), DataType::Float64)])
                }
                Unit::BytesOf(i) => match f.args.get(i).cloned() {
                    Some(text) => {
                        let bytes = super::df_udf("octet_length")?.call(vec![text]);
                        cast(count.clone(), DataType::Float64) * cast(bytes, DataType::Float64)
                    }
                    None => cast(count.clone(), DataType::Float64),
                },
            };
            let message = format!(
                "{name} would make a value of more than {max} {what}, more than Ember allows for one value."
            );
            // (The check is per row; raise_error is never folded, so a check no row fails
            // costs nothing but the comparison.)
            let too_large = size.clone().gt(lit(max as f64));
            let checked: Expr = if what == "elements" {
                // (Spark's COLLECTION_SIZE_LIMIT_EXCEEDED, at Ember's limit.)
                super::native::fail_when(
                    too_large,
                    super::native::Failure::ArraySizeLimit,
                    vec![size, lit(name)],
                    count,
                )
            } else {
                let raise = super::udf::RaiseError::udf().call(vec![lit(message)]);
                when(too_large, raise).otherwise(count)?
            };
            f.args[at] = checked;
        }
        inner(f)
    });
}
