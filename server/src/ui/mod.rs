//! The job UI on `--ui-port` (beside `/metrics`): a single page (`page.html`, embedded in the
//! binary) that polls a small JSON API (`api.rs`): `/api/queries` (running and finished
//! queries of every session), `/api/queries/<operation id>` (one query's stages, drawn as a
//! DAG, and task attempts) and `/api/workers`.
//!
//! This module keeps the queries: every ExecutePlan operation registers here while it runs
//! ([`QueryGuard::started`]) and moves to a bounded history when it ends ([`HISTORY`]
//! finished queries; their task records are bounded by the progress itself).

mod api;

use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, LazyLock};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use ember_execution::progress::QueryProgress;
use ember_protos::spark::connect as pb;
use parking_lot::Mutex;

pub use api::route;

/// Finished queries kept for the UI.
pub const HISTORY: usize = 200;

/// Characters of a query's text kept (SQL or plan summary).
const TEXT_LIMIT: usize = 8_000;

/// Where a query stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueryStatus {
    Running,
    Succeeded,
    Failed,
    /// Interrupted or released before it ended.
    Interrupted,
}

impl QueryStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            QueryStatus::Running => "running",
            QueryStatus::Succeeded => "succeeded",
            QueryStatus::Failed => "failed",
            QueryStatus::Interrupted => "interrupted",
        }
    }
}

struct Ended {
    at: Instant,
    status: QueryStatus,
    error: Option<String>,
}

/// One query (ExecutePlan operation) as the UI shows it.
pub struct QueryEntry {
    /// Registration order, for sorting.
    seq: u64,
    pub operation_id: String,
    pub session_id: String,
    pub user_id: String,
    text: Mutex<String>,
    pub started_unix_ms: u64,
    started: Instant,
    ended: Mutex<Option<Ended>>,
    pub progress: Arc<QueryProgress>,
}

impl QueryEntry {
    pub fn text(&self) -> String {
        self.text.lock().clone()
    }

    pub fn status(&self) -> QueryStatus {
        self.ended
            .lock()
            .as_ref()
            .map_or(QueryStatus::Running, |e| e.status)
    }

    pub fn error(&self) -> Option<String> {
        self.ended.lock().as_ref().and_then(|e| e.error.clone())
    }

    /// Milliseconds it ran (so far).
    pub fn duration_ms(&self) -> u64 {
        let end = self
            .ended
            .lock()
            .as_ref()
            .map_or_else(Instant::now, |e| e.at);
        end.saturating_duration_since(self.started).as_millis() as u64
    }

    pub fn started(&self) -> Instant {
        self.started
    }
}

#[derive(Default)]
struct Registry {
    next: u64,
    running: BTreeMap<u64, Arc<QueryEntry>>,
    finished: VecDeque<Arc<QueryEntry>>,
}

static REGISTRY: LazyLock<Mutex<Registry>> = LazyLock::new(Mutex::default);

/// Running queries (oldest first), then finished ones (newest first).
pub fn queries() -> Vec<Arc<QueryEntry>> {
    let r = REGISTRY.lock();
    r.running
        .values()
        .cloned()
        .chain(r.finished.iter().rev().cloned())
        .collect()
}

/// The query of an operation id, running or in the history.
pub fn query(operation_id: &str) -> Option<Arc<QueryEntry>> {
    let r = REGISTRY.lock();
    r.running
        .values()
        .chain(r.finished.iter())
        .find(|q| q.operation_id == operation_id)
        .cloned()
}

fn unix_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

fn bounded(mut text: String) -> String {
    if text.len() > TEXT_LIMIT {
        let mut cut = TEXT_LIMIT;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
        text.push_str(" ...");
    }
    text
}

/// A query registered with the UI; dropped before [`QueryGuard::ended`], it ends as
/// interrupted.
pub struct QueryGuard {
    entry: Arc<QueryEntry>,
    ended: bool,
}

impl QueryGuard {
    /// An operation started running `text` (its SQL, or a summary of its plan).
    pub fn started(
        session_id: &str,
        user_id: &str,
        operation_id: &str,
        text: String,
        progress: Arc<QueryProgress>,
    ) -> Self {
        let mut r = REGISTRY.lock();
        let seq = r.next;
        r.next += 1;
        let entry = Arc::new(QueryEntry {
            seq,
            operation_id: operation_id.to_string(),
            session_id: session_id.to_string(),
            user_id: user_id.to_string(),
            text: Mutex::new(bounded(text)),
            started_unix_ms: unix_ms(),
            started: Instant::now(),
            ended: Mutex::new(None),
            progress,
        });
        r.running.insert(seq, entry.clone());
        Self {
            entry,
            ended: false,
        }
    }

    /// The operation ended; `error` if it failed.
    pub fn ended(mut self, error: Option<String>) {
        self.ended = true;
        let status = if error.is_some() {
            QueryStatus::Failed
        } else {
            QueryStatus::Succeeded
        };
        finish(&self.entry, status, error);
    }
}

impl Drop for QueryGuard {
    fn drop(&mut self) {
        if !self.ended {
            finish(&self.entry, QueryStatus::Interrupted, None);
        }
    }
}

fn finish(entry: &Arc<QueryEntry>, status: QueryStatus, error: Option<String>) {
    *entry.ended.lock() = Some(Ended {
        at: Instant::now(),
        status,
        error: error.map(bounded),
    });
    let mut r = REGISTRY.lock();
    if let Some(e) = r.running.remove(&entry.seq) {
        r.finished.push_back(e);
        while r.finished.len() > HISTORY {
            r.finished.pop_front();
        }
    }
}

/// Set what the UI shows of a running query once its plan is resolved (a DataFrame's
/// logical plan, in place of the name of its root relation).
pub fn describe(progress: &Arc<QueryProgress>, text: String) {
    let r = REGISTRY.lock();
    if let Some(q) = r
        .running
        .values()
        .find(|q| Arc::ptr_eq(&q.progress, progress))
    {
        let mut current = q.text.lock();
        // SQL text stays: it is what the user wrote.
        if !current.starts_with("SQL: ") {
            *current = bounded(text);
        }
    }
}

/// What a plan is before it is resolved: its SQL text, or the kind of its root.
pub fn plan_text(plan: &pb::Plan) -> String {
    use pb::plan::OpType;
    match &plan.op_type {
        Some(OpType::Root(rel)) => relation_text(rel),
        Some(OpType::Command(cmd)) => match &cmd.command_type {
            Some(pb::command::CommandType::SqlCommand(sql)) => {
                match sql.input.as_ref().and_then(|r| r.rel_type.as_ref()) {
                    Some(pb::relation::RelType::Sql(s)) => format!("SQL: {}", s.query),
                    _ => "SQL command".to_string(),
                }
            }
            Some(other) => format!("Command: {}", variant_name(other)),
            None => "Command".to_string(),
        },
        Some(OpType::CompressedOperation(_)) => "Compressed plan".to_string(),
        None => String::new(),
    }
}

fn relation_text(rel: &pb::Relation) -> String {
    match &rel.rel_type {
        Some(pb::relation::RelType::Sql(s)) => format!("SQL: {}", s.query),
        Some(other) => format!("DataFrame: {}", variant_name(other)),
        None => "DataFrame".to_string(),
    }
}

/// The name of an enum value's variant, from its `Debug` text.
fn variant_name(value: &dyn std::fmt::Debug) -> String {
    let text = format!("{value:?}");
    text.split(|c: char| !c.is_alphanumeric() && c != '_')
        .next()
        .unwrap_or_default()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn history_is_bounded_and_sql_stays() {
        for i in 0..(HISTORY + 10) {
            let g = QueryGuard::started(
                "s",
                "u",
                &format!("op-{i}"),
                "SQL: SELECT 1".into(),
                QueryProgress::new(),
            );
            if i % 2 == 0 {
                g.ended(None);
            } else {
                drop(g);
            }
        }
        let all = queries();
        assert!(all.len() <= HISTORY + 1, "{}", all.len());
        let last = query(&format!("op-{}", HISTORY + 9));
        assert_eq!(last.map(|q| q.status()), Some(QueryStatus::Interrupted));
        assert!(query("op-0").is_none());
        let p = QueryProgress::new();
        let g = QueryGuard::started("s", "u", "op-x", "SQL: SELECT 2".into(), p.clone());
        describe(&p, "Projection".into());
        assert_eq!(
            query("op-x").map(|q| q.text()),
            Some("SQL: SELECT 2".into())
        );
        g.ended(Some("boom".into()));
        assert_eq!(query("op-x").map(|q| q.status()), Some(QueryStatus::Failed));
        assert_eq!(bounded("é".repeat(TEXT_LIMIT)).len(), TEXT_LIMIT + 4);
    }
}
