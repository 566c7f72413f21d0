//! Spark's spelling of values as text, in one place for `df.show()`, casts to string and the
//! text writers: numbers (`numbers`: Java's doubles, decimals, binary), dates, timestamps and
//! times (`datetime`: as a cast spells them, or with a datetime pattern) and intervals
//! (`interval`), and [`spell`], which spells any value, nested ones too, as Spark's
//! `CAST(.. AS STRING)` and `ToPrettyString` do.
//!
//! Where the callers differ on purpose, they say so in a [`Spelling`]: `show()` prints a NULL
//! inside an array, map or struct as `NULL` where a cast prints `null`; Spark's VARIANT, which
//! this crate does not know, is spelled by the planner's hook.

pub mod datetime;
pub mod interval;
pub mod numbers;
pub mod pattern;
pub mod zone_rules;

use arrow::array::{Array, AsArray};
use arrow::datatypes::{
    DataType, Date32Type, Decimal128Type, DurationMicrosecondType, Float32Type, Float64Type,
    Int8Type, Int16Type, Int32Type, Int64Type, IntervalMonthDayNanoType, IntervalUnit,
    IntervalYearMonthType, Time64MicrosecondType, TimeUnit, TimestampNanosecondType, UInt8Type,
    UInt16Type, UInt32Type, UInt64Type,
};

pub use datetime::{time_text, timestamp_text};
pub use interval::IntervalFields;
pub use numbers::{binary_text, decimal_text, java_big_decimal, java_double, java_float};

/// Spells a value of a struct type this crate does not know (Spark's VARIANT), or None
/// when the type is not one it spells. Its arguments: the array, the row, the time zone.
pub type ExtensionSpelling = fn(&dyn Array, usize, &str) -> Option<String>;

/// How [`spell`] spells what its callers spell differently.
#[derive(Clone, Copy)]
pub struct Spelling<'a> {
    /// The session time zone, for timestamps.
    pub time_zone: &'a str,
    /// The text of a NULL nested inside an array, map or struct: `NULL` in `show()`,
    /// `null` in a cast.
    pub null: &'a str,
    /// Values of struct types this crate does not know.
    pub extension: Option<ExtensionSpelling>,
}

/// A value as text: timestamps in the time zone without trailing zeros, doubles as Java
/// prints them, `[1, null]`, `{1, a}`, `{k -> v}`, binary as `[0A FF]`; an interval as a
/// value of `interval` (its column's fields; Spark's defaults when None). A NULL is
/// `spelling.null`.
pub fn spell(
    array: &dyn Array,
    row: usize,
    spelling: &Spelling,
    interval: Option<IntervalFields>,
) -> String {
    if array.is_null(row) {
        return spelling.null.into();
    }
    let tz = spelling.time_zone;
    match array.data_type() {
        DataType::Boolean => array.as_boolean().value(row).to_string(),
        DataType::Int8 => array.as_primitive::<Int8Type>().value(row).to_string(),
        DataType::Int16 => array.as_primitive::<Int16Type>().value(row).to_string(),
        DataType::Int32 => array.as_primitive::<Int32Type>().value(row).to_string(),
        DataType::Int64 => array.as_primitive::<Int64Type>().value(row).to_string(),
        DataType::UInt8 => array.as_primitive::<UInt8Type>().value(row).to_string(),
        DataType::UInt16 => array.as_primitive::<UInt16Type>().value(row).to_string(),
        DataType::UInt32 => array.as_primitive::<UInt32Type>().value(row).to_string(),
        DataType::UInt64 => array.as_primitive::<UInt64Type>().value(row).to_string(),
        DataType::Float32 => java_float(array.as_primitive::<Float32Type>().value(row)),
        DataType::Float64 => java_double(array.as_primitive::<Float64Type>().value(row)),
        DataType::Utf8 => array.as_string::<i32>().value(row).to_string(),
        DataType::LargeUtf8 => array.as_string::<i64>().value(row).to_string(),
        DataType::Utf8View => array.as_string_view().value(row).to_string(),
        DataType::Binary => binary_text(array.as_binary::<i32>().value(row)),
        DataType::LargeBinary => binary_text(array.as_binary::<i64>().value(row)),
        DataType::BinaryView => binary_text(array.as_binary_view().value(row)),
        DataType::Date32 => datetime::date_text(array.as_primitive::<Date32Type>().value(row)),
        DataType::Timestamp(TimeUnit::Nanosecond, zone) => datetime::timestamp_nanos_text(
            array.as_primitive::<TimestampNanosecondType>().value(row),
            zone.is_some().then_some(tz),
            false,
        ),
        DataType::Timestamp(unit, zone) => timestamp_text(
            datetime::timestamp_micros(array, unit, row),
            zone.is_some().then_some(tz),
            false,
        ),
        DataType::Decimal128(_, scale) => {
            decimal_text(array.as_primitive::<Decimal128Type>().value(row), *scale)
        }
        DataType::Duration(TimeUnit::Microsecond) => interval
            .unwrap_or(IntervalFields::DAY_TO_SECOND)
            .day_time_string(array.as_primitive::<DurationMicrosecondType>().value(row)),
        DataType::Interval(IntervalUnit::YearMonth) => interval
            .unwrap_or(IntervalFields::YEAR_TO_MONTH)
            .year_month_string(array.as_primitive::<IntervalYearMonthType>().value(row)),
        DataType::Interval(IntervalUnit::MonthDayNano) => {
            let i = array.as_primitive::<IntervalMonthDayNanoType>().value(row);
            interval::calendar_interval_text(i.months, i.days, i.nanoseconds / 1000)
        }
        DataType::List(f) => {
            let values = array.as_list::<i32>().value(row);
            items(values.as_ref(), spelling, IntervalFields::of_field(f))
        }
        DataType::LargeList(f) => {
            let values = array.as_list::<i64>().value(row);
            items(values.as_ref(), spelling, IntervalFields::of_field(f))
        }
        DataType::Time64(TimeUnit::Microsecond) => {
            time_text(array.as_primitive::<Time64MicrosecondType>().value(row))
        }
        DataType::Struct(_) => {
            if let Some(text) = spelling.extension.and_then(|f| f(array, row, tz)) {
                return text;
            }
            let s = array.as_struct();
            let parts: Vec<String> = s
                .columns()
                .iter()
                .zip(s.fields())
                .map(|(c, f)| spell(c.as_ref(), row, spelling, IntervalFields::of_field(f)))
                .collect();
            format!("{{{}}}", parts.join(", "))
        }
        DataType::Map(..) => {
            let entries = array.as_map().value(row);
            let (keys, values) = (entries.column(0), entries.column(1));
            let fields = entries.fields();
            let (kf, vf) = (
                IntervalFields::of_field(&fields[0]),
                IntervalFields::of_field(&fields[1]),
            );
            let parts: Vec<String> = (0..entries.len())
                .map(|i| {
                    format!(
                        "{} -> {}",
                        spell(keys.as_ref(), i, spelling, kf),
                        spell(values.as_ref(), i, spelling, vf)
                    )
                })
                .collect();
            format!("{{{}}}", parts.join(", "))
        }
        _ => arrow::util::display::array_value_to_string(array, row).unwrap_or_default(),
    }
}

fn items(values: &dyn Array, spelling: &Spelling, interval: Option<IntervalFields>) -> String {
    let parts: Vec<String> = (0..values.len())
        .map(|i| spell(values, i, spelling, interval))
        .collect();
    format!("[{}]", parts.join(", "))
}
