//! Java's character classes: `[...]` parsed as `Pattern.clazz` parses it (nested classes are
//! unions, `&&` intersects, the Latin-1 characters of one level form one set that Java shares
//! between the operands it appears in), the escapes (`\d`, `\x41`, `\cM`, ...) and the
//! properties (`\p{..}`), written as Rust class items.

use super::parser::{Escaped, Parser};
use super::{Result, case, unicode};

/// A set of characters, written as one Rust class item.
#[derive(Debug, Clone)]
pub(super) enum Pred {
    /// Code point ranges (surrogates, which no text holds, are left out when written).
    Ranges(Vec<(u32, u32)>),
    /// The Latin-1 characters collected at the class level being parsed (Java's `BitClass`,
    /// whose later additions every operand that holds it sees).
    Bits,
    /// A Rust class item (`\p{L}`, `[0-9]`).
    Rust(String),
    Union(Vec<Pred>),
    And(Box<Pred>, Box<Pred>),
    Not(Box<Pred>),
}

impl Pred {
    fn rust(s: &str) -> Pred {
        Pred::Rust(s.to_string())
    }

    fn not(self) -> Pred {
        Pred::Not(Box::new(self))
    }

    fn union(self, other: Pred) -> Pred {
        match self {
            Pred::Union(mut v) => {
                v.push(other);
                Pred::Union(v)
            }
            p => Pred::Union(vec![p, other]),
        }
    }

    /// The class with `Bits` replaced by the level's final set.
    fn resolve(self, bits: &[(u32, u32)]) -> Pred {
        match self {
            Pred::Bits => Pred::Ranges(bits.to_vec()),
            Pred::Union(v) => Pred::Union(v.into_iter().map(|p| p.resolve(bits)).collect()),
            Pred::And(a, b) => Pred::And(Box::new(a.resolve(bits)), Box::new(b.resolve(bits))),
            Pred::Not(a) => Pred::Not(Box::new(a.resolve(bits))),
            p => p,
        }
    }

    pub(super) fn emit(&self, out: &mut String) {
        match self {
            Pred::Ranges(ranges) => {
                out.push('[');
                let mut any = false;
                for &(a, b) in ranges {
                    for (a, b) in without_surrogates(a, b) {
                        any = true;
                        push_code(out, a);
                        if b > a {
                            out.push('-');
                            push_code(out, b);
                        }
                    }
                }
                if !any {
                    out.push_str(r"^\x{0}-\x{10FFFF}");
                }
                out.push(']');
            }
            Pred::Bits => out.push_str(super::NOTHING),
            Pred::Rust(s) => out.push_str(s),
            Pred::Union(v) => {
                if v.is_empty() {
                    out.push_str(super::NOTHING);
                    return;
                }
                out.push('[');
                for p in v {
                    p.emit(out);
                }
                out.push(']');
            }
            Pred::And(a, b) => {
                out.push('[');
                a.emit(out);
                out.push_str("&&");
                b.emit(out);
                out.push(']');
            }
            Pred::Not(a) => {
                out.push_str("[^");
                a.emit(out);
                out.push(']');
            }
        }
    }
}

/// `a..=b` without the surrogate code points.
fn without_surrogates(a: u32, b: u32) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    if a < 0xD800 {
        out.push((a, b.min(0xD7FF)));
    }
    if b > 0xDFFF {
        out.push((a.max(0xE000), b));
    }
    out
}

fn push_code(out: &mut String, code: u32) {
    match char::from_u32(code) {
        Some(c) if c.is_ascii_alphanumeric() => out.push(c),
        _ => out.push_str(&format!(r"\x{{{code:X}}}")),
    }
}

const DIGIT: &str = "[0-9]";
const WORD: &str = "[0-9A-Za-z_]";
const SPACE: &str = r"[\t\n\x0B\x0C\r ]";
const HORIZONTAL: &str = r"[\t \xA0\x{1680}\x{180E}\x{2000}-\x{200A}\x{202F}\x{205F}\x{3000}]";
const VERTICAL: &str = r"[\n\x0B\x0C\r\x{85}\x{2028}\x{2029}]";

impl Parser<'_> {
    /// Moves past the current character and peeks at the next (Java's `next()`).
    fn advance(&mut self) -> Option<char> {
        self.pos += 1;
        self.peek()
    }

    /// The class at `[`.
    pub(super) fn class_at_bracket(&mut self) -> Result<Pred> {
        self.clazz(true)
    }

    /// Java's `clazz`: `pos` on the opening `[` (or, with `consume` false, on the character
    /// before the operand of a `&&`); consumes the closing `]` when `consume`.
    fn clazz(&mut self, consume: bool) -> Result<Pred> {
        let mut prev: Option<Pred> = None;
        let mut curr: Option<Pred> = None;
        let mut bits: Vec<(u32, u32)> = Vec::new();
        let mut has_bits = false;
        let mut negated = false;
        let mut ch = self.advance();
        if ch == Some('^') && self.pos > 0 && self.raw(self.pos - 1) == Some('[') {
            ch = self.advance();
            negated = true;
        }
        loop {
            match ch {
                Some('[') => {
                    let c = self.clazz(true)?;
                    curr = Some(c.clone());
                    prev = Some(match prev.take() {
                        None => c,
                        Some(p) => p.union(c),
                    });
                    ch = self.peek();
                    continue;
                }
                Some('&') => {
                    ch = self.advance();
                    if ch == Some('&') {
                        ch = self.advance();
                        let mut right: Option<Pred> = None;
                        while ch != Some(']') && ch != Some('&') {
                            if ch.is_none() {
                                return Err(self.error("Unclosed character class"));
                            }
                            let c = if ch == Some('[') {
                                self.clazz(true)?
                            } else {
                                self.pos -= 1;
                                self.clazz(false)?
                            };
                            right = Some(match right.take() {
                                None => c,
                                Some(r) => r.union(c),
                            });
                            ch = self.peek();
                        }
                        if has_bits {
                            match prev.take() {
                                None => {
                                    prev = Some(Pred::Bits);
                                    curr = Some(Pred::Bits);
                                }
                                Some(p) => prev = Some(p.union(Pred::Bits)),
                            }
                            has_bits = false;
                        }
                        if right.is_some() {
                            curr = right.clone();
                        }
                        prev = match prev.take() {
                            None => match right {
                                Some(r) => Some(r),
                                None => return Err(self.error("Bad class syntax")),
                            },
                            Some(p) => match &curr {
                                Some(c) => Some(Pred::And(Box::new(p), Box::new(c.clone()))),
                                None => return Err(self.error("Bad intersection syntax")),
                            },
                        };
                        continue;
                    }
                    // A single `&` is itself.
                    self.pos -= 1;
                }
                None => return Err(self.error("Unclosed character class")),
                Some(']') if prev.is_some() || has_bits => {
                    if consume {
                        self.pos += 1;
                    }
                    let mut out = match prev {
                        None => Pred::Bits,
                        Some(p) if has_bits => p.union(Pred::Bits),
                        Some(p) => p,
                    };
                    out = out.resolve(&bits);
                    return Ok(if negated { out.not() } else { out });
                }
                _ => {}
            }
            curr = self.range(&mut bits)?;
            match &curr {
                None => has_bits = true,
                Some(c) => {
                    prev = Some(match prev.take() {
                        None => c.clone(),
                        Some(p) => p.union(c.clone()),
                    })
                }
            }
            ch = self.peek();
        }
    }

    /// One character, range, escape or property of a class; `None` when the character went
    /// into `bits`.
    fn range(&mut self, bits: &mut Vec<(u32, u32)>) -> Result<Option<Pred>> {
        let ch: u32 = if self.peek() == Some('\\') {
            self.pos += 1;
            match self.raw(self.pos) {
                Some(p @ ('p' | 'P')) => {
                    self.pos += 1;
                    return self.family(p == 'P').map(Some);
                }
                _ => {
                    let is_range = self.raw(self.pos + 1) == Some('-');
                    match self.escape(is_range)? {
                        Escaped::Char(c) => c,
                        Escaped::Class(p) => return Ok(Some(p)),
                    }
                }
            }
        } else {
            let c = self.peek().map_or(0, u32::from);
            self.advance();
            c
        };
        if self.peek() == Some('-') {
            let end = self.raw(self.pos + 1);
            if end == Some('[') {
                return Ok(self.bits_or_single(bits, ch));
            }
            if end != Some(']') {
                self.advance();
                let m: i64 = match self.peek() {
                    Some('\\') => {
                        self.pos += 1;
                        match self.escape(true)? {
                            Escaped::Char(c) => i64::from(c),
                            Escaped::Class(_) => -1,
                        }
                    }
                    Some(c) => {
                        self.advance();
                        i64::from(u32::from(c))
                    }
                    None => -1,
                };
                if m < i64::from(ch) {
                    return Err(self.error("Illegal character range"));
                }
                let m = m as u32;
                if self.flags.i && self.flags.u {
                    return Ok(Some(Pred::Ranges(case::range(ch, m))));
                }
                let mut ranges = vec![(ch, m)];
                if self.flags.i {
                    // ASCII letters whose other case is in the range.
                    for x in
                        (u32::from(b'A')..=u32::from(b'Z')).chain(u32::from(b'a')..=u32::from(b'z'))
                    {
                        let other = x ^ 0x20;
                        if (ch..=m).contains(&other) && !(ch..=m).contains(&x) {
                            ranges.push((x, x));
                        }
                    }
                }
                return Ok(Some(Pred::Ranges(ranges)));
            }
        }
        Ok(self.bits_or_single(bits, ch))
    }

    /// A single character: into `bits` (Latin-1) or as its own set.
    fn bits_or_single(&self, bits: &mut Vec<(u32, u32)>, ch: u32) -> Option<Pred> {
        if self.flags.i && self.flags.u {
            if ch < 256
                && let Some(set) = case::latin1(ch)
            {
                bits.extend(set);
                return None;
            }
            return Some(Pred::Ranges(case::single(ch)));
        }
        let mut set = vec![(ch, ch)];
        if self.flags.i && ch < 128 && (ch as u8).is_ascii_alphabetic() {
            set.push((ch ^ 0x20, ch ^ 0x20));
        }
        if ch < 256 {
            bits.extend(set);
            None
        } else {
            Some(Pred::Ranges(set))
        }
    }

    /// An escape after its backslash (`pos` on the letter): a character or a class (the
    /// escapes that only stand outside a class are the caller's); `is_range`: `\v` is VT as
    /// a range end.
    pub(super) fn escape(&mut self, is_range: bool) -> Result<Escaped> {
        let Some(ch) = self.read_raw() else {
            return Err(self.error("Unclosed character class"));
        };
        let uc = self.flags.uc;
        let class = |s: &str| Ok(Escaped::Class(Pred::rust(s)));
        match ch {
            '0' => self.octal().map(Escaped::Char),
            'a' => Ok(Escaped::Char(7)),
            'e' => Ok(Escaped::Char(0x1B)),
            'f' => Ok(Escaped::Char(0x0C)),
            'n' => Ok(Escaped::Char(u32::from('\n'))),
            'r' => Ok(Escaped::Char(u32::from('\r'))),
            't' => Ok(Escaped::Char(u32::from('\t'))),
            'c' => match self.read_raw() {
                Some(c) => Ok(Escaped::Char(u32::from(c) ^ 64)),
                None => Err(self.error("Illegal control escape sequence")),
            },
            'x' => self.hex().map(Escaped::Char),
            'u' => self.unicode_escape().map(Escaped::Char),
            'N' => {
                self.unsupported(r"a character name `\N{...}`");
                while let Some(c) = self.read_raw() {
                    if c == '}' {
                        return Ok(Escaped::Char(0xD800));
                    }
                }
                Err(self.error("Unclosed character name escape sequence"))
            }
            'd' => class(if uc { r"\p{Nd}" } else { DIGIT }),
            'D' => Ok(Escaped::Class(
                Pred::rust(if uc { r"\p{Nd}" } else { DIGIT }).not(),
            )),
            's' => class(if uc { unicode::WHITE_SPACE } else { SPACE }),
            'S' => Ok(Escaped::Class(
                Pred::rust(if uc { unicode::WHITE_SPACE } else { SPACE }).not(),
            )),
            'w' => class(if uc { unicode::WORD } else { WORD }),
            'W' => Ok(Escaped::Class(
                Pred::rust(if uc { unicode::WORD } else { WORD }).not(),
            )),
            'h' => class(HORIZONTAL),
            'H' => Ok(Escaped::Class(Pred::rust(HORIZONTAL).not())),
            'v' if is_range => Ok(Escaped::Char(0x0B)),
            'v' => class(VERTICAL),
            'V' => Ok(Escaped::Class(Pred::rust(VERTICAL).not())),
            c if c.is_ascii_alphanumeric() => {
                Err(self.error("Illegal/unsupported escape sequence"))
            }
            c => Ok(Escaped::Char(u32::from(c))),
        }
    }

    /// `\0n`, `\0nn`, `\0mnn` (m at most 3).
    fn octal(&mut self) -> Result<u32> {
        let digit = |c: Option<char>| c.and_then(|c| c.to_digit(8));
        let Some(n) = digit(self.raw(self.pos)) else {
            self.pos += 1;
            return Err(self.error("Illegal octal escape sequence"));
        };
        self.pos += 1;
        let Some(m) = digit(self.raw(self.pos)) else {
            return Ok(n);
        };
        self.pos += 1;
        match digit(self.raw(self.pos)) {
            Some(o) if n <= 3 => {
                self.pos += 1;
                Ok(n * 64 + m * 8 + o)
            }
            _ => Ok(n * 8 + m),
        }
    }

    /// `\xhh` or `\x{h...h}`.
    fn hex(&mut self) -> Result<u32> {
        let hex = |c: Option<char>| c.and_then(|c| c.to_digit(16));
        let n = self.read_raw();
        if let Some(a) = hex(n) {
            if let Some(b) = hex(self.read_raw()) {
                return Ok(a * 16 + b);
            }
        } else if n == Some('{') && hex(self.raw(self.pos)).is_some() {
            let mut code: u32 = 0;
            loop {
                let c = self.read_raw();
                match hex(c) {
                    Some(d) => {
                        code = (code << 4) + d;
                        if code > 0x10FFFF {
                            return Err(self.error("Hexadecimal codepoint is too big"));
                        }
                    }
                    None if c == Some('}') => return Ok(code),
                    None => return Err(self.error("Unclosed hexadecimal escape sequence")),
                }
            }
        }
        Err(self.error("Illegal hexadecimal escape sequence"))
    }

    fn four_hex(&mut self) -> Result<u32> {
        let mut n = 0;
        for _ in 0..4 {
            match self.read_raw().and_then(|c| c.to_digit(16)) {
                Some(d) => n = n * 16 + d,
                None => return Err(self.error("Illegal Unicode escape sequence")),
            }
        }
        Ok(n)
    }

    /// `\uhhhh`, a surrogate pair `\uhhhh\uhhhh` as one code point.
    fn unicode_escape(&mut self) -> Result<u32> {
        let n = self.four_hex()?;
        if (0xD800..0xDC00).contains(&n) {
            let at = self.pos;
            if self.read_raw() == Some('\\')
                && self.read_raw() == Some('u')
                && let Ok(low) = self.four_hex()
                && (0xDC00..0xE000).contains(&low)
            {
                return Ok(0x10000 + ((n - 0xD800) << 10) + (low - 0xDC00));
            }
            self.pos = at;
        }
        Ok(n)
    }

    /// `\p{name}`, `\pL` (`pos` after the `p`), complemented for `\P`.
    pub(super) fn family(&mut self, complement: bool) -> Result<Pred> {
        let name: String = if self.raw(self.pos) == Some('{') {
            let start = self.pos + 1;
            let Some(len) = self.p[start..].iter().position(|c| *c == '}') else {
                self.pos = self.p.len();
                return Err(self.error("Unclosed character family"));
            };
            self.pos = start + len + 1;
            if len == 0 {
                return Err(self.error("Empty character family"));
            }
            self.p[start..start + len].iter().collect()
        } else {
            match self.read_raw() {
                Some(c) => c.to_string(),
                None => String::new(),
            }
        };
        let ci = self.flags.i;
        let found = match name.split_once('=') {
            Some((key, value)) => match key.to_lowercase().as_str() {
                "sc" | "script" => unicode::script(value),
                "blk" | "block" => unicode::block(value),
                "gc" | "general_category" => unicode::property(value, ci),
                _ => None,
            }
            .ok_or_else(|| {
                self.error(&format!(
                    "Unknown Unicode property {{name=<{}>, value=<{value}>}}",
                    key.to_lowercase()
                ))
            })?,
            None => {
                let found = if let Some(block) = name.strip_prefix("In") {
                    unicode::block(block)
                } else if let Some(short) = name.strip_prefix("Is") {
                    unicode::unicode_property(short, ci)
                        .or_else(|| unicode::property(short, ci))
                        .or_else(|| unicode::script(short))
                } else if self.flags.uc {
                    unicode::posix(&name, ci).or_else(|| unicode::property(&name, ci))
                } else {
                    unicode::property(&name, ci)
                };
                found.ok_or_else(|| {
                    self.error(&format!("Unknown character property name {{{name}}}"))
                })?
            }
        };
        let pred = match found {
            unicode::Found::Class(s) => Pred::Rust(s),
            unicode::Found::Unsupported(what) => {
                self.unsupported(what);
                Pred::rust(super::NOTHING)
            }
        };
        Ok(if complement { pred.not() } else { pred })
    }
}
