//! `parse_json`: strict JSON into a variant.

use arrow::array::{Array, ArrayRef, AsArray};
use arrow::datatypes::DataType;
use datafusion::common::Result;

use super::VariantColumn;
use super::builder::Builder;
use crate::error::{ErrorKind, SparkError, to_datafusion};

// ---- parse_json ------------------------------------------------------------------------------

pub(super) fn parse_json_column(input: &ArrayRef, fail: bool) -> Result<ArrayRef> {
    let text = arrow::compute::cast(input, &DataType::Utf8)?;
    let text = text.as_string::<i32>();
    let mut out = VariantColumn::new(text.len());
    for row in 0..text.len() {
        if text.is_null(row) {
            out.append_null();
            continue;
        }
        let s = text.value(row);
        let mut b = Builder::default();
        let mut p = JsonParser {
            text: s.as_bytes(),
            pos: 0,
        };
        let parsed = p.value(&mut b, 0);
        match parsed {
            Ok(()) => out.append(b.finish()),
            Err(e) if fail => return Err(to_datafusion(e.error(s))),
            Err(_) => out.append_null(),
        }
    }
    out.finish()
}

pub(super) enum JsonError {
    Malformed,
    DuplicateKey(String),
}

impl JsonError {
    pub(super) fn error(self, text: &str) -> SparkError {
        match self {
            JsonError::Malformed => SparkError::new(
                ErrorKind::Spark,
                "MALFORMED_RECORD_IN_PARSING.WITHOUT_SUGGESTION",
                "22023",
                format!("Malformed records are detected in record parsing: {text}."),
                vec![
                    ("badRecord", text.to_string()),
                    ("failFastMode", "FAILFAST".into()),
                ],
            ),
            JsonError::DuplicateKey(key) => SparkError::new(
                ErrorKind::Runtime,
                "VARIANT_DUPLICATE_KEY",
                "22023",
                format!("Failed to build variant because of a duplicate object key `{key}`."),
                vec![("key", key)],
            ),
        }
    }
}

/// Strict JSON (as Jackson reads it by default) into a variant; the first value of the text,
/// whatever follows it (as Spark).
pub(super) struct JsonParser<'a> {
    pub(super) text: &'a [u8],
    pub(super) pos: usize,
}

impl JsonParser<'_> {
    pub(super) fn ws(&mut self) {
        while self
            .text
            .get(self.pos)
            .is_some_and(|c| matches!(c, b' ' | b'\t' | b'\n' | b'\r'))
        {
            self.pos += 1;
        }
    }

    pub(super) fn literal(&mut self, word: &[u8]) -> std::result::Result<(), JsonError> {
        if self.text[self.pos..].starts_with(word) {
            self.pos += word.len();
            Ok(())
        } else {
            Err(JsonError::Malformed)
        }
    }

    pub(super) fn value(
        &mut self,
        b: &mut Builder,
        depth: usize,
    ) -> std::result::Result<(), JsonError> {
        if depth > 1000 {
            return Err(JsonError::Malformed);
        }
        self.ws();
        match self.text.get(self.pos) {
            Some(b'{') => {
                self.pos += 1;
                let start = b.value.len();
                let mut fields = Vec::new();
                self.ws();
                if self.text.get(self.pos) == Some(&b'}') {
                    self.pos += 1;
                } else {
                    loop {
                        self.ws();
                        let key = self.string()?;
                        self.ws();
                        if self.text.get(self.pos) != Some(&b':') {
                            return Err(JsonError::Malformed);
                        }
                        self.pos += 1;
                        b.field(&mut fields, start, &key);
                        self.value(b, depth + 1)?;
                        self.ws();
                        match self.text.get(self.pos) {
                            Some(b',') => self.pos += 1,
                            Some(b'}') => {
                                self.pos += 1;
                                break;
                            }
                            _ => return Err(JsonError::Malformed),
                        }
                    }
                }
                // Spark reports a duplicate key as a malformed record.
                b.finish_object(start, fields)
                    .map_err(|_| JsonError::Malformed)
            }
            Some(b'[') => {
                self.pos += 1;
                let start = b.value.len();
                let mut offsets = Vec::new();
                self.ws();
                if self.text.get(self.pos) == Some(&b']') {
                    self.pos += 1;
                } else {
                    loop {
                        offsets.push(b.value.len() - start);
                        self.value(b, depth + 1)?;
                        self.ws();
                        match self.text.get(self.pos) {
                            Some(b',') => self.pos += 1,
                            Some(b']') => {
                                self.pos += 1;
                                break;
                            }
                            _ => return Err(JsonError::Malformed),
                        }
                    }
                }
                b.finish_array(start, &offsets);
                Ok(())
            }
            Some(b'"') => {
                let s = self.string()?;
                b.string(&s);
                Ok(())
            }
            Some(b't') => self.literal(b"true").map(|_| b.boolean(true)),
            Some(b'f') => self.literal(b"false").map(|_| b.boolean(false)),
            Some(b'n') => self.literal(b"null").map(|_| b.null()),
            Some(b'-' | b'0'..=b'9') => self.number(b),
            _ => Err(JsonError::Malformed),
        }
    }

    pub(super) fn string(&mut self) -> std::result::Result<String, JsonError> {
        if self.text.get(self.pos) != Some(&b'"') {
            return Err(JsonError::Malformed);
        }
        self.pos += 1;
        let mut out: Vec<u8> = Vec::new();
        loop {
            let Some(&c) = self.text.get(self.pos) else {
                return Err(JsonError::Malformed);
            };
            self.pos += 1;
            match c {
                b'"' => break,
                b'\\' => {
                    let Some(&e) = self.text.get(self.pos) else {
                        return Err(JsonError::Malformed);
                    };
                    self.pos += 1;
                    match e {
                        b'"' | b'\\' | b'/' => out.push(e),
                        b'b' => out.push(8),
                        b'f' => out.push(12),
                        b'n' => out.push(b'\n'),
                        b'r' => out.push(b'\r'),
                        b't' => out.push(b'\t'),
                        b'u' => {
                            let unit = self.hex4()?;
                            let c = if (0xD800..0xDC00).contains(&unit) {
                                // A surrogate pair.
                                if !self.text[self.pos..].starts_with(b"\\u") {
                                    return Err(JsonError::Malformed);
                                }
                                self.pos += 2;
                                let low = self.hex4()?;
                                if !(0xDC00..0xE000).contains(&low) {
                                    return Err(JsonError::Malformed);
                                }
                                char::from_u32(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))
                            } else {
                                char::from_u32(unit)
                            };
                            let c = c.ok_or(JsonError::Malformed)?;
                            let mut buf = [0; 4];
                            out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                        }
                        _ => return Err(JsonError::Malformed),
                    }
                }
                0..=0x1F => return Err(JsonError::Malformed),
                _ => out.push(c),
            }
        }
        String::from_utf8(out).map_err(|_| JsonError::Malformed)
    }

    pub(super) fn hex4(&mut self) -> std::result::Result<u32, JsonError> {
        let digits = self
            .text
            .get(self.pos..self.pos + 4)
            .ok_or(JsonError::Malformed)?;
        let text = std::str::from_utf8(digits).map_err(|_| JsonError::Malformed)?;
        let v = u32::from_str_radix(text, 16).map_err(|_| JsonError::Malformed)?;
        self.pos += 4;
        Ok(v)
    }

    /// A number as Spark's builder reads it: an integer that fits a long is a long; other
    /// numbers without an exponent that fit DECIMAL(38) are decimals; the rest doubles.
    pub(super) fn number(&mut self, b: &mut Builder) -> std::result::Result<(), JsonError> {
        let start = self.pos;
        let t = self.text;
        let at = |i: usize| t.get(i).copied();
        let mut i = start;
        if at(i) == Some(b'-') {
            i += 1;
        }
        match at(i) {
            Some(b'0') => i += 1,
            Some(b'1'..=b'9') => {
                while at(i).is_some_and(|c| c.is_ascii_digit()) {
                    i += 1;
                }
            }
            _ => return Err(JsonError::Malformed),
        }
        let mut fraction = false;
        if at(i) == Some(b'.') {
            fraction = true;
            i += 1;
            if !at(i).is_some_and(|c| c.is_ascii_digit()) {
                return Err(JsonError::Malformed);
            }
            while at(i).is_some_and(|c| c.is_ascii_digit()) {
                i += 1;
            }
        }
        let mut exponent = false;
        if matches!(at(i), Some(b'e' | b'E')) {
            exponent = true;
            i += 1;
            if matches!(at(i), Some(b'+' | b'-')) {
                i += 1;
            }
            if !at(i).is_some_and(|c| c.is_ascii_digit()) {
                return Err(JsonError::Malformed);
            }
            while at(i).is_some_and(|c| c.is_ascii_digit()) {
                i += 1;
            }
        }
        // Jackson refuses a leading zero followed by digits (`01`).
        if at(i).is_some_and(|c| c.is_ascii_digit()) {
            return Err(JsonError::Malformed);
        }
        self.pos = i;
        let text = std::str::from_utf8(&t[start..i]).map_err(|_| JsonError::Malformed)?;
        if !fraction
            && !exponent
            && let Ok(l) = text.parse::<i64>()
        {
            b.long(l);
            return Ok(());
        }
        if !exponent && let Some((unscaled, scale)) = decimal_of(text) {
            b.decimal(unscaled, scale);
            return Ok(());
        }
        let d = text.parse::<f64>().map_err(|_| JsonError::Malformed)?;
        b.double(d);
        Ok(())
    }
}

/// `-12.340` as (unscaled, scale) when it fits DECIMAL(38) with a scale of at most 38.
pub(super) fn decimal_of(text: &str) -> Option<(i128, u8)> {
    let (int, frac) = text.split_once('.').unwrap_or((text, ""));
    let negative = int.starts_with('-');
    let int = int.trim_start_matches('-');
    let all = format!("{int}{frac}");
    let significant = all.trim_start_matches('0');
    if significant.len() > 38 || frac.len() > 38 {
        return None;
    }
    let unscaled: i128 = if significant.is_empty() {
        0
    } else {
        significant.parse().ok()?
    };
    Some((
        if negative { -unscaled } else { unscaled },
        frac.len() as u8,
    ))
}
