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
            BinaryFormat::MimeBase64 => {
                let before_padding = text.split('=').next().unwrap_or_default();
                let letters: String = before_padding
                    .chars()
                    .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '/'))
                    .collect();
                lenient_base64(&letters)
            }
        }
    }
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
        assert_eq!(mime("QUI=junk"), Some(b"AB".to_vec()));
        assert_eq!(mime("3"), None);
    }
}
