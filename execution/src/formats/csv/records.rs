//! The records of CSV text, one at a time, as `csv_core`'s tokenizer finds them, with how
//! each field was written (nothing, `""` or text), so that NULL, `emptyValue` and
//! `nullValue` are told apart as Spark's reader tells them; and [`RecordReader`], the first
//! record of a string (`from_csv`, `schema_of_csv`).

use std::sync::Arc;

use csv_core::ReadFieldResult;

use super::*;

/// How a field was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Written {
    /// Nothing between the delimiters: NULL.
    Nothing,
    /// `""`: `emptyValue`.
    QuotedEmpty,
    Text,
}

/// The records of CSV text, one at a time, with how each field was written (the tokenizer
/// unquotes values, so an empty field's input tells `""` from nothing).
pub(super) struct Records {
    pub(super) options: Arc<CsvOptions>,
    pub(super) tokenizer: csv_core::Reader,
    /// The unquoted bytes of the record's fields.
    pub(super) data: Vec<u8>,
    pub(super) len: usize,
    /// Where each field of the record ends in `data`, and how it was written.
    pub(super) fields: Vec<(usize, Written)>,
    /// The last byte of the current field's input other than its delimiter or line end.
    pub(super) last_byte: Option<u8>,
    /// That byte for the field read last (the quote when it was quoted).
    pub(super) last_quoted: Option<u8>,
}

impl Records {
    pub(super) fn new(options: Arc<CsvOptions>) -> Self {
        Self {
            tokenizer: options.tokenizer(),
            options,
            data: vec![0; 4096],
            len: 0,
            fields: vec![],
            last_byte: None,
            last_quoted: None,
        }
    }

    /// Reads `input` until a record ends (true) or the input is used up, and says how many
    /// bytes it read. An empty input is the end of the text.
    pub(super) fn read(&mut self, input: &[u8]) -> (usize, bool) {
        let mut consumed = 0;
        loop {
            if self.len == self.data.len() {
                self.data.resize(self.data.len() * 2, 0);
            }
            let rest = &input[consumed..];
            // The tokenizer takes an empty input for the end of the text.
            if rest.is_empty() && !input.is_empty() {
                return (consumed, false);
            }
            let (result, read, written) =
                self.tokenizer.read_field(rest, &mut self.data[self.len..]);
            let taken = &rest[..read];
            consumed += read;
            self.len += written;
            match result {
                ReadFieldResult::OutputFull => self.note(taken, None),
                ReadFieldResult::InputEmpty | ReadFieldResult::End => {
                    self.note(taken, None);
                    return (consumed, false);
                }
                ReadFieldResult::Field { record_end } => {
                    self.note(taken, Some(record_end));
                    let start = self.fields.last().map_or(0, |f| f.0);
                    let written = if self.len > start {
                        Written::Text
                    } else if self.last_byte.is_some() && self.last_byte == self.options.quote {
                        Written::QuotedEmpty
                    } else {
                        Written::Nothing
                    };
                    self.fields.push((self.len, written));
                    self.last_quoted = self.last_byte.take();
                    if record_end {
                        return (consumed, true);
                    }
                }
            }
        }
    }

    /// Keeps the last byte of a field's input, without the delimiter or line end that ends
    /// the field (`ended`: whether it ends the field, and whether the record too).
    pub(super) fn note(&mut self, mut taken: &[u8], ended: Option<bool>) {
        match ended {
            Some(true) => {
                while let Some((&b, rest)) = taken.split_last()
                    && self.options.is_terminator(b)
                {
                    taken = rest;
                }
            }
            Some(false) => {
                if let Some((&b, rest)) = taken.split_last()
                    && b == self.options.delimiter
                {
                    taken = rest;
                }
            }
            None => {}
        }
        if let Some(&b) = taken.last() {
            self.last_byte = Some(b);
        }
    }

    /// The `i`th field of the record: None when the record has no such field or it is NULL.
    pub(super) fn field(&self, i: usize) -> Option<std::borrow::Cow<'_, str>> {
        let (end, written) = *self.fields.get(i)?;
        match written {
            Written::Nothing => None,
            Written::QuotedEmpty => Some(self.options.empty_value.as_str().into()),
            Written::Text => {
                let start = if i == 0 { 0 } else { self.fields[i - 1].0 };
                let text = String::from_utf8_lossy(&self.data[start..end]);
                let (lead, trail) = (self.options.trim_leading, self.options.trim_trailing);
                Some(match (lead, trail) {
                    (false, false) => text,
                    _ => {
                        let mut t: &str = &text;
                        if lead {
                            t = t.trim_start();
                        }
                        if trail {
                            t = t.trim_end();
                        }
                        t.to_string().into()
                    }
                })
            }
        }
    }

    /// Reads `input` (empty: the end of the text) to the end of the first record that is not
    /// blank, and gives its values.
    pub(super) fn first_record(&mut self, input: &[u8]) -> Option<Vec<Option<String>>> {
        let mut at = 0;
        loop {
            let (read, ended) = self.read(&input[at..]);
            at += read;
            if !ended {
                return None;
            }
            if !self.is_blank() {
                return Some(
                    (0..self.fields.len())
                        .map(|i| self.field(i).map(|t| t.into_owned()))
                        .collect(),
                );
            }
            self.clear();
        }
    }

    /// A line with nothing on it, which Spark skips; line by line (not `multiLine`) Spark
    /// also skips lines of white space only.
    pub(super) fn is_blank(&self) -> bool {
        match self.fields.as_slice() {
            [(0, Written::Nothing)] => true,
            [(end, Written::Text)] => {
                !self.options.multi_line
                    && self.last_quoted != self.options.quote
                    && self.data[..*end].iter().all(|b| *b <= b' ')
            }
            _ => false,
        }
    }

    /// Ready for other text, from its start.
    pub(super) fn restart(&mut self) {
        self.tokenizer.reset();
        self.clear();
        self.last_byte = None;
        self.last_quoted = None;
    }

    pub(super) fn clear(&mut self) {
        self.len = 0;
        self.fields.clear();
    }
}

/// Reads the first record of strings (`from_csv`, `schema_of_csv`), one after another with
/// the same tokenizer and buffers.
pub struct RecordReader {
    records: Records,
}

impl RecordReader {
    pub fn new(options: &CsvOptions) -> Self {
        Self {
            records: Records::new(Arc::new(options.clone())),
        }
    }

    /// The values of the first record of `text`: NULL for nothing and for `nullValue`.
    pub fn values(&mut self, text: &str) -> Vec<Option<String>> {
        let records = &mut self.records;
        records.restart();
        let first = match records.first_record(text.as_bytes()) {
            Some(first) => first,
            None => records.first_record(&[]).unwrap_or_default(),
        };
        let options = &records.options;
        first
            .into_iter()
            .map(|v| v.filter(|t| options.value(t).is_some()))
            .collect()
    }
}
