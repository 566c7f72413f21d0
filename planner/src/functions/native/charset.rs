//! `encode(str, charset)` / `decode(bin, charset)` in the charsets Spark accepts (US-ASCII,
//! ISO-8859-1, UTF-8, UTF-16BE, UTF-16LE, UTF-16, UTF-32), as Java's coders write and read
//! them: UTF-16 written big-endian after a byte-order mark and read by its mark (big-endian
//! without one), UTF-32 big-endian; a character the charset cannot hold, or bytes that are no
//! text in it, are Spark's MALFORMED_CHARACTER_CODING.

use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, BinaryBuilder, StringBuilder};
use arrow::datatypes::DataType;
use datafusion::common::{Result, internal_err};
use serde::{Deserialize, Serialize};

use crate::error::{ErrorKind, SparkError, to_datafusion};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Charset {
    UsAscii,
    Iso88591,
    Utf8,
    Utf16Be,
    Utf16Le,
    Utf16,
    Utf32,
}

impl Charset {
    /// The charset Spark names `name` (any case), None for others.
    pub fn named(name: &str) -> Option<Self> {
        Some(match name.to_ascii_lowercase().as_str() {
            "us-ascii" => Charset::UsAscii,
            "iso-8859-1" => Charset::Iso88591,
            "utf-8" => Charset::Utf8,
            "utf-16be" => Charset::Utf16Be,
            "utf-16le" => Charset::Utf16Le,
            "utf-16" => Charset::Utf16,
            "utf-32" => Charset::Utf32,
            _ => return None,
        })
    }

    fn name(self) -> &'static str {
        match self {
            Charset::UsAscii => "US-ASCII",
            Charset::Iso88591 => "ISO-8859-1",
            Charset::Utf8 => "UTF-8",
            Charset::Utf16Be => "UTF-16BE",
            Charset::Utf16Le => "UTF-16LE",
            Charset::Utf16 => "UTF-16",
            Charset::Utf32 => "UTF-32",
        }
    }

    fn encode(self, text: &str) -> Option<Vec<u8>> {
        let units = |big: bool| {
            text.encode_utf16().flat_map(move |u| {
                if big {
                    u.to_be_bytes()
                } else {
                    u.to_le_bytes()
                }
            })
        };
        Some(match self {
            Charset::Utf8 => text.as_bytes().to_vec(),
            Charset::UsAscii => text.is_ascii().then(|| text.as_bytes().to_vec())?,
            Charset::Iso88591 => text
                .chars()
                .map(|c| u8::try_from(u32::from(c)).ok())
                .collect::<Option<Vec<u8>>>()?,
            Charset::Utf16Be => units(true).collect(),
            Charset::Utf16Le => units(false).collect(),
            // (Java writes a byte-order mark before any text, none for an empty string.)
            Charset::Utf16 if text.is_empty() => vec![],
            Charset::Utf16 => [0xFE, 0xFF].into_iter().chain(units(true)).collect(),
            Charset::Utf32 => text
                .chars()
                .flat_map(|c| u32::from(c).to_be_bytes())
                .collect(),
        })
    }

    fn decode(self, bytes: &[u8]) -> Option<String> {
        let utf16 = |bytes: &[u8], big: bool| -> Option<String> {
            if !bytes.len().is_multiple_of(2) {
                return None;
            }
            let units = bytes.chunks_exact(2).map(|p| {
                let pair = [p[0], p[1]];
                if big {
                    u16::from_be_bytes(pair)
                } else {
                    u16::from_le_bytes(pair)
                }
            });
            char::decode_utf16(units)
                .collect::<Result<String, _>>()
                .ok()
        };
        match self {
            Charset::Utf8 => std::str::from_utf8(bytes).ok().map(str::to_string),
            Charset::UsAscii => bytes
                .is_ascii()
                .then(|| String::from_utf8_lossy(bytes).into()),
            Charset::Iso88591 => Some(bytes.iter().map(|&b| char::from(b)).collect()),
            Charset::Utf16Be => utf16(bytes, true),
            Charset::Utf16Le => utf16(bytes, false),
            Charset::Utf16 => match bytes {
                [0xFE, 0xFF, rest @ ..] => utf16(rest, true),
                [0xFF, 0xFE, rest @ ..] => utf16(rest, false),
                _ => utf16(bytes, true),
            },
            Charset::Utf32 => {
                if !bytes.len().is_multiple_of(4) {
                    return None;
                }
                bytes
                    .chunks_exact(4)
                    .map(|q| char::from_u32(u32::from_be_bytes([q[0], q[1], q[2], q[3]])))
                    .collect()
            }
        }
    }
}

fn malformed(function: &str, charset: Charset) -> datafusion::error::DataFusionError {
    to_datafusion(SparkError::new(
        ErrorKind::Runtime,
        "MALFORMED_CHARACTER_CODING",
        "22000",
        format!(
            "Invalid value found when performing `{function}` with {}",
            charset.name()
        ),
        vec![],
    ))
}

/// Spark's error for a charset it does not know (`function`: `encode` or `decode`).
pub fn unknown_charset(function: &str, name: &str) -> SparkError {
    SparkError::new(
        ErrorKind::IllegalArgument,
        "INVALID_PARAMETER_VALUE.CHARSET",
        "22023",
        format!(
            "The value of parameter(s) `charset` in `{function}` is invalid: expects one of the iso-8859-1, us-ascii, utf-16, utf-16be, utf-16le, utf-32, utf-8, but got {name}."
        ),
        vec![],
    )
}

/// `encode` or `decode` of each value in the charset its row names (a column of charsets):
/// NULL where either is NULL.
pub(super) fn evaluate_per_row(arrays: &[ArrayRef], encode: bool) -> Result<ArrayRef> {
    let [input, charsets] = arrays else {
        return internal_err!("a charset function takes a value and a charset");
    };
    let function = if encode { "encode" } else { "decode" };
    let charsets = arrow::compute::cast(charsets, &DataType::Utf8)?;
    let charsets = charsets.as_string::<i32>();
    code(input, encode, |i| {
        if charsets.is_null(i) {
            return Ok(None);
        }
        let name = charsets.value(i);
        Charset::named(name)
            .map(Some)
            .ok_or_else(|| to_datafusion(unknown_charset(function, name)))
    })
}

/// `encode` (`to_binary`) or `decode` of each value.
pub(super) fn evaluate(arrays: &[ArrayRef], charset: Charset, encode: bool) -> Result<ArrayRef> {
    let Some(input) = arrays.first() else {
        return internal_err!("a charset function takes a value");
    };
    code(input, encode, |_| Ok(Some(charset)))
}

/// `encode` or `decode` of each value of `input` in the charset `charset_of` gives its row
/// (NULL where it gives none).
fn code(
    input: &ArrayRef,
    encode: bool,
    charset_of: impl Fn(usize) -> Result<Option<Charset>>,
) -> Result<ArrayRef> {
    if encode {
        let text = arrow::compute::cast(input, &DataType::Utf8)?;
        let text = text.as_string::<i32>();
        let mut out = BinaryBuilder::with_capacity(text.len(), text.value_data().len());
        for (i, value) in text.iter().enumerate() {
            match (value, charset_of(i)?) {
                (Some(s), Some(charset)) => out.append_value(
                    charset
                        .encode(s)
                        .ok_or_else(|| malformed("encode", charset))?,
                ),
                _ => out.append_null(),
            }
        }
        Ok(Arc::new(out.finish()))
    } else {
        let bytes = arrow::compute::cast(input, &DataType::Binary)?;
        let bytes = bytes.as_binary::<i32>();
        let mut out = StringBuilder::with_capacity(bytes.len(), bytes.value_data().len());
        for (i, value) in bytes.iter().enumerate() {
            match (value, charset_of(i)?) {
                (Some(b), Some(charset)) => out.append_value(
                    charset
                        .decode(b)
                        .ok_or_else(|| malformed("decode", charset))?,
                ),
                _ => out.append_null(),
            }
        }
        Ok(Arc::new(out.finish()))
    }
}

#[cfg(test)]
mod tests {
    use super::Charset;

    #[test]
    fn codes_as_java_does() {
        assert_eq!(
            Charset::Utf16.encode("ab"),
            Some(vec![0xFE, 0xFF, 0, b'a', 0, b'b'])
        );
        assert_eq!(Charset::Utf16Le.encode("a"), Some(vec![b'a', 0]));
        assert_eq!(Charset::Utf32.encode("a"), Some(vec![0, 0, 0, b'a']));
        assert_eq!(Charset::UsAscii.encode("é"), None);
        assert_eq!(Charset::Iso88591.encode("é"), Some(vec![0xE9]));
        assert_eq!(
            Charset::Utf16.decode(&[0xFF, 0xFE, b'a', 0]).as_deref(),
            Some("a")
        );
        assert_eq!(Charset::Utf16.decode(&[0, b'a']).as_deref(), Some("a"));
        assert_eq!(Charset::Utf8.decode(&[0xFF]), None);
    }
}
