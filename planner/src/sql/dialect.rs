//! The Spark SQL dialect: sqlparser's `SparkSqlDialect` plus what Spark's own grammar accepts
//! on top (backslash escapes in strings, typed numeric literals).

use sqlparser::ast::{BinaryOperator, Expr};
use sqlparser::dialect::{Dialect, SparkSqlDialect};
use sqlparser::keywords::Keyword;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::{Token, TokenWithSpan};

#[derive(Debug, Default)]
pub struct SparkDialect {
    inner: SparkSqlDialect,
}

impl Dialect for SparkDialect {
    /// `t VERSION AS OF 1`, `t TIMESTAMP AS OF '...'` (Delta's time travel).
    fn supports_table_versioning(&self) -> bool {
        true
    }
    fn is_delimited_identifier_start(&self, ch: char) -> bool {
        self.inner.is_delimited_identifier_start(ch)
    }
    fn is_identifier_start(&self, ch: char) -> bool {
        self.inner.is_identifier_start(ch)
    }
    fn is_identifier_part(&self, ch: char) -> bool {
        self.inner.is_identifier_part(ch)
    }
    fn supports_filter_during_aggregation(&self) -> bool {
        true
    }
    fn supports_group_by_expr(&self) -> bool {
        true
    }
    fn supports_group_by_with_modifier(&self) -> bool {
        true
    }
    fn supports_lambda_functions(&self) -> bool {
        true
    }
    fn supports_select_wildcard_except(&self) -> bool {
        true
    }
    fn supports_struct_literal(&self) -> bool {
        true
    }
    fn supports_nested_comments(&self) -> bool {
        true
    }
    /// `TRIM(trimStr, str)`, the trim string first.
    fn supports_comma_separated_trim(&self) -> bool {
        true
    }
    /// `'a' 'b'` is `'ab'`.
    fn supports_string_literal_concatenation(&self) -> bool {
        true
    }
    fn supports_create_table_using(&self) -> bool {
        true
    }
    fn supports_long_type_as_bigint(&self) -> bool {
        true
    }
    fn supports_values_as_table_factor(&self) -> bool {
        true
    }
    fn require_interval_qualifier(&self) -> bool {
        true
    }
    fn supports_interval_options(&self) -> bool {
        true
    }
    fn supports_bang_not_operator(&self) -> bool {
        true
    }
    fn supports_select_item_multi_column_alias(&self) -> bool {
        true
    }
    fn supports_cte_without_as(&self) -> bool {
        true
    }
    fn supports_map_literal_with_angle_brackets(&self) -> bool {
        true
    }
    /// Spark strings accept `\'`, `\n`, ... escapes.
    fn supports_string_literal_backslash_escape(&self) -> bool {
        true
    }
    fn supports_named_fn_args_with_rarrow_operator(&self) -> bool {
        true
    }
    fn supports_in_empty_list(&self) -> bool {
        false
    }
    fn supports_window_clause_named_window_reference(&self) -> bool {
        true
    }
    fn parse_infix(
        &self,
        parser: &mut Parser,
        expr: &Expr,
        _precedence: u8,
    ) -> Option<Result<Expr, ParserError>> {
        if parser.parse_keyword(Keyword::DIV) {
            let prec = self.prec_value(sqlparser::dialect::Precedence::MulDivModOp);
            let right = match parser.parse_subexpr(prec) {
                Ok(e) => e,
                Err(e) => return Some(Err(e)),
            };
            Some(Ok(Expr::BinaryOp {
                left: Box::new(expr.clone()),
                op: BinaryOperator::MyIntegerDivide,
                right: Box::new(right),
            }))
        } else {
            None
        }
    }
    fn get_next_precedence(&self, parser: &Parser) -> Option<Result<u8, ParserError>> {
        let token = parser.peek_token();
        if let Token::Word(w) = &token.token
            && w.keyword == Keyword::DIV
        {
            return Some(Ok(
                self.prec_value(sqlparser::dialect::Precedence::MulDivModOp)
            ));
        }
        None
    }
}

/// Spark's typed numeric literals: `1L` (bigint), `1S` (smallint), `1Y` (tinyint), `1D`
/// (double), `1F` (float), `1BD` (decimal). The tokenizer sees a number followed by a word;
/// when the two touch, fold the suffix into the number so the lowering can read it.
pub fn merge_typed_number_literals(tokens: Vec<TokenWithSpan>) -> Vec<TokenWithSpan> {
    let mut out: Vec<TokenWithSpan> = Vec::with_capacity(tokens.len());
    for t in tokens {
        if let (Some(prev), Token::Word(w)) = (out.last_mut(), &t.token)
            && let Token::Number(n, long) = &prev.token
        {
            let suffix = w.value.to_ascii_uppercase();
            let touching = prev.span.end == t.span.start;
            if touching
                && w.quote_style.is_none()
                && matches!(suffix.as_str(), "L" | "S" | "Y" | "D" | "F" | "BD")
                && !n.contains(|c: char| c.is_ascii_alphabetic() && c != 'e' && c != 'E')
            {
                prev.token = Token::Number(format!("{n}{suffix}"), *long);
                prev.span.end = t.span.end;
                continue;
            }
        }
        out.push(t);
    }
    out
}

/// `exists(array, x -> ...)` is Spark's higher-order function when its parenthesis holds no
/// query: the keyword becomes a quoted name that sqlparser reads as a function call. So does
/// `trim()`, which sqlparser would read as TRIM's syntax.
pub fn exists_functions(mut tokens: Vec<TokenWithSpan>) -> Vec<TokenWithSpan> {
    let significant = |t: &TokenWithSpan| !matches!(t.token, Token::Whitespace(_));
    for i in 0..tokens.len() {
        let Token::Word(w) = &tokens[i].token else {
            continue;
        };
        if !matches!(w.keyword, Keyword::EXISTS | Keyword::TRIM) || w.quote_style.is_some() {
            continue;
        }
        let mut next = tokens[i + 1..].iter().filter(|t| significant(t));
        let (Some(open), Some(first)) = (next.next(), next.next()) else {
            continue;
        };
        // (`trim()` is a call of no arguments, Spark's WRONG_NUM_ARGS, not TRIM's syntax.)
        let query = if w.keyword == Keyword::TRIM {
            first.token != Token::RParen
        } else {
            matches!(&first.token, Token::LParen)
                || matches!(&first.token, Token::Word(w) if matches!(w.keyword, Keyword::SELECT | Keyword::WITH | Keyword::VALUES | Keyword::FROM | Keyword::TABLE))
        };
        if open.token == Token::LParen && !query {
            let value = w.value.clone();
            tokens[i].token = Token::Word(sqlparser::tokenizer::Word {
                value,
                quote_style: Some('`'),
                keyword: Keyword::NoKeyword,
            });
        }
    }
    tokens
}

/// Spark's other spellings of time travel, `[FOR] SYSTEM_VERSION AS OF`, `FOR VERSION AS OF`,
/// `[FOR] SYSTEM_TIME AS OF` and `FOR TIMESTAMP AS OF`, as `VERSION AS OF` and
/// `TIMESTAMP AS OF` (the forms sqlparser reads).
pub fn system_time_travel(mut tokens: Vec<TokenWithSpan>) -> Vec<TokenWithSpan> {
    let word = |t: &TokenWithSpan, text: &str| matches!(&t.token, Token::Word(w) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case(text));
    let significant: Vec<usize> = (0..tokens.len())
        .filter(|&i| !matches!(tokens[i].token, Token::Whitespace(_)))
        .collect();
    let mut drop = vec![];
    for (at, &system) in significant.iter().enumerate() {
        let (Some(&as_), Some(&of)) = (significant.get(at + 1), significant.get(at + 2)) else {
            break;
        };
        if !(word(&tokens[as_], "AS") && word(&tokens[of], "OF")) {
            continue;
        }
        let (value, keyword) =
            if word(&tokens[system], "SYSTEM_VERSION") || word(&tokens[system], "VERSION") {
                ("VERSION", Keyword::VERSION)
            } else if word(&tokens[system], "SYSTEM_TIME") || word(&tokens[system], "TIMESTAMP") {
                ("TIMESTAMP", Keyword::TIMESTAMP)
            } else {
                continue;
            };
        let after_for = at
            .checked_sub(1)
            .and_then(|i| significant.get(i))
            .filter(|&&f| word(&tokens[f], "FOR"));
        let spelled_system =
            word(&tokens[system], "SYSTEM_VERSION") || word(&tokens[system], "SYSTEM_TIME");
        if after_for.is_none() && !spelled_system {
            continue; // sqlparser's own form (or a column named `version AS of`)
        }
        tokens[system].token = Token::Word(sqlparser::tokenizer::Word {
            value: value.into(),
            quote_style: None,
            keyword,
        });
        if let Some(&f) = after_for {
            drop.extend(f..system);
        }
    }
    if drop.is_empty() {
        return tokens;
    }
    tokens
        .into_iter()
        .enumerate()
        .filter(|(i, _)| !drop.contains(i))
        .map(|(_, t)| t)
        .collect()
}

/// The units of Spark's multi-unit interval literals (`INTERVAL 1 DAY 2 HOURS`), singular,
/// with the field each one counts in.
const INTERVAL_UNITS: [&str; 9] = [
    "YEAR",
    "MONTH",
    "WEEK",
    "DAY",
    "HOUR",
    "MINUTE",
    "SECOND",
    "MILLISECOND",
    "MICROSECOND",
];

/// Spark's multi-unit interval literals (`INTERVAL 1 DAY 2 HOURS 3.5 SECONDS`,
/// `INTERVAL '1' YEAR '2' MONTHS`), and the units sqlparser's single-unit literal has no
/// field for (`INTERVAL 2 WEEKS`, `INTERVAL 5 MILLISECONDS`): sqlparser reads one value and
/// one unit, so the literal becomes the call `__interval_units('1 DAY 2 HOURS')` the
/// resolver reads.
pub fn multi_unit_intervals(tokens: Vec<TokenWithSpan>) -> Vec<TokenWithSpan> {
    let significant = |t: &TokenWithSpan| !matches!(t.token, Token::Whitespace(_));
    let unit = |t: &Token| match t {
        Token::Word(w) if w.quote_style.is_none() => {
            let upper = w.value.to_ascii_uppercase();
            let singular = upper.strip_suffix('S').unwrap_or(&upper).to_string();
            INTERVAL_UNITS
                .contains(&singular.as_str())
                .then_some(singular)
        }
        _ => None,
    };
    let mut out: Vec<TokenWithSpan> = Vec::with_capacity(tokens.len());
    let mut i = 0;
    while i < tokens.len() {
        let is_interval = matches!(&tokens[i].token, Token::Word(w) if w.keyword == Keyword::INTERVAL && w.quote_style.is_none());
        if !is_interval {
            out.push(tokens[i].clone());
            i += 1;
            continue;
        }
        // (value unit)+ after the keyword, values a number, a string or a negated number.
        let mut j = i + 1;
        let mut parts: Vec<String> = Vec::new();
        let mut end = i;
        loop {
            let mut k = j;
            let mut next = || {
                while k < tokens.len() && !significant(&tokens[k]) {
                    k += 1;
                }
                k += 1;
                tokens.get(k - 1).map(|t| &t.token)
            };
            let mut value = match next() {
                Some(Token::Number(n, _)) => n.clone(),
                Some(Token::SingleQuotedString(s)) => s.clone(),
                Some(Token::Minus) => match next() {
                    Some(Token::Number(n, _)) => format!("-{n}"),
                    _ => break,
                },
                _ => break,
            };
            let word = match next() {
                Some(Token::Word(w)) if unit(&Token::Word(w.clone())).is_some() => w.value.clone(),
                _ => break,
            };
            value.push(' ');
            value.push_str(&word);
            parts.push(value);
            j = k;
            end = k;
        }
        let rare_unit = |p: &String| {
            let u = p
                .rsplit(' ')
                .next()
                .unwrap_or_default()
                .to_ascii_uppercase();
            ["WEEK", "MILLISECOND", "MICROSECOND"]
                .iter()
                .any(|r| u.strip_suffix('S').unwrap_or(&u) == *r)
        };
        // (One value and unit, followed by TO, is a unit-to-unit literal sqlparser reads.)
        let followed_by_to = tokens[end..]
            .iter()
            .find(|t| significant(t))
            .is_some_and(|t| matches!(&t.token, Token::Word(w) if w.keyword == Keyword::TO));
        if parts.len() < 2 && !(parts.len() == 1 && rare_unit(&parts[0]) && !followed_by_to) {
            out.push(tokens[i].clone());
            i += 1;
            continue;
        }
        let span = tokens[i].span;
        let token = |token: Token| TokenWithSpan { token, span };
        out.push(token(Token::Word(sqlparser::tokenizer::Word {
            value: "__interval_units".into(),
            quote_style: Some('`'),
            keyword: Keyword::NoKeyword,
        })));
        out.push(token(Token::LParen));
        out.push(token(Token::SingleQuotedString(parts.join(" "))));
        out.push(token(Token::RParen));
        i = end;
    }
    out
}
