//! Spark's common types (its wider types under ANSI rules), made explicit: values of a
//! function's arguments that must share a type (`array`, `coalesce`, `greatest`, `if`, `map`'s
//! keys and values, CASE's branches, the columns of a UNION) are cast to it, so that a plan's
//! schema is the type its rows have. Integers widen to the wider integer, decimals to a decimal
//! holding both, with floating point numbers to DOUBLE; dates and timestamps meet as timestamps
//! (a zoned TIMESTAMP over a TIMESTAMP_NTZ); strings take the other side's type (BIGINT for
//! integers, DOUBLE for fractions). The values are cast by Spark's cast rules.

use arrow::datatypes::DataType;
use datafusion::common::DFSchema;
use datafusion::logical_expr::{Expr, ExprSchemable, LogicalPlan, LogicalPlanBuilder};

use super::Resolver;
use crate::error::PlanResult;
use crate::functions::decimal::type_decimal;

/// Spark's common type of `a` and `b` (its `findWiderTypeForTwo` under ANSI rules), for the
/// types Ember knows; `None`: leave them to DataFusion.
fn spark_wider(a: &DataType, b: &DataType) -> Option<DataType> {
    spark_wider_in(a, b, true)
}

/// [`spark_wider`] under ANSI rules (`ansi`) or outside them, where a FLOAT meeting an integer
/// stays a FLOAT (Spark's numeric precedence; under ANSI rules it is a DOUBLE).
fn spark_wider_in(a: &DataType, b: &DataType, ansi: bool) -> Option<DataType> {
    use DataType::*;
    let is_string = crate::types::is_text;
    let is_fractional = |t: &DataType| matches!(t, Float32 | Float64 | Decimal128(..));
    Some(match (a, b) {
        (a, b) if a == b => a.clone(),
        (Null, t) | (t, Null) => t.clone(),
        (a, b) if integral_rank(a).is_some() && integral_rank(b).is_some() => {
            if integral_rank(a) >= integral_rank(b) {
                a.clone()
            } else {
                b.clone()
            }
        }
        (Float32, t) | (t, Float32) if !ansi && integral_rank(t).is_some() => Float32,
        (Float32 | Float64, t) | (t, Float32 | Float64)
            if integral_rank(t).is_some() || is_fractional(t) =>
        {
            Float64
        }
        // Strings take the other side's type (ANSI string promotion).
        (s, t) | (t, s) if is_string(s) && integral_rank(t).is_some() => Int64,
        (s, t) | (t, s) if is_string(s) && is_fractional(t) => Float64,
        (s, Boolean) | (Boolean, s) if is_string(s) => Boolean,
        (s, t @ (Date32 | Timestamp(..))) | (t @ (Date32 | Timestamp(..)), s) if is_string(s) => {
            t.clone()
        }
        // (Under ANSI rules only: outside, text and bytes have no common type, see
        // [`text_meets_bytes`].)
        (s, Binary) | (Binary, s) if is_string(s) => Binary,
        (Decimal128(..), _) | (_, Decimal128(..)) => {
            let (p1, s1) = type_decimal(a)?;
            let (p2, s2) = type_decimal(b)?;
            // Spark's `boundedPreferIntegralDigits`: beyond 38 digits the fraction gives way
            // (DECIMAL(38, 37) and an INT meet as DECIMAL(38, 28), not DECIMAL(38, 37), which
            // would not hold the integer's ten digits).
            let scale = i16::from(s1.max(s2));
            let range = (i16::from(p1) - i16::from(s1)).max(i16::from(p2) - i16::from(s2));
            let excess = (range + scale - 38).max(0);
            let precision = (range + scale).min(38);
            let scale = (scale - excess).max(0);
            Decimal128(u8::try_from(precision).ok()?, i8::try_from(scale).ok()?)
        }
        // Dates and timestamps meet as timestamps; a zoned one wins over a local one.
        (Date32, t @ Timestamp(..)) | (t @ Timestamp(..), Date32) => t.clone(),
        (Timestamp(_, None), t @ Timestamp(_, Some(_)))
        | (t @ Timestamp(_, Some(_)), Timestamp(_, None)) => t.clone(),
        (List(x), List(y)) => List(std::sync::Arc::new(arrow::datatypes::Field::new(
            x.name(),
            spark_wider_in(x.data_type(), y.data_type(), ansi)?,
            x.is_nullable() || y.is_nullable(),
        ))),
        // (A value NULL on either side is nullable in the common type.)
        (Map(x, sorted), Map(y, _)) => {
            let (Struct(xs), Struct(ys)) = (x.data_type(), y.data_type()) else {
                return None;
            };
            let ([xk, xv], [yk, yv]) = (xs.iter().as_slice(), ys.iter().as_slice()) else {
                return None;
            };
            let key = xk.as_ref().clone().with_data_type(spark_wider_in(
                xk.data_type(),
                yk.data_type(),
                ansi,
            )?);
            let value = xv
                .as_ref()
                .clone()
                .with_data_type(spark_wider_in(xv.data_type(), yv.data_type(), ansi)?)
                .with_nullable(xv.is_nullable() || yv.is_nullable());
            let entries = x
                .as_ref()
                .clone()
                .with_data_type(Struct(vec![key, value].into()));
            Map(std::sync::Arc::new(entries), *sorted)
        }
        _ => return None,
    })
}

fn integral_rank(t: &DataType) -> Option<u8> {
    match t {
        DataType::Int8 => Some(1),
        DataType::Int16 => Some(2),
        DataType::Int32 => Some(3),
        DataType::Int64 => Some(4),
        _ => None,
    }
}

/// The type values of `types` share under Spark's rules, when some of them must be cast to it
/// (`None`: all share one type already, or Spark's rules here do not cover them).
pub(crate) fn common_type(types: &[DataType]) -> Option<DataType> {
    common_type_in(types, true)
}

/// [`common_type`] under ANSI rules (`ansi`) or outside them (see [`spark_wider_in`]).
pub(crate) fn common_type_in(types: &[DataType], ansi: bool) -> Option<DataType> {
    let mut out: Option<DataType> = None;
    for t in types {
        out = Some(match &out {
            None => t.clone(),
            Some(o) => spark_wider_in(o, t, ansi)?,
        });
    }
    out.filter(|t| types.iter().any(|x| x != t && x != &DataType::Null))
}

/// Outside ANSI mode, Spark's string promotion: text meeting numbers, dates or timestamps
/// makes them all text (`coalesce('a', 1)` is a STRING); `None` where it does not apply.
fn string_promotion(types: &[DataType]) -> Option<DataType> {
    let is_string = crate::types::is_text;
    let promoted =
        |t: &DataType| t.is_numeric() || matches!(t, DataType::Date32 | DataType::Timestamp(..));
    let strings = types.iter().any(is_string);
    let others = types
        .iter()
        .filter(|t| !is_string(t) && **t != DataType::Null);
    let mut others = others.peekable();
    if !strings || others.peek().is_none() {
        return None;
    }
    others.all(promoted).then_some(DataType::Utf8)
}

/// The type Spark casts text to where it meets a value of type `other` in the binary
/// comparison or arithmetic `function` (its PromoteStrings rules; `None`: no such operator, or
/// Spark does not cast the text there). Comparisons: the other side's type, but under ANSI
/// rules BIGINT for integers, and DOUBLE for fractions (a DECIMAL side too, see
/// [`text_operands`]); outside ANSI mode decimals meet text as DOUBLE. Arithmetic with
/// numbers: BIGINT for integers and DOUBLE for fractions under ANSI rules, DOUBLE outside
/// (also for `div`, which then refuses it).
fn text_operand_target(function: &str, other: &DataType, ansi: bool) -> Option<DataType> {
    use DataType::*;
    let integral = integral_rank(other).is_some();
    let decimal = matches!(other, Decimal128(..) | Decimal256(..));
    match function {
        "=" | "==" | "!=" | "<>" | "<" | "<=" | ">" | ">=" | "<=>" | "equal_null" => {
            Some(match other {
                _ if integral && ansi => Int64,
                Float32 | Float64 if ansi => Float64,
                _ if decimal => Float64,
                _ if integral => other.clone(),
                Float32 | Float64 | Boolean | Date32 | Timestamp(..) => other.clone(),
                _ => return None,
            })
        }
        "+" | "-" | "*" | "/" | "%" | "mod" | "pmod" if other.is_numeric() => {
            Some(if integral && ansi { Int64 } else { Float64 })
        }
        "div" if integral && ansi => Some(Int64),
        // (Outside ANSI mode text meeting an integer is a DOUBLE, which `div` refuses:
        // BINARY_OP_DIFF_TYPES.)
        "div" if integral => Some(Float64),
        _ => None,
    }
}

/// The DOUBLE both operands of a binary comparison or arithmetic become where a FLOAT meets a
/// DECIMAL (Spark's DecimalPrecision) or, under ANSI rules, an integer; the type two untyped
/// NULLs become in arithmetic or a bitwise operation (`None`: not so).
fn float_operands(function: &str, types: &[DataType], ansi: bool) -> Option<DataType> {
    use DataType::*;
    let [a, b] = types else {
        return None;
    };
    if !matches!(
        function,
        "=" | "=="
            | "!="
            | "<>"
            | "<"
            | "<="
            | ">"
            | ">="
            | "<=>"
            | "equal_null"
            | "+"
            | "-"
            | "*"
            | "%"
            | "mod"
            | "pmod"
            | "try_add"
            | "try_subtract"
            | "try_multiply"
            | "try_mod"
            | "&"
            | "|"
            | "^"
    ) {
        return None;
    }
    // (Two untyped NULLs: DOUBLEs in arithmetic, INTs in bitwise operations, as Spark.)
    if (a, b) == (&Null, &Null) {
        return match function {
            "+" | "-" | "*" | "%" | "mod" | "pmod" | "try_add" | "try_subtract"
            | "try_multiply" | "try_mod" => Some(Float64),
            "&" | "|" | "^" => Some(Int32),
            _ => None,
        };
    }
    let other = match (a, b) {
        (Float32, o) | (o, Float32) => o,
        _ => return None,
    };
    let meets = matches!(other, Decimal128(..) | Decimal256(..))
        || (ansi && integral_rank(other).is_some());
    meets.then_some(Float64)
}

/// Which operand of a binary comparison or arithmetic is text meeting another type, and the
/// types Spark casts each operand to (see [`text_operand_target`]; a DECIMAL meeting text
/// becomes a DOUBLE with it).
fn text_operands(function: &str, types: &[DataType], ansi: bool) -> Option<[DataType; 2]> {
    use crate::types::is_text;
    let [a, b] = types else {
        return None;
    };
    let (other, flipped) = match (is_text(a), is_text(b)) {
        (true, false) => (b, false),
        (false, true) => (a, true),
        _ => return None,
    };
    let to = text_operand_target(function, other, ansi)?;
    let other_to = if to == DataType::Float64 && other.is_numeric() {
        DataType::Float64
    } else {
        other.clone()
    };
    Some(if flipped {
        [other_to, to]
    } else {
        [to, other_to]
    })
}

/// Whether text and bytes meet among `types`: outside ANSI mode Spark finds no common type
/// for them (DATA_DIFF_TYPES, INCOMPATIBLE_COLUMN_TYPE), under ANSI rules it is BINARY.
fn text_meets_bytes(types: &[&DataType]) -> bool {
    types.iter().any(|t| crate::types::is_text(t))
        && types.iter().any(|t| crate::types::is_binary(t))
}

/// The argument positions of a function whose values must share one type.
pub(super) fn same_type_groups(function: &str, arity: usize) -> Vec<Vec<usize>> {
    match function {
        "array" | "coalesce" | "nvl" | "ifnull" | "greatest" | "least" => {
            vec![(0..arity).collect()]
        }
        "if" | "iff" | "nvl2" if arity == 3 => vec![vec![1, 2]],
        "map" => vec![
            (0..arity).step_by(2).collect(),
            (1..arity).step_by(2).collect(),
        ],
        _ => vec![],
    }
}

impl Resolver<'_> {
    /// The arguments of `function` cast to the Spark common type of each group of them that
    /// must share one (see [`same_type_groups`]).
    pub(super) fn coerce_arguments(
        &self,
        function: &str,
        shown: &str,
        args: &mut [Expr],
        types: &mut [DataType],
        schema: &DFSchema,
    ) -> PlanResult<()> {
        for (index, group) in same_type_groups(function, args.len())
            .into_iter()
            .enumerate()
        {
            let mut exprs: Vec<Expr> = group.iter().map(|&i| args[i].clone()).collect();
            let mut group_types: Vec<DataType> = group.iter().map(|&i| types[i].clone()).collect();
            check_same_type(function, index, shown, &group_types, self.config.ansi)?;
            self.coerce_together(&mut exprs, &mut group_types, schema)?;
            for ((i, e), t) in group.iter().zip(exprs).zip(group_types) {
                args[*i] = e;
                types[*i] = t;
            }
        }
        // A FLOAT meeting a DECIMAL, or under ANSI rules an integer, in a comparison or
        // arithmetic: both are DOUBLEs (`0.1F = 0.1` is false, `0.1F + 1` a DOUBLE). Text
        // meeting another type there is cast as Spark casts it (outside ANSI mode a value that
        // is no number is NULL: 'abc' = 3 is NULL). (The two never meet the same operands.)
        let ansi = self.config.ansi;
        let targets = float_operands(function, types, ansi)
            .map(|to| [to.clone(), to])
            .or_else(|| text_operands(function, types, ansi));
        if let Some(targets) = targets {
            for ((e, t), to) in args.iter_mut().zip(types.iter_mut()).zip(targets) {
                if *t != to {
                    let inner = std::mem::replace(
                        e,
                        Expr::Literal(datafusion::common::ScalarValue::Null, None),
                    );
                    *e = self.implicit_cast(inner, t, &to, schema)?;
                    *t = to;
                }
            }
        }
        Ok(())
    }

    /// `nullif(a, b)`, `nullifzero(a)` and `zeroifnull(a)` of text meeting another type, as
    /// Spark rewrites them: `If(a = b, NULL, a)` of `a`'s type with the comparison's operands
    /// cast as for `=` (see [`text_operands`]), and `coalesce(a, 0)` in the common type
    /// (BIGINT under ANSI rules, text outside). `None` for every other call (the builders).
    pub(super) fn text_null_functions(
        &self,
        function: &str,
        args: &[Expr],
        types: &[DataType],
        schema: &DFSchema,
    ) -> PlanResult<Option<Expr>> {
        use datafusion::common::ScalarValue;
        use datafusion::logical_expr::lit;
        let (a, b, t, u) = match (function, args, types) {
            ("nullif", [a, b], [t, u]) => (a, b.clone(), t, u.clone()),
            ("nullifzero" | "zeroifnull", [a], [t]) => (a, lit(0), t, DataType::Int32),
            _ => return Ok(None),
        };
        use crate::types::is_text;
        if !(is_text(t) || is_text(&u)) {
            return Ok(None);
        }
        if function == "zeroifnull" {
            let mut exprs = vec![a.clone(), b];
            let mut types = vec![t.clone(), u];
            self.coerce_together(&mut exprs, &mut types, schema)?;
            return Ok(Some(crate::functions::df_udf("coalesce")?.call(exprs)));
        }
        let Some([to_a, to_b]) = text_operands("=", &[t.clone(), u.clone()], self.config.ansi)
        else {
            return Ok(None);
        };
        let cast = |e: Expr, from: &DataType, to: &DataType| -> PlanResult<Expr> {
            if from == to {
                Ok(e)
            } else {
                self.implicit_cast(e, from, to, schema)
            }
        };
        let equal = cast(a.clone(), t, &to_a)?.eq(cast(b, &u, &to_b)?);
        Ok(Some(Expr::Case(datafusion::logical_expr::expr::Case::new(
            None,
            vec![(
                Box::new(equal),
                Box::new(Expr::Literal(ScalarValue::try_from(t)?, None)),
            )],
            Some(Box::new(a.clone())),
        ))))
    }

    /// The two sides of a UNION, INTERSECT or EXCEPT with their columns cast to the Spark
    /// common type of each pair where they differ.
    pub(super) fn coerce_set_operands(
        &self,
        operation: &str,
        left: LogicalPlan,
        right: LogicalPlan,
    ) -> PlanResult<(LogicalPlan, LogicalPlan)> {
        let mut targets = Vec::with_capacity(left.schema().fields().len());
        let mut intervals = Vec::with_capacity(left.schema().fields().len());
        for (i, (l, r)) in left
            .schema()
            .fields()
            .iter()
            .zip(right.schema().fields())
            .enumerate()
        {
            let (lt, rt) = (l.data_type(), r.data_type());
            let numeric = |t: &DataType| t.is_numeric();
            if (lt == &DataType::Boolean && numeric(rt))
                || (rt == &DataType::Boolean && numeric(lt))
                || (!self.config.ansi && text_meets_bytes(&[lt, rt]))
            {
                return Err(incompatible_column(operation, i, lt, rt).into());
            }
            targets.push(common_type_in(&[lt.clone(), rt.clone()], self.config.ansi));
            intervals.push(super::intervals::wider_interval([l.as_ref(), r.as_ref()]));
        }
        if targets.iter().all(Option::is_none) && intervals.iter().all(Option::is_none) {
            return Ok((left, right));
        }
        Ok((
            self.cast_columns(left, &targets, &intervals)?,
            self.cast_columns(right, &targets, &intervals)?,
        ))
    }

    fn cast_columns(
        &self,
        plan: LogicalPlan,
        targets: &[Option<DataType>],
        intervals: &[Option<crate::interval::IntervalFields>],
    ) -> PlanResult<LogicalPlan> {
        let schema = plan.schema().clone();
        let mut exprs = Vec::with_capacity(targets.len());
        for (((column, field), target), interval) in schema
            .columns()
            .into_iter()
            .zip(schema.fields())
            .zip(targets)
            .zip(intervals)
        {
            let name = column.name.clone();
            let e = Expr::Column(column);
            exprs.push(match (target, interval) {
                (Some(t), _) if field.data_type() != t && field.data_type() != &DataType::Null => {
                    self.implicit_cast(e, field.data_type(), t, &schema)?
                        .alias(name)
                }
                (_, Some(q)) => {
                    super::intervals::retype_interval(e, field.data_type(), *q).alias(name)
                }
                _ => e,
            });
        }
        Ok(LogicalPlanBuilder::from(plan).project(exprs)?.build()?)
    }

    /// `e` (of type `from`) cast to `to` as Spark's analyzer casts implicitly, nullable as
    /// Spark's cast is (text read as a number or a date may fail to NULL, even in ANSI
    /// mode).
    fn implicit_cast(
        &self,
        e: Expr,
        from: &DataType,
        to: &DataType,
        schema: &DFSchema,
    ) -> PlanResult<Expr> {
        let nullable = e.nullable(schema)?;
        let out = self.cast_to(e, to, crate::spec::CastMode::Default, schema)?;
        Ok(crate::functions::nullability::cast(
            out,
            from,
            nullable,
            self.legacy_casts(),
            schema,
        )?)
    }

    /// How the session's casts answer a value they cannot convert (ANSI mode or not).
    pub(super) fn legacy_casts(&self) -> crate::functions::nullability::CastNulls {
        use crate::functions::nullability::CastNulls;
        if self.config.ansi {
            CastNulls::Fails
        } else {
            CastNulls::Legacy
        }
    }

    /// `exprs` (of `types`) cast to their Spark common type where they differ.
    pub(super) fn coerce_together(
        &self,
        exprs: &mut [Expr],
        types: &mut [DataType],
        schema: &DFSchema,
    ) -> PlanResult<()> {
        let promoted = (!self.config.ansi)
            .then(|| string_promotion(types))
            .flatten();
        let Some(target) = promoted.or_else(|| common_type_in(types, self.config.ansi)) else {
            return Ok(());
        };
        for (e, t) in exprs.iter_mut().zip(types.iter_mut()) {
            if *t != target && *t != DataType::Null {
                let inner = std::mem::replace(
                    e,
                    Expr::Literal(datafusion::common::ScalarValue::Null, None),
                );
                *e = self.implicit_cast(inner, t, &target, schema)?;
                *t = target.clone();
            }
        }
        Ok(())
    }
}

/// Spark's DATA_DIFF_TYPES (CREATE_MAP_KEY/VALUE_DIFF_TYPES for `map`'s keys and values,
/// group 0 and 1) when values that must share a type have none: numbers, booleans, dates and
/// timestamps that do not widen to one another (`array(1, DATE'2024-01-01')`, `if(c, true,
/// 1)`), and, outside ANSI mode (`ansi` false), text and bytes. `shown` is how Spark shows the
/// call.
pub(super) fn check_same_type(
    function: &str,
    group: usize,
    shown: &str,
    types: &[DataType],
    ansi: bool,
) -> PlanResult<()> {
    let nested = |t: &DataType| {
        matches!(
            t,
            DataType::List(_) | DataType::Struct(_) | DataType::Map(..)
        )
    };
    let checked = |t: &DataType| {
        t.is_numeric()
            || nested(t)
            || matches!(
                t,
                DataType::Boolean | DataType::Date32 | DataType::Timestamp(..)
            )
    };
    // (Structs and maps of different fields widen by rules DataFusion applies.)
    let same_kind = |a: &DataType, b: &DataType| {
        nested(a) && std::mem::discriminant(a) == std::mem::discriminant(b)
    };
    let distinct: Vec<&DataType> =
        types
            .iter()
            .filter(|t| **t != DataType::Null)
            .fold(Vec::new(), |mut seen, t| {
                if !seen.contains(&t) {
                    seen.push(t);
                }
                seen
            });
    let clash = distinct.iter().enumerate().any(|(i, a)| {
        distinct[i + 1..]
            .iter()
            .any(|b| checked(a) && checked(b) && !same_kind(a, b) && spark_wider(a, b).is_none())
    });
    // `greatest` and `least` take no string promotion: text meets no other type.
    let text = crate::types::is_text;
    let text_clash = matches!(function, "greatest" | "least")
        && distinct.iter().any(|t| text(t))
        && distinct.iter().any(|t| !text(t));
    let bytes_clash = !ansi && text_meets_bytes(&distinct);
    if !clash && !text_clash && !bytes_clash {
        return Ok(());
    }
    let names: Vec<String> = distinct
        .iter()
        .map(|t| format!("\"{}\"", crate::types::sql_name(t)))
        .collect();
    let listed = format!("[{}]", names.join(", "));
    let (class, detail) = match (function, group) {
        ("map", 0) => (
            "DATATYPE_MISMATCH.CREATE_MAP_KEY_DIFF_TYPES",
            format!(
                "The given keys of function `map` should all be the same type, but they are {listed}."
            ),
        ),
        ("map", _) => (
            "DATATYPE_MISMATCH.CREATE_MAP_VALUE_DIFF_TYPES",
            format!(
                "The given values of function `map` should all be the same type, but they are {listed}."
            ),
        ),
        ("array" | "coalesce" | "nvl" | "ifnull", _) => (
            "DATATYPE_MISMATCH.DATA_DIFF_TYPES",
            format!(
                "Input to `{}` should all be the same type, but it's ({}).",
                if function == "array" {
                    "array"
                } else {
                    "coalesce"
                },
                names.join(" or ")
            ),
        ),
        (f, _) => (
            "DATATYPE_MISMATCH.DATA_DIFF_TYPES",
            format!(
                "Input to `{}` should all be the same type, but it's {listed}.",
                if f == "iff" { "if" } else { f }
            ),
        ),
    };
    Err(crate::error::SparkError::analysis(
        class,
        "42K09",
        format!("Cannot resolve \"{shown}\" due to data type mismatch: {detail}"),
    )
    .into())
}

/// A literal whose cast to `target` fails, kept from DataFusion's planning-time folding
/// (which raises the cast's error): Spark raises it only if a row takes the value
/// (`if(false, 'x', DATE'2024-01-01')` is a date).
pub(crate) fn deferred_if_failing(e: Expr, target: &DataType) -> Expr {
    let fails = match &e {
        Expr::Literal(v, _) if !v.is_null() => {
            let options = arrow::compute::CastOptions {
                safe: false,
                ..Default::default()
            };
            v.cast_to_with_options(target, &options).is_err()
        }
        _ => false,
    };
    if fails {
        use crate::functions::native::{Native, NativeUdf};
        NativeUdf::udf(Native::Deferred).call(vec![e])
    } else {
        e
    }
}

/// Spark's error for a set operation's columns of types it cannot widen to one.
fn incompatible_column(
    operation: &str,
    index: usize,
    left: &DataType,
    right: &DataType,
) -> crate::error::SparkError {
    let ordinal = crate::error::ordinal_number(index);
    let (l, r) = (crate::types::sql_name(left), crate::types::sql_name(right));
    crate::error::SparkError::analysis(
        "INCOMPATIBLE_COLUMN_TYPE",
        "42825",
        format!(
            "{operation} can only be performed on inputs with compatible column types. The \
             {ordinal} column of the second table is \"{r}\" type which is not compatible with \
             \"{l}\" at the same column of the first table. Consider casting the incompatible \
             column to a compatible type."
        ),
    )
}

/// Spark's DATA_DIFF_TYPES for `overlay` and `listagg`/`string_agg` given text and bytes
/// together (their values and the replacement or delimiter must be of one type).
pub(super) fn check_text_meets_bytes(
    function: &str,
    shown: &str,
    types: &[DataType],
) -> PlanResult<()> {
    if !matches!(function, "overlay" | "listagg" | "string_agg") {
        return Ok(());
    }
    let two: Vec<&DataType> = types.iter().take(2).collect();
    if two.len() < 2 || !text_meets_bytes(&two) {
        return Ok(());
    }
    let names: Vec<String> = two
        .iter()
        .map(|t| format!("\"{}\"", crate::types::sql_name(t)))
        .collect();
    Err(crate::error::SparkError::analysis(
        "DATATYPE_MISMATCH.DATA_DIFF_TYPES",
        "42K09",
        format!(
            "Cannot resolve \"{shown}\" due to data type mismatch: Input to `{function}` should all be the same type, but it's ({}).",
            names.join(" or ")
        ),
    )
    .into())
}

#[cfg(test)]
mod tests {
    use arrow::datatypes::{DataType, TimeUnit};

    use super::common_type;

    #[test]
    fn datetimes_meet_as_spark_says() {
        let ltz = DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into()));
        let ntz = DataType::Timestamp(TimeUnit::Microsecond, None);
        assert_eq!(
            common_type(&[DataType::Date32, ltz.clone()]),
            Some(ltz.clone())
        );
        assert_eq!(
            common_type(&[DataType::Date32, DataType::Null, ntz.clone()]),
            Some(ntz.clone())
        );
        assert_eq!(common_type(&[ntz.clone(), ltz.clone()]), Some(ltz.clone()));
        assert_eq!(
            common_type(&[DataType::Utf8, DataType::Date32]),
            Some(DataType::Date32)
        );
        // Same types are left alone, and types Spark cannot widen to DataFusion.
        assert_eq!(common_type(&[ltz.clone(), ltz]), None);
        assert_eq!(common_type(&[DataType::Boolean, DataType::Int32]), None);
        // Numbers, as Spark's UNION types them.
        assert_eq!(
            common_type(&[DataType::Int32, DataType::Int64]),
            Some(DataType::Int64)
        );
        assert_eq!(
            common_type(&[DataType::Int32, DataType::Float32]),
            Some(DataType::Float64)
        );
        assert_eq!(
            common_type(&[DataType::Utf8, DataType::Int32]),
            Some(DataType::Int64)
        );
        assert_eq!(
            common_type(&[DataType::Int16, DataType::Decimal128(5, 2)]),
            Some(DataType::Decimal128(7, 2))
        );
        assert_eq!(
            common_type(&[DataType::Decimal128(5, 2), DataType::Decimal128(20, 0)]),
            Some(DataType::Decimal128(22, 2))
        );
        assert_eq!(
            common_type(&[DataType::Int64, DataType::Decimal128(38, 10)]),
            Some(DataType::Decimal128(38, 10))
        );
        assert_eq!(
            common_type(&[DataType::Utf8, DataType::Decimal128(5, 2)]),
            Some(DataType::Float64)
        );
    }
}
