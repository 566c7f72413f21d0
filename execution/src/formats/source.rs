//! A DataFusion [`FileSource`] for the file formats Ember reads in its own code (CSV, JSON,
//! XML, ORC):
//! each file's columns of the projection come from the format's opener, everything else
//! (partition columns, expressions) from DataFusion's [`ProjectionOpener`].

use std::fmt::Debug;
use std::sync::Arc;

use arrow::datatypes::SchemaRef;
use bytes::Bytes;
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::common::{DataFusionError, Result};
use datafusion::datasource::listing::PartitionedFile;
use datafusion::datasource::physical_plan::{FileOpener, FileScanConfig, FileSource};
use datafusion::datasource::projection::{ProjectionOpener, SplitProjection};
use datafusion::datasource::table_schema::TableSchema;
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_plan::metrics::ExecutionPlanMetricsSet;
use datafusion::physical_plan::projection::ProjectionExprs;
use datafusion_datasource::boundary_stream::AlignedBoundaryStream;
use futures::stream::BoxStream;
use futures::{StreamExt, TryStreamExt};
use object_store::{ObjectStore, ObjectStoreExt};

/// How one format opens its files.
pub trait FileReader: Debug + Clone + Send + Sync + 'static {
    /// The format's name in plans (`orc`, `csv`).
    const FILE_TYPE: &'static str;

    /// An opener giving the columns of `output` (a projection of the file schema) from each
    /// file, in batches of `batch_size` rows.
    fn opener(
        &self,
        store: Arc<dyn ObjectStore>,
        output: SchemaRef,
        batch_size: usize,
    ) -> Arc<dyn FileOpener>;

    /// Whether a file may be read in byte ranges by several partitions.
    fn splittable(&self) -> bool {
        true
    }
}

/// Scans files of one format with Ember's reader `R`.
#[derive(Debug, Clone)]
pub struct ReaderSource<R: FileReader> {
    reader: R,
    table_schema: TableSchema,
    projection: SplitProjection,
    batch_size: Option<usize>,
    metrics: ExecutionPlanMetricsSet,
}

impl<R: FileReader> ReaderSource<R> {
    pub fn with_reader(table_schema: TableSchema, reader: R) -> Self {
        Self {
            reader,
            projection: SplitProjection::unprojected(&table_schema),
            table_schema,
            batch_size: None,
            metrics: ExecutionPlanMetricsSet::new(),
        }
    }

    pub fn reader(&self) -> &R {
        &self.reader
    }
}

impl<R: FileReader> FileSource for ReaderSource<R> {
    fn create_file_opener(
        &self,
        object_store: Arc<dyn ObjectStore>,
        config: &FileScanConfig,
        _partition: usize,
    ) -> Result<Arc<dyn FileOpener>> {
        let file_schema = self.table_schema.file_schema();
        let output = Arc::new(file_schema.project(&self.projection.file_indices)?);
        let batch_size = config.batch_size.or(self.batch_size).unwrap_or(8192);
        let opener = self.reader.opener(object_store, output, batch_size);
        ProjectionOpener::try_new(self.projection.clone(), opener, file_schema)
    }

    fn table_schema(&self) -> &TableSchema {
        &self.table_schema
    }

    fn with_batch_size(&self, batch_size: usize) -> Arc<dyn FileSource> {
        Arc::new(Self {
            batch_size: Some(batch_size),
            ..self.clone()
        })
    }

    fn projection(&self) -> Option<&ProjectionExprs> {
        Some(&self.projection.source)
    }

    fn metrics(&self) -> &ExecutionPlanMetricsSet {
        &self.metrics
    }

    fn file_type(&self) -> &str {
        R::FILE_TYPE
    }

    fn supports_repartitioning(&self) -> bool {
        self.reader.splittable()
    }

    fn try_pushdown_projection(
        &self,
        projection: &ProjectionExprs,
    ) -> Result<Option<Arc<dyn FileSource>>> {
        let merged = self.projection.source.try_merge(projection)?;
        Ok(Some(Arc::new(Self {
            projection: SplitProjection::new(self.table_schema.file_schema(), &merged),
            ..self.clone()
        })))
    }

    fn apply_expressions(
        &self,
        f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> Result<TreeNodeRecursion>,
    ) -> Result<TreeNodeRecursion> {
        datafusion::physical_plan::apply_expression_roots(self.projection.source.iter(), f)
    }
}

/// The bytes of a file to read: the whole object, or for a byte range the lines that start
/// in it (from the first line end at or after its start, through the line end at or after
/// its end).
pub async fn file_bytes(
    store: Arc<dyn ObjectStore>,
    file: PartitionedFile,
    line_end: u8,
) -> Result<BoxStream<'static, Result<Bytes>>> {
    let meta = file.object_meta;
    Ok(match file.range {
        Some(range) => AlignedBoundaryStream::new(
            store,
            meta.location,
            range.start as u64,
            range.end as u64,
            meta.size,
            line_end,
        )
        .await?
        .map_err(DataFusionError::from)
        .boxed(),
        None => store
            .get(&meta.location)
            .await?
            .into_stream()
            .map_err(DataFusionError::from)
            .boxed(),
    })
}
