//! Spark's decimal arithmetic (`DecimalPrecision` with `allowPrecisionLoss`): operand
//! precisions (integer literals use their digit count), result precision and scale of
//! `+ - * / %`, and a division that rounds half up to the result scale.

use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, Decimal128Builder};
use arrow::datatypes::{DataType, Decimal128Type, i256};
use datafusion::common::{Result, ScalarValue, exec_err};
use datafusion::logical_expr::{
    ColumnarValue, Expr, Operator, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature,
    Volatility, binary_expr, cast,
};

use super::decimal_batch::{Computed, Operand, Step, compute};
use crate::error::{SparkError, to_datafusion};
use ember_execution::codec::EncodedUdf;

pub const MAX_PRECISION: u8 = 38;
pub const MINIMUM_ADJUSTED_SCALE: i8 = 6;

/// The decimal type Spark gives an operand: decimals as they are, integers by width (literals
/// by their digits).
pub fn operand_decimal(dt: &DataType, expr: &Expr) -> Option<(u8, i8)> {
    if let Expr::Literal(v, _) = expr {
        let digits = |n: i128| -> u8 { (n.unsigned_abs().to_string().len() as u8).max(1) };
        match v {
            ScalarValue::Int8(Some(n)) => return Some((digits(*n as i128), 0)),
            ScalarValue::Int16(Some(n)) => return Some((digits(*n as i128), 0)),
            ScalarValue::Int32(Some(n)) => return Some((digits(*n as i128), 0)),
            ScalarValue::Int64(Some(n)) => return Some((digits(*n as i128), 0)),
            _ => {}
        }
    }
    type_decimal(dt)
}

/// The decimal type Spark gives values of a type: decimals as they are, integers by width.
pub fn type_decimal(dt: &DataType) -> Option<(u8, i8)> {
    match dt {
        DataType::Decimal128(p, s) => Some((*p, *s)),
        DataType::Int8 => Some((3, 0)),
        DataType::Int16 => Some((5, 0)),
        DataType::Int32 => Some((10, 0)),
        DataType::Int64 => Some((20, 0)),
        DataType::Null => Some((1, 0)),
        _ => None,
    }
}

/// Spark's `adjustPrecisionScale`: keep integral digits, give up scale down to 6.
pub fn adjust(p: i32, s: i32) -> (u8, i8) {
    if p <= MAX_PRECISION as i32 {
        return (p.max(1) as u8, s.max(0) as i8);
    }
    let int_digits = p - s;
    let min_scale = s.min(MINIMUM_ADJUSTED_SCALE as i32);
    let scale = (MAX_PRECISION as i32 - int_digits).max(min_scale);
    (MAX_PRECISION, scale as i8)
}

pub fn result_type(op: Operator, (p1, s1): (u8, i8), (p2, s2): (u8, i8)) -> (u8, i8) {
    let (p1, s1, p2, s2) = (p1 as i32, s1 as i32, p2 as i32, s2 as i32);
    match op {
        Operator::Plus | Operator::Minus => {
            let s = s1.max(s2);
            adjust((p1 - s1).max(p2 - s2) + s + 1, s)
        }
        Operator::Multiply => adjust(p1 + p2 + 1, s1 + s2),
        Operator::Divide => {
            let s = (MINIMUM_ADJUSTED_SCALE as i32).max(s1 + p2 + 1);
            adjust(p1 - s1 + s2 + s, s)
        }
        _ => {
            let s = s1.max(s2);
            let p = ((p1 - s1).min(p2 - s2) + s).min(MAX_PRECISION as i32);
            (p.max(1) as u8, s as i8)
        }
    }
}

/// `l op r` with Spark's decimal result type.
pub fn decimal_arithmetic(
    op: Operator,
    l: Expr,
    lt: (u8, i8),
    r: Expr,
    rt: (u8, i8),
    ansi: bool,
) -> Expr {
    let (p, s) = result_type(op, lt, rt);
    let l = cast(l, DataType::Decimal128(lt.0, lt.1));
    let r = cast(r, DataType::Decimal128(rt.0, rt.1));
    match op {
        Operator::Divide => DecimalDivide::udf(p, s, ansi).call(vec![l, r]),
        // DataFusion's operator computes the exact result in 128 bits and fails where it does
        // not fit, though Spark's result, rounded past 38 digits, would. Within 38 digits it
        // cannot overflow, yet arrow checks every row and rescales a scalar operand per row:
        // DecimalExact's bound per batch skips both (15 % of TPC-H q1's time).
        Operator::Plus | Operator::Minus | Operator::Multiply => {
            DecimalExact::udf(op, p, s, ansi).call(vec![l, r])
        }
        _ => cast(binary_expr(l, op, r), DataType::Decimal128(p, s)),
    }
}

/// `+`, `-` or `*` of decimals whose exact result may exceed 38 digits: computed in 256 bits,
/// rounded half up to the result scale as Spark's `CheckOverflow` rounds, and out of range
/// NUMERIC_VALUE_OUT_OF_RANGE (ANSI) or NULL.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct DecimalExact {
    /// `+`, `-` or `*`.
    op: char,
    precision: u8,
    scale: i8,
    ansi: bool,
    signature: Signature,
}

impl DecimalExact {
    pub fn udf(op: Operator, precision: u8, scale: i8, ansi: bool) -> Arc<ScalarUDF> {
        let op = match op {
            Operator::Plus => '+',
            Operator::Minus => '-',
            _ => '*',
        };
        Self::of(op, precision, scale, ansi)
    }

    fn of(op: char, precision: u8, scale: i8, ansi: bool) -> Arc<ScalarUDF> {
        Arc::new(ScalarUDF::from(Self {
            op,
            precision,
            scale,
            ansi,
            signature: Signature::any(2, Volatility::Immutable),
        }))
    }
}

impl ScalarUDFImpl for DecimalExact {
    fn name(&self) -> &str {
        match self.op {
            '+' => "spark_decimal_add",
            '-' => "spark_decimal_subtract",
            _ => "spark_decimal_multiply",
        }
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(DataType::Decimal128(self.precision, self.scale))
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        if let Some(result) = self.in_128_bits(&args)? {
            return Ok(result);
        }
        let (scalar, [(a, sa), (b, sb)]) = decimal_operands(&args, "decimal arithmetic")?;
        let (a, b) = (
            a.as_primitive::<Decimal128Type>(),
            b.as_primitive::<Decimal128Type>(),
        );
        let (sa, sb) = (i32::from(sa), i32::from(sb));
        // The exact result's scale, and the operands' factors to reach it.
        let (exact_scale, fa, fb) = match self.op {
            '*' => (sa + sb, i256::ONE, i256::ONE),
            _ => {
                let s = sa.max(sb);
                (s, pow10((s - sa) as u32), pow10((s - sb) as u32))
            }
        };
        let drop = exact_scale - i32::from(self.scale);
        let limit = pow10(u32::from(self.precision));
        let divisor = (drop > 0).then(|| pow10(drop as u32));
        let factor = pow10(drop.min(0).unsigned_abs());
        let mut out = Decimal128Builder::with_capacity(a.len());
        for i in 0..a.len() {
            if a.is_null(i) || b.is_null(i) {
                out.append_null();
                continue;
            }
            let (x, y) = (a.value(i), b.value(i));
            let (x, y) = (i256::from_i128(x), i256::from_i128(y));
            let exact = match self.op {
                '+' => x.wrapping_mul(fa).wrapping_add(y.wrapping_mul(fb)),
                '-' => x.wrapping_mul(fa).wrapping_sub(y.wrapping_mul(fb)),
                _ => x.wrapping_mul(y),
            };
            let v = match divisor {
                Some(d) => round_half_up(exact, d),
                None => exact.wrapping_mul(factor),
            };
            match v.to_i128().filter(|_| v.wrapping_abs() < limit) {
                Some(v) => out.append_value(v),
                None if self.ansi => {
                    return Err(to_datafusion(SparkError::new(
                        crate::error::ErrorKind::Arithmetic,
                        "NUMERIC_VALUE_OUT_OF_RANGE.WITH_SUGGESTION",
                        "22003",
                        format!(
                            "{} cannot be represented as Decimal({}, {}). If necessary set \"spark.sql.ansi.enabled\" to \"false\" to bypass this error, and return NULL instead.",
                            decimal_text(v, self.scale),
                            self.precision,
                            self.scale
                        ),
                        vec![],
                    )));
                }
                None => out.append_null(),
            }
        }
        decimal_result(out, self.precision, self.scale, scalar)
    }
}

impl DecimalExact {
    /// The result computed in 128 bits without a check per row, where the largest operands
    /// of the batch bound every result within 128 bits and the result's precision (nearly
    /// always: TPC-H's `price * (1 - discount) * (1 + tax)` is DECIMAL(32,4) * DECIMAL(16,2)
    /// of a few digits); None where a row may not fit, left to the 256-bit path.
    fn in_128_bits(&self, args: &ScalarFunctionArgs) -> Result<Option<ColumnarValue>> {
        let [a, b] = args.args.as_slice() else {
            return exec_err!("decimal arithmetic expects two arguments");
        };
        let result_type = DataType::Decimal128(self.precision, self.scale);
        if [a, b]
            .iter()
            .any(|v| matches!(v, ColumnarValue::Scalar(v) if v.is_null()))
        {
            return Ok(Some(ColumnarValue::Scalar(ScalarValue::try_from(
                &result_type,
            )?)));
        }
        let (Some((sa, x)), Some((sb, y))) = (Operand::of(a), Operand::of(b)) else {
            return Ok(None);
        };
        // The exact result's scale, the operands' factors to reach it, and the factor or
        // divisor from there to the result's scale.
        let (exact_scale, fa, fb) = match self.op {
            '*' => (sa + sb, 1i128, 1i128),
            _ => {
                let s = sa.max(sb);
                let pow = |n: i32| 10i128.checked_pow(n as u32);
                match (pow(s - sa), pow(s - sb)) {
                    (Some(fa), Some(fb)) => (s, fa, fb),
                    _ => return Ok(None),
                }
            }
        };
        let drop = exact_scale - i32::from(self.scale);
        let Some(adjust) = 10i128.checked_pow(drop.unsigned_abs()) else {
            return Ok(None);
        };
        let limit = 10u128.pow(u32::from(self.precision));
        let (mx, my) = (x.largest(), y.largest());
        let exact = match self.op {
            '*' => mx.checked_mul(my),
            _ => mx
                .checked_mul(fa.unsigned_abs())
                .zip(my.checked_mul(fb.unsigned_abs()))
                .and_then(|(x, y)| x.checked_add(y)),
        };
        let Some(exact) = exact.filter(|e| *e <= i128::MAX.unsigned_abs()) else {
            return Ok(None);
        };
        let bound = match drop {
            d if d > 0 => Some(exact / adjust.unsigned_abs() + 1),
            _ => exact.checked_mul(adjust.unsigned_abs()),
        };
        if bound.is_none_or(|b| b >= limit) {
            return Ok(None);
        }
        let small = i64::MAX.unsigned_abs() as u128;
        let step = Step {
            op: self.op as u8,
            fa,
            fb,
            drop,
            adjust,
            small: exact <= small && mx <= small && my <= small,
        };
        Ok(Some(match compute(&x, &y, step)? {
            Computed::Value(v) => {
                ColumnarValue::Scalar(ScalarValue::Decimal128(Some(v), self.precision, self.scale))
            }
            Computed::Rows(out) => ColumnarValue::Array(Arc::new(
                out.with_precision_and_scale(self.precision, self.scale)?,
            )),
        }))
    }
}

/// The two decimal arguments of a decimal function as arrays with their scales, and whether
/// both were scalars.
fn decimal_operands(args: &ScalarFunctionArgs, what: &str) -> Result<(bool, [(ArrayRef, i8); 2])> {
    let [a, b] = args.args.as_slice() else {
        return exec_err!("{what} expects two arguments");
    };
    let scalar = matches!((a, b), (ColumnarValue::Scalar(_), ColumnarValue::Scalar(_)));
    let (a, b) = (a.to_array(args.number_rows)?, b.to_array(args.number_rows)?);
    let (DataType::Decimal128(_, sa), DataType::Decimal128(_, sb)) =
        (a.data_type().clone(), b.data_type().clone())
    else {
        return exec_err!("{what} expects decimals");
    };
    Ok((scalar, [(a, sa), (b, sb)]))
}

/// A decimal function's result of `precision` and `scale`, a scalar where its arguments were.
fn decimal_result(
    mut out: Decimal128Builder,
    precision: u8,
    scale: i8,
    scalar: bool,
) -> Result<ColumnarValue> {
    let array: ArrayRef = Arc::new(out.finish().with_precision_and_scale(precision, scale)?);
    Ok(if scalar {
        ColumnarValue::Scalar(ScalarValue::try_from_array(&array, 0)?)
    } else {
        ColumnarValue::Array(array)
    })
}

/// The digits `v` of a decimal of `scale` as Java's `BigDecimal` writes them (`-12.50`).
fn decimal_text(v: i256, scale: i8) -> String {
    let digits = v.wrapping_abs().to_string();
    let sign = if v < i256::ZERO { "-" } else { "" };
    let scale = scale.max(0) as usize;
    if scale == 0 {
        return format!("{sign}{digits}");
    }
    let digits = format!("{digits:0>width$}", width = scale + 1);
    let (whole, fraction) = digits.split_at(digits.len() - scale);
    format!("{sign}{whole}.{fraction}")
}

/// `n / d` rounded half up (away from zero), `d` positive.
fn round_half_up(n: i256, d: i256) -> i256 {
    let q = n.wrapping_div(d);
    let r = n.wrapping_rem(d);
    if r.wrapping_abs().wrapping_mul(i256::from_i128(2)) >= d {
        if n < i256::ZERO {
            q.wrapping_sub(i256::ONE)
        } else {
            q.wrapping_add(i256::ONE)
        }
    } else {
        q
    }
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct DecimalExactMessage {
    /// `+`, `-` or `*`.
    #[prost(string, tag = "1")]
    op: String,
    #[prost(uint32, tag = "2")]
    precision: u32,
    #[prost(int32, tag = "3")]
    scale: i32,
    #[prost(bool, tag = "4")]
    ansi: bool,
}

impl EncodedUdf for DecimalExact {
    const NAME: &'static str = "decimal_exact";
    type Message = DecimalExactMessage;

    fn to_message(&self) -> Option<DecimalExactMessage> {
        Some(DecimalExactMessage {
            op: self.op.to_string(),
            precision: self.precision.into(),
            scale: self.scale.into(),
            ansi: self.ansi,
        })
    }

    fn from_message(_name: &str, m: DecimalExactMessage) -> Result<Arc<ScalarUDF>> {
        let (Ok(precision), Ok(scale), Some(op)) = (
            u8::try_from(m.precision),
            i8::try_from(m.scale),
            m.op.chars().next().filter(|c| matches!(c, '+' | '-' | '*')),
        ) else {
            return exec_err!("bad decimal arithmetic");
        };
        Ok(Self::of(op, precision, scale, m.ansi))
    }
}

/// Decimal division rounded half up to a fixed result type.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct DecimalDivide {
    precision: u8,
    scale: i8,
    ansi: bool,
    signature: Signature,
}

impl DecimalDivide {
    pub fn precision(&self) -> u8 {
        self.precision
    }

    pub fn scale(&self) -> i8 {
        self.scale
    }

    pub fn ansi(&self) -> bool {
        self.ansi
    }

    pub fn udf(precision: u8, scale: i8, ansi: bool) -> Arc<ScalarUDF> {
        Arc::new(ScalarUDF::from(Self {
            precision,
            scale,
            ansi,
            signature: Signature::any(2, Volatility::Immutable),
        }))
    }
}

impl ScalarUDFImpl for DecimalDivide {
    fn name(&self) -> &str {
        "spark_decimal_divide"
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(DataType::Decimal128(self.precision, self.scale))
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let (scalar, [(a, sa), (b, sb)]) = decimal_operands(&args, "decimal divide")?;
        let (a, b) = (
            a.as_primitive::<Decimal128Type>(),
            b.as_primitive::<Decimal128Type>(),
        );
        // value = a / 10^sa / (b / 10^sb); result digits = value * 10^s.
        let shift = self.scale as i32 + sb as i32 - sa as i32;
        let limit = 10u128.pow(self.precision.min(MAX_PRECISION) as u32);
        let mut out = Decimal128Builder::with_capacity(a.len());
        for i in 0..a.len() {
            if a.is_null(i) || b.is_null(i) {
                out.append_null();
                continue;
            }
            let divisor = b.value(i);
            if divisor == 0 {
                if self.ansi {
                    return Err(to_datafusion(SparkError::divide_by_zero()));
                }
                out.append_null();
                continue;
            }
            let q =
                quotient_half_up(a.value(i), divisor, shift).filter(|q| q.unsigned_abs() < limit);
            let Some(q) = q else {
                if self.ansi {
                    return Err(to_datafusion(out_of_range(self.precision, self.scale)));
                }
                out.append_null();
                continue;
            };
            out.append_value(q);
        }
        decimal_result(out, self.precision, self.scale, scalar)
    }
}

/// NUMERIC_VALUE_OUT_OF_RANGE of a value that `Decimal(precision, scale)` cannot hold.
pub(crate) fn out_of_range(precision: u8, scale: i8) -> SparkError {
    SparkError::new(
        crate::error::ErrorKind::Arithmetic,
        "NUMERIC_VALUE_OUT_OF_RANGE.WITH_SUGGESTION",
        "22003",
        format!(
            "The value cannot be represented as Decimal({precision}, {scale}). If necessary set \"spark.sql.ansi.enabled\" to \"false\" to bypass this error, and return NULL instead."
        ),
        vec![],
    )
}

/// The digits of `a / d` scaled by `10^shift` (`a * 10^shift / d`; `d` times `10^-shift` for a
/// negative shift), rounded half up (away from zero); `None` beyond 128 bits. In 128 bits
/// where the scaled operands fit, else in 256. `d` is not 0.
pub(crate) fn quotient_half_up(a: i128, d: i128, shift: i32) -> Option<i128> {
    let scaled = |v: i128, by: i32| {
        10i128
            .checked_pow(by.unsigned_abs())
            .and_then(|m| v.checked_mul(m))
    };
    let fast = if shift >= 0 {
        scaled(a, shift).map(|n| (n, d))
    } else {
        scaled(d, shift).map(|d| (a, d))
    };
    if let Some((n, d)) = fast {
        // |d| > 1 here or the quotient is exact: `n / d` overflows only for i128::MIN / -1.
        let (q, r) = (n.checked_div(d)?, n.checked_rem(d)?);
        if r.unsigned_abs() >= d.unsigned_abs() - r.unsigned_abs() {
            return if (n < 0) != (d < 0) {
                q.checked_sub(1)
            } else {
                q.checked_add(1)
            };
        }
        return Some(q);
    }
    let (mut n, mut d) = (i256::from_i128(a), i256::from_i128(d));
    if shift >= 0 {
        n = n.wrapping_mul(pow10(shift as u32));
    } else {
        d = d.wrapping_mul(pow10((-shift) as u32));
    }
    if d < i256::ZERO {
        (n, d) = (n.wrapping_neg(), d.wrapping_neg());
    }
    round_half_up(n, d).to_i128()
}

fn pow10(n: u32) -> i256 {
    let mut v = i256::ONE;
    for _ in 0..n {
        v = v.wrapping_mul(i256::from_i128(10));
    }
    v
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct DecimalDivideMessage {
    #[prost(uint32, tag = "1")]
    precision: u32,
    #[prost(int32, tag = "2")]
    scale: i32,
    #[prost(bool, tag = "3")]
    ansi: bool,
}

impl EncodedUdf for DecimalDivide {
    const NAME: &'static str = "decimal_divide";
    type Message = DecimalDivideMessage;

    fn to_message(&self) -> Option<DecimalDivideMessage> {
        Some(DecimalDivideMessage {
            precision: self.precision().into(),
            scale: self.scale().into(),
            ansi: self.ansi(),
        })
    }

    fn from_message(_name: &str, m: DecimalDivideMessage) -> Result<Arc<ScalarUDF>> {
        let (Ok(precision), Ok(scale)) = (u8::try_from(m.precision), i8::try_from(m.scale)) else {
            return exec_err!("bad decimal division type");
        };
        Ok(Self::udf(precision, scale, m.ansi))
    }
}

#[cfg(test)]
mod tests {
    use super::super::decimal_batch::round_half_up_128;
    use super::*;

    #[test]
    fn exact_arithmetic_rounds_and_writes_as_java() {
        assert_eq!(
            round_half_up(i256::from_i128(-125), i256::from_i128(10)),
            i256::from_i128(-13)
        );
        assert_eq!(
            round_half_up(i256::from_i128(124), i256::from_i128(10)),
            i256::from_i128(12)
        );
        assert_eq!(decimal_text(i256::from_i128(-5), 3), "-0.005");
        assert_eq!(decimal_text(i256::from_i128(1234), 1), "123.4");
        assert_eq!(decimal_text(i256::from_i128(7), 0), "7");
        for (n, d) in [
            (-125, 10),
            (124, 10),
            (125, 10),
            (-124, 10),
            (5, 10),
            (-5, 10),
            (149, 100),
            (150, 100),
        ] {
            assert_eq!(
                i256::from_i128(round_half_up_128(n, d)),
                round_half_up(i256::from_i128(n), i256::from_i128(d)),
                "{n} / {d}"
            );
        }
        let big = 10i128.pow(37) * 15;
        assert_eq!(round_half_up_128(big, 10i128.pow(38)), 2);
    }

    #[test]
    fn result_types_follow_spark() {
        assert_eq!(result_type(Operator::Multiply, (2, 1), (1, 0)), (4, 1));
        assert_eq!(result_type(Operator::Divide, (2, 0), (2, 1)), (9, 6));
        assert_eq!(result_type(Operator::Plus, (10, 2), (5, 3)), (12, 3));
        assert_eq!(result_type(Operator::Multiply, (38, 10), (38, 10)), (38, 6));
        assert_eq!(result_type(Operator::Divide, (38, 18), (38, 18)), (38, 6));
    }
}
