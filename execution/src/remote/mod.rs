//! Cluster mode over the network: the driver's gRPC service, worker processes, and the Arrow
//! Flight data plane between them. The scheduling is the same [`Driver`](crate::cluster::Driver)
//! as in-process; only how it reaches workers and how tasks read streams change.

mod client;
mod convert;
mod driver_service;
mod flight;
mod security;
mod worker;

use std::time::Duration;

use datafusion::common::DataFusionError;

pub use client::RemoteWorkerClient;
pub use driver_service::{ClusterJobRunner, DriverServer};
pub use flight::{FlightStreams, StreamFlightService};
pub use security::{
    AddSecret, CLUSTER_SECRET_ENV, ClusterSecurity, ClusterTls, SecretCheck, SecureChannel,
};
pub use worker::{WorkerOptions, run_worker};

use crate::stream::WorkerId;

/// Limits and timings of a cluster.
#[derive(Debug, Clone)]
pub struct ClusterOptions {
    /// How often workers report that they are alive.
    pub heartbeat_interval: Duration,
    /// A worker silent for this long is lost: its tasks run again elsewhere.
    pub heartbeat_timeout: Duration,
    /// Largest gRPC message (plans with local data can be large).
    pub max_message_bytes: usize,
    /// Largest Arrow Flight message; bigger batches are split.
    pub max_flight_data_bytes: usize,
    /// How long jobs wait for a worker when none is alive before they fail.
    pub worker_wait_timeout: Duration,
    /// The cluster's shared secret and TLS (none by default).
    pub security: ClusterSecurity,
}

impl Default for ClusterOptions {
    fn default() -> Self {
        Self {
            heartbeat_interval: Duration::from_millis(500),
            heartbeat_timeout: Duration::from_secs(5),
            max_message_bytes: 1024 * 1024 * 1024,
            max_flight_data_bytes: 4 * 1024 * 1024,
            worker_wait_timeout: Duration::from_secs(15),
            security: ClusterSecurity::default(),
        }
    }
}

/// Carries task errors between processes in a form the server can restore (for example
/// with their Spark error class).
pub trait ErrorCodec: Send + Sync {
    fn encode(&self, error: &DataFusionError) -> Vec<u8>;
    fn decode(&self, message: &str, detail: &[u8]) -> DataFusionError;
}

/// Errors go as text when nothing better is known.
#[derive(Debug, Default)]
pub struct TextErrors;

impl ErrorCodec for TextErrors {
    fn encode(&self, _error: &DataFusionError) -> Vec<u8> {
        vec![]
    }

    fn decode(&self, message: &str, _detail: &[u8]) -> DataFusionError {
        DataFusionError::Execution(message.to_string())
    }
}

/// A stream could not be read because the worker holding it is unreachable.
#[derive(Debug)]
pub struct StreamLost {
    pub worker: WorkerId,
    pub message: String,
}

impl std::fmt::Display for StreamLost {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "lost the output of worker {}: {}",
            self.worker, self.message
        )
    }
}

impl std::error::Error for StreamLost {}

/// The worker whose loss caused `e`, if any.
pub fn lost_worker(e: &DataFusionError) -> Option<WorkerId> {
    match e {
        DataFusionError::External(inner) => {
            if let Some(lost) = inner.downcast_ref::<StreamLost>() {
                return Some(lost.worker);
            }
            inner
                .downcast_ref::<DataFusionError>()
                .and_then(lost_worker)
        }
        DataFusionError::Shared(inner) => lost_worker(inner),
        DataFusionError::Context(_, inner) => lost_worker(inner),
        DataFusionError::ArrowError(arrow_error, _) => match arrow_error.as_ref() {
            arrow::error::ArrowError::ExternalError(inner) => inner
                .downcast_ref::<DataFusionError>()
                .and_then(lost_worker)
                .or_else(|| inner.downcast_ref::<StreamLost>().map(|l| l.worker)),
            _ => None,
        },
        _ => None,
    }
}
