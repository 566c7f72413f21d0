//! The table of Ember's native functions: one [`Row`] per [`Native`] kind, holding all it is
//! (its name, the type it answers, whether it may answer NULL, its volatility and how it is
//! evaluated). Adding a native function is a variant in `kind.rs`, its row here, and the
//! module that computes it.

use super::*;
use arrow::datatypes::{Field, Fields, IntervalUnit, TimeUnit};

/// Whether a kind's values may be NULL.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Nullability {
    Nullable,
    /// NULL only where an argument is.
    OfArguments,
    /// NULL only where the first argument is.
    OfFirstArgument,
    Never,
}

/// The rows a call evaluates: `evaluated`, the length of its argument arrays (1 when every
/// argument is a constant), and `in_batch`, the rows of the batch it is called for.
#[derive(Debug, Clone, Copy)]
pub(super) struct Rows {
    pub evaluated: usize,
    pub in_batch: usize,
}

type ReturnType<'a> = Box<dyn Fn(&[DataType]) -> Result<DataType> + 'a>;
type Eval<'a> = Box<dyn Fn(&[ArrayRef], Rows) -> Result<ArrayRef> + 'a>;

/// One row of the table: everything about a kind.
pub(super) struct Row<'a> {
    pub name: &'static str,
    pub volatility: Volatility,
    /// Evaluated for each row even when its arguments are constants (`reflect`'s random UUIDs).
    pub per_row: bool,
    /// Takes no arguments.
    pub nullary: bool,
    pub nullability: Nullability,
    pub return_type: ReturnType<'a>,
    pub eval: Eval<'a>,
}

impl<'a> Row<'a> {
    /// An immutable, nullable function of any arguments.
    fn new(
        name: &'static str,
        return_type: impl Fn(&[DataType]) -> Result<DataType> + 'a,
        eval: impl Fn(&[ArrayRef], Rows) -> Result<ArrayRef> + 'a,
    ) -> Self {
        Row {
            name,
            volatility: Volatility::Immutable,
            per_row: false,
            nullary: false,
            nullability: Nullability::Nullable,
            return_type: Box::new(return_type),
            eval: Box::new(eval),
        }
    }

    /// Of the arrays only (most rows).
    fn of(
        name: &'static str,
        return_type: impl Fn(&[DataType]) -> Result<DataType> + 'a,
        eval: impl Fn(&[ArrayRef]) -> Result<ArrayRef> + 'a,
    ) -> Self {
        Self::new(name, return_type, move |a, _| eval(a))
    }

    fn nullability(mut self, nullability: Nullability) -> Self {
        self.nullability = nullability;
        self
    }

    /// Never folded while planning.
    fn volatile(mut self) -> Self {
        self.volatility = Volatility::Volatile;
        self
    }

    /// Evaluated for each row even when its arguments are constants.
    fn per_row(mut self) -> Self {
        self.per_row = true;
        self
    }
}

/// A fixed return type.
fn always(t: DataType) -> impl Fn(&[DataType]) -> Result<DataType> {
    move |_| Ok(t.clone())
}

/// The type of the first argument (`fallback` without one).
fn first_argument(fallback: DataType) -> impl Fn(&[DataType]) -> Result<DataType> {
    move |types| Ok(types.first().cloned().unwrap_or_else(|| fallback.clone()))
}

/// The element type of a list argument (NULL for other arguments).
fn list_element(types: &[DataType]) -> Result<DataType> {
    Ok(match types.first() {
        Some(DataType::List(item)) => item.data_type().clone(),
        _ => DataType::Null,
    })
}

/// Year-month intervals stay year-month; anything else is a day-time interval.
fn interval_of_first(types: &[DataType]) -> Result<DataType> {
    Ok(match types.first() {
        Some(DataType::Interval(IntervalUnit::YearMonth)) => {
            DataType::Interval(IntervalUnit::YearMonth)
        }
        _ => DataType::Duration(TimeUnit::Microsecond),
    })
}

fn strings_list() -> DataType {
    crate::types::list_type(DataType::Utf8, true)
}

fn plan_error(message: String) -> Result<ArrayRef> {
    Err(datafusion::error::DataFusionError::Plan(message))
}

impl Native {
    /// This kind's row.
    pub(super) fn row(&self) -> Row<'_> {
        use DataType::{Binary, Boolean, Date32, Float64, Int32, Int64, Utf8};
        use Nullability::{Never, OfArguments};
        match self {
            Native::DateFormat { time_zone, pattern } => {
                Row::of("ember_date_format", always(Utf8), |a| {
                    datetime::date_format(a, time_zone, pattern)
                })
            }
            Native::ParseDatetime {
                time_zone,
                pattern,
                target,
                fail,
            } => Row::of(
                "ember_parse_datetime",
                always(match target {
                    ParseTarget::Timestamp => crate::types::timestamp_type(time_zone),
                    ParseTarget::Date => Date32,
                    ParseTarget::UnixSeconds => Int64,
                }),
                |a| datetime::parse(a, time_zone, pattern, *target, *fail),
            ),
            Native::TextToTimestamp {
                time_zone,
                fail,
                nanos,
                local,
            } => Row::of(
                "ember_text_to_timestamp",
                always(if *nanos {
                    DataType::Timestamp(TimeUnit::Nanosecond, Some(time_zone.as_str().into()))
                } else {
                    crate::types::timestamp_type(time_zone)
                }),
                |a| timestamp_text::text_to_timestamp(a, time_zone, *fail, *nanos, *local),
            ),
            Native::TextToDate { fail } => Row::of("ember_text_to_date", always(Date32), |a| {
                text_to_date::text_to_date(a, *fail)
            }),
            Native::MakeDate { fail } => Row::of("ember_make_date", always(Date32), |a| {
                make_datetime::make_date(a, *fail)
            }),
            Native::MakeLocalDateTime { fail } => Row::of(
                "ember_make_local_date_time",
                always(DataType::Timestamp(TimeUnit::Microsecond, None)),
                |a| make_datetime::make_local_date_time(a, *fail),
            ),
            Native::TimestampAdd { unit, time_zone } => Row::of(
                "ember_timestampadd",
                always(crate::types::timestamp_type(time_zone)),
                |a| datetime::timestamp_add(a, unit, time_zone),
            ),
            Native::TimestampDiff { unit, time_zone } => {
                Row::of("ember_timestampdiff", always(Int64), |a| {
                    datetime::timestamp_diff(a, unit, time_zone)
                })
            }
            Native::EpochMicros { per_second } => {
                Row::of("ember_epoch_micros", always(Int64), |a| {
                    epoch::epoch_micros(a, *per_second)
                })
                .nullability(OfArguments)
            }
            // (Nanosecond timestamps stay nanoseconds.)
            Native::DateTrunc { unit, time_zone } => Row::of(
                "ember_date_trunc",
                always(crate::types::timestamp_type(time_zone)),
                |a| date_trunc::date_trunc(a, unit, time_zone),
            ),
            Native::ShiftZone {
                time_zone,
                to_local,
            } => Row::of(
                "ember_shift_zone",
                move |types| {
                    let unit = match types.first() {
                        Some(DataType::Timestamp(TimeUnit::Nanosecond, _)) => TimeUnit::Nanosecond,
                        _ => TimeUnit::Microsecond,
                    };
                    let zone = (!to_local).then(|| time_zone.as_str().into());
                    Ok(DataType::Timestamp(unit, zone))
                },
                |a| datetime::shift_zone(a, time_zone, *to_local),
            ),
            Native::ConvertTimezone => Row::of(
                "ember_convert_timezone",
                always(DataType::Timestamp(TimeUnit::Microsecond, None)),
                datetime::convert_timezone,
            ),
            Native::MonthsBetween {
                time_zone,
                round_off,
            } => Row::of("ember_months_between", always(Float64), |a| {
                datetime::months_between(a, time_zone, *round_off)
            }),
            Native::Split => Row::of("ember_split", always(strings_list()), regex::split),
            Native::RegexpExtract { all } => Row::of(
                "ember_regexp_extract",
                always(if *all { strings_list() } else { Utf8 }),
                |a| regex::extract(a, *all),
            ),
            Native::RegexpSubstr => Row::of("ember_regexp_substr", always(Utf8), regex::substr),
            Native::RegexpInstr => Row::of("ember_regexp_instr", always(Int32), regex::instr),
            Native::RegexpLike { function } => Row::of("ember_regexp_like", always(Boolean), |a| {
                regex::like(a, function)
            })
            .nullability(OfArguments),
            Native::RegexpCount => {
                Row::of("ember_regexp_count", always(Int32), regex::count).nullability(OfArguments)
            }
            Native::RegexpReplace => Row::of("ember_regexp_replace", always(Utf8), regex::replace)
                .nullability(OfArguments),
            Native::StrToMap { last_win } => {
                let entries = DataType::Struct(Fields::from(vec![
                    Field::new("key", Utf8, false),
                    Field::new("value", Utf8, true),
                ]));
                let map = DataType::Map(Arc::new(Field::new("entries", entries, false)), false);
                Row::of("ember_str_to_map", always(map), |a| {
                    str_to_map::str_to_map(a, *last_win)
                })
                .nullability(OfArguments)
            }
            Native::Initcap => Row::of("ember_initcap", always(Utf8), regex::initcap),
            Native::Conv => Row::of("ember_conv", always(Utf8), numbers::conv),
            Native::FormatNumber { format } => Row::of("ember_format_number", always(Utf8), |a| {
                format_number::format_number(a, format)
            }),
            Native::FormatNumberPerRow => Row::of(
                "ember_format_number_per_row",
                always(Utf8),
                format_number::format_number_per_row,
            ),
            Native::Mask => Row::of("ember_mask", always(Utf8), regex::mask),
            Native::RenameFields { names } => Row::of(
                "ember_rename_fields",
                move |types| match types.first() {
                    Some(DataType::Struct(fields)) => Ok(DataType::Struct(
                        fields
                            .iter()
                            .zip(names)
                            .map(|(f, n)| f.as_ref().clone().with_name(n))
                            .collect(),
                    )),
                    Some(DataType::List(item)) => match item.data_type() {
                        DataType::Struct(fields) => Ok(crate::types::list_type(
                            DataType::Struct(
                                fields
                                    .iter()
                                    .zip(names)
                                    .map(|(f, n)| f.as_ref().clone().with_name(n))
                                    .collect(),
                            ),
                            true,
                        )),
                        other => internal_err!("rename_fields of a list of {other}"),
                    },
                    other => internal_err!("rename_fields of {other:?}"),
                },
                |a| numbers::rename_fields(a, names),
            ),
            Native::ArrayMode { sorted } => Row::of("ember_array_mode", list_element, |a| {
                numbers::array_mode(a, *sorted)
            }),
            Native::HashSetOrder => Row::of(
                "ember_hash_set_order",
                first_argument(DataType::Null),
                numbers::hash_set_ordered,
            )
            .nullability(OfArguments),
            Native::ToJson { formats } => {
                Row::of("ember_to_json", always(Utf8), |a| json::to_json(a, formats))
            }
            Native::ToCsv => Row::of("ember_to_csv", always(Utf8), csv::to_csv),
            Native::Bitmap { op } => {
                let row = Row::of("ember_bitmap", always(op.return_type()), |a| {
                    bitmap::evaluate(*op, a)
                });
                // (The aggregates read a group's list, NULL for a group without values,
                // whose bitmap is the one it starts from, as Spark's.)
                match op {
                    BitmapOp::Count => row.nullability(OfArguments),
                    _ => row.nullability(Never),
                }
            }
            Native::ToNumber { pattern, fail } => {
                Row::of("ember_to_number", always(pattern.data_type()), |a| {
                    to_number::to_number(a, pattern, *fail)
                })
            }
            Native::ToChar { pattern } => Row::of("ember_to_char", always(Utf8), |a| {
                to_char::to_char(a, pattern)
            })
            .nullability(OfArguments),
            Native::Zoned { op, time_zone } => Row::of(
                "ember_zoned_arithmetic",
                |types| op.return_type(types),
                |a| zoned::evaluate(a, time_zone, *op),
            )
            .nullability(OfArguments),
            Native::Xpath { result } => Row::of("ember_xpath", always(result.return_type()), |a| {
                xpath::evaluate(*result, a)
            }),
            Native::ToBinary { format, fail } => Row::of("ember_to_binary", always(Binary), |a| {
                binary::to_binary(a, *format, *fail)
            }),
            Native::Reflect { call } => Row::new("ember_reflect", always(Utf8), |a, rows| {
                reflect::evaluate(call, a, rows.evaluated)
            })
            // randomUUID: every row its own.
            .volatile()
            .per_row(),
            Native::SessionWindow { time_zone, .. } => Row::of(
                SESSION_WINDOW,
                always(session_window_type(time_zone.as_deref())),
                |_| plan_error("not supported: session_window outside a GROUP BY key".into()),
            ),
            Native::SeededRandom { draw, seed } => Row::of(
                "ember_seeded_random",
                always(match draw {
                    random::RandomKind::Text { .. } => Utf8,
                    _ => Float64,
                }),
                |a| random::evaluate(*draw, *seed, a),
            ),
            // Never folded while planning: the resolver replaces it. A location always
            // names its file.
            Native::InputFile { field } => {
                let mut row = Row::of(
                    "ember_input_file",
                    always(match field {
                        input_file::InputFileField::Name => Utf8,
                        _ => Int64,
                    }),
                    |_| plan_error(format!("not supported: {}() here", field.name())),
                )
                .volatile()
                .nullability(Never);
                row.nullary = true;
                row
            }
            Native::FileUri { prefix } => Row::of("ember_file_uri", always(Utf8), |a| {
                input_file::file_uri(a, prefix)
            })
            .nullability(Never),
            Native::LocalFileSize => Row::of(
                "ember_local_file_size",
                always(Int64),
                input_file::local_file_size,
            )
            .nullability(Never),
            Native::IntervalScale { divide } => {
                Row::of("ember_interval_scale", interval_of_first, |a| {
                    interval::evaluate(a, *divide)
                })
            }
            Native::NumberToInterval { cast } => {
                Row::of("ember_number_to_interval", interval_of_first, |a| {
                    interval::evaluate_cast(a, cast)
                })
            }
            Native::IntervalTruncate { unit } => {
                Row::of("ember_interval_truncate", interval_of_first, |a| {
                    interval::truncate(a, *unit)
                })
            }
            Native::TextToInterval { fields, fail } => Row::of(
                "ember_text_to_interval",
                always(if fields.year_month {
                    DataType::Interval(IntervalUnit::YearMonth)
                } else {
                    DataType::Duration(TimeUnit::Microsecond)
                }),
                |a| interval::from_text(a, *fields, *fail),
            ),
            Native::CheckedIntegerCast {
                from,
                to,
                unit,
                arithmetic,
            } => Row::of(
                "ember_checked_integer_cast",
                always(integer_type(to)),
                |a| interval::checked_integer_cast(a, from, &integer_type(to), *unit, *arithmetic),
            ),
            Native::PoissonCount { mean_bits } => {
                Row::of("ember_poisson_count", always(Int64), |a| {
                    poisson::evaluate(a, f64::from_bits(*mean_bits))
                })
            }
            Native::LegacyIntegerCast { to } => {
                Row::of("ember_legacy_integer_cast", always(integer_type(to)), |a| {
                    legacy_cast::evaluate(a, &integer_type(to))
                })
            }
            Native::Spatial { op } => Row::of("ember_spatial", always(op.return_type()), |a| {
                spatial::evaluate(op, a)
            })
            .nullability(OfArguments),
            Native::Sketch { op } => Row::of(
                "ember_sketch",
                |types| Ok(op.return_type(types)),
                |a| sketch::evaluate(op, a),
            )
            .nullability(op.nullability()),
            // Random IVs: every row, every run, its own ciphertext.
            Native::Aes { encrypt, fail } => {
                let row = Row::of("ember_aes", always(Binary), |a| {
                    aes::aes(a, *encrypt, *fail)
                });
                if *encrypt { row.volatile() } else { row }
            }
            // A GROUP BY key stands for one of the windows (the list is unnested).
            Native::SlidingWindows => Row::of(
                SLIDING_WINDOWS,
                |types| {
                    Ok(match types.first() {
                        Some(DataType::List(item)) => item.data_type().clone(),
                        other => other.cloned().unwrap_or(DataType::Null),
                    })
                },
                |_| {
                    plan_error(
                        "not supported: sliding windows (a slide other than the window's \
                         duration) outside a GROUP BY key"
                            .into(),
                    )
                },
            ),
            Native::HistogramNumeric { bins } => Row::of(
                "ember_histogram_numeric",
                |types| match types.first() {
                    Some(DataType::List(item)) => Ok(crate::types::list_type(
                        DataType::Struct(Fields::from(vec![
                            Field::new("x", item.data_type().clone(), true),
                            Field::new("y", Float64, true),
                        ])),
                        true,
                    )),
                    other => internal_err!("histogram_numeric of {other:?}"),
                },
                |a| numbers::histogram_numeric(a, *bins),
            ),
            Native::FromXml { schema, time_zone } => Row::of(
                "ember_from_xml",
                |_| json::schema_type(schema, time_zone),
                |a| xml::from_xml(a, &json::schema_type(schema, time_zone)?, time_zone),
            ),
            Native::ToXml => Row::of("ember_to_xml", always(Utf8), xml::to_xml),
            Native::MakeYmInterval => Row::of(
                "ember_make_ym_interval",
                always(DataType::Interval(IntervalUnit::YearMonth)),
                numbers::make_ym_interval,
            ),
            Native::MakeDtInterval => Row::of(
                "ember_make_dt_interval",
                always(DataType::Duration(TimeUnit::Microsecond)),
                numbers::make_dt_interval,
            )
            .nullability(OfArguments),
            Native::Sentences => Row::of(
                "ember_sentences",
                always(crate::types::list_type(strings_list(), true)),
                regex::sentences,
            ),
            Native::Time { op } => Row::of("ember_time", always(op.return_type()), |a| {
                time::evaluate(op, a)
            }),
            Native::Variant { op } => Row::of(
                "ember_variant",
                |_| op.return_type(),
                |a| variant::evaluate(op, a),
            )
            .nullability(op.nullability()),
            Native::FromJson {
                schema,
                time_zone,
                leniency,
            } => Row::of(
                "ember_from_json",
                |_| json::schema_type(schema, time_zone),
                |a| json::from_json(a, &json::schema_type(schema, time_zone)?, *leniency),
            ),
            Native::FromCsv {
                schema,
                time_zone,
                options,
            } => Row::of(
                "ember_from_csv",
                |_| json::schema_type(schema, time_zone),
                |a| csv::from_csv(a, &json::schema_type(schema, time_zone)?, options),
            ),
            Native::GetJsonObject => {
                Row::of("ember_get_json_object", always(Utf8), json::get_json_object)
            }
            Native::JsonArrayLength => Row::of(
                "ember_json_array_length",
                always(Int32),
                json::json_array_length,
            ),
            Native::JsonObjectKeys => Row::of(
                "ember_json_object_keys",
                always(strings_list()),
                json::json_object_keys,
            ),
            Native::StrictMath { op } => Row::of("ember_strict_math", always(Float64), |a| {
                strict_math::evaluate(*op, a)
            }),
            Native::RoundHalfEven { scale } => {
                Row::of("ember_bround", first_argument(Float64), |a| {
                    numbers::round_half_even(a, *scale)
                })
            }
            Native::DecimalMicros => Row::of(
                "ember_decimal_micros",
                always(DataType::Int64),
                numbers::decimal_micros,
            ),
            Native::Round {
                scale,
                half_even,
                ansi,
            } => Row::of("ember_round", first_argument(Float64), |a| {
                round::round(a, *scale, *half_even, *ansi)
            }),
            Native::CeilFloor { scale, up } => {
                Row::of("ember_ceil_floor", first_argument(Float64), |a| {
                    numbers::ceil_floor(a, *scale, *up)
                })
            }
            Native::Murmur3 => Row::new("ember_hash", always(Int32), |a, rows| {
                hash::murmur3(a, rows.evaluated)
            }),
            // A failure must never be folded while planning: only rows that reach it fail.
            Native::NextDay { ansi } => Row::of("ember_next_day", always(DataType::Date32), |a| {
                super::next_day::next_day(a, *ansi)
            }),
            Native::Fail { failure } => {
                Row::new("ember_fail", always(DataType::Null), |a, rows| {
                    if rows.in_batch == 0 {
                        Ok(arrow::array::new_null_array(&DataType::Null, 0))
                    } else {
                        Err(crate::error::to_datafusion(failure.error(a)))
                    }
                })
                .volatile()
            }
            Native::Charset { charset, encode } => Row::of(
                "ember_charset",
                always(if *encode { Binary } else { Utf8 }),
                |a| charset::evaluate(a, *charset, *encode),
            ),
            Native::CharsetPerRow { encode } => Row::of(
                "ember_charset_per_row",
                always(if *encode { Binary } else { Utf8 }),
                |a| charset::evaluate_per_row(a, *encode),
            ),
            Native::ArrayPairs => Row::of(
                "ember_array_pairs",
                |types| {
                    Ok(match types.first() {
                        Some(DataType::List(element)) => {
                            DataType::new_list(array_sort::pair_type(element), true)
                        }
                        _ => DataType::Null,
                    })
                },
                array_sort::pairs,
            ),
            Native::SortByComparisons => Row::of(
                "ember_sort_by_comparisons",
                first_argument(DataType::Null),
                array_sort::sort_by,
            ),
            Native::Deferred => {
                Row::of(
                    "ember_deferred",
                    first_argument(DataType::Null),
                    |a| match a.first() {
                        Some(a) => Ok(Arc::clone(a)),
                        None => internal_err!("ember_deferred takes one argument"),
                    },
                )
                .volatile()
                .per_row()
            }
            Native::Base32 { encode } => Row::of(
                "ember_base32",
                always(if *encode { Utf8 } else { Binary }),
                |a| base32::evaluate(a, *encode),
            )
            .nullability(OfArguments),
            Native::Hmac => Row::of("ember_hmac", always(Binary), hmac::evaluate),
            Native::Bytes { op } => Row::of("ember_bytes", always(op.return_type()), |a| {
                bytes::evaluate(*op, a)
            })
            .nullability(OfArguments),
            Native::JavaZoneId => {
                Row::of("ember_java_zone_id", always(Utf8), row_rewrites::zone_ids)
                    .nullability(OfArguments)
            }
            Native::LikeEscape { escape } => Row::of("ember_like_escape", always(Utf8), |a| {
                row_rewrites::like_patterns(a, *escape)
            })
            .nullability(OfArguments),
            Native::LikeSegments { pattern } => {
                Row::of("ember_like_segments", always(Boolean), |a| {
                    like_segments::evaluate(a, pattern)
                })
                .nullability(OfArguments)
            }
            Native::JaroWinkler => {
                Row::of("ember_jaro_winkler", always(Float64), similarity::evaluate)
            }
            Native::Instr => Row::of("ember_instr", always(Int32), instr::evaluate),
            Native::Vector { op } => Row::of("ember_vector", always(op.return_type()), |a| {
                vector::evaluate(*op, a)
            }),
            Native::CollectUnion { respect_nulls } => Row::of(
                "ember_collect_union",
                |types| {
                    let element = collect_union::element_field(types.first(), *respect_nulls)?;
                    Ok(DataType::List(element))
                },
                |a| collect_union::evaluate(a, *respect_nulls),
            )
            .nullability(Never),
        }
    }
}
