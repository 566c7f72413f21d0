//! `df.tail(n)`: the last `n` rows of a result, keeping only batches that may hold them while
//! the result streams past (never the whole result).

use std::collections::VecDeque;

use arrow::array::RecordBatch;
use arrow::datatypes::SchemaRef;
use arrow::error::ArrowError;

/// The last `n` rows seen so far.
pub struct Tail {
    n: usize,
    batches: VecDeque<RecordBatch>,
    rows: usize,
}

impl Tail {
    pub fn new(n: usize) -> Self {
        Self {
            n,
            batches: VecDeque::new(),
            rows: 0,
        }
    }

    pub fn push(&mut self, batch: RecordBatch) {
        if self.n == 0 || batch.num_rows() == 0 {
            return;
        }
        let batch = if batch.num_rows() > self.n {
            batch.slice(batch.num_rows() - self.n, self.n)
        } else {
            batch
        };
        self.rows += batch.num_rows();
        self.batches.push_back(batch);
        // Drop batches none of whose rows can be among the last n.
        while let Some(first) = self.batches.front() {
            if self.rows - first.num_rows() < self.n {
                break;
            }
            self.rows -= first.num_rows();
            self.batches.pop_front();
        }
    }

    /// The last `n` rows as one batch.
    pub fn finish(self, schema: &SchemaRef) -> Result<RecordBatch, ArrowError> {
        let all = arrow::compute::concat_batches(schema, &self.batches)?;
        let start = all.num_rows().saturating_sub(self.n);
        Ok(all.slice(start, all.num_rows() - start))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow::array::{Array, Int64Array};
    use arrow::datatypes::{DataType, Field, Schema};

    use super::*;

    fn values(batch: &RecordBatch) -> Vec<i64> {
        let column = batch.column(0);
        let ints = column.as_any().downcast_ref::<Int64Array>();
        ints.map(|a| a.values().to_vec()).unwrap_or_default()
    }

    #[test]
    fn keeps_only_the_last_rows() {
        let schema = Arc::new(Schema::new(vec![Field::new("x", DataType::Int64, false)]));
        for n in [0usize, 1, 3, 7, 25, 1000] {
            let mut tail = Tail::new(n);
            for start in (0..100i64).step_by(10) {
                let batch = RecordBatch::try_new(
                    schema.clone(),
                    vec![Arc::new(Int64Array::from_iter_values(start..start + 10))],
                );
                tail.push(batch.unwrap_or_else(|e| panic!("{e}")));
                assert!(tail.rows < n + 10, "kept {} rows for n={n}", tail.rows);
            }
            let got = tail.finish(&schema).unwrap_or_else(|e| panic!("{e}"));
            let want: Vec<i64> = (100 - n.min(100) as i64..100).collect();
            assert_eq!(values(&got), want, "n={n}");
        }
    }
}
