//! Numeric functions: half-even rounding (`bround`).

use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, PrimitiveArray};
use arrow::datatypes::{
    ArrowPrimitiveType, DataType, Decimal128Type, Float32Type, Float64Type, Int8Type, Int16Type,
    Int32Type, Int64Type, IntervalUnit, IntervalYearMonthType,
};
use datafusion::common::{Result, internal_err};

/// `v / m` rounded half to even, times `m` (integers and unscaled decimals).
pub(super) fn half_even_i128(v: i128, m: i128) -> i128 {
    let (q, r) = (v / m, v % m);
    let twice = 2 * r.abs();
    let up = twice > m || (twice == m && q % 2 != 0);
    let q = if up { q + v.signum() } else { q };
    q * m
}

fn map<T: ArrowPrimitiveType>(
    a: &ArrayRef,
    f: impl Fn(T::Native) -> T::Native,
) -> PrimitiveArray<T> {
    a.as_primitive::<T>().unary(f)
}

pub(super) fn round_half_even(arrays: &[ArrayRef], scale: i32) -> Result<ArrayRef> {
    round_with(arrays, scale, half_even_i128, f64::round_ties_even)
}

/// `ceil(x, scale)` (`up`) or `floor(x, scale)`, in the type of `x`.
pub(super) fn ceil_floor(arrays: &[ArrayRef], scale: i32, up: bool) -> Result<ArrayRef> {
    if up {
        round_with(
            arrays,
            scale,
            |v, m| (v.div_euclid(m) + i128::from(v.rem_euclid(m) != 0)) * m,
            f64::ceil,
        )
    } else {
        round_with(arrays, scale, |v, m| v.div_euclid(m) * m, f64::floor)
    }
}

/// A DECIMAL's microseconds, wrapping past a BIGINT (see `Native::DecimalMicros`): the exact
/// product truncated toward zero, its low 64 bits (i128 arithmetic wraps as the exact one's
/// low bits do).
pub(super) fn decimal_micros(arrays: &[ArrayRef]) -> Result<ArrayRef> {
    let Some(a) = arrays.first() else {
        return internal_err!("decimal_micros without a value");
    };
    let DataType::Decimal128(_, scale) = a.data_type() else {
        return internal_err!("decimal_micros of {}", a.data_type());
    };
    let shift = 6 - i32::from(*scale);
    let out: PrimitiveArray<Int64Type> = a.as_primitive::<Decimal128Type>().unary(|v| {
        let micros = if shift >= 0 {
            10i128
                .checked_pow(shift.unsigned_abs())
                .map_or(0, |m| v.wrapping_mul(m))
        } else {
            10i128
                .checked_pow(shift.unsigned_abs())
                .map_or(0, |m| v / m)
        };
        micros as i64
    });
    Ok(Arc::new(out))
}

/// Round each value to `scale` decimal digits: `int(v, m)` rounds an integer (or unscaled
/// decimal) to a multiple of `m`, `float` rounds a double to an integer.
fn round_with(
    arrays: &[ArrayRef],
    scale: i32,
    int: fn(i128, i128) -> i128,
    float: fn(f64) -> f64,
) -> Result<ArrayRef> {
    let Some(a) = arrays.first() else {
        return internal_err!("rounding without a value");
    };
    let scaled = |x: f64| -> f64 {
        if !x.is_finite() {
            x
        } else if scale >= 0 {
            let m = 10f64.powi(scale);
            float(x * m) / m
        } else {
            let m = 10f64.powi(-scale);
            float(x / m) * m
        }
    };
    // (Past 38 digits every value is a fraction of the unit.)
    let int_factor = if scale < 0 {
        Some(10i128.checked_pow(scale.unsigned_abs()))
    } else {
        None
    };
    let whole = |v: i128| match int_factor {
        None => v,
        Some(Some(m)) => int(v, m),
        Some(None) => 0,
    };
    Ok(match a.data_type() {
        DataType::Float64 => Arc::new(map::<Float64Type>(a, scaled)),
        DataType::Float32 => Arc::new(map::<Float32Type>(a, |x| scaled(x as f64) as f32)),
        DataType::Int8 => Arc::new(map::<Int8Type>(a, |x| whole(x as i128) as i8)),
        DataType::Int16 => Arc::new(map::<Int16Type>(a, |x| whole(x as i128) as i16)),
        DataType::Int32 => Arc::new(map::<Int32Type>(a, |x| whole(x as i128) as i32)),
        DataType::Int64 => Arc::new(map::<Int64Type>(a, |x| whole(x as i128) as i64)),
        DataType::Decimal128(p, s) => {
            let drop = *s as i32 - scale;
            let m = if drop > 0 {
                Some(10i128.checked_pow(drop as u32))
            } else {
                None
            };
            let out = map::<Decimal128Type>(a, |v| match m {
                None => v,
                Some(Some(m)) => int(v, m),
                Some(None) => 0,
            });
            Arc::new(out.with_precision_and_scale(*p, *s)?)
        }
        other => return internal_err!("rounding of {other}"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_micros_wrap_as_java_long_value() {
        let a: ArrayRef = Arc::new(
            PrimitiveArray::<Decimal128Type>::from(vec![
                Some(100_000_000_000_000_000_000),
                Some(9_999_999_999_999_999_950_000_000_000_000_000_000),
                Some(-9_999_999_999_999_999_999_999),
                None,
            ])
            .with_precision_and_scale(38, 20)
            .unwrap(),
        );
        let r = decimal_micros(&[a]).unwrap();
        let r = r.as_primitive::<Int64Type>();
        assert_eq!(r.value(0), 1_000_000);
        assert_eq!(r.value(1), 200_376_420_520_189_664);
        assert_eq!(r.value(2), -99_999_999);
        assert!(r.is_null(3));
    }

    #[test]
    fn half_even() {
        assert_eq!(half_even_i128(25, 10), 20);
        assert_eq!(half_even_i128(35, 10), 40);
        assert_eq!(half_even_i128(-25, 10), -20);
        assert_eq!(half_even_i128(1245, 10), 1240);
    }
}

/// Spark's `conv(num, from_base, to_base)`: the digits valid in `from_base` (up to the first
/// that is not) as an unsigned 64-bit number, written in `to_base` (signed when negative).
pub(super) fn conv(arrays: &[ArrayRef]) -> Result<ArrayRef> {
    let text = super::strings(arrays, 0)?;
    let from = super::integers(arrays, 1)?;
    let to = super::integers(arrays, 2)?;
    let (text, from, to) = (
        text.as_string::<i32>(),
        from.as_primitive::<Int64Type>(),
        to.as_primitive::<Int64Type>(),
    );
    let mut out = arrow::array::StringBuilder::new();
    for i in 0..text.len() {
        if super::is_null_at(arrays, i) {
            out.append_null();
            continue;
        }
        match conv_one(text.value(i), from.value(i), to.value(i)) {
            Some(s) => out.append_value(s),
            None => out.append_null(),
        }
    }
    Ok(Arc::new(out.finish()))
}

fn conv_one(s: &str, from: i64, to: i64) -> Option<String> {
    let (from, to_abs) = (from.unsigned_abs(), to.unsigned_abs());
    if !(2..=36).contains(&from) || !(2..=36).contains(&to_abs) {
        return None;
    }
    // (Empty text is NULL, as in Spark.)
    if s.is_empty() {
        return None;
    }
    let s = s.trim();
    let (negative, digits) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s),
    };
    let mut value: u64 = 0;
    for c in digits.chars() {
        let Some(d) = c.to_digit(from as u32) else {
            break;
        };
        value = value
            .checked_mul(from)
            .and_then(|v| v.checked_add(d as u64))
            .unwrap_or(u64::MAX);
    }
    let (negative_out, magnitude) = if negative {
        if to < 0 {
            (true, value)
        } else {
            (false, value.wrapping_neg())
        }
    } else if to < 0 && (value as i64) < 0 {
        (true, (value as i64).unsigned_abs())
    } else {
        (false, value)
    };
    let mut digits_out = Vec::new();
    let mut m = magnitude;
    loop {
        let d = (m % to_abs) as u32;
        digits_out.push(std::char::from_digit(d, to_abs as u32)?.to_ascii_uppercase());
        m /= to_abs;
        if m == 0 {
            break;
        }
    }
    if negative_out {
        digits_out.push('-');
    }
    Some(digits_out.iter().rev().collect())
}

/// List-of-struct values with their struct fields renamed (by position).
pub(super) fn rename_fields(arrays: &[ArrayRef], names: &[String]) -> Result<ArrayRef> {
    let Some(a) = arrays.first() else {
        return internal_err!("rename_fields without a value");
    };
    if let DataType::Struct(_) = a.data_type() {
        let s = a.as_struct();
        let fields: arrow::datatypes::Fields = s
            .fields()
            .iter()
            .zip(names)
            .map(|(f, n)| f.as_ref().clone().with_name(n))
            .collect();
        return Ok(Arc::new(arrow::array::StructArray::try_new(
            fields,
            s.columns().to_vec(),
            s.nulls().cloned(),
        )?));
    }
    let list = a.as_list::<i32>();
    let values = list.values().as_struct();
    let fields: arrow::datatypes::Fields = values
        .fields()
        .iter()
        .zip(names)
        .map(|(f, n)| f.as_ref().clone().with_name(n))
        .collect();
    let renamed = arrow::array::StructArray::try_new(
        fields.clone(),
        values.columns().to_vec(),
        values.nulls().cloned(),
    )?;
    let item = Arc::new(arrow::datatypes::Field::new(
        "item",
        DataType::Struct(fields),
        true,
    ));
    Ok(Arc::new(arrow::array::ListArray::try_new(
        item,
        list.offsets().clone(),
        Arc::new(renamed),
        list.nulls().cloned(),
    )?))
}

#[cfg(test)]
mod conv_tests {
    use super::conv_one;

    #[test]
    fn conv_as_spark() {
        assert_eq!(conv_one("100", 2, 10).as_deref(), Some("4"));
        assert_eq!(conv_one("ff", 16, 10).as_deref(), Some("255"));
        assert_eq!(conv_one("-1", 10, 16).as_deref(), Some("FFFFFFFFFFFFFFFF"));
        assert_eq!(conv_one("z", 10, 2).as_deref(), Some("0"));
        assert_eq!(conv_one("-7", 10, -10).as_deref(), Some("-7"));
    }
}

/// The most frequent element of each list (the first seen among ties), NULL for empty lists.
pub(super) fn array_mode(arrays: &[ArrayRef], sorted: bool) -> Result<ArrayRef> {
    let Some(a) = arrays.first() else {
        return internal_err!("mode without values");
    };
    let lists = a.as_list::<i32>();
    let element = match a.data_type() {
        DataType::List(item) => item.data_type().clone(),
        other => return internal_err!("mode of {other}"),
    };
    let mut out = Vec::with_capacity(lists.len());
    for i in 0..lists.len() {
        if lists.is_null(i) {
            out.push(datafusion::common::ScalarValue::try_from(&element)?);
            continue;
        }
        let values = lists.value(i);
        // Each distinct value, its count and its first row.
        let mut counts: Vec<(datafusion::common::ScalarValue, usize, usize)> = Vec::new();
        let mut index: std::collections::HashMap<datafusion::common::ScalarValue, usize> =
            std::collections::HashMap::new();
        for j in 0..values.len() {
            if values.is_null(j) {
                continue;
            }
            let v = datafusion::common::ScalarValue::try_from_array(&values, j)?;
            match index.get(&v) {
                Some(&k) => counts[k].1 += 1,
                None => {
                    index.insert(v.clone(), counts.len());
                    counts.push((v, 1, j));
                }
            }
        }
        // Among the most frequent, the first in Spark's map (or the first seen).
        let firsts: Vec<usize> = counts.iter().map(|c| c.2).collect();
        let slots = match sorted {
            false => super::jvm_hash::open_hash_slots(values.as_ref(), &firsts),
            true => None,
        }
        .unwrap_or_else(|| (0..counts.len()).collect());
        let best = (0..counts.len()).fold(None::<usize>, |best, k| match best {
            Some(b) if counts[b].1 > counts[k].1 => Some(b),
            Some(b) if counts[b].1 == counts[k].1 && slots[b] < slots[k] => Some(b),
            _ => Some(k),
        });
        out.push(match best {
            Some(k) => counts[k].0.clone(),
            None => datafusion::common::ScalarValue::try_from(&element)?,
        });
    }
    if out.is_empty() {
        return Ok(arrow::array::new_empty_array(&element));
    }
    datafusion::common::ScalarValue::iter_to_array(out)
}

/// Each list in the iteration order of Spark's Scala `HashSet` (`collect_set`'s answer);
/// lists of values whose JVM hash codes are not known keep their order.
pub(super) fn hash_set_ordered(arrays: &[ArrayRef]) -> Result<ArrayRef> {
    let Some(a) = arrays.first() else {
        return internal_err!("hash set order without a list");
    };
    let DataType::List(field) = a.data_type() else {
        return Ok(Arc::clone(a));
    };
    let lists = a.as_list::<i32>();
    let offsets = lists.offsets();
    let mut take: Vec<u32> = Vec::with_capacity(lists.values().len());
    for i in 0..lists.len() {
        let (start, end) = (offsets[i] as usize, offsets[i + 1] as usize);
        let values = lists.values().slice(start, end - start);
        match super::jvm_hash::hash_set_order(values.as_ref()) {
            Some(order) => take.extend(order.iter().map(|j| (start + j) as u32)),
            None => take.extend(start as u32..end as u32),
        }
    }
    let taken = arrow::compute::take(
        lists.values().as_ref(),
        &arrow::array::UInt32Array::from(take),
        None,
    )?;
    let lengths = (0..lists.len()).map(|i| (offsets[i + 1] - offsets[i]) as usize);
    Ok(Arc::new(arrow::array::ListArray::try_new(
        Arc::clone(field),
        arrow::buffer::OffsetBuffer::from_lengths(lengths),
        taken,
        lists.nulls().cloned(),
    )?))
}

/// Spark's INTERVAL_ARITHMETIC_OVERFLOW of the interval constructors.
fn interval_overflow() -> datafusion::error::DataFusionError {
    crate::error::to_datafusion(crate::error::SparkError::new(
        crate::error::ErrorKind::Arithmetic,
        "INTERVAL_ARITHMETIC_OVERFLOW.WITHOUT_SUGGESTION",
        "22015",
        "Integer overflow while operating with intervals. Try devising appropriate values for the interval parameters.",
        vec![],
    ))
}

/// `make_ym_interval(years, months)`: `years * 12 + months` months, INTERVAL_ARITHMETIC_OVERFLOW
/// past an int.
pub(super) fn make_ym_interval(arrays: &[ArrayRef]) -> Result<ArrayRef> {
    let [years, months] = arrays else {
        return internal_err!("make_ym_interval takes years and months");
    };
    let years = arrow::compute::cast(years, &DataType::Int32)?;
    let months = arrow::compute::cast(months, &DataType::Int32)?;
    let (years, months) = (
        years.as_primitive::<Int32Type>(),
        months.as_primitive::<Int32Type>(),
    );
    let mut out = Vec::with_capacity(years.len());
    for i in 0..years.len() {
        if years.is_null(i) || months.is_null(i) {
            out.push(None);
            continue;
        }
        let total = years
            .value(i)
            .checked_mul(12)
            .and_then(|m| m.checked_add(months.value(i)));
        match total {
            Some(t) => out.push(Some(t)),
            None => {
                return Err(interval_overflow());
            }
        }
    }
    Ok(Arc::new(arrow::array::IntervalYearMonthArray::from(out)))
}

/// `make_dt_interval(days, hours, mins, secs)` as Spark's `IntervalUtils.makeDayTimeInterval`:
/// microseconds summed in longs (`Math.multiplyExact`/`addExact`), the seconds a DECIMAL(18, 6);
/// INTERVAL_ARITHMETIC_OVERFLOW past a long. (datafusion-spark's sums hours and minutes in ints
/// and answers NULL for 2,147,483,647 hours, which Spark answers.)
pub(super) fn make_dt_interval(arrays: &[ArrayRef]) -> Result<ArrayRef> {
    let [days, hours, mins, secs] = arrays else {
        return internal_err!("make_dt_interval takes days, hours, minutes and seconds");
    };
    let ints = |a: &ArrayRef| arrow::compute::cast(a, &DataType::Int32);
    let (days, hours, mins) = (ints(days)?, ints(hours)?, ints(mins)?);
    let secs = arrow::compute::cast(secs, &DataType::Decimal128(18, 6))?;
    let (days, hours, mins) = (
        days.as_primitive::<Int32Type>(),
        hours.as_primitive::<Int32Type>(),
        mins.as_primitive::<Int32Type>(),
    );
    let secs = secs.as_primitive::<arrow::datatypes::Decimal128Type>();
    let mut out = Vec::with_capacity(days.len());
    for i in 0..days.len() {
        if days.is_null(i) || hours.is_null(i) || mins.is_null(i) || secs.is_null(i) {
            out.push(None);
            continue;
        }
        let part = |n: i32, unit: i64| i64::from(n).checked_mul(unit);
        let micros = i64::try_from(secs.value(i))
            .ok()
            .zip(part(days.value(i), 86_400_000_000))
            .and_then(|(s, d)| s.checked_add(d))
            .zip(part(hours.value(i), 3_600_000_000))
            .and_then(|(m, h)| m.checked_add(h))
            .zip(part(mins.value(i), 60_000_000))
            .and_then(|(m, n)| m.checked_add(n));
        match micros {
            Some(m) => out.push(Some(m)),
            None => {
                return Err(interval_overflow());
            }
        }
    }
    Ok(Arc::new(arrow::array::DurationMicrosecondArray::from(out)))
}

/// `histogram_numeric(x, nb)`'s answer for a group's values: Hive's streaming histogram as
/// Spark builds it (each value added in turn; past `nb` bins the two closest bins, the first
/// such pair, merge into their weighted mean), bin centres in the type of `x`.
pub(super) fn histogram_numeric(arrays: &[ArrayRef], bins: usize) -> Result<ArrayRef> {
    let Some(input) = arrays.first() else {
        return internal_err!("histogram_numeric without values");
    };
    let DataType::List(item) = input.data_type() else {
        return internal_err!("histogram_numeric of {}", input.data_type());
    };
    let groups = input.as_list::<i32>();
    let mut centres: Vec<f64> = Vec::new();
    let mut heights: Vec<f64> = Vec::new();
    let mut offsets = vec![0i32];
    let mut valid = Vec::with_capacity(groups.len());
    for g in 0..groups.len() {
        let values = histogram_doubles(&groups.value(g))?;
        let values = values.as_primitive::<Float64Type>();
        // Spark's NumericHistogram: a new value between two bins becomes a bin; over `bins`
        // bins, the closest pair merges, ties broken by its generator, `Random(31183)`.
        let mut ties = super::java_random::JavaRandom::new(31183);
        let mut hist: Vec<(f64, f64)> = Vec::new();
        for v in values.iter().flatten() {
            match hist.binary_search_by(|(x, _)| x.total_cmp(&v)) {
                Ok(i) => hist[i].1 += 1.0,
                Err(i) => {
                    hist.insert(i, (v, 1.0));
                    if hist.len() > bins {
                        let mut at = 1;
                        let mut smallest = hist[1].0 - hist[0].0;
                        let mut count = 1u32;
                        for i in 2..hist.len() {
                            let d = hist[i].0 - hist[i - 1].0;
                            if d < smallest {
                                smallest = d;
                                at = i;
                                count = 1;
                            } else if d == smallest {
                                count += 1;
                                if ties.next_double() <= 1.0 / count as f64 {
                                    at = i;
                                }
                            }
                        }
                        let (a, b) = (hist[at - 1], hist[at]);
                        let y = a.1 + b.1;
                        let x = a.0 * (a.1 / y) + b.0 / y * b.1;
                        hist[at - 1] = (x, y);
                        hist.remove(at);
                    }
                }
            }
        }
        valid.push(!groups.is_null(g) && !hist.is_empty());
        for (x, y) in hist {
            centres.push(x);
            heights.push(y);
        }
        offsets.push(centres.len() as i32);
    }
    let x = histogram_centres(
        Arc::new(arrow::array::Float64Array::from(centres)),
        item.data_type(),
    )?;
    let fields = arrow::datatypes::Fields::from(vec![
        arrow::datatypes::Field::new("x", item.data_type().clone(), true),
        arrow::datatypes::Field::new("y", DataType::Float64, true),
    ]);
    let entries = arrow::array::StructArray::try_new(
        fields.clone(),
        vec![x, Arc::new(arrow::array::Float64Array::from(heights))],
        None,
    )?;
    Ok(Arc::new(arrow::array::ListArray::try_new(
        Arc::new(arrow::datatypes::Field::new_list_field(
            DataType::Struct(fields),
            true,
        )),
        arrow::buffer::OffsetBuffer::new(offsets.into()),
        Arc::new(entries),
        Some(arrow::buffer::NullBuffer::from(valid)),
    )?))
}

/// `histogram_numeric`'s values as doubles, as Spark reads them: dates as days, year-month
/// intervals as months, timestamps and day-time intervals as microseconds.
fn histogram_doubles(values: &ArrayRef) -> Result<ArrayRef> {
    let values = match values.data_type() {
        DataType::Date32 => arrow::compute::cast(values, &DataType::Int32)?,
        DataType::Interval(IntervalUnit::YearMonth) => Arc::new(
            values
                .as_primitive::<IntervalYearMonthType>()
                .reinterpret_cast::<Int32Type>(),
        ),
        _ => Arc::clone(values),
    };
    Ok(arrow::compute::cast(&values, &DataType::Float64)?)
}

/// Bin centres in the values' type, truncated toward zero where it counts whole days or
/// months (Spark's `toInt`).
fn histogram_centres(centres: ArrayRef, to: &DataType) -> Result<ArrayRef> {
    Ok(match to {
        DataType::Date32 => {
            arrow::compute::cast(&arrow::compute::cast(&centres, &DataType::Int32)?, to)?
        }
        DataType::Interval(IntervalUnit::YearMonth) => Arc::new(
            arrow::compute::cast(&centres, &DataType::Int32)?
                .as_primitive::<Int32Type>()
                .reinterpret_cast::<IntervalYearMonthType>(),
        ),
        _ => arrow::compute::cast(&centres, to)?,
    })
}
