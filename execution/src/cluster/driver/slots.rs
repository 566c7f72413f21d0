//! Slots held by clients: a final task waits for its client to read its output (a window of
//! a few MiB), so a client that reads slowly, or stops reading in the middle of a
//! `toLocalIterator()`, holds the task's slot. While tasks of other jobs wait for a slot, such
//! tasks are released: their output stops waiting (what exceeds the window is spilled, and the
//! client reads it from there), so the tasks end and their slots serve the other queries. A
//! job's own waiting tasks release nothing: its partitions are read in order, so they could
//! only spill what its client has not asked for yet.

use super::*;

impl Driver {
    /// Release the running final tasks of every job while another job's tasks wait for a
    /// slot (once per attempt).
    pub(super) fn release_job_outputs(&mut self) {
        if self.queue.is_empty() || self.workers.values().any(|w| w.running.len() < w.slots) {
            return;
        }
        for (job_id, job) in self.jobs.iter_mut() {
            if !self.queue.iter().any(|(j, _)| j != job_id) {
                continue;
            }
            let output = job.graph.output_stage();
            for (position, state) in job.tasks.iter_mut() {
                let Status::Running { worker } = state.status else {
                    continue;
                };
                if position.stage != output || state.released == Some(state.attempt) {
                    continue;
                }
                state.released = Some(state.attempt);
                let task = task_id(*job_id, *position, state.attempt);
                tracing::debug!(%task, "job output released: other queries wait for its slot");
                if let Some(w) = self.workers.get(&worker) {
                    let _ = w.client.send(WorkerCommand::ReleaseOutput { task });
                }
            }
        }
    }
}
