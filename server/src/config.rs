//! Spark configuration: Spark's defaults for the keys clients ask for, session-scoped overrides,
//! and the typed settings the planner and DataFusion take from them.

use std::collections::BTreeMap;

use ember_planner::PlannerConfig;
use ember_planner::SparkError;
use ember_planner::error::ErrorKind;
use parking_lot::RwLock;

/// A known key: its default (None: unset unless given) and whether sessions may change it.
pub struct ConfigEntry {
    pub key: &'static str,
    pub default: Option<&'static str>,
    pub modifiable: bool,
}

const fn entry(key: &'static str, default: Option<&'static str>, modifiable: bool) -> ConfigEntry {
    ConfigEntry {
        key,
        default,
        modifiable,
    }
}

/// Spark 4's defaults for the keys PySpark reads, recorded from a real Spark Connect server.
pub const DEFAULTS: &[ConfigEntry] = &[
    entry("spark.app.name", Some("Ember"), false),
    entry("spark.master", Some("local[*]"), false),
    entry(
        "spark.connect.session.planCompression.defaultAlgorithm",
        Some("ZSTD"),
        true,
    ),
    entry(
        "spark.connect.session.planCompression.threshold",
        Some("10485760"),
        true,
    ),
    entry("spark.sql.adaptive.enabled", Some("true"), true),
    entry("spark.sql.ansi.enabled", Some("true"), true),
    entry(
        "spark.sql.artifact.isolation.alwaysApplyClassloader",
        Some("true"),
        true,
    ),
    entry("spark.sql.artifact.isolation.enabled", Some("true"), true),
    entry(
        "spark.sql.autoBroadcastJoinThreshold",
        Some("10485760b"),
        true,
    ),
    entry("spark.sql.caseSensitive", Some("false"), true),
    entry(
        "spark.sql.connect.serverStacktrace.enabled",
        Some("true"),
        true,
    ),
    entry("spark.sql.crossJoin.enabled", Some("true"), true),
    entry("spark.sql.debug.maxToStringFields", Some("25"), true),
    entry("spark.sql.defaultCatalog", Some("spark_catalog"), true),
    entry(
        "spark.sql.execution.arrow.maxRecordsPerBatch",
        Some("10000"),
        true,
    ),
    entry(
        "spark.sql.execution.arrow.pyspark.enabled",
        Some("true"),
        true,
    ),
    entry(
        "spark.sql.execution.arrow.pyspark.fallback.enabled",
        Some("true"),
        true,
    ),
    entry(
        "spark.sql.execution.arrow.pyspark.selfDestruct.enabled",
        Some("false"),
        true,
    ),
    entry(
        "spark.sql.execution.arrow.useLargeVarTypes",
        Some("false"),
        true,
    ),
    entry(
        "spark.sql.execution.pandas.convertToArrowArraySafely",
        Some("true"),
        true,
    ),
    entry(
        "spark.sql.execution.pandas.inferPandasDictAsMap",
        Some("false"),
        true,
    ),
    entry(
        "spark.sql.execution.pandas.structHandlingMode",
        Some("legacy"),
        true,
    ),
    entry(
        "spark.sql.execution.pyspark.binaryAsBytes",
        Some("true"),
        true,
    ),
    entry(
        "spark.sql.execution.pythonUDF.arrow.enabled",
        Some("true"),
        true,
    ),
    entry(
        "spark.sql.execution.pythonUDTF.arrow.enabled",
        Some("true"),
        true,
    ),
    entry(
        "spark.sql.files.maxPartitionBytes",
        Some("134217728b"),
        true,
    ),
    entry("spark.sql.leafNodeDefaultParallelism", None, true),
    entry("spark.sql.mapKeyDedupPolicy", Some("EXCEPTION"), true),
    entry("spark.sql.legacy.timeParserPolicy", Some("CORRECTED"), true),
    entry("spark.sql.maxMetadataStringLength", Some("100"), true),
    entry(
        "spark.sql.optimizer.runtime.bloomFilter.enabled",
        Some("true"),
        true,
    ),
    entry("spark.sql.parquet.compression.codec", Some("snappy"), true),
    entry(
        "spark.sql.pyspark.inferNestedDictAsStruct.enabled",
        Some("false"),
        true,
    ),
    entry(
        "spark.sql.pyspark.jvmStacktrace.enabled",
        Some("false"),
        true,
    ),
    entry(
        "spark.sql.pyspark.legacy.inferArrayTypeFromFirstElement.enabled",
        Some("false"),
        true,
    ),
    entry(
        "spark.sql.pyspark.legacy.inferMapTypeFromFirstPair.enabled",
        Some("false"),
        true,
    ),
    entry("spark.sql.repl.eagerEval.enabled", Some("false"), true),
    entry("spark.sql.repl.eagerEval.maxNumRows", Some("20"), true),
    entry("spark.sql.repl.eagerEval.truncate", Some("20"), true),
    entry(
        "spark.sql.session.localRelationBatchOfChunksSizeBytes",
        Some("1073741824"),
        true,
    ),
    entry(
        "spark.sql.session.localRelationCacheThreshold",
        Some("1048576"),
        true,
    ),
    entry(
        "spark.sql.session.localRelationChunkSizeBytes",
        Some("16777216"),
        true,
    ),
    entry(
        "spark.sql.session.localRelationChunkSizeRows",
        Some("10000"),
        true,
    ),
    entry(
        "spark.sql.session.localRelationSizeLimit",
        Some("3221225472"),
        true,
    ),
    entry("spark.sql.session.timeZone", None, true),
    entry("spark.sql.shuffle.partitions", Some("200"), true),
    entry("spark.sql.sources.default", Some("parquet"), true),
    entry(
        "spark.sql.streaming.stateStore.providerClass",
        Some("org.apache.spark.sql.execution.streaming.state.HDFSBackedStateStoreProvider"),
        true,
    ),
    entry("spark.sql.timestampType", Some("TIMESTAMP_LTZ"), true),
    entry("spark.sql.warehouse.dir", None, false),
    // Ember's own: the most partitions a query may ask for (`range`, `repartition`,
    // `coalesce`, `spark.sql.shuffle.partitions`); static, set with `ember server --conf`.
    entry("spark.ember.maxPartitions", Some("100000"), false),
    // Ember's own limits (see `limits.rs`), static like the one above.
    entry("spark.ember.maxSessions", Some("1000"), false),
    entry("spark.ember.maxArtifactBytes", Some("1073741824"), false),
    entry("spark.ember.queryTimeout", None, false),
    entry("spark.ember.taskTimeout", None, false),
    // The most relations a plan may nest (a chain of DataFrame operations); the protobuf
    // decoder's own limit (4,096 levels, two per relation) caps it at 2,000.
    entry("spark.ember.maxPlanDepth", Some("2000"), false),
    // The most levels one expression may nest (SQL text or Spark Connect message): planning
    // costs O(depth^2), so this bounds the time one request may take before any work.
    entry("spark.ember.maxExpressionDepth", Some("1200"), false),
];

fn known(key: &str) -> Option<&'static ConfigEntry> {
    DEFAULTS.iter().find(|e| e.key == key)
}

/// Spark's static SQL settings: fixed when the server starts (CANNOT_MODIFY_STATIC_CONFIG).
const STATIC_KEYS: &[&str] = &[
    "spark.ember.maxPartitions",
    "spark.ember.maxSessions",
    "spark.ember.maxArtifactBytes",
    "spark.ember.queryTimeout",
    "spark.ember.taskTimeout",
    "spark.ember.maxPlanDepth",
    "spark.ember.maxExpressionDepth",
    "spark.sql.warehouse.dir",
    "spark.sql.globalTempDatabase",
    "spark.sql.extensions",
    "spark.sql.catalogImplementation",
    "spark.sql.sources.schemaStringLengthThreshold",
    "spark.sql.ui.retainedExecutions",
    "spark.sql.cache.serializer",
    "spark.sql.queryExecutionListeners",
    "spark.sql.streaming.streamingQueryListeners",
    "spark.sql.event.truncate.length",
    "spark.sql.broadcastExchange.maxThreadThreshold",
    "spark.sql.subquery.maxThreadThreshold",
    "spark.sql.filesourceTableRelationCacheSize",
    "spark.sql.codegen.cache.maxEntries",
    "spark.sql.codegen.comments",
    "spark.sql.metadataCacheTTLSeconds",
    "spark.sql.legacy.sessionInitWithConfigDefaults",
];
const STATIC_PREFIXES: &[&str] = &["spark.connect.grpc.", "spark.connect.session.manager."];

/// Families of Spark's core (SparkConf) settings, which a session cannot change
/// (CANNOT_MODIFY_CONFIG); `spark.app.name`, `spark.master` and other keys Spark registers no
/// entry for may be set.
const CORE_PREFIXES: &[&str] = &[
    "spark.executor.",
    "spark.driver.",
    "spark.memory.",
    "spark.shuffle.",
    "spark.dynamicAllocation.",
    "spark.task.",
    "spark.network.",
    "spark.rpc.",
    "spark.locality.",
    "spark.scheduler.",
    "spark.speculation",
    "spark.ui.",
    "spark.eventLog.",
    "spark.submit.",
    "spark.kryo",
    "spark.serializer",
    "spark.cores.max",
    "spark.files",
    "spark.jars",
];

/// Settings whose value is one of a few options (case-insensitive), as Spark checks them.
const OPTIONS: &[(&str, &[&str])] = &[("spark.sql.mapKeyDedupPolicy", &["EXCEPTION", "LAST_WIN"])];

/// Why Spark refuses to set `key` to `value`, if it does: the key's (see [`set_refusal`]) or
/// a value out of the key's options.
pub fn value_refusal(key: &str, value: Option<&str>) -> Option<SparkError> {
    if let Some(e) = set_refusal(key) {
        return Some(e);
    }
    let (name, options) = OPTIONS.iter().find(|(k, _)| *k == key)?;
    let value = value?;
    if options.iter().any(|o| o.eq_ignore_ascii_case(value.trim())) {
        return None;
    }
    let listed = options.join(", ");
    Some(SparkError::new(
        ErrorKind::IllegalArgument,
        "INVALID_CONF_VALUE.OUT_OF_RANGE_OF_OPTIONS",
        "22022",
        format!(
            "The value '{value}' in the config \"{name}\" is invalid. It should be one of '{listed}'."
        ),
        vec![
            ("confValue", value.to_string()),
            ("confName", name.to_string()),
            ("confOptions", listed.clone()),
        ],
    ))
}

/// Why Spark refuses a session's `set` of `key` (`spark.conf.set`, SQL `SET`), if it does.
pub fn set_refusal(key: &str) -> Option<SparkError> {
    if STATIC_KEYS.contains(&key) || STATIC_PREFIXES.iter().any(|p| key.starts_with(p)) {
        return Some(SparkError::new(
            ErrorKind::Analysis,
            "CANNOT_MODIFY_STATIC_CONFIG",
            "46110",
            format!("Cannot modify the value of the static Spark config: \"{key}\"."),
            vec![("key", format!("\"{key}\""))],
        ));
    }
    if CORE_PREFIXES.iter().any(|p| key.starts_with(p)) {
        return Some(SparkError::new(
            ErrorKind::Analysis,
            "CANNOT_MODIFY_CONFIG",
            "46110",
            format!(
                "Cannot modify the value of the Spark config: \"{key}\".\nSee also 'https://spark.apache.org/docs/latest/sql-migration-guide.html#ddl-statements'."
            ),
            vec![
                ("key", format!("\"{key}\"")),
                (
                    "docroot",
                    "https://spark.apache.org/docs/latest".to_string(),
                ),
            ],
        ));
    }
    None
}

/// Values fixed when the server starts (warehouse dir, time zone of the machine, ...).
#[derive(Debug, Clone, Default)]
pub struct ServerDefaults {
    pub values: BTreeMap<String, String>,
}

/// One session's configuration.
pub struct SessionConf {
    server: ServerDefaults,
    overrides: RwLock<BTreeMap<String, String>>,
    /// Counts the changes of `overrides` (what was built from the settings is rebuilt when
    /// it moves).
    version: std::sync::atomic::AtomicU64,
}

impl SessionConf {
    pub fn new(server: ServerDefaults) -> Self {
        Self {
            server,
            overrides: RwLock::new(BTreeMap::new()),
            version: Default::default(),
        }
    }

    /// The settings' version: it changes whenever a setting is set or unset.
    pub fn version(&self) -> u64 {
        self.version.load(std::sync::atomic::Ordering::Acquire)
    }

    /// The effective value: session override, else server value, else Spark's default.
    pub fn get(&self, key: &str) -> Option<String> {
        if let Some(v) = self.overrides.read().get(key) {
            return Some(v.clone());
        }
        if let Some(v) = self.server.values.get(key) {
            return Some(v.clone());
        }
        known(key).and_then(|e| e.default.map(str::to_string))
    }

    /// Whether Spark knows the key at all (unknown keys raise SQL_CONF_NOT_FOUND on get).
    pub fn is_known(&self, key: &str) -> bool {
        self.overrides.read().contains_key(key)
            || self.server.values.contains_key(key)
            || known(key).is_some()
    }

    pub fn set(&self, key: &str, value: &str) {
        let mut overrides = self.overrides.write();
        overrides.insert(key.to_string(), value.to_string());
        self.version
            .fetch_add(1, std::sync::atomic::Ordering::AcqRel);
    }

    pub fn unset(&self, key: &str) {
        let mut overrides = self.overrides.write();
        overrides.remove(key);
        self.version
            .fetch_add(1, std::sync::atomic::Ordering::AcqRel);
    }

    pub fn is_modifiable(&self, key: &str) -> bool {
        match known(key) {
            Some(e) => e.modifiable,
            None => key.starts_with("spark.sql.") || !key.starts_with("spark."),
        }
    }

    /// All explicitly set values and server values (Spark's `getAll`), sorted by key.
    pub fn all(&self) -> Vec<(String, String)> {
        let mut out: BTreeMap<String, String> = self.server.values.clone();
        for (k, v) in self.overrides.read().iter() {
            out.insert(k.clone(), v.clone());
        }
        out.into_iter().collect()
    }

    fn bool(&self, key: &str, default: bool) -> bool {
        self.get(key)
            .map(|v| v.trim().eq_ignore_ascii_case("true"))
            .unwrap_or(default)
    }

    fn i64(&self, key: &str, default: i64) -> i64 {
        self.get(key)
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(default)
    }

    pub(crate) fn usize(&self, key: &str, default: usize) -> usize {
        self.get(key)
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(default)
    }

    pub fn time_zone(&self) -> String {
        self.get("spark.sql.session.timeZone")
            .unwrap_or_else(|| "UTC".to_string())
    }

    /// Whether the session set the key itself (rather than using a default).
    pub fn is_set(&self, key: &str) -> bool {
        self.overrides.read().contains_key(key)
    }

    pub fn shuffle_partitions(&self) -> usize {
        self.usize("spark.sql.shuffle.partitions", 200).max(1)
    }

    /// `spark.sql.autoBroadcastJoinThreshold`: a join side estimated at fewer bytes is built
    /// once and shared by every partition of the other side (Spark's broadcast hash join).
    /// `None` when the session turned broadcasting by size off (0 or a negative size).
    pub fn broadcast_threshold(&self) -> Option<usize> {
        const DEFAULT: usize = 10 << 20;
        let Some(value) = self.get("spark.sql.autoBroadcastJoinThreshold") else {
            return Some(DEFAULT);
        };
        let value = value.trim();
        if value.starts_with('-')
            || value.trim_end_matches(|c: char| c.is_ascii_alphabetic()) == "0"
        {
            return None;
        }
        Some(ember_execution::memory::parse_size(value).unwrap_or(DEFAULT))
    }

    /// The `spark.sql.catalog.<name>[.<key>]` settings by lower-case catalog name (the
    /// catalog's class under ""); `spark_catalog` is Ember's own.
    fn catalogs(&self) -> BTreeMap<String, BTreeMap<String, String>> {
        let mut out: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
        for (k, v) in self.all() {
            let Some(rest) = k.strip_prefix("spark.sql.catalog.") else {
                continue;
            };
            let (name, key) = rest.split_once('.').unwrap_or((rest, ""));
            if name.eq_ignore_ascii_case("spark_catalog") || name.is_empty() {
                continue;
            }
            out.entry(name.to_ascii_lowercase())
                .or_default()
                .insert(key.to_string(), v);
        }
        out
    }

    /// The settings the planner honours, read once per request.
    pub fn planner_config(&self, default_parallelism: usize) -> PlannerConfig {
        PlannerConfig {
            case_sensitive: self.bool("spark.sql.caseSensitive", false),
            ansi: self.bool("spark.sql.ansi.enabled", true),
            time_zone: self.time_zone(),
            default_parallelism: self
                .get("spark.sql.leafNodeDefaultParallelism")
                .and_then(|v| v.parse().ok())
                .unwrap_or(default_parallelism)
                .max(1),
            // (Spark's default of 200 fits any limit; a count the session set is checked.)
            shuffle_partitions: if self.is_set("spark.sql.shuffle.partitions") {
                self.shuffle_partitions()
            } else {
                self.shuffle_partitions()
                    .min(self.usize("spark.ember.maxPartitions", 100_000).max(1))
            },
            map_key_last_win: self
                .get("spark.sql.mapKeyDedupPolicy")
                .is_some_and(|v| v.trim().eq_ignore_ascii_case("LAST_WIN")),
            max_partitions: self.usize("spark.ember.maxPartitions", 100_000).max(1),
            python: self.get("spark.pyspark.python"),
            arrow_batch_size: match self.get("spark.sql.execution.arrow.maxRecordsPerBatch") {
                // Spark: zero or a negative number means no limit.
                Some(v) => match v.trim().parse::<i64>() {
                    Ok(n) if n > 0 => n as usize,
                    Ok(_) => usize::MAX,
                    Err(_) => 10_000,
                },
                None => 10_000,
            },
            python_filter_pushdown: self
                .get("spark.sql.python.filterPushdown.enabled")
                .is_some_and(|v| v.trim().eq_ignore_ascii_case("true")),
            timestamp_nanos: self.bool("spark.sql.timestampNanosTypes.enabled", false),
            catalogs: self.catalogs(),
            cte_recursion_level_limit: self.i64("spark.sql.cteRecursionLevelLimit", 100),
            cte_recursion_row_limit: self.i64("spark.sql.cteRecursionRowLimit", 1_000_000),
            ..PlannerConfig::default()
        }
    }
}

/// The machine's time zone name, as Spark's JVM would pick it up (TZ, then /etc/localtime).
pub fn system_time_zone() -> String {
    if let Ok(tz) = std::env::var("TZ") {
        let tz = tz.trim_start_matches(':').to_string();
        if tz.parse::<chrono_tz::Tz>().is_ok() {
            return tz;
        }
    }
    if let Ok(target) = std::fs::read_link("/etc/localtime") {
        let s = target.to_string_lossy();
        if let Some(idx) = s.find("zoneinfo/") {
            let name = &s[idx + "zoneinfo/".len()..];
            if name.parse::<chrono_tz::Tz>().is_ok() {
                return name.to_string();
            }
        }
    }
    if let Ok(name) = std::fs::read_to_string("/etc/timezone") {
        let name = name.trim();
        if name.parse::<chrono_tz::Tz>().is_ok() {
            return name.to_string();
        }
    }
    "UTC".to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sessions_override_defaults_and_unset_restores_them() {
        let c = SessionConf::new(ServerDefaults::default());
        assert_eq!(
            c.get("spark.sql.shuffle.partitions").as_deref(),
            Some("200")
        );
        c.set("spark.sql.shuffle.partitions", "7");
        assert_eq!(c.shuffle_partitions(), 7);
        c.unset("spark.sql.shuffle.partitions");
        assert_eq!(c.shuffle_partitions(), 200);
        assert!(c.get("no.such.key").is_none());
        assert!(!c.is_modifiable("spark.sql.warehouse.dir"));
        assert!(set_refusal("spark.sql.warehouse.dir").is_some());
        assert!(set_refusal("spark.executor.memory").is_some());
        assert!(set_refusal("spark.app.name").is_none());
        assert!(c.is_modifiable("spark.sql.ansi.enabled"));
    }
}
