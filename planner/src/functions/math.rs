//! Math functions. Spark prints some of them with fixed upper-case names (`SQRT`, `POWER`).

use arrow::datatypes::DataType;
use datafusion::logical_expr::{Expr, cast};

use super::operators::{one, two};
use super::{Naming, RegistryBuilder, add_df, add_df_named, add_spark};
use crate::error::PlanResult;

pub fn register(b: &mut RegistryBuilder) {
    add_spark(b, &["abs"], "abs", 1, 1);
    double_fn(b, &["sqrt"], Naming::Fixed("SQRT"), "sqrt");
    double_fn(b, &["exp"], Naming::Fixed("EXP"), "exp");
    double_fn(b, &["ln"], Naming::Call, "ln");
    double_fn(b, &["log10"], Naming::Fixed("LOG10"), "log10");
    double_fn(b, &["log2"], Naming::Fixed("LOG2"), "log2");
    double_fn(b, &["cbrt"], Naming::Fixed("CBRT"), "cbrt");
    double_fn(b, &["sin"], Naming::Fixed("SIN"), "sin");
    double_fn(b, &["cos"], Naming::Fixed("COS"), "cos");
    double_fn(b, &["tan"], Naming::Fixed("TAN"), "tan");
    double_fn(b, &["asin"], Naming::Fixed("ASIN"), "asin");
    double_fn(b, &["acos"], Naming::Fixed("ACOS"), "acos");
    double_fn(b, &["atan"], Naming::Fixed("ATAN"), "atan");
    double_fn(b, &["sinh"], Naming::Fixed("SINH"), "sinh");
    double_fn(b, &["cosh"], Naming::Fixed("COSH"), "cosh");
    double_fn(b, &["tanh"], Naming::Fixed("TANH"), "tanh");
    double_fn(b, &["degrees"], Naming::Fixed("DEGREES"), "degrees");
    double_fn(b, &["radians"], Naming::Fixed("RADIANS"), "radians");
    double_fn(b, &["signum", "sign"], Naming::Fixed("SIGNUM"), "signum");
    b.scalar_named(&["log"], Naming::Fixed("LOG"), |f| {
        f.arity(1, 2)?;
        let args: Vec<Expr> = f
            .args
            .into_iter()
            .map(|a| cast(a, DataType::Float64))
            .collect();
        if args.len() == 1 {
            super::df_udf("ln").map(|u| u.call(args))
        } else {
            super::df_udf("log").map(|u| u.call(args))
        }
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
    add_spark(b, &["round"], "round", 1, 2);
    add_spark(b, &["floor"], "floor", 1, 2);
    add_spark(b, &["ceil", "ceiling"], "ceil", 1, 2);
    add_spark(b, &["pmod"], "pmod", 2, 2);
    add_spark(b, &["factorial"], "factorial", 1, 1);
    add_spark(b, &["expm1"], "expm1", 1, 1);
    add_spark(b, &["hypot"], "hypot", 2, 2);
    add_spark(b, &["rint"], "rint", 1, 1);
    add_spark(b, &["bin"], "bin", 1, 1);
    add_df(b, &["greatest"], "greatest", 2, usize::MAX);
    add_df(b, &["least"], "least", 2, usize::MAX);
    add_df_named(b, &["pi"], Naming::Fixed("PI"), "pi", 0, 0);
    b.scalar_named(&["e"], Naming::Fixed("E"), |f| {
        f.arity(0, 0)?;
        Ok(datafusion::logical_expr::lit(std::f64::consts::E))
    });
    add_df(b, &["rand", "random"], "random", 0, 1);
}

fn double_fn(b: &mut RegistryBuilder, names: &[&str], naming: Naming, df_name: &'static str) {
    b.scalar_named(names, naming, move |f| -> PlanResult<Expr> {
        let x = one(f)?;
        super::df_udf(df_name).map(|u| u.call(vec![cast(x, DataType::Float64)]))
    });
}
