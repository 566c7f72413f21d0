//! `max_by(x, y[, k])` and `min_by(x, y[, k])` as Spark computes them: the `x` of the row with
//! the greatest (least) `y`, rows with a NULL `y` skipped, NULL without rows. Among equal
//! `y`s the later row wins (Spark keeps the buffer's value only while it is strictly better).
//! With `k` (a literal from 1 to 100000, checked by the builder) the `x`s of the k best rows,
//! best first, kept as Spark's `MaxMinByK` keeps them (k slots under a heap, a new row
//! taking the worst row's slot when strictly better; equal `y`s answer in slot order), so
//! that ties come out as Spark's do.
//!
//! One aggregate with no ordering requirement, so that it runs in grouped aggregations and in
//! every window frame; a sliding frame recomputes it from the frame's rows
//! ([`super::super::recompute::frame_rows`]). `y` is compared in Arrow's row format, which
//! orders every type Spark can order (NaN above all numbers).

use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray};
use arrow::compute::SortOptions;
use arrow::datatypes::{DataType, Field, FieldRef};
use arrow::row::{OwnedRow, RowConverter, SortField};
use datafusion::common::{Result, ScalarValue, internal_err};
use datafusion::logical_expr::function::{AccumulatorArgs, StateFieldsArgs};
use datafusion::logical_expr::{
    Accumulator, AggregateUDF, AggregateUDFImpl, Signature, TypeSignature, Volatility,
};
use datafusion::physical_expr::expressions::Literal;

use ember_execution::codec::EncodedUdaf;

/// `max_by` (`max` true) or `min_by`.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct ByOrder {
    max: bool,
    signature: Signature,
}

impl ByOrder {
    pub fn udaf(max: bool) -> Arc<AggregateUDF> {
        Arc::new(AggregateUDF::from(Self {
            max,
            signature: Signature::one_of(
                vec![TypeSignature::Any(2), TypeSignature::Any(3)],
                Volatility::Immutable,
            ),
        }))
    }
}

/// The list of `k` values of type `item`.
fn list_of(item: &DataType) -> DataType {
    DataType::List(Arc::new(Field::new_list_field(item.clone(), true)))
}

impl AggregateUDFImpl for ByOrder {
    fn name(&self) -> &str {
        if self.max { "max_by" } else { "min_by" }
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        match arg_types {
            [x, _] => Ok(x.clone()),
            [x, _, _] => Ok(list_of(x)),
            _ => internal_err!("{} of {} arguments", self.name(), arg_types.len()),
        }
    }

    fn is_nullable(&self) -> bool {
        true
    }

    fn state_fields(&self, args: StateFieldsArgs) -> Result<Vec<FieldRef>> {
        let (x, y) = match args.input_fields {
            [x, y, ..] => (x.data_type(), y.data_type()),
            _ => return internal_err!("{} without its arguments", self.name()),
        };
        let k = args.input_fields.len() == 3;
        let typed = |t: &DataType| if k { list_of(t) } else { t.clone() };
        Ok(vec![
            Arc::new(Field::new(format!("{}[x]", args.name), typed(x), true)),
            Arc::new(Field::new(format!("{}[y]", args.name), typed(y), true)),
        ])
    }

    fn accumulator(&self, args: AccumulatorArgs) -> Result<Box<dyn Accumulator>> {
        let (Some(x), Some(y)) = (args.expr_fields.first(), args.expr_fields.get(1)) else {
            return internal_err!("{} without its arguments", self.name());
        };
        let k = match args.exprs.get(2) {
            None => None,
            Some(e) => match e.downcast_ref::<Literal>().map(|l| l.value()) {
                Some(v) if v.data_type().is_integer() && !v.is_null() => {
                    Some(v.to_string().parse::<usize>().unwrap_or(1).max(1))
                }
                _ => return internal_err!("{} with a k that is no literal", self.name()),
            },
        };
        // Better rows first: descending for max_by.
        let converter = RowConverter::new(vec![SortField::new_with_options(
            y.data_type().clone(),
            SortOptions {
                descending: self.max,
                nulls_first: false,
            },
        )])?;
        Ok(Box::new(ByOrderAccumulator {
            k,
            x_type: x.data_type().clone(),
            y_type: y.data_type().clone(),
            converter,
            slots: Vec::new(),
            heap: Vec::new(),
        }))
    }

    fn create_sliding_accumulator(&self, args: AccumulatorArgs) -> Result<Box<dyn Accumulator>> {
        let this = Self::udaf(self.max);
        Ok(crate::functions::recompute::frame_rows(this, &args))
    }
}

/// A kept row: `y` in the row format (smaller is better), `x` and `y` as values.
#[derive(Debug)]
struct Kept {
    key: OwnedRow,
    x: ScalarValue,
    y: ScalarValue,
}

#[derive(Debug)]
struct ByOrderAccumulator {
    k: Option<usize>,
    x_type: DataType,
    y_type: DataType,
    converter: RowConverter,
    /// The kept rows: the best without `k`; with it, up to `k` slots, a new row taking the
    /// slot of the worst kept one when it is strictly better.
    slots: Vec<Kept>,
    /// With `k`: the slots as Spark's heap orders them, the worst first.
    heap: Vec<usize>,
}

impl ByOrderAccumulator {
    /// Whether slot `a` sits above slot `b` in the heap (is worse).
    fn above(&self, a: usize, b: usize) -> bool {
        self.slots[a].key > self.slots[b].key
    }

    fn sift_up(&mut self, mut at: usize) {
        while at > 0 {
            let parent = (at - 1) / 2;
            if !self.above(self.heap[at], self.heap[parent]) {
                return;
            }
            self.heap.swap(at, parent);
            at = parent;
        }
    }

    fn sift_down(&mut self, mut at: usize) {
        let size = self.heap.len();
        while 2 * at + 1 < size {
            let (left, right) = (2 * at + 1, 2 * at + 2);
            let preferred = if right < size && self.above(self.heap[right], self.heap[left]) {
                right
            } else {
                left
            };
            if !self.above(self.heap[preferred], self.heap[at]) {
                return;
            }
            self.heap.swap(at, preferred);
            at = preferred;
        }
    }

    /// Offer the rows of `x` and `y` (in order), as Spark's `MaxBy`/`MinBy` (the later of
    /// equal rows wins) or `MaxMinByK` (its heap of `k` slots) take them.
    fn offer(&mut self, x: &ArrayRef, y: &ArrayRef) -> Result<()> {
        let keys = self.converter.convert_columns(std::slice::from_ref(y))?;
        for i in 0..y.len() {
            if y.is_null(i) {
                continue;
            }
            let key = keys.row(i);
            let slot = match self.k {
                None => match self.slots.first() {
                    Some(best) if key > best.key.row() => continue,
                    Some(_) => Some(0),
                    None => None,
                },
                Some(k) if self.slots.len() < k => None,
                Some(_) => match self.heap.first() {
                    Some(&worst) if key < self.slots[worst].key.row() => Some(worst),
                    _ => continue,
                },
            };
            let kept = Kept {
                key: key.owned(),
                x: ScalarValue::try_from_array(x, i)?,
                y: ScalarValue::try_from_array(y, i)?,
            };
            match slot {
                Some(at) => {
                    self.slots[at] = kept;
                    if self.k.is_some() {
                        self.sift_down(0);
                    }
                }
                None => {
                    self.slots.push(kept);
                    if self.k.is_some() {
                        self.heap.push(self.slots.len() - 1);
                        self.sift_up(self.heap.len() - 1);
                    }
                }
            }
        }
        Ok(())
    }

    /// The kept `x`s (`y`s) as a state or answer: one value, or a list of `k` (an answer
    /// best first, ties in slot order; a state in heap order, as Spark merges it).
    fn column(&self, of_y: bool, answer: bool) -> Result<ScalarValue> {
        let item = if of_y { &self.y_type } else { &self.x_type };
        let value = |c: &Kept| if of_y { c.y.clone() } else { c.x.clone() };
        if self.k.is_none() {
            return match self.slots.first() {
                Some(c) => Ok(value(c)),
                None => ScalarValue::try_from(item),
            };
        }
        let order: Vec<usize> = if answer {
            let mut order: Vec<usize> = (0..self.slots.len()).collect();
            order.sort_by(|a, b| self.slots[*a].key.cmp(&self.slots[*b].key));
            order
        } else {
            self.heap.clone()
        };
        let values: Vec<ScalarValue> = order.iter().map(|i| value(&self.slots[*i])).collect();
        Ok(ScalarValue::List(ScalarValue::new_list_nullable(
            &values, item,
        )))
    }
}

impl Accumulator for ByOrderAccumulator {
    fn update_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        match values {
            [x, y, ..] => self.offer(x, y),
            _ => internal_err!("max_by/min_by without its arguments"),
        }
    }

    fn evaluate(&mut self) -> Result<ScalarValue> {
        if self.k.is_some() && self.slots.is_empty() {
            return ScalarValue::try_from(&list_of(&self.x_type));
        }
        self.column(false, true)
    }

    fn size(&self) -> usize {
        size_of_val(self)
            + self.converter.size()
            + self.heap.capacity() * size_of::<usize>()
            + self
                .slots
                .iter()
                .map(|c| c.key.as_ref().len() + c.x.size() + c.y.size())
                .sum::<usize>()
    }

    fn state(&mut self) -> Result<Vec<ScalarValue>> {
        Ok(vec![self.column(false, false)?, self.column(true, false)?])
    }

    fn merge_batch(&mut self, states: &[ArrayRef]) -> Result<()> {
        let [x, y] = states else {
            return internal_err!("max_by/min_by states of {} columns", states.len());
        };
        if self.k.is_none() {
            return self.offer(x, y);
        }
        // Each state's lists, in order.
        let (xs, ys) = (x.as_list::<i32>(), y.as_list::<i32>());
        for i in 0..xs.len() {
            if xs.is_null(i) || ys.is_null(i) {
                continue;
            }
            self.offer(&xs.value(i), &ys.value(i))?;
        }
        Ok(())
    }
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct ByOrderMessage {
    #[prost(bool, tag = "1")]
    max: bool,
}

impl EncodedUdaf for ByOrder {
    const NAME: &'static str = "by_order";
    type Message = ByOrderMessage;

    fn to_message(&self) -> Option<ByOrderMessage> {
        Some(ByOrderMessage { max: self.max })
    }

    fn from_message(_name: &str, m: ByOrderMessage) -> Result<Arc<AggregateUDF>> {
        Ok(Self::udaf(m.max))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::{Float64Array, Int32Array, StringArray};
    use arrow::datatypes::Schema;

    fn accumulator(max: bool, k: Option<i64>, y: DataType) -> Box<dyn Accumulator> {
        let fields: Vec<FieldRef> = vec![
            Arc::new(Field::new("x", DataType::Utf8, true)),
            Arc::new(Field::new("y", y, true)),
            Arc::new(Field::new("k", DataType::Int64, false)),
        ];
        let n = if k.is_some() { 3 } else { 2 };
        let schema = Schema::new(fields[..n].to_vec());
        let mut exprs: Vec<Arc<dyn datafusion::physical_expr::PhysicalExpr>> = vec![
            Arc::new(datafusion::physical_expr::expressions::Column::new("x", 0)),
            Arc::new(datafusion::physical_expr::expressions::Column::new("y", 1)),
        ];
        if let Some(k) = k {
            exprs.push(Arc::new(Literal::new(ScalarValue::Int64(Some(k)))));
        }
        let udaf = ByOrder::udaf(max);
        let return_type = udaf
            .return_type(
                &fields[..n]
                    .iter()
                    .map(|f| f.data_type().clone())
                    .collect::<Vec<_>>(),
            )
            .unwrap();
        let args = AccumulatorArgs {
            return_field: Arc::new(Field::new("r", return_type, true)),
            schema: &schema,
            ignore_nulls: false,
            order_bys: &[],
            is_reversed: false,
            name: "r",
            is_distinct: false,
            exprs: &exprs,
            expr_fields: &fields[..n],
        };
        udaf.accumulator(args).unwrap()
    }

    fn strings(v: &[Option<&str>]) -> ArrayRef {
        Arc::new(StringArray::from(v.to_vec()))
    }

    #[test]
    fn ties_go_to_the_later_row_and_null_orderings_are_skipped() {
        let mut acc = accumulator(true, None, DataType::Int32);
        let y: ArrayRef = Arc::new(Int32Array::from(vec![Some(1), Some(3), None, Some(3)]));
        acc.update_batch(&[strings(&[Some("a"), Some("b"), Some("c"), Some("d")]), y])
            .unwrap();
        assert_eq!(acc.evaluate().unwrap(), ScalarValue::from("d"));

        let mut acc = accumulator(false, None, DataType::Int32);
        assert_eq!(acc.evaluate().unwrap(), ScalarValue::Utf8(None));
        let y: ArrayRef = Arc::new(Int32Array::from(vec![Some(2), Some(1), Some(1)]));
        acc.update_batch(&[strings(&[Some("a"), None, Some("c")]), y])
            .unwrap();
        assert_eq!(acc.evaluate().unwrap(), ScalarValue::from("c"));
    }

    #[test]
    fn nan_is_above_all_numbers() {
        let mut acc = accumulator(true, None, DataType::Float64);
        let y: ArrayRef = Arc::new(Float64Array::from(vec![f64::INFINITY, f64::NAN, 1.0]));
        acc.update_batch(&[strings(&[Some("inf"), Some("nan"), Some("one")]), y])
            .unwrap();
        assert_eq!(acc.evaluate().unwrap(), ScalarValue::from("nan"));
    }

    #[test]
    fn the_k_best_in_order_and_merged_states() {
        let mut a = accumulator(true, Some(2), DataType::Int32);
        let y: ArrayRef = Arc::new(Int32Array::from(vec![Some(1), Some(5), Some(5)]));
        a.update_batch(&[strings(&[Some("a"), Some("b"), Some("c")]), y])
            .unwrap();
        let mut b = accumulator(true, Some(2), DataType::Int32);
        let y: ArrayRef = Arc::new(Int32Array::from(vec![Some(4), Some(7)]));
        b.update_batch(&[strings(&[Some("d"), Some("e")]), y])
            .unwrap();
        let state: Vec<ArrayRef> = b
            .state()
            .unwrap()
            .iter()
            .map(|s| s.to_array().unwrap())
            .collect();
        a.merge_batch(&state).unwrap();
        let expected = ScalarValue::List(ScalarValue::new_list_nullable(
            &[ScalarValue::from("e"), ScalarValue::from("b")],
            &DataType::Utf8,
        ));
        assert_eq!(a.evaluate().unwrap(), expected);
        let empty = accumulator(false, Some(3), DataType::Int32)
            .evaluate()
            .unwrap();
        assert!(empty.is_null());
    }
}
