//! What the streaming Python operators (`map`, `eval`) share: a partition's work started on
//! the stream's first poll under the cancel scope current then, and the input cut into batches
//! of Spark's `maxRecordsPerBatch` rows.

use std::sync::Arc;
use std::task::Poll;

use arrow::array::RecordBatch;
use arrow::datatypes::SchemaRef;
use datafusion::common::{DataFusionError, Result};
use datafusion::execution::SendableRecordBatchStream;
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use futures::TryStreamExt;
use tokio::sync::mpsc::{Receiver, Sender};

use super::CancelScope;
use super::cancel::{InScope, current_scope};

/// A partition's stream whose work starts when it is first polled: `start` gets the cancel
/// scope of the query or task polling it (see `cancel`; `execute` runs outside it), spawns
/// the work and gives the receiver of its batches and a guard that lives as long as the
/// stream (dropping it stops the work).
pub(super) fn on_first_poll<G: Send + 'static>(
    schema: SchemaRef,
    start: impl FnOnce(Option<Arc<CancelScope>>) -> (Receiver<Result<RecordBatch>>, G) + Send + 'static,
) -> SendableRecordBatchStream {
    let mut start = Some(start);
    let mut running = None;
    let stream = futures::stream::poll_fn(move |cx| {
        if let Some(start) = start.take() {
            running = Some(start(current_scope()));
        }
        match &mut running {
            Some((batches, _guard)) => batches.poll_recv(cx),
            None => Poll::Ready(None),
        }
    });
    Box::pin(RecordBatchStreamAdapter::new(schema, stream))
}

/// `future` spawned on the runtime, polled under `scope` if there is one (so that the Python
/// functions it calls synchronously are cancelled with the query).
pub(super) fn spawn_in_scope(
    scope: Option<Arc<CancelScope>>,
    future: impl std::future::Future<Output = ()> + Send + 'static,
) -> tokio::task::JoinHandle<()> {
    match scope {
        Some(scope) => tokio::spawn(InScope::new(Box::pin(future), scope)),
        None => tokio::spawn(future),
    }
}

/// A worker's feeder: each input batch, then the input's end (`None`), becomes what `cut` makes
/// of it, sent to the worker in order; an error goes to the operator's output. Ends early when
/// the worker reads no more.
pub(super) async fn feed(
    mut input: SendableRecordBatchStream,
    mut cut: impl FnMut(Option<RecordBatch>) -> Result<Vec<RecordBatch>>,
    to_worker: Sender<RecordBatch>,
    errors: Sender<Result<RecordBatch>>,
) {
    let fed = async {
        let mut ended = false;
        while !ended {
            let next = input.try_next().await?;
            ended = next.is_none();
            for batch in cut(next)? {
                if to_worker.send(batch).await.is_err() {
                    return Ok(());
                }
            }
        }
        Ok::<_, DataFusionError>(())
    };
    if let Err(e) = fed.await {
        let _ = errors.send(Err(e)).await;
    }
}

/// Aborts a task when dropped (the feeder of a stream no one reads any more).
pub(super) struct AbortOnDrop(pub(super) tokio::task::AbortHandle);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Batches cut again into batches of exactly `step` rows (the last may have fewer), as Spark
/// sends them to Python. (arrow's `BatchCoalescer` reserves `step` rows up front, and Spark's
/// "no limit" is a step of `usize::MAX` here.)
pub(super) struct Rebatch {
    schema: SchemaRef,
    step: usize,
    pending: Vec<RecordBatch>,
    rows: usize,
}

impl Rebatch {
    pub(super) fn new(schema: SchemaRef, step: usize) -> Self {
        Self {
            schema,
            step,
            pending: Vec::new(),
            rows: 0,
        }
    }

    /// The batches `batch` completes.
    pub(super) fn push(&mut self, batch: RecordBatch) -> Result<Vec<RecordBatch>> {
        self.rows += batch.num_rows();
        self.pending.push(batch);
        if self.rows < self.step {
            return Ok(vec![]);
        }
        let all = arrow::compute::concat_batches(&self.schema, &self.pending)?;
        self.pending.clear();
        let mut out = Vec::new();
        let mut offset = 0;
        while all.num_rows() - offset >= self.step {
            out.push(all.slice(offset, self.step));
            offset += self.step;
        }
        self.rows = all.num_rows() - offset;
        if self.rows > 0 {
            self.pending.push(all.slice(offset, self.rows));
        }
        Ok(out)
    }

    /// The last, shorter batch, if rows are left.
    pub(super) fn finish(&mut self) -> Result<Vec<RecordBatch>> {
        if self.rows == 0 {
            return Ok(vec![]);
        }
        self.rows = 0;
        let rest = std::mem::take(&mut self.pending);
        Ok(vec![arrow::compute::concat_batches(&self.schema, &rest)?])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::{Array, Int64Array};
    use arrow::datatypes::{DataType, Field, Schema};

    fn batch(schema: &SchemaRef, values: std::ops::Range<i64>) -> RecordBatch {
        RecordBatch::try_new(
            schema.clone(),
            vec![Arc::new(Int64Array::from_iter_values(values))],
        )
        .unwrap()
    }

    fn cut(step: usize, sizes: &[i64]) -> Vec<Vec<i64>> {
        let schema = Arc::new(Schema::new(vec![Field::new("id", DataType::Int64, false)]));
        let mut rebatch = Rebatch::new(schema.clone(), step);
        let mut out = Vec::new();
        let mut start = 0;
        for size in sizes {
            out.extend(rebatch.push(batch(&schema, start..start + size)).unwrap());
            start += size;
        }
        out.extend(rebatch.finish().unwrap());
        out.iter()
            .map(|b| {
                let ids = b.column(0).as_any().downcast_ref::<Int64Array>().unwrap();
                ids.iter().map(|v| v.unwrap()).collect()
            })
            .collect()
    }

    #[test]
    fn batches_are_cut_to_the_step_in_order() {
        let out = cut(4, &[3, 5, 0, 6]);
        assert_eq!(
            out.iter().map(Vec::len).collect::<Vec<_>>(),
            vec![4, 4, 4, 2]
        );
        assert_eq!(out.concat(), (0..14).collect::<Vec<_>>());
        // Spark's "no limit": one batch of everything.
        assert_eq!(cut(usize::MAX, &[3, 5]), vec![(0..8).collect::<Vec<_>>()]);
        assert!(cut(4, &[]).is_empty());
        assert_eq!(cut(4, &[8]).len(), 2);
    }
}
