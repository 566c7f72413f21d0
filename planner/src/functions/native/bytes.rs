//! Spark's string functions of BINARY values: `contains`, `startswith`, `endswith` (byte-wise
//! matching), `reverse` (the bytes in reverse order) and `lpad`/`rpad` (cut or padded to a
//! length with a repeated pad, by default a zero byte). DataFusion's forms take text only.
//! NULL when any argument is.

use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, BinaryBuilder, BooleanBuilder};
use arrow::datatypes::DataType;
use datafusion::common::{Result, internal_err};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BytesOp {
    Contains,
    StartsWith,
    EndsWith,
    Reverse,
    LeftPad,
    RightPad,
}

impl BytesOp {
    pub fn return_type(self) -> DataType {
        match self {
            BytesOp::Reverse | BytesOp::LeftPad | BytesOp::RightPad => DataType::Binary,
            _ => DataType::Boolean,
        }
    }
}

fn binary(array: &ArrayRef) -> Result<ArrayRef> {
    Ok(arrow::compute::cast(array, &DataType::Binary)?)
}

pub fn evaluate(op: BytesOp, arrays: &[ArrayRef]) -> Result<ArrayRef> {
    let Some(first) = arrays.first() else {
        return internal_err!("{op:?} of no arguments");
    };
    let left = binary(first)?;
    let left = left.as_binary::<i32>();
    if op == BytesOp::Reverse {
        let mut out = BinaryBuilder::with_capacity(left.len(), left.values().len());
        for i in 0..left.len() {
            if left.is_null(i) {
                out.append_null();
            } else {
                let mut bytes = left.value(i).to_vec();
                bytes.reverse();
                out.append_value(bytes);
            }
        }
        return Ok(Arc::new(out.finish()));
    }
    if matches!(op, BytesOp::LeftPad | BytesOp::RightPad) {
        return pad(op == BytesOp::LeftPad, left, arrays);
    }
    let Some(second) = arrays.get(1) else {
        return internal_err!("{op:?} of one argument");
    };
    let right = binary(second)?;
    let right = right.as_binary::<i32>();
    let mut out = BooleanBuilder::with_capacity(left.len());
    for i in 0..left.len() {
        if left.is_null(i) || right.is_null(i) {
            out.append_null();
            continue;
        }
        let (l, r) = (left.value(i), right.value(i));
        out.append_value(match op {
            BytesOp::Contains => r.is_empty() || l.windows(r.len()).any(|w| w == r),
            BytesOp::StartsWith => l.starts_with(r),
            BytesOp::EndsWith => l.ends_with(r),
            BytesOp::Reverse | BytesOp::LeftPad | BytesOp::RightPad => false,
        });
    }
    Ok(Arc::new(out.finish()))
}

/// `lpad(bytes, len, pad)` / `rpad`: the first `len` bytes, or the bytes with `pad` repeated
/// before (after) them up to `len` (unchanged for an empty pad); empty for `len <= 0`.
fn pad(
    left_side: bool,
    bytes: &arrow::array::BinaryArray,
    arrays: &[ArrayRef],
) -> Result<ArrayRef> {
    let (Some(len), Some(fill)) = (arrays.get(1), arrays.get(2)) else {
        return internal_err!("lpad/rpad of bytes without a length and a pad");
    };
    let len = arrow::compute::cast(len, &DataType::Int64)?;
    let len = len.as_primitive::<arrow::datatypes::Int64Type>();
    let fill = binary(fill)?;
    let fill = fill.as_binary::<i32>();
    let mut out = BinaryBuilder::with_capacity(bytes.len(), bytes.values().len());
    for i in 0..bytes.len() {
        if bytes.is_null(i) || len.is_null(i) || fill.is_null(i) {
            out.append_null();
            continue;
        }
        let (b, p) = (bytes.value(i), fill.value(i));
        let n = usize::try_from(len.value(i).max(0)).unwrap_or(usize::MAX);
        if n <= b.len() || p.is_empty() {
            out.append_value(&b[..n.min(b.len())]);
            continue;
        }
        let padding: Vec<u8> = p.iter().copied().cycle().take(n - b.len()).collect();
        let value = match left_side {
            true => [padding.as_slice(), b].concat(),
            false => [b, padding.as_slice()].concat(),
        };
        out.append_value(value);
    }
    Ok(Arc::new(out.finish()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::BinaryArray;

    fn bin(values: &[Option<&[u8]>]) -> ArrayRef {
        Arc::new(BinaryArray::from(values.to_vec()))
    }

    #[test]
    fn matches_bytes() {
        let l = bin(&[Some(b"abc"), Some(b"abc"), None, Some(b"")]);
        let r = bin(&[Some(b"bc"), Some(b""), Some(b"a"), Some(b"x")]);
        let contains = evaluate(BytesOp::Contains, &[l.clone(), r.clone()]).unwrap();
        let contains = contains.as_boolean();
        assert!(contains.value(0) && contains.value(1) && contains.is_null(2));
        assert!(!contains.value(3));
        let ends = evaluate(BytesOp::EndsWith, &[l.clone(), r]).unwrap();
        assert!(ends.as_boolean().value(0));
        let reversed = evaluate(BytesOp::Reverse, &[l]).unwrap();
        assert_eq!(reversed.as_binary::<i32>().value(0), b"cba");
        let n = |v: i64| -> ArrayRef { Arc::new(arrow::array::Int64Array::from(vec![v])) };
        let padded = |op, b: &[u8], len, p: &[u8]| {
            let out = evaluate(op, &[bin(&[Some(b)]), n(len), bin(&[Some(p)])]).unwrap();
            out.as_binary::<i32>().value(0).to_vec()
        };
        assert_eq!(padded(BytesOp::LeftPad, b"ABC", 5, b"\0"), b"\0\0ABC");
        assert_eq!(padded(BytesOp::LeftPad, b"ABC", 2, b"\0"), b"AB");
        assert_eq!(
            padded(BytesOp::RightPad, b"A", 4, b"\x01\x02"),
            b"A\x01\x02\x01"
        );
        assert_eq!(padded(BytesOp::LeftPad, b"A", -1, b"\0"), b"");
        assert_eq!(padded(BytesOp::LeftPad, b"A", 3, b""), b"A");
    }
}
