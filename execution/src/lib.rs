//! Ember's execution layer: DataFusion physical plans in, Arrow record batch streams out.
//!
//! A [`JobRunner`] executes a physical plan. The local runner hands the plan to DataFusion;
//! the cluster runners cut it into a job graph of stages that a driver schedules on workers.
//! Nothing here knows about Spark Connect.

pub mod error;
pub mod ordered;
pub mod rules;
pub mod runner;

pub use error::{ExecutionError, ExecutionResult};
pub use runner::{JobRunner, LocalJobRunner};
