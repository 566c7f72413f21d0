//! Parquet strings read once, as the table's plain `Utf8`.
//!
//! Files written by arrow-rs writers (tpchgen-cli, DataFusion, Polars, ...) embed their Arrow
//! schema, and that schema often says `Utf8View`. The parquet reader follows it and decodes
//! such columns as views; Ember's tables (Spark's `STRING`) are `Utf8`, so DataFusion's schema
//! adapter then casts every batch from views to plain strings (`cast_view_to_byte`), copying
//! each string a second time. DataFusion turns a file's plain strings into views for a table of
//! views, but not the reverse.
//!
//! [`PlainStrings`] wraps a scan's reader factory. The metadata it hands the reader says `Utf8`
//! (`Binary`) wherever the embedded schema said `Utf8View` (`BinaryView`), at any depth, so the
//! reader decodes plain strings directly. A table that does want views still gets them: the
//! scan turns plain strings into views as it always did.

use std::ops::Range;
use std::sync::Arc;

use bytes::Bytes;
use datafusion::arrow::datatypes::{DataType, Field, FieldRef, Fields, Schema};
use datafusion::common::Result;
use datafusion::common::tree_node::{Transformed, TreeNode};
use datafusion::config::ConfigOptions;
use datafusion::datasource::listing::PartitionedFile;
use datafusion::datasource::physical_plan::parquet::DefaultParquetFileReaderFactory;
use datafusion::datasource::physical_plan::{
    FileScanConfig, FileScanConfigBuilder, ParquetFileReaderFactory, ParquetSource,
};
use datafusion::datasource::source::DataSourceExec;
use datafusion::execution::TaskContext;
use datafusion::parquet::arrow::arrow_reader::ArrowReaderOptions;
use datafusion::parquet::arrow::async_reader::AsyncFileReader;
use datafusion::parquet::arrow::{
    ARROW_SCHEMA_META_KEY, encode_arrow_schema, parquet_to_arrow_schema,
};
use datafusion::parquet::file::metadata::{FileMetaData, ParquetMetaData, ParquetMetaDataBuilder};
use datafusion::physical_optimizer::PhysicalOptimizerRule;
use datafusion::physical_plan::ExecutionPlan;
use datafusion::physical_plan::metrics::ExecutionPlanMetricsSet;
use futures::FutureExt;
use futures::future::BoxFuture;
use object_store::ObjectStore;

/// The physical optimizer rule: every parquet scan reads through [`PlainStrings`]. (Running
/// it twice wraps a factory twice, which reads alike: the outer one finds no views left.)
#[derive(Debug, Default)]
pub struct ReadStringsPlain;

impl PhysicalOptimizerRule for ReadStringsPlain {
    fn optimize(
        &self,
        plan: Arc<dyn ExecutionPlan>,
        _config: &ConfigOptions,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        read_strings_plain(plan, |_| None)
    }

    fn name(&self) -> &str {
        "read_strings_plain"
    }

    fn schema_check(&self) -> bool {
        true
    }
}

/// [`ReadStringsPlain`] for a plan a worker decoded: its scans have no reader factory (the
/// wire form does not carry one), so they get the default one over `context`'s object store.
pub fn read_strings_plain_in(
    plan: Arc<dyn ExecutionPlan>,
    context: &TaskContext,
) -> Result<Arc<dyn ExecutionPlan>> {
    read_strings_plain(plan, |config| {
        context
            .runtime_env()
            .object_store(&config.object_store_url)
            .ok()
    })
}

fn read_strings_plain(
    plan: Arc<dyn ExecutionPlan>,
    store: impl Fn(&FileScanConfig) -> Option<Arc<dyn ObjectStore>>,
) -> Result<Arc<dyn ExecutionPlan>> {
    plan.transform_up(|node| {
        let Some(scan) = node.downcast_ref::<DataSourceExec>() else {
            return Ok(Transformed::no(node));
        };
        let Some(config) = scan.data_source().downcast_ref::<FileScanConfig>() else {
            return Ok(Transformed::no(node));
        };
        let Some(source) = config.file_source().downcast_ref::<ParquetSource>() else {
            return Ok(Transformed::no(node));
        };
        let inner = match source.parquet_file_reader_factory() {
            Some(factory) => Arc::clone(factory),
            None => match store(config) {
                Some(store) => Arc::new(DefaultParquetFileReaderFactory::new(store)),
                None => return Ok(Transformed::no(node)),
            },
        };
        let source = source
            .clone()
            .with_parquet_file_reader_factory(Arc::new(PlainStrings { inner }));
        let config = FileScanConfigBuilder::from(config.clone())
            .with_source(Arc::new(source))
            .build();
        Ok(Transformed::yes(
            DataSourceExec::from_data_source(config) as Arc<dyn ExecutionPlan>
        ))
    })
    .map(|t| t.data)
}

/// A reader factory whose readers describe view columns as plain ones (module docs).
#[derive(Debug)]
pub struct PlainStrings {
    inner: Arc<dyn ParquetFileReaderFactory>,
}

impl ParquetFileReaderFactory for PlainStrings {
    fn create_reader(
        &self,
        partition_index: usize,
        partitioned_file: PartitionedFile,
        metadata_size_hint: Option<usize>,
        metrics: &ExecutionPlanMetricsSet,
    ) -> Result<Box<dyn AsyncFileReader + Send>> {
        let inner = self.inner.create_reader(
            partition_index,
            partitioned_file,
            metadata_size_hint,
            metrics,
        )?;
        Ok(Box::new(PlainReader { inner }))
    }
}

struct PlainReader {
    inner: Box<dyn AsyncFileReader + Send>,
}

type ParquetResult<T> = datafusion::parquet::errors::Result<T>;

impl AsyncFileReader for PlainReader {
    fn get_bytes(&mut self, range: Range<u64>) -> BoxFuture<'_, ParquetResult<Bytes>> {
        self.inner.get_bytes(range)
    }

    fn get_byte_ranges(
        &mut self,
        ranges: Vec<Range<u64>>,
    ) -> BoxFuture<'_, ParquetResult<Vec<Bytes>>> {
        self.inner.get_byte_ranges(ranges)
    }

    fn get_metadata<'a>(
        &'a mut self,
        options: Option<&'a ArrowReaderOptions>,
    ) -> BoxFuture<'a, ParquetResult<Arc<ParquetMetaData>>> {
        async move { plain_metadata(self.inner.get_metadata(options).await?) }.boxed()
    }
}

/// `metadata` with its embedded Arrow schema free of view types; itself when it has none.
fn plain_metadata(metadata: Arc<ParquetMetaData>) -> ParquetResult<Arc<ParquetMetaData>> {
    let file = metadata.file_metadata();
    let Some(pairs) = file.key_value_metadata() else {
        return Ok(metadata);
    };
    let Some(at) = pairs.iter().position(|p| p.key == ARROW_SCHEMA_META_KEY) else {
        return Ok(metadata);
    };
    let schema = parquet_to_arrow_schema(file.schema_descr(), Some(pairs))?;
    let Some(fields) = plain_fields(schema.fields()) else {
        return Ok(metadata);
    };
    let plain = Schema::new_with_metadata(fields, schema.metadata().clone());
    let mut pairs = pairs.clone();
    pairs[at].value = Some(encode_arrow_schema(&plain));
    let file = FileMetaData::new(
        file.version(),
        file.num_rows(),
        file.created_by().map(str::to_owned),
        Some(pairs),
        file.schema_descr_ptr(),
        file.column_orders().cloned(),
    );
    let mut old = ParquetMetaDataBuilder::new_from_metadata(Arc::unwrap_or_clone(metadata));
    Ok(Arc::new(
        ParquetMetaDataBuilder::new(file)
            .set_row_groups(old.take_row_groups())
            .set_column_index(old.take_column_index())
            .set_offset_index(old.take_offset_index())
            .build(),
    ))
}

/// `fields` without view types, or `None` when they have none.
fn plain_fields(fields: &Fields) -> Option<Fields> {
    let plain: Vec<Option<FieldRef>> = fields.iter().map(plain_field).collect();
    if plain.iter().all(Option::is_none) {
        return None;
    }
    Some(
        plain
            .into_iter()
            .zip(fields.iter())
            .map(|(p, f)| p.unwrap_or_else(|| Arc::clone(f)))
            .collect(),
    )
}

fn plain_field(field: &FieldRef) -> Option<FieldRef> {
    plain_type(field.data_type()).map(|t| Arc::new(Field::clone(field).with_data_type(t)))
}

fn plain_type(data_type: &DataType) -> Option<DataType> {
    match data_type {
        DataType::Utf8View => Some(DataType::Utf8),
        DataType::BinaryView => Some(DataType::Binary),
        DataType::List(item) => plain_field(item).map(DataType::List),
        DataType::LargeList(item) => plain_field(item).map(DataType::LargeList),
        DataType::FixedSizeList(item, n) => {
            plain_field(item).map(|item| DataType::FixedSizeList(item, *n))
        }
        DataType::Struct(fields) => plain_fields(fields).map(DataType::Struct),
        DataType::Map(entries, sorted) => {
            plain_field(entries).map(|entries| DataType::Map(entries, *sorted))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn views_become_plain_at_any_depth() {
        let item = Arc::new(Field::new("item", DataType::Utf8View, true));
        let fields = Fields::from(vec![
            Field::new("a", DataType::Utf8View, false),
            Field::new("b", DataType::Int32, true),
            Field::new("c", DataType::List(item), true),
            Field::new(
                "d",
                DataType::Struct(Fields::from(vec![Field::new(
                    "x",
                    DataType::BinaryView,
                    true,
                )])),
                true,
            ),
        ]);
        let plain = plain_fields(&fields).unwrap();
        let item = Arc::new(Field::new("item", DataType::Utf8, true));
        assert_eq!(
            plain,
            Fields::from(vec![
                Field::new("a", DataType::Utf8, false),
                Field::new("b", DataType::Int32, true),
                Field::new("c", DataType::List(item), true),
                Field::new(
                    "d",
                    DataType::Struct(Fields::from(vec![Field::new("x", DataType::Binary, true)])),
                    true,
                ),
            ])
        );
        assert_eq!(
            plain_fields(&Fields::from(vec![Field::new("b", DataType::Int32, true)])),
            None
        );
    }

    #[test]
    fn a_file_of_views_reads_as_plain_strings() {
        use datafusion::arrow::array::{Array, RecordBatch, StringArray, StringViewArray};
        use datafusion::parquet::arrow::ArrowWriter;
        use datafusion::parquet::arrow::arrow_reader::{
            ArrowReaderMetadata, ParquetRecordBatchReaderBuilder,
        };
        use datafusion::parquet::file::metadata::ParquetMetaDataReader;

        let long = "a string longer than twelve bytes";
        let views = StringViewArray::from(vec![Some("x"), None, Some(long)]);
        let batch = RecordBatch::try_from_iter([("s", Arc::new(views) as _)]).unwrap();
        let mut file = Vec::new();
        let mut writer = ArrowWriter::try_new(&mut file, batch.schema(), None).unwrap();
        writer.write(&batch).unwrap();
        writer.close().unwrap();
        let file = Bytes::from(file);
        let metadata = ParquetMetaDataReader::new()
            .parse_and_finish(&file)
            .unwrap();
        let options = ArrowReaderOptions::new();
        let before = ArrowReaderMetadata::try_new(Arc::new(metadata.clone()), options.clone());
        assert_eq!(
            before.unwrap().schema().field(0).data_type(),
            &DataType::Utf8View
        );

        let plain = plain_metadata(Arc::new(metadata)).unwrap();
        let after = ArrowReaderMetadata::try_new(Arc::clone(&plain), options).unwrap();
        assert_eq!(after.schema().field(0).data_type(), &DataType::Utf8);
        let read = ParquetRecordBatchReaderBuilder::new_with_metadata(file, after)
            .build()
            .unwrap()
            .next()
            .unwrap()
            .unwrap();
        let strings = read
            .column(0)
            .as_any()
            .downcast_ref::<StringArray>()
            .unwrap();
        assert_eq!(
            strings,
            &StringArray::from(vec![Some("x"), None, Some(long)])
        );
        assert_eq!(plain_metadata(Arc::clone(&plain)).unwrap(), plain);
    }
}
