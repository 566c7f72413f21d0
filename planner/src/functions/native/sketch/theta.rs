//! Theta sketches (`theta_sketch_agg`, `theta_union_agg`, `theta_intersection_agg`,
//! `theta_sketch_estimate`, `theta_union`, `theta_intersection`, `theta_difference`): compact
//! images, compressed where DataSketches compresses them (as Spark writes them).

use arrow::array::ArrayRef;
use datafusion::common::Result;
use datasketches::theta::{
    CompactThetaSketch, ThetaANotB, ThetaIntersection, ThetaUnion, ThetaUnionBuilder,
};

use super::{Family, SketchOp, invalid_buffer};

pub(super) fn read(image: &[u8], function: &str) -> Result<CompactThetaSketch> {
    CompactThetaSketch::deserialize(image).map_err(|_| invalid_buffer(Family::Theta, function))
}

/// The image Spark writes for a result sketch. Java marks a one-entry exact sketch (one
/// preamble long, serial version 3) with its SINGLEITEM flag, which C++-derived writers omit.
pub(super) fn image(sketch: &CompactThetaSketch) -> Vec<u8> {
    const SINGLE_ITEM: u8 = 0x20;
    let mut bytes = sketch.serialize_compressed();
    if bytes.len() == 16 && bytes[0] & 0x3F == 1 && bytes[1] == 3 && sketch.num_retained() == 1 {
        bytes[5] |= SINGLE_ITEM;
    }
    bytes
}

pub(super) fn new_union(lg_nom: u8) -> Result<ThetaUnion> {
    ThetaUnionBuilder::default()
        .lg_k(lg_nom)
        .build()
        .map_err(|e| datafusion::error::DataFusionError::Internal(e.to_string()))
}

/// A sketch set operation's failure: the inputs were not sketches of one seed.
fn failed(
    function: &str,
) -> impl Fn(datasketches::error::Error) -> datafusion::error::DataFusionError {
    let function = function.to_string();
    move |_| invalid_buffer(Family::Theta, &function)
}

pub(super) fn estimate(sketches: &[Option<&[u8]>], function: &str) -> Result<ArrayRef> {
    super::per_sketch(sketches, |image| {
        read(image, function).map(|t| t.estimate().round() as i64)
    })
}

pub(super) fn combine(
    op: &SketchOp,
    left: &[Option<&[u8]>],
    right: &[Option<&[u8]>],
    function: &str,
) -> Result<ArrayRef> {
    super::per_pair(left, right, |a, b| {
        let (a, b) = (read(a, function)?, read(b, function)?);
        let result = match op {
            SketchOp::ThetaUnion { lg_nom } => {
                let mut union = new_union(*lg_nom)?;
                union.update(&a).map_err(failed(function))?;
                union.update(&b).map_err(failed(function))?;
                union.to_sketch(true)
            }
            SketchOp::ThetaIntersection => intersect([&a, &b], function)?,
            _ => ThetaANotB::default()
                .compute(&a, &b, true)
                .map_err(failed(function))?,
        };
        Ok(image(&result))
    })
}

/// The intersection of sketches (of none: the empty sketch, as Spark answers).
pub(super) fn intersect<'a>(
    sketches: impl IntoIterator<Item = &'a CompactThetaSketch>,
    function: &str,
) -> Result<CompactThetaSketch> {
    let mut intersection = ThetaIntersection::default();
    for sketch in sketches {
        intersection.update(sketch).map_err(failed(function))?;
    }
    intersection_result(&intersection)
}

pub(super) fn intersection_result(intersection: &ThetaIntersection) -> Result<CompactThetaSketch> {
    match intersection.to_sketch(true) {
        Some(result) => Ok(result),
        // No sketch intersected: the empty sketch.
        None => Ok(new_union(DEFAULT_LG_NOM)?.to_sketch(true)),
    }
}

/// Spark's default `lgNomEntries`.
pub const DEFAULT_LG_NOM: u8 = 12;
