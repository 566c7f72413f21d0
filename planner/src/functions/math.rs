//! Math functions. Spark prints some of them with fixed upper-case names (`SQRT`, `POWER`).

use arrow::datatypes::DataType;
use datafusion::common::ScalarValue;
use datafusion::logical_expr::{Expr, cast, lit};

use super::native::strict_math::StrictMathOp;
use super::native::{Native, NativeUdf};
use super::operators::{one, two};
use super::{
    FunctionInput, Naming, RegistryBuilder, add_df, add_df_named, add_spark, add_spark_named,
};
use crate::error::PlanResult;

pub fn register(b: &mut RegistryBuilder) {
    // abs of a signed integer type's least value overflows (an error under ANSI).
    b.scalar(&["abs"], |f| {
        let ansi = f.config.ansi;
        let least = match f.types.first() {
            Some(DataType::Int8) => Some(ScalarValue::Int8(Some(i8::MIN))),
            Some(DataType::Int16) => Some(ScalarValue::Int16(Some(i16::MIN))),
            Some(DataType::Int32) => Some(ScalarValue::Int32(Some(i32::MIN))),
            Some(DataType::Int64) => Some(ScalarValue::Int64(Some(i64::MIN))),
            _ => None,
        };
        let x = one(f)?;
        let abs = super::sp_udf("abs")?.call(vec![x.clone()]);
        Ok(match least {
            Some(least) if ansi => super::native::fail_when(
                x.clone().eq(Expr::Literal(least, None)),
                super::native::Failure::ArithmeticOverflow,
                vec![x.clone()],
                abs,
            ),
            _ => abs,
        })
    });
    // sqrt of a negative number is NaN (DataFusion raises an error).
    b.scalar_named(&["sqrt"], Naming::Fixed("SQRT"), |f| {
        let x = cast(one(f)?, DataType::Float64);
        let sqrt = super::df_udf("sqrt")?.call(vec![x.clone()]);
        Ok(when(x.lt(lit(0.0f64)), lit(f64::NAN), sqrt))
    });
    strict_fn(b, &["exp"], Naming::Fixed("EXP"), StrictMathOp::Exp);
    log_fn(b, &["ln"], Naming::Call, "ln");
    log_fn(b, &["log10"], Naming::Fixed("LOG10"), "log10");
    // Spark's LOG2 is StrictMath.log(x) / StrictMath.log(2), NULL for x <= 0.
    b.scalar_named(&["log2"], Naming::Fixed("LOG2"), |f| -> PlanResult<Expr> {
        let x = cast(one(f)?, DataType::Float64);
        let log2 = NativeUdf::udf(Native::StrictMath {
            op: StrictMathOp::Log2,
        })
        .call(vec![x.clone()]);
        Ok(when(
            x.gt(lit(0.0f64)),
            log2,
            lit(ScalarValue::Float64(None)),
        ))
    });
    double_fn(b, &["cbrt"], Naming::Fixed("CBRT"), "cbrt");
    double_fn(b, &["sin"], Naming::Fixed("SIN"), "sin");
    double_fn(b, &["cos"], Naming::Fixed("COS"), "cos");
    double_fn(b, &["tan"], Naming::Fixed("TAN"), "tan");
    double_fn(b, &["asin"], Naming::Fixed("ASIN"), "asin");
    double_fn(b, &["acos"], Naming::Fixed("ACOS"), "acos");
    double_fn(b, &["atan"], Naming::Fixed("ATAN"), "atan");
    double_fn(b, &["sinh"], Naming::Fixed("SINH"), "sinh");
    strict_fn(b, &["cosh"], Naming::Fixed("COSH"), StrictMathOp::Cosh);
    double_fn(b, &["tanh"], Naming::Fixed("TANH"), "tanh");
    double_fn(b, &["degrees"], Naming::Fixed("DEGREES"), "degrees");
    double_fn(b, &["radians"], Naming::Fixed("RADIANS"), "radians");
    // Spark names sign(x) as written, signum(x) `SIGNUM(x)`.
    double_fn(
        b,
        &["signum", "sign"],
        Naming::Custom(|w, a, _| match w.eq_ignore_ascii_case("sign") {
            true => format!("sign({})", a.join(", ")),
            false => format!("SIGNUM({})", a.join(", ")),
        }),
        "signum",
    );
    b.scalar_named(&["log"], Naming::Fixed("LOG"), |f| {
        f.arity(1, 2)?;
        let args: Vec<Expr> = f
            .args
            .into_iter()
            .map(|a| cast(a, DataType::Float64))
            .collect();
        // Spark's logarithms are NULL for arguments <= 0.
        let positive = args
            .iter()
            .map(|a| a.clone().gt(lit(0.0f64)))
            .reduce(Expr::and)
            .unwrap_or_else(|| lit(true));
        let value = if args.len() == 1 {
            super::df_udf("ln").map(|u| u.call(args))?
        } else {
            super::df_udf("log").map(|u| u.call(args))?
        };
        Ok(when(positive, value, lit(ScalarValue::Float64(None))))
    });
    b.scalar_named(
        &["pow", "power"],
        Naming::Custom(|w, a, _| {
            let name = if w.eq_ignore_ascii_case("pow") {
                "pow"
            } else {
                "POWER"
            };
            format!("{name}({})", a.join(", "))
        }),
        |f| {
            let (x, y) = two(f)?;
            super::df_udf("power")
                .map(|u| u.call(vec![cast(x, DataType::Float64), cast(y, DataType::Float64)]))
        },
    );
    b.scalar_named(&["atan2"], Naming::Fixed("ATAN2"), |f| {
        let (x, y) = two(f)?;
        super::df_udf("atan2")
            .map(|u| u.call(vec![cast(x, DataType::Float64), cast(y, DataType::Float64)]))
    });
    b.scalar_named(&["round"], Naming::Custom(with_scale_zero), |f| {
        round_to_spark_type(f, RoundMode::HalfUp)
    });
    b.scalar_named(&["bround"], Naming::Custom(with_scale_zero), |f| {
        round_to_spark_type(f, RoundMode::HalfEven)
    });
    b.scalar_named(&["floor"], Naming::Custom(upper_when_one_arg), |f| {
        f.arity(1, 2)?;
        if f.args.len() == 2 {
            literal_int_scale(&f)?;
            return round_to_spark_type(f, RoundMode::Floor);
        }
        super::sp_udf("floor").map(|u| u.call(f.args))
    });
    b.scalar_named(
        &["ceil", "ceiling"],
        Naming::Custom(upper_when_one_arg),
        |f| {
            f.arity(1, 2)?;
            if f.args.len() == 2 {
                literal_int_scale(&f)?;
                return round_to_spark_type(f, RoundMode::Ceil);
            }
            super::sp_udf("ceil").map(|u| u.call(f.args))
        },
    );
    b.scalar(&["pmod"], |mut f| {
        f.arity(2, 2)?;
        // (An untyped NULL takes the other operand's type, as in Spark's arithmetic.)
        if let [a, b] = f.types.as_mut_slice()
            && (*a == DataType::Null) != (*b == DataType::Null)
        {
            let (i, to) = if *a == DataType::Null {
                (0, b.clone())
            } else {
                (1, a.clone())
            };
            f.args[i] = cast(f.args[i].clone(), to.clone());
            f.types[i] = to;
        }
        // (A decimal with a floating-point number is a DOUBLE, as Spark's arithmetic.)
        let floating = f.types.iter().any(|t| t.is_floating());
        let decimals = match (f.types.as_slice(), f.args.as_slice()) {
            ([lt, rt], [l, r])
                if !floating
                    && (matches!(lt, DataType::Decimal128(..))
                        || matches!(rt, DataType::Decimal128(..))) =>
            {
                super::decimal::operand_decimal(lt, l).zip(super::decimal::operand_decimal(rt, r))
            }
            _ => None,
        };
        let mut args = f.args;
        if floating {
            // (Text read as a number: NULL where it is none, outside ANSI mode.)
            for (a, t) in args.iter_mut().zip(&f.types) {
                *a = match t {
                    DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View if !f.config.ansi => {
                        datafusion::logical_expr::try_cast(a.clone(), DataType::Float64)
                    }
                    _ => cast(a.clone(), DataType::Float64),
                };
            }
        }
        let divisor = args.get(1).cloned();
        let ansi = f.config.ansi;
        let value = super::sp_udf("pmod")?.call(args);
        let value = match divisor {
            Some(r) if ansi => super::operators::remainder_by_zero_check(r, value),
            _ => value,
        };
        Ok(match decimals {
            Some((lt, rt)) => {
                let (p, s) =
                    super::decimal::result_type(datafusion::logical_expr::Operator::Modulo, lt, rt);
                cast(value, DataType::Decimal128(p, s))
            }
            None => value,
        })
    });
    // factorial(n) of an INT: other integers are read as one (NULL outside 0..=20 anyway).
    b.scalar(&["factorial"], |f| {
        let x = one(f)?;
        Ok(super::sp_udf("factorial")?.call(vec![cast(x, DataType::Int32)]))
    });
    add_spark_named(b, &["expm1"], Naming::Fixed("EXPM1"), "expm1", 1, 1);
    add_spark_named(b, &["hypot"], Naming::Fixed("HYPOT"), "hypot", 2, 2);
    b.scalar(&["rint"], |f| {
        let x = cast(one(f)?, DataType::Float64);
        super::sp_udf("rint").map(|u| u.call(vec![x]))
    });
    add_spark(b, &["bin"], "bin", 1, 1);
    add_df(b, &["greatest"], "greatest", 2, usize::MAX);
    add_df(b, &["least"], "least", 2, usize::MAX);
    add_df_named(b, &["pi"], Naming::Fixed("PI"), "pi", 0, 0);
    b.scalar_named(&["e"], Naming::Fixed("E"), |f| {
        f.arity(0, 0)?;
        Ok(datafusion::logical_expr::lit(std::f64::consts::E))
    });
    // rand([seed]) / randn([seed]): with a seed, over an input that numbers its rows by
    // partition (a projection's), Spark's values (its per-partition XORShiftRandom); else
    // (no seed, or in a filter) DataFusion's random values.
    b.scalar_named(&["rand", "random"], Naming::Fixed("rand"), |f| {
        f.arity(0, 1)?;
        if let Some(seeded) = seeded(&f, 0, super::native::random::RandomKind::Uniform)? {
            return Ok(seeded);
        }
        Ok(super::df_udf("random")?.call(vec![]))
    });
    b.scalar(&["randn"], |f| {
        f.arity(0, 1)?;
        if let Some(seeded) = seeded(&f, 0, super::native::random::RandomKind::Gaussian)? {
            return Ok(seeded);
        }
        let random = super::df_udf("random")?;
        let (u1, u2) = (random.call(vec![]), random.call(vec![]));
        let radius = super::df_udf("sqrt")?.call(vec![
            lit(-2.0f64) * super::df_udf("ln")?.call(vec![lit(1.0f64) - u1]),
        ]);
        let angle = super::df_udf("cos")?.call(vec![lit(2.0 * std::f64::consts::PI) * u2]);
        Ok(radius * angle)
    });
    // uniform(min, max[, seed]): min + (max - min) * rand(seed), in the arguments' type.
    b.scalar(&["uniform"], |f| {
        f.arity(2, 3)?;
        let numeric = |t: &DataType| {
            matches!(
                t,
                DataType::Int16
                    | DataType::Int32
                    | DataType::Int64
                    | DataType::Float32
                    | DataType::Float64
            )
        };
        for (i, what) in [(0, "min"), (1, "max")] {
            if !f.args[i].column_refs().is_empty() {
                return Err(random_argument(&f, "NON_FOLDABLE_INPUT", what, i));
            }
            if !numeric(&f.types[i]) {
                return Err(random_argument(&f, "UNEXPECTED_INPUT_TYPE", what, i));
            }
        }
        let (a, b) = (&f.types[0], &f.types[1]);
        let result = if a.is_integer() && b.is_integer() {
            if *a == DataType::Int64 || *b == DataType::Int64 {
                DataType::Int64
            } else if *a == DataType::Int32 || *b == DataType::Int32 {
                DataType::Int32
            } else {
                DataType::Int16
            }
        } else if *a == DataType::Float64 || *b == DataType::Float64 {
            DataType::Float64
        } else {
            DataType::Float32
        };
        let Some(random) = seeded(&f, 2, super::native::random::RandomKind::Uniform)? else {
            return Err(crate::error::PlanError::Unsupported(
                "uniform outside a projection (Spark's values are drawn per partition)".into(),
            ));
        };
        let low = cast(f.args[0].clone(), DataType::Float64);
        let high = cast(f.args[1].clone(), DataType::Float64);
        Ok(cast(low.clone() + (high - low) * random, result))
    });
    // randstr(length[, seed]): characters of 0-9, a-z, A-Z drawn as Spark draws them.
    b.scalar(&["randstr"], |f| {
        f.arity(1, 2)?;
        let length = match &f.args[0] {
            Expr::Literal(ScalarValue::Int16(Some(n)), _) => *n as i64,
            Expr::Literal(ScalarValue::Int32(Some(n)), _) => *n as i64,
            _ => return Err(random_argument(&f, "UNEXPECTED_INPUT_TYPE", "length", 0)),
        };
        if length < 0 {
            return Err(crate::error::PlanError::Unsupported(
                "randstr of a negative length".into(),
            ));
        }
        let kind = super::native::random::RandomKind::Text {
            length: length as u32,
        };
        match seeded(&f, 1, kind)? {
            Some(text) => Ok(text),
            None => Err(crate::error::PlanError::Unsupported(
                "randstr outside a projection (Spark's values are drawn per partition)".into(),
            )),
        }
    });
    double_fn(b, &["asinh"], Naming::Fixed("ASINH"), "asinh");
    double_fn(b, &["acosh"], Naming::Fixed("ACOSH"), "acosh");
    double_fn(b, &["atanh"], Naming::Fixed("ATANH"), "atanh");
    double_fn(b, &["cot"], Naming::Fixed("COT"), "cot");
    b.scalar_named(&["log1p"], Naming::Fixed("LOG1P"), |f| {
        let x = cast(one(f)?, DataType::Float64);
        let value = super::df_udf("ln")?.call(vec![x.clone() + lit(1.0f64)]);
        Ok(when(
            x.gt(lit(-1.0f64)),
            value,
            lit(ScalarValue::Float64(None)),
        ))
    });
    b.scalar_named(&["sec"], Naming::Fixed("SEC"), |f| {
        let x = cast(one(f)?, DataType::Float64);
        super::df_udf("cos").map(|u| lit(1.0f64) / u.call(vec![x]))
    });
    b.scalar_named(&["csc"], Naming::Fixed("CSC"), |f| {
        let x = cast(one(f)?, DataType::Float64);
        super::df_udf("sin").map(|u| lit(1.0f64) / u.call(vec![x]))
    });
    b.scalar(&["isnan"], |f| {
        let x = cast(one(f)?, DataType::Float64);
        // NULL is not NaN.
        let isnan = super::df_udf("isnan")?.call(vec![x]);
        Ok(super::df_udf("coalesce")?.call(vec![isnan, lit(false)]))
    });
    // nanvl(x, y): `y` is read only where `x` is NaN, as in Spark (`nanvl(2.5D, 'abc')` is
    // 2.5; a literal whose cast fails raises only if a row reads it).
    b.scalar(&["nanvl"], |f| {
        let (x, y) = two(f)?;
        let y = match y {
            Expr::Cast(c) if matches!(c.expr.as_ref(), Expr::Literal(..)) => *c.expr,
            y => y,
        };
        let y = crate::resolver::deferred_if_failing(y, &DataType::Float64);
        let x = cast(x, DataType::Float64);
        let isnan = super::df_udf("isnan")?.call(vec![x.clone()]);
        Ok(datafusion::logical_expr::when(isnan, cast(y, DataType::Float64)).otherwise(x)?)
    });
    add_spark(b, &["bit_count"], "bit_count", 1, 1);
    add_spark(b, &["bit_get", "getbit"], "bit_get", 2, 2);
    add_spark(b, &["width_bucket"], "width_bucket", 4, 4);
    // equal_null(a, b) is `a <=> b`, and Spark shows it so in its errors.
    b.scalar(&["equal_null"], |mut f| {
        f.arity(2, 2)?;
        f.shown = format!("({} <=> {})", f.arg_name(0), f.arg_name(1));
        f.name = "<=>";
        super::operators::binary(f, datafusion::logical_expr::Operator::IsNotDistinctFrom)
    });
    // shiftrightunsigned(x, n): a logical shift of the 32- or 64-bit value.
    b.scalar(&["shiftrightunsigned"], |f| {
        let wide = matches!(f.types.first(), Some(DataType::Int64));
        let (x, n) = two(f)?;
        let shift = |x: Expr, n: Expr| {
            Expr::BinaryExpr(datafusion::logical_expr::BinaryExpr::new(
                Box::new(x),
                datafusion::logical_expr::Operator::BitwiseShiftRight,
                Box::new(n),
            ))
        };
        let and = |x: Expr, m: Expr| {
            Expr::BinaryExpr(datafusion::logical_expr::BinaryExpr::new(
                Box::new(x),
                datafusion::logical_expr::Operator::BitwiseAnd,
                Box::new(m),
            ))
        };
        let n = cast(n, DataType::Int64);
        let (n, value) = if wide {
            // (x >> n) & (i64::MAX >> (n - 1)): the sign bits shifted in are cleared.
            let n = n & lit(63i64);
            let mask = shift(lit(i64::MAX), n.clone() - lit(1i64));
            (n.clone(), and(shift(x.clone(), n), mask))
        } else {
            // 32 bits: the unsigned value in 64 bits, shifted, back to an int.
            let n = n & lit(31i64);
            let unsigned = and(cast(x.clone(), DataType::Int64), lit(0xFFFF_FFFFi64));
            (n.clone(), cast(shift(unsigned, n), DataType::Int32))
        };
        Ok(super::when(n.eq(lit(0i64)), x, Some(value)))
    });
}

/// `CASE WHEN c THEN a ELSE b END`.
fn when(c: Expr, a: Expr, b: Expr) -> Expr {
    super::when(c, a, Some(b))
}

/// A logarithm: NULL for arguments <= 0, as in Spark.
fn log_fn(b: &mut RegistryBuilder, names: &[&str], naming: Naming, df_name: &'static str) {
    b.scalar_named(names, naming, move |f| -> PlanResult<Expr> {
        let x = cast(one(f)?, DataType::Float64);
        let value = super::df_udf(df_name)?.call(vec![x.clone()]);
        Ok(when(
            x.gt(lit(0.0f64)),
            value,
            lit(ScalarValue::Float64(None)),
        ))
    });
}

fn with_scale_zero(w: &str, a: &[String], _: bool) -> String {
    match a {
        [x] => format!("{}({x}, 0)", w.to_ascii_lowercase()),
        args => format!("{}({})", w.to_ascii_lowercase(), args.join(", ")),
    }
}

fn upper_when_one_arg(w: &str, a: &[String], _: bool) -> String {
    match a {
        // (`ceiling(x)` is named as written.)
        [x] if !w.eq_ignore_ascii_case("ceiling") => format!("{}({x})", w.to_ascii_uppercase()),
        args => format!("{}({})", w.to_ascii_lowercase(), args.join(", ")),
    }
}

#[derive(Clone, Copy, PartialEq)]
enum RoundMode {
    HalfUp,
    HalfEven,
    Ceil,
    Floor,
}

/// `round`/`bround(x[, d])` with Spark's result type: a decimal keeps at most `d` decimals
/// and gains an integral digit; other numbers keep their type.
/// `ceil(x, scale)` and `floor(x, scale)` take a scale that is an INT literal, not NULL
/// (Spark's NON_FOLDABLE_ARGUMENT otherwise, even for a BIGINT literal).
fn literal_int_scale(f: &super::FunctionInput) -> PlanResult<()> {
    match f.args.get(1) {
        Some(Expr::Literal(ScalarValue::Int32(Some(_)), _)) => Ok(()),
        _ => Err(crate::error::SparkError::new(
            crate::error::ErrorKind::Analysis,
            "NON_FOLDABLE_ARGUMENT",
            "42K08",
            format!(
                "The function `{}` requires the parameter `scale` to be a foldable expression of the type \"INT\", but the actual argument is a non-foldable.",
                f.name.to_lowercase()
            ),
            vec![],
        )
        .into()),
    }
}

fn round_to_spark_type(f: super::FunctionInput, mode: RoundMode) -> PlanResult<Expr> {
    f.arity(1, 2)?;
    let (scale, null_scale) = match f.args.get(1) {
        None => (0i64, false),
        Some(arg) => match constant_scale(&f, arg)? {
            Some(scale) => (scale, false),
            // (A NULL scale rounds to NULL, typed as with scale 0.)
            None => (0, true),
        },
    };
    let x = f.args[0].clone();
    let t = f.types[0].clone();
    // (Scales past an INT arrive cast to INT as Spark casts them.)
    let int_scale = i32::try_from(scale).unwrap_or(if scale < 0 { i32::MIN } else { i32::MAX });
    let rounded = match mode {
        RoundMode::HalfUp | RoundMode::HalfEven if !matches!(t, DataType::Decimal128(..)) => {
            super::native::NativeUdf::udf(super::native::Native::Round {
                scale: int_scale,
                half_even: mode == RoundMode::HalfEven,
                ansi: f.config.ansi,
            })
            .call(vec![x])
        }
        RoundMode::HalfUp => super::sp_udf("round")?.call(vec![x, lit(scale as i32)]),
        RoundMode::HalfEven => {
            super::native::NativeUdf::udf(super::native::Native::RoundHalfEven {
                scale: scale as i32,
            })
            .call(vec![x])
        }
        RoundMode::Ceil | RoundMode::Floor => {
            super::native::NativeUdf::udf(super::native::Native::CeilFloor {
                scale: scale as i32,
                up: mode == RoundMode::Ceil,
            })
            .call(vec![x])
        }
    };
    Ok(match t {
        DataType::Decimal128(p, s) => {
            let (p, s) = (p as i64, s as i64);
            let integral = p - s + 1;
            // (A negative scale keeps at least its digits before the point, Spark's RoundBase.)
            let (np, ns) = if scale < 0 {
                (integral.max(1 - scale), 0)
            } else {
                let ns = s.min(scale);
                (integral + ns, ns)
            };
            cast(rounded, DataType::Decimal128(np.min(38) as u8, ns as i8))
        }
        _ => rounded,
    })
    .map(|rounded| {
        if null_scale {
            super::null_when(lit(true), rounded)
        } else {
            rounded
        }
    })
}

/// The scale of `round`/`bround`, Spark's foldable INT (the argument arrives cast to INT, so
/// `round(x, 2.5D)` rounds to 2 places): computed now, `None` for NULL; a scale that reads a
/// column is DATATYPE_MISMATCH.NON_FOLDABLE_INPUT.
fn constant_scale(f: &super::FunctionInput, arg: &Expr) -> PlanResult<Option<i64>> {
    if !arg.column_refs().is_empty() {
        let names: Vec<String> = f
            .args
            .iter()
            .zip(&f.field_names)
            .map(|(a, n)| n.clone().unwrap_or_else(|| a.schema_name().to_string()))
            .collect();
        let shown = f.field_names.get(1).cloned().flatten();
        return Err(crate::error::SparkError::analysis(
            "DATATYPE_MISMATCH.NON_FOLDABLE_INPUT",
            "42K09",
            format!(
                "Cannot resolve \"{}({})\" due to data type mismatch: the input scale should be a foldable \"INT\" expression; however, got \"{}\".",
                f.name.to_lowercase(),
                names.join(", "),
                shown.unwrap_or_else(|| arg.schema_name().to_string())
            ),
        )
        .into());
    }
    // (A text scale that is no number raises its cast's error now, as Spark's analysis.)
    use datafusion::common::tree_node::{Transformed, TreeNode};
    let arg = arg
        .clone()
        .transform(|e| match e {
            Expr::ScalarFunction(mut call) if call.func.name() == "ember_deferred" => {
                Ok(Transformed::yes(call.args.remove(0)))
            }
            other => Ok(Transformed::no(other)),
        })?
        .data;
    match crate::resolver::fold_constants(arg)? {
        Expr::Literal(v, _) if v.is_null() => Ok(None),
        Expr::Literal(v, _) => v.to_string().parse::<i64>().map(Some).map_err(|_| {
            crate::error::PlanError::Unsupported(format!("{} with the scale {v}", f.name))
        }),
        other => Err(crate::error::PlanError::Unsupported(format!(
            "{} with the scale {}",
            f.name,
            other.schema_name()
        ))),
    }
}

/// A function of a double Spark computes with StrictMath (see `native::strict_math`).
fn strict_fn(b: &mut RegistryBuilder, names: &[&str], naming: Naming, op: StrictMathOp) {
    b.scalar_named(names, naming, move |f| -> PlanResult<Expr> {
        let x = cast(one(f)?, DataType::Float64);
        Ok(NativeUdf::udf(Native::StrictMath { op }).call(vec![x]))
    });
}

fn double_fn(b: &mut RegistryBuilder, names: &[&str], naming: Naming, df_name: &'static str) {
    b.scalar_named(names, naming, move |f| -> PlanResult<Expr> {
        let x = one(f)?;
        super::df_udf(df_name).map(|u| u.call(vec![cast(x, DataType::Float64)]))
    });
}

/// A seeded random call (argument `i` the seed; a random one when absent) over the row
/// numbering of the input; `None` when the input has none.
fn seeded(
    f: &FunctionInput,
    i: usize,
    kind: super::native::random::RandomKind,
) -> crate::error::PlanResult<Option<Expr>> {
    let seed = match f.args.get(i) {
        None => rand_seed(),
        Some(Expr::Literal(v, _)) => match v {
            ScalarValue::Int8(Some(n)) => i64::from(*n),
            ScalarValue::Int16(Some(n)) => i64::from(*n),
            ScalarValue::Int32(Some(n)) => i64::from(*n),
            ScalarValue::Int64(Some(n)) => *n,
            ScalarValue::Null | ScalarValue::Int32(None) | ScalarValue::Int64(None) => 0,
            _ => return Err(random_argument(f, "UNEXPECTED_INPUT_TYPE", "seed", i)),
        },
        Some(_) => return Err(random_argument(f, "NON_FOLDABLE_INPUT", "seed", i)),
    };
    if !f.partition_ids {
        return Ok(None);
    }
    use crate::logical::partition_ids::{PARTITION_ID, ROW_IN_PARTITION};
    let native = super::native::Native::SeededRandom { draw: kind, seed };
    Ok(Some(super::native::NativeUdf::udf(native).call(vec![
        datafusion::logical_expr::col(PARTITION_ID),
        datafusion::logical_expr::col(ROW_IN_PARTITION),
    ])))
}

fn rand_seed() -> i64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(0),
    );
    h.finish() as i64
}

fn random_argument(
    f: &FunctionInput,
    class: &str,
    what: &str,
    i: usize,
) -> crate::error::PlanError {
    let ordinal = crate::error::ordinal_number(i);
    crate::error::SparkError::analysis(
        &format!("DATATYPE_MISMATCH.{class}"),
        "42K09",
        format!(
            "Cannot resolve \"{}\" due to data type mismatch: the {ordinal} argument `{what}` is not a constant number.",
            f.name
        ),
    )
    .into()
}
