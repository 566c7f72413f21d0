//! Java's replacement strings (`Matcher.appendReplacement`): `$n` (the longest group number
//! that exists, the first digit always), `${name}`, and a backslash that makes the next
//! character literal; with Java's messages for the malformed ones.

/// A piece of a replacement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Piece {
    Text(String),
    Group(usize),
}

/// The pieces of `replacement` for a pattern with `groups` groups and these named ones.
pub(crate) fn parse_replacement(
    replacement: &str,
    groups: usize,
    names: &[(String, usize)],
) -> Result<Vec<Piece>, String> {
    let chars: Vec<char> = replacement.chars().collect();
    let mut out: Vec<Piece> = Vec::new();
    let mut text = String::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        i += 1;
        match c {
            '\\' => match chars.get(i) {
                Some(&n) => {
                    text.push(n);
                    i += 1;
                }
                None => return Err("character to be escaped is missing".into()),
            },
            '$' => {
                let Some(&n) = chars.get(i) else {
                    return Err("Illegal group reference: group index is missing".into());
                };
                let group = if n == '{' {
                    i += 1;
                    let begin = i;
                    while chars.get(i).is_some_and(char::is_ascii_alphanumeric) {
                        i += 1;
                    }
                    if begin == i {
                        return Err("named capturing group has 0 length name".into());
                    }
                    if chars.get(i) != Some(&'}') {
                        return Err("named capturing group is missing trailing '}'".into());
                    }
                    let name: String = chars[begin..i].iter().collect();
                    i += 1;
                    if name.starts_with(|c: char| c.is_ascii_digit()) {
                        return Err(format!(
                            "capturing group name {{{name}}} starts with digit character"
                        ));
                    }
                    match names.iter().find(|(n, _)| *n == name) {
                        Some((_, g)) => *g,
                        None => return Err(format!("No group with name {{{name}}}")),
                    }
                } else {
                    let Some(first) = n.to_digit(10) else {
                        return Err("Illegal group reference".into());
                    };
                    i += 1;
                    let mut group = first as usize;
                    while let Some(d) = chars.get(i).and_then(|c| c.to_digit(10)) {
                        let more = group * 10 + d as usize;
                        if groups < more {
                            break;
                        }
                        group = more;
                        i += 1;
                    }
                    if group > groups {
                        return Err(format!("No group {group}"));
                    }
                    group
                };
                if !text.is_empty() {
                    out.push(Piece::Text(std::mem::take(&mut text)));
                }
                out.push(Piece::Group(group));
            }
            c => text.push(c),
        }
    }
    if !text.is_empty() {
        out.push(Piece::Text(text));
    }
    Ok(out)
}
