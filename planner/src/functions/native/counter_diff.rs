//! `counter_diff(value[, startTime]) OVER (... ORDER BY ...)`: a cumulative counter's
//! increase since the previous non-NULL value of its window partition, as Spark 4.3 computes
//! it. NULL for the first value, a NULL value, and a reset: a value below the previous one
//! (NaN above all numbers, as Spark orders them) or a start time after the previous row's.
//! Negative values (COUNTER_DIFF_NEGATIVE_COUNTER_VALUE) and start times that go back
//! (COUNTER_DIFF_START_TIME_DECREASED) fail. Rows without a value are skipped; a start time is
//! compared with that of the previous row with a value, unless either is NULL.
//!
//! An aggregate over the running frame (`ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT
//! ROW`): DataFusion feeds each row to the accumulator in order and asks for its answer.

use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray};
use arrow::datatypes::{
    DataType, Decimal128Type, Field, FieldRef, Float32Type, Float64Type, Int8Type, Int16Type,
    Int32Type, Int64Type, TimeUnit, TimestampMicrosecondType,
};
use datafusion::common::{Result, ScalarValue, internal_err};
use datafusion::logical_expr::function::{AccumulatorArgs, StateFieldsArgs};
use datafusion::logical_expr::{
    Accumulator, AggregateUDF, AggregateUDFImpl, Signature, Volatility,
};

use crate::error::{ErrorKind, SparkError, to_datafusion};
use crate::functions::udf_codec::NoSettings;
use ember_execution::codec::EncodedUdaf;

/// The name of the aggregate (and of its codec entry).
pub const COUNTER_DIFF: &str = "ember_counter_diff";

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct CounterDiff {
    signature: Signature,
}

impl CounterDiff {
    pub fn udaf() -> Arc<AggregateUDF> {
        Arc::new(AggregateUDF::from(Self {
            signature: Signature::variadic_any(Volatility::Immutable),
        }))
    }
}

impl AggregateUDFImpl for CounterDiff {
    fn name(&self) -> &str {
        COUNTER_DIFF
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        Ok(arg_types.first().cloned().unwrap_or(DataType::Null))
    }

    fn is_nullable(&self) -> bool {
        true
    }

    fn state_fields(&self, args: StateFieldsArgs) -> Result<Vec<FieldRef>> {
        // A window function only: its state never leaves the accumulator.
        Ok(vec![Arc::new(Field::new(
            format!("{}[last]", args.name),
            args.return_field.data_type().clone(),
            true,
        ))])
    }

    fn accumulator(&self, args: AccumulatorArgs) -> Result<Box<dyn Accumulator>> {
        Ok(Box::new(CounterAccumulator {
            value_type: args.return_field.data_type().clone(),
            last: None,
            start: None,
            answer: None,
        }))
    }
}

/// A counter value: exact (integers, and decimals unscaled) or floating.
#[derive(Debug, Clone, Copy)]
enum Count {
    Exact(i128),
    Float(f64),
}

impl Count {
    fn negative(self) -> bool {
        match self {
            Count::Exact(v) => v < 0,
            Count::Float(v) => v < 0.0,
        }
    }

    /// Whether `self` is below `previous` in Spark's order (NaN above every number).
    fn below(self, previous: Count) -> bool {
        match (self, previous) {
            (Count::Exact(a), Count::Exact(b)) => a < b,
            (Count::Float(a), Count::Float(b)) => !a.is_nan() && (b.is_nan() || a < b),
            _ => false,
        }
    }
}

#[derive(Debug)]
struct CounterAccumulator {
    value_type: DataType,
    /// The last non-NULL value.
    last: Option<Count>,
    /// The start time (microseconds) of the last row with a value.
    start: Option<i64>,
    /// The answer for the last row seen.
    answer: Option<Count>,
}

fn count_at(array: &dyn Array, row: usize) -> Result<Option<Count>> {
    if array.is_null(row) {
        return Ok(None);
    }
    Ok(Some(match array.data_type() {
        DataType::Int8 => Count::Exact(array.as_primitive::<Int8Type>().value(row).into()),
        DataType::Int16 => Count::Exact(array.as_primitive::<Int16Type>().value(row).into()),
        DataType::Int32 => Count::Exact(array.as_primitive::<Int32Type>().value(row).into()),
        DataType::Int64 => Count::Exact(array.as_primitive::<Int64Type>().value(row).into()),
        DataType::Decimal128(..) => Count::Exact(array.as_primitive::<Decimal128Type>().value(row)),
        DataType::Float32 => Count::Float(array.as_primitive::<Float32Type>().value(row).into()),
        DataType::Float64 => Count::Float(array.as_primitive::<Float64Type>().value(row)),
        other => return internal_err!("counter_diff of {other}"),
    }))
}

impl CounterAccumulator {
    fn scalar(&self, v: Option<Count>) -> Result<ScalarValue> {
        let exact = |v: Option<Count>| match v {
            Some(Count::Exact(x)) => Some(x),
            _ => None,
        };
        Ok(match &self.value_type {
            DataType::Int8 => ScalarValue::Int8(exact(v).map(|x| x as i8)),
            DataType::Int16 => ScalarValue::Int16(exact(v).map(|x| x as i16)),
            DataType::Int32 => ScalarValue::Int32(exact(v).map(|x| x as i32)),
            DataType::Int64 => ScalarValue::Int64(exact(v).map(|x| x as i64)),
            DataType::Decimal128(p, s) => ScalarValue::Decimal128(exact(v), *p, *s),
            DataType::Float32 | DataType::Float64 => {
                let f = match v {
                    Some(Count::Float(x)) => Some(x),
                    _ => None,
                };
                match self.value_type {
                    DataType::Float32 => ScalarValue::Float32(f.map(|x| x as f32)),
                    _ => ScalarValue::Float64(f),
                }
            }
            other => return internal_err!("counter_diff of {other}"),
        })
    }

    fn negative(&self, v: Count) -> Result<SparkError> {
        let shown = match (v, &self.value_type) {
            (Count::Float(x), DataType::Float32) => ember_execution::values::java_float(x as f32),
            (Count::Float(x), _) => ember_execution::values::java_double(x),
            _ => self.scalar(Some(v))?.to_string(),
        };
        Ok(SparkError::new(
            ErrorKind::Runtime,
            "COUNTER_DIFF_NEGATIVE_COUNTER_VALUE",
            "22003",
            format!(
                "A negative counter value {shown} was provided to function `counter_diff`. Negative counter values are not allowed."
            ),
            vec![("value", shown), ("function", "`counter_diff`".to_string())],
        ))
    }
}

fn start_decreased(previous: i64, current: i64, time_zone: Option<&str>) -> SparkError {
    let (previous, current) = (
        ember_execution::values::timestamp_text(previous, time_zone, false),
        ember_execution::values::timestamp_text(current, time_zone, false),
    );
    SparkError::new(
        ErrorKind::Runtime,
        "COUNTER_DIFF_START_TIME_DECREASED",
        "22023",
        format!(
            "Start time provided to function `counter_diff` decreased from {previous} to {current}. Start time is required to be non-decreasing."
        ),
        vec![
            ("previousStartTime", previous),
            ("currentStartTime", current),
            ("function", "`counter_diff`".to_string()),
        ],
    )
}

impl Accumulator for CounterAccumulator {
    fn update_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        let Some(counts) = values.first() else {
            return internal_err!("counter_diff without a value");
        };
        let starts = match values.get(1) {
            Some(s) if s.data_type() != &DataType::Null => {
                let zone = match s.data_type() {
                    DataType::Timestamp(_, z) => z.as_deref().map(str::to_string),
                    _ => None,
                };
                let micros =
                    arrow::compute::cast(s, &DataType::Timestamp(TimeUnit::Microsecond, None))?;
                Some((micros, zone))
            }
            _ => None,
        };
        for row in 0..counts.len() {
            let Some(value) = count_at(counts.as_ref(), row)? else {
                self.answer = None;
                continue;
            };
            if value.negative() {
                return Err(to_datafusion(self.negative(value)?));
            }
            let start = starts.as_ref().and_then(|(s, _)| {
                let s = s.as_primitive::<TimestampMicrosecondType>();
                s.is_valid(row).then(|| s.value(row))
            });
            let mut reset = false;
            if let (Some(now), Some(before)) = (start, self.start) {
                if now < before {
                    let zone = starts.as_ref().and_then(|(_, z)| z.as_deref());
                    return Err(to_datafusion(start_decreased(before, now, zone)));
                }
                reset = now > before;
            }
            self.answer = match self.last {
                Some(last) if !reset && !value.below(last) => Some(match (value, last) {
                    (Count::Exact(a), Count::Exact(b)) => Count::Exact(a - b),
                    (Count::Float(a), Count::Float(b)) => Count::Float(a - b),
                    _ => return internal_err!("counter_diff of mixed values"),
                }),
                _ => None,
            };
            self.last = Some(value);
            self.start = start;
        }
        Ok(())
    }

    fn evaluate(&mut self) -> Result<ScalarValue> {
        self.scalar(self.answer)
    }

    fn size(&self) -> usize {
        std::mem::size_of_val(self)
    }

    fn state(&mut self) -> Result<Vec<ScalarValue>> {
        Ok(vec![self.scalar(self.last)?])
    }

    fn merge_batch(&mut self, _states: &[ArrayRef]) -> Result<()> {
        internal_err!("counter_diff is a window function: its states do not merge")
    }
}

impl EncodedUdaf for CounterDiff {
    const NAME: &'static str = "counter_diff";
    type Message = NoSettings;

    fn to_message(&self) -> Option<NoSettings> {
        Some(NoSettings {})
    }

    fn from_message(_name: &str, _m: NoSettings) -> Result<Arc<AggregateUDF>> {
        Ok(Self::udaf())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::{Int32Array, TimestampMicrosecondArray};

    fn accumulator() -> CounterAccumulator {
        CounterAccumulator {
            value_type: DataType::Int32,
            last: None,
            start: None,
            answer: None,
        }
    }

    /// Each row's answer as a running window gives the rows one by one.
    fn answers(values: &[Option<i32>], starts: &[Option<i64>]) -> Result<Vec<ScalarValue>> {
        let mut acc = accumulator();
        let mut out = Vec::new();
        for (v, s) in values.iter().zip(starts) {
            let v: ArrayRef = Arc::new(Int32Array::from(vec![*v]));
            let s: ArrayRef = Arc::new(TimestampMicrosecondArray::from(vec![*s]));
            acc.update_batch(&[v, s])?;
            out.push(acc.evaluate()?);
        }
        Ok(out)
    }

    #[test]
    fn answers_as_spark() -> Result<()> {
        // Recorded from Spark 4.3: resets on a decrease or a later start time; rows without a
        // value are skipped; a NULL start time is not compared.
        let m = 60_000_000;
        let got = answers(
            &[
                Some(100),
                Some(200),
                Some(300),
                Some(400),
                Some(500),
                None,
                Some(700),
                Some(650),
                Some(660),
            ],
            &[
                Some(0),
                Some(0),
                Some(2 * m),
                None,
                Some(2 * m),
                Some(3 * m),
                Some(3 * m),
                Some(3 * m),
                Some(3 * m),
            ],
        )?;
        let want: Vec<ScalarValue> = [
            None,
            Some(100),
            None,
            Some(100),
            Some(100),
            None,
            None,
            None,
            Some(10),
        ]
        .into_iter()
        .map(ScalarValue::Int32)
        .collect();
        assert_eq!(got, want);
        assert!(answers(&[Some(5), Some(-1)], &[None, None]).is_err());
        assert!(answers(&[Some(5), Some(6)], &[Some(2), Some(1)]).is_err());
        Ok(())
    }
}
