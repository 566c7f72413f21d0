//! Spark's DataSketches functions (`hll_*`, `theta_*`, `kll_*`) on Apache DataSketches' Rust
//! library (`datasketches`): the same hashes, sketches and serialized images as the Java
//! library Spark calls, so sketches move between Spark and Ember both ways.
//!
//! Aggregates build or combine sketches ([`SketchAgg`]); scalar functions read or combine
//! sketch values ([`SketchOp`]). Sketches are BINARY values.

mod agg;
pub mod countmin;
mod hll;
mod kll;
mod theta;
mod tuple;

pub use agg::{SketchAgg, SketchAggKind};
pub use tuple::{SummaryMode, TupleOp, TupleValue};

use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray};
use arrow::datatypes::DataType;
use datafusion::common::{Result, internal_err};
use serde::{Deserialize, Serialize};

use crate::error::{ErrorKind, SparkError, to_datafusion};

/// The item type of a KLL sketch: `kll_*_bigint`, `kll_*_float`, `kll_*_double`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum KllItem {
    Bigint,
    Float,
    Double,
}

impl KllItem {
    pub fn suffix(self) -> &'static str {
        match self {
            KllItem::Bigint => "bigint",
            KllItem::Float => "float",
            KllItem::Double => "double",
        }
    }

    /// The type of the sketch's items as Spark answers them.
    pub fn data_type(self) -> DataType {
        match self {
            KllItem::Bigint => DataType::Int64,
            KllItem::Float => DataType::Float32,
            KllItem::Double => DataType::Float64,
        }
    }
}

/// A scalar function of sketch values.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum SketchOp {
    /// `hll_sketch_estimate(sketch)`.
    HllEstimate,
    /// `hll_union(a, b, allowDifferentLgConfigK)`.
    HllUnion { allow_different: bool },
    /// `theta_sketch_estimate(sketch)`.
    ThetaEstimate,
    /// `theta_union(a, b, lgNomEntries)`.
    ThetaUnion { lg_nom: u8 },
    /// `theta_intersection(a, b)`.
    ThetaIntersection,
    /// `theta_difference(a, b)`: the items of `a` not in `b`.
    ThetaDifference,
    /// `kll_sketch_get_n_*(sketch)`.
    KllN { item: KllItem },
    /// `kll_sketch_get_quantile_*(sketch, rank or ranks)`.
    KllQuantile { item: KllItem },
    /// `kll_sketch_get_rank_*(sketch, value or values)`.
    KllRank { item: KllItem },
    /// `kll_sketch_merge_*(a, b)`.
    KllMerge { item: KllItem },
    /// `kll_sketch_to_string_*(sketch)`.
    KllToString { item: KllItem },
    /// A tuple-sketch function (`tuple_sketch_estimate_double`, `tuple_union_integer`, ...).
    Tuple { tuple: TupleOp, value: TupleValue },
}

impl SketchOp {
    /// The Spark function name (the one its errors name).
    pub fn function(&self) -> String {
        match self {
            SketchOp::HllEstimate => "hll_sketch_estimate".into(),
            SketchOp::HllUnion { .. } => "hll_union".into(),
            SketchOp::ThetaEstimate => "theta_sketch_estimate".into(),
            SketchOp::ThetaUnion { .. } => "theta_union".into(),
            SketchOp::ThetaIntersection => "theta_intersection".into(),
            SketchOp::ThetaDifference => "theta_difference".into(),
            SketchOp::KllN { item } => format!("kll_sketch_get_n_{}", item.suffix()),
            SketchOp::KllQuantile { item } => {
                format!("kll_sketch_get_quantile_{}", item.suffix())
            }
            SketchOp::KllRank { item } => format!("kll_sketch_get_rank_{}", item.suffix()),
            SketchOp::KllMerge { item } => format!("kll_sketch_merge_{}", item.suffix()),
            SketchOp::KllToString { item } => format!("kll_sketch_to_string_{}", item.suffix()),
            SketchOp::Tuple { tuple, value } => tuple.function(*value),
        }
    }

    /// Whether its values may be NULL: only for NULL arguments (Spark's sketch functions are
    /// null-intolerant; an empty or unreadable sketch is an error, not NULL).
    pub(super) fn nullability(&self) -> super::Nullability {
        super::Nullability::OfArguments
    }

    pub fn return_type(&self, arg_types: &[DataType]) -> DataType {
        let list_argument = matches!(arg_types.get(1), Some(DataType::List(_)));
        match self {
            SketchOp::HllEstimate | SketchOp::ThetaEstimate | SketchOp::KllN { .. } => {
                DataType::Int64
            }
            SketchOp::HllUnion { .. }
            | SketchOp::ThetaUnion { .. }
            | SketchOp::ThetaIntersection
            | SketchOp::ThetaDifference
            | SketchOp::KllMerge { .. } => DataType::Binary,
            SketchOp::KllToString { .. } => DataType::Utf8,
            SketchOp::KllQuantile { item } if list_argument => {
                crate::types::list_type(item.data_type(), true)
            }
            SketchOp::KllQuantile { item } => item.data_type(),
            SketchOp::KllRank { .. } if list_argument => {
                crate::types::list_type(DataType::Float64, true)
            }
            SketchOp::KllRank { .. } => DataType::Float64,
            SketchOp::Tuple { tuple, value } => tuple.return_type(*value),
        }
    }
}

/// Evaluate a sketch function over its (equal-length) argument arrays.
pub fn evaluate(op: &SketchOp, args: &[ArrayRef]) -> Result<ArrayRef> {
    let Some(first) = args.first() else {
        return internal_err!("{} without arguments", op.function());
    };
    let sketches = binary_values(first, &op.function())?;
    let function = op.function();
    match op {
        SketchOp::HllEstimate => hll::estimate(&sketches, &function),
        SketchOp::HllUnion { allow_different } => {
            let other = binary_values(argument(args, 1, &function)?, &function)?;
            hll::union(&sketches, &other, *allow_different, &function)
        }
        SketchOp::ThetaEstimate => theta::estimate(&sketches, &function),
        SketchOp::ThetaUnion { .. } | SketchOp::ThetaIntersection | SketchOp::ThetaDifference => {
            let other = binary_values(argument(args, 1, &function)?, &function)?;
            theta::combine(op, &sketches, &other, &function)
        }
        SketchOp::KllN { item } => kll::n(*item, &sketches, &function),
        SketchOp::KllQuantile { item } => {
            kll::quantile(*item, &sketches, argument(args, 1, &function)?, &function)
        }
        SketchOp::KllRank { item } => {
            kll::rank(*item, &sketches, argument(args, 1, &function)?, &function)
        }
        SketchOp::KllMerge { item } => {
            let other = binary_values(argument(args, 1, &function)?, &function)?;
            kll::merge(*item, &sketches, &other, &function)
        }
        SketchOp::KllToString { item } => kll::to_string(*item, &sketches, &function),
        SketchOp::Tuple { tuple, value } => {
            let other = match args.get(1) {
                Some(b) => Some(binary_values(b, &function)?),
                None => None,
            };
            tuple::evaluate(tuple, *value, &sketches, other.as_deref())
        }
    }
}

fn argument<'a>(args: &'a [ArrayRef], i: usize, function: &str) -> Result<&'a ArrayRef> {
    match args.get(i) {
        Some(a) => Ok(a),
        None => internal_err!("{function} without argument {}", i + 1),
    }
}

/// The sketch images of a BINARY (or NULL) column, NULL rows as `None`.
fn binary_values<'a>(array: &'a ArrayRef, function: &str) -> Result<Vec<Option<&'a [u8]>>> {
    Ok(match array.data_type() {
        DataType::Binary => array.as_binary::<i32>().iter().collect(),
        DataType::LargeBinary => array.as_binary::<i64>().iter().collect(),
        DataType::BinaryView => array.as_binary_view().iter().collect(),
        DataType::Null => vec![None; array.len()],
        other => return internal_err!("{function} of {other}"),
    })
}

/// `<FAMILY>_INVALID_INPUT_SKETCH_BUFFER`: a value that is not a sketch of the family.
fn invalid_buffer(family: Family, function: &str) -> datafusion::error::DataFusionError {
    let (class, what, producer) = match family {
        Family::Hll => ("HLL", "HLL", "the `hll_sketch_agg` function"),
        Family::Theta => ("THETA", "Theta", "the `theta_sketch_agg` function"),
        Family::Kll => ("KLL", "KLL", "the `kll_sketch_agg` function"),
        Family::Tuple => (
            "TUPLE",
            "Tuple",
            "the corresponding `tuple_sketch_agg_*` function",
        ),
    };
    let state = if family == Family::Hll {
        "22546"
    } else {
        "22000"
    };
    to_datafusion(SparkError::new(
        ErrorKind::Runtime,
        &format!("{class}_INVALID_INPUT_SKETCH_BUFFER"),
        state,
        format!(
            "Invalid call to `{function}`; only valid {what} sketch buffers are supported as inputs (such as those produced by {producer})."
        ),
        vec![("function", format!("`{function}`"))],
    ))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Family {
    Hll,
    Theta,
    Kll,
    Tuple,
}

/// A BIGINT per sketch (NULL for NULL), read by `read`.
fn per_sketch(sketches: &[Option<&[u8]>], read: impl Fn(&[u8]) -> Result<i64>) -> Result<ArrayRef> {
    let values = sketches
        .iter()
        .map(|s| s.map(&read).transpose())
        .collect::<Result<Vec<_>>>()?;
    Ok(Arc::new(arrow::array::Int64Array::from(values)))
}

/// The image `combine` makes of each row's two sketch images (NULL when either is NULL).
fn per_pair(
    left: &[Option<&[u8]>],
    right: &[Option<&[u8]>],
    combine: impl Fn(&[u8], &[u8]) -> Result<Vec<u8>>,
) -> Result<ArrayRef> {
    let values = left
        .iter()
        .zip(right)
        .map(|(a, b)| match (a, b) {
            (Some(a), Some(b)) => combine(a, b).map(Some),
            _ => Ok(None),
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(Arc::new(arrow::array::BinaryArray::from_iter(values)))
}

#[cfg(test)]
mod tests {
    use datasketches::theta::ThetaSketchBuilder;

    use super::*;

    fn hex(bytes: &[u8]) -> String {
        bytes.iter().map(|b| format!("{b:02X}")).collect()
    }

    /// The images Spark 4.3 writes for the sketches of the BIGINTs 1 and 2.
    #[test]
    fn images_are_sparks() {
        let mut h = hll::new_sketch(12).unwrap();
        let mut t = ThetaSketchBuilder::default().build().unwrap();
        for v in [1i64, 2] {
            h.update(v);
            t.update(v);
        }
        assert_eq!(
            hex(&hll::image(&h)),
            "0201070C030002082BF2FB06862FF90D000000000000000000000000000000000000000000000000"
        );
        assert_eq!(
            hex(&theta::image(&t.compact(true))),
            "0104033D011ACC93022D0C35EE5BEFC8AE3EFA70D1DFA7AB80"
        );
        let mut one = ThetaSketchBuilder::default().build().unwrap();
        one.update(2i64);
        assert_eq!(
            hex(&theta::image(&one.compact(true))),
            "01030300003ACC93C397FC1281709D1E"
        );
    }

    /// Tuple images in Java's layout, as Spark 4.3 writes them.
    #[test]
    fn tuple_images_are_sparks() {
        let mut doubles = tuple::new_sketch::<f64>(12, SummaryMode::Sum).unwrap();
        doubles.update(1i64, 1.0);
        doubles.update(2i64, 3.0);
        assert_eq!(
            hex(&tuple::Tuple::of_sketch(&doubles).image()),
            "02030901000ACC93020000000000000015F97DCBBD86A105000000000000F03F00C397FC1281709D1E000000000000084000"
        );
        let mut ints = tuple::new_sketch::<i32>(12, SummaryMode::Max).unwrap();
        ints.update(1i64, 5);
        assert_eq!(
            hex(&tuple::Tuple::of_sketch(&ints).image()),
            "01030901000ACC9315F97DCBBD86A1050500000002"
        );
        assert_eq!(
            hex(&tuple::Tuple::<f64>::empty().image()),
            "01030901000ECC93"
        );
    }

    #[test]
    fn kll_summary_sizes() {
        assert_eq!(kll::total_capacity(200, 1), 200);
        assert_eq!(kll::total_capacity(8, 4), 32);
    }
}
