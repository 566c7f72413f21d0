//! Spark's `sum` and `avg` of decimals, one aggregate each.
//!
//! Of DECIMAL(p, s) values the sum is a DECIMAL(min(p + 10, 38), s) and the average a
//! DECIMAL(min(p + 4, 38), min(s + 4, 38)), the sum divided by the count and rounded half up.
//! A sum beyond its precision is an overflow: NULL, or under ANSI Spark's ARITHMETIC_OVERFLOW
//! "Overflow in sum of decimals" (suggesting `try_sum` / `try_avg`). An overflow in a partial
//! sum stays one, as Spark's NULL buffer does. DataFusion's `sum` wraps around in 128 bits and
//! its `avg` truncates, and an average as a sum and a count took two passes over the groups.
//!
//! Grouped, the sums are 128-bit integers, without a check per row: values of p ≤ 28 digits
//! cannot wrap 128 bits before 10^10 rows in a group, and sums of wider values carry into 64
//! more bits. Each sum is checked against its precision when it leaves the accumulator.
//! The ungrouped and window aggregates sum exactly in 256 bits, a frame removing its rows.

use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, BooleanArray, Decimal128Array, Int64Array};
use arrow::buffer::{BooleanBuffer, NullBuffer};
use arrow::datatypes::{DataType, Decimal128Type, Field, FieldRef, i256};
use datafusion::common::{Result, ScalarValue, internal_err};
use datafusion::logical_expr::function::{AccumulatorArgs, StateFieldsArgs};
use datafusion::logical_expr::utils::format_state_name;
use datafusion::logical_expr::{
    Accumulator, AggregateUDF, AggregateUDFImpl, EmitTo, GroupsAccumulator, Signature, Volatility,
};

use super::decimal::{MAX_PRECISION, out_of_range, quotient_half_up};
use crate::error::{SparkError, to_datafusion};
use ember_execution::codec::EncodedUdaf;

mod distinct;

/// `sum` (`avg` false) or `avg` of decimals; `fail`: an overflow is an error (ANSI), else NULL.
/// Over a window (`window`) Spark adds row by row, and a sum beyond its precision is
/// NUMERIC_VALUE_OUT_OF_RANGE there, not ARITHMETIC_OVERFLOW.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct DecimalSum {
    avg: bool,
    fail: bool,
    window: bool,
    signature: Signature,
}

impl DecimalSum {
    pub fn udaf(avg: bool, fail: bool) -> Arc<AggregateUDF> {
        Self::of(avg, fail, false)
    }

    fn of(avg: bool, fail: bool, window: bool) -> Arc<AggregateUDF> {
        Arc::new(AggregateUDF::from(Self {
            avg,
            fail,
            window,
            signature: Signature::any(1, Volatility::Immutable),
        }))
    }

    /// `f` as a window function: the same `f`, unless it is a sum or average of decimals.
    pub fn in_window(f: Arc<AggregateUDF>) -> Arc<AggregateUDF> {
        let inner: &dyn std::any::Any = f.inner().as_ref();
        match inner.downcast_ref::<Self>() {
            Some(d) => Self::of(d.avg, d.fail, true),
            None => f,
        }
    }

    fn shape_of(&self, args: &AccumulatorArgs) -> Result<Shape> {
        match args.expr_fields {
            [field] => self.shape(field.data_type()),
            _ => internal_err!("{} takes one argument", self.name()),
        }
    }

    fn shape(&self, arg: &DataType) -> Result<Shape> {
        let DataType::Decimal128(p, s) = *arg else {
            return internal_err!("{} of decimals got {arg}", self.name());
        };
        let sum_precision = (p + 10).min(MAX_PRECISION);
        let (precision, scale) = if self.avg {
            ((p + 4).min(MAX_PRECISION), (s + 4).min(MAX_PRECISION as i8))
        } else {
            (sum_precision, s)
        };
        Ok(Shape {
            avg: self.avg,
            fail: self.fail,
            window: self.window,
            input_precision: p,
            sum_precision,
            sum_scale: s,
            sum_limit: 10u128.pow(sum_precision as u32),
            precision,
            scale,
            limit: 10u128.pow(precision as u32),
        })
    }
}

/// The types and bounds of one call.
#[derive(Debug, Clone, Copy)]
struct Shape {
    avg: bool,
    fail: bool,
    window: bool,
    input_precision: u8,
    sum_precision: u8,
    sum_scale: i8,
    sum_limit: u128,
    precision: u8,
    scale: i8,
    limit: u128,
}

impl Shape {
    fn sum_type(&self) -> DataType {
        DataType::Decimal128(self.sum_precision, self.sum_scale)
    }

    fn result_type(&self) -> DataType {
        DataType::Decimal128(self.precision, self.scale)
    }

    /// The result of a group's exact sum (`None`: beyond 128 bits) of `count` values.
    fn finish(&self, sum: Option<i128>, count: i64) -> Result<Option<i128>> {
        if count == 0 {
            return Ok(None);
        }
        let Some(sum) = sum.filter(|s| s.unsigned_abs() < self.sum_limit) else {
            if self.fail && self.window {
                let (p, s) = (self.sum_precision, self.sum_scale);
                return Err(to_datafusion(out_of_range(p, s)));
            }
            if self.fail {
                let alternative = if self.avg { "try_avg" } else { "try_sum" };
                return Err(to_datafusion(SparkError::arithmetic_overflow(
                    "Overflow in sum of decimals",
                    alternative,
                )));
            }
            return Ok(None);
        };
        if !self.avg {
            return Ok(Some(sum));
        }
        let shift = self.scale as i32 - self.sum_scale as i32;
        match quotient_half_up(sum, count.into(), shift).filter(|q| q.unsigned_abs() < self.limit) {
            Some(q) => Ok(Some(q)),
            None if self.fail => Err(to_datafusion(out_of_range(self.precision, self.scale))),
            None => Ok(None),
        }
    }

    /// A partial state's sum: NULL where the sum overflowed (and with no values).
    fn state_sum(&self, sum: Option<i128>, count: i64) -> Option<i128> {
        sum.filter(|s| count > 0 && s.unsigned_abs() < self.sum_limit)
    }
}

impl AggregateUDFImpl for DecimalSum {
    fn name(&self) -> &str {
        if self.avg { "avg" } else { "sum" }
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        match arg_types {
            [t] => Ok(self.shape(t)?.result_type()),
            _ => internal_err!("{} takes one argument", self.name()),
        }
    }

    fn state_fields(&self, args: StateFieldsArgs) -> Result<Vec<FieldRef>> {
        let [field] = args.input_fields else {
            return internal_err!("{} takes one argument", self.name());
        };
        if args.is_distinct {
            return Ok(distinct::state_fields(args.name, field.data_type()));
        }
        let shape = self.shape(field.data_type())?;
        Ok(vec![
            Arc::new(Field::new(
                format_state_name(args.name, "sum"),
                shape.sum_type(),
                true,
            )),
            Arc::new(Field::new(
                format_state_name(args.name, "count"),
                DataType::Int64,
                false,
            )),
        ])
    }

    fn accumulator(&self, args: AccumulatorArgs) -> Result<Box<dyn Accumulator>> {
        let shape = self.shape_of(&args)?;
        if args.is_distinct {
            let [field] = args.expr_fields else {
                return internal_err!("{} takes one argument", self.name());
            };
            let input = field.data_type().clone();
            return Ok(Box::new(distinct::Distinct::new(shape, input)));
        }
        Ok(Box::new(Exact {
            shape,
            sum: i256::ZERO,
            count: 0,
            overflow: false,
        }))
    }

    fn groups_accumulator_supported(&self, args: AccumulatorArgs) -> bool {
        !args.is_distinct && self.shape_of(&args).is_ok()
    }

    fn create_groups_accumulator(
        &self,
        args: AccumulatorArgs,
    ) -> Result<Box<dyn GroupsAccumulator>> {
        let shape = self.shape_of(&args)?;
        Ok(Box::new(Groups::new(shape)))
    }
}

/// A grouped sum that overflowed (no sum of values of up to 28 digits reaches it).
const OVERFLOWED: i128 = i128::MIN;

/// Values of up to this many digits sum in 128 bits: they cannot wrap around before 10^10
/// rows in a group.
const UNCHECKED_PRECISION: u8 = 28;

/// The grouped accumulator: a sum per group and, for an average,
/// a count (for a sum, whether the group saw a value). Kept in separate vectors, the way
/// DataFusion's are, so that a row touches as few cache lines as it can.
#[derive(Debug)]
struct Groups {
    shape: Shape,
    sums: Vec<i128>,
    /// Averages only.
    counts: Vec<i64>,
    /// Sums only.
    seen: Vec<bool>,
    /// Sums of values of more than [`UNCHECKED_PRECISION`] digits only: the bits above the
    /// 128 of `sums`, so that the sum is exact (in 192 bits) until it leaves the accumulator.
    highs: Vec<i64>,
}

/// The high bits of a wide sum whose partial sum overflowed: no carries bring it back.
const OVERFLOWED_HIGH: i64 = i64::MIN / 2;

impl Groups {
    fn new(shape: Shape) -> Self {
        Self {
            shape,
            sums: Vec::new(),
            counts: Vec::new(),
            seen: Vec::new(),
            highs: Vec::new(),
        }
    }

    fn wide(&self) -> bool {
        self.shape.input_precision > UNCHECKED_PRECISION
    }

    fn resize(&mut self, groups: usize) {
        self.sums.resize(groups, 0);
        if self.wide() {
            self.highs.resize(groups, 0);
        }
        if self.shape.avg {
            self.counts.resize(groups, 0);
        } else {
            self.seen.resize(groups, false);
        }
    }

    /// Adds the values of the rows `kept` says.
    fn add(&mut self, values: &[i128], group_indices: &[usize], kept: impl Fn(usize) -> bool) {
        match (self.shape.avg, self.wide()) {
            (true, false) => self.add_rows::<true, false>(values, group_indices, kept),
            (true, true) => self.add_rows::<true, true>(values, group_indices, kept),
            (false, false) => self.add_rows::<false, false>(values, group_indices, kept),
            (false, true) => self.add_rows::<false, true>(values, group_indices, kept),
        }
    }

    /// One loop per kind: averages count, sums mark groups seen; sums of wider values (`WIDE`)
    /// carry into their high bits.
    fn add_rows<const AVG: bool, const WIDE: bool>(
        &mut self,
        values: &[i128],
        group_indices: &[usize],
        kept: impl Fn(usize) -> bool,
    ) {
        for (i, (&g, &v)) in group_indices.iter().zip(values.iter()).enumerate() {
            if !kept(i) {
                continue;
            }
            if WIDE {
                self.add_wide(g, v);
            } else {
                self.sums[g] = self.sums[g].wrapping_add(v);
            }
            if AVG {
                self.counts[g] += 1;
            } else {
                self.seen[g] = true;
            }
        }
    }

    /// Adds `v` to the wide sum of group `g`: its low 128 bits, the carry into the high ones.
    fn add_wide(&mut self, g: usize, v: i128) {
        let (low, carry) = (self.sums[g] as u128).overflowing_add(v as u128);
        self.sums[g] = low as i128;
        // `v` sign-extended: its high bits are all ones when negative.
        self.highs[g] += (v >> 127) as i64 + i64::from(carry);
    }

    /// Merges a partial sum (`None`: it overflowed) into group `g`.
    fn merge_sum(&mut self, g: usize, partial: Option<i128>) {
        if self.wide() {
            match partial {
                Some(v) => self.add_wide(g, v),
                None => self.highs[g] = OVERFLOWED_HIGH,
            }
            return;
        }
        let sum = self.sums[g];
        self.sums[g] = match partial {
            Some(v) if sum != OVERFLOWED => sum
                .checked_add(v)
                .filter(|s| *s != OVERFLOWED)
                .unwrap_or(OVERFLOWED),
            _ => OVERFLOWED,
        };
    }

    /// The first groups' sums and counts (for a sum, 1 where it saw a value), taken out.
    fn take(&mut self, emit_to: EmitTo) -> (Vec<i128>, Vec<i64>) {
        let mut sums = emit_to.take_needed(&mut self.sums);
        if self.wide() {
            let highs = emit_to.take_needed(&mut self.highs);
            for (sum, high) in sums.iter_mut().zip(highs) {
                let exact = i256::from_parts(*sum as u128, high.into());
                *sum = exact.to_i128().unwrap_or(OVERFLOWED);
            }
        }
        let counts = if self.shape.avg {
            emit_to.take_needed(&mut self.counts)
        } else {
            let seen = emit_to.take_needed(&mut self.seen);
            seen.into_iter().map(i64::from).collect()
        };
        (sums, counts)
    }

    /// Whether a group's sum is within its precision (and not [`OVERFLOWED`]).
    fn fits(&self, sum: i128) -> bool {
        sum != OVERFLOWED && sum.unsigned_abs() < self.shape.sum_limit
    }
}

/// Decimals of `precision` and `scale` from digits, NULL where `valid` says not.
fn decimal_array(
    digits: Vec<i128>,
    valid: BooleanBuffer,
    precision: u8,
    scale: i8,
) -> Result<ArrayRef> {
    let nulls = NullBuffer::new(valid);
    let nulls = (nulls.null_count() > 0).then_some(nulls);
    Ok(Arc::new(
        Decimal128Array::new(digits.into(), nulls).with_precision_and_scale(precision, scale)?,
    ))
}

impl GroupsAccumulator for Groups {
    fn update_batch(
        &mut self,
        values: &[ArrayRef],
        group_indices: &[usize],
        opt_filter: Option<&BooleanArray>,
        total_num_groups: usize,
    ) -> Result<()> {
        let [values] = values else {
            return internal_err!("decimal sum takes one argument");
        };
        let values = values.as_primitive::<Decimal128Type>();
        self.resize(total_num_groups);
        let raw = values.values();
        if values.null_count() == 0 && opt_filter.is_none() {
            self.add(raw, group_indices, |_| true);
        } else {
            let kept = |i: usize| {
                values.is_valid(i) && opt_filter.is_none_or(|f| f.is_valid(i) && f.value(i))
            };
            self.add(raw, group_indices, kept);
        }
        Ok(())
    }

    fn evaluate(&mut self, emit_to: EmitTo) -> Result<ArrayRef> {
        let shape = self.shape;
        let (mut sums, counts) = self.take(emit_to);
        // Every group that saw values and fits answers without a check per group; the
        // others (and every average) through `Shape::finish`.
        let plain = !shape.avg && sums.iter().all(|&s| self.fits(s));
        if !plain {
            for (sum, &count) in sums.iter_mut().zip(&counts) {
                let fits = self.fits(*sum);
                *sum = shape
                    .finish(fits.then_some(*sum), count)?
                    .unwrap_or(OVERFLOWED);
            }
        }
        let valid =
            BooleanBuffer::collect_bool(sums.len(), |i| counts[i] > 0 && sums[i] != OVERFLOWED);
        decimal_array(sums, valid, shape.precision, shape.scale)
    }

    fn state(&mut self, emit_to: EmitTo) -> Result<Vec<ArrayRef>> {
        let shape = self.shape;
        let (sums, counts) = self.take(emit_to);
        let valid =
            BooleanBuffer::collect_bool(sums.len(), |i| counts[i] > 0 && self.fits(sums[i]));
        Ok(vec![
            decimal_array(sums, valid, shape.sum_precision, shape.sum_scale)?,
            Arc::new(Int64Array::from(counts)),
        ])
    }

    fn merge_batch(
        &mut self,
        values: &[ArrayRef],
        group_indices: &[usize],
        total_num_groups: usize,
    ) -> Result<()> {
        let [sums, counts] = values else {
            return internal_err!("decimal sum merges a sum and a count");
        };
        let (sums, counts) = (
            sums.as_primitive::<Decimal128Type>(),
            counts.as_primitive::<arrow::datatypes::Int64Type>(),
        );
        self.resize(total_num_groups);
        for (i, &g) in group_indices.iter().enumerate() {
            let count = counts.value(i);
            if count == 0 {
                continue;
            }
            if self.shape.avg {
                self.counts[g] += count;
            } else {
                self.seen[g] = true;
            }
            // A NULL sum of counted values overflowed; an overflow stays one.
            self.merge_sum(g, sums.is_valid(i).then(|| sums.value(i)));
        }
        Ok(())
    }

    fn convert_to_state(
        &self,
        values: &[ArrayRef],
        opt_filter: Option<&BooleanArray>,
    ) -> Result<Vec<ArrayRef>> {
        let [values] = values else {
            return internal_err!("decimal sum takes one argument");
        };
        let values = values.as_primitive::<Decimal128Type>();
        let kept = BooleanBuffer::collect_bool(values.len(), |i| {
            values.is_valid(i) && opt_filter.is_none_or(|f| f.is_valid(i) && f.value(i))
        });
        let counts = Int64Array::from_iter_values(kept.iter().map(i64::from));
        let nulls = NullBuffer::new(kept);
        let sums = Decimal128Array::new(values.values().clone(), Some(nulls))
            .with_precision_and_scale(self.shape.sum_precision, self.shape.sum_scale)?;
        Ok(vec![Arc::new(sums), Arc::new(counts)])
    }

    fn size(&self) -> usize {
        self.sums.capacity() * std::mem::size_of::<i128>()
            + self.counts.capacity() * std::mem::size_of::<i64>()
            + self.seen.capacity()
            + self.highs.capacity() * std::mem::size_of::<i64>()
    }
}

/// The exact accumulator of one group (ungrouped aggregates, windows): a 256-bit sum, so that a
/// window frame can remove its rows again.
#[derive(Debug)]
struct Exact {
    shape: Shape,
    sum: i256,
    count: i64,
    overflow: bool,
}

impl Exact {
    fn sum(&self) -> Option<i128> {
        if self.overflow {
            return None;
        }
        self.sum.to_i128()
    }

    fn add(&mut self, values: &ArrayRef, sign: i64) -> Result<()> {
        let values = values.as_primitive::<Decimal128Type>();
        for v in values.iter().flatten() {
            let v = i256::from_i128(v);
            self.sum = if sign > 0 {
                self.sum.wrapping_add(v)
            } else {
                self.sum.wrapping_sub(v)
            };
            self.count += sign;
        }
        Ok(())
    }
}

impl Accumulator for Exact {
    fn update_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        match values {
            [values] => self.add(values, 1),
            _ => internal_err!("decimal sum takes one argument"),
        }
    }

    fn retract_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        match values {
            [values] => self.add(values, -1),
            _ => internal_err!("decimal sum takes one argument"),
        }
    }

    fn supports_retract_batch(&self) -> bool {
        true
    }

    fn evaluate(&mut self) -> Result<ScalarValue> {
        let value = self.shape.finish(self.sum(), self.count)?;
        Ok(ScalarValue::Decimal128(
            value,
            self.shape.precision,
            self.shape.scale,
        ))
    }

    fn state(&mut self) -> Result<Vec<ScalarValue>> {
        let shape = self.shape;
        Ok(vec![
            ScalarValue::Decimal128(
                shape.state_sum(self.sum(), self.count),
                shape.sum_precision,
                shape.sum_scale,
            ),
            ScalarValue::Int64(Some(self.count)),
        ])
    }

    fn merge_batch(&mut self, states: &[ArrayRef]) -> Result<()> {
        let [sums, counts] = states else {
            return internal_err!("decimal sum merges a sum and a count");
        };
        let (sums, counts) = (
            sums.as_primitive::<Decimal128Type>(),
            counts.as_primitive::<arrow::datatypes::Int64Type>(),
        );
        for i in 0..sums.len() {
            let count = counts.value(i);
            if count == 0 {
                continue;
            }
            self.count += count;
            if sums.is_valid(i) {
                self.sum = self.sum.wrapping_add(i256::from_i128(sums.value(i)));
            } else {
                self.overflow = true;
            }
        }
        Ok(())
    }

    fn size(&self) -> usize {
        std::mem::size_of_val(self)
    }
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct DecimalSumMessage {
    #[prost(bool, tag = "1")]
    avg: bool,
    #[prost(bool, tag = "2")]
    fail: bool,
    #[prost(bool, tag = "3")]
    window: bool,
}

impl EncodedUdaf for DecimalSum {
    const NAME: &'static str = "decimal_sum";
    type Message = DecimalSumMessage;

    fn to_message(&self) -> Option<DecimalSumMessage> {
        Some(DecimalSumMessage {
            avg: self.avg,
            fail: self.fail,
            window: self.window,
        })
    }

    fn from_message(_name: &str, m: DecimalSumMessage) -> Result<Arc<AggregateUDF>> {
        Ok(Self::of(m.avg, m.fail, m.window))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(super) fn shape(avg: bool, p: u8, s: i8) -> Shape {
        let udaf = DecimalSum {
            avg,
            fail: false,
            window: false,
            signature: Signature::any(1, Volatility::Immutable),
        };
        udaf.shape(&DataType::Decimal128(p, s)).unwrap()
    }

    pub(super) fn decimals(values: &[Option<i128>], p: u8, s: i8) -> ArrayRef {
        Arc::new(
            Decimal128Array::from(values.to_vec())
                .with_precision_and_scale(p, s)
                .unwrap(),
        )
    }

    #[test]
    fn averages_round_half_up_and_sums_overflow_to_null() {
        let avg = shape(true, 10, 2);
        // 1.005 + 2.00 over 2 (scale 2 values: 100, 200) → 1.500000; 1 + 2 → 1.5.
        assert_eq!(avg.finish(Some(301), 2).unwrap(), Some(1_505_000));
        assert_eq!(avg.finish(Some(-223), 2).unwrap(), Some(-1_115_000));
        // 2/3 of a cent: 0.006667 (rounded up), -0.006667.
        assert_eq!(avg.finish(Some(2), 3).unwrap(), Some(6_667));
        assert_eq!(avg.finish(Some(-2), 3).unwrap(), Some(-6_667));
        assert_eq!(avg.finish(Some(5), 0).unwrap(), None);
        let sum = shape(false, 38, 0);
        assert_eq!(sum.finish(Some(10i128.pow(38)), 2).unwrap(), None);
        assert_eq!(sum.finish(None, 2).unwrap(), None);
        assert_eq!(sum.finish(Some(-7), 2).unwrap(), Some(-7));
    }

    #[test]
    fn groups_and_exact_accumulators_agree() {
        let values = decimals(&[Some(105), None, Some(-3), Some(7), Some(1000)], 10, 2);
        let groups_of = [0usize, 1, 0, 1, 2];
        for avg in [false, true] {
            let shape = shape(avg, 10, 2);
            let mut groups = Groups::new(shape);
            // Half through update, half through the converted state.
            groups
                .update_batch(&[values.slice(0, 3)], &groups_of[..3], None, 3)
                .unwrap();
            let state = groups
                .convert_to_state(&[values.slice(3, 2)], None)
                .unwrap();
            groups.merge_batch(&state, &groups_of[3..], 3).unwrap();
            let grouped = groups.evaluate(EmitTo::All).unwrap();
            for g in 0..3 {
                let mut exact = Exact {
                    shape,
                    sum: i256::ZERO,
                    count: 0,
                    overflow: false,
                };
                let rows: Vec<usize> = (0..5).filter(|&i| groups_of[i] == g).collect();
                for &i in &rows {
                    exact.update_batch(&[values.slice(i, 1)]).unwrap();
                }
                let expected = exact.evaluate().unwrap();
                assert_eq!(ScalarValue::try_from_array(&grouped, g).unwrap(), expected);
            }
        }
    }

    #[test]
    fn an_overflowed_partial_sum_stays_one() {
        let shape = shape(false, 28, 0);
        let big = 10i128.pow(37) * 9;
        let mut groups = Groups::new(shape);
        let state = vec![
            decimals(&[Some(big), Some(big), Some(-big)], 38, 0),
            Arc::new(Int64Array::from(vec![1, 1, 1])) as ArrayRef,
        ];
        groups.merge_batch(&state, &[0, 0, 0], 1).unwrap();
        let out = groups.evaluate(EmitTo::All).unwrap();
        assert!(out.is_null(0));
    }

    #[test]
    fn wide_sums_are_exact_until_they_leave() {
        let big = 10i128.pow(38) - 1;
        for avg in [false, true] {
            let mut groups = Groups::new(shape(avg, 38, 0));
            let values = decimals(
                &[
                    Some(big),
                    Some(big),
                    Some(-big),
                    Some(5),
                    Some(-5),
                    Some(big),
                    Some(big),
                ],
                38,
                0,
            );
            groups
                .update_batch(&[values], &[0, 0, 0, 1, 1, 2, 2], None, 3)
                .unwrap();
            let out = groups.evaluate(EmitTo::All).unwrap();
            let out = out.as_primitive::<Decimal128Type>();
            // big + big - big is big again; its average (38 digits before the point) does not
            // fit DECIMAL(38, 4).
            if avg {
                assert!(out.is_null(0));
            } else {
                assert_eq!(out.value(0), big);
            }
            assert_eq!(out.value(1), 0);
            assert!(out.is_null(2));
        }
    }
}
