//! `spark.catalog.*`: the `Catalog` relation. Each call answers with the rows (and the column
//! order and types) that Spark's server sends, which the PySpark client reads by position.

use std::sync::Arc;

use arrow::array::{ArrayRef, BooleanArray, ListBuilder, RecordBatch, StringArray, StringBuilder};
use arrow::datatypes::{DataType, Field, Schema};
use ember_planner::catalog::{SESSION_CATALOG, TableMeta};
use ember_planner::spec::{self, CreateTableSpec, Plan, Statement};
use ember_planner::{SparkError, types};
use ember_protos::spark::connect as pb;
use pb::catalog::CatType;

use super::catalog;
use super::command::execute_statement;
use crate::error::ServerResult;
use crate::state::RequestContext;

/// What a catalog call returns: rows, or (for createTable) the new table to read.
pub enum CatalogAnswer {
    Rows(RecordBatch),
    Table(Vec<String>),
}

fn rows(columns: Vec<(&str, DataType, bool, ArrayRef)>) -> ServerResult<CatalogAnswer> {
    Ok(CatalogAnswer::Rows(catalog::record_batch(columns)?))
}

fn strings(values: Vec<Option<String>>) -> ArrayRef {
    Arc::new(StringArray::from(values))
}

fn value_string(v: String) -> ServerResult<CatalogAnswer> {
    rows(vec![(
        "value",
        DataType::Utf8,
        true,
        strings(vec![Some(v)]),
    )])
}

fn value_bool(v: bool) -> ServerResult<CatalogAnswer> {
    rows(vec![(
        "value",
        DataType::Boolean,
        false,
        Arc::new(BooleanArray::from(vec![v])),
    )])
}

fn nothing() -> ServerResult<CatalogAnswer> {
    Ok(CatalogAnswer::Rows(RecordBatch::new_empty(Arc::new(
        Schema::empty(),
    ))))
}

fn name_parts(name: &str) -> ServerResult<Vec<String>> {
    Ok(ember_planner::sql::parse_identifier_parts(name)?)
}

/// A database name as `spark.catalog` takes it (`db`, `` `db` ``, `spark_catalog.db`); None
/// for a database of another catalog (there is none).
fn database_name(text: &str) -> ServerResult<Option<String>> {
    Ok(match name_parts(text)?.as_slice() {
        [db] => Some(db.clone()),
        [catalog, db] if catalog.eq_ignore_ascii_case(SESSION_CATALOG) => Some(db.clone()),
        _ => None,
    })
}

/// `table` in `db` (when given), else `table` as written.
fn qualified(table: &str, db: Option<&str>) -> ServerResult<Vec<String>> {
    let mut parts = name_parts(table)?;
    if let Some(db) = db {
        parts.insert(0, db.to_string());
    }
    Ok(parts)
}

fn list_type() -> DataType {
    DataType::List(Arc::new(Field::new("element", DataType::Utf8, true)))
}

/// One row per table: name, catalog, namespace, description, tableType, isTemporary.
struct TableRow {
    name: String,
    catalog: Option<String>,
    namespace: Vec<String>,
    description: Option<String>,
    table_type: String,
    temporary: bool,
}

impl TableRow {
    fn of_table(t: &TableMeta) -> Self {
        Self {
            name: t.name.clone(),
            catalog: Some(SESSION_CATALOG.into()),
            namespace: vec![t.database.clone()],
            description: t.comment.clone(),
            table_type: if t.managed { "MANAGED" } else { "EXTERNAL" }.into(),
            temporary: false,
        }
    }

    fn of_persistent_view(v: ember_planner::catalog::ViewMeta) -> Self {
        Self {
            name: v.name,
            catalog: Some(SESSION_CATALOG.into()),
            namespace: vec![v.database],
            description: v.comment,
            table_type: "VIEW".into(),
            temporary: false,
        }
    }

    fn of_view(name: &str, global: bool) -> Self {
        Self {
            name: name.to_string(),
            catalog: None,
            namespace: if global {
                vec![ember_planner::catalog::GLOBAL_TEMP_DATABASE.into()]
            } else {
                vec![]
            },
            description: None,
            table_type: "TEMPORARY".into(),
            temporary: true,
        }
    }
}

fn table_rows(list: Vec<TableRow>) -> ServerResult<CatalogAnswer> {
    let mut namespace = ListBuilder::new(StringBuilder::new()).with_field(Arc::new(Field::new(
        "element",
        DataType::Utf8,
        true,
    )));
    for r in &list {
        for n in &r.namespace {
            namespace.values().append_value(n);
        }
        namespace.append(true);
    }
    rows(vec![
        (
            "name",
            DataType::Utf8,
            true,
            strings(list.iter().map(|r| Some(r.name.clone())).collect()),
        ),
        (
            "catalog",
            DataType::Utf8,
            true,
            strings(list.iter().map(|r| r.catalog.clone()).collect()),
        ),
        ("namespace", list_type(), true, Arc::new(namespace.finish())),
        (
            "description",
            DataType::Utf8,
            true,
            strings(list.iter().map(|r| r.description.clone()).collect()),
        ),
        (
            "tableType",
            DataType::Utf8,
            true,
            strings(list.iter().map(|r| Some(r.table_type.clone())).collect()),
        ),
        (
            "isTemporary",
            DataType::Boolean,
            false,
            Arc::new(BooleanArray::from(
                list.iter().map(|r| r.temporary).collect::<Vec<_>>(),
            )),
        ),
    ])
}

fn database_rows(dbs: Vec<ember_planner::catalog::DatabaseMeta>) -> ServerResult<CatalogAnswer> {
    rows(vec![
        (
            "name",
            DataType::Utf8,
            true,
            strings(dbs.iter().map(|d| Some(d.name.clone())).collect()),
        ),
        (
            "catalog",
            DataType::Utf8,
            true,
            strings(
                dbs.iter()
                    .map(|_| Some(SESSION_CATALOG.to_string()))
                    .collect(),
            ),
        ),
        (
            "description",
            DataType::Utf8,
            true,
            strings(
                dbs.iter()
                    .map(|d| Some(d.comment.clone().unwrap_or_default()))
                    .collect(),
            ),
        ),
        (
            "locationUri",
            DataType::Utf8,
            true,
            strings(
                dbs.iter()
                    .map(|d| Some(format!("file:{}", d.location)))
                    .collect(),
            ),
        ),
    ])
}

fn function_rows(names: Vec<String>) -> ServerResult<CatalogAnswer> {
    let n = names.len();
    let mut namespace = ListBuilder::new(StringBuilder::new()).with_field(Arc::new(Field::new(
        "element",
        DataType::Utf8,
        true,
    )));
    for _ in 0..n {
        namespace.append(false);
    }
    rows(vec![
        (
            "name",
            DataType::Utf8,
            true,
            strings(names.into_iter().map(Some).collect()),
        ),
        ("catalog", DataType::Utf8, true, strings(vec![None; n])),
        ("namespace", list_type(), true, Arc::new(namespace.finish())),
        ("description", DataType::Utf8, true, strings(vec![None; n])),
        ("className", DataType::Utf8, true, strings(vec![None; n])),
        (
            "isTemporary",
            DataType::Boolean,
            false,
            Arc::new(BooleanArray::from(vec![true; n])),
        ),
    ])
}

/// Spark's LIKE-style pattern of the catalog API: `*` any, `|` alternatives.
fn matcher(pattern: Option<&str>) -> impl Fn(&str) -> bool + '_ {
    move |name| super::command::matches_pattern(name, pattern)
}

fn function_names(pattern: Option<&str>) -> Vec<String> {
    let m = matcher(pattern);
    let mut names: Vec<String> = ember_planner::functions::registry()
        .names()
        // (Internal names, `__...`, are no function a user can call by name in SQL.)
        .filter(|n| !n.starts_with("__") && m(n))
        .cloned()
        .collect();
    names.sort();
    names
}

fn list_tables(
    ctx: &RequestContext,
    db: Option<&str>,
    pattern: Option<&str>,
    views_only: bool,
) -> ServerResult<CatalogAnswer> {
    let (_, listed) = catalog::list_relations(ctx, db, matcher(pattern), views_only)?;
    let list = listed
        .into_iter()
        .map(|(name, kind)| match kind {
            catalog::Listed::Table(t) => TableRow::of_table(&t),
            catalog::Listed::View(v) => TableRow::of_persistent_view(v),
            catalog::Listed::Temporary { global } => TableRow::of_view(&name, global),
        })
        .collect();
    table_rows(list)
}

fn get_table(ctx: &RequestContext, name: &[String]) -> ServerResult<TableRow> {
    let catalog = &ctx.session.catalog;
    if catalog.lookup_view(name) {
        let global = name.len() == 2;
        return Ok(TableRow::of_view(
            name.last().map(String::as_str).unwrap_or_default(),
            global,
        ));
    }
    if let Some(t) = catalog.lookup_table(name) {
        return Ok(TableRow::of_table(&t));
    }
    match catalog.lookup_persistent_view(name) {
        Some(v) => Ok(TableRow::of_persistent_view(v)),
        None => Err(SparkError::table_not_found(&name.join(".")).into()),
    }
}

fn table_exists(ctx: &RequestContext, name: &[String]) -> bool {
    let catalog = &ctx.session.catalog;
    catalog.lookup_view(name)
        || catalog.lookup_table(name).is_some()
        || catalog.lookup_persistent_view(name).is_some()
}

fn list_columns(ctx: &RequestContext, name: &[String]) -> ServerResult<CatalogAnswer> {
    let query = ctx.resolve(&Plan::new(spec::PlanNode::Table {
        name: name.to_vec(),
    }))?;
    let table = (!ctx.session.catalog.lookup_view(name))
        .then(|| ctx.session.catalog.lookup_table(name))
        .flatten();
    let table_fields = match &table {
        Some(t) => Some(types::parse_schema(
            &t.schema_json(),
            &ctx.session.conf.time_zone(),
        )?),
        None => None,
    };
    let schema = query.plan.schema();
    let mut names = vec![];
    let mut descriptions = vec![];
    let mut data_types = vec![];
    let mut nullable = vec![];
    let mut partition = vec![];
    let mut bucket = vec![];
    for (i, n) in query.names.iter().enumerate() {
        let f = schema.field(i);
        let declared = table_fields
            .as_ref()
            .and_then(|s| s.fields().iter().find(|d| d.name() == n).cloned());
        names.push(Some(n.clone()));
        descriptions.push(
            declared
                .as_ref()
                .and_then(|d| d.metadata().get(types::COMMENT_KEY).cloned()),
        );
        data_types.push(Some(types::simple_string(f.data_type())));
        nullable.push(
            declared
                .as_ref()
                .map_or(f.is_nullable(), |d| d.is_nullable()),
        );
        partition.push(
            table
                .as_ref()
                .is_some_and(|t| t.partition_columns.contains(n)),
        );
        bucket.push(
            table
                .as_ref()
                .is_some_and(|t| t.bucketing.as_ref().is_some_and(|b| b.columns.contains(n))),
        );
    }
    let n = names.len();
    rows(vec![
        ("name", DataType::Utf8, true, strings(names)),
        ("description", DataType::Utf8, true, strings(descriptions)),
        ("dataType", DataType::Utf8, true, strings(data_types)),
        (
            "nullable",
            DataType::Boolean,
            false,
            Arc::new(BooleanArray::from(nullable)),
        ),
        (
            "isPartition",
            DataType::Boolean,
            false,
            Arc::new(BooleanArray::from(partition)),
        ),
        (
            "isBucket",
            DataType::Boolean,
            false,
            Arc::new(BooleanArray::from(bucket)),
        ),
        (
            "isCluster",
            DataType::Boolean,
            false,
            Arc::new(BooleanArray::from(vec![false; n])),
        ),
    ])
}

/// Run a statement for its effect; its rows, if any, are dropped.
async fn run(ctx: &RequestContext, statement: Statement) -> ServerResult<()> {
    execute_statement(ctx, statement).await?;
    Ok(())
}

/// Tables that must exist for cache/refresh calls, which otherwise do nothing here.
fn must_exist(ctx: &RequestContext, table: &str) -> ServerResult<()> {
    let name = name_parts(table)?;
    if table_exists(ctx, &name) {
        Ok(())
    } else {
        Err(SparkError::table_not_found(&name.join(".")).into())
    }
}

pub async fn answer(ctx: &RequestContext, c: &pb::Catalog) -> ServerResult<CatalogAnswer> {
    let Some(cat) = &c.cat_type else {
        return Err(SparkError::invalid_plan("catalog call without a type").into());
    };
    let catalog = &ctx.session.catalog;
    match cat {
        CatType::CurrentDatabase(_) => value_string(catalog.current_database()),
        CatType::SetCurrentDatabase(s) => {
            catalog.set_current_database(&s.db_name)?;
            nothing()
        }
        CatType::ListDatabases(l) => {
            let m = matcher(l.pattern.as_deref());
            let dbs = catalog
                .warehouse()
                .snapshot()
                .databases
                .into_values()
                .filter(|d| m(&d.name))
                .collect();
            database_rows(dbs)
        }
        CatType::GetDatabase(g) => {
            let name = database_name(&g.db_name)?;
            let db = name
                .as_deref()
                .and_then(|n| catalog.warehouse().database(n))
                .ok_or_else(|| {
                    ember_planner::catalog::schema_not_found(name.as_deref().unwrap_or(&g.db_name))
                })?;
            database_rows(vec![db])
        }
        CatType::DatabaseExists(d) => value_bool(
            database_name(&d.db_name)?.is_some_and(|n| catalog.warehouse().database(&n).is_some()),
        ),
        CatType::ListTables(l) => {
            list_tables(ctx, l.db_name.as_deref(), l.pattern.as_deref(), false)
        }
        CatType::ListViews(l) => list_tables(ctx, l.db_name.as_deref(), l.pattern.as_deref(), true),
        CatType::GetTable(g) => {
            let name = qualified(&g.table_name, g.db_name.as_deref())?;
            table_rows(vec![get_table(ctx, &name)?])
        }
        CatType::TableExists(t) => {
            let name = qualified(&t.table_name, t.db_name.as_deref())?;
            value_bool(table_exists(ctx, &name))
        }
        CatType::ListColumns(l) => {
            let name = qualified(&l.table_name, l.db_name.as_deref())?;
            list_columns(ctx, &name)
        }
        CatType::ListFunctions(l) => function_rows(function_names(l.pattern.as_deref())),
        CatType::FunctionExists(f) => value_bool(
            ember_planner::functions::registry()
                .get(&f.function_name.to_ascii_lowercase())
                .is_some(),
        ),
        CatType::GetFunction(f) => {
            let name = f.function_name.to_ascii_lowercase();
            if ember_planner::functions::registry().get(&name).is_none() {
                return Err(SparkError::unresolved_routine(&f.function_name).into());
            }
            function_rows(vec![name])
        }
        CatType::CreateExternalTable(t) => {
            create(
                ctx,
                &t.table_name,
                t.path.clone(),
                t.source.clone(),
                None,
                t.schema.as_ref(),
                &t.options,
            )
            .await
        }
        CatType::CreateTable(t) => {
            create(
                ctx,
                &t.table_name,
                t.path.clone(),
                t.source.clone(),
                t.description.clone(),
                t.schema.as_ref(),
                &t.options,
            )
            .await
        }
        CatType::DropTempView(v) => {
            value_bool(catalog.drop_temp_view(std::slice::from_ref(&v.view_name)))
        }
        CatType::DropGlobalTempView(v) => value_bool(catalog.drop_global_temp_view(&v.view_name)),
        CatType::DropTable(d) => {
            catalog::drop_table(ctx, &name_parts(&d.table_name)?, d.if_exists)?;
            nothing()
        }
        CatType::DropView(d) => {
            run(
                ctx,
                Statement::DropView {
                    name: name_parts(&d.view_name)?,
                    if_exists: d.if_exists,
                },
            )
            .await?;
            nothing()
        }
        CatType::CreateDatabase(d) => {
            catalog::create_database(
                ctx,
                &d.db_name,
                d.if_not_exists,
                None,
                None,
                d.properties
                    .iter()
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect(),
            )?;
            nothing()
        }
        CatType::DropDatabase(d) => {
            catalog::drop_database(ctx, &d.db_name, d.if_exists, d.cascade)?;
            nothing()
        }
        CatType::ListPartitions(p) => {
            let batch = catalog::show_partitions(ctx, &name_parts(&p.table_name)?)?;
            match batch {
                Some(b) => Ok(CatalogAnswer::Rows(b)),
                None => nothing(),
            }
        }
        CatType::GetTableProperties(p) => {
            match catalog::show_tblproperties(ctx, &name_parts(&p.table_name)?, None)? {
                Some(b) => Ok(CatalogAnswer::Rows(b)),
                None => nothing(),
            }
        }
        CatType::GetCreateTableString(g) => {
            if g.as_serde {
                return Err(SparkError::unsupported("SHOW CREATE TABLE ... AS SERDE").into());
            }
            match catalog::show_create_table(ctx, &name_parts(&g.table_name)?)? {
                Some(b) => {
                    let text = b
                        .column(0)
                        .as_any()
                        .downcast_ref::<StringArray>()
                        .map(|a| a.value(0).to_string())
                        .unwrap_or_default();
                    value_string(text)
                }
                None => nothing(),
            }
        }
        CatType::TruncateTable(t) => {
            catalog::truncate_table(ctx, &name_parts(&t.table_name)?)?;
            nothing()
        }
        CatType::IsCached(t) => {
            must_exist(ctx, &t.table_name)?;
            let plan = crate::cache::table_plan(name_parts(&t.table_name)?);
            value_bool(ctx.session.cache.is_cached(&ctx.session.catalog, &plan))
        }
        CatType::CacheTable(t) => {
            must_exist(ctx, &t.table_name)?;
            let plan = crate::cache::table_plan(name_parts(&t.table_name)?);
            ctx.session
                .cache
                .cache(&ctx.session.catalog, &plan, t.storage_level);
            nothing()
        }
        CatType::UncacheTable(t) => {
            must_exist(ctx, &t.table_name)?;
            let plan = crate::cache::table_plan(name_parts(&t.table_name)?);
            ctx.session.cache.uncache(&ctx.session.catalog, &plan);
            nothing()
        }
        CatType::RefreshTable(t) => {
            must_exist(ctx, &t.table_name)?;
            nothing()
        }
        CatType::RecoverPartitions(t) => {
            // Partitions are discovered from the directories at every read.
            must_exist(ctx, &t.table_name)?;
            nothing()
        }
        CatType::ClearCache(_) => {
            ctx.session.cache.clear();
            nothing()
        }
        CatType::RefreshByPath(_) => nothing(),
        CatType::AnalyzeTable(t) => {
            must_exist(ctx, &t.table_name)?;
            nothing()
        }
        CatType::CurrentCatalog(_) => value_string(SESSION_CATALOG.into()),
        CatType::SetCurrentCatalog(s) => {
            if s.catalog_name.eq_ignore_ascii_case(SESSION_CATALOG) {
                nothing()
            } else {
                Err(SparkError::new(
                    ember_planner::error::ErrorKind::Spark,
                    "CATALOG_NOT_FOUND",
                    "42P08",
                    format!(
                        "The catalog `{}` not found. Consider to set the SQL config \"spark.sql.catalog.{}\" to a catalog plugin.",
                        s.catalog_name, s.catalog_name
                    ),
                    vec![("catalogName", format!("`{}`", s.catalog_name))],
                )
                .into())
            }
        }
        CatType::ListCatalogs(l) => {
            let m = matcher(l.pattern.as_deref());
            let names: Vec<Option<String>> = [SESSION_CATALOG]
                .into_iter()
                .filter(|n| m(n))
                .map(|n| Some(n.to_string()))
                .collect();
            let n = names.len();
            rows(vec![
                ("name", DataType::Utf8, true, strings(names)),
                ("description", DataType::Utf8, true, strings(vec![None; n])),
            ])
        }
    }
}

/// `spark.catalog.createTable` / `createExternalTable`: answers with the new table's rows.
async fn create(
    ctx: &RequestContext,
    table: &str,
    path: Option<String>,
    source: Option<String>,
    description: Option<String>,
    schema: Option<&pb::DataType>,
    options: &std::collections::HashMap<String, String>,
) -> ServerResult<CatalogAnswer> {
    let name = name_parts(table)?;
    let mut options = options.clone();
    let location = path.or_else(|| options.remove("path"));
    let columns = match schema {
        Some(s) => {
            let dt = types::from_proto(s, &ctx.session.conf.time_zone())?;
            match dt {
                DataType::Struct(f) if f.is_empty() => None,
                other => Some(types::to_spark_json(&other)?.to_string()),
            }
        }
        None => None,
    };
    catalog::create_table(
        ctx,
        CreateTableSpec {
            name: name.clone(),
            columns,
            format: source,
            location,
            options: options.into_iter().collect(),
            comment: description,
            ..Default::default()
        },
    )
    .await?;
    Ok(CatalogAnswer::Table(name))
}
