//! SQL literals: numbers with Spark's suffixes (`1L`, `1.5BD`, `1e3D`), strings, typed
//! strings (`DATE '...'`, `X'..'`), intervals and `?`/`:name` parameters -> [`spec::Expr`].

use arrow::datatypes::DataType;
use datafusion::common::ScalarValue;
use sqlparser::ast::{self, Value};

use super::Lowering;
use crate::error::{PlanError, PlanResult, SparkError, unsupported};
use crate::literal;
use crate::spec::{self, Expr};
use crate::types;

/// A SQL literal value.
pub(crate) fn value_to_expr(l: &Lowering, v: Value) -> PlanResult<Expr> {
    Ok(match v {
        Value::Number(n, long) => number_literal(&if long { format!("{n}L") } else { n })?,
        Value::SingleQuotedString(s)
        | Value::DoubleQuotedString(s)
        | Value::TripleSingleQuotedString(s)
        | Value::TripleDoubleQuotedString(s)
        | Value::EscapedStringLiteral(s)
        | Value::UnicodeStringLiteral(s)
        | Value::NationalStringLiteral(s)
        | Value::SingleQuotedRawStringLiteral(s)
        | Value::DoubleQuotedRawStringLiteral(s)
        | Value::TripleSingleQuotedRawStringLiteral(s)
        | Value::TripleDoubleQuotedRawStringLiteral(s) => Expr::Literal(ScalarValue::Utf8(Some(s))),
        Value::HexStringLiteral(h) => Expr::Literal(ScalarValue::Binary(Some(unhex_literal(&h)?))),
        Value::SingleQuotedByteStringLiteral(s) | Value::DoubleQuotedByteStringLiteral(s) => {
            Expr::Literal(ScalarValue::Binary(Some(s.into_bytes())))
        }
        Value::Boolean(b) => super::expression::bool_lit(b),
        Value::Null => Expr::Literal(ScalarValue::Null),
        Value::Placeholder(p) => parameter(l, &p)?,
        other => return unsupported(format!("literal {other}")),
    })
}

/// The bytes of `X'...'` (an odd count of digits has a leading zero); anything but hex
/// digits is Spark's INVALID_TYPED_LITERAL (`X'éa'` once panicked here, slicing inside `é`).
fn unhex_literal(text: &str) -> PlanResult<Vec<u8>> {
    let digits: Option<Vec<u8>> = text
        .chars()
        .map(|c| c.to_digit(16).map(|d| d as u8))
        .collect();
    let Some(mut digits) = digits else {
        return Err(PlanError::from(SparkError::invalid_typed_literal(
            "X", text,
        )));
    };
    if digits.len() % 2 == 1 {
        digits.insert(0, 0);
    }
    Ok(digits.chunks(2).map(|p| (p[0] << 4) | p[1]).collect())
}

/// `:name` and `?` markers, bound from `spark.sql(..., args=...)`.
fn parameter(l: &Lowering, marker: &str) -> PlanResult<Expr> {
    if let Some(number) = marker.strip_prefix('?') {
        // (`?N`: the N-th marker of the text, see `sql::tokenize`.)
        let i = match number.parse::<usize>() {
            Ok(n) => n.saturating_sub(1),
            Err(_) => {
                let i = l.next_positional.get();
                l.next_positional.set(i + 1);
                i
            }
        };
        return l.args.positional.get(i).cloned().ok_or_else(|| {
            SparkError::analysis(
                "UNBOUND_SQL_PARAMETER",
                "42P02",
                format!("Found the unbound parameter: _{}. Please, fix `args` and provide a mapping of the parameter to either a SQL literal or collection constructor functions such as `map()`, `array()`, `struct()`.", i + 16),
            )
            .into()
        });
    }
    let name = marker.trim_start_matches([':', '$', '@']);
    l.args
        .named
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.clone())
        .ok_or_else(|| {
            SparkError::analysis(
                "UNBOUND_SQL_PARAMETER",
                "42P02",
                format!("Found the unbound parameter: {name}. Please, fix `args` and provide a mapping of the parameter to either a SQL literal or collection constructor functions such as `map()`, `array()`, `struct()`."),
            )
            .into()
        })
}

/// The number `text` spells, if it is one within ±`max` (Spark compares the literal's exact
/// value with the type's largest: `3.4028235E38F` is past a FLOAT's, `1e309` a DOUBLE's).
fn finite(text: &str, max: f64) -> Option<f64> {
    text.parse::<f64>().ok().filter(|v| v.abs() <= max)
}

/// A numeric literal with Spark's typing: integers are INT when they fit, else BIGINT, else
/// DECIMAL; decimals are DECIMAL; exponent forms are DOUBLE; suffixes L/S/Y/D/F/BD force a type.
pub(crate) fn number_literal(text: &str) -> PlanResult<Expr> {
    let upper = text.to_ascii_uppercase();
    let out_of_range = |ty: &str| -> PlanError {
        SparkError::new(
            crate::error::ErrorKind::Parse,
            "INVALID_NUMERIC_LITERAL_RANGE",
            "22003",
            format!("Numeric literal {text} is outside the valid range for {ty}."),
            vec![
                ("rawStrippedQualifier", text.to_string()),
                ("typeName", ty.to_string()),
            ],
        )
        .into()
    };
    let v = if let Some(n) = upper.strip_suffix("BD") {
        literal::parse_decimal(n, None, None)?
    } else if let Some(n) = upper.strip_suffix('L') {
        ScalarValue::Int64(Some(n.parse().map_err(|_| out_of_range("bigint"))?))
    } else if let Some(n) = upper.strip_suffix('S') {
        ScalarValue::Int16(Some(n.parse().map_err(|_| out_of_range("smallint"))?))
    } else if let Some(n) = upper.strip_suffix('Y') {
        ScalarValue::Int8(Some(n.parse().map_err(|_| out_of_range("tinyint"))?))
    } else if let Some(n) = upper.strip_suffix('D') {
        ScalarValue::Float64(Some(
            finite(n, f64::MAX).ok_or_else(|| out_of_range("double"))?,
        ))
    } else if let Some(n) = upper.strip_suffix('F') {
        let v = finite(n, f64::from(f32::MAX)).ok_or_else(|| out_of_range("float"))?;
        ScalarValue::Float32(Some(v as f32))
    } else if upper.contains('E') {
        ScalarValue::Float64(Some(
            finite(&upper, f64::MAX).ok_or_else(|| out_of_range("double"))?,
        ))
    } else if upper.contains('.') {
        literal::parse_decimal(&upper, None, None)?
    } else if let Ok(i) = upper.parse::<i32>() {
        ScalarValue::Int32(Some(i))
    } else if let Ok(i) = upper.parse::<i64>() {
        ScalarValue::Int64(Some(i))
    } else {
        literal::parse_decimal(&upper, None, None)?
    };
    Ok(Expr::Literal(v))
}

/// `DATE '2020-01-01'`, `TIMESTAMP '...'`, `TIMESTAMP_NTZ '...'`, `X'..'`-like typed strings.
pub(super) fn typed_string(data_type: &ast::DataType, value: Value) -> PlanResult<Expr> {
    let text = match value {
        Value::SingleQuotedString(s) | Value::DoubleQuotedString(s) => s,
        other => return unsupported(format!("typed literal {other}")),
    };
    let type_text = spark_type_text(&data_type.to_string());
    let to = types::parse_data_type(&type_text, types::DEFAULT_TIME_ZONE)?;
    let (name, to) = match &to {
        DataType::Date32 => ("DATE", to),
        DataType::Time64(_) => ("TIME", to),
        DataType::Timestamp(_, Some(_)) => ("TIMESTAMP", to),
        DataType::Timestamp(_, None) => ("TIMESTAMP_NTZ", to),
        _ => {
            return Ok(Expr::Cast {
                expr: Box::new(Expr::Literal(ScalarValue::Utf8(Some(text)))),
                type_name: types::sql_name(&to),
                to,
                mode: spec::CastMode::Ansi,
            });
        }
    };
    // Typed literals are parsed at resolution time, in the session time zone.
    Ok(Expr::function(
        "__typed_literal",
        vec![
            Expr::Literal(ScalarValue::Utf8(Some(name.to_string()))),
            Expr::Literal(ScalarValue::Utf8(Some(text))),
        ],
    ))
    .inspect(|_e| {
        let _ = to;
    })
}

/// `INTERVAL '1' DAY`, `INTERVAL 2 HOURS`, `INTERVAL '1-2' YEAR TO MONTH`.
pub(super) fn interval(l: &Lowering, i: ast::Interval) -> PlanResult<Expr> {
    let value = super::expression::lower(l, *i.value)?;
    let field = |f: &Option<ast::DateTimeField>| f.as_ref().map(|f| f.to_string().to_uppercase());
    Ok(Expr::function(
        "__interval_literal",
        vec![
            value,
            Expr::Literal(ScalarValue::Utf8(field(&i.leading_field))),
            Expr::Literal(ScalarValue::Utf8(field(&i.last_field))),
        ],
    ))
}

/// sqlparser prints a `MAP<K, V>` type as `Map(K, V)`; Spark's DDL spells it with angle
/// brackets (also nested: `ARRAY<Map(INT, STRING)>`).
pub(super) fn spark_type_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    // For every open parenthesis: whether it opened a `Map(`.
    let mut opened: Vec<bool> = vec![];
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if rest.starts_with("Map(") {
            out.push_str("MAP<");
            opened.push(true);
            rest = &rest[4..];
            continue;
        }
        match c {
            '(' => {
                opened.push(false);
                out.push('(');
            }
            ')' => out.push(if opened.pop() == Some(true) { '>' } else { ')' }),
            c => out.push(c),
        }
        rest = &rest[c.len_utf8()..];
    }
    out
}

/// `TIMESTAMP_LTZ '...'`, which sqlparser does not know, as the `TIMESTAMP '...'` it is (an
/// instant in the session time zone).
pub(super) fn timestamp_ltz_literals(
    mut tokens: Vec<sqlparser::tokenizer::TokenWithSpan>,
) -> Vec<sqlparser::tokenizer::TokenWithSpan> {
    use sqlparser::tokenizer::Token;
    for i in 0..tokens.len() {
        let Token::Word(w) = &tokens[i].token else {
            continue;
        };
        if w.quote_style.is_some() || !w.value.eq_ignore_ascii_case("TIMESTAMP_LTZ") {
            continue;
        }
        let next = tokens[i + 1..]
            .iter()
            .find(|t| !matches!(t.token, Token::Whitespace(_)));
        if next.is_some_and(|t| matches!(t.token, Token::SingleQuotedString(_))) {
            tokens[i].token = Token::make_keyword("TIMESTAMP");
        }
    }
    tokens
}
