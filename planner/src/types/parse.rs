//! Spark's type strings as Arrow types: a single type (`decimal(10,2)`, `array<string>`,
//! `interval day to second`), a DDL field list (`a INT, b ARRAY<STRING>`), or Spark's JSON
//! schema form.

use std::sync::Arc;

use arrow::datatypes::{DataType, Field, Fields, IntervalUnit, Schema, TimeUnit};

use super::{COMMENT_KEY, decimal_type, list_type, map_type, variant_type, with_comment};
use crate::error::{PlanError, PlanResult, SparkError};

/// Parse a Spark type string: `int`, `decimal(10,2)`, `array<string>`, `map<string,int>`,
/// `struct<a:int,b string>`, a DDL field list `a INT, b STRING` (returned as a struct), or
/// Spark's JSON form of a type (what the 4.3 client sends for `from_json(c, StructType(..))`).
pub fn parse_data_type(text: &str, time_zone: &str) -> PlanResult<DataType> {
    if let Some(json) = json_value(text)? {
        return json_type(&json, time_zone);
    }
    let mut p = TypeParser::new(text, time_zone);
    let dt = p.parse_type_or_fields()?;
    p.expect_end()?;
    Ok(dt)
}

/// Parse a schema given either as a DDL string (`"id INT, name STRING"`), a single type
/// (`"int"`, which becomes a one-column `value` schema), or Spark's JSON schema form.
pub fn parse_schema(text: &str, time_zone: &str) -> PlanResult<Schema> {
    let trimmed = text.trim();
    if let Some(json) = json_value(trimmed)? {
        return match json_type(&json, time_zone)? {
            DataType::Struct(fields) => Ok(Schema::new(fields)),
            other => Ok(Schema::new(vec![Field::new("value", other, true)])),
        };
    }
    let mut p = TypeParser::new(trimmed, time_zone);
    let dt = p.parse_type_or_fields()?;
    p.expect_end()?;
    Ok(match dt {
        DataType::Struct(fields) => Schema::new(fields),
        other => Schema::new(vec![Field::new("value", other, true)]),
    })
}

/// A type string in Spark's JSON form (an object), parsed; None for DDL text.
fn json_value(text: &str) -> PlanResult<Option<serde_json::Value>> {
    let trimmed = text.trim();
    if !trimmed.starts_with('{') {
        return Ok(None);
    }
    serde_json::from_str(trimmed)
        .map(Some)
        .map_err(|e| PlanError::InvalidPlan(format!("bad JSON schema: {e}")))
}

/// Spark's JSON form of a data type (`DataType.json()` in PySpark).
fn json_type(v: &serde_json::Value, time_zone: &str) -> PlanResult<DataType> {
    use serde_json::Value;
    let bad = || PlanError::InvalidPlan(format!("bad JSON data type: {v}"));
    match v {
        Value::String(s) => parse_data_type(s, time_zone),
        Value::Object(o) => {
            let ty = o.get("type").and_then(Value::as_str).ok_or_else(bad)?;
            match ty {
                "struct" => {
                    let fields = o.get("fields").and_then(Value::as_array).ok_or_else(bad)?;
                    let fields = fields
                        .iter()
                        .map(|f| {
                            let name = f.get("name").and_then(Value::as_str).ok_or_else(bad)?;
                            let nullable =
                                f.get("nullable").and_then(Value::as_bool).unwrap_or(true);
                            let dt = json_type(f.get("type").ok_or_else(bad)?, time_zone)?;
                            let field = Field::new(name, dt, nullable);
                            Ok(
                                match f
                                    .get("metadata")
                                    .and_then(|m| m.get(COMMENT_KEY))
                                    .and_then(Value::as_str)
                                {
                                    Some(c) => with_comment(field, c),
                                    None => field,
                                },
                            )
                        })
                        .collect::<PlanResult<Vec<_>>>()?;
                    Ok(DataType::Struct(Fields::from(fields)))
                }
                "array" => {
                    let element = json_type(o.get("elementType").ok_or_else(bad)?, time_zone)?;
                    let contains_null = o
                        .get("containsNull")
                        .and_then(Value::as_bool)
                        .unwrap_or(true);
                    Ok(list_type(element, contains_null))
                }
                "map" => {
                    let key = json_type(o.get("keyType").ok_or_else(bad)?, time_zone)?;
                    let value = json_type(o.get("valueType").ok_or_else(bad)?, time_zone)?;
                    let vcn = o
                        .get("valueContainsNull")
                        .and_then(Value::as_bool)
                        .unwrap_or(true);
                    Ok(map_type(key, value, vcn))
                }
                "udt" => match o.get("sqlType") {
                    Some(t) => json_type(t, time_zone),
                    None => Err(bad()),
                },
                other => Err(PlanError::Unsupported(format!("JSON data type {other}"))),
            }
        }
        _ => Err(bad()),
    }
}

struct TypeParser<'a> {
    text: &'a str,
    pos: usize,
    time_zone: &'a str,
}

impl<'a> TypeParser<'a> {
    fn new(text: &'a str, time_zone: &'a str) -> Self {
        Self {
            text,
            pos: 0,
            time_zone,
        }
    }

    fn error(&self) -> PlanError {
        let rest = &self.text[self.pos.min(self.text.len())..];
        let near = rest.split_whitespace().next().unwrap_or("end of input");
        SparkError::parse_syntax(&format!("'{near}'"), "").into()
    }

    fn skip_ws(&mut self) {
        while let Some(c) = self.text[self.pos..].chars().next() {
            if c.is_whitespace() {
                self.pos += c.len_utf8();
            } else {
                break;
            }
        }
    }

    fn peek(&mut self) -> Option<char> {
        self.skip_ws();
        self.text[self.pos..].chars().next()
    }

    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.pos += c.len_utf8();
            true
        } else {
            false
        }
    }

    fn expect(&mut self, c: char) -> PlanResult<()> {
        if self.eat(c) {
            Ok(())
        } else {
            Err(self.error())
        }
    }

    fn expect_end(&mut self) -> PlanResult<()> {
        if self.peek().is_none() {
            Ok(())
        } else {
            Err(self.error())
        }
    }

    /// An identifier (letters, digits, `_`) or a backquoted name.
    fn ident(&mut self) -> PlanResult<String> {
        self.skip_ws();
        let rest = &self.text[self.pos..];
        if let Some(stripped) = rest.strip_prefix('`') {
            let mut out = String::new();
            let mut chars = stripped.char_indices();
            while let Some((i, c)) = chars.next() {
                if c == '`' {
                    if stripped[i + 1..].starts_with('`') {
                        out.push('`');
                        chars.next();
                    } else {
                        self.pos += 1 + i + 1;
                        return Ok(out);
                    }
                } else {
                    out.push(c);
                }
            }
            return Err(self.error());
        }
        let len = rest
            .char_indices()
            .find(|(_, c)| !(c.is_alphanumeric() || *c == '_'))
            .map(|(i, _)| i)
            .unwrap_or(rest.len());
        if len == 0 {
            return Err(self.error());
        }
        self.pos += len;
        Ok(rest[..len].to_string())
    }

    fn keyword(&mut self, kw: &str) -> bool {
        self.skip_ws();
        let rest = &self.text[self.pos..];
        // (`get`: the text may hold letters of several bytes where the keyword would end.)
        if rest
            .get(..kw.len())
            .is_some_and(|head| head.eq_ignore_ascii_case(kw))
            && !rest[kw.len()..]
                .chars()
                .next()
                .is_some_and(|c| c.is_alphanumeric() || c == '_')
        {
            self.pos += kw.len();
            true
        } else {
            false
        }
    }

    fn number(&mut self) -> PlanResult<i32> {
        self.skip_ws();
        let rest = &self.text[self.pos..];
        let len = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        let n = rest[..len].parse::<i32>().map_err(|_| self.error())?;
        self.pos += len;
        Ok(n)
    }

    /// Either a single type, or a comma-separated DDL field list.
    fn parse_type_or_fields(&mut self) -> PlanResult<DataType> {
        let start = self.pos;
        match self.parse_type() {
            Ok(dt) if self.peek().is_none() => return Ok(dt),
            // (A timestamp's precision Spark refuses, or Ember does not support.)
            Err(e @ PlanError::Unsupported(_)) => return Err(e),
            Err(PlanError::Spark(e)) if e.error_class == "INVALID_TIMESTAMP_PRECISION" => {
                return Err(PlanError::Spark(e));
            }
            _ => {}
        }
        self.pos = start;
        Ok(DataType::Struct(self.parse_fields(None)?))
    }

    /// `name [:] type [NOT NULL] [COMMENT '...'], ...` until `close` (or end of input).
    fn parse_fields(&mut self, close: Option<char>) -> PlanResult<Fields> {
        let mut fields = Vec::new();
        loop {
            if let Some(c) = close {
                if self.peek() == Some(c) {
                    break;
                }
            } else if self.peek().is_none() {
                break;
            }
            let name = self.ident()?;
            self.eat(':');
            let dt = self.parse_type()?;
            let mut nullable = true;
            let mut comment = None;
            loop {
                if self.keyword("NOT") {
                    if !self.keyword("NULL") {
                        return Err(self.error());
                    }
                    nullable = false;
                } else if self.keyword("COMMENT") {
                    comment = Some(self.string()?);
                } else {
                    break;
                }
            }
            let field = Field::new(name, dt, nullable);
            fields.push(match comment {
                Some(c) => with_comment(field, &c),
                None => field,
            });
            if !self.eat(',') {
                break;
            }
        }
        Ok(Fields::from(fields))
    }

    /// A quoted string literal, with backslash escapes as Spark reads them.
    fn string(&mut self) -> PlanResult<String> {
        self.skip_ws();
        let rest = &self.text[self.pos..];
        let quote = rest.chars().next().ok_or_else(|| self.error())?;
        if quote != '\'' && quote != '"' {
            return Err(self.error());
        }
        let mut out = String::new();
        let mut escaped = false;
        for (i, c) in rest.char_indices().skip(1) {
            if escaped {
                out.push(match c {
                    'n' => '\n',
                    't' => '\t',
                    'r' => '\r',
                    '0' => '\0',
                    other => other,
                });
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == quote {
                self.pos += i + 1;
                return Ok(out);
            } else {
                out.push(c);
            }
        }
        Err(self.error())
    }

    fn parse_type(&mut self) -> PlanResult<DataType> {
        let name = self.ident()?.to_ascii_lowercase();
        let dt = match name.as_str() {
            "boolean" | "bool" => DataType::Boolean,
            "tinyint" | "byte" => DataType::Int8,
            "smallint" | "short" => DataType::Int16,
            "int" | "integer" => DataType::Int32,
            "bigint" | "long" => DataType::Int64,
            "float" | "real" => DataType::Float32,
            "double" => DataType::Float64,
            "date" => DataType::Date32,
            "timestamp" | "timestamp_ltz" | "timestamp_ntz" => {
                let zone = (name != "timestamp_ntz").then(|| Arc::from(self.time_zone));
                let unit = if self.eat('(') {
                    let precision = self.number()?;
                    self.expect(')')?;
                    timestamp_unit(&name, precision)?
                } else {
                    TimeUnit::Microsecond
                };
                DataType::Timestamp(unit, zone)
            }
            "binary" => DataType::Binary,
            "variant" => variant_type(),
            "time" => {
                if self.eat('(') {
                    self.number()?;
                    self.expect(')')?;
                }
                DataType::Time64(TimeUnit::Microsecond)
            }
            "void" | "null" => DataType::Null,
            "string" => DataType::Utf8,
            "char" | "varchar" | "character" => {
                if self.eat('(') {
                    self.number()?;
                    self.expect(')')?;
                }
                DataType::Utf8
            }
            "decimal" | "dec" | "numeric" => {
                if self.eat('(') {
                    let p = self.number()?;
                    let s = if self.eat(',') { self.number()? } else { 0 };
                    self.expect(')')?;
                    decimal_type(p, s)?
                } else {
                    DataType::Decimal128(10, 0)
                }
            }
            "array" => {
                self.expect('<')?;
                let element = self.parse_type()?;
                self.expect('>')?;
                list_type(element, true)
            }
            "map" => {
                self.expect('<')?;
                let key = self.parse_type()?;
                self.expect(',')?;
                let value = self.parse_type()?;
                self.expect('>')?;
                map_type(key, value, true)
            }
            "struct" => {
                self.expect('<')?;
                let fields = self.parse_fields(Some('>'))?;
                self.expect('>')?;
                DataType::Struct(fields)
            }
            "interval" => self.parse_interval()?,
            _ => {
                return Err(SparkError::new(
                    crate::error::ErrorKind::Parse,
                    "UNSUPPORTED_DATATYPE",
                    "0A000",
                    format!("Unsupported data type \"{}\".", name.to_uppercase()),
                    vec![("typeName", format!("\"{}\"", name.to_uppercase()))],
                )
                .into());
            }
        };
        Ok(dt)
    }

    fn parse_interval(&mut self) -> PlanResult<DataType> {
        const YM: [&str; 2] = ["YEAR", "MONTH"];
        const DT: [&str; 4] = ["DAY", "HOUR", "MINUTE", "SECOND"];
        let start = self.pos;
        for f in YM {
            if self.keyword(f) {
                if self.keyword("TO") && !YM.iter().any(|g| self.keyword(g)) {
                    return Err(self.error());
                }
                return Ok(DataType::Interval(IntervalUnit::YearMonth));
            }
        }
        for f in DT {
            if self.keyword(f) {
                if self.keyword("TO") && !DT.iter().any(|g| self.keyword(g)) {
                    return Err(self.error());
                }
                return Ok(DataType::Duration(TimeUnit::Microsecond));
            }
        }
        self.pos = start;
        Ok(DataType::Interval(IntervalUnit::MonthDayNano))
    }
}

/// The unit of `TIMESTAMP(p)`, `TIMESTAMP_LTZ(p)` or `TIMESTAMP_NTZ(p)`: 6 is the standard
/// microsecond type, 9 Spark 4.3's nanosecond type (Arrow nanoseconds); 7 and 8, which Spark
/// also has, are not supported; anything else is Spark's INVALID_TIMESTAMP_PRECISION.
fn timestamp_unit(name: &str, precision: i32) -> PlanResult<TimeUnit> {
    let shown = if name == "timestamp_ntz" {
        "TIMESTAMP_NTZ"
    } else {
        "TIMESTAMP_LTZ"
    };
    match precision {
        6 => Ok(TimeUnit::Microsecond),
        9 => Ok(TimeUnit::Nanosecond),
        7 | 8 => Err(PlanError::Unsupported(format!(
            "{shown}({precision}) (nanosecond timestamps of precision 9 are)"
        ))),
        _ => Err(SparkError::new(
            crate::error::ErrorKind::Spark,
            "INVALID_TIMESTAMP_PRECISION",
            "22023",
            format!(
                "The seconds precision {precision} of {shown} is invalid. Expected an integer in [7, 9] for nanosecond precision; use precision 6 or parameterless {shown} for the standard microsecond type."
            ),
            vec![("precision", precision.to_string()), ("type", shown.into())],
        )
        .into()),
    }
}
