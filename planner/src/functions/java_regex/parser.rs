//! The parser of Java patterns (`Pattern.compile`'s grammar, flags and errors) that writes
//! each construct out in Rust's syntax; character classes are in `class`.

use super::class::Pred;
use super::{JavaRegexError, LineEnds, NOTHING, Result, case};

/// Java's inline flags.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Flags {
    /// `i`: CASE_INSENSITIVE (ASCII only without `u`).
    pub(super) i: bool,
    /// `m`: MULTILINE.
    pub(super) m: bool,
    /// `s`: DOTALL.
    pub(super) s: bool,
    /// `d`: UNIX_LINES.
    pub(super) d: bool,
    /// `u`: UNICODE_CASE.
    pub(super) u: bool,
    /// `x`: COMMENTS.
    pub(super) x: bool,
    /// `U`: UNICODE_CHARACTER_CLASS.
    pub(super) uc: bool,
    /// `c`: CANON_EQ.
    pub(super) c: bool,
}

pub(super) struct Output {
    pub(super) rust: String,
    pub(super) dollar: Option<LineEnds>,
    pub(super) groups: usize,
    pub(super) names: Vec<(String, usize)>,
    pub(super) markers: Vec<usize>,
    pub(super) line_caret: bool,
}

/// One item of a sequence in Rust's syntax; `atomic` when a quantifier may follow it as is;
/// `tail`: it ends with what must end the pattern to mean what it means in Java (a lookahead,
/// see [`Translated::markers`], or a `$` outside MULTILINE, see [`matcher::JavaRegex`]).
struct Item {
    rust: String,
    atomic: bool,
    tail: Option<&'static str>,
}

impl Item {
    fn atom(rust: impl Into<String>) -> Self {
        Item {
            rust: rust.into(),
            atomic: true,
            tail: None,
        }
    }
    fn seq(rust: impl Into<String>) -> Self {
        Item {
            rust: rust.into(),
            atomic: false,
            tail: None,
        }
    }
}

/// `\R`: `\r\n` first, else one vertical space.
const LINE_BREAK: &str = r"(?:\r\n|[\n\x0B\x0C\r\x{85}\x{2028}\x{2029}])";

/// Which of a pattern's searches is written (see [`super::Translated`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Search {
    /// Over the whole text.
    Whole,
    /// Over the text without its final line terminator: `\z` never matches.
    BeforeTerminator,
    /// At the end of the text: a MULTILINE `^` never matches.
    AtEnd,
}

pub(super) struct Parser<'a> {
    pub(super) p: &'a [char],
    pub(super) pos: usize,
    pub(super) flags: Flags,
    groups: usize,
    names: Vec<(String, usize)>,
    /// The Rust groups marking lookaheads.
    markers: Vec<usize>,
    dollar: Option<LineEnds>,
    search: Search,
    /// Whether a MULTILINE `^` was seen.
    line_caret: bool,
    /// The first construct Rust cannot match (reported once the whole pattern is valid).
    unsupported: Option<String>,
}

impl<'a> Parser<'a> {
    pub(super) fn new(p: &'a [char], search: Search) -> Self {
        Parser {
            p,
            pos: 0,
            flags: Flags::default(),
            groups: 0,
            names: Vec::new(),
            markers: Vec::new(),
            dollar: None,
            search,
            line_caret: false,
            unsupported: None,
        }
    }

    pub(super) fn parse(mut self) -> Result<Output> {
        let (rust, _) = self.expr()?;
        if self.pos < self.p.len() {
            if self.peek() == Some(')') {
                return Err(self.error("Unmatched closing ')'"));
            }
            return Err(self.error("Unexpected internal error"));
        }
        if let Some(what) = self.unsupported {
            return Err(JavaRegexError::Unsupported(what));
        }
        Ok(Output {
            rust,
            dollar: self.dollar,
            groups: self.groups,
            names: self.names,
            markers: self.markers,
            line_caret: self.line_caret,
        })
    }

    pub(super) fn error(&self, description: &str) -> JavaRegexError {
        JavaRegexError::Syntax {
            description: description.to_string(),
            index: self.pos,
        }
    }

    pub(super) fn unsupported(&mut self, what: impl Into<String>) {
        if self.unsupported.is_none() {
            self.unsupported = Some(what.into());
        }
    }

    /// The character at `pos` without skipping anything.
    pub(super) fn raw(&self, at: usize) -> Option<char> {
        self.p.get(at).copied()
    }

    /// The current character, past white space and comments in COMMENTS mode.
    pub(super) fn peek(&mut self) -> Option<char> {
        if self.flags.x {
            self.skip_comments();
        }
        self.raw(self.pos)
    }

    fn skip_comments(&mut self) {
        loop {
            match self.raw(self.pos) {
                Some(c) if is_ascii_space(c) => self.pos += 1,
                Some('#') => {
                    while let Some(c) = self.raw(self.pos) {
                        if is_line_terminator(c, self.flags.d) {
                            break;
                        }
                        self.pos += 1;
                    }
                }
                _ => return,
            }
        }
    }

    /// Consumes and returns the current character (after skipping as `peek` does).
    fn read(&mut self) -> Option<char> {
        let c = self.peek();
        if c.is_some() {
            self.pos += 1;
        }
        c
    }

    /// Consumes the next character as is (escapes are never split by COMMENTS mode).
    pub(super) fn read_raw(&mut self) -> Option<char> {
        let c = self.raw(self.pos);
        if c.is_some() {
            self.pos += 1;
        }
        c
    }

    /// Alternatives; what one ends with that must end the pattern.
    fn expr(&mut self) -> Result<(String, Option<&'static str>)> {
        let (mut out, mut tail) = self.sequence()?;
        while self.peek() == Some('|') {
            self.pos += 1;
            out.push('|');
            let (next, ends) = self.sequence()?;
            out.push_str(&next);
            tail = tail.or(ends);
        }
        Ok((out, tail))
    }

    fn sequence(&mut self) -> Result<(String, Option<&'static str>)> {
        let mut out = String::new();
        let mut tail: Option<&'static str> = None;
        while let Some(ch) = self.peek() {
            let item = match ch {
                '|' | ')' => break,
                '(' => match self.group()? {
                    Some(item) => item,
                    None => continue,
                },
                '[' => {
                    let pred = self.class_at_bracket()?;
                    Item::atom(self.class_item(&pred))
                }
                '\\' => {
                    self.pos += 1;
                    self.escape_atom()?
                }
                '^' => {
                    self.pos += 1;
                    if self.flags.m {
                        self.line_caret = true;
                    }
                    Item::atom(match (self.flags.m, self.flags.d) {
                        (false, _) => "^",
                        (true, _) if self.search == Search::AtEnd => NOTHING,
                        (true, false) => "(?mR:^)",
                        (true, true) => "(?m:^)",
                    })
                }
                '$' => {
                    self.pos += 1;
                    if self.flags.m {
                        Item::atom(if self.flags.d { "(?m:$)" } else { "(?mR:$)" })
                    } else {
                        self.dollar("a `$`")?
                    }
                }
                '.' => {
                    self.pos += 1;
                    let rust = if self.flags.s {
                        r"[\x{0}-\x{10FFFF}]"
                    } else if self.flags.d {
                        r"[^\n]"
                    } else {
                        r"[^\n\r\x{85}\x{2028}\x{2029}]"
                    };
                    Item::atom(rust)
                }
                '?' | '*' | '+' => {
                    return Err(self.error(&format!("Dangling meta character '{ch}'")));
                }
                // Java reads `{` here as an empty atom that a counted quantifier must follow.
                '{' => Item::seq(""),
                c => {
                    self.pos += 1;
                    Item::atom(self.literal(c))
                }
            };
            if let Some(what) = tail {
                self.unsupported(format!("{what} that something follows"));
            }
            tail = item.tail;
            let (rust, quantified) = self.closure(item)?;
            if let (Some(what), true) = (tail, quantified) {
                self.unsupported(format!("a repeated {what}"));
            }
            out.push_str(&rust);
        }
        Ok((out, tail))
    }

    /// Java's `$` or `\Z` outside MULTILINE: the end, or before a final line terminator.
    fn dollar(&mut self, what: &'static str) -> Result<Item> {
        let ends = if self.flags.d {
            LineEnds::Unix
        } else {
            LineEnds::Java
        };
        match self.dollar {
            Some(seen) if seen != ends => {
                self.unsupported("`$` both with and without the (?d) flag");
            }
            _ => self.dollar = Some(ends),
        }
        let mut item = Item::atom(r"\z");
        item.tail = Some(what);
        Ok(item)
    }

    /// A quantifier after `item`, if any (and whether there was one).
    fn closure(&mut self, item: Item) -> Result<(String, bool)> {
        let (min, max): (u32, Option<u32>) = match self.peek() {
            Some('?') => (0, Some(1)),
            Some('*') => (0, None),
            Some('+') => (1, None),
            Some('{') => {
                self.pos += 1;
                match self.read_raw() {
                    Some(d) if d.is_ascii_digit() => self.counted(d)?,
                    _ => return Err(self.error("Illegal repetition")),
                }
            }
            _ => return Ok((item.rust, false)),
        };
        // Past the quantifier (`?`, `*`, `+` or the closing `}`).
        self.pos += 1;
        let lazy = match self.peek() {
            Some('?') => {
                self.pos += 1;
                "?"
            }
            Some('+') => {
                self.pos += 1;
                self.unsupported("a possessive quantifier (such as `a*+`)");
                ""
            }
            _ => "",
        };
        let quantifier = match (min, max) {
            (0, Some(1)) => "?".to_string(),
            (0, None) => "*".to_string(),
            (1, None) => "+".to_string(),
            (n, None) => format!("{{{n},}}"),
            (n, Some(m)) if n == m => format!("{{{n}}}"),
            (n, Some(m)) => format!("{{{n},{m}}}"),
        };
        let body = if item.atomic && !item.rust.is_empty() {
            item.rust
        } else {
            format!("(?:{})", item.rust)
        };
        Ok((format!("{body}{quantifier}{lazy}"), true))
    }

    /// `{n}`, `{n,}` or `{n,m}` after its first digit; leaves `pos` on the closing `}`.
    fn counted(&mut self, first: char) -> Result<(u32, Option<u32>)> {
        let overflow = |s: &Self| s.error("Illegal repetition range");
        let mut min: u32 = first.to_digit(10).unwrap_or(0);
        let mut ch = self.read();
        while let Some(d) = ch.and_then(|c| c.to_digit(10)) {
            min = min
                .checked_mul(10)
                .and_then(|v| v.checked_add(d))
                .filter(|v| *v <= i32::MAX as u32)
                .ok_or_else(|| overflow(self))?;
            ch = self.read();
        }
        let max = if ch == Some(',') {
            ch = self.read();
            if ch == Some('}') {
                self.pos -= 1;
                return Ok((min, None));
            }
            let mut max: u32 = 0;
            while let Some(d) = ch.and_then(|c| c.to_digit(10)) {
                max = max
                    .checked_mul(10)
                    .and_then(|v| v.checked_add(d))
                    .filter(|v| *v <= i32::MAX as u32)
                    .ok_or_else(|| overflow(self))?;
                ch = self.read();
            }
            max
        } else {
            min
        };
        if ch != Some('}') {
            return Err(self.error("Unclosed counted closure"));
        }
        if max < min {
            return Err(self.error("Illegal repetition range"));
        }
        self.pos -= 1;
        Ok((min, Some(max)))
    }

    /// A group at `(`; `None` for flags alone (`(?i)`).
    fn group(&mut self) -> Result<Option<Item>> {
        self.pos += 1;
        let saved = self.flags;
        let mut tail = None;
        let rust = if self.raw(self.pos) == Some('?') {
            let ch = self.raw(self.pos + 1);
            self.pos += 2;
            match ch {
                Some(':') => {
                    let (inner, ends) = self.expr()?;
                    tail = ends;
                    format!("(?:{inner})")
                }
                Some('=') => {
                    tail = Some("a lookahead `(?=...)`");
                    self.markers.push(self.groups + self.markers.len() + 1);
                    format!("(?:(){})", self.expr()?.0)
                }
                Some('!') => {
                    self.expr()?;
                    self.unsupported("a negative lookahead `(?!...)`");
                    NOTHING.to_string()
                }
                Some('>') => {
                    self.expr()?;
                    self.unsupported("an atomic group `(?>...)`");
                    NOTHING.to_string()
                }
                Some('<') => match self.read_raw() {
                    Some(c @ ('=' | '!')) => {
                        self.expr()?;
                        let kind = if c == '=' { "(?<=...)" } else { "(?<!...)" };
                        self.unsupported(format!("a lookbehind `{kind}`"));
                        NOTHING.to_string()
                    }
                    first => {
                        let name = self.group_name(first)?;
                        if self.names.iter().any(|(n, _)| *n == name) {
                            return Err(self.error(&format!(
                                "Named capturing group <{name}> is already defined"
                            )));
                        }
                        self.groups += 1;
                        self.names.push((name.clone(), self.groups));
                        let (inner, ends) = self.expr()?;
                        tail = ends;
                        format!("(?P<{name}>{inner})")
                    }
                },
                Some('$' | '@') => return Err(self.error("Unknown group type")),
                _ => {
                    self.pos -= 1;
                    self.inline_flags();
                    match self.read() {
                        Some(')') => return Ok(None),
                        Some(':') => {
                            let (inner, ends) = self.expr()?;
                            tail = ends;
                            format!("(?:{inner})")
                        }
                        _ => return Err(self.error("Unknown inline modifier")),
                    }
                }
            }
        } else {
            self.groups += 1;
            let (inner, ends) = self.expr()?;
            tail = ends;
            format!("({inner})")
        };
        if self.read() != Some(')') {
            return Err(self.error("Unclosed group"));
        }
        self.flags = saved;
        let mut item = Item::atom(rust);
        item.tail = tail;
        Ok(Some(item))
    }

    /// A group's name up to its `>`, from its first character `first`.
    fn group_name(&mut self, first: Option<char>) -> Result<String> {
        let Some(c) = first.filter(char::is_ascii_alphabetic) else {
            return Err(self.error("capturing group name does not start with a Latin letter"));
        };
        let mut name = c.to_string();
        loop {
            match self.read() {
                Some(c) if c.is_ascii_alphanumeric() => name.push(c),
                Some('>') => return Ok(name),
                _ => return Err(self.error("named capturing group is missing trailing '>'")),
            }
        }
    }

    /// `imsduxcU`, then `-` and the flags to turn off.
    fn inline_flags(&mut self) {
        let mut on = true;
        while let Some(c) = self.peek() {
            let f = &mut self.flags;
            match c {
                'i' => f.i = on,
                'm' => f.m = on,
                's' => f.s = on,
                'd' => f.d = on,
                'u' => f.u = on,
                'x' => f.x = on,
                'c' => f.c = on,
                'U' => {
                    f.uc = on;
                    f.u = on;
                }
                '-' if on => on = false,
                _ => break,
            }
            self.pos += 1;
        }
        if self.flags.c {
            self.unsupported("the canonical equivalence flag `(?c)`");
        }
    }

    /// An escape outside a class, after its backslash.
    fn escape_atom(&mut self) -> Result<Item> {
        let Some(ch) = self.raw(self.pos) else {
            return Err(self.error("Unexpected internal error"));
        };
        self.pos += 1;
        let item = match ch {
            'p' | 'P' => {
                let pred = self.family(ch == 'P')?;
                Item::atom(self.class_item(&pred))
            }
            '1'..='9' => {
                self.backreference(ch);
                Item::atom(NOTHING)
            }
            'A' => Item::atom(r"\A"),
            'z' => Item::atom(if self.search == Search::BeforeTerminator {
                NOTHING
            } else {
                r"\z"
            }),
            'Z' => self.dollar(r"a `\Z`")?,
            'G' => {
                self.unsupported(r"`\G` (the end of the previous match)");
                Item::atom(NOTHING)
            }
            'b' => {
                if self.raw(self.pos) == Some('{') && self.raw(self.pos + 1) == Some('g') {
                    if self.raw(self.pos + 2) != Some('}') {
                        self.pos += 2;
                        return Err(self.error("Illegal/unsupported escape sequence"));
                    }
                    self.pos += 3;
                    self.unsupported(r"a grapheme cluster boundary `\b{g}`");
                    Item::atom(NOTHING)
                } else {
                    Item::atom(r"\b")
                }
            }
            'B' => Item::atom(r"\B"),
            'R' => Item::atom(LINE_BREAK),
            'X' => {
                self.unsupported(r"a grapheme cluster `\X`");
                Item::atom(NOTHING)
            }
            'k' => {
                if self.read_raw() != Some('<') {
                    return Err(self.error(r"\k is not followed by '<' for named capturing group"));
                }
                let first = self.read_raw();
                let name = self.group_name(first)?;
                if !self.names.iter().any(|(n, _)| *n == name) {
                    return Err(
                        self.error(&format!("named capturing group <{name}> does not exist"))
                    );
                }
                self.unsupported(format!(r"a backreference `\k<{name}>`"));
                Item::atom(NOTHING)
            }
            _ => {
                self.pos -= 1;
                match self.escape(false)? {
                    Escaped::Char(c) => Item::atom(self.literal_code(c)),
                    Escaped::Class(pred) => Item::atom(self.class_item(&pred)),
                }
            }
        };
        Ok(item)
    }

    /// `\N` (the first digit read): Java takes more digits while such a group exists.
    fn backreference(&mut self, first: char) {
        let mut n = first.to_digit(10).unwrap_or(0) as usize;
        while let Some(d) = self.peek().and_then(|c| c.to_digit(10)) {
            let more = n * 10 + d as usize;
            if self.groups < more {
                break;
            }
            n = more;
            self.pos += 1;
        }
        self.unsupported(format!(r"a backreference `\{n}`"));
    }

    /// A literal character in Rust's syntax, with the case rules of the flags.
    fn literal(&self, c: char) -> String {
        if self.flags.i {
            if self.flags.u {
                let set = case::single(u32::from(c));
                if set.len() > 1 {
                    let mut out = String::new();
                    Pred::Ranges(set).emit(&mut out);
                    return out;
                }
            } else if c.is_ascii_alphabetic() {
                return format!("[{}{}]", c.to_ascii_lowercase(), c.to_ascii_uppercase());
            }
        }
        regex::escape(c.encode_utf8(&mut [0; 4]))
    }

    /// A literal code point (a lone surrogate, which no text holds, matches nothing).
    fn literal_code(&self, code: u32) -> String {
        match char::from_u32(code) {
            Some(c) => self.literal(c),
            None => NOTHING.to_string(),
        }
    }

    /// A class as one Rust item.
    fn class_item(&self, pred: &Pred) -> String {
        let mut out = String::new();
        pred.emit(&mut out);
        out
    }
}

/// What an escape stands for: a character or a class.
pub(super) enum Escaped {
    Char(u32),
    Class(Pred),
}

fn is_ascii_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\x0B' | '\x0C' | '\r')
}

fn is_line_terminator(c: char, unix: bool) -> bool {
    if unix {
        c == '\n'
    } else {
        matches!(c, '\n' | '\r' | '\u{85}' | '\u{2028}' | '\u{2029}')
    }
}
