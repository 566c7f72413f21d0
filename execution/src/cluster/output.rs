//! The job output: the final stage's partitions, one after another in partition order, as one
//! stream. Partition `k + 1` is not read before partition `k` has ended; dropping the stream
//! tells the driver the job is released.
//!
//! A reader task moves batches from the final tasks' streams to the consumer through a channel
//! of a few batches, so rows reach the client while the final tasks still run, and a consumer
//! that stops reading stops the reader, whose final-task streams (read once, bounded: see
//! `crate::stream`) stop their tasks in turn: nothing between the tasks and the client buffers
//! more than a few batches. The driver learns through [`OutputProgress`] which partitions
//! were read to their end (their tasks need not run again if their worker is lost).
//!
//! A partition is read from the attempt the driver last published for it (running or
//! succeeded). Its rows are held back until that attempt's output stream ends, or until more
//! than [`hold_bytes`] are held; so an attempt that fails before its output is complete and
//! is run again never shows its rows. Past that limit rows stream as produced, counted and
//! folded into an order-dependent digest ([`Sent`]). If that attempt fails, the next one's
//! first rows are read as far as the consumer already has them and compared by digest
//! ([`Replay`]): the same rows, and the output goes on from there; other rows (an output that
//! is not deterministic), and the job fails rather than show rows twice or miss some (as it
//! does when a column's type has no hash). When a read fails and
//! the driver neither runs the partition again nor fails it for a while, the same output is
//! read again (the read, not the task, may have failed), up to `MAX_READS` times.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use arrow::array::RecordBatch;
use arrow::datatypes::SchemaRef;
use datafusion::common::{DataFusionError, Result};
use datafusion::execution::SendableRecordBatchStream;
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion_common_runtime::SpawnedTask;
use futures::StreamExt;
use tokio::sync::{mpsc, watch};

use super::DriverEvent;
use super::driver::DriverHandle;
use crate::stream::{JobId, StreamRef, StreamSource};

/// Output held back per partition before it streams regardless of retries (at most).
pub const HOLD_BYTES: usize = 64 * 1024 * 1024;

/// Output held back per partition: [`HOLD_BYTES`], or an eighth of the memory limit if less.
fn hold_bytes() -> usize {
    crate::memory::installed().map_or(HOLD_BYTES, |b| (b.limit() / 8).min(HOLD_BYTES))
}

/// Batches between the reader task and the consumer.
const CHANNEL_BATCHES: usize = 2;

/// How far the job output has read: partitions below [`OutputProgress::read`] were read to
/// their end. Shared by the job output and the driver.
#[derive(Debug, Default)]
pub struct OutputProgress(AtomicUsize);

impl OutputProgress {
    pub fn read(&self) -> usize {
        self.0.load(Ordering::Acquire)
    }
}

/// After a failed read, how long to wait for the driver to run the partition again before
/// reading the same output again (the read, not the task, may have failed).
const REREAD_AFTER: std::time::Duration = std::time::Duration::from_secs(10);

/// Reads of one attempt's output before the job fails.
const MAX_READS: usize = 3;

/// What the driver publishes about one final-stage partition.
#[derive(Debug, Clone)]
pub enum FinalState {
    Pending,
    Running(StreamRef),
    Succeeded(StreamRef),
    Failed(Arc<DataFusionError>),
}

/// Tells the driver when the consumer is done with the job (or gave up on it).
struct JobGuard {
    job: JobId,
    driver: DriverHandle,
}

impl Drop for JobGuard {
    fn drop(&mut self) {
        self.driver.send(DriverEvent::ReleaseJob { job: self.job });
    }
}

type Sender = mpsc::Sender<Result<RecordBatch>>;

pub fn job_output(
    job: JobId,
    schema: SchemaRef,
    partitions: Vec<watch::Receiver<FinalState>>,
    source: Arc<dyn StreamSource>,
    driver: DriverHandle,
    progress: Arc<OutputProgress>,
) -> SendableRecordBatchStream {
    let (tx, rx) = mpsc::channel(CHANNEL_BATCHES);
    let reader_schema = schema.clone();
    // Dropping the stream aborts the reader, which drops the guard (the job is released).
    let reader = SpawnedTask::spawn(async move {
        let _guard = JobGuard { job, driver };
        let mut all = partitions.clone();
        for mut partition in partitions {
            match read_partition(&mut partition, &source, &reader_schema, &tx).await {
                Ok(true) => {
                    progress.0.fetch_add(1, Ordering::AcqRel);
                }
                Ok(false) => return, // the consumer is gone
                Err(e) => {
                    let _ = tx.send(Err(e)).await;
                    return;
                }
            }
        }
        settle(&mut all).await;
    });
    // (A panic of the reader is the stream's error.)
    let stream = crate::panic::channel_stream(rx, reader);
    Box::pin(RecordBatchStreamAdapter::new(schema, stream))
}

/// Read one final partition to the consumer, following retries (a retry after rows were sent
/// goes on where they end, see [`Replay`]); false when the consumer is gone.
async fn read_partition(
    partition: &mut watch::Receiver<FinalState>,
    source: &Arc<dyn StreamSource>,
    schema: &SchemaRef,
    out: &Sender,
) -> Result<bool> {
    let hold = hold_bytes();
    let mut reads = 0usize;
    let mut last_read: Option<StreamRef> = None;
    let mut first_error: Option<Arc<DataFusionError>> = None;
    let mut sent = Sent::default();
    loop {
        let current = partition.borrow_and_update().clone();
        let stream_ref = match current {
            FinalState::Pending => {
                wait_for_change(partition).await?;
                continue;
            }
            FinalState::Failed(e) => return Err(DataFusionError::Shared(e)),
            FinalState::Running(r) | FinalState::Succeeded(r) => r,
        };
        if last_read.as_ref() != Some(&stream_ref) {
            reads = 0;
            last_read = Some(stream_ref);
        }
        reads += 1;
        let mut stream = source.open(&stream_ref, schema.clone())?;
        let mut held: Vec<RecordBatch> = Vec::new();
        let mut held_bytes = 0usize;
        // The rows of this attempt the consumer has from an earlier one.
        let mut replay = Replay::of(&sent);
        let outcome: Result<()> = loop {
            tokio::select! {
                item = stream.next() => match item {
                    Some(Ok(batch)) => {
                        let batch = match replay.pass(batch, &sent)? {
                            Some(batch) => batch,
                            None => continue,
                        };
                        if sent.committed {
                            sent.add(&batch);
                            if out.send(Ok(batch)).await.is_err() {
                                return Ok(false);
                            }
                            continue;
                        }
                        held_bytes += batch.get_array_memory_size();
                        held.push(batch);
                        if held_bytes > hold {
                            sent.committed = true;
                            for batch in held.drain(..) {
                                sent.add(&batch);
                                if out.send(Ok(batch)).await.is_err() {
                                    return Ok(false);
                                }
                            }
                        }
                    }
                    Some(Err(e)) => break Err(e),
                    None => break Ok(()),
                },
                // The driver may give up on this attempt (or the job) while we wait for rows.
                changed = partition.changed() => {
                    if changed.is_err() {
                        break Err(DataFusionError::Execution("the job was stopped".into()));
                    }
                    let now = partition.borrow().clone();
                    match now {
                        FinalState::Failed(e) => return Err(DataFusionError::Shared(e)),
                        FinalState::Running(r) | FinalState::Succeeded(r) if r != stream_ref => {
                            break Err(DataFusionError::Execution("the task was superseded".into()));
                        }
                        _ => {}
                    }
                }
            }
        };
        match outcome {
            Ok(()) => {
                replay.finish(&sent)?;
                for batch in held {
                    if out.send(Ok(batch)).await.is_err() {
                        return Ok(false);
                    }
                }
                return Ok(true);
            }
            Err(e) => {
                if sent.committed && sent.digest.is_none() {
                    return Err(e);
                }
                // A job output stream is read once: had the failed read taken batches, reading
                // it again says so; the first read's error is the one that tells what happened.
                let e = match first_error.take() {
                    Some(first) if e.to_string().contains(ALREADY_READ) => first,
                    Some(first) => {
                        first_error = Some(first);
                        Arc::new(e)
                    }
                    None => Arc::new(e),
                };
                first_error.get_or_insert_with(|| e.clone());
                let e = DataFusionError::Shared(e);
                // The attempt failed: wait for the driver to run it again, or to give up. If
                // it does neither for a while, the read itself failed: read it again.
                loop {
                    let now = partition.borrow().clone();
                    match now {
                        FinalState::Failed(err) => return Err(DataFusionError::Shared(err)),
                        FinalState::Running(r) | FinalState::Succeeded(r) if r != stream_ref => {
                            break;
                        }
                        _ => match tokio::time::timeout(REREAD_AFTER, partition.changed()).await {
                            Ok(Ok(())) => {}
                            Ok(Err(_)) => return Err(e),
                            Err(_) if reads < MAX_READS => {
                                tracing::warn!(error = %e, "reading a job output partition again");
                                break;
                            }
                            Err(_) => return Err(e),
                        },
                    }
                }
            }
        }
    }
}

/// The error of a second read of a job output stream (`StreamManager::open`).
const ALREADY_READ: &str = crate::stream::ALREADY_READ;

/// How long the end of the output waits for the driver to record its tasks' success.
const SETTLE: std::time::Duration = std::time::Duration::from_secs(2);

/// A task's output can be read to its end just before the task reports success: the output
/// ends once the driver has that report (so the query's progress shows every task done before
/// the job is released), or after [`SETTLE`].
async fn settle(partitions: &mut [watch::Receiver<FinalState>]) {
    let _ = tokio::time::timeout(SETTLE, async {
        for p in partitions.iter_mut() {
            let _ = p
                .wait_for(|s| matches!(s, FinalState::Succeeded(_) | FinalState::Failed(_)))
                .await;
        }
    })
    .await;
}

async fn wait_for_change(partition: &mut watch::Receiver<FinalState>) -> Result<()> {
    partition
        .changed()
        .await
        .map_err(|_| DataFusionError::Execution("the job was stopped".into()))
}

/// The rows of a partition given to the consumer once its output streams (committed): how
/// many, and a digest of them in order, `None` when a column's type has no hash.
#[derive(Debug)]
struct Sent {
    committed: bool,
    rows: usize,
    digest: Option<u64>,
}

impl Default for Sent {
    fn default() -> Self {
        Self {
            committed: false,
            rows: 0,
            digest: Some(DIGEST_START),
        }
    }
}

const DIGEST_START: u64 = 0xcbf2_9ce4_8422_2325;

impl Sent {
    fn add(&mut self, batch: &RecordBatch) {
        self.rows += batch.num_rows();
        self.digest = self.digest.and_then(|d| fold(d, batch).ok());
    }
}

/// `digest` followed by `batch`'s rows, in order (each row's hash over all its columns).
fn fold(mut digest: u64, batch: &RecordBatch) -> Result<u64> {
    let mut hashes = vec![0u64; batch.num_rows()];
    let state = datafusion::common::hash_utils::RandomState::with_seed(0x0e3b_e2c0);
    datafusion::common::hash_utils::create_hashes(batch.columns(), &state, &mut hashes)?;
    for h in hashes {
        digest = (digest.rotate_left(23) ^ h).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
    Ok(digest)
}

/// A new attempt's first rows, which the consumer has from an earlier attempt: skipped and
/// compared with what it has.
#[derive(Debug)]
struct Replay {
    left: usize,
    digest: u64,
}

impl Replay {
    fn of(sent: &Sent) -> Self {
        Self {
            left: if sent.committed { sent.rows } else { 0 },
            digest: DIGEST_START,
        }
    }

    /// What of `batch` the consumer does not have yet (`None`: nothing); an error when the rows
    /// it has differ from this attempt's.
    fn pass(&mut self, batch: RecordBatch, sent: &Sent) -> Result<Option<RecordBatch>> {
        if self.left == 0 {
            return Ok(Some(batch));
        }
        let rows = batch.num_rows();
        let take = rows.min(self.left);
        self.digest = fold(self.digest, &batch.slice(0, take))?;
        self.left -= take;
        if self.left == 0 && sent.digest != Some(self.digest) {
            return Err(differs(sent.rows));
        }
        Ok((take < rows).then(|| batch.slice(take, rows - take)))
    }

    /// The attempt's output ended: an error if it had fewer rows than the consumer has.
    fn finish(&self, sent: &Sent) -> Result<()> {
        match self.left {
            0 => Ok(()),
            _ => Err(differs(sent.rows)),
        }
    }
}

fn differs(rows: usize) -> DataFusionError {
    DataFusionError::Execution(format!(
        "a final task failed after {rows} of its rows were sent, and its new run gave other \
         rows first (its output is not deterministic): the query fails rather than show rows \
         twice or miss some"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::{Int64Array, StringArray};
    use arrow::datatypes::{DataType, Field, Schema};

    fn batch(from: i64, to: i64) -> RecordBatch {
        let schema = Arc::new(Schema::new(vec![
            Field::new("a", DataType::Int64, false),
            Field::new("b", DataType::Utf8, true),
        ]));
        let a = Int64Array::from_iter_values(from..to);
        let b = StringArray::from_iter((from..to).map(|i| (i % 3 != 0).then(|| i.to_string())));
        RecordBatch::try_new(schema, vec![Arc::new(a), Arc::new(b)]).unwrap()
    }

    fn committed(batches: &[RecordBatch]) -> Sent {
        let mut sent = Sent {
            committed: true,
            ..Sent::default()
        };
        batches.iter().for_each(|b| sent.add(b));
        sent
    }

    fn firsts(out: &[Option<RecordBatch>]) -> Vec<(i64, usize)> {
        out.iter()
            .flatten()
            .map(|b| {
                let a = b.column(0).as_any().downcast_ref::<Int64Array>().unwrap();
                (a.value(0), b.num_rows())
            })
            .collect()
    }

    #[test]
    fn a_new_run_goes_on_after_the_rows_sent_whatever_its_batches() {
        let sent = committed(&[batch(0, 5), batch(5, 10)]);
        let mut replay = Replay::of(&sent);
        let out: Vec<_> = [batch(0, 3), batch(3, 12), batch(12, 20)]
            .into_iter()
            .map(|b| replay.pass(b, &sent).unwrap())
            .collect();
        assert_eq!(firsts(&out), vec![(10, 2), (12, 8)]);
        replay.finish(&sent).unwrap();
    }

    #[test]
    fn a_new_run_with_other_rows_or_fewer_fails() {
        let sent = committed(&[batch(0, 10)]);
        let mut replay = Replay::of(&sent);
        let reordered =
            arrow::compute::concat_batches(&batch(0, 1).schema(), &[batch(5, 10), batch(0, 5)])
                .unwrap();
        let e = replay.pass(reordered, &sent).unwrap_err();
        assert!(e.to_string().contains("not deterministic"), "{e}");
        let mut replay = Replay::of(&sent);
        assert!(replay.pass(batch(0, 4), &sent).unwrap().is_none());
        assert!(replay.finish(&sent).is_err());
    }

    #[test]
    fn nothing_is_replayed_before_the_output_streams() {
        let sent = Sent::default();
        let mut replay = Replay::of(&sent);
        assert_eq!(
            firsts(&[replay.pass(batch(0, 4), &sent).unwrap()]),
            vec![(0, 4)]
        );
    }
}
