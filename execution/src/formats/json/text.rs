//! Spark's JSON read options that change the text before it is parsed as JSON:
//! `allowComments` (Java/C++ comments outside strings are skipped) and `primitivesAsString`
//! (numbers and booleans read as strings of their literal text: `1.50` stays `"1.50"`).

/// Which rewrites a read asks for.
#[derive(Debug, Clone, Copy, Default)]
pub struct JsonTextOptions {
    pub comments: bool,
    pub primitives_as_strings: bool,
}

impl JsonTextOptions {
    pub fn any(&self) -> bool {
        self.comments || self.primitives_as_strings
    }
}

/// `text` without comments and with primitives quoted, as `options` say. The scan is by
/// bytes: every byte that matters is ASCII, so slices always fall on character boundaries.
pub fn rewrite(text: &str, options: JsonTextOptions) -> Result<String, String> {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    // Bytes from `copied` on are not yet in `out`.
    let mut copied = 0;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                i += 1;
                while i < bytes.len() {
                    match bytes[i] {
                        b'\\' => i += 2,
                        b'"' => {
                            i += 1;
                            break;
                        }
                        _ => i += 1,
                    }
                }
                i = i.min(bytes.len());
            }
            b'/' if options.comments && bytes.get(i + 1) == Some(&b'/') => {
                out.push_str(&text[copied..i]);
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
                copied = i;
            }
            b'/' if options.comments && bytes.get(i + 1) == Some(&b'*') => {
                out.push_str(&text[copied..i]);
                let end = text[i + 2..]
                    .find("*/")
                    .ok_or_else(|| "an unterminated comment".to_string())?;
                i += 2 + end + 2;
                out.push(' ');
                copied = i;
            }
            b'-' | b'0'..=b'9' | b't' | b'f' if options.primitives_as_strings => {
                out.push_str(&text[copied..i]);
                let start = i;
                while i < bytes.len()
                    && !matches!(
                        bytes[i],
                        b',' | b'}' | b']' | b' ' | b'\t' | b'\r' | b'\n' | b'/'
                    )
                {
                    i += 1;
                }
                out.push('"');
                out.push_str(&text[start..i]);
                out.push('"');
                copied = i;
            }
            _ => i += 1,
        }
    }
    out.push_str(&text[copied..]);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_and_primitives() {
        let both = JsonTextOptions {
            comments: true,
            primitives_as_strings: true,
        };
        assert_eq!(
            rewrite(
                r#"{"a": 1.50, /* c */ "b": [true,-2e3], "c": null} // end"#,
                both
            )
            .unwrap(),
            r#"{"a": "1.50",   "b": ["true","-2e3"], "c": null} "#
        );
        // Strings keep what looks like comments or numbers, escaped quotes included.
        let text = r#"{"s": "x // y /* z */ \" 1", "é": "ü"}"#;
        assert_eq!(rewrite(text, both).unwrap(), text);
        let comments = JsonTextOptions {
            comments: true,
            ..Default::default()
        };
        assert_eq!(
            rewrite("// a\n{\"n\": 1}\n", comments).unwrap(),
            "\n{\"n\": 1}\n"
        );
        assert!(rewrite("{\"a\": 1 /* open", comments).is_err());
    }
}
