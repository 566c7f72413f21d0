//! Tuple sketches with DOUBLE or INTEGER summaries (`tuple_*_double`, `tuple_*_integer`): a
//! theta sketch whose retained keys carry a summary value combined by a mode (sum, min, max,
//! alwaysone). Built by DataSketches' tuple sketch; set operations run on the retained entries
//! (theta = the least of the inputs' thetas), and images are written in Java's layout (each
//! summary its value and its mode's ordinal, as Java's `DoubleSummary`/`IntegerSummary`).

use std::collections::BTreeMap;
use std::sync::Arc;

use arrow::array::{ArrayRef, Float64Array, Int64Array};
use datafusion::common::Result;
use datasketches::codec::{SketchBytes, SketchSlice};
use datasketches::error::Error;
use datasketches::tuple::{
    CompactTupleSketch, SummaryPolicy, SummaryUpdatePolicy, TupleSketch, TupleSketchBuilder,
    TupleSummaryValue,
};
use serde::{Deserialize, Serialize};

use super::{Family, invalid_buffer, theta};

/// The summary type of a tuple sketch: `tuple_*_double` or `tuple_*_integer`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TupleValue {
    Double,
    Integer,
}

impl TupleValue {
    pub fn suffix(self) -> &'static str {
        match self {
            TupleValue::Double => "double",
            TupleValue::Integer => "integer",
        }
    }
}

/// How summaries combine, in Java's ordinal order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SummaryMode {
    Sum,
    Min,
    Max,
    AlwaysOne,
}

impl SummaryMode {
    pub fn parse(text: &str) -> Option<Self> {
        Some(match text.to_ascii_lowercase().as_str() {
            "sum" => SummaryMode::Sum,
            "min" => SummaryMode::Min,
            "max" => SummaryMode::Max,
            "alwaysone" => SummaryMode::AlwaysOne,
            _ => return None,
        })
    }

    fn ordinal(self) -> u8 {
        self as u8
    }
}

/// A summary value type.
pub(super) trait Number: Copy + PartialOrd + 'static {
    fn initial(mode: SummaryMode) -> Self;
    /// `a` updated with `b` under `mode` (Java's wrapping integer sums).
    fn apply(mode: SummaryMode, a: Self, b: Self) -> Self;
    fn write(self, bytes: &mut SketchBytes);
    fn read(cursor: &mut SketchSlice<'_>) -> std::io::Result<Self>;
    fn size() -> usize;
}

impl Number for f64 {
    fn initial(mode: SummaryMode) -> Self {
        match mode {
            SummaryMode::Sum => 0.0,
            SummaryMode::Min => f64::INFINITY,
            SummaryMode::Max => f64::NEG_INFINITY,
            SummaryMode::AlwaysOne => 1.0,
        }
    }

    fn apply(mode: SummaryMode, a: Self, b: Self) -> Self {
        match mode {
            SummaryMode::Sum => a + b,
            SummaryMode::Min => a.min(b),
            SummaryMode::Max => a.max(b),
            SummaryMode::AlwaysOne => 1.0,
        }
    }

    fn write(self, bytes: &mut SketchBytes) {
        bytes.write_f64_le(self);
    }

    fn read(cursor: &mut SketchSlice<'_>) -> std::io::Result<Self> {
        cursor.read_f64_le()
    }

    fn size() -> usize {
        8
    }
}

impl Number for i32 {
    fn initial(mode: SummaryMode) -> Self {
        match mode {
            SummaryMode::Sum => 0,
            SummaryMode::Min => i32::MAX,
            SummaryMode::Max => i32::MIN,
            SummaryMode::AlwaysOne => 1,
        }
    }

    fn apply(mode: SummaryMode, a: Self, b: Self) -> Self {
        match mode {
            SummaryMode::Sum => a.wrapping_add(b),
            SummaryMode::Min => a.min(b),
            SummaryMode::Max => a.max(b),
            SummaryMode::AlwaysOne => 1,
        }
    }

    fn write(self, bytes: &mut SketchBytes) {
        bytes.write_i32_le(self);
    }

    fn read(cursor: &mut SketchSlice<'_>) -> std::io::Result<Self> {
        cursor.read_i32_le()
    }

    fn size() -> usize {
        4
    }
}

/// A summary as Java serializes it: the value, then the mode's ordinal.
#[derive(Debug, Clone, Copy)]
pub(super) struct Summary<V> {
    value: V,
    mode: u8,
}

impl<V: Number> TupleSummaryValue for Summary<V> {
    fn serialize_size(&self) -> usize {
        V::size() + 1
    }

    fn serialize_value(&self, bytes: &mut SketchBytes) {
        self.value.write(bytes);
        bytes.write_u8(self.mode);
    }

    fn deserialize_value(cursor: &mut SketchSlice<'_>) -> std::result::Result<Self, Error> {
        let value = V::read(cursor)
            .map_err(|e| Error::new(datasketches::error::ErrorKind::InvalidData, e.to_string()))?;
        let mode = cursor
            .read_u8()
            .map_err(|e| Error::new(datasketches::error::ErrorKind::InvalidData, e.to_string()))?;
        Ok(Summary { value, mode })
    }
}

/// Builds summaries for updates under one mode.
#[derive(Debug)]
pub(super) struct Updates<V> {
    mode: SummaryMode,
    _value: std::marker::PhantomData<V>,
}

impl<V: Number> SummaryPolicy for Updates<V> {
    type Summary = Summary<V>;

    fn create(&self) -> Summary<V> {
        Summary {
            value: V::initial(self.mode),
            mode: self.mode.ordinal(),
        }
    }
}

impl<V: Number> SummaryUpdatePolicy<V> for Updates<V> {
    fn update(&self, summary: &mut Summary<V>, value: V) {
        summary.value = V::apply(self.mode, summary.value, value);
    }
}

pub(super) fn new_sketch<V: Number>(
    lg_nom: u8,
    mode: SummaryMode,
) -> Result<TupleSketch<Updates<V>>> {
    TupleSketchBuilder::new(Updates {
        mode,
        _value: std::marker::PhantomData,
    })
    .lg_k(lg_nom)
    .build()
    .map_err(|e| datafusion::error::DataFusionError::Internal(e.to_string()))
}

const MAX_THETA: u64 = i64::MAX as u64;
/// The seed hash of DataSketches' default seed (9001).
const SEED_HASH: u16 = 0x93CC;

/// A compact tuple sketch: its theta and its entries by hash.
#[derive(Debug, Clone)]
pub(super) struct Tuple<V> {
    theta: u64,
    entries: BTreeMap<u64, Summary<V>>,
    empty: bool,
}

impl<V: Number> Tuple<V> {
    pub(super) fn empty() -> Self {
        Tuple {
            theta: MAX_THETA,
            entries: BTreeMap::new(),
            empty: true,
        }
    }

    pub(super) fn read(image: &[u8], function: &str) -> Result<Self> {
        let sketch = CompactTupleSketch::<Summary<V>>::deserialize(image)
            .map_err(|_| invalid_buffer(Family::Tuple, function))?;
        Ok(Tuple {
            theta: sketch.theta64(),
            empty: sketch.is_empty(),
            entries: sketch.iter().map(|e| (e.hash(), *e.summary())).collect(),
        })
    }

    pub(super) fn of_sketch(sketch: &TupleSketch<Updates<V>>) -> Self {
        let compact = sketch.compact(true);
        Tuple {
            theta: compact.theta64(),
            empty: compact.is_empty(),
            entries: compact.iter().map(|e| (e.hash(), *e.summary())).collect(),
        }
    }

    /// A theta sketch's keys, each with the mode's initial summary.
    pub(super) fn of_theta(image: &[u8], mode: SummaryMode, function: &str) -> Result<Self> {
        let sketch = theta::read(image, function)?;
        let summary = Summary {
            value: V::initial(mode),
            mode: mode.ordinal(),
        };
        Ok(Tuple {
            theta: sketch.theta64(),
            empty: sketch.is_empty(),
            entries: sketch.iter().map(|e| (e.hash(), summary)).collect(),
        })
    }

    /// The image in Java's compact layout.
    pub(super) fn image(&self) -> Vec<u8> {
        const READ_ONLY: u8 = 0x02;
        const EMPTY: u8 = 0x04;
        const COMPACT: u8 = 0x08;
        let estimating = self.theta < MAX_THETA;
        let pre_longs: u8 = if estimating {
            3
        } else if self.entries.len() <= 1 {
            1
        } else {
            2
        };
        let mut bytes = SketchBytes::with_capacity(24 + self.entries.len() * (9 + V::size()));
        bytes.write_u8(pre_longs);
        bytes.write_u8(3);
        bytes.write_u8(9);
        bytes.write_u8(1);
        bytes.write_u8(0);
        let empty = self.entries.is_empty() && !estimating;
        let flags = READ_ONLY | COMPACT | if empty { EMPTY } else { 0 };
        bytes.write_u8(flags);
        bytes.write_u16_le(SEED_HASH);
        if pre_longs > 1 {
            bytes.write_u32_le(self.entries.len() as u32);
            bytes.write_u32_le(0);
        }
        if estimating {
            bytes.write_u64_le(self.theta);
        }
        for (hash, summary) in &self.entries {
            bytes.write_u64_le(*hash);
            summary.serialize_value(&mut bytes);
        }
        bytes.into_bytes()
    }

    pub(super) fn estimate(&self) -> f64 {
        if self.entries.is_empty() && self.theta == MAX_THETA {
            return 0.0;
        }
        self.entries.len() as f64 / (self.theta as f64 / MAX_THETA as f64)
    }

    pub(super) fn theta_fraction(&self) -> f64 {
        self.theta as f64 / MAX_THETA as f64
    }

    /// The retained summaries combined by `mode` (their count for alwaysone; 0 when none),
    /// over all entries without wrapping.
    pub(super) fn summary(&self, mode: SummaryMode, as_f64: fn(V) -> f64) -> f64 {
        let values = self.entries.values().map(|s| as_f64(s.value));
        match mode {
            SummaryMode::Sum => values.fold(0.0, |a, b| a + b),
            SummaryMode::Min => values.reduce(f64::min).unwrap_or(0.0),
            SummaryMode::Max => values.reduce(f64::max).unwrap_or(0.0),
            SummaryMode::AlwaysOne => self.entries.len() as f64,
        }
    }

    /// At most `nominal` entries: the smallest hashes, theta lowered to the first left out.
    fn trimmed(mut self, nominal: usize) -> Self {
        if let Some((&cut, _)) = self.entries.iter().nth(nominal) {
            self.theta = self.theta.min(cut);
            self.entries.retain(|h, _| *h < cut);
        }
        self
    }

    /// The union: every key below the least theta, summaries of shared keys combined.
    pub(super) fn union(mut self, other: &Self, mode: SummaryMode, lg_nom: u8) -> Self {
        let theta = self.theta.min(other.theta);
        self.entries.retain(|h, _| *h < theta);
        for (hash, summary) in other.entries.range(..theta) {
            self.entries
                .entry(*hash)
                .and_modify(|s| {
                    *s = Summary {
                        value: V::apply(mode, s.value, summary.value),
                        mode: mode.ordinal(),
                    }
                })
                .or_insert(*summary);
        }
        self.theta = theta;
        self.empty &= other.empty;
        self.trimmed(1usize << lg_nom)
    }

    /// The keys of both, summaries combined by `mode` (`None`: the left's summaries kept).
    pub(super) fn intersect(&self, other: &Self, mode: Option<SummaryMode>) -> Self {
        let theta = self.theta.min(other.theta);
        let entries = self
            .entries
            .range(..theta)
            .filter_map(|(hash, summary)| {
                let theirs = other.entries.get(hash)?;
                Some((
                    *hash,
                    match mode {
                        Some(mode) => Summary {
                            value: V::apply(mode, summary.value, theirs.value),
                            mode: mode.ordinal(),
                        },
                        None => *summary,
                    },
                ))
            })
            .collect();
        Tuple {
            theta,
            entries,
            empty: self.empty || other.empty,
        }
    }

    /// The keys of `self` not in `other`.
    pub(super) fn difference<W>(&self, other: &Tuple<W>) -> Self {
        let theta = self.theta.min(other.theta);
        Tuple {
            theta,
            entries: self
                .entries
                .range(..theta)
                .filter(|(hash, _)| !other.entries.contains_key(hash))
                .map(|(h, s)| (*h, *s))
                .collect(),
            empty: self.empty,
        }
    }
}

/// A scalar tuple-sketch function.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum TupleOp {
    Estimate,
    Theta,
    Summary {
        mode: SummaryMode,
    },
    Union {
        lg_nom: u8,
        mode: SummaryMode,
    },
    Intersection {
        mode: SummaryMode,
    },
    Difference,
    /// With a theta sketch as the second argument.
    UnionTheta {
        lg_nom: u8,
        mode: SummaryMode,
    },
    IntersectionTheta,
    DifferenceTheta,
}

impl TupleOp {
    pub fn function(&self, value: TupleValue) -> String {
        let name = match self {
            TupleOp::Estimate => "tuple_sketch_estimate",
            TupleOp::Theta => "tuple_sketch_theta",
            TupleOp::Summary { .. } => "tuple_sketch_summary",
            TupleOp::Union { .. } => "tuple_union",
            TupleOp::Intersection { .. } => "tuple_intersection",
            TupleOp::Difference => "tuple_difference",
            TupleOp::UnionTheta { .. } => "tuple_union_theta",
            TupleOp::IntersectionTheta => "tuple_intersection_theta",
            TupleOp::DifferenceTheta => "tuple_difference_theta",
        };
        format!("{name}_{}", value.suffix())
    }

    pub fn return_type(&self, value: TupleValue) -> arrow::datatypes::DataType {
        use arrow::datatypes::DataType;
        match self {
            TupleOp::Estimate | TupleOp::Theta => DataType::Float64,
            TupleOp::Summary { .. } if value == TupleValue::Double => DataType::Float64,
            TupleOp::Summary { .. } => DataType::Int64,
            _ => DataType::Binary,
        }
    }
}

pub(super) fn evaluate(
    op: &TupleOp,
    value: TupleValue,
    left: &[Option<&[u8]>],
    right: Option<&[Option<&[u8]>]>,
) -> Result<ArrayRef> {
    match value {
        TupleValue::Double => evaluate_as::<f64>(op, value, left, right, |v| v),
        TupleValue::Integer => evaluate_as::<i32>(op, value, left, right, |v| v as f64),
    }
}

fn evaluate_as<V: Number>(
    op: &TupleOp,
    value: TupleValue,
    left: &[Option<&[u8]>],
    right: Option<&[Option<&[u8]>]>,
    as_f64: fn(V) -> f64,
) -> Result<ArrayRef> {
    let function = op.function(value);
    let read = |image: &[u8]| Tuple::<V>::read(image, &function);
    match op {
        TupleOp::Estimate | TupleOp::Theta => {
            let out = left
                .iter()
                .map(|s| {
                    s.map(|image| {
                        read(image).map(|t| match op {
                            TupleOp::Estimate => t.estimate(),
                            _ => t.theta_fraction(),
                        })
                    })
                    .transpose()
                })
                .collect::<Result<Vec<_>>>()?;
            Ok(Arc::new(Float64Array::from(out)))
        }
        TupleOp::Summary { mode } => {
            let sums = left
                .iter()
                .map(|s| {
                    s.map(|image| {
                        let t = read(image)?;
                        Ok(t.summary(*mode, as_f64))
                    })
                    .transpose()
                })
                .collect::<Result<Vec<_>>>()?;
            Ok(match value {
                TupleValue::Double => Arc::new(Float64Array::from(sums)),
                TupleValue::Integer => Arc::new(Int64Array::from_iter(
                    sums.into_iter().map(|v| v.map(|v| v as i64)),
                )),
            })
        }
        _ => {
            let Some(right) = right else {
                return Err(datafusion::error::DataFusionError::Internal(format!(
                    "{function} without a second sketch"
                )));
            };
            super::per_pair(left, right, |a, b| {
                let a = read(a)?;
                let result = match op {
                    TupleOp::Union { lg_nom, mode } => a.union(&read(b)?, *mode, *lg_nom),
                    TupleOp::Intersection { mode } => a.intersect(&read(b)?, Some(*mode)),
                    TupleOp::Difference => a.difference(&read(b)?),
                    TupleOp::UnionTheta { lg_nom, mode } => {
                        a.union(&Tuple::of_theta(b, *mode, &function)?, *mode, *lg_nom)
                    }
                    TupleOp::IntersectionTheta => {
                        a.intersect(&Tuple::<V>::of_theta(b, SummaryMode::Sum, &function)?, None)
                    }
                    _ => a.difference(&Tuple::<V>::of_theta(b, SummaryMode::Sum, &function)?),
                };
                Ok(result.image())
            })
        }
    }
}

/// What a tuple-sketch aggregate does.
#[derive(Debug, Clone, Copy)]
pub(super) enum TupleAggOp {
    Build,
    Union,
    Intersection,
}

/// A tuple-sketch aggregate's accumulator: rows into a sketch (build), or sketch images
/// combined (union, intersection, and merged partial states).
#[derive(Debug)]
pub(super) struct TupleAccumulator<V: Number> {
    op: TupleAggOp,
    lg_nom: u8,
    mode: SummaryMode,
    function: String,
    /// The rows' sketch (build only).
    sketch: Option<TupleSketch<Updates<V>>>,
    /// The combined sketches; `None` until one was seen.
    combined: Option<Tuple<V>>,
}

impl<V: Number + std::fmt::Debug> TupleAccumulator<V> {
    pub(super) fn new(
        op: TupleAggOp,
        lg_nom: u8,
        mode: SummaryMode,
        function: String,
    ) -> Result<Self> {
        let sketch = match op {
            TupleAggOp::Build => Some(new_sketch::<V>(lg_nom, mode)?),
            _ => None,
        };
        Ok(Self {
            op,
            lg_nom,
            mode,
            function,
            sketch,
            combined: None,
        })
    }

    fn combine(&mut self, images: &ArrayRef) -> Result<()> {
        for image in super::binary_values(images, &self.function)?
            .into_iter()
            .flatten()
        {
            let input = Tuple::<V>::read(image, &self.function)?;
            self.combined = Some(match (self.combined.take(), self.op) {
                (None, _) => input,
                (Some(acc), TupleAggOp::Intersection) => acc.intersect(&input, Some(self.mode)),
                (Some(acc), _) => acc.union(&input, self.mode, self.lg_nom),
            });
        }
        Ok(())
    }

    /// The sketch so far; `None` when nothing was combined into an intersection yet.
    fn current(&self) -> Option<Tuple<V>> {
        let rows = self.sketch.as_ref().map(Tuple::of_sketch);
        match (self.combined.clone(), rows) {
            (Some(acc), Some(rows)) => Some(acc.union(&rows, self.mode, self.lg_nom)),
            (Some(acc), None) => Some(acc),
            (None, Some(rows)) => Some(rows),
            (None, None) => match self.op {
                TupleAggOp::Intersection => None,
                _ => Some(Tuple::empty()),
            },
        }
    }
}

impl<V: Number + std::fmt::Debug + Send + Sync> datafusion::logical_expr::Accumulator
    for TupleAccumulator<V>
where
    V: TupleInput,
{
    fn update_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        let Some(sketch) = self.sketch.as_mut() else {
            return match values.first() {
                Some(images) => self.combine(images),
                None => Ok(()),
            };
        };
        let (Some(keys), Some(summaries)) = (values.first(), values.get(1)) else {
            return Ok(());
        };
        let summaries = V::values(summaries)?;
        super::agg::each_key(keys, |row, key| {
            let Some(value) = summaries.get(row).copied().flatten() else {
                return;
            };
            match key {
                super::agg::Key::Long(k) => sketch.update(k, value),
                super::agg::Key::Double(k) => sketch.update(
                    datasketches::hash::value::canonical_float::from_f64(k),
                    value,
                ),
                super::agg::Key::Bytes(b) => {
                    sketch.update(datasketches::hash::value::raw_bytes::from_slice(b), value)
                }
            }
        })
    }

    fn evaluate(&mut self) -> Result<datafusion::common::ScalarValue> {
        let result = self.current().unwrap_or_else(Tuple::empty);
        Ok(datafusion::common::ScalarValue::Binary(Some(
            result.image(),
        )))
    }

    fn size(&self) -> usize {
        std::mem::size_of_val(self)
            + self.combined.as_ref().map_or(0, |c| c.entries.len() * 32)
            + self.sketch.as_ref().map_or(0, |s| s.num_retained() * 32)
    }

    fn state(&mut self) -> Result<Vec<datafusion::common::ScalarValue>> {
        Ok(vec![datafusion::common::ScalarValue::Binary(
            self.current().map(|t| t.image()),
        )])
    }

    fn merge_batch(&mut self, states: &[ArrayRef]) -> Result<()> {
        // Partial states fold into the combined sketch; the rows' sketch joins it there.
        if let Some(sketch) = self.sketch.as_mut() {
            let rows = Tuple::of_sketch(sketch);
            *sketch = new_sketch::<V>(self.lg_nom, self.mode)?;
            self.combined = Some(match self.combined.take() {
                Some(acc) => acc.union(&rows, self.mode, self.lg_nom),
                None => rows,
            });
        }
        match states.first() {
            Some(images) => self.combine(images),
            None => Ok(()),
        }
    }
}

/// Summary values from an input column.
pub(super) trait TupleInput: Number {
    fn values(array: &ArrayRef) -> Result<Vec<Option<Self>>>;
}

impl TupleInput for f64 {
    fn values(array: &ArrayRef) -> Result<Vec<Option<Self>>> {
        use arrow::array::AsArray;
        let cast = arrow::compute::cast(array, &arrow::datatypes::DataType::Float64)?;
        Ok(cast
            .as_primitive::<arrow::datatypes::Float64Type>()
            .iter()
            .collect())
    }
}

impl TupleInput for i32 {
    fn values(array: &ArrayRef) -> Result<Vec<Option<Self>>> {
        use arrow::array::AsArray;
        let cast = arrow::compute::cast(array, &arrow::datatypes::DataType::Int32)?;
        Ok(cast
            .as_primitive::<arrow::datatypes::Int32Type>()
            .iter()
            .collect())
    }
}
