//! Java's regular expressions (`java.util.regex.Pattern`, which Spark compiles every pattern
//! with) in the syntax of Rust's `regex` crate, meaning what they mean in Java.
//!
//! The pattern is parsed as `Pattern.compile` parses it (Java 17), with its errors, and every
//! construct is written out explicitly, so that no Rust flag or default decides its meaning:
//! `\w \d \s`, the POSIX classes (`\p{Alpha}`) and `(?i)` are ASCII-only unless `(?U)`/`(?u)`
//! say otherwise, `.` stops at every Java line terminator, `[` inside a class is a nested class
//! (`[[:alpha:]]` is a class of `:alph`), `&&` intersects, `\Q..\E` quotes, `\h \v \R` are
//! Java's, `(?x)` comments are dropped. Java's `$` (outside MULTILINE) also matches before a
//! final line terminator, which Rust cannot say: the translation then also gives the pattern
//! to search the text without that terminator (see [`matcher::JavaRegex`]).
//!
//! A lookahead `(?=..)` that ends the pattern is matched and the match cut where it starts.
//! What Rust's engine cannot do (backreferences, other lookarounds, atomic groups,
//! possessive quantifiers, `\G`, `\X`, `(?c)`) is [`JavaRegexError::Unsupported`].

mod case;
mod class;
pub(crate) mod matcher;
mod parser;
mod replacement;
#[cfg(test)]
mod tests;
mod unicode;
mod unicode_tables;

use std::fmt;

use parser::{Parser, Search};

/// A Java pattern in Rust's syntax.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Translated {
    /// The pattern, searched over the whole text.
    pub rust: String,
    /// With a `$` or `\Z` outside MULTILINE: the pattern that finds the matches whose `$`
    /// stands before the text's final line terminator (searched over the text without it),
    /// and which terminators count.
    pub before_terminator: Option<(String, LineEnds)>,
    /// With a `^` in MULTILINE mode: the pattern for matches at the very end of the text,
    /// where Java's never matches (Rust's does after a final line terminator).
    pub at_end: Option<String>,
    /// The number of capturing groups.
    pub groups: usize,
    /// Named groups and their numbers.
    pub names: Vec<(String, usize)>,
    /// Rust groups that are not Java's: each marks where a lookahead `(?=..)` that ends the
    /// pattern starts. Rust has no lookaround; such a lookahead is matched, and the match
    /// ends at its marker (Java's match and groups, since nothing follows it).
    pub markers: Vec<usize>,
}

/// The line terminators a Java `$` stands before.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LineEnds {
    /// `\r\n`, `\n`, `\r`, `\u0085`, `\u2028`, `\u2029`.
    Java,
    /// `\n` only (`(?d)`, UNIX_LINES).
    Unix,
}

/// Why a Java pattern has no Rust translation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum JavaRegexError {
    /// Java refuses the pattern (`PatternSyntaxException`).
    Syntax { description: String, index: usize },
    /// A valid Java pattern with a construct Rust's engine does not have.
    Unsupported(String),
}

impl fmt::Display for JavaRegexError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JavaRegexError::Syntax { description, index } => {
                write!(f, "{description} near index {index}")
            }
            JavaRegexError::Unsupported(what) => write!(f, "{what}"),
        }
    }
}

type Result<T> = std::result::Result<T, JavaRegexError>;

/// Translates a Java pattern.
pub(crate) fn translate(pattern: &str) -> Result<Translated> {
    let chars = remove_qe_quoting(pattern);
    let whole = Parser::new(&chars, Search::Whole).parse()?;
    let before_terminator = match whole.dollar {
        Some(ends) => Some((
            Parser::new(&chars, Search::BeforeTerminator).parse()?.rust,
            ends,
        )),
        None => None,
    };
    let at_end = match whole.line_caret {
        true => Some(Parser::new(&chars, Search::AtEnd).parse()?.rust),
        false => None,
    };
    Ok(Translated {
        rust: whole.rust,
        before_terminator,
        at_end,
        groups: whole.groups,
        names: whole.names,
        markers: whole.markers,
    })
}

/// A Rust pattern that matches a text exactly when the Java `pattern` finds a match in it,
/// when there is one (what DataFusion's `~` can be given); `None` for a pattern that is
/// invalid, needs Ember's matcher (Java's `$` and MULTILINE `^` around a final line
/// terminator) or is not supported.
pub(crate) fn plain_rust(pattern: &str) -> Option<String> {
    let t = translate(pattern).ok()?;
    if t.before_terminator.is_some() || t.at_end.is_some() || regex::Regex::new(&t.rust).is_err() {
        return None;
    }
    Some(t.rust)
}

/// The Java `pattern` compiled to match a whole text (Java's `Matcher.matches`), for names.
pub(crate) fn full_match(pattern: &str) -> Result<regex::Regex> {
    let t = translate(pattern)?;
    if !t.markers.is_empty() {
        return Err(JavaRegexError::Unsupported(
            "a lookahead `(?=...)` in a whole-text match".into(),
        ));
    }
    regex::Regex::new(&format!(r"\A(?:{})\z", t.rust))
        .map_err(|e| JavaRegexError::Unsupported(format!("a pattern beyond Rust's engine ({e})")))
}

/// Java's first pass: the text between `\Q` and `\E` becomes escaped characters (a digit
/// opening a quote as `\x3N`, so that it cannot extend an escape before it).
fn remove_qe_quoting(pattern: &str) -> Vec<char> {
    let p: Vec<char> = pattern.chars().collect();
    let mut i = 0;
    while i + 1 < p.len() {
        if p[i] != '\\' {
            i += 1;
        } else if p[i + 1] != 'Q' {
            i += 2;
        } else {
            break;
        }
    }
    if i + 1 >= p.len() {
        return p;
    }
    let mut out: Vec<char> = p[..i].to_vec();
    i += 2;
    let (mut in_quote, mut begin_quote) = (true, true);
    while i < p.len() {
        let c = p[i];
        i += 1;
        if !c.is_ascii() || c.is_ascii_alphabetic() {
            out.push(c);
        } else if c.is_ascii_digit() {
            if begin_quote {
                out.extend(['\\', 'x', '3']);
            }
            out.push(c);
        } else if c != '\\' {
            if in_quote {
                out.push('\\');
            }
            out.push(c);
        } else if in_quote {
            if p.get(i) == Some(&'E') {
                i += 1;
                in_quote = false;
            } else {
                out.extend(['\\', '\\']);
            }
        } else if p.get(i) == Some(&'Q') {
            i += 1;
            in_quote = true;
            begin_quote = true;
            continue;
        } else {
            out.push(c);
            if let Some(&n) = p.get(i) {
                out.push(n);
                i += 1;
            }
        }
        begin_quote = false;
    }
    out
}

/// A class that matches nothing.
const NOTHING: &str = r"[^\x{0}-\x{10FFFF}]";
