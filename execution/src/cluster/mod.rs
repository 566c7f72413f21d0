//! The driver and its workers. They talk only through messages ([`DriverEvent`] to the
//! driver, [`WorkerCommand`] to a worker), so the same driver schedules in-process workers
//! (local-cluster mode) and, over gRPC, worker processes (cluster mode).

mod board;
mod driver;
mod local;
mod output;
mod worker;

use std::sync::Arc;

use datafusion::common::DataFusionError;
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_plan::ExecutionPlan;
use tokio::sync::oneshot;

pub use board::{WorkerBoard, WorkerInfo};
pub use driver::{Driver, DriverConfig, DriverHandle};
pub use local::LocalClusterJobRunner;
pub use worker::{InProcessStreams, Worker};

use crate::stream::{JobId, WorkerId};
use crate::task::{TaskDefinition, TaskId};

/// How a task ended.
#[derive(Debug, Clone)]
pub enum TaskOutcome {
    Succeeded,
    /// `retryable` failures (a lost worker, a lost input stream) run again; others fail the job.
    Failed {
        error: Arc<DataFusionError>,
        retryable: bool,
    },
}

/// Messages to the driver.
pub enum DriverEvent {
    ExecuteJob {
        plan: Arc<dyn ExecutionPlan>,
        context: Arc<TaskContext>,
        result: oneshot::Sender<datafusion::common::Result<SendableRecordBatchStream>>,
    },
    TaskFinished {
        worker: WorkerId,
        task: TaskId,
        outcome: TaskOutcome,
    },
    /// What a task measured; sent before its `TaskFinished`.
    TaskMetrics {
        task: TaskId,
        metrics: crate::metrics::TaskMetrics,
    },
    /// The job's output stream was dropped (finished, or the query was cancelled).
    ReleaseJob {
        job: JobId,
    },
    RegisterWorker {
        worker: WorkerId,
        slots: usize,
        client: Arc<dyn WorkerClient>,
    },
    WorkerLost {
        worker: WorkerId,
    },
    /// Periodic: lets the driver notice jobs that wait for workers that never come.
    Tick,
    /// A task attempt's `spark.ember.taskTimeout` is up (it may have finished already).
    TaskTimedOut {
        task: crate::task::TaskId,
    },
}

/// Messages to a worker.
pub enum WorkerCommand {
    RunTask {
        task: TaskDefinition,
        context: Arc<TaskContext>,
    },
    StopTask {
        task: TaskId,
    },
    /// A final task's job output stops waiting for its reader (other queries wait for the
    /// task's slot): what exceeds its window is spilled.
    ReleaseOutput {
        task: TaskId,
    },
    /// Free the job's streams: those of one stage (every consumer has read them), or all.
    CleanupJob {
        job: JobId,
        stage: Option<usize>,
    },
}

/// Settings plans run by tasks need: each partition reads only its own files (no work
/// stealing between sibling partitions, which run in different tasks).
pub fn configure_for_job_graph(config: &mut datafusion::prelude::SessionConfig) {
    config
        .options_mut()
        .execution
        .enable_file_stream_work_stealing = false;
}

/// A runner whose jobs the driver schedules on workers: in-process ones (local-cluster mode)
/// or `ember worker` processes (cluster mode).
pub trait DriverRunner: Send + Sync {
    /// The runner's name for logs.
    const NAME: &'static str;
    fn driver(&self) -> &DriverHandle;
}

#[async_trait::async_trait]
impl<T: DriverRunner> crate::runner::JobRunner for T {
    async fn execute(
        &self,
        plan: Arc<dyn ExecutionPlan>,
        context: Arc<TaskContext>,
    ) -> crate::error::ExecutionResult<SendableRecordBatchStream> {
        Ok(self.driver().execute(plan, context).await?)
    }

    fn explain(
        &self,
        plan: &Arc<dyn ExecutionPlan>,
        options: &datafusion::common::config::ConfigOptions,
    ) -> crate::error::ExecutionResult<Option<String>> {
        Ok(Some(
            crate::job_graph::JobGraph::for_session(plan.clone(), options)?.to_string(),
        ))
    }

    fn name(&self) -> &str {
        T::NAME
    }

    fn workers_alive(&self) -> Option<usize> {
        Some(self.driver().workers_alive())
    }

    fn workers(&self) -> Option<Vec<WorkerInfo>> {
        Some(self.driver().board().snapshot())
    }

    fn configure(&self, config: &mut datafusion::prelude::SessionConfig) {
        configure_for_job_graph(config);
    }
}

/// How the driver reaches a worker.
pub trait WorkerClient: Send + Sync {
    fn send(&self, command: WorkerCommand) -> Result<(), String>;
}
