//! The driver side of cluster mode: the `DriverService` workers talk to, liveness by
//! heartbeats, and the job runner that schedules on worker processes.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use ember_protos::ember::worker as pb;
use ember_protos::ember::worker::driver_service_server::{DriverService, DriverServiceServer};
use parking_lot::{Mutex, RwLock};
use tonic::service::interceptor::InterceptedService;
use tonic::{Request, Response, Status};

use super::convert::task_id;
use super::{ClusterOptions, ErrorCodec, FlightStreams, RemoteWorkerClient, SecretCheck};
use crate::cluster::{Driver, DriverConfig, DriverEvent, DriverHandle, DriverRunner, TaskOutcome};
use crate::codec::EmberCodec;
use crate::stream::WorkerId;

struct WorkerEntry {
    last_seen: Instant,
    held_streams: u64,
}

/// The gRPC service workers register with and report to.
#[derive(Clone)]
pub struct DriverServer {
    driver: DriverHandle,
    workers: Arc<Mutex<HashMap<WorkerId, WorkerEntry>>>,
    addresses: Arc<RwLock<HashMap<WorkerId, String>>>,
    next_worker: Arc<AtomicU64>,
    codec: Arc<EmberCodec>,
    errors: Arc<dyn ErrorCodec>,
    options: ClusterOptions,
    runtime: tokio::runtime::Handle,
}

impl DriverServer {
    /// The service, behind the cluster secret's check.
    pub fn into_service(self) -> InterceptedService<DriverServiceServer<Self>, SecretCheck> {
        let max = self.options.max_message_bytes;
        let security = self.options.security.clone();
        security.guard(
            DriverServiceServer::new(self)
                .max_decoding_message_size(max)
                .max_encoding_message_size(max),
        )
    }

    fn lose(&self, worker: WorkerId) {
        let known = self.workers.lock().remove(&worker).is_some();
        if known {
            self.addresses.write().remove(&worker);
            self.driver.send(DriverEvent::WorkerLost { worker });
        }
    }

    /// Declare workers lost when their heartbeats stop.
    fn watch_heartbeats(&self) {
        let server = self.clone();
        self.runtime.spawn(async move {
            let mut tick = tokio::time::interval(server.options.heartbeat_interval);
            loop {
                tick.tick().await;
                let now = Instant::now();
                let silent: Vec<WorkerId> = server
                    .workers
                    .lock()
                    .iter()
                    .filter(|(_, w)| {
                        now.duration_since(w.last_seen) > server.options.heartbeat_timeout
                    })
                    .map(|(id, _)| *id)
                    .collect();
                for worker in silent {
                    tracing::warn!(worker, "no heartbeat: worker lost");
                    server.lose(worker);
                }
                server.driver.send(DriverEvent::Tick);
            }
        });
    }
}

#[tonic::async_trait]
impl DriverService for DriverServer {
    async fn register_worker(
        &self,
        request: Request<pb::RegisterWorkerRequest>,
    ) -> Result<Response<pb::RegisterWorkerResponse>, Status> {
        let req = request.into_inner();
        // A worker declared lost comes back under its id (ids are never reused otherwise).
        let id = match req.previous_id {
            Some(previous)
                if previous < self.next_worker.load(Ordering::SeqCst)
                    && !self.workers.lock().contains_key(&previous) =>
            {
                tracing::info!(worker = previous, "a lost worker comes back");
                previous
            }
            _ => self.next_worker.fetch_add(1, Ordering::SeqCst),
        };
        let client = RemoteWorkerClient::new(
            id,
            &req.address,
            &self.options,
            self.codec.clone(),
            self.addresses.clone(),
            self.driver.clone(),
            self.runtime.clone(),
        )
        .map_err(Status::invalid_argument)?;
        self.addresses.write().insert(id, req.address.clone());
        self.driver.board().address(id, &req.address);
        self.workers.lock().insert(
            id,
            WorkerEntry {
                last_seen: Instant::now(),
                held_streams: 0,
            },
        );
        tracing::info!(worker = id, address = %req.address, slots = req.slots, "worker joined");
        self.driver.send(DriverEvent::RegisterWorker {
            worker: id,
            slots: req.slots.max(1) as usize,
            client: Arc::new(client),
        });
        Ok(Response::new(pb::RegisterWorkerResponse {
            worker_id: id,
            heartbeat_interval_ms: self.options.heartbeat_interval.as_millis() as u64,
        }))
    }

    async fn heartbeat(
        &self,
        request: Request<pb::HeartbeatRequest>,
    ) -> Result<Response<pb::HeartbeatResponse>, Status> {
        let beat = request.into_inner();
        let known = match self.workers.lock().get_mut(&beat.worker_id) {
            Some(w) => {
                w.last_seen = Instant::now();
                w.held_streams = beat.held_streams;
                self.driver.board().heartbeat(
                    beat.worker_id,
                    beat.memory_used_bytes,
                    beat.memory_limit_bytes,
                    beat.spill_bytes,
                );
                true
            }
            None => false,
        };
        Ok(Response::new(pb::HeartbeatResponse { known }))
    }

    async fn report_task_status(
        &self,
        request: Request<pb::TaskStatusReport>,
    ) -> Result<Response<pb::TaskStatusAck>, Status> {
        let report = request.into_inner();
        let key = report
            .key
            .ok_or_else(|| Status::invalid_argument("report without a task"))?;
        if let Some(lost) = report.lost_worker {
            tracing::warn!(
                worker = lost,
                "a task could not read the worker's output: worker lost"
            );
            self.lose(lost);
        }
        if report.succeeded
            && let Ok(metrics) = serde_json::from_slice(&report.metrics)
        {
            self.driver.send(DriverEvent::TaskMetrics {
                task: task_id(&key),
                metrics,
            });
        }
        let outcome = if report.succeeded {
            TaskOutcome::Succeeded
        } else {
            TaskOutcome::Failed {
                error: Arc::new(self.errors.decode(&report.error, &report.error_detail)),
                retryable: report.retryable,
            }
        };
        self.driver.send(DriverEvent::TaskFinished {
            worker: report.worker_id,
            task: task_id(&key),
            outcome,
        });
        Ok(Response::new(pb::TaskStatusAck {}))
    }
}

/// `--mode cluster`: jobs run on worker processes that register with [`DriverServer`].
pub struct ClusterJobRunner {
    driver: DriverHandle,
    server: DriverServer,
}

impl ClusterJobRunner {
    pub fn start(
        config: DriverConfig,
        options: ClusterOptions,
        codec: Arc<EmberCodec>,
        errors: Arc<dyn ErrorCodec>,
        runtime: tokio::runtime::Handle,
    ) -> Self {
        let addresses = Arc::new(RwLock::new(HashMap::new()));
        let source = Arc::new(FlightStreams::new(
            None,
            addresses.clone(),
            options.max_message_bytes,
            options.security.clone(),
        ));
        let mut config = config;
        config.worker_wait_timeout = Some(options.worker_wait_timeout);
        let (driver, handle) = Driver::new(config, source);
        runtime.spawn(driver.run());
        let server = DriverServer {
            driver: handle.clone(),
            workers: Arc::new(Mutex::new(HashMap::new())),
            addresses,
            next_worker: Arc::new(AtomicU64::new(1)),
            codec,
            errors,
            options,
            runtime,
        };
        server.watch_heartbeats();
        Self {
            driver: handle,
            server,
        }
    }

    /// The gRPC service workers connect to.
    pub fn service(&self) -> InterceptedService<DriverServiceServer<DriverServer>, SecretCheck> {
        self.server.clone().into_service()
    }

    pub fn worker_count(&self) -> usize {
        self.server.workers.lock().len()
    }

    /// Streams the live workers held at their last heartbeat.
    pub fn held_streams(&self) -> u64 {
        self.server
            .workers
            .lock()
            .values()
            .map(|w| w.held_streams)
            .sum()
    }
}

impl DriverRunner for ClusterJobRunner {
    const NAME: &'static str = "cluster";

    fn driver(&self) -> &DriverHandle {
        &self.driver
    }
}
