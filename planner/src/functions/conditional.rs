//! Conditional functions: `when`/CASE, `if`, `coalesce`, `nvl`, `nullif`, ...

use arrow::datatypes::DataType;
use datafusion::common::ScalarValue;
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
    // nullif(a, b): `a`, NULL where it equals `b`; of `a`'s type (Spark's `If(a = b, NULL,
    // a)`), where DataFusion's nullif takes the common type.
    b.scalar(&["nullif"], |f| {
        f.arity(2, 2)?;
        if let [a, b] = f.types.as_slice() {
            super::comparison::check_comparable(a, b, "=", f.shown())?;
        }
        // (Outside ANSI mode a boolean and a number compare as the number: `true` kept.)
        if !f.config.ansi
            && let [DataType::Boolean, t] = f.types.as_slice()
            && t.is_numeric()
        {
            let (mut args, mut types) = (f.args.clone(), f.types.clone());
            super::comparison::booleans_as_numbers(&mut args, &mut types);
            let (a, b) = two(f)?;
            let null = Expr::Literal(ScalarValue::Boolean(None), None);
            return Ok(super::when(args[0].clone().eq(b), null, Some(a)));
        }
        // A DATE and a TIMESTAMP: compared as timestamps, the DATE kept.
        if let [DataType::Date32, DataType::Timestamp(..)] = f.types.as_slice() {
            let (mut args, mut types) = (f.args.clone(), f.types.clone());
            let time_zone = f.config.time_zone.clone();
            super::comparison::dates_as_timestamps(&mut args, &mut types, &time_zone);
            let (a, b) = two(f)?;
            let null = Expr::Literal(ScalarValue::Date32(None), None);
            return Ok(super::when(args[0].clone().eq(b), null, Some(a)));
        }
        let numbers = f
            .types
            .iter()
            .all(|t| t.is_numeric() || *t == DataType::Null);
        match f.types.first() {
            Some(t) if numbers => {
                let t = t.clone();
                let (a, b) = two(f)?;
                null_unless_differs(a, b, &t)
            }
            _ => super::df_udf("nullif").map(|n| n.call(f.args)),
        }
    });
    b.scalar(&["nullifzero"], |f| {
        let t = f.types.first().cloned().unwrap_or(DataType::Null);
        super::comparison::check_comparable(&t, &DataType::Int32, "=", f.shown())?;
        let x = one(f)?;
        if t.is_numeric() || t == DataType::Null {
            return null_unless_differs(x, lit(0), &t);
        }
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

/// `a`, a NULL of type `t` (`a`'s) where `a = b`.
fn null_unless_differs(a: Expr, b: Expr, t: &DataType) -> PlanResult<Expr> {
    if *t == DataType::Null {
        return Ok(a);
    }
    let null = Expr::Literal(ScalarValue::try_from(t)?, None);
    Ok(super::when(a.clone().eq(b), null, Some(a)))
}
