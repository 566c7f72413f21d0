//! Ember's own scalar functions, where neither DataFusion nor `datafusion-spark` computes
//! what Spark does: one UDF type, [`NativeUdf`], whose [`Native`] kind (`kind.rs`) says what
//! it computes. The kind is plain data (serde), so plans carrying these functions travel to
//! workers as JSON. This module names each kind and dispatches its evaluation to the module
//! that computes it; `return_type.rs` says its type and nullability, `failure.rs` the errors
//! `Native::Fail` raises.

mod aes;
mod array_sort;
mod base32;
mod binary;
mod bytes;
mod row_rewrites;
pub use binary::BinaryFormat;
pub use bytes::BytesOp;
mod bitmap;
pub mod charset;
mod collect_union;
pub mod counter_diff;
pub use bitmap::BitmapOp;
mod csv;
mod datetime;
pub use datetime::unit_micros;
mod failure;
pub(crate) mod hash;
mod hmac;
pub mod input_file;
mod instr;
pub use failure::{Failure, fail_when};
mod interval;
mod json;
pub use json::JsonFormats;
mod lenient_json;
pub use lenient_json::Leniency;
mod kind;
pub(crate) mod legacy_cast;
mod poisson;
pub use kind::{Native, ParseTarget};
mod numbers;
pub use numbers::NumberFormat;
pub mod random;
pub mod reflect;
pub(crate) mod regex;
mod similarity;
pub mod sketch;
pub mod spatial;
mod str_to_map;
pub mod strict_math;
mod text_to_date;
pub use sketch::{KllItem, SketchAgg, SketchAggKind, SketchOp, SummaryMode, TupleOp, TupleValue};
mod return_type;
use return_type::Nullability;
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
pub use zoned::{ZonedOp, literal_past_2037, zoned_literal};

use std::sync::Arc;

use crate::functions::udf_codec::JsonMessage;
use arrow::array::{Array, ArrayRef};
use arrow::datatypes::DataType;
use datafusion::common::{Result, ScalarValue, internal_err};
use datafusion::logical_expr::{
    ColumnarValue, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature, Volatility,
};
use ember_execution::codec::EncodedUdf;
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
            Native::TextToDate { .. } => "ember_text_to_date",
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
            Native::StrictMath { .. } => "ember_strict_math",
            Native::RoundHalfEven { .. } => "ember_bround",
            Native::CeilFloor { .. } => "ember_ceil_floor",
            Native::ToJson { .. } => "ember_to_json",
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
            Native::LegacyIntegerCast { .. } => "ember_legacy_integer_cast",
            Native::PoissonCount { .. } => "ember_poisson_count",
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
            Native::Bytes { .. } => "ember_bytes",
            Native::JavaZoneId => "ember_java_zone_id",
            Native::LikeEscape { .. } => "ember_like_escape",
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
            Native::TextToTimestamp {
                time_zone,
                fail,
                nanos,
            } => datetime::text_to_timestamp(&arrays, time_zone, *fail, *nanos)?,
            Native::TextToDate { fail } => text_to_date::text_to_date(&arrays, *fail)?,
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
            Native::StrictMath { op } => strict_math::evaluate(*op, &arrays)?,
            Native::RoundHalfEven { scale } => numbers::round_half_even(&arrays, *scale)?,
            Native::CeilFloor { scale, up } => numbers::ceil_floor(&arrays, *scale, *up)?,
            Native::ToJson { formats } => json::to_json(&arrays, formats)?,
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
            Native::PoissonCount { mean_bits } => {
                poisson::evaluate(&arrays, f64::from_bits(*mean_bits))?
            }
            Native::LegacyIntegerCast { to } => legacy_cast::evaluate(&arrays, &integer_type(to))?,
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
            Native::FromJson {
                schema,
                time_zone,
                leniency,
            } => json::from_json(&arrays, &json::schema_type(schema, time_zone)?, *leniency)?,
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
            Native::Bytes { op } => bytes::evaluate(*op, &arrays)?,
            Native::JavaZoneId => row_rewrites::zone_ids(&arrays)?,
            Native::LikeEscape { escape } => row_rewrites::like_patterns(&arrays, *escape)?,
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

impl EncodedUdf for NativeUdf {
    const NAME: &'static str = "native";
    type Message = JsonMessage;

    fn to_message(&self) -> Option<JsonMessage> {
        JsonMessage::of(&self.kind)
    }

    fn from_message(_name: &str, m: JsonMessage) -> Result<Arc<ScalarUDF>> {
        Ok(Self::udf(m.value("native function")?))
    }
}
