//! Statements: what a SQL command or a Spark Connect `Command` asks the session to do.

use std::collections::HashMap;

use super::{Expr, Plan};

/// What a write does when its target already exists (Spark's `SaveMode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SaveMode {
    /// The default: fail if the target exists.
    ErrorIfExists,
    Append,
    Overwrite,
    /// Do nothing if the target exists.
    Ignore,
}

/// Where a write goes.
#[derive(Debug, Clone, PartialEq)]
pub enum WriteTarget {
    Path(String),
    /// `saveAsTable` (`insert` false) or `insertInto` (`insert` true).
    Table {
        name: Vec<String>,
        insert: bool,
    },
}

/// A table's bucketing: its rows are written to one file per bucket (a row's bucket is
/// `pmod(hash(columns), num_buckets)`, Spark's), sorted by `sort_columns` within a file.
/// `bucketBy(n, cols).sortBy(...)`, `CLUSTERED BY (cols) SORTED BY (...) INTO n BUCKETS`,
/// `partitionedBy(bucket(n, col))`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Bucketing {
    pub num_buckets: usize,
    pub columns: Vec<String>,
    #[serde(default)]
    pub sort_columns: Vec<String>,
}

/// `df.write...save(path)` and friends.
#[derive(Debug, Clone, PartialEq)]
pub struct WriteSpec {
    pub input: Plan,
    /// `None`: `spark.sql.sources.default` (parquet).
    pub format: Option<String>,
    pub target: WriteTarget,
    pub mode: SaveMode,
    pub partition_by: Vec<String>,
    pub bucketing: Option<Bucketing>,
    /// Spark's writer options as given (keys are case-insensitive).
    pub options: HashMap<String, String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ViewKind {
    /// Session-scoped temporary view.
    Temporary,
    /// Visible to all sessions under `global_temp`.
    GlobalTemporary,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExplainMode {
    Simple,
    Extended,
    Codegen,
    Cost,
    Formatted,
    /// `EXPLAIN ANALYZE` (Ember's, as DataFusion's): run the query, show what each operator
    /// measured.
    Analyze,
}

/// `CREATE TABLE` (and `saveAsTable`/`writeTo` of a new table).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CreateTableSpec {
    pub name: Vec<String>,
    /// The column list as DDL text (`a INT, b STRING COMMENT 'x'`), if given.
    pub columns: Option<String>,
    /// `USING ...`; `None`: `spark.sql.sources.default`.
    pub format: Option<String>,
    pub partition_by: Vec<String>,
    pub bucketing: Option<Bucketing>,
    /// Every `PARTITIONED BY` item in order, transforms included (`days(ts)`): Iceberg tables
    /// take them all; the session catalog only columns and one `bucket` ([`check_transforms`]).
    pub transforms: Vec<PartitionTransform>,
    pub location: Option<String>,
    pub options: Vec<(String, String)>,
    pub comment: Option<String>,
    pub properties: Vec<(String, String)>,
    /// `AS SELECT ...`.
    pub query: Option<Plan>,
    pub if_not_exists: bool,
    pub replace: bool,
    pub external: bool,
}

/// What `df.writeTo(name)` ends with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteV2Mode {
    Create,
    Replace,
    CreateOrReplace,
    Append,
    Overwrite,
    OverwritePartitions,
}

/// `df.writeTo(name)...` (DataFrameWriterV2).
#[derive(Debug, Clone, PartialEq)]
pub struct WriteV2 {
    pub input: Plan,
    pub name: Vec<String>,
    pub provider: Option<String>,
    pub partition_by: Vec<String>,
    pub bucketing: Option<Bucketing>,
    /// `partitionedBy(...)` in order, transforms included.
    pub transforms: Vec<PartitionTransform>,
    pub options: HashMap<String, String>,
    pub properties: Vec<(String, String)>,
    pub mode: WriteV2Mode,
}

/// One partitioning item: a column (`identity`) or a transform of columns and numbers
/// (`bucket(16, id)`, `days(ts)`, `truncate(2, name)`), named as written (lower case).
#[derive(Debug, Clone, PartialEq)]
pub struct PartitionTransform {
    pub name: String,
    pub args: Vec<String>,
}

impl PartitionTransform {
    pub fn identity(column: &str) -> Self {
        PartitionTransform {
            name: "identity".into(),
            args: vec![column.to_string()],
        }
    }

    /// As Spark shows it in errors (`years(ts)`).
    pub fn shown(&self) -> String {
        format!("{}({})", self.name, self.args.join(", "))
    }
}

/// The session catalog's partitioning: columns and at most one `bucket`; any other transform
/// is Spark's UNSUPPORTED_PARTITION_TRANSFORM.
pub fn check_transforms(transforms: &[PartitionTransform]) -> Result<(), crate::SparkError> {
    let mut buckets = 0;
    for t in transforms {
        match t.name.as_str() {
            "identity" => {}
            "bucket" => {
                buckets += 1;
                if buckets > 1 {
                    return Err(crate::SparkError::multiple_bucket_transforms());
                }
            }
            _ => {
                return Err(crate::SparkError::unsupported_partition_transform(
                    &t.shown(),
                ));
            }
        }
    }
    Ok(())
}

/// `ALTER TABLE name ...`.
#[derive(Debug, Clone, PartialEq)]
pub enum AlterTable {
    RenameTo(Vec<String>),
    /// DDL text of the new columns.
    AddColumns(String),
    SetProperties(Vec<(String, String)>),
    UnsetProperties {
        keys: Vec<String>,
        if_exists: bool,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub enum Statement {
    /// A query: returns rows.
    Query(Plan),
    CreateView {
        name: Vec<String>,
        plan: Plan,
        kind: ViewKind,
        replace: bool,
        if_not_exists: bool,
        /// Column names given as `CREATE VIEW v (a, b) AS ...`.
        columns: Vec<String>,
    },
    /// `CREATE [OR REPLACE] VIEW [IF NOT EXISTS] name [(cols)] AS query`: kept in the catalog.
    CreatePersistentView {
        name: Vec<String>,
        /// The query's SQL text, as the view stores it.
        sql: String,
        plan: Plan,
        replace: bool,
        if_not_exists: bool,
        columns: Vec<String>,
    },
    DropView {
        name: Vec<String>,
        if_exists: bool,
    },
    /// `SET` (list), `SET key` (show), `SET key=value`.
    SetConfig {
        key: Option<String>,
        value: Option<String>,
    },
    /// `RESET` or `RESET key`.
    ResetConfig {
        key: Option<String>,
    },
    Explain {
        plan: Plan,
        mode: ExplainMode,
    },
    /// `SHOW CATALOGS [LIKE pattern]`: Ember's one catalog, `spark_catalog`.
    ShowCatalogs {
        pattern: Option<String>,
    },
    ShowTables {
        database: Option<String>,
        pattern: Option<String>,
    },
    ShowViews {
        database: Option<String>,
        pattern: Option<String>,
    },
    ShowDatabases {
        pattern: Option<String>,
    },
    ShowColumns {
        table: Vec<String>,
    },
    ShowFunctions {
        pattern: Option<String>,
        /// `SHOW USER FUNCTIONS`: only functions users registered (none yet).
        user_only: bool,
    },
    /// `DESCRIBE FUNCTION [EXTENDED] name`.
    DescribeFunction {
        name: String,
        extended: bool,
    },
    DescribeTable {
        table: Vec<String>,
        extended: bool,
        /// `DESCRIBE t col`.
        column: Option<Vec<String>>,
    },
    DescribeQuery(Plan),
    /// `DELETE FROM t [WHERE ...]` and `UPDATE t SET ... [WHERE ...]` (Delta tables). The
    /// predicate and values stay SQL text, evaluated by the table format's own engine.
    Delete {
        table: Vec<String>,
        predicate: Option<String>,
    },
    Update {
        table: Vec<String>,
        assignments: Vec<(String, String)>,
        predicate: Option<String>,
    },
    /// `MERGE INTO` a Delta table.
    Merge(Box<MergeSpec>),
    /// `DESCRIBE HISTORY t [LIMIT n]` of a Delta table.
    DescribeHistory {
        table: Vec<String>,
        limit: Option<usize>,
    },
    /// `USE db`.
    Use {
        database: String,
    },
    /// Statements that only check an expression's value (e.g. `SELECT` of a parameter), kept
    /// for completeness of the enum.
    Noop,
    /// A placeholder used while lowering CACHE/UNCACHE: accepted, no effect yet.
    Cache {
        table: Vec<String>,
        plan: Option<Plan>,
        lazy: bool,
    },
    Uncache {
        table: Vec<String>,
        if_exists: bool,
    },
    ClearCache,
    RefreshTable {
        table: Vec<String>,
    },
    /// An expression evaluated for its side effect (kept for SET VARIABLE later).
    Evaluate(Expr),
    /// Write a query's rows to files or a table.
    Write(Box<WriteSpec>),
    CreateDatabase {
        name: String,
        if_not_exists: bool,
        comment: Option<String>,
        location: Option<String>,
        properties: Vec<(String, String)>,
    },
    DropDatabase {
        name: String,
        if_exists: bool,
        cascade: bool,
    },
    DescribeDatabase {
        name: String,
        extended: bool,
    },
    CreateTable(Box<CreateTableSpec>),
    WriteV2(Box<WriteV2>),
    DropTable {
        name: Vec<String>,
        if_exists: bool,
    },
    /// `INSERT INTO|OVERWRITE [TABLE] t [PARTITION (...)] [(cols)] query`.
    Insert {
        table: Vec<String>,
        query: Plan,
        overwrite: bool,
        /// Static partition values (`PARTITION (p = 1)`), `None` for dynamic ones.
        partition: Vec<(String, Option<Expr>)>,
        columns: Vec<String>,
    },
    TruncateTable {
        name: Vec<String>,
    },
    AlterTable {
        name: Vec<String>,
        action: AlterTable,
    },
    ShowCreateTable {
        name: Vec<String>,
    },
    ShowTblProperties {
        name: Vec<String>,
        key: Option<String>,
    },
    ShowPartitions {
        name: Vec<String>,
    },
}

/// `MERGE INTO target [alias] USING source [alias] ON cond WHEN ...`: conditions and values are
/// SQL text (for the table format's engine), the source a query.
#[derive(Debug, Clone, PartialEq)]
pub struct MergeSpec {
    pub target: Vec<String>,
    pub target_alias: Option<String>,
    pub source: Plan,
    pub source_alias: Option<String>,
    pub on: String,
    pub clauses: Vec<MergeClause>,
}

/// A MERGE's clauses are the Delta format's own (`ember_execution::formats::delta`).
pub use ember_execution::formats::delta::{MergeAction, MergeClause, MergeWhen};
