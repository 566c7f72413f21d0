//! Apache Iceberg tables planned: a `format("iceberg")` read (the format itself, metadata,
//! scans and commits, is `ember_execution::formats::iceberg`), and the Iceberg catalogs of a
//! session: `spark.sql.catalog.<name>` set to iceberg-spark's `SparkCatalog` with
//! `type=hadoop` and `warehouse=<path>` makes `<name>.db.t` the table at `<warehouse>/db/t`
//! (and `<name>.db.t.snapshots` its metadata table).

use std::collections::BTreeMap;

use ember_execution::formats::iceberg::{self, METADATA_TABLES, is_iceberg_table};

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

/// The location of table `name` when its first part is an Iceberg catalog of the session
/// (`spark.sql.catalog.<name>=org.apache.iceberg.spark.SparkCatalog`, `type=hadoop`,
/// `warehouse=<path>`): `<warehouse>/<namespace...>/<table>`, whether a table is there or not.
/// None: no such catalog.
pub fn catalog_table_location(
    catalogs: &BTreeMap<String, BTreeMap<String, String>>,
    name: &[String],
) -> PlanResult<Option<String>> {
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
    if kind != "hadoop" {
        let shown = if kind.is_empty() {
            settings.get("catalog-impl").cloned().unwrap_or_default()
        } else {
            kind
        };
        return Err(PlanError::Unsupported(format!(
            "Iceberg catalogs of type {shown} (catalog {catalog}; Hadoop catalogs are read)"
        )));
    }
    let Some(warehouse) = settings.get("warehouse") else {
        return Err(invalid(format!(
            "Cannot initialize HadoopCatalog because warehousePath must not be null or empty (spark.sql.catalog.{catalog}.warehouse)"
        )));
    };
    if rest.len() < 2 {
        return Err(SparkError::table_not_found(&name.join(".")).into());
    }
    Ok(Some(hadoop_table_location(warehouse, rest)))
}

/// The read of `name` when its first part is an Iceberg catalog of the session: the table
/// (or metadata table) there. None: no such catalog.
pub fn catalog_source(
    catalogs: &BTreeMap<String, BTreeMap<String, String>>,
    name: &[String],
) -> PlanResult<Option<DataSource>> {
    let Some(mut location) = catalog_table_location(catalogs, name)? else {
        return Ok(None);
    };
    if !is_iceberg_table(&location) {
        // `ice.db.t.snapshots`: a metadata table of `ice.db.t`.
        let (table, last) = name.split_at(name.len() - 1);
        let table_location = catalog_table_location(catalogs, table).ok().flatten();
        match (last, table_location) {
            ([m], Some(table_location))
                if METADATA_TABLES.iter().any(|t| t.eq_ignore_ascii_case(m))
                    && is_iceberg_table(&table_location) =>
            {
                location = format!("{table_location}#{}", m.to_ascii_lowercase());
            }
            _ => return Err(SparkError::table_not_found(&name.join(".")).into()),
        }
    }
    Ok(Some(DataSource {
        format: Some("iceberg".into()),
        schema: None,
        options: Default::default(),
        paths: vec![location],
    }))
}
