//! SHOW and DESCRIBE of databases, tables, columns and partitions.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow::array::{ArrayRef, BooleanArray, RecordBatch, StringArray};
use arrow::datatypes::{DataType, Field, Schema};
use ember_execution::formats::commit::recover;
use ember_planner::catalog::{TableMeta, ViewMeta};
use ember_planner::spec::{self, Plan};
use ember_planner::types;

use super::*;
use crate::error::ServerResult;
use crate::execute::write::analysis;
use crate::state::RequestContext;

/// A record batch of named columns (name, type, nullable, values).
pub fn record_batch(columns: Vec<(&str, DataType, bool, ArrayRef)>) -> ServerResult<RecordBatch> {
    let schema = Arc::new(Schema::new(
        columns
            .iter()
            .map(|(n, t, nullable, _)| Field::new(*n, t.clone(), *nullable))
            .collect::<Vec<_>>(),
    ));
    let arrays = columns.into_iter().map(|(_, _, _, a)| a).collect();
    Ok(RecordBatch::try_new(schema, arrays).map_err(datafusion::error::DataFusionError::from)?)
}

/// String columns (name, nullable, values).
fn batch(columns: Vec<(&str, bool, Vec<Option<String>>)>) -> ServerResult<Option<RecordBatch>> {
    let columns = columns
        .into_iter()
        .map(|(n, nullable, v)| {
            (
                n,
                DataType::Utf8,
                nullable,
                Arc::new(StringArray::from(v)) as ArrayRef,
            )
        })
        .collect();
    Ok(Some(record_batch(columns)?))
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
        if let Some(b) = &table.bucketing {
            let quoted = |cs: &[String]| {
                let cs: Vec<String> = cs.iter().map(|c| format!("`{c}`")).collect();
                format!("[{}]", cs.join(", "))
            };
            rows.push(info("Num Buckets", b.num_buckets.to_string()));
            rows.push(info("Bucket Columns", quoted(&b.columns)));
            rows.push(info("Sort Columns", quoted(&b.sort_columns)));
        }
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
        // (Spark's DESCRIBE NAMESPACE calls its values nullable, its names not.)
        (
            "info_value",
            true,
            rows.into_iter().map(|(_, v)| Some(v)).collect(),
        ),
    ])
}

/// What SHOW TABLES and `spark.catalog.listTables` list.
pub enum Listed {
    Table(Box<TableMeta>),
    View(ViewMeta),
    Temporary { global: bool },
}

/// The tables and views of `database` (the current one when `None`; `global_temp` holds
/// the global temporary views) whose names match, sorted by name, then this session's
/// temporary views. Returns the database too.
pub fn list_relations(
    ctx: &RequestContext,
    database: Option<&str>,
    matches: impl Fn(&str) -> bool,
    views_only: bool,
) -> ServerResult<(String, Vec<(String, Listed)>)> {
    let catalog = &ctx.session.catalog;
    let db = database
        .map(|d| d.to_ascii_lowercase())
        .unwrap_or_else(|| catalog.current_database());
    let mut listed: Vec<(String, Listed)> = vec![];
    if db == ember_planner::catalog::GLOBAL_TEMP_DATABASE {
        for v in catalog.global_temp_view_names() {
            listed.push((v, Listed::Temporary { global: true }));
        }
    } else {
        existing_database(ctx, &db)?;
        let mut state = catalog.warehouse().snapshot();
        if let Some(views) = state.views.remove(&db) {
            listed.extend(views.into_iter().map(|(n, v)| (n, Listed::View(v))));
        }
        if !views_only && let Some(tables) = state.tables.remove(&db) {
            listed.extend(
                tables
                    .into_iter()
                    .map(|(n, t)| (n, Listed::Table(Box::new(t)))),
            );
        }
        listed.sort_by(|a, b| a.0.cmp(&b.0));
    }
    for v in catalog.temp_view_names() {
        listed.push((v, Listed::Temporary { global: false }));
    }
    listed.retain(|(n, _)| matches(n));
    Ok((db, listed))
}

/// `SHOW TABLES [IN db]` / `SHOW VIEWS`.
pub fn show_tables(
    ctx: &RequestContext,
    database: Option<&str>,
    matches: impl Fn(&str) -> bool,
    views_only: bool,
) -> ServerResult<Option<RecordBatch>> {
    let (db, listed) = list_relations(ctx, database, matches, views_only)?;
    let mut namespaces = Vec::with_capacity(listed.len());
    let mut names = Vec::with_capacity(listed.len());
    let mut temporary = Vec::with_capacity(listed.len());
    for (name, kind) in listed {
        let (namespace, temp) = match kind {
            Listed::Temporary { global: false } => (String::new(), true),
            Listed::Temporary { global: true } => (db.clone(), true),
            Listed::Table(_) | Listed::View(_) => (db.clone(), false),
        };
        namespaces.push(namespace);
        names.push(name);
        temporary.push(temp);
    }
    let name_column = if views_only { "viewName" } else { "tableName" };
    Ok(Some(record_batch(vec![
        (
            "namespace",
            DataType::Utf8,
            false,
            Arc::new(StringArray::from(namespaces)),
        ),
        (
            name_column,
            DataType::Utf8,
            false,
            Arc::new(StringArray::from(names)),
        ),
        (
            "isTemporary",
            DataType::Boolean,
            false,
            Arc::new(BooleanArray::from(temporary)),
        ),
    ])?))
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
    if let Some(b) = &table.bucketing {
        text.push_str(&format!(
            "CLUSTERED BY ({})
",
            b.columns.join(", ")
        ));
        if !b.sort_columns.is_empty() {
            text.push_str(&format!(
                "SORTED BY ({})
",
                b.sort_columns.join(", ")
            ));
        }
        text.push_str(&format!(
            "INTO {} BUCKETS
",
            b.num_buckets
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
