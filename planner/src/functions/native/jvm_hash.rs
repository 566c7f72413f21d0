//! The orders in which Spark's hash-based aggregate buffers give back their values, so that
//! answers that depend on them come out as Spark's do:
//!
//! - `collect_set` keeps its values in a Scala 2.13 `mutable.HashSet` and answers in its
//!   iteration order: by bucket (the hash code `h ^ (h >>> 16)` masked by the table size),
//!   then by that hash within a bucket, then by insertion. The table's size follows the
//!   number of values as one partition's buffer gives it; Spark's final buffer sizes its
//!   table by the largest partial buffer merged into it, so past 11 values an answer of
//!   Spark's may also depend on its partitions.
//! - `mode` counts in Spark's `OpenHashMap` and, among equally frequent values, answers the
//!   first in its iteration order: by slot, a key's first slot being the Murmur3 of its Java
//!   `hashCode`, probed quadratically on collisions.
//!
//! Both rest on the JVM's hash codes of Spark's internal values, known here for the types
//! whose values are plain (integers, dates, timestamps, floating point numbers, booleans and
//! text); for others the caller keeps its own order.

use arrow::array::{Array, AsArray};
use arrow::datatypes::{
    DataType, Date32Type, Decimal128Type, Float32Type, Float64Type, Int8Type, Int16Type, Int32Type,
    Int64Type, TimeUnit, TimestampMicrosecondType,
};

/// Java's `Long.hashCode`.
fn long_hash_code(v: i64) -> i32 {
    (v ^ ((v as u64) >> 32) as i64) as i32
}

/// Java's `Float.hashCode` (`floatToIntBits`: one NaN).
fn float_hash_code(v: f32) -> i32 {
    if v.is_nan() {
        0x7fc00000
    } else {
        v.to_bits() as i32
    }
}

/// Java's `Double.hashCode` (`doubleToLongBits`: one NaN).
fn double_hash_code(v: f64) -> i32 {
    let bits = if v.is_nan() {
        0x7ff8000000000000
    } else {
        v.to_bits() as i64
    };
    long_hash_code(bits)
}

/// The hash code of Spark's `Decimal` (`unscaled` at `scale`), which is Scala's `BigDecimal`'s:
/// a whole number's as an integer (Scala's `##`: an int's own value where it fits), a number a
/// double renders exactly as that double's `##`. `None` for the others (more digits than a
/// double keeps).
fn decimal_hash_code(unscaled: i128, scale: i8) -> Option<i32> {
    let scale = u32::try_from(scale).ok()?;
    let unit = 10i128.checked_pow(scale)?;
    if unscaled % unit == 0 {
        let whole = i64::try_from(unscaled / unit).ok()?;
        return Some(if whole as i32 as i64 == whole {
            whole as i32
        } else {
            long_hash_code(whole)
        });
    }
    // The number as text without trailing zeros, as a double would print it.
    let magnitude = unscaled.unsigned_abs();
    let fraction = format!(
        "{:0width$}",
        magnitude % unit as u128,
        width = scale as usize
    );
    let text = format!(
        "{}{}.{}",
        if unscaled < 0 { "-" } else { "" },
        magnitude / unit as u128,
        fraction.trim_end_matches('0')
    );
    let double: f64 = text.parse().ok()?;
    if !double.is_finite() || format!("{double}") != text {
        return None;
    }
    // Scala's `##` of a double that is no whole number: as a float where one holds it.
    let float = double as f32;
    Some(if float as f64 == double {
        float_hash_code(float)
    } else {
        double_hash_code(double)
    })
}

/// The JVM hash codes of the values of `values` (NULLs as 0): Java's `hashCode` of Spark's
/// boxed internal value (measured: Spark's hash set orders numbers by it, not by Scala's
/// `##`, which hashes 2.0 as 2). `None` for types whose hash codes are not known here.
fn hash_codes(values: &dyn Array) -> Option<Vec<i32>> {
    let n = values.len();
    let each = |f: &dyn Fn(usize) -> i32| -> Vec<i32> {
        (0..n)
            .map(|i| if values.is_null(i) { 0 } else { f(i) })
            .collect()
    };
    Some(match values.data_type() {
        DataType::Int8 => {
            let a = values.as_primitive::<Int8Type>();
            each(&|i| a.value(i) as i32)
        }
        DataType::Int16 => {
            let a = values.as_primitive::<Int16Type>();
            each(&|i| a.value(i) as i32)
        }
        DataType::Int32 => {
            let a = values.as_primitive::<Int32Type>();
            each(&|i| a.value(i))
        }
        DataType::Date32 => {
            let a = values.as_primitive::<Date32Type>();
            each(&|i| a.value(i))
        }
        DataType::Int64 => {
            let a = values.as_primitive::<Int64Type>();
            each(&|i| long_hash_code(a.value(i)))
        }
        DataType::Timestamp(TimeUnit::Microsecond, _) => {
            let a = values.as_primitive::<TimestampMicrosecondType>();
            each(&|i| long_hash_code(a.value(i)))
        }
        DataType::Float32 => {
            let a = values.as_primitive::<Float32Type>();
            each(&|i| float_hash_code(a.value(i)))
        }
        DataType::Float64 => {
            let a = values.as_primitive::<Float64Type>();
            each(&|i| double_hash_code(a.value(i)))
        }
        DataType::Decimal128(_, scale) => {
            let a = values.as_primitive::<Decimal128Type>();
            let codes: Option<Vec<i32>> = (0..n)
                .map(|i| {
                    if values.is_null(i) {
                        Some(0)
                    } else {
                        decimal_hash_code(a.value(i), *scale)
                    }
                })
                .collect();
            codes?
        }
        DataType::Boolean => {
            let a = values.as_boolean();
            each(&|i| if a.value(i) { 1231 } else { 1237 })
        }
        // UTF8String.hashCode: Murmur3 of its bytes, seed 42.
        DataType::Utf8 => {
            let a = values.as_string::<i32>();
            each(&|i| super::hash::hash_bytes(a.value(i).as_bytes(), 42))
        }
        DataType::LargeUtf8 => {
            let a = values.as_string::<i64>();
            each(&|i| super::hash::hash_bytes(a.value(i).as_bytes(), 42))
        }
        DataType::Utf8View => {
            let a = values.as_string_view();
            each(&|i| super::hash::hash_bytes(a.value(i).as_bytes(), 42))
        }
        _ => return None,
    })
}

/// The positions of `values` (distinct, without NULLs) in Scala's `mutable.HashSet`
/// iteration order, as `collect_set` answers them; `None` where their hash codes are not
/// known here.
pub(super) fn hash_set_order(values: &dyn Array) -> Option<Vec<usize>> {
    let codes = hash_codes(values)?;
    // The table: 16 buckets, doubled as the set reaches three quarters of them.
    let mut buckets: u32 = 16;
    while values.len() as f64 >= 0.75 * buckets as f64 {
        buckets *= 2;
    }
    let improved: Vec<i32> = codes
        .iter()
        .map(|h| h ^ ((*h as u32) >> 16) as i32)
        .collect();
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by_key(|&i| ((improved[i] as u32) & (buckets - 1), improved[i]));
    Some(order)
}

/// For the distinct values of `values` at `firsts` (in insertion order), their slots in
/// Spark's `OpenHashMap` (64 slots to start, doubled past 0.7 of them): the map's iteration
/// order. `None` where their hash codes are not known here.
pub(super) fn open_hash_slots(values: &dyn Array, firsts: &[usize]) -> Option<Vec<usize>> {
    let codes = hash_codes(values)?;
    let keys: Vec<i32> = firsts.iter().map(|&i| codes[i]).collect();
    let slot_of = |h: i32, taken: &[Option<usize>], mask: usize| -> usize {
        let mut pos = (super::hash::murmur3_int(h, 0) as u32 as usize) & mask;
        let mut delta = 1;
        while taken[pos].is_some() {
            pos = (pos + delta) & mask;
            delta += 1;
        }
        pos
    };
    let mut capacity = 64usize;
    // Which key sits in each slot.
    let mut table: Vec<Option<usize>> = vec![None; capacity];
    for (k, &h) in keys.iter().enumerate() {
        let pos = slot_of(h, &table, capacity - 1);
        table[pos] = Some(k);
        if k + 1 > (0.7 * capacity as f64) as usize {
            // Rehash into twice the slots, the keys moved in slot order.
            capacity *= 2;
            let mut grown: Vec<Option<usize>> = vec![None; capacity];
            for key in table.iter().flatten() {
                let pos = slot_of(keys[*key], &grown, capacity - 1);
                grown[pos] = Some(*key);
            }
            table = grown;
        }
    }
    let mut slots = vec![0; keys.len()];
    for (pos, key) in table.iter().enumerate() {
        if let Some(k) = key {
            slots[*k] = pos;
        }
    }
    Some(slots)
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::{Float64Array, Int32Array, Int64Array, StringArray};

    #[test]
    fn java_hash_codes() {
        assert_eq!(double_hash_code(2.0), 0x40000000);
        assert_eq!(float_hash_code(-3.0), 0xC0400000u32 as i32);
        assert_eq!(long_hash_code(5_000_000_000), 705032705);
        assert_eq!(double_hash_code(f64::NAN), 0x7ff80000);
        // Decimals: 10.0 as 10, 1.5 as the float 1.5, 0.1 as the double 0.1, 12 digits
        // after the point as no double renders them.
        assert_eq!(decimal_hash_code(100, 1), Some(10));
        assert_eq!(decimal_hash_code(15, 1), Some(float_hash_code(1.5)));
        assert_eq!(decimal_hash_code(-150, 2), Some(float_hash_code(-1.5)));
        assert_eq!(decimal_hash_code(1, 1), Some(double_hash_code(0.1)));
        assert_eq!(decimal_hash_code(12345678901234567891, 19), None);
    }

    /// Orders Spark 4.3 answered (`collect_set` of these values, in any order).
    #[test]
    fn orders_as_spark() {
        let doubles = Float64Array::from(vec![1.5, 2.0, -0.5, 3.25, 100.0, -7.0, 0.1]);
        let order = hash_set_order(&doubles).unwrap();
        let got: Vec<f64> = order.iter().map(|&i| doubles.value(i)).collect();
        assert_eq!(got, vec![-0.5, 2.0, 0.1, 1.5, 100.0, 3.25, -7.0]);
        let longs = Int64Array::from(vec![5_000_000_000, 1, -1, -5_000_000_000, 7, 300]);
        let order = hash_set_order(&longs).unwrap();
        let got: Vec<i64> = order.iter().map(|&i| longs.value(i)).collect();
        assert_eq!(got, vec![-1, 1, 5_000_000_000, 7, -5_000_000_000, 300]);
    }

    #[test]
    fn small_integers_come_out_ascending() {
        let values = Int64Array::from(vec![5, 2, 4, 1, 3, 0]);
        let order = hash_set_order(&values).unwrap();
        let sorted: Vec<i64> = order.iter().map(|&i| values.value(i)).collect();
        assert_eq!(sorted, vec![0, 1, 2, 3, 4, 5]);
        // 16 and 0 share a bucket of 16: 16 follows 0, before 1.
        let values = Int32Array::from(vec![1, 16, 0]);
        let order = hash_set_order(&values).unwrap();
        assert_eq!(order, vec![2, 1, 0]);
        assert!(hash_set_order(&Float64Array::from(vec![1.5])).is_some());
    }

    #[test]
    fn open_hash_slots_are_distinct() {
        let values = StringArray::from(vec!["a", "b", "a", "c"]);
        let slots = open_hash_slots(&values, &[0, 1, 3]).unwrap();
        assert_eq!(slots.len(), 3);
        assert!(slots.iter().all(|s| *s < 64));
        assert_ne!(slots[0], slots[1]);
        // Past 44 keys the table doubles.
        let many = Int32Array::from((0..100).collect::<Vec<i32>>());
        let firsts: Vec<usize> = (0..100).collect();
        let slots = open_hash_slots(&many, &firsts).unwrap();
        let mut distinct = slots.clone();
        distinct.sort();
        distinct.dedup();
        assert_eq!(distinct.len(), 100);
        assert!(slots.iter().all(|s| *s < 256));
    }
}
