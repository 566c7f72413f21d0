//! `collect_union(arrays)`: the distinct elements of a group's arrays (received as a list of
//! them), in the order first seen. NULL elements are dropped unless `RESPECT NULLS` (one is
//! kept); `-0.0` equals `0.0` and NaN equals NaN, as in Spark. A group without arrays gives
//! an empty array.

use std::collections::HashSet;
use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, ListArray, UInt32Array, new_empty_array};
use arrow::buffer::OffsetBuffer;
use arrow::datatypes::{DataType, Field, Float32Type, Float64Type};
use arrow::row::{RowConverter, SortField};
use datafusion::common::{Result, internal_err};

/// The element field of the answer for a `list<array<T>>` argument: that of the arrays,
/// never NULL unless `respect_nulls` (Spark's `containsNull`).
pub(super) fn element_field(arg: Option<&DataType>, respect_nulls: bool) -> Result<Arc<Field>> {
    match arg {
        Some(DataType::List(arrays)) => match arrays.data_type() {
            DataType::List(element) => Ok(Arc::new(Field::new_list_field(
                element.data_type().clone(),
                element.is_nullable() && respect_nulls,
            ))),
            other => internal_err!("collect_union of {other}"),
        },
        other => internal_err!("collect_union of {other:?}"),
    }
}

/// Floats with `-0.0` as `0.0` and one NaN, so that equal values compare equal as rows.
fn normalized(values: &ArrayRef) -> ArrayRef {
    match values.data_type() {
        DataType::Float64 => Arc::new(
            values
                .as_primitive::<Float64Type>()
                .unary::<_, Float64Type>(|v| if v.is_nan() { f64::NAN } else { v + 0.0 }),
        ),
        DataType::Float32 => Arc::new(
            values
                .as_primitive::<Float32Type>()
                .unary::<_, Float32Type>(|v| if v.is_nan() { f32::NAN } else { v + 0.0 }),
        ),
        _ => Arc::clone(values),
    }
}

pub(super) fn evaluate(arrays: &[ArrayRef], respect_nulls: bool) -> Result<ArrayRef> {
    let Some(input) = arrays.first() else {
        return internal_err!("collect_union takes one argument");
    };
    let element = element_field(Some(input.data_type()), respect_nulls)?;
    let groups = input.as_list::<i32>();
    let converter = RowConverter::new(vec![SortField::new(element.data_type().clone())])?;
    let mut parts: Vec<ArrayRef> = Vec::with_capacity(groups.len());
    let mut offsets = Vec::with_capacity(groups.len() + 1);
    offsets.push(0i32);
    for g in 0..groups.len() {
        let members = if groups.is_null(g) {
            new_empty_array(&DataType::List(Arc::clone(&element)))
        } else {
            groups.value(g)
        };
        let members = members.as_list::<i32>();
        let values = members.iter().flatten().collect::<Vec<ArrayRef>>();
        let refs: Vec<&dyn Array> = values.iter().map(|v| v.as_ref()).collect();
        let values = if refs.is_empty() {
            new_empty_array(element.data_type())
        } else {
            arrow::compute::concat(&refs)?
        };
        let rows = converter.convert_columns(&[normalized(&values)])?;
        let mut seen = HashSet::new();
        let mut null_kept = false;
        let mut keep = Vec::new();
        for i in 0..values.len() {
            if values.is_null(i) {
                if respect_nulls && !null_kept {
                    null_kept = true;
                    keep.push(i as u32);
                }
            } else if seen.insert(rows.row(i)) {
                keep.push(i as u32);
            }
        }
        let kept = arrow::compute::take(&values, &UInt32Array::from(keep), None)?;
        let end = offsets.last().copied().unwrap_or(0) + kept.len() as i32;
        offsets.push(end);
        parts.push(kept);
    }
    let refs: Vec<&dyn Array> = parts.iter().map(|v| v.as_ref()).collect();
    let values = if refs.is_empty() {
        new_empty_array(element.data_type())
    } else {
        arrow::compute::concat(&refs)?
    };
    Ok(Arc::new(ListArray::try_new(
        element,
        OffsetBuffer::new(offsets.into()),
        values,
        None,
    )?))
}
