//! [`WriteFilesExec`]: each partition of its input is written by one task into that task's
//! own attempt directory under the job's staging directory. Its output is one row per
//! partition: the number of rows written. Nothing is visible at the target until the driver
//! commits the job ([`super::commit`]).

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use arrow::array::{ArrayRef, Int32Array, RecordBatch, UInt32Array, UInt64Array};
use arrow::compute::take_record_batch;
use arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use datafusion::common::config::{ConfigFileType, TableOptions};
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::common::{DataFusionError, Result, internal_err, plan_err};
use datafusion::datasource::file_format::csv::CsvSink;
use datafusion::datasource::file_format::file_compression_type::FileCompressionType;
use datafusion::datasource::file_format::json::JsonSink;
use datafusion::datasource::file_format::parquet::ParquetSink;
use datafusion::datasource::listing::ListingTableUrl;
use datafusion::datasource::object_store::ObjectStoreUrl;
use datafusion::datasource::physical_plan::{FileGroup, FileOutputMode, FileSinkConfig};
use datafusion::datasource::sink::DataSink;
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::logical_expr::dml::InsertOp;
use datafusion::physical_expr::{EquivalenceProperties, PhysicalExpr};
use datafusion::physical_plan::execution_plan::{Boundedness, EmissionType};
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, ExecutionPlan, Partitioning, PlanProperties,
};
use datafusion_common_runtime::SpawnedTask;
use futures::StreamExt;
use object_store::path::Path;
use object_store::{ObjectStore, ObjectStoreExt};
use tokio::sync::mpsc;

use super::avro::AvroEncoder;
use super::commit::{COMMITTED_MARKER, task_attempt_dir};
use super::encode::{BatchEncoder, write_encoded};
use super::json::write::encode_json;
use super::orc::write::OrcEncoder;
use super::partition::PartitionFormatter;
use super::text::encode_text;
use super::text_values::TextValues;
use crate::codec::{EncodedNode, NodeDecoder, NodeEncoder, one_input};

/// The file formats a job can write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteFormat {
    Parquet,
    Csv,
    Json,
    /// One string column, one line per row.
    Text,
    Orc,
    Avro,
    Xml,
}

impl WriteFormat {
    pub fn name(self) -> &'static str {
        match self {
            WriteFormat::Parquet => "parquet",
            WriteFormat::Csv => "csv",
            WriteFormat::Json => "json",
            WriteFormat::Text => "text",
            WriteFormat::Orc => "orc",
            WriteFormat::Avro => "avro",
            WriteFormat::Xml => "xml",
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "parquet" => Some(WriteFormat::Parquet),
            "csv" => Some(WriteFormat::Csv),
            "json" => Some(WriteFormat::Json),
            "text" => Some(WriteFormat::Text),
            "orc" => Some(WriteFormat::Orc),
            "avro" => Some(WriteFormat::Avro),
            "xml" => Some(WriteFormat::Xml),
            _ => None,
        }
    }
}

/// What a write job writes, and where: everything a task needs, in a form that travels.
#[derive(Debug, Clone, PartialEq)]
pub struct FileWrite {
    pub format: WriteFormat,
    /// DataFusion's table options of the format, as `format.<key>` = value (for text:
    /// `format.compression` and `format.line_sep`).
    pub options: Vec<(String, String)>,
    /// The job's staging directory: an absolute `file://` URL ending in `/`.
    pub staging: String,
    /// How many of the input's trailing columns (before the bucket column) are partition
    /// columns: they become `col=value` directories and are not stored in the files.
    pub partition_columns: usize,
    /// Whether the input's last column is each row's bucket (an INT): a bucketed table's rows
    /// go to one file per bucket, named `part-..._00003...` as Spark names them.
    pub bucketed: bool,
    /// Data file name suffix, e.g. `.snappy.parquet` or `.csv.gz`.
    pub extension: String,
}

impl FileWrite {
    /// How many trailing columns of the input are not stored in the files.
    fn key_columns(&self) -> usize {
        self.partition_columns + usize::from(self.bucketed)
    }

    fn table_options(&self) -> Result<TableOptions> {
        let mut options = TableOptions::new();
        match self.format {
            WriteFormat::Parquet => options.set_config_format(ConfigFileType::PARQUET),
            WriteFormat::Csv => options.set_config_format(ConfigFileType::CSV),
            WriteFormat::Json => options.set_config_format(ConfigFileType::JSON),
            WriteFormat::Text | WriteFormat::Orc | WriteFormat::Avro | WriteFormat::Xml => {
                return Ok(options);
            }
        }
        for (k, v) in &self.options {
            if k.starts_with("ember.") {
                continue;
            }
            options.set(k, v)?;
        }
        Ok(options)
    }

    fn option(&self, key: &str) -> Option<&str> {
        self.options
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

/// Writes each input partition's rows into files; see the module documentation.
#[derive(Debug)]
pub struct WriteFilesExec {
    input: Arc<dyn ExecutionPlan>,
    write: Arc<FileWrite>,
    properties: Arc<PlanProperties>,
}

/// The schema of [`WriteFilesExec`]'s output.
pub fn write_output_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![Field::new(
        "num_rows",
        DataType::UInt64,
        false,
    )]))
}

impl WriteFilesExec {
    pub fn try_new(input: Arc<dyn ExecutionPlan>, write: FileWrite) -> Result<Self> {
        let columns = input.schema().fields().len();
        if write.key_columns() >= columns && columns > 0 {
            return plan_err!("Cannot use all columns for partition columns");
        }
        let bucket_type = columns
            .checked_sub(1)
            .map(|last| input.schema().field(last).data_type().clone());
        if write.bucketed && bucket_type != Some(DataType::Int32) {
            return plan_err!("a bucketed write's last column is its bucket");
        }
        if write.format == WriteFormat::Orc {
            let schema = input.schema();
            let data = &schema.fields()[..columns - write.key_columns()];
            super::orc::write::check_orc_columns(&Schema::new(data.to_vec()))?;
        }
        if write.format == WriteFormat::Text {
            let schema = input.schema();
            let data = &schema.fields()[..columns - write.key_columns()];
            if data.len() != 1
                || !matches!(
                    data[0].data_type(),
                    DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View
                )
            {
                return plan_err!(
                    "Text data source supports only a single column, and you have {} columns.",
                    data.len()
                );
            }
        }
        let partitions = input.properties().output_partitioning().partition_count();
        let properties = Arc::new(PlanProperties::new(
            EquivalenceProperties::new(write_output_schema()),
            Partitioning::UnknownPartitioning(partitions),
            EmissionType::Final,
            Boundedness::Bounded,
        ));
        Ok(Self {
            input,
            write: Arc::new(write),
            properties,
        })
    }

    pub fn write(&self) -> &FileWrite {
        &self.write
    }

    pub fn input(&self) -> &Arc<dyn ExecutionPlan> {
        &self.input
    }
}

impl DisplayAs for WriteFilesExec {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        write!(
            f,
            "WriteFilesExec: format={}, staging={}, partition_columns={}, bucketed={}",
            self.write.format.name(),
            self.write.staging,
            self.write.partition_columns,
            self.write.bucketed
        )
    }
}

impl ExecutionPlan for WriteFilesExec {
    fn name(&self) -> &str {
        "WriteFilesExec"
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        &self.properties
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        vec![&self.input]
    }

    fn apply_expressions(
        &self,
        _f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> Result<TreeNodeRecursion>,
    ) -> Result<TreeNodeRecursion> {
        Ok(TreeNodeRecursion::Continue)
    }

    fn with_new_children(
        self: Arc<Self>,
        children: Vec<Arc<dyn ExecutionPlan>>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        match children.as_slice() {
            [input] => Ok(Arc::new(Self::try_new(
                input.clone(),
                (*self.write).clone(),
            )?)),
            _ => internal_err!("WriteFilesExec takes one input"),
        }
    }

    fn execute(
        &self,
        partition: usize,
        context: Arc<TaskContext>,
    ) -> Result<SendableRecordBatchStream> {
        let input = self.input.execute(partition, context.clone())?;
        let write = self.write.clone();
        let schema = write_output_schema();
        let out = schema.clone();
        let stream = futures::stream::once(async move {
            let rows = write_partition(input, &write, partition, &context).await?;
            Ok(RecordBatch::try_new(
                out,
                vec![Arc::new(UInt64Array::from(vec![rows]))],
            )?)
        });
        Ok(Box::pin(RecordBatchStreamAdapter::new(schema, stream)))
    }
}

/// One open output file: batches go to a task that runs the format's writer.
struct FileWriter {
    batches: mpsc::Sender<RecordBatch>,
    /// Aborted when dropped: a cancelled task stops writing.
    done: SpawnedTask<Result<u64>>,
}

/// Everything the writers of one task share.
struct TaskFiles<'a> {
    write: &'a FileWrite,
    table_options: TableOptions,
    store: Arc<dyn ObjectStore>,
    store_url: ObjectStoreUrl,
    /// The task attempt's directory.
    root: Path,
    /// The name of its files before their bucket and extension (`part-00000-<attempt>`).
    file_name: String,
    data_schema: SchemaRef,
    context: &'a Arc<TaskContext>,
    /// The staging directory, when it is on the local file system.
    local_staging: Option<std::path::PathBuf>,
}

impl TaskFiles<'_> {
    /// A job that failed or was cancelled removes its local staging directory: its late
    /// tasks must not create files there again.
    fn check_live(&self) -> Result<()> {
        if let Some(dir) = &self.local_staging
            && !dir.is_dir()
        {
            return Err(DataFusionError::Execution(format!(
                "the write job was aborted ({} is gone)",
                dir.display()
            )));
        }
        Ok(())
    }

    /// Start writing one file under `dirs` (partition directories, possibly none).
    fn open(&self, key: &FileKey) -> Result<FileWriter> {
        self.check_live()?;
        let mut path = self.root.clone();
        for d in &key.dirs {
            path = path.join(d.as_str());
        }
        let bucket = key.bucket.map(|b| format!("_{b:05}")).unwrap_or_default();
        let path = path.join(format!(
            "{}{bucket}{}",
            self.file_name, self.write.extension
        ));
        // The object the DataFusion sinks write for this path (its URL decoded once, so that
        // `c%2Fd` stays the directory name on every store): the JSON and text writers too.
        let object_path = {
            let url = parse_url(self.store_url.as_str())?
                .join(path.as_ref())
                .map_err(|e| DataFusionError::Internal(format!("bad output path {path}: {e}")))?;
            Path::from_url_path(url.path())?
        };
        let (tx, rx) = mpsc::channel::<RecordBatch>(2);
        let schema = self.data_schema.clone();
        let batches = tokio_stream_from(rx);
        let input: SendableRecordBatchStream =
            Box::pin(RecordBatchStreamAdapter::new(schema.clone(), batches));
        let context = self.context.clone();
        let done = match self.write.format {
            format @ (WriteFormat::Json
            | WriteFormat::Xml
            | WriteFormat::Text
            | WriteFormat::Orc
            | WriteFormat::Avro) => {
                let store = self.store.clone();
                let codec = self.write.option("format.compression");
                // ORC and Avro compress blocks inside the file.
                let compression: FileCompressionType = match format {
                    WriteFormat::Orc | WriteFormat::Avro => FileCompressionType::UNCOMPRESSED,
                    _ => codec
                        .unwrap_or("uncompressed")
                        .parse::<datafusion::common::parsers::CompressionTypeVariant>()?
                        .into(),
                };
                let encode: Box<dyn BatchEncoder> = match format {
                    WriteFormat::Json => Box::new(encode_json),
                    WriteFormat::Xml => Box::new(super::xml::write::XmlEncoder::new(
                        super::xml::write::XmlWriteOptions::from_options(|k| {
                            self.write.option(k).map(str::to_string)
                        }),
                        TextValues::from_options(|k| self.write.option(k).map(str::to_string)),
                    )),
                    WriteFormat::Orc => {
                        Box::new(OrcEncoder::try_new(&schema, codec.unwrap_or("none"))?)
                    }
                    WriteFormat::Avro => Box::new(AvroEncoder::try_new(
                        &schema,
                        codec.unwrap_or("uncompressed"),
                    )?),
                    _ => {
                        let line_sep = self
                            .write
                            .option("format.line_sep")
                            .unwrap_or("\n")
                            .to_string();
                        Box::new(move |batch: &RecordBatch, buf: &mut Vec<u8>| {
                            encode_text(batch, &line_sep, buf)
                        })
                    }
                };
                SpawnedTask::spawn(write_encoded(
                    input,
                    store,
                    object_path,
                    compression,
                    encode,
                ))
            }
            format => {
                let sink = self.sink(format, &path, schema)?;
                SpawnedTask::spawn(async move { sink.write_all(input, &context).await })
            }
        };
        Ok(FileWriter { batches: tx, done })
    }

    fn sink(
        &self,
        format: WriteFormat,
        path: &Path,
        schema: SchemaRef,
    ) -> Result<Arc<dyn DataSink>> {
        // Not `ListingTableUrl::parse`: partition values may contain glob characters.
        let url = parse_url(self.store_url.as_str())?
            .join(path.as_ref())
            .map_err(|e| DataFusionError::Internal(format!("bad output path {path}: {e}")))?;
        let table_path = ListingTableUrl::try_new(url.clone(), None)?;
        let config = FileSinkConfig {
            original_url: url.to_string(),
            object_store_url: self.store_url.clone(),
            file_group: FileGroup::default(),
            table_paths: vec![table_path],
            output_schema: schema,
            table_partition_cols: vec![],
            insert_op: InsertOp::Append,
            keep_partition_by_columns: false,
            file_extension: self.write.extension.trim_start_matches('.').to_string(),
            file_output_mode: FileOutputMode::SingleFile,
        };
        Ok(match format {
            WriteFormat::Parquet => {
                Arc::new(ParquetSink::new(config, self.table_options.parquet.clone()))
            }
            WriteFormat::Csv => {
                Arc::new(CsvSink::new(config, (&self.table_options.csv).try_into()?))
            }
            WriteFormat::Json => Arc::new(JsonSink::new(
                config,
                (&self.table_options.json).try_into()?,
            )),
            WriteFormat::Text | WriteFormat::Orc | WriteFormat::Avro | WriteFormat::Xml => {
                return internal_err!("{} has no DataFusion sink", format.name());
            }
        })
    }
}

fn parse_url(url: &str) -> Result<url::Url> {
    url::Url::parse(url).map_err(|e| DataFusionError::Internal(format!("bad URL {url}: {e}")))
}

fn tokio_stream_from(
    mut rx: mpsc::Receiver<RecordBatch>,
) -> impl futures::Stream<Item = Result<RecordBatch>> + Send + 'static {
    futures::stream::poll_fn(move |cx| rx.poll_recv(cx).map(|b| b.map(Ok)))
}

/// Write one partition; returns the rows written.
async fn write_partition(
    mut input: SendableRecordBatchStream,
    write: &FileWrite,
    partition: usize,
    context: &Arc<TaskContext>,
) -> Result<u64> {
    let staging = ListingTableUrl::try_new(parse_url(&write.staging)?, None)?;
    let store_url = staging.object_store();
    let store = context.runtime_env().object_store(&store_url)?;
    let attempt = uuid::Uuid::new_v4().simple().to_string();
    let root = task_attempt_dir(staging.prefix(), partition, &attempt);
    let schema = input.schema();
    let data_columns = schema.fields().len() - write.key_columns();
    // Text formats get dates, timestamps and doubles as Spark spells them.
    let values = TextValues::from_options(|k| write.option(k).map(str::to_string));
    let data_schema = values.schema(&schema.project(&(0..data_columns).collect::<Vec<_>>())?);
    let files = TaskFiles {
        write,
        table_options: write.table_options()?,
        store: store.clone(),
        store_url,
        root: root.clone(),
        file_name: format!("part-{partition:05}-{attempt}"),
        data_schema: data_schema.clone(),
        context,
        local_staging: parse_url(&write.staging)?.to_file_path().ok(),
    };
    let mut writers: HashMap<FileKey, FileWriter> = HashMap::new();
    let outcome: Result<()> = async {
        while let Some(batch) = input.next().await {
            let batch = batch?;
            if batch.num_rows() == 0 {
                continue;
            }
            let data = values.convert(
                &batch.project(&(0..data_columns).collect::<Vec<_>>())?,
                &data_schema,
            )?;
            if write.key_columns() == 0 {
                send(&mut writers, &files, FileKey::default(), data).await?;
                continue;
            }
            for (key, rows) in group_by_file(&batch, data_columns, write)? {
                let part = take_record_batch(&data, &UInt32Array::from(rows))?;
                send(&mut writers, &files, key, part).await?;
            }
        }
        // A job whose input is empty still leaves one file, so that the schema can be read
        // back (as Spark does).
        if writers.is_empty() && partition == 0 && write.key_columns() == 0 {
            let key = FileKey::default();
            let writer = files.open(&key)?;
            writers.insert(key, writer);
        }
        Ok(())
    }
    .await;
    let mut rows = 0u64;
    let mut failure = outcome.err();
    for (_, writer) in writers.drain() {
        drop(writer.batches);
        match writer.done.join().await {
            Ok(Ok(n)) => rows += n,
            Ok(Err(e)) => failure = failure.or(Some(e)),
            Err(e) => failure = failure.or(Some(DataFusionError::External(Box::new(e)))),
        }
    }
    if let Some(e) = failure {
        return Err(e);
    }
    // The marker says this attempt's files are complete; the job commit uses only such attempts.
    files.check_live()?;
    store
        .put(
            &root.clone().join(COMMITTED_MARKER),
            object_store::PutPayload::new(),
        )
        .await?;
    Ok(rows)
}

async fn send(
    writers: &mut HashMap<FileKey, FileWriter>,
    files: &TaskFiles<'_>,
    key: FileKey,
    batch: RecordBatch,
) -> Result<()> {
    if !writers.contains_key(&key) {
        let writer = files.open(&key)?;
        writers.insert(key.clone(), writer);
    }
    let Some(writer) = writers.get(&key) else {
        return internal_err!("missing writer");
    };
    if writer.batches.send(batch).await.is_err() {
        // The writer stopped early: its error is reported when it is joined.
        if let Some(w) = writers.remove(&key) {
            return match w.done.join().await {
                Ok(Ok(_)) => internal_err!("file writer stopped"),
                Ok(Err(e)) => Err(e),
                Err(e) => Err(DataFusionError::External(Box::new(e))),
            };
        }
    }
    Ok(())
}

/// Which file of a task a row goes to: its partition directories and its bucket.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
struct FileKey {
    dirs: Vec<String>,
    bucket: Option<i32>,
}

/// The rows of `batch` grouped by the file they go to (the trailing columns from `first`:
/// partition columns, then the bucket), in the order each file first appears.
fn group_by_file(
    batch: &RecordBatch,
    first: usize,
    write: &FileWrite,
) -> Result<Vec<(FileKey, Vec<u32>)>> {
    let partitions = first..first + write.partition_columns;
    let names: Vec<String> = batch.schema().fields()[partitions.clone()]
        .iter()
        .map(|f| f.name().clone())
        .collect();
    let columns: Vec<&ArrayRef> = batch.columns()[partitions].iter().collect();
    let formatters = names
        .iter()
        .zip(columns)
        .map(|(n, c)| PartitionFormatter::try_new(n, c))
        .collect::<Result<Vec<_>>>()?;
    let buckets = match write.bucketed {
        true => batch
            .columns()
            .last()
            .and_then(|c| c.as_any().downcast_ref::<Int32Array>()),
        false => None,
    };
    let mut order: Vec<FileKey> = Vec::new();
    let mut groups: HashMap<FileKey, Vec<u32>> = HashMap::new();
    for row in 0..batch.num_rows() {
        let key = FileKey {
            dirs: formatters.iter().map(|f| f.segment(row)).collect(),
            bucket: buckets.map(|b| b.value(row)),
        };
        match groups.get_mut(&key) {
            Some(rows) => rows.push(row as u32),
            None => {
                order.push(key.clone());
                groups.insert(key, vec![row as u32]);
            }
        }
    }
    Ok(order
        .into_iter()
        .map(|k| {
            let rows = groups.remove(&k).unwrap_or_default();
            (k, rows)
        })
        .collect())
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct WriteFilesMessage {
    #[prost(string, tag = "1")]
    format: String,
    #[prost(btree_map = "string, string", tag = "2")]
    options: std::collections::BTreeMap<String, String>,
    #[prost(string, tag = "3")]
    staging: String,
    #[prost(uint32, tag = "4")]
    partition_columns: u32,
    #[prost(string, tag = "5")]
    extension: String,
    #[prost(bool, tag = "6")]
    bucketed: bool,
}

impl EncodedNode for WriteFilesExec {
    const NAME: &'static str = "write_files";
    type Message = WriteFilesMessage;

    fn to_message(&self, _encoder: &NodeEncoder) -> Result<WriteFilesMessage> {
        let write = self.write();
        Ok(WriteFilesMessage {
            format: write.format.name().to_string(),
            options: write.options.iter().cloned().collect(),
            staging: write.staging.clone(),
            partition_columns: write.partition_columns as u32,
            extension: write.extension.clone(),
            bucketed: write.bucketed,
        })
    }

    fn from_message(
        w: WriteFilesMessage,
        inputs: &[Arc<dyn ExecutionPlan>],
        _decoder: &NodeDecoder,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let Some(format) = WriteFormat::from_name(&w.format) else {
            return internal_err!("bad write format {}", w.format);
        };
        let write = FileWrite {
            format,
            options: w.options.into_iter().collect(),
            staging: w.staging,
            partition_columns: w.partition_columns as usize,
            extension: w.extension,
            bucketed: w.bucketed,
        };
        Ok(Arc::new(WriteFilesExec::try_new(
            one_input(inputs)?,
            write,
        )?))
    }
}
