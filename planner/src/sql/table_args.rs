//! TABLE arguments of table functions (`f(TABLE(t) PARTITION BY k ORDER BY v DESC)`), which
//! sqlparser does not know: the tokens are rewritten into function calls it parses, which the
//! resolver takes apart again (`resolver/udtf.rs`):
//!
//! ```text
//! TABLE(t) PARTITION BY (a, b) ORDER BY v DESC NULLS LAST
//!   -> __ember_table_arg(t, __ember_partition_by(a, b),
//!                        __ember_order_by(__ember_sort(v, 'desc', 'last')))
//! TABLE(SELECT ...) WITH SINGLE PARTITION
//!   -> __ember_table_arg((SELECT ...), __ember_single_partition())
//! ```

use sqlparser::keywords::Keyword;
use sqlparser::tokenizer::{Span, Token, TokenWithSpan};

use crate::error::{ErrorKind, PlanResult, SparkError};

pub const TABLE_ARG: &str = "__ember_table_arg";
pub const PARTITION_BY: &str = "__ember_partition_by";
pub const SINGLE_PARTITION: &str = "__ember_single_partition";
pub const ORDER_BY: &str = "__ember_order_by";
pub const SORT: &str = "__ember_sort";

fn is_word(t: &Token, word: &str) -> bool {
    matches!(t, Token::Word(w) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case(word))
}

fn token(t: Token) -> TokenWithSpan {
    TokenWithSpan::new(t, Span::empty())
}

fn word(w: &str) -> TokenWithSpan {
    token(Token::make_word(w, None))
}

/// The index of the `)` closing the `(` at `open`.
fn matching(t: &[TokenWithSpan], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (i, x) in t.iter().enumerate().skip(open) {
        match x.token {
            Token::LParen => depth += 1,
            Token::RParen => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// Tokens from `start` up to (not including) a `,` or `)` at depth 0, or one of `stops`.
fn until_stop(t: &[TokenWithSpan], start: usize, stops: &[&str]) -> usize {
    let mut depth = 0usize;
    let mut i = start;
    while i < t.len() {
        match &t[i].token {
            Token::LParen => depth += 1,
            Token::RParen if depth == 0 => return i,
            Token::RParen => depth -= 1,
            Token::Comma if depth == 0 => return i,
            Token::EOF => return i,
            x if depth == 0 && stops.iter().any(|s| is_word(x, s)) => return i,
            _ => {}
        }
        i += 1;
    }
    i
}

/// Comma-separated items of `t` (at depth 0).
fn split_commas(t: &[TokenWithSpan]) -> Vec<Vec<TokenWithSpan>> {
    let mut out = vec![Vec::new()];
    let mut depth = 0usize;
    for x in t {
        match x.token {
            Token::LParen => depth += 1,
            Token::RParen => depth = depth.saturating_sub(1),
            Token::Comma if depth == 0 => {
                out.push(Vec::new());
                continue;
            }
            _ => {}
        }
        if let Some(last) = out.last_mut() {
            last.push(x.clone());
        }
    }
    out.retain(|v| !v.is_empty());
    out
}

/// `name(args...)` with the arguments' tokens separated by commas.
fn call(name: &str, args: Vec<Vec<TokenWithSpan>>) -> Vec<TokenWithSpan> {
    let mut out = vec![word(name), token(Token::LParen)];
    for (i, a) in args.into_iter().enumerate() {
        if i > 0 {
            out.push(token(Token::Comma));
        }
        out.extend(a);
    }
    out.push(token(Token::RParen));
    out
}

/// A sort item (`v DESC NULLS LAST`) as `__ember_sort(v, 'desc', 'last')`.
fn sort_item(mut item: Vec<TokenWithSpan>) -> Vec<TokenWithSpan> {
    let mut nulls = "default";
    let n = item.len();
    if n >= 2 && is_word(&item[n - 2].token, "NULLS") {
        nulls = if is_word(&item[n - 1].token, "FIRST") {
            "first"
        } else {
            "last"
        };
        item.truncate(n - 2);
    }
    let mut direction = "asc";
    if let Some(last) = item.last() {
        if is_word(&last.token, "DESC") {
            direction = "desc";
            item.pop();
        } else if is_word(&last.token, "ASC") {
            item.pop();
        }
    }
    let quoted = |s: &str| vec![token(Token::SingleQuotedString(s.to_string()))];
    call(SORT, vec![item, quoted(direction), quoted(nulls)])
}

/// The items of `PARTITION BY` / `ORDER BY` from `start`: a parenthesized list or one item.
/// Returns them and the index after them.
fn by_list(
    t: &[TokenWithSpan],
    start: usize,
    stops: &[&str],
) -> Option<(Vec<Vec<TokenWithSpan>>, usize)> {
    if matches!(t.get(start)?.token, Token::LParen) {
        let close = matching(t, start)?;
        // `(a, b)`, unless it is one parenthesized expression followed by more (`(a) + 1`).
        let end = until_stop(t, start, stops);
        if end == close + 1 {
            return Some((split_commas(&t[start + 1..close]), close + 1));
        }
    }
    let end = until_stop(t, start, stops);
    Some((vec![t[start..end].to_vec()], end))
}

/// Rewrite the TABLE arguments of function calls in `tokens`.
pub fn table_arguments(tokens: Vec<TokenWithSpan>) -> PlanResult<Vec<TokenWithSpan>> {
    if !tokens.iter().any(|t| is_word(&t.token, "TABLE")) {
        return Ok(tokens);
    }
    let t: Vec<TokenWithSpan> = tokens
        .iter()
        .filter(|t| !matches!(t.token, Token::Whitespace(_)))
        .cloned()
        .collect();
    let mut changed = false;
    let mut out: Vec<TokenWithSpan> = Vec::with_capacity(t.len());
    // For each open parenthesis: whether it opens a function call's arguments.
    let mut calls: Vec<bool> = Vec::new();
    let mut i = 0;
    while i < t.len() {
        let in_call = calls.last().copied().unwrap_or(false);
        let after_separator = matches!(
            out.last().map(|x| &x.token),
            Some(Token::LParen | Token::Comma | Token::RArrow)
        );
        if in_call && after_separator && is_word(&t[i].token, "TABLE") {
            match t.get(i + 1).map(|x| &x.token) {
                Some(Token::LParen) => {
                    if let Some((rewritten, next)) = table_argument(&t, i + 1) {
                        out.extend(rewritten);
                        changed = true;
                        i = next;
                        continue;
                    }
                }
                Some(Token::Word(w)) => {
                    let name = w.value.clone();
                    return Err(SparkError::new(
                        ErrorKind::Parse,
                        "INVALID_SQL_SYNTAX.INVALID_TABLE_FUNCTION_IDENTIFIER_ARGUMENT_MISSING_PARENTHESES",
                        "42000",
                        format!(
                            "Invalid SQL syntax: Syntax error: call to table-valued function is invalid because parentheses are missing around the provided TABLE argument `{name}`; please surround this with parentheses and try again."
                        ),
                        vec![("argumentName", format!("`{name}`"))],
                    )
                    .into());
                }
                _ => {}
            }
        }
        match &t[i].token {
            Token::LParen => {
                let function = matches!(
                    out.last().map(|x| &x.token),
                    Some(Token::Word(w)) if w.keyword == Keyword::NoKeyword || w.quote_style.is_some()
                );
                calls.push(function);
            }
            Token::RParen => {
                calls.pop();
            }
            _ => {}
        }
        out.push(t[i].clone());
        i += 1;
    }
    // (Statements without TABLE arguments keep their tokens as they were.)
    Ok(if changed { out } else { tokens })
}

/// `TABLE(...)` with its `(` at `open` and what follows it, rewritten; and the index after.
fn table_argument(t: &[TokenWithSpan], open: usize) -> Option<(Vec<TokenWithSpan>, usize)> {
    let close = matching(t, open)?;
    let inner = &t[open + 1..close];
    let query = inner.first().is_some_and(|x| {
        ["SELECT", "WITH", "VALUES", "FROM"]
            .iter()
            .any(|w| is_word(&x.token, w))
    });
    let mut table = inner.to_vec();
    if query {
        table.insert(0, token(Token::LParen));
        table.push(token(Token::RParen));
    }
    let mut args = vec![table];
    let mut k = close + 1;
    let at = |k: usize, w: &str| t.get(k).is_some_and(|x| is_word(&x.token, w));
    if at(k, "WITH") && at(k + 1, "SINGLE") && at(k + 2, "PARTITION") {
        args.push(call(SINGLE_PARTITION, vec![]));
        k += 3;
    } else if (at(k, "PARTITION") || at(k, "DISTRIBUTE")) && at(k + 1, "BY") {
        let (items, next) = by_list(t, k + 2, &["ORDER", "SORT"])?;
        args.push(call(PARTITION_BY, items));
        k = next;
    }
    if (at(k, "ORDER") || at(k, "SORT")) && at(k + 1, "BY") {
        let (items, next) = by_list(t, k + 2, &[])?;
        args.push(call(ORDER_BY, items.into_iter().map(sort_item).collect()));
        k = next;
    }
    Some((call(TABLE_ARG, args), k))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sql::dialect::SparkDialect;
    use sqlparser::tokenizer::Tokenizer;

    fn rewrite(sql: &str) -> String {
        let tokens = Tokenizer::new(&SparkDialect::default(), sql)
            .tokenize_with_location()
            .unwrap();
        table_arguments(tokens)
            .unwrap()
            .iter()
            .map(|t| t.token.to_string())
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn rewrites_table_arguments() {
        assert_eq!(
            rewrite("SELECT * FROM f(TABLE(t) PARTITION BY k ORDER BY v DESC)"),
            "SELECT * FROM f ( __ember_table_arg ( t , __ember_partition_by ( k ) , __ember_order_by ( __ember_sort ( v , 'desc' , 'default' ) ) ) )"
        );
        assert_eq!(
            rewrite("SELECT * FROM f(1, TABLE(SELECT 1) WITH SINGLE PARTITION)"),
            "SELECT * FROM f ( 1 , __ember_table_arg ( ( SELECT 1 ) , __ember_single_partition ( ) ) )"
        );
        assert_eq!(
            rewrite("SELECT * FROM f(TABLE(t) PARTITION BY (a, b) ORDER BY (a NULLS LAST, b))"),
            "SELECT * FROM f ( __ember_table_arg ( t , __ember_partition_by ( a , b ) , __ember_order_by ( __ember_sort ( a , 'asc' , 'last' ) , __ember_sort ( b , 'asc' , 'default' ) ) ) )"
        );
        // Not an argument: left as it is.
        assert_eq!(rewrite("TRUNCATE TABLE t"), "TRUNCATE   TABLE   t");
    }
}
