//! The job UI's HTTP routes: the page itself and its JSON API. Every value the page shows
//! comes from here; the page escapes it (it sets text, never HTML).

use std::sync::Arc;
use std::time::Instant;

use ember_execution::query_view::TaskRecord;
use serde_json::{Value, json};

use super::{QueryEntry, QueryStatus};
use crate::state::ServerState;

/// The page: HTML, CSS and JavaScript in one file, no external resources.
const PAGE: &str = include_str!("page.html");

/// Characters of a query's text in the list (the detail has all of it).
const LIST_TEXT: usize = 300;

/// An HTTP answer: status line, content type, body.
pub type Answer = (&'static str, &'static str, String);

/// The answer to a GET of `path`, if it is one of the UI's.
pub fn route(path: &str, state: &ServerState) -> Option<Answer> {
    const JSON: &str = "application/json";
    match path {
        "/" | "/index.html" => Some(("200 OK", "text/html; charset=utf-8", PAGE.to_string())),
        "/api/queries" => Some(("200 OK", JSON, queries(state).to_string())),
        "/api/workers" => Some(("200 OK", JSON, workers(state).to_string())),
        _ => {
            let id = path.strip_prefix("/api/queries/")?;
            Some(match super::query(id) {
                Some(q) => ("200 OK", JSON, detail(&q).to_string()),
                None => (
                    "404 Not Found",
                    JSON,
                    json!({"error": "no such query"}).to_string(),
                ),
            })
        }
    }
}

fn short(text: &str) -> String {
    match text.char_indices().nth(LIST_TEXT) {
        Some((cut, _)) => format!("{} ...", &text[..cut]),
        None => text.to_string(),
    }
}

/// What the list shows of a query.
fn summary(q: &QueryEntry, text: String) -> Value {
    let snapshot = q.progress.snapshot();
    json!({
        "id": q.operation_id,
        "session_id": q.session_id,
        "user_id": q.user_id,
        "text": text,
        "status": q.status().as_str(),
        "error": q.error(),
        "started_unix_ms": q.started_unix_ms,
        "duration_ms": q.duration_ms(),
        "rows": q.progress.rows_returned(),
        "stages": snapshot.stages.len(),
        "tasks_total": snapshot.stages.iter().map(|s| s.num_tasks).sum::<i64>(),
        "tasks_done": snapshot.stages.iter().map(|s| s.num_completed_tasks).sum::<i64>(),
        "tasks_running": snapshot.num_inflight_tasks,
    })
}

fn queries(state: &ServerState) -> Value {
    let all = super::queries();
    let running = all
        .iter()
        .filter(|q| q.status() == QueryStatus::Running)
        .count();
    json!({
        "mode": state.runner.name(),
        "spark_version": state.spark_version,
        "version": env!("CARGO_PKG_VERSION"),
        "sessions": state.sessions.all().len(),
        "running": running,
        "history_limit": super::HISTORY,
        "queries": all.iter().map(|q| summary(q, short(&q.text()))).collect::<Vec<_>>(),
    })
}

fn ms_between(from: Instant, to: Instant) -> u64 {
    to.saturating_duration_since(from).as_millis() as u64
}

fn task_json(t: &TaskRecord, origin: Instant, now: Instant) -> Value {
    json!({
        "stage": t.stage,
        "partition": t.task.partition,
        "attempt": t.task.attempt,
        "worker": t.task.worker,
        "status": t.status.as_str(),
        "start_ms": ms_between(origin, t.started),
        "duration_ms": ms_between(t.started, t.ended.unwrap_or(now)),
        "rows": t.rows,
        "bytes": t.bytes,
        "input_bytes": t.input_bytes,
        "spilled_bytes": t.spilled_bytes,
    })
}

fn detail(q: &Arc<QueryEntry>) -> Value {
    let now = Instant::now();
    let origin = q.started();
    let snapshot = q.progress.snapshot();
    let times = q.progress.stage_times();
    let (tasks, not_recorded) = q.progress.task_records();
    let running = q.status() == QueryStatus::Running;
    let stages: Vec<Value> = q
        .progress
        .stage_views()
        .into_iter()
        .map(|v| {
            let progress = snapshot.stages.iter().find(|s| s.stage_id == v.id);
            let of_stage = tasks.iter().filter(|t| t.stage == v.id);
            let done = of_stage
                .clone()
                .filter(|t| t.status == ember_execution::query_view::TaskStatus::Succeeded);
            let sum = |f: fn(&TaskRecord) -> u64| done.clone().map(f).sum::<u64>();
            let (start, end) = times.get(v.id as usize).copied().unwrap_or((None, None));
            let duration = match (start, end) {
                (Some(a), Some(b)) => Some(ms_between(a, b)),
                (Some(a), None) if running => Some(ms_between(a, now)),
                _ => None,
            };
            json!({
                "id": v.id,
                "job": v.job,
                "partitions": v.partitions,
                "inputs": v.inputs.iter().map(|i| json!({"stage": i.stage, "mode": i.mode})).collect::<Vec<_>>(),
                "output": v.output,
                "job_output": v.job_output,
                "placement": v.placement,
                "operators": v.operators,
                "num_tasks": progress.map_or(v.partitions as i64, |p| p.num_tasks),
                "num_completed_tasks": progress.map_or(0, |p| p.num_completed_tasks),
                "tasks_running": of_stage.clone().filter(|t| t.ended.is_none()).count(),
                "done": progress.is_some_and(|p| p.done),
                "input_bytes": progress.map_or(0, |p| p.input_bytes_read),
                "duration_ms": duration,
                "rows": sum(|t| t.rows),
                "bytes": sum(|t| t.bytes),
                "spilled_bytes": sum(|t| t.spilled_bytes),
            })
        })
        .collect();
    let mut out = summary(q, q.text());
    if let Some(map) = out.as_object_mut() {
        map.insert("stage_list".into(), Value::Array(stages));
        map.insert(
            "tasks".into(),
            tasks.iter().map(|t| task_json(t, origin, now)).collect(),
        );
        map.insert("tasks_not_recorded".into(), json!(not_recorded));
    }
    out
}

fn workers(state: &ServerState) -> Value {
    let budget = ember_execution::memory::installed();
    let list: Vec<Value> = state
        .runner
        .workers()
        .unwrap_or_default()
        .into_iter()
        .map(|w| {
            json!({
                "id": w.id,
                "address": w.address,
                "slots": w.slots,
                "running": w.running,
                "tasks_done": w.tasks_done,
                "alive": w.alive,
                "registered_unix_ms": w.registered_unix_ms,
                "lost_unix_ms": w.lost_unix_ms,
                "heartbeat_age_ms": w.heartbeat_age_ms,
                "memory_used": w.memory_used,
                "memory_limit": w.memory_limit,
                "spill_bytes": w.spill_bytes,
            })
        })
        .collect();
    json!({
        "mode": state.runner.name(),
        "driver": {
            "memory_used": budget.map_or(0, |b| b.pool().reserved()),
            "memory_limit": budget.map_or(0, |b| b.limit()),
            "spill_bytes": budget.map_or(0, |b| b.disk_manager().used_disk_space()),
            "parallelism": state.parallelism,
        },
        "workers": list,
    })
}
