//! Stream storage of one worker. A stream is written once by a task and may be read any
//! number of times, while it is written (readers wait for more) or after. Batches are held in
//! memory while the process's outputs hold less than a quarter of the memory limit and its
//! memory pool grants them (one consumer per process: a pool that cannot ask it to
//! spill must not let it crowd out sorts); beyond that, the stream's batches in memory move to
//! a spill file (`super::spill`) and are read back from there.
//!
//! A job output stream (the final stage's, read once by the job output) is bounded instead:
//! its writer waits while more than [`JOB_OUTPUT_WINDOW`] bytes are unread, and each batch is
//! dropped as it is read, so a slow client holds back the task rather than fill memory or
//! disk. Such a stream can be read once; opening it again after its first batches were read
//! fails. When other queries wait for the slot its task holds, the driver releases the stream
//! ([`StreamManager::release_job_output`]): its writer no longer waits, and what exceeds the
//! window moves to spill files the reader reads in turn, so the task ends and frees its slot.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Arc, OnceLock};

use arrow::array::RecordBatch;
use arrow::datatypes::SchemaRef;
use datafusion::common::DataFusionError;
use datafusion::common::config::SpillCompression;
use datafusion::execution::SendableRecordBatchStream;
use datafusion::execution::memory_pool::{MemoryConsumer, MemoryReservation};
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use parking_lot::Mutex;
use tokio::sync::Notify;

use super::spill::{ChunkReader, SpillChunk, write_chunk};
use super::{JobId, StreamKey};

/// One batch of a stream: in memory (with the bytes the pool granted for it), or in a file.
enum Slot {
    Memory(RecordBatch, usize),
    Disk(Arc<SpillChunk>, usize),
}

type SharedReservation = Arc<Mutex<MemoryReservation>>;

/// Unread bytes a job output stream holds before its writer waits for the reader.
pub const JOB_OUTPUT_WINDOW: usize = 4 << 20;

/// The process's stream outputs keep at most this part of the memory limit in memory.
const OUTPUT_SHARE: usize = 4;

fn output_share() -> usize {
    crate::memory::installed().map_or(usize::MAX, |b| b.limit() / OUTPUT_SHARE)
}

/// The least a stream writes to one spill file: 1/128 of the limit, within 128 KiB..4 MiB.
fn min_spill() -> usize {
    crate::memory::installed().map_or(0, |b| (b.limit() / 128).clamp(128 << 10, 4 << 20))
}

#[derive(Default)]
struct BufferState {
    /// Set by the writer; readers elsewhere (Flight) need it before the first batch.
    schema: Option<SchemaRef>,
    batches: VecDeque<Slot>,
    /// Batches already dropped from the front (read once, job output streams).
    base: usize,
    /// Set for a job output stream: read once, at most this many bytes unread.
    window: Option<usize>,
    /// A job output stream whose writer no longer waits: past the window, batches spill.
    released: bool,
    /// How spill files of this stream are compressed.
    codec: SpillCompression,
    /// Bytes of the batches in memory (as granted by the pool).
    in_memory: usize,
    /// `Some` once the writer finished: `Err` carries its failure to readers.
    done: Option<std::result::Result<(), Arc<DataFusionError>>>,
}

#[derive(Default)]
struct Buffer {
    state: Mutex<BufferState>,
    notify: Notify,
    /// Wakes the writer of a job output stream when its reader took a batch.
    space: Notify,
    /// The worker's share of the memory pool (none without an installed budget).
    reservation: Option<SharedReservation>,
}

impl Drop for Buffer {
    fn drop(&mut self) {
        if let Some(reservation) = &self.reservation {
            reservation.lock().shrink(self.state.get_mut().in_memory);
        }
    }
}

impl BufferState {
    /// Move the batches in memory to one spill file; the bytes they held.
    fn spill(&mut self) -> datafusion::common::Result<usize> {
        let Some(budget) = crate::memory::installed() else {
            return Ok(0);
        };
        let in_memory: Vec<RecordBatch> = self
            .batches
            .iter()
            .filter_map(|slot| match slot {
                Slot::Memory(batch, _) => Some(batch.clone()),
                Slot::Disk(..) => None,
            })
            .collect();
        let Some(first) = in_memory.first() else {
            return Ok(0);
        };
        let schema = self.schema.clone().unwrap_or_else(|| first.schema());
        let chunk = write_chunk(budget.spill_dir(), &schema, &in_memory, self.codec)?;
        let mut index = 0;
        let mut freed = 0;
        for slot in self.batches.iter_mut() {
            if let Slot::Memory(_, bytes) = slot {
                freed += *bytes;
                *slot = Slot::Disk(chunk.clone(), index);
                index += 1;
            }
        }
        Ok(freed)
    }
}

#[derive(Default)]
struct Streams {
    buffers: HashMap<StreamKey, Arc<Buffer>>,
    /// Jobs already cleaned up: a late writer or reader of theirs gets a detached stream
    /// rather than one that would never be freed (or never written).
    removed_jobs: HashSet<JobId>,
    /// Task attempts whose job output was released (possibly before the task created it).
    released: HashSet<(JobId, usize, usize, usize)>,
}

impl Streams {
    /// Take the buffers whose keys `which` selects.
    fn take(&mut self, which: impl Fn(&StreamKey) -> bool) -> Vec<Arc<Buffer>> {
        self.buffers
            .extract_if(|k, _| which(k))
            .map(|(_, b)| b)
            .collect()
    }
}

/// The streams held by one worker.
#[derive(Default)]
pub struct StreamManager {
    streams: Mutex<Streams>,
}

/// The stream outputs of every worker in this process, as one consumer of its memory pool.
static OUTPUTS: OnceLock<Option<SharedReservation>> = OnceLock::new();

fn outputs_reservation() -> Option<SharedReservation> {
    OUTPUTS
        .get_or_init(|| {
            crate::memory::installed().map(|budget| {
                Arc::new(Mutex::new(
                    MemoryConsumer::new("StreamOutputs").register(budget.pool()),
                ))
            })
        })
        .clone()
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
        let reservation = outputs_reservation();
        let mut streams = self.streams.lock();
        if streams.removed_jobs.contains(&key.job) {
            let buffer = Buffer::default();
            buffer.state.lock().done = Some(Err(cleaned_up()));
            return Arc::new(buffer);
        }
        streams
            .buffers
            .entry(key)
            .or_insert_with(|| {
                Arc::new(Buffer {
                    state: Mutex::default(),
                    notify: Notify::new(),
                    space: Notify::new(),
                    reservation,
                })
            })
            .clone()
    }

    /// The writer of a new stream of batches of `schema`, spilled with `codec`.
    pub fn create(
        &self,
        key: StreamKey,
        schema: SchemaRef,
        codec: SpillCompression,
    ) -> StreamWriter {
        let buffer = self.buffer(key);
        {
            let mut state = buffer.state.lock();
            state.schema = Some(schema);
            state.codec = codec;
        }
        StreamWriter { buffer }
    }

    /// The writer of a job output stream: read once, its writer waits while
    /// [`JOB_OUTPUT_WINDOW`] bytes are unread.
    pub fn create_job_output(&self, key: StreamKey, schema: SchemaRef) -> StreamWriter {
        let buffer = self.buffer(key);
        let released = self.streams.lock().released.contains(&(
            key.job,
            key.stage,
            key.partition,
            key.attempt,
        ));
        {
            let mut state = buffer.state.lock();
            state.schema = Some(schema);
            state.window = Some(JOB_OUTPUT_WINDOW);
            state.released = released;
        }
        StreamWriter { buffer }
    }

    /// Let the job output streams of a task attempt go on past their window, what exceeds it
    /// spilled (other queries wait for the task's slot).
    pub fn release_job_output(&self, job: JobId, stage: usize, partition: usize, attempt: usize) {
        let buffers: Vec<Arc<Buffer>> = {
            let mut streams = self.streams.lock();
            if streams.removed_jobs.contains(&job) {
                return;
            }
            streams.released.insert((job, stage, partition, attempt));
            streams
                .buffers
                .iter()
                .filter(|(k, _)| {
                    k.job == job
                        && k.stage == stage
                        && k.partition == partition
                        && k.attempt == attempt
                })
                .map(|(_, b)| b.clone())
                .collect()
        };
        for buffer in buffers {
            let mut state = buffer.state.lock();
            if state.window.is_some() && !state.released {
                state.released = true;
                drop(state);
                buffer.space.notify_waiters();
            }
        }
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
            (buffer, 0usize, false, None::<ChunkReader>),
            |(buffer, next, failed, reader)| async move {
                if failed {
                    return None;
                }
                let waker = buffer.clone();
                loop {
                    let notified = waker.notify.notified();
                    tokio::pin!(notified);
                    notified.as_mut().enable();
                    {
                        let mut state = buffer.state.lock();
                        if next < state.base {
                            let e = DataFusionError::Execution(super::ALREADY_READ.into());
                            return Some((Err(e), (buffer.clone(), next, true, None)));
                        }
                        if state.window.is_some() && next < state.base + state.batches.len() {
                            // Read once: the batch leaves the stream, and its writer may go on.
                            let taken = state.batches.pop_front();
                            state.base += 1;
                            match taken {
                                Some(Slot::Memory(batch, bytes)) => {
                                    state.in_memory -= bytes;
                                    drop(state);
                                    if let Some(reservation) = &buffer.reservation {
                                        reservation.lock().shrink(bytes);
                                    }
                                    buffer.space.notify_waiters();
                                    return Some((Ok(batch), (buffer, next + 1, false, reader)));
                                }
                                Some(Slot::Disk(chunk, index)) => {
                                    drop(state);
                                    return Some(disk_item(buffer, next, reader, chunk, index));
                                }
                                None => {}
                            }
                        }
                        match state.batches.get(next - state.base) {
                            Some(Slot::Memory(batch, _)) => {
                                let batch = batch.clone();
                                drop(state);
                                return Some((Ok(batch), (buffer, next + 1, false, reader)));
                            }
                            Some(Slot::Disk(chunk, index)) => {
                                let (chunk, index) = (chunk.clone(), *index);
                                drop(state);
                                return Some(disk_item(buffer, next, reader, chunk, index));
                            }
                            None => {}
                        }
                        match &state.done {
                            Some(Ok(())) => return None,
                            Some(Err(e)) => {
                                let e = DataFusionError::Shared(e.clone());
                                drop(state);
                                return Some((Err(e), (buffer, next, true, None)));
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

    /// Free the streams of one stage of a job (every consumer has read them).
    pub fn remove_stage(&self, job: JobId, stage: usize) {
        let removed = self
            .streams
            .lock()
            .take(|k| k.job == job && k.stage == stage);
        Self::end_readers(removed);
    }

    /// Free every stream of a job.
    pub fn remove_job(&self, job: JobId) {
        let removed = {
            let mut streams = self.streams.lock();
            streams.removed_jobs.insert(job);
            streams.released.retain(|r| r.0 != job);
            streams.take(|k| k.job == job)
        };
        Self::end_readers(removed);
    }

    /// Free every stream (a worker the driver declared lost: all it held was recomputed).
    pub fn clear(&self) {
        let removed: Vec<Arc<Buffer>> = {
            let mut streams = self.streams.lock();
            streams.released.clear();
            streams.buffers.drain().map(|(_, b)| b).collect()
        };
        Self::end_readers(removed);
    }

    fn end_readers(removed: Vec<Arc<Buffer>>) {
        // Wake readers still waiting on removed streams: they end with an error.
        for b in removed {
            let mut state = b.state.lock();
            if state.done.is_none() {
                state.done = Some(Err(cleaned_up()));
            }
            drop(state);
            b.notify.notify_waiters();
            b.space.notify_waiters();
        }
    }

    pub fn len(&self) -> usize {
        self.streams.lock().buffers.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Where a reader of a stream is: the stream, its next batch, whether it failed, and the
/// spill file it reads.
type ReadState = (Arc<Buffer>, usize, bool, Option<ChunkReader>);

/// Batch `index` of a spill file as a stream reader's next item (through `reader` when it
/// reads that file), and where the reader is after it.
fn disk_item(
    buffer: Arc<Buffer>,
    next: usize,
    reader: Option<ChunkReader>,
    chunk: Arc<SpillChunk>,
    index: usize,
) -> (datafusion::common::Result<RecordBatch>, ReadState) {
    let read = match reader {
        Some(r) if r.is_of(&chunk) => Ok(r),
        _ => ChunkReader::open(chunk),
    }
    .and_then(|mut r| r.read(index).map(|batch| (batch, r)));
    match read {
        Ok((batch, r)) => (Ok(batch), (buffer, next + 1, false, Some(r))),
        Err(e) => (Err(e), (buffer, next, true, None)),
    }
}

/// Writes one stream.
pub struct StreamWriter {
    buffer: Arc<Buffer>,
}

impl StreamWriter {
    /// Add a batch; for a job output stream, first wait until its reader has taken enough
    /// (or the stream was given up).
    pub async fn push(&self, batch: RecordBatch) {
        let window = self.buffer.state.lock().window;
        if let Some(window) = window {
            loop {
                let space = self.buffer.space.notified();
                tokio::pin!(space);
                space.as_mut().enable();
                {
                    let state = self.buffer.state.lock();
                    if state.in_memory < window || state.batches.is_empty() || state.released {
                        break;
                    }
                    if state.done.is_some() {
                        return; // nobody will read it (the job was cleaned up)
                    }
                }
                space.await;
            }
            let bytes = batch.get_array_memory_size();
            if let Some(reservation) = &self.buffer.reservation {
                let reservation = reservation.lock();
                if reservation.try_grow(bytes).is_err() {
                    // Bounded by the window: counted even past the pool's limit.
                    reservation.grow(bytes);
                }
            }
            let mut state = self.buffer.state.lock();
            state.in_memory += bytes;
            state.batches.push_back(Slot::Memory(batch, bytes));
            // Released: what exceeds the window waits on disk.
            let freed = match state.released && state.in_memory > window {
                true => state.spill().unwrap_or_else(|e| {
                    tracing::warn!(error = %e, "cannot spill a job output; kept in memory");
                    0
                }),
                false => 0,
            };
            state.in_memory -= freed;
            drop(state);
            if freed > 0
                && let Some(reservation) = &self.buffer.reservation
            {
                reservation.lock().shrink(freed);
            }
            self.buffer.notify.notify_waiters();
            return;
        }
        self.push_now(batch);
    }

    fn push_now(&self, batch: RecordBatch) {
        let mut state = self.buffer.state.lock();
        let mut spill = false;
        let mut accounted = 0;
        if let Some(reservation) = &self.buffer.reservation {
            accounted = batch.get_array_memory_size();
            let reservation = reservation.lock();
            if reservation.size() + accounted > output_share()
                || reservation.try_grow(accounted).is_err()
            {
                // Over the outputs' share: held (and counted) until the stream has enough
                // in memory for one spill file, so that files are not one small batch each.
                reservation.grow(accounted);
                spill = state.in_memory + accounted >= min_spill();
            }
        }
        state.in_memory += accounted;
        state.batches.push_back(Slot::Memory(batch, accounted));
        if spill {
            match state.spill() {
                Ok(freed) => {
                    state.in_memory -= freed;
                    if let Some(reservation) = &self.buffer.reservation {
                        reservation.lock().shrink(freed);
                    }
                }
                Err(e) => tracing::warn!(error = %e, "cannot spill a stream; kept in memory"),
            }
        }
        drop(state);
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
        self.buffer.space.notify_waiters();
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

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::Int64Array;
    use arrow::datatypes::{DataType, Field, Schema};
    use std::time::Duration;

    fn key(attempt: usize) -> StreamKey {
        StreamKey {
            job: 7,
            stage: 1,
            partition: 0,
            attempt,
            channel: 0,
        }
    }

    /// About 2 MiB.
    fn batch() -> RecordBatch {
        let schema = Arc::new(Schema::new(vec![Field::new("a", DataType::Int64, false)]));
        let a = Int64Array::from_iter_values(0..(2 << 20) / 8);
        RecordBatch::try_new(schema, vec![Arc::new(a)]).unwrap()
    }

    async fn pushes(writer: &StreamWriter, n: usize) -> bool {
        for _ in 0..n {
            let pushed = tokio::time::timeout(Duration::from_millis(200), writer.push(batch()));
            if pushed.await.is_err() {
                return false;
            }
        }
        true
    }

    #[tokio::test]
    async fn a_released_job_output_stops_waiting_for_its_reader() {
        let streams = StreamManager::default();
        let writer = streams.create_job_output(key(0), batch().schema());
        assert!(
            !pushes(&writer, 4).await,
            "the window did not hold the writer"
        );
        streams.release_job_output(7, 1, 0, 0);
        assert!(pushes(&writer, 4).await);
        // Released before its task created it (another attempt), and read in order after.
        streams.release_job_output(7, 1, 0, 1);
        let writer = streams.create_job_output(key(1), batch().schema());
        assert!(pushes(&writer, 6).await);
        writer.finish();
        let read = streams.open(key(1), batch().schema());
        let rows: usize = futures::StreamExt::collect::<Vec<_>>(read)
            .await
            .into_iter()
            .map(|b| b.unwrap().num_rows())
            .sum();
        assert_eq!(rows, 6 * batch().num_rows());
    }
}
