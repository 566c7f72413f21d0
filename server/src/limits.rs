//! The server's limits on what clients may hold (static settings, `ember server --conf`):
//! concurrent sessions, idle session expiry (Spark's session manager settings), and artifact
//! bytes per session. Each limit answers with a clear error naming the setting to raise.

use std::time::Duration;

use tonic::Status;

use crate::config::ServerDefaults;

/// Most sessions open at once (`spark.ember.maxSessions`).
pub const MAX_SESSIONS: &str = "spark.ember.maxSessions";
/// Bytes of artifacts one session may hold (`spark.ember.maxArtifactBytes`).
pub const MAX_ARTIFACT_BYTES: &str = "spark.ember.maxArtifactBytes";
/// Spark's idle timeout of a session (`-1`: never).
pub const SESSION_TIMEOUT: &str = "spark.connect.session.manager.defaultSessionTimeout";
/// Spark's interval of the check for expired sessions.
pub const MAINTENANCE_INTERVAL: &str = "spark.connect.session.manager.maintenanceInterval";
/// Spark's count of closed session ids remembered (SESSION_CLOSED rather than a new session).
pub const TOMBSTONES: &str = "spark.connect.session.manager.closedSessionsTombstonesSize";
/// Longest an `ExecutePlan` operation may run (default: no limit).
pub const QUERY_TIMEOUT: &str = "spark.ember.queryTimeout";
/// Longest one task may run (default: no limit). In local mode, where a query runs as one
/// plan rather than as tasks, it bounds the query.
pub const TASK_TIMEOUT: &str = "spark.ember.taskTimeout";

#[derive(Debug, Clone)]
pub struct SessionLimits {
    pub max_sessions: usize,
    /// None: sessions never expire.
    pub idle_timeout: Option<Duration>,
    pub maintenance_interval: Duration,
    pub tombstones: usize,
    pub max_artifact_bytes: usize,
    /// None: operations run as long as they take.
    pub query_timeout: Option<Duration>,
    /// None: tasks run as long as they take.
    pub task_timeout: Option<Duration>,
}

impl Default for SessionLimits {
    fn default() -> Self {
        Self {
            max_sessions: 1000,
            // Spark's defaults: 60 minutes idle, checked every 30 seconds, 1000 tombstones.
            idle_timeout: Some(Duration::from_secs(60 * 60)),
            maintenance_interval: Duration::from_secs(30),
            tombstones: 1000,
            max_artifact_bytes: 1 << 30,
            query_timeout: None,
            task_timeout: None,
        }
    }
}

impl SessionLimits {
    /// The limits from the server's `--conf` values; a value that does not parse is an error.
    pub fn from_conf(defaults: &ServerDefaults) -> Result<Self, String> {
        let mut limits = Self::default();
        let get = |key: &str| defaults.values.get(key).map(|v| v.trim().to_string());
        let bad = |key: &str, v: &str, why: &str| format!("bad --conf {key}={v}: {why}");
        if let Some(v) = get(MAX_SESSIONS) {
            limits.max_sessions = v
                .parse::<usize>()
                .ok()
                .filter(|n| *n > 0)
                .ok_or_else(|| bad(MAX_SESSIONS, &v, "expected a positive count"))?;
        }
        if let Some(v) = get(TOMBSTONES) {
            limits.tombstones = v
                .parse()
                .map_err(|_| bad(TOMBSTONES, &v, "expected a count"))?;
        }
        if let Some(v) = get(MAX_ARTIFACT_BYTES) {
            limits.max_artifact_bytes = ember_execution::memory::parse_size(&v)
                .map_err(|e| bad(MAX_ARTIFACT_BYTES, &v, &e))?;
        }
        if let Some(v) = get(SESSION_TIMEOUT) {
            limits.idle_timeout = if v == "-1" {
                None
            } else {
                Some(
                    parse_duration(&v)
                        .ok_or_else(|| bad(SESSION_TIMEOUT, &v, "expected e.g. 60m, 30s or -1"))?,
                )
            };
        }
        if let Some(v) = get(QUERY_TIMEOUT) {
            limits.query_timeout = parse_duration(&v)
                .filter(|d| !d.is_zero())
                .map(Some)
                .ok_or_else(|| bad(QUERY_TIMEOUT, &v, "expected e.g. 30m or 90s"))?;
        }
        if let Some(v) = get(TASK_TIMEOUT) {
            limits.task_timeout = Some(task_timeout(&v)?);
        }
        if let Some(v) = get(MAINTENANCE_INTERVAL) {
            limits.maintenance_interval = parse_duration(&v)
                .filter(|d| !d.is_zero())
                .ok_or_else(|| bad(MAINTENANCE_INTERVAL, &v, "expected e.g. 30s"))?;
        }
        Ok(limits)
    }

    /// The error of a session that would be one too many.
    pub fn too_many_sessions(&self) -> Status {
        Status::resource_exhausted(format!(
            "Too many sessions: this server serves at most {} at once (the static setting {MAX_SESSIONS}). \
             Stop an unused session (spark.stop()) or wait for idle ones to expire ({SESSION_TIMEOUT}).",
            self.max_sessions
        ))
    }

    /// `spark.ember.taskTimeout` among `ember server --conf KEY=VALUE` entries (the driver
    /// needs it before the sessions' defaults exist).
    pub fn task_timeout_in(conf: &[String]) -> Result<Option<Duration>, String> {
        conf.iter()
            .rev()
            .filter_map(|e| e.split_once('='))
            .find(|(k, _)| k.trim() == TASK_TIMEOUT)
            .map(|(_, v)| task_timeout(v.trim()))
            .transpose()
    }

    /// How long an operation may run, and the setting that says so: the query timeout, and in
    /// local mode (`tasks` false: the query is one plan) the task timeout too.
    pub fn operation_timeout(&self, tasks: bool) -> Option<(Duration, &'static str)> {
        let query = self.query_timeout.map(|d| (d, QUERY_TIMEOUT));
        let task = self
            .task_timeout
            .filter(|_| !tasks)
            .map(|d| (d, TASK_TIMEOUT));
        match (query, task) {
            (Some(q), Some(t)) => Some(if t.0 < q.0 { t } else { q }),
            (q, t) => q.or(t),
        }
    }

    /// The error of an operation that ran past `setting` (`spark.ember.queryTimeout`, or in local
    /// mode `spark.ember.taskTimeout`).
    pub fn query_timed_out(&self, timeout: Duration, setting: &str) -> ember_planner::SparkError {
        ember_planner::SparkError::new(
            ember_planner::error::ErrorKind::Runtime,
            "QUERY_TIMEOUT",
            "HYT00",
            format!(
                "The query ran longer than {timeout:?}, the most this server allows (the static \
                 setting {setting}), and was stopped."
            ),
            vec![],
        )
    }

    /// The error of an artifact that would take the session over its byte limit.
    pub fn too_many_artifact_bytes(&self, name: &str, held: usize, adding: usize) -> Status {
        Status::resource_exhausted(format!(
            "Artifact {name} ({adding} bytes) would take this session's artifacts to {} bytes, \
             more than this server allows per session ({} bytes; the static setting {MAX_ARTIFACT_BYTES}).",
            held.saturating_add(adding),
            self.max_artifact_bytes
        ))
    }
}

fn task_timeout(v: &str) -> Result<Duration, String> {
    parse_duration(v)
        .filter(|d| !d.is_zero())
        .ok_or_else(|| format!("bad --conf {TASK_TIMEOUT}={v}: expected e.g. 30m or 90s"))
}

/// A duration as Spark's time settings write it: a number with `ms`, `s`, `m`/`min`, `h` or
/// `d` (a bare number is milliseconds, Spark's unit for these settings).
pub fn parse_duration(text: &str) -> Option<Duration> {
    let s = text.trim().to_ascii_lowercase();
    let split = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (number, unit) = s.split_at(split);
    let n: u64 = number.parse().ok()?;
    let ms = match unit.trim() {
        "" | "ms" => n,
        "s" => n.checked_mul(1000)?,
        "m" | "min" => n.checked_mul(60_000)?,
        "h" => n.checked_mul(3_600_000)?,
        "d" => n.checked_mul(86_400_000)?,
        _ => return None,
    };
    Some(Duration::from_millis(ms))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_parse_from_conf_with_spark_defaults() {
        let mut d = ServerDefaults::default();
        let limits = SessionLimits::from_conf(&d).unwrap();
        assert_eq!(limits.max_sessions, 1000);
        assert_eq!(limits.idle_timeout, Some(Duration::from_secs(3600)));
        d.values.insert(SESSION_TIMEOUT.into(), "-1".into());
        d.values.insert(MAX_ARTIFACT_BYTES.into(), "10m".into());
        d.values.insert(MAX_SESSIONS.into(), "3".into());
        let limits = SessionLimits::from_conf(&d).unwrap();
        assert_eq!(limits.idle_timeout, None);
        assert_eq!(limits.max_artifact_bytes, 10 << 20);
        assert_eq!(limits.max_sessions, 3);
        assert_eq!(limits.query_timeout, None);
        d.values.insert(QUERY_TIMEOUT.into(), "90s".into());
        assert_eq!(
            SessionLimits::from_conf(&d).unwrap().query_timeout,
            Some(Duration::from_secs(90))
        );
        d.values.insert(MAX_SESSIONS.into(), "0".into());
        assert!(SessionLimits::from_conf(&d).is_err());
        let conf = ["spark.ember.taskTimeout=2s".to_string()];
        assert_eq!(
            SessionLimits::task_timeout_in(&conf).unwrap(),
            Some(Duration::from_secs(2))
        );
        assert!(SessionLimits::task_timeout_in(&["spark.ember.taskTimeout=0s".into()]).is_err());
        let both = SessionLimits {
            query_timeout: Some(Duration::from_secs(9)),
            task_timeout: Some(Duration::from_secs(2)),
            ..SessionLimits::default()
        };
        assert_eq!(
            both.operation_timeout(false),
            Some((Duration::from_secs(2), TASK_TIMEOUT))
        );
        assert_eq!(
            both.operation_timeout(true),
            Some((Duration::from_secs(9), QUERY_TIMEOUT))
        );
        assert_eq!(parse_duration("2s"), Some(Duration::from_secs(2)));
        assert_eq!(parse_duration("1500"), Some(Duration::from_millis(1500)));
        assert_eq!(parse_duration("5x"), None);
    }
}
