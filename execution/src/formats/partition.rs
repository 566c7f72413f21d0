//! Hive-style partition directories as Spark names them: `col=value`, with Spark's escaping
//! of path characters and `__HIVE_DEFAULT_PARTITION__` for null (and empty) values.

use arrow::array::{Array, ArrayRef};
use arrow::datatypes::{DataType, TimeUnit};
use arrow::util::display::{ArrayFormatter, FormatOptions};
use datafusion::common::Result;

/// The directory name of a null or empty partition value.
pub const DEFAULT_PARTITION_NAME: &str = "__HIVE_DEFAULT_PARTITION__";

/// Characters Spark escapes in partition directory names (`ExternalCatalogUtils`).
fn needs_escape(c: char) -> bool {
    matches!(
        c,
        '\u{01}'
            ..='\u{1F}'
                | '"'
                | '#'
                | '%'
                | '\''
                | '*'
                | '/'
                | ':'
                | '='
                | '?'
                | '\\'
                | '\u{7F}'
                | '{'
                | '['
                | ']'
                | '^'
    )
}

/// Spark's `escapePathName`: `%XX` (upper-case hex) for each character that needs it.
pub fn escape_path_name(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if needs_escape(c) {
            out.push_str(&format!("%{:02X}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

/// Spark's `unescapePathName`: the inverse of [`escape_path_name`] (invalid escapes stay;
/// escapes that do not decode to UTF-8 leave the name as it is).
pub fn unescape_path_name(s: &str) -> String {
    match percent_encoding::percent_decode_str(s).decode_utf8() {
        Ok(decoded) => decoded.into_owned(),
        Err(_) => s.to_string(),
    }
}

/// Formats one partition column's values the way Spark casts them to strings.
pub struct PartitionFormatter<'a> {
    name: String,
    array: &'a dyn Array,
    formatter: ArrayFormatter<'a>,
    /// Spark shows fractional seconds without trailing zeros.
    trim_fraction: bool,
}

/// Timestamps in partition paths read `2020-01-02 03:04:05[.fraction]` (Spark's cast to
/// string, in the session time zone carried by the type).
const TIMESTAMP_FORMAT: &str = "%Y-%m-%d %H:%M:%S%.f";

fn options_for(data_type: &DataType) -> FormatOptions<'static> {
    match data_type {
        DataType::Timestamp(TimeUnit::Second, _)
        | DataType::Timestamp(TimeUnit::Millisecond, _)
        | DataType::Timestamp(TimeUnit::Microsecond, _)
        | DataType::Timestamp(TimeUnit::Nanosecond, _) => FormatOptions::new()
            .with_timestamp_format(Some(TIMESTAMP_FORMAT))
            .with_timestamp_tz_format(Some(TIMESTAMP_FORMAT)),
        _ => FormatOptions::new(),
    }
}

impl<'a> PartitionFormatter<'a> {
    pub fn try_new(name: &str, array: &'a ArrayRef) -> Result<Self> {
        let options = options_for(array.data_type());
        Ok(Self {
            name: escape_path_name(name),
            array: array.as_ref(),
            formatter: ArrayFormatter::try_new(array.as_ref(), &options)?,
            trim_fraction: matches!(array.data_type(), DataType::Timestamp(_, _)),
        })
    }

    /// `name=value` of row `i`.
    pub fn segment(&self, i: usize) -> String {
        let mut value = if self.array.is_null(i) {
            String::new()
        } else {
            self.formatter.value(i).to_string()
        };
        if self.trim_fraction && value.contains('.') {
            let trimmed = value.trim_end_matches('0').trim_end_matches('.').len();
            value.truncate(trimmed);
        }
        if value.is_empty() {
            format!("{}={DEFAULT_PARTITION_NAME}", self.name)
        } else {
            format!("{}={}", self.name, escape_path_name(&value))
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow::array::{Int32Array, StringArray, TimestampMicrosecondArray};

    use super::*;

    #[test]
    fn escapes_like_spark() {
        assert_eq!(escape_path_name("a/b=c"), "a%2Fb%3Dc");
        assert_eq!(escape_path_name("x:y 100%"), "x%3Ay 100%25");
        assert_eq!(escape_path_name("plain-ü"), "plain-ü");
        for s in ["a/b=c", "x:y 100%", "plain-ü", "%zz", "%4"] {
            assert_eq!(unescape_path_name(&escape_path_name(s)), s);
        }
        assert_eq!(unescape_path_name("%zz"), "%zz");
    }

    #[test]
    fn unescape_decodes_spark_escapes() {
        assert_eq!(unescape_path_name("c%2Fd"), "c/d");
        assert_eq!(
            unescape_path_name("2020-01-02 03%3A04%3A05.5"),
            "2020-01-02 03:04:05.5"
        );
        assert_eq!(unescape_path_name("100%"), "100%");
        assert_eq!(unescape_path_name("a%zz"), "a%zz");
    }

    #[test]
    fn segments() {
        let ints: ArrayRef = Arc::new(Int32Array::from(vec![Some(1), None]));
        let f = PartitionFormatter::try_new("n", &ints).unwrap();
        assert_eq!(f.segment(0), "n=1");
        assert_eq!(f.segment(1), "n=__HIVE_DEFAULT_PARTITION__");
        let strings: ArrayRef = Arc::new(StringArray::from(vec![Some("a/b"), Some("")]));
        let f = PartitionFormatter::try_new("s", &strings).unwrap();
        assert_eq!(f.segment(0), "s=a%2Fb");
        assert_eq!(f.segment(1), "s=__HIVE_DEFAULT_PARTITION__");
        let ts: ArrayRef = Arc::new(
            TimestampMicrosecondArray::from(vec![1_577_934_245_000_000, 1_577_934_245_500_000])
                .with_timezone("UTC"),
        );
        let f = PartitionFormatter::try_new("t", &ts).unwrap();
        assert_eq!(f.segment(0), "t=2020-01-02 03%3A04%3A05");
        assert_eq!(f.segment(1), "t=2020-01-02 03%3A04%3A05.5");
    }
}
