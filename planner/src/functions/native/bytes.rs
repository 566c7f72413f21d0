//! Spark's string functions of BINARY values: `contains`, `startswith`, `endswith` (byte-wise
//! matching) and `reverse` (the bytes in reverse order). DataFusion's forms take text only.
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
}

impl BytesOp {
    pub fn return_type(self) -> DataType {
        match self {
            BytesOp::Reverse => DataType::Binary,
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
            BytesOp::Reverse => false,
        });
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
    }
}
