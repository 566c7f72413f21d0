//! Math functions Spark computes with Java's `StrictMath` (fdlibm), whose last bit can differ
//! from the platform's libm: `exp(1)` is 2.7182818284590455 in Spark, 2.718281828459045 with
//! glibc, and show() widens a column by such a digit. `exp` and `log` are fdlibm's (the `libm`
//! crate's ports of FreeBSD's msun, fdlibm's code); `cosh` is fdlibm's `e_cosh.c` over them;
//! `log2` is Spark's `StrictMath.log(x) / StrictMath.log(2)`.

use std::sync::Arc;

use arrow::array::{ArrayRef, AsArray, Float64Array};
use arrow::datatypes::{DataType, Float64Type};
use datafusion::common::{Result, internal_err};
use serde::{Deserialize, Serialize};

/// Which function [`super::Native::StrictMath`] computes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum StrictMathOp {
    Exp,
    Cosh,
    Log2,
}

/// fdlibm's `cosh` (e_cosh.c).
fn cosh(x: f64) -> f64 {
    let ax = x.abs();
    let high = (ax.to_bits() >> 32) as u32;
    if high >= 0x7ff0_0000 {
        return x * x;
    }
    // |x| < ln(2)/2: 1 + t^2 / (2 (1 + t)), t = expm1(|x|).
    if high < 0x3fd6_2e43 {
        let t = libm::expm1(ax);
        let w = 1.0 + t;
        if high < 0x3c80_0000 {
            return w;
        }
        return 1.0 + (t * t) / (w + w);
    }
    // |x| < 22: (exp(|x|) + 1 / exp(|x|)) / 2.
    if high < 0x4036_0000 {
        let t = libm::exp(ax);
        return 0.5 * t + 0.5 / t;
    }
    // |x| < log(maxdouble): exp(|x|) / 2.
    if high < 0x4086_2e42 {
        return 0.5 * libm::exp(ax);
    }
    // Up to the overflow threshold: exp(|x| / 2)^2 / 2, then infinity.
    if ax <= 7.104_758_600_739_439e2 {
        let w = libm::exp(0.5 * ax);
        return 0.5 * w * w;
    }
    f64::INFINITY
}

fn apply(op: StrictMathOp, x: f64) -> f64 {
    match op {
        StrictMathOp::Exp => libm::exp(x),
        StrictMathOp::Cosh => cosh(x),
        StrictMathOp::Log2 => libm::log(x) / libm::log(2.0),
    }
}

pub(super) fn evaluate(op: StrictMathOp, arrays: &[ArrayRef]) -> Result<ArrayRef> {
    let Some(a) = arrays.first() else {
        return internal_err!("a math function without its argument");
    };
    let a = arrow::compute::cast(a, &DataType::Float64)?;
    let out: Float64Array = a.as_primitive::<Float64Type>().unary(|x| apply(op, x));
    Ok(Arc::new(out) as ArrayRef)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn as_java_strict_math() {
        // (Spark 4.3: exp(1), cosh(1), log2(3) and log2(9) as PySpark's doctests show them.)
        assert_eq!(
            apply(StrictMathOp::Exp, 1.0).to_string(),
            "2.7182818284590455"
        );
        assert_eq!(
            apply(StrictMathOp::Cosh, 1.0).to_string(),
            "1.543080634815244"
        );
        assert_eq!(apply(StrictMathOp::Cosh, 0.0), 1.0);
        assert_eq!(apply(StrictMathOp::Log2, 8.0), 3.0);
        assert_eq!(apply(StrictMathOp::Log2, 3.0).to_string().len(), 17);
    }
}
