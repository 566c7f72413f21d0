//! The sketch aggregates: one DataFusion aggregate whose [`SketchAggKind`] says which sketch it
//! builds or combines. Partial states are sketch images, so partial aggregates on workers merge
//! on the driver as Spark's do.

use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray};
use arrow::datatypes::{DataType, Field, FieldRef};
use datafusion::common::{Result, ScalarValue};
use datafusion::logical_expr::function::{AccumulatorArgs, StateFieldsArgs};
use datafusion::logical_expr::{
    Accumulator, AggregateUDF, AggregateUDFImpl, Signature, Volatility,
};
use datasketches::hll::{HllSketch, HllType, HllUnion};
use datasketches::kll::{KllFloat, KllSketch};
use datasketches::theta::{ThetaIntersection, ThetaSketch, ThetaSketchBuilder, ThetaUnion};
use serde::{Deserialize, Serialize};

use super::countmin::CountMin;
use super::kll::Item;
use super::tuple::{SummaryMode, TupleAccumulator, TupleAggOp, TupleValue};
use super::{Family, KllItem, binary_values, hll, invalid_buffer, kll, theta};
use crate::functions::udf_codec::JsonMessage;
use ember_execution::codec::EncodedUdaf;

/// What a sketch aggregate computes, with its settings fixed when it was planned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SketchAggKind {
    /// `hll_sketch_agg(x, lgConfigK)`: x an INT, BIGINT, STRING or BINARY.
    HllBuild { lg_k: u8 },
    /// `hll_union_agg(sketch, allowDifferentLgConfigK)`.
    HllUnion { allow_different: bool },
    /// `theta_sketch_agg(x, lgNomEntries)`.
    ThetaBuild { lg_nom: u8 },
    /// `theta_union_agg(sketch, lgNomEntries)`.
    ThetaUnion { lg_nom: u8 },
    /// `theta_intersection_agg(sketch)`.
    ThetaIntersection,
    /// `kll_sketch_agg_*(x, k)`.
    KllBuild { item: KllItem, k: u16 },
    /// `kll_merge_agg_*(sketch, k)`.
    KllMerge { item: KllItem, k: u16 },
    /// `tuple_sketch_agg_*(key, summary, lgNomEntries, mode)`.
    TupleBuild {
        value: TupleValue,
        lg_nom: u8,
        mode: SummaryMode,
    },
    /// `tuple_union_agg_*(sketch, lgNomEntries, mode)`.
    TupleUnion {
        value: TupleValue,
        lg_nom: u8,
        mode: SummaryMode,
    },
    /// `tuple_intersection_agg_*(sketch, mode)`.
    TupleIntersection {
        value: TupleValue,
        mode: SummaryMode,
    },
    /// `count_min_sketch(x, eps, confidence, seed)` (Spark's own sketch).
    CountMin { depth: u32, width: u32, seed: i32 },
}

impl SketchAggKind {
    pub fn function(&self) -> String {
        match self {
            SketchAggKind::HllBuild { .. } => "hll_sketch_agg".into(),
            SketchAggKind::HllUnion { .. } => "hll_union_agg".into(),
            SketchAggKind::ThetaBuild { .. } => "theta_sketch_agg".into(),
            SketchAggKind::ThetaUnion { .. } => "theta_union_agg".into(),
            SketchAggKind::ThetaIntersection => "theta_intersection_agg".into(),
            SketchAggKind::KllBuild { item, .. } => format!("kll_sketch_agg_{}", item.suffix()),
            SketchAggKind::KllMerge { item, .. } => format!("kll_merge_agg_{}", item.suffix()),
            SketchAggKind::TupleBuild { value, .. } => {
                format!("tuple_sketch_agg_{}", value.suffix())
            }
            SketchAggKind::TupleUnion { value, .. } => {
                format!("tuple_union_agg_{}", value.suffix())
            }
            SketchAggKind::TupleIntersection { value, .. } => {
                format!("tuple_intersection_agg_{}", value.suffix())
            }
            SketchAggKind::CountMin { .. } => "count_min_sketch".into(),
        }
    }
}

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct SketchAgg {
    kind: SketchAggKind,
    name: String,
    signature: Signature,
}

impl SketchAgg {
    pub fn udaf(kind: SketchAggKind) -> Arc<AggregateUDF> {
        Arc::new(AggregateUDF::from(Self {
            kind,
            name: format!("ember_{}", kind.function()),
            signature: Signature::variadic_any(Volatility::Immutable),
        }))
    }

    pub fn kind(&self) -> SketchAggKind {
        self.kind
    }
}

impl AggregateUDFImpl for SketchAgg {
    fn name(&self) -> &str {
        &self.name
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(DataType::Binary)
    }

    fn is_nullable(&self) -> bool {
        false
    }

    fn state_fields(&self, args: StateFieldsArgs) -> Result<Vec<FieldRef>> {
        Ok(vec![Arc::new(Field::new(
            format!("{}[sketch]", args.name),
            DataType::Binary,
            true,
        ))])
    }

    fn accumulator(&self, _args: AccumulatorArgs) -> Result<Box<dyn Accumulator>> {
        let function = self.kind.function();
        let tuple = match self.kind {
            SketchAggKind::TupleBuild {
                value,
                lg_nom,
                mode,
            } => Some((TupleAggOp::Build, value, lg_nom, mode)),
            SketchAggKind::TupleUnion {
                value,
                lg_nom,
                mode,
            } => Some((TupleAggOp::Union, value, lg_nom, mode)),
            SketchAggKind::TupleIntersection { value, mode } => {
                Some((TupleAggOp::Intersection, value, 12, mode))
            }
            _ => None,
        };
        if let Some((op, value, lg_nom, mode)) = tuple {
            return Ok(match value {
                TupleValue::Double => {
                    Box::new(TupleAccumulator::<f64>::new(op, lg_nom, mode, function)?)
                }
                TupleValue::Integer => {
                    Box::new(TupleAccumulator::<i32>::new(op, lg_nom, mode, function)?)
                }
            });
        }
        let state = match self.kind {
            SketchAggKind::HllBuild { lg_k } => State::Hll(hll::new_sketch(lg_k)?),
            SketchAggKind::HllUnion { .. } => State::HllUnion(None),
            SketchAggKind::ThetaBuild { lg_nom } => State::ThetaBuild(
                ThetaSketchBuilder::default()
                    .lg_k(lg_nom)
                    .build()
                    .map_err(|e| datafusion::error::DataFusionError::Internal(e.to_string()))?,
                None,
            ),
            SketchAggKind::ThetaUnion { lg_nom } => State::ThetaUnion(theta::new_union(lg_nom)?),
            SketchAggKind::ThetaIntersection => {
                State::ThetaIntersection(ThetaIntersection::default())
            }
            SketchAggKind::TupleBuild { .. }
            | SketchAggKind::TupleUnion { .. }
            | SketchAggKind::TupleIntersection { .. } => {
                return datafusion::common::internal_err!("{function} without its accumulator");
            }
            SketchAggKind::CountMin { depth, width, seed } => {
                State::CountMin(CountMin::new(depth, width, seed))
            }
            SketchAggKind::KllBuild { item, k } | SketchAggKind::KllMerge { item, k } => match item
            {
                KllItem::Bigint => State::KllBigint(kll::new_sketch(k)?),
                KllItem::Float => State::KllFloat(kll::new_sketch(k)?),
                KllItem::Double => State::KllDouble(kll::new_sketch(k)?),
            },
        };
        Ok(Box::new(SketchAccumulator {
            kind: self.kind,
            function,
            state,
        }))
    }
}

enum State {
    Hll(HllSketch),
    /// The union of the sketches seen (none yet: its `lgConfigK` comes from the first).
    HllUnion(Option<HllUnion>),
    /// The rows' sketch, and the union it became once partial sketches were merged in.
    ThetaBuild(ThetaSketch, Option<ThetaUnion>),
    ThetaUnion(ThetaUnion),
    ThetaIntersection(ThetaIntersection),
    KllBigint(KllSketch<i64>),
    KllFloat(KllSketch<KllFloat<f32>>),
    KllDouble(KllSketch<KllFloat<f64>>),
    CountMin(CountMin),
}

#[derive(Debug)]
struct SketchAccumulator {
    kind: SketchAggKind,
    function: String,
    state: State,
}

impl std::fmt::Debug for State {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("sketch state")
    }
}

impl SketchAccumulator {
    /// The sketch image of the state: the aggregate's answer and its partial state.
    fn image(&self) -> Result<Vec<u8>> {
        Ok(match &self.state {
            State::Hll(sketch) => hll::image(sketch),
            State::HllUnion(Some(union)) => hll::image(&union.to_sketch(HllType::Hll8)),
            State::HllUnion(None) => hll::image(&hll::new_sketch(12)?),
            State::ThetaBuild(sketch, None) => theta::image(&sketch.compact(true)),
            State::ThetaBuild(_, Some(union)) | State::ThetaUnion(union) => {
                theta::image(&union.to_sketch(true))
            }
            State::ThetaIntersection(intersection) => {
                theta::image(&theta::intersection_result(intersection)?)
            }
            State::KllBigint(sketch) => sketch.serialize(),
            State::KllFloat(sketch) => sketch.serialize(),
            State::KllDouble(sketch) => sketch.serialize(),
            State::CountMin(sketch) => sketch.image(),
        })
    }

    /// Combine sketch images (partial states, or the input of a union/merge aggregate).
    fn combine(&mut self, images: &ArrayRef) -> Result<()> {
        let function = self.function.clone();
        let family = match self.kind {
            SketchAggKind::HllBuild { .. } | SketchAggKind::HllUnion { .. } => Family::Hll,
            SketchAggKind::KllBuild { .. } | SketchAggKind::KllMerge { .. } => Family::Kll,
            _ => Family::Theta,
        };
        let bad = |_| invalid_buffer(family, &function);
        for image in binary_values(images, &function)?.into_iter().flatten() {
            match &mut self.state {
                State::Hll(sketch) => {
                    let input = hll::read(image, &function)?;
                    let mut union = hll::new_union(sketch.lg_config_k())?;
                    union.update(sketch);
                    union.update(&input);
                    *sketch = union.to_sketch(HllType::Hll8);
                }
                State::HllUnion(union) => {
                    let input = hll::read(image, &function)?;
                    let allow = matches!(
                        self.kind,
                        SketchAggKind::HllUnion {
                            allow_different: true
                        }
                    );
                    let current = match union {
                        Some(u) => u,
                        None => union.insert(hll::new_union(input.lg_config_k())?),
                    };
                    if !allow {
                        hll::same_lg_k(current.lg_config_k(), input.lg_config_k(), &function)?;
                    }
                    current.update(&input);
                }
                State::ThetaBuild(sketch, union) => {
                    let input = theta::read(image, &function)?;
                    let union = match union {
                        Some(u) => u,
                        None => {
                            let mut u = theta::new_union(sketch.lg_k())?;
                            u.update(&sketch.compact(true)).map_err(bad)?;
                            union.insert(u)
                        }
                    };
                    union.update(&input).map_err(bad)?;
                }
                State::ThetaUnion(union) => {
                    let input = theta::read(image, &function)?;
                    union.update(&input).map_err(bad)?;
                }
                State::ThetaIntersection(intersection) => {
                    let input = theta::read(image, &function)?;
                    intersection.update(&input).map_err(bad)?;
                }
                State::KllBigint(sketch) => merge_kll(sketch, image, &function)?,
                State::KllFloat(sketch) => merge_kll(sketch, image, &function)?,
                State::KllDouble(sketch) => merge_kll(sketch, image, &function)?,
                State::CountMin(sketch) => sketch.merge(image)?,
            }
        }
        Ok(())
    }
}

fn merge_kll<T: Item>(sketch: &mut KllSketch<T>, image: &[u8], function: &str) -> Result<()> {
    let input = kll::read::<T>(image, function)?;
    sketch
        .merge(&input)
        .map_err(|_| invalid_buffer(Family::Kll, function))
}

fn update_kll<T: Item>(sketch: &mut KllSketch<T>, values: &ArrayRef) -> Result<()> {
    for v in T::values(values)?.into_iter().flatten() {
        sketch.update(v);
    }
    Ok(())
}

impl Accumulator for SketchAccumulator {
    fn update_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        let Some(values) = values.first() else {
            return Ok(());
        };
        match &mut self.state {
            State::Hll(sketch) => hll_update(sketch, values),
            State::ThetaBuild(sketch, _) => theta_update(sketch, values),
            State::CountMin(sketch) => count_min_update(sketch, values),
            State::KllBigint(sketch) if matches!(self.kind, SketchAggKind::KllBuild { .. }) => {
                update_kll(sketch, values)
            }
            State::KllFloat(sketch) if matches!(self.kind, SketchAggKind::KllBuild { .. }) => {
                update_kll(sketch, values)
            }
            State::KllDouble(sketch) if matches!(self.kind, SketchAggKind::KllBuild { .. }) => {
                update_kll(sketch, values)
            }
            // Union, intersection and merge aggregates take sketches as their input.
            _ => self.combine(values),
        }
    }

    fn evaluate(&mut self) -> Result<ScalarValue> {
        Ok(ScalarValue::Binary(Some(self.image()?)))
    }

    fn size(&self) -> usize {
        std::mem::size_of_val(self)
            + match &self.state {
                State::Hll(s) => s.estimated_size(),
                State::KllBigint(s) => s.num_retained() * 8,
                State::KllFloat(s) => s.num_retained() * 4,
                State::KllDouble(s) => s.num_retained() * 8,
                State::ThetaBuild(s, _) => s.estimated_size(),
                _ => 1024,
            }
    }

    fn state(&mut self) -> Result<Vec<ScalarValue>> {
        // Nothing seen yet: no sketch (a union's lgConfigK comes from its first sketch, and an
        // intersection of no sketches is not an empty one).
        let nothing = match &self.state {
            State::HllUnion(None) => true,
            State::ThetaIntersection(i) => !i.has_result(),
            _ => false,
        };
        if nothing {
            return Ok(vec![ScalarValue::Binary(None)]);
        }
        Ok(vec![ScalarValue::Binary(Some(self.image()?))])
    }

    fn merge_batch(&mut self, states: &[ArrayRef]) -> Result<()> {
        match states.first() {
            Some(images) => self.combine(images),
            None => Ok(()),
        }
    }
}

/// Spark's HLL updates: INT as BIGINT, strings and binaries by their bytes (empty ones skipped).
fn hll_update(sketch: &mut HllSketch, values: &ArrayRef) -> Result<()> {
    each_key(values, |_, key| match key {
        Key::Long(v) => sketch.update(v),
        Key::Bytes(b) => sketch.update(datasketches::hash::value::raw_bytes::from_slice(b)),
        Key::Double(_) => {}
    })
}

/// Spark's count-min updates: integers as BIGINT, strings and binaries by their bytes (empty
/// ones counted too).
fn count_min_update(sketch: &mut CountMin, values: &ArrayRef) -> Result<()> {
    if matches!(
        values.data_type(),
        DataType::Binary | DataType::LargeBinary | DataType::BinaryView
    ) {
        for b in binary_values(values, "count_min_sketch")?
            .into_iter()
            .flatten()
        {
            sketch.add(&Key::Bytes(b));
        }
        return Ok(());
    }
    if matches!(
        values.data_type(),
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View
    ) {
        let cast = arrow::compute::cast(values, &DataType::Utf8)?;
        for s in cast.as_string::<i32>().iter().flatten() {
            sketch.add(&Key::Bytes(s.as_bytes()));
        }
        return Ok(());
    }
    each_key(values, |_, key| sketch.add(&key))
}

/// Spark's theta updates: INT as BIGINT, FLOAT as DOUBLE, arrays of INT/BIGINT by their
/// items' bytes, empty strings, binaries and arrays skipped.
fn theta_update(sketch: &mut ThetaSketch, values: &ArrayRef) -> Result<()> {
    each_key(values, |_, key| match key {
        Key::Long(v) => sketch.update(v),
        Key::Double(v) => sketch.update(datasketches::hash::value::canonical_float::from_f64(v)),
        Key::Bytes(b) => sketch.update(datasketches::hash::value::raw_bytes::from_slice(b)),
    })
}

/// A value as a sketch hashes it.
pub(super) enum Key<'a> {
    Long(i64),
    Double(f64),
    /// Non-empty bytes: a string's UTF-8, a binary, an integer array's little-endian items.
    Bytes(&'a [u8]),
}

/// Call `f` with the row and key of each non-NULL, non-empty value.
pub(super) fn each_key(values: &ArrayRef, mut f: impl FnMut(usize, Key)) -> Result<()> {
    use arrow::datatypes::{Float64Type, Int32Type, Int64Type};
    let present = |row: usize| values.is_valid(row);
    match values.data_type() {
        DataType::Int8 | DataType::Int16 | DataType::Int32 | DataType::Int64 => {
            let cast = arrow::compute::cast(values, &DataType::Int64)?;
            for (row, v) in cast.as_primitive::<Int64Type>().iter().enumerate() {
                if let Some(v) = v {
                    f(row, Key::Long(v));
                }
            }
        }
        DataType::Float32 | DataType::Float64 => {
            let cast = arrow::compute::cast(values, &DataType::Float64)?;
            for (row, v) in cast.as_primitive::<Float64Type>().iter().enumerate() {
                if let Some(v) = v {
                    f(row, Key::Double(v));
                }
            }
        }
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => {
            let cast = arrow::compute::cast(values, &DataType::Utf8)?;
            for (row, s) in cast.as_string::<i32>().iter().enumerate() {
                if let Some(s) = s.filter(|s| !s.is_empty()) {
                    f(row, Key::Bytes(s.as_bytes()));
                }
            }
        }
        DataType::Binary | DataType::LargeBinary | DataType::BinaryView => {
            for (row, b) in binary_values(values, "sketch")?.into_iter().enumerate() {
                if let Some(b) = b.filter(|b| !b.is_empty()) {
                    f(row, Key::Bytes(b));
                }
            }
        }
        DataType::List(item) => {
            let lists = values.as_list::<i32>();
            let mut bytes = Vec::new();
            for row in (0..lists.len()).filter(|r| present(*r)) {
                let list = lists.value(row);
                bytes.clear();
                match item.data_type() {
                    DataType::Int32 => list
                        .as_primitive::<Int32Type>()
                        .iter()
                        .for_each(|v| bytes.extend(v.unwrap_or(0).to_le_bytes())),
                    _ => arrow::compute::cast(&list, &DataType::Int64)?
                        .as_primitive::<Int64Type>()
                        .iter()
                        .for_each(|v| bytes.extend(v.unwrap_or(0).to_le_bytes())),
                }
                if !bytes.is_empty() {
                    f(row, Key::Bytes(&bytes));
                }
            }
        }
        DataType::Null => {}
        other => {
            return Err(datafusion::error::DataFusionError::Internal(format!(
                "sketch of {other}"
            )));
        }
    }
    Ok(())
}

impl EncodedUdaf for SketchAgg {
    const NAME: &'static str = "sketch";
    type Message = JsonMessage;

    fn to_message(&self) -> Option<JsonMessage> {
        JsonMessage::of(&self.kind)
    }

    fn from_message(_name: &str, m: JsonMessage) -> Result<Arc<AggregateUDF>> {
        Ok(Self::udaf(m.value("sketch aggregate")?))
    }
}
