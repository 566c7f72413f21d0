//! How the driver reaches a worker process: commands become `WorkerService` RPCs.

use std::collections::HashMap;
use std::sync::Arc;

use ember_protos::ember::worker as pb;
use ember_protos::ember::worker::worker_service_client::WorkerServiceClient;
use parking_lot::RwLock;

use super::convert::{encode_task, split_job, task_key};
use super::{ClusterOptions, SecureChannel};
use crate::cluster::{DriverEvent, DriverHandle, WorkerClient, WorkerCommand};
use crate::codec::EmberCodec;
use crate::stream::WorkerId;

pub struct RemoteWorkerClient {
    id: WorkerId,
    client: WorkerServiceClient<SecureChannel>,
    codec: Arc<EmberCodec>,
    addresses: Arc<RwLock<HashMap<WorkerId, String>>>,
    driver: DriverHandle,
    runtime: tokio::runtime::Handle,
}

impl RemoteWorkerClient {
    pub fn new(
        id: WorkerId,
        address: &str,
        options: &ClusterOptions,
        codec: Arc<EmberCodec>,
        addresses: Arc<RwLock<HashMap<WorkerId, String>>>,
        driver: DriverHandle,
        runtime: tokio::runtime::Handle,
    ) -> Result<Self, String> {
        let max_message_bytes = options.max_message_bytes;
        let channel = options
            .security
            .channel(address)
            .map_err(|e| format!("bad worker address {address}: {e}"))?;
        let client = WorkerServiceClient::new(channel)
            .max_decoding_message_size(max_message_bytes)
            .max_encoding_message_size(max_message_bytes);
        Ok(Self {
            id,
            client,
            codec,
            addresses,
            driver,
            runtime,
        })
    }
}

impl WorkerClient for RemoteWorkerClient {
    fn send(&self, command: WorkerCommand) -> Result<(), String> {
        let mut client = self.client.clone();
        let (driver, id) = (self.driver.clone(), self.id);
        match command {
            WorkerCommand::RunTask { task, context } => {
                let addresses = self.addresses.read().clone();
                let definition = encode_task(&task, &context, &self.codec, &addresses)
                    .map_err(|e| e.to_string())?;
                self.runtime.spawn(async move {
                    let request = pb::RunTaskRequest { task: Some(definition) };
                    if let Err(e) = client.run_task(request).await {
                        tracing::warn!(worker = id, error = %e, "cannot start a task on the worker");
                        driver.send(DriverEvent::WorkerLost { worker: id });
                    }
                });
            }
            WorkerCommand::StopTask { task } => {
                self.runtime.spawn(async move {
                    let _ = client
                        .stop_task(pb::StopTaskRequest {
                            key: Some(task_key(&task)),
                        })
                        .await;
                });
            }
            WorkerCommand::ReleaseOutput { task } => {
                self.runtime.spawn(async move {
                    let _ = client
                        .release_output(pb::ReleaseOutputRequest {
                            key: Some(task_key(&task)),
                        })
                        .await;
                });
            }
            WorkerCommand::CleanupJob { job, stage } => {
                self.runtime.spawn(async move {
                    let (job_high, job) = split_job(job);
                    let stage = stage.map(|s| s as u32);
                    let _ = client
                        .cleanup_job(pb::CleanupJobRequest {
                            job,
                            job_high,
                            stage,
                        })
                        .await;
                });
            }
        }
        Ok(())
    }
}
