//! Ember's execution layer: DataFusion physical plans in, Arrow record batch streams out.
//!
//! A [`JobRunner`] executes a physical plan. The local runner hands the plan to DataFusion;
//! the cluster runners cut it into a job graph of stages that a driver schedules on workers.
//! Nothing here knows about Spark Connect.

pub mod cluster;
pub mod codec;
pub mod conjunctions;
pub mod dynamic_rows;
pub mod error;
pub mod failpoint;
pub mod formats;
pub mod ipc_check;
pub mod job_graph;
pub mod join_statistics;
pub mod limit_fence;
pub mod memory;
pub mod metrics;
pub mod ordered;
pub mod panic;
pub mod plan;
pub mod progress;
pub mod python;
pub mod query_view;
pub mod remote;
pub mod rules;
pub mod runner;
pub mod sandbox;
pub mod shared_subplans;
pub mod spark_error;
pub mod stream;
pub mod task;
pub mod topology;
pub mod values;

pub use cluster::LocalClusterJobRunner;
pub use error::{ExecutionError, ExecutionResult};
pub use runner::{JobRunner, LocalJobRunner};
