//! Ranking and offset window functions (aggregates also work over windows).

use std::sync::Arc;

use datafusion::logical_expr::expr::WindowFunction;
use datafusion::logical_expr::{Expr, WindowFunctionDefinition, WindowUDF};

use arrow::datatypes::DataType;
use datafusion::logical_expr::cast;

use super::native::counter_diff::CounterDiff;
use super::{FunctionInput, FunctionKind, Naming, RegistryBuilder, check_type, datafusion_window};
use crate::error::{PlanError, PlanResult};

/// The name Spark Connect's `distributed_sequence_id` (which SQL does not know) is looked up
/// by (`proto::expression`).
pub const DISTRIBUTED_SEQUENCE_ID: &str = "__distributed_sequence_id";

pub fn register(b: &mut RegistryBuilder) {
    let int = |e: Expr| cast(e, DataType::Int32);
    add(b, "row_number", Naming::Call, move |f| {
        win(f, "row_number", 0, 0).map(int)
    });
    add(b, "rank", Naming::Fixed("RANK"), move |f| {
        win(f, "rank", 0, 0).map(int)
    });
    add(b, "dense_rank", Naming::Fixed("DENSE_RANK"), move |f| {
        win(f, "dense_rank", 0, 0).map(int)
    });
    add(b, "percent_rank", Naming::Fixed("PERCENT_RANK"), |f| {
        win(f, "percent_rank", 0, 0)
    });
    add(b, "cume_dist", Naming::Call, |f| win(f, "cume_dist", 0, 0));
    add(b, "ntile", Naming::Call, move |f| {
        win(f, "ntile", 1, 1).map(int)
    });
    add(b, "lag", Naming::Custom(offset_name("lag")), |f| {
        win(f, "lag", 1, 3)
    });
    add(b, "lead", Naming::Custom(offset_name("lead")), |f| {
        win(f, "lead", 1, 3)
    });
    // nth_value(x, n[, ignoreNulls])
    add(
        b,
        "nth_value",
        Naming::Custom(|w, a, _| {
            format!(
                "{}({})",
                w.to_lowercase(),
                a.iter().take(2).cloned().collect::<Vec<_>>().join(", ")
            )
        }),
        |mut f| {
            if f.args.len() == 3 {
                match f.args.pop() {
                    Some(Expr::Literal(
                        datafusion::common::ScalarValue::Boolean(Some(ignore)),
                        _,
                    )) => {
                        f.ignore_nulls = Some(ignore);
                    }
                    _ => {
                        return Err(crate::error::PlanError::Unsupported(
                            "nth_value with a non-literal ignoreNulls".into(),
                        ));
                    }
                }
            }
            win(f, "nth_value", 2, 2)
        },
    );
    register_spark43(b);
}

/// Spark 4.3's `counter_diff` and the row index of Spark Connect's `zipWithIndex`.
fn register_spark43(b: &mut RegistryBuilder) {
    // counter_diff(value[, startTime]): over the running frame (see `native::counter_diff`).
    add(b, "counter_diff", Naming::Call, |mut f| {
        f.arity(1, 2)?;
        // A NULL counts as a DOUBLE (Spark's implicit cast to a number).
        if f.types.first() == Some(&DataType::Null) {
            f.args[0] = cast(f.args[0].clone(), DataType::Float64);
        }
        check_type(&f, 0, &["NUMERIC"], |t| {
            t.is_integer() || t.is_floating() || matches!(t, DataType::Decimal128(..))
        })?;
        check_type(&f, 1, &["TIMESTAMP", "TIMESTAMP_NTZ"], |t| {
            matches!(t, DataType::Timestamp(..))
        })?;
        Ok(Expr::AggregateFunction(
            datafusion::logical_expr::expr::AggregateFunction::new_udf(
                CounterDiff::udaf(),
                f.args,
                false,
                None,
                vec![],
                None,
            ),
        ))
    });
    // distributed_sequence_id([persist]): each row's 0-based index in the order of the input's
    // partitions (their rows in order), from the partition ids the resolver adds.
    b.scalar_named(
        &[DISTRIBUTED_SEQUENCE_ID],
        Naming::Custom(|_, args, _| {
            let flag = args.first().map_or("false", String::as_str);
            format!("distributed_sequence_id({flag})")
        }),
        |f| {
            f.arity(0, 1)?;
            if !f.partition_ids {
                return Err(PlanError::InvalidPlan(
                    "distributed_sequence_id without the rows' partitions".into(),
                ));
            }
            use crate::logical::partition_ids::{PARTITION_ID, ROW_IN_PARTITION};
            use datafusion::logical_expr::{ExprFunctionExt, col, lit};
            let fun = WindowFunctionDefinition::WindowUDF(udwf("row_number")?);
            let number = Expr::WindowFunction(Box::new(WindowFunction::new(fun, vec![])))
                .order_by(vec![
                    col(PARTITION_ID).sort(true, false),
                    col(ROW_IN_PARTITION).sort(true, false),
                ])
                .build()?;
            Ok(cast(number, DataType::Int64) - lit(1i64))
        },
    );
}

fn add(
    b: &mut RegistryBuilder,
    name: &str,
    naming: Naming,
    build: impl Fn(FunctionInput) -> PlanResult<Expr> + Send + Sync + 'static,
) {
    b.add(&[name], FunctionKind::Window, naming, Arc::new(build));
}

/// `lag(x)` is shown as `lag(x, 1, NULL)`.
fn offset_name(name: &'static str) -> fn(&str, &[String], bool) -> String {
    let _ = name;
    |written, args, _| {
        let mut a: Vec<String> = args.to_vec();
        if a.len() < 2 {
            a.push("1".into());
        }
        if a.len() < 3 {
            a.push("NULL".into());
        }
        format!("{}({})", written.to_lowercase(), a.join(", "))
    }
}

fn udwf(name: &str) -> PlanResult<Arc<WindowUDF>> {
    datafusion_window(name).ok_or_else(|| PlanError::Unsupported(format!("window function {name}")))
}

/// A window function with an empty OVER clause; the resolver fills in the window.
fn win(f: FunctionInput, name: &str, min: usize, max: usize) -> PlanResult<Expr> {
    f.arity(min, max)?;
    let fun = WindowFunctionDefinition::WindowUDF(udwf(name)?);
    let mut w = WindowFunction::new(fun, f.args);
    if let Some(ignore) = f.ignore_nulls {
        w.params.null_treatment = Some(if ignore {
            datafusion::logical_expr::expr::NullTreatment::IgnoreNulls
        } else {
            datafusion::logical_expr::expr::NullTreatment::RespectNulls
        });
    }
    Ok(Expr::WindowFunction(Box::new(w)))
}
