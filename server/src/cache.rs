//! Which tables and DataFrames a session has cached (`CACHE TABLE`, `spark.catalog.cacheTable`,
//! `df.cache()`/`persist`), with their storage levels, as Spark's cache manager reports them
//! (`isCached`, `df.storageLevel`). Ember keeps no copy of the rows: a cached relation is
//! computed again when used, with the same answer (the README says so).

use std::collections::HashMap;

use ember_planner::catalog::SessionCatalog;
use ember_planner::spec::{Plan, PlanNode};
use ember_protos::spark::connect as pb;
use parking_lot::Mutex;

/// Spark's `MEMORY_AND_DISK`, the level of `CACHE TABLE`, `cacheTable` and `df.cache()`.
pub fn memory_and_disk() -> pb::StorageLevel {
    pb::StorageLevel {
        use_disk: true,
        use_memory: true,
        use_off_heap: false,
        deserialized: true,
        replication: 1,
    }
}

/// The level of what is not cached.
pub fn none() -> pb::StorageLevel {
    pb::StorageLevel {
        use_disk: false,
        use_memory: false,
        use_off_heap: false,
        deserialized: false,
        replication: 1,
    }
}

/// A session's cached relations by their key (a table's name, or a DataFrame's plan).
#[derive(Default)]
pub struct CacheRegistry {
    entries: Mutex<HashMap<String, pb::StorageLevel>>,
}

impl CacheRegistry {
    pub fn cache(&self, catalog: &SessionCatalog, plan: &Plan, level: Option<pb::StorageLevel>) {
        self.entries
            .lock()
            .insert(key(catalog, plan), level.unwrap_or_else(memory_and_disk));
    }

    pub fn uncache(&self, catalog: &SessionCatalog, plan: &Plan) {
        self.entries.lock().remove(&key(catalog, plan));
    }

    pub fn clear(&self) {
        self.entries.lock().clear();
    }

    /// The storage level of a plan: `none()` unless it was cached.
    pub fn level(&self, catalog: &SessionCatalog, plan: &Plan) -> pb::StorageLevel {
        self.entries
            .lock()
            .get(&key(catalog, plan))
            .cloned()
            .unwrap_or_else(none)
    }

    pub fn is_cached(&self, catalog: &SessionCatalog, plan: &Plan) -> bool {
        self.entries.lock().contains_key(&key(catalog, plan))
    }
}

/// The plan of a table read by name (`spark.table(name)` reads the same plan).
pub fn table_plan(name: Vec<String>) -> Plan {
    Plan::new(PlanNode::Table { name })
}

/// A plan's identity for the cache: a temporary view or table read by what its name means
/// (`t`, `default.t` and `spark_catalog.default.t` are one table), any other plan by its
/// structure without the client's plan ids.
fn key(catalog: &SessionCatalog, plan: &Plan) -> String {
    if let PlanNode::Table { name } = &plan.node {
        if let [view] = name.as_slice()
            && catalog.lookup_view(name)
        {
            return format!("view {}", view.to_lowercase());
        }
        return match catalog.table_name(name) {
            Some((db, table)) => format!("table {db}.{table}"),
            None => format!("table {}", name.join(".").to_lowercase()),
        };
    }
    let mut plan = plan.clone();
    plan.strip_plan_ids();
    format!("{plan:?}")
}
