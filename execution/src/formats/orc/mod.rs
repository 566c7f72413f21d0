//! ORC files: a DataFusion file format and source on `orc-rust`'s Arrow reader, so that ORC
//! reads go through listing tables like the other formats (partition columns, projections,
//! object stores, file groups on workers).
//!
//! Spark's timestamps are ORC `timestamp` columns (instants written in the writer's zone);
//! they read as UTC instants in microseconds, like Spark's `TimestampType`. Columns of a
//! given schema that a file lacks read as NULL, and other types are cast to the schema's.

use std::collections::HashMap;
use std::sync::Arc;

use arrow::array::{ArrayRef, RecordBatch, RecordBatchOptions, new_null_array};
use arrow::datatypes::{DataType, Field, Schema, SchemaRef, TimeUnit};
use async_trait::async_trait;
use bytes::Bytes;
use datafusion::catalog::Session;
use datafusion::common::{DataFusionError, Result};
use datafusion::datasource::file_format::file_compression_type::FileCompressionType;
use datafusion::datasource::listing::PartitionedFile;
use datafusion::datasource::physical_plan::{FileOpenFuture, FileOpener};
use datafusion::datasource::table_schema::TableSchema;
use futures::future::BoxFuture;
use futures::{FutureExt, StreamExt, TryStreamExt};
use object_store::{ObjectMeta, ObjectStore, ObjectStoreExt};
use orc_rust::reader::AsyncChunkReader;
use orc_rust::reader::metadata::read_metadata_async;
use orc_rust::{ArrowReaderBuilder, ArrowSchemaOptions, TimestampPrecision};

use crate::formats::source::{FileReader, ReaderFormat, ReaderSource};

pub mod write;

fn orc_error(e: orc_rust::error::OrcError) -> DataFusionError {
    DataFusionError::External(Box::new(e))
}

/// Reads byte ranges of one object for the ORC reader.
struct ObjectReader {
    store: Arc<dyn ObjectStore>,
    meta: ObjectMeta,
}

impl AsyncChunkReader for ObjectReader {
    fn len(&mut self) -> BoxFuture<'_, std::io::Result<u64>> {
        let size = self.meta.size;
        async move { Ok(size) }.boxed()
    }

    fn get_bytes(
        &mut self,
        offset_from_start: u64,
        length: u64,
    ) -> BoxFuture<'_, std::io::Result<Bytes>> {
        let range = offset_from_start..offset_from_start + length;
        async move {
            // The reader asks for the empty streams of all-NULL columns too; stores refuse
            // empty ranges.
            if length == 0 {
                return Ok(Bytes::new());
            }
            self.store
                .get_range(&self.meta.location, range)
                .await
                .map_err(std::io::Error::other)
        }
        .boxed()
    }
}

/// The Spark view of an ORC file's columns: timestamps as UTC instants in microseconds.
fn spark_field(field: &Field) -> Field {
    match field.data_type() {
        DataType::Timestamp(_, _) => field.clone().with_data_type(DataType::Timestamp(
            TimeUnit::Microsecond,
            Some(Arc::from("UTC")),
        )),
        _ => field.clone(),
    }
}

/// The ORC file format (`spark.read.orc`).
pub type OrcFormat = ReaderFormat<OrcFiles>;

/// Scans ORC files through orc-rust.
pub type OrcSource = ReaderSource<OrcFiles>;

/// Ember's ORC reader.
#[derive(Debug, Clone, Copy)]
pub struct OrcFiles;

#[async_trait]
impl FileReader for OrcFiles {
    const FILE_TYPE: &'static str = "orc";
    const EXTENSION: &'static str = ".orc";
    type Options = ();

    fn new(_table_schema: &TableSchema, _options: ()) -> Self {
        OrcFiles
    }

    fn options(&self) -> &() {
        &()
    }

    /// ORC compresses inside the file.
    fn compression(_options: &()) -> Option<FileCompressionType> {
        None
    }

    async fn infer_schema(
        _options: &(),
        _state: &dyn Session,
        store: &Arc<dyn ObjectStore>,
        objects: &[ObjectMeta],
    ) -> Result<SchemaRef> {
        let mut objects = objects.to_vec();
        // A stable order of the fields the files add.
        objects.sort_by(|a, b| a.location.cmp(&b.location));
        let mut schemas = Vec::with_capacity(objects.len());
        for meta in objects {
            let mut reader = ObjectReader {
                store: store.clone(),
                meta,
            };
            let metadata = read_metadata_async(&mut reader).await.map_err(orc_error)?;
            let schema = metadata.root_data_type().create_arrow_schema_with_options(
                &HashMap::new(),
                ArrowSchemaOptions::new().with_timestamp_precision(TimestampPrecision::Microsecond),
            );
            schemas.push(Schema::new(
                schema
                    .fields()
                    .iter()
                    .map(|f| spark_field(f))
                    .collect::<Vec<_>>(),
            ));
        }
        Ok(Arc::new(Schema::try_merge(schemas)?))
    }

    fn opener(
        &self,
        store: Arc<dyn ObjectStore>,
        output: SchemaRef,
        batch_size: usize,
    ) -> Arc<dyn FileOpener> {
        Arc::new(OrcOpener {
            store,
            output,
            batch_size,
        })
    }
}

/// Opens one ORC file: reads the columns of `output` (by name, as Spark matches them without
/// case) and gives them `output`'s types.
struct OrcOpener {
    store: Arc<dyn ObjectStore>,
    output: SchemaRef,
    batch_size: usize,
}

impl FileOpener for OrcOpener {
    fn open(&self, file: PartitionedFile) -> Result<FileOpenFuture> {
        let reader = ObjectReader {
            store: self.store.clone(),
            meta: file.object_meta.clone(),
        };
        let output = self.output.clone();
        let batch_size = self.batch_size;
        let range = file.range.clone();
        Ok(async move {
            let mut builder = ArrowReaderBuilder::try_new_async(reader)
                .await
                .map_err(orc_error)?;
            let root = builder.file_metadata().root_data_type().clone();
            let wanted: Vec<usize> = root
                .children()
                .iter()
                .filter(|c| {
                    output
                        .fields()
                        .iter()
                        .any(|f| f.name().eq_ignore_ascii_case(c.name()))
                })
                .map(|c| c.data_type().column_index())
                .collect();
            builder = builder
                .with_projection(orc_rust::projection::ProjectionMask::roots(&root, wanted))
                .with_batch_size(batch_size)
                .with_timestamp_precision(TimestampPrecision::Microsecond);
            if let Some(range) = range {
                builder = builder.with_file_byte_range(range.start as usize..range.end as usize);
            }
            let stream = builder
                .build_async()
                .map_err(DataFusionError::from)
                .map(move |batch| conform(&batch?, &output));
            Ok(stream.boxed())
        }
        .boxed())
    }
}

/// The batch's columns in `output`'s order and types; columns the file lacks are NULL.
fn conform(batch: &RecordBatch, output: &SchemaRef) -> Result<RecordBatch> {
    let file_schema = batch.schema();
    let columns = output
        .fields()
        .iter()
        .map(|field| {
            let found = file_schema
                .fields()
                .iter()
                .position(|f| f.name().eq_ignore_ascii_case(field.name()));
            let Some(i) = found else {
                return Ok(new_null_array(field.data_type(), batch.num_rows()));
            };
            let column = batch.column(i);
            if column.data_type() == field.data_type() {
                return Ok(column.clone());
            }
            cast_column(column, field.data_type())
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(RecordBatch::try_new_with_options(
        output.clone(),
        columns,
        &RecordBatchOptions::new().with_row_count(Some(batch.num_rows())),
    )?)
}

/// A column in another type; the reader's zone-less timestamps are already UTC instants.
fn cast_column(column: &ArrayRef, to: &DataType) -> Result<ArrayRef> {
    let column = match (column.data_type(), to) {
        (DataType::Timestamp(unit, None), DataType::Timestamp(_, Some(_))) => {
            arrow::compute::cast(column, &DataType::Timestamp(*unit, Some(Arc::from("UTC"))))?
        }
        _ => column.clone(),
    };
    Ok(arrow::compute::cast(&column, to)?)
}
