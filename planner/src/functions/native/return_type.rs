//! The type each [`Native`] kind answers, from its argument types, and whether its values
//! may be NULL.

use super::*;

impl Native {
    pub(super) fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        Ok(match self {
            Native::RoundHalfEven { .. } | Native::CeilFloor { .. } => {
                arg_types.first().cloned().unwrap_or(DataType::Float64)
            }
            Native::ArrayMode => match arg_types.first() {
                Some(DataType::List(item)) => item.data_type().clone(),
                _ => DataType::Null,
            },
            Native::ToJson { .. }
            | Native::ToCsv
            | Native::GetJsonObject
            | Native::Conv
            | Native::FormatNumber { .. }
            | Native::Mask => DataType::Utf8,
            Native::RenameFields { names } => match arg_types.first() {
                Some(DataType::List(item)) => match item.data_type() {
                    DataType::Struct(fields) => crate::types::list_type(
                        DataType::Struct(
                            fields
                                .iter()
                                .zip(names)
                                .map(|(f, n)| f.as_ref().clone().with_name(n))
                                .collect(),
                        ),
                        true,
                    ),
                    other => return internal_err!("rename_fields of a list of {other}"),
                },
                other => return internal_err!("rename_fields of {other:?}"),
            },
            Native::FromJson {
                schema, time_zone, ..
            } => json::schema_type(schema, time_zone)?,
            Native::FromCsv {
                schema, time_zone, ..
            } => json::schema_type(schema, time_zone)?,
            Native::JsonArrayLength => DataType::Int32,
            Native::Bitmap { op } => op.return_type(),
            Native::Xpath { result } => result.return_type(),
            Native::Variant { op } => op.return_type()?,
            Native::Time { op } => op.return_type(),
            Native::ToBinary { .. } | Native::Aes { .. } => DataType::Binary,
            Native::Sketch { op } => op.return_type(arg_types),
            Native::Spatial { op } => op.return_type(),
            Native::Reflect { .. } => DataType::Utf8,
            Native::InputFile { field } => match field {
                input_file::InputFileField::Name => DataType::Utf8,
                _ => DataType::Int64,
            },
            Native::FileUri { .. } => DataType::Utf8,
            Native::LocalFileSize => DataType::Int64,
            Native::TextToInterval { fields, .. } => {
                if fields.year_month {
                    DataType::Interval(arrow::datatypes::IntervalUnit::YearMonth)
                } else {
                    DataType::Duration(arrow::datatypes::TimeUnit::Microsecond)
                }
            }
            Native::PoissonCount { .. } => DataType::Int64,
            Native::CheckedIntegerCast { to, .. } | Native::LegacyIntegerCast { to } => {
                integer_type(to)
            }
            Native::IntervalScale { .. }
            | Native::IntervalTruncate { .. }
            | Native::NumberToInterval { .. } => match arg_types.first() {
                Some(DataType::Interval(arrow::datatypes::IntervalUnit::YearMonth)) => {
                    DataType::Interval(arrow::datatypes::IntervalUnit::YearMonth)
                }
                _ => DataType::Duration(arrow::datatypes::TimeUnit::Microsecond),
            },
            Native::SeededRandom { draw, .. } => match draw {
                random::RandomKind::Text { .. } => DataType::Utf8,
                _ => DataType::Float64,
            },
            Native::SessionWindow { time_zone, .. } => session_window_type(time_zone.as_deref()),
            // A GROUP BY key stands for one of the windows (the list is unnested).
            Native::SlidingWindows => match arg_types.first() {
                Some(DataType::List(item)) => item.data_type().clone(),
                other => other.cloned().unwrap_or(DataType::Null),
            },
            Native::FromXml { schema, time_zone } => json::schema_type(schema, time_zone)?,
            Native::ToXml { .. } => DataType::Utf8,
            Native::HistogramNumeric { .. } => match arg_types.first() {
                Some(DataType::List(item)) => crate::types::list_type(
                    DataType::Struct(arrow::datatypes::Fields::from(vec![
                        arrow::datatypes::Field::new("x", item.data_type().clone(), true),
                        arrow::datatypes::Field::new("y", DataType::Float64, true),
                    ])),
                    true,
                ),
                other => return internal_err!("histogram_numeric of {other:?}"),
            },
            Native::MakeYmInterval => DataType::Interval(arrow::datatypes::IntervalUnit::YearMonth),
            Native::Sentences => {
                crate::types::list_type(crate::types::list_type(DataType::Utf8, true), true)
            }
            Native::ToNumber { pattern, .. } => pattern.data_type(),
            Native::Zoned { op, .. } => op.return_type(arg_types)?,
            Native::JsonObjectKeys => crate::types::list_type(DataType::Utf8, true),
            Native::DateFormat { .. }
            | Native::ToChar { .. }
            | Native::RegexpSubstr
            | Native::Initcap
            | Native::RegexpExtract { all: false } => DataType::Utf8,
            Native::TextToTimestamp {
                time_zone,
                nanos: true,
                ..
            } => DataType::Timestamp(
                arrow::datatypes::TimeUnit::Nanosecond,
                Some(time_zone.as_str().into()),
            ),
            Native::TextToTimestamp { time_zone, .. } => crate::types::timestamp_type(time_zone),
            Native::TextToDate { .. } => DataType::Date32,
            Native::ParseDatetime {
                target, time_zone, ..
            } => match target {
                ParseTarget::Timestamp => crate::types::timestamp_type(time_zone),
                ParseTarget::Date => DataType::Date32,
                ParseTarget::UnixSeconds => DataType::Int64,
            },
            Native::MonthsBetween { .. } => DataType::Float64,
            Native::TimestampAdd { time_zone, .. } => crate::types::timestamp_type(time_zone),
            Native::TimestampDiff { .. } => DataType::Int64,
            Native::ConvertTimezone => {
                DataType::Timestamp(arrow::datatypes::TimeUnit::Microsecond, None)
            }
            // (Nanosecond timestamps stay nanoseconds.)
            Native::ShiftZone {
                time_zone,
                to_local,
            } => {
                let unit = match arg_types.first() {
                    Some(DataType::Timestamp(arrow::datatypes::TimeUnit::Nanosecond, _)) => {
                        arrow::datatypes::TimeUnit::Nanosecond
                    }
                    _ => arrow::datatypes::TimeUnit::Microsecond,
                };
                let zone = (!to_local).then(|| time_zone.as_str().into());
                DataType::Timestamp(unit, zone)
            }
            Native::Split | Native::RegexpExtract { all: true } => {
                crate::types::list_type(DataType::Utf8, true)
            }
            Native::RegexpInstr | Native::RegexpCount | Native::Murmur3 => DataType::Int32,
            Native::StrictMath { .. } => DataType::Float64,
            Native::RegexpLike { .. } => DataType::Boolean,
            Native::RegexpReplace => DataType::Utf8,
            Native::StrToMap { .. } => {
                use arrow::datatypes::{Field, Fields};
                let entries = DataType::Struct(Fields::from(vec![
                    Field::new("key", DataType::Utf8, false),
                    Field::new("value", DataType::Utf8, true),
                ]));
                DataType::Map(
                    std::sync::Arc::new(Field::new("entries", entries, false)),
                    false,
                )
            }
            Native::Fail { .. } => DataType::Null,
            Native::Deferred | Native::SortByComparisons => {
                arg_types.first().cloned().unwrap_or(DataType::Null)
            }
            Native::Charset { encode, .. } => {
                if *encode {
                    DataType::Binary
                } else {
                    DataType::Utf8
                }
            }
            Native::ArrayPairs => match arg_types.first() {
                Some(DataType::List(element)) => {
                    DataType::new_list(array_sort::pair_type(element), true)
                }
                _ => DataType::Null,
            },
            Native::Base32 { encode: true } => DataType::Utf8,
            Native::Base32 { encode: false } | Native::Hmac => DataType::Binary,
            Native::JaroWinkler => DataType::Float64,
            Native::Instr => DataType::Int32,
            Native::Vector { op } => op.return_type(),
            Native::Bytes { op } => op.return_type(),
            Native::JavaZoneId | Native::LikeEscape { .. } => DataType::Utf8,
            Native::CollectUnion { .. } => {
                DataType::List(collect_union::element_field(arg_types.first())?)
            }
        })
    }
}

/// Whether a kind's values may be NULL.
pub(super) enum Nullability {
    Nullable,
    /// NULL only where an argument is.
    OfArguments,
    /// NULL only where the first argument is.
    OfFirstArgument,
    Never,
}

impl Native {
    pub(super) fn nullability(&self) -> Nullability {
        match self {
            // A location always names its file.
            Native::InputFile { .. } | Native::FileUri { .. } | Native::LocalFileSize => {
                Nullability::Never
            }
            Native::CollectUnion { .. } => Nullability::Never,
            Native::RegexpLike { .. }
            | Native::RegexpCount
            | Native::RegexpReplace
            | Native::StrToMap { .. }
            | Native::Bytes { .. }
            | Native::JavaZoneId
            | Native::LikeEscape { .. } => Nullability::OfArguments,
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
