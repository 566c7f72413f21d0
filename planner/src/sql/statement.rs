//! SQL statements -> [`spec::Statement`].

use std::sync::LazyLock;

use regex::Regex;
use sqlparser::ast;

use super::{Lowering, object_name_parts, query};
use crate::error::{PlanError, PlanResult, unsupported};
use crate::spec::{ExplainMode, Statement, ViewKind};

static SET_RE: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"(?is)^\s*SET(?:\s+(.*?))?\s*;?\s*$").ok());
static RESET_RE: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"(?is)^\s*RESET(?:\s+(.*?))?\s*;?\s*$").ok());
static CLEAR_CACHE_RE: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"(?is)^\s*CLEAR\s+CACHE\s*;?\s*$").ok());
static GLOBAL_TEMP_VIEW_RE: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"(?is)^(\s*CREATE\s+(?:OR\s+REPLACE\s+)?)GLOBAL\s+(TEMP(?:ORARY)?\s+VIEW\b.*)$")
        .ok()
});

/// Statements whose Spark syntax sqlparser does not parse the way Spark means it.
pub(crate) fn parse_spark_specific(sql: &str) -> PlanResult<Option<Statement>> {
    if let Some(caps) = SET_RE.as_ref().and_then(|re| re.captures(sql)) {
        let body = caps.get(1).map(|m| m.as_str().trim()).unwrap_or("");
        if body.is_empty() || body == "-v" {
            return Ok(Some(Statement::SetConfig {
                key: None,
                value: None,
            }));
        }
        // `SET TIME ZONE ...` and `SET VAR ...` have their own forms.
        let upper = body.to_ascii_uppercase();
        if upper.starts_with("TIME ZONE") {
            let zone = body[9..].trim();
            let zone = if zone.eq_ignore_ascii_case("LOCAL") {
                None
            } else {
                Some(unquote(zone))
            };
            return Ok(Some(Statement::SetConfig {
                key: Some("spark.sql.session.timeZone".into()),
                value: zone,
            }));
        }
        if upper.starts_with("VAR ") || upper.starts_with("VARIABLE ") {
            return unsupported("SQL session variables");
        }
        return Ok(Some(match body.split_once('=') {
            Some((k, v)) => Statement::SetConfig {
                key: Some(unquote(k.trim())),
                value: Some(unquote(v.trim())),
            },
            None => Statement::SetConfig {
                key: Some(unquote(body)),
                value: None,
            },
        }));
    }
    if let Some(caps) = RESET_RE.as_ref().and_then(|re| re.captures(sql)) {
        let key = caps
            .get(1)
            .map(|m| unquote(m.as_str().trim()))
            .filter(|k| !k.is_empty());
        return Ok(Some(Statement::ResetConfig { key }));
    }
    if CLEAR_CACHE_RE.as_ref().is_some_and(|re| re.is_match(sql)) {
        return Ok(Some(Statement::ClearCache));
    }
    Ok(None)
}

fn unquote(s: &str) -> String {
    let s = s.trim();
    for q in ['`', '\'', '"'] {
        if s.len() >= 2 && s.starts_with(q) && s.ends_with(q) {
            return s[1..s.len() - 1].to_string();
        }
    }
    s.to_string()
}

/// Rewrite `CREATE [OR REPLACE] GLOBAL TEMP VIEW` into the form sqlparser knows, remembering
/// that it was global.
pub(crate) fn strip_global_temp(sql: &str) -> Option<String> {
    GLOBAL_TEMP_VIEW_RE
        .as_ref()
        .and_then(|re| re.captures(sql))
        .map(|c| format!("{}{}", &c[1], &c[2]))
}

pub(crate) fn lower(l: &Lowering, stmt: ast::Statement) -> PlanResult<Statement> {
    Ok(match stmt {
        ast::Statement::Query(q) => Statement::Query(query::lower_query(l, *q)?),
        ast::Statement::Delete(d) => dml_delete(d)?,
        ast::Statement::Update(u) => dml_update(u)?,
        ast::Statement::Merge(m) => super::merge::lower_merge(l, m)?,
        ast::Statement::CreateView(v) => {
            if v.materialized {
                return unsupported("materialized views");
            }
            if !v.temporary {
                let sql = v.query.to_string();
                return Ok(Statement::CreatePersistentView {
                    name: object_name_parts(&v.name)?,
                    plan: query::lower_query(l, *v.query)?,
                    sql,
                    replace: v.or_replace,
                    if_not_exists: v.if_not_exists,
                    columns: v.columns.iter().map(|c| c.name.value.clone()).collect(),
                });
            }
            Statement::CreateView {
                name: object_name_parts(&v.name)?,
                plan: query::lower_query(l, *v.query)?,
                kind: ViewKind::Temporary,
                replace: v.or_replace,
                if_not_exists: v.if_not_exists,
                columns: v.columns.iter().map(|c| c.name.value.clone()).collect(),
            }
        }
        ast::Statement::Drop {
            object_type,
            if_exists,
            names,
            ..
        } => match object_type {
            ast::ObjectType::View => {
                let [name] = names.as_slice() else {
                    return unsupported("dropping several views at once");
                };
                Statement::DropView {
                    name: object_name_parts(name)?,
                    if_exists,
                }
            }
            other => return unsupported(format!("DROP {other}")),
        },
        ast::Statement::Explain {
            statement,
            analyze,
            verbose,
            format,
            ..
        } => {
            let mode = match format {
                _ if analyze => ExplainMode::Analyze,
                Some(_) => ExplainMode::Formatted,
                None if verbose => ExplainMode::Extended,
                None => ExplainMode::Simple,
            };
            match lower(l, *statement)? {
                Statement::Query(plan) => Statement::Explain { plan, mode },
                _ => return unsupported("EXPLAIN of a command"),
            }
        }
        ast::Statement::ShowCatalogs {
            terse: false,
            history: false,
            show_options,
        } => {
            let (_, pattern) = show_target(&show_options)?;
            Statement::ShowCatalogs { pattern }
        }
        ast::Statement::ShowTables { show_options, .. } => {
            let (database, pattern) = show_target(&show_options)?;
            Statement::ShowTables { database, pattern }
        }
        ast::Statement::ShowViews { show_options, .. } => {
            let (database, pattern) = show_target(&show_options)?;
            Statement::ShowViews { database, pattern }
        }
        ast::Statement::ShowDatabases { show_options, .. }
        | ast::Statement::ShowSchemas { show_options, .. } => {
            let (_, pattern) = show_target(&show_options)?;
            Statement::ShowDatabases { pattern }
        }
        ast::Statement::ShowFunctions { filter } => Statement::ShowFunctions {
            user_only: false,
            pattern: match filter {
                Some(
                    ast::ShowStatementFilter::Like(p) | ast::ShowStatementFilter::NoKeyword(p),
                ) => Some(p),
                Some(other) => return unsupported(format!("SHOW FUNCTIONS {other}")),
                None => None,
            },
        },
        ast::Statement::ShowColumns { show_options, .. } => {
            let table = match &show_options.show_in {
                Some(i) => match &i.parent_name {
                    Some(n) => object_name_parts(n)?,
                    None => return unsupported("SHOW COLUMNS without a table"),
                },
                None => return unsupported("SHOW COLUMNS without a table"),
            };
            Statement::ShowColumns { table }
        }
        ast::Statement::ExplainTable {
            table_name,
            hive_format,
            ..
        } => Statement::DescribeTable {
            table: object_name_parts(&table_name)?,
            extended: hive_format.is_some(),
            column: None,
        },
        ast::Statement::Use(u) => match u {
            ast::Use::Object(name) | ast::Use::Database(name) | ast::Use::Schema(name) => {
                Statement::Use {
                    database: object_name_parts(&name)?.join("."),
                }
            }
            other => return unsupported(format!("{other}")),
        },
        other => {
            let text = other.to_string();
            let head: String = text
                .split_whitespace()
                .take(3)
                .collect::<Vec<_>>()
                .join(" ");
            return Err(PlanError::Unsupported(format!("SQL statement {head}")));
        }
    })
}

fn show_target(o: &ast::ShowStatementOptions) -> PlanResult<(Option<String>, Option<String>)> {
    let database = match &o.show_in {
        Some(i) => i
            .parent_name
            .as_ref()
            .map(|n| {
                object_name_parts(n).map(|p| match p.as_slice() {
                    // (`spark_catalog.db`: the database of the session catalog.)
                    [c, db] if c.eq_ignore_ascii_case(crate::catalog::SESSION_CATALOG) => {
                        db.clone()
                    }
                    _ => p.join("."),
                })
            })
            .transpose()?,
        None => None,
    };
    let pattern = match &o.filter_position {
        Some(
            ast::ShowStatementFilterPosition::Infix(f)
            | ast::ShowStatementFilterPosition::Suffix(f),
        ) => match f {
            ast::ShowStatementFilter::Like(p) | ast::ShowStatementFilter::NoKeyword(p) => {
                Some(p.clone())
            }
            other => return unsupported(format!("SHOW ... {other}")),
        },
        None => None,
    };
    Ok((database, pattern))
}

/// The one table a DELETE or UPDATE names (no alias, join or USING).
fn dml_table(t: &ast::TableWithJoins) -> PlanResult<Vec<String>> {
    match &t.relation {
        ast::TableFactor::Table {
            name, alias: None, ..
        } if t.joins.is_empty() => object_name_parts(name),
        other => unsupported(format!("DELETE or UPDATE of {other}")),
    }
}

fn dml_delete(d: ast::Delete) -> PlanResult<Statement> {
    let tables = match &d.from {
        ast::FromTable::WithFromKeyword(t) | ast::FromTable::WithoutKeyword(t) => t,
    };
    let ([table], true, None) = (tables.as_slice(), d.tables.is_empty(), &d.using) else {
        return unsupported("DELETE of several tables");
    };
    Ok(Statement::Delete {
        table: dml_table(table)?,
        predicate: d.selection.map(|e| e.to_string()),
    })
}

fn dml_update(u: ast::Update) -> PlanResult<Statement> {
    if u.from.is_some() {
        return unsupported("UPDATE ... FROM");
    }
    let assignments = u
        .assignments
        .into_iter()
        .map(|a| match a.target {
            ast::AssignmentTarget::ColumnName(name) => {
                Ok((object_name_parts(&name)?.join("."), a.value.to_string()))
            }
            other => unsupported(format!("UPDATE ... SET {other}")),
        })
        .collect::<PlanResult<Vec<_>>>()?;
    Ok(Statement::Update {
        table: dml_table(&u.table)?,
        assignments,
        predicate: u.selection.map(|e| e.to_string()),
    })
}
