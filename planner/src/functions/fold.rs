//! Spark's `aggregate`/`reduce(array, zero, (acc, x) -> merge)`: a higher-order function that
//! folds each array into one value, left to right. DataFusion has none, so this one plugs
//! into its `HigherOrderUDFImpl`. The fold is vectorized by position: step `k` evaluates
//! the merge lambda once over the rows whose arrays have a `k`-th element.

use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, UInt32Array, new_null_array};
use arrow::compute::{interleave, take, take_arrays};
use arrow::datatypes::{DataType, Field, FieldRef};
use datafusion::common::{Result, exec_err, plan_err};
use datafusion::logical_expr::{
    ColumnarValue, HigherOrderFunctionArgs, HigherOrderReturnFieldArgs, HigherOrderSignature,
    HigherOrderUDF, HigherOrderUDFImpl, LambdaParametersProgress, ValueOrLambda, Volatility,
};

/// The name the fold has in DataFusion plans (and in serialized ones).
pub const FOLD_NAME: &str = "spark_array_fold";

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct ArrayFold {
    signature: HigherOrderSignature,
}

impl Default for ArrayFold {
    fn default() -> Self {
        Self {
            signature: HigherOrderSignature::exact(
                vec![
                    ValueOrLambda::Value(()),
                    ValueOrLambda::Value(()),
                    ValueOrLambda::Lambda(()),
                ],
                Volatility::Immutable,
            ),
        }
    }
}

/// The fold as a DataFusion higher-order function.
pub fn array_fold() -> Arc<HigherOrderUDF> {
    Arc::new(HigherOrderUDF::new_from_impl(ArrayFold::default()))
}

impl HigherOrderUDFImpl for ArrayFold {
    fn name(&self) -> &str {
        FOLD_NAME
    }

    fn signature(&self) -> &HigherOrderSignature {
        &self.signature
    }

    fn coerce_value_types(&self, arg_types: &[DataType]) -> Result<Vec<DataType>> {
        Ok(arg_types.to_vec())
    }

    fn lambda_parameters(
        &self,
        _step: usize,
        fields: &[ValueOrLambda<FieldRef, Option<FieldRef>>],
    ) -> Result<LambdaParametersProgress> {
        let [
            ValueOrLambda::Value(list),
            ValueOrLambda::Value(zero),
            ValueOrLambda::Lambda(_),
        ] = fields
        else {
            return plan_err!("{FOLD_NAME} expects an array, a start value and a lambda");
        };
        let DataType::List(element) = list.data_type() else {
            return plan_err!("{FOLD_NAME} expects an array, got {}", list.data_type());
        };
        let acc = Arc::new(Field::new("acc", zero.data_type().clone(), true));
        Ok(LambdaParametersProgress::Complete(vec![vec![
            acc,
            Arc::clone(element),
        ]]))
    }

    fn return_field_from_args(&self, args: HigherOrderReturnFieldArgs) -> Result<FieldRef> {
        let [
            ValueOrLambda::Value(_),
            ValueOrLambda::Value(zero),
            ValueOrLambda::Lambda(_),
        ] = args.arg_fields
        else {
            return plan_err!("{FOLD_NAME} expects an array, a start value and a lambda");
        };
        Ok(Arc::new(Field::new("", zero.data_type().clone(), true)))
    }

    fn invoke_with_args(&self, args: HigherOrderFunctionArgs) -> Result<ColumnarValue> {
        let rows = args.number_rows;
        let [
            ValueOrLambda::Value(list),
            ValueOrLambda::Value(zero),
            ValueOrLambda::Lambda(merge),
        ] = args.args.as_slice()
        else {
            return exec_err!("{FOLD_NAME} expects an array, a start value and a lambda");
        };
        let list = list.to_array(rows)?;
        let Some(list) = list.as_list_opt::<i32>() else {
            return exec_err!("{FOLD_NAME} expects an array, got {}", list.data_type());
        };
        let mut acc = zero.to_array(rows)?;
        let offsets = list.value_offsets();
        let lengths: Vec<usize> = (0..rows)
            .map(|row| {
                if list.is_null(row) {
                    0
                } else {
                    (offsets[row + 1] - offsets[row]) as usize
                }
            })
            .collect();
        // The rows still folding: those with a k-th element (fewer at every step).
        let mut folding: Vec<u32> = (0..rows as u32).collect();
        for k in 0.. {
            folding.retain(|&row| lengths[row as usize] > k);
            if folding.is_empty() {
                break;
            }
            let active = UInt32Array::from(folding.clone());
            let elements = UInt32Array::from_iter_values(
                active
                    .values()
                    .iter()
                    .map(|&row| offsets[row as usize] as u32 + k as u32),
            );
            let acc_now = take(acc.as_ref(), &active, None)?;
            let x = take(list.values().as_ref(), &elements, None)?;
            let merged = merge
                .evaluate(
                    &[&|| Ok(Arc::clone(&acc_now)), &|| Ok(Arc::clone(&x))],
                    |captured| Ok(take_arrays(captured, &active, None)?),
                )?
                .into_array(active.len())?;
            acc = scatter(&acc, &merged, &active)?;
        }
        // A NULL array folds to NULL.
        if list.null_count() > 0 {
            let nulls = new_null_array(acc.data_type(), 1);
            let picks: Vec<(usize, usize)> = (0..rows)
                .map(|row| if list.is_null(row) { (1, 0) } else { (0, row) })
                .collect();
            acc = interleave(&[acc.as_ref(), nulls.as_ref()], &picks)?;
        }
        Ok(ColumnarValue::Array(acc))
    }
}

/// `acc` with the rows at `active` replaced by `merged` (in order).
fn scatter(acc: &ArrayRef, merged: &ArrayRef, active: &UInt32Array) -> Result<ArrayRef> {
    let mut picks: Vec<(usize, usize)> = (0..acc.len()).map(|row| (0, row)).collect();
    for (i, &row) in active.values().iter().enumerate() {
        picks[row as usize] = (1, i);
    }
    Ok(interleave(&[acc.as_ref(), merged.as_ref()], &picks)?)
}
