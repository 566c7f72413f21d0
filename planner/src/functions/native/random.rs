//! Spark's seeded random values: `rand(seed)`, `randn(seed)`, `uniform(min, max, seed)` and
//! `randstr(length, seed)` draw from Spark's `XORShiftRandom(seed + partitionIndex)`, one
//! generator per partition, in row order. Given each row's partition and position in it (the
//! partition-id columns), the values are Spark's wherever the partitioning is.
//!
//! A generator's state after `n` steps is found without taking them: the xorshift step is
//! linear over GF(2), so its powers of two are precomputed as 64x64 bit matrices.

use std::sync::{Arc, LazyLock};

use arrow::array::{ArrayRef, AsArray, Float64Builder, StringBuilder};
use arrow::datatypes::{Int32Type, Int64Type};
use datafusion::common::{Result, internal_err};
use serde::{Deserialize, Serialize};

use super::hash::hash_bytes;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RandomKind {
    /// `rand`: uniform in [0, 1) (`nextDouble`).
    Uniform,
    /// `randn`: standard normal (`nextGaussian`).
    Gaussian,
    /// `randstr(length)`: `length` characters of 0-9, a-z, A-Z.
    Text { length: u32 },
}

/// Scala's `XORShiftRandom.hashSeed`: the seed's big-endian bytes hashed twice by Murmur3.
fn hash_seed(seed: i64) -> u64 {
    let bytes = seed.to_be_bytes();
    let low = hash_bytes(&bytes, 0x3c07_4a61);
    let high = hash_bytes(&bytes, low);
    ((high as u32 as u64) << 32) | (low as u32 as u64)
}

fn step(s: u64) -> u64 {
    let mut x = s ^ (s << 21);
    x ^= x >> 35;
    x ^ (x << 4)
}

/// A linear map of 64-bit vectors by the images of the basis vectors.
type BitMatrix = [u64; 64];

fn apply(m: &BitMatrix, v: u64) -> u64 {
    let mut out = 0;
    let mut bits = v;
    while bits != 0 {
        let j = bits.trailing_zeros() as usize;
        out ^= m[j];
        bits &= bits - 1;
    }
    out
}

/// The step's powers 2^0 .. 2^63.
static POWERS: LazyLock<Vec<BitMatrix>> = LazyLock::new(|| {
    let mut powers = Vec::with_capacity(64);
    let mut m: BitMatrix = [0; 64];
    for (j, column) in m.iter_mut().enumerate() {
        *column = step(1u64 << j);
    }
    for _ in 0..64 {
        powers.push(m);
        let mut squared: BitMatrix = [0; 64];
        for (j, column) in squared.iter_mut().enumerate() {
            *column = apply(&m, m[j]);
        }
        m = squared;
    }
    powers
});

/// `XORShiftRandom`, with `java.util.Random`'s derived draws.
struct XorShift {
    seed: u64,
    next_gaussian: Option<f64>,
}

impl XorShift {
    fn new(seed: i64) -> Self {
        XorShift {
            seed: hash_seed(seed),
            next_gaussian: None,
        }
    }

    /// Take `n` steps at once.
    fn skip(&mut self, n: u64) {
        let mut bits = n;
        while bits != 0 {
            let k = bits.trailing_zeros() as usize;
            self.seed = apply(&POWERS[k], self.seed);
            bits &= bits - 1;
        }
    }

    fn next(&mut self, bits: u32) -> i32 {
        self.seed = step(self.seed);
        (self.seed & ((1u64 << bits) - 1)) as i32
    }

    fn next_double(&mut self) -> f64 {
        let high = (self.next(26) as i64) << 27;
        let low = self.next(27) as i64;
        (high + low) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    fn next_gaussian(&mut self) -> f64 {
        if let Some(g) = self.next_gaussian.take() {
            return g;
        }
        loop {
            let v1 = 2.0 * self.next_double() - 1.0;
            let v2 = 2.0 * self.next_double() - 1.0;
            let s = v1 * v1 + v2 * v2;
            if s < 1.0 && s != 0.0 {
                let multiplier = (-2.0 * s.ln() / s).sqrt();
                self.next_gaussian = Some(v2 * multiplier);
                return v1 * multiplier;
            }
        }
    }

    fn text(&mut self, length: u32) -> String {
        (0..length)
            .map(|_| {
                let n = (self.next(32) % 62).unsigned_abs() as u8;
                match n {
                    0..=9 => (b'0' + n) as char,
                    10..=35 => (b'a' + n - 10) as char,
                    _ => (b'A' + n - 36) as char,
                }
            })
            .collect()
    }
}

/// The values of rows given their partitions and positions (consecutive positions continue
/// one generator).
pub fn evaluate(kind: RandomKind, seed: i64, args: &[ArrayRef]) -> Result<ArrayRef> {
    let (Some(partitions), Some(positions)) = (args.first(), args.get(1)) else {
        return internal_err!("seeded random without partition ids");
    };
    let partitions = partitions.as_primitive::<Int32Type>();
    let positions = positions.as_primitive::<Int64Type>();
    let mut current: Option<(i32, i64, XorShift)> = None;
    let mut doubles = Float64Builder::with_capacity(partitions.len());
    let mut texts = StringBuilder::new();
    for i in 0..partitions.len() {
        let (partition, position) = (partitions.value(i), positions.value(i));
        let reuse = matches!(&current, Some((p, at, _)) if *p == partition && *at == position);
        if !reuse {
            let mut rng = XorShift::new(seed.wrapping_add(partition as i64));
            match kind {
                RandomKind::Uniform => rng.skip(2 * position as u64),
                RandomKind::Text { length } => rng.skip(length as u64 * position as u64),
                // Gaussians reject draws and keep one of each pair: replay from the start.
                RandomKind::Gaussian => {
                    for _ in 0..position {
                        rng.next_gaussian();
                    }
                }
            }
            current = Some((partition, position, rng));
        }
        let Some((_, at, rng)) = current.as_mut() else {
            return internal_err!("seeded random without a generator");
        };
        match kind {
            RandomKind::Uniform => doubles.append_value(rng.next_double()),
            RandomKind::Gaussian => doubles.append_value(rng.next_gaussian()),
            RandomKind::Text { length } => texts.append_value(rng.text(length)),
        }
        *at += 1;
    }
    Ok(match kind {
        RandomKind::Text { .. } => Arc::new(texts.finish()),
        _ => Arc::new(doubles.finish()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skipping_equals_stepping() {
        let mut a = XorShift::new(42);
        let mut b = XorShift::new(42);
        for _ in 0..1000 {
            a.next(32);
        }
        b.skip(1000);
        assert_eq!(a.seed, b.seed);
    }
}
