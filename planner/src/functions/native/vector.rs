//! Spark's vector functions over `ARRAY<FLOAT>`: distances, norms and the element-wise
//! aggregates, with Spark's arithmetic. The scalar functions accumulate in double and answer
//! a float; `vector_sum` adds in float; `vector_avg` keeps a running float mean
//! (`mean += (x - mean) * (1 / n)`). A vector holding a NULL element is NULL (the aggregates
//! skip it); vectors of different lengths are VECTOR_DIMENSION_MISMATCH.

use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, Float32Builder, ListBuilder};
use arrow::datatypes::{DataType, Float32Type};
use datafusion::common::{Result, internal_err};
use serde::{Deserialize, Serialize};

use crate::error::{ErrorKind, SparkError, to_datafusion};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VectorOp {
    CosineSimilarity,
    InnerProduct,
    L2Distance,
    /// `vector_norm(v, degree)`.
    Norm,
    /// `vector_normalize(v, degree)`.
    Normalize,
    /// `vector_sum` of a group's vectors (a list of them).
    Sum,
    /// `vector_avg` of a group's vectors (a list of them).
    Avg,
}

impl VectorOp {
    pub fn function(self) -> &'static str {
        match self {
            VectorOp::CosineSimilarity => "vector_cosine_similarity",
            VectorOp::InnerProduct => "vector_inner_product",
            VectorOp::L2Distance => "vector_l2_distance",
            VectorOp::Norm => "vector_norm",
            VectorOp::Normalize => "vector_normalize",
            VectorOp::Sum => "vector_sum",
            VectorOp::Avg => "vector_avg",
        }
    }

    pub(super) fn return_type(self) -> DataType {
        match self {
            VectorOp::Normalize => crate::types::list_type(DataType::Float32, true),
            // (Spark's ARRAY<FLOAT> without NULL items: a group's NULL vectors are skipped.)
            VectorOp::Sum | VectorOp::Avg => crate::types::list_type(DataType::Float32, false),
            _ => DataType::Float32,
        }
    }
}

fn dimension_mismatch(function: &str, left: usize, right: usize) -> SparkError {
    SparkError::new(
        ErrorKind::Runtime,
        "VECTOR_DIMENSION_MISMATCH",
        "22000",
        format!(
            "Vectors passed to `{function}` must have the same dimension, but got {left} and {right}."
        ),
        vec![
            ("functionName", format!("`{function}`")),
            ("leftDim", left.to_string()),
            ("rightDim", right.to_string()),
        ],
    )
}

fn invalid_degree(function: &str, degree: f32) -> SparkError {
    let shown = ember_execution::values::java_float(degree);
    SparkError::new(
        ErrorKind::Runtime,
        "INVALID_VECTOR_NORM_DEGREE",
        "22023",
        format!(
            "For the `{function}` function, degree must be 1.0, 2.0, or float('inf'), but got {shown}."
        ),
        vec![("functionName", format!("`{function}`")), ("degree", shown)],
    )
}

/// The vectors of a column of float lists (NULL for a NULL list or one with a NULL element).
fn vectors(array: &ArrayRef) -> Result<Vec<Option<Vec<f32>>>> {
    let list = match array.data_type() {
        DataType::List(f) if f.data_type() == &DataType::Float32 => Arc::clone(array),
        _ => arrow::compute::cast(array, &crate::types::list_type(DataType::Float32, true))?,
    };
    let list = list.as_list::<i32>();
    Ok((0..list.len())
        .map(|row| {
            if list.is_null(row) {
                return None;
            }
            let values = list.value(row);
            let values = values.as_primitive::<Float32Type>();
            (values.null_count() == 0).then(|| values.values().to_vec())
        })
        .collect())
}

/// The Lp norm for a degree of 1, 2 or infinity.
fn norm(v: &[f32], degree: f32, function: &str) -> Result<f64> {
    if degree == 1.0 {
        Ok(v.iter().map(|x| f64::from(x.abs())).sum())
    } else if degree == 2.0 {
        Ok(v.iter()
            .map(|x| f64::from(*x) * f64::from(*x))
            .sum::<f64>()
            .sqrt())
    } else if degree == f32::INFINITY {
        Ok(v.iter().map(|x| f64::from(x.abs())).fold(0.0, f64::max))
    } else {
        Err(to_datafusion(invalid_degree(function, degree)))
    }
}

fn pair(op: VectorOp, a: &[f32], b: &[f32]) -> Result<Option<f32>> {
    if a.len() != b.len() {
        return Err(to_datafusion(dimension_mismatch(
            op.function(),
            a.len(),
            b.len(),
        )));
    }
    let pairs = a.iter().zip(b).map(|(x, y)| (f64::from(*x), f64::from(*y)));
    Ok(match op {
        VectorOp::InnerProduct => Some(pairs.map(|(x, y)| x * y).sum::<f64>() as f32),
        VectorOp::L2Distance => {
            Some(pairs.map(|(x, y)| (x - y) * (x - y)).sum::<f64>().sqrt() as f32)
        }
        _ => {
            let (mut dot, mut aa, mut bb) = (0.0, 0.0, 0.0);
            for (x, y) in pairs {
                dot += x * y;
                aa += x * x;
                bb += y * y;
            }
            (aa != 0.0 && bb != 0.0).then(|| (dot / (aa.sqrt() * bb.sqrt())) as f32)
        }
    })
}

/// Element-wise sum or running mean of a group's vectors.
fn combine(op: VectorOp, group: &[Option<Vec<f32>>]) -> Result<Option<Vec<f32>>> {
    let mut acc: Option<Vec<f32>> = None;
    let mut count = 0u64;
    for v in group.iter().flatten() {
        count += 1;
        let Some(acc) = acc.as_mut() else {
            acc = Some(v.clone());
            continue;
        };
        if acc.len() != v.len() {
            return Err(to_datafusion(dimension_mismatch(
                op.function(),
                acc.len(),
                v.len(),
            )));
        }
        let weight = 1.0 / count as f32;
        for (a, x) in acc.iter_mut().zip(v) {
            *a = match op {
                VectorOp::Avg => *a + (x - *a) * weight,
                _ => *a + x,
            };
        }
    }
    Ok(acc)
}

fn floats(out: &mut ListBuilder<Float32Builder>, v: Option<Vec<f32>>) {
    match v {
        Some(v) => {
            out.values().append_slice(&v);
            out.append(true);
        }
        None => out.append(false),
    }
}

pub(super) fn evaluate(op: VectorOp, arrays: &[ArrayRef]) -> Result<ArrayRef> {
    let Some(first) = arrays.first() else {
        return internal_err!("{} without arguments", op.function());
    };
    let rows = first.len();
    match op {
        VectorOp::CosineSimilarity | VectorOp::InnerProduct | VectorOp::L2Distance => {
            let Some(second) = arrays.get(1) else {
                return internal_err!("{} takes two vectors", op.function());
            };
            let (a, b) = (vectors(first)?, vectors(second)?);
            let mut out = Float32Builder::with_capacity(rows);
            for (a, b) in a.iter().zip(&b) {
                match (a, b) {
                    (Some(a), Some(b)) => out.append_option(pair(op, a, b)?),
                    _ => out.append_null(),
                }
            }
            Ok(Arc::new(out.finish()))
        }
        VectorOp::Norm | VectorOp::Normalize => {
            let v = vectors(first)?;
            let degrees = match arrays.get(1) {
                Some(d) => arrow::compute::cast(d, &DataType::Float32)?,
                None => Arc::new(arrow::array::Float32Array::from(vec![2.0f32; rows])),
            };
            let degrees = degrees.as_primitive::<Float32Type>();
            if op == VectorOp::Norm {
                let mut out = Float32Builder::with_capacity(rows);
                for (row, v) in v.iter().enumerate() {
                    match v {
                        Some(v) if degrees.is_valid(row) => {
                            out.append_value(norm(v, degrees.value(row), op.function())? as f32)
                        }
                        _ => out.append_null(),
                    }
                }
                return Ok(Arc::new(out.finish()));
            }
            let mut out = ListBuilder::new(Float32Builder::new());
            for (row, v) in v.into_iter().enumerate() {
                let normalized = match v {
                    Some(v) if degrees.is_valid(row) => {
                        let n = norm(&v, degrees.value(row), op.function())?;
                        if v.is_empty() {
                            Some(v)
                        } else if n == 0.0 {
                            None
                        } else {
                            Some(v.iter().map(|x| (f64::from(*x) / n) as f32).collect())
                        }
                    }
                    _ => None,
                };
                floats(&mut out, normalized);
            }
            Ok(Arc::new(out.finish()))
        }
        VectorOp::Sum | VectorOp::Avg => {
            let DataType::List(_) = first.data_type() else {
                return internal_err!("{} of {}", op.function(), first.data_type());
            };
            let groups = first.as_list::<i32>();
            let mut out = ListBuilder::new(Float32Builder::new()).with_field(Arc::new(
                arrow::datatypes::Field::new_list_field(DataType::Float32, false),
            ));
            for g in 0..groups.len() {
                let combined = if groups.is_null(g) {
                    None
                } else {
                    combine(op, &vectors(&groups.value(g))?)?
                };
                floats(&mut out, combined);
            }
            Ok(Arc::new(out.finish()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn computes_as_spark() {
        // Answers recorded from Spark 4.3.
        let (a, b) = ([1.0f32, 2.0, 3.0], [4.0f32, 5.0, 6.0]);
        let value = |op| pair(op, &a, &b).ok().flatten();
        assert_eq!(value(VectorOp::CosineSimilarity), Some(0.974_631_85));
        assert_eq!(value(VectorOp::InnerProduct), Some(32.0));
        assert_eq!(value(VectorOp::L2Distance), Some(5.196_152));
        assert_eq!(
            invalid_degree("vector_norm", 1e10).message,
            "For the `vector_norm` function, degree must be 1.0, 2.0, or float('inf'), but got 1.0E10."
        );
        let avg = combine(
            VectorOp::Avg,
            &[Some(vec![1.0, 2.0]), None, Some(vec![3.0, 4.0])],
        );
        assert_eq!(avg.ok().flatten(), Some(vec![2.0, 3.0]));
    }
}
