//! Conditional functions: `when`/CASE, `if`, `coalesce`, `nvl`, `nullif`, ...

use datafusion::logical_expr::{Expr, expr::Case, lit};

use super::operators::{one, two};
use super::{FunctionInput, Naming, RegistryBuilder, add_df};
use crate::error::{PlanError, PlanResult};

pub fn register(b: &mut RegistryBuilder) {
    b.scalar(&["raise_error"], |f| {
        f.arity(1, 1)?;
        Ok(super::udf::RaiseError::udf().call(f.args))
    });
    b.scalar_named(&["when"], Naming::Custom(case_name), |f| {
        let mut args = f.args;
        let otherwise = if args.len() % 2 == 1 {
            args.pop()
        } else {
            None
        };
        let mut when_then = Vec::new();
        let mut it = args.into_iter();
        while let (Some(c), Some(v)) = (it.next(), it.next()) {
            when_then.push((Box::new(c), Box::new(v)));
        }
        if when_then.is_empty() {
            return Err(PlanError::InvalidPlan("when without branches".into()));
        }
        Ok(Expr::Case(Case::new(
            None,
            when_then,
            otherwise.map(Box::new),
        )))
    });
    b.scalar_named(
        &["if", "iff"],
        Naming::Custom(|_, a, _| format!("(IF({}))", a.join(", "))),
        |f| {
            f.arity(3, 3)?;
            super::check_type(&f, 0, &["BOOLEAN"], |t| {
                *t == arrow::datatypes::DataType::Boolean
            })?;
            let mut a = f.args.into_iter();
            let (Some(c), Some(t), Some(e)) = (a.next(), a.next(), a.next()) else {
                return Err(PlanError::InvalidPlan("if".into()));
            };
            Ok(Expr::Case(Case::new(
                None,
                vec![(Box::new(c), Box::new(t))],
                Some(Box::new(e)),
            )))
        },
    );
    add_df(b, &["coalesce"], "coalesce", 1, usize::MAX);
    b.scalar(&["nvl", "ifnull"], |f| {
        let (a, b2) = two(f)?;
        super::df_udf("coalesce").map(|c| c.call(vec![a, b2]))
    });
    // The argument's type as Spark names it; a constant of the query.
    b.scalar(&["typeof"], |f| {
        f.arity(1, 1)?;
        let t = f
            .types
            .first()
            .cloned()
            .unwrap_or(arrow::datatypes::DataType::Null);
        Ok(lit(crate::types::simple_string(&t)))
    });
    b.scalar(&["nvl2"], |f| {
        f.arity(3, 3)?;
        let mut a = f.args.into_iter();
        let (Some(x), Some(y), Some(z)) = (a.next(), a.next(), a.next()) else {
            return Err(PlanError::InvalidPlan("nvl2".into()));
        };
        Ok(Expr::Case(Case::new(
            None,
            vec![(Box::new(x.is_not_null()), Box::new(y))],
            Some(Box::new(z)),
        )))
    });
    add_df(b, &["nullif"], "nullif", 2, 2);
    b.scalar(&["nullifzero"], |f| {
        let x = one(f)?;
        super::df_udf("nullif").map(|n| n.call(vec![x, lit(0)]))
    });
    b.scalar(&["zeroifnull"], |f| {
        let x = one(f)?;
        super::df_udf("coalesce").map(|c| c.call(vec![x, lit(0)]))
    });
    // assert_true(c[, message]): NULL, or USER_RAISED_EXCEPTION when c is not true (the
    // resolver gives the default message, `'c' is not true!`).
    b.scalar_named(
        &["assert_true"],
        Naming::Custom(|w, a, _| format!("{}({})", w.to_lowercase(), a.join(", "))),
        |f: FunctionInput| -> PlanResult<Expr> {
            f.arity(1, 2)?;
            let mut args = f.args.into_iter();
            let (Some(c), Some(message)) = (args.next(), args.next()) else {
                return Err(PlanError::InvalidPlan(
                    "assert_true without a message".into(),
                ));
            };
            Ok(Expr::Case(Case::new(
                None,
                vec![(
                    Box::new(c),
                    Box::new(Expr::Literal(datafusion::common::ScalarValue::Null, None)),
                )],
                Some(Box::new(super::udf::RaiseError::udf().call(vec![message]))),
            )))
        },
    );
}

fn case_name(_: &str, a: &[String], _: bool) -> String {
    let mut out = String::from("CASE");
    let mut i = 0;
    while i + 1 < a.len() {
        out.push_str(&format!(" WHEN {} THEN {}", a[i], a[i + 1]));
        i += 2;
    }
    if i < a.len() {
        out.push_str(&format!(" ELSE {}", a[i]));
    }
    out.push_str(" END");
    out
}
