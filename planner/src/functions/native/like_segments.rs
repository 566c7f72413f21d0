//! `text LIKE pattern` for a constant pattern of two or more parts between `%` wildcards
//! (`'%special%requests%'`, `'a%b'`) and no other wildcard or escape. arrow's `like` handles
//! one part itself (equality, prefix, suffix, contains) but reads every other pattern as a
//! regular expression, compiled again for every batch, whose lazy automaton starts empty each
//! time: about a tenth of TPC-H q13. Here the parts are found in order with `memchr::memmem`,
//! the first anchored at the start unless the pattern opens with `%`, the last at the end
//! unless it closes with one (byte search is exact: a UTF-8 needle only matches at character
//! boundaries).

use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, BooleanArray};
use arrow::datatypes::DataType;
use datafusion::common::{Result, internal_err};
use memchr::memmem::Finder;

/// Whether [`evaluate`] serves `pattern`: only `%` wildcards, no escape, at least two parts
/// (arrow serves fewer without a regular expression).
pub fn serves(pattern: &str) -> bool {
    !pattern.contains(['_', '\\']) && pattern.split('%').filter(|p| !p.is_empty()).count() >= 2
}

struct Matcher<'a> {
    prefix: &'a [u8],
    middles: Vec<Finder<'a>>,
    suffix: &'a [u8],
}

impl<'a> Matcher<'a> {
    fn new(pattern: &'a str) -> Self {
        let parts: Vec<&str> = pattern.split('%').collect();
        let (prefix, suffix) = (parts[0], parts[parts.len() - 1]);
        let middles = if parts.len() > 2 {
            parts[1..parts.len() - 1]
                .iter()
                .filter(|p| !p.is_empty())
                .map(|p| Finder::new(p.as_bytes()))
                .collect()
        } else {
            vec![]
        };
        Matcher {
            prefix: prefix.as_bytes(),
            middles,
            suffix: suffix.as_bytes(),
        }
    }

    fn matches(&self, text: &str) -> bool {
        let text = text.as_bytes();
        if text.len() < self.prefix.len() + self.suffix.len()
            || !text.starts_with(self.prefix)
            || !text.ends_with(self.suffix)
        {
            return false;
        }
        let end = text.len() - self.suffix.len();
        let mut at = self.prefix.len();
        for finder in &self.middles {
            match finder.find(&text[at..end]) {
                Some(found) => at += found + finder.needle().len(),
                None => return false,
            }
        }
        true
    }
}

/// `text LIKE pattern`, NULL where `text` is.
pub(super) fn evaluate(arrays: &[ArrayRef], pattern: &str) -> Result<ArrayRef> {
    let [text] = arrays else {
        return internal_err!("LIKE of one pattern takes one text");
    };
    if !serves(pattern) {
        return internal_err!("LIKE pattern {pattern:?} is not one of parts between %");
    }
    let matcher = Matcher::new(pattern);
    let out = match text.data_type() {
        DataType::Utf8 => BooleanArray::from_unary(text.as_string::<i32>(), |t| matcher.matches(t)),
        DataType::LargeUtf8 => {
            BooleanArray::from_unary(text.as_string::<i64>(), |t| matcher.matches(t))
        }
        DataType::Utf8View => {
            BooleanArray::from_unary(text.as_string_view(), |t| matcher.matches(t))
        }
        DataType::Null => BooleanArray::new_null(text.len()),
        other => return internal_err!("LIKE of {other}"),
    };
    Ok(Arc::new(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_match_in_order_without_overlapping() {
        let cases = [
            ("%special%requests%", "a special case of requests", true),
            ("%special%requests%", "requests special", false),
            ("%special%requests%", "specialrequests", true),
            ("a%b", "ab", true),
            ("a%b", "a", false),
            ("ab%ba", "aba", false),
            ("ab%ba", "abba", true),
            ("%a%a%", "a", false),
            ("%a%a%", "aa", true),
            ("x%é%z", "x-é-z", true),
            ("%%a%%b", "zzab", true),
        ];
        for (pattern, text, want) in cases {
            assert!(serves(pattern), "{pattern}");
            assert_eq!(
                Matcher::new(pattern).matches(text),
                want,
                "{text} LIKE {pattern}"
            );
        }
        for pattern in ["abc", "a%", "%a", "%a%", "%%a%%", "a_%b", "a\\%%b", ""] {
            assert!(!serves(pattern), "{pattern}");
        }
    }
}
