//! Spark 4.3's vector functions over `ARRAY<FLOAT>` (computed in `native::vector`): the
//! distances and norms, and the aggregates `vector_sum`/`vector_avg` of a group's vectors.

use std::sync::Arc;

use arrow::datatypes::DataType;
use datafusion::logical_expr::{Expr, lit};

use super::native::{Native, NativeUdf, VectorOp};
use super::{FunctionInput, FunctionKind, Naming, RegistryBuilder, require_type};

fn is_float_vector(t: &DataType) -> bool {
    matches!(t, DataType::List(f) if f.data_type() == &DataType::Float32)
}

fn call(op: VectorOp, args: Vec<Expr>) -> Expr {
    NativeUdf::udf(Native::Vector { op }).call(args)
}

/// `vector_norm(v)` is named with its default degree.
fn with_degree(written: &str, args: &[String], _: bool) -> String {
    let mut args = args.to_vec();
    if args.len() < 2 {
        args.push("2.0".to_string());
    }
    format!("{}({})", written.to_lowercase(), args.join(", "))
}

pub fn register(b: &mut RegistryBuilder) {
    for op in [
        VectorOp::CosineSimilarity,
        VectorOp::InnerProduct,
        VectorOp::L2Distance,
    ] {
        b.scalar(&[op.function()], move |f| {
            f.arity(2, 2)?;
            for i in 0..2 {
                require_type(&f, i, &["ARRAY<FLOAT>"], is_float_vector)?;
            }
            Ok(call(op, f.args))
        });
    }
    for op in [VectorOp::Norm, VectorOp::Normalize] {
        b.scalar_named(
            &[op.function()],
            Naming::Custom(with_degree),
            move |mut f| {
                f.arity(1, 2)?;
                require_type(&f, 0, &["ARRAY<FLOAT>"], is_float_vector)?;
                require_type(&f, 1, &["FLOAT"], |t| *t == DataType::Float32)?;
                if f.args.len() < 2 {
                    f.args.push(lit(2.0f32));
                }
                Ok(call(op, f.args))
            },
        );
    }
    for op in [VectorOp::Sum, VectorOp::Avg] {
        b.add(
            &[op.function()],
            FunctionKind::Aggregate,
            Naming::Call,
            Arc::new(move |f: FunctionInput| {
                f.arity(1, 1)?;
                require_type(&f, 0, &["ARRAY<FLOAT>"], is_float_vector)?;
                let vectors = super::aggregate::call_values(f)?;
                Ok(call(op, vec![vectors]))
            }),
        );
    }
}
