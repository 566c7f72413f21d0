//! `java.util.Random`'s linear congruential generator, as far as Spark's functions draw from
//! it: count-min sketches' hash functions and `histogram_numeric`'s tie-breaking.

/// `java.util.Random(seed)`.
pub(crate) struct JavaRandom(i64);

impl JavaRandom {
    const MULTIPLIER: i64 = 0x5DEECE66D;
    const MASK: i64 = (1 << 48) - 1;

    pub(crate) fn new(seed: i64) -> Self {
        JavaRandom((seed ^ Self::MULTIPLIER) & Self::MASK)
    }

    /// `next(bits)`: the next `bits` high bits of the 48-bit state.
    fn next(&mut self, bits: u32) -> i32 {
        self.0 = (self.0.wrapping_mul(Self::MULTIPLIER).wrapping_add(0xB)) & Self::MASK;
        (self.0 >> (48 - bits)) as i32
    }

    /// `nextInt(bound)` for a positive bound.
    pub(crate) fn next_int(&mut self, bound: i32) -> i32 {
        let m = bound - 1;
        if bound & m == 0 {
            return ((bound as i64 * self.next(31) as i64) >> 31) as i32;
        }
        let mut u = self.next(31);
        loop {
            let r = u % bound;
            if u.wrapping_sub(r).wrapping_add(m) >= 0 {
                return r;
            }
            u = self.next(31);
        }
    }

    /// `nextDouble()`: uniform in [0, 1).
    pub(crate) fn next_double(&mut self) -> f64 {
        let high = (self.next(26) as i64) << 27;
        let low = self.next(27) as i64;
        (high + low) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::JavaRandom;

    #[test]
    fn draws_as_java() {
        // jshell, Java 17: new java.util.Random(42) draws nextInt(100) = 30, then
        // nextDouble() = 0.05466526274716077; new Random(31183) draws nextDouble() =
        // 0.10748527202486546, then 0.893630159548549; new Random(7) draws nextInt(64) = 46.
        let mut r = JavaRandom::new(42);
        assert_eq!(r.next_int(100), 30);
        assert_eq!(r.next_double(), 0.05466526274716077);
        let mut r = JavaRandom::new(31183);
        assert_eq!(r.next_double(), 0.10748527202486546);
        assert_eq!(r.next_double(), 0.893630159548549);
        assert_eq!(JavaRandom::new(7).next_int(64), 46);
    }
}
