//! JSON as Spark's reader (Jackson) accepts it, rewritten as strict JSON for serde/arrow:
//! single-quoted strings (`allowSingleQuotes`, on by default) and unquoted field names
//! (`allowUnquotedFieldNames`, off by default).

use std::borrow::Cow;

/// The leniency of a JSON function, from its options.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Leniency {
    pub single_quotes: bool,
    pub unquoted_names: bool,
}

impl Default for Leniency {
    fn default() -> Self {
        Self {
            single_quotes: true,
            unquoted_names: false,
        }
    }
}

impl Leniency {
    /// `text` as strict JSON (unchanged when nothing lenient is in it).
    pub fn strict<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let quotes = self.single_quotes && text.contains('\'');
        if !quotes && !self.unquoted_names {
            return Cow::Borrowed(text);
        }
        let chars: Vec<char> = text.chars().collect();
        let mut out = String::with_capacity(text.len() + 8);
        let mut i = 0;
        // The last character written outside white space: a name may follow `{` or `,`.
        let mut last = ' ';
        while i < chars.len() {
            let c = chars[i];
            if c == '"' {
                let end = string_end(&chars, i, '"');
                out.extend(&chars[i..end]);
                i = end;
                last = '"';
            } else if c == '\'' && self.single_quotes {
                let end = string_end(&chars, i, '\'');
                out.push('"');
                let mut j = i + 1;
                let stop = if end > i + 1 && chars[end - 1] == '\'' {
                    end - 1
                } else {
                    end
                };
                while j < stop {
                    match chars[j] {
                        '\\' if chars.get(j + 1) == Some(&'\'') => {
                            out.push('\'');
                            j += 2;
                        }
                        '\\' => {
                            out.push('\\');
                            if let Some(&n) = chars.get(j + 1) {
                                out.push(n);
                            }
                            j += 2;
                        }
                        '"' => {
                            out.push_str("\\\"");
                            j += 1;
                        }
                        other => {
                            out.push(other);
                            j += 1;
                        }
                    }
                }
                out.push('"');
                i = end;
                last = '"';
            } else if self.unquoted_names
                && (last == '{' || last == ',')
                && (c.is_alphabetic() || c == '_' || c == '$')
            {
                let mut j = i;
                while j < chars.len()
                    && (chars[j].is_alphanumeric() || chars[j] == '_' || chars[j] == '$')
                {
                    j += 1;
                }
                let mut k = j;
                while k < chars.len() && chars[k].is_whitespace() {
                    k += 1;
                }
                let name: String = chars[i..j].iter().collect();
                if chars.get(k) == Some(&':') {
                    out.push('"');
                    out.push_str(&name);
                    out.push('"');
                } else {
                    out.push_str(&name);
                }
                i = j;
                last = 'a';
            } else {
                out.push(c);
                if !c.is_whitespace() {
                    last = c;
                }
                i += 1;
            }
        }
        Cow::Owned(out)
    }
}

/// The index after the string that opens at `start` with `quote` (the end of the text when
/// it is not closed).
fn string_end(chars: &[char], start: usize, quote: char) -> usize {
    let mut j = start + 1;
    while j < chars.len() {
        match chars[j] {
            '\\' => j += 2,
            c if c == quote => return j + 1,
            _ => j += 1,
        }
    }
    chars.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rewrites_what_spark_accepts() {
        let default = Leniency::default();
        assert_eq!(default.strict(r#"{"a":1}"#), r#"{"a":1}"#);
        assert_eq!(default.strict("{'a': 'x\"y'}"), r#"{"a": "x\"y"}"#);
        assert_eq!(default.strict(r"{'a': 'it\'s'}"), r#"{"a": "it's"}"#);
        assert_eq!(default.strict(r#"{"a": "it's"}"#), r#"{"a": "it's"}"#);
        assert_eq!(default.strict("{a:123}"), "{a:123}");
        let names = Leniency {
            unquoted_names: true,
            ..default
        };
        assert_eq!(
            names.strict("{a:123, b_2 : [true, null]}"),
            r#"{"a":123, "b_2" : [true, null]}"#
        );
        assert_eq!(
            names.strict(r#"{"a": "b:c", d: {e: 1}}"#),
            r#"{"a": "b:c", "d": {"e": 1}}"#
        );
    }
}
