//! Java's Unicode case-insensitive matching (`(?iu)`): a character matches another when
//! `toLowerCase(toUpperCase(c))` of both agree, a range when the character, its upper case
//! or the lower case of that is in it. These are Java's simple (one character) case
//! mappings, written out as sets, since Rust's case folding differs (`ı`, `İ`, `ſ`, `K`).

use std::sync::LazyLock;

/// `Character.toUpperCase`: the simple mapping.
fn upper(c: char) -> char {
    let code = u32::from(c);
    // Greek letters with ypogegrammeni: their simple upper case is the titlecase letter.
    let greek = match code {
        0x1F80..=0x1F87 | 0x1F90..=0x1F97 | 0x1FA0..=0x1FA7 => Some(code + 8),
        0x1FB3 => Some(0x1FBC),
        0x1FC3 => Some(0x1FCC),
        0x1FF3 => Some(0x1FFC),
        _ => None,
    };
    if let Some(g) = greek.and_then(char::from_u32) {
        return g;
    }
    let mut u = c.to_uppercase();
    match (u.next(), u.next()) {
        (Some(x), None) => x,
        _ => c,
    }
}

/// `Character.toLowerCase`: the simple mapping.
fn lower(c: char) -> char {
    if c == '\u{130}' {
        return 'i';
    }
    let mut l = c.to_lowercase();
    match (l.next(), l.next()) {
        (Some(x), None) => x,
        _ => c,
    }
}

/// Every character whose case mappings are not itself: the character, its upper case and
/// the lower case of that.
static MAPPED: LazyLock<Vec<(u32, u32, u32)>> = LazyLock::new(|| {
    (0..0x20000u32)
        .filter_map(char::from_u32)
        .filter_map(|c| {
            let u = upper(c);
            let key = lower(u);
            (u != c || key != c).then_some((u32::from(c), u32::from(u), u32::from(key)))
        })
        .collect()
});

/// What a single character matches under `(?iu)` (Java's `single`).
pub(super) fn single(code: u32) -> Vec<(u32, u32)> {
    let Some(c) = char::from_u32(code) else {
        return vec![(code, code)];
    };
    let up = upper(c);
    let key = lower(up);
    if up == key {
        return vec![(code, code)];
    }
    let key = u32::from(key);
    let mut out = vec![(code, code), (key, key)];
    out.extend(
        MAPPED
            .iter()
            .filter(|(_, _, k)| *k == key)
            .map(|(c, _, _)| (*c, *c)),
    );
    out
}

/// What a range matches under `(?iu)` (Java's `CIRangeU`).
pub(super) fn range(from: u32, to: u32) -> Vec<(u32, u32)> {
    let mut out = vec![(from, to)];
    let within = |x: u32| (from..=to).contains(&x);
    out.extend(
        MAPPED
            .iter()
            .filter(|(_, u, k)| within(*u) || within(*k))
            .map(|(c, _, _)| (*c, *c)),
    );
    out
}

/// A Latin-1 character of a class under `(?iu)` (Java's `BitClass.add`), unless it is one
/// whose case partners leave Latin-1 (`single` takes those).
pub(super) fn latin1(code: u32) -> Option<Vec<(u32, u32)>> {
    const SPECIAL: [u32; 10] = [0xFF, 0xB5, 0x49, 0x69, 0x53, 0x73, 0x4B, 0x6B, 0xC5, 0xE5];
    if SPECIAL.contains(&code) {
        return None;
    }
    let c = char::from_u32(code)?;
    let (l, u) = (u32::from(lower(c)), u32::from(upper(c)));
    Some(vec![(code, code), (l, l), (u, u)])
}
