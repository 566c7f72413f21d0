//! A Java pattern compiled for Rust's engine, searched as Java's `Matcher` searches: `find`
//! loops that step past an empty match by one character (and allow an empty match right
//! after a non-empty one), `Pattern.split`, and `replaceAll` with Java's replacement strings.
//!
//! A Java `$` (outside MULTILINE) also matches before the text's final line terminator: when
//! the text ends with one, the matches whose `$` stands there are those of a second pattern
//! over the text without the terminator; of the two searches the earlier match wins, and on
//! the same start the one over the whole text. This is Java's answer whenever nothing after
//! a `$` in the pattern consumes characters. Likewise a match that starts at the very end is
//! taken from a pattern whose MULTILINE `^` never matches, as Java's does not there.

use regex::{CaptureLocations, Regex};

use super::replacement::{Piece, parse_replacement};
use super::{JavaRegexError, LineEnds, translate};

/// The span of a match (group 0) and of each group (`None` for a group that took no part).
pub(crate) type Spans = Vec<Option<(usize, usize)>>;

/// A compiled Java pattern.
#[derive(Debug, Clone)]
pub(crate) struct JavaRegex {
    whole: Regex,
    before_terminator: Option<(Regex, LineEnds)>,
    at_end: Option<Regex>,
    groups: usize,
    names: Vec<(String, usize)>,
    markers: Vec<usize>,
}

fn compile(rust: &str) -> Result<Regex, JavaRegexError> {
    Regex::new(rust).map_err(|e| {
        let reason = e.to_string();
        let reason = reason.lines().last().unwrap_or_default().trim().to_string();
        JavaRegexError::Unsupported(format!("a pattern beyond Rust's regex engine ({reason})"))
    })
}

impl JavaRegex {
    pub(crate) fn new(pattern: &str) -> Result<Self, JavaRegexError> {
        let t = translate(pattern)?;
        let before_terminator = match &t.before_terminator {
            Some((rust, ends)) => Some((compile(rust)?, *ends)),
            None => None,
        };
        Ok(JavaRegex {
            whole: compile(&t.rust)?,
            before_terminator,
            at_end: t.at_end.as_deref().map(compile).transpose()?,
            groups: t.groups,
            names: t.names,
            markers: t.markers,
        })
    }

    /// The number of capturing groups (Java's `groupCount`).
    pub(crate) fn groups(&self) -> usize {
        self.groups
    }

    /// The second pattern and the length of `text` without its final line terminator.
    fn before(&self, text: &str) -> Option<(&Regex, usize)> {
        let (re, ends) = self.before_terminator.as_ref()?;
        let end = terminator_start(text, *ends)?;
        Some((re, end))
    }

    /// Whether the pattern matches anywhere in `text` (Java's `find()`).
    pub(crate) fn is_match(&self, text: &str) -> bool {
        if self.at_end.is_some() {
            return self.captures_at(text, 0).is_some();
        }
        self.whole.is_match(text)
            || self
                .before(text)
                .is_some_and(|(re, end)| re.is_match(&text[..end]))
    }

    /// The first match starting at or after byte `start`, with its groups.
    pub(crate) fn captures_at(&self, text: &str, start: usize) -> Option<Spans> {
        let mut whole = self.spans(&self.whole, text, start);
        // A match that starts at the very end: Java's MULTILINE `^` does not match there.
        if let Some(at_end) = &self.at_end
            && whole.as_ref().is_some_and(|m| first_start(m) == text.len())
        {
            whole = self.spans(at_end, text, text.len());
        }
        let before = self
            .before(text)
            .filter(|(_, end)| start <= *end)
            .and_then(|(re, end)| self.spans(re, &text[..end], start));
        match (whole, before) {
            (Some(w), Some(b)) => Some(if first_start(&b) < first_start(&w) {
                b
            } else {
                w
            }),
            (w, b) => w.or(b),
        }
    }

    /// Every match of Java's `find()` loop over `text`.
    pub(crate) fn find_all(&self, text: &str) -> Vec<Spans> {
        let mut out = Vec::new();
        let mut at = 0;
        while at <= text.len() {
            let Some(m) = self.captures_at(text, at) else {
                break;
            };
            let Some((start, end)) = m.first().copied().flatten() else {
                break;
            };
            at = if end == start {
                end + text[end..].chars().next().map_or(1, char::len_utf8)
            } else {
                end
            };
            out.push(m);
        }
        out
    }

    /// `Pattern.split(text, limit)`: at most `limit` parts when positive (the last holds the
    /// rest), else every part, trailing empty ones included.
    pub(crate) fn split<'t>(&self, text: &'t str, limit: i64) -> Vec<&'t str> {
        let limited = limit > 0;
        let mut parts: Vec<&str> = Vec::new();
        let mut index = 0;
        for m in self.find_all(text) {
            let Some((start, end)) = m.first().copied().flatten() else {
                continue;
            };
            if !limited || (parts.len() as i64) < limit - 1 {
                // No empty leading part for an empty match at the start.
                if index == 0 && start == 0 && end == 0 {
                    continue;
                }
                parts.push(&text[index..start]);
                index = end;
            } else if parts.len() as i64 == limit - 1 {
                parts.push(&text[index..]);
                index = end;
            }
        }
        if index == 0 {
            return vec![text];
        }
        if !limited || (parts.len() as i64) < limit {
            parts.push(&text[index..]);
        }
        parts
    }

    /// Every match in `text` replaced as Java's `Matcher.replaceAll(replacement)` does
    /// (`$n`, `${name}`, `\x` for a literal x). An invalid replacement is an error once there
    /// is a match.
    pub(crate) fn replace_all(&self, text: &str, replacement: &str) -> Result<String, String> {
        let matches = self.find_all(text);
        if matches.is_empty() {
            return Ok(text.to_string());
        }
        let pieces = parse_replacement(replacement, self.groups, &self.names)?;
        let mut out = String::with_capacity(text.len());
        let mut last = 0;
        for m in matches {
            let Some((start, end)) = m.first().copied().flatten() else {
                continue;
            };
            out.push_str(&text[last..start]);
            for piece in &pieces {
                match piece {
                    Piece::Text(s) => out.push_str(s),
                    Piece::Group(g) => {
                        if let Some((a, b)) = m.get(*g).copied().flatten() {
                            out.push_str(&text[a..b]);
                        }
                    }
                }
            }
            last = end;
        }
        out.push_str(&text[last..]);
        Ok(out)
    }
}

fn first_start(m: &Spans) -> usize {
    m.first().copied().flatten().map_or(usize::MAX, |(s, _)| s)
}

impl JavaRegex {
    /// Java's spans of the first match of `re` from `start`: a match that went through a
    /// lookahead's marker ends there, and the markers are not Java's groups.
    fn spans(&self, re: &Regex, text: &str, start: usize) -> Option<Spans> {
        let mut locs: CaptureLocations = re.capture_locations();
        re.captures_read_at(&mut locs, text, start)?;
        let mut out: Spans = (0..locs.len())
            .filter(|g| !self.markers.contains(g))
            .map(|g| locs.get(g))
            .collect();
        let lookahead = self
            .markers
            .iter()
            .filter_map(|m| locs.get(*m))
            .map(|(at, _)| at)
            .min();
        if let (Some(end), Some(Some((from, _)))) = (lookahead, out.first().copied()) {
            out[0] = Some((from, end));
        }
        Some(out)
    }
}

/// Where the final line terminator of `text` starts, if it ends with one.
fn terminator_start(text: &str, ends: LineEnds) -> Option<usize> {
    let last = text.chars().next_back()?;
    let start = text.len() - last.len_utf8();
    match ends {
        LineEnds::Unix => (last == '\n').then_some(start),
        LineEnds::Java => match last {
            '\n' if text[..start].ends_with('\r') => Some(start - 1),
            '\n' | '\r' | '\u{85}' | '\u{2028}' | '\u{2029}' => Some(start),
            _ => None,
        },
    }
}
