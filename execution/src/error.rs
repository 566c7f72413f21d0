//! Errors of the execution layer.

use datafusion::error::DataFusionError;

#[derive(Debug, thiserror::Error)]
pub enum ExecutionError {
    #[error(transparent)]
    DataFusion(#[from] DataFusionError),
    /// A stage failed more often than allowed.
    #[error("stage {stage} failed after {attempts} attempts: {message}")]
    StageFailed {
        stage: usize,
        attempts: usize,
        message: String,
    },
    #[error("job graph: {0}")]
    Plan(String),
    #[error("cluster: {0}")]
    Cluster(String),
    #[error("job was cancelled")]
    Cancelled,
}

pub type ExecutionResult<T> = Result<T, ExecutionError>;

impl From<ExecutionError> for DataFusionError {
    fn from(e: ExecutionError) -> Self {
        match e {
            ExecutionError::DataFusion(e) => e,
            other => DataFusionError::External(Box::new(other)),
        }
    }
}
