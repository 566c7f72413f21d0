//! `to_binary(text, format)` / `try_to_binary` as Spark decodes: hex (an odd length read with a
//! leading zero), base64 (white space skipped, padding optional), or UTF-8; and `unbase64`,
//! which reads base64 as Java's MIME decoder (characters outside the alphabet skipped).

use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, BinaryBuilder};
use arrow::datatypes::DataType;
use datafusion::common::{Result, internal_err};
use serde::{Deserialize, Serialize};

use crate::error::{ErrorKind, SparkError, to_datafusion};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BinaryFormat {
    Hex,
    Base64,
    Utf8,
    /// `unbase64`'s: base64 with every character outside the alphabet skipped, up to the
    /// first `=` (Java's MIME decoder).
    MimeBase64,
}

impl BinaryFormat {
    pub fn parse(format: &str) -> Option<Self> {
        Some(match format.to_ascii_lowercase().as_str() {
            "hex" => BinaryFormat::Hex,
            "base64" => BinaryFormat::Base64,
            "utf-8" | "utf8" => BinaryFormat::Utf8,
            _ => return None,
        })
    }

    fn name(self) -> &'static str {
        match self {
            BinaryFormat::Hex => "HEX",
            BinaryFormat::Base64 | BinaryFormat::MimeBase64 => "BASE64",
            BinaryFormat::Utf8 => "UTF-8",
        }
    }

    fn decode(self, text: &str) -> Option<Vec<u8>> {
        match self {
            BinaryFormat::Utf8 => Some(text.as_bytes().to_vec()),
            BinaryFormat::Hex => {
                let digits: Vec<u8> = text
                    .bytes()
                    .map(|c| (c as char).to_digit(16).map(|d| d as u8))
                    .collect::<Option<_>>()?;
                let mut out = Vec::with_capacity(digits.len().div_ceil(2));
                let (head, rest) = digits.split_at(digits.len() % 2);
                out.extend(head.iter().copied());
                out.extend(rest.chunks(2).map(|p| (p[0] << 4) | p[1]));
                Some(out)
            }
            BinaryFormat::Base64 => {
                let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
                lenient_base64(&compact)
            }
            BinaryFormat::MimeBase64 => java_mime_base64(text).ok(),
        }
    }
}

/// Java's MIME base64 decoder (`Base64.getMimeDecoder().decode(text)`, Spark's `unbase64`),
/// step by step: characters outside the alphabet are skipped; `=` ends the text, where it must
/// end a unit of 3 letters or follow 2 letters with a second `=`; a last unit of one letter,
/// or a letter after the padding, is refused with Java's message.
fn java_mime_base64(text: &str) -> std::result::Result<Vec<u8>, String> {
    fn value(c: u8) -> Option<u32> {
        Some(u32::from(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        }))
    }
    // (Java reads the text's ISO-8859-1 bytes: other characters are '?'.)
    let bytes: Vec<u8> = text
        .chars()
        .map(|c| u8::try_from(u32::from(c)).unwrap_or(b'?'))
        .collect();
    let wrong_ending = || "Input byte array has wrong 4-byte ending unit".to_string();
    let mut out = Vec::with_capacity(bytes.len() * 3 / 4);
    let (mut bits, mut shift) = (0u32, 18i32);
    let mut rest = bytes.iter().copied().enumerate().peekable();
    while let Some((_, c)) = rest.next() {
        match value(c) {
            Some(v) => {
                bits |= v << shift;
                shift -= 6;
                if shift < 0 {
                    out.extend_from_slice(&[(bits >> 16) as u8, (bits >> 8) as u8, bits as u8]);
                    (bits, shift) = (0, 18);
                }
            }
            None if c == b'=' => {
                if shift == 18 {
                    return Err(wrong_ending());
                }
                if shift == 6 && rest.next().map(|(_, c)| c) != Some(b'=') {
                    return Err(wrong_ending());
                }
                break;
            }
            None => {}
        }
    }
    match shift {
        6 => out.push((bits >> 16) as u8),
        0 => out.extend_from_slice(&[(bits >> 16) as u8, (bits >> 8) as u8]),
        12 => return Err("Last unit does not have enough valid bits".into()),
        _ => {}
    }
    for (i, c) in rest {
        if value(c).is_some() {
            return Err(format!(
                "Input byte array has incorrect ending byte at {}",
                i + 1
            ));
        }
    }
    Ok(out)
}

/// Base64 with padding optional and the last group's unused bits ignored.
fn lenient_base64(text: &str) -> Option<Vec<u8>> {
    use base64::Engine;
    use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
    let lenient = GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        GeneralPurposeConfig::new()
            .with_decode_allow_trailing_bits(true)
            .with_decode_padding_mode(DecodePaddingMode::Indifferent),
    );
    lenient.decode(text).ok()
}

pub(super) fn to_binary(arrays: &[ArrayRef], format: BinaryFormat, fail: bool) -> Result<ArrayRef> {
    let Some(input) = arrays.first() else {
        return internal_err!("to_binary without a value");
    };
    let text = arrow::compute::cast(input, &DataType::Utf8)?;
    let text = text.as_string::<i32>();
    let mut out = BinaryBuilder::with_capacity(text.len(), text.len() * 4);
    for i in 0..text.len() {
        if text.is_null(i) {
            out.append_null();
            continue;
        }
        let t = text.value(i);
        // (unbase64 fails as Java's decoder does: an IllegalArgumentException of no class.)
        if format == BinaryFormat::MimeBase64 && fail {
            match java_mime_base64(t) {
                Ok(b) => out.append_value(b),
                Err(message) => {
                    return Err(to_datafusion(SparkError::new(
                        ErrorKind::IllegalArgument,
                        "",
                        "",
                        message,
                        vec![],
                    )));
                }
            }
            continue;
        }
        match format.decode(t) {
            Some(b) => out.append_value(b),
            None if !fail => out.append_null(),
            None => {
                return Err(to_datafusion(SparkError::new(
                    ErrorKind::IllegalArgument,
                    "CONVERSION_INVALID_INPUT",
                    "22018",
                    format!(
                        "The value '{t}' ('{}') cannot be converted to \"BINARY\" because it is malformed. Correct the value as per the syntax, or change its format. Use `try_to_binary` to tolerate malformed input and return NULL instead.",
                        format.name()
                    ),
                    vec![
                        ("str", format!("'{t}'")),
                        ("fmt", format!("'{}'", format.name())),
                        ("targetType", "\"BINARY\"".into()),
                        ("suggestion", "`try_to_binary`".into()),
                    ],
                )));
            }
        }
    }
    Ok(Arc::new(out.finish()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_as_spark() {
        assert_eq!(BinaryFormat::Hex.decode("abc"), Some(vec![0x0a, 0xbc]));
        assert_eq!(BinaryFormat::Hex.decode("zz"), None);
        assert_eq!(BinaryFormat::Base64.decode("YWJ"), Some(b"ab".to_vec()));
        assert_eq!(BinaryFormat::Base64.decode("YW Jj"), Some(b"abc".to_vec()));
        assert_eq!(BinaryFormat::Base64.decode("Y!WJj"), None);
        // unbase64's: as Spark 4.3 answers.
        let mime = |t| BinaryFormat::MimeBase64.decode(t);
        assert_eq!(
            mime("Spark SQL"),
            Some(vec![0x4a, 0x96, 0xab, 0x91, 0x24, 0x0b])
        );
        assert_eq!(mime("a,b,c"), Some(vec![0x69, 0xb7]));
        assert_eq!(mime("10"), Some(vec![0xd7]));
        assert_eq!(mime("3"), None);
        // Java's MIME decoder's answers and messages, as Spark 4.3 gave them.
        let java = java_mime_base64;
        assert_eq!(java("ab=="), Ok(b"i".to_vec()));
        assert_eq!(java("abc=@"), Ok(b"i\xb7".to_vec()));
        assert_eq!(java("!!YWJj!!"), Ok(b"abc".to_vec()));
        assert_eq!(java("YQ"), Ok(b"a".to_vec()));
        assert_eq!(java("@@@"), Ok(vec![]));
        let wrong = Err("Input byte array has wrong 4-byte ending unit".to_string());
        for t in ["ab=c", "abcd=", "=", "ab=", "ab=@", "YWJj=", "YQ=x"] {
            assert_eq!(java(t), wrong, "{t}");
        }
        let short = Err("Last unit does not have enough valid bits".to_string());
        assert_eq!(java("a"), short);
        assert_eq!(java("a="), short);
        assert_eq!(java("12.345"), short);
        let after = Err("Input byte array has incorrect ending byte at 5".to_string());
        assert_eq!(java("QUI=junk"), after);
        assert_eq!(java("ab==c"), after);
    }
}
