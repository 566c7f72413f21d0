//! Persistent catalog metadata: databases and tables of the session catalog (`spark_catalog`),
//! kept under the warehouse directory so that they survive a restart.
//!
//! The whole catalog is one JSON document, `<warehouse>/.ember-catalog/catalog.json`. Every
//! change writes a new document to a temporary file, syncs it and renames it over the old one,
//! so a crash in the middle of a DDL statement leaves either the old catalog or the new one.
//! Changes are serialized by one lock; readers see the last committed state.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use parking_lot::{Mutex, RwLock};
use serde::{Deserialize, Serialize};

use crate::error::{PlanError, PlanResult, SparkError};

/// The database every catalog has and that cannot be dropped.
pub const DEFAULT_DATABASE: &str = "default";
const CATALOG_DIR: &str = ".ember-catalog";
const CATALOG_FILE: &str = "catalog.json";
const FORMAT_VERSION: u32 = 1;

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct DatabaseMeta {
    pub name: String,
    /// Absolute local path of the database's directory.
    pub location: String,
    #[serde(default)]
    pub comment: Option<String>,
    #[serde(default)]
    pub properties: BTreeMap<String, String>,
    /// Whether Ember made the directory (it did not exist at CREATE DATABASE): only then may
    /// DROP DATABASE remove it, and only when nothing but what Ember wrote is left in it.
    #[serde(default)]
    pub created_location: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct TableMeta {
    pub database: String,
    pub name: String,
    /// The data source: parquet, csv, json, text.
    pub format: String,
    /// Spark's JSON form of the table's columns (a struct), partition columns last.
    pub schema: serde_json::Value,
    #[serde(default)]
    pub partition_columns: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bucketing: Option<crate::spec::Bucketing>,
    /// Absolute local path of the table's data.
    pub location: String,
    /// Managed tables own their data (DROP TABLE deletes it); external ones do not.
    pub managed: bool,
    #[serde(default)]
    pub options: BTreeMap<String, String>,
    #[serde(default)]
    pub properties: BTreeMap<String, String>,
    #[serde(default)]
    pub comment: Option<String>,
    /// Creation time, milliseconds since the epoch.
    pub created_ms: i64,
}

impl TableMeta {
    /// `spark_catalog.db.name`, as Spark qualifies a table's columns.
    pub fn qualified_name(&self) -> Vec<String> {
        vec![
            "spark_catalog".to_string(),
            self.database.clone(),
            self.name.clone(),
        ]
    }

    pub fn schema_json(&self) -> String {
        self.schema.to_string()
    }
}

/// A persistent view: its query's SQL text, resolved afresh at each use.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ViewMeta {
    pub database: String,
    pub name: String,
    pub sql: String,
    /// Column names given as `CREATE VIEW v (a, b)`.
    #[serde(default)]
    pub columns: Vec<String>,
    #[serde(default)]
    pub comment: Option<String>,
    pub created_ms: i64,
}

/// The catalog document.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CatalogState {
    version: u32,
    /// By lower-case name.
    pub databases: BTreeMap<String, DatabaseMeta>,
    /// Database name -> table name -> table (lower-case names).
    pub tables: BTreeMap<String, BTreeMap<String, TableMeta>>,
    /// Database name -> view name -> persistent view (lower-case names).
    #[serde(default)]
    pub views: BTreeMap<String, BTreeMap<String, ViewMeta>>,
}

impl CatalogState {
    pub fn table(&self, database: &str, name: &str) -> Option<&TableMeta> {
        self.tables.get(database).and_then(|t| t.get(name))
    }

    pub fn view(&self, database: &str, name: &str) -> Option<&ViewMeta> {
        self.views.get(database).and_then(|t| t.get(name))
    }

    /// Whether a table or a persistent view has this name.
    pub fn exists(&self, database: &str, name: &str) -> bool {
        self.table(database, name).is_some() || self.view(database, name).is_some()
    }
}

/// The persistent catalog of one server.
pub struct Warehouse {
    root: PathBuf,
    state: RwLock<CatalogState>,
    writing: Mutex<()>,
}

fn io_error(what: &str, path: &Path, e: std::io::Error) -> PlanError {
    PlanError::InvalidPlan(format!("cannot {what} {}: {e}", path.display()))
}

impl Warehouse {
    /// The catalog under `root`, as last committed (an empty one with `default` if none).
    pub fn open(root: PathBuf) -> PlanResult<Self> {
        let file = root.join(CATALOG_DIR).join(CATALOG_FILE);
        let state = match std::fs::read_to_string(&file) {
            Ok(text) => {
                let state: CatalogState = serde_json::from_str(&text).map_err(|e| {
                    PlanError::InvalidPlan(format!("corrupt catalog {}: {e}", file.display()))
                })?;
                if state.version != FORMAT_VERSION {
                    return Err(PlanError::Unsupported(format!(
                        "catalog format version {} in {}",
                        state.version,
                        file.display()
                    )));
                }
                state
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let mut databases = BTreeMap::new();
                databases.insert(
                    DEFAULT_DATABASE.to_string(),
                    DatabaseMeta {
                        name: DEFAULT_DATABASE.to_string(),
                        location: root.display().to_string(),
                        comment: Some("default database".to_string()),
                        properties: BTreeMap::new(),
                        created_location: false,
                    },
                );
                CatalogState {
                    version: FORMAT_VERSION,
                    databases,
                    tables: BTreeMap::new(),
                    views: BTreeMap::new(),
                }
            }
            Err(e) => return Err(io_error("read", &file, e)),
        };
        Ok(Self {
            root,
            state: RwLock::new(state),
            writing: Mutex::new(()),
        })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// A snapshot of the committed catalog.
    pub fn snapshot(&self) -> CatalogState {
        self.state.read().clone()
    }

    pub fn database(&self, name: &str) -> Option<DatabaseMeta> {
        self.state
            .read()
            .databases
            .get(&name.to_ascii_lowercase())
            .cloned()
    }

    pub fn table(&self, database: &str, name: &str) -> Option<TableMeta> {
        self.state
            .read()
            .table(&database.to_ascii_lowercase(), &name.to_ascii_lowercase())
            .cloned()
    }

    pub fn view(&self, database: &str, name: &str) -> Option<ViewMeta> {
        self.state
            .read()
            .view(&database.to_ascii_lowercase(), &name.to_ascii_lowercase())
            .cloned()
    }

    /// Where a new database's directory goes: `<warehouse>/<name>.db`.
    pub fn default_database_location(&self, name: &str) -> PathBuf {
        self.root.join(format!("{}.db", name.to_ascii_lowercase()))
    }

    /// Change the catalog: `change` edits a copy, which is then made durable and published.
    /// Changes are serialized, so `change` sees every earlier change.
    pub fn update<R>(
        &self,
        change: impl FnOnce(&mut CatalogState) -> PlanResult<R>,
    ) -> PlanResult<R> {
        let _writing = self.writing.lock();
        let mut next = self.state.read().clone();
        let out = change(&mut next)?;
        self.persist(&next)?;
        *self.state.write() = next;
        Ok(out)
    }

    fn persist(&self, state: &CatalogState) -> PlanResult<()> {
        let dir = self.root.join(CATALOG_DIR);
        std::fs::create_dir_all(&dir).map_err(|e| io_error("create", &dir, e))?;
        let text = serde_json::to_string_pretty(state)
            .map_err(|e| PlanError::InvalidPlan(format!("cannot encode the catalog: {e}")))?;
        let tmp = dir.join(format!("{CATALOG_FILE}.tmp-{}", uuid::Uuid::new_v4()));
        let written = (|| {
            let mut f = std::fs::File::create(&tmp)?;
            f.write_all(text.as_bytes())?;
            f.sync_all()?;
            std::fs::rename(&tmp, dir.join(CATALOG_FILE))?;
            // The rename itself is durable once the directory is synced.
            std::fs::File::open(&dir)?.sync_all()
        })();
        if let Err(e) = written {
            let _ = std::fs::remove_file(&tmp);
            return Err(io_error("write", &dir.join(CATALOG_FILE), e));
        }
        Ok(())
    }
}

/// Whether `name` may name a persistent table or database. Spark's rule
/// (`SessionCatalog.validateName`): ASCII letters, digits and `_` only. It is also what keeps a
/// table's or database's directory inside its parent: no `/`, `\\`, `..`, NUL or absolute path
/// can get through. Spark's errors: `INVALID_ATTRIBUTE_NAME_SYNTAX` when the name has an empty
/// part between dots (`..`, `../x`), else `INVALID_SCHEMA_OR_RELATION_NAME`.
pub fn check_name(name: &str) -> PlanResult<()> {
    if !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return Ok(());
    }
    let parts: Vec<&str> = name.split('.').collect();
    if parts.iter().any(|p| p.is_empty()) {
        return Err(SparkError::new(
            crate::error::ErrorKind::Analysis,
            "INVALID_ATTRIBUTE_NAME_SYNTAX",
            "42601",
            format!("Syntax error in the attribute name: {name}. Check that backticks appear in pairs, a quoted string is a complete name part and use a backtick only inside quoted name parts."),
            vec![("name", name.to_string())],
        )
        .into());
    }
    let shown = parts
        .iter()
        .map(|p| format!("`{}`", p.replace('`', "``")))
        .collect::<Vec<_>>()
        .join(".");
    Err(SparkError::new(
        crate::error::ErrorKind::Analysis,
        "INVALID_SCHEMA_OR_RELATION_NAME",
        "42602",
        format!("{shown} is not a valid name for tables/schemas. Valid names only contain alphabet characters, numbers and _."),
        vec![("name", shown.clone())],
    )
    .into())
}

/// `SCHEMA_NOT_FOUND` for a database name.
pub fn schema_not_found(name: &str) -> PlanError {
    SparkError::new(
        crate::error::ErrorKind::Analysis,
        "SCHEMA_NOT_FOUND",
        "42704",
        format!("The schema `spark_catalog`.`{name}` cannot be found. Verify the spelling and correctness of the schema and catalog.\nIf you did not qualify the name with a catalog, verify the current_schema() output, or qualify the name with the correct catalog.\nTo tolerate the error on drop use DROP SCHEMA IF EXISTS."),
        vec![("schemaName", format!("`spark_catalog`.`{name}`"))],
    )
    .into()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(db: &str, name: &str) -> TableMeta {
        TableMeta {
            database: db.into(),
            name: name.into(),
            format: "parquet".into(),
            schema: serde_json::json!({"type": "struct", "fields": []}),
            partition_columns: vec![],
            bucketing: None,
            location: format!("/tmp/{name}"),
            managed: true,
            options: BTreeMap::new(),
            properties: BTreeMap::new(),
            comment: None,
            created_ms: 0,
        }
    }

    fn error_class(name: &str) -> Option<String> {
        match check_name(name) {
            Ok(()) => None,
            Err(PlanError::Spark(e)) => Some(e.error_class.clone()),
            Err(other) => Some(other.to_string()),
        }
    }

    #[test]
    fn names_that_could_leave_the_warehouse_are_refused() {
        for ok in ["t", "T_1", "_x", "2024"] {
            assert_eq!(error_class(ok), None, "{ok}");
        }
        let invalid = Some("INVALID_SCHEMA_OR_RELATION_NAME".to_string());
        let syntax = Some("INVALID_ATTRIBUTE_NAME_SYNTAX".to_string());
        for bad in ["a/b", "/tmp/abs", "a\\b", "x\0y", "a b", "a.b", "café", ""] {
            let expected = if bad.is_empty() { &syntax } else { &invalid };
            assert_eq!(&error_class(bad), expected, "{bad:?}");
        }
        for bad in ["..", ".", "../x", "a..b", "x."] {
            assert_eq!(error_class(bad), syntax, "{bad:?}");
        }
    }

    #[test]
    fn changes_survive_reopening_and_failed_changes_leave_nothing() -> PlanResult<()> {
        let dir = std::env::temp_dir().join(format!("ember-warehouse-{}", uuid::Uuid::new_v4()));
        let w = Warehouse::open(dir.clone())?;
        assert!(w.database("DEFAULT").is_some());
        w.update(|s| {
            s.tables
                .entry("default".into())
                .or_default()
                .insert("t".into(), table("default", "t"));
            Ok(())
        })?;
        let failed: PlanResult<()> = w.update(|s| {
            s.tables.clear();
            Err(PlanError::InvalidPlan("no".into()))
        });
        assert!(failed.is_err());
        assert!(w.table("default", "T").is_some());
        let reopened = Warehouse::open(dir.clone())?;
        assert_eq!(reopened.table("default", "t"), Some(table("default", "t")));
        // No temporary files are left behind.
        let names: Vec<_> = std::fs::read_dir(dir.join(CATALOG_DIR))
            .map_err(|e| io_error("list", &dir, e))?
            .filter_map(|e| e.ok())
            .map(|e| e.file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from(CATALOG_FILE)]);
        let _ = std::fs::remove_dir_all(&dir);
        Ok(())
    }
}
