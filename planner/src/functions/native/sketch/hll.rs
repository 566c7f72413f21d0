//! HyperLogLog sketches (`hll_sketch_agg`, `hll_union_agg`, `hll_sketch_estimate`,
//! `hll_union`): HLL_8 registers, as Spark keeps them.

use arrow::array::ArrayRef;
use datafusion::common::Result;
use datasketches::hll::{HllSketch, HllType, HllUnion};

use super::{Family, invalid_buffer};
use crate::error::{ErrorKind, SparkError, to_datafusion};

pub(super) fn read(image: &[u8], function: &str) -> Result<HllSketch> {
    HllSketch::deserialize(image).map_err(|_| invalid_buffer(Family::Hll, function))
}

/// The image Spark writes: a LIST-mode sketch as the updatable image (its coupon list padded
/// to the list's capacity), the other modes as DataSketches' compact image (the same for
/// HLL_8 registers; a SET-mode hash table is written compact, which Spark reads too).
pub(super) fn image(sketch: &HllSketch) -> Vec<u8> {
    const COMPACT: u8 = 0x08;
    let mut bytes = sketch.serialize();
    let list_mode = bytes.get(7).is_some_and(|m| m & 0x03 == 0);
    if bytes.len() >= 8 && list_mode && bytes[5] & COMPACT != 0 {
        bytes[5] &= !COMPACT;
        let capacity = 8 + (4usize << bytes[4].min(8));
        if bytes.len() < capacity {
            bytes.resize(capacity, 0);
        }
    }
    bytes
}

pub(super) fn estimate(sketches: &[Option<&[u8]>], function: &str) -> Result<ArrayRef> {
    super::per_sketch(sketches, |image| {
        read(image, function).map(|h| h.estimate().round() as i64)
    })
}

pub(super) fn union(
    left: &[Option<&[u8]>],
    right: &[Option<&[u8]>],
    allow_different: bool,
    function: &str,
) -> Result<ArrayRef> {
    super::per_pair(left, right, |a, b| {
        let (a, b) = (read(a, function)?, read(b, function)?);
        if !allow_different {
            same_lg_k(a.lg_config_k(), b.lg_config_k(), function)?;
        }
        let mut union = new_union(a.lg_config_k().min(b.lg_config_k()))?;
        union.update(&a);
        union.update(&b);
        Ok(image(&union.to_sketch(HllType::Hll8)))
    })
}

pub(super) fn new_union(lg_k: u8) -> Result<HllUnion> {
    HllUnion::new(lg_k).map_err(|e| datafusion::error::DataFusionError::Internal(e.to_string()))
}

pub(super) fn new_sketch(lg_k: u8) -> Result<HllSketch> {
    HllSketch::new(lg_k, HllType::Hll8)
        .map_err(|e| datafusion::error::DataFusionError::Internal(e.to_string()))
}

/// HLL_UNION_DIFFERENT_LG_K unless both sketches have the same `lgConfigK`.
pub(super) fn same_lg_k(left: u8, right: u8, function: &str) -> Result<()> {
    if left == right {
        return Ok(());
    }
    Err(to_datafusion(SparkError::new(
        ErrorKind::Runtime,
        "HLL_UNION_DIFFERENT_LG_K",
        "22000",
        format!(
            "Sketches have different `lgConfigK` values: {left} and {right}. Set the `allowDifferentLgConfigK` parameter to true to call `{function}` with different `lgConfigK` values."
        ),
        vec![
            ("left", left.to_string()),
            ("right", right.to_string()),
            ("function", format!("`{function}`")),
        ],
    )))
}
