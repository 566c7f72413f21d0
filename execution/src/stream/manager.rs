//! In-memory stream storage of one worker. A stream is written once by a task and may be
//! read any number of times, while it is written (readers wait for more) or after.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use arrow::array::RecordBatch;
use arrow::datatypes::SchemaRef;
use datafusion::common::DataFusionError;
use datafusion::execution::SendableRecordBatchStream;
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use parking_lot::Mutex;
use tokio::sync::Notify;

use super::{JobId, StreamKey};

#[derive(Default)]
struct BufferState {
    /// Set by the writer; readers elsewhere (Flight) need it before the first batch.
    schema: Option<SchemaRef>,
    batches: Vec<RecordBatch>,
    /// `Some` once the writer finished: `Err` carries its failure to readers.
    done: Option<std::result::Result<(), Arc<DataFusionError>>>,
}

#[derive(Default)]
struct Buffer {
    state: Mutex<BufferState>,
    notify: Notify,
}

#[derive(Default)]
struct Streams {
    buffers: HashMap<StreamKey, Arc<Buffer>>,
    /// Jobs already cleaned up: a late writer or reader of theirs gets a detached stream
    /// rather than one that would never be freed (or never written).
    removed_jobs: HashSet<JobId>,
}

/// The streams held by one worker.
#[derive(Default)]
pub struct StreamManager {
    streams: Mutex<Streams>,
}

impl std::fmt::Debug for StreamManager {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "StreamManager({} streams)", self.len())
    }
}

fn cleaned_up() -> Arc<DataFusionError> {
    Arc::new(DataFusionError::Execution("the job was cleaned up".into()))
}

impl StreamManager {
    fn buffer(&self, key: StreamKey) -> Arc<Buffer> {
        let mut streams = self.streams.lock();
        if streams.removed_jobs.contains(&key.job) {
            let buffer = Buffer::default();
            buffer.state.lock().done = Some(Err(cleaned_up()));
            return Arc::new(buffer);
        }
        streams.buffers.entry(key).or_default().clone()
    }

    /// The writer of a new stream of batches of `schema`.
    pub fn create(&self, key: StreamKey, schema: SchemaRef) -> StreamWriter {
        let buffer = self.buffer(key);
        buffer.state.lock().schema = Some(schema);
        StreamWriter { buffer }
    }

    /// The schema of a stream whose writer exists.
    pub fn schema(&self, key: &StreamKey) -> Option<SchemaRef> {
        self.streams
            .lock()
            .buffers
            .get(key)
            .and_then(|b| b.state.lock().schema.clone())
    }

    /// Read a stream from the start; waits for batches until the writer finishes.
    pub fn open(&self, key: StreamKey, schema: SchemaRef) -> SendableRecordBatchStream {
        let buffer = self.buffer(key);
        let batches = futures::stream::unfold(
            (buffer, 0usize, false),
            |(buffer, next, failed)| async move {
                if failed {
                    return None;
                }
                let waker = buffer.clone();
                loop {
                    let notified = waker.notify.notified();
                    tokio::pin!(notified);
                    notified.as_mut().enable();
                    {
                        let state = buffer.state.lock();
                        if let Some(batch) = state.batches.get(next) {
                            let batch = batch.clone();
                            drop(state);
                            return Some((Ok(batch), (buffer, next + 1, false)));
                        }
                        match &state.done {
                            Some(Ok(())) => return None,
                            Some(Err(e)) => {
                                let e = DataFusionError::Shared(e.clone());
                                drop(state);
                                return Some((Err(e), (buffer, next, true)));
                            }
                            None => {}
                        }
                    }
                    notified.await;
                }
            },
        );
        Box::pin(RecordBatchStreamAdapter::new(schema, batches))
    }

    /// Whether a finished, successful stream exists.
    pub fn is_complete(&self, key: &StreamKey) -> bool {
        self.streams
            .lock()
            .buffers
            .get(key)
            .is_some_and(|b| matches!(b.state.lock().done, Some(Ok(()))))
    }

    /// Free every stream of a job.
    pub fn remove_job(&self, job: JobId) {
        let removed: Vec<Arc<Buffer>> = {
            let mut streams = self.streams.lock();
            streams.removed_jobs.insert(job);
            let keys: Vec<StreamKey> = streams
                .buffers
                .keys()
                .filter(|k| k.job == job)
                .copied()
                .collect();
            keys.iter()
                .filter_map(|k| streams.buffers.remove(k))
                .collect()
        };
        // Wake readers still waiting on removed streams: they end with an error.
        for b in removed {
            let mut state = b.state.lock();
            if state.done.is_none() {
                state.done = Some(Err(cleaned_up()));
            }
            drop(state);
            b.notify.notify_waiters();
        }
    }

    pub fn len(&self) -> usize {
        self.streams.lock().buffers.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Writes one stream.
pub struct StreamWriter {
    buffer: Arc<Buffer>,
}

impl StreamWriter {
    pub fn push(&self, batch: RecordBatch) {
        self.buffer.state.lock().batches.push(batch);
        self.buffer.notify.notify_waiters();
    }

    pub fn finish(&self) {
        self.set_done(Ok(()));
    }

    pub fn fail(&self, error: Arc<DataFusionError>) {
        self.set_done(Err(error));
    }

    fn set_done(&self, outcome: std::result::Result<(), Arc<DataFusionError>>) {
        let mut state = self.buffer.state.lock();
        if state.done.is_none() {
            state.done = Some(outcome);
        }
        drop(state);
        self.buffer.notify.notify_waiters();
    }
}

impl Drop for StreamWriter {
    /// A writer dropped without finishing (its task was cancelled) fails the stream.
    fn drop(&mut self) {
        let state = self.buffer.state.lock();
        let unfinished = state.done.is_none();
        drop(state);
        if unfinished {
            self.fail(Arc::new(DataFusionError::Execution(
                "the task writing this stream stopped".into(),
            )));
        }
    }
}
