//! The pool of idle Python workers, per interpreter. A task takes a worker (or starts one),
//! evaluates, and gives it back; several tasks at once use several processes, so a query with
//! N partitions runs its UDFs on up to N cores. A worker that crashed is never given back.

use std::collections::HashMap;
use std::sync::LazyLock;

use parking_lot::Mutex;

use super::PythonError;
use super::worker::Worker;

/// Idle workers kept per interpreter beyond which returned workers are stopped.
fn max_idle() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(4)
        .max(2)
        * 2
}

static IDLE: LazyLock<Mutex<HashMap<String, Vec<Worker>>>> =
    LazyLock::new(|| Mutex::new(HashMap::new()));

/// A worker for `python`, idle or new.
pub fn take(python: &str) -> Result<Worker, PythonError> {
    // (A worker killed while idle, e.g. by a cancelled query's switch just as it answered,
    // is dropped here rather than failing the next request.)
    while let Some(worker) = IDLE.lock().get_mut(python).and_then(|v| v.pop()) {
        if worker.is_alive() {
            return Ok(worker);
        }
    }
    Worker::spawn(python)
}

/// Give a healthy worker back.
pub fn give_back(python: &str, worker: Worker) {
    let mut idle = IDLE.lock();
    let list = idle.entry(python.to_string()).or_default();
    if list.len() < max_idle() {
        list.push(worker);
    }
}
