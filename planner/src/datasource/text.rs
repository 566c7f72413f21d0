//! `spark.read.text` as a table: its scan is execution's [`TextScanExec`], over the files split
//! into the session's target partitions.

use std::sync::Arc;

use arrow::datatypes::SchemaRef;
use async_trait::async_trait;
use datafusion::catalog::{Session, TableProvider};
use datafusion::common::Result;
use datafusion::datasource::TableType;
use datafusion::logical_expr::Expr;
use datafusion::physical_plan::ExecutionPlan;
pub use ember_execution::plan::text_scan::{TextFile, TextOptions};
use ember_execution::plan::text_scan::{TextScan, TextScanExec, table_schema};

/// The text files a read covers.
#[derive(Debug)]
pub struct TextTable {
    files: Vec<TextFile>,
    partition_columns: Vec<String>,
    options: TextOptions,
}

impl TextTable {
    pub fn new(files: Vec<TextFile>, partition_columns: Vec<String>, options: TextOptions) -> Self {
        Self {
            files,
            partition_columns,
            options,
        }
    }
}

#[async_trait]
impl TableProvider for TextTable {
    fn schema(&self) -> SchemaRef {
        table_schema(&self.options, &self.partition_columns)
    }

    fn table_type(&self) -> TableType {
        TableType::Base
    }

    async fn scan(
        &self,
        state: &dyn Session,
        projection: Option<&Vec<usize>>,
        _filters: &[Expr],
        _limit: Option<usize>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let partitions = state
            .config()
            .target_partitions()
            .clamp(1, self.files.len().max(1));
        let mut groups = vec![Vec::new(); partitions];
        for (i, f) in self.files.iter().enumerate() {
            groups[i % partitions].push(f.clone());
        }
        let projection = projection
            .cloned()
            .unwrap_or_else(|| (0..=self.partition_columns.len()).collect());
        Ok(Arc::new(TextScanExec::new(TextScan {
            groups,
            partition_columns: self.partition_columns.clone(),
            projection,
            options: self.options.clone(),
        })))
    }
}
