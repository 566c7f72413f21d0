//! Ranking and offset window functions (aggregates also work over windows).

use std::sync::Arc;

use datafusion::logical_expr::expr::WindowFunction;
use datafusion::logical_expr::{Expr, WindowFunctionDefinition, WindowUDF};

use super::{FunctionInput, RegistryBuilder, datafusion_window};
use crate::error::{PlanError, PlanResult};

pub fn register(b: &mut RegistryBuilder) {
    b.window(&["row_number"], |f| win(f, "row_number", 0, 0));
    b.window(&["rank"], |f| win(f, "rank", 0, 0));
    b.window(&["dense_rank"], |f| win(f, "dense_rank", 0, 0));
    b.window(&["percent_rank"], |f| win(f, "percent_rank", 0, 0));
    b.window(&["cume_dist"], |f| win(f, "cume_dist", 0, 0));
    b.window(&["ntile"], |f| win(f, "ntile", 1, 1));
    b.window(&["lag"], |f| win(f, "lag", 1, 3));
    b.window(&["lead"], |f| win(f, "lead", 1, 3));
    b.window(&["nth_value"], |f| win(f, "nth_value", 2, 2));
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
