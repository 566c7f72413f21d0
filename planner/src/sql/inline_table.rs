//! Spark's inline tables with an alias and no parentheses (`FROM VALUES (1, 'x') AS t(a, b)`)
//! read as the parenthesised form (`FROM (VALUES (1, 'x')) AS t(a, b)`), the same table:
//! sqlparser reads the bare form only when nothing but the alias follows it, so a `PIVOT` or
//! `UNPIVOT` after it failed to parse; alone in parentheses with its alias
//! (`FROM (VALUES (1) AS t(a))`) it is Spark's subquery `(SELECT * FROM (VALUES (1)) AS t(a))`,
//! whose alias is not visible outside.

use sqlparser::keywords::Keyword;
use sqlparser::tokenizer::{Token, TokenWithSpan, Whitespace, Word};

/// Depth-0 keywords that end a table in FROM before any alias of an inline table.
const ENDS_TABLE: [Keyword; 27] = [
    Keyword::WHERE,
    Keyword::GROUP,
    Keyword::ORDER,
    Keyword::HAVING,
    Keyword::LIMIT,
    Keyword::OFFSET,
    Keyword::WINDOW,
    Keyword::QUALIFY,
    Keyword::JOIN,
    Keyword::INNER,
    Keyword::LEFT,
    Keyword::RIGHT,
    Keyword::FULL,
    Keyword::CROSS,
    Keyword::NATURAL,
    Keyword::SEMI,
    Keyword::ANTI,
    Keyword::ON,
    Keyword::USING,
    Keyword::UNION,
    Keyword::EXCEPT,
    Keyword::INTERSECT,
    Keyword::MINUS,
    Keyword::PIVOT,
    Keyword::UNPIVOT,
    Keyword::LATERAL,
    Keyword::TABLESAMPLE,
];

fn keyword(t: &TokenWithSpan) -> Option<Keyword> {
    match &t.token {
        Token::Word(w) if w.quote_style.is_none() => Some(w.keyword),
        _ => None,
    }
}

/// The inline tables of FROM and JOIN with an alias, their rows in parentheses.
pub fn parenthesised_inline_tables(tokens: Vec<TokenWithSpan>) -> Vec<TokenWithSpan> {
    let significant: Vec<usize> = (0..tokens.len())
        .filter(|&i| !matches!(tokens[i].token, Token::Whitespace(_)))
        .collect();
    let is_from = |at: Option<usize>| {
        at.and_then(|a| significant.get(a))
            .is_some_and(|&p| matches!(keyword(&tokens[p]), Some(Keyword::FROM | Keyword::JOIN)))
    };
    // Where the inline table starts, where its rows end, and whether it sits alone in
    // parentheses (`FROM (VALUES ... AS t(a))`: a subquery, which hides its alias as Spark's
    // does).
    let mut wraps: Vec<(usize, usize, bool)> = vec![];
    for (at, &values) in significant.iter().enumerate() {
        if keyword(&tokens[values]) != Some(Keyword::VALUES) {
            continue;
        }
        let before = at.checked_sub(1);
        let in_parentheses = before
            .is_some_and(|b| matches!(tokens[significant[b]].token, Token::LParen))
            && is_from(before.and_then(|b| b.checked_sub(1)));
        if !is_from(before) && !in_parentheses {
            continue;
        }
        let mut depth = 0usize;
        for k in at + 1..significant.len() {
            let t = &tokens[significant[k]];
            match &t.token {
                Token::LParen => depth += 1,
                Token::RParen if depth == 0 => break,
                Token::RParen => depth -= 1,
                Token::SemiColon => break,
                Token::Word(w) if depth == 0 && w.quote_style.is_none() => {
                    let after_row = matches!(tokens[significant[k - 1]].token, Token::RParen);
                    if w.keyword == Keyword::AS || (w.keyword == Keyword::NoKeyword && after_row) {
                        // Closed right after the rows, before the space ahead of the alias.
                        wraps.push((values, significant[k - 1] + 1, in_parentheses));
                        break;
                    }
                    if ENDS_TABLE.contains(&w.keyword) {
                        break;
                    }
                }
                _ => {}
            }
        }
    }
    if wraps.is_empty() {
        return tokens;
    }
    let word = |keyword: Keyword, value: &str| {
        TokenWithSpan::wrap(Token::Word(Word {
            value: value.into(),
            quote_style: None,
            keyword,
        }))
    };
    let mut out = Vec::with_capacity(tokens.len() + 5 * wraps.len());
    for (i, t) in tokens.into_iter().enumerate() {
        for &(values, close, subquery) in &wraps {
            if values == i {
                if subquery {
                    out.push(word(Keyword::SELECT, "SELECT"));
                    out.push(TokenWithSpan::wrap(Token::Whitespace(Whitespace::Space)));
                    out.push(TokenWithSpan::wrap(Token::Mul));
                    out.push(TokenWithSpan::wrap(Token::Whitespace(Whitespace::Space)));
                    out.push(word(Keyword::FROM, "FROM"));
                    out.push(TokenWithSpan::wrap(Token::Whitespace(Whitespace::Space)));
                }
                out.push(TokenWithSpan::wrap(Token::LParen));
            }
            if close == i {
                out.push(TokenWithSpan::wrap(Token::RParen));
            }
        }
        out.push(t);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sql::dialect::SparkDialect;
    use sqlparser::tokenizer::Tokenizer;

    fn rewritten(sql: &str) -> String {
        let tokens = Tokenizer::new(&SparkDialect::default(), sql)
            .tokenize_with_location()
            .unwrap();
        parenthesised_inline_tables(tokens)
            .iter()
            .map(|t| t.token.to_string())
            .collect()
    }

    #[test]
    fn aliased_inline_tables_get_parentheses() {
        assert_eq!(
            rewritten("SELECT * FROM VALUES (1, 'x') AS t(a, b) PIVOT (sum(a) FOR b IN ('x'))"),
            "SELECT * FROM (VALUES (1, 'x')) AS t(a, b) PIVOT (sum(a) FOR b IN ('x'))"
        );
        assert_eq!(
            rewritten("SELECT * FROM VALUES (1), (2) t(a)"),
            "SELECT * FROM (VALUES (1), (2)) t(a)"
        );
        assert_eq!(
            rewritten("SELECT * FROM (VALUES 1, 2 AS t(a)) WHERE a > 1"),
            "SELECT * FROM (SELECT * FROM (VALUES 1, 2) AS t(a)) WHERE a > 1"
        );
        assert_eq!(
            rewritten("SELECT * FROM x JOIN VALUES (CAST(1 AS INT)) AS u(a) USING (a)"),
            "SELECT * FROM x JOIN (VALUES (CAST(1 AS INT))) AS u(a) USING (a)"
        );
    }

    #[test]
    fn other_values_are_left_alone() {
        for sql in [
            "SELECT * FROM VALUES (1), (2)",
            "SELECT * FROM VALUES (1) JOIN t AS u ON true",
            "INSERT INTO t VALUES (1) ",
            "SELECT * FROM (VALUES (1)) AS t(a)",
        ] {
            assert_eq!(rewritten(sql), sql);
        }
    }
}
