//! Text files. `spark.read.text`: every line of the files is a row of one string column, `value` (lines
//! end with `\n` or `\r\n`, or the `lineSep` given; a last line without one counts, as in
//! Spark), or every file one row (`wholetext`). Partitioned directories add their `col=value`
//! columns (as strings; the reader types them). Files are local paths or objects, read on a
//! blocking thread per partition, decompressed by their suffix. Writes ([`encode_text`]): one
//! line per row.

use std::fmt;
use std::io::{BufRead, Read};
use std::sync::Arc;

use crate::codec::{EncodedNode, NodeDecoder, NodeEncoder};
use arrow::array::{ArrayRef, RecordBatch, RecordBatchOptions, StringBuilder};
use arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::common::{DataFusionError, Result, internal_err};
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_expr::{EquivalenceProperties, PhysicalExpr};
use datafusion::physical_plan::execution_plan::{Boundedness, EmissionType};
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, ExecutionPlan, Partitioning, PlanProperties,
};
use datafusion_common_runtime::SpawnedTask;
use tokio::sync::mpsc;

/// The text column (`value`, or the one a given schema names), then the partition columns.
pub fn table_schema(options: &TextOptions, partition_columns: &[String]) -> SchemaRef {
    Arc::new(Schema::new(
        std::iter::once(options.column.as_deref().unwrap_or("value"))
            .chain(partition_columns.iter().map(String::as_str))
            .map(|name| Field::new(name, DataType::Utf8, true))
            .collect::<Vec<_>>(),
    ))
}

/// One file of a text read, with the raw values of its partition directories.
#[derive(Debug, Clone)]
pub struct TextFile {
    pub path: String,
    pub partition_values: Vec<String>,
}

/// How the files are split into rows.
#[derive(Debug, Clone, Default)]
pub struct TextOptions {
    /// One row per file.
    pub wholetext: bool,
    /// The line separator (default: `\n`, `\r\n`).
    pub line_sep: Option<String>,
    /// The text column's name when a schema gives one (default `value`).
    pub column: Option<String>,
}

/// What a [`TextScanExec`] reads.
#[derive(Debug, Clone)]
pub struct TextScan {
    pub groups: Vec<Vec<TextFile>>,
    pub partition_columns: Vec<String>,
    /// Columns of `value` + partition columns produced (none: only row counts).
    pub projection: Vec<usize>,
    pub options: TextOptions,
}

#[derive(Debug)]
pub struct TextScanExec {
    scan: TextScan,
    properties: Arc<PlanProperties>,
}

impl TextScanExec {
    pub fn new(scan: TextScan) -> Self {
        let all = table_schema(&scan.options, &scan.partition_columns);
        let schema = Arc::new(Schema::new(
            scan.projection
                .iter()
                .filter_map(|&i| all.fields().get(i).cloned())
                .collect::<Vec<_>>(),
        ));
        let properties = Arc::new(PlanProperties::new(
            EquivalenceProperties::new(schema),
            Partitioning::UnknownPartitioning(scan.groups.len().max(1)),
            EmissionType::Incremental,
            Boundedness::Bounded,
        ));
        Self { scan, properties }
    }

    pub fn scan(&self) -> &TextScan {
        &self.scan
    }
}

impl DisplayAs for TextScanExec {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        let files: usize = self.scan.groups.iter().map(Vec::len).sum();
        write!(
            f,
            "TextScanExec: files={files}, partitions={}",
            self.scan.groups.len()
        )
    }
}

impl ExecutionPlan for TextScanExec {
    fn name(&self) -> &str {
        "TextScanExec"
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        &self.properties
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        vec![]
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
        if children.is_empty() {
            Ok(self)
        } else {
            internal_err!("TextScanExec has no children")
        }
    }

    fn execute(
        &self,
        partition: usize,
        context: Arc<TaskContext>,
    ) -> Result<SendableRecordBatchStream> {
        let files = self.scan.groups.get(partition).cloned().unwrap_or_default();
        let schema = self.properties.eq_properties.schema().clone();
        let batch_size = context.session_config().batch_size();
        let (tx, rx) = mpsc::channel::<Result<RecordBatch>>(2);
        let out = schema.clone();
        let scan = self.scan.clone();
        let opener = FileOpener {
            runtime: context.runtime_env(),
            handle: tokio::runtime::Handle::current(),
        };
        let reader = SpawnedTask::spawn_blocking(move || {
            if let Err(e) = read_rows(&files, &scan, &opener, batch_size, &out, &tx) {
                let _ = tx.blocking_send(Err(e));
            }
        });
        // The reader lives as long as the stream (dropping the stream aborts it); a panic of
        // the reader is the stream's error.
        let stream = crate::panic::channel_stream(rx, reader);
        Ok(Box::pin(RecordBatchStreamAdapter::new(schema, stream)))
    }
}

/// Opens a text file for a blocking reader: local files directly, objects (`s3a://...`)
/// fetched whole through the task's object stores.
struct FileOpener {
    runtime: Arc<datafusion::execution::runtime_env::RuntimeEnv>,
    handle: tokio::runtime::Handle,
}

impl FileOpener {
    fn open(&self, path: &str) -> Result<Box<dyn std::io::Read + Send>> {
        if !crate::formats::storage::is_object_store_path(path) {
            let file = std::fs::File::open(path)
                .map_err(|e| DataFusionError::Execution(format!("cannot read {path}: {e}")))?;
            return Ok(Box::new(file));
        }
        use object_store::ObjectStoreExt as _;
        let url = datafusion::datasource::listing::ListingTableUrl::parse(path)?;
        let store = self.runtime.object_store(url.object_store())?;
        let bytes = self.handle.block_on(async {
            store
                .get(url.prefix())
                .await
                .map_err(|e| DataFusionError::Execution(format!("cannot read {path}: {e}")))?
                .bytes()
                .await
                .map_err(|e| DataFusionError::Execution(format!("cannot read {path}: {e}")))
        })?;
        Ok(Box::new(std::io::Cursor::new(bytes)))
    }
}

/// The rows of the files: the projected columns of each line (or file) in batches.
fn read_rows(
    files: &[TextFile],
    scan: &TextScan,
    opener: &FileOpener,
    batch_size: usize,
    schema: &SchemaRef,
    tx: &mpsc::Sender<Result<RecordBatch>>,
) -> Result<()> {
    let mut columns: Vec<StringBuilder> = scan
        .projection
        .iter()
        .map(|_| StringBuilder::new())
        .collect();
    let mut count = 0usize;
    let flush = |columns: &mut Vec<StringBuilder>, count: &mut usize| -> Result<bool> {
        let arrays: Vec<ArrayRef> = columns
            .iter_mut()
            .map(|b| Arc::new(b.finish()) as ArrayRef)
            .collect();
        let batch = RecordBatch::try_new_with_options(
            schema.clone(),
            arrays,
            &RecordBatchOptions::new().with_row_count(Some(*count)),
        )?;
        *count = 0;
        Ok(tx.blocking_send(Ok(batch)).is_ok())
    };
    let separator = scan.options.line_sep.as_deref().map(str::as_bytes);
    for file in files {
        let opened = opener.open(&file.path)?;
        let compression = crate::formats::storage::compression_of(&file.path);
        let mut reader = std::io::BufReader::new(compression.convert_read(opened)?);
        let read_error = |e: std::io::Error| {
            DataFusionError::Execution(format!("cannot read {}: {e}", file.path))
        };
        let row = |line: &[u8], columns: &mut Vec<StringBuilder>| {
            for (builder, &i) in columns.iter_mut().zip(&scan.projection) {
                match i {
                    0 => builder.append_value(String::from_utf8_lossy(line)),
                    _ => builder.append_option(file.partition_values.get(i - 1)),
                }
            }
        };
        if scan.options.wholetext {
            let mut whole = Vec::new();
            reader.read_to_end(&mut whole).map_err(read_error)?;
            row(&whole, &mut columns);
            count += 1;
            if count == batch_size && !flush(&mut columns, &mut count)? {
                return Ok(());
            }
            continue;
        }
        let mut line = Vec::new();
        loop {
            line.clear();
            let found = match separator {
                None => {
                    let n = reader.read_until(b'\n', &mut line).map_err(read_error)?;
                    if n == 0 {
                        break;
                    }
                    if line.last() == Some(&b'\n') {
                        line.pop();
                        if line.last() == Some(&b'\r') {
                            line.pop();
                        }
                    }
                    true
                }
                Some(sep) => {
                    read_until_separator(&mut reader, sep, &mut line).map_err(read_error)?
                }
            };
            if !found {
                break;
            }
            row(&line, &mut columns);
            count += 1;
            if count == batch_size && !flush(&mut columns, &mut count)? {
                return Ok(());
            }
        }
    }
    if count > 0 {
        flush(&mut columns, &mut count)?;
    }
    Ok(())
}

/// Read up to (and without) the next `sep` into `out`; `false` at the end of the input with
/// nothing read.
fn read_until_separator(
    reader: &mut impl BufRead,
    sep: &[u8],
    out: &mut Vec<u8>,
) -> std::io::Result<bool> {
    let Some(&last) = sep.last() else {
        return Ok(false);
    };
    let mut any = false;
    loop {
        let n = reader.read_until(last, out)?;
        if n == 0 {
            return Ok(any);
        }
        any = true;
        if out.ends_with(sep) {
            out.truncate(out.len() - sep.len());
            return Ok(true);
        }
    }
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct TextScanMessage {
    /// The files of each partition.
    #[prost(message, repeated, tag = "1")]
    groups: Vec<TextGroupMessage>,
    #[prost(string, repeated, tag = "2")]
    partition_columns: Vec<String>,
    #[prost(uint64, repeated, tag = "3")]
    projection: Vec<u64>,
    #[prost(bool, tag = "4")]
    wholetext: bool,
    #[prost(string, optional, tag = "5")]
    line_sep: Option<String>,
    #[prost(string, optional, tag = "6")]
    column: Option<String>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct TextGroupMessage {
    #[prost(message, repeated, tag = "1")]
    files: Vec<TextFileMessage>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct TextFileMessage {
    #[prost(string, tag = "1")]
    path: String,
    #[prost(string, repeated, tag = "2")]
    partition_values: Vec<String>,
}

impl EncodedNode for TextScanExec {
    const NAME: &'static str = "text_scan";
    type Message = TextScanMessage;

    fn to_message(&self, _encoder: &NodeEncoder) -> Result<TextScanMessage> {
        let scan = &self.scan;
        Ok(TextScanMessage {
            groups: scan
                .groups
                .iter()
                .map(|files| TextGroupMessage {
                    files: files
                        .iter()
                        .map(|f| TextFileMessage {
                            path: f.path.clone(),
                            partition_values: f.partition_values.clone(),
                        })
                        .collect(),
                })
                .collect(),
            partition_columns: scan.partition_columns.clone(),
            projection: scan.projection.iter().map(|&i| i as u64).collect(),
            wholetext: scan.options.wholetext,
            line_sep: scan.options.line_sep.clone(),
            column: scan.options.column.clone(),
        })
    }

    fn from_message(
        t: TextScanMessage,
        _inputs: &[Arc<dyn ExecutionPlan>],
        _decoder: &NodeDecoder,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let columns = 1 + t.partition_columns.len();
        if t.projection.iter().any(|&i| i as usize >= columns) {
            return internal_err!("bad text scan projection");
        }
        Ok(Arc::new(TextScanExec::new(TextScan {
            groups: t
                .groups
                .into_iter()
                .map(|g| {
                    g.files
                        .into_iter()
                        .map(|f| TextFile {
                            path: f.path,
                            partition_values: f.partition_values,
                        })
                        .collect()
                })
                .collect(),
            partition_columns: t.partition_columns,
            projection: t.projection.into_iter().map(|i| i as usize).collect(),
            options: TextOptions {
                wholetext: t.wholetext,
                line_sep: t.line_sep,
                column: t.column,
            },
        })))
    }
}

/// Text files: each row's single string value followed by the line separator (only the
/// separator for NULL, as Spark writes it).
pub fn encode_text(batch: &RecordBatch, line_sep: &str, buf: &mut Vec<u8>) -> Result<()> {
    let column = arrow::compute::cast(batch.column(0), &DataType::Utf8)?;
    let values = column
        .as_any()
        .downcast_ref::<arrow::array::StringArray>()
        .ok_or_else(|| DataFusionError::Internal("text column is not a string".into()))?;
    for v in values.iter() {
        buf.extend_from_slice(v.unwrap_or_default().as_bytes());
        buf.extend_from_slice(line_sep.as_bytes());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn custom_separators() {
        let mut input = std::io::Cursor::new(b"one;two;;three\nfour".to_vec());
        let mut rows = vec![];
        let mut line = vec![];
        while read_until_separator(&mut input, b";", &mut line).unwrap() {
            rows.push(String::from_utf8(line.clone()).unwrap());
            line.clear();
        }
        assert_eq!(rows, ["one", "two", "", "three\nfour"]);
        let mut input = std::io::Cursor::new(b"a<>b<".to_vec());
        line.clear();
        assert!(read_until_separator(&mut input, b"<>", &mut line).unwrap());
        assert_eq!(line, b"a");
        line.clear();
        assert!(read_until_separator(&mut input, b"<>", &mut line).unwrap());
        assert_eq!(line, b"b<");
    }
}
