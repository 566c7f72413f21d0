//! Errors of the planner. Spark's error classes ([`SparkError`]) are the execution crate's
//! (`ember_execution::spark_error`), re-exported here: readers, writers and functions raise
//! them as well.

use std::fmt;

use datafusion::error::DataFusionError;

pub use ember_execution::spark_error::*;

/// The planner's error type.
#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    /// An error with a Spark error class (analysis, parse, ...).
    #[error("{0}")]
    Spark(Box<SparkError>),
    /// A valid request that Ember does not support yet.
    #[error("not supported: {0}")]
    Unsupported(String),
    /// A malformed request (missing required fields, bad enum values).
    #[error("invalid plan: {0}")]
    InvalidPlan(String),
    /// An error from DataFusion while building the plan.
    #[error(transparent)]
    DataFusion(#[from] DataFusionError),
}

impl From<SparkError> for PlanError {
    fn from(e: SparkError) -> Self {
        PlanError::Spark(Box::new(e))
    }
}

pub type PlanResult<T> = Result<T, PlanError>;

impl PlanError {
    /// Convert into the Spark form the server sends to clients.
    pub fn into_spark(self) -> SparkError {
        match self {
            PlanError::Spark(e) => *e,
            PlanError::Unsupported(what) => SparkError::unsupported(what),
            PlanError::InvalidPlan(msg) => SparkError::invalid_plan(msg),
            PlanError::DataFusion(e) => spark_error_from_datafusion(&e),
        }
    }
}

/// Shorthand constructors used throughout the planner.
pub fn unsupported<T>(what: impl fmt::Display) -> PlanResult<T> {
    Err(PlanError::Unsupported(what.to_string()))
}

pub fn invalid<T>(what: impl fmt::Display) -> PlanResult<T> {
    Err(PlanError::InvalidPlan(what.to_string()))
}
