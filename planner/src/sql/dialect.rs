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
/// query: the keyword becomes a quoted name that sqlparser reads as a function call.
pub fn exists_functions(mut tokens: Vec<TokenWithSpan>) -> Vec<TokenWithSpan> {
    let significant = |t: &TokenWithSpan| !matches!(t.token, Token::Whitespace(_));
    for i in 0..tokens.len() {
        let Token::Word(w) = &tokens[i].token else {
            continue;
        };
        if w.keyword != Keyword::EXISTS || w.quote_style.is_some() {
            continue;
        }
        let mut next = tokens[i + 1..].iter().filter(|t| significant(t));
        let (Some(open), Some(first)) = (next.next(), next.next()) else {
            continue;
        };
        let query = matches!(&first.token, Token::LParen)
            || matches!(&first.token, Token::Word(w) if matches!(w.keyword, Keyword::SELECT | Keyword::WITH | Keyword::VALUES | Keyword::FROM | Keyword::TABLE));
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
