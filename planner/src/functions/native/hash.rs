//! Spark's `hash(...)`: Murmur3 x86 32-bit with seed 42, each argument hashed with the
//! previous hash as its seed (NULLs leave it unchanged), values hashed as Spark does (ints
//! and dates as ints, longs and timestamps as longs, `-0.0` as `0.0`, strings by Spark's
//! byte-wise tail).

use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, Int32Array};
use arrow::datatypes::{
    DataType, Date32Type, Decimal128Type, Float32Type, Float64Type, Int8Type, Int16Type, Int32Type,
    Int64Type, TimestampMicrosecondType,
};
use datafusion::common::Result;

use crate::error::{SparkError, to_datafusion};

const SEED: i32 = 42;

fn mix_k1(k1: i32) -> i32 {
    let k1 = k1.wrapping_mul(0xcc9e2d51_u32 as i32);
    let k1 = k1.rotate_left(15);
    k1.wrapping_mul(0x1b873593)
}

fn mix_h1(h1: i32, k1: i32) -> i32 {
    let h1 = (h1 ^ k1).rotate_left(13);
    h1.wrapping_mul(5).wrapping_add(0xe6546b64_u32 as i32)
}

fn fmix(h1: i32, len: i32) -> i32 {
    let mut h = (h1 ^ len) as u32;
    h ^= h >> 16;
    h = h.wrapping_mul(0x85ebca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2ae35);
    h ^= h >> 16;
    h as i32
}

pub(super) fn murmur3_int(v: i32, seed: i32) -> i32 {
    hash_int(v, seed)
}

fn hash_int(v: i32, seed: i32) -> i32 {
    fmix(mix_h1(seed, mix_k1(v)), 4)
}

fn hash_long(v: i64, seed: i32) -> i32 {
    let low = v as i32;
    let high = (v >> 32) as i32;
    let h1 = mix_h1(seed, mix_k1(low));
    let h1 = mix_h1(h1, mix_k1(high));
    fmix(h1, 8)
}

/// Spark's `hashUnsafeBytes`: 4-byte little-endian words, then each remaining byte alone.
pub(super) fn hash_bytes(bytes: &[u8], seed: i32) -> i32 {
    let aligned = bytes.len() - bytes.len() % 4;
    let mut h1 = seed;
    for word in bytes[..aligned].chunks_exact(4) {
        let k = i32::from_le_bytes([word[0], word[1], word[2], word[3]]);
        h1 = mix_h1(h1, mix_k1(k));
    }
    for &b in &bytes[aligned..] {
        h1 = mix_h1(h1, mix_k1(b as i8 as i32));
    }
    fmix(h1, bytes.len() as i32)
}

/// Hash row `i` of `array` into `seed`.
fn hash_value(array: &dyn Array, i: usize, seed: i32) -> Result<i32> {
    if array.is_null(i) {
        return Ok(seed);
    }
    Ok(match array.data_type() {
        DataType::Boolean => hash_int(array.as_boolean().value(i) as i32, seed),
        DataType::Int8 => hash_int(array.as_primitive::<Int8Type>().value(i) as i32, seed),
        DataType::Int16 => hash_int(array.as_primitive::<Int16Type>().value(i) as i32, seed),
        DataType::Int32 => hash_int(array.as_primitive::<Int32Type>().value(i), seed),
        DataType::Date32 => hash_int(array.as_primitive::<Date32Type>().value(i), seed),
        DataType::Int64 => hash_long(array.as_primitive::<Int64Type>().value(i), seed),
        DataType::Timestamp(arrow::datatypes::TimeUnit::Microsecond, _) => hash_long(
            array.as_primitive::<TimestampMicrosecondType>().value(i),
            seed,
        ),
        DataType::Float32 => {
            let v = array.as_primitive::<Float32Type>().value(i);
            let v = if v == 0.0 { 0.0 } else { v };
            let bits = if v.is_nan() {
                0x7fc00000
            } else {
                v.to_bits() as i32
            };
            hash_int(bits, seed)
        }
        DataType::Float64 => {
            let v = array.as_primitive::<Float64Type>().value(i);
            let v = if v == 0.0 { 0.0 } else { v };
            let bits = if v.is_nan() {
                0x7ff8000000000000
            } else {
                v.to_bits() as i64
            };
            hash_long(bits, seed)
        }
        DataType::Decimal128(p, _) if *p <= 18 => {
            hash_long(array.as_primitive::<Decimal128Type>().value(i) as i64, seed)
        }
        DataType::Utf8 => hash_bytes(array.as_string::<i32>().value(i).as_bytes(), seed),
        DataType::LargeUtf8 => hash_bytes(array.as_string::<i64>().value(i).as_bytes(), seed),
        DataType::Utf8View => hash_bytes(array.as_string_view().value(i).as_bytes(), seed),
        DataType::Binary => hash_bytes(array.as_binary::<i32>().value(i), seed),
        DataType::LargeBinary => hash_bytes(array.as_binary::<i64>().value(i), seed),
        DataType::List(_) => {
            let values = array.as_list::<i32>().value(i);
            let mut h = seed;
            for j in 0..values.len() {
                h = hash_value(values.as_ref(), j, h)?;
            }
            h
        }
        DataType::Struct(_) => {
            let s = array.as_struct();
            let mut h = seed;
            for column in s.columns() {
                h = hash_value(column.as_ref(), i, h)?;
            }
            h
        }
        DataType::Map(_, _) => {
            let entries = array.as_map().value(i);
            let (keys, values) = (entries.column(0), entries.column(1));
            let mut h = seed;
            for j in 0..entries.len() {
                h = hash_value(keys.as_ref(), j, h)?;
                h = hash_value(values.as_ref(), j, h)?;
            }
            h
        }
        DataType::Null => seed,
        other => {
            return Err(to_datafusion(SparkError::unsupported(format!(
                "hash of {other}"
            ))));
        }
    })
}

pub(super) fn murmur3(arrays: &[ArrayRef], rows: usize) -> Result<ArrayRef> {
    let mut out = Vec::with_capacity(rows);
    for i in 0..rows {
        let mut h = SEED;
        for a in arrays {
            h = hash_value(a.as_ref(), i, h)?;
        }
        out.push(h);
    }
    Ok(Arc::new(Int32Array::from(out)))
}
