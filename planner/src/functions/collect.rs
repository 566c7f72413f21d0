//! The collecting aggregates (`collect_list`, `collect_set`) as Spark types them, and the
//! aggregates whose answer depends on the order of their rows: without an ordering of their
//! own they read the rows in the input's order (its partitions in turn, each in order), as
//! Spark's do, not in the order a shuffle happens to deliver them. The resolver numbers the
//! input's rows for them (`with_partition_ids`) and they order by those numbers.

use std::sync::Arc;

use arrow::datatypes::DataType;
use datafusion::logical_expr::Expr;

use super::FunctionInput;
use super::aggregate::{agg, df, spark};
use crate::error::PlanResult;

/// The aggregates that read their rows in the input's order.
/// (`string_agg`/`listagg` are not among them: DataFusion cannot run them ordered beside
/// another ordered aggregate, `listagg(...) WITHIN GROUP (ORDER BY ...)`.)
pub const IN_INPUT_ORDER: [&str; 7] = [
    "first",
    "first_value",
    "last",
    "last_value",
    "any_value",
    "collect_list",
    "array_agg",
];

/// The ordering of the input's rows (see [`IN_INPUT_ORDER`]).
pub fn input_order() -> Vec<datafusion::logical_expr::expr::Sort> {
    use crate::logical::partition_ids::{PARTITION_ID, ROW_IN_PARTITION};
    vec![
        datafusion::logical_expr::col(PARTITION_ID).sort(true, false),
        datafusion::logical_expr::col(ROW_IN_PARTITION).sort(true, false),
    ]
}

/// Order `f`'s rows as the input holds them, where the input numbers them and `f` has no
/// ordering of its own (nor DISTINCT).
pub(super) fn in_input_order(f: &mut FunctionInput) -> bool {
    // (DataFusion orders a DISTINCT aggregate only by its arguments.)
    if f.partition_ids && f.order_by.is_empty() && !f.distinct {
        f.order_by = input_order();
        true
    } else {
        false
    }
}

/// `collect_list(x)`: never NULL, without NULL elements (it skips NULLs), as Spark states
/// (`ARRAY<T>` with `containsNull = false`); in the input's order where the input numbers
/// its rows: DataFusion's ordered array_agg without its NULLs (none make an empty list),
/// a FILTER making the values it leaves out NULL (a window's filter does not reach the
/// workers, see `resolver::window::without_filter`).
pub(super) fn collect_list(mut f: FunctionInput) -> PlanResult<Expr> {
    let element = f.types.first().cloned();
    if f.args.len() != 1 || !in_input_order(&mut f) {
        let call = agg(f, spark("collect_list"), 1, 1)?;
        return not_null_list(call, element);
    }
    if let Some(p) = f.filter.take() {
        f.args[0] = datafusion::logical_expr::when(p, f.args[0].clone()).end()?;
    }
    let typed = element.clone().unwrap_or(DataType::Null);
    let ordered = agg(f, df("array_agg"), 1, 1)?;
    let ordered = super::df_udf("array_compact")?.call(vec![ordered]);
    let empty = Expr::Literal(
        datafusion::common::ScalarValue::List(datafusion::common::ScalarValue::new_list_nullable(
            &[],
            &typed,
        )),
        None,
    );
    let call = super::df_udf("coalesce")?.call(vec![ordered, empty]);
    not_null_list(call, element)
}

/// `collect_set(x)`: typed as `collect_list`, in the order of Spark's hash set.
pub(super) fn collect_set(f: FunctionInput) -> PlanResult<Expr> {
    let element = f.types.first().cloned();
    let call = agg(f, spark("collect_set"), 1, 1)?;
    let call = super::native::NativeUdf::udf(super::native::Native::HashSetOrder).call(vec![call]);
    not_null_list(call, element)
}

/// A collected list as Spark types it: never NULL, without NULL elements.
fn not_null_list(call: Expr, element: Option<DataType>) -> PlanResult<Expr> {
    use super::nested_nullability::NestedType;
    use super::nullability::SparkNullability;
    // (A collected list of untyped NULLs is always empty: its NULL items are as absent.)
    let Some(element) = element else {
        return Ok(call);
    };
    let list = DataType::List(Arc::new(arrow::datatypes::Field::new_list_field(
        element, false,
    )));
    let typed = NestedType::udf(list).call(vec![call]);
    Ok(SparkNullability::udf(false).call(vec![typed]))
}
