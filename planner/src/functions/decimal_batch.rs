//! The batch path of [`super::decimal::DecimalExact`]: `+`, `-` and `*` of decimals computed
//! without a check per row, where the batch's largest operands bound every result.
//!
//! Arrow's decimal kernels check every row for overflow and rescale a scalar operand per row;
//! TPC-H q1 spent 15 % of its time there. Here the bound is checked once per batch, and each
//! combination of operation, rescaling and word size (64 bits where the bound allows it, else
//! 128) is its own loop without branches, which the compiler can vectorize.

use arrow::array::{Array, AsArray, Decimal128Array};
use arrow::datatypes::DataType;
use datafusion::common::{Result, ScalarValue};
use datafusion::logical_expr::ColumnarValue;

/// A decimal operand: a batch's values, or one value for every row.
pub(super) enum Operand<'a> {
    Rows(&'a Decimal128Array),
    Value(i128),
}

impl Operand<'_> {
    /// A non-NULL decimal value or batch, with its scale.
    pub(super) fn of(v: &ColumnarValue) -> Option<(i32, Operand<'_>)> {
        match v {
            ColumnarValue::Array(array) => match array.data_type() {
                DataType::Decimal128(_, s) => {
                    Some((i32::from(*s), Operand::Rows(array.as_primitive_opt()?)))
                }
                _ => None,
            },
            ColumnarValue::Scalar(ScalarValue::Decimal128(Some(x), _, s)) => {
                Some((i32::from(*s), Operand::Value(*x)))
            }
            _ => None,
        }
    }

    /// The largest magnitude it holds. (A NULL row's slot may hold anything: it only makes
    /// the bound larger, so no slot overflows.)
    pub(super) fn largest(&self) -> u128 {
        match self {
            Operand::Rows(v) => {
                let (lo, hi) = v
                    .values()
                    .iter()
                    .fold((0i128, 0i128), |(lo, hi), &x| (lo.min(x), hi.max(x)));
                lo.unsigned_abs().max(hi.unsigned_abs())
            }
            Operand::Value(x) => x.unsigned_abs(),
        }
    }
}

/// One operation over a batch: `op` (`b'+'`, `b'-'` or `b'*'`), the operands' factors to the
/// exact result's scale (`+` and `-`), and `adjust` from there to the result's scale:
/// a divisor rounding half up where `drop` is positive, a factor where it is negative.
#[derive(Clone, Copy)]
pub(super) struct Step {
    pub op: u8,
    pub fa: i128,
    pub fb: i128,
    pub drop: i32,
    pub adjust: i128,
    /// Every operand and exact result fits 64 bits.
    pub small: bool,
}

/// The result of `step` over the operands: an array, or a value where both were values.
pub(super) enum Computed {
    Rows(Decimal128Array),
    Value(i128),
}

pub(super) fn compute(x: &Operand, y: &Operand, step: Step) -> Result<Computed> {
    macro_rules! by_word {
        ($op:literal, $adjust:literal) => {
            if step.small {
                run::<$op, $adjust, i64>(x, y, step)
            } else {
                run::<$op, $adjust, i128>(x, y, step)
            }
        };
    }
    match (step.op, step.drop.signum()) {
        (b'*', 0) => by_word!(b'*', 0),
        (b'*', 1) => by_word!(b'*', 1),
        (b'*', _) => by_word!(b'*', -1),
        (b'+', 0) => by_word!(b'+', 0),
        (b'+', 1) => by_word!(b'+', 1),
        (b'+', _) => by_word!(b'+', -1),
        (_, 0) => by_word!(b'-', 0),
        (_, 1) => by_word!(b'-', 1),
        (_, _) => by_word!(b'-', -1),
    }
}

/// Integers the exact result is computed in (wrapping: the bound excludes overflow, and a
/// NULL slot's garbage must not panic in a debug build).
trait Word: Copy {
    fn of(v: i128) -> Self;
    fn wide(self) -> i128;
    fn mul(self, o: Self) -> Self;
    fn add(self, o: Self) -> Self;
    fn sub(self, o: Self) -> Self;
}

macro_rules! word {
    ($t:ty) => {
        impl Word for $t {
            #[inline(always)]
            fn of(v: i128) -> Self {
                v as $t
            }
            #[inline(always)]
            fn wide(self) -> i128 {
                self as i128
            }
            #[inline(always)]
            fn mul(self, o: Self) -> Self {
                self.wrapping_mul(o)
            }
            #[inline(always)]
            fn add(self, o: Self) -> Self {
                self.wrapping_add(o)
            }
            #[inline(always)]
            fn sub(self, o: Self) -> Self {
                self.wrapping_sub(o)
            }
        }
    };
}
word!(i64);
word!(i128);

fn run<const OP: u8, const ADJUST: i8, W: Word>(
    x: &Operand,
    y: &Operand,
    step: Step,
) -> Result<Computed> {
    let (fa, fb, adjust) = (W::of(step.fa), W::of(step.fb), step.adjust);
    let f = move |x: i128, y: i128| -> i128 {
        let (x, y) = (W::of(x), W::of(y));
        let exact = match OP {
            b'*' => x.mul(y),
            b'+' => x.mul(fa).add(y.mul(fb)),
            _ => x.mul(fa).sub(y.mul(fb)),
        }
        .wide();
        match ADJUST {
            0 => exact,
            1 => round_half_up_128(exact, adjust),
            _ => exact.wrapping_mul(adjust),
        }
    };
    Ok(match (x, y) {
        (Operand::Rows(a), Operand::Rows(b)) => Computed::Rows(arrow::compute::binary(a, b, f)?),
        (Operand::Rows(a), Operand::Value(y)) => Computed::Rows(a.unary(|x| f(x, *y))),
        (Operand::Value(x), Operand::Rows(b)) => Computed::Rows(b.unary(|y| f(*x, y))),
        (Operand::Value(x), Operand::Value(y)) => Computed::Value(f(*x, *y)),
    })
}

/// `n / d` rounded half up (away from zero), `d` positive.
pub(super) fn round_half_up_128(n: i128, d: i128) -> i128 {
    let (q, r) = (n / d, n % d);
    if r.unsigned_abs() * 2 >= d.unsigned_abs() {
        q + n.signum()
    } else {
        q
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every loop (operation, rescaling, word) against the same arithmetic written plainly,
    /// over batches with NULLs, values and scalars on either side.
    #[test]
    fn every_loop_matches_plain_arithmetic() {
        let mut seed = 7u64;
        let mut next = |digits: u32| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((seed >> 11) as i128 % 10i128.pow(digits)) * if seed & 1 == 0 { 1 } else { -1 }
        };
        for (op, fa, fb, drop, small, digits) in [
            (b'*', 1i128, 1i128, 0i32, true, 9u32),
            (b'*', 1, 1, 0, false, 18),
            (b'*', 1, 1, 3, false, 18),
            (b'*', 1, 1, -2, true, 6),
            (b'+', 100, 1, 0, true, 15),
            (b'+', 1, 1000, 1, false, 30),
            (b'-', 1, 10, 0, true, 15),
            (b'-', 10, 1, -1, false, 30),
        ] {
            let adjust = 10i128.pow(drop.unsigned_abs());
            let a: Decimal128Array = (0..50)
                .map(|i| (i % 7 != 3).then(|| next(digits)))
                .collect();
            let b: Decimal128Array = (0..50).map(|_| Some(next(digits))).collect();
            let step = Step {
                op,
                fa,
                fb,
                drop,
                adjust,
                small,
            };
            let plain = |x: i128, y: i128| {
                let exact = match op {
                    b'*' => x * y,
                    b'+' => x * fa + y * fb,
                    _ => x * fa - y * fb,
                };
                match drop {
                    0 => exact,
                    d if d > 0 => round_half_up_128(exact, adjust),
                    _ => exact * adjust,
                }
            };
            let rows = |c: Computed| match c {
                Computed::Rows(r) => r,
                Computed::Value(_) => panic!("a value from a batch"),
            };
            let both = rows(compute(&Operand::Rows(&a), &Operand::Rows(&b), step).unwrap());
            let k = next(digits);
            let left = rows(compute(&Operand::Value(k), &Operand::Rows(&a), step).unwrap());
            let right = rows(compute(&Operand::Rows(&a), &Operand::Value(k), step).unwrap());
            for i in 0..50 {
                assert_eq!(both.is_null(i), a.is_null(i));
                if a.is_valid(i) {
                    assert_eq!(
                        both.value(i),
                        plain(a.value(i), b.value(i)),
                        "{}",
                        op as char
                    );
                    assert_eq!(left.value(i), plain(k, a.value(i)));
                    assert_eq!(right.value(i), plain(a.value(i), k));
                }
            }
            let Computed::Value(v) =
                compute(&Operand::Value(k), &Operand::Value(-k), step).unwrap()
            else {
                panic!("rows from two values")
            };
            assert_eq!(v, plain(k, -k));
        }
    }
}
