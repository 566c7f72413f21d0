//! `--mode local-cluster`: a driver and N workers in this process, scheduling the job graph.

use std::sync::Arc;

use super::worker::InProcessWorkerClient;
use super::{
    Driver, DriverConfig, DriverEvent, DriverHandle, DriverRunner, InProcessStreams, Worker,
};
use crate::stream::StreamManager;

pub struct LocalClusterJobRunner {
    driver: DriverHandle,
    workers: Vec<Arc<Worker>>,
}

impl LocalClusterJobRunner {
    /// Start a driver and `workers` workers with `slots` task slots each on `runtime`.
    pub fn start(
        workers: usize,
        slots: usize,
        config: DriverConfig,
        runtime: tokio::runtime::Handle,
    ) -> Self {
        let streams = Arc::new(InProcessStreams::default());
        let (driver, handle) = Driver::new(config, streams.clone());
        runtime.spawn(driver.run());
        let mut all = Vec::with_capacity(workers);
        for id in 1..=workers.max(1) as u64 {
            let manager = Arc::new(StreamManager::default());
            streams.register(id, manager.clone());
            let worker = Worker::new(
                id,
                manager,
                streams.clone(),
                handle.clone(),
                runtime.clone(),
            );
            handle.send(DriverEvent::RegisterWorker {
                worker: id,
                slots,
                client: Arc::new(InProcessWorkerClient(worker.clone())),
            });
            all.push(worker);
        }
        Self {
            driver: handle,
            workers: all,
        }
    }

    /// Streams held by all workers (for tests that check cleanup).
    pub fn stream_count(&self) -> usize {
        self.workers.iter().map(|w| w.streams().len()).sum()
    }
}

impl DriverRunner for LocalClusterJobRunner {
    const NAME: &'static str = "local-cluster";

    fn driver(&self) -> &DriverHandle {
        &self.driver
    }
}
