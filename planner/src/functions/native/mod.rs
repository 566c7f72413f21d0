//! Ember's own scalar functions, where neither DataFusion nor `datafusion-spark` computes
//! what Spark does: one UDF type whose [`Native`] kind says what it computes. The kind is
//! plain data (serde), so plans carrying these functions travel to workers as JSON.

mod aes;
mod array_sort;
mod base32;
mod binary;
pub use binary::BinaryFormat;
mod bitmap;
pub mod charset;
mod collect_union;
pub mod counter_diff;
pub use bitmap::BitmapOp;
mod csv;
mod datetime;
pub use datetime::unit_micros;
pub(crate) mod hash;
mod hmac;
pub mod input_file;
mod instr;
mod interval;
mod json;
mod numbers;
pub use numbers::NumberFormat;
pub mod random;
pub mod reflect;
pub(crate) mod regex;
mod similarity;
pub mod sketch;
pub mod spatial;
mod str_to_map;
pub use sketch::{KllItem, SketchAgg, SketchAggKind, SketchOp, SummaryMode, TupleOp, TupleValue};
mod return_type;
mod time;
pub use time::{TimeField, TimeOp, time_text};
mod to_char;
mod to_number;
pub use to_number::NumberPattern;
mod variant;
pub use variant::{EditKind, VariantOp, variant_json};
mod vector;
pub use vector::VectorOp;
mod xml;
pub use xml::schema_of_xml;
mod xpath;
pub use xpath::XpathResult;
mod zoned;
pub use zoned::{ZonedOp, zoned_literal};

use std::sync::Arc;

use arrow::array::{Array, ArrayRef};
use arrow::datatypes::DataType;
use datafusion::common::{Result, ScalarValue, internal_err};
use datafusion::logical_expr::{
    ColumnarValue, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature, Volatility,
};
use serde::{Deserialize, Serialize};

/// The name of [`Native::SlidingWindows`].
pub const SLIDING_WINDOWS: &str = "ember_sliding_windows";
/// The name of [`Native::SessionWindow`].
pub const SESSION_WINDOW: &str = "ember_session_window";

/// `struct<start, end>` of timestamps in `time_zone` (NTZ without one).
pub fn session_window_type(time_zone: Option<&str>) -> DataType {
    let ts = DataType::Timestamp(
        arrow::datatypes::TimeUnit::Microsecond,
        time_zone.map(Into::into),
    );
    DataType::Struct(arrow::datatypes::Fields::from(vec![
        arrow::datatypes::Field::new("start", ts.clone(), true),
        arrow::datatypes::Field::new("end", ts, true),
    ]))
}

/// What a native function computes, with the settings fixed when it was planned.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Native {
    /// `date_format(ts, pattern)`: `pattern` is a chrono format (see `datetime_pattern`).
    DateFormat {
        time_zone: String,
        pattern: String,
    },
    /// Text read with a Spark datetime pattern (`to_timestamp`, `to_date`,
    /// `unix_timestamp`), failing (ANSI) or NULL on text that does not match. With a second
    /// argument, each row's Spark pattern is read from it (and `pattern` is unused).
    ParseDatetime {
        time_zone: String,
        pattern: String,
        target: ParseTarget,
        fail: bool,
    },
    /// `CAST(text AS TIMESTAMP)` in the session time zone: local times in a DST overlap
    /// take the earlier offset, in a gap move forward (as java.time does; arrow refuses
    /// both). `fail`: CAST_INVALID_INPUT for malformed text, else NULL.
    TextToTimestamp {
        time_zone: String,
        fail: bool,
    },
    /// `timestampadd(unit, n, ts)`: calendar units (DAY and up) in the session time zone.
    TimestampAdd {
        unit: String,
        time_zone: String,
    },
    /// `timestampdiff(unit, start, end)`: whole units, calendar units between local times.
    TimestampDiff {
        unit: String,
        time_zone: String,
    },
    /// `CAST(TIMESTAMP AS TIMESTAMP_NTZ)` (`to_local`: the local date-time of the instant in
    /// `time_zone`) and `CAST(TIMESTAMP_NTZ AS TIMESTAMP)` (the instant of the local
    /// date-time, DST overlaps and gaps resolved as java.time does).
    ShiftZone {
        time_zone: String,
        to_local: bool,
    },
    /// `convert_timezone(from, to, ts)`: a local time of zone `from` as the local time of
    /// zone `to` at the same instant (TIMESTAMP_NTZ).
    ConvertTimezone,
    /// `months_between(t1, t2, roundOff)` in the session time zone.
    MonthsBetween {
        time_zone: String,
        round_off: bool,
    },
    /// `split(str, regex[, limit])` with Java's semantics.
    Split,
    /// `regexp_extract(str, regex, group)` or `regexp_extract_all`.
    RegexpExtract {
        all: bool,
    },
    /// `regexp_substr(str, regex)`: the first match, NULL without one.
    RegexpSubstr,
    /// `regexp_instr(str, regex)`: the 1-based position of the first match, else 0.
    RegexpInstr,
    /// `rlike`/`regexp`/`regexp_like(str, regex)` (`function` names it in errors).
    RegexpLike {
        function: String,
    },
    /// `regexp_count(str, regex)`.
    RegexpCount,
    /// `regexp_replace(str, regex, replacement[, position])`.
    RegexpReplace,
    /// `str_to_map(text[, pairDelim[, keyValueDelim]])` (`last_win`: duplicate keys keep
    /// the last value).
    StrToMap {
        last_win: bool,
    },
    /// `initcap`: words split at spaces only, the rest lower case.
    Initcap,
    /// `conv(num, from_base, to_base)`.
    Conv,
    /// `format_number(x, d)` or `format_number(x, pattern)` (a DecimalFormat pattern of
    /// `#`, `0`, `,` and `.`).
    FormatNumber {
        format: numbers::NumberFormat,
    },
    /// `mask(str, upper, lower, digit, other)`.
    Mask,
    /// Lists of structs with their fields renamed (`arrays_zip`'s names).
    RenameFields {
        names: Vec<String>,
    },
    /// The most frequent value of a list (`mode`), the first seen among ties.
    ArrayMode,
    /// `to_json(value)`.
    ToJson,
    /// `to_csv(struct)`.
    ToCsv,
    /// Spark's bitmap functions.
    Bitmap {
        op: BitmapOp,
    },
    /// `to_number(text, format)`; `fail`: to_number (else try_to_number, NULL).
    ToNumber {
        pattern: NumberPattern,
        fail: bool,
    },
    /// `to_char(number, format)`: the number as text in Spark's number format.
    ToChar {
        pattern: NumberPattern,
    },
    /// `timestamp ± interval`, `timestamp - timestamp` in the local time of `time_zone`.
    Zoned {
        op: ZonedOp,
        time_zone: String,
    },
    /// `xpath(xml, path)` and its typed forms.
    Xpath {
        result: XpathResult,
    },
    /// `to_binary(text, format)` (`fail`) or `try_to_binary`.
    ToBinary {
        format: BinaryFormat,
        fail: bool,
    },
    /// `reflect`/`java_method`/`try_reflect` of a supported JDK method.
    Reflect {
        call: reflect::ReflectCall,
    },
    /// `session_window(ts, gap)`: marks a GROUP BY key whose sessions the aggregate computes
    /// (its argument: the time in microseconds); `time_zone` is the key's zone (none: NTZ).
    SessionWindow {
        gap: i64,
        time_zone: Option<String>,
    },
    /// `rand`/`randn`/`randstr` with a seed: Spark's per-partition generator, over the
    /// partition and position of each row.
    SeededRandom {
        draw: random::RandomKind,
        seed: i64,
    },
    /// `input_file_name()` and the block functions as called: the resolver replaces them by
    /// what the input gives (`resolver::input_file`), so evaluating one is an error.
    InputFile {
        field: input_file::InputFileField,
    },
    /// The URI Spark names a file by, of its object store location (`prefix` the store's URL).
    FileUri {
        prefix: String,
    },
    /// The length of the local file at an object store location.
    LocalFileSize,
    /// An ANSI interval multiplied (divided) by a number.
    IntervalScale {
        divide: bool,
    },
    /// A number cast to an interval type: the number times the literal interval of one
    /// unit of the type's last field (`cast`: the Spark type names of the number and of
    /// the interval, for CAST_OVERFLOW).
    NumberToInterval {
        cast: (String, String),
    },
    /// An ANSI interval's value without the fields past its type's last: whole multiples
    /// of `unit` (microseconds, or months), toward zero.
    IntervalTruncate {
        unit: i64,
    },
    /// `CAST(text AS INTERVAL ...)` (NULL for text of another form unless `fail`).
    TextToInterval {
        fields: crate::interval::IntervalFields,
        fail: bool,
    },
    /// A number or an interval (counted in `unit`s) cast to the integer type `to` (Spark's
    /// name) under ANSI: CAST_OVERFLOW for values out of its range.
    CheckedIntegerCast {
        from: String,
        to: String,
        unit: i64,
        /// An out-of-range value is an arithmetic result (ARITHMETIC_OVERFLOW, as a BIGINT
        /// `sum` overflows under ANSI) rather than a cast's CAST_OVERFLOW.
        #[serde(default)]
        arithmetic: bool,
    },
    /// A GEOMETRY/GEOGRAPHY function (`st_geomfromwkb`, `st_srid`, ...).
    Spatial {
        op: spatial::SpatialOp,
    },
    /// A function of DataSketches sketch values (`hll_sketch_estimate`, `theta_union`, ...).
    Sketch {
        op: SketchOp,
    },
    /// `aes_encrypt` (`encrypt`), `aes_decrypt` and `try_aes_decrypt` (not `fail`).
    Aes {
        encrypt: bool,
        fail: bool,
    },
    /// `window(ts, width, slide)` with a slide other than its width: marks the list of windows
    /// holding a row, which GROUP BY unnests (its argument computed instead). Anywhere else a
    /// row would have to become several rows: "not supported".
    SlidingWindows,
    /// `histogram_numeric(x, nb)` of a group's values (a list).
    HistogramNumeric {
        bins: usize,
    },
    /// `from_xml(text, schema)`: `schema` a DDL struct.
    FromXml {
        schema: String,
        time_zone: String,
    },
    /// `to_xml(struct)`.
    ToXml {
        time_zone: String,
    },
    /// `make_ym_interval(years, months)`.
    MakeYmInterval,
    /// `sentences(text)`: the words of each sentence.
    Sentences,
    /// Spark's TIME functions.
    Time {
        op: TimeOp,
    },
    /// Spark's VARIANT functions.
    Variant {
        op: VariantOp,
    },
    /// `from_json(text, schema)`: `schema` a DDL type, read in `time_zone`.
    FromJson {
        schema: String,
        time_zone: String,
    },
    /// `from_csv(text, schema, options)`: `schema` a DDL struct, read in `time_zone`.
    FromCsv {
        schema: String,
        time_zone: String,
        options: Box<crate::datasource::csv::CsvOptions>,
    },
    /// `get_json_object(json, path)`.
    GetJsonObject,
    JsonArrayLength,
    JsonObjectKeys,
    /// `bround(x, scale)`: half-even rounding, in the type of `x`.
    RoundHalfEven {
        scale: i32,
    },
    /// `ceil(x, scale)` (`up`) or `floor(x, scale)`, in the type of `x`.
    CeilFloor {
        scale: i32,
        up: bool,
    },
    /// Spark's `hash(...)`: Murmur3 (x86, 32 bits) folded over the arguments, seed 42.
    Murmur3,
    /// Raises a Spark error when a row evaluates it (a CASE branch only the failing rows
    /// take); the arguments fill the message.
    Fail {
        failure: Failure,
    },
    /// `encode`/`decode` in a charset other than UTF-8 (see `charset`).
    Charset {
        charset: charset::Charset,
        encode: bool,
    },
    /// Every ordered pair of an array's elements, `{1: a[i], 2: a[j]}` (for
    /// `array_sort`'s comparator).
    ArrayPairs,
    /// An array sorted by its comparator's answers for `ArrayPairs`.
    SortByComparisons,
    /// Its argument, evaluated row by row and never while planning: a literal whose cast
    /// fails, in a branch (of CASE, `if`, `coalesce`) only some rows, or none, may take.
    Deferred,
    /// `to_base32(bin)` (`encode`) or `from_base32(text)`.
    Base32 {
        encode: bool,
    },
    /// `hmac(key, message[, algorithm])`.
    Hmac,
    /// `jaro_winkler_similarity(a, b)`.
    JaroWinkler,
    /// `instr(str, substr, position, occurrence)`.
    Instr,
    /// Spark's vector functions of `ARRAY<FLOAT>`.
    Vector {
        op: VectorOp,
    },
    /// `collect_union` of a group's arrays (a list of them).
    CollectUnion {
        respect_nulls: bool,
    },
}

/// The errors [`Native::Fail`] raises.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Failure {
    /// `x % 0`, `pmod(x, 0)` under ANSI.
    RemainderByZero,
    /// `elt(n, ...)` beyond its arguments under ANSI: arguments (index, count).
    InvalidArrayIndex,
    /// An integer result beyond its type under ANSI (`abs` of the least INT).
    ArithmeticOverflow,
}

impl Failure {
    fn error(self, arrays: &[ArrayRef]) -> crate::error::SparkError {
        use crate::error::{ErrorKind, SparkError};
        match self {
            Failure::RemainderByZero => SparkError::new(
                ErrorKind::Arithmetic,
                "REMAINDER_BY_ZERO",
                "22012",
                "Remainder by zero. Use `try_mod` to tolerate divisor being 0 and return NULL instead. If necessary set \"spark.sql.ansi.enabled\" to \"false\" to bypass this error.",
                vec![("config", "\"spark.sql.ansi.enabled\"".to_string())],
            ),
            Failure::ArithmeticOverflow => SparkError::arithmetic_overflow("overflow", ""),
            Failure::InvalidArrayIndex => {
                let value = |i: usize| {
                    arrays
                        .get(i)
                        .and_then(|a| ScalarValue::try_from_array(a, 0).ok())
                        .map(|v| v.to_string())
                        .unwrap_or_default()
                };
                let (index, size) = (value(0), value(1));
                SparkError::new(
                    ErrorKind::ArrayIndexOutOfBounds,
                    "INVALID_ARRAY_INDEX",
                    "22003",
                    format!(
                        "The index {index} is out of bounds. The array has {size} elements. Use the SQL function `get()` to tolerate accessing element at invalid index and return NULL instead. If necessary set \"spark.sql.ansi.enabled\" to \"false\" to bypass this error."
                    ),
                    vec![("indexValue", index), ("arraySize", size)],
                )
            }
        }
    }
}

/// `value`, or `failure` raised for the rows where `cond` holds.
pub fn fail_when(
    cond: datafusion::logical_expr::Expr,
    failure: Failure,
    args: Vec<datafusion::logical_expr::Expr>,
    value: datafusion::logical_expr::Expr,
) -> datafusion::logical_expr::Expr {
    super::when(
        cond,
        NativeUdf::udf(Native::Fail { failure }).call(args),
        Some(value),
    )
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ParseTarget {
    Timestamp,
    Date,
    UnixSeconds,
}

/// Whether a kind's values may be NULL.
enum Nullability {
    Nullable,
    /// NULL only where an argument is.
    OfArguments,
    /// NULL only where the first argument is.
    OfFirstArgument,
    Never,
}

impl Native {
    fn nullability(&self) -> Nullability {
        match self {
            // A location always names its file.
            Native::InputFile { .. } | Native::FileUri { .. } | Native::LocalFileSize => {
                Nullability::Never
            }
            Native::CollectUnion { .. } => Nullability::Never,
            Native::RegexpLike { .. }
            | Native::RegexpCount
            | Native::RegexpReplace
            | Native::StrToMap { .. } => Nullability::OfArguments,
            Native::Base32 { .. }
            | Native::ToChar { .. }
            | Native::Zoned { .. }
            | Native::Variant {
                op:
                    VariantOp::Edit {
                        fail: true,
                        kind: EditKind::Insert | EditKind::Set { .. } | EditKind::Append,
                        ..
                    }
                    | VariantOp::StripNulls { .. }
                    | VariantOp::Parse { fail: true }
                    | VariantOp::From,
            } => Nullability::OfArguments,
            // NULL paths are skipped.
            Native::Variant {
                op:
                    VariantOp::Edit {
                        kind: EditKind::Delete,
                        ..
                    },
            } => Nullability::OfFirstArgument,
            Native::Spatial { .. }
            | Native::Sketch {
                op:
                    SketchOp::HllEstimate
                    | SketchOp::HllUnion { .. }
                    | SketchOp::ThetaEstimate
                    | SketchOp::ThetaUnion { .. }
                    | SketchOp::ThetaIntersection
                    | SketchOp::ThetaDifference
                    | SketchOp::KllN { .. }
                    | SketchOp::KllMerge { .. }
                    | SketchOp::KllToString { .. },
            } => Nullability::OfArguments,
            _ => Nullability::Nullable,
        }
    }
}

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct NativeUdf {
    kind: Native,
    signature: Signature,
}

impl NativeUdf {
    pub fn udf(kind: Native) -> Arc<ScalarUDF> {
        // A failure must never be folded while planning: only rows that reach it fail.
        let volatility = match kind {
            Native::Fail { .. } | Native::Deferred => Volatility::Volatile,
            // Random IVs: every row, every run, its own ciphertext.
            Native::Aes { encrypt: true, .. } => Volatility::Volatile,
            // randomUUID: every row its own.
            Native::Reflect { .. } => Volatility::Volatile,
            // Never folded while planning: the resolver replaces it.
            Native::InputFile { .. } => Volatility::Volatile,
            _ => Volatility::Immutable,
        };
        let signature = match kind {
            Native::InputFile { .. } => Signature::nullary(volatility),
            _ => Signature::variadic_any(volatility),
        };
        Arc::new(ScalarUDF::from(Self { kind, signature }))
    }

    pub fn kind(&self) -> &Native {
        &self.kind
    }
}

impl ScalarUDFImpl for NativeUdf {
    fn name(&self) -> &str {
        match &self.kind {
            Native::DateFormat { .. } => "ember_date_format",
            Native::ParseDatetime { .. } => "ember_parse_datetime",
            Native::MonthsBetween { .. } => "ember_months_between",
            Native::TextToTimestamp { .. } => "ember_text_to_timestamp",
            Native::ConvertTimezone => "ember_convert_timezone",
            Native::ShiftZone { .. } => "ember_shift_zone",
            Native::TimestampAdd { .. } => "ember_timestampadd",
            Native::TimestampDiff { .. } => "ember_timestampdiff",
            Native::Split => "ember_split",
            Native::RegexpExtract { .. } => "ember_regexp_extract",
            Native::RegexpSubstr => "ember_regexp_substr",
            Native::RegexpInstr => "ember_regexp_instr",
            Native::RegexpLike { .. } => "ember_regexp_like",
            Native::RegexpCount => "ember_regexp_count",
            Native::RegexpReplace => "ember_regexp_replace",
            Native::StrToMap { .. } => "ember_str_to_map",
            Native::Initcap => "ember_initcap",
            Native::Murmur3 => "ember_hash",
            Native::RoundHalfEven { .. } => "ember_bround",
            Native::CeilFloor { .. } => "ember_ceil_floor",
            Native::ToJson => "ember_to_json",
            Native::ToCsv => "ember_to_csv",
            Native::Bitmap { .. } => "ember_bitmap",
            Native::Xpath { .. } => "ember_xpath",
            Native::Variant { .. } => "ember_variant",
            Native::Time { .. } => "ember_time",
            Native::ToBinary { .. } => "ember_to_binary",
            Native::MakeYmInterval => "ember_make_ym_interval",
            Native::Aes { .. } => "ember_aes",
            Native::Sketch { .. } => "ember_sketch",
            Native::Spatial { .. } => "ember_spatial",
            Native::Reflect { .. } => "ember_reflect",
            Native::InputFile { .. } => "ember_input_file",
            Native::FileUri { .. } => "ember_file_uri",
            Native::LocalFileSize => "ember_local_file_size",
            Native::IntervalScale { .. } => "ember_interval_scale",
            Native::NumberToInterval { .. } => "ember_number_to_interval",
            Native::IntervalTruncate { .. } => "ember_interval_truncate",
            Native::TextToInterval { .. } => "ember_text_to_interval",
            Native::CheckedIntegerCast { .. } => "ember_checked_integer_cast",
            Native::SeededRandom { .. } => "ember_seeded_random",
            Native::SessionWindow { .. } => SESSION_WINDOW,
            Native::SlidingWindows => SLIDING_WINDOWS,
            Native::FromXml { .. } => "ember_from_xml",
            Native::ToXml { .. } => "ember_to_xml",
            Native::HistogramNumeric { .. } => "ember_histogram_numeric",
            Native::Sentences => "ember_sentences",
            Native::ToNumber { .. } => "ember_to_number",
            Native::ToChar { .. } => "ember_to_char",
            Native::Zoned { .. } => "ember_zoned_arithmetic",
            Native::ArrayMode => "ember_array_mode",
            Native::Conv => "ember_conv",
            Native::FormatNumber { .. } => "ember_format_number",
            Native::Mask => "ember_mask",
            Native::RenameFields { .. } => "ember_rename_fields",
            Native::FromJson { .. } => "ember_from_json",
            Native::FromCsv { .. } => "ember_from_csv",
            Native::GetJsonObject => "ember_get_json_object",
            Native::JsonArrayLength => "ember_json_array_length",
            Native::JsonObjectKeys => "ember_json_object_keys",
            Native::Fail { .. } => "ember_fail",
            Native::Deferred => "ember_deferred",
            Native::ArrayPairs => "ember_array_pairs",
            Native::Charset { .. } => "ember_charset",
            Native::SortByComparisons => "ember_sort_by_comparisons",
            Native::Base32 { .. } => "ember_base32",
            Native::Hmac => "ember_hmac",
            Native::JaroWinkler => "ember_jaro_winkler",
            Native::Instr => "ember_instr",
            Native::Vector { .. } => "ember_vector",
            Native::CollectUnion { .. } => "ember_collect_union",
        }
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    /// Nullable unless the kind is NULL only for NULL arguments and none may be NULL (Spark's
    /// nullability of such functions of literals and non-null columns).
    fn return_field_from_args(
        &self,
        args: datafusion::logical_expr::ReturnFieldArgs,
    ) -> Result<arrow::datatypes::FieldRef> {
        let types: Vec<DataType> = args
            .arg_fields
            .iter()
            .map(|f| f.data_type().clone())
            .collect();
        let data_type = self.return_type(&types)?;
        let nullable = match self.kind.nullability() {
            Nullability::Nullable => true,
            Nullability::OfArguments => args.arg_fields.iter().any(|f| f.is_nullable()),
            Nullability::OfFirstArgument => {
                args.arg_fields.first().is_some_and(|f| f.is_nullable())
            }
            Nullability::Never => false,
        };
        Ok(Arc::new(arrow::datatypes::Field::new(
            self.name(),
            data_type,
            nullable,
        )))
    }

    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        self.kind.return_type(arg_types)
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        // A volatile call of constants (`reflect('java.util.UUID', 'randomUUID')`) still
        // answers each row on its own.
        let volatile = matches!(self.kind, Native::Reflect { .. } | Native::Deferred);
        let scalar = !volatile
            && args
                .args
                .iter()
                .all(|a| matches!(a, ColumnarValue::Scalar(_)));
        let rows = if scalar { 1 } else { args.number_rows };
        let arrays = args
            .args
            .iter()
            .map(|a| a.to_array(rows))
            .collect::<Result<Vec<_>>>()?;
        let out = match &self.kind {
            Native::DateFormat { time_zone, pattern } => {
                datetime::date_format(&arrays, time_zone, pattern)?
            }
            Native::ParseDatetime {
                time_zone,
                pattern,
                target,
                fail,
            } => datetime::parse(&arrays, time_zone, pattern, *target, *fail)?,
            Native::MonthsBetween {
                time_zone,
                round_off,
            } => datetime::months_between(&arrays, time_zone, *round_off)?,
            Native::ConvertTimezone => datetime::convert_timezone(&arrays)?,
            Native::ShiftZone {
                time_zone,
                to_local,
            } => datetime::shift_zone(&arrays, time_zone, *to_local)?,
            Native::TimestampAdd { unit, time_zone } => {
                datetime::timestamp_add(&arrays, unit, time_zone)?
            }
            Native::TimestampDiff { unit, time_zone } => {
                datetime::timestamp_diff(&arrays, unit, time_zone)?
            }
            Native::TextToTimestamp { time_zone, fail } => {
                datetime::text_to_timestamp(&arrays, time_zone, *fail)?
            }
            Native::Split => regex::split(&arrays)?,
            Native::RegexpExtract { all } => regex::extract(&arrays, *all)?,
            Native::RegexpSubstr => regex::substr(&arrays)?,
            Native::RegexpInstr => regex::instr(&arrays)?,
            Native::RegexpLike { function } => regex::like(&arrays, function)?,
            Native::RegexpCount => regex::count(&arrays)?,
            Native::RegexpReplace => regex::replace(&arrays)?,
            Native::StrToMap { last_win } => str_to_map::str_to_map(&arrays, *last_win)?,
            Native::Initcap => regex::initcap(&arrays)?,
            Native::Murmur3 => hash::murmur3(&arrays, rows)?,
            Native::RoundHalfEven { scale } => numbers::round_half_even(&arrays, *scale)?,
            Native::CeilFloor { scale, up } => numbers::ceil_floor(&arrays, *scale, *up)?,
            Native::ToJson => json::to_json(&arrays)?,
            Native::ToCsv => csv::to_csv(&arrays)?,
            Native::Bitmap { op } => bitmap::evaluate(*op, &arrays)?,
            Native::Xpath { result } => xpath::evaluate(*result, &arrays)?,
            Native::Variant { op } => variant::evaluate(op, &arrays)?,
            Native::Time { op } => time::evaluate(op, &arrays)?,
            Native::ToBinary { format, fail } => binary::to_binary(&arrays, *format, *fail)?,
            Native::MakeYmInterval => numbers::make_ym_interval(&arrays)?,
            Native::FromXml { schema, time_zone } => {
                xml::from_xml(&arrays, &json::schema_type(schema, time_zone)?)?
            }
            Native::ToXml { time_zone } => xml::to_xml(&arrays, time_zone)?,
            Native::HistogramNumeric { bins } => numbers::histogram_numeric(&arrays, *bins)?,
            Native::Aes { encrypt, fail } => aes::aes(&arrays, *encrypt, *fail)?,
            Native::Sketch { op } => sketch::evaluate(op, &arrays)?,
            Native::Spatial { op } => spatial::evaluate(op, &arrays)?,
            Native::Reflect { call } => reflect::evaluate(call, &arrays, rows)?,
            Native::InputFile { field } => {
                return Err(datafusion::error::DataFusionError::Plan(format!(
                    "not supported: {}() here",
                    field.name()
                )));
            }
            Native::FileUri { prefix } => input_file::file_uri(&arrays, prefix)?,
            Native::LocalFileSize => input_file::local_file_size(&arrays)?,
            Native::IntervalScale { divide } => interval::evaluate(&arrays, *divide)?,
            Native::NumberToInterval { cast } => interval::evaluate_cast(&arrays, cast)?,
            Native::IntervalTruncate { unit } => interval::truncate(&arrays, *unit)?,
            Native::TextToInterval { fields, fail } => {
                interval::from_text(&arrays, *fields, *fail)?
            }
            Native::CheckedIntegerCast {
                from,
                to,
                unit,
                arithmetic,
            } => interval::checked_integer_cast(
                &arrays,
                from,
                &integer_type(to),
                *unit,
                *arithmetic,
            )?,
            Native::SeededRandom { draw, seed } => random::evaluate(*draw, *seed, &arrays)?,
            Native::SessionWindow { .. } => {
                return Err(datafusion::error::DataFusionError::Plan(
                    "not supported: session_window outside a GROUP BY key".into(),
                ));
            }
            Native::SlidingWindows => {
                return Err(datafusion::error::DataFusionError::Plan(
                    "not supported: sliding windows (a slide other than the window's duration) outside a GROUP BY key".into(),
                ));
            }
            Native::Sentences => regex::sentences(&arrays)?,
            Native::ToNumber { pattern, fail } => to_number::to_number(&arrays, pattern, *fail)?,
            Native::ToChar { pattern } => to_char::to_char(&arrays, pattern)?,
            Native::Zoned { op, time_zone } => zoned::evaluate(&arrays, time_zone, *op)?,
            Native::ArrayMode => numbers::array_mode(&arrays)?,
            Native::Conv => numbers::conv(&arrays)?,
            Native::FormatNumber { format } => numbers::format_number(&arrays, format)?,
            Native::Mask => regex::mask(&arrays)?,
            Native::RenameFields { names } => numbers::rename_fields(&arrays, names)?,
            Native::FromJson { schema, time_zone } => {
                json::from_json(&arrays, &json::schema_type(schema, time_zone)?)?
            }
            Native::FromCsv {
                schema,
                time_zone,
                options,
            } => csv::from_csv(&arrays, &json::schema_type(schema, time_zone)?, options)?,
            Native::GetJsonObject => json::get_json_object(&arrays)?,
            Native::JsonArrayLength => json::json_array_length(&arrays)?,
            Native::JsonObjectKeys => json::json_object_keys(&arrays)?,
            Native::ArrayPairs => array_sort::pairs(&arrays)?,
            Native::Charset { charset, encode } => charset::evaluate(&arrays, *charset, *encode)?,
            Native::SortByComparisons => array_sort::sort_by(&arrays)?,
            Native::Base32 { encode } => base32::evaluate(&arrays, *encode)?,
            Native::Hmac => hmac::evaluate(&arrays)?,
            Native::JaroWinkler => similarity::evaluate(&arrays)?,
            Native::Instr => instr::evaluate(&arrays)?,
            Native::Vector { op } => vector::evaluate(*op, &arrays)?,
            Native::CollectUnion { respect_nulls } => {
                collect_union::evaluate(&arrays, *respect_nulls)?
            }
            Native::Deferred => match arrays.first() {
                Some(a) => Arc::clone(a),
                None => return internal_err!("ember_deferred takes one argument"),
            },
            Native::Fail { failure } => {
                if args.number_rows == 0 {
                    arrow::array::new_null_array(&DataType::Null, 0)
                } else {
                    return Err(crate::error::to_datafusion(failure.error(&arrays)));
                }
            }
        };
        if scalar {
            Ok(ColumnarValue::Scalar(ScalarValue::try_from_array(&out, 0)?))
        } else {
            Ok(ColumnarValue::Array(out))
        }
    }
}

/// Argument `i` as UTF-8 strings.
fn strings(arrays: &[ArrayRef], i: usize) -> Result<ArrayRef> {
    let Some(a) = arrays.get(i) else {
        return internal_err!("missing argument {i}");
    };
    Ok(arrow::compute::cast(a, &DataType::Utf8)?)
}

/// Argument `i` as 64-bit integers.
fn integers(arrays: &[ArrayRef], i: usize) -> Result<ArrayRef> {
    let Some(a) = arrays.get(i) else {
        return internal_err!("missing argument {i}");
    };
    Ok(arrow::compute::cast(a, &DataType::Int64)?)
}

fn is_null_at(arrays: &[ArrayRef], row: usize) -> bool {
    // A NULL literal's array has no null buffer.
    arrays
        .iter()
        .any(|a| a.is_null(row) || *a.data_type() == DataType::Null)
}

/// The Arrow type of Spark's integer type `name` (`TINYINT` .. `BIGINT`).
fn integer_type(name: &str) -> DataType {
    match name {
        "TINYINT" => DataType::Int8,
        "SMALLINT" => DataType::Int16,
        "INT" => DataType::Int32,
        _ => DataType::Int64,
    }
}
