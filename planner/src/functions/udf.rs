//! Ember's own scalar UDFs, for the places where Spark's semantics differ from DataFusion's
//! built-ins: ANSI overflow checks on integer arithmetic, `/` that always divides as double
//! and reports division by zero as Spark does, and `div`.

use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, Int64Array, PrimitiveBuilder};
use arrow::compute::kernels::numeric;
use arrow::datatypes::{ArrowPrimitiveType, DataType, Float64Type, Int64Type};
use datafusion::common::{Result, ScalarValue, exec_err, internal_err};
use datafusion::logical_expr::{
    ColumnarValue, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature, Volatility,
};

use crate::error::{SparkError, to_datafusion};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ArithOp {
    Add,
    Subtract,
    Multiply,
}

impl ArithOp {
    fn name(self) -> &'static str {
        match self {
            ArithOp::Add => "spark_add",
            ArithOp::Subtract => "spark_subtract",
            ArithOp::Multiply => "spark_multiply",
        }
    }

    fn try_name(self) -> &'static str {
        match self {
            ArithOp::Add => "try_add",
            ArithOp::Subtract => "try_subtract",
            ArithOp::Multiply => "try_multiply",
        }
    }
}

/// Integer `+`, `-`, `*`: raise ARITHMETIC_OVERFLOW under ANSI, wrap otherwise (Spark's
/// legacy behaviour). Both arguments have the same integer type (the resolver casts).
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct CheckedArithmetic {
    op: ArithOp,
    ansi: bool,
    signature: Signature,
}

impl CheckedArithmetic {
    pub fn op(&self) -> ArithOp {
        self.op
    }

    pub fn ansi(&self) -> bool {
        self.ansi
    }

    pub fn udf(op: ArithOp, ansi: bool) -> Arc<ScalarUDF> {
        Arc::new(ScalarUDF::from(Self {
            op,
            ansi,
            signature: Signature::any(2, Volatility::Immutable),
        }))
    }
}

impl ScalarUDFImpl for CheckedArithmetic {
    fn name(&self) -> &str {
        if self.ansi {
            self.op.name()
        } else {
            "spark_wrapping_arith"
        }
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        Ok(arg_types.first().cloned().unwrap_or(DataType::Int64))
    }

    /// NULL only for a NULL argument (an overflow raises or wraps), as Spark's `+`, `-`, `*`.
    fn return_field_from_args(
        &self,
        args: datafusion::logical_expr::ReturnFieldArgs,
    ) -> Result<arrow::datatypes::FieldRef> {
        let data_type = args
            .arg_fields
            .first()
            .map(|f| f.data_type().clone())
            .unwrap_or(DataType::Int64);
        let nullable = args.arg_fields.iter().any(|f| f.is_nullable());
        Ok(Arc::new(arrow::datatypes::Field::new(
            self.name(),
            data_type,
            nullable,
        )))
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let [a, b] = args.args.as_slice() else {
            return exec_err!("{} expects two arguments", self.name());
        };
        let scalar = matches!((a, b), (ColumnarValue::Scalar(_), ColumnarValue::Scalar(_)));
        let (a, b) = (a.to_array(args.number_rows)?, b.to_array(args.number_rows)?);
        let result = if self.ansi {
            let r = match self.op {
                ArithOp::Add => numeric::add(&a, &b),
                ArithOp::Subtract => numeric::sub(&a, &b),
                ArithOp::Multiply => numeric::mul(&a, &b),
            };
            r.map_err(|e| match e {
                arrow::error::ArrowError::ArithmeticOverflow(_) => to_datafusion(
                    SparkError::arithmetic_overflow("overflow", self.op.try_name()),
                ),
                other => other.into(),
            })?
        } else {
            match self.op {
                ArithOp::Add => numeric::add_wrapping(&a, &b)?,
                ArithOp::Subtract => numeric::sub_wrapping(&a, &b)?,
                ArithOp::Multiply => numeric::mul_wrapping(&a, &b)?,
            }
        };
        to_columnar(result, scalar)
    }
}

fn to_columnar(array: ArrayRef, scalar: bool) -> Result<ColumnarValue> {
    if scalar && array.len() == 1 {
        Ok(ColumnarValue::Scalar(ScalarValue::try_from_array(
            &array, 0,
        )?))
    } else {
        Ok(ColumnarValue::Array(array))
    }
}

/// The two divisions of non-decimal numbers Spark defines itself: `/` divides as DOUBLE,
/// `div` truncates BIGINTs toward zero. Both raise DIVIDE_BY_ZERO for a zero divisor under ANSI
/// and yield NULL otherwise; `div`'s one overflow (`i64::MIN div -1`) raises
/// ARITHMETIC_OVERFLOW under ANSI and wraps otherwise.
pub trait Division: ArrowPrimitiveType + std::fmt::Debug + Send + Sync + 'static {
    /// Names under ANSI and outside it.
    const NAMES: [&'static str; 2];
    /// The name of its codec entry.
    const CODEC: &'static str;
    fn is_zero(d: Self::Native) -> bool;
    /// `a / d` for a divisor that is not zero; `None` on overflow.
    fn checked(a: Self::Native, d: Self::Native) -> Option<Self::Native>;
    fn wrapping(a: Self::Native, d: Self::Native) -> Self::Native;
}

impl Division for Float64Type {
    const NAMES: [&'static str; 2] = ["spark_divide", "spark_divide_legacy"];
    const CODEC: &'static str = "double_divide";
    fn is_zero(d: f64) -> bool {
        d == 0.0
    }
    fn checked(a: f64, d: f64) -> Option<f64> {
        Some(a / d)
    }
    fn wrapping(a: f64, d: f64) -> f64 {
        a / d
    }
}

impl Division for Int64Type {
    const NAMES: [&'static str; 2] = ["spark_div", "spark_div_legacy"];
    const CODEC: &'static str = "integral_divide";
    fn is_zero(d: i64) -> bool {
        d == 0
    }
    fn checked(a: i64, d: i64) -> Option<i64> {
        a.checked_div(d)
    }
    fn wrapping(a: i64, d: i64) -> i64 {
        a.wrapping_div(d)
    }
}

/// Spark's division of `T`s (see [`Division`]).
#[derive(Debug)]
pub struct Divide<T: Division> {
    ansi: bool,
    signature: Signature,
    number: std::marker::PhantomData<T>,
}

impl<T: Division> PartialEq for Divide<T> {
    fn eq(&self, other: &Self) -> bool {
        self.ansi == other.ansi
    }
}

impl<T: Division> Eq for Divide<T> {}

impl<T: Division> std::hash::Hash for Divide<T> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.name().hash(state);
    }
}

/// Spark's `/` on non-decimal numbers.
pub type DoubleDivide = Divide<Float64Type>;
/// Spark's `div`.
pub type IntegralDivide = Divide<Int64Type>;

impl<T: Division> Divide<T> {
    pub fn ansi(&self) -> bool {
        self.ansi
    }

    pub fn udf(ansi: bool) -> Arc<ScalarUDF> {
        Arc::new(ScalarUDF::from(Self {
            ansi,
            signature: Signature::exact(vec![T::DATA_TYPE, T::DATA_TYPE], Volatility::Immutable),
            number: std::marker::PhantomData,
        }))
    }
}

impl<T: Division> ScalarUDFImpl for Divide<T> {
    fn name(&self) -> &str {
        T::NAMES[usize::from(!self.ansi)]
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(T::DATA_TYPE)
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let [a, b] = args.args.as_slice() else {
            return exec_err!("{} expects two arguments", self.name());
        };
        let scalar = matches!((a, b), (ColumnarValue::Scalar(_), ColumnarValue::Scalar(_)));
        let (a, b) = (a.to_array(args.number_rows)?, b.to_array(args.number_rows)?);
        let (Some(a), Some(b)) = (a.as_primitive_opt::<T>(), b.as_primitive_opt::<T>()) else {
            return exec_err!("{} expects {} arguments", self.name(), T::DATA_TYPE);
        };
        let mut out = PrimitiveBuilder::<T>::with_capacity(a.len());
        for i in 0..a.len() {
            if a.is_null(i) || b.is_null(i) {
                out.append_null();
                continue;
            }
            let (x, d) = (a.value(i), b.value(i));
            if T::is_zero(d) {
                if self.ansi {
                    return Err(to_datafusion(SparkError::divide_by_zero()));
                }
                out.append_null();
                continue;
            }
            match T::checked(x, d) {
                Some(v) => out.append_value(v),
                None if self.ansi => {
                    return Err(to_datafusion(SparkError::arithmetic_overflow(
                        "overflow", "",
                    )));
                }
                None => out.append_value(T::wrapping(x, d)),
            }
        }
        to_columnar(Arc::new(out.finish()), scalar)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::Float64Array;
    use arrow::datatypes::Field;
    use datafusion::config::ConfigOptions;

    fn call(udf: &ScalarUDF, a: ArrayRef, b: ArrayRef, ret: DataType) -> Result<ColumnarValue> {
        let n = a.len();
        let fields = vec![
            Arc::new(Field::new("a", a.data_type().clone(), true)),
            Arc::new(Field::new("b", b.data_type().clone(), true)),
        ];
        udf.invoke_with_args(ScalarFunctionArgs {
            args: vec![ColumnarValue::Array(a), ColumnarValue::Array(b)],
            arg_fields: fields,
            number_rows: n,
            return_field: Arc::new(Field::new("r", ret, true)),
            config_options: Arc::new(ConfigOptions::default()),
        })
    }

    #[test]
    fn ansi_addition_overflows_with_spark_error() {
        let udf = CheckedArithmetic::udf(ArithOp::Add, true);
        let a: ArrayRef = Arc::new(Int64Array::from(vec![i64::MAX]));
        let b: ArrayRef = Arc::new(Int64Array::from(vec![1]));
        let err = call(&udf, a.clone(), b.clone(), DataType::Int64).unwrap_err();
        let spark = crate::error::spark_error_from_datafusion(&err);
        assert_eq!(spark.error_class, "ARITHMETIC_OVERFLOW");
        let legacy = CheckedArithmetic::udf(ArithOp::Add, false);
        let ColumnarValue::Array(r) = call(&legacy, a, b, DataType::Int64).unwrap() else {
            panic!("expected array")
        };
        assert_eq!(
            r.as_any().downcast_ref::<Int64Array>().unwrap().value(0),
            i64::MIN
        );
    }

    #[test]
    fn division_by_zero_is_an_error_or_null() {
        let a: ArrayRef = Arc::new(Float64Array::from(vec![1.0, 3.0]));
        let b: ArrayRef = Arc::new(Float64Array::from(vec![0.0, 2.0]));
        let err = call(
            &DoubleDivide::udf(true),
            a.clone(),
            b.clone(),
            DataType::Float64,
        )
        .unwrap_err();
        assert_eq!(
            crate::error::spark_error_from_datafusion(&err).error_class,
            "DIVIDE_BY_ZERO"
        );
        let ColumnarValue::Array(r) =
            call(&DoubleDivide::udf(false), a, b, DataType::Float64).unwrap()
        else {
            panic!("expected array")
        };
        let r = r.as_any().downcast_ref::<Float64Array>().unwrap();
        assert!(r.is_null(0));
        assert_eq!(r.value(1), 1.5);
    }
}

/// Spark's array subscript: `arr[i]` (zero-based) and `element_at(arr, i)` (one-based,
/// negative from the end). Under ANSI an index outside the array raises
/// INVALID_ARRAY_INDEX(_IN_ELEMENT_AT); otherwise it yields NULL. `element_at(arr, 0)` is
/// always an error (INVALID_INDEX_OF_ZERO).
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct ArrayIndex {
    one_based: bool,
    ansi: bool,
    signature: Signature,
}

impl ArrayIndex {
    pub fn one_based(&self) -> bool {
        self.one_based
    }

    pub fn ansi(&self) -> bool {
        self.ansi
    }

    pub fn udf(one_based: bool, ansi: bool) -> Arc<ScalarUDF> {
        Arc::new(ScalarUDF::from(Self {
            one_based,
            ansi,
            signature: Signature::any(2, Volatility::Immutable),
        }))
    }

    fn out_of_bounds(&self, index: i64, len: usize) -> datafusion::error::DataFusionError {
        let (class, tolerate) = if self.one_based {
            (
                "INVALID_ARRAY_INDEX_IN_ELEMENT_AT",
                "Use `try_element_at` to tolerate accessing element at invalid index and return NULL instead.",
            )
        } else {
            (
                "INVALID_ARRAY_INDEX",
                "Use the SQL function `get()` to tolerate accessing element at invalid index and return NULL instead.",
            )
        };
        to_datafusion(SparkError::new(
            crate::error::ErrorKind::ArrayIndexOutOfBounds,
            class,
            "22003",
            format!("The index {index} is out of bounds. The array has {len} elements. {tolerate}"),
            vec![
                ("indexValue", index.to_string()),
                ("arraySize", len.to_string()),
                ("ansiConfig", "\"spark.sql.ansi.enabled\"".into()),
            ],
        ))
    }
}

impl ScalarUDFImpl for ArrayIndex {
    fn name(&self) -> &str {
        match (self.one_based, self.ansi) {
            (true, true) => "spark_element_at",
            (true, false) => "spark_element_at_or_null",
            (false, true) => "spark_array_subscript",
            (false, false) => "spark_array_subscript_or_null",
        }
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        match arg_types.first() {
            Some(DataType::List(f) | DataType::LargeList(f) | DataType::FixedSizeList(f, _)) => {
                Ok(f.data_type().clone())
            }
            other => exec_err!("{} expects an array, got {other:?}", self.name()),
        }
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let [a, i] = args.args.as_slice() else {
            return exec_err!("{} expects two arguments", self.name());
        };
        let scalar = matches!((a, i), (ColumnarValue::Scalar(_), ColumnarValue::Scalar(_)));
        let arrays = a.to_array(args.number_rows)?;
        let element = self.return_type(&[arrays.data_type().clone()])?;
        let list_type = DataType::List(Arc::new(arrow::datatypes::Field::new(
            "item", element, true,
        )));
        let arrays = arrow::compute::cast(&arrays, &list_type)?;
        let Some(lists) = arrays.as_any().downcast_ref::<arrow::array::ListArray>() else {
            return exec_err!("{}: not a list", self.name());
        };
        let index = arrow::compute::cast(&i.to_array(args.number_rows)?, &DataType::Int64)?;
        let Some(index) = index.as_any().downcast_ref::<Int64Array>() else {
            return exec_err!("{}: index is not an integer", self.name());
        };
        let offsets = lists.value_offsets();
        let mut take: Vec<Option<u64>> = Vec::with_capacity(lists.len());
        for row in 0..lists.len() {
            if lists.is_null(row) || index.is_null(row) {
                take.push(None);
                continue;
            }
            let start = offsets[row] as i64;
            let len = (offsets[row + 1] - offsets[row]) as i64;
            let i = index.value(row);
            let position = if self.one_based {
                if i == 0 {
                    return Err(to_datafusion(SparkError::new(
                        crate::error::ErrorKind::Runtime,
                        "INVALID_INDEX_OF_ZERO",
                        "22003",
                        "The index 0 is invalid. An index shall be either < 0 or > 0 (the first element has index 1).",
                        vec![],
                    )));
                }
                if i > 0 { i - 1 } else { len + i }
            } else {
                i
            };
            if position < 0 || position >= len {
                if self.ansi {
                    return Err(self.out_of_bounds(i, len as usize));
                }
                take.push(None);
            } else {
                take.push(Some((start + position) as u64));
            }
        }
        let indices = arrow::array::UInt64Array::from(take);
        let values = arrow::compute::take(lists.values().as_ref(), &indices, None)?;
        to_columnar(values, scalar)
    }
}

/// `CAST(x AS STRING)` as Spark spells values DataFusion's cast spells differently:
/// timestamps (`2020-01-02 03:04:05.5` in the session's zone), floating point numbers
/// (`1.0E10`), arrays, structs and maps.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct CastToString {
    signature: Signature,
    time_zone: String,
    /// The fields of the ANSI interval type of the value (when not its Arrow type's default).
    interval: Option<crate::interval::IntervalFields>,
}

impl CastToString {
    pub fn udf(time_zone: &str) -> Arc<ScalarUDF> {
        Self::of_interval(time_zone, None)
    }

    /// The cast of a value of an interval type with `interval` fields.
    pub fn of_interval(
        time_zone: &str,
        interval: Option<crate::interval::IntervalFields>,
    ) -> Arc<ScalarUDF> {
        Arc::new(ScalarUDF::from(Self {
            signature: Signature::any(1, Volatility::Immutable),
            time_zone: time_zone.to_string(),
            interval,
        }))
    }

    pub fn time_zone(&self) -> &str {
        &self.time_zone
    }

    pub fn interval(&self) -> Option<crate::interval::IntervalFields> {
        self.interval
    }

    /// Whether DataFusion's cast of `from` to a string differs from Spark's.
    pub fn needed_for(from: &DataType) -> bool {
        matches!(
            from,
            DataType::Timestamp(_, _)
                | DataType::Float32
                | DataType::Float64
                | DataType::List(_)
                | DataType::LargeList(_)
                | DataType::Struct(_)
                | DataType::Map(_, _)
                | DataType::Interval(_)
                | DataType::Duration(_)
                | DataType::Time64(_)
        )
    }
}

impl ScalarUDFImpl for CastToString {
    fn name(&self) -> &str {
        "spark_cast_to_string"
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(DataType::Utf8)
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let [arg] = args.args.as_slice() else {
            return internal_err!("spark_cast_to_string takes one argument");
        };
        let array = arg.to_array(args.number_rows)?;
        // (An interval is spelled with its type's fields, which its field carries.)
        let interval = self.interval.or_else(|| {
            args.arg_fields
                .first()
                .and_then(|f| crate::interval::IntervalFields::of_field(f))
        });
        let mut out = arrow::array::StringBuilder::with_capacity(array.len(), array.len() * 16);
        for row in 0..array.len() {
            if array.is_null(row) {
                out.append_null();
            } else {
                out.append_value(crate::show::cast_string(
                    array.as_ref(),
                    row,
                    &self.time_zone,
                    interval,
                ));
            }
        }
        let strings: ArrayRef = Arc::new(out.finish());
        Ok(match arg {
            ColumnarValue::Scalar(_) => {
                ColumnarValue::Scalar(ScalarValue::try_from_array(&strings, 0)?)
            }
            ColumnarValue::Array(_) => ColumnarValue::Array(strings),
        })
    }
}

/// `raise_error(message)`: fails the query with USER_RAISED_EXCEPTION when a row evaluates
/// it (a CASE branch no row takes never does). Volatile, so that planning never folds it.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct RaiseError {
    signature: Signature,
}

impl RaiseError {
    pub fn udf() -> Arc<ScalarUDF> {
        Arc::new(ScalarUDF::from(Self {
            signature: Signature::any(1, Volatility::Volatile),
        }))
    }
}

impl ScalarUDFImpl for RaiseError {
    fn name(&self) -> &str {
        "raise_error"
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(DataType::Null)
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        if args.number_rows == 0 {
            return Ok(ColumnarValue::Scalar(ScalarValue::Null));
        }
        let message = match args.args.first() {
            Some(ColumnarValue::Scalar(s)) => s.clone(),
            Some(ColumnarValue::Array(a)) => ScalarValue::try_from_array(a, 0)?,
            None => ScalarValue::Null,
        };
        let message = match message {
            ScalarValue::Utf8(Some(s))
            | ScalarValue::LargeUtf8(Some(s))
            | ScalarValue::Utf8View(Some(s)) => s,
            other if other.is_null() => "null".to_string(),
            other => other.to_string(),
        };
        Err(to_datafusion(SparkError::new(
            crate::error::ErrorKind::Runtime,
            "USER_RAISED_EXCEPTION",
            "P0001",
            message.clone(),
            vec![("errorMessage", message)],
        )))
    }
}
