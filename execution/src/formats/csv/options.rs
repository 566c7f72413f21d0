//! Spark's CSV options (`sep`, `quote`, `escape`, `encoding`, `lineSep`, ...) read into the
//! options of Ember's CSV reader (files, `spark.read.csv` of strings, `from_csv`).

use datafusion::datasource::file_format::file_compression_type::FileCompressionType;

use crate::formats::{Options, csv, flag, malformed_mode, option};
use crate::spark_error::{SparkError, SparkResult};

/// A single-byte CSV option (`sep`, `quote`, ...): Spark takes one character (`\t` spelled out
/// too); an empty value turns the feature off.
fn csv_char(ds: &Options, keys: &[&str], default: Option<u8>) -> SparkResult<Option<u8>> {
    let Some(v) = keys.iter().find_map(|k| option(ds, k)) else {
        return Ok(default);
    };
    match v {
        "" => Ok(None),
        "\\t" => Ok(Some(b'\t')),
        v if v.len() == 1 => Ok(Some(v.as_bytes()[0])),
        v => Err(SparkError::unsupported(format!(
            "CSV option {}={v:?}: only single ASCII characters",
            keys[0]
        ))),
    }
}

/// The CSV reader of Spark's options for files of `compression`.
pub fn csv_options(ds: &Options, compression: FileCompressionType) -> SparkResult<csv::CsvOptions> {
    let charset = match option(ds, "encoding").or_else(|| option(ds, "charset")) {
        None => csv::Charset::Utf8,
        Some(name) => csv::Charset::named(name).ok_or_else(|| {
            SparkError::illegal_argument(
                "INVALID_PARAMETER_VALUE.CHARSET",
                format!(
                    "The value of parameter(s) `charset` in `CSVOptions` is invalid: expects \
                     one of the iso-8859-1, us-ascii, utf-16, utf-16be, utf-16le, utf-32, \
                     utf-8, but got {name}."
                ),
            )
        })?,
    };
    if charset == csv::Charset::Utf32 {
        return Err(SparkError::unsupported("CSV files in UTF-32"));
    }
    let terminator = match option(ds, "lineSep") {
        None | Some("\n" | "\r\n") => None,
        Some(s) if s.len() == 1 => Some(s.as_bytes()[0]),
        Some(s) => return Err(SparkError::unsupported(format!("CSV lineSep {s:?}"))),
    };
    Ok(csv::CsvOptions {
        header: flag(ds, "header", false),
        delimiter: csv_char(ds, &["sep", "delimiter"], Some(b','))?.unwrap_or(b','),
        // Spark's quote is `"` and its escape `\`; an empty quote means no quoting.
        quote: csv_char(ds, &["quote"], Some(b'"'))?,
        escape: csv_char(ds, &["escape"], Some(b'\\'))?,
        comment: csv_char(ds, &["comment"], None)?,
        terminator,
        null_value: option(ds, "nullValue").unwrap_or("").to_string(),
        empty_value: option(ds, "emptyValue").unwrap_or("").to_string(),
        mode: malformed_mode(ds),
        multi_line: flag(ds, "multiLine", false),
        compression: compression.get_variant().to_string(),
        charset,
        trim_leading: flag(ds, "ignoreLeadingWhiteSpace", false),
        trim_trailing: flag(ds, "ignoreTrailingWhiteSpace", false),
    })
}
