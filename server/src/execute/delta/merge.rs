//! `MERGE INTO` a Delta table: the source query runs as any job, its rows become a DataFrame
//! of deltalake's DataFusion session, and deltalake's merge rewrites the files it touches
//! (copy-on-write) and commits once. Answers delta-spark's counts.

use datafusion::logical_expr::{Expr, cast};
use ember_planner::datasource::delta;
use ember_planner::spec::{MergeAction, MergeSpec, MergeWhen};

use super::{count, counts, named_table, stored_type, write_error};
use crate::error::ServerResult;
use crate::state::RequestContext;

/// A column of an alias, quoted for deltalake's SQL parser.
fn qualified(alias: &str, column: &str) -> String {
    format!(
        "\"{}\".\"{}\"",
        alias.replace('"', "\"\""),
        column.replace('"', "\"\"")
    )
}

pub async fn merge(
    ctx: &RequestContext,
    spec: MergeSpec,
) -> ServerResult<Option<arrow::record_batch::RecordBatch>> {
    let url = named_table(ctx, &spec.target, "MERGE")?;
    let time_zone = ctx.session.conf.time_zone();
    let table = delta::open(&url, None, &time_zone)
        .await
        .map_err(|e| e.into_spark())?;
    let (schema, _) = delta::table_schema(&table).map_err(|e| e.into_spark())?;
    let columns: Vec<String> = schema.fields().iter().map(|f| f.name().clone()).collect();
    // The source's rows, under their Spark names and in Delta's types.
    let query = ctx.resolve(&spec.source)?;
    let plan_schema = query.plan.schema().clone();
    let exprs: Vec<Expr> = query
        .names
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let column = Expr::Column(plan_schema.columns()[i].clone());
            cast(column, stored_type(plan_schema.field(i).data_type())).alias(n)
        })
        .collect();
    let source_names = query.names.clone();
    let batches = super::run_projected(ctx, query.plan, exprs).await?;
    let session = datafusion::prelude::SessionContext::new();
    let source = session.read_batches(batches)?;
    let target_alias = spec
        .target_alias
        .or_else(|| spec.target.last().cloned())
        .unwrap_or_else(|| "target".into());
    let source_alias = spec.source_alias.unwrap_or_else(|| "source".into());
    let all = |missing_ok: bool| -> ServerResult<Vec<(String, String)>> {
        let mut pairs = vec![];
        for c in &columns {
            match source_names.iter().find(|n| n.eq_ignore_ascii_case(c)) {
                Some(n) => pairs.push((c.clone(), qualified(&source_alias, n))),
                None if missing_ok => {}
                None => {
                    return Err(ember_planner::SparkError::analysis(
                        "DELTA_MERGE_UNRESOLVED_EXPRESSION",
                        "42601",
                        format!(
                            "Cannot resolve {c} in UPDATE clause given columns {}.",
                            source_names.join(", ")
                        ),
                    )
                    .into());
                }
            }
        }
        Ok(pairs)
    };
    let mut builder = table
        .merge(source, spec.on)
        .with_source_alias(source_alias.clone())
        .with_target_alias(target_alias);
    let err = |e| write_error(&url, e);
    for clause in spec.clauses {
        let predicate = clause.predicate;
        let action = match clause.action {
            MergeAction::UpdateAll => MergeAction::Update(all(false)?),
            MergeAction::InsertAll => MergeAction::Insert(all(true)?),
            other => other,
        };
        builder = match (clause.when, action) {
            (MergeWhen::Matched, MergeAction::Update(pairs)) => builder
                .when_matched_update(|mut u| {
                    if let Some(p) = predicate {
                        u = u.predicate(p);
                    }
                    for (c, v) in pairs {
                        u = u.update(c, v);
                    }
                    u
                })
                .map_err(err)?,
            (MergeWhen::Matched, MergeAction::Delete) => builder
                .when_matched_delete(|mut d| {
                    if let Some(p) = predicate {
                        d = d.predicate(p);
                    }
                    d
                })
                .map_err(err)?,
            (MergeWhen::NotMatched, MergeAction::Insert(pairs)) => builder
                .when_not_matched_insert(|mut i| {
                    if let Some(p) = predicate {
                        i = i.predicate(p);
                    }
                    for (c, v) in pairs {
                        i = i.set(c, v);
                    }
                    i
                })
                .map_err(err)?,
            (MergeWhen::NotMatchedBySource, MergeAction::Update(pairs)) => builder
                .when_not_matched_by_source_update(|mut u| {
                    if let Some(p) = predicate {
                        u = u.predicate(p);
                    }
                    for (c, v) in pairs {
                        u = u.update(c, v);
                    }
                    u
                })
                .map_err(err)?,
            (MergeWhen::NotMatchedBySource, MergeAction::Delete) => builder
                .when_not_matched_by_source_delete(|mut d| {
                    if let Some(p) = predicate {
                        d = d.predicate(p);
                    }
                    d
                })
                .map_err(err)?,
            (when, action) => {
                return Err(ember_planner::SparkError::unsupported(format!(
                    "MERGE clause {when:?} THEN {action:?}"
                ))
                .into());
            }
        };
    }
    let (_, m) = builder.await.map_err(err)?;
    let (updated, deleted, inserted) = (
        count(m.num_target_rows_updated),
        count(m.num_target_rows_deleted),
        count(m.num_target_rows_inserted),
    );
    counts(&[
        ("num_affected_rows", updated + deleted + inserted),
        ("num_updated_rows", updated),
        ("num_deleted_rows", deleted),
        ("num_inserted_rows", inserted),
    ])
}
