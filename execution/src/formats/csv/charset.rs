//! The character sets Spark reads CSV files in (`encoding`, `charset`), and the transcoding
//! of text in another one into UTF-8, chunk by chunk, before it is tokenized.

use bytes::Bytes;
use datafusion::common::{DataFusionError, Result};
use futures::StreamExt;
use futures::stream::BoxStream;
use serde::{Deserialize, Serialize};

/// The character sets Spark reads CSV files in (`encoding`, `charset`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Charset {
    Utf8,
    Latin1,
    Ascii,
    /// Big-endian unless a byte order mark says otherwise, as Java's `UTF-16`.
    Utf16,
    Utf16Be,
    Utf16Le,
    Utf32,
}

impl Charset {
    /// The character set Spark names `name` (its list, ignoring case).
    pub fn named(name: &str) -> Option<Self> {
        Some(match name.to_ascii_lowercase().as_str() {
            "utf-8" => Self::Utf8,
            "iso-8859-1" => Self::Latin1,
            "us-ascii" => Self::Ascii,
            "utf-16" => Self::Utf16,
            "utf-16be" => Self::Utf16Be,
            "utf-16le" => Self::Utf16Le,
            "utf-32" => Self::Utf32,
            _ => return None,
        })
    }

    /// Whether a line end is a `\n` byte, so files split into byte ranges at line ends.
    pub(super) fn byte_lines(self) -> bool {
        matches!(self, Self::Utf8 | Self::Latin1 | Self::Ascii)
    }
}

/// Turns text in another character set into UTF-8, chunk by chunk.
pub(super) enum Transcoder {
    Latin1,
    /// Bytes above 127 are not ASCII: U+FFFD, as Java decodes them.
    Ascii,
    Utf16(encoding_rs::Decoder),
}

impl Transcoder {
    pub(super) fn new(charset: Charset) -> Result<Option<Self>> {
        Ok(Some(match charset {
            Charset::Utf8 => return Ok(None),
            Charset::Latin1 => Self::Latin1,
            Charset::Ascii => Self::Ascii,
            Charset::Utf16 => Self::Utf16(encoding_rs::UTF_16BE.new_decoder()),
            Charset::Utf16Be => Self::Utf16(encoding_rs::UTF_16BE.new_decoder_with_bom_removal()),
            Charset::Utf16Le => Self::Utf16(encoding_rs::UTF_16LE.new_decoder_with_bom_removal()),
            Charset::Utf32 => {
                return Err(DataFusionError::NotImplemented(
                    "CSV files in UTF-32".into(),
                ));
            }
        }))
    }

    fn transcode(&mut self, chunk: &[u8], last: bool) -> Bytes {
        match self {
            Self::Latin1 => {
                let mut out = vec![0; chunk.len() * 2];
                let n = encoding_rs::mem::convert_latin1_to_utf8(chunk, &mut out);
                out.truncate(n);
                out.into()
            }
            Self::Ascii => {
                let mut out = String::with_capacity(chunk.len());
                out.extend(chunk.iter().map(|&b| {
                    if b.is_ascii() {
                        b as char
                    } else {
                        char::REPLACEMENT_CHARACTER
                    }
                }));
                out.into_bytes().into()
            }
            Self::Utf16(decoder) => {
                let room = decoder
                    .max_utf8_buffer_length(chunk.len())
                    .unwrap_or(chunk.len() * 3 + 16);
                let mut out = String::with_capacity(room);
                let _ = decoder.decode_to_string(chunk, &mut out, last);
                out.into_bytes().into()
            }
        }
    }
}

/// Text in another character set as UTF-8.
pub(super) fn to_utf8(
    input: BoxStream<'static, Result<Bytes>>,
    transcoder: Transcoder,
) -> BoxStream<'static, Result<Bytes>> {
    futures::stream::unfold(Some((input, transcoder)), |state| async move {
        let (mut input, mut transcoder) = state?;
        let (chunk, last) = match input.next().await {
            Some(Err(e)) => return Some((Err(e), None)),
            Some(Ok(chunk)) => (chunk, false),
            None => (Bytes::new(), true),
        };
        let text = transcoder.transcode(&chunk, last);
        Some((Ok(text), (!last).then_some((input, transcoder))))
    })
    .boxed()
}
