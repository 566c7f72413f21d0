//! CREATE/DROP/ALTER of databases, tables and views, TRUNCATE.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use arrow::datatypes::Field;
use ember_execution::formats::commit::recover;
use ember_planner::catalog::{
    DEFAULT_DATABASE, DatabaseMeta, TableMeta, check_name, schema_not_found,
};
use ember_planner::error::ErrorKind;
use ember_planner::spec::{self, AlterTable, CreateTableSpec, Plan};
use ember_planner::{SparkError, types};

use super::*;
use crate::error::ServerResult;
use crate::execute::write::{FileWriteSpec, analysis, format_or_default, local_path, write_files};
use crate::state::RequestContext;

pub async fn create_table(ctx: &RequestContext, spec: CreateTableSpec) -> ServerResult<()> {
    if let Some(location) = crate::execute::iceberg::catalog_location(ctx, &spec.name)? {
        return crate::execute::iceberg::create_table(ctx, &spec, &location).await;
    }
    spec::check_transforms(&spec.transforms)?;
    let (db, name) = table_name(ctx, &spec.name)?;
    check_name(&name)?;
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
    // A table of a Python data source the session registered reads through the source.
    let python_source = crate::execute::python_source::registered(ctx, &format).is_some();
    let options: BTreeMap<String, String> = spec.options.iter().cloned().collect();
    let write_options: HashMap<String, String> = options.clone().into_iter().collect();
    if python_source {
        if spec.query.is_some() {
            return Err(ember_planner::PlanError::Unsupported(
                "CREATE TABLE ... AS SELECT of a Python data source".into(),
            )
            .into());
        }
    } else {
        check_table_format(&format)?;
        ember_planner::datasource::write::write_settings(
            &format,
            &write_options,
            &ember_planner::datasource::write::CodecDefaults::default(),
        )?;
    }
    let external = spec.location.is_some();
    let location = match &spec.location {
        Some(l) => local_path(l)?,
        None => PathBuf::from(&database.location).join(&name),
    };
    let query = match &spec.query {
        Some(q) => Some(ctx.resolve(q)?),
        None => None,
    };
    let fields: Vec<Field> = match (&query, &spec.columns) {
        (Some(query), _) => query_fields(query),
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
                paths: if python_source {
                    vec![]
                } else {
                    vec![location.display().to_string()]
                },
            }));
            query_fields(&ctx.resolve(&read)?)
        }
    };
    let names: Vec<&str> = fields.iter().map(|f| f.name().as_str()).collect();
    check_unique_columns(&names)?;
    // A Delta table keeps its columns in the declared order.
    let declared = fields.clone();
    let (fields, partition_columns) = partitioned_last(fields, &spec.partition_by, &db, &name)?;
    let fields = if format == "delta" {
        declared.clone()
    } else {
        fields
    };
    let bucketing = checked_bucketing(spec.bucketing, &fields, &db, &name)?;
    if !external {
        check_new_location(&location)?;
    }
    match query {
        Some(query) => {
            recover(&location)?;
            write_files(
                ctx,
                query,
                FileWriteSpec {
                    target: location.clone().into(),
                    format: format.clone(),
                    options: write_options,
                    partition_by: partition_columns.clone(),
                    bucketing: bucketing.clone(),
                    overwrite: false,
                    dynamic_overwrite: false,
                },
            )
            .await?;
        }
        None => {
            std::fs::create_dir_all(&location).map_err(|e| io_error("create", &location, e))?;
            if format == "delta" {
                crate::execute::delta::create_empty(ctx, &location, &declared, &partition_columns)
                    .await?;
            }
        }
    }
    register(
        ctx,
        TableMeta {
            database: db,
            name,
            format,
            schema: schema_json(&fields)?,
            partition_columns,
            bucketing,
            location: location.display().to_string(),
            managed: !external,
            options,
            properties: spec.properties.into_iter().collect(),
            comment: spec.comment,
            created_ms: now_ms(),
        },
    )
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

/// Best effort: a managed table's files once the catalog no longer has it. A location that
/// climbs out of its parent (`..`, from a catalog written before names were checked) is kept.
fn remove_data(location: &Path) {
    if !location.is_absolute()
        || location
            .components()
            .any(|c| matches!(c, std::path::Component::ParentDir))
    {
        tracing::warn!(location = %location.display(), "kept the files of a dropped table outside its database");
        return;
    }
    if let Err(e) = std::fs::remove_dir_all(location)
        && e.kind() != std::io::ErrorKind::NotFound
    {
        tracing::warn!(location = %location.display(), error = %e, "could not remove a dropped table's files");
    }
}

/// A dropped database's directory: removed with all it holds when it is the one Ember made
/// under the warehouse (as Spark); a directory the user named (LOCATION) only when Ember
/// made it and it is empty once the managed tables are gone, so foreign files stay.
fn remove_database_dir(meta: &DatabaseMeta, default_location: &Path) {
    let location = Path::new(&meta.location);
    if location == default_location {
        remove_data(location);
        return;
    }
    if !meta.created_location {
        tracing::info!(location = %location.display(), "kept the LOCATION of a dropped database (not made by Ember)");
        return;
    }
    match std::fs::remove_dir(location) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => tracing::info!(
            location = %location.display(),
            error = %e,
            "kept the LOCATION of a dropped database: it holds files Ember did not write"
        ),
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
    check_name(name)?;
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
    let created_location = !location.exists();
    std::fs::create_dir_all(&location).map_err(|e| io_error("create", &location, e))?;
    let meta = DatabaseMeta {
        name: db.clone(),
        location: location.display().to_string(),
        comment,
        properties: properties.into_iter().collect(),
        created_location,
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
            let warehouse = ctx.session.catalog.warehouse();
            remove_database_dir(&meta, &warehouse.default_database_location(&db));
            ctx.session.catalog.forget_database(&db);
            Ok(())
        }
        None if if_exists => Ok(()),
        None => Err(schema_not_found(&db).into()),
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
            check_name(&new_name)?;
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
