//! Regular-expression string functions with Java's semantics (`split` keeps trailing empty
//! strings, `regexp_extract` gives `""` without a match), and Spark's `initcap`.

use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, Int32Builder, ListBuilder, StringBuilder};
use datafusion::common::{Result, internal_err};
use regex::Regex;

use super::{integers, is_null_at, strings};
use crate::error::{ErrorKind, SparkError, to_datafusion};

/// Compiles each row's pattern, reusing the last one (patterns are nearly always literals).
struct Patterns {
    last: Option<(String, Regex)>,
}

impl Patterns {
    fn new() -> Self {
        Self { last: None }
    }

    fn get(&mut self, pattern: &str) -> Result<&Regex> {
        let fresh = !matches!(&self.last, Some((p, _)) if p == pattern);
        if fresh {
            let re = Regex::new(pattern).map_err(|e| {
                to_datafusion(SparkError::new(
                    ErrorKind::Runtime,
                    "INVALID_PARAMETER_VALUE.PATTERN",
                    "22023",
                    format!(
                        "The value of parameter(s) `regexp` in `regexp_extract` is invalid: '{pattern}' ({e})."
                    ),
                    vec![("parameter", "`regexp`".into()), ("value", pattern.to_string())],
                ))
            })?;
            self.last = Some((pattern.to_string(), re));
        }
        match &self.last {
            Some((_, re)) => Ok(re),
            None => internal_err!("no pattern"),
        }
    }
}

fn group_index_error(index: i64, groups: usize) -> datafusion::error::DataFusionError {
    to_datafusion(SparkError::new(
        ErrorKind::Runtime,
        "INVALID_PARAMETER_VALUE.REGEX_GROUP_INDEX",
        "22023",
        format!(
            "The value of parameter(s) `idx` in `regexp_extract` is invalid: Expects group index between 0 and {groups}, but got {index}."
        ),
        vec![("parameter", "`idx`".into())],
    ))
}

/// `split(str, regex[, limit])`: limit > 0 keeps at most `limit` parts (the last holds the
/// rest); otherwise every part, trailing empty strings included.
pub(super) fn split(arrays: &[ArrayRef]) -> Result<ArrayRef> {
    let text = strings(arrays, 0)?;
    let pats = strings(arrays, 1)?;
    let (text, pats) = (text.as_string::<i32>(), pats.as_string::<i32>());
    let limits = if arrays.len() > 2 {
        Some(integers(arrays, 2)?)
    } else {
        None
    };
    let limits = limits
        .as_ref()
        .map(|l| l.as_primitive::<arrow::datatypes::Int64Type>());
    let mut patterns = Patterns::new();
    let mut out = ListBuilder::new(StringBuilder::new());
    for i in 0..text.len() {
        if is_null_at(arrays, i) {
            out.append_null();
            continue;
        }
        let s = text.value(i);
        let limit = limits.map_or(-1, |l| l.value(i));
        let pattern = pats.value(i);
        if pattern.is_empty() {
            // Every character on its own (the rest in the last part under a limit).
            let chars: Vec<&str> = s
                .char_indices()
                .map(|(at, c)| &s[at..at + c.len_utf8()])
                .collect();
            let keep = if limit > 0 {
                (limit as usize).min(chars.len())
            } else {
                chars.len()
            };
            for (n, c) in chars.iter().enumerate().take(keep) {
                if n + 1 == keep && limit > 0 {
                    let start = s.len() - chars[n..].iter().map(|c| c.len()).sum::<usize>();
                    out.values().append_value(&s[start..]);
                } else {
                    out.values().append_value(c);
                }
            }
            if chars.is_empty() {
                out.values().append_value("");
            }
            out.append(true);
            continue;
        }
        let re = patterns.get(pattern)?;
        if limit > 0 {
            for part in re.splitn(s, limit as usize) {
                out.values().append_value(part);
            }
        } else {
            for part in re.split(s) {
                out.values().append_value(part);
            }
        }
        out.append(true);
    }
    Ok(Arc::new(out.finish()))
}

/// `regexp_extract(str, regex, idx)` (`""` without a match) or `regexp_extract_all`
/// (the group of every match).
pub(super) fn extract(arrays: &[ArrayRef], all: bool) -> Result<ArrayRef> {
    let text = strings(arrays, 0)?;
    let pats = strings(arrays, 1)?;
    let (text, pats) = (text.as_string::<i32>(), pats.as_string::<i32>());
    let groups = if arrays.len() > 2 {
        Some(integers(arrays, 2)?)
    } else {
        None
    };
    let groups = groups
        .as_ref()
        .map(|g| g.as_primitive::<arrow::datatypes::Int64Type>());
    let mut patterns = Patterns::new();
    let mut one = StringBuilder::new();
    let mut many = ListBuilder::new(StringBuilder::new());
    for i in 0..text.len() {
        if is_null_at(arrays, i) {
            if all {
                many.append_null();
            } else {
                one.append_null();
            }
            continue;
        }
        let re = patterns.get(pats.value(i))?;
        let index = groups.map_or(1, |g| g.value(i));
        let count = re.captures_len() - 1;
        if index < 0 || index as usize > count {
            return Err(group_index_error(index, count));
        }
        let group = index as usize;
        if all {
            for caps in re.captures_iter(text.value(i)) {
                many.values()
                    .append_value(caps.get(group).map_or("", |m| m.as_str()));
            }
            many.append(true);
        } else {
            let found = re
                .captures(text.value(i))
                .and_then(|c| c.get(group).map(|m| m.as_str().to_string()));
            one.append_value(found.unwrap_or_default());
        }
    }
    Ok(if all {
        Arc::new(many.finish())
    } else {
        Arc::new(one.finish())
    })
}

pub(super) fn substr(arrays: &[ArrayRef]) -> Result<ArrayRef> {
    let text = strings(arrays, 0)?;
    let pats = strings(arrays, 1)?;
    let (text, pats) = (text.as_string::<i32>(), pats.as_string::<i32>());
    let mut patterns = Patterns::new();
    let mut out = StringBuilder::new();
    for i in 0..text.len() {
        if is_null_at(arrays, i) {
            out.append_null();
            continue;
        }
        match patterns.get(pats.value(i))?.find(text.value(i)) {
            Some(m) => out.append_value(m.as_str()),
            None => out.append_null(),
        }
    }
    Ok(Arc::new(out.finish()))
}

pub(super) fn instr(arrays: &[ArrayRef]) -> Result<ArrayRef> {
    let text = strings(arrays, 0)?;
    let pats = strings(arrays, 1)?;
    let (text, pats) = (text.as_string::<i32>(), pats.as_string::<i32>());
    let mut patterns = Patterns::new();
    let mut out = Int32Builder::new();
    for i in 0..text.len() {
        if is_null_at(arrays, i) {
            out.append_null();
            continue;
        }
        let s = text.value(i);
        match patterns.get(pats.value(i))?.find(s) {
            // 1-based, in characters.
            Some(m) => out.append_value(s[..m.start()].chars().count() as i32 + 1),
            None => out.append_value(0),
        }
    }
    Ok(Arc::new(out.finish()))
}

/// Spark's `initcap`: the first letter after each space upper case, the others lower case.
pub(super) fn initcap(arrays: &[ArrayRef]) -> Result<ArrayRef> {
    let text = strings(arrays, 0)?;
    let text = text.as_string::<i32>();
    let mut out = StringBuilder::with_capacity(text.len(), text.value_data().len());
    for i in 0..text.len() {
        if text.is_null(i) {
            out.append_null();
            continue;
        }
        let mut word_start = true;
        let mut s = String::with_capacity(text.value(i).len());
        for c in text.value(i).chars() {
            if word_start {
                s.extend(c.to_uppercase());
            } else {
                s.extend(c.to_lowercase());
            }
            word_start = c == ' ';
        }
        out.append_value(s);
    }
    Ok(Arc::new(out.finish()))
}

/// `mask(str, upper, lower, digit, other)`: letters and digits replaced by the given
/// characters (a NULL replacement keeps the character).
pub(super) fn mask(arrays: &[ArrayRef]) -> Result<ArrayRef> {
    let text = strings(arrays, 0)?;
    let text = text.as_string::<i32>();
    let replacements = (1..5)
        .map(|i| {
            if i < arrays.len() {
                strings(arrays, i).map(Some)
            } else {
                Ok(None)
            }
        })
        .collect::<Result<Vec<_>>>()?;
    let defaults = [Some('X'), Some('x'), Some('n'), None];
    let mut out = StringBuilder::new();
    for i in 0..text.len() {
        if text.is_null(i) {
            out.append_null();
            continue;
        }
        let pick = |k: usize| -> Option<char> {
            match &replacements[k] {
                Some(a) if a.is_null(i) => None,
                Some(a) => a.as_string::<i32>().value(i).chars().next(),
                None => defaults[k],
            }
        };
        let (upper, lower, digit, other) = (pick(0), pick(1), pick(2), pick(3));
        let masked: String = text
            .value(i)
            .chars()
            .map(|c| {
                let r = if c.is_uppercase() {
                    upper
                } else if c.is_lowercase() {
                    lower
                } else if c.is_ascii_digit() {
                    digit
                } else {
                    other
                };
                r.unwrap_or(c)
            })
            .collect();
        out.append_value(masked);
    }
    Ok(Arc::new(out.finish()))
}

/// The sentences of a text as Java's sentence iterator splits them (after `.`, `!` or `?`
/// and white space, a `.` only before a character that is not lower case).
fn split_sentences(text: &str) -> Vec<&str> {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut out = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i < chars.len() {
        let (_, c) = chars[i];
        if matches!(c, '.' | '!' | '?') {
            let mut j = i + 1;
            while j < chars.len() && matches!(chars[j].1, '.' | '!' | '?') {
                j += 1;
            }
            let mut k = j;
            while k < chars.len() && chars[k].1.is_whitespace() {
                k += 1;
            }
            let spaced = k > j || j == chars.len();
            let next_lower = chars.get(k).is_some_and(|(_, n)| n.is_lowercase());
            let terminal = chars[i..j].iter().any(|(_, t)| *t != '.');
            if spaced && (terminal || !next_lower) {
                let end = chars.get(k).map(|(b, _)| *b).unwrap_or(text.len());
                out.push(&text[start..end]);
                start = end;
                i = k;
                continue;
            }
            i = j;
            continue;
        }
        i += 1;
    }
    if start < text.len() {
        out.push(&text[start..]);
    }
    out
}

/// The words of a sentence: white-space separated, punctuation around them dropped (inner
/// punctuation kept: `a-b`, `c'd`, `2,5`), only those starting with a letter or digit.
fn sentence_words(sentence: &str) -> Vec<String> {
    sentence
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
        .filter(|w| w.chars().next().is_some_and(char::is_alphanumeric))
        .map(str::to_string)
        .collect()
}

/// `sentences(text)`: each sentence's words.
pub(super) fn sentences(arrays: &[ArrayRef]) -> Result<ArrayRef> {
    let text = strings(arrays, 0)?;
    let text = text.as_string::<i32>();
    let mut out = ListBuilder::new(ListBuilder::new(StringBuilder::new()));
    for i in 0..text.len() {
        if text.is_null(i) {
            out.append(false);
            continue;
        }
        for sentence in split_sentences(text.value(i)) {
            let words = sentence_words(sentence);
            if words.is_empty() {
                continue;
            }
            for w in words {
                out.values().values().append_value(w);
            }
            out.values().append(true);
        }
        out.append(true);
    }
    Ok(Arc::new(out.finish()))
}

#[cfg(test)]
mod sentence_tests {
    use super::*;

    #[test]
    fn sentences_split_as_java() {
        let words = |t: &str| -> Vec<Vec<String>> {
            split_sentences(t)
                .into_iter()
                .map(sentence_words)
                .filter(|w| !w.is_empty())
                .collect()
        };
        assert_eq!(
            words("Hi there! How are you? I am fine."),
            vec![
                vec!["Hi", "there"],
                vec!["How", "are", "you"],
                vec!["I", "am", "fine"]
            ]
        );
        assert_eq!(
            words("  a-b c'd e.f  g1 2,5 "),
            vec![vec!["a-b", "c'd", "e.f", "g1", "2,5"]]
        );
        assert!(words("").is_empty());
    }
}
