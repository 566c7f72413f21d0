//! Java's character properties (`\p{..}`, `CharPredicates` of Java 17) as Rust class items:
//! the POSIX names (ASCII, or Unicode under `(?U)`), general categories, `Is`/`In`
//! prefixes for Unicode properties, scripts and blocks, and the `java*` methods of
//! `Character`.

use super::unicode_tables::{BLOCKS, SCRIPTS};

/// What a property name stands for.
pub(super) enum Found {
    /// A Rust class item.
    Class(String),
    /// Known to Java, without a Rust equivalent here.
    Unsupported(String),
}

fn class(s: &str) -> Option<Found> {
    Some(Found::Class(s.to_string()))
}

/// Java's `\p{IsWhite_Space}`, `\s` under `(?U)`.
pub(super) const WHITE_SPACE: &str = r"[\p{Zs}\p{Zl}\p{Zp}\x09-\x0D\x{85}]";
/// Java's `\p{IsWord}`, `\w` under `(?U)`.
pub(super) const WORD: &str = r"[\p{Alphabetic}\p{Mn}\p{Me}\p{Mc}\p{Nd}\p{Pc}\x{200C}\x{200D}]";
const HEX_DIGIT: &str = r"[\p{Nd}0-9A-Fa-f\x{FF10}-\x{FF19}\x{FF21}-\x{FF26}\x{FF41}-\x{FF46}]";
const GRAPH: &str = r"[^\p{Zs}\p{Zl}\p{Zp}\p{Cc}\p{Cn}]";
/// Upper, lower and title case letters (what a case property means under `(?i)`).
const ANY_CASE: &str = r"[\p{Lowercase}\p{Uppercase}\p{Lt}]";
const ANY_CASE_CATEGORY: &str = r"[\p{Lu}\p{Ll}\p{Lt}]";

/// `CharPredicates.forProperty`: categories, POSIX (ASCII) and `java*` names, exact case.
pub(super) fn property(name: &str, ci: bool) -> Option<Found> {
    const CATEGORIES: &[&str] = &[
        "Cn", "Lm", "Lo", "Mn", "Me", "Mc", "Nd", "Nl", "No", "Zs", "Zl", "Zp", "Cc", "Cf", "Co",
        "Pd", "Ps", "Pe", "Pc", "Po", "Sm", "Sc", "Sk", "So", "Pi", "Pf", "L", "M", "N", "Z", "C",
        "P", "S", "LC",
    ];
    if CATEGORIES.contains(&name) {
        return Some(Found::Class(format!(r"\p{{{name}}}")));
    }
    match name {
        // Surrogates, which no text holds.
        "Cs" => class(super::NOTHING),
        "Lu" | "Ll" | "Lt" if ci => class(ANY_CASE_CATEGORY),
        "Lu" | "Ll" | "Lt" => Some(Found::Class(format!(r"\p{{{name}}}"))),
        "LD" => class(r"[\p{L}\p{Nd}]"),
        "L1" => class(r"[\x00-\xFF]"),
        "all" => class(r"[\x{0}-\x{10FFFF}]"),
        "ASCII" => class(r"[\x00-\x7F]"),
        "Alnum" => class("[0-9A-Za-z]"),
        "Alpha" => class("[A-Za-z]"),
        "Blank" => class(r"[\t ]"),
        "Cntrl" => class(r"[\x00-\x1F\x7F]"),
        "Digit" => class("[0-9]"),
        "Graph" => class(r"[\x21-\x7E]"),
        "Lower" | "Upper" if ci => class("[A-Za-z]"),
        "Lower" => class("[a-z]"),
        "Upper" => class("[A-Z]"),
        "Print" => class(r"[\x20-\x7E]"),
        "Punct" => class(r"[\x21-\x2F\x3A-\x40\x5B-\x60\x7B-\x7E]"),
        "Space" => class(r"[\t\n\x0B\x0C\r ]"),
        "XDigit" => class("[0-9A-Fa-f]"),
        "javaLowerCase" | "javaUpperCase" | "javaTitleCase" if ci => class(ANY_CASE),
        "javaLowerCase" => class(r"\p{Lowercase}"),
        "javaUpperCase" => class(r"\p{Uppercase}"),
        "javaTitleCase" => class(r"\p{Lt}"),
        "javaAlphabetic" => class(r"\p{Alphabetic}"),
        "javaIdeographic" => class(r"\p{Ideographic}"),
        "javaDigit" => class(r"\p{Nd}"),
        "javaDefined" => class(r"\P{Cn}"),
        "javaLetter" => class(r"\p{L}"),
        "javaLetterOrDigit" => class(r"[\p{L}\p{Nd}]"),
        "javaJavaIdentifierStart" => class(r"[\p{L}\p{Nl}\p{Sc}\p{Pc}]"),
        "javaJavaIdentifierPart" => {
            class(r"[\p{L}\p{Sc}\p{Pc}\p{Nd}\p{Nl}\p{Mc}\p{Mn}\p{Cf}\x00-\x08\x0E-\x1B\x7F-\x9F]")
        }
        "javaIdentifierIgnorable" => class(r"[\p{Cf}\x00-\x08\x0E-\x1B\x7F-\x9F]"),
        "javaSpaceChar" => class(r"\p{Z}"),
        "javaWhitespace" => class(r"[[\p{Z}&&[^\xA0\x{2007}\x{202F}]]\t\n\x0B\x0C\r\x1C-\x1F]"),
        "javaISOControl" => class(r"[\x00-\x1F\x7F-\x9F]"),
        "javaMirrored" => class(r"\p{Bidi_Mirrored}"),
        "javaUnicodeIdentifierStart" | "javaUnicodeIdentifierPart" => Some(Found::Unsupported(
            format!(r"the character property `\p{{{name}}}`"),
        )),
        _ => None,
    }
}

/// `CharPredicates.forPOSIXName` (Unicode meanings, under `(?U)`), any case.
pub(super) fn posix(name: &str, ci: bool) -> Option<Found> {
    match name.to_uppercase().as_str() {
        "ALPHA" => class(r"\p{Alphabetic}"),
        "LOWER" | "UPPER" if ci => class(ANY_CASE),
        "LOWER" => class(r"\p{Lowercase}"),
        "UPPER" => class(r"\p{Uppercase}"),
        "SPACE" => class(WHITE_SPACE),
        "PUNCT" => class(r"\p{P}"),
        "XDIGIT" => class(HEX_DIGIT),
        "ALNUM" => class(r"[\p{Alphabetic}\p{Nd}]"),
        "CNTRL" => class(r"\p{Cc}"),
        "DIGIT" => class(r"\p{Nd}"),
        "BLANK" => class(r"[\p{Zs}\t]"),
        "GRAPH" => class(GRAPH),
        "PRINT" => Some(Found::Class(format!(r"[[{GRAPH}\p{{Zs}}\t]&&\P{{Cc}}]"))),
        _ => None,
    }
}

/// `CharPredicates.forUnicodeProperty` (`\p{IsAlphabetic}`): Unicode properties, then the
/// POSIX names with their Unicode meanings, any case.
pub(super) fn unicode_property(name: &str, ci: bool) -> Option<Found> {
    match name.to_uppercase().as_str() {
        "ALPHABETIC" => class(r"\p{Alphabetic}"),
        "ASSIGNED" => class(r"\P{Cn}"),
        "CONTROL" => class(r"\p{Cc}"),
        "HEXDIGIT" | "HEX_DIGIT" => class(HEX_DIGIT),
        "IDEOGRAPHIC" => class(r"\p{Ideographic}"),
        "JOINCONTROL" | "JOIN_CONTROL" => class(r"[\x{200C}\x{200D}]"),
        "LETTER" => class(r"\p{L}"),
        "LOWERCASE" | "UPPERCASE" | "TITLECASE" if ci => class(ANY_CASE),
        "LOWERCASE" => class(r"\p{Lowercase}"),
        "UPPERCASE" => class(r"\p{Uppercase}"),
        "TITLECASE" => class(r"\p{Lt}"),
        "NONCHARACTERCODEPOINT" | "NONCHARACTER_CODE_POINT" => {
            class(r"\p{Noncharacter_Code_Point}")
        }
        "PUNCTUATION" => class(r"\p{P}"),
        "WHITESPACE" | "WHITE_SPACE" => class(WHITE_SPACE),
        "WORD" => class(WORD),
        _ => posix(name, ci),
    }
}

/// `Character.UnicodeScript.forName`: a script's name or alias, any case.
pub(super) fn script(name: &str) -> Option<Found> {
    let upper = name.to_uppercase();
    SCRIPTS.lines().find_map(|line| {
        let mut names = line.split('|');
        let script = names.next()?;
        if script != upper && !names.any(|alias| alias == upper) {
            return None;
        }
        if script == "UNKNOWN" {
            return Some(Found::Unsupported(format!(r"the script `\p{{Is{name}}}`")));
        }
        Some(Found::Class(format!(r"\p{{sc={script}}}")))
    })
}

/// `Character.UnicodeBlock.forName`: any of a block's names, any case.
pub(super) fn block(name: &str) -> Option<Found> {
    let upper = name.to_uppercase();
    BLOCKS.lines().find_map(|line| {
        let (range, names) = line.split_once(';')?;
        if !names.split('|').any(|n| n == upper) {
            return None;
        }
        let (from, to) = range.split_once('-')?;
        let from = u32::from_str_radix(from, 16).ok()?;
        let to = u32::from_str_radix(to, 16).ok()?;
        let mut out = String::from("[");
        // Surrogates (which no text holds) are left out.
        for (a, b) in [(from, to.min(0xD7FF)), (from.max(0xE000), to)] {
            if a <= b {
                out.push_str(&format!(r"\x{{{a:X}}}-\x{{{b:X}}}"));
            }
        }
        if out.len() == 1 {
            out.push_str(r"^\x{0}-\x{10FFFF}");
        }
        out.push(']');
        Some(Found::Class(out))
    })
}
