//! `MERGE INTO` a Delta table: the source's rows (already computed, in Delta's types) become a
//! DataFrame of deltalake's DataFusion session, and deltalake's merge rewrites the files it
//! touches (copy-on-write) and commits once. Answers delta-spark's counts.

use arrow::record_batch::RecordBatch;

use super::{DeltaLocation, open, table_schema, write_error};
use crate::spark_error::{SparkError, SparkResult};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MergeWhen {
    Matched,
    NotMatched,
    NotMatchedBySource,
}

#[derive(Debug, Clone, PartialEq)]
pub enum MergeAction {
    /// `UPDATE SET c = v, ...`.
    Update(Vec<(String, String)>),
    /// `UPDATE SET *`: every target column from the source's column of its name.
    UpdateAll,
    Delete,
    /// `INSERT (c, ...) VALUES (v, ...)`.
    Insert(Vec<(String, String)>),
    /// `INSERT *`.
    InsertAll,
}

#[derive(Debug, Clone, PartialEq)]
pub struct MergeClause {
    pub when: MergeWhen,
    pub predicate: Option<String>,
    pub action: MergeAction,
}

/// A column of an alias, quoted for deltalake's SQL parser.
fn qualified(alias: &str, column: &str) -> String {
    format!(
        "\"{}\".\"{}\"",
        alias.replace('"', "\"\""),
        column.replace('"', "\"\"")
    )
}

/// The counts of a merge: rows updated, deleted and inserted.
pub struct MergeCounts {
    pub updated: usize,
    pub deleted: usize,
    pub inserted: usize,
}

/// Merge the source's rows (`source_names` over `batches`) into the table at `url` on `on`
/// with `clauses` (conditions and values are SQL text over the two aliases).
#[allow(clippy::too_many_arguments)]
pub async fn merge(
    url: &DeltaLocation,
    time_zone: &str,
    batches: Vec<RecordBatch>,
    source_names: &[String],
    source_alias: String,
    target_alias: String,
    on: String,
    clauses: Vec<MergeClause>,
) -> SparkResult<MergeCounts> {
    let table = open(url, None, time_zone).await?;
    let (schema, _) = table_schema(&table)?;
    let columns: Vec<String> = schema.fields().iter().map(|f| f.name().clone()).collect();
    let session = datafusion::prelude::SessionContext::new();
    let source = session.read_batches(batches)?;
    let all = |missing_ok: bool| -> SparkResult<Vec<(String, String)>> {
        let mut pairs = vec![];
        for c in &columns {
            match source_names.iter().find(|n| n.eq_ignore_ascii_case(c)) {
                Some(n) => pairs.push((c.clone(), qualified(&source_alias, n))),
                None if missing_ok => {}
                None => {
                    return Err(SparkError::analysis(
                        "DELTA_MERGE_UNRESOLVED_EXPRESSION",
                        "42601",
                        format!(
                            "Cannot resolve {c} in UPDATE clause given columns {}.",
                            source_names.join(", ")
                        ),
                    ));
                }
            }
        }
        Ok(pairs)
    };
    let mut builder = table
        .merge(source, on)
        .with_source_alias(source_alias.clone())
        .with_target_alias(target_alias)
        .with_writer_properties(crate::formats::table_files::writer_properties());
    let err = |e| write_error(&url.url, e);
    for clause in clauses {
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
                return Err(SparkError::unsupported(format!(
                    "MERGE clause {when:?} THEN {action:?}"
                )));
            }
        };
    }
    let (_, m) = builder.await.map_err(err)?;
    Ok(MergeCounts {
        updated: m.num_target_rows_updated,
        deleted: m.num_target_rows_deleted,
        inserted: m.num_target_rows_inserted,
    })
}
