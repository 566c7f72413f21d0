//! Spark's bitmap functions: a bitmap is 4096 bytes (32768 bits), bit `i` in byte `i / 8`,
//! lowest bit first. `bitmap_count` counts set bits; the aggregates receive a group's
//! non-NULL values as a list.

use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, BinaryBuilder, Int64Array};
use arrow::datatypes::{DataType, Int64Type};
use datafusion::common::{Result, internal_err};
use serde::{Deserialize, Serialize};

/// Bytes of a bitmap.
const BYTES: usize = 4096;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BitmapOp {
    /// `bitmap_count(bitmap)`.
    Count,
    /// `bitmap_construct_agg(position)`: the bits of a group's positions set.
    FromPositions,
    /// `bitmap_or_agg(bitmap)`.
    Or,
    /// `bitmap_and_agg(bitmap)`.
    And,
}

impl BitmapOp {
    pub(super) fn return_type(self) -> DataType {
        match self {
            BitmapOp::Count => DataType::Int64,
            _ => DataType::Binary,
        }
    }
}

fn out_of_bounds(position: i64) -> datafusion::error::DataFusionError {
    crate::error::to_datafusion(crate::error::SparkError::new(
        crate::error::ErrorKind::ArrayIndexOutOfBounds,
        "INVALID_BITMAP_POSITION",
        "22003",
        format!(
            "The 0-indexed bitmap position {position} is out of bounds. The bitmap has {} bits ({BYTES} bytes).",
            BYTES * 8
        ),
        vec![],
    ))
}

pub(super) fn evaluate(op: BitmapOp, arrays: &[ArrayRef]) -> Result<ArrayRef> {
    let Some(input) = arrays.first() else {
        return internal_err!("bitmap function without an argument");
    };
    if op == BitmapOp::Count {
        let input = arrow::compute::cast(input, &DataType::Binary)?;
        let bitmaps = input.as_binary::<i32>();
        let counts: Int64Array = bitmaps
            .iter()
            .map(|b| b.map(|b| b.iter().map(|x| i64::from(x.count_ones())).sum()))
            .collect();
        return Ok(Arc::new(counts));
    }
    let DataType::List(_) = input.data_type() else {
        return internal_err!("bitmap aggregate of {}", input.data_type());
    };
    let groups = input.as_list::<i32>();
    let mut out = BinaryBuilder::with_capacity(groups.len(), groups.len() * BYTES);
    for g in 0..groups.len() {
        let mut bitmap = vec![if op == BitmapOp::And { 0xFF } else { 0 }; BYTES];
        // (A group without values: the bitmap it starts from.)
        if groups.is_null(g) {
            out.append_value(&bitmap);
            continue;
        }
        let values = groups.value(g);
        match op {
            BitmapOp::FromPositions => {
                let positions = arrow::compute::cast(&values, &DataType::Int64)?;
                for p in positions.as_primitive::<Int64Type>().iter().flatten() {
                    let Some(at) = usize::try_from(p).ok().filter(|p| *p < BYTES * 8) else {
                        return Err(out_of_bounds(p));
                    };
                    bitmap[at / 8] |= 1 << (at % 8);
                }
            }
            _ => {
                let values = arrow::compute::cast(&values, &DataType::Binary)?;
                for b in values.as_binary::<i32>().iter().flatten() {
                    for (i, byte) in bitmap.iter_mut().enumerate() {
                        let other = b.get(i).copied().unwrap_or(0);
                        if op == BitmapOp::Or {
                            *byte |= other;
                        } else {
                            *byte &= other;
                        }
                    }
                }
            }
        }
        out.append_value(&bitmap);
    }
    Ok(Arc::new(out.finish()))
}
