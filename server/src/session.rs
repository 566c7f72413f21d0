//! Spark sessions: per-client state keyed by (user id, session id) — configuration, catalog,
//! artifacts, running operations and recent errors — isolated from other sessions.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::Arc;
use std::time::Instant;

use bytes::Bytes;
use datafusion::execution::{SessionState, SessionStateBuilder};
use datafusion::prelude::{SessionConfig, SessionContext};
use ember_execution::formats::storage::StorageOptions;
use ember_planner::SparkError;
use ember_planner::catalog::{ServerCatalog, SessionCatalog};
use parking_lot::Mutex;
use tonic::Status;

use crate::config::{ServerDefaults, SessionConf};
use crate::error::{ErrorRecord, invalid_handle};
use crate::execute::operation::Operation;
use crate::limits::SessionLimits;

/// Errors kept per session for `FetchErrorDetails`.
const MAX_KEPT_ERRORS: usize = 64;

pub struct Session {
    /// The client's user id (sessions are keyed by user and session id).
    #[allow(dead_code)]
    pub user_id: String,
    pub session_id: String,
    /// Constant for the life of the session; the client checks it on every response.
    pub server_side_session_id: String,
    pub conf: SessionConf,
    pub catalog: SessionCatalog,
    pub artifacts: Mutex<HashMap<String, Bytes>>,
    pub operations: Mutex<HashMap<String, Arc<Operation>>>,
    errors: Mutex<VecDeque<(String, ErrorRecord)>>,
    pub target_partitions: usize,
    /// Plan ids of `spark.catalog.createTable` relations that already created their table.
    pub created_by_plan: Mutex<HashSet<i64>>,
    /// Rows of checkpointed DataFrames, by the relation id the client holds.
    pub checkpoints: Mutex<HashMap<String, Arc<ember_planner::spec::LocalData>>>,
    /// The tables and DataFrames the session cached, with their storage levels.
    pub cache: crate::cache::CacheRegistry,
    /// When a request last used the session (idle sessions expire).
    last_used: Mutex<Instant>,
    /// The DataFusion state built from the settings at a version of them (building one takes
    /// longer than planning a short query; each request gets its own copy).
    datafusion_state: Mutex<Option<(u64, SessionState)>>,
}

impl Session {
    fn new(
        user_id: &str,
        session_id: &str,
        defaults: ServerDefaults,
        global: Arc<ServerCatalog>,
        target_partitions: usize,
    ) -> Self {
        Self {
            user_id: user_id.to_string(),
            session_id: session_id.to_string(),
            server_side_session_id: uuid::Uuid::new_v4().to_string(),
            conf: SessionConf::new(defaults),
            catalog: SessionCatalog::new(global),
            artifacts: Mutex::new(HashMap::new()),
            operations: Mutex::new(HashMap::new()),
            errors: Mutex::new(VecDeque::new()),
            target_partitions,
            created_by_plan: Mutex::new(HashSet::new()),
            checkpoints: Mutex::new(HashMap::new()),
            cache: Default::default(),
            last_used: Mutex::new(Instant::now()),
            datafusion_state: Mutex::new(None),
        }
    }

    fn touch(&self) {
        *self.last_used.lock() = Instant::now();
    }

    /// Whether the session has been idle for `timeout` with nothing running.
    fn expired(&self, now: Instant, timeout: std::time::Duration) -> bool {
        now.saturating_duration_since(*self.last_used.lock()) >= timeout
            && self.operations.lock().values().all(|op| op.is_finished())
    }

    /// Keep an artifact, unless the session's artifacts would exceed `limits`.
    pub fn add_artifact(
        &self,
        limits: &SessionLimits,
        name: String,
        data: Bytes,
    ) -> Result<(), Status> {
        let mut artifacts = self.artifacts.lock();
        let held: usize = artifacts
            .iter()
            .filter(|(n, _)| **n != name)
            .map(|(_, b)| b.len())
            .sum();
        if held.saturating_add(data.len()) > limits.max_artifact_bytes {
            return Err(limits.too_many_artifact_bytes(&name, held, data.len()));
        }
        artifacts.insert(name, data);
        // The session's Python data sources read with the artifacts it has now.
        let python = ember_execution::python::PythonArtifacts::new(
            artifacts
                .iter()
                .map(|(n, b)| (n.clone(), Arc::from(b.as_ref()))),
        );
        self.catalog.set_data_source_artifacts(python);
        Ok(())
    }

    /// The key of the session's Python artifacts, if it has any.
    pub fn python_artifacts_key(&self) -> Option<String> {
        ember_execution::python::PythonArtifacts::new(
            self.artifacts
                .lock()
                .iter()
                .map(|(n, b)| (n.clone(), Arc::from(b.as_ref()))),
        )
        .map(|a| a.key.clone())
    }

    /// Bytes of the artifacts the session holds.
    pub fn artifact_bytes(&self) -> usize {
        self.artifacts.lock().values().map(|b| b.len()).sum()
    }

    /// A DataFusion context for one request, configured from the session's settings.
    /// `configure` lets the job runner adjust execution settings it depends on (the same for
    /// every request of a server). The state is built once per version of the settings; each
    /// context has its own copy of it.
    pub fn datafusion_context(&self, configure: impl FnOnce(&mut SessionConfig)) -> SessionContext {
        SessionContext::new_with_state(self.datafusion_state(configure))
    }

    /// The state of [`Self::datafusion_context`], for planning without a context.
    pub fn datafusion_state(&self, configure: impl FnOnce(&mut SessionConfig)) -> SessionState {
        let version = self.conf.version();
        if let Some((built, state)) = self.datafusion_state.lock().as_ref()
            && *built == version
        {
            return state.clone();
        }
        let state = self.build_datafusion_state(configure);
        *self.datafusion_state.lock() = Some((version, state.clone()));
        state
    }

    fn build_datafusion_state(&self, configure: impl FnOnce(&mut SessionConfig)) -> SessionState {
        // `spark.sql.shuffle.partitions` sets the partitions of exchanges when the session
        // chose it; Spark's default of 200 is for clusters, so the core count is used instead.
        let partitions = if self.conf.is_set("spark.sql.shuffle.partitions") {
            self.conf.shuffle_partitions()
        } else {
            self.target_partitions
        };
        let mut config = SessionConfig::new()
            .with_target_partitions(partitions.max(1))
            .with_batch_size(8192)
            .with_information_schema(false);
        let options = config.options_mut();
        options.execution.time_zone = Some(self.conf.time_zone());
        options.execution.parquet.schema_force_view_types = false;
        // Uncorrelated scalar subqueries become joins: the physical subquery operator shares
        // state across partitions, which tasks of a job graph cannot.
        options
            .optimizer
            .enable_physical_uncorrelated_scalar_subquery = false;
        options.sql_parser.enable_ident_normalization = false;
        // Duplicate map keys: an error, or the last one wins (datafusion-spark's map functions
        // read this; the planner builds `map(...)` on them for LAST_WIN).
        if self.conf.planner_config(1).map_key_last_win {
            let _ = options.set("datafusion.spark.map_key_dedup_policy", "LAST_WIN");
        }
        // Spark's broadcast threshold is DataFusion's single-partition (CollectLeft) threshold
        // (DataFusion's own default is 1 MiB; Spark's 10 MiB collects more small sides, TPC-H
        // SF1 about 2 % faster in one run). Off: no join side is collected by its size.
        match self.conf.broadcast_threshold() {
            Some(bytes) => options.optimizer.hash_join_single_partition_threshold = bytes,
            None => {
                options.optimizer.hash_join_single_partition_threshold = 0;
                options.optimizer.hash_join_single_partition_threshold_rows = 0;
            }
        }
        // Spark's runtime bloom filters: DataFusion's join dynamic filters in a process, and
        // the key filters between a shuffled join's stages in a job graph.
        if self
            .conf
            .get("spark.sql.optimizer.runtime.bloomFilter.enabled")
            .is_some_and(|v| v.trim().eq_ignore_ascii_case("false"))
        {
            options.optimizer.enable_join_dynamic_filter_pushdown = false;
        }
        // Join modes are chosen on estimates whose byte sizes follow the rows a join keeps
        // (`join_statistics`).
        options.optimizer.use_statistics_registry = true;
        configure(&mut config);
        ember_execution::memory::configure(&mut config);
        // Spill files (sorts' and stage outputs'): Spark's `spark.shuffle.compress` (false:
        // uncompressed) and `spark.io.compression.codec` (zstd; lz4, the default, for the
        // others: lz4, lzf and snappy are all fast codecs, and Arrow IPC has LZ4 and ZSTD).
        let compress = self
            .conf
            .get("spark.shuffle.compress")
            .is_none_or(|v| !v.trim().eq_ignore_ascii_case("false"));
        let codec = self.conf.get("spark.io.compression.codec");
        config.options_mut().execution.spill_compression = match codec.as_deref() {
            _ if !compress => datafusion::common::config::SpillCompression::Uncompressed,
            Some(c) if c.trim().eq_ignore_ascii_case("zstd") => {
                datafusion::common::config::SpillCompression::Zstd
            }
            _ => datafusion::common::config::SpillCompression::Lz4Frame,
        };
        // Spark's `spark.sql.join.preferSortMergeJoin`, when the session sets it: sort-merge
        // joins (which spill) for every shuffled equi-join. Unset, Ember picks by the build
        // side's estimated size against the memory limit (`memory::SpillableJoins`).
        if self.conf.is_set("spark.sql.join.preferSortMergeJoin") {
            let sort_merge = self
                .conf
                .get("spark.sql.join.preferSortMergeJoin")
                .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"));
            config.options_mut().optimizer.prefer_hash_join = !sort_merge;
        }
        // Object stores (`s3a://...`) come from the session's `spark.hadoop.fs.*` settings,
        // which travel with the job's tasks.
        let all = self.conf.all();
        let storage =
            StorageOptions::from_session(all.iter().map(|(k, v)| (k.as_str(), v.as_str())));
        let runtime = match ember_execution::formats::storage::runtime_env(storage.clone()) {
            Ok(runtime) => runtime,
            Err(e) => {
                tracing::warn!(error = %e, "cannot configure object stores");
                Arc::new(Default::default())
            }
        };
        let config = config.with_extension(Arc::new(storage));
        SessionStateBuilder::new()
            .with_config(config)
            .with_runtime_env(runtime)
            .with_default_features()
            .with_query_planner(Arc::new(ember_planner::logical::EmberQueryPlanner))
            .with_optimizer_rule(Arc::new(
                ember_planner::logical::join_order::SinkFilteredJoins,
            ))
            .with_optimizer_rule(Arc::new(
                ember_planner::logical::key_reduction::ReduceAggregateKeys,
            ))
            .with_optimizer_rule(Arc::new(ember_planner::logical::semi_joins::SinkSemiJoins))
            .with_optimizer_rule(Arc::new(ember_planner::logical::like_parts::LikeOfParts))
            .with_statistics_registry(ember_execution::join_statistics::registry())
            .with_physical_optimizer_rules(ember_execution::limit_fence::fenced_default_rules())
            .with_physical_optimizer_rule(Arc::new(
                ember_execution::formats::parquet_strings::ReadStringsPlain,
            ))
            .with_physical_optimizer_rule(Arc::new(
                ember_execution::formats::filter_views::FilterStringViews,
            ))
            .with_physical_optimizer_rule(Arc::new(ember_execution::conjunctions::FlatConjunctions))
            .with_physical_optimizer_rule(Arc::new(ember_execution::rules::SparkLimitOrder))
            .with_physical_optimizer_rule(Arc::new(ember_execution::rules::InputFileInScan))
            .with_physical_optimizer_rule(Arc::new(
                ember_execution::memory::SpillableJoins::default(),
            ))
            // (Last: the projections are where the other rules left them.)
            .with_physical_optimizer_rule(Arc::new(
                ember_planner::logical::python_eval::ExtractPythonUdfs,
            ))
            .build()
    }

    pub fn remember_error(&self, error: ErrorRecord) -> String {
        let id = uuid::Uuid::new_v4().to_string();
        let mut errors = self.errors.lock();
        if errors.len() >= MAX_KEPT_ERRORS {
            errors.pop_front();
        }
        errors.push_back((id.clone(), error));
        id
    }

    pub fn take_error(&self, id: &str) -> Option<ErrorRecord> {
        let mut errors = self.errors.lock();
        let pos = errors.iter().position(|(e, _)| e == id)?;
        errors.remove(pos).map(|(_, e)| e)
    }

    pub fn artifact(&self, name: &str) -> Option<Bytes> {
        self.artifacts.lock().get(name).cloned()
    }

    /// Cancel every running operation (session release, server shutdown).
    pub fn interrupt_all(&self) -> Vec<String> {
        let ops: Vec<Arc<Operation>> = self.operations.lock().values().cloned().collect();
        ops.iter()
            .filter(|op| op.interrupt())
            .map(|op| op.id.clone())
            .collect()
    }
}

/// Closed session ids, oldest first, at most `limits.tombstones` of them (Spark's tombstones).
#[derive(Default)]
struct Tombstones {
    set: HashSet<(String, String)>,
    order: VecDeque<(String, String)>,
}

impl Tombstones {
    fn insert(&mut self, key: (String, String), cap: usize) {
        if cap == 0 || !self.set.insert(key.clone()) {
            return;
        }
        self.order.push_back(key);
        while self.order.len() > cap {
            if let Some(old) = self.order.pop_front() {
                self.set.remove(&old);
            }
        }
    }
}

#[derive(Default)]
pub struct SessionManager {
    sessions: Mutex<HashMap<(String, String), Arc<Session>>>,
    closed: Mutex<Tombstones>,
    pub limits: SessionLimits,
}

impl SessionManager {
    pub fn new(limits: SessionLimits) -> Self {
        Self {
            limits,
            ..Default::default()
        }
    }

    /// Close the sessions idle for longer than the timeout (and running nothing): their state
    /// is released and their ids answer INVALID_HANDLE.SESSION_CLOSED, as Spark's expiry does.
    pub fn expire_idle(&self) -> Vec<Arc<Session>> {
        let Some(timeout) = self.limits.idle_timeout else {
            return vec![];
        };
        let now = Instant::now();
        let expired: Vec<Arc<Session>> = {
            let mut sessions = self.sessions.lock();
            let keys: Vec<(String, String)> = sessions
                .iter()
                .filter(|(_, s)| s.expired(now, timeout))
                .map(|(k, _)| k.clone())
                .collect();
            let mut closed = self.closed.lock();
            keys.into_iter()
                .filter_map(|k| {
                    closed.insert(k.clone(), self.limits.tombstones);
                    sessions.remove(&k)
                })
                .collect()
        };
        for s in &expired {
            s.interrupt_all();
            tracing::info!(session = %s.session_id, "session expired after {timeout:?} idle");
        }
        self.forget_python_artifacts(&expired);
        expired
    }

    /// The session for this client, created on first use. A session the client released,
    /// or one whose server-side id the client saw differs from ours, is an error.
    pub fn get_or_create(
        &self,
        user_id: &str,
        session_id: &str,
        observed_server_side_id: Option<&str>,
        defaults: impl FnOnce() -> ServerDefaults,
        global: &Arc<ServerCatalog>,
        target_partitions: usize,
    ) -> Result<Arc<Session>, Status> {
        let key = self.open_key(user_id, session_id)?;
        let mut sessions = self.sessions.lock();
        if !sessions.contains_key(&key) && sessions.len() >= self.limits.max_sessions {
            // Idle sessions may have expired since the last check.
            drop(sessions);
            self.expire_idle();
            sessions = self.sessions.lock();
            if sessions.len() >= self.limits.max_sessions {
                return Err(self.limits.too_many_sessions());
            }
        }
        let session = sessions
            .entry(key)
            .or_insert_with(|| {
                Arc::new(Session::new(
                    user_id,
                    session_id,
                    defaults(),
                    global.clone(),
                    target_partitions,
                ))
            })
            .clone();
        session.touch();
        check_observed(&session, observed_server_side_id)?;
        Ok(session)
    }

    /// The session if it exists, without creating it (`GetStatus`, the source of
    /// `CloneSession`): INVALID_HANDLE.SESSION_NOT_FOUND otherwise, as Spark answers.
    pub fn existing(
        &self,
        user_id: &str,
        session_id: &str,
        observed_server_side_id: Option<&str>,
    ) -> Result<Arc<Session>, Status> {
        let key = self.open_key(user_id, session_id)?;
        let Some(session) = self.sessions.lock().get(&key).cloned() else {
            return Err(crate::error::status_of(
                &SparkError::new(
                    ember_planner::error::ErrorKind::SparkSql,
                    "INVALID_HANDLE.SESSION_NOT_FOUND",
                    "08003",
                    format!("The handle {session_id} is invalid. Session not found."),
                    vec![("handle", session_id.to_string())],
                ),
                None,
            ));
        };
        session.touch();
        check_observed(&session, observed_server_side_id)?;
        Ok(session)
    }

    /// The key of a well-formed session id that was not closed.
    fn open_key(&self, user_id: &str, session_id: &str) -> Result<(String, String), Status> {
        validate_session_id(session_id)?;
        let key = (user_id.to_string(), session_id.to_string());
        if self.closed.lock().set.contains(&key) {
            return Err(invalid_handle(
                "INVALID_HANDLE.SESSION_CLOSED",
                &format!("The handle {session_id} is invalid. Session was closed."),
            ));
        }
        Ok(key)
    }

    /// Remove a session; its operations are cancelled. With `allow_reconnect`, the id may
    /// be used again and gets a fresh session.
    pub fn release(
        &self,
        user_id: &str,
        session_id: &str,
        allow_reconnect: bool,
    ) -> Option<Arc<Session>> {
        let key = (user_id.to_string(), session_id.to_string());
        let removed = self.sessions.lock().remove(&key);
        if let Some(s) = &removed {
            s.interrupt_all();
            self.forget_python_artifacts(std::slice::from_ref(s));
        }
        // Only a session that existed leaves a tombstone (Spark's), so releasing an id never
        // used keeps it usable.
        if !allow_reconnect && removed.is_some() {
            self.closed.lock().insert(key, self.limits.tombstones);
        }
        removed
    }

    /// Remove this process's copies of the Python artifacts of `closed` sessions that no open
    /// session shares (a set's copy is keyed by its contents).
    fn forget_python_artifacts(&self, closed: &[Arc<Session>]) {
        let open: HashSet<String> = self
            .all()
            .iter()
            .filter_map(|s| s.python_artifacts_key())
            .collect();
        for key in closed.iter().filter_map(|s| s.python_artifacts_key()) {
            if !open.contains(&key) {
                ember_execution::python::forget_artifacts(&key);
            }
        }
    }

    pub fn all(&self) -> Vec<Arc<Session>> {
        self.sessions.lock().values().cloned().collect()
    }
}

/// A session whose server-side id differs from the one the client saw was restarted.
fn check_observed(session: &Session, observed: Option<&str>) -> Result<(), Status> {
    if let Some(observed) = observed
        && !observed.is_empty()
        && observed != session.server_side_session_id
    {
        return Err(invalid_handle(
            "INVALID_HANDLE.SESSION_CHANGED",
            &format!(
                "The handle {} is invalid. The existing Spark server driver instance has restarted. Please reconnect.",
                session.session_id
            ),
        ));
    }
    Ok(())
}

fn validate_session_id(id: &str) -> Result<(), Status> {
    if uuid::Uuid::parse_str(id).is_err() {
        return Err(crate::error::status_of(
            &SparkError::new(
                ember_planner::error::ErrorKind::IllegalArgument,
                "INVALID_HANDLE.FORMAT",
                "HY000",
                format!(
                    "The handle {id} is invalid. Handle must be an UUID string of the format '00112233-4455-6677-8899-aabbccddeeff'"
                ),
                vec![("handle", id.to_string())],
            ),
            None,
        ));
    }
    Ok(())
}
