//! The session settings the resolver honours.

/// Session settings the resolver honours.
#[derive(Debug, Clone)]
pub struct PlannerConfig {
    /// `spark.sql.caseSensitive`.
    pub case_sensitive: bool,
    /// `spark.sql.ansi.enabled`.
    pub ansi: bool,
    /// `spark.sql.session.timeZone`.
    pub time_zone: String,
    /// Partitions of `spark.range` when none are given (Spark's default parallelism).
    pub default_parallelism: usize,
    /// `spark.sql.shuffle.partitions`: partitions of repartition-by-expression.
    pub shuffle_partitions: usize,
    /// `spark.sql.mapKeyDedupPolicy` is LAST_WIN: a map's duplicate keys keep the last value.
    pub map_key_last_win: bool,
    /// The Spark version the server answers as (`--spark-version`): `version()` reports it.
    pub spark_version: String,
    /// `spark.pyspark.python`: the interpreter of Python UDFs, unless `--python` or
    /// `PYSPARK_PYTHON` name one.
    pub python: Option<String>,
    /// `spark.sql.execution.arrow.maxRecordsPerBatch`: rows per batch sent to Python UDFs.
    pub arrow_batch_size: usize,
    /// `spark.sql.python.filterPushdown.enabled`: Python data sources may implement
    /// `pushFilters` (otherwise such a source is refused, as Spark refuses it).
    pub python_filter_pushdown: bool,
    /// The most partitions a query may ask for (`spark.ember.maxPartitions`): a larger count
    /// (`range(0, 10, 1, 2000000000)`) is an error, not hours of empty tasks.
    pub max_partitions: usize,
    /// `spark.sql.timestampNanosTypes.enabled`: TIMESTAMP_LTZ(9)/TIMESTAMP_NTZ(9) allowed
    /// (see `functions::timestamp_nanos`).
    pub timestamp_nanos: bool,
    /// The `spark.sql.catalog.<name>` settings, by lower-case catalog name: the catalog's
    /// class under "" and each `spark.sql.catalog.<name>.<key>` under its key (Iceberg
    /// catalogs, see `datasource::iceberg`).
    pub catalogs: std::collections::BTreeMap<String, std::collections::BTreeMap<String, String>>,
    /// `spark.sql.cteRecursionLevelLimit`: the most steps a recursive CTE may take that add
    /// rows (-1: no limit).
    pub cte_recursion_level_limit: i64,
    /// `spark.sql.cteRecursionRowLimit`: the most rows a recursive CTE may give (-1: no limit).
    pub cte_recursion_row_limit: i64,
}

impl Default for PlannerConfig {
    fn default() -> Self {
        Self {
            case_sensitive: false,
            ansi: true,
            time_zone: crate::types::DEFAULT_TIME_ZONE.to_string(),
            default_parallelism: 1,
            shuffle_partitions: 200,
            map_key_last_win: false,
            spark_version: SPARK_VERSION.to_string(),
            python: None,
            arrow_batch_size: 10_000,
            python_filter_pushdown: false,
            max_partitions: 100_000,
            timestamp_nanos: false,
            catalogs: Default::default(),
            cte_recursion_level_limit: 100,
            cte_recursion_row_limit: 1_000_000,
        }
    }
}

/// The Spark version Ember answers as unless `--spark-version` says otherwise.
pub const SPARK_VERSION: &str = "4.3.0";
