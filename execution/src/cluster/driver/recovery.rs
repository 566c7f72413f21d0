//! The driver's recovery from lost workers: jobs that wait too long for any worker fail; a
//! lost worker's running tasks run again elsewhere and the stage outputs it held are
//! recomputed (with any inputs already freed, recursively), within the attempt limits; stage
//! outputs every consumer has read are freed on the workers.

use super::*;

impl Driver {
    /// Jobs cannot wait forever for workers: past the timeout with none alive, they fail.
    pub(super) fn check_workers(&mut self) {
        let (Some(timeout), Some(since)) = (self.config.worker_wait_timeout, self.no_workers_since)
        else {
            return;
        };
        if !self.workers.is_empty() || since.elapsed() < timeout {
            return;
        }
        let waiting: Vec<(JobId, usize)> = self
            .jobs
            .iter()
            .filter_map(|(id, job)| {
                job.tasks
                    .iter()
                    .filter(|(_, s)| !matches!(s.status, Status::Succeeded { .. }))
                    .map(|(p, _)| p.stage)
                    .min()
                    .map(|stage| (*id, stage))
            })
            .collect();
        for (job, stage) in waiting {
            let error = Arc::new(DataFusionError::Execution(format!(
                "stage {stage} cannot run: no workers are available (all workers were lost {} s ago)",
                since.elapsed().as_secs()
            )));
            self.fail_job(job, error);
        }
    }

    /// Free the streams of the inputs of `stage` that every consumer has read (all their
    /// tasks succeeded), on every worker, rather than at the end of the job.
    pub(super) fn free_read_inputs(&mut self, job_id: JobId, stage: usize) {
        let Some(job) = self.jobs.get_mut(&job_id) else {
            return;
        };
        let inputs = job.graph.input_stages(stage);
        for input in inputs {
            if job.freed[input] || input == job.graph.output_stage() {
                continue;
            }
            if !consumers_finished(job, input) {
                continue;
            }
            job.freed[input] = true;
            tracing::debug!(job = job_id, stage = input, "stage output freed");
            for w in self.workers.values() {
                let _ = w.client.send(WorkerCommand::CleanupJob {
                    job: job_id,
                    stage: Some(input),
                });
            }
        }
    }

    /// A pipelined input whose consumers have all finished (a limit was met) is not needed
    /// any more: its tasks still running stop and count as done, so that its streams are
    /// freed (a consumer that must run again reads a new run of them, as for any freed input).
    pub(super) fn stop_unneeded_inputs(&mut self, job_id: JobId, stage: usize) {
        let Some(job) = self.jobs.get_mut(&job_id) else {
            return;
        };
        let inputs: Vec<usize> = job.graph.stages()[stage]
            .inputs
            .iter()
            .filter(|input| job.graph.pipelined(input))
            .map(|input| input.stage)
            .collect();
        for input in inputs {
            if !consumers_finished(job, input) {
                continue;
            }
            for (position, state) in job.tasks.iter_mut() {
                let Status::Running { worker } = state.status else {
                    continue;
                };
                if position.stage != input {
                    continue;
                }
                let task = task_id(job_id, *position, state.attempt);
                tracing::debug!(%task, "stopped: every consumer of its output has finished");
                if let Some(w) = self.workers.get_mut(&worker) {
                    w.running.remove(&task);
                    let _ = w.client.send(WorkerCommand::StopTask { task });
                }
                if let Some((progress, first)) = &job.progress {
                    let attempt = TaskAttempt {
                        partition: position.partition,
                        attempt: state.attempt,
                        worker: Some(worker),
                    };
                    progress.task_succeeded(first + position.stage as i64, attempt, 0);
                }
                state.status = Status::Succeeded { worker };
            }
        }
    }

    /// A worker is gone: its running tasks run again elsewhere, and finished tasks whose
    /// output lived there run again if a stage that has not finished still needs them.
    pub(super) fn worker_lost(&mut self, worker: WorkerId) {
        tracing::warn!(worker, "worker lost");
        self.workers.remove(&worker);
        let max_attempts = self.config.max_attempts;
        let mut failed_jobs = Vec::new();
        for (job_id, job) in self.jobs.iter_mut() {
            let mut lost: Vec<TaskPosition> = Vec::new();
            for (position, state) in job.tasks.iter() {
                match state.status {
                    Status::Running { worker: w } if w == worker => lost.push(*position),
                    Status::Succeeded { worker: w } if w == worker => {
                        let needed = !consumers_finished(job, position.stage);
                        // A final partition the client has read needs no second run.
                        let is_final = position.stage == job.graph.output_stage()
                            && position.partition >= job.output_read.read();
                        if needed || is_final {
                            lost.push(*position);
                        }
                    }
                    _ => {}
                }
            }
            if lost.is_empty() {
                continue;
            }
            for position in &lost {
                if let Some(state) = job.tasks.get_mut(position) {
                    if let Status::Running { worker: w } = state.status {
                        report_ended(&job.progress, *position, state.attempt, w, true);
                    }
                    state.failures += 1;
                    state.attempt += 1;
                    if state.failures >= max_attempts {
                        failed_jobs.push((*job_id, position.stage, state.failures));
                    }
                    state.status = Status::Waiting;
                }
            }
            // Consumers running on other workers read lost streams: they restart too, and
            // regions start again once their inputs are back. Consumers queued for a slot
            // wait again for them (launched now, they would find no output to read).
            let lost_stages: HashSet<usize> = lost.iter().map(|p| p.stage).collect();
            let mut restart: Vec<TaskPosition> = Vec::new();
            for (position, state) in job.tasks.iter() {
                if let Status::Running { .. } | Status::Queued = state.status {
                    let reads_lost = job.graph.stages()[position.stage]
                        .inputs
                        .iter()
                        .any(|i| lost_stages.contains(&i.stage));
                    if reads_lost {
                        restart.push(*position);
                    }
                }
            }
            for position in restart {
                if let Some(state) = job.tasks.get_mut(&position) {
                    if let Status::Running { worker: w } = state.status {
                        let task = task_id(*job_id, position, state.attempt);
                        if let Some(ws) = self.workers.get_mut(&w) {
                            ws.running.remove(&task);
                            let _ = ws.client.send(WorkerCommand::StopTask { task });
                        }
                        report_ended(&job.progress, position, state.attempt, w, false);
                    }
                    state.attempt += 1;
                    state.status = Status::Waiting;
                }
            }
            // Stages that run again read their inputs: freed inputs run again first (and
            // theirs, in turn).
            let mut rerun: Vec<usize> = job
                .tasks
                .iter()
                .filter(|(_, s)| s.status == Status::Waiting)
                .map(|(p, _)| p.stage)
                .collect();
            rerun.sort_unstable();
            rerun.dedup();
            while let Some(stage) = rerun.pop() {
                let inputs = job.graph.input_stages(stage);
                for input in inputs {
                    if !job.freed[input] {
                        continue;
                    }
                    job.freed[input] = false;
                    for (position, state) in job.tasks.iter_mut() {
                        if position.stage == input
                            && matches!(state.status, Status::Succeeded { .. })
                        {
                            state.attempt += 1;
                            state.status = Status::Waiting;
                        }
                    }
                    rerun.push(input);
                }
            }
            let topology = job.topology.clone();
            for (r, region) in topology.regions.iter().enumerate() {
                if region
                    .tasks
                    .iter()
                    .any(|t| matches!(job.tasks.get(t).map(|s| s.status), Some(Status::Waiting)))
                {
                    job.started[r] = false;
                }
            }
            self.queue.retain(|(j, p)| {
                *j != *job_id
                    || !matches!(job.tasks.get(p).map(|s| s.status), Some(Status::Waiting))
            });
        }
        for (job_id, stage, failures) in failed_jobs {
            let error = Arc::new(DataFusionError::Execution(format!(
                "stage {stage} failed after {}: worker {worker} was lost",
                attempts(failures)
            )));
            self.fail_job(job_id, error);
        }
    }
}

pub(super) fn attempts(n: usize) -> String {
    if n == 1 {
        "1 attempt".to_string()
    } else {
        format!("{n} attempts")
    }
}

/// Whether every stage that reads `stage` has finished (all its tasks succeeded).
fn consumers_finished(job: &JobState, stage: usize) -> bool {
    job.graph
        .consumers(stage)
        .iter()
        .all(|(consumer, _)| !stage_unfinished(job, *consumer))
}

pub(super) fn stage_unfinished(job: &JobState, stage: usize) -> bool {
    job.tasks
        .iter()
        .any(|(p, s)| p.stage == stage && !matches!(s.status, Status::Succeeded { .. }))
}
