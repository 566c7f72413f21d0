//! Spark's datetime patterns (`yyyy-MM-dd HH:mm:ss.SSS`, Java `DateTimeFormatter` letters)
//! as chrono format strings, for formatting.

use ember_execution::write::values;

use crate::error::{PlanError, PlanResult};

fn unsupported(pattern: &str, what: &str) -> PlanError {
    PlanError::Unsupported(format!("datetime pattern letter(s) {what} in '{pattern}'"))
}

/// Translate a Spark datetime pattern into a chrono `strftime` format.
pub fn to_chrono(pattern: &str) -> PlanResult<String> {
    let chars: Vec<char> = pattern.chars().collect();
    let [x1, x2, x3] = [values::OFFSET_X1, values::OFFSET_X2, values::OFFSET_X3].map(String::from);
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '\'' {
            // Quoted literal text; '' is a single quote.
            if chars.get(i + 1) == Some(&'\'') {
                out.push('\'');
                i += 2;
                continue;
            }
            i += 1;
            while i < chars.len() {
                if chars[i] == '\'' {
                    if chars.get(i + 1) == Some(&'\'') {
                        out.push('\'');
                        i += 2;
                        continue;
                    }
                    break;
                }
                push_literal(&mut out, chars[i]);
                i += 1;
            }
            i += 1;
            continue;
        }
        if !c.is_ascii_alphabetic() {
            push_literal(&mut out, c);
            i += 1;
            continue;
        }
        let mut n = 1;
        while chars.get(i + n) == Some(&c) {
            n += 1;
        }
        let run: String = std::iter::repeat_n(c, n).collect();
        let spec = match (c, n) {
            ('y' | 'u', 2) => "%y",
            ('y' | 'u', _) => "%Y",
            ('M' | 'L', 1) => "%-m",
            ('M' | 'L', 2) => "%m",
            ('M' | 'L', 3) => "%b",
            ('M' | 'L', _) => "%B",
            ('d', 1) => "%-d",
            ('d', 2) => "%d",
            ('D', 1) => "%-j",
            ('D', _) => "%j",
            ('H', 1) => "%-H",
            ('H', 2) => "%H",
            ('h', 1) => "%-I",
            ('h', 2) => "%I",
            ('m', 1) => "%-M",
            ('m', 2) => "%M",
            ('s', 1) => "%-S",
            ('s', 2) => "%S",
            ('S', 3) => "%3f",
            ('S', 6) => "%6f",
            ('S', 9) => "%9f",
            ('a', 1) => "%p",
            ('E', 1..=3) => "%a",
            ('E', _) => "%A",
            // Spark's `X` prints `Z` for UTC: markers that the writer spells out.
            ('X', 1) => x1.as_str(),
            ('X', 2) => x2.as_str(),
            ('X', 3) => x3.as_str(),
            ('x', 1 | 2) | ('Z', 1..=3) => "%z",
            ('x', 3) | ('Z', 5) => "%:z",
            ('z', 1..=3) | ('V', 2) => "%Z",
            _ => return Err(unsupported(pattern, &run)),
        };
        out.push_str(spec);
        i += n;
    }
    Ok(out)
}

fn push_literal(out: &mut String, c: char) {
    if c == '%' {
        out.push_str("%%");
    } else {
        out.push(c);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn common_patterns() {
        assert_eq!(to_chrono("yyyy-MM-dd").unwrap(), "%Y-%m-%d");
        assert_eq!(
            to_chrono("yyyy-MM-dd'T'HH:mm:ss.SSSXXX").unwrap(),
            format!("%Y-%m-%dT%H:%M:%S.%3f{}", values::OFFSET_X3)
        );
        assert_eq!(to_chrono("dd/MM/yy h:m a").unwrap(), "%d/%m/%y %-I:%-M %p");
        assert_eq!(to_chrono("'it''s' yyyy %").unwrap(), "it's %Y %%");
        assert!(to_chrono("yyyy G").is_err());
    }
}
