//! JSON read in Ember's own code, a file at a time, for what DataFusion's reader has no
//! settings for: `multiLine` files (one JSON object or an array of them, one row each, as
//! Spark reads them), `allowComments`, `primitivesAsString`, and malformed records kept in
//! the corrupt-record column, skipped or failing the read as `mode` says. A file source of
//! Ember's, so these reads list, prune and partition like the others and run on workers.
//! Each file is parsed whole; schema inference reads every file, as Spark's does.

use std::sync::Arc;

use arrow::datatypes::{Schema, SchemaRef};
use async_trait::async_trait;
use datafusion::catalog::Session;
use datafusion::common::{DataFusionError, GetExt, Result, Statistics};
use datafusion::datasource::file_format::FileFormat;
use datafusion::datasource::file_format::file_compression_type::FileCompressionType;
use datafusion::datasource::listing::PartitionedFile;
use datafusion::datasource::physical_plan::{
    FileOpenFuture, FileOpener, FileScanConfig, FileSource,
};
use datafusion::datasource::source::DataSourceExec;
use datafusion::datasource::table_schema::TableSchema;
use datafusion::physical_plan::ExecutionPlan;
use futures::{FutureExt, StreamExt};
use object_store::{ObjectMeta, ObjectStore, ObjectStoreExt};
use serde::{Deserialize, Serialize};

use super::MalformedMode;
use super::json_text::JsonTextOptions;
use super::source::{FileReader, ReaderSource};
use super::whole::{
    JsonRecord, infer_json_records_schema, json_file_records, json_records_in_mode,
};
use crate::error::{PlanError, to_datafusion};

/// Spark's JSON read options, as Ember's reader applies them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JsonOptions {
    pub multi_line: bool,
    pub allow_comments: bool,
    pub primitives_as_string: bool,
    pub mode: MalformedMode,
    pub corrupt_column: String,
    /// The files' compression, as DataFusion spells it (`GZIP`, `UNCOMPRESSED`, ...).
    pub compression: String,
}

fn datafusion_error(e: PlanError) -> DataFusionError {
    match e {
        PlanError::DataFusion(e) => e,
        other => to_datafusion(other.into_spark()),
    }
}

impl JsonOptions {
    fn compression(&self) -> Result<FileCompressionType> {
        self.compression.parse()
    }

    /// The records of one object.
    async fn records(&self, store: &dyn ObjectStore, meta: &ObjectMeta) -> Result<Vec<JsonRecord>> {
        let bytes = store.get(&meta.location).await?.bytes().await?;
        let mut decompressed = self
            .compression()?
            .convert_stream(futures::stream::once(async { Ok(bytes) }).boxed())?;
        let mut raw = Vec::with_capacity(meta.size as usize);
        while let Some(chunk) = decompressed.next().await {
            raw.extend_from_slice(&chunk?);
        }
        let text = String::from_utf8(raw).map_err(|e| {
            DataFusionError::Execution(format!("{} is not UTF-8 text: {e}", meta.location))
        })?;
        let rewrites = JsonTextOptions {
            comments: self.allow_comments,
            primitives_as_strings: self.primitives_as_string,
        };
        json_file_records(text, self.multi_line, rewrites).map_err(|e| {
            datafusion_error(PlanError::Unsupported(format!(
                "malformed JSON in {} ({e})",
                meta.location
            )))
        })
    }
}

/// Ember's JSON reader, with the read's options.
#[derive(Debug, Clone)]
pub struct JsonFiles {
    options: Arc<JsonOptions>,
}

impl JsonFiles {
    pub fn options(&self) -> &JsonOptions {
        &self.options
    }
}

/// Scans JSON files as Spark reads them.
pub type JsonSource = ReaderSource<JsonFiles>;

impl JsonSource {
    pub fn new(table_schema: TableSchema, options: JsonOptions) -> Self {
        let reader = JsonFiles {
            options: Arc::new(options),
        };
        Self::with_reader(table_schema, reader)
    }
}

impl FileReader for JsonFiles {
    const FILE_TYPE: &'static str = "json";

    fn opener(
        &self,
        store: Arc<dyn ObjectStore>,
        output: SchemaRef,
        _batch_size: usize,
    ) -> Arc<dyn FileOpener> {
        Arc::new(JsonOpener {
            options: self.options.clone(),
            store,
            output,
        })
    }

    fn splittable(&self) -> bool {
        false
    }
}

struct JsonOpener {
    options: Arc<JsonOptions>,
    store: Arc<dyn ObjectStore>,
    output: SchemaRef,
}

impl FileOpener for JsonOpener {
    fn open(&self, file: PartitionedFile) -> Result<FileOpenFuture> {
        let options = self.options.clone();
        let store = self.store.clone();
        let output = self.output.clone();
        Ok(async move {
            let records = options.records(store.as_ref(), &file.object_meta).await?;
            let batches =
                json_records_in_mode(&output, records, options.mode, &options.corrupt_column)
                    .map_err(datafusion_error)?;
            Ok(futures::stream::iter(batches.into_iter().map(Ok)).boxed())
        }
        .boxed())
    }
}

/// The JSON file format of the reads Ember parses itself.
#[derive(Debug)]
pub struct JsonFormat {
    options: JsonOptions,
}

impl JsonFormat {
    pub fn new(options: JsonOptions) -> Self {
        Self { options }
    }
}

#[async_trait]
impl FileFormat for JsonFormat {
    fn get_ext(&self) -> String {
        ".json".into()
    }

    fn get_ext_with_compression(&self, compression: &FileCompressionType) -> Result<String> {
        Ok(format!("{}{}", self.get_ext(), compression.get_ext()))
    }

    fn compression_type(&self) -> Option<FileCompressionType> {
        self.options.compression().ok()
    }

    async fn infer_schema(
        &self,
        _state: &dyn Session,
        store: &Arc<dyn ObjectStore>,
        objects: &[ObjectMeta],
    ) -> Result<SchemaRef> {
        let mut records = vec![];
        for meta in objects {
            records.extend(self.options.records(store.as_ref(), meta).await?);
        }
        if records.is_empty() {
            return Ok(Arc::new(Schema::empty()));
        }
        infer_json_records_schema(&records, self.options.mode, &self.options.corrupt_column)
            .map_err(datafusion_error)
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
        Arc::new(JsonSource::new(table_schema, self.options.clone()))
    }
}
