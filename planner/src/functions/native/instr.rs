//! `instr(str, substr, position, occurrence)` as Spark 4.3 computes it: the 1-based character
//! position of the `occurrence`-th match of `substr`, searching forward from `position` or,
//! for a negative `position`, backward from that many characters before the end (matches
//! may overlap); 0 when there is none or `position` is 0 or beyond the text, 1 for an empty
//! `substr`; INVALID_PARAMETER_VALUE.OCCURRENCE for an occurrence below 1.

use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, Int32Builder};
use arrow::datatypes::{DataType, Int64Type};
use datafusion::common::{Result, internal_err};

use crate::error::{ErrorKind, SparkError, to_datafusion};

/// The position of the `occurrence`-th match, or 0.
fn position(text: &str, sub: &str, start: i64, occurrence: i64) -> i32 {
    if sub.is_empty() {
        return 1;
    }
    let chars: Vec<char> = text.chars().collect();
    let needle: Vec<char> = sub.chars().collect();
    let len = chars.len() as i64;
    let matches_at = |i: usize| chars[i..].starts_with(&needle);
    let found = if start > 0 {
        (start - 1..len)
            .filter(|&i| matches_at(i as usize))
            .nth((occurrence - 1) as usize)
    } else if start < 0 && -start <= len {
        (0..=len + start)
            .rev()
            .filter(|&i| matches_at(i as usize))
            .nth((occurrence - 1) as usize)
    } else {
        None
    };
    found.map_or(0, |i| (i + 1) as i32)
}

fn occurrence_error(occurrence: i64) -> datafusion::error::DataFusionError {
    to_datafusion(SparkError::new(
        ErrorKind::Runtime,
        "INVALID_PARAMETER_VALUE.OCCURRENCE",
        "22023",
        format!(
            "The value of parameter(s) `occurrence` in `instr` is invalid: expects a positive integer, but got {occurrence}."
        ),
        vec![
            ("parameter", "`occurrence`".into()),
            ("functionName", "`instr`".into()),
        ],
    ))
}

pub(super) fn evaluate(arrays: &[ArrayRef]) -> Result<ArrayRef> {
    let [text, sub, start, occurrence] = arrays else {
        return internal_err!("instr takes a text, a substring, a position and an occurrence");
    };
    let (text, sub) = (
        arrow::compute::cast(text, &DataType::Utf8)?,
        arrow::compute::cast(sub, &DataType::Utf8)?,
    );
    let (start, occurrence) = (
        arrow::compute::cast(start, &DataType::Int64)?,
        arrow::compute::cast(occurrence, &DataType::Int64)?,
    );
    let (text, sub) = (text.as_string::<i32>(), sub.as_string::<i32>());
    let (start, occurrence) = (
        start.as_primitive::<Int64Type>(),
        occurrence.as_primitive::<Int64Type>(),
    );
    let mut out = Int32Builder::with_capacity(text.len());
    for row in 0..text.len() {
        if [text.is_null(row), sub.is_null(row)]
            .into_iter()
            .chain([start.is_null(row), occurrence.is_null(row)])
            .any(|null| null)
        {
            out.append_null();
            continue;
        }
        let n = occurrence.value(row);
        if n < 1 {
            return Err(occurrence_error(n));
        }
        out.append_value(position(
            text.value(row),
            sub.value(row),
            start.value(row),
            n,
        ));
    }
    Ok(Arc::new(out.finish()))
}

#[cfg(test)]
mod tests {
    use super::position;

    #[test]
    fn searches_as_spark() {
        // (Answers of Spark 4.3.)
        let t = "aabcdabab";
        assert_eq!(position(t, "ab", 1, 1), 2);
        assert_eq!(position(t, "ab", 1, 3), 8);
        assert_eq!(position(t, "ab", 1, 4), 0);
        assert_eq!(position(t, "ab", 3, 2), 8);
        assert_eq!(position(t, "ab", -1, 2), 6);
        assert_eq!(position(t, "ab", -3, 2), 2);
        assert_eq!(position(t, "ab", 8, 1), 8);
        assert_eq!(position(t, "ab", 9, 1), 0);
        assert_eq!(position(t, "ab", -9, 1), 0);
        assert_eq!(position(t, "ab", -10, 1), 0);
        assert_eq!(position(t, "ab", 0, 1), 0);
        assert_eq!(position("aaaa", "aa", 1, 3), 3);
        assert_eq!(position("abc", "", 5, 2), 1);
        assert_eq!(position("héllo wörld", "l", -1, 2), 4);
    }
}
