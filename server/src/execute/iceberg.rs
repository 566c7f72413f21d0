//! Writes to Iceberg tables (`df.write.format("iceberg").mode(...).save(location)`).
//!
//! The query runs as any other job (in the cluster modes on the workers) and its batches come
//! back to the driver, which aligns them with the table's columns by name (cast to the
//! table's types; a table column the data lacks is NULL; a data column the table lacks is an
//! error) and commits them ([`iceberg_write::commit`]). A missing table is created from the
//! data's schema (unpartitioned, format version 2).

use arrow::datatypes::Field;
use datafusion::common::ScalarValue;
use datafusion::logical_expr::{Expr, cast, lit};
use ember_planner::SparkError;
use ember_planner::datasource::{delta, iceberg, iceberg_write};
use ember_planner::spec::{SaveMode, WriteSpec};

use super::write::analysis;
use crate::error::ServerResult;
use crate::state::RequestContext;

/// `df.write.format("iceberg")...save(location)`.
pub async fn save(ctx: &RequestContext, spec: WriteSpec, path: &str) -> ServerResult<()> {
    ember_planner::datasource::check_allowed(path).map_err(|e| e.into_spark())?;
    let exists = iceberg::is_iceberg_table(path);
    if exists {
        match spec.mode {
            SaveMode::ErrorIfExists => {
                return Err(analysis(
                    "TABLE_OR_VIEW_ALREADY_EXISTS",
                    "42P07",
                    format!("Cannot create table or view {path} because it already exists."),
                    vec![("relationName", path.to_string())],
                )
                .into());
            }
            SaveMode::Ignore => return Ok(()),
            SaveMode::Append | SaveMode::Overwrite => {}
        }
    }
    if !spec.partition_by.is_empty() {
        return Err(SparkError::unsupported("writing partitioned Iceberg tables").into());
    }
    let query = ctx.resolve(&spec.input)?;
    let schema = query.plan.schema().clone();
    let data: Vec<Field> = query
        .names
        .iter()
        .zip(schema.fields())
        .map(|(n, f)| Field::new(n, delta::spark_type(f.data_type()), true))
        .collect();
    if !exists {
        iceberg_write::create_table(path, &data).map_err(|e| e.into_spark())?;
    }
    let table = iceberg::load(path).map_err(|e| e.into_spark())?;
    let fields = iceberg_write::table_fields(&table).map_err(|e| e.into_spark())?;
    for name in &query.names {
        if !fields.iter().any(|f| f.name().eq_ignore_ascii_case(name)) {
            return Err(analysis(
                "INCOMPATIBLE_DATA_FOR_TABLE.EXTRA_COLUMNS",
                "KD000",
                format!(
                    "Cannot write incompatible data for the table {path}: Cannot find data for the output column `{name}`."
                ),
                vec![],
            )
            .into());
        }
    }
    let mut exprs = vec![];
    for f in &fields {
        let found = query
            .names
            .iter()
            .position(|n| n.eq_ignore_ascii_case(f.name()));
        let value = match found {
            Some(i) => Expr::Column(schema.columns()[i].clone()),
            None if f.is_nullable() => lit(ScalarValue::Null),
            None => {
                return Err(analysis(
                    "INCOMPATIBLE_DATA_FOR_TABLE.CANNOT_FIND_DATA",
                    "KD000",
                    format!(
                        "Cannot write incompatible data for the table {path}: Cannot find data for the output column `{}`.",
                        f.name()
                    ),
                    vec![],
                )
                .into());
            }
        };
        exprs.push(cast(value, f.data_type().clone()).alias(f.name()));
    }
    let batches = super::delta::run_projected(ctx, query.plan, exprs).await?;
    iceberg_write::commit(path, &batches, spec.mode == SaveMode::Overwrite)
        .map_err(|e| e.into_spark())?;
    Ok(())
}
