//! `count_min_sketch(x, eps, confidence, seed)`: Spark's own count-min sketch (not
//! DataSketches'), its hash functions drawn from `java.util.Random(seed)` and its image
//! written as Spark's `CountMinSketch.writeTo` writes it (big-endian: version 1, total count,
//! depth, width, the hash coefficients, the table).

use datafusion::common::Result;

use crate::functions::native::java_random::JavaRandom;

use super::agg::Key;
use crate::functions::native::hash::hash_bytes;

const PRIME_MODULUS: i64 = (1 << 31) - 1;

/// The depth and width Spark derives from `eps` and `confidence`.
pub fn dimensions(eps: f64, confidence: f64) -> (i64, i64) {
    let width = (2.0 / eps).ceil() as i32 as i64;
    let depth = (-(1.0 - confidence).ln() / 2f64.ln()).ceil() as i32 as i64;
    (depth, width)
}

#[derive(Debug, Clone)]
pub(super) struct CountMin {
    depth: usize,
    width: usize,
    total: i64,
    hash_a: Vec<i64>,
    table: Vec<i64>,
}

impl CountMin {
    pub(super) fn new(depth: u32, width: u32, seed: i32) -> Self {
        let mut random = JavaRandom::new(seed as i64);
        let hash_a = (0..depth)
            .map(|_| random.next_int(i32::MAX) as i64)
            .collect();
        CountMin {
            depth: depth as usize,
            width: width as usize,
            total: 0,
            hash_a,
            table: vec![0; depth as usize * width as usize],
        }
    }

    pub(super) fn add(&mut self, key: &Key) {
        for i in 0..self.depth {
            let bucket = match key {
                Key::Long(item) => {
                    let mut hash = self.hash_a[i].wrapping_mul(*item);
                    hash = hash.wrapping_add(hash >> 32);
                    hash &= PRIME_MODULUS;
                    (hash as i32 % self.width as i32) as usize
                }
                Key::Bytes(bytes) => {
                    let h1 = hash_bytes(bytes, 0);
                    let h2 = hash_bytes(bytes, h1);
                    (h1.wrapping_add((i as i32).wrapping_mul(h2)) % self.width as i32)
                        .unsigned_abs() as usize
                }
                Key::Double(_) => return,
            };
            self.table[i * self.width + bucket] += 1;
        }
        self.total += 1;
    }

    pub(super) fn image(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(20 + 8 * (self.depth + self.table.len()));
        out.extend(1i32.to_be_bytes());
        out.extend(self.total.to_be_bytes());
        out.extend((self.depth as i32).to_be_bytes());
        out.extend((self.width as i32).to_be_bytes());
        for a in &self.hash_a {
            out.extend(a.to_be_bytes());
        }
        for c in &self.table {
            out.extend(c.to_be_bytes());
        }
        out
    }

    /// Add a partial sketch's counts (same dimensions and seed: the same aggregate's).
    pub(super) fn merge(&mut self, image: &[u8]) -> Result<()> {
        let expected = 20 + 8 * (self.depth + self.table.len());
        if image.len() != expected {
            return Err(datafusion::error::DataFusionError::Internal(format!(
                "count_min_sketch state of {} bytes, expected {expected}",
                image.len()
            )));
        }
        let long = |at: usize| {
            let mut b = [0u8; 8];
            b.copy_from_slice(&image[at..at + 8]);
            i64::from_be_bytes(b)
        };
        self.total += long(4);
        let table_start = 20 + 8 * self.depth;
        for (i, c) in self.table.iter_mut().enumerate() {
            *c += long(table_start + 8 * i);
        }
        Ok(())
    }
}
