//! `array_sort(a, (l, r) -> ...)`: the comparator is evaluated for every ordered pair of an
//! array's elements (the pairs built here, the lambda applied by DataFusion's
//! `array_transform`), then each array is sorted stably by those answers, as Spark's sort with
//! a comparator orders them.

use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, ListArray, StructArray, UInt32Array};
use arrow::buffer::OffsetBuffer;
use arrow::datatypes::{DataType, Field, Fields, Int32Type};
use datafusion::common::{Result, internal_err};

use crate::error::{ErrorKind, SparkError, to_datafusion};

/// The struct of a pair of elements `{1: left, 2: right}`.
pub(super) fn pair_type(element: &Field) -> DataType {
    let field = |name: &str| Field::new(name, element.data_type().clone(), true);
    DataType::Struct(Fields::from(vec![field("1"), field("2")]))
}

/// Every ordered pair `(a[i], a[j])` of each array, `i` major (n² pairs for n elements).
pub(super) fn pairs(arrays: &[ArrayRef]) -> Result<ArrayRef> {
    let [list] = arrays else {
        return internal_err!("array pairs take an array");
    };
    let list = list.as_list::<i32>();
    let DataType::List(element) = list.data_type() else {
        return internal_err!("array pairs of {}", list.data_type());
    };
    let values = list.values();
    let (mut left, mut right) = (Vec::new(), Vec::new());
    let mut offsets = Vec::with_capacity(list.len() + 1);
    offsets.push(0i32);
    for row in 0..list.len() {
        let (start, end) = (list.value_offsets()[row], list.value_offsets()[row + 1]);
        if !list.is_null(row) {
            for i in start..end {
                for j in start..end {
                    left.push(i as u32);
                    right.push(j as u32);
                }
            }
        }
        let count = i32::try_from(left.len()).map_err(|_| {
            to_datafusion(SparkError::unsupported("array_sort of arrays this long"))
        })?;
        offsets.push(count);
    }
    let take = |indices: Vec<u32>| arrow::compute::take(values, &UInt32Array::from(indices), None);
    let DataType::Struct(fields) = pair_type(element) else {
        return internal_err!("array pairs");
    };
    let structs = StructArray::try_new(fields.clone(), vec![take(left)?, take(right)?], None)?;
    Ok(Arc::new(ListArray::try_new(
        Arc::new(Field::new_list_field(DataType::Struct(fields), true)),
        OffsetBuffer::new(offsets.into()),
        Arc::new(structs),
        list.nulls().cloned(),
    )?))
}

/// Each array sorted by its comparisons (`pairs`' order: the answer for `(a[i], a[j])` at
/// `i * n + j`); a NULL answer is Spark's COMPARATOR_RETURNS_NULL.
pub(super) fn sort_by(arrays: &[ArrayRef]) -> Result<ArrayRef> {
    let [list, answers] = arrays else {
        return internal_err!("a sort by comparisons takes an array and its comparisons");
    };
    let list = list.as_list::<i32>();
    let answers = arrow::compute::cast(answers, &DataType::new_list(DataType::Int32, true))?;
    let answers = answers.as_list::<i32>();
    let mut indices: Vec<u32> = Vec::with_capacity(list.values().len());
    for row in 0..list.len() {
        let (start, end) = (list.value_offsets()[row], list.value_offsets()[row + 1]);
        let n = (end - start) as usize;
        if list.is_null(row) || n == 0 {
            continue;
        }
        let compared = answers.value(row);
        let compared = compared.as_primitive::<Int32Type>();
        if compared.len() != n * n {
            return internal_err!("array_sort: {} comparisons of {n} elements", compared.len());
        }
        if let Some(k) = (0..compared.len()).find(|&k| compared.is_null(k)) {
            let values = list.value(row);
            let shown = |i: usize| crate::show::cast_string(values.as_ref(), i, "UTC", None);
            let (i, j) = (k / n, k % n);
            let (l, r) = (shown(i), shown(j));
            return Err(to_datafusion(SparkError::new(
                ErrorKind::Spark,
                "COMPARATOR_RETURNS_NULL",
                "22004",
                format!(
                    "The comparator has returned a NULL for a comparison between {l} and {r}. It should return a positive integer for \"greater than\", 0 for \"equal\" and a negative integer for \"less than\". To revert to deprecated behavior where NULL is treated as 0 (equal), you must set \"spark.sql.legacy.allowNullComparisonResultInArraySort\" to \"true\"."
                ),
                vec![],
            )));
        }
        let order = java_sort(n, |i, j| compared.value(i * n + j));
        indices.extend(order.into_iter().map(|i| start as u32 + i as u32));
    }
    let values = arrow::compute::take(list.values(), &UInt32Array::from(indices), None)?;
    let mut offsets = Vec::with_capacity(list.len() + 1);
    offsets.push(0i32);
    let mut total = 0i32;
    for row in 0..list.len() {
        if !list.is_null(row) {
            total += list.value_length(row);
        }
        offsets.push(total);
    }
    let DataType::List(element) = list.data_type() else {
        return internal_err!("array_sort of {}", list.data_type());
    };
    Ok(Arc::new(ListArray::try_new(
        Arc::clone(element),
        OffsetBuffer::new(offsets.into()),
        values,
        list.nulls().cloned(),
    )?))
}

/// The positions `0..n` in the order Java's `Arrays.sort(objects, comparator)` puts them
/// (`compare(i, j)` the comparator's answer for the i-th and j-th): its TimSort's binary
/// insertion sort of short arrays exactly, so that even a comparator that is no total order
/// sorts as Spark's does; longer arrays by a stable merge sort (the same order for any
/// consistent comparator). Never panics, whatever the answers.
fn java_sort(n: usize, compare: impl Fn(usize, usize) -> i32) -> Vec<usize> {
    let mut a: Vec<usize> = (0..n).collect();
    if n < 2 {
        return a;
    }
    if n < 32 {
        // countRunAndMakeAscending
        let mut run = 2;
        if compare(a[1], a[0]) < 0 {
            while run < n && compare(a[run], a[run - 1]) < 0 {
                run += 1;
            }
            a[..run].reverse();
        } else {
            while run < n && compare(a[run], a[run - 1]) >= 0 {
                run += 1;
            }
        }
        // binarySort
        for start in run..n {
            let pivot = a[start];
            let (mut left, mut right) = (0, start);
            while left < right {
                let mid = (left + right) / 2;
                if compare(pivot, a[mid]) < 0 {
                    right = mid;
                } else {
                    left = mid + 1;
                }
            }
            a.copy_within(left..start, left + 1);
            a[left] = pivot;
        }
        return a;
    }
    let mut width = 1;
    let mut buffer = a.clone();
    while width < n {
        let mut lo = 0;
        while lo < n {
            let mid = (lo + width).min(n);
            let hi = (lo + 2 * width).min(n);
            let (mut i, mut j, mut k) = (lo, mid, lo);
            while i < mid && j < hi {
                // The right element first only when strictly smaller (stable).
                if compare(a[j], a[i]) < 0 {
                    buffer[k] = a[j];
                    j += 1;
                } else {
                    buffer[k] = a[i];
                    i += 1;
                }
                k += 1;
            }
            buffer[k..k + (mid - i)].copy_from_slice(&a[i..mid]);
            k += mid - i;
            buffer[k..k + (hi - j)].copy_from_slice(&a[j..hi]);
            lo = hi;
        }
        std::mem::swap(&mut a, &mut buffer);
        width *= 2;
    }
    a
}

#[cfg(test)]
mod tests {
    use super::java_sort;

    #[test]
    fn sorts_as_java_does() {
        let values = [3, 1, 4, 1, 5, 9, 2, 6];
        let asc = java_sort(values.len(), |i, j| values[i] - values[j]);
        assert_eq!(
            asc.iter().map(|&i| values[i]).collect::<Vec<_>>(),
            [1, 1, 2, 3, 4, 5, 6, 9]
        );
        // Equal elements keep their order.
        assert_eq!(&asc[..2], &[1, 3]);
        let long: Vec<i32> = (0..100).map(|i| (i * 37) % 101).collect();
        let sorted = java_sort(long.len(), |i, j| long[j] - long[i]);
        assert!(sorted.windows(2).all(|w| long[w[0]] >= long[w[1]]));
        // An inconsistent comparator ends without panicking.
        let _ = java_sort(40, |i, j| if (i + j) % 3 == 0 { 1 } else { -1 });
    }
}
