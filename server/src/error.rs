//! Errors as Spark Connect clients expect them: a gRPC status whose `ErrorInfo` detail carries
//! the Spark error class, SQLSTATE, message parameters and JVM exception classes, plus an
//! error id the client can pass to `FetchErrorDetails`.

use std::collections::HashMap;

use ember_execution::ExecutionError;
use ember_planner::SparkError;
use ember_planner::error::{ErrorKind, PlanError, spark_error_from_datafusion};
use ember_protos::spark::connect as pb;
use tonic::{Code, Status};
use tonic_types::{ErrorDetails, StatusExt};

/// An error as kept for `FetchErrorDetails`.
#[derive(Debug, Clone)]
pub struct ErrorRecord {
    pub error: SparkError,
}

/// The server's error type: everything that can go wrong while serving a request.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    #[error(transparent)]
    Plan(#[from] PlanError),
    #[error(transparent)]
    Execution(#[from] ExecutionError),
    #[error(transparent)]
    DataFusion(#[from] datafusion::error::DataFusionError),
    #[error("{0}")]
    Spark(Box<SparkError>),
    #[error(transparent)]
    Status(#[from] Status),
}

impl From<SparkError> for ServerError {
    fn from(e: SparkError) -> Self {
        ServerError::Spark(Box::new(e))
    }
}

pub type ServerResult<T> = Result<T, ServerError>;

impl ServerError {
    /// The Spark form of the error (statuses pass through unchanged elsewhere).
    pub fn to_spark(&self) -> Option<SparkError> {
        Some(match self {
            ServerError::Plan(e) => match e {
                PlanError::Spark(s) => (**s).clone(),
                PlanError::Unsupported(what) => SparkError::unsupported(what),
                PlanError::InvalidPlan(m) => SparkError::invalid_plan(m.clone()),
                PlanError::DataFusion(d) => spark_error_from_datafusion(d),
            },
            ServerError::Execution(e) => match e {
                ExecutionError::DataFusion(d) => spark_error_from_datafusion(d),
                ExecutionError::Cancelled => operation_canceled(),
                other => SparkError::new(
                    ErrorKind::Internal,
                    "INTERNAL_ERROR",
                    "XX000",
                    other.to_string(),
                    vec![],
                ),
            },
            ServerError::DataFusion(d) => spark_error_from_datafusion(d),
            ServerError::Spark(s) => (**s).clone(),
            ServerError::Status(_) => return None,
        })
    }
}

pub fn operation_canceled() -> SparkError {
    SparkError::new(
        ErrorKind::Internal,
        "OPERATION_CANCELED",
        "HY008",
        "Operation has been cancelled.",
        vec![],
    )
}

/// The status for an error; `error_id` lets the client fetch the details.
pub fn status_of(e: &SparkError, error_id: Option<&str>) -> Status {
    let classes: Vec<&str> = e.kind.jvm_classes().to_vec();
    let params: serde_json::Map<String, serde_json::Value> = e
        .parameters
        .iter()
        .map(|(k, v)| (k.clone(), serde_json::Value::String(v.clone())))
        .collect();
    let mut metadata = HashMap::new();
    metadata.insert(
        "classes".to_string(),
        serde_json::to_string(&classes).unwrap_or_default(),
    );
    // Exceptions without an error class (Spark's `require` failures) carry none.
    if !e.error_class.is_empty() {
        metadata.insert("errorClass".to_string(), e.error_class.clone());
        metadata.insert("sqlState".to_string(), e.sql_state.clone());
    }
    metadata.insert(
        "messageParameters".to_string(),
        serde_json::Value::Object(params).to_string(),
    );
    if let Some(id) = error_id {
        metadata.insert("errorId".to_string(), id.to_string());
    }
    let reason = classes
        .first()
        .copied()
        .unwrap_or("org.apache.spark.SparkException");
    let details = ErrorDetails::with_error_info(reason, "org.apache.spark", metadata);
    Status::with_error_details(Code::Internal, truncate(&e.full_message(), 2048), details)
}

fn truncate(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_string();
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    s[..end].to_string()
}

pub fn invalid_handle(class: &str, message: &str) -> Status {
    status_of(
        &SparkError::new(ErrorKind::Runtime, class, "HY000", message, vec![]),
        None,
    )
}

/// `FetchErrorDetails` for a recorded error.
pub fn error_details(record: &ErrorRecord) -> Vec<pb::fetch_error_details_response::Error> {
    use pb::fetch_error_details_response::{Error, SparkThrowable};
    let e = &record.error;
    vec![Error {
        error_type_hierarchy: e.kind.jvm_classes().iter().map(|s| s.to_string()).collect(),
        message: e.full_message(),
        stack_trace: vec![],
        cause_idx: None,
        spark_throwable: (!e.error_class.is_empty()).then(|| SparkThrowable {
            error_class: Some(e.error_class.clone()),
            message_parameters: e.parameters.iter().cloned().collect(),
            query_contexts: vec![],
            sql_state: Some(e.sql_state.clone()),
            breaking_change_info: None,
        }),
    }]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_carry_error_info_the_client_reads() {
        let e = SparkError::table_not_found("nope");
        let status = status_of(&e, Some("id-1"));
        assert_eq!(status.code(), Code::Internal);
        let details = status.get_error_details();
        let info = details.error_info().expect("error info");
        assert_eq!(info.reason, "org.apache.spark.sql.AnalysisException");
        assert_eq!(info.metadata["errorClass"], "TABLE_OR_VIEW_NOT_FOUND");
        assert_eq!(info.metadata["errorId"], "id-1");
        assert!(info.metadata["classes"].contains("org.apache.spark.sql.AnalysisException"));
        assert!(status.message().starts_with("[TABLE_OR_VIEW_NOT_FOUND]"));
    }
}
