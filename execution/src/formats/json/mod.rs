//! JSON read in Ember's own code, as Spark reads it: malformed records kept in the
//! corrupt-record column, skipped or failing the read as `mode` says, wherever they are in
//! the files. JSON lines stream in batches of lines (files split into byte ranges at line
//! ends); a batch of lines goes through arrow's JSON decoder, and only a batch holding a
//! malformed record is read record by record. `multiLine` files (one JSON object or an array
//! of them, one row each), `allowComments` and `primitivesAsString` are parsed a file at a
//! time. A file source of Ember's, so these reads list, prune and partition like the others
//! and run on workers. Schema inference reads every record, as Spark's does, unless the read
//! needs none of this (then DataFusion's inference from the first records).

use std::sync::Arc;

use arrow::array::{RecordBatch, RecordBatchOptions};
use arrow::datatypes::DataType;
use arrow::datatypes::{Schema, SchemaRef};
use arrow::error::ArrowError;
use async_trait::async_trait;
use datafusion::catalog::Session;
use datafusion::common::{DataFusionError, Result};
use datafusion::datasource::file_format::FileFormat;
use datafusion::datasource::file_format::file_compression_type::FileCompressionType;
use datafusion::datasource::listing::PartitionedFile;
use datafusion::datasource::physical_plan::{FileOpenFuture, FileOpener};
use datafusion::datasource::table_schema::TableSchema;
use datafusion_datasource::decoder::{Decoder, DecoderDeserializer, deserialize_stream};
use futures::{FutureExt, StreamExt, TryStreamExt};
use object_store::{ObjectMeta, ObjectStore, ObjectStoreExt};
use serde::{Deserialize, Serialize};

use crate::formats::MalformedMode;
use crate::formats::source::{FileReader, ReaderFormat, ReaderSource, file_bytes};
use crate::spark_error::{SparkError, to_datafusion};

pub mod records;
pub mod text;
pub mod write;

use records::{
    JsonRecord, infer_json_records_schema, json_data_schema, json_file_records,
    json_records_in_mode, malformed_record,
};
pub use text::JsonTextOptions;

/// Spark's JSON read options, as Ember's reader applies them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JsonOptions {
    pub multi_line: bool,
    pub allow_comments: bool,
    pub primitives_as_string: bool,
    pub mode: MalformedMode,
    pub corrupt_column: String,
    /// Infer the schema from every record (else as DataFusion's reader does).
    pub infer_all: bool,
    /// The files' compression, as DataFusion spells it (`GZIP`, `UNCOMPRESSED`, ...).
    pub compression: String,
}

/// A malformed record met by a scan under FAILFAST: the task fails reading the file
/// (FAILED_READ_FILE), as Spark's executors do.
fn scan_error(e: SparkError) -> ArrowError {
    if e.error_class.starts_with("MALFORMED_RECORD_IN_PARSING") {
        ArrowError::JsonError(e.message)
    } else {
        ArrowError::ExternalError(Box::new(to_datafusion(e)))
    }
}

impl JsonOptions {
    fn compression(&self) -> Result<FileCompressionType> {
        self.compression.parse()
    }

    /// Files are parsed whole rather than line by line.
    fn whole_files(&self) -> bool {
        self.multi_line || self.allow_comments || self.primitives_as_string
    }

    /// The records of one object.
    async fn records(&self, store: &dyn ObjectStore, meta: &ObjectMeta) -> Result<Vec<JsonRecord>> {
        let bytes = store.get(&meta.location).await?.bytes().await?;
        let compression = self.compression()?;
        let raw: Vec<u8> = if compression.is_compressed() {
            let mut decompressed =
                compression.convert_stream(futures::stream::once(async { Ok(bytes) }).boxed())?;
            let mut raw = Vec::with_capacity(meta.size as usize);
            while let Some(chunk) = decompressed.next().await {
                raw.extend_from_slice(&chunk?);
            }
            raw
        } else {
            bytes.into()
        };
        let text = String::from_utf8(raw).map_err(|e| {
            DataFusionError::Execution(format!("{} is not UTF-8 text: {e}", meta.location))
        })?;
        let rewrites = JsonTextOptions {
            comments: self.allow_comments,
            primitives_as_strings: self.primitives_as_string,
        };
        json_file_records(text, self.multi_line, rewrites).map_err(|e| {
            to_datafusion(SparkError::unsupported(format!(
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

/// Scans JSON files as Spark reads them.
pub type JsonSource = ReaderSource<JsonFiles>;

#[async_trait]
impl FileReader for JsonFiles {
    const FILE_TYPE: &'static str = "json";
    const EXTENSION: &'static str = ".json";
    type Options = JsonOptions;

    fn new(_table_schema: &TableSchema, options: JsonOptions) -> Self {
        JsonFiles {
            options: Arc::new(options),
        }
    }

    fn options(&self) -> &JsonOptions {
        &self.options
    }

    fn compression(options: &JsonOptions) -> Option<FileCompressionType> {
        options.compression().ok()
    }

    async fn infer_schema(
        options: &JsonOptions,
        state: &dyn Session,
        store: &Arc<dyn ObjectStore>,
        objects: &[ObjectMeta],
    ) -> Result<SchemaRef> {
        if !options.infer_all {
            let compression = options.compression()?;
            return datafusion::datasource::file_format::json::JsonFormat::default()
                .with_file_compression_type(compression)
                .infer_schema(state, store, objects)
                .await;
        }
        let mut records = vec![];
        for meta in objects {
            records.extend(options.records(store.as_ref(), meta).await?);
        }
        if records.is_empty() {
            return Ok(Arc::new(Schema::empty()));
        }
        // Spark infers on the driver: a malformed record fails the read there.
        if options.mode == MalformedMode::FailFast && records.iter().any(JsonRecord::is_malformed) {
            return Err(to_datafusion(malformed_record()));
        }
        infer_json_records_schema(&records, options.mode, &options.corrupt_column)
            .map_err(to_datafusion)
    }

    fn opener(
        &self,
        store: Arc<dyn ObjectStore>,
        output: SchemaRef,
        batch_size: usize,
    ) -> Arc<dyn FileOpener> {
        Arc::new(JsonOpener {
            options: self.options.clone(),
            store,
            output,
            batch_size,
        })
    }

    fn splittable(&self) -> bool {
        !self.options.whole_files()
    }
}

struct JsonOpener {
    options: Arc<JsonOptions>,
    store: Arc<dyn ObjectStore>,
    output: SchemaRef,
    batch_size: usize,
}

impl FileOpener for JsonOpener {
    fn open(&self, file: PartitionedFile) -> Result<FileOpenFuture> {
        let options = self.options.clone();
        let store = self.store.clone();
        let output = self.output.clone();
        let batch_size = self.batch_size;
        Ok(async move {
            if options.whole_files() {
                let records = options.records(store.as_ref(), &file.object_meta).await?;
                let batches =
                    json_records_in_mode(&output, records, options.mode, &options.corrupt_column)
                        .map_err(|e| DataFusionError::from(scan_error(e)))?;
                return Ok(futures::stream::iter(batches.into_iter().map(Ok)).boxed());
            }
            let bytes = file_bytes(store, file, b'\n').await?;
            let input = options.compression()?.convert_stream(bytes)?.fuse();
            let decoder = LinesDecoder {
                options,
                output,
                batch_size,
                partial: vec![],
                lines: vec![],
            };
            let batches = deserialize_stream(input, DecoderDeserializer::new(decoder));
            Ok(batches.map_err(DataFusionError::from).boxed())
        }
        .boxed())
    }
}

/// JSON lines in batches of `batch_size` lines.
struct LinesDecoder {
    options: Arc<JsonOptions>,
    output: SchemaRef,
    batch_size: usize,
    /// The start of a line whose end has not arrived.
    partial: Vec<u8>,
    lines: Vec<String>,
}

impl std::fmt::Debug for LinesDecoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LinesDecoder")
            .field("lines", &self.lines.len())
            .finish()
    }
}

impl LinesDecoder {
    fn end_line(&mut self) {
        let mut line = std::mem::take(&mut self.partial);
        if line.last() == Some(&b'\r') {
            line.pop();
        }
        // Taken as it is when it is UTF-8 (no copy).
        let line = String::from_utf8(line)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
        if !line.trim().is_empty() {
            self.lines.push(line);
        }
    }

    /// The lines as a batch: arrow's decoder when every line fits, else line by line.
    fn batch(&self, lines: Vec<String>) -> Result<RecordBatch, ArrowError> {
        let rows = lines.len();
        let options = RecordBatchOptions::new().with_row_count(Some(rows));
        if self.output.fields().is_empty() {
            // No column is read (`count()`): records are still parsed for the mode.
            let records: Vec<JsonRecord> = match self.options.mode {
                MalformedMode::Permissive => vec![],
                _ => lines.into_iter().map(JsonRecord::of_line).collect(),
            };
            let malformed = records.iter().filter(|r| r.is_malformed()).count();
            if malformed > 0 && self.options.mode == MalformedMode::FailFast {
                return Err(scan_error(malformed_record()));
            }
            let options = RecordBatchOptions::new().with_row_count(Some(rows - malformed));
            return RecordBatch::try_new_with_options(self.output.clone(), vec![], &options);
        }
        let (corrupt_at, data) = json_data_schema(&self.output, &self.options.corrupt_column);
        let fast = || -> Result<Option<RecordBatch>, ArrowError> {
            let mut decoder = arrow::json::ReaderBuilder::new(data.clone())
                .with_coerce_primitive(true)
                .with_batch_size(rows.max(1))
                .build_decoder()?;
            for line in &lines {
                // One value per line: arrow's decoder would read `{..} {..}` as two.
                if !line.trim_start().starts_with('{') {
                    return Ok(None);
                }
                decoder.decode(line.as_bytes())?;
                decoder.decode(b"\n")?;
            }
            Ok(decoder.flush()?.filter(|b| b.num_rows() == rows))
        };
        if let Ok(Some(batch)) = fast() {
            let mut columns = batch.columns().to_vec();
            if let Some(at) = corrupt_at {
                columns.insert(at, arrow::array::new_null_array(&DataType::Utf8, rows));
            }
            return RecordBatch::try_new_with_options(self.output.clone(), columns, &options);
        }
        let records = lines.into_iter().map(JsonRecord::of_line).collect();
        let batches = json_records_in_mode(
            &self.output,
            records,
            self.options.mode,
            &self.options.corrupt_column,
        )
        .map_err(scan_error)?;
        arrow::compute::concat_batches(&self.output, &batches)
    }
}

impl Decoder for LinesDecoder {
    fn decode(&mut self, buf: &[u8]) -> Result<usize, ArrowError> {
        if buf.is_empty() {
            if !self.partial.is_empty() {
                self.end_line();
            }
            return Ok(0);
        }
        let mut consumed = 0;
        while consumed < buf.len() && self.lines.len() < self.batch_size {
            let rest = &buf[consumed..];
            match rest.iter().position(|b| *b == b'\n') {
                Some(at) => {
                    self.partial.extend_from_slice(&rest[..at]);
                    self.end_line();
                    consumed += at + 1;
                }
                None => {
                    self.partial.extend_from_slice(rest);
                    consumed = buf.len();
                }
            }
        }
        Ok(consumed)
    }

    fn flush(&mut self) -> Result<Option<RecordBatch>, ArrowError> {
        if self.lines.is_empty() {
            return Ok(None);
        }
        let lines = std::mem::take(&mut self.lines);
        self.batch(lines).map(Some)
    }

    fn can_flush_early(&self) -> bool {
        false
    }
}

/// The JSON file format of the reads Ember parses itself.
pub type JsonFormat = ReaderFormat<JsonFiles>;
