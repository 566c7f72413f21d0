//! Spark's DataSketches functions: HLL (`hll_*`), Theta (`theta_*`) and KLL (`kll_*`)
//! sketches, built and read in `native::sketch`.

use arrow::datatypes::DataType;
use datafusion::common::ScalarValue;
use datafusion::logical_expr::Expr;
use datafusion::logical_expr::expr::AggregateFunction;

use super::aggregate::default_arg;
use super::native::{
    KllItem, Native, NativeUdf, SketchAgg, SketchAggKind, SketchOp, SummaryMode, TupleOp,
    TupleValue,
};
use super::{FunctionInput, Naming, RegistryBuilder, check_type};
use crate::error::{ErrorKind, PlanResult, SparkError};
use crate::types::is_binary;

const DEFAULT_LG_K: i64 = 12;
const DEFAULT_KLL_K: i64 = 200;

fn aggregate(kind: SketchAggKind, f: &mut FunctionInput) -> Expr {
    Expr::AggregateFunction(AggregateFunction::new_udf(
        SketchAgg::udaf(kind),
        vec![f.args.remove(0)],
        false,
        f.filter.take().map(Box::new),
        vec![],
        None,
    ))
}

fn scalar(op: SketchOp, args: Vec<Expr>) -> Expr {
    NativeUdf::udf(Native::Sketch { op }).call(args)
}

fn literal<'a>(f: &'a FunctionInput, i: usize) -> Option<&'a ScalarValue> {
    match f.args.get(i) {
        Some(Expr::Literal(v, _)) => Some(v),
        _ => None,
    }
}

fn literal_int(f: &FunctionInput, i: usize) -> Option<i64> {
    literal(f, i).and_then(|v| match v {
        ScalarValue::Int8(Some(n)) => Some(*n as i64),
        ScalarValue::Int16(Some(n)) => Some(*n as i64),
        ScalarValue::Int32(Some(n)) => Some(*n as i64),
        ScalarValue::Int64(Some(n)) => Some(*n),
        _ => None,
    })
}

fn runtime(class: &str, state: &str, message: String) -> crate::error::PlanError {
    SparkError::new(ErrorKind::Runtime, class, state, message, vec![]).into()
}

/// `lgConfigK` (argument 1, default 12): a constant within 4..=21.
fn hll_lg_k(f: &FunctionInput) -> PlanResult<u8> {
    if f.args.len() < 2 {
        return Ok(DEFAULT_LG_K as u8);
    }
    let Some(lg_k) = literal_int(f, 1) else {
        return Err(runtime(
            "HLL_K_MUST_BE_CONSTANT",
            "42K0E",
            format!(
                "Invalid call to `{}`; the `K` value must be a constant value, but got a non-constant expression.",
                f.name
            ),
        ));
    };
    if !(4..=21).contains(&lg_k) {
        return Err(runtime(
            "HLL_INVALID_LG_K",
            "22546",
            format!(
                "Invalid call to `{}`; the `lgConfigK` value must be between 4 and 21, inclusive: {lg_k}.",
                f.name
            ),
        ));
    }
    Ok(lg_k as u8)
}

/// `lgNomEntries` (argument `i`, default 12): a constant within 4..=26.
fn theta_lg_nom(f: &FunctionInput, i: usize) -> PlanResult<u8> {
    if f.args.len() <= i {
        return Ok(DEFAULT_LG_K as u8);
    }
    let Some(lg_nom) = literal_int(f, i) else {
        return Err(runtime(
            "THETA_LG_NOM_ENTRIES_MUST_BE_CONSTANT",
            "42K0E",
            format!(
                "Invalid call to `{}`; the `lgNomEntries` value must be a constant value, but got a non-constant expression.",
                f.name
            ),
        ));
    };
    if !(4..=26).contains(&lg_nom) {
        return Err(runtime(
            "SKETCH_INVALID_LG_NOM_ENTRIES",
            "22003",
            format!(
                "Invalid call to `{}`; the `lgNomEntries` value must be between 4 and 26, inclusive: {lg_nom}.",
                f.name
            ),
        ));
    }
    Ok(lg_nom as u8)
}

/// DataSketches' Rust library builds theta and tuple sketches of at least 2^5 nominal entries;
/// Spark's least, 2^4, answers "not supported" rather than a sketch of another size.
fn buildable(f: &FunctionInput, lg_nom: u8) -> PlanResult<u8> {
    if lg_nom < 5 {
        return Err(crate::error::PlanError::Unsupported(format!(
            "{} with lgNomEntries {lg_nom} (the least Ember builds is 5)",
            f.name
        )));
    }
    Ok(lg_nom)
}

/// `k` (argument 1, default 200): a constant within 8..=65535.
fn kll_k(f: &FunctionInput) -> PlanResult<u16> {
    if f.args.len() < 2 {
        return Ok(DEFAULT_KLL_K as u16);
    }
    let Some(k) = literal_int(f, 1) else {
        let arg = f.field_names.get(1).cloned().flatten().unwrap_or_default();
        return Err(SparkError::analysis(
            "DATATYPE_MISMATCH.NON_FOLDABLE_INPUT",
            "42K09",
            format!(
                "Cannot resolve \"{}\" due to data type mismatch: the input k should be a foldable int expression; however, got {arg}.",
                f.name
            ),
        )
        .into());
    };
    if !(8..=65535).contains(&k) {
        return Err(SparkError::analysis(
            "DATATYPE_MISMATCH.TYPE_CHECK_FAILURE_WITH_HINT",
            "42K09",
            format!(
                "Cannot resolve \"{}\" due to data type mismatch: [KLL_SKETCH_K_OUT_OF_RANGE] For function `{}`, the k parameter must be between 8 and 65535 (inclusive), but got {k}. SQLSTATE: 22003.",
                f.name, f.name
            ),
        )
        .into());
    }
    Ok(k as u16)
}

/// A boolean constant argument (`allowDifferentLgConfigK`), default false.
fn flag(f: &FunctionInput, i: usize) -> PlanResult<bool> {
    match f.args.get(i) {
        None => Ok(false),
        Some(Expr::Literal(ScalarValue::Boolean(b), _)) => Ok(b.unwrap_or(false)),
        Some(_) => Err(crate::error::PlanError::Unsupported(format!(
            "{} with a computed allowDifferentLgConfigK",
            f.name
        ))),
    }
}

fn is_string(t: &DataType) -> bool {
    matches!(t, DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View)
}

/// The key of a theta or tuple sketch: INT, BIGINT, FLOAT, DOUBLE, STRING, BINARY or an array of
/// INT or BIGINT (`widen`: other numbers too, as Spark's implicit casts for tuple sketches).
fn sketch_key(f: &FunctionInput, widen: bool) -> PlanResult<()> {
    let accepted = [
        "ARRAY<INT>",
        "ARRAY<BIGINT>",
        "BINARY",
        "DOUBLE",
        "FLOAT",
        "INT",
        "BIGINT",
        "STRING",
    ];
    check_type(f, 0, &accepted, |t| match t {
        DataType::List(item) => matches!(item.data_type(), DataType::Int32 | DataType::Int64),
        DataType::Int32 | DataType::Int64 | DataType::Float32 | DataType::Float64 => true,
        t => (widen && t.is_numeric()) || is_string(t) || is_binary(t),
    })
}

fn sketch_argument(f: &FunctionInput, i: usize) -> PlanResult<()> {
    check_type(f, i, &["BINARY"], is_binary)
}

pub fn register(b: &mut RegistryBuilder) {
    register_hll(b);
    register_theta(b);
    register_kll(b);
    register_tuple(b);
    register_count_min(b);
}

fn out_of_range(f: &FunctionInput, what: &str, range: &str, value: f64) -> crate::error::PlanError {
    SparkError::analysis(
        "DATATYPE_MISMATCH.VALUE_OUT_OF_RANGE",
        "42K09",
        format!(
            "Cannot resolve \"{}\" due to data type mismatch: The {what} must be between {range} (current value = {}D).",
            f.name,
            crate::literal::format_double(value)
        ),
    )
    .into()
}

/// A DOUBLE constant argument of `count_min_sketch`.
fn double_constant(f: &FunctionInput, i: usize, what: &str) -> PlanResult<f64> {
    check_type(f, i, &["DOUBLE"], |t| *t == DataType::Float64)?;
    match literal(f, i) {
        Some(ScalarValue::Float64(Some(v))) => Ok(*v),
        _ => {
            let arg = f.field_names.get(i).cloned().flatten().unwrap_or_default();
            Err(SparkError::analysis(
                "DATATYPE_MISMATCH.NON_FOLDABLE_INPUT",
                "42K09",
                format!(
                    "Cannot resolve \"{}\" due to data type mismatch: the input `{what}` should be a foldable \"DOUBLE\" expression; however, got \"{arg}\".",
                    f.name
                ),
            )
            .into())
        }
    }
}

fn register_count_min(b: &mut RegistryBuilder) {
    b.aggregate(&["count_min_sketch"], |mut f| {
        f.arity(4, 4)?;
        check_type(&f, 0, &["INTEGRAL", "STRING", "BINARY"], |t| {
            t.is_integer() || is_string(t) || is_binary(t)
        })?;
        let eps = double_constant(&f, 1, "eps")?;
        let confidence = double_constant(&f, 2, "confidence")?;
        // A BIGINT seed (PySpark's default is a random one) counts by its low 32 bits, as
        // Spark's `toInt`.
        check_type(&f, 3, &["INT"], |t| t.is_integer())?;
        let Some(seed) = literal_int(&f, 3) else {
            return Err(crate::error::PlanError::Unsupported(
                "count_min_sketch with a computed seed".into(),
            ));
        };
        if eps.is_nan() || eps <= 0.0 {
            return Err(out_of_range(
                &f,
                "eps",
                "(0.0, 1.7976931348623157E308]",
                eps,
            ));
        }
        if confidence.is_nan() || confidence <= 0.0 || confidence > 1.0 {
            return Err(out_of_range(&f, "confidence", "(0.0, 1.0]", confidence));
        }
        let (depth, width) = super::native::sketch::countmin::dimensions(eps, confidence);
        if depth.saturating_mul(width) > 1 << 26 {
            return Err(crate::error::PlanError::Unsupported(format!(
                "count_min_sketch of {depth} x {width} counters"
            )));
        }
        let kind = SketchAggKind::CountMin {
            depth: depth as u32,
            width: width as u32,
            seed: seed as i32,
        };
        Ok(aggregate(kind, &mut f))
    });
}

fn register_hll(b: &mut RegistryBuilder) {
    b.add_named_aggregate(
        &["hll_sketch_agg"],
        Naming::Custom(|w, a, _| default_arg(w, a, 1, "12")),
        |mut f| {
            f.arity(1, 2)?;
            check_type(&f, 0, &["INT", "BIGINT", "STRING", "BINARY"], |t| {
                matches!(
                    t,
                    DataType::Int8 | DataType::Int16 | DataType::Int32 | DataType::Int64
                ) || is_string(t)
                    || is_binary(t)
            })?;
            let lg_k = hll_lg_k(&f)?;
            Ok(aggregate(SketchAggKind::HllBuild { lg_k }, &mut f))
        },
    );
    b.add_named_aggregate(
        &["hll_union_agg"],
        Naming::Custom(|w, a, _| default_arg(w, a, 1, "false")),
        |mut f| {
            f.arity(1, 2)?;
            sketch_argument(&f, 0)?;
            let allow_different = flag(&f, 1)?;
            Ok(aggregate(
                SketchAggKind::HllUnion { allow_different },
                &mut f,
            ))
        },
    );
    b.scalar(&["hll_sketch_estimate"], |f| {
        f.arity(1, 1)?;
        sketch_argument(&f, 0)?;
        Ok(scalar(SketchOp::HllEstimate, f.args))
    });
    b.scalar_named(
        &["hll_union"],
        Naming::Custom(|w, a, _| default_arg(w, a, 2, "false")),
        |mut f| {
            f.arity(2, 3)?;
            sketch_argument(&f, 0)?;
            sketch_argument(&f, 1)?;
            let allow_different = flag(&f, 2)?;
            f.args.truncate(2);
            Ok(scalar(SketchOp::HllUnion { allow_different }, f.args))
        },
    );
}

fn register_theta(b: &mut RegistryBuilder) {
    b.add_named_aggregate(
        &["theta_sketch_agg"],
        Naming::Custom(|w, a, _| default_arg(w, a, 1, "12")),
        |mut f| {
            f.arity(1, 2)?;
            sketch_key(&f, false)?;
            let lg_nom = buildable(&f, theta_lg_nom(&f, 1)?)?;
            Ok(aggregate(SketchAggKind::ThetaBuild { lg_nom }, &mut f))
        },
    );
    b.add_named_aggregate(
        &["theta_union_agg"],
        Naming::Custom(|w, a, _| default_arg(w, a, 1, "12")),
        |mut f| {
            f.arity(1, 2)?;
            sketch_argument(&f, 0)?;
            let lg_nom = buildable(&f, theta_lg_nom(&f, 1)?)?;
            Ok(aggregate(SketchAggKind::ThetaUnion { lg_nom }, &mut f))
        },
    );
    b.aggregate(&["theta_intersection_agg"], |mut f| {
        f.arity(1, 1)?;
        sketch_argument(&f, 0)?;
        Ok(aggregate(SketchAggKind::ThetaIntersection, &mut f))
    });
    b.scalar(&["theta_sketch_estimate"], |f| {
        f.arity(1, 1)?;
        sketch_argument(&f, 0)?;
        Ok(scalar(SketchOp::ThetaEstimate, f.args))
    });
    b.scalar_named(
        &["theta_union"],
        Naming::Custom(|w, a, _| default_arg(w, a, 2, "12")),
        |mut f| {
            f.arity(2, 3)?;
            sketch_argument(&f, 0)?;
            sketch_argument(&f, 1)?;
            let lg_nom = buildable(&f, theta_lg_nom(&f, 2)?)?;
            f.args.truncate(2);
            Ok(scalar(SketchOp::ThetaUnion { lg_nom }, f.args))
        },
    );
    for (name, op) in [
        ("theta_intersection", SketchOp::ThetaIntersection),
        ("theta_difference", SketchOp::ThetaDifference),
    ] {
        b.scalar(&[name], move |f| {
            f.arity(2, 2)?;
            sketch_argument(&f, 0)?;
            sketch_argument(&f, 1)?;
            Ok(scalar(op.clone(), f.args))
        });
    }
}

fn register_kll(b: &mut RegistryBuilder) {
    for item in [KllItem::Bigint, KllItem::Float, KllItem::Double] {
        let suffix = item.suffix();
        let (accepted, takes): (&[&str], fn(&DataType) -> bool) = match item {
            KllItem::Bigint => (&["TINYINT", "INT", "BIGINT", "SMALLINT"], |t| {
                matches!(
                    t,
                    DataType::Int8 | DataType::Int16 | DataType::Int32 | DataType::Int64
                )
            }),
            KllItem::Float => (&["FLOAT"], |t| *t == DataType::Float32),
            KllItem::Double => (&["FLOAT", "DOUBLE"], |t| {
                matches!(t, DataType::Float32 | DataType::Float64)
            }),
        };
        b.aggregate(
            &[format!("kll_sketch_agg_{suffix}").as_str()],
            move |mut f| {
                f.arity(1, 2)?;
                check_type(&f, 0, accepted, takes)?;
                let k = kll_k(&f)?;
                Ok(aggregate(SketchAggKind::KllBuild { item, k }, &mut f))
            },
        );
        b.aggregate(
            &[format!("kll_merge_agg_{suffix}").as_str()],
            move |mut f| {
                f.arity(1, 2)?;
                sketch_argument(&f, 0)?;
                let k = kll_k(&f)?;
                Ok(aggregate(SketchAggKind::KllMerge { item, k }, &mut f))
            },
        );
        b.scalar(&[format!("kll_sketch_get_n_{suffix}").as_str()], move |f| {
            f.arity(1, 1)?;
            sketch_argument(&f, 0)?;
            Ok(scalar(SketchOp::KllN { item }, f.args))
        });
        b.scalar(
            &[format!("kll_sketch_to_string_{suffix}").as_str()],
            move |f| {
                f.arity(1, 1)?;
                sketch_argument(&f, 0)?;
                Ok(scalar(SketchOp::KllToString { item }, f.args))
            },
        );
        b.scalar(&[format!("kll_sketch_merge_{suffix}").as_str()], move |f| {
            f.arity(2, 2)?;
            sketch_argument(&f, 0)?;
            sketch_argument(&f, 1)?;
            Ok(scalar(SketchOp::KllMerge { item }, f.args))
        });
        b.scalar(
            &[format!("kll_sketch_get_quantile_{suffix}").as_str()],
            move |f| {
                f.arity(2, 2)?;
                sketch_argument(&f, 0)?;
                check_type(&f, 1, &["DOUBLE", "ARRAY<DOUBLE>"], |t| match t {
                    DataType::List(item) => numeric(item.data_type()),
                    t => numeric(t),
                })?;
                Ok(scalar(SketchOp::KllQuantile { item }, f.args))
            },
        );
        b.scalar(
            &[format!("kll_sketch_get_rank_{suffix}").as_str()],
            move |f| {
                f.arity(2, 2)?;
                sketch_argument(&f, 0)?;
                Ok(scalar(SketchOp::KllRank { item }, f.args))
            },
        );
    }
}

fn numeric(t: &DataType) -> bool {
    t.is_numeric() || *t == DataType::Null
}

/// `name(a, ...)` with Spark's defaults for the arguments after the `given` first ones.
fn with_defaults(w: &str, a: &[String], given: usize, defaults: &[&str]) -> String {
    let mut args = a.to_vec();
    for (i, d) in defaults.iter().enumerate() {
        if args.len() == given + i {
            args.push(d.to_string());
        }
    }
    format!("{}({})", w.to_lowercase(), args.join(", "))
}

fn type_check_failure(
    f: &FunctionInput,
    class: &str,
    state: &str,
    message: String,
) -> PlanResult<()> {
    Err(SparkError::analysis(
        "DATATYPE_MISMATCH.TYPE_CHECK_FAILURE_WITH_HINT",
        "42K09",
        format!(
            "Cannot resolve \"{}\" due to data type mismatch: [{class}] {message} SQLSTATE: {state}.",
            f.name
        ),
    )
    .into())
}

/// A tuple function's `lgNomEntries` (argument `i`, default 12).
fn tuple_lg_nom(f: &FunctionInput, i: usize) -> PlanResult<u8> {
    if f.args.len() <= i {
        return Ok(DEFAULT_LG_K as u8);
    }
    match literal_int(f, i) {
        Some(n) if (4..=26).contains(&n) => Ok(n as u8),
        Some(n) => {
            type_check_failure(
                f,
                "SKETCH_INVALID_LG_NOM_ENTRIES",
                "22003",
                format!(
                    "Invalid call to `{}`; the `lgNomEntries` value must be between 4 and 26, inclusive: {n}.",
                    f.name
                ),
            )?;
            Ok(0)
        }
        None => Err(crate::error::PlanError::Unsupported(format!(
            "{} with a computed lgNomEntries",
            f.name
        ))),
    }
}

/// A tuple function's mode (argument `i`, default sum).
fn tuple_mode(f: &FunctionInput, i: usize) -> PlanResult<SummaryMode> {
    let text = match f.args.get(i) {
        None => return Ok(SummaryMode::Sum),
        Some(Expr::Literal(ScalarValue::Utf8(Some(s)) | ScalarValue::Utf8View(Some(s)), _)) => s,
        Some(_) => {
            return Err(crate::error::PlanError::Unsupported(format!(
                "{} with a computed mode",
                f.name
            )));
        }
    };
    match SummaryMode::parse(text) {
        Some(mode) => Ok(mode),
        None => {
            type_check_failure(
                f,
                "TUPLE_INVALID_SKETCH_MODE",
                "22023",
                format!(
                    "Invalid call to `{}`: mode '{text}' is not supported. Valid modes are: sum, min, max, alwaysone.",
                    f.name
                ),
            )?;
            Ok(SummaryMode::Sum)
        }
    }
}

fn tuple_call(tuple: TupleOp, value: TupleValue, mut args: Vec<Expr>, keep: usize) -> Expr {
    args.truncate(keep);
    scalar(SketchOp::Tuple { tuple, value }, args)
}

fn register_tuple(b: &mut RegistryBuilder) {
    for value in [TupleValue::Double, TupleValue::Integer] {
        let suffix = value.suffix();
        b.add_named_aggregate(
            &[format!("tuple_sketch_agg_{suffix}").as_str()],
            Naming::Custom(|w, a, _| with_defaults(w, a, 2, &["12", "sum"])),
            move |mut f| {
                f.arity(2, 4)?;
                sketch_key(&f, true)?;
                check_type(
                    &f,
                    1,
                    &[if value == TupleValue::Double {
                        "DOUBLE"
                    } else {
                        "INT"
                    }],
                    |t| t.is_numeric() || is_string(t),
                )?;
                let lg_nom = buildable(&f, tuple_lg_nom(&f, 2)?)?;
                let mode = tuple_mode(&f, 3)?;
                f.args.truncate(2);
                // Summaries as Spark casts them (a malformed string fails the query).
                let target = match value {
                    TupleValue::Double => DataType::Float64,
                    TupleValue::Integer => DataType::Int32,
                };
                if f.types.get(1).is_some_and(is_string) {
                    f.args[1] = Expr::Cast(datafusion::logical_expr::Cast::new(
                        Box::new(f.args[1].clone()),
                        target,
                    ));
                }
                Ok(Expr::AggregateFunction(AggregateFunction::new_udf(
                    SketchAgg::udaf(SketchAggKind::TupleBuild {
                        value,
                        lg_nom,
                        mode,
                    }),
                    f.args,
                    false,
                    f.filter.map(Box::new),
                    vec![],
                    None,
                )))
            },
        );
        b.add_named_aggregate(
            &[format!("tuple_union_agg_{suffix}").as_str()],
            Naming::Custom(|w, a, _| with_defaults(w, a, 1, &["12", "sum"])),
            move |mut f| {
                f.arity(1, 3)?;
                sketch_argument(&f, 0)?;
                let lg_nom = buildable(&f, tuple_lg_nom(&f, 1)?)?;
                let mode = tuple_mode(&f, 2)?;
                Ok(aggregate(
                    SketchAggKind::TupleUnion {
                        value,
                        lg_nom,
                        mode,
                    },
                    &mut f,
                ))
            },
        );
        b.add_named_aggregate(
            &[format!("tuple_intersection_agg_{suffix}").as_str()],
            Naming::Custom(|w, a, _| with_defaults(w, a, 1, &["sum"])),
            move |mut f| {
                f.arity(1, 2)?;
                sketch_argument(&f, 0)?;
                let mode = tuple_mode(&f, 1)?;
                Ok(aggregate(
                    SketchAggKind::TupleIntersection { value, mode },
                    &mut f,
                ))
            },
        );
        for (name, op) in [("estimate", TupleOp::Estimate), ("theta", TupleOp::Theta)] {
            b.scalar(
                &[format!("tuple_sketch_{name}_{suffix}").as_str()],
                move |f| {
                    f.arity(1, 1)?;
                    sketch_argument(&f, 0)?;
                    Ok(tuple_call(op.clone(), value, f.args, 1))
                },
            );
        }
        b.scalar_named(
            &[format!("tuple_sketch_summary_{suffix}").as_str()],
            Naming::Custom(|w, a, _| with_defaults(w, a, 1, &["sum"])),
            move |f| {
                f.arity(1, 2)?;
                sketch_argument(&f, 0)?;
                let mode = tuple_mode(&f, 1)?;
                Ok(tuple_call(TupleOp::Summary { mode }, value, f.args, 1))
            },
        );
        for theta in [false, true] {
            let infix = if theta { "_theta" } else { "" };
            b.scalar_named(
                &[format!("tuple_union{infix}_{suffix}").as_str()],
                Naming::Custom(|w, a, _| with_defaults(w, a, 2, &["12", "sum"])),
                move |f| {
                    f.arity(2, 4)?;
                    sketch_argument(&f, 0)?;
                    sketch_argument(&f, 1)?;
                    let lg_nom = tuple_lg_nom(&f, 2)?;
                    let mode = tuple_mode(&f, 3)?;
                    let op = if theta {
                        TupleOp::UnionTheta { lg_nom, mode }
                    } else {
                        TupleOp::Union { lg_nom, mode }
                    };
                    Ok(tuple_call(op, value, f.args, 2))
                },
            );
            b.scalar_named(
                &[format!("tuple_intersection{infix}_{suffix}").as_str()],
                Naming::Custom(|w, a, _| with_defaults(w, a, 2, &["sum"])),
                move |f| {
                    f.arity(2, 3)?;
                    sketch_argument(&f, 0)?;
                    sketch_argument(&f, 1)?;
                    let mode = tuple_mode(&f, 2)?;
                    let op = if theta {
                        TupleOp::IntersectionTheta
                    } else {
                        TupleOp::Intersection { mode }
                    };
                    Ok(tuple_call(op, value, f.args, 2))
                },
            );
            b.scalar(
                &[format!("tuple_difference{infix}_{suffix}").as_str()],
                move |f| {
                    f.arity(2, 2)?;
                    sketch_argument(&f, 0)?;
                    sketch_argument(&f, 1)?;
                    let op = if theta {
                        TupleOp::DifferenceTheta
                    } else {
                        TupleOp::Difference
                    };
                    Ok(tuple_call(op, value, f.args, 2))
                },
            );
        }
    }
}
