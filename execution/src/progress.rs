//! Query progress: the stages of the jobs a query runs, their tasks done out of all, the bytes
//! their tasks read and the tasks in flight, as Spark Connect's `ExecutionProgress` reports them.
//!
//! One [`QueryProgress`] belongs to one query (operation); whoever runs its plans finds it in the
//! task context's session config ([`QueryProgress::of`]) and reports to it: the driver from the
//! job graph's stages and its task events, the local runner with one stage per plan whose
//! tasks are the plan's output partitions ([`track_local`]). Stage ids number the stages of
//! all the query's jobs in order, as Spark numbers its stages. The server reads snapshots.

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use datafusion::common::Result;
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_plan::metrics::MetricsSet;
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, ExecutionPlan, PlanProperties, replace_children_if_necessary,
};
use futures::StreamExt;
use parking_lot::Mutex;
use tokio::sync::Notify;

use crate::metrics::{JobReport, MetricNode, TaskMetrics};
use crate::query_view::{StageView, TaskAttempt, TaskLog, TaskRecord, TaskStatus};

/// One stage's progress.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StageProgress {
    pub stage_id: i64,
    pub num_tasks: i64,
    pub num_completed_tasks: i64,
    pub input_bytes_read: i64,
    pub done: bool,
}

/// The progress of a query at one moment.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProgressSnapshot {
    pub stages: Vec<StageProgress>,
    pub num_inflight_tasks: i64,
}

#[derive(Default)]
struct State {
    stages: Vec<StageProgress>,
    inflight: i64,
    /// When each stage's first task started and its last one ended, by stage id.
    times: Vec<(Option<Instant>, Option<Instant>)>,
    /// Cluster modes: the jobs' stages and their tasks' metrics.
    jobs: Vec<JobReport>,
    /// Local mode: the plans that ran, whose operators hold their metrics.
    local_plans: Vec<Arc<dyn ExecutionPlan>>,
    /// The job UI's view: every job's stages and the task attempts.
    views: Vec<StageView>,
    view_jobs: usize,
    tasks: TaskLog,
    /// Rows the server returned to the client.
    rows_returned: u64,
}

/// The progress of one query, shared by whoever runs its plans and the server.
#[derive(Default)]
pub struct QueryProgress {
    state: Mutex<State>,
    /// Set by every change, cleared by [`QueryProgress::take_if_changed`].
    dirty: AtomicBool,
    changed: Notify,
    /// The Python calls its local plans make (cluster tasks have their own).
    python: Arc<crate::python::CancelScope>,
}

impl fmt::Debug for QueryProgress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("QueryProgress")
            .field("snapshot", &self.snapshot())
            .finish()
    }
}

impl QueryProgress {
    pub fn new() -> Arc<Self> {
        Arc::new(Self::default())
    }

    /// The query is cancelled: kill the Python workers its local plans wait for.
    pub fn cancel_python_calls(&self) {
        self.python.cancel();
    }

    /// The progress a task context reports to, if its query tracks progress.
    pub fn of(context: &TaskContext) -> Option<Arc<Self>> {
        context.session_config().get_extension::<Self>()
    }

    /// `context` with `progress` in its session config.
    pub fn attach(context: Arc<TaskContext>, progress: Arc<Self>) -> Arc<TaskContext> {
        let config = context.session_config().clone().with_extension(progress);
        match Arc::try_unwrap(context) {
            Ok(owned) => Arc::new(owned.with_session_config(config)),
            Err(shared) => Arc::new(TaskContext::new(
                shared.task_id(),
                shared.session_id(),
                config,
                shared.scalar_functions().clone(),
                shared.higher_order_functions().clone(),
                shared.aggregate_functions().clone(),
                shared.window_functions().clone(),
                shared.runtime_env(),
            )),
        }
    }

    fn update(&self, f: impl FnOnce(&mut State)) {
        f(&mut self.state.lock());
        self.dirty.store(true, Ordering::Release);
        self.changed.notify_waiters();
    }

    /// A job starts with stages of these task counts; returns the id of its first stage.
    pub fn add_job(&self, tasks_per_stage: &[usize]) -> i64 {
        let mut first = 0;
        self.update(|s| {
            first = s.stages.len() as i64;
            s.times.extend(tasks_per_stage.iter().map(|_| (None, None)));
            for (i, tasks) in tasks_per_stage.iter().enumerate() {
                s.stages.push(StageProgress {
                    stage_id: first + i as i64,
                    num_tasks: *tasks as i64,
                    done: *tasks == 0,
                    ..Default::default()
                });
            }
        });
        first
    }

    /// A task of `stage` started running.
    pub fn task_started(&self, stage: i64, task: TaskAttempt) {
        self.update(|s| {
            s.inflight += 1;
            s.tasks.started(stage, task);
            if let Some(t) = s.times.get_mut(stage as usize) {
                t.0.get_or_insert_with(Instant::now);
            }
        });
    }

    /// A task of `stage` succeeded after reading `input_bytes`. A task run again (its output
    /// was lost) does not count twice: a stage never shows more tasks done than it has.
    pub fn task_succeeded(&self, stage: i64, task: TaskAttempt, input_bytes: u64) {
        self.update(|s| {
            s.inflight = (s.inflight - 1).max(0);
            s.tasks.ended(stage, task, TaskStatus::Succeeded);
            if let Some(st) = s.stages.iter_mut().find(|st| st.stage_id == stage) {
                st.num_completed_tasks = (st.num_completed_tasks + 1).min(st.num_tasks);
                st.input_bytes_read += input_bytes as i64;
                if st.num_completed_tasks == st.num_tasks && !st.done {
                    st.done = true;
                    if let Some(t) = s.times.get_mut(stage as usize) {
                        t.1 = Some(Instant::now());
                    }
                }
            }
        });
    }

    /// A running task ended without success: `failed`, or stopped (superseded, its job
    /// ended).
    pub fn task_ended(&self, stage: i64, task: TaskAttempt, failed: bool) {
        self.update(|s| {
            s.inflight = (s.inflight - 1).max(0);
            let status = if failed {
                TaskStatus::Failed
            } else {
                TaskStatus::Stopped
            };
            s.tasks.ended(stage, task, status);
        });
    }

    /// A cluster job's stages (after [`QueryProgress::add_job`] gave them ids).
    pub fn add_job_report(&self, report: JobReport) {
        let mut s = self.state.lock();
        let job = s.view_jobs;
        s.view_jobs += 1;
        s.views.extend(StageView::of_job(&report, job));
        s.jobs.push(report);
    }

    /// What a local task returned (rows and bytes of its batches).
    pub fn task_output(&self, stage: i64, task: TaskAttempt, rows: u64, bytes: u64) {
        self.state.lock().tasks.output(stage, task, rows, bytes);
    }

    /// The server returned `rows` more rows to the client.
    pub fn add_rows_returned(&self, rows: u64) {
        self.state.lock().rows_returned += rows;
    }

    pub fn rows_returned(&self) -> u64 {
        self.state.lock().rows_returned
    }

    /// The stages of every job the query ran, for the job UI.
    pub fn stage_views(&self) -> Vec<StageView> {
        self.state.lock().views.clone()
    }

    /// The task attempts recorded and how many more were not.
    pub fn task_records(&self) -> (Vec<TaskRecord>, usize) {
        let s = self.state.lock();
        (s.tasks.records().to_vec(), s.tasks.dropped)
    }

    /// When each stage's first task started and its last one ended, by stage id.
    pub fn stage_times(&self) -> Vec<(Option<Instant>, Option<Instant>)> {
        self.state.lock().times.clone()
    }

    /// A plan that runs in this process, whose operators' metrics are read at the end.
    pub fn add_local_plan(&self, plan: Arc<dyn ExecutionPlan>) {
        let mut s = self.state.lock();
        let job = s.view_jobs;
        s.view_jobs += 1;
        s.views.extend(crate::query_view::local_stages(&plan, job));
        s.local_plans.push(plan);
    }

    /// A task of `stage` measured `metrics` (reported before the task's success).
    pub fn stage_metrics(&self, stage: i64, task: TaskAttempt, metrics: &TaskMetrics) {
        let mut s = self.state.lock();
        s.tasks.measured(stage, task, metrics);
        for job in s.jobs.iter_mut() {
            let index = stage - job.first_stage;
            if index >= 0
                && let Some(report) = job.stages.get_mut(index as usize)
            {
                report.metrics.merge(metrics);
                break;
            }
        }
        if let Some(st) = s.stages.iter_mut().find(|st| st.stage_id == stage) {
            st.input_bytes_read += metrics.bytes_scanned() as i64;
        }
        drop(s);
        self.dirty.store(true, Ordering::Release);
    }

    /// The operators of everything the query ran, with their metrics.
    pub fn operator_tree(&self) -> Vec<MetricNode> {
        let s = self.state.lock();
        let mut out = Vec::new();
        let mut next_id = 0;
        for plan in &s.local_plans {
            crate::metrics::local_tree(plan, &["ProgressExec"], &mut next_id, &mut out);
        }
        for job in &s.jobs {
            crate::metrics::job_tree(job, &mut next_id, &mut out);
        }
        out
    }

    /// Drop the plans that ran once the query is over: an operator keeps what it built (a
    /// hash join its build side, and that side's share of the memory pool) while its plan
    /// lives, and the operation may outlive the query until the client releases it.
    pub fn release_plans(&self) {
        let plans = std::mem::take(&mut self.state.lock().local_plans);
        drop(plans);
    }

    /// The plans that ran in this process, for EXPLAIN ANALYZE.
    pub fn local_plans(&self) -> Vec<Arc<dyn ExecutionPlan>> {
        self.state.lock().local_plans.clone()
    }

    /// The cluster jobs that ran, for EXPLAIN ANALYZE.
    pub fn job_reports(&self) -> Vec<JobReport> {
        self.state.lock().jobs.clone()
    }

    /// How long each stage ran (first task's start to last task's end), by stage id.
    pub fn stage_durations(&self) -> Vec<Option<Duration>> {
        self.state
            .lock()
            .times
            .iter()
            .map(|(start, end)| match (start, end) {
                (Some(a), Some(b)) => Some(b.saturating_duration_since(*a)),
                _ => None,
            })
            .collect()
    }

    pub fn snapshot(&self) -> ProgressSnapshot {
        let s = self.state.lock();
        ProgressSnapshot {
            stages: s.stages.clone(),
            num_inflight_tasks: s.inflight,
        }
    }

    /// The snapshot if anything changed since the last call (Spark's "dirty" tracker).
    pub fn take_if_changed(&self) -> Option<ProgressSnapshot> {
        if self.dirty.swap(false, Ordering::AcqRel) {
            Some(self.snapshot())
        } else {
            None
        }
    }

    /// Whether no task runs and every stage is done.
    pub fn is_settled(&self) -> bool {
        let s = self.state.lock();
        s.inflight == 0 && s.stages.iter().all(|st| st.done)
    }

    /// Wait until no task is in flight (tasks report after their output was read), at most
    /// `timeout`.
    pub async fn wait_idle(&self, timeout: std::time::Duration) {
        let _ = tokio::time::timeout(timeout, async {
            loop {
                let notified = self.changed.notified();
                tokio::pin!(notified);
                notified.as_mut().enable();
                if self.state.lock().inflight == 0 {
                    return;
                }
                notified.await;
            }
        })
        .await;
    }
}

/// In local mode: report each pipeline of `plan` as a stage whose tasks are the pipeline's
/// output partitions, a task done when its partition's stream ends. Pipelines end where
/// DataFusion exchanges data between partitions (repartitions, coalesces, merges), as Spark's
/// stages end at its exchanges; stages are numbered from the leaves up.
pub fn track_local(plan: Arc<dyn ExecutionPlan>, context: &TaskContext) -> Arc<dyn ExecutionPlan> {
    match QueryProgress::of(context) {
        Some(progress) => {
            let plan = wrap_pipelines(plan, &progress);
            let plan = wrap_stage(plan, &progress);
            progress.add_local_plan(plan.clone());
            plan
        }
        None => plan,
    }
}

fn is_exchange(plan: &dyn ExecutionPlan) -> bool {
    matches!(
        plan.name(),
        "RepartitionExec" | "CoalescePartitionsExec" | "SortPreservingMergeExec"
    )
}

fn wrap_stage(
    plan: Arc<dyn ExecutionPlan>,
    progress: &Arc<QueryProgress>,
) -> Arc<dyn ExecutionPlan> {
    let partitions = plan.properties().partitioning.partition_count();
    let stage = progress.add_job(&[partitions]);
    Arc::new(ProgressExec {
        input: plan,
        progress: progress.clone(),
        stage,
    })
}

fn wrap_pipelines(
    plan: Arc<dyn ExecutionPlan>,
    progress: &Arc<QueryProgress>,
) -> Arc<dyn ExecutionPlan> {
    let children = plan.children();
    if children.is_empty() {
        return plan;
    }
    let exchange = is_exchange(plan.as_ref());
    let children: Vec<Arc<dyn ExecutionPlan>> = children
        .into_iter()
        .map(|c| {
            let c = wrap_pipelines(c.clone(), progress);
            if exchange { wrap_stage(c, progress) } else { c }
        })
        .collect();
    match replace_children_if_necessary(plan.clone(), children) {
        Ok(p) => p,
        // A node that cannot take new children keeps its own (no progress below it).
        Err(_) => plan,
    }
}

/// Reports each output partition of its input as a task of one stage.
#[derive(Debug)]
pub struct ProgressExec {
    input: Arc<dyn ExecutionPlan>,
    progress: Arc<QueryProgress>,
    stage: i64,
}

impl ProgressExec {
    /// The stage id its tasks report to.
    pub fn stage(&self) -> i64 {
        self.stage
    }
}

impl DisplayAs for ProgressExec {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "ProgressExec: stage={}", self.stage)
    }
}

impl ExecutionPlan for ProgressExec {
    fn name(&self) -> &str {
        "ProgressExec"
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        self.input.properties()
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        vec![&self.input]
    }

    fn apply_expressions(
        &self,
        _f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> Result<TreeNodeRecursion>,
    ) -> Result<TreeNodeRecursion> {
        Ok(TreeNodeRecursion::Continue)
    }

    fn with_new_children(
        self: Arc<Self>,
        mut children: Vec<Arc<dyn ExecutionPlan>>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        match children.pop() {
            Some(input) if children.is_empty() => Ok(Arc::new(Self {
                input,
                progress: self.progress.clone(),
                stage: self.stage,
            })),
            _ => datafusion::common::internal_err!("ProgressExec has one child"),
        }
    }

    fn execute(
        &self,
        partition: usize,
        context: Arc<TaskContext>,
    ) -> Result<SendableRecordBatchStream> {
        let stream = self.input.execute(partition, context)?;
        let schema = stream.schema();
        // (Python functions called while this pipeline's stream is polled can be cancelled.)
        let stream = crate::python::InScope::new(stream, self.progress.python.clone());
        let task = TaskAttempt {
            partition,
            ..Default::default()
        };
        self.progress.task_started(self.stage, task);
        let guard = TaskGuard {
            progress: self.progress.clone(),
            stage: self.stage,
            task,
            plan: self.input.clone(),
            succeeded: false,
            rows: 0,
            bytes: 0,
        };
        let stream = futures::stream::unfold(
            (stream, Some(guard)),
            |(mut stream, mut guard)| async move {
                let item = stream.next().await;
                match (&item, guard.as_mut()) {
                    (Some(Ok(batch)), Some(g)) => {
                        g.rows += batch.num_rows() as u64;
                        g.bytes += batch.get_array_memory_size() as u64;
                    }
                    (None, Some(g)) => g.succeeded = true,
                    _ => {}
                }
                if item.is_none() {
                    drop(guard.take());
                }
                item.map(|i| (i, (stream, guard)))
            },
        );
        Ok(Box::pin(RecordBatchStreamAdapter::new(schema, stream)))
    }
}

/// Ends a local task in the progress when its stream ends or is dropped.
struct TaskGuard {
    progress: Arc<QueryProgress>,
    stage: i64,
    task: TaskAttempt,
    plan: Arc<dyn ExecutionPlan>,
    succeeded: bool,
    rows: u64,
    bytes: u64,
}

impl Drop for TaskGuard {
    fn drop(&mut self) {
        self.progress
            .task_output(self.stage, self.task, self.rows, self.bytes);
        if self.succeeded {
            // Bytes read so far by the whole plan, shared out as tasks finish.
            let total = bytes_scanned(&self.plan);
            let reported = self
                .progress
                .snapshot()
                .stages
                .iter()
                .find(|s| s.stage_id == self.stage)
                .map(|s| s.input_bytes_read.max(0) as u64)
                .unwrap_or(0);
            self.progress
                .task_succeeded(self.stage, self.task, total.saturating_sub(reported));
        } else {
            self.progress.task_ended(self.stage, self.task, false);
        }
    }
}

/// The `bytes_scanned` metrics of a plan's operators, added up.
pub fn bytes_scanned(plan: &Arc<dyn ExecutionPlan>) -> u64 {
    let mut total = 0u64;
    let mut stack = vec![plan.clone()];
    while let Some(node) = stack.pop() {
        if let Some(metrics) = node.metrics() {
            total += metric_sum(&metrics, "bytes_scanned");
        }
        stack.extend(node.children().into_iter().cloned());
    }
    total
}

fn metric_sum(metrics: &MetricsSet, name: &str) -> u64 {
    metrics
        .sum_by_name(name)
        .map(|v| v.as_usize() as u64)
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stages_count_tasks_once_and_finish() {
        let p = QueryProgress::new();
        let t = |partition, attempt| TaskAttempt {
            partition,
            attempt,
            worker: Some(1),
        };
        assert_eq!(p.add_job(&[2, 1]), 0);
        p.task_started(0, t(0, 0));
        p.task_started(0, t(1, 0));
        p.task_succeeded(0, t(0, 0), 10);
        p.task_succeeded(0, t(1, 0), 5);
        p.task_started(0, t(1, 1));
        p.task_succeeded(0, t(1, 1), 0); // a task run again
        let (records, dropped) = p.task_records();
        assert_eq!((records.len(), dropped), (3, 0));
        assert!(records.iter().all(|r| r.status == TaskStatus::Succeeded));
        let s = p.take_if_changed().unwrap();
        assert_eq!(s.stages[0].num_completed_tasks, 2);
        assert_eq!(s.stages[0].input_bytes_read, 15);
        assert!(s.stages[0].done);
        assert!(!s.stages[1].done);
        assert!(p.take_if_changed().is_none());
        assert_eq!(p.add_job(&[3]), 2);
        assert!(!p.is_settled());
    }
}
