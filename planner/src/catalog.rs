//! The session catalog as the resolver sees it: temporary views of this session, global
//! temporary views shared by all sessions (`global_temp`), and tables.

use std::collections::HashMap;
use std::sync::Arc;

use datafusion::catalog::TableProvider;
use parking_lot::RwLock;

use crate::error::{PlanResult, SparkError};
use crate::spec::Plan;

pub const GLOBAL_TEMP_DATABASE: &str = "global_temp";

/// What a name in FROM refers to.
pub enum CatalogEntry {
    /// A view: resolved afresh at each use.
    View(Box<Plan>),
    Table {
        name: Vec<String>,
        provider: Arc<dyn TableProvider>,
    },
}

/// Name lookup for the resolver.
pub trait Catalog: Send + Sync {
    fn lookup(&self, name: &[String]) -> PlanResult<Option<CatalogEntry>>;
}

/// Global temporary views, shared by every session of a server.
#[derive(Default)]
pub struct GlobalViews {
    views: RwLock<HashMap<String, Plan>>,
}

/// One Spark session's catalog state.
pub struct SessionCatalog {
    temp_views: RwLock<HashMap<String, Plan>>,
    global: Arc<GlobalViews>,
    current_database: RwLock<String>,
}

impl SessionCatalog {
    pub fn new(global: Arc<GlobalViews>) -> Self {
        Self {
            temp_views: RwLock::new(HashMap::new()),
            global,
            current_database: RwLock::new("default".to_string()),
        }
    }

    fn key(name: &str) -> String {
        name.to_ascii_lowercase()
    }

    pub fn current_database(&self) -> String {
        self.current_database.read().clone()
    }

    pub fn set_current_database(&self, db: &str) -> PlanResult<()> {
        if !db.eq_ignore_ascii_case("default") {
            return Err(SparkError::analysis(
                "SCHEMA_NOT_FOUND",
                "42704",
                format!("The schema `{db}` cannot be found. Verify the spelling and correctness of the schema and catalog."),
            )
            .into());
        }
        *self.current_database.write() = db.to_ascii_lowercase();
        Ok(())
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

impl Catalog for SessionCatalog {
    fn lookup(&self, name: &[String]) -> PlanResult<Option<CatalogEntry>> {
        Ok(match name {
            [view] => self
                .temp_views
                .read()
                .get(&Self::key(view))
                .cloned()
                .map(|p| CatalogEntry::View(Box::new(p))),
            [db, view] if db.eq_ignore_ascii_case(GLOBAL_TEMP_DATABASE) => self
                .global
                .views
                .read()
                .get(&Self::key(view))
                .cloned()
                .map(|p| CatalogEntry::View(Box::new(p))),
            _ => None,
        })
    }
}
