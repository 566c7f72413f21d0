//! Statements that act on the session (views, configuration, SHOW/DESCRIBE/EXPLAIN), and the
//! local relation Spark returns as the result of a SQL command.

use std::sync::Arc;

use arrow::array::{ArrayRef, RecordBatch, StringArray};
use arrow::datatypes::{DataType, Field, Schema};
use arrow::ipc::writer::StreamWriter;
use ember_planner::spec::{ExplainMode, Plan, PlanNode, Statement, ViewKind};
use ember_planner::{SparkError, types};
use ember_protos::spark::connect as pb;

use super::catalog;
use crate::error::ServerResult;
use crate::explain;
use crate::state::RequestContext;

/// Run a statement; statements that produce rows return them as one batch.
pub async fn execute_statement(
    ctx: &RequestContext,
    statement: Statement,
) -> ServerResult<Option<RecordBatch>> {
    let conf = &ctx.session.conf;
    match statement {
        Statement::Query(_) => Err(SparkError::invalid_plan("a query is not a command").into()),
        Statement::CreateView {
            name,
            mut plan,
            kind,
            replace,
            if_not_exists,
            columns,
        } => {
            plan.strip_plan_ids();
            if !columns.is_empty() {
                plan = Plan::new(PlanNode::ToDf {
                    input: Box::new(plan),
                    names: columns,
                });
            }
            // Spark analyzes the view's query when the view is created.
            ctx.resolve(&plan)?;
            let global = kind == ViewKind::GlobalTemporary;
            let view_name = match name.as_slice() {
                [n] => n.clone(),
                [db, n]
                    if global
                        && db
                            .eq_ignore_ascii_case(ember_planner::catalog::GLOBAL_TEMP_DATABASE) =>
                {
                    n.clone()
                }
                _ => {
                    return Err(SparkError::analysis(
                        "TEMP_VIEW_NAME_TOO_MANY_NAME_PARTS",
                        "428EK",
                        format!(
                            "CREATE TEMPORARY VIEW expects a single-part view name, got {}.",
                            name.join(".")
                        ),
                    )
                    .into());
                }
            };
            let exists = ctx.session.catalog.lookup_view(&name);
            if if_not_exists && exists {
                return Ok(None);
            }
            ctx.session
                .catalog
                .create_temp_view(&view_name, plan, replace, global)?;
            Ok(None)
        }
        Statement::DropView { name, if_exists } => {
            catalog::drop_view(ctx, &name, if_exists)?;
            Ok(None)
        }
        Statement::CreatePersistentView {
            name,
            sql,
            plan,
            replace,
            if_not_exists,
            columns,
        } => {
            catalog::create_view(ctx, &name, sql, plan, replace, if_not_exists, columns)?;
            Ok(None)
        }
        Statement::SetConfig {
            key: Some(key),
            value: Some(value),
        } => {
            if let Some(e) = crate::config::value_refusal(&key, Some(&value)) {
                return Err(e.into());
            }
            conf.set(&key, &value);
            key_values(vec![(key, value)])
        }
        Statement::SetConfig {
            key: Some(key),
            value: None,
        } => {
            let value = conf.get(&key).unwrap_or_else(|| "<undefined>".to_string());
            key_values(vec![(key, value)])
        }
        Statement::SetConfig { key: None, .. } => key_values(conf.all()),
        Statement::ResetConfig { key } => {
            match key {
                Some(k) => conf.unset(&k),
                None => {
                    for (k, _) in conf.all() {
                        conf.unset(&k);
                    }
                }
            }
            Ok(None)
        }
        Statement::Write(spec) => {
            super::write::execute_write(ctx, *spec).await?;
            Ok(None)
        }
        Statement::Explain { plan, mode } => {
            let query = ctx.resolve(&plan)?;
            let text = explain::explain(ctx, &query, mode).await?;
            single_string_column("plan", vec![text])
        }
        Statement::ShowTables { database, pattern } => catalog::show_tables(
            ctx,
            database.as_deref(),
            |n| matches_pattern(n, pattern.as_deref()),
            false,
        ),
        Statement::ShowViews { database, pattern } => catalog::show_tables(
            ctx,
            database.as_deref(),
            |n| matches_pattern(n, pattern.as_deref()),
            true,
        ),
        Statement::ShowCatalogs { pattern } => single_string_column(
            "catalog",
            [ember_planner::catalog::SESSION_CATALOG]
                .into_iter()
                .filter(|c| matches_pattern(c, pattern.as_deref()))
                .map(String::from)
                .collect(),
        ),
        Statement::ShowDatabases { pattern } => {
            catalog::show_databases(ctx, |n| matches_pattern(n, pattern.as_deref()))
        }
        Statement::ShowFunctions {
            user_only: true, ..
        } => single_string_column("function", vec![]),
        Statement::DescribeFunction { name, extended } => {
            let key = name.to_ascii_lowercase();
            if ember_planner::functions::registry().get(&key).is_none() {
                return Err(SparkError::unresolved_routine(&name).into());
            }
            let mut rows = vec![
                format!("Function: {key}"),
                format!("Class: ember.{key}"),
                "Usage: N/A.".to_string(),
            ];
            if extended {
                rows.push("Extended Usage:\n    No example/argument for this function.".into());
            }
            single_string_column("function_desc", rows)
        }
        Statement::ShowFunctions { pattern, .. } => {
            let mut names: Vec<String> = ember_planner::functions::registry()
                .names()
                .filter(|n| n.chars().next().is_some_and(|c| c.is_ascii_alphabetic()))
                .filter(|n| matches_pattern(n, pattern.as_deref()))
                .cloned()
                .collect();
            names.sort();
            single_string_column("function", names)
        }
        Statement::ShowColumns { table } => {
            let query = ctx.resolve(&Plan::new(PlanNode::Table { name: table }))?;
            single_string_column("col_name", query.names)
        }
        Statement::DescribeTable {
            table,
            column: Some(column),
            ..
        } => catalog::describe_column(ctx, &table, &column),
        Statement::DescribeTable {
            table, extended, ..
        } => {
            if !ctx.session.catalog.lookup_view(&table)
                && let Some(meta) = ctx.session.catalog.lookup_table(&table)
            {
                return catalog::describe_table(ctx, &meta, extended);
            }
            let query = ctx.resolve(&Plan::new(PlanNode::Table { name: table }))?;
            describe(&query)
        }
        Statement::DescribeDatabase { name, extended } => {
            catalog::describe_database(ctx, &name, extended)
        }
        Statement::CreateDatabase {
            name,
            if_not_exists,
            comment,
            location,
            properties,
        } => {
            catalog::create_database(ctx, &name, if_not_exists, comment, location, properties)?;
            Ok(None)
        }
        Statement::DropDatabase {
            name,
            if_exists,
            cascade,
        } => {
            catalog::drop_database(ctx, &name, if_exists, cascade)?;
            Ok(None)
        }
        Statement::CreateTable(spec) => {
            catalog::create_table(ctx, *spec).await?;
            Ok(None)
        }
        Statement::WriteV2(w) => {
            catalog::write_v2(ctx, *w).await?;
            Ok(None)
        }
        Statement::DropTable { name, if_exists } => {
            catalog::drop_table(ctx, &name, if_exists)?;
            Ok(None)
        }
        Statement::Insert {
            table,
            query,
            overwrite,
            partition,
            columns,
        } => {
            catalog::insert(
                ctx,
                &table,
                &query,
                catalog::Overwrite::from_flag(overwrite),
                &partition,
                &columns,
                catalog::ColumnMatch::ByPosition,
            )
            .await?;
            Ok(None)
        }
        Statement::TruncateTable { name } => {
            catalog::truncate_table(ctx, &name)?;
            Ok(None)
        }
        Statement::AlterTable { name, action } => {
            catalog::alter_table(ctx, &name, action)?;
            Ok(None)
        }
        Statement::ShowCreateTable { name } => catalog::show_create_table(ctx, &name),
        Statement::ShowTblProperties { name, key } => {
            catalog::show_tblproperties(ctx, &name, key.as_deref())
        }
        Statement::ShowPartitions { name } => catalog::show_partitions(ctx, &name),
        Statement::Delete { table, predicate } => {
            super::delta::delete(ctx, &table, predicate).await
        }
        Statement::Update {
            table,
            assignments,
            predicate,
        } => super::delta::update(ctx, &table, assignments, predicate).await,
        Statement::Merge(spec) => super::delta::merge(ctx, *spec).await,
        Statement::DescribeHistory { table, limit } => {
            super::delta::describe_history(ctx, &table, limit).await
        }
        Statement::DescribeQuery(plan) => {
            let query = ctx.resolve(&plan)?;
            describe(&query)
        }
        Statement::Use { database } => {
            // `USE spark_catalog.db` names the session catalog's database.
            let parts = ember_planner::sql::parse_identifier_parts(&database)?;
            let database = match parts.as_slice() {
                [c, db] if c.eq_ignore_ascii_case(ember_planner::catalog::SESSION_CATALOG) => {
                    db.clone()
                }
                _ => database,
            };
            ctx.session.catalog.set_current_database(&database)?;
            Ok(None)
        }
        // Cached tables are read afresh (caching changes no answer); the session remembers
        // them for isCached/storageLevel, and CACHE TABLE ... AS creates its temporary view.
        Statement::Cache {
            table,
            plan: Some(plan),
            ..
        } => {
            let [name] = table.as_slice() else {
                return Err(SparkError::analysis(
                    "TEMP_VIEW_NAME_TOO_MANY_NAME_PARTS",
                    "428EK",
                    format!(
                        "CREATE TEMPORARY VIEW expects a single-part view name, got {}.",
                        table.join(".")
                    ),
                )
                .into());
            };
            let mut plan = plan;
            plan.strip_plan_ids();
            ctx.resolve(&plan)?;
            ctx.session
                .catalog
                .create_temp_view(name, plan, false, false)?;
            ctx.session
                .cache
                .cache(&ctx.session.catalog, &crate::cache::table_plan(table), None);
            Ok(None)
        }
        Statement::Cache { table, .. } => {
            let plan = crate::cache::table_plan(table);
            ctx.resolve(&plan)?;
            ctx.session.cache.cache(&ctx.session.catalog, &plan, None);
            Ok(None)
        }
        Statement::RefreshTable { table } => {
            ctx.resolve(&Plan::new(PlanNode::Table { name: table }))?;
            Ok(None)
        }
        Statement::Uncache { table, if_exists } => {
            let plan = crate::cache::table_plan(table);
            if !if_exists {
                ctx.resolve(&plan)?;
            }
            ctx.session.cache.uncache(&ctx.session.catalog, &plan);
            Ok(None)
        }
        Statement::ClearCache => {
            ctx.session.cache.clear();
            Ok(None)
        }
        Statement::Noop => Ok(None),
        Statement::Evaluate(_) => Err(ember_planner::PlanError::Unsupported(
            "evaluating a standalone expression".into(),
        )
        .into()),
    }
}

fn describe(query: &ember_planner::ResolvedQuery) -> ServerResult<Option<RecordBatch>> {
    let schema = query.plan.schema();
    let types: Vec<String> = schema
        .fields()
        .iter()
        .map(|f| types::simple_string(f.data_type()))
        .collect();
    let n = types.len();
    let out = Arc::new(Schema::new(vec![
        Field::new("col_name", DataType::Utf8, false),
        Field::new("data_type", DataType::Utf8, false),
        Field::new("comment", DataType::Utf8, true),
    ]));
    let columns: Vec<ArrayRef> = vec![
        Arc::new(StringArray::from(query.names.clone())),
        Arc::new(StringArray::from(types)),
        Arc::new(StringArray::from(vec![None::<&str>; n])),
    ];
    Ok(Some(
        RecordBatch::try_new(out, columns).map_err(datafusion::error::DataFusionError::from)?,
    ))
}

fn key_values(pairs: Vec<(String, String)>) -> ServerResult<Option<RecordBatch>> {
    let schema = Arc::new(Schema::new(vec![
        Field::new("key", DataType::Utf8, false),
        Field::new("value", DataType::Utf8, false),
    ]));
    let (keys, values): (Vec<String>, Vec<String>) = pairs.into_iter().unzip();
    let columns: Vec<ArrayRef> = vec![
        Arc::new(StringArray::from(keys)),
        Arc::new(StringArray::from(values)),
    ];
    Ok(Some(
        RecordBatch::try_new(schema, columns).map_err(datafusion::error::DataFusionError::from)?,
    ))
}

fn single_string_column(name: &str, values: Vec<String>) -> ServerResult<Option<RecordBatch>> {
    let schema = Arc::new(Schema::new(vec![Field::new(name, DataType::Utf8, false)]));
    Ok(Some(
        RecordBatch::try_new(schema, vec![Arc::new(StringArray::from(values))])
            .map_err(datafusion::error::DataFusionError::from)?,
    ))
}

/// Spark's SHOW ... LIKE pattern: `*` matches anything, `|` separates alternatives.
pub fn matches_pattern(name: &str, pattern: Option<&str>) -> bool {
    let Some(p) = pattern else { return true };
    p.split('|').any(|alt| {
        let re = format!("(?i)^{}$", regex_escape(alt.trim()).replace("\\*", ".*"));
        regex::Regex::new(&re)
            .map(|r| r.is_match(name))
            .unwrap_or(false)
    })
}

fn regex_escape(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        if "\\.+*?()|[]{}^$".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The relation Spark returns for a SQL command: its result rows as a local relation.
pub fn local_relation(result: Option<RecordBatch>) -> ServerResult<pb::Relation> {
    let batch = match result {
        Some(b) => b,
        None => RecordBatch::new_empty(Arc::new(Schema::empty())),
    };
    let mut data = Vec::new();
    {
        let mut w = StreamWriter::try_new(&mut data, &batch.schema())
            .map_err(datafusion::error::DataFusionError::from)?;
        w.write(&batch)
            .map_err(datafusion::error::DataFusionError::from)?;
        w.finish()
            .map_err(datafusion::error::DataFusionError::from)?;
    }
    Ok(pb::Relation {
        common: None,
        rel_type: Some(pb::relation::RelType::LocalRelation(pb::LocalRelation {
            data: Some(data),
            schema: None,
        })),
    })
}

#[allow(dead_code)]
fn _explain_mode(m: ExplainMode) -> ExplainMode {
    m
}
