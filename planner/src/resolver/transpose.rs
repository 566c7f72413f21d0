//! `df.transpose(indexColumn)` (Spark 4's Transpose): the non-index columns become rows
//! (named in a `key` column) and the index column's values, in ascending order, become the
//! columns. The output's columns depend on the data, so the input is read at planning time,
//! as Spark does, up to `spark.sql.transposeMaxValues` (500) rows.

use std::sync::Arc;

use arrow::array::{ArrayRef, RecordBatch, StringArray};
use arrow::datatypes::{DataType, Field, Schema};
use datafusion::logical_expr::{Expr, LogicalPlan, LogicalPlanBuilder, cast};

use super::Resolver;
use crate::error::{PlanError, PlanResult, SparkError};
use crate::spec::{Expr as SExpr, LocalData};

/// Spark's default `spark.sql.transposeMaxValues`.
const MAX_VALUES: usize = 500;

/// The type all value columns widen to, or Spark's TRANSPOSE_NO_LEAST_COMMON_TYPE.
fn least_common_type(types: &[DataType]) -> PlanResult<DataType> {
    let mut out = DataType::Null;
    for t in types {
        out = match (&out, t) {
            (DataType::Null, t) => t.clone(),
            (o, DataType::Null) => o.clone(),
            (o, t) if o == t => o.clone(),
            (o, t)
                if (o.is_numeric() && t.is_numeric()) || (o.is_temporal() && t.is_temporal()) =>
            {
                datafusion::logical_expr::type_coercion::binary::comparison_coercion(o, t)
                    .ok_or_else(|| no_common_type(o, t))?
            }
            (o, t) => return Err(no_common_type(o, t)),
        };
    }
    Ok(out)
}

fn no_common_type(a: &DataType, b: &DataType) -> PlanError {
    let name = |t: &DataType| crate::types::simple_string(t).to_uppercase();
    SparkError::analysis(
        "TRANSPOSE_NO_LEAST_COMMON_TYPE",
        "42K09",
        format!(
            "Transpose requires non-index columns to share a least common type, but \"{}\" and \"{}\" do not.",
            name(a),
            name(b)
        ),
    )
    .into()
}

impl Resolver<'_> {
    pub(crate) fn resolve_transpose(
        &mut self,
        input: LogicalPlan,
        index: Option<&SExpr>,
    ) -> PlanResult<LogicalPlan> {
        let schema = input.schema().clone();
        let (index, index_column) = match index {
            Some(e) => {
                let (resolved, _) = self.resolve_expr(e, &schema)?;
                let column = match &resolved {
                    Expr::Column(c) => Some(c.name.clone()),
                    _ => None,
                };
                (resolved, column)
            }
            None => {
                let Some(first) = schema.fields().first() else {
                    return Err(PlanError::InvalidPlan("transpose of no columns".into()));
                };
                (Self::column(first.name()), Some(first.name().clone()))
            }
        };
        let values: Vec<(String, DataType)> = schema
            .fields()
            .iter()
            .filter(|f| Some(f.name()) != index_column.as_ref())
            .map(|f| (f.name().clone(), f.data_type().clone()))
            .collect();
        let types: Vec<DataType> = values.iter().map(|(_, t)| t.clone()).collect();
        let value_type = match least_common_type(&types)? {
            DataType::Null => DataType::Utf8,
            t => t,
        };
        let mut projection = vec![cast(index.clone(), DataType::Utf8).alias("__index")];
        for (i, (name, _)) in values.iter().enumerate() {
            projection.push(cast(Self::column(name), value_type.clone()).alias(format!("v{i}")));
        }
        let rows = LogicalPlanBuilder::from(input)
            .filter(index.clone().is_not_null())?
            .sort(vec![index.sort(true, true)])?
            .limit(0, Some(MAX_VALUES + 1))?
            .project(projection)?
            .build()?;
        let batches = self.collect_at_planning(&rows, "transpose")?;
        let row_count: usize = batches.iter().map(|b| b.num_rows()).sum();
        if row_count > MAX_VALUES {
            return Err(SparkError::analysis(
                "TRANSPOSE_EXCEED_ROW_LIMIT",
                "54006",
                format!("Number of rows exceeds the allowed limit of {MAX_VALUES} for TRANSPOSE. If this was intended, set spark.sql.transposeMaxValues to at least the current row count."),
            )
            .into());
        }
        let names: Vec<String> = values.iter().map(|(n, _)| self.info(n).name).collect();
        let mut fields = vec![Field::new("key", DataType::Utf8, false)];
        let mut columns: Vec<ArrayRef> = vec![Arc::new(StringArray::from(names.clone()))];
        for batch in &batches {
            let index_names = batch
                .column(0)
                .as_any()
                .downcast_ref::<StringArray>()
                .ok_or_else(|| PlanError::InvalidPlan("transpose index".into()))?;
            for row in 0..batch.num_rows() {
                let cells: Vec<ArrayRef> = (0..values.len())
                    .map(|v| batch.column(v + 1).slice(row, 1))
                    .collect();
                let column = if cells.is_empty() {
                    arrow::array::new_empty_array(&value_type)
                } else {
                    let refs: Vec<&dyn arrow::array::Array> =
                        cells.iter().map(|c| c.as_ref()).collect();
                    arrow::compute::concat(&refs).map_err(|e| PlanError::DataFusion(e.into()))?
                };
                fields.push(Field::new(index_names.value(row), value_type.clone(), true));
                columns.push(column);
            }
        }
        let schema = Arc::new(Schema::new(fields));
        let batch = RecordBatch::try_new(schema.clone(), columns)
            .map_err(|e| PlanError::DataFusion(e.into()))?;
        self.resolve_local_relation(
            Some(&LocalData {
                schema,
                batches: vec![batch],
            }),
            None,
        )
    }
}
