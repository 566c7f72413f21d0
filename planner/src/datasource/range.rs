//! `spark.range(...)` as a table: its scan is execution's [`RangeExec`].

use std::sync::Arc;

use arrow::datatypes::SchemaRef;
use async_trait::async_trait;
use datafusion::catalog::{Session, TableProvider};
use datafusion::common::Result;
use datafusion::datasource::TableType;
use datafusion::logical_expr::Expr;
use datafusion::physical_plan::ExecutionPlan;
pub use ember_execution::plan::RangeSpec;
use ember_execution::plan::{RangeExec, range_schema};

#[derive(Debug)]
pub struct RangeTable {
    spec: RangeSpec,
}

impl RangeTable {
    pub fn new(spec: RangeSpec) -> Self {
        Self { spec }
    }
}

#[async_trait]
impl TableProvider for RangeTable {
    fn schema(&self) -> SchemaRef {
        range_schema()
    }

    fn table_type(&self) -> TableType {
        TableType::Temporary
    }

    async fn scan(
        &self,
        _state: &dyn Session,
        projection: Option<&Vec<usize>>,
        _filters: &[Expr],
        _limit: Option<usize>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        // `count(*)` scans no columns: only the row counts matter.
        let with_id = projection.is_none_or(|p| !p.is_empty());
        Ok(Arc::new(RangeExec::try_new(self.spec.clone(), with_id)?))
    }
}
