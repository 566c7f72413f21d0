//! Aggregates over sliding window frames computed as Spark computes them: from the frame's rows
//! each time the frame moves. DataFusion slides a frame by removing the rows that leave it from
//! the accumulator (`retract_batch`), which many accumulators cannot do (`listagg`,
//! `approx_count_distinct`, `bit_or`, `max_by`, `try_sum`: "not supported") and which leaves
//! rounding error in floating point moments (a variance of equal values of -2.8e-14, its
//! standard deviation NaN, where Spark answers 0.0). [`Recomputed`] wraps such an aggregate:
//! its sliding accumulator keeps the frame's rows and evaluates a fresh accumulator of them.

use std::collections::VecDeque;
use std::sync::Arc;

use arrow::array::{Array, ArrayRef};
use arrow::datatypes::{DataType, FieldRef, Schema};
use datafusion::common::{Result, ScalarValue, internal_err};
use datafusion::logical_expr::function::{AccumulatorArgs, StateFieldsArgs};
use datafusion::logical_expr::{Accumulator, AggregateUDF, AggregateUDFImpl, Signature};
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_expr::expressions::PhysicalSortExpr;
use ember_execution::codec::EncodedUdaf;

/// Aggregates whose sliding accumulators are exact: kept as DataFusion slides them.
const EXACT_WHEN_SLIDING: [&str; 6] = ["count", "min", "max", "array_agg", "bool_and", "bool_or"];

/// `f` over a sliding frame: `f` itself where DataFusion's sliding accumulator is exact (or `f`
/// is not one of DataFusion's or datafusion-spark's aggregates), else [`Recomputed`] `f`.
pub fn sliding(f: Arc<AggregateUDF>) -> Arc<AggregateUDF> {
    if EXACT_WHEN_SLIDING.contains(&f.name()) || registry_of(&f).is_none() {
        return f;
    }
    Arc::new(AggregateUDF::from(Recomputed { inner: f }))
}

/// Which registry holds `f` (true: datafusion-spark's), if one does.
fn registry_of(f: &Arc<AggregateUDF>) -> Option<bool> {
    if super::datafusion_aggregate(f.name()).is_some_and(|d| d == *f) {
        Some(false)
    } else if super::spark_aggregate(f.name()).is_some_and(|s| s == *f) {
        Some(true)
    } else {
        None
    }
}

/// An aggregate whose sliding accumulator recomputes it from the frame's rows.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct Recomputed {
    inner: Arc<AggregateUDF>,
}

impl AggregateUDFImpl for Recomputed {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn signature(&self) -> &Signature {
        self.inner.signature()
    }

    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        self.inner.return_type(arg_types)
    }

    fn return_field(&self, arg_fields: &[FieldRef]) -> Result<FieldRef> {
        self.inner.return_field(arg_fields)
    }

    fn is_nullable(&self) -> bool {
        self.inner.is_nullable()
    }

    fn accumulator(&self, args: AccumulatorArgs) -> Result<Box<dyn Accumulator>> {
        self.inner.accumulator(args)
    }

    fn state_fields(&self, args: StateFieldsArgs) -> Result<Vec<FieldRef>> {
        self.inner.state_fields(args)
    }

    fn coerce_types(&self, arg_types: &[DataType]) -> Result<Vec<DataType>> {
        self.inner.coerce_types(arg_types)
    }

    fn default_value(&self, data_type: &DataType) -> Result<ScalarValue> {
        self.inner.default_value(data_type)
    }

    fn create_sliding_accumulator(&self, args: AccumulatorArgs) -> Result<Box<dyn Accumulator>> {
        // Sums and averages of integers and decimals remove rows exactly (and in constant time).
        if matches!(self.inner.name(), "sum" | "avg")
            && args
                .expr_fields
                .iter()
                .all(|f| !f.data_type().is_floating())
        {
            return self.inner.create_sliding_accumulator(args);
        }
        Ok(frame_rows(Arc::clone(&self.inner), &args))
    }
}

/// A sliding accumulator of `inner` that keeps the frame's rows and evaluates a fresh
/// accumulator of them.
pub(crate) fn frame_rows(inner: Arc<AggregateUDF>, args: &AccumulatorArgs) -> Box<dyn Accumulator> {
    Box::new(FrameRows {
        inner,
        args: OwnedArgs::of(args),
        chunks: VecDeque::new(),
        offset: 0,
    })
}

/// The accumulator arguments, owned (a fresh accumulator is made at each evaluation).
#[derive(Debug)]
struct OwnedArgs {
    return_field: FieldRef,
    schema: Schema,
    ignore_nulls: bool,
    order_bys: Vec<PhysicalSortExpr>,
    is_reversed: bool,
    name: String,
    is_distinct: bool,
    exprs: Vec<Arc<dyn PhysicalExpr>>,
    expr_fields: Vec<FieldRef>,
}

impl OwnedArgs {
    fn of(args: &AccumulatorArgs) -> Self {
        OwnedArgs {
            return_field: Arc::clone(&args.return_field),
            schema: args.schema.clone(),
            ignore_nulls: args.ignore_nulls,
            order_bys: args.order_bys.to_vec(),
            is_reversed: args.is_reversed,
            name: args.name.to_string(),
            is_distinct: args.is_distinct,
            exprs: args.exprs.to_vec(),
            expr_fields: args.expr_fields.to_vec(),
        }
    }

    fn args(&self) -> AccumulatorArgs<'_> {
        AccumulatorArgs {
            return_field: Arc::clone(&self.return_field),
            schema: &self.schema,
            ignore_nulls: self.ignore_nulls,
            order_bys: &self.order_bys,
            is_reversed: self.is_reversed,
            name: &self.name,
            is_distinct: self.is_distinct,
            exprs: &self.exprs,
            expr_fields: &self.expr_fields,
        }
    }
}

/// The rows of a sliding frame, as the batches (one array per argument) that entered it;
/// `offset` rows of the first have left it.
#[derive(Debug)]
struct FrameRows {
    inner: Arc<AggregateUDF>,
    args: OwnedArgs,
    chunks: VecDeque<Vec<ArrayRef>>,
    offset: usize,
}

impl FrameRows {
    /// A fresh accumulator of the frame's rows.
    fn recomputed(&self) -> Result<Box<dyn Accumulator>> {
        let mut accumulator = self.inner.accumulator(self.args.args())?;
        for (i, chunk) in self.chunks.iter().enumerate() {
            let skip = if i == 0 { self.offset } else { 0 };
            let rows: Vec<ArrayRef> = chunk
                .iter()
                .map(|a| a.slice(skip, a.len() - skip))
                .collect();
            accumulator.update_batch(&rows)?;
        }
        Ok(accumulator)
    }
}

impl Accumulator for FrameRows {
    fn update_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        if values.first().is_some_and(|a| !a.is_empty()) {
            self.chunks.push_back(values.to_vec());
        }
        Ok(())
    }

    fn retract_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        let mut leaving = values.first().map_or(0, |a| a.len());
        while leaving > 0 {
            let Some(first) = self.chunks.front() else {
                return internal_err!("a sliding frame lost more rows than it had");
            };
            let left = first.first().map_or(0, |a| a.len()) - self.offset;
            if leaving < left {
                self.offset += leaving;
                break;
            }
            leaving -= left;
            self.offset = 0;
            self.chunks.pop_front();
        }
        Ok(())
    }

    fn supports_retract_batch(&self) -> bool {
        true
    }

    fn evaluate(&mut self) -> Result<ScalarValue> {
        self.recomputed()?.evaluate()
    }

    fn state(&mut self) -> Result<Vec<ScalarValue>> {
        self.recomputed()?.state()
    }

    fn merge_batch(&mut self, _states: &[ArrayRef]) -> Result<()> {
        internal_err!("a sliding frame's accumulator is never merged")
    }

    fn size(&self) -> usize {
        size_of::<Self>()
            + self
                .chunks
                .iter()
                .flatten()
                .map(|a| a.get_array_memory_size())
                .sum::<usize>()
    }
}

/// The wrapped aggregate's registry (datafusion-spark's or DataFusion's); it is found by name.
#[derive(Clone, PartialEq, prost::Message)]
pub struct RecomputedMessage {
    #[prost(bool, tag = "1")]
    spark: bool,
}

impl EncodedUdaf for Recomputed {
    const NAME: &'static str = "recomputed";
    type Message = RecomputedMessage;

    fn to_message(&self) -> Option<RecomputedMessage> {
        Some(RecomputedMessage {
            spark: registry_of(&self.inner)?,
        })
    }

    fn from_message(name: &str, m: RecomputedMessage) -> Result<Arc<AggregateUDF>> {
        let inner = if m.spark {
            super::spark_aggregate(name)
        } else {
            super::datafusion_aggregate(name)
        };
        match inner {
            Some(inner) => Ok(Arc::new(AggregateUDF::from(Recomputed { inner }))),
            None => internal_err!("no aggregate {name} to recompute"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::Float64Array;
    use arrow::datatypes::Field;

    fn floats(values: &[f64]) -> Vec<ArrayRef> {
        vec![Arc::new(Float64Array::from(values.to_vec()))]
    }

    #[test]
    fn a_frame_slides_across_batches() {
        // (A sum of doubles: sums of integers slide by DataFusion's own removal.)
        let sum = datafusion::functions_aggregate::sum::sum_udaf();
        let field: FieldRef = Arc::new(Field::new("x", DataType::Float64, true));
        let schema = Schema::new(vec![field.as_ref().clone()]);
        let exprs: Vec<Arc<dyn PhysicalExpr>> = vec![Arc::new(
            datafusion::physical_expr::expressions::Column::new("x", 0),
        )];
        let args = AccumulatorArgs {
            return_field: Arc::clone(&field),
            schema: &schema,
            ignore_nulls: false,
            order_bys: &[],
            is_reversed: false,
            name: "sum(x)",
            is_distinct: false,
            exprs: &exprs,
            expr_fields: std::slice::from_ref(&field),
        };
        let recomputed = Recomputed { inner: sum };
        let mut frame = recomputed.create_sliding_accumulator(args).unwrap();
        frame.update_batch(&floats(&[1.0, 2.0])).unwrap();
        frame.update_batch(&floats(&[3.0])).unwrap();
        frame.update_batch(&floats(&[4.0, 5.0])).unwrap();
        assert_eq!(frame.evaluate().unwrap(), ScalarValue::Float64(Some(15.0)));
        // Two rows leave: the first batch whole.
        frame.retract_batch(&floats(&[1.0, 2.0])).unwrap();
        assert_eq!(frame.evaluate().unwrap(), ScalarValue::Float64(Some(12.0)));
        // Then the next batch and one row of the last.
        frame.retract_batch(&floats(&[3.0, 4.0])).unwrap();
        assert_eq!(frame.evaluate().unwrap(), ScalarValue::Float64(Some(5.0)));
        assert!(frame.retract_batch(&floats(&[5.0, 6.0])).is_err());
    }
}
