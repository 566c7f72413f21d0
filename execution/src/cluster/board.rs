//! The workers as the job UI and the metrics see them: each worker's slots, tasks running and
//! done, whether it is alive, and (worker processes, from their heartbeats) the memory and
//! spill space it uses. The driver publishes its view here after each event; the driver
//! service adds what heartbeats carry. Lost workers stay listed (the last
//! [`LOST_KEPT`]) so the UI shows what happened to them.

use std::collections::BTreeMap;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use parking_lot::Mutex;

use crate::stream::WorkerId;

/// Lost workers kept on the board at most.
pub const LOST_KEPT: usize = 32;

/// One worker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkerInfo {
    pub id: WorkerId,
    /// Where it listens (worker processes).
    pub address: Option<String>,
    pub slots: usize,
    pub running: usize,
    pub tasks_done: u64,
    pub alive: bool,
    /// Milliseconds since the Unix epoch.
    pub registered_unix_ms: u64,
    pub lost_unix_ms: Option<u64>,
    /// Milliseconds since its last heartbeat (worker processes).
    pub heartbeat_age_ms: Option<u64>,
    /// Memory reserved in its pool, its limit, and its spill files' size (worker processes;
    /// in-process workers share the server's).
    pub memory_used: Option<u64>,
    pub memory_limit: Option<u64>,
    pub spill_bytes: Option<u64>,
}

#[derive(Debug, Clone)]
struct Entry {
    info: WorkerInfo,
    last_heartbeat: Option<Instant>,
}

/// The board, shared by the driver, its service and whoever reads it.
#[derive(Debug, Default)]
pub struct WorkerBoard {
    workers: Mutex<BTreeMap<WorkerId, Entry>>,
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

impl WorkerBoard {
    fn with(&self, id: WorkerId, f: impl FnOnce(&mut WorkerInfo, &mut Option<Instant>)) {
        let mut workers = self.workers.lock();
        let entry = workers.entry(id).or_insert_with(|| Entry {
            info: WorkerInfo {
                id,
                address: None,
                slots: 0,
                running: 0,
                tasks_done: 0,
                alive: true,
                registered_unix_ms: now_ms(),
                lost_unix_ms: None,
                heartbeat_age_ms: None,
                memory_used: None,
                memory_limit: None,
                spill_bytes: None,
            },
            last_heartbeat: None,
        });
        f(&mut entry.info, &mut entry.last_heartbeat);
    }

    /// The driver's view of a live worker.
    pub fn alive(&self, id: WorkerId, slots: usize, running: usize) {
        self.with(id, |w, _| {
            w.slots = slots;
            w.running = running;
            w.alive = true;
        });
    }

    /// A task of the worker ended.
    pub fn task_done(&self, id: WorkerId) {
        self.with(id, |w, _| w.tasks_done += 1);
    }

    /// Where a worker process listens.
    pub fn address(&self, id: WorkerId, address: &str) {
        self.with(id, |w, _| w.address = Some(address.to_string()));
    }

    /// What a worker process's heartbeat says of its memory and spill files.
    pub fn heartbeat(&self, id: WorkerId, memory_used: u64, memory_limit: u64, spill: u64) {
        self.with(id, |w, seen| {
            w.memory_used = Some(memory_used);
            w.memory_limit = Some(memory_limit);
            w.spill_bytes = Some(spill);
            *seen = Some(Instant::now());
        });
    }

    /// The worker is gone.
    pub fn lost(&self, id: WorkerId) {
        let mut workers = self.workers.lock();
        if let Some(entry) = workers.get_mut(&id)
            && entry.info.alive
        {
            entry.info.alive = false;
            entry.info.running = 0;
            entry.info.lost_unix_ms = Some(now_ms());
        }
        let lost: Vec<WorkerId> = workers
            .values()
            .filter(|e| !e.info.alive)
            .map(|e| e.info.id)
            .collect();
        for old in lost.iter().take(lost.len().saturating_sub(LOST_KEPT)) {
            workers.remove(old);
        }
    }

    /// Every worker on the board, by id.
    pub fn snapshot(&self) -> Vec<WorkerInfo> {
        self.workers
            .lock()
            .values()
            .map(|e| {
                let mut info = e.info.clone();
                info.heartbeat_age_ms = e.last_heartbeat.map(|t| t.elapsed().as_millis() as u64);
                info
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lost_workers_stay_bounded() {
        let board = WorkerBoard::default();
        for id in 0..(LOST_KEPT as u64 + 5) {
            board.alive(id, 2, 1);
            board.lost(id);
        }
        board.alive(100, 4, 0);
        board.heartbeat(100, 10, 20, 0);
        let all = board.snapshot();
        assert_eq!(all.len(), LOST_KEPT + 1);
        assert_eq!(all.iter().filter(|w| w.alive).count(), 1);
        assert_eq!(all.last().map(|w| w.memory_used), Some(Some(10)));
    }
}
