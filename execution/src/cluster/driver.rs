//! The driver: accepts jobs, cuts them into job graphs, schedules ready regions onto worker
//! task slots, tracks task attempts, and publishes the final stage's streams as job output.
//!
//! The driver is an actor: one task owns all scheduling state and handles [`DriverEvent`]s
//! in order, so there is no shared mutable state between it, workers and output streams.

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::sync::Arc;

use datafusion::common::{DataFusionError, Result};
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_plan::ExecutionPlan;
use tokio::sync::{mpsc, oneshot, watch};

use super::output::{FinalState, OutputProgress, job_output};
use super::{DriverEvent, TaskOutcome, WorkerClient, WorkerCommand};
use crate::job_graph::{JobGraph, input_streams};
use crate::metrics::JobReport;
use crate::plan::StageInputExec;
use crate::progress::QueryProgress;
use crate::query_view::TaskAttempt;
use crate::stream::{JobId, StreamKey, StreamRef, StreamSource, WorkerId};
use crate::task::{TaskDefinition, TaskId, TaskInput};
use crate::topology::{JobTopology, TaskPosition};

mod recovery;
mod slots;
use recovery::attempts;

#[derive(Debug, Clone)]
pub struct DriverConfig {
    /// Attempts of a task before the job fails (Spark's `spark.task.maxFailures`).
    pub max_attempts: usize,
    /// With no worker alive for this long, waiting jobs fail (`None`: wait forever).
    pub worker_wait_timeout: Option<std::time::Duration>,
    /// A task attempt running longer than this is stopped and its job fails
    /// (`spark.ember.taskTimeout`; `None`: tasks run as long as they take).
    pub task_timeout: Option<std::time::Duration>,
}

impl Default for DriverConfig {
    fn default() -> Self {
        Self {
            max_attempts: 4,
            worker_wait_timeout: None,
            task_timeout: None,
        }
    }
}

/// How to reach a running driver.
#[derive(Clone)]
pub struct DriverHandle {
    tx: mpsc::UnboundedSender<DriverEvent>,
    /// Workers registered and not lost (for metrics).
    workers_alive: Arc<std::sync::atomic::AtomicUsize>,
    /// The workers as the job UI sees them.
    board: Arc<super::WorkerBoard>,
}

impl DriverHandle {
    /// The workers, alive and lost, as the job UI and the metrics see them.
    pub fn board(&self) -> &Arc<super::WorkerBoard> {
        &self.board
    }

    /// Workers registered and not lost.
    pub fn workers_alive(&self) -> usize {
        self.workers_alive
            .load(std::sync::atomic::Ordering::Relaxed)
    }

    pub fn send(&self, event: DriverEvent) {
        // A stopped driver has nothing left to tell.
        let _ = self.tx.send(event);
    }

    /// Run a physical plan as a job; the stream yields the job's output.
    pub async fn execute(
        &self,
        plan: Arc<dyn ExecutionPlan>,
        context: Arc<TaskContext>,
    ) -> Result<SendableRecordBatchStream> {
        let (result, receive) = oneshot::channel();
        self.tx
            .send(DriverEvent::ExecuteJob {
                plan,
                context,
                result,
            })
            .map_err(|_| DataFusionError::Execution("the driver has stopped".into()))?;
        receive
            .await
            .map_err(|_| DataFusionError::Execution("the driver has stopped".into()))?
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Status {
    Waiting,
    Queued,
    Running { worker: WorkerId },
    Succeeded { worker: WorkerId },
}

#[derive(Debug, Clone)]
struct TaskState {
    attempt: usize,
    failures: usize,
    status: Status,
    /// The attempt whose job output was released (`slots::release_job_outputs`).
    released: Option<usize>,
}

struct JobState {
    graph: JobGraph,
    topology: JobTopology,
    context: Arc<TaskContext>,
    tasks: HashMap<TaskPosition, TaskState>,
    started: Vec<bool>,
    /// Partition counts of each stage's input placeholders, by input index.
    placeholder_partitions: Vec<Vec<usize>>,
    output: Vec<watch::Sender<FinalState>>,
    /// Final partitions the job output has read to their end.
    output_read: Arc<OutputProgress>,
    /// Stages whose streams were freed (every consumer had succeeded); such a stage runs
    /// again if a consumer must.
    freed: Vec<bool>,
    /// The query's progress and the id it gives this job's first stage.
    progress: Option<(Arc<QueryProgress>, i64)>,
}

/// Tell a job's query progress that the task at `position`, attempt `attempt` on `worker`,
/// ended (`failed`, or stopped to run again).
fn report_ended(
    progress: &Option<(Arc<QueryProgress>, i64)>,
    position: TaskPosition,
    attempt: usize,
    worker: u64,
    failed: bool,
) {
    if let Some((progress, first)) = progress {
        let attempt = TaskAttempt {
            partition: position.partition,
            attempt,
            worker: Some(worker),
        };
        progress.task_ended(first + position.stage as i64, attempt, failed);
    }
}

impl JobState {
    /// Tell the query's progress about a task of `stage`.
    fn report(&self, stage: usize, f: impl FnOnce(&QueryProgress, i64)) {
        if let Some((progress, first)) = &self.progress {
            f(progress, first + stage as i64);
        }
    }
}

struct WorkerState {
    slots: usize,
    running: HashSet<TaskId>,
    client: Arc<dyn WorkerClient>,
}

pub struct Driver {
    inbox: mpsc::UnboundedReceiver<DriverEvent>,
    handle: DriverHandle,
    config: DriverConfig,
    source: Arc<dyn StreamSource>,
    workers: BTreeMap<WorkerId, WorkerState>,
    jobs: HashMap<JobId, JobState>,
    queue: VecDeque<(JobId, TaskPosition)>,
    /// Since when no worker has been alive.
    no_workers_since: Option<std::time::Instant>,
}

impl Driver {
    /// A driver whose output streams are read through `source`.
    pub fn new(config: DriverConfig, source: Arc<dyn StreamSource>) -> (Self, DriverHandle) {
        let (tx, inbox) = mpsc::unbounded_channel();
        let handle = DriverHandle {
            tx,
            workers_alive: Arc::default(),
            board: Arc::default(),
        };
        let driver = Self {
            inbox,
            handle: handle.clone(),
            config,
            source,
            workers: BTreeMap::new(),
            jobs: HashMap::new(),
            queue: VecDeque::new(),
            no_workers_since: Some(std::time::Instant::now()),
        };
        (driver, handle)
    }

    pub async fn run(mut self) {
        while let Some(event) = self.inbox.recv().await {
            let tick = matches!(event, DriverEvent::Tick);
            self.handle_event(event);
            if !tick {
                self.publish_workers();
            }
        }
    }

    fn handle_event(&mut self, event: DriverEvent) {
        match event {
            DriverEvent::ExecuteJob {
                plan,
                context,
                result,
            } => {
                let outcome = self.accept_job(plan, context);
                let _ = result.send(outcome);
                self.schedule();
            }
            DriverEvent::TaskFinished {
                worker,
                task,
                outcome,
            } => {
                tracing::debug!(%task, worker, ?outcome, "task finished");
                self.task_finished(worker, task, outcome);
                self.schedule();
            }
            DriverEvent::TaskMetrics { task, metrics } => {
                if let Some(job) = self.jobs.get(&task.job) {
                    let attempt = TaskAttempt {
                        partition: task.partition,
                        attempt: task.attempt,
                        worker: None,
                    };
                    job.report(task.stage, |p, stage| {
                        p.stage_metrics(stage, attempt, &metrics)
                    });
                }
            }
            DriverEvent::ReleaseJob { job } => self.release_job(job),
            DriverEvent::RegisterWorker {
                worker,
                slots,
                client,
            } => {
                tracing::info!(worker, slots, "worker registered");
                self.no_workers_since = None;
                self.workers.insert(
                    worker,
                    WorkerState {
                        slots: slots.max(1),
                        running: HashSet::new(),
                        client,
                    },
                );
                self.count_workers();
                self.schedule();
            }
            DriverEvent::WorkerLost { worker } => {
                self.handle.board.lost(worker);
                self.worker_lost(worker);
                self.count_workers();
                if self.workers.is_empty() {
                    self.no_workers_since
                        .get_or_insert_with(std::time::Instant::now);
                }
                self.schedule();
            }
            DriverEvent::Tick => self.check_workers(),
            DriverEvent::TaskTimedOut { task } => {
                self.task_timed_out(task);
                self.schedule();
            }
        }
    }

    fn count_workers(&self) {
        self.handle
            .workers_alive
            .store(self.workers.len(), std::sync::atomic::Ordering::Relaxed);
    }

    /// Publish the live workers' slots and running tasks on the board.
    fn publish_workers(&self) {
        for (id, w) in &self.workers {
            self.handle.board.alive(*id, w.slots, w.running.len());
        }
    }

    fn accept_job(
        &mut self,
        plan: Arc<dyn ExecutionPlan>,
        context: Arc<TaskContext>,
    ) -> Result<SendableRecordBatchStream> {
        let graph = JobGraph::for_session(plan, context.session_config().options())?;
        let job = new_job_id();
        let topology = JobTopology::new(&graph);
        let mut tasks = HashMap::new();
        let mut placeholder_partitions = Vec::new();
        for (s, stage) in graph.stages().iter().enumerate() {
            for p in 0..stage.partitions() {
                tasks.insert(
                    TaskPosition {
                        stage: s,
                        partition: p,
                    },
                    TaskState {
                        attempt: 0,
                        failures: 0,
                        status: Status::Waiting,
                        released: None,
                    },
                );
            }
            placeholder_partitions.push(placeholder_counts(&stage.plan, stage.inputs.len()));
        }
        let final_stage = graph.output_stage();
        let final_partitions = graph
            .stages()
            .get(final_stage)
            .map(|s| s.partitions())
            .unwrap_or(0);
        let (senders, receivers): (Vec<_>, Vec<_>) = (0..final_partitions)
            .map(|_| watch::channel(FinalState::Pending))
            .unzip();
        let output_read = Arc::new(OutputProgress::default());
        let stream = job_output(
            job,
            graph.schema().clone(),
            receivers,
            self.source.clone(),
            self.handle.clone(),
            output_read.clone(),
        );
        tracing::debug!(job, stages = graph.stages().len(), "job accepted");
        let progress = QueryProgress::of(&context).map(|p| {
            let tasks: Vec<usize> = graph.stages().iter().map(|s| s.partitions()).collect();
            let first = p.add_job(&tasks);
            p.add_job_report(JobReport::of(&graph, first));
            (p, first)
        });
        self.jobs.insert(
            job,
            JobState {
                started: vec![false; topology.regions.len()],
                freed: vec![false; graph.stages().len()],
                graph,
                topology,
                context,
                tasks,
                placeholder_partitions,
                output: senders,
                output_read,
                progress,
            },
        );
        Ok(stream)
    }

    /// Start regions whose dependencies are done, then give queued tasks to free slots.
    fn schedule(&mut self) {
        for (job_id, job) in self.jobs.iter_mut() {
            for (r, region) in job.topology.regions.iter().enumerate() {
                if job.started[r] {
                    continue;
                }
                let ready = region.depends_on.iter().all(|t| {
                    matches!(
                        job.tasks.get(t).map(|s| s.status),
                        Some(Status::Succeeded { .. })
                    )
                });
                if !ready {
                    continue;
                }
                job.started[r] = true;
                let mut tasks = region.tasks.clone();
                tasks.sort();
                for t in tasks {
                    if let Some(state) = job.tasks.get_mut(&t)
                        && state.status == Status::Waiting
                    {
                        state.status = Status::Queued;
                        self.queue.push_back((*job_id, t));
                    }
                }
            }
        }
        while !self.queue.is_empty() {
            let Some(worker) = self
                .workers
                .iter()
                .filter(|(_, w)| w.running.len() < w.slots)
                .max_by_key(|(id, w)| (w.slots - w.running.len(), std::cmp::Reverse(**id)))
                .map(|(id, _)| *id)
            else {
                break;
            };
            // The first queued task whose pipelined inputs have started (a producer run again
            // after a failure may be queued behind its consumers).
            let jobs = &self.jobs;
            let Some(next) = self
                .queue
                .iter()
                .position(|(j, p)| inputs_started(jobs, *j, *p))
            else {
                break;
            };
            let Some((job_id, position)) = self.queue.remove(next) else {
                break;
            };
            if let Err(e) = self.launch(job_id, position, worker) {
                self.fail_job(job_id, Arc::new(e));
            }
        }
        if self.preempt_for_job_output() {
            self.schedule();
        }
        self.release_job_outputs();
    }

    /// Final tasks wait for the client to read their output, which it does in partition
    /// order: a final task queued while higher partitions of its job hold every slot would
    /// never run (after a lost worker). Stop the highest of those, to run again later (nothing
    /// of it was read), and put the lower one first in the queue. True if a task was stopped.
    fn preempt_for_job_output(&mut self) -> bool {
        if self.workers.values().any(|w| w.running.len() < w.slots) {
            return false;
        }
        let jobs = &self.jobs;
        let waiting = self.queue.iter().copied().find(|(j, p)| {
            jobs.get(j)
                .is_some_and(|job| p.stage == job.graph.output_stage())
        });
        let Some((job_id, position)) = waiting else {
            return false;
        };
        let Some(job) = self.jobs.get_mut(&job_id) else {
            return false;
        };
        let victim = job
            .tasks
            .iter()
            .filter(|(p, s)| {
                p.stage == position.stage
                    && p.partition > position.partition
                    && matches!(s.status, Status::Running { .. })
            })
            .map(|(p, _)| *p)
            .max();
        let Some(victim) = victim else {
            return false;
        };
        let Some(state) = job.tasks.get_mut(&victim) else {
            return false;
        };
        let Status::Running { worker } = state.status else {
            return false;
        };
        let task = task_id(job_id, victim, state.attempt);
        tracing::debug!(%task, "stopped to free a slot for a lower job output partition");
        state.attempt += 1;
        state.status = Status::Queued;
        if let Some(tx) = job.output.get(victim.partition) {
            let _ = tx.send(FinalState::Pending);
        }
        report_ended(&job.progress, victim, task.attempt, worker, false);
        if let Some(w) = self.workers.get_mut(&worker) {
            w.running.remove(&task);
            let _ = w.client.send(WorkerCommand::StopTask { task });
        }
        self.queue
            .retain(|(j, p)| !(*j == job_id && *p == position));
        self.queue.push_front((job_id, position));
        self.queue.push_back((job_id, victim));
        true
    }

    fn launch(&mut self, job_id: JobId, position: TaskPosition, worker: WorkerId) -> Result<()> {
        let Some(job) = self.jobs.get_mut(&job_id) else {
            return Ok(());
        };
        let Some(state) = job.tasks.get(&position).cloned() else {
            return Ok(());
        };
        if state.status != Status::Queued {
            return Ok(());
        }
        let stage = &job.graph.stages()[position.stage];
        let mut inputs = Vec::with_capacity(stage.inputs.len());
        for (i, input) in stage.inputs.iter().enumerate() {
            let upstream = &job.graph.stages()[input.stage];
            let consumer_partitions = job.placeholder_partitions[position.stage]
                .get(i)
                .copied()
                .unwrap_or(1);
            let mut partitions = Vec::with_capacity(consumer_partitions);
            for k in 0..consumer_partitions {
                let refs = input_streams(
                    input.mode,
                    k,
                    consumer_partitions,
                    upstream.partitions(),
                    upstream.distribution.channels(),
                )
                .into_iter()
                .map(|(p, channel)| {
                    let up = job.tasks.get(&TaskPosition {
                        stage: input.stage,
                        partition: p,
                    });
                    match up.map(|u| (u.status, u.attempt)) {
                        Some((
                            Status::Succeeded { worker } | Status::Running { worker },
                            attempt,
                        )) => Ok(StreamRef {
                            worker,
                            key: StreamKey {
                                job: job_id,
                                stage: input.stage,
                                partition: p,
                                attempt,
                                channel,
                            },
                        }),
                        _ => Err(DataFusionError::Internal(format!(
                            "stage {} partition {p} has no output for stage {}",
                            input.stage, position.stage
                        ))),
                    }
                })
                .collect::<Result<Vec<_>>>()?;
                partitions.push(refs);
            }
            inputs.push(TaskInput { partitions });
        }
        let id = task_id(job_id, position, state.attempt);
        let definition = TaskDefinition {
            id,
            plan: stage.plan.clone(),
            inputs,
            output: stage.distribution.clone(),
            job_output: position.stage == job.graph.output_stage(),
        };
        let context = job.context.clone();
        let final_stage = job.graph.output_stage();
        if let Some(s) = job.tasks.get_mut(&position) {
            s.status = Status::Running { worker };
        }
        let attempt = TaskAttempt {
            partition: position.partition,
            attempt: state.attempt,
            worker: Some(worker),
        };
        job.report(position.stage, |p, stage| p.task_started(stage, attempt));
        if position.stage == final_stage
            && let Some(tx) = job.output.get(position.partition)
        {
            let _ = tx.send(FinalState::Running(StreamRef {
                worker,
                key: id.stream(0),
            }));
        }
        let Some(w) = self.workers.get_mut(&worker) else {
            return Err(DataFusionError::Internal(format!(
                "worker {worker} is gone"
            )));
        };
        w.running.insert(id);
        tracing::debug!(task = %id, worker, "task launched");
        if let Err(e) = w.client.send(WorkerCommand::RunTask {
            task: definition,
            context,
        }) {
            w.running.remove(&id);
            return Err(DataFusionError::Execution(format!(
                "cannot reach worker {worker}: {e}"
            )));
        }
        // The task's timeout hook: the driver hears when this attempt's time is up.
        if let Some(limit) = self.config.task_timeout {
            let handle = self.handle.clone();
            tokio::spawn(async move {
                tokio::time::sleep(limit).await;
                handle.send(DriverEvent::TaskTimedOut { task: id });
            });
        }
        Ok(())
    }

    /// `task`'s time is up: if that attempt still runs, stop it and fail its job.
    fn task_timed_out(&mut self, task: TaskId) {
        let Some(limit) = self.config.task_timeout else {
            return;
        };
        let Some(job) = self.jobs.get(&task.job) else {
            return;
        };
        let position = TaskPosition {
            stage: task.stage,
            partition: task.partition,
        };
        let running = job.tasks.get(&position).is_some_and(|s| {
            s.attempt == task.attempt && matches!(s.status, Status::Running { .. })
        });
        if running {
            tracing::warn!(%task, ?limit, "task ran past spark.ember.taskTimeout; stopping its job");
            let error = DataFusionError::Execution(format!(
                "[TASK_TIMEOUT] Stage {} partition {} ran longer than {limit:?}, the most one task \
                 may run (the static setting spark.ember.taskTimeout), and was stopped.",
                task.stage, task.partition
            ));
            self.fail_job(task.job, Arc::new(error));
        }
    }

    fn task_finished(&mut self, worker: WorkerId, task: TaskId, outcome: TaskOutcome) {
        if let Some(w) = self.workers.get_mut(&worker) {
            w.running.remove(&task);
            self.handle.board.task_done(worker);
        }
        let max_attempts = self.config.max_attempts;
        let Some(job) = self.jobs.get_mut(&task.job) else {
            return;
        };
        let position = TaskPosition {
            stage: task.stage,
            partition: task.partition,
        };
        let Some(state) = job.tasks.get_mut(&position) else {
            return;
        };
        if state.attempt != task.attempt || state.status != (Status::Running { worker }) {
            return; // a superseded attempt
        }
        if let Some((progress, first)) = &job.progress {
            let stage = first + task.stage as i64;
            let attempt = TaskAttempt {
                partition: task.partition,
                attempt: task.attempt,
                worker: Some(worker),
            };
            match &outcome {
                TaskOutcome::Succeeded => progress.task_succeeded(stage, attempt, 0),
                TaskOutcome::Failed { .. } => progress.task_ended(stage, attempt, true),
            }
        }
        match outcome {
            TaskOutcome::Succeeded => {
                state.status = Status::Succeeded { worker };
                if task.stage == job.graph.output_stage()
                    && let Some(tx) = job.output.get(task.partition)
                {
                    let _ = tx.send(FinalState::Succeeded(StreamRef {
                        worker,
                        key: task.stream(0),
                    }));
                }
                self.stop_unneeded_inputs(task.job, task.stage);
                self.free_read_inputs(task.job, task.stage);
            }
            TaskOutcome::Failed { error, retryable } => {
                state.failures += 1;
                if retryable && state.failures < max_attempts {
                    tracing::warn!(%task, error = %error, "task failed; running it again");
                    state.attempt += 1;
                    state.status = Status::Queued;
                    self.queue.push_back((task.job, position));
                } else if retryable {
                    let error = Arc::new(DataFusionError::Execution(format!(
                        "stage {} failed after {}: {error}",
                        task.stage,
                        attempts(state.failures)
                    )));
                    self.fail_job(task.job, error);
                } else {
                    self.fail_job(task.job, error);
                }
            }
        }
    }

    /// Fail every output partition of a job and stop its tasks.
    fn fail_job(&mut self, job_id: JobId, error: Arc<DataFusionError>) {
        let Some(job) = self.jobs.get_mut(&job_id) else {
            return;
        };
        for tx in &job.output {
            let _ = tx.send(FinalState::Failed(error.clone()));
        }
        self.stop_tasks(job_id);
    }

    fn stop_tasks(&mut self, job_id: JobId) {
        self.queue.retain(|(j, _)| *j != job_id);
        let Some(job) = self.jobs.get_mut(&job_id) else {
            return;
        };
        for (position, state) in job.tasks.iter_mut() {
            if let Status::Running { worker } = state.status {
                let task = task_id(job_id, *position, state.attempt);
                if let Some(w) = self.workers.get_mut(&worker) {
                    w.running.remove(&task);
                    let _ = w.client.send(WorkerCommand::StopTask { task });
                }
                report_ended(&job.progress, *position, state.attempt, worker, false);
                state.status = Status::Waiting;
            }
        }
        // Nothing more of this job may start.
        for s in job.started.iter_mut() {
            *s = true;
        }
    }

    fn release_job(&mut self, job_id: JobId) {
        self.stop_tasks(job_id);
        self.jobs.remove(&job_id);
        for w in self.workers.values() {
            let _ = w.client.send(WorkerCommand::CleanupJob {
                job: job_id,
                stage: None,
            });
        }
        tracing::debug!(job = job_id, "job released");
    }
}

/// The id of attempt `attempt` of the task at `position` of job `job`.
fn task_id(job: JobId, position: TaskPosition, attempt: usize) -> TaskId {
    TaskId {
        job,
        stage: position.stage,
        partition: position.partition,
        attempt,
    }
}

/// Whether the tasks that the task at `position` reads through pipelined inputs have been
/// launched (they run or have finished); a queued one must get its slot first.
fn inputs_started(jobs: &HashMap<JobId, JobState>, job: JobId, position: TaskPosition) -> bool {
    let Some(job) = jobs.get(&job) else {
        return true;
    };
    job.graph.stages()[position.stage]
        .inputs
        .iter()
        .filter(|input| job.graph.pipelined(input))
        .all(|input| {
            (0..job.graph.stages()[input.stage].partitions()).all(|partition| {
                let upstream = TaskPosition {
                    stage: input.stage,
                    partition,
                };
                job.tasks
                    .get(&upstream)
                    .is_none_or(|s| s.status != Status::Queued)
            })
        })
}

/// Partition counts of a stage plan's placeholders, by input index.
fn placeholder_counts(plan: &Arc<dyn ExecutionPlan>, inputs: usize) -> Vec<usize> {
    let mut counts = vec![1; inputs];
    let mut stack = vec![plan.clone()];
    while let Some(node) = stack.pop() {
        if let Some(p) = node.downcast_ref::<StageInputExec>()
            && let Some(c) = counts.get_mut(p.index())
        {
            *c = p.properties().output_partitioning().partition_count();
        }
        stack.extend(node.children().into_iter().cloned());
    }
    counts
}

/// A fresh job id: random (a v4 UUID's 122 random bits), so that nobody can name another
/// job's streams or tasks by counting.
fn new_job_id() -> JobId {
    uuid::Uuid::new_v4().as_u128()
}
