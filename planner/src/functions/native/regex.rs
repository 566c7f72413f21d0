//! Regular-expression string functions with Java's semantics (patterns are Java's, see
//! `functions::java_regex`; `split` keeps trailing empty strings, `regexp_extract` gives `""`
//! without a match, `regexp_replace` takes Java's replacement strings), and Spark's
//! `initcap`.

use std::sync::Arc;

use arrow::array::{
    Array, ArrayRef, AsArray, BooleanBuilder, Int32Builder, ListBuilder, StringBuilder,
};
use datafusion::common::{Result, internal_err};

use super::{integers, is_null_at, strings};
use crate::error::{ErrorKind, SparkError, to_datafusion};
use crate::functions::java_regex::JavaRegexError;
use crate::functions::java_regex::matcher::JavaRegex;

/// A Java pattern that does not compile, as Spark reports it for `function` (`split` raises
/// Java's own exception).
pub(crate) fn pattern_error(
    function: &str,
    pattern: &str,
    e: &JavaRegexError,
) -> datafusion::error::DataFusionError {
    let error = match e {
        JavaRegexError::Unsupported(what) => {
            SparkError::unsupported(format!("{what} in the regular expression '{pattern}'"))
        }
        JavaRegexError::Syntax { .. } if function == "split" => SparkError::new(
            ErrorKind::IllegalArgument,
            "",
            "",
            format!("{e}\n{pattern}"),
            vec![],
        ),
        JavaRegexError::Syntax { .. } => SparkError::new(
            ErrorKind::Runtime,
            "INVALID_PARAMETER_VALUE.PATTERN",
            "22023",
            format!("The value of parameter(s) `regexp` in `{function}` is invalid: '{pattern}'."),
            vec![
                ("parameter", "`regexp`".into()),
                ("functionName", format!("`{function}`")),
                ("value", format!("'{pattern}'")),
            ],
        ),
    };
    to_datafusion(error)
}

/// Compiles each row's pattern, reusing the last one (patterns are nearly always literals);
/// errors name `function`.
pub(super) struct Patterns {
    function: &'static str,
    last: Option<(String, JavaRegex)>,
}

impl Patterns {
    pub(super) fn new(function: &'static str) -> Self {
        Self {
            function,
            last: None,
        }
    }

    fn get(&mut self, pattern: &str) -> Result<&JavaRegex> {
        let fresh = !matches!(&self.last, Some((p, _)) if p == pattern);
        if fresh {
            let re =
                JavaRegex::new(pattern).map_err(|e| pattern_error(self.function, pattern, &e))?;
            self.last = Some((pattern.to_string(), re));
        }
        match &self.last {
            Some((_, re)) => Ok(re),
            None => internal_err!("no pattern"),
        }
    }
}

fn group_index_error(
    function: &str,
    index: i64,
    groups: usize,
) -> datafusion::error::DataFusionError {
    to_datafusion(SparkError::new(
        ErrorKind::Runtime,
        "INVALID_PARAMETER_VALUE.REGEX_GROUP_INDEX",
        "22023",
        format!(
            "The value of parameter(s) `idx` in `{function}` is invalid: Expects group index between 0 and {groups}, but got {index}."
        ),
        vec![
            ("parameter", "`idx`".into()),
            ("functionName", format!("`{function}`")),
        ],
    ))
}

/// Spark's `UTF8String.split(pattern, limit)`: an empty pattern splits a non-empty text
/// into characters (at most `limit` parts when positive, the last holding the rest); else
/// Java's `String.split` (limit > 0 keeps at most `limit` parts, the last holding the rest;
/// otherwise every part, trailing empty strings included).
pub(super) fn spark_split<'t>(
    patterns: &mut Patterns,
    s: &'t str,
    pattern: &str,
    limit: i64,
) -> Result<Vec<&'t str>> {
    if s.is_empty() || !pattern.is_empty() {
        return Ok(patterns.get(pattern)?.split(s, limit));
    }
    let chars: Vec<(usize, char)> = s.char_indices().collect();
    let keep = if limit > 0 {
        (limit as usize).min(chars.len())
    } else {
        chars.len()
    };
    let mut out: Vec<&str> = chars[..keep - 1]
        .iter()
        .map(|(at, c)| &s[*at..at + c.len_utf8()])
        .collect();
    out.push(&s[chars[keep - 1].0..]);
    Ok(out)
}

/// `split(str, regex[, limit])` (see `spark_split`).
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
    let mut patterns = Patterns::new("split");
    let mut out = ListBuilder::new(StringBuilder::new());
    for i in 0..text.len() {
        if is_null_at(arrays, i) {
            out.append_null();
            continue;
        }
        let limit = limits.map_or(-1, |l| l.value(i));
        for part in spark_split(&mut patterns, text.value(i), pats.value(i), limit)? {
            out.values().append_value(part);
        }
        out.append(true);
    }
    Ok(Arc::new(out.finish()))
}

/// `regexp_extract(str, regex, idx)` (`""` without a match) or `regexp_extract_all`
/// (the group of every match; a group that took no part is `""`). The group index is
/// checked against the pattern once there is a match, as Spark does.
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
    let function = if all {
        "regexp_extract_all"
    } else {
        "regexp_extract"
    };
    let mut patterns = Patterns::new(function);
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
        let s = text.value(i);
        let group = |m: &[Option<(usize, usize)>]| -> Result<&str> {
            if index < 0 || index as usize > re.groups() {
                return Err(group_index_error(function, index, re.groups()));
            }
            Ok(m.get(index as usize)
                .copied()
                .flatten()
                .map_or("", |(a, b)| &s[a..b]))
        };
        if all {
            for m in re.find_all(s) {
                many.values().append_value(group(&m)?);
            }
            many.append(true);
        } else {
            match re.captures_at(s, 0) {
                Some(m) => one.append_value(group(&m)?),
                None => one.append_value(""),
            }
        }
    }
    Ok(if all {
        Arc::new(many.finish())
    } else {
        Arc::new(one.finish())
    })
}

/// The span of the first match of each row's pattern, `None` for NULL arguments.
fn first_matches<'a>(
    arrays: &'a [ArrayRef],
    text: &'a arrow::array::StringArray,
    pats: &'a arrow::array::StringArray,
    function: &'static str,
    mut each: impl FnMut(Option<(&'a str, Option<(usize, usize)>)>),
) -> Result<()> {
    let mut patterns = Patterns::new(function);
    for i in 0..text.len() {
        if is_null_at(arrays, i) {
            each(None);
            continue;
        }
        let s = text.value(i);
        let m = patterns.get(pats.value(i))?.captures_at(s, 0);
        each(Some((s, m.and_then(|m| m.first().copied().flatten()))));
    }
    Ok(())
}

/// `regexp_substr(str, regex)`: the first match, NULL without one or when it is empty
/// (Spark's `nullif(regexp_extract(str, regex, 0), '')`).
pub(super) fn substr(arrays: &[ArrayRef]) -> Result<ArrayRef> {
    let text = strings(arrays, 0)?;
    let pats = strings(arrays, 1)?;
    let (text, pats) = (text.as_string::<i32>(), pats.as_string::<i32>());
    let mut out = StringBuilder::new();
    first_matches(arrays, text, pats, "regexp_extract", |m| match m {
        Some((s, Some((a, b)))) if b > a => out.append_value(&s[a..b]),
        _ => out.append_null(),
    })?;
    Ok(Arc::new(out.finish()))
}

/// `regexp_instr(str, regex)`: the 1-based position (in characters) of the first match, 0
/// without one.
pub(super) fn instr(arrays: &[ArrayRef]) -> Result<ArrayRef> {
    let text = strings(arrays, 0)?;
    let pats = strings(arrays, 1)?;
    let (text, pats) = (text.as_string::<i32>(), pats.as_string::<i32>());
    let mut out = Int32Builder::new();
    first_matches(arrays, text, pats, "regexp_instr", |m| match m {
        Some((s, Some((a, _)))) => out.append_value(s[..a].chars().count() as i32 + 1),
        Some((_, None)) => out.append_value(0),
        None => out.append_null(),
    })?;
    Ok(Arc::new(out.finish()))
}

/// `rlike`/`regexp`/`regexp_like(str, regex)`: whether the pattern matches anywhere.
pub(super) fn like(arrays: &[ArrayRef], function: &str) -> Result<ArrayRef> {
    let text = strings(arrays, 0)?;
    let pats = strings(arrays, 1)?;
    let (text, pats) = (text.as_string::<i32>(), pats.as_string::<i32>());
    let function = match function {
        "regexp" => "regexp",
        "regexp_like" => "regexp_like",
        _ => "rlike",
    };
    let mut patterns = Patterns::new(function);
    let mut out = BooleanBuilder::with_capacity(text.len());
    for i in 0..text.len() {
        if is_null_at(arrays, i) {
            out.append_null();
            continue;
        }
        out.append_value(patterns.get(pats.value(i))?.is_match(text.value(i)));
    }
    Ok(Arc::new(out.finish()))
}

/// `regexp_count(str, regex)`: the number of matches (Spark's
/// `size(regexp_extract_all(str, regex, 0))`).
pub(super) fn count(arrays: &[ArrayRef]) -> Result<ArrayRef> {
    let text = strings(arrays, 0)?;
    let pats = strings(arrays, 1)?;
    let (text, pats) = (text.as_string::<i32>(), pats.as_string::<i32>());
    let mut patterns = Patterns::new("regexp_extract_all");
    let mut out = Int32Builder::with_capacity(text.len());
    for i in 0..text.len() {
        if is_null_at(arrays, i) {
            out.append_null();
            continue;
        }
        let n = patterns.get(pats.value(i))?.find_all(text.value(i)).len();
        out.append_value(n as i32);
    }
    Ok(Arc::new(out.finish()))
}

/// `regexp_replace(str, regex, replacement[, position])`: every match from the 1-based
/// `position` (in UTF-16 units, as Java's) on replaced as Java's `Matcher.replaceAll` does;
/// the text is unchanged when the position is past its end.
pub(super) fn replace(arrays: &[ArrayRef]) -> Result<ArrayRef> {
    let text = strings(arrays, 0)?;
    let pats = strings(arrays, 1)?;
    let reps = strings(arrays, 2)?;
    let (text, pats, reps) = (
        text.as_string::<i32>(),
        pats.as_string::<i32>(),
        reps.as_string::<i32>(),
    );
    let positions = if arrays.len() > 3 {
        Some(integers(arrays, 3)?)
    } else {
        None
    };
    let positions = positions
        .as_ref()
        .map(|p| p.as_primitive::<arrow::datatypes::Int64Type>());
    let mut patterns = Patterns::new("regexp_replace");
    let mut out = StringBuilder::with_capacity(text.len(), text.value_data().len());
    for i in 0..text.len() {
        if is_null_at(arrays, i) {
            out.append_null();
            continue;
        }
        let (s, pattern, replacement) = (text.value(i), pats.value(i), reps.value(i));
        let position = positions.map_or(1, |p| p.value(i));
        let re = patterns.get(pattern)?;
        let Some(from) = utf16_offset(s, position - 1) else {
            out.append_value(s);
            continue;
        };
        let replaced = re.replace_all(&s[from..], replacement).map_err(|_| {
            to_datafusion(SparkError::new(
                ErrorKind::Runtime,
                "INVALID_REGEXP_REPLACE",
                "22023",
                format!(
                    "Could not perform regexp_replace for source = \"{s}\", pattern = \"{pattern}\", replacement = \"{replacement}\" and position = {position}."
                ),
                vec![
                    ("source", s.to_string()),
                    ("pattern", pattern.to_string()),
                    ("replacement", replacement.to_string()),
                    ("position", position.to_string()),
                ],
            ))
        })?;
        out.append_value(format!("{}{replaced}", &s[..from]));
    }
    Ok(Arc::new(out.finish()))
}

/// The byte offset of UTF-16 offset `units` in `s` (Spark: a position at or past the end,
/// other than the first, leaves the text alone).
fn utf16_offset(s: &str, units: i64) -> Option<usize> {
    if units <= 0 {
        return Some(0);
    }
    let mut seen: i64 = 0;
    for (at, c) in s.char_indices() {
        if seen >= units {
            return Some(at);
        }
        seen += c.len_utf16() as i64;
    }
    None
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
/// and white space, a `.` only before a character that is neither lower case nor a number).
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
            // (A sentence goes on after a `.` before a lower-case letter or a number: `1`, `$5`.)
            let number = |c: &(usize, char)| c.1.is_numeric();
            let next_lower = chars.get(k).is_some_and(|(_, n)| n.is_lowercase())
                || chars.get(k).is_some_and(number)
                || (chars
                    .get(k)
                    .is_some_and(|(_, n)| matches!(n, '$' | '#' | '.'))
                    && chars.get(k + 1).is_some_and(number));
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

/// The words of a sentence as Java's word iterator (`BreakIterator.getWordInstance`) cuts
/// them, keeping those that start with a letter or digit (as Spark's `sentences`): runs of
/// letters joined by one inner dash, `_`, quote or period (`a-b`, `c'd`, `e.f`), runs of digits
/// joined by one inner `,`, `.` or quote (`1,000`, `3.14`), letters and digits alternating
/// (`g1`, `1a`), a number ending in `%` or `&`; a `$`, `#` or `.` before a number starts a
/// token that is not a word (`$5`, `.5`); everything else cuts.
fn sentence_words(sentence: &str) -> Vec<String> {
    let chars: Vec<char> = sentence.chars().collect();
    let letter = |c: char| c.is_alphabetic();
    let digit = |c: char| c.is_numeric();
    let mid_word = |c: char| {
        matches!(
            c,
            '-' | '_' | '"' | '\'' | '.' | '\u{ad}' | '\u{2019}' | '\u{2027}'
        ) || ('\u{2010}'..='\u{2015}').contains(&c)
    };
    let mid_num = |c: char| matches!(c, '"' | '\'' | ',' | '.' | '\u{66b}');
    let pre_num = |c: char| {
        matches!(c, '$' | '#' | '.' | '\u{a2}'..='\u{a5}') || ('\u{20a0}'..='\u{20cf}').contains(&c)
    };
    let post_num = |c: char| {
        matches!(
            c,
            '%' | '&' | '\u{a2}' | '\u{66a}' | '\u{2030}' | '\u{2031}'
        )
    };
    // The end of a run of `kind` characters joined by single `mid` characters, from `i`.
    let run = |mut i: usize, kind: &dyn Fn(char) -> bool, mid: &dyn Fn(char) -> bool| {
        while i < chars.len() {
            if kind(chars[i]) {
                i += 1;
            } else if mid(chars[i]) && chars.get(i + 1).is_some_and(|&c| kind(c)) {
                i += 2;
            } else {
                break;
            }
        }
        i
    };
    let mut words = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let start = i;
        if pre_num(chars[i]) && chars.get(i + 1).is_some_and(|&c| digit(c)) {
            i += 1;
        }
        let mut number_last = false;
        loop {
            match chars.get(i) {
                Some(&c) if letter(c) => {
                    i = run(i, &letter, &mid_word);
                    number_last = false;
                }
                Some(&c) if digit(c) => {
                    i = run(i, &digit, &mid_num);
                    number_last = true;
                }
                _ => break,
            }
        }
        if number_last && chars.get(i).is_some_and(|&c| post_num(c)) {
            i += 1;
        }
        if i == start {
            i += 1;
            continue;
        }
        if chars[start].is_alphanumeric() {
            words.push(chars[start..i].iter().collect());
        }
    }
    words
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
        // As Spark 4.3 cuts them.
        assert_eq!(
            words("x:y 3.14 1,000 U.S.A. hello_world a/b a+b It's 10:30 2024-02-29, isn't"),
            vec![vec![
                "x",
                "y",
                "3.14",
                "1,000",
                "U.S.A",
                "hello_world",
                "a",
                "b",
                "a",
                "b",
                "It's",
                "10",
                "30",
                "2024",
                "02",
                "29",
                "isn't"
            ]]
        );
        assert_eq!(
            words("foo@bar.com http://x.y/z #tag $5 5% a&b abc123def 123abc 1.2.3 a.1 1a.b"),
            vec![vec![
                "foo",
                "bar.com",
                "http",
                "x.y",
                "z",
                "tag",
                "5%",
                "a",
                "b",
                "abc123def",
                "123abc",
                "1.2.3",
                "a",
                "1a.b"
            ]]
        );
        assert_eq!(
            words("5%x 1. .5 a--b a_1 _x x\u{2014}y 1-2 a'b' 50%% 7&8 a1-b 1\"2 a\"b \u{e9}1"),
            vec![vec![
                "5%",
                "x",
                "1",
                "a",
                "b",
                "a",
                "1",
                "x",
                "x\u{2014}y",
                "1",
                "2",
                "a'b",
                "50%",
                "7&",
                "8",
                "a1",
                "b",
                "1\"2",
                "a\"b",
                "\u{e9}1"
            ]]
        );
        assert!(words("").is_empty());
        // A `.` before a number goes on; before `$d`, `(`, `#m` or an upper-case letter it ends.
        assert_eq!(
            words("a b. 1 c. $d e. (f g. A j. #m n. \u{e4} o. $5 p."),
            vec![
                vec!["a", "b", "1", "c"],
                vec!["d", "e"],
                vec!["f", "g"],
                vec!["A", "j"],
                vec!["m", "n", "\u{e4}", "o", "p"]
            ]
        );
    }
}
