//! Java's answers (recorded from Java 17's `java.util.regex`) for Java patterns matched by
//! their translation.

use super::matcher::JavaRegex;
use super::{JavaRegexError, translate};

#[derive(Debug, PartialEq)]
enum Failure {
    Syntax,
    Unsupported,
}
use Failure::{Syntax, Unsupported};

/// A pattern, a text, and the texts Java's `find()` loop gives (or why there are none).
type FindCase = (
    &'static str,
    &'static str,
    Result<&'static [&'static str], Failure>,
);

/// The text of each match of Java's `find()` loop.
fn matches(pattern: &str, text: &str) -> Result<Vec<String>, Failure> {
    match JavaRegex::new(pattern) {
        Ok(re) => Ok(re
            .find_all(text)
            .iter()
            .filter_map(|m| m.first().copied().flatten())
            .map(|(a, b)| text[a..b].to_string())
            .collect()),
        Err(JavaRegexError::Syntax { .. }) => Err(Syntax),
        Err(JavaRegexError::Unsupported(_)) => Err(Unsupported),
    }
}

#[test]
fn finds_what_java_finds() {
    let cases: &[FindCase] = &[
        (r"\w+", "héllo wörld_1", Ok(&["h", "llo", "w", "rld_1"])),
        (r"[^\w]", "é b", Ok(&["é", " "])),
        (r"\W", "é-b", Ok(&["é", "-"])),
        (r"\d+", "12٣4", Ok(&["12", "4"])),
        (r"[\D]+", "a1٣", Ok(&["a", "٣"])),
        (r"\s", " \u{a0}\t\n", Ok(&[" ", "\t", "\n"])),
        (r"[^\s]+", "a\u{2003}b c", Ok(&["a\u{2003}b", "c"])),
        (r"\S+", "a\u{2003}b c", Ok(&["a\u{2003}b", "c"])),
        (
            r"\h+",
            "x \u{a0}\u{2003}y\tz",
            Ok(&[" \u{a0}\u{2003}", "\t"]),
        ),
        (r"\H+", "x \u{a0}y", Ok(&["x", "y"])),
        (
            r"[\v]",
            "a\nb\u{2028}c\u{b}d",
            Ok(&["\n", "\u{2028}", "\u{b}"]),
        ),
        (r"\V+", "ab\ncd", Ok(&["ab", "cd"])),
        (r"(?U)\w+", "héllo wörld", Ok(&["héllo", "wörld"])),
        (r"(?U)\d", "1٣", Ok(&["1", "٣"])),
        (r"(?U)\s", " \u{2003}", Ok(&[" ", "\u{2003}"])),
        (r"\p{Alpha}+", "aé1", Ok(&["a"])),
        (r"\p{Lower}+", "abÉc", Ok(&["ab", "c"])),
        (r"\p{Upper}", "aÉB", Ok(&["B"])),
        (r"\p{ASCII}+", "abé", Ok(&["ab"])),
        (r"\p{Digit}", "1٣", Ok(&["1"])),
        (r"\p{Alnum}+", "a1é", Ok(&["a1"])),
        (r"\p{Punct}", "a!¿", Ok(&["!"])),
        (r"\p{Graph}+", "a b", Ok(&["a", "b"])),
        (r"\p{Print}+", "a bé", Ok(&["a b"])),
        (r"\p{Blank}", "a b\tc", Ok(&[" ", "\t"])),
        (r"\p{Cntrl}", "a\u{1}b", Ok(&["\u{1}"])),
        (r"\p{XDigit}+", "fg", Ok(&["f"])),
        (r"\p{Space}", "a\u{2003} ", Ok(&[" "])),
        (r"\P{Alpha}+", "ab1é", Ok(&["1é"])),
        (r"(?U)\p{Alpha}+", "aé1", Ok(&["aé"])),
        (r"\p{IsAlpha}+", "aé1", Ok(&["aé"])),
        (r"\p{L}+", "héllo 123", Ok(&["héllo"])),
        (r"\pL", "é1", Ok(&["é"])),
        (r"\p{Lu}", "aÉ", Ok(&["É"])),
        (r"\p{IsLatin}+", "héllo αβγ", Ok(&["héllo"])),
        (r"\p{InGreek}+", "héllo αβγ", Ok(&["αβγ"])),
        (r"\p{javaLowerCase}+", "héLLo", Ok(&["hé", "o"])),
        (r"\p{IsPunctuation}", "a!¿", Ok(&["!", "¿"])),
        (r"\p{sc=Greek}", "aβ", Ok(&["β"])),
        (r"\p{gc=Nd}", "a٣", Ok(&["٣"])),
        (r"\p{block=Basic Latin}+", "aé", Ok(&["a"])),
        (r"(?i)\p{Lower}", "A", Ok(&["A"])),
        (r"(?i)\p{Lu}", "a", Ok(&["a"])),
        (r"[[:alpha:]]", "abc:", Ok(&["a", ":"])),
        (r"[a-z&&[^aeiou]]+", "abcde", Ok(&["bcd"])),
        (r"[abc&&b]", "abc", Ok(&["b"])),
        (r"[^a[b]]", "abc", Ok(&["c"])),
        (r"[]a]", "]a", Ok(&["]", "a"])),
        (r"[^]a]", "]ab", Ok(&["b"])),
        (r"[a-]", "a-", Ok(&["a", "-"])),
        (r"[a-[b]]", "a-b", Ok(&["a", "-", "b"])),
        (r"[\d-z]", "5-z", Ok(&["5", "-", "z"])),
        (r"[\Q]\E]", "a]", Ok(&["]"])),
        (r"[&a]", "&a", Ok(&["&", "a"])),
        (r"\Q.\E", "a.b", Ok(&["."])),
        (r"\Q(a)\E+", "(a))", Ok(&["(a))"])),
        (r"\Q1\E", "1", Ok(&["1"])),
        (r"\0101\x41\u0041\x{41}", "AAAA", Ok(&["AAAA"])),
        (r"\cA", "\u{1}", Ok(&["\u{1}"])),
        (r"\uD83D\uDE00", "😀", Ok(&["😀"])),
        (
            r"\t\n\r\f\a\e",
            "\t\n\r\u{c}\u{7}\u{1b}",
            Ok(&["\t\n\r\u{c}\u{7}\u{1b}"]),
        ),
        (r"\é", "é", Ok(&["é"])),
        (r".", "a\r\u{2028}b", Ok(&["a", "b"])),
        (r"(?s).", "a\r", Ok(&["a", "\r"])),
        (r"(?d).", "a\r\n", Ok(&["a", "\r"])),
        (r"\R", "a\r\nb\nc\rd", Ok(&["\r\n", "\n", "\r"])),
        (r"\R\n", "\r\n", Ok(&["\r\n"])),
        (r"b$", "ab\n", Ok(&["b"])),
        (r"b$", "ab\r\n", Ok(&["b"])),
        (r"\r$", "a\r\n", Ok(&[])),
        (r"\s*$", "a \n", Ok(&[" \n", ""])),
        (r"b\Z", "ab\n", Ok(&["b"])),
        (r"b\z", "ab\n", Ok(&[])),
        (r"(?d)b$", "ab\r\n", Ok(&[])),
        (r"(?m)^.", "a\nb\r\nc", Ok(&["a", "b", "c"])),
        (r"(?m).$", "a\nb\r\nc", Ok(&["a", "b", "c"])),
        (r"\Aa", "aa", Ok(&["a"])),
        (r"(?m)^", "a\nb\n", Ok(&["", ""])),
        (r"(?m)^", "", Ok(&[])),
        (r"\bb", "ab b", Ok(&["b"])),
        (r"\Bb", "ab b", Ok(&["b"])),
        (
            r"(?i)straße",
            "STRASSE Straße STRAßE",
            Ok(&["Straße", "STRAßE"]),
        ),
        (r"(?i)é", "É é", Ok(&["é"])),
        (r"(?iu)é", "É é", Ok(&["É", "é"])),
        (r"(?i)k", "K k \u{212a}", Ok(&["K", "k"])),
        (r"(?iu)k", "K k \u{212a}", Ok(&["K", "k", "\u{212a}"])),
        (r"(?i)[a-c]+", "ABCabc", Ok(&["ABCabc"])),
        (r"(?i)[^a]", "aAb", Ok(&["b"])),
        (r"(?iu)[é]", "É", Ok(&["É"])),
        (r"(?iu)i", "Iiİı", Ok(&["I", "i", "İ", "ı"])),
        (r"(?i)A(?-i)b", "aB ab", Ok(&["ab"])),
        (r"(?i:a)b", "Ab AB", Ok(&["Ab"])),
        (r"a(?i)b|c", "aB C", Ok(&["aB", "C"])),
        (r"(?<year>\d{4})-(?<m>\d\d)", "2024-05", Ok(&["2024-05"])),
        (r"(a)|(b)", "ab", Ok(&["a", "b"])),
        (r"a{2}{3}", "aaaaaa", Ok(&["aa", "aa", "aa"])),
        (r"x{2,3}?", "xxx", Ok(&["xx"])),
        (r"(?x) a b # comment", "ab", Ok(&["ab"])),
        (r"(?x)[a b]", "a b", Ok(&["a", "b"])),
        (r"a*", "baaa", Ok(&["", "aaa", ""])),
        (r"(?:)", "ab", Ok(&["", "", ""])),
        (r"^*a", "a", Ok(&["a"])),
        (r"}]", "}]", Ok(&["}]"])),
        (r"a(?=b)", "abac ab", Ok(&["a", "a"])),
        (r"(a)(?=(b))", "abab", Ok(&["a", "a"])),
        (r"\w+(?=,)", "one,two,three", Ok(&["one", "two"])),
        (r"(", "a", Err(Syntax)),
        (r")", "a", Err(Syntax)),
        (r"[a", "a", Err(Syntax)),
        (r"*a", "a", Err(Syntax)),
        (r"a**", "a", Err(Syntax)),
        (r"x{", "a", Err(Syntax)),
        (r"a{2,1}", "a", Err(Syntax)),
        (r"\k<x>", "a", Err(Syntax)),
        (r"\y", "y", Err(Syntax)),
        (r"\08", "a", Err(Syntax)),
        (r"\xZ", "a", Err(Syntax)),
        (r"[b-a]", "a", Err(Syntax)),
        (r"\p{Latin}", "a", Err(Syntax)),
        (r"\p{IsNope}", "a", Err(Syntax)),
        (r"(?<1a>x)", "a", Err(Syntax)),
        (r"(?<a>x)(?<a>y)", "a", Err(Syntax)),
        (r"(?$)", "a", Err(Syntax)),
        (r"\E", "E", Err(Syntax)),
        (r"a\\", "a", Ok(&[])),
        (r"a*+b", "aaab", Err(Unsupported)),
        (r"(?>a*)b", "aaab", Err(Unsupported)),
        (r"(a)\1", "aa", Err(Unsupported)),
        (r"(?<x>a)\k<x>", "aa", Err(Unsupported)),
        (r"a(?!b)", "ab", Err(Unsupported)),
        (r"(?<=a)b", "ab", Err(Unsupported)),
        (r"\G", "ab", Err(Unsupported)),
        (r"\X", "ab", Err(Unsupported)),
        (r"a(?=b)c", "abc", Err(Unsupported)),
        (r"$\s", "a\n", Err(Unsupported)),
        (r"\b{g}", "a", Err(Unsupported)),
        (r"(?c)a", "a", Err(Unsupported)),
    ];
    for (pattern, text, expected) in cases {
        let got = matches(pattern, text);
        let expected = expected
            .as_ref()
            .map(|m| m.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        match (&got, &expected) {
            (Ok(g), Ok(e)) => assert_eq!(g, e, "{pattern:?} in {text:?}"),
            (Err(g), Err(e)) => assert_eq!(g, *e, "{pattern:?}"),
            _ => panic!("{pattern:?} in {text:?}: got {got:?}, Java {expected:?}"),
        }
    }
}

#[test]
fn replaces_as_java() {
    let cases: &[(&str, &str, &str, Result<&str, ()>)] = &[
        (r"b", "abc", r"\$", Ok("a$c")),
        (r"(b)", "abc", r"[$1]", Ok("a[b]c")),
        (r"(b)", "abc", r"$10", Ok("ab0c")),
        (r"(?<n>b)", "abc", r"${n}${n}", Ok("abbc")),
        (r"(b)", "abc", r"\\", Ok("a\\c")),
        (r"(b)", "abc", r"a\b", Ok("aabc")),
        (r"x", "abc", r"$9", Ok("abc")),
        (r"", "abc", r"-", Ok("-a-b-c-")),
        (r"x*", "abc", r"-", Ok("-a-b-c-")),
        (r"(b)", "abc", r"$2", Err(())),
        (r"(b)", "abc", r"$", Err(())),
        (r"(b)", "abc", r"\", Err(())),
        (r"(b)", "abc", r"$x", Err(())),
        (r"(b)", "abc", r"${x}", Err(())),
        (r"(b)", "abc", r"${}", Err(())),
        (r"(b)", "abc", r"${1}", Err(())),
        (r"(b)", "abc", r"${n", Err(())),
        (r"(a)|(b)", "ab", r"[$1|$2]", Ok("[a|][|b]")),
        (r"b$", "ab\n", r"X", Ok("aX\n")),
    ];
    for (pattern, text, replacement, expected) in cases {
        let re = JavaRegex::new(pattern).expect(pattern);
        let got = re.replace_all(text, replacement).map_err(|_| ());
        assert_eq!(
            got,
            expected.map(str::to_string),
            "{pattern:?} {replacement:?}"
        );
    }
}

#[test]
fn splits_as_java() {
    let cases: &[(&str, &str, &[&str])] = &[
        (r"x*", "abc", &["a", "b", "c", ""]),
        (r",", ",a,,", &["", "a", "", ""]),
        (r"(?=\d)", "a1b2", &["a", "1b", "2"]),
        (r"(?=[A-Z])", "camelCaseWord", &["camel", "Case", "Word"]),
        (r"\s*", "a b", &["a", "", "b", ""]),
        (r"b", "abc", &["a", "c"]),
        (r"$", "ab\n", &["ab", "\n", ""]),
    ];
    for (pattern, text, expected) in cases {
        let re = JavaRegex::new(pattern).expect(pattern);
        assert_eq!(re.split(text, -1), *expected, "{pattern:?} {text:?}");
    }
    let re = JavaRegex::new(",").expect(",");
    assert_eq!(re.split("a,b,c", 2), ["a", "b,c"]);
    assert_eq!(re.split("a,b,c", 1), ["a,b,c"]);
}

#[test]
fn translations_spell_java_out() {
    let rust = |p: &str| translate(p).map(|t| t.rust).unwrap_or_default();
    assert_eq!(rust(r"\w"), "[0-9A-Za-z_]");
    assert_eq!(rust(r"[^\w]"), "[^[0-9A-Za-z_]]");
    assert_eq!(rust(r"\Q.*\E"), r"\.\*");
    assert_eq!(rust("a.b"), r"a[^\n\r\x{85}\x{2028}\x{2029}]b");
    assert_eq!(rust("(?i)ab"), "[aA][bB]");
    assert_eq!(rust("(?<y>a)"), "(?P<y>a)");
    assert_eq!(rust("a{2,}?"), "a{2,}?");
    let t = translate("(a)(?<n>b)$").expect("valid");
    assert_eq!((t.groups, t.names.clone()), (2, vec![("n".to_string(), 2)]));
    assert!(t.before_terminator.is_some());
    assert!(
        translate("(?m)a$")
            .expect("valid")
            .before_terminator
            .is_none()
    );
    let t = translate("(a)(?=(b))").expect("valid");
    assert_eq!((t.groups, t.markers), (2, vec![2]));
}

#[test]
fn errors_say_what_java_says() {
    let error = |p: &str| match translate(p) {
        Err(e) => e.to_string(),
        Ok(t) => format!("ok: {}", t.rust),
    };
    assert_eq!(error("("), "Unclosed group near index 1");
    assert_eq!(error("a)"), "Unmatched closing ')' near index 1");
    assert_eq!(error("*"), "Dangling meta character '*' near index 0");
    assert_eq!(error("[a"), "Unclosed character class near index 2");
    assert_eq!(
        error(r"\p{Nope}"),
        "Unknown character property name {Nope} near index 8"
    );
    assert_eq!(error("a*+"), "a possessive quantifier (such as `a*+`)");
    assert_eq!(error(r"(a)\1"), r"a backreference `\1`");
}

#[test]
fn whole_text_matches_as_java_matches() {
    let whole = |p: &str, t: &str| super::full_match(p).map(|re| re.is_match(t)).ok();
    assert_eq!(whole("a|ab", "ab"), Some(true));
    assert_eq!(whole("a", "ab"), Some(false));
    assert_eq!(whole(r"(?i)\p{Alpha}\d", "A1"), Some(true));
    assert_eq!(whole("(", "a"), None);
}
