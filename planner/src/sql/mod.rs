//! Spark SQL text -> Ember's unresolved plan language ([`crate::spec`]).
//!
//! Parsing is sqlparser's, with a Spark dialect ([`dialect::SparkDialect`]) and a token pass
//! for what Spark's grammar has and sqlparser's does not (typed numeric literals such as `1L`,
//! `1Y`, `1.5BD`). The AST is then lowered with Spark's meaning: `query` for SELECT/set
//! operations/VALUES, `expression` for expressions, `statement` for DDL and commands.

mod ddl;
mod dialect;
mod expression;
mod inline_table;
mod like;
mod literal;
mod merge;
mod query;
mod statement;
pub(crate) mod table_args;
mod table_modifiers;

use sqlparser::ast;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::{Token, TokenWithSpan, Tokenizer};

pub use dialect::SparkDialect;

use crate::error::{PlanError, PlanResult, SparkError};
use crate::spec::{Expr, Statement};

/// Parameter values bound to `:name` and `?` markers.
#[derive(Debug, Clone, Default)]
pub struct Arguments {
    pub named: Vec<(String, Expr)>,
    pub positional: Vec<Expr>,
}

/// Lowering state: parameter bindings and the position of the next `?`.
pub(crate) struct Lowering<'a> {
    pub args: &'a Arguments,
    pub next_positional: std::cell::Cell<usize>,
    /// How deep the expression being lowered nests now (see [`max_expression_depth`]).
    pub depth: std::cell::Cell<usize>,
}

impl<'a> Lowering<'a> {
    fn new(args: &'a Arguments) -> Self {
        Self {
            args,
            next_positional: std::cell::Cell::new(0),
            depth: std::cell::Cell::new(0),
        }
    }
}

/// The default of `spark.ember.maxExpressionDepth`: the most levels one expression may nest.
/// Planning a nested expression costs O(depth^2) (each level is typed over its subtree):
/// 1,000 levels plan in about 7 s in a debug build (2,000 in 26 s); Spark's own parser gives up
/// (FAILED_TO_PARSE_TOO_COMPLEX) somewhere between 1,000 and 10,000 chained `+`.
pub const DEFAULT_MAX_EXPRESSION_DEPTH: usize = 1200;

static MAX_EXPRESSION_DEPTH: std::sync::atomic::AtomicUsize =
    std::sync::atomic::AtomicUsize::new(DEFAULT_MAX_EXPRESSION_DEPTH);

/// Sets the most levels one expression may nest (the static `spark.ember.maxExpressionDepth`).
pub fn set_max_expression_depth(depth: usize) {
    MAX_EXPRESSION_DEPTH.store(depth.max(1), std::sync::atomic::Ordering::Relaxed);
}

/// The most levels one expression may nest, in SQL text and in Spark Connect messages: deeper
/// ones fail with FAILED_TO_PARSE_TOO_COMPLEX before any planning work.
pub fn max_expression_depth() -> usize {
    MAX_EXPRESSION_DEPTH.load(std::sync::atomic::Ordering::Relaxed)
}

/// sqlparser's own recursion bound (its default, 50, refused 50 nested parentheses that Spark
/// reads). Each level of a nested call or parenthesis takes a few of its units.
const PARSER_RECURSION_LIMIT: usize = 4000;

/// Parse one SQL statement.
pub fn parse_statement(sql: &str, args: &Arguments) -> PlanResult<Statement> {
    // Spark-only statements that sqlparser does not know are handled before the generic path.
    if let Some(stmt) = statement::parse_spark_specific(sql)? {
        return Ok(stmt);
    }
    let (sql, global_view) = match statement::strip_global_temp(sql) {
        Some(rewritten) => (rewritten, true),
        None => (
            merge::rewrite_stars(sql).unwrap_or_else(|| sql.to_string()),
            false,
        ),
    };
    let sql = sql.as_str();
    let dialect = SparkDialect::default();
    let tokens = tokenize(&dialect, sql)?;
    let lowering = Lowering::new(args);
    let mut parser = Parser::new(&dialect)
        .with_recursion_limit(PARSER_RECURSION_LIMIT)
        .with_tokens_with_locations(tokens.clone());
    if let Some(stmt) = ddl::parse(&lowering, &mut parser)? {
        while parser.consume_token(&Token::SemiColon) {}
        if parser.peek_token().token != Token::EOF {
            let found = parser.peek_token().token.to_string();
            return Err(SparkError::parse_syntax(&format!("'{found}'"), "").into());
        }
        return Ok(stmt);
    }
    let mut parser = Parser::new(&dialect)
        .with_recursion_limit(PARSER_RECURSION_LIMIT)
        .with_tokens_with_locations(tokens);
    let stmt = parser.parse_statement().map_err(|e| parse_error(e, sql))?;
    // Allow one trailing semicolon.
    while parser.consume_token(&Token::SemiColon) {}
    if parser.peek_token().token != Token::EOF {
        let found = parser.peek_token().token.to_string();
        return Err(SparkError::parse_syntax(&format!("'{found}'"), "").into());
    }
    let mut out = statement::lower(&lowering, stmt)?;
    if global_view && let Statement::CreateView { kind, .. } = &mut out {
        *kind = crate::spec::ViewKind::GlobalTemporary;
    }
    Ok(out)
}

/// Parse a standalone expression (`selectExpr`, `filter("...")`, `expr(...)`).
pub fn parse_expression(sql: &str) -> PlanResult<Expr> {
    // `selectExpr("*")`, `selectExpr("t.*")`: every column (of `t`).
    let trimmed = sql.trim();
    if trimmed == "*" {
        return Ok(Expr::Star {
            target: None,
            plan_id: None,
        });
    }
    if let Some(target) = trimmed.strip_suffix(".*")
        && let Ok(parts) = parse_identifier_parts(target)
    {
        return Ok(Expr::Star {
            target: Some(parts),
            plan_id: None,
        });
    }
    let dialect = SparkDialect::default();
    let tokens = tokenize(&dialect, sql)?;
    let mut parser = Parser::new(&dialect)
        .with_recursion_limit(PARSER_RECURSION_LIMIT)
        .with_tokens_with_locations(tokens);
    let expr = parser.parse_expr().map_err(|e| parse_error(e, sql))?;
    let alias = if parser.parse_keyword(sqlparser::keywords::Keyword::AS) {
        Some(parser.parse_identifier().map_err(|e| parse_error(e, sql))?)
    } else {
        // A word after the expression is its alias, keyword or not when it ends the text
        // (`cast(id AS int) id`, `concat('v', id) name`), as Spark's namedExpression reads it.
        let last = parser.peek_nth_token(1).token == Token::EOF;
        match parser.peek_token().token {
            Token::Word(w)
                if w.keyword == sqlparser::keywords::Keyword::NoKeyword
                    || w.quote_style.is_some()
                    || last =>
            {
                Some(parser.parse_identifier().map_err(|e| parse_error(e, sql))?)
            }
            _ => None,
        }
    };
    if parser.peek_token().token != Token::EOF {
        let found = parser.peek_token().token.to_string();
        return Err(SparkError::parse_syntax(&format!("'{found}'"), "").into());
    }
    let args = Arguments::default();
    let lowering = Lowering::new(&args);
    let e = expression::lower(&lowering, expr)?;
    Ok(match alias {
        Some(a) => e.alias(&a.value),
        None => e,
    })
}

/// Split a multi-part identifier: `a.b` -> [a, b]; `` `a.b`.c `` -> [a.b, c].
pub fn parse_identifier_parts(text: &str) -> PlanResult<Vec<String>> {
    let mut parts = Vec::new();
    let mut current = String::new();
    let mut chars = text.chars().peekable();
    let mut quoted_part = false;
    while let Some(c) = chars.next() {
        match c {
            '`' => {
                quoted_part = true;
                loop {
                    match chars.next() {
                        Some('`') if chars.peek() == Some(&'`') => {
                            chars.next();
                            current.push('`');
                        }
                        Some('`') => break,
                        Some(ch) => current.push(ch),
                        None => {
                            return Err(SparkError::parse_syntax(&format!("'{text}'"), "").into());
                        }
                    }
                }
            }
            '.' => {
                parts.push(std::mem::take(&mut current));
                quoted_part = false;
            }
            _ => current.push(c),
        }
    }
    if !current.is_empty() || quoted_part || !parts.is_empty() {
        parts.push(current);
    }
    if parts.is_empty() {
        parts.push(String::new());
    }
    Ok(parts)
}

fn tokenize(dialect: &SparkDialect, sql: &str) -> PlanResult<Vec<TokenWithSpan>> {
    let tokens = Tokenizer::new(dialect, sql)
        .with_unescape(true)
        .tokenize_with_location()
        .map_err(|e| PlanError::from(SparkError::parse_syntax(&format!("'{}'", e.message), "")))?;
    table_args::table_arguments(number_positional_markers(dialect::multi_unit_intervals(
        dialect::exists_functions(dialect::merge_typed_number_literals(
            literal::timestamp_ltz_literals(inline_table::parenthesised_inline_tables(
                dialect::system_time_travel(tokens),
            )),
        )),
    )))
}

/// Each `?` marker numbered by its place in the text (`?1`, `?2`, ...), so positional
/// arguments bind in the order the query is written, whatever order it is lowered in.
fn number_positional_markers(mut tokens: Vec<TokenWithSpan>) -> Vec<TokenWithSpan> {
    let mut n = 0;
    for t in &mut tokens {
        if let Token::Placeholder(p) = &mut t.token
            && p == "?"
        {
            n += 1;
            *p = format!("?{n}");
        }
    }
    tokens
}

/// sqlparser's error -> Spark's PARSE_SYNTAX_ERROR, naming the token it failed at.
fn parse_error(e: ParserError, sql: &str) -> PlanError {
    let msg = match &e {
        ParserError::TokenizerError(m) | ParserError::ParserError(m) => m.clone(),
        ParserError::RecursionLimitExceeded => return SparkError::too_complex_to_parse().into(),
    };
    let near = msg
        .split("found: ")
        .nth(1)
        .map(|rest| {
            rest.split(" at Line")
                .next()
                .unwrap_or(rest)
                .trim()
                .to_string()
        })
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| sql.split_whitespace().next().unwrap_or("").to_string());
    let near = if near == "EOF" {
        "end of input".to_string()
    } else {
        format!("'{near}'")
    };
    SparkError::parse_syntax(&near, "").into()
}

pub(crate) fn ident_name(ident: &ast::Ident) -> String {
    ident.value.clone()
}

pub(crate) fn object_name_parts(name: &ast::ObjectName) -> PlanResult<Vec<String>> {
    name.0
        .iter()
        .map(|p| match p {
            ast::ObjectNamePart::Identifier(i) => Ok(ident_name(i)),
            ast::ObjectNamePart::Function(f) => Err(PlanError::Unsupported(format!(
                "identifier function {}",
                f.name
            ))),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_identifiers() {
        assert_eq!(parse_identifier_parts("a.b").unwrap(), vec!["a", "b"]);
        assert_eq!(parse_identifier_parts("`a.b`.c").unwrap(), vec!["a.b", "c"]);
        assert_eq!(parse_identifier_parts("`x``y`").unwrap(), vec!["x`y"]);
        assert_eq!(parse_identifier_parts("id").unwrap(), vec!["id"]);
    }

    #[test]
    fn reports_parse_errors_as_spark_does() {
        let e = parse_statement("SELEC 1", &Arguments::default())
            .unwrap_err()
            .into_spark();
        assert_eq!(e.error_class, "PARSE_SYNTAX_ERROR");
        assert_eq!(e.parameters[0].1, "'SELEC'");
    }
}

#[cfg(test)]
mod literal_tests {
    use super::*;
    use crate::spec::{PlanNode, Statement};

    #[test]
    fn typed_number_literals() {
        let Statement::Query(plan) =
            parse_statement("SELECT 1L, 2Y, 3S, 1.5BD, 2D", &Arguments::default()).unwrap()
        else {
            panic!("query expected")
        };
        let PlanNode::Project { exprs, .. } = plan.node else {
            panic!("project expected")
        };
        let types: Vec<String> = exprs
            .iter()
            .map(|e| match e {
                Expr::Literal(v) => v.data_type().to_string(),
                other => format!("{other:?}"),
            })
            .collect();
        assert_eq!(
            types,
            vec!["Int64", "Int8", "Int16", "Decimal128(2, 1)", "Float64"]
        );
    }
}
