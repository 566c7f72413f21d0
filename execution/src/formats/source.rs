//! A DataFusion [`FileSource`] for the file formats Ember reads in its own code (CSV, JSON,
//! XML, ORC):
//! each file's columns of the projection come from the format's opener, everything else
//! (partition columns, expressions) from DataFusion's [`ProjectionOpener`].

use std::fmt::Debug;
use std::sync::Arc;

use arrow::datatypes::SchemaRef;
use async_trait::async_trait;
use bytes::Bytes;
use datafusion::catalog::Session;
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::common::{DataFusionError, GetExt, Result, Statistics};
use datafusion::datasource::file_format::FileFormat;
use datafusion::datasource::file_format::file_compression_type::FileCompressionType;
use datafusion::datasource::listing::PartitionedFile;
use datafusion::datasource::physical_plan::{FileOpener, FileScanConfig, FileSource};
use datafusion::datasource::projection::{ProjectionOpener, SplitProjection};
use datafusion::datasource::source::DataSourceExec;
use datafusion::datasource::table_schema::TableSchema;
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_plan::ExecutionPlan;
use datafusion::physical_plan::metrics::ExecutionPlanMetricsSet;
use datafusion::physical_plan::projection::ProjectionExprs;
use datafusion_datasource::boundary_stream::AlignedBoundaryStream;
use futures::stream::BoxStream;
use futures::{StreamExt, TryStreamExt};
use object_store::{ObjectMeta, ObjectStore, ObjectStoreExt};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::codec::EncodedFileSource;

/// One format Ember reads in its own code: its settings, how it infers a schema and how it
/// opens its files. [`ReaderFormat`] (the DataFusion [`FileFormat`]) and [`ReaderSource`]
/// (the [`FileSource`], encoded into plans by its options) are the same for every format.
#[async_trait]
pub trait FileReader: Debug + Clone + Send + Sync + 'static {
    /// The format's name in plans (`orc`, `csv`).
    const FILE_TYPE: &'static str;
    /// The extension of its files, with the dot.
    const EXTENSION: &'static str;
    /// The read's settings, as plans carry them to workers.
    type Options: Serialize + DeserializeOwned + Debug + Clone + Send + Sync + 'static;

    /// The reader of a scan of `table_schema`.
    fn new(table_schema: &TableSchema, options: Self::Options) -> Self;

    fn options(&self) -> &Self::Options;

    /// The compression of the files (None: the format's own).
    fn compression(options: &Self::Options) -> Option<FileCompressionType>;

    /// The schema of `objects` as Spark infers it.
    async fn infer_schema(
        options: &Self::Options,
        state: &dyn Session,
        store: &Arc<dyn ObjectStore>,
        objects: &[ObjectMeta],
    ) -> Result<SchemaRef>;

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

/// The DataFusion file format of a read with Ember's reader `R` and its settings.
#[derive(Debug)]
pub struct ReaderFormat<R: FileReader> {
    options: R::Options,
}

impl<R: FileReader> ReaderFormat<R> {
    pub fn new(options: R::Options) -> Self {
        Self { options }
    }
}

#[async_trait]
impl<R: FileReader> FileFormat for ReaderFormat<R> {
    fn get_ext(&self) -> String {
        R::EXTENSION.into()
    }

    fn get_ext_with_compression(&self, compression: &FileCompressionType) -> Result<String> {
        Ok(match R::compression(&self.options) {
            Some(_) => format!("{}{}", R::EXTENSION, compression.get_ext()),
            None => R::EXTENSION.into(),
        })
    }

    fn compression_type(&self) -> Option<FileCompressionType> {
        R::compression(&self.options)
    }

    async fn infer_schema(
        &self,
        state: &dyn Session,
        store: &Arc<dyn ObjectStore>,
        objects: &[ObjectMeta],
    ) -> Result<SchemaRef> {
        R::infer_schema(&self.options, state, store, objects).await
    }

    async fn infer_stats(
        &self,
        _state: &dyn Session,
        _store: &Arc<dyn ObjectStore>,
        table_schema: SchemaRef,
        _object: &ObjectMeta,
    ) -> Result<Statistics> {
        Ok(Statistics::new_unknown(&table_schema))
    }

    async fn create_physical_plan(
        &self,
        _state: &dyn Session,
        conf: FileScanConfig,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        Ok(DataSourceExec::from_data_source(conf))
    }

    fn file_source(&self, table_schema: TableSchema) -> Arc<dyn FileSource> {
        Arc::new(ReaderSource::<R>::new(table_schema, self.options.clone()))
    }
}

/// A scan travels as its reader's options.
impl<R: FileReader> EncodedFileSource for ReaderSource<R> {
    const NAME: &'static str = R::FILE_TYPE;

    fn options(&self) -> Result<Vec<u8>> {
        serde_json::to_vec(self.reader.options()).map_err(|e| {
            DataFusionError::Internal(format!("cannot encode {} options: {e}", R::FILE_TYPE))
        })
    }

    fn from_options(options: &[u8], schema: TableSchema) -> Result<Arc<dyn FileSource>> {
        let options = serde_json::from_slice(options)
            .map_err(|e| DataFusionError::Internal(format!("bad {} options: {e}", R::FILE_TYPE)))?;
        Ok(Arc::new(Self::new(schema, options)))
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
    pub fn new(table_schema: TableSchema, options: R::Options) -> Self {
        Self {
            reader: R::new(&table_schema, options),
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
