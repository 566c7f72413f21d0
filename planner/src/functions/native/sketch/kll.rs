//! KLL quantile sketches of BIGINT, FLOAT and DOUBLE items (`kll_sketch_agg_*`,
//! `kll_merge_agg_*`, `kll_sketch_get_n_*`, `kll_sketch_get_quantile_*`,
//! `kll_sketch_get_rank_*`, `kll_sketch_merge_*`, `kll_sketch_to_string_*`).

use std::sync::Arc;

use arrow::array::{
    Array, ArrayRef, AsArray, Float32Array, Float64Array, Int64Array, ListArray, StringArray,
};
use arrow::buffer::OffsetBuffer;
use arrow::datatypes::{DataType, Field, Float32Type, Float64Type, Int64Type};
use datafusion::common::Result;
use datasketches::common::SearchCriteria;
use datasketches::kll::{KllFloat, KllSketch, KllValue};

use super::{Family, KllItem, invalid_buffer};
use crate::error::{ErrorKind, SparkError, to_datafusion};

/// A KLL item type: how its values come from and go to Arrow, and how Java prints them.
pub(super) trait Item: KllValue + Ord + Clone + 'static {
    const BYTES: usize;
    const CLASS: &'static str;
    /// The non-NaN values of an input column (NaN is not a value a KLL sketch takes).
    fn values(array: &ArrayRef) -> Result<Vec<Option<Self>>>;
    fn to_array(values: Vec<Option<Self>>) -> ArrayRef;
    fn arrow_type() -> DataType;
    fn java_text(&self) -> String;
}

impl Item for i64 {
    const BYTES: usize = 8;
    const CLASS: &'static str = "KllLongsSketch";

    fn values(array: &ArrayRef) -> Result<Vec<Option<Self>>> {
        let cast = arrow::compute::cast(array, &DataType::Int64)?;
        Ok(cast.as_primitive::<Int64Type>().iter().collect())
    }

    fn to_array(values: Vec<Option<Self>>) -> ArrayRef {
        Arc::new(Int64Array::from(values))
    }

    fn arrow_type() -> DataType {
        DataType::Int64
    }

    fn java_text(&self) -> String {
        self.to_string()
    }
}

/// FLOAT and DOUBLE items: NaN is no item (Java's sketches ignore it).
macro_rules! float_item {
    ($float:ty, $arrow:expr, $primitive:ty, $array:ty, $bytes:expr, $class:expr, $text:expr) => {
        impl Item for KllFloat<$float> {
            const BYTES: usize = $bytes;
            const CLASS: &'static str = $class;

            fn values(array: &ArrayRef) -> Result<Vec<Option<Self>>> {
                let cast = arrow::compute::cast(array, &$arrow)?;
                Ok(cast
                    .as_primitive::<$primitive>()
                    .iter()
                    .map(|v| v.and_then(|v| KllFloat::<$float>::new(v).ok()))
                    .collect())
            }

            fn to_array(values: Vec<Option<Self>>) -> ArrayRef {
                Arc::new(<$array>::from_iter(
                    values.into_iter().map(|v| v.map(KllFloat::into_inner)),
                ))
            }

            fn arrow_type() -> DataType {
                $arrow
            }

            fn java_text(&self) -> String {
                $text((*self).into_inner())
            }
        }
    };
}

float_item!(
    f32,
    DataType::Float32,
    Float32Type,
    Float32Array,
    4,
    "KllFloatsSketch",
    ember_execution::values::java_float
);
float_item!(
    f64,
    DataType::Float64,
    Float64Type,
    Float64Array,
    8,
    "KllDoublesSketch",
    crate::literal::format_double
);

/// Run `$body` with `$t` the Rust item type of a [`KllItem`].
macro_rules! with_item {
    ($item:expr, $t:ident => $body:expr) => {
        match $item {
            KllItem::Bigint => {
                type $t = i64;
                $body
            }
            KllItem::Float => {
                type $t = KllFloat<f32>;
                $body
            }
            KllItem::Double => {
                type $t = KllFloat<f64>;
                $body
            }
        }
    };
}

pub(super) fn read<T: Item>(image: &[u8], function: &str) -> Result<KllSketch<T>> {
    KllSketch::<T>::deserialize(image).map_err(|_| invalid_buffer(Family::Kll, function))
}

/// A sketch that answers queries: Java refuses empty sketches, which Spark reports as an
/// invalid buffer.
fn read_filled<T: Item>(image: &[u8], function: &str) -> Result<KllSketch<T>> {
    let sketch = read::<T>(image, function)?;
    if sketch.is_empty() {
        return Err(invalid_buffer(Family::Kll, function));
    }
    Ok(sketch)
}

pub(super) fn n(item: KllItem, sketches: &[Option<&[u8]>], function: &str) -> Result<ArrayRef> {
    with_item!(item, T => {
        super::per_sketch(sketches, |image| read::<T>(image, function).map(|k| k.n() as i64))
    })
}

pub(super) fn merge(
    item: KllItem,
    left: &[Option<&[u8]>],
    right: &[Option<&[u8]>],
    function: &str,
) -> Result<ArrayRef> {
    with_item!(item, T => {
        super::per_pair(left, right, |a, b| {
            let mut a = read::<T>(a, function)?;
            let b = read::<T>(b, function)?;
            a.merge(&b).map_err(|_| invalid_buffer(Family::Kll, function))?;
            Ok(a.serialize())
        })
    })
}

/// The rows of a scalar-or-list argument: each row's values and whether it was a list.
struct Probes {
    /// Per row: NULL, or the values to look up.
    rows: Vec<Option<Vec<ArrayRef>>>,
    list: bool,
}

fn probes(argument: &ArrayRef) -> Probes {
    match argument.data_type() {
        DataType::List(_) => {
            let lists = argument.as_list::<i32>();
            let rows = (0..lists.len())
                .map(|i| {
                    lists.is_valid(i).then(|| {
                        let values = lists.value(i);
                        (0..values.len()).map(|j| values.slice(j, 1)).collect()
                    })
                })
                .collect();
            Probes { rows, list: true }
        }
        _ => Probes {
            rows: (0..argument.len())
                .map(|i| argument.is_valid(i).then(|| vec![argument.slice(i, 1)]))
                .collect(),
            list: false,
        },
    }
}

/// Build the answer column: one value per row, or one list per row.
fn answer(values: Vec<Option<Vec<ArrayRef>>>, list: bool, item: DataType) -> Result<ArrayRef> {
    if !list {
        let flat: Vec<ArrayRef> = values
            .into_iter()
            .map(|v| match v.and_then(|mut v| v.pop()) {
                Some(a) => a,
                None => arrow::array::new_null_array(&item, 1),
            })
            .collect();
        let refs: Vec<&dyn Array> = flat.iter().map(|a| a.as_ref()).collect();
        return if refs.is_empty() {
            Ok(arrow::array::new_empty_array(&item))
        } else {
            Ok(arrow::compute::concat(&refs)?)
        };
    }
    let mut lengths = Vec::with_capacity(values.len());
    let mut nulls = Vec::with_capacity(values.len());
    let mut parts: Vec<ArrayRef> = Vec::new();
    for row in values {
        nulls.push(row.is_some());
        let row = row.unwrap_or_default();
        lengths.push(row.len());
        parts.extend(row);
    }
    let refs: Vec<&dyn Array> = parts.iter().map(|a| a.as_ref()).collect();
    let items = if refs.is_empty() {
        arrow::array::new_empty_array(&item)
    } else {
        arrow::compute::concat(&refs)?
    };
    Ok(Arc::new(ListArray::try_new(
        Arc::new(Field::new_list_field(item, true)),
        OffsetBuffer::from_lengths(lengths),
        items,
        Some(nulls.into()),
    )?))
}

fn quantile_out_of_range(function: &str) -> datafusion::error::DataFusionError {
    to_datafusion(SparkError::new(
        ErrorKind::Runtime,
        "KLL_SKETCH_INVALID_QUANTILE_RANGE",
        "22003",
        format!(
            "For function `{function}`, the quantile value must be between 0.0 and 1.0 (inclusive)."
        ),
        vec![("functionName", format!("`{function}`"))],
    ))
}

/// For each row, `probe` of its sketch (which must hold items) and each of its probe values;
/// a NULL sketch or probe argument is a NULL answer.
fn probe_each<T: Item>(
    sketches: &[Option<&[u8]>],
    probes: Probes,
    answer_type: DataType,
    function: &str,
    probe: impl Fn(&KllSketch<T>, &ArrayRef) -> Result<ArrayRef>,
) -> Result<ArrayRef> {
    let mut out = Vec::with_capacity(sketches.len());
    for (sketch, row) in sketches.iter().zip(probes.rows) {
        let (Some(image), Some(row)) = (sketch, row) else {
            out.push(None);
            continue;
        };
        let sketch = read_filled::<T>(image, function)?;
        let answers = row
            .iter()
            .map(|value| probe(&sketch, value))
            .collect::<Result<Vec<_>>>()?;
        out.push(Some(answers));
    }
    answer(out, probes.list, answer_type)
}

pub(super) fn quantile(
    item: KllItem,
    sketches: &[Option<&[u8]>],
    ranks: &ArrayRef,
    function: &str,
) -> Result<ArrayRef> {
    with_item!(item, T => {
        probe_each::<T>(sketches, probes(ranks), T::arrow_type(), function, |sketch, rank| {
            let rank = arrow::compute::cast(rank, &DataType::Float64)?;
            let rank = rank.as_primitive::<Float64Type>();
            if rank.is_null(0) {
                return Ok(arrow::array::new_null_array(&T::arrow_type(), 1));
            }
            let rank = rank.value(0);
            if !(0.0..=1.0).contains(&rank) {
                return Err(quantile_out_of_range(function));
            }
            let value = sketch
                .quantile(rank, SearchCriteria::Inclusive)
                .map_err(|_| quantile_out_of_range(function))?;
            Ok(T::to_array(vec![value]))
        })
    })
}

pub(super) fn rank(
    item: KllItem,
    sketches: &[Option<&[u8]>],
    values: &ArrayRef,
    function: &str,
) -> Result<ArrayRef> {
    with_item!(item, T => {
        probe_each::<T>(sketches, probes(values), DataType::Float64, function, |sketch, value| {
            // A fraction probes a BIGINT sketch as its cast to BIGINT.
            let rank = match T::values(value)?.pop().flatten() {
                Some(v) => sketch.rank(&v, SearchCriteria::Inclusive),
                None => None,
            };
            Ok(Arc::new(Float64Array::from(vec![rank])) as ArrayRef)
        })
    })
}

/// `kll_sketch_to_string_*`: Java's `KllSketch.toString()` summary of the image.
pub(super) fn to_string(
    item: KllItem,
    sketches: &[Option<&[u8]>],
    function: &str,
) -> Result<ArrayRef> {
    with_item!(item, T => {
        let values = sketches
            .iter()
            .map(|s| s.map(|image| summary::<T>(image, function)).transpose())
            .collect::<Result<Vec<_>>>()?;
        Ok(Arc::new(StringArray::from(values)) as ArrayRef)
    })
}

/// The level structure of a KLL image: (numLevels, minK, level 0 sorted, free space).
fn layout(
    image: &[u8],
    k: u16,
    retained: usize,
    capacity: impl Fn(usize) -> usize,
) -> (usize, u16, bool, usize) {
    let flags = image.get(3).copied().unwrap_or(0);
    let sorted = flags & 0x02 != 0;
    let full = image.first().copied() == Some(5) && image.len() >= 24;
    if !full {
        return (1, k, sorted, capacity(1).saturating_sub(retained));
    }
    let min_k = u16::from_le_bytes([image[16], image[17]]);
    let levels = image[18].max(1) as usize;
    let free = u32::from_le_bytes([image[20], image[21], image[22], image[23]]) as usize;
    (levels, min_k, sorted, free)
}

/// The item capacity of `levels` levels for `k` (and the minimum level width 8).
pub(super) fn total_capacity(k: u16, levels: usize) -> usize {
    const M: usize = 8;
    (0..levels)
        .map(|level| capacity_at_depth(k as u64, levels - level - 1).max(M as u64) as usize)
        .sum()
}

/// `k` times (2/3)^depth, rounded as DataSketches rounds it.
fn capacity_at_depth(k: u64, depth: usize) -> u64 {
    fn shallow(k: u64, depth: usize) -> u64 {
        let three = 3u64.pow(depth as u32);
        (((k << (depth + 1)) / three) + 1) >> 1
    }
    if depth <= 30 {
        shallow(k, depth)
    } else {
        let half = depth / 2;
        shallow(shallow(k, half), depth - half)
    }
}

fn summary<T: Item>(image: &[u8], function: &str) -> Result<String> {
    let sketch = read::<T>(image, function)?;
    let k = sketch.k();
    let retained = sketch.num_retained();
    let (levels, min_k, sorted, free) =
        layout(image, k, retained, |levels| total_capacity(k, levels));
    let capacity = total_capacity(k, levels);
    let rank_error = |pmf: bool| {
        let k = min_k as f64;
        if pmf {
            2.446 / k.powf(0.9433)
        } else {
            2.296 / k.powf(0.9723)
        }
    };
    let compact_bytes = if sketch.is_empty() {
        8
    } else if sketch.n() == 1 {
        8 + T::BYTES
    } else {
        20 + levels * 4 + (2 + retained) * T::BYTES
    };
    let updatable_bytes = 20 + (levels + 1) * 4 + (2 + capacity) * T::BYTES;
    let item_text = |v: Option<&T>| v.map_or_else(|| "NaN".to_string(), |v| v.java_text());
    let lines = [
        ("K", k.to_string()),
        ("Dynamic min K", min_k.to_string()),
        ("M", "8".into()),
        ("N", sketch.n().to_string()),
        ("Epsilon", format!("{:.3}%", rank_error(false) * 100.0)),
        ("Epsilon PMF", format!("{:.3}%", rank_error(true) * 100.0)),
        ("Empty", sketch.is_empty().to_string()),
        ("Estimation Mode", (levels > 1).to_string()),
        ("Levels", levels.to_string()),
        ("Level 0 Sorted", sorted.to_string()),
        ("Capacity Items", capacity.to_string()),
        ("Retained Items", retained.to_string()),
        ("Free Space", free.to_string()),
        ("ReadOnly", "false".into()),
        ("Updatable Storage Bytes", updatable_bytes.to_string()),
        ("Compact Storage Bytes", compact_bytes.to_string()),
        ("Min Item", item_text(sketch.min_item())),
        ("Max Item", item_text(sketch.max_item())),
    ];
    let mut out = format!("\n### Kll{} Summary:\n", T::CLASS);
    for (name, value) in lines {
        out.push_str(&format!("   {name:<23}: {value}\n"));
    }
    out.push_str("### End sketch summary\n");
    Ok(out)
}

pub(super) fn new_sketch<T: Item>(k: u16) -> Result<KllSketch<T>> {
    KllSketch::<T>::new(k).map_err(|e| datafusion::error::DataFusionError::Internal(e.to_string()))
}
