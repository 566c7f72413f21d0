//! `df.show()`: values printed the way Spark prints them, laid out as Spark's text table.

use arrow::array::{Array, ArrayRef, AsArray, RecordBatch};
use arrow::datatypes::{DataType, Field, Fields, IntervalUnit, TimeUnit};
use chrono::{DateTime, NaiveDate};

use crate::interval::IntervalFields;
use crate::literal::format_double;

/// Spark's string form of one value (`ToPrettyString`): NULL, `[1, 2]`, `{a -> 1}`, ...
pub fn value_string(array: &ArrayRef, field: &Field, row: usize, time_zone: &str) -> String {
    if array.is_null(row) {
        return "NULL".into();
    }
    format_value(
        array.as_ref(),
        row,
        time_zone,
        false,
        IntervalFields::of_field(field),
    )
}

/// Spark's `CAST(value AS STRING)` of a value that is not NULL: timestamps in `time_zone`
/// without trailing zeros, doubles as Java prints them, `[1, null]`, `{1, a}`, `{k -> v}`;
/// an interval as a value of `interval` (its column's fields; Spark's defaults when None).
pub fn cast_string(
    array: &dyn Array,
    row: usize,
    time_zone: &str,
    interval: Option<IntervalFields>,
) -> String {
    format_value(array, row, time_zone, false, interval)
}

fn format_value(
    array: &dyn Array,
    row: usize,
    tz: &str,
    nested: bool,
    interval: Option<IntervalFields>,
) -> String {
    if array.is_null(row) {
        return if nested { "null".into() } else { "NULL".into() };
    }
    match array.data_type() {
        DataType::Boolean => array.as_boolean().value(row).to_string(),
        DataType::Int8 => array
            .as_primitive::<arrow::datatypes::Int8Type>()
            .value(row)
            .to_string(),
        DataType::Int16 => array
            .as_primitive::<arrow::datatypes::Int16Type>()
            .value(row)
            .to_string(),
        DataType::Int32 => array
            .as_primitive::<arrow::datatypes::Int32Type>()
            .value(row)
            .to_string(),
        DataType::Int64 => array
            .as_primitive::<arrow::datatypes::Int64Type>()
            .value(row)
            .to_string(),
        DataType::UInt8 => array
            .as_primitive::<arrow::datatypes::UInt8Type>()
            .value(row)
            .to_string(),
        DataType::UInt16 => array
            .as_primitive::<arrow::datatypes::UInt16Type>()
            .value(row)
            .to_string(),
        DataType::UInt32 => array
            .as_primitive::<arrow::datatypes::UInt32Type>()
            .value(row)
            .to_string(),
        DataType::UInt64 => array
            .as_primitive::<arrow::datatypes::UInt64Type>()
            .value(row)
            .to_string(),
        DataType::Float32 => format_float(
            array
                .as_primitive::<arrow::datatypes::Float32Type>()
                .value(row),
        ),
        DataType::Float64 => format_double(
            array
                .as_primitive::<arrow::datatypes::Float64Type>()
                .value(row),
        ),
        DataType::Utf8 => array.as_string::<i32>().value(row).to_string(),
        DataType::LargeUtf8 => array.as_string::<i64>().value(row).to_string(),
        DataType::Utf8View => array.as_string_view().value(row).to_string(),
        DataType::Binary => hex_bytes(array.as_binary::<i32>().value(row)),
        DataType::LargeBinary => hex_bytes(array.as_binary::<i64>().value(row)),
        DataType::BinaryView => hex_bytes(array.as_binary_view().value(row)),
        DataType::Date32 => {
            let d = array
                .as_primitive::<arrow::datatypes::Date32Type>()
                .value(row);
            NaiveDate::from_num_days_from_ce_opt(d + 719_163)
                .map(|d| d.format("%Y-%m-%d").to_string())
                .unwrap_or_else(|| d.to_string())
        }
        DataType::Timestamp(unit, zone) => {
            let v = match unit {
                TimeUnit::Second => {
                    array
                        .as_primitive::<arrow::datatypes::TimestampSecondType>()
                        .value(row)
                        * 1_000_000
                }
                TimeUnit::Millisecond => {
                    array
                        .as_primitive::<arrow::datatypes::TimestampMillisecondType>()
                        .value(row)
                        * 1000
                }
                TimeUnit::Microsecond => array
                    .as_primitive::<arrow::datatypes::TimestampMicrosecondType>()
                    .value(row),
                TimeUnit::Nanosecond => {
                    array
                        .as_primitive::<arrow::datatypes::TimestampNanosecondType>()
                        .value(row)
                        / 1000
                }
            };
            format_timestamp(v, zone.is_some().then_some(tz))
        }
        DataType::Decimal128(_, scale) => {
            let v = array
                .as_primitive::<arrow::datatypes::Decimal128Type>()
                .value(row);
            format_decimal(v, *scale)
        }
        DataType::Duration(TimeUnit::Microsecond) => {
            let us = array
                .as_primitive::<arrow::datatypes::DurationMicrosecondType>()
                .value(row);
            interval
                .unwrap_or(IntervalFields::DAY_TO_SECOND)
                .day_time_string(us)
        }
        DataType::Interval(IntervalUnit::YearMonth) => {
            let m = array
                .as_primitive::<arrow::datatypes::IntervalYearMonthType>()
                .value(row);
            interval
                .unwrap_or(IntervalFields::YEAR_TO_MONTH)
                .year_month_string(m)
        }
        DataType::Interval(IntervalUnit::MonthDayNano) => {
            let i = array
                .as_primitive::<arrow::datatypes::IntervalMonthDayNanoType>()
                .value(row);
            calendar_interval(i.months, i.days, i.nanoseconds / 1000)
        }
        DataType::List(f) => {
            let list = array.as_list::<i32>();
            let values = list.value(row);
            format_items(values.as_ref(), tz, IntervalFields::of_field(f))
        }
        DataType::LargeList(f) => {
            let list = array.as_list::<i64>();
            let values = list.value(row);
            format_items(values.as_ref(), tz, IntervalFields::of_field(f))
        }
        DataType::Time64(TimeUnit::Microsecond) => crate::functions::native::time_text(
            array
                .as_primitive::<arrow::datatypes::Time64MicrosecondType>()
                .value(row),
        ),
        d if crate::types::is_variant(d) => {
            crate::functions::native::variant_json(array, row, tz).unwrap_or_default()
        }
        DataType::Struct(_) => {
            let s = array.as_struct();
            let parts: Vec<String> = s
                .columns()
                .iter()
                .zip(s.fields())
                .map(|(c, f)| format_value(c.as_ref(), row, tz, true, IntervalFields::of_field(f)))
                .collect();
            format!("{{{}}}", parts.join(", "))
        }
        DataType::Map(..) => {
            let m = array.as_map();
            let entries = m.value(row);
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
                        format_value(keys.as_ref(), i, tz, true, kf),
                        format_value(values.as_ref(), i, tz, true, vf)
                    )
                })
                .collect();
            format!("{{{}}}", parts.join(", "))
        }
        _ => arrow::util::display::array_value_to_string(array, row).unwrap_or_default(),
    }
}

/// Spark's `CalendarInterval.toString`: `1 years 2 months 3 days 4 hours 5.5 seconds`.
fn calendar_interval(months: i32, days: i32, micros: i64) -> String {
    if months == 0 && days == 0 && micros == 0 {
        return "0 seconds".into();
    }
    let mut parts = Vec::new();
    let mut unit = |v: i64, name: &str| {
        if v != 0 {
            parts.push(format!("{v} {name}"));
        }
    };
    unit(i64::from(months / 12), "years");
    unit(i64::from(months % 12), "months");
    unit(i64::from(days), "days");
    unit(micros / 3_600_000_000, "hours");
    unit((micros % 3_600_000_000) / 60_000_000, "minutes");
    let rest = micros % 60_000_000;
    if rest != 0 {
        let text = format_decimal(i128::from(rest), 6);
        let text = text.trim_end_matches('0').trim_end_matches('.');
        parts.push(format!("{text} seconds"));
    }
    parts.join(" ")
}

fn format_items(values: &dyn Array, tz: &str, interval: Option<IntervalFields>) -> String {
    let parts: Vec<String> = (0..values.len())
        .map(|i| format_value(values, i, tz, true, interval))
        .collect();
    format!("[{}]", parts.join(", "))
}

fn format_float(v: f32) -> String {
    if v.is_finite() && v == v.trunc() && v.abs() < 1e7 {
        format!("{v:.1}")
    } else {
        format_double(v as f64)
    }
}

fn hex_bytes(b: &[u8]) -> String {
    format!(
        "[{}]",
        b.iter()
            .map(|x| format!("{x:02X}"))
            .collect::<Vec<_>>()
            .join(" ")
    )
}

pub fn format_decimal(v: i128, scale: i8) -> String {
    if scale <= 0 {
        return (v * 10i128.pow((-scale) as u32)).to_string();
    }
    let negative = v < 0;
    let digits = v.unsigned_abs().to_string();
    let scale = scale as usize;
    let padded = if digits.len() <= scale {
        format!("{}{digits}", "0".repeat(scale - digits.len() + 1))
    } else {
        digits
    };
    let (int, frac) = padded.split_at(padded.len() - scale);
    format!("{}{int}.{frac}", if negative { "-" } else { "" })
}

fn format_timestamp(us: i64, zone: Option<&str>) -> String {
    let Some(utc) = DateTime::from_timestamp_micros(us) else {
        return us.to_string();
    };
    let local = match zone.and_then(|z| z.parse::<chrono_tz::Tz>().ok()) {
        Some(z) => utc.with_timezone(&z).naive_local(),
        None => utc.naive_utc(),
    };
    let base = local.format("%Y-%m-%d %H:%M:%S").to_string();
    let micros = local.and_utc().timestamp_subsec_micros();
    if micros == 0 {
        base
    } else {
        format!("{base}.{}", format!("{micros:06}").trim_end_matches('0'))
    }
}

/// The first `num_rows` rows as (truncated) cells, and whether there are more.
fn cells(
    batches: &[RecordBatch],
    fields: &Fields,
    num_rows: usize,
    truncate: usize,
    time_zone: &str,
) -> (Vec<Vec<String>>, bool) {
    let mut rows: Vec<Vec<String>> = Vec::new();
    for b in batches {
        for r in 0..b.num_rows() {
            if rows.len() == num_rows {
                return (rows, true);
            }
            rows.push(
                b.columns()
                    .iter()
                    .zip(b.schema_ref().fields())
                    .enumerate()
                    .map(|(i, (c, f))| {
                        // (The plan's field: the batch's may have lost an interval's fields.)
                        let f = fields.get(i).unwrap_or(f);
                        cell(value_string(c, f, r, time_zone), truncate)
                    })
                    .collect(),
            );
        }
    }
    (rows, false)
}

fn showing_top(num_rows: usize) -> String {
    let noun = if num_rows == 1 { "row" } else { "rows" };
    format!("only showing top {num_rows} {noun}")
}

/// Render rows the way `Dataset.htmlString(numRows, truncate)` does (a notebook's
/// `_repr_html_`): an HTML table of the cells `show()` prints, escaped.
pub fn html_string(
    batches: &[RecordBatch],
    names: &[String],
    fields: &Fields,
    num_rows: usize,
    truncate: usize,
    time_zone: &str,
) -> String {
    let escape = |s: &str| {
        s.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
            .replace('"', "&quot;")
    };
    let (rows, has_more) = cells(batches, fields, num_rows, truncate, time_zone);
    let mut out = String::from("<table border='1'>\n<tr>");
    for n in names {
        out.push_str(&format!("<th>{}</th>", escape(&cell(n.clone(), truncate))));
    }
    out.push_str("</tr>\n");
    for row in &rows {
        out.push_str("<tr>");
        for v in row {
            out.push_str(&format!("<td>{}</td>", escape(v)));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</table>\n");
    if has_more {
        out.push_str(&showing_top(num_rows));
        out.push('\n');
    }
    out
}

/// Render rows the way `Dataset.showString(numRows, truncate, vertical)` does.
pub fn show_string(
    batches: &[RecordBatch],
    names: &[String],
    fields: &Fields,
    num_rows: usize,
    truncate: usize,
    vertical: bool,
    time_zone: &str,
) -> String {
    let (rows, has_more) = cells(batches, fields, num_rows, truncate, time_zone);
    let header: Vec<String> = names.iter().map(|n| cell(n.clone(), truncate)).collect();
    let mut out = String::new();
    if vertical {
        // Spark: columns at least 3 wide, a header padded to both widths + 5, trailing spaces.
        let key_width = header.iter().map(|h| width(h)).max().unwrap_or(0).max(3);
        let value_width = rows
            .iter()
            .flatten()
            .map(|v| width(v))
            .max()
            .unwrap_or(0)
            .max(3);
        if rows.is_empty() {
            out.push_str("(0 rows)\n");
        }
        for (i, row) in rows.iter().enumerate() {
            let title = format!("-RECORD {i}");
            out.push_str(&title);
            out.push_str(&"-".repeat((key_width + value_width + 5).saturating_sub(width(&title))));
            out.push('\n');
            for (h, v) in header.iter().zip(row) {
                out.push_str(&format!(
                    " {}{} | {}{} \n",
                    h,
                    " ".repeat(key_width - width(h)),
                    v,
                    " ".repeat(value_width - width(v))
                ));
            }
        }
    } else {
        let mut widths: Vec<usize> = header.iter().map(|h| width(h).max(3)).collect();
        for row in &rows {
            for (i, v) in row.iter().enumerate() {
                widths[i] = widths[i].max(width(v));
            }
        }
        let sep = format!(
            "+{}+\n",
            widths
                .iter()
                .map(|w| "-".repeat(*w))
                .collect::<Vec<_>>()
                .join("+")
        );
        let line = |cells: &[String]| -> String {
            let parts: Vec<String> = cells
                .iter()
                .zip(&widths)
                .map(|(c, w)| {
                    let pad = " ".repeat(w - width(c));
                    if truncate > 0 {
                        format!("{pad}{c}")
                    } else {
                        format!("{c}{pad}")
                    }
                })
                .collect();
            format!("|{}|\n", parts.join("|"))
        };
        out.push_str(&sep);
        out.push_str(&line(&header));
        out.push_str(&sep);
        for row in &rows {
            out.push_str(&line(row));
        }
        out.push_str(&sep);
    }
    if has_more {
        out.push_str(&showing_top(num_rows));
    }
    out
}

fn width(s: &str) -> usize {
    s.chars().count()
}

fn cell(s: String, truncate: usize) -> String {
    if truncate > 0 && width(&s) > truncate {
        if truncate < 4 {
            s.chars().take(truncate).collect()
        } else {
            let mut t: String = s.chars().take(truncate - 3).collect();
            t.push_str("...");
            t
        }
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::{Int32Array, StringArray};
    use arrow::datatypes::{Field, Schema};
    use std::sync::Arc;

    #[test]
    fn renders_like_spark() {
        let schema = Arc::new(Schema::new(vec![
            Field::new("id", DataType::Int32, true),
            Field::new("name", DataType::Utf8, true),
        ]));
        let batch = RecordBatch::try_new(
            schema,
            vec![
                Arc::new(Int32Array::from(vec![1, 2])),
                Arc::new(StringArray::from(vec![Some("a"), None])),
            ],
        )
        .unwrap();
        let fields = batch.schema().fields().clone();
        let s = show_string(
            std::slice::from_ref(&batch),
            &["id".into(), "name".into()],
            &fields,
            20,
            20,
            false,
            "UTC",
        );
        assert_eq!(
            s,
            "+---+----+\n| id|name|\n+---+----+\n|  1|   a|\n|  2|NULL|\n+---+----+\n"
        );
        let names = ["id".into(), "name".into()];
        let s = show_string(&[batch], &names, &fields, 1, 20, false, "UTC");
        assert!(s.ends_with("only showing top 1 row"));
    }

    #[test]
    fn formats_decimals() {
        assert_eq!(format_decimal(12345, 2), "123.45");
        assert_eq!(format_decimal(-5, 2), "-0.05");
        assert_eq!(format_decimal(7, 0), "7");
    }
}
