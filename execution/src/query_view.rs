//! What the job UI shows of one query beside its progress: the stages of its jobs as a graph
//! (each stage's inputs with how they are read, partitions, output distribution, operators)
//! and one record per task attempt (worker, times, rows, bytes, spill). [`QueryProgress`]
//! keeps both; the records are bounded ([`MAX_TASK_RECORDS`]) so a query of many tasks keeps
//! its memory bounded.
//!
//! In the cluster modes the stages are the job graph's ([`StageView::of_job`]); in local mode
//! they are DataFusion's pipelines as [`crate::progress::track_local`] cut them
//! ([`local_stages`]).
//!
//! [`QueryProgress`]: crate::progress::QueryProgress

use std::sync::Arc;
use std::time::Instant;

use datafusion::physical_plan::{ExecutionPlan, displayable};

use crate::metrics::{JobReport, TaskMetrics};
use crate::progress::ProgressExec;

/// Task attempts recorded per query at most (later ones are counted, not recorded).
pub const MAX_TASK_RECORDS: usize = 2_000;

/// An input of a stage: the stage it reads and how (`Shuffle`, `Forward`, `Merge`, ...).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputView {
    pub stage: i64,
    pub mode: String,
}

/// One stage of a query's job, as the UI draws it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StageView {
    pub id: i64,
    /// The job of the query (0, 1, ... in the order they started).
    pub job: usize,
    pub partitions: usize,
    pub inputs: Vec<InputView>,
    /// How its tasks split their output (`Hash([k@0], 4)`), or what reads it in local mode.
    pub output: String,
    /// Whether its output is the job's.
    pub job_output: bool,
    /// `worker` or `driver` (cluster modes), `local`.
    pub placement: String,
    /// Its operators, one line each, top down.
    pub operators: Vec<String>,
}

impl StageView {
    /// The stages of a cluster job whose first stage has the id `report.first_stage`.
    pub fn of_job(report: &JobReport, job: usize) -> Vec<StageView> {
        report
            .stages
            .iter()
            .enumerate()
            .map(|(s, stage)| StageView {
                id: report.first_stage + s as i64,
                job,
                partitions: stage.partitions,
                inputs: stage
                    .inputs
                    .iter()
                    .map(|(from, mode)| InputView {
                        stage: report.first_stage + *from as i64,
                        mode: mode.clone(),
                    })
                    .collect(),
                output: stage.distribution.clone(),
                job_output: s == report.output_stage,
                placement: stage.placement.clone(),
                operators: stage.lines.iter().map(|l| l.trim().to_string()).collect(),
            })
            .collect()
    }
}

/// The stages of a local plan wrapped by `track_local`: each `ProgressExec` begins one, its
/// operators run down to the next ones, which are its inputs.
pub fn local_stages(plan: &Arc<dyn ExecutionPlan>, job: usize) -> Vec<StageView> {
    let mut out = Vec::new();
    visit(plan, None, None, job, &mut out);
    out
}

fn one_line(node: &dyn ExecutionPlan) -> String {
    displayable(node).one_line().to_string().trim().to_string()
}

/// Walk `node`; `current` is the index in `out` of the stage it belongs to, `via` the exchange
/// above it in that stage.
fn visit(
    node: &Arc<dyn ExecutionPlan>,
    current: Option<usize>,
    via: Option<&Arc<dyn ExecutionPlan>>,
    job: usize,
    out: &mut Vec<StageView>,
) {
    let mut current = current;
    let mut via = via;
    if let Some(progress) = node.downcast_ref::<ProgressExec>() {
        let index = out.len();
        out.push(StageView {
            id: progress.stage(),
            job,
            partitions: node.properties().partitioning.partition_count(),
            inputs: vec![],
            output: via.map_or_else(|| "job output".to_string(), |v| one_line(v.as_ref())),
            job_output: current.is_none(),
            placement: "local".into(),
            operators: vec![],
        });
        if let Some(parent) = current.and_then(|p| out.get_mut(p)) {
            let mode = match via.map(|v| v.name()) {
                Some("RepartitionExec") => "Shuffle",
                Some(_) => "Merge",
                None => "Forward",
            };
            parent.inputs.push(InputView {
                stage: progress.stage(),
                mode: mode.into(),
            });
        }
        current = Some(index);
        via = None;
    } else if let Some(stage) = current.and_then(|c| out.get_mut(c)) {
        stage.operators.push(one_line(node.as_ref()));
        if matches!(
            node.name(),
            "RepartitionExec" | "CoalescePartitionsExec" | "SortPreservingMergeExec"
        ) {
            via = Some(node);
        }
    }
    for child in node.children() {
        visit(child, current, via, job, out);
    }
}

/// How a task attempt ended (or that it runs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskStatus {
    Running,
    Succeeded,
    Failed,
    /// Stopped by the driver (its job ended, its worker or its input was lost).
    Stopped,
}

impl TaskStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            TaskStatus::Running => "running",
            TaskStatus::Succeeded => "succeeded",
            TaskStatus::Failed => "failed",
            TaskStatus::Stopped => "stopped",
        }
    }
}

/// Which attempt of which partition a task is, and where it runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TaskAttempt {
    pub partition: usize,
    pub attempt: usize,
    /// The worker it runs on (`None`: in this process, local mode).
    pub worker: Option<u64>,
}

/// One task attempt.
#[derive(Debug, Clone)]
pub struct TaskRecord {
    pub stage: i64,
    pub task: TaskAttempt,
    pub started: Instant,
    pub ended: Option<Instant>,
    pub status: TaskStatus,
    /// Rows and bytes it wrote (to its output channels; in local mode the rows it returned).
    pub rows: u64,
    pub bytes: u64,
    pub spilled_bytes: u64,
    pub input_bytes: u64,
}

/// The task attempts of a query, bounded.
#[derive(Debug, Default)]
pub struct TaskLog {
    records: Vec<TaskRecord>,
    /// Attempts beyond [`MAX_TASK_RECORDS`], counted only.
    pub dropped: usize,
}

impl TaskLog {
    pub fn started(&mut self, stage: i64, task: TaskAttempt) {
        if self.records.len() >= MAX_TASK_RECORDS {
            self.dropped += 1;
            return;
        }
        self.records.push(TaskRecord {
            stage,
            task,
            started: Instant::now(),
            ended: None,
            status: TaskStatus::Running,
            rows: 0,
            bytes: 0,
            spilled_bytes: 0,
            input_bytes: 0,
        });
    }

    fn find(&mut self, stage: i64, task: TaskAttempt) -> Option<&mut TaskRecord> {
        self.records.iter_mut().rev().find(|r| {
            r.stage == stage && r.task.partition == task.partition && r.task.attempt == task.attempt
        })
    }

    pub fn ended(&mut self, stage: i64, task: TaskAttempt, status: TaskStatus) {
        if let Some(r) = self.find(stage, task)
            && r.ended.is_none()
        {
            r.ended = Some(Instant::now());
            r.status = status;
        }
    }

    /// What a task measured (cluster modes).
    pub fn measured(&mut self, stage: i64, task: TaskAttempt, metrics: &TaskMetrics) {
        if let Some(r) = self.find(stage, task) {
            r.rows = metrics.output_rows;
            r.bytes = metrics.output_bytes;
            r.input_bytes = metrics.bytes_scanned();
            r.spilled_bytes = metrics
                .operators
                .iter()
                .flat_map(|o| &o.metrics)
                .filter(|m| m.name == "spillSize")
                .map(|m| m.value.max(0) as u64)
                .sum();
        }
    }

    /// What a local task returned.
    pub fn output(&mut self, stage: i64, task: TaskAttempt, rows: u64, bytes: u64) {
        if let Some(r) = self.find(stage, task) {
            r.rows = rows;
            r.bytes = bytes;
        }
    }

    pub fn records(&self) -> &[TaskRecord] {
        &self.records
    }
}
