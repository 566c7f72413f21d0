//! Databases and persistent tables of the session catalog: DDL, INSERT, `saveAsTable`,
//! `insertInto`, `writeTo`, and the SHOW/DESCRIBE statements about them.
//!
//! Table data is written first (through the atomic file commit of [`super::write`]) and the
//! catalog changed after, in one atomic update of the warehouse's catalog document, so a
//! table never appears half made.
//!
//! [`ddl`]: databases, tables and views; [`insert`]: writing rows into tables; [`show`]:
//! SHOW and DESCRIBE.

mod ddl;
mod insert;
mod show;

pub use ddl::*;
pub use insert::*;
pub use show::*;

use std::path::Path;

use arrow::datatypes::{DataType, Field, Fields};
use ember_planner::catalog::{DatabaseMeta, TableMeta, schema_not_found};
use ember_planner::error::ErrorKind;
use ember_planner::spec::Bucketing;
use ember_planner::{ResolvedQuery, SparkError, types};

use super::write::analysis;
use crate::error::ServerResult;
use crate::state::RequestContext;

fn quoted(db: &str, table: &str) -> String {
    format!("`spark_catalog`.`{db}`.`{table}`")
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

fn table_exists_error(db: &str, table: &str) -> SparkError {
    let q = quoted(db, table);
    analysis(
        "TABLE_OR_VIEW_ALREADY_EXISTS",
        "42P07",
        format!(
            "Cannot create table or view {q} because it already exists.\nChoose a different name, drop or replace the existing object, or add the IF NOT EXISTS clause to tolerate pre-existing objects."
        ),
        vec![("relationName", q.clone())],
    )
}

fn io_error(what: &str, path: &Path, e: std::io::Error) -> SparkError {
    SparkError::new(
        ErrorKind::Runtime,
        "_LEGACY_ERROR_TEMP_2000",
        "",
        format!("cannot {what} {}: {e}", path.display()),
        vec![],
    )
}

/// The lower-case database and table a name means; the database must exist.
fn table_name(ctx: &RequestContext, name: &[String]) -> ServerResult<(String, String)> {
    let Some((db, table)) = ctx.session.catalog.table_name(name) else {
        return Err(SparkError::analysis(
            "REQUIRES_SINGLE_PART_NAMESPACE",
            "42K05",
            format!(
                "spark_catalog requires a single-part namespace, but got {}.",
                name.join(".")
            ),
        )
        .into());
    };
    Ok((db, table))
}

fn existing_database(ctx: &RequestContext, db: &str) -> ServerResult<DatabaseMeta> {
    ctx.session
        .catalog
        .warehouse()
        .database(db)
        .ok_or_else(|| schema_not_found(db).into())
}

/// The table a name means, or TABLE_OR_VIEW_NOT_FOUND.
fn existing_table(ctx: &RequestContext, name: &[String]) -> ServerResult<TableMeta> {
    ctx.session
        .catalog
        .lookup_table(name)
        .ok_or_else(|| SparkError::table_not_found(&name.join(".")).into())
}

/// A table's columns (partition columns last), as Arrow fields in the session's zone.
fn table_fields(ctx: &RequestContext, t: &TableMeta) -> ServerResult<Fields> {
    let time_zone = ctx.session.conf.time_zone();
    if t.format.eq_ignore_ascii_case("delta") {
        // A Delta table's schema is its log's (other writers may have evolved it).
        use ember_execution::formats::delta;
        use ember_planner::datasource::block_on;
        let url = delta::DeltaLocation::new(&t.location, &ctx.datafusion_context().runtime_env())?;
        if block_on(delta::is_delta_table(&url)).map_err(|e| e.into_spark())? {
            let table =
                block_on(delta::open(&url, None, &time_zone)).map_err(|e| e.into_spark())??;
            let (schema, _) = delta::table_schema(&table)?;
            let timestamp = types::timestamp_type(&time_zone);
            let fields: Vec<Field> = schema
                .fields()
                .iter()
                .map(|f| match f.data_type() {
                    DataType::Timestamp(_, Some(_)) => {
                        f.as_ref().clone().with_data_type(timestamp.clone())
                    }
                    _ => f.as_ref().clone(),
                })
                .collect();
            return Ok(Fields::from(fields));
        }
    }
    let schema = types::parse_schema(&t.schema_json(), &time_zone)?;
    Ok(schema.fields().clone())
}

fn schema_json(fields: &[Field]) -> ServerResult<serde_json::Value> {
    Ok(types::to_spark_json(&DataType::Struct(Fields::from(
        fields.to_vec(),
    )))?)
}

/// Column names must be unique (case-insensitively, as Spark's default resolution).
fn check_unique_columns(names: &[&str]) -> ServerResult<()> {
    for (i, n) in names.iter().enumerate() {
        if names[..i].iter().any(|m| m.eq_ignore_ascii_case(n)) {
            return Err(SparkError::column_already_exists(n).into());
        }
    }
    Ok(())
}

/// Partition columns moved last, in the order PARTITIONED BY names them.
fn partitioned_last(
    fields: Vec<Field>,
    partition_by: &[String],
    db: &str,
    table: &str,
) -> ServerResult<(Vec<Field>, Vec<String>)> {
    let mut partitions = vec![];
    for p in partition_by {
        let Some(f) = fields.iter().find(|f| f.name().eq_ignore_ascii_case(p)) else {
            let defined: Vec<String> = fields.iter().map(|f| format!("`{}`", f.name())).collect();
            return Err(analysis(
                "COLUMN_NOT_DEFINED_IN_TABLE",
                "42703",
                format!(
                    "partition column `{p}` is not defined in table {}, defined table columns are: {}.",
                    quoted(db, table),
                    defined.join(", ")
                ),
                vec![],
            )
            .into());
        };
        if !partitions.contains(f) {
            partitions.push(f.clone());
        }
    }
    if !partitions.is_empty() && partitions.len() == fields.len() {
        return Err(SparkError::all_partition_columns().into());
    }
    let names = partitions.iter().map(|f| f.name().clone()).collect();
    let mut ordered: Vec<Field> = fields
        .into_iter()
        .filter(|f| !partitions.contains(f))
        .collect();
    ordered.extend(partitions);
    Ok((ordered, names))
}

/// A table's bucketing with its columns named as the table names them; each must be one of
/// the table's columns.
fn checked_bucketing(
    bucketing: Option<Bucketing>,
    fields: &[Field],
    db: &str,
    table: &str,
) -> ServerResult<Option<Bucketing>> {
    let Some(b) = bucketing else {
        return Ok(None);
    };
    let name = |kind: &str, c: &String| match fields
        .iter()
        .find(|f| f.name().eq_ignore_ascii_case(c))
    {
        Some(f) => Ok(f.name().clone()),
        None => {
            let defined: Vec<String> = fields.iter().map(|f| format!("`{}`", f.name())).collect();
            Err(analysis(
                "COLUMN_NOT_DEFINED_IN_TABLE",
                "42703",
                format!(
                    "{kind} column `{c}` is not defined in table {}, defined table columns are: {}.",
                    quoted(db, table),
                    defined.join(", ")
                ),
                vec![],
            ))
        }
    };
    Ok(Some(Bucketing {
        num_buckets: b.num_buckets,
        columns: b
            .columns
            .iter()
            .map(|c| name("bucket", c))
            .collect::<Result<_, _>>()?,
        sort_columns: b
            .sort_columns
            .iter()
            .map(|c| name("sort", c))
            .collect::<Result<_, _>>()?,
    }))
}

/// Only file formats Ember reads and writes make tables.
fn check_table_format(format: &str) -> ServerResult<()> {
    match format {
        "parquet" | "csv" | "json" | "text" | "orc" | "avro" | "delta" => Ok(()),
        other => Err(ember_planner::datasource::write::data_source_not_found(other).into()),
    }
}

/// A managed table's directory must not hold data of a table the catalog does not know.
fn check_new_location(location: &Path) -> ServerResult<()> {
    // Hidden entries (an unfinished write's leftovers) do not count, as for reads.
    let non_empty = std::fs::read_dir(location)
        .map(|d| {
            d.flatten()
                .any(|e| !e.file_name().to_string_lossy().starts_with(['.', '_']))
        })
        .unwrap_or(false);
    if non_empty {
        let shown = format!("file:{}", location.display());
        return Err(analysis(
            "LOCATION_ALREADY_EXISTS",
            "42710",
            format!("Cannot name the managed table as {shown}, as its associated location {shown} already exists. Please pick a different table name, or remove the existing location first."),
            vec![],
        )
        .into());
    }
    Ok(())
}

fn register(ctx: &RequestContext, table: TableMeta) -> ServerResult<()> {
    ctx.session.catalog.warehouse().update(|s| {
        if s.exists(&table.database, &table.name) {
            return Err(table_exists_error(&table.database, &table.name).into());
        }
        s.tables
            .entry(table.database.clone())
            .or_default()
            .insert(table.name.clone(), table);
        Ok(())
    })?;
    Ok(())
}

/// A query's columns as a table stores them: Spark names, every column nullable.
fn query_fields(query: &ResolvedQuery) -> Vec<Field> {
    query
        .plan
        .schema()
        .fields()
        .iter()
        .zip(&query.names)
        .map(|(f, n)| Field::new(n, f.data_type().clone(), true))
        .collect()
}

fn update_table(
    ctx: &RequestContext,
    table: &TableMeta,
    change: impl FnOnce(&mut TableMeta),
) -> ServerResult<()> {
    ctx.session.catalog.warehouse().update(|s| {
        let t = s
            .tables
            .get_mut(&table.database)
            .and_then(|t| t.get_mut(&table.name))
            .ok_or_else(|| SparkError::table_not_found(&table.name))?;
        change(t);
        Ok(())
    })?;
    Ok(())
}
