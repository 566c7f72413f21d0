//! `/metrics` on `--ui-port` (Spark's 4040 by default, the next free one of 16 when taken, as
//! Spark's UI does; `0` turns it off): the server's counters in Prometheus' text format.
//! Queries running, finished and failed, tasks run, bytes written to exchanges, bytes
//! spilled, memory in use and spill files (this process's and, from their heartbeats, the
//! worker processes'), sessions, workers alive (cluster modes). The HTTP side is a minimal
//! HTTP/1.1 responder (one request per connection) that also serves the job UI (`ui/`): no
//! framework for a page and a few JSON routes.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use ember_execution::cluster::WorkerInfo;
use ember_execution::metrics::MetricNode;
use ember_execution::progress::QueryProgress;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use crate::auth::TokenAuth;
use crate::state::ServerState;

/// Ports tried after `--ui-port` when it is taken (Spark's `spark.port.maxRetries`).
const PORT_RETRIES: u16 = 16;

/// A gauge of each worker process: name, help, its value.
type WorkerGauge = (&'static str, &'static str, fn(&WorkerInfo) -> Option<u64>);

/// What worker processes report with their heartbeats.
const WORKER_GAUGES: [WorkerGauge; 3] = [
    (
        "ember_worker_memory_used_bytes",
        "Memory reserved in a worker process's pool (last heartbeat).",
        |w| w.memory_used,
    ),
    (
        "ember_worker_memory_limit_bytes",
        "A worker process's memory limit.",
        |w| w.memory_limit,
    ),
    (
        "ember_worker_spill_disk_bytes",
        "Bytes of a worker process's spill files (last heartbeat).",
        |w| w.spill_bytes,
    ),
];

/// Counters of the whole process.
#[derive(Default)]
struct Counters {
    started: AtomicU64,
    finished: AtomicU64,
    failed: AtomicU64,
    tasks: AtomicU64,
    shuffle_bytes: AtomicU64,
    shuffle_rows: AtomicU64,
    spilled_bytes: AtomicU64,
    output_rows: AtomicU64,
}

static COUNTERS: Counters = Counters {
    started: AtomicU64::new(0),
    finished: AtomicU64::new(0),
    failed: AtomicU64::new(0),
    tasks: AtomicU64::new(0),
    shuffle_bytes: AtomicU64::new(0),
    shuffle_rows: AtomicU64::new(0),
    spilled_bytes: AtomicU64::new(0),
    output_rows: AtomicU64::new(0),
};

/// An operation running; dropped before [`QueryGuard::ended`] (interrupted), it counts as
/// failed.
pub struct QueryGuard {
    ended: bool,
}

impl QueryGuard {
    /// An operation started.
    pub fn started() -> Self {
        COUNTERS.started.fetch_add(1, Ordering::Relaxed);
        Self { ended: false }
    }

    /// The operation ended; what it ran is added to the totals.
    pub fn ended(mut self, failed: bool, progress: &QueryProgress) {
        self.ended = true;
        query_ended(failed, progress);
    }
}

impl Drop for QueryGuard {
    fn drop(&mut self) {
        if !self.ended {
            COUNTERS.failed.fetch_add(1, Ordering::Relaxed);
        }
    }
}

fn query_ended(failed: bool, progress: &QueryProgress) {
    let c = &COUNTERS;
    if failed {
        c.failed.fetch_add(1, Ordering::Relaxed);
    } else {
        c.finished.fetch_add(1, Ordering::Relaxed);
    }
    let tasks: i64 = progress
        .snapshot()
        .stages
        .iter()
        .map(|s| s.num_completed_tasks)
        .sum();
    c.tasks.fetch_add(tasks.max(0) as u64, Ordering::Relaxed);
    let nodes = progress.operator_tree();
    let sum = |name: &str, of: &dyn Fn(&MetricNode) -> bool| -> u64 {
        nodes
            .iter()
            .filter(|n| of(n))
            .flat_map(|n| &n.metrics)
            .filter(|m| m.name == name)
            .map(|m| m.value.max(0) as u64)
            .sum()
    };
    let exchange = |n: &MetricNode| n.name == "Exchange";
    c.shuffle_bytes
        .fetch_add(sum("shuffleBytesWritten", &exchange), Ordering::Relaxed);
    c.shuffle_rows
        .fetch_add(sum("shuffleRecordsWritten", &exchange), Ordering::Relaxed);
    c.spilled_bytes
        .fetch_add(sum("spillSize", &|_| true), Ordering::Relaxed);
    let root = |n: &MetricNode| n.parent == n.id;
    c.output_rows
        .fetch_add(sum("numOutputRows", &root), Ordering::Relaxed);
}

/// The metrics page in Prometheus' text format.
pub fn render(state: &ServerState) -> String {
    let c = &COUNTERS;
    let get = |a: &AtomicU64| a.load(Ordering::Relaxed);
    let started = get(&c.started);
    let ended = get(&c.finished) + get(&c.failed);
    let memory = ember_execution::memory::installed()
        .map(|b| b.pool().reserved() as u64)
        .unwrap_or(0);
    let memory_limit = ember_execution::memory::installed()
        .map(|b| b.limit() as u64)
        .unwrap_or(0);
    let rows: [(&str, &str, &str, u64); 12] = [
        (
            "ember_queries_running",
            "gauge",
            "Operations running now.",
            started.saturating_sub(ended),
        ),
        (
            "ember_queries_finished_total",
            "counter",
            "Operations that succeeded.",
            get(&c.finished),
        ),
        (
            "ember_queries_failed_total",
            "counter",
            "Operations that failed or were interrupted.",
            get(&c.failed),
        ),
        (
            "ember_tasks_completed_total",
            "counter",
            "Tasks (partitions of stages) completed.",
            get(&c.tasks),
        ),
        (
            "ember_shuffle_bytes_written_total",
            "counter",
            "Bytes stages wrote to exchanges (cluster modes).",
            get(&c.shuffle_bytes),
        ),
        (
            "ember_shuffle_records_written_total",
            "counter",
            "Rows stages wrote to exchanges (cluster modes).",
            get(&c.shuffle_rows),
        ),
        (
            "ember_spilled_bytes_total",
            "counter",
            "Bytes operators spilled to disk.",
            get(&c.spilled_bytes),
        ),
        (
            "ember_output_rows_total",
            "counter",
            "Rows the queries' plans returned.",
            get(&c.output_rows),
        ),
        (
            "ember_memory_used_bytes",
            "gauge",
            "Memory reserved in this process's pool.",
            memory,
        ),
        (
            "ember_memory_limit_bytes",
            "gauge",
            "This process's memory limit (--memory-limit).",
            memory_limit,
        ),
        (
            "ember_sessions",
            "gauge",
            "Spark Connect sessions open.",
            state.sessions.all().len() as u64,
        ),
        (
            "ember_build_info",
            "gauge",
            "Always 1; the Spark version Ember answers as in a label.",
            1,
        ),
    ];
    let mut out = String::new();
    if let Some(workers) = state.runner.workers_alive() {
        out.push_str(&format!(
            "# HELP ember_workers_alive Workers registered with the driver and not lost.\n\
             # TYPE ember_workers_alive gauge\nember_workers_alive {workers}\n"
        ));
    }
    let spill = ember_execution::memory::installed()
        .map(|b| b.disk_manager().used_disk_space())
        .unwrap_or(0);
    out.push_str(&format!(
        "# HELP ember_spill_disk_bytes Bytes of this process's spill files now.\n\
         # TYPE ember_spill_disk_bytes gauge\nember_spill_disk_bytes {spill}\n"
    ));
    // Worker processes report their memory and spill files with their heartbeats.
    let reporting: Vec<_> = state
        .runner
        .workers()
        .unwrap_or_default()
        .into_iter()
        .filter(|w| w.alive && w.memory_used.is_some())
        .collect();
    if !reporting.is_empty() {
        for (name, help, of) in WORKER_GAUGES {
            out.push_str(&format!("# HELP {name} {help}\n# TYPE {name} gauge\n"));
            for w in &reporting {
                out.push_str(&format!(
                    "{name}{{worker=\"{}\"}} {}\n",
                    w.id,
                    of(w).unwrap_or(0)
                ));
            }
        }
    }
    for (name, kind, help, value) in rows {
        out.push_str(&format!("# HELP {name} {help}\n# TYPE {name} {kind}\n"));
        if name == "ember_build_info" {
            out.push_str(&format!(
                "{name}{{version=\"{}\",spark_version=\"{}\"}} {value}\n",
                env!("CARGO_PKG_VERSION"),
                state.spark_version
            ));
        } else {
            out.push_str(&format!("{name} {value}\n"));
        }
    }
    out
}

/// Listen on `host:port` (or the next free port of [`PORT_RETRIES`]); `None` if `port` is 0
/// or no port was free (a warning says so: the server runs on without).
pub async fn bind(host: &str, port: u16) -> Option<TcpListener> {
    if port == 0 {
        return None;
    }
    for p in port..=port.saturating_add(PORT_RETRIES) {
        if let Ok(listener) = TcpListener::bind((host, p)).await {
            return Some(listener);
        }
    }
    tracing::warn!(
        "no free port for /metrics in {port}..={}: serving no metrics (--ui-port)",
        port.saturating_add(PORT_RETRIES)
    );
    None
}

/// Answer HTTP requests on `listener` until the process ends.
/// With `--auth-token`, every request needs the token (see [`TokenAuth::check_http`]).
pub async fn serve(listener: TcpListener, state: Arc<ServerState>, auth: TokenAuth) {
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            continue;
        };
        let state = state.clone();
        let auth = auth.clone();
        tokio::spawn(async move {
            if let Err(e) = answer(stream, &state, &auth).await {
                tracing::debug!("metrics request failed: {e}");
            }
        });
    }
}

async fn answer(
    mut stream: TcpStream,
    state: &ServerState,
    auth: &TokenAuth,
) -> std::io::Result<()> {
    let mut request = Vec::with_capacity(1024);
    let mut buf = [0u8; 1024];
    while !request.windows(4).any(|w| w == b"\r\n\r\n") && request.len() < 16 * 1024 {
        let n = tokio::time::timeout(std::time::Duration::from_secs(5), stream.read(&mut buf))
            .await
            .map_err(|_| std::io::Error::other("request timed out"))??;
        if n == 0 {
            break;
        }
        request.extend_from_slice(&buf[..n]);
    }
    let text = String::from_utf8_lossy(&request);
    let mut parts = text.lines().next().unwrap_or_default().split_whitespace();
    let (method, path) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    let (path, query) = path.split_once('?').unwrap_or((path, ""));
    let authorization = text.lines().skip(1).find_map(|line| {
        let (name, value) = line.split_once(':')?;
        name.trim()
            .eq_ignore_ascii_case("authorization")
            .then(|| value.trim())
    });
    let query_token = query
        .split('&')
        .find_map(|pair| pair.strip_prefix("token="));
    let authorized = auth.check_http(authorization, query_token);
    let (status, kind, body) = match (method, path) {
        _ if !authorized => (
            "401 Unauthorized",
            "text/plain",
            "authentication required: send `Authorization: Bearer TOKEN` or open the page \
             with ?token=TOKEN (the server's --auth-token)\n"
                .to_string(),
        ),
        ("GET", "/metrics") => (
            "200 OK",
            "text/plain; version=0.0.4; charset=utf-8",
            render(state),
        ),
        ("GET", _) => crate::ui::route(path, state).unwrap_or((
            "404 Not Found",
            "text/plain",
            "not found\n".to_string(),
        )),
        _ => (
            "405 Method Not Allowed",
            "text/plain",
            "GET only\n".to_string(),
        ),
    };
    let challenge = if authorized {
        ""
    } else {
        "WWW-Authenticate: Bearer\r\n"
    };
    let head = format!(
        "HTTP/1.1 {status}\r\n{challenge}Content-Type: {kind}\r\nContent-Length: {}\r\n\
         Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n\
         Content-Security-Policy: default-src 'none'; script-src 'unsafe-inline'; \
         style-src 'unsafe-inline'; connect-src 'self'; img-src 'self' data:\r\n\
         Connection: close\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).await?;
    if method != "HEAD" {
        stream.write_all(body.as_bytes()).await?;
    }
    stream.shutdown().await
}
