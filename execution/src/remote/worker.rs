//! `ember worker`: registers with the driver, runs the tasks it is sent, serves its task
//! output over Arrow Flight, and reports how tasks ended. A worker that loses its driver
//! exits.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use arrow_flight::flight_service_server::FlightServiceServer;
use datafusion::execution::{SessionStateBuilder, TaskContext};
use datafusion::prelude::SessionConfig;
use ember_protos::ember::worker as pb;
use ember_protos::ember::worker::driver_service_client::DriverServiceClient;
use ember_protos::ember::worker::worker_service_server::{WorkerService, WorkerServiceServer};
use parking_lot::{Mutex, RwLock};
use tokio::net::TcpListener;
use tonic::transport::server::TcpIncoming;
use tonic::{Request, Response, Status};

use super::convert::{decode_task, join_job, task_id, task_key};
use super::{
    ClusterOptions, ErrorCodec, FlightStreams, SecureChannel, StreamFlightService, lost_worker,
};
use crate::codec::EmberCodec;
use crate::formats::storage::StorageOptions;
use crate::stream::{StreamManager, WorkerId};
use crate::task::{RunningTask, TaskId, run_task};

#[derive(Debug, Clone)]
pub struct WorkerOptions {
    /// The driver's control address, e.g. `http://127.0.0.1:15003`.
    pub driver: String,
    /// Address to listen on.
    pub host: String,
    /// Host others use to reach this worker (defaults to `host`, or 127.0.0.1 for 0.0.0.0).
    pub advertise_host: Option<String>,
    pub port: u16,
    pub slots: usize,
    pub cluster: ClusterOptions,
}

struct WorkerState {
    id: WorkerId,
    streams: Arc<StreamManager>,
    addresses: Arc<RwLock<HashMap<WorkerId, String>>>,
    source: Arc<FlightStreams>,
    driver: DriverServiceClient<SecureChannel>,
    codec: Arc<EmberCodec>,
    errors: Arc<dyn ErrorCodec>,
    cpu: tokio::runtime::Handle,
    tasks: Mutex<HashMap<TaskId, RunningTask>>,
}

#[derive(Clone)]
struct WorkerServer {
    state: Arc<WorkerState>,
}

#[tonic::async_trait]
impl WorkerService for WorkerServer {
    async fn run_task(
        &self,
        request: Request<pb::RunTaskRequest>,
    ) -> Result<Response<pb::RunTaskResponse>, Status> {
        let definition = request
            .into_inner()
            .task
            .ok_or_else(|| Status::invalid_argument("no task"))?;
        let state = self.state.clone();
        let key = definition
            .key
            .ok_or_else(|| Status::invalid_argument("task without key"))?;
        let id = task_id(&key);
        let runner = state.clone();
        let running = RunningTask::spawn(&state.cpu, async move {
            let outcome = crate::panic::catch_panic(run(&runner, &definition))
                .await
                .unwrap_or_else(|panic| {
                    Err(datafusion::error::DataFusionError::Execution(format!(
                        "task panicked: {panic}"
                    )))
                });
            runner.tasks.lock().remove(&id);
            report(&runner, id, outcome).await;
        });
        state.tasks.lock().insert(id, running);
        Ok(Response::new(pb::RunTaskResponse {}))
    }

    async fn stop_task(
        &self,
        request: Request<pb::StopTaskRequest>,
    ) -> Result<Response<pb::StopTaskResponse>, Status> {
        if let Some(key) = request.into_inner().key
            && let Some(running) = self.state.tasks.lock().remove(&task_id(&key))
        {
            running.stop();
        }
        Ok(Response::new(pb::StopTaskResponse {}))
    }

    async fn release_output(
        &self,
        request: Request<pb::ReleaseOutputRequest>,
    ) -> Result<Response<pb::ReleaseOutputResponse>, Status> {
        if let Some(key) = request.into_inner().key {
            let task = task_id(&key);
            self.state.streams.release_job_output(
                task.job,
                task.stage,
                task.partition,
                task.attempt,
            );
        }
        Ok(Response::new(pb::ReleaseOutputResponse {}))
    }

    async fn cleanup_job(
        &self,
        request: Request<pb::CleanupJobRequest>,
    ) -> Result<Response<pb::CleanupJobResponse>, Status> {
        let request = request.into_inner();
        let job = join_job(request.job_high, request.job);
        match request.stage {
            Some(stage) => self.state.streams.remove_stage(job, stage as usize),
            None => self.state.streams.remove_job(job),
        }
        Ok(Response::new(pb::CleanupJobResponse {}))
    }
}

/// Decode and run one task.
async fn run(
    state: &Arc<WorkerState>,
    definition: &pb::TaskDefinition,
) -> datafusion::common::Result<crate::metrics::TaskMetrics> {
    let (config, storage) = StorageOptions::split_task_config(&definition.config);
    let config = SessionConfig::from_string_hash_map(&config)?;
    let session = SessionStateBuilder::new()
        .with_config(config)
        .with_runtime_env(crate::formats::storage::runtime_env(storage)?)
        .with_default_features()
        .build();
    let context = Arc::new(TaskContext::from(&session));
    let (task, addresses) = decode_task(definition, &context, &state.codec)?;
    state.addresses.write().extend(addresses);
    run_task(task, context, state.streams.clone(), state.source.clone()).await
}

/// Register with the driver (under `previous`, the id the driver had declared lost, if any),
/// trying for a minute while it is not reachable.
async fn register(
    driver: &mut DriverServiceClient<SecureChannel>,
    driver_address: &str,
    address: &str,
    slots: u32,
    previous: Option<WorkerId>,
) -> Result<pb::RegisterWorkerResponse, String> {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let request = pb::RegisterWorkerRequest {
            address: address.to_string(),
            slots,
            previous_id: previous,
        };
        match driver.register_worker(request).await {
            Ok(r) => return Ok(r.into_inner()),
            Err(e) if e.code() == tonic::Code::Unauthenticated => {
                return Err(format!(
                    "the driver at {driver_address} refused this worker: {} (give every process \
                     of the cluster the same --cluster-secret-file)",
                    e.message()
                ));
            }
            Err(e) if Instant::now() < deadline => {
                tracing::debug!(error = %e, "driver not reachable yet");
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
            Err(e) => {
                return Err(format!(
                    "cannot register with the driver at {driver_address}: {e}"
                ));
            }
        }
    }
}

async fn report(
    state: &Arc<WorkerState>,
    id: TaskId,
    outcome: datafusion::common::Result<crate::metrics::TaskMetrics>,
) {
    let report = match &outcome {
        Ok(metrics) => pb::TaskStatusReport {
            worker_id: state.id,
            key: Some(task_key(&id)),
            succeeded: true,
            metrics: serde_json::to_vec(metrics).unwrap_or_default(),
            ..Default::default()
        },
        Err(e) => {
            let lost = lost_worker(e);
            pb::TaskStatusReport {
                worker_id: state.id,
                key: Some(task_key(&id)),
                succeeded: false,
                error: e.to_string(),
                error_detail: state.errors.encode(e),
                retryable: lost.is_some(),
                lost_worker: lost,
                metrics: vec![],
            }
        }
    };
    let mut driver = state.driver.clone();
    if let Err(e) = driver.report_task_status(report).await {
        tracing::warn!(task = %id, error = %e, "cannot report to the driver");
    }
}

/// Run a worker until its driver goes away.
pub async fn run_worker(
    options: WorkerOptions,
    codec: Arc<EmberCodec>,
    errors: Arc<dyn ErrorCodec>,
    cpu: tokio::runtime::Handle,
) -> Result<(), String> {
    let listener = TcpListener::bind((options.host.as_str(), options.port))
        .await
        .map_err(|e| format!("cannot listen on {}:{}: {e}", options.host, options.port))?;
    let port = listener.local_addr().map_err(|e| e.to_string())?.port();
    let host = options.advertise_host.clone().unwrap_or_else(|| {
        if options.host == "0.0.0.0" || options.host == "::" {
            "127.0.0.1".to_string()
        } else {
            options.host.clone()
        }
    });
    let address = format!("http://{host}:{port}");
    let max = options.cluster.max_message_bytes;
    let security = options.cluster.security.clone();

    let channel = security
        .channel(&options.driver)
        .map_err(|e| format!("bad --driver {}: {e}", options.driver))?;
    let mut driver = DriverServiceClient::new(channel)
        .max_decoding_message_size(max)
        .max_encoding_message_size(max);

    // The driver may still be starting: try for a while.
    let slots = options.slots.max(1) as u32;
    let registered = register(&mut driver, &options.driver, &address, slots, None).await?;
    let id = registered.worker_id;
    let interval = Duration::from_millis(registered.heartbeat_interval_ms.max(50));
    tracing::info!(
        "Ember worker {id} (pid {}) listening on {address} (driver {}, {} slots)",
        std::process::id(),
        options.driver,
        options.slots
    );

    let streams = Arc::new(StreamManager::default());
    let addresses = Arc::new(RwLock::new(HashMap::new()));
    let source = Arc::new(FlightStreams::new(
        Some((id, streams.clone())),
        addresses.clone(),
        max,
        security.clone(),
    ));
    let state = Arc::new(WorkerState {
        id,
        streams: streams.clone(),
        addresses,
        source,
        driver: driver.clone(),
        codec,
        errors,
        cpu,
        tasks: Mutex::new(HashMap::new()),
    });
    let worker_service = security.guard(
        WorkerServiceServer::new(WorkerServer {
            state: state.clone(),
        })
        .max_decoding_message_size(max)
        .max_encoding_message_size(max),
    );
    let flight = security.guard(
        FlightServiceServer::new(StreamFlightService::new(
            streams.clone(),
            options.cluster.max_flight_data_bytes,
        ))
        .max_decoding_message_size(max)
        .max_encoding_message_size(max),
    );

    let heartbeat_timeout = options.cluster.heartbeat_timeout;
    let held = streams.clone();
    let lost_state = state.clone();
    let driver_address = options.driver.clone();
    let heartbeats = async move {
        let mut last_ok = Instant::now();
        loop {
            tokio::time::sleep(interval).await;
            let budget = crate::memory::installed();
            let beat = pb::HeartbeatRequest {
                worker_id: id,
                held_streams: held.len() as u64,
                memory_used_bytes: budget.map_or(0, |b| b.pool().reserved() as u64),
                memory_limit_bytes: budget.map_or(0, |b| b.limit() as u64),
                spill_bytes: budget.map_or(0, |b| b.disk_manager().used_disk_space()),
            };
            match driver.heartbeat(beat).await {
                Ok(r) if r.get_ref().known => last_ok = Instant::now(),
                Ok(_) => {
                    // Declared lost (late heartbeats: a pause, a slow network): what it ran
                    // and held runs again elsewhere. Drop it all and come back under this id.
                    tracing::warn!("worker {id}: the driver declared it lost; rejoining");
                    let running: Vec<RunningTask> =
                        lost_state.tasks.lock().drain().map(|(_, t)| t).collect();
                    for task in running {
                        task.stop();
                    }
                    held.clear();
                    match register(&mut driver, &driver_address, &address, slots, Some(id)).await {
                        Ok(r) if r.worker_id == id => {
                            tracing::info!("worker {id} rejoined the driver");
                            last_ok = Instant::now();
                        }
                        Ok(r) => {
                            return format!(
                                "the driver knows this worker as {} now, not {id}",
                                r.worker_id
                            );
                        }
                        Err(e) => return e,
                    }
                }
                Err(e) if last_ok.elapsed() > heartbeat_timeout * 2 => {
                    return format!("the driver is unreachable: {e}");
                }
                Err(_) => {}
            }
        }
    };
    let server = security
        .server()?
        .add_service(worker_service)
        .add_service(flight)
        .serve_with_incoming(TcpIncoming::from(listener).with_nodelay(Some(true)));
    tokio::select! {
        reason = heartbeats => {
            tracing::info!("worker {id} stops: {reason}");
            Ok(())
        }
        served = server => served.map_err(|e| format!("worker server error: {e}")),
    }
}
