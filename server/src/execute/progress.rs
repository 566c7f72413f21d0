//! `ExecutePlanResponse.execution_progress`: what an operation's query has done so far.
//!
//! As in Spark (`ExecuteGrpcResponseSender`), progress goes out before any other response when
//! it changed since the last report, and at most every `spark.connect.progress.reportInterval`
//! (default 2 s; `0` turns progress off) while the query runs, changed or not. The operation's
//! [`QueryProgress`] reaches the runner through a task-local set around the query
//! ([`scope`]), which [`attach`] puts into the task context of every plan the query runs.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use datafusion::execution::TaskContext;
use ember_execution::progress::{ProgressSnapshot, QueryProgress};
use ember_protos::spark::connect as pb;
use pb::execute_plan_response::execution_progress::StageInfo;
use pb::execute_plan_response::{ExecutionProgress, ResponseType};

use super::Responder;
use super::operation::Operation;

/// Whether a client says (in `client_type`, `... spark/3.5.9 ...`) it is older than Spark 4.0,
/// which added progress reports.
pub fn before_spark_4(client_type: Option<&str>) -> bool {
    client_type
        .and_then(|t| t.split_whitespace().find_map(|w| w.strip_prefix("spark/")))
        .and_then(|v| v.split('.').next())
        .and_then(|major| major.parse::<u32>().ok())
        .is_some_and(|major| major < 4)
}

/// Spark's `spark.connect.progress.reportInterval`.
pub const REPORT_INTERVAL_KEY: &str = "spark.connect.progress.reportInterval";

tokio::task_local! {
    static PROGRESS: Arc<QueryProgress>;
}

/// Run `f` with `progress` as the progress of the plans it runs.
pub async fn scope<F: Future>(progress: Arc<QueryProgress>, f: F) -> F::Output {
    PROGRESS.scope(progress, f).await
}

/// `context` reporting to the current query's progress, if it tracks any.
pub fn attach(context: Arc<TaskContext>) -> Arc<TaskContext> {
    match PROGRESS.try_with(|p| p.clone()) {
        Ok(progress) => QueryProgress::attach(context, progress),
        Err(_) => context,
    }
}

/// The report interval a session asks for (`None`: no progress). A bare number is in
/// milliseconds, as Spark reads it; units `ms`, `s`, `m` are understood.
pub fn report_interval(value: Option<&str>) -> Option<Duration> {
    let Some(text) = value else {
        return Some(Duration::from_secs(2));
    };
    let text = text.trim().to_ascii_lowercase();
    let (number, scale_ms) = if let Some(n) = text.strip_suffix("ms") {
        (n, 1.0)
    } else if let Some(n) = text.strip_suffix('s') {
        (n, 1000.0)
    } else if let Some(n) = text.strip_suffix("min") {
        (n, 60_000.0)
    } else if let Some(n) = text.strip_suffix('m') {
        (n, 60_000.0)
    } else {
        (text.as_str(), 1.0)
    };
    let ms = number.trim().parse::<f64>().ok()? * scale_ms;
    (ms > 0.0).then(|| Duration::from_millis(ms as u64))
}

/// A progress response with the ids of `like` (another response of the operation).
pub fn response(
    like: &pb::ExecutePlanResponse,
    snapshot: ProgressSnapshot,
) -> pb::ExecutePlanResponse {
    pb::ExecutePlanResponse {
        session_id: like.session_id.clone(),
        server_side_session_id: like.server_side_session_id.clone(),
        operation_id: like.operation_id.clone(),
        response_id: uuid::Uuid::new_v4().to_string(),
        response_type: Some(ResponseType::ExecutionProgress(to_proto(snapshot))),
        ..Default::default()
    }
}

fn to_proto(snapshot: ProgressSnapshot) -> ExecutionProgress {
    ExecutionProgress {
        stages: snapshot
            .stages
            .into_iter()
            .map(|s| StageInfo {
                stage_id: s.stage_id,
                num_tasks: s.num_tasks,
                num_completed_tasks: s.num_completed_tasks,
                input_bytes_read: s.input_bytes_read,
                done: s.done,
            })
            .collect(),
        num_inflight_tasks: snapshot.num_inflight_tasks,
    }
}

/// The `metrics` response: every operator the query ran, with its metrics (`None` when the
/// query ran no plan).
pub fn metrics_response(op: &Operation, responder: &Responder) -> Option<pb::ExecutePlanResponse> {
    use pb::execute_plan_response::Metrics;
    use pb::execute_plan_response::metrics::{MetricObject, MetricValue};
    let nodes = op.progress.operator_tree();
    if nodes.is_empty() {
        return None;
    }
    let metrics = nodes
        .into_iter()
        .map(|n| MetricObject {
            name: n.name,
            plan_id: n.id,
            parent: n.parent,
            execution_metrics: n
                .metrics
                .into_iter()
                .map(|m| {
                    let value = MetricValue {
                        name: m.name.clone(),
                        value: m.value,
                        metric_type: m.kind,
                    };
                    (m.name, value)
                })
                .collect(),
        })
        .collect();
    let mut response = responder.response(None);
    response.metrics = Some(Metrics { metrics });
    Some(response)
}

/// Push the progress if it changed since the last report, ahead of `next`.
pub async fn push_if_changed(op: &Operation, next: &pb::ExecutePlanResponse) -> bool {
    if !op
        .report_progress
        .load(std::sync::atomic::Ordering::Relaxed)
    {
        return true;
    }
    match op.progress.take_if_changed() {
        Some(snapshot) => op.push(response(next, snapshot)).await,
        None => true,
    }
}

/// How long the end of a query waits for its tasks' last reports to the progress.
const SETTLE: Duration = Duration::from_secs(1);

/// An operation's query ended: wait for its tasks' last reports (tasks report their end after
/// their output was read), add it to the Prometheus counters, log it.
pub async fn operation_ended(
    op: &Operation,
    counted: crate::prometheus::QueryGuard,
    started: std::time::Instant,
    failed: bool,
) {
    if !failed {
        op.progress.wait_idle(SETTLE).await;
    }
    counted.ended(failed, &op.progress);
    let stages = op.progress.snapshot().stages;
    tracing::info!(
        duration_ms = started.elapsed().as_millis() as u64,
        stages = stages.len(),
        tasks = stages.iter().map(|s| s.num_completed_tasks).sum::<i64>(),
        failed,
        "operation finished"
    );
}

/// Report the progress every `interval` until dropped (the query ended).
pub async fn tick(op: &Operation, responder: &Responder, interval: Duration) {
    let like = responder.response(None);
    loop {
        tokio::time::sleep(interval).await;
        let _ = op.progress.take_if_changed();
        if !op.push(response(&like, op.progress.snapshot())).await {
            // Interrupted: the query's own end reports that.
            std::future::pending::<()>().await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clients_before_spark_4() {
        assert!(before_spark_4(Some(
            "_SPARK_CONNECT_PYTHON spark/3.5.9 os/linux python/3.11"
        )));
        assert!(!before_spark_4(Some(
            "_SPARK_CONNECT_PYTHON spark/4.0.4 os/linux python/3.11"
        )));
        assert!(!before_spark_4(Some(
            "_SPARK_CONNECT_PYTHON spark/4.3.0 os/linux"
        )));
        assert!(!before_spark_4(Some("adbc-driver-spark")));
        assert!(!before_spark_4(None));
    }

    #[test]
    fn intervals_read_as_spark_reads_them() {
        assert_eq!(report_interval(None), Some(Duration::from_secs(2)));
        assert_eq!(
            report_interval(Some("500ms")),
            Some(Duration::from_millis(500))
        );
        assert_eq!(report_interval(Some("3s")), Some(Duration::from_secs(3)));
        assert_eq!(
            report_interval(Some("1500")),
            Some(Duration::from_millis(1500))
        );
        assert_eq!(report_interval(Some("0")), None);
        assert_eq!(report_interval(Some("-1s")), None);
    }
}
