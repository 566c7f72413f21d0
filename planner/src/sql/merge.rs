//! `MERGE INTO target USING source ON ... WHEN [NOT] MATCHED [BY SOURCE] [AND ...] THEN ...`
//! (Delta tables). Conditions and values stay SQL text for the table format's engine; the
//! source is a query of Ember's. Spark's `UPDATE SET *` and `INSERT *`, which sqlparser does not
//! parse, are rewritten into a marker column before parsing.

use std::sync::LazyLock;

use regex::Regex;
use sqlparser::ast;

use super::{Lowering, ident_name, object_name_parts, query};
use crate::error::{PlanResult, unsupported};
use crate::spec::{MergeAction, MergeClause, MergeSpec, MergeWhen, Statement};

/// The column name that stands for `*` in `UPDATE SET *` and `INSERT *`.
const ALL: &str = "__ember_merge_all__";

static UPDATE_ALL: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"(?i)\bTHEN\s+UPDATE\s+SET\s+\*").ok());
static INSERT_ALL: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"(?i)\bTHEN\s+INSERT\s+\*").ok());

/// A MERGE statement's text with `UPDATE SET *` and `INSERT *` spelled so sqlparser parses them.
pub(crate) fn rewrite_stars(sql: &str) -> Option<String> {
    if !sql.trim_start().get(..5)?.eq_ignore_ascii_case("MERGE") {
        return None;
    }
    let (update, insert) = (UPDATE_ALL.as_ref()?, INSERT_ALL.as_ref()?);
    let out = update.replace_all(sql, format!("THEN UPDATE SET {ALL} = {ALL}"));
    let out = insert.replace_all(&out, format!("THEN INSERT ({ALL}) VALUES ({ALL})"));
    Some(out.into_owned())
}

fn alias_of(t: &ast::TableFactor) -> Option<String> {
    match t {
        ast::TableFactor::Table { alias, .. } | ast::TableFactor::Derived { alias, .. } => {
            alias.as_ref().map(|a| ident_name(&a.name))
        }
        _ => None,
    }
}

/// The column an assignment sets (`t.c` and `c` alike).
fn target_column(target: &ast::AssignmentTarget) -> PlanResult<String> {
    match target {
        ast::AssignmentTarget::ColumnName(name) => match object_name_parts(name)?.last() {
            Some(c) => Ok(c.clone()),
            None => unsupported("an empty column name"),
        },
        other => unsupported(format!("MERGE ... SET {other}")),
    }
}

pub(crate) fn lower_merge(l: &Lowering, m: ast::Merge) -> PlanResult<Statement> {
    let (target, target_alias) = match &m.table {
        ast::TableFactor::Table { name, .. } => (object_name_parts(name)?, alias_of(&m.table)),
        other => return unsupported(format!("MERGE INTO {other}")),
    };
    let source_alias = alias_of(&m.source).or_else(|| match &m.source {
        ast::TableFactor::Table { name, .. } => {
            object_name_parts(name).ok().and_then(|p| p.last().cloned())
        }
        _ => None,
    });
    let source = query::lower_table_factor(l, m.source)?;
    let mut clauses = vec![];
    for c in m.clauses {
        let when = match c.clause_kind {
            ast::MergeClauseKind::Matched => MergeWhen::Matched,
            ast::MergeClauseKind::NotMatched | ast::MergeClauseKind::NotMatchedByTarget => {
                MergeWhen::NotMatched
            }
            ast::MergeClauseKind::NotMatchedBySource => MergeWhen::NotMatchedBySource,
        };
        let action = match c.action {
            ast::MergeAction::Delete { .. } => MergeAction::Delete,
            ast::MergeAction::Update(u) => {
                if u.update_predicate.is_some() || u.delete_predicate.is_some() {
                    return unsupported("MERGE ... UPDATE ... WHERE");
                }
                let pairs = u
                    .assignments
                    .iter()
                    .map(|a| Ok((target_column(&a.target)?, a.value.to_string())))
                    .collect::<PlanResult<Vec<_>>>()?;
                if pairs.iter().any(|(c, _)| c == ALL) {
                    MergeAction::UpdateAll
                } else {
                    MergeAction::Update(pairs)
                }
            }
            ast::MergeAction::Insert(i) => {
                if i.insert_predicate.is_some() {
                    return unsupported("MERGE ... INSERT ... WHERE");
                }
                let columns = i
                    .columns
                    .iter()
                    .map(|c| object_name_parts(c).map(|p| p.last().cloned().unwrap_or_default()))
                    .collect::<PlanResult<Vec<_>>>()?;
                if columns.iter().any(|c| c == ALL) {
                    MergeAction::InsertAll
                } else {
                    let values = match i.kind {
                        ast::MergeInsertKind::Values(v) if v.rows.len() == 1 => v.rows[0]
                            .content
                            .iter()
                            .map(|e| e.to_string())
                            .collect::<Vec<_>>(),
                        other => return unsupported(format!("MERGE ... INSERT {other}")),
                    };
                    if columns.is_empty() || columns.len() != values.len() {
                        return unsupported("MERGE ... INSERT without a column for each value");
                    }
                    MergeAction::Insert(columns.into_iter().zip(values).collect())
                }
            }
        };
        clauses.push(MergeClause {
            when,
            predicate: c.predicate.map(|p| p.to_string()),
            action,
        });
    }
    Ok(Statement::Merge(Box::new(MergeSpec {
        target,
        target_alias,
        source,
        source_alias,
        on: m.on.to_string(),
        clauses,
    })))
}
