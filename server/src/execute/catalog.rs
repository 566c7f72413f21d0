//! Databases and persistent tables of the session catalog: DDL, INSERT, `saveAsTable`,
//! `insertInto`, `writeTo`, and the SHOW/DESCRIBE statements about them.
//!
//! Table data is written first (through the atomic file commit of [`super::write`]) and the
//! catalog changed after, in one atomic update of the warehouse's catalog document, so a
//! table never appears half made.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow::array::{ArrayRef, BooleanArray, RecordBatch, StringArray};
use arrow::datatypes::{DataType, Field, Fields, Schema};
use datafusion::logical_expr::{Expr, LogicalPlanBuilder, cast};
use datafusion::scalar::ScalarValue;
use ember_execution::write::commit::recover;
use ember_execution::write::partition::{DEFAULT_PARTITION_NAME, escape_path_name};
use ember_planner::catalog::{DEFAULT_DATABASE, DatabaseMeta, TableMeta, schema_not_found};
use ember_planner::error::ErrorKind;
use ember_planner::spec::{self, AlterTable, CreateTableSpec, Plan, SaveMode, WriteSpec};
use ember_planner::{PlanError, ResolvedQuery, SparkError, types};

use super::write::{FileWriteSpec, analysis, format_or_default, local_path, write_files};
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
    let schema = types::parse_schema(&t.schema_json(), &ctx.session.conf.time_zone())?;
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
            return Err(analysis(
                "COLUMN_ALREADY_EXISTS",
                "42711",
                format!("The column `{n}` already exists. Choose another name or rename the existing column."),
                vec![("columnName", format!("`{n}`"))],
            )
            .into());
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
        return Err(analysis(
            "ALL_PARTITION_COLUMNS_NOT_ALLOWED",
            "KD005",
            "Cannot use all columns for partition columns.".into(),
            vec![],
        )
        .into());
    }
    let names = partitions.iter().map(|f| f.name().clone()).collect();
    let mut ordered: Vec<Field> = fields
        .into_iter()
        .filter(|f| !partitions.contains(f))
        .collect();
    ordered.extend(partitions);
    Ok((ordered, names))
}

/// Only file formats Ember reads and writes make tables.
fn check_table_format(format: &str) -> ServerResult<()> {
    match format {
        "parquet" | "csv" | "json" | "text" => Ok(()),
        "orc" | "avro" => Err(SparkError::unsupported(format!("{format} tables")).into()),
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

pub async fn create_table(ctx: &RequestContext, spec: CreateTableSpec) -> ServerResult<()> {
    let (db, name) = table_name(ctx, &spec.name)?;
    if spec.replace {
        let what = if spec.query.is_some() {
            "REPLACE TABLE AS SELECT"
        } else {
            "REPLACE TABLE"
        };
        let q = quoted(&db, &name);
        return Err(analysis(
            "UNSUPPORTED_FEATURE.TABLE_OPERATION",
            "0A000",
            format!("The feature is not supported: Table {q} does not support {what}. Please check the current catalog and namespace to make sure the qualified table name is expected, and also check the catalog implementation which is configured by \"spark.sql.catalog\"."),
            vec![("tableName", q.clone()), ("operation", what.into())],
        )
        .into());
    }
    let database = existing_database(ctx, &db)?;
    if ctx
        .session
        .catalog
        .warehouse()
        .snapshot()
        .exists(&db, &name)
    {
        if spec.if_not_exists {
            return Ok(());
        }
        return Err(table_exists_error(&db, &name).into());
    }
    if spec.columns.is_some() && spec.query.is_some() {
        return Err(SparkError::new(
            ErrorKind::Parse,
            "_LEGACY_ERROR_TEMP_0035",
            "",
            "Operation not allowed: Schema may not be specified in a Create Table As Select (CTAS) statement.",
            vec![("message", "Schema may not be specified in a Create Table As Select (CTAS) statement".into())],
        )
        .into());
    }
    let format = format_or_default(ctx, spec.format.as_deref());
    check_table_format(&format)?;
    let options: BTreeMap<String, String> = spec.options.iter().cloned().collect();
    let write_options: HashMap<String, String> = options.clone().into_iter().collect();
    ember_planner::datasource::write::write_settings(&format, &write_options, "snappy")?;
    let external = spec.location.is_some();
    let location = match &spec.location {
        Some(l) => local_path(l)?,
        None => PathBuf::from(&database.location).join(&name),
    };
    let fields: Vec<Field> = match (&spec.query, &spec.columns) {
        (Some(query), _) => {
            let query = ctx.resolve(query)?;
            let fields = query_fields(&query);
            let names: Vec<&str> = fields.iter().map(|f| f.name().as_str()).collect();
            check_unique_columns(&names)?;
            let (ordered, partitions) = partitioned_last(fields, &spec.partition_by, &db, &name)?;
            if !external {
                check_new_location(&location)?;
            }
            recover(&location)?;
            write_files(
                ctx,
                query,
                FileWriteSpec {
                    target: location.clone(),
                    format: format.clone(),
                    options: write_options,
                    partition_by: partitions,
                    overwrite: false,
                },
            )
            .await?;
            ordered
        }
        (None, Some(columns)) => {
            let schema = types::parse_schema(columns, &ctx.session.conf.time_zone())?;
            schema.fields().iter().map(|f| f.as_ref().clone()).collect()
        }
        (None, None) => {
            // The schema of the files already at the location.
            let read = Plan::new(spec::PlanNode::DataSource(spec::DataSource {
                format: Some(format.clone()),
                schema: None,
                options: write_options.clone(),
                paths: vec![location.display().to_string()],
            }));
            let query = ctx.resolve(&read)?;
            query_fields(&query)
        }
    };
    let names: Vec<&str> = fields.iter().map(|f| f.name().as_str()).collect();
    check_unique_columns(&names)?;
    let (fields, partition_columns) = partitioned_last(fields, &spec.partition_by, &db, &name)?;
    if spec.query.is_none() {
        if !external {
            check_new_location(&location)?;
        }
        std::fs::create_dir_all(&location).map_err(|e| io_error("create", &location, e))?;
    }
    register(
        ctx,
        TableMeta {
            database: db,
            name,
            format,
            schema: schema_json(&fields)?,
            partition_columns,
            location: location.display().to_string(),
            managed: !external,
            options,
            properties: spec.properties.into_iter().collect(),
            comment: spec.comment,
            created_ms: now_ms(),
        },
    )
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

/// `CREATE [OR REPLACE] VIEW`: a view kept in the catalog as its query's SQL text.
pub fn create_view(
    ctx: &RequestContext,
    name: &[String],
    sql: String,
    mut plan: Plan,
    replace: bool,
    if_not_exists: bool,
    columns: Vec<String>,
) -> ServerResult<()> {
    let (db, view) = table_name(ctx, name)?;
    existing_database(ctx, &db)?;
    plan.strip_plan_ids();
    if !columns.is_empty() {
        plan = Plan::new(spec::PlanNode::ToDf {
            input: Box::new(plan),
            names: columns.clone(),
        });
    }
    // Spark analyzes the view's query when the view is created.
    ctx.resolve(&plan)?;
    let meta = ember_planner::catalog::ViewMeta {
        database: db.clone(),
        name: view.clone(),
        sql,
        columns,
        comment: None,
        created_ms: now_ms(),
    };
    ctx.session.catalog.warehouse().update(|s| {
        if s.table(&db, &view).is_some() {
            return Err(table_exists_error(&db, &view).into());
        }
        if s.view(&db, &view).is_some() {
            if if_not_exists {
                return Ok(());
            }
            if !replace {
                return Err(table_exists_error(&db, &view).into());
            }
        }
        s.views
            .entry(db.clone())
            .or_default()
            .insert(view.clone(), meta);
        Ok(())
    })?;
    Ok(())
}

/// `DROP VIEW`: a temporary view of the name first, else a persistent one.
pub fn drop_view(ctx: &RequestContext, name: &[String], if_exists: bool) -> ServerResult<()> {
    if ctx.session.catalog.drop_temp_view(name) {
        return Ok(());
    }
    let dropped = match ctx.session.catalog.table_name(name) {
        Some((db, view)) => ctx
            .session
            .catalog
            .warehouse()
            .update(|s| Ok(s.views.get_mut(&db).and_then(|v| v.remove(&view)).is_some()))?,
        None => false,
    };
    if dropped || if_exists {
        Ok(())
    } else {
        Err(SparkError::table_not_found(&name.join(".")).into())
    }
}

pub fn drop_table(ctx: &RequestContext, name: &[String], if_exists: bool) -> ServerResult<()> {
    // DROP TABLE drops a temporary view of that name too, as in Spark.
    if ctx.session.catalog.lookup_view(name) && ctx.session.catalog.drop_temp_view(name) {
        return Ok(());
    }
    let (db, table) = table_name(ctx, name)?;
    let (dropped, view) = ctx.session.catalog.warehouse().update(|s| {
        let view = s
            .views
            .get_mut(&db)
            .and_then(|v| v.remove(&table))
            .is_some();
        Ok((s.tables.get_mut(&db).and_then(|t| t.remove(&table)), view))
    })?;
    if view {
        return Ok(());
    }
    match dropped {
        Some(t) => {
            if t.managed {
                remove_data(Path::new(&t.location));
            }
            Ok(())
        }
        None if if_exists => Ok(()),
        None => Err(SparkError::table_not_found(&name.join(".")).into()),
    }
}

/// Best effort: a managed table's files once the catalog no longer has it.
fn remove_data(location: &Path) {
    if let Err(e) = std::fs::remove_dir_all(location)
        && e.kind() != std::io::ErrorKind::NotFound
    {
        tracing::warn!(location = %location.display(), error = %e, "could not remove a dropped table's files");
    }
}

pub fn create_database(
    ctx: &RequestContext,
    name: &str,
    if_not_exists: bool,
    comment: Option<String>,
    location: Option<String>,
    properties: Vec<(String, String)>,
) -> ServerResult<()> {
    let warehouse = ctx.session.catalog.warehouse();
    let db = name.to_ascii_lowercase();
    if db.eq_ignore_ascii_case(ember_planner::catalog::GLOBAL_TEMP_DATABASE) {
        return Err(analysis(
            "_LEGACY_ERROR_TEMP_1260",
            "",
            "global_temp is a system preserved database, you cannot create a database with this name.".to_string(),
            vec![],
        )
        .into());
    }
    let exists = || {
        analysis(
            "SCHEMA_ALREADY_EXISTS",
            "42P06",
            format!(
                "Cannot create schema `{db}` because it already exists.\nChoose a different name, drop the existing schema, or add the IF NOT EXISTS clause to tolerate pre-existing schema."
            ),
            vec![("schemaName", format!("`{db}`"))],
        )
    };
    if warehouse.database(&db).is_some() {
        return if if_not_exists {
            Ok(())
        } else {
            Err(exists().into())
        };
    }
    let location = match location {
        Some(l) => local_path(&l)?,
        None => warehouse.default_database_location(&db),
    };
    std::fs::create_dir_all(&location).map_err(|e| io_error("create", &location, e))?;
    let meta = DatabaseMeta {
        name: db.clone(),
        location: location.display().to_string(),
        comment,
        properties: properties.into_iter().collect(),
    };
    warehouse.update(|s| {
        if s.databases.contains_key(&db) {
            return Err(exists().into());
        }
        s.databases.insert(db.clone(), meta);
        Ok(())
    })?;
    Ok(())
}

pub fn drop_database(
    ctx: &RequestContext,
    name: &str,
    if_exists: bool,
    cascade: bool,
) -> ServerResult<()> {
    let db = name.to_ascii_lowercase();
    if db == DEFAULT_DATABASE {
        return Err(analysis(
            "UNSUPPORTED_FEATURE.DROP_DATABASE",
            "0A000",
            "The feature is not supported: Drop the default database `spark_catalog`.`default`."
                .into(),
            vec![("database", "`spark_catalog`.`default`".into())],
        )
        .into());
    }
    let dropped = ctx.session.catalog.warehouse().update(|s| {
        let Some(meta) = s.databases.get(&db).cloned() else {
            return Ok(None);
        };
        let tables = s.tables.get(&db).cloned().unwrap_or_default();
        let has_views = s.views.get(&db).is_some_and(|v| !v.is_empty());
        if (!tables.is_empty() || has_views) && !cascade {
            return Err(SparkError::analysis(
                "SCHEMA_NOT_EMPTY",
                "2BP01",
                format!("Cannot drop a schema `{db}` because it contains objects.\nUse DROP SCHEMA ... CASCADE to drop the schema and all its objects."),
            )
            .into());
        }
        s.databases.remove(&db);
        s.tables.remove(&db);
        s.views.remove(&db);
        Ok(Some((meta, tables)))
    })?;
    match dropped {
        Some((meta, tables)) => {
            for t in tables.values().filter(|t| t.managed) {
                remove_data(Path::new(&t.location));
            }
            remove_data(Path::new(&meta.location));
            ctx.session.catalog.forget_database(&db);
            Ok(())
        }
        None if if_exists => Ok(()),
        None => Err(schema_not_found(&db).into()),
    }
}

/// Whether Spark's ANSI store assignment writes a `from` value into a `to` column.
fn can_store(from: &DataType, to: &DataType) -> bool {
    use DataType::*;
    let numeric = |t: &DataType| t.is_numeric();
    let stringy = |t: &DataType| matches!(t, Utf8 | LargeUtf8 | Utf8View);
    if from == to || from == &Null {
        return true;
    }
    match (from, to) {
        (_, t) if stringy(t) => !matches!(from, Binary | LargeBinary | BinaryView),
        (f, t) if stringy(f) => stringy(t),
        (f, t) if numeric(f) && numeric(t) => true,
        (Date32 | Timestamp(_, _), Date32 | Timestamp(_, _)) => true,
        (Binary | LargeBinary | BinaryView, Binary | LargeBinary | BinaryView) => true,
        (List(a), List(b)) => can_store(a.data_type(), b.data_type()),
        (Struct(a), Struct(b)) => {
            a.len() == b.len()
                && a.iter()
                    .zip(b.iter())
                    .all(|(x, y)| can_store(x.data_type(), y.data_type()))
        }
        (Map(_, _), Map(_, _)) => true,
        _ => false,
    }
}

/// How the rows of an insert find their columns.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum ColumnMatch {
    ByPosition,
    ByName,
}

/// INSERT INTO / OVERWRITE, `insertInto`, `saveAsTable` in append mode.
pub async fn insert(
    ctx: &RequestContext,
    table_name: &[String],
    query: &Plan,
    overwrite: bool,
    partition: &[(String, Option<spec::Expr>)],
    columns: &[String],
    matching: ColumnMatch,
) -> ServerResult<()> {
    if ctx.session.catalog.lookup_view(table_name) {
        return Err(SparkError::unsupported(format!(
            "inserting into the view {}",
            table_name.join(".")
        ))
        .into());
    }
    let table = existing_table(ctx, table_name)?;
    let fields = table_fields(ctx, &table)?;
    let q = quoted(&table.database, &table.name);
    let is_partition = |name: &str| {
        table
            .partition_columns
            .iter()
            .any(|p| p.eq_ignore_ascii_case(name))
    };
    // Static partition values name directories; the query gives the other columns.
    let mut static_values: Vec<(String, String)> = vec![];
    for (column, value) in partition {
        if !is_partition(column) {
            return Err(analysis(
                "PARTITIONS_NOT_FOUND",
                "428FT",
                format!("The partition(s) `{column}` cannot be found in table {q}."),
                vec![],
            )
            .into());
        }
        let Some(value) = value else { continue };
        let spec::Expr::Literal(v) = value else {
            return Err(SparkError::unsupported("a partition value that is not a literal").into());
        };
        let field = fields
            .iter()
            .find(|f| f.name().eq_ignore_ascii_case(column))
            .ok_or_else(|| SparkError::table_not_found(column))?;
        let text = if v.is_null() {
            DEFAULT_PARTITION_NAME.to_string()
        } else {
            let typed = v
                .cast_to(field.data_type())
                .and_then(|t| t.cast_to(&DataType::Utf8))
                .map_err(PlanError::from)?;
            match typed {
                ScalarValue::Utf8(Some(s)) if !s.is_empty() => escape_path_name(&s),
                _ => DEFAULT_PARTITION_NAME.to_string(),
            }
        };
        static_values.push((field.name().clone(), text));
    }
    // Static partitions come first in the directory tree, as in Spark.
    let static_prefix_ok = table
        .partition_columns
        .iter()
        .take(static_values.len())
        .zip(&static_values)
        .all(|(p, (s, _))| p.eq_ignore_ascii_case(s));
    if !static_prefix_ok {
        return Err(SparkError::unsupported(
            "a static partition value after a dynamic partition column",
        )
        .into());
    }
    let targets: Vec<&Field> = fields
        .iter()
        .filter(|f| !static_values.iter().any(|(s, _)| s == f.name()))
        .map(|f| f.as_ref())
        .collect();
    let resolved = ctx.resolve(query)?;
    let data_schema = resolved.plan.schema().clone();
    let arity = |reason: &str, detail: &str| -> ServerResult<()> {
        let table_cols: Vec<String> = targets.iter().map(|f| format!("`{}`", f.name())).collect();
        let data_cols: Vec<String> = resolved.names.iter().map(|n| format!("`{n}`")).collect();
        Err(analysis(
            &format!("INSERT_COLUMN_ARITY_MISMATCH.{reason}"),
            "21S01",
            format!(
                "Cannot write to {q}, the reason is {detail}:\nTable columns: {}.\nData columns: {}.",
                table_cols.join(", "),
                data_cols.join(", ")
            ),
            vec![],
        )
        .into())
    };
    // For each target column, the query column that fills it (None: NULL).
    let sources: Vec<Option<usize>> = if !columns.is_empty() || matching == ColumnMatch::ByName {
        let given: Vec<String> = if columns.is_empty() {
            resolved.names.clone()
        } else {
            columns.to_vec()
        };
        if given.len() != resolved.names.len() {
            let (reason, detail) = if given.len() > resolved.names.len() {
                ("NOT_ENOUGH_DATA_COLUMNS", "not enough data columns")
            } else {
                ("TOO_MANY_DATA_COLUMNS", "too many data columns")
            };
            arity(reason, detail)?;
        }
        for g in &given {
            if !targets.iter().any(|f| f.name().eq_ignore_ascii_case(g)) {
                let proposal: Vec<String> =
                    targets.iter().map(|f| format!("`{}`", f.name())).collect();
                return Err(analysis(
                    "UNRESOLVED_COLUMN.WITH_SUGGESTION",
                    "42703",
                    format!(
                        "A column, variable, or function parameter with name `{g}` cannot be resolved. Did you mean one of the following? [{}].",
                        proposal.join(", ")
                    ),
                    vec![],
                )
                .into());
            }
        }
        if matching == ColumnMatch::ByName && columns.is_empty() && given.len() < targets.len() {
            arity("NOT_ENOUGH_DATA_COLUMNS", "not enough data columns")?;
        }
        targets
            .iter()
            .map(|f| given.iter().position(|g| g.eq_ignore_ascii_case(f.name())))
            .collect()
    } else {
        if resolved.names.len() < targets.len() {
            arity("NOT_ENOUGH_DATA_COLUMNS", "not enough data columns")?;
        }
        if resolved.names.len() > targets.len() {
            arity("TOO_MANY_DATA_COLUMNS", "too many data columns")?;
        }
        (0..targets.len()).map(Some).collect()
    };
    let mut exprs = Vec::with_capacity(targets.len());
    for (f, source) in targets.iter().zip(&sources) {
        let e = match source {
            Some(i) => {
                let from = data_schema.field(*i).data_type();
                if !can_store(from, f.data_type()) {
                    return Err(analysis(
                        "INCOMPATIBLE_DATA_FOR_TABLE.CANNOT_SAFELY_CAST",
                        "KD000",
                        format!(
                            "Cannot write incompatible data for the table {q}: Cannot safely cast `{}` \"{}\" to \"{}\".",
                            f.name(),
                            types::sql_name(from),
                            types::sql_name(f.data_type())
                        ),
                        vec![],
                    )
                    .into());
                }
                let col = Expr::Column(data_schema.columns()[*i].clone());
                if from == f.data_type() {
                    col
                } else {
                    cast(col, f.data_type().clone())
                }
            }
            None => Expr::Literal(
                ScalarValue::try_from(f.data_type()).map_err(PlanError::from)?,
                None,
            ),
        };
        exprs.push(e.alias(f.name()));
    }
    let plan = LogicalPlanBuilder::from(resolved.plan)
        .project(exprs)?
        .build()?;
    let query = ResolvedQuery {
        plan,
        names: targets.iter().map(|f| f.name().clone()).collect(),
        post: resolved.post,
    };
    let mut target = PathBuf::from(&table.location);
    for (column, value) in &static_values {
        target.push(format!("{}={value}", escape_path_name(column)));
    }
    recover(Path::new(&table.location))?;
    write_files(
        ctx,
        query,
        FileWriteSpec {
            target,
            format: table.format.clone(),
            options: table.options.clone().into_iter().collect(),
            partition_by: table
                .partition_columns
                .iter()
                .skip(static_values.len())
                .cloned()
                .collect(),
            overwrite,
        },
    )
    .await?;
    Ok(())
}

/// `df.write.saveAsTable(name)` and `df.write.insertInto(name)`.
pub async fn write_table(ctx: &RequestContext, spec: WriteSpec) -> ServerResult<()> {
    let spec::WriteTarget::Table {
        name,
        insert: is_insert,
    } = &spec.target
    else {
        return Err(SparkError::invalid_plan("not a table write").into());
    };
    if *is_insert {
        if !spec.partition_by.is_empty() {
            return Err(analysis(
                "_LEGACY_ERROR_TEMP_1309",
                "",
                "insertInto() can't be used together with partitionBy(). Partition columns have already been defined for the table. It is not necessary to use partitionBy().".into(),
                vec![],
            )
            .into());
        }
        return insert(
            ctx,
            name,
            &spec.input,
            spec.mode == SaveMode::Overwrite,
            &[],
            &[],
            ColumnMatch::ByPosition,
        )
        .await;
    }
    let (db, table) = table_name(ctx, name)?;
    let existing = ctx.session.catalog.warehouse().table(&db, &table);
    match (existing, spec.mode) {
        (Some(_), SaveMode::ErrorIfExists) => Err(table_exists_error(&db, &table).into()),
        (Some(_), SaveMode::Ignore) => Ok(()),
        (Some(_), SaveMode::Append) => {
            insert(ctx, name, &spec.input, false, &[], &[], ColumnMatch::ByName).await
        }
        (Some(t), SaveMode::Overwrite) => {
            replace_table(
                ctx,
                t,
                &spec.input,
                spec.format.as_deref(),
                &spec.partition_by,
                spec.options,
                None,
            )
            .await
        }
        (None, _) => {
            let mut options = spec.options;
            let location = options.remove("path");
            create_table(
                ctx,
                CreateTableSpec {
                    name: name.clone(),
                    format: spec.format,
                    partition_by: spec.partition_by,
                    location,
                    options: options.into_iter().collect(),
                    query: Some(spec.input),
                    ..Default::default()
                },
            )
            .await
        }
    }
}

/// Overwrite a table with a query's rows and the query's schema (`saveAsTable` in overwrite
/// mode, `writeTo(...).replace()`): the data is replaced atomically, then the catalog entry.
pub async fn replace_table(
    ctx: &RequestContext,
    old: TableMeta,
    input: &Plan,
    format: Option<&str>,
    partition_by: &[String],
    options: HashMap<String, String>,
    properties: Option<Vec<(String, String)>>,
) -> ServerResult<()> {
    let format = format_or_default(ctx, format);
    check_table_format(&format)?;
    let query = ctx.resolve(input)?;
    let fields = query_fields(&query);
    let names: Vec<&str> = fields.iter().map(|f| f.name().as_str()).collect();
    check_unique_columns(&names)?;
    let (fields, partition_columns) =
        partitioned_last(fields, partition_by, &old.database, &old.name)?;
    let location = PathBuf::from(&old.location);
    recover(&location)?;
    write_files(
        ctx,
        query,
        FileWriteSpec {
            target: location,
            format: format.clone(),
            options: options.clone(),
            partition_by: partition_columns.clone(),
            overwrite: true,
        },
    )
    .await?;
    let mut options = options;
    options.remove("path");
    let meta = TableMeta {
        format,
        schema: schema_json(&fields)?,
        partition_columns,
        options: options.into_iter().collect(),
        properties: properties
            .map(|p| p.into_iter().collect())
            .unwrap_or(old.properties.clone()),
        created_ms: now_ms(),
        ..old
    };
    ctx.session.catalog.warehouse().update(|s| {
        s.tables
            .entry(meta.database.clone())
            .or_default()
            .insert(meta.name.clone(), meta);
        Ok(())
    })?;
    Ok(())
}

/// `df.writeTo(name)...`: DataFrameWriterV2 on file tables of the session catalog.
pub async fn write_v2(ctx: &RequestContext, w: spec::WriteV2) -> ServerResult<()> {
    use spec::WriteV2Mode as M;
    let (db, table) = table_name(ctx, &w.name)?;
    let existing = ctx.session.catalog.warehouse().table(&db, &table);
    let create = |w: spec::WriteV2| CreateTableSpec {
        name: w.name,
        format: w.provider,
        partition_by: w.partition_by,
        options: w.options.into_iter().collect(),
        properties: w.properties,
        query: Some(w.input),
        ..Default::default()
    };
    match (w.mode, existing) {
        (M::Create, _) => create_table(ctx, create(w)).await,
        (M::CreateOrReplace, None) => create_table(ctx, create(w)).await,
        (M::Replace | M::CreateOrReplace, Some(t)) => {
            let properties = (!w.properties.is_empty()).then_some(w.properties);
            replace_table(
                ctx,
                t,
                &w.input,
                w.provider.as_deref(),
                &w.partition_by,
                w.options,
                properties,
            )
            .await
        }
        (M::Replace, None) => {
            let q = quoted(&db, &table);
            Err(analysis(
                "TABLE_OR_VIEW_NOT_FOUND",
                "42P01",
                format!("The table or view {q} cannot be found. Verify the spelling and correctness of the schema and catalog."),
                vec![("relationName", q.clone())],
            )
            .into())
        }
        (M::Append | M::Overwrite | M::OverwritePartitions, None) => {
            Err(SparkError::table_not_found(&w.name.join(".")).into())
        }
        (M::Append, Some(_)) => {
            insert(ctx, &w.name, &w.input, false, &[], &[], ColumnMatch::ByName).await
        }
        (M::OverwritePartitions, Some(t)) if t.partition_columns.is_empty() => {
            insert(ctx, &w.name, &w.input, true, &[], &[], ColumnMatch::ByName).await
        }
        (M::OverwritePartitions, Some(_)) => Err(SparkError::unsupported(
            "overwritePartitions() of a partitioned table (dynamic partition overwrite)",
        )
        .into()),
        (M::Overwrite, Some(_)) => {
            Err(SparkError::unsupported("writeTo(...).overwrite(condition)").into())
        }
    }
}

pub fn truncate_table(ctx: &RequestContext, name: &[String]) -> ServerResult<()> {
    let table = existing_table(ctx, name)?;
    let location = PathBuf::from(&table.location);
    recover(&location)?;
    let entries = match std::fs::read_dir(&location) {
        Ok(d) => d,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(io_error("list", &location, e).into()),
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let removed = if path.is_dir() {
            std::fs::remove_dir_all(&path)
        } else {
            std::fs::remove_file(&path)
        };
        removed.map_err(|e| io_error("remove", &path, e))?;
    }
    Ok(())
}

pub fn alter_table(ctx: &RequestContext, name: &[String], action: AlterTable) -> ServerResult<()> {
    let table = existing_table(ctx, name)?;
    let warehouse = ctx.session.catalog.warehouse();
    match action {
        AlterTable::RenameTo(to) => {
            let (db, new_name) = match to.as_slice() {
                [t] => (table.database.clone(), t.to_ascii_lowercase()),
                _ => table_name(ctx, &to)?,
            };
            if db != table.database {
                return Err(
                    SparkError::unsupported("renaming a table into another database").into(),
                );
            }
            if warehouse.table(&db, &new_name).is_some() {
                return Err(table_exists_error(&db, &new_name).into());
            }
            let mut renamed = table.clone();
            renamed.name = new_name.clone();
            if table.managed {
                let database = existing_database(ctx, &db)?;
                let to_dir = PathBuf::from(&database.location).join(&new_name);
                check_new_location(&to_dir)?;
                let from_dir = PathBuf::from(&table.location);
                if from_dir.exists() {
                    std::fs::rename(&from_dir, &to_dir)
                        .map_err(|e| io_error("rename", &from_dir, e))?;
                }
                renamed.location = to_dir.display().to_string();
            }
            warehouse.update(|s| {
                let tables = s.tables.entry(db.clone()).or_default();
                if tables.contains_key(&new_name) {
                    return Err(table_exists_error(&db, &new_name).into());
                }
                tables.remove(&table.name);
                tables.insert(new_name.clone(), renamed);
                Ok(())
            })?;
        }
        AlterTable::AddColumns(ddl) => {
            let added = types::parse_schema(&ddl, &ctx.session.conf.time_zone())?;
            let fields = table_fields(ctx, &table)?;
            let mut all: Vec<Field> = fields
                .iter()
                .filter(|f| !table.partition_columns.contains(f.name()))
                .map(|f| f.as_ref().clone())
                .collect();
            all.extend(added.fields().iter().map(|f| f.as_ref().clone()));
            all.extend(
                fields
                    .iter()
                    .filter(|f| table.partition_columns.contains(f.name()))
                    .map(|f| f.as_ref().clone()),
            );
            let names: Vec<&str> = all.iter().map(|f| f.name().as_str()).collect();
            check_unique_columns(&names)?;
            let schema = schema_json(&all)?;
            update_table(ctx, &table, |t| t.schema = schema)?;
        }
        AlterTable::SetProperties(props) => {
            update_table(ctx, &table, |t| t.properties.extend(props))?;
        }
        AlterTable::UnsetProperties { keys, if_exists } => {
            if !if_exists && let Some(k) = keys.iter().find(|k| !table.properties.contains_key(*k))
            {
                return Err(analysis(
                    "UNSET_NONEXISTENT_PROPERTIES",
                    "42K0J",
                    format!(
                        "Attempted to unset non-existent properties [`{k}`] in table {}.",
                        quoted(&table.database, &table.name)
                    ),
                    vec![],
                )
                .into());
            }
            update_table(ctx, &table, |t| {
                for k in &keys {
                    t.properties.remove(k);
                }
            })?;
        }
    }
    Ok(())
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

// ------------------------------------------------------------------------------------------
// SHOW and DESCRIBE

fn batch(columns: Vec<(&str, bool, Vec<Option<String>>)>) -> ServerResult<Option<RecordBatch>> {
    let schema = Arc::new(Schema::new(
        columns
            .iter()
            .map(|(n, nullable, _)| Field::new(*n, DataType::Utf8, *nullable))
            .collect::<Vec<_>>(),
    ));
    let arrays: Vec<ArrayRef> = columns
        .into_iter()
        .map(|(_, _, v)| Arc::new(StringArray::from(v)) as ArrayRef)
        .collect();
    Ok(Some(
        RecordBatch::try_new(schema, arrays).map_err(datafusion::error::DataFusionError::from)?,
    ))
}

fn comment_of(f: &Field) -> Option<String> {
    f.metadata().get(types::COMMENT_KEY).cloned()
}

/// Spark's `DESCRIBE [EXTENDED] table`.
pub fn describe_table(
    ctx: &RequestContext,
    table: &TableMeta,
    extended: bool,
) -> ServerResult<Option<RecordBatch>> {
    let fields = table_fields(ctx, table)?;
    let mut rows: Vec<(String, Option<String>, Option<String>)> = fields
        .iter()
        .map(|f| {
            (
                f.name().clone(),
                Some(types::simple_string(f.data_type())),
                comment_of(f),
            )
        })
        .collect();
    let info = |k: &str, v: String| (k.to_string(), Some(v), Some(String::new()));
    if !table.partition_columns.is_empty() {
        rows.push(info("# Partition Information", String::new()));
        rows.push((
            "# col_name".into(),
            Some("data_type".into()),
            Some("comment".into()),
        ));
        for p in &table.partition_columns {
            if let Some(f) = fields.iter().find(|f| f.name() == p) {
                rows.push((
                    p.clone(),
                    Some(types::simple_string(f.data_type())),
                    comment_of(f),
                ));
            }
        }
    }
    if extended {
        rows.push(info("", String::new()));
        rows.push(info("# Detailed Table Information", String::new()));
        rows.push(info("Catalog", "spark_catalog".into()));
        rows.push(info("Database", table.database.clone()));
        rows.push(info("Table", table.name.clone()));
        rows.push(info("Created Time", created_time(table.created_ms)));
        rows.push(info("Last Access", "UNKNOWN".into()));
        rows.push(info(
            "Created By",
            format!("Ember {}", env!("CARGO_PKG_VERSION")),
        ));
        rows.push(info(
            "Type",
            if table.managed { "MANAGED" } else { "EXTERNAL" }.into(),
        ));
        rows.push(info("Provider", table.format.clone()));
        if let Some(c) = &table.comment {
            rows.push(info("Comment", c.clone()));
        }
        if !table.properties.is_empty() {
            let props: Vec<String> = table
                .properties
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect();
            rows.push(info("Table Properties", format!("[{}]", props.join(", "))));
        }
        rows.push(info("Location", format!("file:{}", table.location)));
        if !table.options.is_empty() {
            let opts: Vec<String> = table
                .options
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect();
            rows.push(info("Storage Properties", format!("[{}]", opts.join(", "))));
        }
        if !table.partition_columns.is_empty() {
            rows.push(info("Partition Provider", "Catalog".into()));
        }
    }
    let (names, rest): (Vec<_>, Vec<_>) =
        rows.into_iter().map(|(a, b, c)| (Some(a), (b, c))).unzip();
    let (types_, comments): (Vec<_>, Vec<_>) = rest.into_iter().unzip();
    batch(vec![
        ("col_name", false, names),
        ("data_type", false, types_),
        ("comment", true, comments),
    ])
}

fn created_time(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms)
        .map(|t| t.format("%a %b %d %H:%M:%S UTC %Y").to_string())
        .unwrap_or_default()
}

/// `DESCRIBE table column`.
pub fn describe_column(
    ctx: &RequestContext,
    table: &[String],
    column: &[String],
) -> ServerResult<Option<RecordBatch>> {
    let query = ctx.resolve(&Plan::new(spec::PlanNode::Table {
        name: table.to_vec(),
    }))?;
    let wanted = column.last().cloned().unwrap_or_default();
    let Some(i) = query
        .names
        .iter()
        .position(|n| n.eq_ignore_ascii_case(&wanted))
    else {
        return Err(analysis(
            "UNRESOLVED_COLUMN.WITHOUT_SUGGESTION",
            "42703",
            format!(
                "A column, variable, or function parameter with name `{wanted}` cannot be resolved."
            ),
            vec![],
        )
        .into());
    };
    let field = query.plan.schema().field(i);
    let comment = ctx
        .session
        .catalog
        .lookup_table(table)
        .and_then(|t| table_fields(ctx, &t).ok())
        .and_then(|fs| {
            fs.iter()
                .find(|f| f.name() == &query.names[i])
                .and_then(|f| comment_of(f))
        });
    batch(vec![
        (
            "info_name",
            false,
            vec![
                Some("col_name".into()),
                Some("data_type".into()),
                Some("comment".into()),
            ],
        ),
        (
            "info_value",
            false,
            vec![
                Some(query.names[i].clone()),
                Some(types::simple_string(field.data_type())),
                Some(comment.unwrap_or_else(|| "NULL".into())),
            ],
        ),
    ])
}

pub fn describe_database(
    ctx: &RequestContext,
    name: &str,
    extended: bool,
) -> ServerResult<Option<RecordBatch>> {
    let db = existing_database(ctx, name)?;
    let mut rows = vec![
        ("Catalog Name", "spark_catalog".to_string()),
        ("Namespace Name", db.name.clone()),
        ("Comment", db.comment.clone().unwrap_or_default()),
        ("Location", format!("file:{}", db.location)),
        ("Owner", std::env::var("USER").unwrap_or_default()),
    ];
    if extended {
        let props: Vec<String> = db
            .properties
            .iter()
            .map(|(k, v)| format!("({k},{v})"))
            .collect();
        rows.push(("Properties", format!("({})", props.join(","))));
    }
    batch(vec![
        (
            "info_name",
            false,
            rows.iter().map(|(k, _)| Some(k.to_string())).collect(),
        ),
        (
            "info_value",
            false,
            rows.into_iter().map(|(_, v)| Some(v)).collect(),
        ),
    ])
}

/// `SHOW TABLES [IN db]`: the database's tables, then this session's temporary views.
pub fn show_tables(
    ctx: &RequestContext,
    database: Option<&str>,
    matches: impl Fn(&str) -> bool,
    views_only: bool,
) -> ServerResult<Option<RecordBatch>> {
    let catalog = &ctx.session.catalog;
    let db = database
        .map(|d| d.to_ascii_lowercase())
        .unwrap_or_else(|| catalog.current_database());
    let mut rows: Vec<(String, String, bool)> = vec![];
    if db == ember_planner::catalog::GLOBAL_TEMP_DATABASE {
        for v in catalog.global_temp_view_names() {
            if matches(&v) {
                rows.push((db.clone(), v, true));
            }
        }
    } else {
        existing_database(ctx, &db)?;
        let state = catalog.warehouse().snapshot();
        let mut names: Vec<&String> = state
            .views
            .get(&db)
            .into_iter()
            .flat_map(|v| v.keys())
            .collect();
        if !views_only {
            names.extend(state.tables.get(&db).into_iter().flat_map(|t| t.keys()));
        }
        names.sort();
        for name in names.into_iter().filter(|n| matches(n)) {
            rows.push((db.clone(), name.clone(), false));
        }
    }
    for v in catalog.temp_view_names() {
        if matches(&v) {
            rows.push((String::new(), v, true));
        }
    }
    let n = rows.len();
    let schema = Arc::new(Schema::new(vec![
        Field::new("namespace", DataType::Utf8, false),
        Field::new(
            if views_only { "viewName" } else { "tableName" },
            DataType::Utf8,
            false,
        ),
        Field::new("isTemporary", DataType::Boolean, false),
    ]));
    let mut namespaces = Vec::with_capacity(n);
    let mut names = Vec::with_capacity(n);
    let mut temporary = Vec::with_capacity(n);
    for (a, b, c) in rows {
        namespaces.push(a);
        names.push(b);
        temporary.push(c);
    }
    let columns: Vec<ArrayRef> = vec![
        Arc::new(StringArray::from(namespaces)),
        Arc::new(StringArray::from(names)),
        Arc::new(BooleanArray::from(temporary)),
    ];
    Ok(Some(
        RecordBatch::try_new(schema, columns).map_err(datafusion::error::DataFusionError::from)?,
    ))
}

pub fn show_databases(
    ctx: &RequestContext,
    matches: impl Fn(&str) -> bool,
) -> ServerResult<Option<RecordBatch>> {
    let state = ctx.session.catalog.warehouse().snapshot();
    let names: Vec<Option<String>> = state
        .databases
        .keys()
        .filter(|n| matches(n))
        .map(|n| Some(n.clone()))
        .collect();
    batch(vec![("namespace", false, names)])
}

pub fn show_tblproperties(
    ctx: &RequestContext,
    name: &[String],
    key: Option<&str>,
) -> ServerResult<Option<RecordBatch>> {
    let table = existing_table(ctx, name)?;
    let rows: Vec<(String, String)> = match key {
        Some(k) => vec![(
            k.to_string(),
            table.properties.get(k).cloned().unwrap_or_else(|| {
                format!(
                    "Table {} does not have property: {k}",
                    quoted(&table.database, &table.name)
                )
            }),
        )],
        None => table.properties.into_iter().collect(),
    };
    batch(vec![
        (
            "key",
            false,
            rows.iter().map(|(k, _)| Some(k.clone())).collect(),
        ),
        (
            "value",
            false,
            rows.into_iter().map(|(_, v)| Some(v)).collect(),
        ),
    ])
}

/// `SHOW PARTITIONS`: the partition directories under the table's location.
pub fn show_partitions(ctx: &RequestContext, name: &[String]) -> ServerResult<Option<RecordBatch>> {
    let table = existing_table(ctx, name)?;
    if table.partition_columns.is_empty() {
        let q = quoted(&table.database, &table.name);
        return Err(analysis(
            "INVALID_PARTITION_OPERATION.PARTITION_SCHEMA_IS_EMPTY",
            "42601",
            format!("The partition command is invalid. Table {q} is not partitioned."),
            vec![("name", q.clone())],
        )
        .into());
    }
    let root = PathBuf::from(&table.location);
    recover(&root)?;
    let mut found = vec![];
    collect_partitions(&root, &table.partition_columns, &mut vec![], &mut found);
    found.sort();
    batch(vec![(
        "partition",
        false,
        found.into_iter().map(Some).collect(),
    )])
}

fn collect_partitions(
    dir: &Path,
    columns: &[String],
    prefix: &mut Vec<String>,
    out: &mut Vec<String>,
) {
    let Some((column, rest)) = columns.split_first() else {
        out.push(prefix.join("/"));
        return;
    };
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().to_string();
        if let Some((k, _)) = name.split_once('=')
            && k.eq_ignore_ascii_case(column)
            && e.path().is_dir()
        {
            prefix.push(name.clone());
            collect_partitions(&e.path(), rest, prefix, out);
            prefix.pop();
        }
    }
}

/// `SHOW CREATE TABLE`, spelled as Spark spells it.
pub fn show_create_table(
    ctx: &RequestContext,
    name: &[String],
) -> ServerResult<Option<RecordBatch>> {
    let table = existing_table(ctx, name)?;
    let fields = table_fields(ctx, &table)?;
    let columns: Vec<String> = fields
        .iter()
        .map(|f| {
            let mut c = format!("{} {}", quote_if_needed(f.name()), ddl_type(f.data_type()));
            if !f.is_nullable() {
                c.push_str(" NOT NULL");
            }
            if let Some(comment) = comment_of(f) {
                c.push_str(&format!(" COMMENT '{}'", comment.replace('\'', "\\'")));
            }
            c
        })
        .collect();
    let mut text = format!(
        "CREATE TABLE spark_catalog.{}.{} (\n  {})\nUSING {}\n",
        table.database,
        table.name,
        columns.join(",\n  "),
        table.format
    );
    let pairs = |m: &BTreeMap<String, String>| {
        m.iter()
            .map(|(k, v)| format!("  '{k}' = '{v}'"))
            .collect::<Vec<_>>()
            .join(",\n")
    };
    if !table.options.is_empty() {
        text.push_str(&format!("OPTIONS (\n{})\n", pairs(&table.options)));
    }
    if !table.partition_columns.is_empty() {
        text.push_str(&format!(
            "PARTITIONED BY ({})\n",
            table.partition_columns.join(", ")
        ));
    }
    if !table.managed {
        text.push_str(&format!("LOCATION 'file:{}'\n", table.location));
    }
    if let Some(c) = &table.comment {
        text.push_str(&format!("COMMENT '{c}'\n"));
    }
    if !table.properties.is_empty() {
        text.push_str(&format!("TBLPROPERTIES (\n{})\n", pairs(&table.properties)));
    }
    batch(vec![("createtab_stmt", false, vec![Some(text)])])
}

fn quote_if_needed(name: &str) -> String {
    if name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !name.starts_with(|c: char| c.is_ascii_digit())
    {
        name.to_string()
    } else {
        format!("`{}`", name.replace('`', "``"))
    }
}

/// A type as SHOW CREATE TABLE writes it (strings with their collation, as Spark 4 does).
fn ddl_type(dt: &DataType) -> String {
    match dt {
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => {
            "STRING COLLATE UTF8_BINARY".into()
        }
        DataType::List(f) | DataType::LargeList(f) => format!("ARRAY<{}>", ddl_type(f.data_type())),
        DataType::Struct(fields) => format!(
            "STRUCT<{}>",
            fields
                .iter()
                .map(|f| format!("{}: {}", quote_if_needed(f.name()), ddl_type(f.data_type())))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        DataType::Map(entries, _) => match entries.data_type() {
            DataType::Struct(kv) if kv.len() == 2 => format!(
                "MAP<{}, {}>",
                ddl_type(kv[0].data_type()),
                ddl_type(kv[1].data_type())
            ),
            _ => "MAP".into(),
        },
        other => types::sql_name(other),
    }
}
