//! `sum(DISTINCT x)` and `avg(DISTINCT x)` of decimals where DataFusion does not turn the
//! DISTINCT into a grouping (several DISTINCT aggregates, or one beside other aggregates):
//! the distinct values of a group, summed exactly when the group is evaluated. An overflow
//! answers as the plain sum's does (NULL, or Spark's ARITHMETIC_OVERFLOW under ANSI).

use std::collections::HashSet;
use std::sync::Arc;

use arrow::array::{ArrayRef, AsArray, Decimal128Array};
use arrow::datatypes::{DataType, Decimal128Type, Field, FieldRef, i256};
use datafusion::common::utils::SingleRowListArrayBuilder;
use datafusion::common::{Result, ScalarValue, internal_err};
use datafusion::logical_expr::Accumulator;
use datafusion::logical_expr::utils::format_state_name;

use super::Shape;

/// The state of a DISTINCT sum or average: the list of its distinct values.
pub(super) fn state_fields(name: &str, input: &DataType) -> Vec<FieldRef> {
    vec![Arc::new(Field::new_list(
        format_state_name(name, "distinct"),
        Field::new_list_field(input.clone(), true),
        false,
    ))]
}

#[derive(Debug)]
pub(super) struct Distinct {
    shape: Shape,
    input: DataType,
    values: HashSet<i128>,
}

impl Distinct {
    pub(super) fn new(shape: Shape, input: DataType) -> Self {
        Self {
            shape,
            input,
            values: HashSet::new(),
        }
    }

    fn insert(&mut self, values: &Decimal128Array) {
        self.values.extend(values.iter().flatten());
    }
}

impl Accumulator for Distinct {
    fn update_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        let [values] = values else {
            return internal_err!("decimal sum takes one argument");
        };
        self.insert(values.as_primitive::<Decimal128Type>());
        Ok(())
    }

    fn merge_batch(&mut self, states: &[ArrayRef]) -> Result<()> {
        let [lists] = states else {
            return internal_err!("a distinct decimal sum merges a list of values");
        };
        for list in lists.as_list::<i32>().iter().flatten() {
            self.insert(list.as_primitive::<Decimal128Type>());
        }
        Ok(())
    }

    fn state(&mut self) -> Result<Vec<ScalarValue>> {
        let values = Decimal128Array::from_iter_values(self.values.iter().copied())
            .with_data_type(self.input.clone());
        Ok(vec![
            SingleRowListArrayBuilder::new(Arc::new(values)).build_list_scalar(),
        ])
    }

    fn evaluate(&mut self) -> Result<ScalarValue> {
        let sum = self
            .values
            .iter()
            .fold(i256::ZERO, |s, &v| s.wrapping_add(i256::from_i128(v)));
        let count = i64::try_from(self.values.len()).unwrap_or(i64::MAX);
        let value = self.shape.finish(sum.to_i128(), count)?;
        Ok(ScalarValue::Decimal128(
            value,
            self.shape.precision,
            self.shape.scale,
        ))
    }

    fn size(&self) -> usize {
        std::mem::size_of_val(self) + self.values.capacity() * std::mem::size_of::<i128>()
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::decimals;
    use super::*;

    #[test]
    fn distinct_values_sum_once_and_overflow_to_null() {
        let shape = super::super::tests::shape(false, 38, 0);
        let input = DataType::Decimal128(38, 0);
        let big = 10i128.pow(38) - 1;
        let mut a = Distinct::new(shape, input.clone());
        a.update_batch(&[decimals(&[Some(1), Some(2), Some(2), None], 38, 0)])
            .unwrap();
        let mut b = Distinct::new(shape, input.clone());
        b.update_batch(&[decimals(&[Some(2), Some(4)], 38, 0)])
            .unwrap();
        let state = b.state().unwrap();
        a.merge_batch(&[state[0].to_array().unwrap()]).unwrap();
        assert_eq!(
            a.evaluate().unwrap(),
            ScalarValue::Decimal128(Some(7), 38, 0)
        );
        a.update_batch(&[decimals(&[Some(big), Some(big - 1)], 38, 0)])
            .unwrap();
        assert_eq!(a.evaluate().unwrap(), ScalarValue::Decimal128(None, 38, 0));
    }
}
