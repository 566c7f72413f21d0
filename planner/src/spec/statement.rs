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

/// `df.write...save(path)` and friends.
#[derive(Debug, Clone, PartialEq)]
pub struct WriteSpec {
    pub input: Plan,
    /// `None`: `spark.sql.sources.default` (parquet).
    pub format: Option<String>,
    pub target: WriteTarget,
    pub mode: SaveMode,
    pub partition_by: Vec<String>,
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
    },
    DescribeTable {
        table: Vec<String>,
        extended: bool,
    },
    DescribeQuery(Plan),
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
}
