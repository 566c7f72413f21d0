//! The session catalog as the resolver sees it: temporary views of this session, global
//! temporary views shared by all sessions (`global_temp`), and the persistent databases and
//! tables of the warehouse ([`warehouse`]).

pub mod warehouse;

use std::collections::HashMap;
use std::sync::Arc;

use parking_lot::RwLock;

use crate::error::{PlanResult, SparkError};
use crate::spec::Plan;
pub use warehouse::{
    DEFAULT_DATABASE, DatabaseMeta, TableMeta, ViewMeta, Warehouse, check_name, schema_not_found,
};

pub const GLOBAL_TEMP_DATABASE: &str = "global_temp";
/// The name of the session catalog in three-part names (`spark_catalog.db.table`).
pub const SESSION_CATALOG: &str = "spark_catalog";

/// What a name in FROM refers to.
pub enum CatalogEntry {
    /// A view: resolved afresh at each use.
    View(Box<Plan>),
    /// A table of the warehouse, read from its files.
    Table(Box<TableMeta>),
}

/// Name lookup for the resolver.
pub trait Catalog: Send + Sync {
    fn lookup(&self, name: &[String]) -> PlanResult<Option<CatalogEntry>>;
    /// The database unqualified names are looked up in.
    fn current_database(&self) -> String {
        DEFAULT_DATABASE.to_string()
    }
    /// A temporary Python function of the session (`spark.udf.register`).
    fn python_function(&self, _name: &str) -> Option<crate::spec::PythonUdf> {
        None
    }
    /// A Python data source of the session (`spark.dataSource.register`): its class.
    fn python_data_source(&self, _name: &str) -> Option<ember_execution::python::PythonFunction> {
        None
    }
}

/// What every session of a server shares: global temporary views and the warehouse.
pub struct ServerCatalog {
    views: RwLock<HashMap<String, Plan>>,
    pub warehouse: Warehouse,
}

impl ServerCatalog {
    pub fn new(warehouse: Warehouse) -> Self {
        Self {
            views: RwLock::new(HashMap::new()),
            warehouse,
        }
    }
}

/// One Spark session's catalog state.
pub struct SessionCatalog {
    temp_views: RwLock<HashMap<String, Plan>>,
    global: Arc<ServerCatalog>,
    current_database: RwLock<String>,
    /// Temporary functions (`spark.udf.register`), by lower-case name.
    functions: RwLock<HashMap<String, crate::spec::PythonUdf>>,
    /// Python data sources (`spark.dataSource.register`), by lower-case name.
    data_sources: RwLock<HashMap<String, ember_execution::python::PythonFunction>>,
}

impl SessionCatalog {
    pub fn new(global: Arc<ServerCatalog>) -> Self {
        Self {
            temp_views: RwLock::new(HashMap::new()),
            global,
            current_database: RwLock::new("default".to_string()),
            functions: RwLock::new(HashMap::new()),
            data_sources: RwLock::new(HashMap::new()),
        }
    }

    fn key(name: &str) -> String {
        name.to_ascii_lowercase()
    }

    pub fn current_database(&self) -> String {
        self.current_database.read().clone()
    }

    pub fn warehouse(&self) -> &Warehouse {
        &self.global.warehouse
    }

    pub fn set_current_database(&self, db: &str) -> PlanResult<()> {
        let db = db.to_ascii_lowercase();
        if self.global.warehouse.database(&db).is_none() {
            return Err(schema_not_found(&db));
        }
        *self.current_database.write() = db;
        Ok(())
    }

    /// The database and table a (one-, two- or three-part) table name means, lower-case.
    pub fn table_name(&self, name: &[String]) -> Option<(String, String)> {
        let lower = |s: &String| s.to_ascii_lowercase();
        match name {
            [t] => Some((self.current_database(), lower(t))),
            [db, t] => Some((lower(db), lower(t))),
            [c, db, t] if c.eq_ignore_ascii_case(SESSION_CATALOG) => Some((lower(db), lower(t))),
            _ => None,
        }
    }

    /// The warehouse table a name means, if there is one (views are not looked at).
    pub fn lookup_table(&self, name: &[String]) -> Option<TableMeta> {
        let (db, t) = self.table_name(name)?;
        self.global.warehouse.table(&db, &t)
    }

    /// The persistent view a name means, if there is one.
    pub fn lookup_persistent_view(&self, name: &[String]) -> Option<ViewMeta> {
        let (db, v) = self.table_name(name)?;
        self.global.warehouse.view(&db, &v)
    }

    /// If the current database was dropped, `default` becomes current again.
    pub fn forget_database(&self, db: &str) {
        let mut current = self.current_database.write();
        if current.eq_ignore_ascii_case(db) {
            *current = DEFAULT_DATABASE.to_string();
        }
    }

    /// Create a view; `replace` overwrites, otherwise an existing view is an error.
    pub fn create_temp_view(
        &self,
        name: &str,
        plan: Plan,
        replace: bool,
        global: bool,
    ) -> PlanResult<()> {
        let map = if global {
            &self.global.views
        } else {
            &self.temp_views
        };
        let mut views = map.write();
        let key = Self::key(name);
        if !replace && views.contains_key(&key) {
            return Err(SparkError::analysis(
                "TEMP_TABLE_OR_VIEW_ALREADY_EXISTS",
                "42P07",
                format!("Cannot create the temporary view `{name}` because it already exists.\nChoose a different name, drop or replace the existing view, or add the IF NOT EXISTS clause to tolerate pre-existing views."),
            )
            .into());
        }
        views.insert(key, plan);
        Ok(())
    }

    /// Drop a view by (possibly `global_temp.`-qualified) name; returns whether it existed.
    pub fn drop_temp_view(&self, name: &[String]) -> bool {
        match name {
            [db, view] if db.eq_ignore_ascii_case(GLOBAL_TEMP_DATABASE) => {
                self.global.views.write().remove(&Self::key(view)).is_some()
            }
            [view] => self.temp_views.write().remove(&Self::key(view)).is_some(),
            _ => false,
        }
    }

    /// Whether a temporary view of this (possibly `global_temp.`-qualified) name exists.
    pub fn lookup_view(&self, name: &[String]) -> bool {
        matches!(self.lookup(name), Ok(Some(CatalogEntry::View(_))))
    }

    pub fn drop_global_temp_view(&self, name: &str) -> bool {
        self.global.views.write().remove(&Self::key(name)).is_some()
    }

    /// Copy this session's temporary views into another session (CloneSession).
    pub fn copy_views_from(&self, other: &SessionCatalog) {
        let views = other.temp_views.read().clone();
        self.temp_views.write().extend(views);
    }

    pub fn temp_view_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self.temp_views.read().keys().cloned().collect();
        names.sort();
        names
    }

    pub fn global_temp_view_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self.global.views.read().keys().cloned().collect();
        names.sort();
        names
    }
}

impl SessionCatalog {
    /// `spark.udf.register(name, f)`: replaces a function of the same name.
    pub fn register_function(&self, udf: crate::spec::PythonUdf) {
        self.functions.write().insert(Self::key(&udf.name), udf);
    }

    /// `spark.dataSource.register(cls)`: replaces a source of the same name.
    pub fn register_data_source(
        &self,
        name: &str,
        source: ember_execution::python::PythonFunction,
    ) {
        self.data_sources.write().insert(Self::key(name), source);
    }

    /// The session's Python artifacts changed: its data sources use the new set.
    pub fn set_data_source_artifacts(
        &self,
        artifacts: Option<Arc<ember_execution::python::PythonArtifacts>>,
    ) {
        for source in self.data_sources.write().values_mut() {
            source.artifacts = artifacts.clone();
        }
    }
}

impl Catalog for SessionCatalog {
    fn current_database(&self) -> String {
        SessionCatalog::current_database(self)
    }

    fn python_function(&self, name: &str) -> Option<crate::spec::PythonUdf> {
        self.functions.read().get(&Self::key(name)).cloned()
    }

    fn python_data_source(&self, name: &str) -> Option<ember_execution::python::PythonFunction> {
        self.data_sources.read().get(&Self::key(name)).cloned()
    }

    fn lookup(&self, name: &[String]) -> PlanResult<Option<CatalogEntry>> {
        let view = match name {
            [view] => self.temp_views.read().get(&Self::key(view)).cloned(),
            [db, view] if db.eq_ignore_ascii_case(GLOBAL_TEMP_DATABASE) => {
                self.global.views.read().get(&Self::key(view)).cloned()
            }
            _ => None,
        };
        if let Some(plan) = view {
            return Ok(Some(CatalogEntry::View(Box::new(plan))));
        }
        if let Some(t) = self.lookup_table(name) {
            return Ok(Some(CatalogEntry::Table(Box::new(t))));
        }
        match self.lookup_persistent_view(name) {
            Some(v) => {
                let mut plan = match crate::sql::parse_statement(&v.sql, &Default::default())? {
                    crate::spec::Statement::Query(plan) => plan,
                    _ => {
                        return Err(crate::error::PlanError::InvalidPlan(format!(
                            "the view {}.{} is not a query",
                            v.database, v.name
                        )));
                    }
                };
                if !v.columns.is_empty() {
                    plan = Plan::new(crate::spec::PlanNode::ToDf {
                        input: Box::new(plan),
                        names: v.columns.clone(),
                    });
                }
                Ok(Some(CatalogEntry::View(Box::new(plan))))
            }
            None => Ok(None),
        }
    }
}
