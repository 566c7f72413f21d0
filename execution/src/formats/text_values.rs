//! Values of text formats (CSV, JSON) spelled the way Spark writes them: dates and timestamps
//! in the writer's datetime patterns (Spark's defaults: `yyyy-MM-dd`,
//! `yyyy-MM-dd'T'HH:mm:ss.SSSXXX`), doubles as Java prints them (`1.0E10`), CSV strings
//! quoted as Spark quotes them. Columns of those types become strings before the format's
//! writer sees them; the spelling itself is [`crate::values`]'.

use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, RecordBatch, StringBuilder};
use arrow::datatypes::{DataType, Date32Type, Field, Float32Type, Float64Type, Schema, SchemaRef};
use datafusion::common::Result;

use crate::values::datetime::{format_date, format_timestamp};
use crate::values::{java_double, java_float};

/// Option keys of [`super::FileWrite`] that this module reads (not DataFusion's).
pub const DATE_FORMAT: &str = "ember.date_format";
pub const TIMESTAMP_FORMAT: &str = "ember.timestamp_format";
pub const TIMESTAMP_NTZ_FORMAT: &str = "ember.timestamp_ntz_format";
pub const JAVA_DOUBLES: &str = "ember.java_doubles";
/// CSV strings quoted by Ember rather than by the CSV writer: `sep quote escape trim`, as
/// four characters (`trim`: `b`oth, `l`eading, `t`railing, `n`one).
pub const CSV_STRINGS: &str = "ember.csv_strings";

/// How Spark spells a CSV string value: surrounding white space trimmed, and quoted when
/// empty or holding the separator, the quote or a line break (quotes escaped).
#[derive(Debug, Clone)]
pub struct CsvStrings {
    pub sep: char,
    pub quote: char,
    pub escape: char,
    pub trim_leading: bool,
    pub trim_trailing: bool,
    /// How an empty string is written (`emptyValue`); by default as `""`.
    pub empty: Option<String>,
}

impl CsvStrings {
    fn parse(spec: &str) -> Option<Self> {
        let mut chars = spec.chars();
        let (sep, quote, escape, trim) =
            (chars.next()?, chars.next()?, chars.next()?, chars.next()?);
        let empty = chars.as_str().strip_prefix('e').map(str::to_string);
        Some(Self {
            sep,
            quote,
            escape,
            trim_leading: matches!(trim, 'b' | 'l'),
            trim_trailing: matches!(trim, 'b' | 't'),
            empty,
        })
    }

    pub fn spec(&self) -> String {
        let trim = match (self.trim_leading, self.trim_trailing) {
            (true, true) => 'b',
            (true, false) => 'l',
            (false, true) => 't',
            (false, false) => 'n',
        };
        let mut spec: String = [self.sep, self.quote, self.escape, trim].iter().collect();
        if let Some(empty) = &self.empty {
            spec.push('e');
            spec.push_str(empty);
        }
        spec
    }

    fn spell(&self, value: &str, trim: bool) -> String {
        let mut v = value;
        if trim && self.trim_leading {
            v = v.trim_start();
        }
        if trim && self.trim_trailing {
            v = v.trim_end();
        }
        if let (true, Some(empty)) = (v.is_empty(), &self.empty) {
            return empty.clone();
        }
        let needs_quotes = v.is_empty() || v.contains([self.sep, self.quote, '\n', '\r']);
        if !needs_quotes {
            return v.to_string();
        }
        let mut out = String::with_capacity(v.len() + 2);
        out.push(self.quote);
        for c in v.chars() {
            if c == self.quote {
                out.push(self.escape);
            }
            out.push(c);
        }
        out.push(self.quote);
        out
    }
}

/// How one text format spells its temporal and floating-point values.
#[derive(Debug, Clone, Default)]
pub struct TextValues {
    pub date: Option<String>,
    pub timestamp: Option<String>,
    pub timestamp_ntz: Option<String>,
    pub java_doubles: bool,
    pub csv_strings: Option<CsvStrings>,
}

impl TextValues {
    pub fn from_options(option: impl Fn(&str) -> Option<String>) -> Self {
        Self {
            date: option(DATE_FORMAT),
            timestamp: option(TIMESTAMP_FORMAT),
            timestamp_ntz: option(TIMESTAMP_NTZ_FORMAT),
            java_doubles: option(JAVA_DOUBLES).is_some_and(|v| v == "true"),
            csv_strings: option(CSV_STRINGS).and_then(|s| CsvStrings::parse(&s)),
        }
    }

    fn converts(&self, t: &DataType) -> bool {
        match t {
            DataType::Date32 => self.date.is_some(),
            DataType::Timestamp(_, Some(_)) => self.timestamp.is_some(),
            DataType::Timestamp(_, None) => self.timestamp_ntz.is_some(),
            DataType::Float32 | DataType::Float64 => self.java_doubles,
            DataType::Utf8 => self.csv_strings.is_some(),
            _ => false,
        }
    }

    /// The schema of converted batches.
    pub fn schema(&self, schema: &Schema) -> SchemaRef {
        let fields: Vec<Field> = schema
            .fields()
            .iter()
            .map(|f| {
                if self.converts(f.data_type()) {
                    f.as_ref().clone().with_data_type(DataType::Utf8)
                } else {
                    f.as_ref().clone()
                }
            })
            .collect();
        Arc::new(Schema::new(fields))
    }

    pub fn convert(&self, batch: &RecordBatch, schema: &SchemaRef) -> Result<RecordBatch> {
        let columns = batch
            .columns()
            .iter()
            .map(|c| self.column(c))
            .collect::<Result<Vec<_>>>()?;
        Ok(RecordBatch::try_new(schema.clone(), columns)?)
    }

    fn column(&self, array: &ArrayRef) -> Result<ArrayRef> {
        let t = array.data_type();
        if !self.converts(t) {
            return Ok(array.clone());
        }
        let mut out = StringBuilder::with_capacity(array.len(), array.len() * 24);
        let mut text = String::new();
        for i in 0..array.len() {
            if array.is_null(i) {
                out.append_null();
                continue;
            }
            text.clear();
            match t {
                DataType::Date32 => {
                    let days = array.as_primitive::<Date32Type>().value(i);
                    text = format_date(days, self.date.as_deref().unwrap_or("%Y-%m-%d"))?;
                }
                DataType::Timestamp(unit, zone) => {
                    let pattern = match zone {
                        Some(_) => self.timestamp.as_deref(),
                        None => self.timestamp_ntz.as_deref(),
                    }
                    .unwrap_or("%Y-%m-%dT%H:%M:%S%.f");
                    text = format_timestamp(array, unit, zone.as_deref(), i, pattern)?;
                }
                DataType::Float64 => {
                    text = java_double(array.as_primitive::<Float64Type>().value(i))
                }
                DataType::Float32 => {
                    text = java_float(array.as_primitive::<Float32Type>().value(i))
                }
                DataType::Utf8 => {
                    if let Some(csv) = &self.csv_strings {
                        text = csv.spell(array.as_string::<i32>().value(i), true);
                    }
                    out.append_value(&text);
                    continue;
                }
                _ => {}
            }
            if let Some(csv) = &self.csv_strings {
                text = csv.spell(&text, false);
            }
            out.append_value(&text);
        }
        Ok(Arc::new(out.finish()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_strings_are_spelled_like_spark() {
        let csv = CsvStrings::parse(",\"\\b").unwrap();
        assert_eq!(csv.spell("  a ", true), "a");
        assert_eq!(csv.spell("", true), "\"\"");
        assert_eq!(csv.spell("x\ny", true), "\"x\ny\"");
        assert_eq!(csv.spell("q\"q", true), "\"q\\\"q\"");
        assert_eq!(csv.spell("a,b", true), "\"a,b\"");
        assert_eq!(csv.spell("tab\tx", true), "tab\tx");
        assert_eq!(CsvStrings::parse(&csv.spec()).unwrap().spec(), ",\"\\b");
        // `emptyValue`: written as given, unquoted (the empty string too).
        for empty in ["E", ""] {
            let with = CsvStrings {
                empty: Some(empty.to_string()),
                ..csv.clone()
            };
            let back = CsvStrings::parse(&with.spec()).unwrap();
            assert_eq!(back.spell("", true), empty);
            assert_eq!(back.spell("  ", true), empty);
            assert_eq!(back.spell("a", true), "a");
        }
    }

    #[test]
    fn timestamps_use_their_zone() {
        let values = TextValues {
            timestamp: Some(format!(
                "%Y-%m-%dT%H:%M:%S%.3f{}",
                crate::values::datetime::OFFSET_X3
            )),
            date: Some("%d/%m/%Y".into()),
            ..Default::default()
        };
        let ts: ArrayRef = Arc::new(
            arrow::array::TimestampMicrosecondArray::from(vec![Some(1_577_934_245_500_000), None])
                .with_timezone("UTC"),
        );
        let d: ArrayRef = Arc::new(arrow::array::Date32Array::from(vec![Some(18263), None]));
        let out = values.column(&ts).unwrap();
        let out = out.as_string::<i32>();
        assert_eq!(out.value(0), "2020-01-02T03:04:05.500Z");
        assert!(out.is_null(1));
        let out = values.column(&d).unwrap();
        assert_eq!(out.as_string::<i32>().value(0), "02/01/2020");
    }
}
