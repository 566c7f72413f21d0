//! Arrays, maps and structs.

use datafusion::common::ScalarValue;
use datafusion::logical_expr::{Expr, lit};

use super::{FunctionInput, Naming, RegistryBuilder, add_df, add_spark, df_udf};
use crate::error::{PlanError, PlanResult, SparkError};

pub fn register(b: &mut RegistryBuilder) {
    // Generators are listed like other functions; the resolver plans them as unnests
    // (`resolver::generate`) before the registry is asked.
    b.add(
        &crate::resolver::GENERATORS,
        super::FunctionKind::Generator,
        Naming::Call,
        std::sync::Arc::new(|f: FunctionInput| {
            Err(crate::error::PlanError::InvalidPlan(format!(
                "the generator {} outside a SELECT list",
                f.name
            )))
        }),
    );
    b.scalar(&["array"], |f| Ok(df_udf("make_array")?.call(f.args)));
    b.scalar(&["map"], |f| {
        if f.args.len() % 2 != 0 {
            return Err(SparkError::analysis(
                "WRONG_NUM_ARGS.WITHOUT_SUGGESTION",
                "42605",
                format!(
                    "The `map` requires an even number of parameters but the actual number is {}.",
                    f.args.len()
                ),
            )
            .into());
        }
        let (keys, values): (Vec<Expr>, Vec<Expr>) = f
            .args
            .chunks(2)
            .map(|kv| (kv[0].clone(), kv[1].clone()))
            .unzip();
        let make = df_udf("make_array")?;
        Ok(df_udf("map")?.call(vec![make.call(keys), make.call(values)]))
    });
    b.scalar(&["named_struct"], |f| {
        Ok(df_udf("named_struct")?.call(f.args))
    });
    b.scalar_named(&["struct"], Naming::Call, build_struct);
    add_spark(b, &["size", "cardinality"], "size", 1, 1);
    add_spark(b, &["array_contains"], "array_contains", 2, 2);
    add_df(b, &["array_distinct"], "array_distinct", 1, 1);
    add_df(b, &["array_join"], "array_to_string", 2, 3);
    add_df(b, &["array_position"], "array_position", 2, 2);
    add_df(b, &["array_remove"], "array_remove_all", 2, 2);
    add_df(b, &["array_union"], "array_union", 2, 2);
    add_df(b, &["array_intersect"], "array_intersect", 2, 2);
    add_df(b, &["array_except"], "array_except", 2, 2);
    add_df(b, &["arrays_overlap"], "array_has_any", 2, 2);
    add_df(b, &["flatten"], "flatten", 1, 1);
    add_df(b, &["array_max"], "array_max", 1, 1);
    add_df(b, &["array_min"], "array_min", 1, 1);
    add_df(b, &["map_keys"], "map_keys", 1, 1);
    add_df(b, &["map_values"], "map_values", 1, 1);
    add_spark(b, &["map_from_arrays"], "map_from_arrays", 2, 2);
    add_spark(b, &["map_from_entries"], "map_from_entries", 1, 1);
    add_spark(b, &["slice"], "slice", 3, 3);
    add_spark(b, &["array_repeat"], "array_repeat", 2, 2);
    b.scalar(&["element_at"], |f| {
        f.arity(2, 2)?;
        match f.types.first() {
            Some(arrow::datatypes::DataType::Map(..)) => {
                Ok(datafusion::functions::core::get_field().call(f.args))
            }
            _ => Ok(crate::functions::udf::ArrayIndex::udf(true, f.config.ansi).call(f.args)),
        }
    });
    b.scalar(&["try_element_at"], |f| {
        f.arity(2, 2)?;
        match f.types.first() {
            Some(arrow::datatypes::DataType::Map(..)) => {
                Ok(datafusion::functions::core::get_field().call(f.args))
            }
            _ => Ok(crate::functions::udf::ArrayIndex::udf(true, false).call(f.args)),
        }
    });
    b.scalar(&["get"], |f| {
        f.arity(2, 2)?;
        Ok(crate::functions::udf::ArrayIndex::udf(false, false).call(f.args))
    });
    b.scalar(&["sort_array"], |f| {
        f.arity(1, 2)?;
        let asc = match f.args.get(1) {
            None => true,
            Some(Expr::Literal(ScalarValue::Boolean(Some(b)), _)) => *b,
            Some(_) => {
                return Err(PlanError::Unsupported(
                    "sort_array with a non-literal order".into(),
                ));
            }
        };
        let mut args = f.args;
        args.truncate(1);
        // Spark sorts nulls first ascending, last descending.
        args.push(lit(if asc { "ASC" } else { "DESC" }));
        args.push(lit(if asc { "NULLS FIRST" } else { "NULLS LAST" }));
        Ok(df_udf("array_sort")?.call(args))
    });
}

/// `struct(a, b)`: fields named after the columns they come from, else `colN`.
fn build_struct(f: FunctionInput) -> PlanResult<Expr> {
    let mut args = Vec::with_capacity(f.args.len() * 2);
    for (i, (e, name)) in f.args.into_iter().zip(f.field_names.iter()).enumerate() {
        let name = name.clone().unwrap_or_else(|| format!("col{}", i + 1));
        args.push(lit(name));
        args.push(e);
    }
    if args.is_empty() {
        return Err(PlanError::Unsupported("struct() without fields".into()));
    }
    Ok(df_udf("named_struct")?.call(args))
}
