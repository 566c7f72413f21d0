//! A read of paths that a crashed write left with an unfinished commit. Planning lists what
//! the commit publishes without changing anything (`formats::listing`); the scan finishes the
//! commits when the query runs, before the files are listed again and opened. Reads of paths
//! without one never meet this table.

use std::sync::Arc;

use arrow::datatypes::SchemaRef;
use async_trait::async_trait;
use datafusion::catalog::{ScanArgs, ScanResult, Session, TableProvider};
use datafusion::common::{Result, Statistics};
use datafusion::logical_expr::{Expr, TableProviderFilterPushDown, TableType};
use datafusion::physical_plan::ExecutionPlan;
use ember_execution::formats::listing::{self, Unfinished};

/// `inner`, whose scan first finishes the commits `unfinished`.
#[derive(Debug)]
pub struct FinishingCommits {
    inner: Arc<dyn TableProvider>,
    unfinished: Vec<Unfinished>,
}

impl FinishingCommits {
    /// `inner` itself when there is nothing to finish.
    pub fn wrap(
        inner: Arc<dyn TableProvider>,
        unfinished: Vec<Unfinished>,
    ) -> Arc<dyn TableProvider> {
        if unfinished.is_empty() {
            return inner;
        }
        Arc::new(Self { inner, unfinished })
    }

    /// The table read.
    pub fn inner(&self) -> &Arc<dyn TableProvider> {
        &self.inner
    }

    async fn finish(&self, state: &dyn Session) -> Result<()> {
        for unfinished in &self.unfinished {
            listing::finish(unfinished, state.runtime_env()).await?;
        }
        Ok(())
    }
}

#[async_trait]
impl TableProvider for FinishingCommits {
    fn schema(&self) -> SchemaRef {
        self.inner.schema()
    }

    fn table_type(&self) -> TableType {
        self.inner.table_type()
    }

    fn supports_filters_pushdown(
        &self,
        filters: &[&Expr],
    ) -> Result<Vec<TableProviderFilterPushDown>> {
        self.inner.supports_filters_pushdown(filters)
    }

    fn statistics(&self) -> Option<Statistics> {
        self.inner.statistics()
    }

    async fn scan(
        &self,
        state: &dyn Session,
        projection: Option<&Vec<usize>>,
        filters: &[Expr],
        limit: Option<usize>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        self.finish(state).await?;
        self.inner.scan(state, projection, filters, limit).await
    }

    async fn scan_with_args<'a>(
        &self,
        state: &dyn Session,
        args: ScanArgs<'a>,
    ) -> Result<ScanResult> {
        self.finish(state).await?;
        self.inner.scan_with_args(state, args).await
    }
}
