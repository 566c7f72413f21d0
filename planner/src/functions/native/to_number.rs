//! Spark's number formats (`999`, `0999.99`, `9,999`, `$99.99`, `S99`, `99MI`, `99PR`): the
//! format read into tokens and checked as Spark checks it (INVALID_FORMAT.*), and
//! `to_number(text, format)` / `try_to_number` reading text with it into `DECIMAL(digits,
//! fraction digits)`. Text that does not match fails with INVALID_FORMAT.MISMATCH_INPUT, or is
//! NULL. `to_char` writes numbers with the same tokens (see `to_char.rs`).

use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, Decimal128Builder};
use arrow::datatypes::DataType;
use datafusion::common::{DataFusionError, Result};
use serde::{Deserialize, Serialize};

use super::strings;
use crate::error::{ErrorKind, PlanError, SparkError};

/// A parsed number format: its tokens, left to right.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct NumberPattern {
    /// The format in upper case, as Spark shows it in errors.
    pub(super) text: String,
    pub(super) tokens: Vec<Token>,
}

/// A digit run or a thousands separator of a [`Token::Group`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub(super) enum Part {
    /// `count` digits; `exact`: the run starts with `0` before the decimal point, so text
    /// must have exactly as many digits and numbers are written with leading zeros.
    Digits {
        count: usize,
        exact: bool,
    },
    Separator,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub(super) enum Token {
    /// Consecutive digit runs and thousands separators (`,` or `G`).
    Group(Vec<Part>),
    /// `.` or `D`.
    Point,
    Dollar,
    /// `S`: `+` or `-`.
    Sign,
    /// `MI`: `-` or nothing.
    Minus,
    /// `PR`: `<` before the number, `>` after it.
    Open,
    Close,
    Other(char),
}

impl Token {
    /// How Spark names the token in INVALID_FORMAT messages.
    fn describe(&self) -> String {
        match self {
            Token::Group(_) => "digit sequence".into(),
            Token::Point => ". or D".into(),
            Token::Dollar => "$".into(),
            Token::Sign => "S".into(),
            Token::Minus => "MI".into(),
            Token::Open | Token::Close => "PR".into(),
            Token::Other(c) => format!("character '{c}''"),
        }
    }
}

fn invalid_format(format: &str, sub: &str, reason: &str) -> PlanError {
    SparkError::new(
        ErrorKind::Analysis,
        &format!("INVALID_FORMAT.{sub}"),
        "42601",
        format!("The format is invalid: '{format}'. {reason}"),
        vec![("format", format!("'{format}'"))],
    )
    .into()
}

/// The tokens of an upper-case format, digit runs and separators grouped.
fn tokenize(format: &str) -> Vec<Token> {
    enum Raw {
        Part(Part),
        Token(Token),
    }
    let chars: Vec<char> = format.chars().collect();
    let mut raw = Vec::new();
    let mut point = false;
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        let next = chars.get(i + 1).copied();
        i += 1;
        let token = match c {
            '0' | '9' => {
                let start = i - 1;
                while matches!(chars.get(i), Some('0' | '9')) {
                    i += 1;
                }
                let exact = c == '0' && !point;
                raw.push(Raw::Part(Part::Digits {
                    count: i - start,
                    exact,
                }));
                continue;
            }
            ',' | 'G' => {
                raw.push(Raw::Part(Part::Separator));
                continue;
            }
            '.' | 'D' => {
                point = true;
                Token::Point
            }
            '$' => Token::Dollar,
            'S' => Token::Sign,
            'M' if next == Some('I') => {
                i += 1;
                Token::Minus
            }
            'P' if next == Some('R') => {
                i += 1;
                raw.insert(0, Raw::Token(Token::Open));
                Token::Close
            }
            c => Token::Other(c),
        };
        raw.push(Raw::Token(token));
    }
    let mut tokens = Vec::new();
    let mut group = Vec::new();
    for r in raw {
        match r {
            Raw::Part(p) => group.push(p),
            Raw::Token(t) => {
                if !group.is_empty() {
                    tokens.push(Token::Group(std::mem::take(&mut group)));
                }
                tokens.push(t);
            }
        }
    }
    if !group.is_empty() {
        tokens.push(Token::Group(group));
    }
    tokens
}

fn digit_count(parts: &[Part]) -> usize {
    parts
        .iter()
        .map(|p| match p {
            Part::Digits { count, .. } => *count,
            Part::Separator => 0,
        })
        .sum()
}

impl NumberPattern {
    /// A format for `to_number`: also its decimal type must exist.
    pub fn parse(format: &str) -> Result<Self, PlanError> {
        let pattern = Self::new(format)?;
        let precision = pattern.digits().0 + pattern.digits().1;
        if precision > 38 {
            return Err(SparkError::decimal_precision_exceeds_max(
                precision,
                ErrorKind::Arithmetic,
            )
            .into());
        }
        Ok(pattern)
    }

    /// A format, checked as Spark checks it.
    pub fn new(format: &str) -> Result<Self, PlanError> {
        let text = format.to_uppercase();
        let tokens = tokenize(&text);
        let fail = |sub: &str, reason: &str| Err(invalid_format(&text, sub, reason));
        if text.is_empty() {
            return fail("EMPTY", "The number format string cannot be empty.");
        }
        let position = |f: &dyn Fn(&Token) -> bool| tokens.iter().position(f);
        let Some(first_digit) = position(&|t| matches!(t, Token::Group(_))) else {
            return fail(
                "WRONG_NUM_DIGIT",
                "The format string requires at least one number digit.",
            );
        };
        let dollar = position(&|t| *t == Token::Dollar);
        let point = position(&|t| *t == Token::Point);
        if dollar.is_some_and(|d| first_digit < d) {
            return fail(
                "CUR_MUST_BEFORE_DIGIT",
                "Currency characters must appear before digits in the number format.",
            );
        }
        if let (Some(p), Some(d)) = (point, dollar)
            && p < d
        {
            return fail(
                "CUR_MUST_BEFORE_DEC",
                "Currency characters must appear before any decimal point in the number format.",
            );
        }
        let groups = tokens.iter().enumerate().filter_map(|(i, t)| match t {
            Token::Group(parts) => Some((i, parts)),
            _ => None,
        });
        let is_separator = |p: Option<&Part>| matches!(p, Some(Part::Separator));
        for (i, parts) in groups {
            if point.is_none_or(|p| i < p) {
                let lone = parts.iter().enumerate().any(|(j, p)| {
                    *p == Part::Separator
                        && (j == 0
                            || j + 1 == parts.len()
                            || is_separator(parts.get(j - 1))
                            || is_separator(parts.get(j + 1)))
                });
                if lone {
                    return fail(
                        "CONT_THOUSANDS_SEPS",
                        "Thousands separators (, or G) must have digits in between them in the number format.",
                    );
                }
            } else if point.is_some_and(|p| i > p) && parts.contains(&Part::Separator) {
                return fail(
                    "THOUSANDS_SEPS_MUST_BEFORE_DEC",
                    "Thousands separators (, or G) may not appear after the decimal point in the number format.",
                );
            }
        }
        for once in [
            Token::Point,
            Token::Sign,
            Token::Minus,
            Token::Dollar,
            Token::Close,
        ] {
            if tokens.iter().filter(|t| **t == once).count() > 1 {
                let reason = format!(
                    "At most one {} is allowed in the number format.",
                    once.describe()
                );
                return fail("WRONG_NUM_TOKEN", &reason);
            }
        }
        // [PR] [MI|S] [$] digits [.] digits [$] [PR|MI|S], each optional, in this order.
        let order: [&dyn Fn(&Token) -> bool; 8] = [
            &|t| *t == Token::Open,
            &|t| matches!(t, Token::Minus | Token::Sign),
            &|t| *t == Token::Dollar,
            &|t| matches!(t, Token::Group(_)),
            &|t| *t == Token::Point,
            &|t| matches!(t, Token::Group(_)),
            &|t| *t == Token::Dollar,
            &|t| matches!(t, Token::Minus | Token::Sign | Token::Close),
        ];
        let mut next = 0;
        for allowed in order {
            if tokens.get(next).is_some_and(allowed) {
                next += 1;
            }
        }
        if let Some(t) = tokens.get(next) {
            let reason = format!(
                "Found the unexpected {} in the format string; the structure of the format string must match: `[MI|S]` `[$]` `[0|9|G|,]*` `[.|D]` `[0|9]*` `[$]` `[PR|MI|S]`.",
                t.describe()
            );
            return fail("UNEXPECTED_TOKEN", &reason);
        }
        Ok(Self { text, tokens })
    }

    /// Digits before and after the decimal point.
    pub(super) fn digits(&self) -> (usize, usize) {
        let mut point = false;
        let (mut before, mut after) = (0, 0);
        for t in &self.tokens {
            match t {
                Token::Point => point = true,
                Token::Group(parts) if point => after += digit_count(parts),
                Token::Group(parts) => before += digit_count(parts),
                _ => {}
            }
        }
        (before, after)
    }

    pub fn data_type(&self) -> DataType {
        let (before, after) = self.digits();
        DataType::Decimal128((before + after) as u8, after as i8)
    }

    /// The unscaled value of `text`, if it matches.
    fn read(&self, text: &str) -> Option<i128> {
        let input: Vec<char> = text.chars().collect();
        let (mut before, mut after) = (String::new(), String::new());
        let (mut point, mut open, mut close, mut negative) = (false, false, false, false);
        let mut i = 0;
        for token in &self.tokens {
            let c = input.get(i).copied();
            match token {
                Token::Group(parts) => {
                    let digits = if point { &mut after } else { &mut before };
                    i = read_group(parts, &input, i, digits)?;
                }
                Token::Point if c == Some('.') => {
                    point = true;
                    i += 1;
                }
                Token::Dollar => match c {
                    Some('$') => i += 1,
                    Some(_) => return None,
                    None => {}
                },
                Token::Sign | Token::Minus if c == Some('-') => {
                    negative = !negative;
                    i += 1;
                }
                Token::Sign if c == Some('+') => i += 1,
                Token::Open if c == Some('<') => {
                    if open {
                        return None;
                    }
                    open = true;
                    i += 1;
                }
                Token::Close if c == Some('>') => {
                    if !open {
                        return None;
                    }
                    close = true;
                    negative = !negative;
                    i += 1;
                }
                _ => {}
            }
        }
        if i < input.len() || open != close || (before.is_empty() && after.is_empty()) {
            return None;
        }
        let scale = self.digits().1;
        let mut value: i128 = 0;
        for b in before.bytes().chain(after.bytes()) {
            value = value.checked_mul(10)?.checked_add(i128::from(b - b'0'))?;
        }
        let pad = u32::try_from(scale.checked_sub(after.len())?).ok()?;
        value = value.checked_mul(10i128.checked_pow(pad)?)?;
        Some(if negative { -value } else { value })
    }
}

/// Whitespace as Java's `Character.isWhitespace` sees it.
fn java_whitespace(c: char) -> bool {
    match c {
        '\t'..='\r' | '\u{1C}'..='\u{1F}' | ' ' => true,
        '\u{85}' | '\u{A0}' | '\u{2007}' | '\u{202F}' => false,
        c => c.is_whitespace(),
    }
}

/// Reads the digits, separators and spaces of a digit group from `start`; the group sizes
/// must fit the format's runs, aligned from the right. The index after the group.
fn read_group(parts: &[Part], input: &[char], start: usize, digits: &mut String) -> Option<usize> {
    let mut sizes = Vec::new();
    let mut current = 0;
    let mut i = start;
    while let Some(&c) = input.get(i) {
        if c.is_ascii_digit() {
            current += 1;
            digits.push(c);
        } else if c == ',' {
            sizes.push(current);
            current = 0;
        } else if !java_whitespace(c) {
            break;
        }
        i += 1;
    }
    sizes.push(current);
    let runs: Vec<(usize, bool)> = parts
        .iter()
        .filter_map(|p| match p {
            Part::Digits { count, exact } => Some((*count, *exact)),
            Part::Separator => None,
        })
        .collect();
    if sizes.len() > runs.len() {
        return None;
    }
    let fits = runs.iter().rev().enumerate().all(|(k, (count, exact))| {
        let actual = sizes.len().checked_sub(k + 1).map_or(0, |j| sizes[j]);
        if *exact {
            actual == *count
        } else {
            actual <= *count
        }
    });
    fits.then_some(i)
}

pub(super) fn to_number(
    arrays: &[ArrayRef],
    pattern: &NumberPattern,
    fail: bool,
) -> Result<ArrayRef> {
    let text = strings(arrays, 0)?;
    let text = text.as_string::<i32>();
    let mut out = Decimal128Builder::with_capacity(text.len());
    for i in 0..text.len() {
        if text.is_null(i) {
            out.append_null();
            continue;
        }
        match pattern.read(text.value(i)) {
            Some(v) => out.append_value(v),
            None if fail => {
                return Err(mismatch(&pattern.text, text.value(i)));
            }
            None => out.append_null(),
        }
    }
    Ok(Arc::new(out.finish().with_data_type(pattern.data_type())))
}

fn mismatch(format: &str, text: &str) -> DataFusionError {
    crate::error::to_datafusion(SparkError::new(
        ErrorKind::IllegalArgument,
        "INVALID_FORMAT.MISMATCH_INPUT",
        "42601",
        format!(
            "The format is invalid: {format}. The input \"STRING\" {text} does not match the format."
        ),
        vec![],
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(format: &str, text: &str) -> Option<i128> {
        NumberPattern::parse(format).unwrap().read(text)
    }

    fn error_class(format: &str) -> String {
        match NumberPattern::parse(format) {
            Err(PlanError::Spark(e)) => e.error_class.clone(),
            other => format!("{other:?}"),
        }
    }

    #[test]
    fn spark_number_formats() {
        assert_eq!(read("999", "454"), Some(454));
        assert_eq!(read("000.00", "454.00"), Some(45400));
        assert_eq!(read("99,999", "12,454"), Some(12454));
        assert_eq!(read("$99.99", "$78.12"), Some(7812));
        assert_eq!(read("$99.99", "78.12"), None);
        assert_eq!(read("S99", "-12"), Some(-12));
        assert_eq!(read("99MI", "12-"), Some(-12));
        assert_eq!(read("99PR", "<12>"), Some(-12));
        assert_eq!(read("99PR", "<12"), None);
        assert_eq!(read("0999", "12"), None);
        assert_eq!(read("9909", "12"), Some(12));
        assert_eq!(read("9,999", "1234"), None);
        assert_eq!(read("9,999", "234"), Some(234));
        assert_eq!(read("0,999", "234"), None);
        assert_eq!(read("0,999", "1,234"), Some(1234));
        assert_eq!(read("9.9", ".5"), Some(5));
        assert_eq!(read("99.99", "12."), Some(1200));
        assert_eq!(read("999", "1234"), None);
        assert_eq!(read("999", " 1 2 "), Some(12));
        assert_eq!(read("S$99", "-5"), None);
        assert_eq!(read("$9", "$"), None);
    }

    #[test]
    fn format_errors_as_spark() {
        assert_eq!(error_class(""), "INVALID_FORMAT.EMPTY");
        assert_eq!(error_class("xyz"), "INVALID_FORMAT.WRONG_NUM_DIGIT");
        assert_eq!(error_class("99.99.9"), "INVALID_FORMAT.WRONG_NUM_TOKEN");
        assert_eq!(error_class("99$"), "INVALID_FORMAT.CUR_MUST_BEFORE_DIGIT");
        assert_eq!(error_class(".$9"), "INVALID_FORMAT.CUR_MUST_BEFORE_DEC");
        assert_eq!(error_class(",99"), "INVALID_FORMAT.CONT_THOUSANDS_SEPS");
        assert_eq!(error_class("9,,9"), "INVALID_FORMAT.CONT_THOUSANDS_SEPS");
        assert_eq!(
            error_class("9.9,9"),
            "INVALID_FORMAT.THOUSANDS_SEPS_MUST_BEFORE_DEC"
        );
        assert_eq!(error_class("9S9"), "INVALID_FORMAT.UNEXPECTED_TOKEN");
        assert_eq!(error_class("9 9"), "INVALID_FORMAT.UNEXPECTED_TOKEN");
        assert_eq!(error_class("PR9"), "INVALID_FORMAT.UNEXPECTED_TOKEN");
        assert_eq!(error_class("9PRPR"), "INVALID_FORMAT.WRONG_NUM_TOKEN");
        assert_eq!(error_class("ß9"), "INVALID_FORMAT.WRONG_NUM_TOKEN");
        assert_eq!(
            error_class(&"9".repeat(40)),
            "DECIMAL_PRECISION_EXCEEDS_MAX_PRECISION"
        );
        assert!(NumberPattern::new(&"9".repeat(40)).is_ok());
        assert!(NumberPattern::new("S$9,999.99MI").is_ok());
        assert!(NumberPattern::new("$S9").is_err());
        assert!(NumberPattern::new("S$9,999.99").is_ok());
        assert!(NumberPattern::new("$9,999.99PR").is_ok());
    }
}
