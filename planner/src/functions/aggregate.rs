//! Aggregate functions.

use std::sync::Arc;

use arrow::datatypes::DataType;
use datafusion::logical_expr::expr::{AggregateFunction, NullTreatment};
use datafusion::logical_expr::{AggregateUDF, Expr, cast, lit};

use super::{FunctionInput, Naming, RegistryBuilder, datafusion_aggregate, spark_aggregate};
use crate::error::{PlanError, PlanResult};

/// The name Spark Connect's `product` (which SQL does not know) is looked up by.
pub const CONNECT_PRODUCT: &str = "__connect_product";

pub fn register(b: &mut RegistryBuilder) {
    // (`count(*)` is `count(1)`; `count()` is an error, as Spark's.)
    b.aggregate(&["count"], |mut f| {
        if f.args.is_empty() {
            return Err(crate::error::SparkError::analysis(
                "WRONG_NUM_ARGS.WITH_SUGGESTION",
                "42605",
                "The `count` requires at least 1 parameters but the actual number is 0. Please, if needed, set \"spark.sql.legacy.allowParameterlessCount\" to \"true\".",
            )
            .into());
        }
        f.args = count_tuple(std::mem::take(&mut f.args));
        agg(f, df("count"), 1, usize::MAX)
    });
    b.add(
        &["count_distinct", "countdistinct"],
        super::FunctionKind::Aggregate,
        Naming::Custom(|_, a, _| format!("count(DISTINCT {})", a.join(", "))),
        Arc::new(|mut f: FunctionInput| {
            f.distinct = true;
            f.args = count_tuple(std::mem::take(&mut f.args));
            agg(f, df("count"), 1, usize::MAX)
        }),
    );
    b.aggregate(&["sum"], sum);
    b.aggregate(&["avg", "mean"], avg);
    b.aggregate(&["min"], |f| agg(f, df("min"), 1, 1));
    b.aggregate(&["max"], |f| agg(f, df("max"), 1, 1));
    // Spark names first(x, true) `first(x)`.
    b.add(
        &["first", "first_value", "last", "last_value"],
        super::FunctionKind::Aggregate,
        Naming::Custom(first_arg_name),
        Arc::new(|f: FunctionInput| {
            let name = if f.name.starts_with("first") {
                "first_value"
            } else {
                "last_value"
            };
            first_last(f, name)
        }),
    );
    b.add_named_aggregate(&["any_value"], Naming::Custom(first_arg_name), |f| {
        first_last(f, "first_value")
    });
    b.add(
        &["collect_list", "array_agg"],
        super::FunctionKind::Aggregate,
        Naming::Fixed("collect_list"),
        Arc::new(super::collect::collect_list),
    );
    b.aggregate(&["collect_set"], super::collect::collect_set);
    b.aggregate(&["stddev", "std", "stddev_samp"], |f| {
        agg_double(f, df("stddev"))
    });
    b.aggregate(&["stddev_pop"], |f| population(f, "stddev_pop"));
    b.aggregate(&["variance", "var_samp"], |f| agg_double(f, df("var")));
    b.aggregate(&["var_pop"], |f| population(f, "var_pop"));
    b.aggregate(&["corr"], |f| agg_double(f, df("corr")));
    b.aggregate(&["covar_samp"], |f| agg_double(f, df("covar_samp")));
    b.aggregate(&["covar_pop"], |f| agg_double(f, df("covar_pop")));
    b.aggregate(&["approx_count_distinct"], |mut f| {
        f.arity(1, 2)?;
        // (Its relative standard deviation is a DOUBLE or DECIMAL literal, Spark's builder says.)
        if let Some(rsd) = f.args.get(1)
            && !matches!(
                super::nullability::unwrapped(rsd),
                Expr::Literal(
                    datafusion::common::ScalarValue::Float64(Some(_))
                        | datafusion::common::ScalarValue::Decimal128(Some(_), ..),
                    _
                )
            )
        {
            return Err(crate::error::SparkError::analysis(
                "_LEGACY_ERROR_TEMP_1104",
                "",
                "The second argument should be a double literal.",
            )
            .into());
        }
        f.args.truncate(1);
        // DataFusion's sketch takes no floating point numbers: their text counts the same.
        if let Some(DataType::Float32 | DataType::Float64) = f.types.first() {
            f.args = f
                .args
                .into_iter()
                .map(|a| cast(a, DataType::Utf8))
                .collect();
        }
        Ok(cast(agg(f, df("approx_distinct"), 1, 1)?, DataType::Int64))
    });
    b.aggregate(&["bool_and", "every"], |f| agg(f, df("bool_and"), 1, 1));
    b.aggregate(&["bool_or", "some", "any"], |f| agg(f, df("bool_or"), 1, 1));
    b.aggregate(&["median"], |f| {
        no_datetimes(&f)?;
        super::ordered_set::of_interval_counts(f, |f| agg_double(f, df("median")))
    });
    b.aggregate(&["try_sum"], |f| agg(f, spark("try_sum"), 1, 1));
    b.aggregate(&["bit_and"], |f| agg(f, df("bit_and"), 1, 1));
    b.aggregate(&["bit_or"], |f| agg(f, df("bit_or"), 1, 1));
    b.aggregate(&["bit_xor"], |f| agg(f, df("bit_xor"), 1, 1));
    b.aggregate(&["try_avg"], avg);
    // count_if(p): the rows where p holds.
    b.aggregate(&["count_if"], |mut f| {
        f.arity(1, 1)?;
        let p = f.args.remove(0);
        f.args = vec![when_true(p, lit(1i32))];
        agg(f, df("count"), 1, 1)
    });
    b.aggregate(&["max_by"], |f| by_order(f, true));
    b.aggregate(&["min_by"], |f| by_order(f, false));
    // regr_avgx(y, x) / regr_avgy: the average of x (y) where both are present.
    b.aggregate(&["regr_avgx"], |f| regr_avg(f, 1));
    b.aggregate(&["regr_avgy"], |f| regr_avg(f, 0));
    for name in [
        "regr_slope",
        "regr_intercept",
        "regr_r2",
        "regr_sxx",
        "regr_syy",
        "regr_sxy",
    ] {
        b.aggregate(&[name], move |f| agg_double(f, df(name)));
    }
    b.aggregate(&["regr_count"], |f| {
        Ok(cast(agg_double(f, df("regr_count"))?, DataType::Int64))
    });
    // product(x): the product of the non-NULL values as a double. Spark Connect's planner
    // knows it (`F.product`); Spark's SQL does not (UNRESOLVED_ROUTINE), so it is registered
    // under the name `proto::expression` gives it.
    b.add_named_aggregate(&[CONNECT_PRODUCT], Naming::Fixed("product"), |mut f| {
        f.arity(1, 1)?;
        let x = cast(f.args.remove(0), DataType::Float64);
        let values = present_values(x, f.filter)?;
        let product = super::df_udf("array_product")?.call(vec![values.clone()]);
        let n = super::df_udf("cardinality")?.call(vec![values]);
        Ok(when_true(n.gt(lit(0u64)), product))
    });
    // mode(x[, deterministic]): see `ordered_set::mode`.
    b.add_named_aggregate(
        &["mode"],
        Naming::Custom(mode_name),
        super::ordered_set::mode,
    );
    // Bitmaps of a group: its positions' bits set, or its bitmaps ORed or ANDed.
    for (name, op) in [
        (
            "bitmap_construct_agg",
            super::native::BitmapOp::FromPositions,
        ),
        ("bitmap_or_agg", super::native::BitmapOp::Or),
        ("bitmap_and_agg", super::native::BitmapOp::And),
    ] {
        b.aggregate(&[name], move |mut f| {
            f.arity(1, 1)?;
            let values = present_values(f.args.remove(0), f.filter)?;
            Ok(
                super::native::NativeUdf::udf(super::native::Native::Bitmap { op })
                    .call(vec![values]),
            )
        });
    }
    // histogram_numeric(x, nb): nb a foldable INT (cast as Spark casts it) of at least 2.
    b.aggregate(&["histogram_numeric"], |mut f| {
        f.arity(2, 2)?;
        let shown = f.shown().to_string();
        let mismatch = |class: &str, detail: String| -> PlanError {
            crate::error::SparkError::analysis(
                class,
                "42K09",
                format!("Cannot resolve \"{shown}\" due to data type mismatch: {detail}"),
            )
            .into()
        };
        if !f.args[1].column_refs().is_empty() {
            return Err(mismatch(
                "DATATYPE_MISMATCH.NON_FOLDABLE_INPUT",
                format!(
                    "the input `nb` should be a foldable \"INT\" expression; however, got \"{}\".",
                    f.arg_name(1)
                ),
            ));
        }
        let bins = match crate::resolver::fold_constants(cast(f.args[1].clone(), DataType::Int32))?
        {
            Expr::Literal(datafusion::common::ScalarValue::Int32(Some(n)), _) => n,
            Expr::Literal(v, _) if v.is_null() => {
                return Err(mismatch(
                    "DATATYPE_MISMATCH.UNEXPECTED_NULL",
                    "The nb must not be null.".into(),
                ));
            }
            _ => {
                return Err(PlanError::Unsupported(
                    "histogram_numeric with a computed number of bins".into(),
                ));
            }
        };
        if bins < 2 {
            return Err(mismatch(
                "DATATYPE_MISMATCH.VALUE_OUT_OF_RANGE",
                format!("The nb must be between [2, 2147483647] (current value = {bins})."),
            ));
        }
        let values = present_values(f.args.remove(0), f.filter)?;
        let kind = super::native::Native::HistogramNumeric {
            bins: bins as usize,
        };
        Ok(super::native::NativeUdf::udf(kind).call(vec![values]))
    });
    b.aggregate(&["skewness"], |f| moments(f, false));
    b.aggregate(&["kurtosis"], |f| moments(f, true));
    // percentile(x, p): exact, interpolated (a list of percentiles gives a list).
    b.add_named_aggregate(
        &["percentile"],
        Naming::Custom(|w, a, _| default_arg(w, a, 2, "1")),
        |f| {
            no_datetimes(&f)?;
            super::require_foldable(&f, 1, "percentage", "DOUBLE")?;
            percentiles(
                f,
                |mut f| {
                    if f.args.len() == 3 {
                        match f.args.pop() {
                            Some(Expr::Literal(v, _)) if v.to_string() == "1" => {}
                            _ => {
                                return Err(PlanError::Unsupported(
                                    "percentile with a frequency".into(),
                                ));
                            }
                        }
                    }
                    super::ordered_set::of_interval_counts(f, |f| {
                        agg_double(f, df("percentile_cont"))
                    })
                },
                2,
                3,
            )
        },
    );
    // percentile_approx(x, p[, accuracy]) is one of the values, in their type.
    b.add_named_aggregate(
        &["percentile_approx", "approx_percentile"],
        Naming::Custom(|w, a, _| default_arg(w, a, 2, "10000")),
        |f| {
            super::require_foldable(&f, 1, "percentage", "DOUBLE")?;
            super::require_foldable(&f, 2, "accuracy", "INT")?;
            percentiles(
                f,
                |mut f| {
                    f.args.truncate(2);
                    let p = f.args.remove(1);
                    let x = f.args.remove(0);
                    exact_percentile(x, p, f.filter.take(), false)
                },
                2,
                3,
            )
        },
    );
    // Named as written, the omitted delimiter NULL (with WITHIN GROUP, listagg: see the
    // resolver).
    b.add_named_aggregate(
        &["string_agg", "listagg"],
        Naming::Defaults {
            from: 1,
            values: &["NULL"],
        },
        |mut f| {
            f.arity(1, 2)?;
            super::require_foldable(&f, 1, "delimiter", "STRING")?;
            if f.args.len() == 1 {
                f.args.push(lit(""));
            }
            let binary = |t: &DataType| matches!(t, DataType::Binary | DataType::LargeBinary);
            if f.types.first().is_some_and(binary) {
                // Of BINARY values a BINARY, byte for byte: joined as hex text (which keeps
                // the bytes' order and equality) and decoded.
                let hex = |x: Expr| super::df_udf("encode").map(|u| u.call(vec![x, lit("hex")]));
                f.args = f.args.into_iter().map(hex).collect::<PlanResult<_>>()?;
                let joined = agg(f, df("string_agg"), 2, 2)?;
                return Ok(super::df_udf("decode")?.call(vec![joined, lit("hex")]));
            }
            agg(f, df("string_agg"), 2, 2)
        },
    );
    // Whether a grouping column is aggregated away in this row of ROLLUP/CUBE/GROUPING SETS
    // (DataFusion resolves them against the grouping sets).
    b.aggregate(&["grouping"], |f| {
        Ok(cast(agg(f, df("grouping"), 1, 1)?, DataType::Int8))
    });
    // Without arguments: every grouping column (filled in by the aggregation).
    b.aggregate(&["grouping_id"], |f| {
        Ok(cast(
            agg(f, df("grouping"), 0, usize::MAX)?,
            DataType::Int64,
        ))
    });
}

pub(super) fn df(name: &str) -> PlanResult<Arc<AggregateUDF>> {
    datafusion_aggregate(name).ok_or_else(|| PlanError::Unsupported(format!("aggregate {name}")))
}

pub(super) fn spark(name: &str) -> PlanResult<Arc<AggregateUDF>> {
    spark_aggregate(name).ok_or_else(|| PlanError::Unsupported(format!("aggregate {name}")))
}

/// An aggregate call with the common options (DISTINCT, FILTER, IGNORE NULLS).
/// `sum(x)`; under ANSI a BIGINT sum out of BIGINT's range is Spark's ARITHMETIC_OVERFLOW
/// (summed exactly, as a 38-digit decimal, and narrowed back) where DataFusion's wraps around.
/// Decimals sum as Spark's, NULL (or ARITHMETIC_OVERFLOW) beyond their precision
/// ([`super::decimal_sum`]).
fn sum(mut f: FunctionInput) -> PlanResult<Expr> {
    if matches!(f.types.first(), Some(DataType::Decimal128(..))) {
        let fail = f.config.ansi;
        return agg(
            f,
            Ok(super::decimal_sum::DecimalSum::udaf(false, fail)),
            1,
            1,
        );
    }
    if !(f.config.ansi && f.types.first() == Some(&DataType::Int64)) {
        return agg(f, df("sum"), 1, 1);
    }
    f.args = f
        .args
        .into_iter()
        .map(|a| cast(a, DataType::Decimal128(38, 0)))
        .collect();
    let exact = agg(f, df("sum"), 1, 1)?;
    use super::native::{Native, NativeUdf};
    Ok(NativeUdf::udf(Native::CheckedIntegerCast {
        from: "DECIMAL(38,0)".into(),
        to: "BIGINT".into(),
        unit: 1,
        arithmetic: true,
    })
    .call(vec![exact]))
}

pub(crate) fn agg(
    f: FunctionInput,
    udaf: PlanResult<Arc<AggregateUDF>>,
    min: usize,
    max: usize,
) -> PlanResult<Expr> {
    f.arity(min, max)?;
    let null_treatment = f.ignore_nulls.map(|ignore| {
        if ignore {
            NullTreatment::IgnoreNulls
        } else {
            NullTreatment::RespectNulls
        }
    });
    Ok(Expr::AggregateFunction(AggregateFunction::new_udf(
        udaf?,
        f.args,
        f.distinct,
        f.filter.map(Box::new),
        f.order_by,
        null_treatment,
    )))
}

/// Spark's exact percentiles (`median`, `percentile`) take no date or timestamp
/// (UNSUPPORTED_TIME_TYPE, as Spark 4.3 words it).
fn no_datetimes(f: &FunctionInput) -> PlanResult<()> {
    if matches!(
        f.types.first(),
        Some(DataType::Date32 | DataType::Timestamp(..))
    ) {
        return Err(crate::error::SparkError::analysis(
            "UNSUPPORTED_TIME_TYPE",
            "0A000",
            "The data type TIME is not supported.",
        )
        .into());
    }
    Ok(())
}

pub(super) fn agg_double(
    mut f: FunctionInput,
    udaf: PlanResult<Arc<AggregateUDF>>,
) -> PlanResult<Expr> {
    // (Spark's statistics of two columns take two arguments, of one column one; the
    // percentiles' fraction is among their arguments.)
    let lower = f.name.to_ascii_lowercase();
    let n = match lower.as_str() {
        "corr" | "covar_pop" | "covar_samp" => 2,
        l if l.starts_with("regr_") => 2,
        "stddev" | "std" | "stddev_samp" | "stddev_pop" | "variance" | "var_samp" | "var_pop"
        | "median" => 1,
        _ => f.args.len().max(1),
    };
    f.arity(n, n)?;
    f.args = f
        .args
        .into_iter()
        .map(|a| cast(a, DataType::Float64))
        .collect();
    agg(f, udaf, n, n)
}

/// `var_pop(x)` / `stddev_pop(x)`: of one value that value minus itself, NaN for NaN and
/// the infinities as Spark's running moments give (DataFusion answers 0.0): the largest
/// value minus itself added, which is 0.0 for any finite largest value (and NaN for NaN or
/// an infinity, where the moments of several values are NaN already).
fn population(f: FunctionInput, name: &str) -> PlanResult<Expr> {
    let mut largest = f.clone();
    let moment = agg_double(f, df(name))?;
    largest.args.truncate(1);
    let largest = agg_double(largest, df("max"))?;
    Ok(moment + (largest.clone() - largest))
}

/// `first(x[, ignoreNulls])` / `last(...)`.
fn first_last(mut f: FunctionInput, name: &str) -> PlanResult<Expr> {
    f.arity(1, 2)?;
    if f.args.len() == 2 {
        let flag = f.args.pop();
        let ignore = match flag {
            Some(Expr::Literal(datafusion::common::ScalarValue::Boolean(Some(b)), _)) => b,
            _ => {
                // Spark names first_value `first` here, last_value `last`.
                let shown = match f.name {
                    "any_value" => "any_value",
                    n if n.starts_with("first") => "first",
                    _ => "last",
                };
                return Err(crate::error::SparkError::new(
                    crate::error::ErrorKind::Analysis,
                    "_LEGACY_ERROR_TEMP_1210",
                    "",
                    format!("The second argument in {shown} should be a boolean literal."),
                    vec![("funcName", shown.to_string())],
                )
                .into());
            }
        };
        f.ignore_nulls = Some(ignore);
    }
    let ignore = f.ignore_nulls.unwrap_or(false);
    f.ignore_nulls = Some(ignore);
    super::collect::in_input_order(&mut f);
    agg(f, df(name), 1, 1)
}

/// `name(args, default)`: Spark shows an omitted trailing argument with its default.
/// `name(x)`: Spark names `first(x, true)`, `any_value(x, true)` after the value only.
fn first_arg_name(w: &str, a: &[String], _: bool) -> String {
    format!(
        "{}({})",
        w.to_lowercase(),
        a.first().cloned().unwrap_or_default()
    )
}

/// `mode(x)`, and `mode(x, true)` as Spark shows it: `mode() WITHIN GROUP (ORDER BY x DESC)`.
fn mode_name(_: &str, a: &[String], _: bool) -> String {
    match a {
        [x, d] if d == "true" => format!("mode() WITHIN GROUP (ORDER BY {x} DESC)"),
        [x, ..] => format!("mode({x})"),
        [] => "mode()".to_string(),
    }
}

pub(crate) fn default_arg(w: &str, a: &[String], given: usize, default: &str) -> String {
    let mut args = a.to_vec();
    if args.len() == given {
        args.push(default.to_string());
    }
    format!("{}({})", w.to_lowercase(), args.join(", "))
}

fn regr_avg(mut f: FunctionInput, pick: usize) -> PlanResult<Expr> {
    f.arity(2, 2)?;
    let both = f.args[0]
        .clone()
        .is_not_null()
        .and(f.args[1].clone().is_not_null());
    let mut value = f.args[pick].clone();
    if f.types[pick] == DataType::Null {
        value = cast(value, DataType::Float64);
        f.types[pick] = DataType::Float64;
    }
    f.args = vec![when_true(both, value)];
    f.types = vec![f.types[pick].clone()];
    avg(f)
}

/// `avg(x)`; of decimal(p, s) as Spark: decimal(p + 4, s + 4), rounded half up
/// (DataFusion's truncates), in one pass ([`super::decimal_sum`]).
fn avg(mut f: FunctionInput) -> PlanResult<Expr> {
    // avg(NULL): a DOUBLE, as Spark types it.
    if f.types.first() == Some(&DataType::Null) {
        f.args = f
            .args
            .into_iter()
            .map(|x| cast(x, DataType::Float64))
            .collect();
        f.types = vec![DataType::Float64];
    }
    if !matches!(f.types.first(), Some(DataType::Decimal128(..))) {
        return agg(f, df("avg"), 1, 1);
    }
    // An average that does not fit its type fails under ANSI, else (and for try_avg) is NULL.
    let fail = f.config.ansi && !f.name.eq_ignore_ascii_case("try_avg");
    agg(
        f,
        Ok(super::decimal_sum::DecimalSum::udaf(true, fail)),
        1,
        1,
    )
}

/// Spark's average of DECIMAL(p, s) values from their sum (a DECIMAL(p + 10, s)) and count:
/// a DECIMAL(p + 4, s + 4), rounded half up.
pub(crate) fn decimal_average(sum: Expr, count: Expr, p: u8, s: i8, fail: bool) -> Expr {
    let count = cast(count, DataType::Decimal128(20, 0));
    let (rp, rs) = ((p + 4).min(38), (s + 4).min(38));
    // The count is never 0 where the sum is not NULL: only an average too large for its
    // type fails (`fail`) or is NULL.
    super::decimal::DecimalDivide::udf(rp, rs, fail).call(vec![sum, count])
}

/// `CASE WHEN p THEN value END`.
fn when_true(p: Expr, value: Expr) -> Expr {
    super::when(p, value, None)
}

/// `max_by(x, y)` / `min_by(x, y)`: `x` of the row with the largest (smallest) `y`, rows
/// with a NULL `y` left out.
fn by_order(mut f: FunctionInput, max: bool) -> PlanResult<Expr> {
    f.arity(2, 3)?;
    if f.args.len() == 3 {
        let k = by_order_k(&f, f.args[2].clone())?;
        f.args[2] = lit(k);
    }
    Ok(Expr::AggregateFunction(AggregateFunction::new_udf(
        super::native::max_by::ByOrder::udaf(max),
        f.args,
        false,
        f.filter.map(Box::new),
        vec![],
        None,
    )))
}

/// The `k` of `max_by(x, y, k)`: a literal from 1 to 100000, as Spark requires.
fn by_order_k(f: &FunctionInput, k: Expr) -> PlanResult<i64> {
    let shown = || f.shown().to_string();
    let value = match crate::functions::nullability::unwrapped(&k) {
        Expr::Literal(v, _) if v.data_type().is_integer() => v.to_string().parse::<i64>().ok(),
        _ => None,
    };
    let Some(value) = value else {
        return Err(crate::error::SparkError::analysis(
            "DATATYPE_MISMATCH.NON_FOLDABLE_INPUT",
            "42K09",
            format!(
                "Cannot resolve \"{}\" due to data type mismatch: the input k should be a foldable int expression; however, got {}.",
                shown(),
                f.arg_name(2)
            ),
        )
        .into());
    };
    if !(1..=100_000).contains(&value) {
        return Err(crate::error::SparkError::analysis(
            "DATATYPE_MISMATCH.VALUE_OUT_OF_RANGE",
            "42K09",
            format!(
                "Cannot resolve \"{}\" due to data type mismatch: The `k` must be between [1, 100000] (current value = {value}).",
                shown()
            ),
        )
        .into());
    }
    Ok(value)
}

/// Skewness or (excess) kurtosis from the power sums of the non-NULL values, as Spark's
/// central moments: NULL without values or when they do not vary.
fn moments(mut f: FunctionInput, kurtosis: bool) -> PlanResult<Expr> {
    f.arity(1, 1)?;
    let x = cast(f.args.remove(0), DataType::Float64);
    let sum_of = |e: Expr| -> PlanResult<Expr> {
        let g = FunctionInput {
            args: vec![e],
            distinct: false,
            filter: f.filter.clone(),
            ..f.clone()
        };
        agg(g, df("sum"), 1, 1)
    };
    let pow = |k: i32| -> Expr { (1..k).fold(x.clone(), |acc, _| acc * x.clone()) };
    let n = sum_of(when_true(x.clone().is_not_null(), lit(1.0f64)))?;
    let s1 = sum_of(x.clone())?;
    let s2 = sum_of(pow(2))?;
    let s3 = sum_of(pow(3))?;
    let mean = s1.clone() / n.clone();
    let m2 = s2.clone() - s1.clone() * mean.clone();
    let m2_check = m2.clone();
    let value = if kurtosis {
        let s4 = sum_of(pow(4))?;
        // M4 = s4 - 4μ s3 + 6μ² s2 - 3nμ⁴ (with s1 = nμ)
        let mu2 = mean.clone() * mean.clone();
        let m4 = s4 - lit(4.0) * mean.clone() * s3 + lit(6.0) * mu2.clone() * s2
            - lit(3.0) * n.clone() * mu2.clone() * mu2;
        n.clone() * m4 / (m2.clone() * m2) - lit(3.0)
    } else {
        // M3 = s3 - 3μ s2 + 2nμ³
        let m3 = s3 - lit(3.0) * mean.clone() * s2
            + lit(2.0) * n.clone() * mean.clone() * mean.clone() * mean;
        let sqrt = super::df_udf("sqrt")?;
        sqrt.call(vec![n.clone()]) * m3 / (m2.clone() * sqrt.call(vec![m2]))
    };
    // NULL without values or when they do not vary (Spark's non-legacy answer).
    Ok(when_true(
        n.gt(lit(0.0)).and(m2_check.not_eq(lit(0.0))),
        value,
    ))
}

/// `existing AND more` (`more` without an existing FILTER).
fn and_filter(existing: Option<Expr>, more: Expr) -> Expr {
    match existing {
        Some(e) => e.and(more),
        None => more,
    }
}

/// The list of a group's non-NULL values of `x` (rows passing `filter`).
pub(super) fn present_values(x: Expr, filter: Option<Expr>) -> PlanResult<Expr> {
    let filter = and_filter(filter, x.clone().is_not_null());
    Ok(Expr::AggregateFunction(AggregateFunction::new_udf(
        df("array_agg")?,
        vec![x],
        false,
        Some(Box::new(filter)),
        vec![],
        None,
    )))
}

/// The list of a group's non-NULL values of a call's argument (its DISTINCT ones for a
/// DISTINCT call; rows passing its FILTER).
pub(super) fn call_values(mut f: FunctionInput) -> PlanResult<Expr> {
    let x = f.args.remove(0);
    let filter = and_filter(f.filter.take(), x.clone().is_not_null());
    Ok(Expr::AggregateFunction(AggregateFunction::new_udf(
        df("array_agg")?,
        vec![x],
        f.distinct,
        Some(Box::new(filter)),
        vec![],
        None,
    )))
}

/// The smallest value with at least a fraction `p` of the non-NULL values at or below it:
/// what Spark's `percentile_approx` answers within its accuracy (exactly, from the sorted
/// values of the group).
pub(crate) fn exact_percentile(
    x: Expr,
    p: Expr,
    filter: Option<Expr>,
    descending: bool,
) -> PlanResult<Expr> {
    let values = present_values(x, filter)?;
    let order = lit(if descending { "DESC" } else { "ASC" });
    let sorted = super::df_udf("array_sort")?.call(vec![values, order]);
    let n = cast(
        super::df_udf("cardinality")?.call(vec![sorted.clone()]),
        DataType::Float64,
    );
    let rank = super::df_udf("ceil")?.call(vec![cast(p, DataType::Float64) * n]);
    let index = super::df_udf("greatest")?.call(vec![cast(rank, DataType::Int64), lit(1i64)]);
    Ok(super::df_udf("array_element")?.call(vec![sorted, index]))
}

/// An aggregate of one percentile, or of each of a literal array of them.
pub(super) fn percentiles(
    f: FunctionInput,
    one: impl Fn(FunctionInput) -> PlanResult<Expr>,
    min: usize,
    max: usize,
) -> PlanResult<Expr> {
    f.arity(min, max)?;
    let p = f
        .args
        .get(1)
        .map(|p| super::nullability::unwrapped(p).clone());
    let list = match &p {
        Some(Expr::ScalarFunction(sf)) if sf.func.name() == "make_array" => Some(sf.args.clone()),
        Some(Expr::Literal(datafusion::common::ScalarValue::List(l), _)) => {
            let values = l.value(0);
            let mut out = Vec::new();
            for i in 0..values.len() {
                out.push(lit(datafusion::common::ScalarValue::try_from_array(
                    &values, i,
                )?));
            }
            Some(out)
        }
        _ => None,
    };
    let Some(list) = list else {
        return one(f);
    };
    let mut parts = Vec::with_capacity(list.len());
    for p in list {
        let mut g = f.clone();
        g.args[1] = p;
        parts.push(one(g)?);
    }
    // A group without values has no list (NULL), as a single percentile is NULL.
    let present = Expr::AggregateFunction(AggregateFunction::new_udf(
        datafusion::functions_aggregate::count::count_udaf(),
        vec![f.args[0].clone()],
        false,
        f.filter.clone().map(Box::new),
        vec![],
        None,
    ));
    Ok(when_true(
        present.gt(lit(0i64)),
        datafusion::functions_nested::expr_fn::make_array(parts),
    ))
}

/// `count(a, b, ...)` counts the rows where no argument is NULL (distinct tuples with
/// DISTINCT): one struct of the arguments, NULL when any of them is.
fn count_tuple(args: Vec<Expr>) -> Vec<Expr> {
    if args.len() < 2 {
        return args;
    }
    let all_present = args
        .iter()
        .map(|a| a.clone().is_not_null())
        .reduce(Expr::and)
        .unwrap_or_else(|| lit(true));
    let tuple = datafusion::functions::core::expr_fn::r#struct(args);
    vec![when_true(all_present, tuple)]
}
