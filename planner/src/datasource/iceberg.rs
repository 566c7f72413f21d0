//! Apache Iceberg tables planned: a `format("iceberg")` read (the format itself, metadata,
//! scans and commits, is `ember_execution::formats::iceberg`), and the Iceberg catalogs of a
//! session: `spark.sql.catalog.<name>` set to iceberg-spark's `SparkCatalog` with
//! `type=hadoop` and `warehouse=<path>` makes `<name>.db.t` the table at `<warehouse>/db/t`
//! (and `<name>.db.t.snapshots` its metadata table); `type=rest` and `uri=<url>` the table
//! `db.t` of that REST catalog.

use std::collections::BTreeMap;

use ember_execution::formats::iceberg::{
    self, METADATA_TABLES, RestCatalog, RestTable, Target, io::Io, is_iceberg_table,
};

use super::{FileRead, table_path};
use crate::error::{PlanError, PlanResult, SparkError};
use crate::spec::DataSource;

/// The table a `format("iceberg")` read scans.
pub fn read(
    state: &datafusion::execution::SessionState,
    ds: &DataSource,
    time_zone: &str,
) -> PlanResult<FileRead> {
    let path = table_path(ds, "Iceberg", || {
        SparkError::analysis(
            "UNSUPPORTED_FEATURE.TABLE_OPERATION",
            "0A000",
            "The feature is not supported: Table does not support user specified schema.",
        )
    })?;
    let at = iceberg::time_travel(&ds.options, time_zone)?;
    Ok(FileRead {
        provider: iceberg::scan(state, path, at)?,
        partitions: vec![],
        parse: vec![],
        drop_malformed: false,
    })
}

fn invalid(text: impl Into<String>) -> PlanError {
    PlanError::InvalidPlan(text.into())
}

/// The location of table `name` (`db.t`, namespaces first) of a Hadoop catalog's warehouse.
pub fn hadoop_table_location(warehouse: &str, name: &[String]) -> String {
    let mut location = warehouse.trim_end_matches('/').to_string();
    for part in name {
        location.push('/');
        location.push_str(part);
    }
    location
}

/// Table `name` when its first part is an Iceberg catalog of the session
/// (`spark.sql.catalog.<name>=org.apache.iceberg.spark.SparkCatalog`): with `type=hadoop` and
/// `warehouse=<path>` the table at `<warehouse>/<namespace...>/<table>`, with `type=rest` and
/// `uri=<url>` the table of that REST catalog, whether the table exists or not. None: no such
/// catalog.
pub fn catalog_table(
    catalogs: &BTreeMap<String, BTreeMap<String, String>>,
    name: &[String],
) -> PlanResult<Option<Target>> {
    let [catalog, rest @ ..] = name else {
        return Ok(None);
    };
    let Some(settings) = catalogs.get(&catalog.to_ascii_lowercase()) else {
        return Ok(None);
    };
    let class = settings.get("").map(String::as_str).unwrap_or("");
    if !class.starts_with("org.apache.iceberg.") {
        return Ok(None);
    }
    let kind = settings
        .get("type")
        .map(|t| t.to_ascii_lowercase())
        .unwrap_or_default();
    if rest.len() < 2 && matches!(kind.as_str(), "hadoop" | "rest") {
        return Err(SparkError::table_not_found(&name.join(".")).into());
    }
    match kind.as_str() {
        "hadoop" => {
            let Some(warehouse) = settings.get("warehouse") else {
                return Err(invalid(format!(
                    "Cannot initialize HadoopCatalog because warehousePath must not be null or empty (spark.sql.catalog.{catalog}.warehouse)"
                )));
            };
            Ok(Some(Target::Path(hadoop_table_location(warehouse, rest))))
        }
        "rest" => {
            let (table, namespace) = rest.split_last().unwrap_or((&rest[0], &[]));
            Ok(Some(Target::Rest(Box::new(RestTable {
                catalog: RestCatalog::from_settings(catalog, settings)?,
                namespace: namespace.to_vec(),
                table: table.clone(),
            }))))
        }
        _ => {
            let shown = if kind.is_empty() {
                settings.get("catalog-impl").cloned().unwrap_or_default()
            } else {
                kind
            };
            Err(PlanError::Unsupported(format!(
                "Iceberg catalogs of type {shown} (catalog {catalog}; Hadoop and REST catalogs are read)"
            )))
        }
    }
}

/// Where a read of a catalog's table finds it: its location, or for a REST table the
/// metadata file the catalog points at. None: no such table.
fn read_location(io: &Io, target: &Target) -> PlanResult<Option<String>> {
    Ok(match target {
        Target::Path(p) => is_iceberg_table(io, p).then(|| p.clone()),
        Target::Rest(t) => t.load()?.map(|(location, _)| location),
    })
}

/// The read of `name` when its first part is an Iceberg catalog of the session: the table
/// (or metadata table) there. None: no such catalog.
/// (`io`: the session's stores, where a warehouse in a bucket is.)
pub fn catalog_source(
    io: &Io,
    catalogs: &BTreeMap<String, BTreeMap<String, String>>,
    name: &[String],
) -> PlanResult<Option<DataSource>> {
    let Some(target) = catalog_table(catalogs, name)? else {
        return Ok(None);
    };
    let location = match read_location(io, &target)? {
        Some(location) => location,
        None => {
            // `ice.db.t.snapshots`: a metadata table of `ice.db.t`.
            let (table, last) = name.split_at(name.len() - 1);
            let table = match catalog_table(catalogs, table) {
                Ok(Some(t)) => read_location(io, &t)?,
                _ => None,
            };
            match (last, table) {
                ([m], Some(table)) if METADATA_TABLES.iter().any(|t| t.eq_ignore_ascii_case(m)) => {
                    format!("{table}#{}", m.to_ascii_lowercase())
                }
                _ => return Err(SparkError::table_not_found(&name.join(".")).into()),
            }
        }
    };
    Ok(Some(DataSource {
        format: Some("iceberg".into()),
        schema: None,
        options: Default::default(),
        paths: vec![location],
    }))
}
