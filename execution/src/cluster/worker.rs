//! In-process workers: each runs tasks on the query runtime and keeps its tasks' output
//! streams; [`InProcessStreams`] lets any task or job output read any worker's streams.

use std::collections::HashMap;
use std::sync::Arc;

use arrow::datatypes::SchemaRef;
use datafusion::common::{DataFusionError, Result};
use datafusion::execution::SendableRecordBatchStream;
use parking_lot::{Mutex, RwLock};

use super::driver::DriverHandle;
use super::{DriverEvent, TaskOutcome, WorkerClient, WorkerCommand};
use crate::stream::{StreamManager, StreamRef, StreamSource, WorkerId};
use crate::task::{RunningTask, TaskId, run_task};

/// The stream managers of the in-process workers, by worker id.
#[derive(Debug, Default)]
pub struct InProcessStreams {
    workers: RwLock<HashMap<WorkerId, Arc<StreamManager>>>,
}

impl InProcessStreams {
    pub fn register(&self, worker: WorkerId, streams: Arc<StreamManager>) {
        self.workers.write().insert(worker, streams);
    }

    pub fn remove(&self, worker: WorkerId) {
        self.workers.write().remove(&worker);
    }
}

impl StreamSource for InProcessStreams {
    fn open(&self, stream: &StreamRef, schema: SchemaRef) -> Result<SendableRecordBatchStream> {
        let manager = self
            .workers
            .read()
            .get(&stream.worker)
            .cloned()
            .ok_or_else(|| {
                DataFusionError::Execution(format!("worker {} is gone", stream.worker))
            })?;
        Ok(manager.open(stream.key, schema))
    }
}

/// A worker living in this process.
pub struct Worker {
    id: WorkerId,
    streams: Arc<StreamManager>,
    source: Arc<dyn StreamSource>,
    driver: DriverHandle,
    runtime: tokio::runtime::Handle,
    tasks: Mutex<HashMap<TaskId, RunningTask>>,
}

impl Worker {
    pub fn new(
        id: WorkerId,
        streams: Arc<StreamManager>,
        source: Arc<dyn StreamSource>,
        driver: DriverHandle,
        runtime: tokio::runtime::Handle,
    ) -> Arc<Self> {
        Arc::new(Self {
            id,
            streams,
            source,
            driver,
            runtime,
            tasks: Mutex::new(HashMap::new()),
        })
    }

    pub fn streams(&self) -> &Arc<StreamManager> {
        &self.streams
    }
}

/// The driver reaches an in-process worker by calling it.
pub struct InProcessWorkerClient(pub Arc<Worker>);

impl WorkerClient for InProcessWorkerClient {
    fn send(&self, command: WorkerCommand) -> std::result::Result<(), String> {
        let worker = self.0.clone();
        match command {
            WorkerCommand::RunTask { task, context } => {
                let id = task.id;
                let runner = worker.clone();
                let running = RunningTask::spawn(&worker.runtime, async move {
                    let outcome = crate::panic::catch_panic(run_task(
                        task,
                        context,
                        runner.streams.clone(),
                        runner.source.clone(),
                    ))
                    .await
                    .unwrap_or_else(|panic| {
                        Err(DataFusionError::Execution(format!(
                            "task panicked: {panic}"
                        )))
                    });
                    runner.tasks.lock().remove(&id);
                    let outcome = match outcome {
                        Ok(metrics) => {
                            runner
                                .driver
                                .send(DriverEvent::TaskMetrics { task: id, metrics });
                            TaskOutcome::Succeeded
                        }
                        Err(e) => TaskOutcome::Failed {
                            retryable: false,
                            error: Arc::new(e),
                        },
                    };
                    runner.driver.send(DriverEvent::TaskFinished {
                        worker: runner.id,
                        task: id,
                        outcome,
                    });
                });
                worker.tasks.lock().insert(id, running);
            }
            WorkerCommand::StopTask { task } => {
                if let Some(running) = worker.tasks.lock().remove(&task) {
                    running.stop();
                }
            }
            WorkerCommand::ReleaseOutput { task } => worker.streams.release_job_output(
                task.job,
                task.stage,
                task.partition,
                task.attempt,
            ),
            WorkerCommand::CleanupJob {
                job,
                stage: Some(stage),
            } => worker.streams.remove_stage(job, stage),
            WorkerCommand::CleanupJob { job, stage: None } => worker.streams.remove_job(job),
        }
        Ok(())
    }
}
