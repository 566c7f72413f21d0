//! Operators: arithmetic with Spark's result types and ANSI checks, comparisons, logic,
//! null tests, LIKE/RLIKE, IN and bitwise operators.

use arrow::datatypes::DataType;
use datafusion::common::ScalarValue;
use datafusion::logical_expr::{
    Expr, ExprSchemable, Operator, binary_expr, cast, expr::Like, try_cast,
};

use super::decimal;
use super::udf::{ArithOp, CheckedArithmetic, DoubleDivide, IntegralDivide};
use super::{FunctionInput, Naming, RegistryBuilder};
use crate::error::{PlanError, PlanResult, SparkError};

pub fn register(b: &mut RegistryBuilder) {
    b.scalar_named(&["+"], Naming::Custom(plus_minus_name("+")), |f| {
        if f.args.len() == 1 {
            return one(f);
        }
        arithmetic(f, ArithOp::Add, Operator::Plus)
    });
    b.scalar_named(&["-"], Naming::Custom(plus_minus_name("-")), |f| {
        if f.args.len() == 1 {
            return Ok(Expr::Negative(Box::new(one(f)?)));
        }
        arithmetic(f, ArithOp::Subtract, Operator::Minus)
    });
    b.scalar_named(&["*"], Naming::Infix("*"), |f| {
        if let Some(scaled) = interval_scale(&f, false)? {
            return Ok(scaled);
        }
        arithmetic(f, ArithOp::Multiply, Operator::Multiply)
    });
    b.scalar_named(&["/"], Naming::Infix("/"), |f| {
        if let Some(scaled) = interval_scale(&f, true)? {
            return Ok(scaled);
        }
        divide(f)
    });
    b.scalar_named(&["%"], Naming::Infix("%"), remainder);
    b.scalar(&["try_divide"], |f| divide_with(f, false));
    b.scalar(&["try_add"], |f| {
        try_arithmetic(f, ArithOp::Add, Operator::Plus)
    });
    b.scalar(&["try_subtract"], |f| {
        try_arithmetic(f, ArithOp::Subtract, Operator::Minus)
    });
    b.scalar(&["try_multiply"], |f| {
        try_arithmetic(f, ArithOp::Multiply, Operator::Multiply)
    });
    b.scalar(&["try_mod"], |f| {
        let zero = f
            .args
            .get(1)
            .cloned()
            .map(|d| d.eq(datafusion::logical_expr::lit(0)));
        let value = remainder_with(f, false)?;
        Ok(match zero {
            Some(z) => super::null_when(z, value),
            None => value,
        })
    });
    b.scalar_named(&["mod"], Naming::Call, remainder);
    b.scalar_named(&["div"], Naming::Infix("div"), |f| {
        let ansi = f.config.ansi;
        let (l, r) = two(f)?;
        Ok(
            IntegralDivide::udf(ansi)
                .call(vec![cast(l, DataType::Int64), cast(r, DataType::Int64)]),
        )
    });
    b.scalar(&["negative"], |f| Ok(Expr::Negative(Box::new(one(f)?))));
    b.scalar_named(&["positive"], Naming::Prefix("+"), one);

    b.scalar_named(&["==", "="], Naming::Infix("="), |f| {
        binary(f, Operator::Eq)
    });
    b.scalar_named(
        &["!=", "<>"],
        Naming::Custom(|_, a, _| format!("(NOT ({}))", a.join(" = "))),
        |f| Ok(Expr::Not(Box::new(binary(f, Operator::Eq)?))),
    );
    b.scalar_named(&["<"], Naming::Infix("<"), |f| binary(f, Operator::Lt));
    b.scalar_named(&["<="], Naming::Infix("<="), |f| binary(f, Operator::LtEq));
    b.scalar_named(&[">"], Naming::Infix(">"), |f| binary(f, Operator::Gt));
    b.scalar_named(&[">="], Naming::Infix(">="), |f| binary(f, Operator::GtEq));
    b.scalar_named(&["<=>"], Naming::Infix("<=>"), |f| {
        binary(f, Operator::IsNotDistinctFrom)
    });
    b.scalar_named(&["and"], Naming::Infix("AND"), |f| binary(f, Operator::And));
    b.scalar_named(&["or"], Naming::Infix("OR"), |f| binary(f, Operator::Or));
    b.scalar_named(&["not", "!"], Naming::Prefix("NOT"), |f| {
        Ok(Expr::Not(Box::new(one(f)?)))
    });
    b.scalar_named(
        &["isnull"],
        Naming::Custom(|_, a, _| format!("({} IS NULL)", a.join(", "))),
        |f| Ok(Expr::IsNull(Box::new(one(f)?))),
    );
    b.scalar_named(
        &["isnotnull"],
        Naming::Custom(|_, a, _| format!("({} IS NOT NULL)", a.join(", "))),
        |f| Ok(Expr::IsNotNull(Box::new(one(f)?))),
    );
    b.scalar_named(
        &["like"],
        Naming::Custom(|_, a, _| like_name("LIKE", a)),
        |f| like(f, false),
    );
    b.scalar_named(
        &["ilike"],
        // (Spark names `s ILIKE p [ESCAPE e]` as the call `ilike(s, p)`.)
        Naming::Custom(|_, a, _| format!("ilike({})", a[..a.len().min(2)].join(", "))),
        |f| like(f, true),
    );
    b.scalar_named(
        &["rlike", "regexp", "regexp_like"],
        // Named as written, in upper case (`REGEXP_LIKE(s, r)`).
        Naming::Custom(|w, a, _| format!("{}({})", w.to_ascii_uppercase(), a.join(", "))),
        rlike,
    );
    b.scalar_named(&["in"], Naming::Custom(in_name), |mut f| {
        if f.args.is_empty() {
            return Err(PlanError::InvalidPlan("IN without a value".into()));
        }
        super::comparison::check_in_types(&f.types, f.shown())?;
        let time_zone = f.config.time_zone.clone();
        super::comparison::dates_as_timestamps(&mut f.args, &mut f.types, &time_zone);
        let list = f.args.split_off(1);
        let value = f
            .args
            .pop()
            .ok_or_else(|| PlanError::InvalidPlan("IN".into()))?;
        Ok(value.in_list(list, false))
    });
    b.scalar_named(&["&"], Naming::Infix("&"), |f| {
        binary(f, Operator::BitwiseAnd)
    });
    b.scalar_named(&["|"], Naming::Infix("|"), |f| {
        binary(f, Operator::BitwiseOr)
    });
    b.scalar_named(&["^"], Naming::Infix("^"), |f| {
        binary(f, Operator::BitwiseXor)
    });
    b.scalar_named(&["<<", "shiftleft"], Naming::Call, |f| {
        binary(f, Operator::BitwiseShiftLeft)
    });
    b.scalar_named(&[">>", "shiftright"], Naming::Call, |f| {
        binary(f, Operator::BitwiseShiftRight)
    });
    b.scalar_named(
        &["~", "bitwise_not"],
        Naming::Custom(|_, a, _| format!("~{}", a.join(""))),
        |f| {
            let udf = super::sp_udf("bitwise_not")?;
            // (An untyped NULL is an INT, as Spark types it.)
            let null = f.types.first() == Some(&DataType::Null);
            let x = one(f)?;
            let x = if null { cast(x, DataType::Int32) } else { x };
            Ok(udf.call(vec![x]))
        },
    );
}

fn plus_minus_name(op: &'static str) -> fn(&str, &[String], bool) -> String {
    match op {
        "+" => |_, a, _| {
            if a.len() == 1 {
                format!("(+ {})", a[0])
            } else {
                format!("({})", a.join(" + "))
            }
        },
        _ => |_, a, _| {
            if a.len() == 1 {
                format!("(- {})", a[0])
            } else {
                format!("({})", a.join(" - "))
            }
        },
    }
}

fn like_name(op: &str, a: &[String]) -> String {
    match a {
        [x, p] => format!("{x} {op} {p}"),
        [x, p, e] => format!("{x} {op} {p} ESCAPE '{e}'"),
        _ => format!("{op}({})", a.join(", ")),
    }
}

fn in_name(_: &str, a: &[String], _: bool) -> String {
    match a.split_first() {
        Some((v, list)) => format!("({v} IN ({}))", list.join(", ")),
        None => "(IN ())".into(),
    }
}

pub(crate) fn one(mut f: FunctionInput) -> PlanResult<Expr> {
    f.arity(1, 1)?;
    f.args
        .pop()
        .ok_or_else(|| PlanError::InvalidPlan("missing argument".into()))
}

pub(crate) fn two(mut f: FunctionInput) -> PlanResult<(Expr, Expr)> {
    f.arity(2, 2)?;
    let r = f.args.pop();
    let l = f.args.pop();
    match (l, r) {
        (Some(l), Some(r)) => Ok((l, r)),
        _ => Err(PlanError::InvalidPlan("missing argument".into())),
    }
}

pub(super) fn binary(mut f: FunctionInput, op: Operator) -> PlanResult<Expr> {
    if matches!(
        op,
        Operator::Eq
            | Operator::Lt
            | Operator::LtEq
            | Operator::Gt
            | Operator::GtEq
            | Operator::IsNotDistinctFrom
    ) {
        if let [a, b] = f.types.as_slice() {
            super::comparison::check_comparable(a, b, f.name, f.shown())?;
        }
        // Outside ANSI mode a boolean equals a number as that number's type (Spark's
        // BooleanEquality: `true = 1`); other comparisons of the two are refused.
        let equality = matches!(op, Operator::Eq | Operator::IsNotDistinctFrom);
        if !f.config.ansi && equality {
            super::comparison::booleans_as_numbers(&mut f.args, &mut f.types);
        } else if let [a, b] = f.types.as_slice()
            && ((*a == DataType::Boolean && b.is_numeric())
                || (a.is_numeric() && *b == DataType::Boolean))
        {
            return Err(super::comparison::binary_op_diff_types(f.shown(), a, b));
        }
        let time_zone = f.config.time_zone.clone();
        super::comparison::dates_as_timestamps(&mut f.args, &mut f.types, &time_zone);
    }
    // Spatial values have no order and no equality in Spark.
    if let Some(t) = f
        .types
        .iter()
        .find(|t| crate::types::spatial_of(t).is_some())
    {
        return Err(crate::error::SparkError::analysis(
            "DATATYPE_MISMATCH.INVALID_ORDERING_TYPE",
            "42K09",
            format!(
                "Cannot resolve \"{}\" due to data type mismatch: The `{}` does not support ordering on type \"{}\".",
                f.name,
                f.name,
                crate::types::sql_name(t)
            ),
        )
        .into());
    }
    let (l, r) = two(f)?;
    Ok(binary_expr(l, op, r))
}

/// `str RLIKE regex` with a Java pattern: DataFusion's `~` takes a constant pattern that has
/// a Rust form meaning the same for every text; any other is Ember's (translated per row).
fn rlike(f: FunctionInput) -> PlanResult<Expr> {
    let function = f.name.to_lowercase();
    let (l, r) = two(f)?;
    if let Expr::Literal(
        ScalarValue::Utf8(Some(p))
        | ScalarValue::LargeUtf8(Some(p))
        | ScalarValue::Utf8View(Some(p)),
        _,
    ) = &r
        && let Some(rust) = super::java_regex::plain_rust(p)
    {
        return Ok(binary_expr(
            l,
            Operator::RegexMatch,
            datafusion::logical_expr::lit(rust),
        ));
    }
    let kind = super::native::Native::RegexpLike { function };
    Ok(super::native::NativeUdf::udf(kind).call(vec![l, r]))
}

fn like(mut f: FunctionInput, case_insensitive: bool) -> PlanResult<Expr> {
    f.arity(2, 3)?;
    let escape = match f.args.get(2) {
        // (Only text: `like(s, p, 1)` is refused as Spark refuses it.)
        Some(Expr::Literal(v, _)) => {
            let text = match v {
                ScalarValue::Utf8(Some(s))
                | ScalarValue::LargeUtf8(Some(s))
                | ScalarValue::Utf8View(Some(s)) => Some(s.clone()),
                _ => None,
            };
            let mut chars = text.as_deref().unwrap_or_default().chars();
            match (chars.next(), chars.next()) {
                (Some(c), None) => Some(c),
                _ => {
                    return Err(SparkError::analysis(
                        "INVALID_ESCAPE_CHAR",
                        "42604",
                        format!(
                            "`EscapeChar` should be a string literal of length one, but got \"{}\".",
                            text.unwrap_or_else(|| v.to_string())
                        ),
                    )
                    .into());
                }
            }
        }
        Some(_) => return Err(PlanError::Unsupported("non-literal LIKE escape".into())),
        None => None,
    };
    f.args.truncate(2);
    let (l, mut r) = two(f)?;
    let mut escape = escape;
    // DataFusion's LIKE escapes with a backslash only: a literal pattern with another escape
    // character is rewritten to the backslash form, with Spark's checks of where it may stand.
    if let Some(c) = escape.filter(|c| *c != '\\') {
        match &r {
            Expr::Literal(ScalarValue::Utf8(Some(p)), _) => {
                r = datafusion::logical_expr::lit(backslash_pattern(p, c)?);
                escape = None;
            }
            Expr::Literal(v, _) if v.is_null() => escape = None,
            _ => {
                // A computed pattern: rewritten row by row.
                let kind = super::native::Native::LikeEscape { escape: c };
                r = super::native::NativeUdf::udf(kind).call(vec![r]);
                escape = None;
            }
        }
    }
    Ok(Expr::Like(Like::new(
        false,
        Box::new(l),
        Box::new(r),
        escape,
        case_insensitive,
    )))
}

/// A LIKE pattern with escape character `escape` in the form that escapes with a backslash.
/// As Spark: the escape character may only precede `_`, `%` or itself, and not end the pattern.
pub(crate) fn backslash_pattern(pattern: &str, escape: char) -> Result<String, SparkError> {
    let invalid = |sub: &str, reason: String| -> SparkError {
        SparkError::new(
            crate::error::ErrorKind::Analysis,
            &format!("INVALID_FORMAT.{sub}"),
            "42601",
            format!("The format is invalid: '{pattern}'. {reason}"),
            vec![("format", format!("'{pattern}'"))],
        )
    };
    let mut out = String::with_capacity(pattern.len() + 2);
    let mut chars = pattern.chars();
    while let Some(ch) = chars.next() {
        if ch == escape {
            match chars.next() {
                Some(n @ ('_' | '%')) => {
                    out.push('\\');
                    out.push(n);
                }
                Some(n) if n == escape => out.push(n),
                Some(n) => {
                    return Err(invalid(
                        "ESC_IN_THE_MIDDLE",
                        format!("The escape character is not allowed to precede '{n}'."),
                    ));
                }
                None => {
                    return Err(invalid(
                        "ESC_AT_THE_END",
                        "The escape character is not allowed to end with.".into(),
                    ));
                }
            }
        } else if ch == '\\' {
            out.push_str("\\\\");
        } else {
            out.push(ch);
        }
    }
    Ok(out)
}

pub(crate) fn is_integral(t: &DataType) -> bool {
    matches!(
        t,
        DataType::Int8 | DataType::Int16 | DataType::Int32 | DataType::Int64
    )
}

fn integral_rank(t: &DataType) -> u8 {
    match t {
        DataType::Int8 => 1,
        DataType::Int16 => 2,
        DataType::Int32 => 3,
        _ => 4,
    }
}

/// `+`, `-`, `*`: integer operands use the checked UDF with Spark's result type (the wider
/// operand type); others use DataFusion's operator with its coercion.
fn arithmetic(f: FunctionInput, op: ArithOp, operator: Operator) -> PlanResult<Expr> {
    if operator == Operator::Plus {
        date_plus_whole_days(&f)?;
    }
    if operator == Operator::Minus {
        datetime_minus_number(&f)?;
    }
    // date ± whole days is Spark's date_add/date_sub (whose INT of days wraps past its range).
    let whole = |t: Option<&DataType>| {
        matches!(t, Some(DataType::Int8 | DataType::Int16 | DataType::Int32))
    };
    let days_first = match (f.types.first(), f.types.get(1), operator) {
        (Some(DataType::Date32), t, Operator::Plus | Operator::Minus) if whole(t) => Some(false),
        (t, Some(DataType::Date32), Operator::Plus) if whole(t) => Some(true),
        _ => None,
    };
    if let Some(days_first) = days_first {
        let name = if operator == Operator::Plus {
            "date_add"
        } else {
            "date_sub"
        };
        let (mut args, mut types) = (f.args.clone(), f.types.clone());
        if days_first {
            args.reverse();
            types.reverse();
        }
        return match super::registry().get(name) {
            Some(def) => (def.build)(FunctionInput {
                name,
                args,
                types,
                ..f
            }),
            None => Err(crate::error::PlanError::Unsupported(name.to_string())),
        };
    }
    let ansi = f.config.ansi;
    let time_zone = f.config.time_zone.clone();
    let types = f.types.clone();
    let decimals = decimal_operands(&f);
    let (l, r) = two(f)?;
    if let Some((lt, rt)) = decimals {
        return Ok(decimal::decimal_arithmetic(operator, l, lt, r, rt, ansi));
    }
    // A date and an untyped NULL: Spark reads the NULL as an interval added (a TIMESTAMP) or
    // as a date subtracted (an INTERVAL DAY).
    match (types.first(), types.get(1), operator) {
        (Some(DataType::Date32), Some(DataType::Null), Operator::Plus)
        | (Some(DataType::Null), Some(DataType::Date32), Operator::Plus) => {
            let t = crate::types::timestamp_type(&time_zone);
            return Ok(cast(datafusion::prelude::lit(ScalarValue::Null), t));
        }
        (Some(DataType::Date32), Some(DataType::Null), Operator::Minus) => {
            return Ok(interval_day(datafusion::prelude::lit(ScalarValue::Int64(
                None,
            ))));
        }
        _ => {}
    }
    // Timestamps and intervals in the session time zone's local time, as Spark.
    if let (Some(lt), Some(rt)) = (types.first(), types.get(1))
        && let Some((op, swap)) =
            super::native::ZonedOp::of(lt, rt, operator == Operator::Minus, ansi)
    {
        let args = if swap { vec![r, l] } else { vec![l, r] };
        let kind = super::native::Native::Zoned { op, time_zone };
        return Ok(super::native::NativeUdf::udf(kind).call(args));
    }
    match (types.first(), types.get(1)) {
        (Some(lt), Some(rt)) if is_integral(lt) && is_integral(rt) => {
            let t = if integral_rank(lt) >= integral_rank(rt) {
                lt.clone()
            } else {
                rt.clone()
            };
            Ok(CheckedArithmetic::udf(op, ansi).call(vec![cast_if(l, lt, &t), cast_if(r, rt, &t)]))
        }
        (Some(lt), Some(rt)) if is_string(lt) && is_numeric(rt) => {
            Ok(binary_expr(cast(l, numeric_for_string(rt)), operator, r))
        }
        (Some(lt), Some(rt)) if is_numeric(lt) && is_string(rt) => {
            Ok(binary_expr(l, operator, cast(r, numeric_for_string(lt))))
        }
        // date - date: Spark's INTERVAL DAY between them.
        (Some(DataType::Date32), Some(DataType::Date32)) if operator == Operator::Minus => {
            let days = |e: Expr| cast(cast(e, DataType::Int32), DataType::Int64);
            let micros = (days(l) - days(r)) * datafusion::prelude::lit(86_400_000_000i64);
            Ok(interval_day(micros))
        }
        // date ± day-time interval: whole days keep a date, as `date_add` does.
        (Some(DataType::Date32), Some(DataType::Duration(_))) => {
            Ok(binary_expr(l, operator, day_interval(r)))
        }
        (Some(DataType::Duration(_)), Some(DataType::Date32)) => {
            Ok(binary_expr(day_interval(l), operator, r))
        }
        _ => Ok(binary_expr(l, operator, r)),
    }
}

/// Microseconds as Spark's INTERVAL DAY.
fn interval_day(micros: Expr) -> Expr {
    let day = crate::interval::IntervalFields::day_time(0, 0);
    let to = DataType::Duration(arrow::datatypes::TimeUnit::Microsecond);
    Expr::Cast(datafusion::logical_expr::expr::Cast::new_from_field(
        Box::new(micros),
        std::sync::Arc::new(day.cast_field(to, true)),
    ))
}

/// `date + x` (or `x + date`) is Spark's `date_add(date, x)`, of whole days: anything but an
/// INT, SMALLINT, TINYINT, NULL or interval is its DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE.
fn date_plus_whole_days(f: &FunctionInput) -> PlanResult<()> {
    let (date, days, t) = match (f.types.first(), f.types.get(1)) {
        (Some(DataType::Date32), Some(t)) => (0, 1, t),
        (Some(t), Some(DataType::Date32)) => (1, 0, t),
        _ => return Ok(()),
    };
    if !matches!(
        t,
        DataType::Timestamp(..)
            | DataType::Float16
            | DataType::Float32
            | DataType::Float64
            | DataType::Decimal128(..)
            | DataType::Decimal256(..)
            | DataType::Boolean
            | DataType::Date32
            | DataType::Int64
            | DataType::Utf8
            | DataType::LargeUtf8
            | DataType::Utf8View
            | DataType::Binary
            | DataType::LargeBinary
            | DataType::BinaryView
            | DataType::List(_)
            | DataType::LargeList(_)
            | DataType::Map(..)
            | DataType::Struct(_)
    ) {
        return Ok(());
    }
    let (date, days) = (f.arg_name(date), f.arg_name(days));
    Err(SparkError::analysis(
        "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
        "42K09",
        format!(
            "Cannot resolve \"date_add({date}, {days})\" due to data type mismatch: The second parameter requires the (\"INT\" or \"SMALLINT\" or \"TINYINT\") type, however \"{days}\" has the type \"{}\".",
            crate::types::sql_name(t)
        ),
    )
    .into())
}

/// `timestamp - n`, `n - date` and `n - timestamp` for a whole number `n`: Spark reads them as
/// `date_sub`, whose DATE and INT parameters they do not fit (UNEXPECTED_INPUT_TYPE).
fn datetime_minus_number(f: &FunctionInput) -> PlanResult<()> {
    let datetime = |t: &DataType| matches!(t, DataType::Date32 | DataType::Timestamp(..));
    let (wrong, t) = match (f.types.first(), f.types.get(1)) {
        (Some(l @ DataType::Timestamp(..)), Some(r)) if is_integral(r) => (0, l),
        (Some(l), Some(r)) if is_integral(l) && datetime(r) => (1, r),
        _ => return Ok(()),
    };
    let (first, second) = (f.arg_name(0), f.arg_name(1));
    let (position, wanted) = if wrong == 0 {
        ("first", "\"DATE\"")
    } else {
        ("second", "(\"INT\" or \"SMALLINT\" or \"TINYINT\")")
    };
    Err(SparkError::analysis(
        "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
        "42K09",
        format!(
            "Cannot resolve \"date_sub({first}, {second})\" due to data type mismatch: The {position} parameter requires the {wanted} type, however \"{}\" has the type \"{}\".",
            f.arg_name(wrong),
            crate::types::sql_name(t)
        ),
    )
    .into())
}

/// A day-time interval as DataFusion's month-day-nano interval, for date arithmetic.
fn day_interval(e: Expr) -> Expr {
    cast(
        e,
        DataType::Interval(arrow::datatypes::IntervalUnit::MonthDayNano),
    )
}

fn is_string(t: &DataType) -> bool {
    matches!(t, DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View)
}

fn is_numeric(t: &DataType) -> bool {
    t.is_numeric()
}

fn numeric_for_string(other: &DataType) -> DataType {
    if is_integral(other) {
        DataType::Int64
    } else {
        DataType::Float64
    }
}

fn cast_if(e: Expr, from: &DataType, to: &DataType) -> Expr {
    if from == to { e } else { cast(e, to.clone()) }
}

/// `/`: decimals divide as decimals; everything else as double.
/// An ANSI interval times (or divided by) a number, either side for `*`: Spark's default
/// interval type of the kind (DAY TO SECOND, YEAR TO MONTH), see `native::interval_scale`.
fn interval_scale(f: &FunctionInput, divide: bool) -> PlanResult<Option<Expr>> {
    let is_interval = |t: &DataType| {
        matches!(
            t,
            DataType::Duration(_) | DataType::Interval(arrow::datatypes::IntervalUnit::YearMonth)
        )
    };
    let (interval, number) = match (f.args.as_slice(), f.types.as_slice()) {
        ([i, n], [it, nt]) if is_interval(it) && nt.is_numeric() => (i, n),
        ([n, i], [nt, it]) if !divide && is_interval(it) && nt.is_numeric() => (i, n),
        _ => return Ok(None),
    };
    Ok(Some(
        super::native::NativeUdf::udf(super::native::Native::IntervalScale { divide })
            .call(vec![interval.clone(), number.clone()]),
    ))
}

fn divide(f: FunctionInput) -> PlanResult<Expr> {
    let ansi = f.config.ansi;
    divide_with(f, ansi)
}

/// `try_add`/`try_subtract`/`try_multiply`: NULL instead of an overflow. Integers are
/// computed exactly (as 38-digit decimals) and narrowed back; other types as without ANSI.
fn try_arithmetic(f: FunctionInput, op: ArithOp, operator: Operator) -> PlanResult<Expr> {
    f.arity(2, 2)?;
    match (f.types.first(), f.types.get(1)) {
        (Some(lt), Some(rt)) if is_integral(lt) && is_integral(rt) => {
            let t = if integral_rank(lt) >= integral_rank(rt) {
                lt.clone()
            } else {
                rt.clone()
            };
            let (l, r) = two(f)?;
            let wide = DataType::Decimal128(38, 0);
            let exact = binary_expr(cast(l, wide.clone()), operator, cast(r, wide));
            Ok(try_cast(exact, t))
        }
        _ => {
            let config = crate::resolver::PlannerConfig {
                ansi: false,
                ..f.config.clone()
            };
            arithmetic(
                FunctionInput {
                    config: &config,
                    ..f
                },
                op,
                operator,
            )
        }
    }
}

/// `/`, raising errors under ANSI or answering NULL (`try_divide`).
fn divide_with(f: FunctionInput, ansi: bool) -> PlanResult<Expr> {
    let decimals = decimal_operands(&f);
    let (l, r) = two(f)?;
    match decimals {
        Some((lt, rt)) => Ok(decimal::decimal_arithmetic(
            Operator::Divide,
            l,
            lt,
            r,
            rt,
            ansi,
        )),
        None => Ok(DoubleDivide::udf(ansi)
            .call(vec![cast(l, DataType::Float64), cast(r, DataType::Float64)])),
    }
}

fn remainder(f: FunctionInput) -> PlanResult<Expr> {
    let ansi = f.config.ansi;
    remainder_with(f, ansi)
}

fn remainder_with(f: FunctionInput, ansi: bool) -> PlanResult<Expr> {
    let decimals = decimal_operands(&f);
    let (l, r) = two(f)?;
    let value = match decimals {
        Some((lt, rt)) => decimal::decimal_arithmetic(Operator::Modulo, l, lt, r.clone(), rt, ansi),
        None => binary_expr(l, Operator::Modulo, r.clone()),
    };
    Ok(if ansi {
        remainder_by_zero_check(r, value)
    } else {
        value
    })
}

/// `value`, failing with REMAINDER_BY_ZERO where the divisor `r` is zero (ANSI).
pub(super) fn remainder_by_zero_check(r: Expr, value: Expr) -> Expr {
    use super::native::{Failure, fail_when};
    let zero = r.clone().eq(datafusion::logical_expr::lit(0i32));
    fail_when(zero, Failure::RemainderByZero, vec![r], value)
}

/// Both operands as Spark decimals, when one is a decimal and the other exact.
fn decimal_operands(f: &FunctionInput) -> Option<((u8, i8), (u8, i8))> {
    let (lt, rt) = (f.types.first()?, f.types.get(1)?);
    let is_decimal = |t: &DataType| matches!(t, DataType::Decimal128(..));
    if !(is_decimal(lt) || is_decimal(rt)) {
        return None;
    }
    Some((
        decimal::operand_decimal(lt, f.args.first()?)?,
        decimal::operand_decimal(rt, f.args.get(1)?)?,
    ))
}

#[allow(dead_code)]
fn type_of(e: &Expr, schema: &datafusion::common::DFSchema) -> PlanResult<DataType> {
    Ok(e.get_type(schema)?)
}
