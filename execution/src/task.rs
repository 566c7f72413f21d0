//! Tasks: one partition of one stage. A task resolves the stage's input placeholders into
//! readers of the streams the driver assigned, runs its partition, and splits the output into
//! the stage's channels in the worker's stream manager.

use std::fmt;
use std::sync::Arc;

use datafusion::common::tree_node::{Transformed, TreeNode};
use datafusion::common::{DataFusionError, Result, internal_err};
use datafusion::execution::TaskContext;
use datafusion::physical_plan::execution_plan::reset_plan_states;
use datafusion::physical_plan::metrics::{ExecutionPlanMetricsSet, MetricBuilder};
use datafusion::physical_plan::repartition::BatchPartitioner;
use datafusion::physical_plan::{ExecutionPlan, ExecutionPlanProperties, Partitioning};
use futures::StreamExt;

use crate::job_graph::OutputDistribution;
use crate::metrics::TaskMetrics;
use crate::plan::{StageInputExec, StageReadExec};
use crate::stream::{JobId, StreamKey, StreamManager, StreamRef, StreamSource};

/// A task a worker runs now: how to stop it. Aborting its future is not enough while the task
/// waits inside a Python function (the call blocks the thread that polls it): the workers
/// serving its calls are killed first ([`crate::python::CancelScope`]).
pub struct RunningTask {
    pub abort: tokio::task::AbortHandle,
    pub python: Arc<crate::python::CancelScope>,
}

impl RunningTask {
    /// Spawn `task` on `runtime` with its own Python cancel scope.
    pub fn spawn<F>(runtime: &tokio::runtime::Handle, task: F) -> Self
    where
        F: std::future::Future<Output = ()> + Send + 'static,
    {
        let python = crate::python::CancelScope::new();
        let scoped = crate::python::InScope::new(Box::pin(task), python.clone());
        let abort = runtime.spawn(scoped).abort_handle();
        Self { abort, python }
    }

    pub fn stop(&self) {
        self.python.cancel();
        self.abort.abort();
    }
}

/// Identifies one attempt of one task.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TaskId {
    pub job: JobId,
    pub stage: usize,
    pub partition: usize,
    pub attempt: usize,
}

impl fmt::Display for TaskId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "job {} stage {} partition {} attempt {}",
            self.job, self.stage, self.partition, self.attempt
        )
    }
}

impl TaskId {
    pub fn stream(&self, channel: usize) -> StreamKey {
        StreamKey {
            job: self.job,
            stage: self.stage,
            partition: self.partition,
            attempt: self.attempt,
            channel,
        }
    }
}

/// Where each partition of one stage input reads from.
#[derive(Debug, Clone)]
pub struct TaskInput {
    pub partitions: Vec<Vec<StreamRef>>,
}

/// Everything a worker needs to run a task.
#[derive(Debug, Clone)]
pub struct TaskDefinition {
    pub id: TaskId,
    /// The stage plan, with `StageInputExec` placeholders.
    pub plan: Arc<dyn ExecutionPlan>,
    /// One entry per placeholder index.
    pub inputs: Vec<TaskInput>,
    pub output: OutputDistribution,
    /// The task writes the job's output (final stage): its stream is read once, and the task
    /// waits for its reader (the client) rather than run ahead of it.
    pub job_output: bool,
}

/// Replace the placeholders of a stage plan with readers of the assigned streams.
pub fn resolve_inputs(
    plan: Arc<dyn ExecutionPlan>,
    inputs: &[TaskInput],
    source: Arc<dyn StreamSource>,
) -> Result<Arc<dyn ExecutionPlan>> {
    // Operators keep execution state (shared build sides, subquery results): each task gets
    // its own instances.
    let plan = reset_plan_states(plan)?;
    plan.transform_up(|node| {
        if let Some(input) = node.downcast_ref::<StageInputExec>() {
            let Some(assigned) = inputs.get(input.index()) else {
                return internal_err!("no streams assigned to stage input {}", input.index());
            };
            let reader: Arc<dyn ExecutionPlan> = Arc::new(StageReadExec::new(
                input.index(),
                assigned.partitions.clone(),
                source.clone(),
                input.properties().clone(),
            ));
            return Ok(Transformed::yes(reader));
        }
        Ok(Transformed::no(node))
    })
    .map(|t| t.data)
}

/// Run a task to completion, writing its output channels into `streams`; returns what its
/// operators measured.
pub async fn run_task(
    task: TaskDefinition,
    context: Arc<TaskContext>,
    streams: Arc<StreamManager>,
    source: Arc<dyn StreamSource>,
) -> Result<TaskMetrics> {
    let plan = resolve_inputs(task.plan.clone(), &task.inputs, source)?;
    let partitions = plan.output_partitioning().partition_count();
    let channels = task.output.channels();
    let schema = plan.schema();
    let codec = context
        .session_config()
        .options()
        .execution
        .spill_compression;
    let writers: Vec<_> = (0..channels)
        .map(|c| {
            if task.job_output {
                streams.create_job_output(task.id.stream(c), schema.clone())
            } else {
                streams.create(task.id.stream(c), schema.clone(), codec)
            }
        })
        .collect();
    let mut written = (0u64, 0u64);
    let mut count = |batch: &arrow::array::RecordBatch| {
        written.0 += batch.num_rows() as u64;
        written.1 += batch.get_array_memory_size() as u64;
    };
    let outcome = async {
        let mut stream = plan.execute(task.id.partition, context)?;
        if channels == 1 {
            while let Some(batch) = stream.next().await {
                let batch = batch?;
                count(&batch);
                writers[0].push(batch).await;
            }
            return Ok(());
        }
        let partitioning = match &task.output {
            OutputDistribution::Hash { keys, channels } => {
                Partitioning::Hash(keys.clone(), *channels)
            }
            OutputDistribution::RoundRobin { channels } => Partitioning::RoundRobinBatch(*channels),
        };
        let metrics = ExecutionPlanMetricsSet::new();
        let timer = MetricBuilder::new(&metrics).subset_time("repartition_time", task.id.partition);
        let mut partitioner =
            BatchPartitioner::try_new(partitioning, timer, task.id.partition, partitions)?;
        // Round-robin spreads rows (as Spark does), not whole batches: each batch is cut into
        // one slice per channel first.
        let round_robin = matches!(task.output, OutputDistribution::RoundRobin { .. });
        while let Some(batch) = stream.next().await {
            let batch = batch?;
            let pieces = if round_robin {
                crate::plan::slice_rows(&batch, channels)
            } else {
                vec![batch]
            };
            for piece in pieces {
                for part in partitioner.partition_iter(piece)? {
                    let (channel, batch) = part?;
                    if batch.num_rows() > 0 {
                        count(&batch);
                        writers[channel].push(batch).await;
                    }
                }
            }
        }
        Ok::<(), DataFusionError>(())
    }
    .await;
    match outcome {
        Ok(()) => {
            writers.iter().for_each(|w| w.finish());
            Ok(TaskMetrics {
                operators: crate::metrics::collect(&plan, &[]),
                output_rows: written.0,
                output_bytes: written.1,
            })
        }
        Err(e) => {
            let shared = Arc::new(e);
            writers.iter().for_each(|w| w.fail(shared.clone()));
            Err(DataFusionError::Shared(shared))
        }
    }
}
