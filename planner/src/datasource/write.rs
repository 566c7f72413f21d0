//! `df.write` options: Spark's writer options for each format, as the settings of
//! DataFusion's file sinks (and the file name suffix Spark would use).

use std::collections::HashMap;

use ember_execution::formats::{WriteFormat, text_values as values};

use crate::error::{ErrorKind, PlanError, PlanResult, SparkError};
use ember_execution::values::pattern::to_chrono;

/// How a format's files are written.
#[derive(Debug, Clone, PartialEq)]
pub struct WriteSettings {
    pub format: WriteFormat,
    /// DataFusion table options (`format.<key>`).
    pub options: Vec<(String, String)>,
    /// Data file name suffix, e.g. `.snappy.parquet`, `.csv.gz`.
    pub extension: String,
}

/// Spark's options, looked up case-insensitively.
pub struct Options<'a>(&'a HashMap<String, String>);

impl<'a> Options<'a> {
    pub fn new(options: &'a HashMap<String, String>) -> Self {
        Self(options)
    }

    pub fn get(&self, key: &str) -> Option<&'a str> {
        ember_execution::formats::option(self.0, key)
    }

    pub fn flag(&self, key: &str, default: bool) -> PlanResult<bool> {
        match self.get(key) {
            None => Ok(default),
            Some(v) if v.eq_ignore_ascii_case("true") => Ok(true),
            Some(v) if v.eq_ignore_ascii_case("false") => Ok(false),
            Some(_) => Err(SparkError::new(
                ErrorKind::Internal,
                "_LEGACY_ERROR_TEMP_2147",
                "",
                format!("{key} flag can be true or false."),
                vec![("paramName", key.to_string())],
            )
            .into()),
        }
    }

    /// A single-character option (`sep`, `quote`, `escape`).
    pub fn char(&self, keys: &[&str], default: u8) -> PlanResult<u8> {
        let Some(v) = keys.iter().find_map(|k| self.get(k)) else {
            return Ok(default);
        };
        let v = match v {
            "\\t" => "\t",
            other => other,
        };
        match v.as_bytes() {
            [b] => Ok(*b),
            _ => Err(PlanError::Unsupported(format!(
                "{} of more than one byte: '{v}'",
                keys[0]
            ))),
        }
    }
}

/// An unknown format name, as Spark reports it (reads and writes).
pub fn data_source_not_found(name: &str) -> SparkError {
    SparkError::new(
        ErrorKind::ClassNotFound,
        "DATA_SOURCE_NOT_FOUND",
        "42K02",
        format!(
            "Failed to find the data source: {name}. Make sure the provider name is correct and the package is properly registered and compatible with your Spark version."
        ),
        vec![("provider", name.to_string())],
    )
}

fn codec_not_available(codec: &str, available: &str) -> PlanError {
    SparkError::new(
        ErrorKind::IllegalArgument,
        "CODEC_NOT_AVAILABLE.WITH_AVAILABLE_CODECS_SUGGESTION",
        "56038",
        format!("The codec {codec} is not available. Available codecs are {available}."),
        vec![
            ("codecName", codec.to_string()),
            ("availableCodecs", available.to_string()),
        ],
    )
    .into()
}

/// Codecs of text-based formats (csv, json, text): DataFusion's name and the file suffix.
fn text_codec(value: Option<&str>) -> PlanResult<(&'static str, &'static str)> {
    match value.map(|v| v.to_ascii_lowercase()).as_deref() {
        None | Some("none") | Some("uncompressed") => Ok(("uncompressed", "")),
        Some("gzip") => Ok(("gzip", ".gz")),
        Some("bzip2") => Ok(("bzip2", ".bz2")),
        Some("zstd") => Ok(("zstd", ".zst")),
        Some("xz") => Ok(("xz", ".xz")),
        Some(c @ ("deflate" | "lz4" | "snappy")) => Err(PlanError::Unsupported(format!(
            "compression codec {c} for text formats"
        ))),
        Some(other) => Err(codec_not_available(
            other,
            "bzip2, deflate, uncompressed, lz4, gzip, snappy, none, zstd",
        )),
    }
}

fn parquet_codec(value: &str) -> PlanResult<(&'static str, &'static str)> {
    match value.to_ascii_lowercase().as_str() {
        "none" | "uncompressed" => Ok(("uncompressed", "")),
        "snappy" => Ok(("snappy", ".snappy")),
        "gzip" => Ok(("gzip(6)", ".gz")),
        "zstd" => Ok(("zstd(3)", ".zstd")),
        "lz4" | "lz4_raw" => Ok(("lz4_raw", ".lz4raw")),
        "brotli" => Ok(("brotli(1)", ".br")),
        "lzo" => Err(PlanError::Unsupported(
            "parquet compression codec lzo".into(),
        )),
        other => Err(codec_not_available(
            other,
            "none, uncompressed, snappy, gzip, lzo, brotli, lz4, lz4_raw, zstd",
        )),
    }
}

/// ORC codecs: Ember's name and the file suffix Spark uses.
fn orc_codec(value: &str) -> PlanResult<(&'static str, &'static str)> {
    match value.to_ascii_lowercase().as_str() {
        "none" | "uncompressed" => Ok(("none", "")),
        "snappy" => Ok(("snappy", ".snappy")),
        "zlib" => Ok(("zlib", ".zlib")),
        "lz4" => Ok(("lz4", ".lz4")),
        "zstd" => Ok(("zstd", ".zstd")),
        c @ ("lzo" | "brotli") => Err(PlanError::Unsupported(format!("ORC compression codec {c}"))),
        other => Err(codec_not_available(
            other,
            "brotli, uncompressed, lz4, lzo, snappy, zlib, none, zstd",
        )),
    }
}

/// Avro codecs (Spark's names; the files are `.avro` whatever the codec).
fn avro_codec(value: &str) -> PlanResult<&'static str> {
    match value.to_ascii_lowercase().as_str() {
        "uncompressed" | "none" => Ok("uncompressed"),
        "snappy" => Ok("snappy"),
        "deflate" => Ok("deflate"),
        "bzip2" => Ok("bzip2"),
        "xz" => Ok("xz"),
        "zstandard" => Ok("zstandard"),
        other => Err(codec_not_available(
            other,
            "uncompressed, deflate, snappy, bzip2, xz, zstandard",
        )),
    }
}

/// The session's compression codecs (`spark.sql.<format>.compression.codec`).
#[derive(Debug, Clone)]
pub struct CodecDefaults {
    pub parquet: String,
    pub orc: String,
    pub avro: String,
}

impl Default for CodecDefaults {
    /// Spark 4's defaults.
    fn default() -> Self {
        Self {
            parquet: "snappy".into(),
            orc: "zstd".into(),
            avro: "snappy".into(),
        }
    }
}

impl CodecDefaults {
    /// The defaults a session's configuration sets (`get` looks a key up).
    pub fn from_conf(get: impl Fn(&str) -> Option<String>) -> Self {
        let d = Self::default();
        Self {
            parquet: get("spark.sql.parquet.compression.codec").unwrap_or(d.parquet),
            orc: get("spark.sql.orc.compression.codec").unwrap_or(d.orc),
            avro: get("spark.sql.avro.compression.codec").unwrap_or(d.avro),
        }
    }
}

/// Spark's datetime patterns of the text formats, for [`values::TextValues`].
fn text_values(o: &Options, out: &mut Vec<(String, String)>) -> PlanResult<()> {
    let date = o.get("dateFormat").unwrap_or("yyyy-MM-dd");
    out.push((values::DATE_FORMAT.into(), to_chrono(date)?));
    let ts = o
        .get("timestampFormat")
        .unwrap_or("yyyy-MM-dd'T'HH:mm:ss.SSSXXX");
    out.push((values::TIMESTAMP_FORMAT.into(), to_chrono(ts)?));
    let ntz = o
        .get("timestampNTZFormat")
        .unwrap_or("yyyy-MM-dd'T'HH:mm:ss.SSS");
    out.push((values::TIMESTAMP_NTZ_FORMAT.into(), to_chrono(ntz)?));
    Ok(())
}

/// The writer settings of `format` with Spark's `options`; `codecs` are the session's
/// default compression codecs.
pub fn write_settings(
    format: &str,
    options: &HashMap<String, String>,
    codecs: &CodecDefaults,
) -> PlanResult<WriteSettings> {
    let o = Options::new(options);
    let mut out: Vec<(String, String)> = Vec::new();
    // Ember's own settings (`ember.*`), after DataFusion's.
    let mut extra: Vec<(String, String)> = Vec::new();
    let mut set = |k: &str, v: String| out.push((format!("format.{k}"), v));
    let (format, extension) = match format.to_ascii_lowercase().as_str() {
        // Delta's data files are parquet (the write itself is `delta`'s).
        "parquet" | "delta" => {
            let codec = o
                .get("compression")
                .or_else(|| o.get("parquet.compression"))
                .unwrap_or(&codecs.parquet);
            let (codec, suffix) = parquet_codec(codec)?;
            set("compression", codec.to_string());
            (WriteFormat::Parquet, format!("{suffix}.parquet"))
        }
        "csv" => {
            let (codec, suffix) = text_codec(o.get("compression").or_else(|| o.get("codec")))?;
            set("compression", codec.to_string());
            set("has_header", o.flag("header", false)?.to_string());
            set(
                "delimiter",
                (o.char(&["sep", "delimiter"], b',')? as char).to_string(),
            );
            set("quote", (o.char(&["quote"], b'"')? as char).to_string());
            // Spark escapes quotes inside values with a backslash rather than doubling them.
            set("escape", (o.char(&["escape"], b'\\')? as char).to_string());
            set("double_quote", "false".to_string());
            set("null_value", o.get("nullValue").unwrap_or("").to_string());
            text_values(&o, &mut extra)?;
            extra.push((values::JAVA_DOUBLES.into(), "true".into()));
            if o.flag("quoteAll", false)? {
                if o.get("emptyValue").is_some() {
                    return Err(PlanError::Unsupported(
                        "csv emptyValue together with quoteAll".into(),
                    ));
                }
                set("quote_style", "always".to_string());
            } else {
                // Strings are quoted as Spark quotes them (empty ones too), not by the writer.
                set("quote_style", "never".to_string());
                let strings = values::CsvStrings {
                    sep: o.char(&["sep", "delimiter"], b',')? as char,
                    quote: o.char(&["quote"], b'"')? as char,
                    escape: o.char(&["escape"], b'\\')? as char,
                    trim_leading: o.flag("ignoreLeadingWhiteSpace", true)?,
                    trim_trailing: o.flag("ignoreTrailingWhiteSpace", true)?,
                    empty: o.get("emptyValue").map(str::to_string),
                };
                extra.push((values::CSV_STRINGS.into(), strings.spec()));
            }
            if let Some(sep) = o.get("lineSep") {
                match sep.as_bytes() {
                    [b] => set("terminator", (*b as char).to_string()),
                    _ => return Err(PlanError::Unsupported(format!("csv lineSep '{sep}'"))),
                }
            }
            (WriteFormat::Csv, format!(".csv{suffix}"))
        }
        "json" => {
            let (codec, suffix) = text_codec(o.get("compression").or_else(|| o.get("codec")))?;
            set("compression", codec.to_string());
            if !o.flag("ignoreNullFields", true)? {
                return Err(PlanError::Unsupported("json ignoreNullFields=false".into()));
            }
            text_values(&o, &mut extra)?;
            (WriteFormat::Json, format!(".json{suffix}"))
        }
        "text" => {
            let (codec, suffix) = text_codec(o.get("compression").or_else(|| o.get("codec")))?;
            set("compression", codec.to_string());
            set("line_sep", o.get("lineSep").unwrap_or("\n").to_string());
            (WriteFormat::Text, format!(".txt{suffix}"))
        }
        "xml" => {
            use ember_execution::formats::xml::write as x;
            let (codec, suffix) = text_codec(o.get("compression").or_else(|| o.get("codec")))?;
            set("compression", codec.to_string());
            let row_tag = match o.get("rowTag").map(str::trim) {
                Some(t) if !t.is_empty() => t.to_string(),
                _ => return Err(super::xml::row_tag_missing().into()),
            };
            let mut set_xml = |k: &str, v: String| extra.push((k.to_string(), v));
            set_xml(x::ROW_TAG, row_tag);
            for (key, setting) in [
                ("rootTag", x::ROOT_TAG),
                ("attributePrefix", x::ATTRIBUTE_PREFIX),
                ("valueTag", x::VALUE_TAG),
                ("nullValue", x::NULL_VALUE),
                ("declaration", x::DECLARATION),
                ("arrayElementName", x::ARRAY_ELEMENT_NAME),
            ] {
                if let Some(v) = o.get(key) {
                    set_xml(setting, v.to_string());
                }
            }
            for key in ["charset", "encoding"] {
                if o.get(key).is_some_and(|c| !c.eq_ignore_ascii_case("utf-8")) {
                    return Err(PlanError::Unsupported(format!("XML write option {key}")));
                }
            }
            text_values(&o, &mut extra)?;
            extra.push((values::JAVA_DOUBLES.into(), "true".into()));
            (WriteFormat::Xml, format!(".xml{suffix}"))
        }
        "orc" => {
            let codec = o
                .get("compression")
                .or_else(|| o.get("orc.compress"))
                .unwrap_or(&codecs.orc);
            let (codec, suffix) = orc_codec(codec)?;
            set("compression", codec.to_string());
            (WriteFormat::Orc, format!("{suffix}.orc"))
        }
        "avro" => {
            let codec = avro_codec(o.get("compression").unwrap_or(&codecs.avro))?;
            set("compression", codec.to_string());
            (WriteFormat::Avro, ".avro".to_string())
        }
        other => {
            return Err(data_source_not_found(other).into());
        }
    };
    out.extend(extra);
    Ok(WriteSettings {
        format,
        options: out,
        extension,
    })
}
