//! Task output streams: each task writes its output channels into a stream manager under a
//! [`StreamKey`]; downstream tasks and the job output read them through a [`StreamSource`],
//! in this process or (in cluster mode) from another one.

mod manager;
pub mod spill;

use std::fmt::Debug;

use arrow::datatypes::SchemaRef;
use datafusion::common::Result;
use datafusion::execution::SendableRecordBatchStream;

pub use manager::{StreamManager, StreamWriter};

/// The error of a second read of a job output stream (read once: its batches leave as read).
pub const ALREADY_READ: &str = "this job output stream was already read";

/// 128 random bits: a job's streams cannot be guessed by whoever reaches a worker.
pub type JobId = u128;
pub type WorkerId = u64;

/// One output channel of one task attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StreamKey {
    pub job: JobId,
    pub stage: usize,
    pub partition: usize,
    pub attempt: usize,
    pub channel: usize,
}

/// A stream and the worker that holds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct StreamRef {
    pub worker: WorkerId,
    pub key: StreamKey,
}

/// Opens streams by reference.
pub trait StreamSource: Send + Sync + Debug {
    fn open(&self, stream: &StreamRef, schema: SchemaRef) -> Result<SendableRecordBatchStream>;
}
