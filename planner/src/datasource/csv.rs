//! CSV read as Spark's reader (univocity) reads it, in a DataFusion file source of Ember's
//! on `csv_core`'s tokenizer: an unquoted empty value is NULL, a quoted empty one (`""`) is
//! `emptyValue`, a value equal to `nullValue` is NULL, blank lines are skipped, and a record
//! with more or fewer values than the file has columns is malformed: PERMISSIVE drops the
//! extra values and reads the missing ones as NULL, DROPMALFORMED skips the record, FAILFAST
//! fails the read. As in Spark, a record's length is checked only when every column is read.
//!
//! Every column is read as a string; FAILFAST reads convert the columns of other types here
//! (a value that does not convert fails the read), the other modes convert them after the
//! scan.

use std::sync::Arc;

use arrow::array::{ArrayRef, RecordBatch, RecordBatchOptions, StringBuilder};
use arrow::compute::CastOptions;
use arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use arrow::error::ArrowError;
use async_trait::async_trait;
use bytes::Bytes;
use csv_core::{ReadFieldResult, Terminator};
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
use datafusion_datasource::decoder::{Decoder, DecoderDeserializer, deserialize_stream};
use futures::stream::BoxStream;
use futures::{FutureExt, StreamExt, TryStreamExt};
use object_store::{ObjectMeta, ObjectStore, ObjectStoreExt};
use serde::{Deserialize, Serialize};

use super::MalformedMode;
use super::source::{FileReader, ReaderSource, file_bytes};

/// Spark's CSV read options, as the reader applies them.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct CsvOptions {
    pub header: bool,
    pub delimiter: u8,
    /// None: no quoting.
    pub quote: Option<u8>,
    pub escape: Option<u8>,
    pub comment: Option<u8>,
    /// A one-byte `lineSep`; None: `\n`, `\r\n` or `\r`.
    pub terminator: Option<u8>,
    pub null_value: String,
    pub empty_value: String,
    pub mode: MalformedMode,
    /// Values may hold line breaks, so files are not split into byte ranges.
    pub multi_line: bool,
    /// The files' compression, as DataFusion spells it (`GZIP`, `UNCOMPRESSED`, ...).
    pub compression: String,
    /// The files' character set (`encoding`).
    pub charset: Charset,
}

impl CsvOptions {
    fn tokenizer(&self) -> csv_core::Reader {
        let mut builder = csv_core::ReaderBuilder::new();
        builder
            .delimiter(self.delimiter)
            .escape(self.escape)
            .comment(self.comment);
        match self.quote {
            Some(q) => builder.quote(q),
            None => builder.quoting(false),
        };
        if let Some(t) = self.terminator {
            builder.terminator(Terminator::Any(t));
        }
        builder.build()
    }

    fn compression(&self) -> Result<FileCompressionType> {
        self.compression.parse()
    }

    /// The text of a file's bytes: decompressed, and in UTF-8.
    fn text(
        &self,
        bytes: BoxStream<'static, Result<Bytes>>,
    ) -> Result<BoxStream<'static, Result<Bytes>>> {
        let text = self.compression()?.convert_stream(bytes)?;
        Ok(match Transcoder::new(self.charset)? {
            Some(transcoder) => to_utf8(text, transcoder),
            None => text,
        })
    }

    fn is_terminator(&self, b: u8) -> bool {
        match self.terminator {
            Some(t) => b == t,
            None => b == b'\n' || b == b'\r',
        }
    }

    /// A value's text as the row holds it: NULL when it is `nullValue`.
    fn value<'a>(&self, text: &'a str) -> Option<&'a str> {
        (text != self.null_value).then_some(text)
    }
}

/// The character sets Spark reads CSV files in (`encoding`, `charset`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Charset {
    Utf8,
    Latin1,
    Ascii,
    /// Big-endian unless a byte order mark says otherwise, as Java's `UTF-16`.
    Utf16,
    Utf16Be,
    Utf16Le,
    Utf32,
}

impl Charset {
    /// The character set Spark names `name` (its list, ignoring case).
    pub fn named(name: &str) -> Option<Self> {
        Some(match name.to_ascii_lowercase().as_str() {
            "utf-8" => Self::Utf8,
            "iso-8859-1" => Self::Latin1,
            "us-ascii" => Self::Ascii,
            "utf-16" => Self::Utf16,
            "utf-16be" => Self::Utf16Be,
            "utf-16le" => Self::Utf16Le,
            "utf-32" => Self::Utf32,
            _ => return None,
        })
    }

    /// Whether a line end is a `\n` byte, so files split into byte ranges at line ends.
    fn byte_lines(self) -> bool {
        matches!(self, Self::Utf8 | Self::Latin1 | Self::Ascii)
    }
}

/// Turns text in another character set into UTF-8, chunk by chunk.
enum Transcoder {
    Latin1,
    /// Bytes above 127 are not ASCII: U+FFFD, as Java decodes them.
    Ascii,
    Utf16(encoding_rs::Decoder),
}

impl Transcoder {
    fn new(charset: Charset) -> Result<Option<Self>> {
        Ok(Some(match charset {
            Charset::Utf8 => return Ok(None),
            Charset::Latin1 => Self::Latin1,
            Charset::Ascii => Self::Ascii,
            Charset::Utf16 => Self::Utf16(encoding_rs::UTF_16BE.new_decoder()),
            Charset::Utf16Be => Self::Utf16(encoding_rs::UTF_16BE.new_decoder_with_bom_removal()),
            Charset::Utf16Le => Self::Utf16(encoding_rs::UTF_16LE.new_decoder_with_bom_removal()),
            Charset::Utf32 => {
                return Err(DataFusionError::NotImplemented(
                    "CSV files in UTF-32".into(),
                ));
            }
        }))
    }

    fn transcode(&mut self, chunk: &[u8], last: bool) -> Bytes {
        match self {
            Self::Latin1 => {
                let mut out = vec![0; chunk.len() * 2];
                let n = encoding_rs::mem::convert_latin1_to_utf8(chunk, &mut out);
                out.truncate(n);
                out.into()
            }
            Self::Ascii => {
                let mut out = String::with_capacity(chunk.len());
                out.extend(chunk.iter().map(|&b| {
                    if b.is_ascii() {
                        b as char
                    } else {
                        char::REPLACEMENT_CHARACTER
                    }
                }));
                out.into_bytes().into()
            }
            Self::Utf16(decoder) => {
                let room = decoder
                    .max_utf8_buffer_length(chunk.len())
                    .unwrap_or(chunk.len() * 3 + 16);
                let mut out = String::with_capacity(room);
                let _ = decoder.decode_to_string(chunk, &mut out, last);
                out.into_bytes().into()
            }
        }
    }
}

/// Text in another character set as UTF-8.
fn to_utf8(
    input: BoxStream<'static, Result<Bytes>>,
    transcoder: Transcoder,
) -> BoxStream<'static, Result<Bytes>> {
    futures::stream::unfold(Some((input, transcoder)), |state| async move {
        let (mut input, mut transcoder) = state?;
        let (chunk, last) = match input.next().await {
            Some(Err(e)) => return Some((Err(e), None)),
            Some(Ok(chunk)) => (chunk, false),
            None => (Bytes::new(), true),
        };
        let text = transcoder.transcode(&chunk, last);
        Some((Ok(text), (!last).then_some((input, transcoder))))
    })
    .boxed()
}

/// How a field was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Written {
    /// Nothing between the delimiters: NULL.
    Nothing,
    /// `""`: `emptyValue`.
    QuotedEmpty,
    Text,
}

/// The records of CSV text, one at a time, with how each field was written (the tokenizer
/// unquotes values, so an empty field's input tells `""` from nothing).
struct Records {
    options: Arc<CsvOptions>,
    tokenizer: csv_core::Reader,
    /// The unquoted bytes of the record's fields.
    data: Vec<u8>,
    len: usize,
    /// Where each field of the record ends in `data`, and how it was written.
    fields: Vec<(usize, Written)>,
    /// The last byte of the current field's input other than its delimiter or line end.
    last_byte: Option<u8>,
    /// That byte for the field read last (the quote when it was quoted).
    last_quoted: Option<u8>,
}

impl Records {
    fn new(options: Arc<CsvOptions>) -> Self {
        Self {
            tokenizer: options.tokenizer(),
            options,
            data: vec![0; 4096],
            len: 0,
            fields: vec![],
            last_byte: None,
            last_quoted: None,
        }
    }

    /// Reads `input` until a record ends (true) or the input is used up, and says how many
    /// bytes it read. An empty input is the end of the text.
    fn read(&mut self, input: &[u8]) -> (usize, bool) {
        let mut consumed = 0;
        loop {
            if self.len == self.data.len() {
                self.data.resize(self.data.len() * 2, 0);
            }
            let rest = &input[consumed..];
            // The tokenizer takes an empty input for the end of the text.
            if rest.is_empty() && !input.is_empty() {
                return (consumed, false);
            }
            let (result, read, written) =
                self.tokenizer.read_field(rest, &mut self.data[self.len..]);
            let taken = &rest[..read];
            consumed += read;
            self.len += written;
            match result {
                ReadFieldResult::OutputFull => self.note(taken, None),
                ReadFieldResult::InputEmpty | ReadFieldResult::End => {
                    self.note(taken, None);
                    return (consumed, false);
                }
                ReadFieldResult::Field { record_end } => {
                    self.note(taken, Some(record_end));
                    let start = self.fields.last().map_or(0, |f| f.0);
                    let written = if self.len > start {
                        Written::Text
                    } else if self.last_byte.is_some() && self.last_byte == self.options.quote {
                        Written::QuotedEmpty
                    } else {
                        Written::Nothing
                    };
                    self.fields.push((self.len, written));
                    self.last_quoted = self.last_byte.take();
                    if record_end {
                        return (consumed, true);
                    }
                }
            }
        }
    }

    /// Keeps the last byte of a field's input, without the delimiter or line end that ends
    /// the field (`ended`: whether it ends the field, and whether the record too).
    fn note(&mut self, mut taken: &[u8], ended: Option<bool>) {
        match ended {
            Some(true) => {
                while let Some((&b, rest)) = taken.split_last()
                    && self.options.is_terminator(b)
                {
                    taken = rest;
                }
            }
            Some(false) => {
                if let Some((&b, rest)) = taken.split_last()
                    && b == self.options.delimiter
                {
                    taken = rest;
                }
            }
            None => {}
        }
        if let Some(&b) = taken.last() {
            self.last_byte = Some(b);
        }
    }

    /// The `i`th field of the record: None when the record has no such field or it is NULL.
    fn field(&self, i: usize) -> Option<std::borrow::Cow<'_, str>> {
        let (end, written) = *self.fields.get(i)?;
        match written {
            Written::Nothing => None,
            Written::QuotedEmpty => Some(self.options.empty_value.as_str().into()),
            Written::Text => {
                let start = if i == 0 { 0 } else { self.fields[i - 1].0 };
                Some(String::from_utf8_lossy(&self.data[start..end]))
            }
        }
    }

    /// Reads `input` (empty: the end of the text) to the end of the first record that is not
    /// blank, and gives its values.
    fn first_record(&mut self, input: &[u8]) -> Option<Vec<Option<String>>> {
        let mut at = 0;
        loop {
            let (read, ended) = self.read(&input[at..]);
            at += read;
            if !ended {
                return None;
            }
            if !self.is_blank() {
                return Some(
                    (0..self.fields.len())
                        .map(|i| self.field(i).map(|t| t.into_owned()))
                        .collect(),
                );
            }
            self.clear();
        }
    }

    /// A line with nothing on it, which Spark skips; line by line (not `multiLine`) Spark
    /// also skips lines of white space only.
    fn is_blank(&self) -> bool {
        match self.fields.as_slice() {
            [(0, Written::Nothing)] => true,
            [(end, Written::Text)] => {
                !self.options.multi_line
                    && self.last_quoted != self.options.quote
                    && self.data[..*end].iter().all(|b| *b <= b' ')
            }
            _ => false,
        }
    }

    /// Ready for other text, from its start.
    fn restart(&mut self) {
        self.tokenizer.reset();
        self.clear();
        self.last_byte = None;
        self.last_quoted = None;
    }

    fn clear(&mut self) {
        self.len = 0;
        self.fields.clear();
    }
}

/// Decodes CSV text into batches of the `output` columns (by their index in `projection`
/// among the file's `file_columns`).
struct CsvDecoder {
    records: Records,
    output: SchemaRef,
    projection: Vec<usize>,
    file_columns: usize,
    batch_size: usize,
    skip_header: bool,
    builders: Vec<StringBuilder>,
    rows: usize,
}

impl std::fmt::Debug for CsvDecoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CsvDecoder")
            .field("output", &self.output)
            .field("rows", &self.rows)
            .finish()
    }
}

impl CsvDecoder {
    fn new(
        options: Arc<CsvOptions>,
        output: SchemaRef,
        projection: Vec<usize>,
        file_columns: usize,
        batch_size: usize,
        skip_header: bool,
    ) -> Self {
        Self {
            builders: output
                .fields()
                .iter()
                .map(|_| StringBuilder::new())
                .collect(),
            records: Records::new(options),
            output,
            projection,
            file_columns,
            batch_size: batch_size.max(1),
            skip_header,
            rows: 0,
        }
    }

    /// Adds the record just read to the batch, unless it is skipped.
    fn end_record(&mut self) -> Result<(), ArrowError> {
        let records = &mut self.records;
        // Blank lines first: the header is the first record that is not blank.
        if records.is_blank() || std::mem::take(&mut self.skip_header) {
            records.clear();
            return Ok(());
        }
        let count = records.fields.len();
        if self.projection.len() == self.file_columns && count != self.file_columns {
            match records.options.mode {
                MalformedMode::Permissive => {}
                MalformedMode::DropMalformed => {
                    records.clear();
                    return Ok(());
                }
                MalformedMode::FailFast => {
                    return Err(ArrowError::CsvError(format!(
                        "malformed record: {count} values for {} columns",
                        self.file_columns
                    )));
                }
            }
        }
        for (builder, &i) in self.builders.iter_mut().zip(&self.projection) {
            let field = records.field(i);
            builder.append_option(field.as_deref().and_then(|t| records.options.value(t)));
        }
        records.clear();
        self.rows += 1;
        Ok(())
    }
}

impl Decoder for CsvDecoder {
    fn decode(&mut self, buf: &[u8]) -> Result<usize, ArrowError> {
        if buf.is_empty() {
            // The end of the text: its last record, if it has no line end.
            while self.records.read(&[]).1 {
                self.end_record()?;
            }
            return Ok(0);
        }
        let mut consumed = 0;
        while consumed < buf.len() && self.rows < self.batch_size {
            let (read, ended) = self.records.read(&buf[consumed..]);
            consumed += read;
            if ended {
                self.end_record()?;
            }
        }
        Ok(consumed)
    }

    fn flush(&mut self) -> Result<Option<RecordBatch>, ArrowError> {
        if self.rows == 0 {
            return Ok(None);
        }
        let convert = CastOptions {
            safe: false,
            ..Default::default()
        };
        let columns = self
            .builders
            .iter_mut()
            .zip(self.output.fields())
            .map(|(builder, field)| {
                let strings: ArrayRef = Arc::new(builder.finish());
                if field.data_type() == &DataType::Utf8 {
                    return Ok(strings);
                }
                arrow::compute::cast_with_options(&strings, field.data_type(), &convert)
                    .map_err(|e| ArrowError::CsvError(format!("column {}: {e}", field.name())))
            })
            .collect::<Result<Vec<_>, ArrowError>>()?;
        let rows = std::mem::take(&mut self.rows);
        RecordBatch::try_new_with_options(
            self.output.clone(),
            columns,
            &RecordBatchOptions::new().with_row_count(Some(rows)),
        )
        .map(Some)
    }

    fn can_flush_early(&self) -> bool {
        false
    }
}

/// Ember's CSV reader, with the read's options.
#[derive(Debug, Clone)]
pub struct CsvFiles {
    options: Arc<CsvOptions>,
    /// The file's columns (the reader's output is a projection of them).
    file_schema: SchemaRef,
}

impl CsvFiles {
    pub fn options(&self) -> &CsvOptions {
        &self.options
    }
}

/// Scans CSV files as Spark reads them.
pub type CsvSource = ReaderSource<CsvFiles>;

impl CsvSource {
    pub fn new(table_schema: TableSchema, options: CsvOptions) -> Self {
        let reader = CsvFiles {
            options: Arc::new(options),
            file_schema: table_schema.file_schema().clone(),
        };
        Self::with_reader(table_schema, reader)
    }
}

impl FileReader for CsvFiles {
    const FILE_TYPE: &'static str = "csv";

    fn opener(
        &self,
        store: Arc<dyn ObjectStore>,
        output: SchemaRef,
        batch_size: usize,
    ) -> Arc<dyn FileOpener> {
        let projection = output
            .fields()
            .iter()
            .filter_map(|f| self.file_schema.index_of(f.name()).ok())
            .collect();
        Arc::new(CsvOpener {
            files: self.clone(),
            store,
            output,
            projection,
            batch_size,
        })
    }

    fn splittable(&self) -> bool {
        // Byte ranges start after a line end, which other character sets may spell otherwise.
        !self.options.multi_line && self.options.charset.byte_lines()
    }
}

struct CsvOpener {
    files: CsvFiles,
    store: Arc<dyn ObjectStore>,
    output: SchemaRef,
    projection: Vec<usize>,
    batch_size: usize,
}

impl FileOpener for CsvOpener {
    fn open(&self, file: PartitionedFile) -> Result<FileOpenFuture> {
        let options = self.files.options.clone();
        let store = self.store.clone();
        // A byte range after a file's start begins after a line end: no header there.
        let at_start = file.range.as_ref().is_none_or(|r| r.start == 0);
        let decoder = CsvDecoder::new(
            options.clone(),
            self.output.clone(),
            self.projection.clone(),
            self.files.file_schema.fields().len(),
            self.batch_size,
            options.header && at_start,
        );
        Ok(async move {
            let bytes = file_bytes(store, file, options.terminator.unwrap_or(b'\n')).await?;
            let input = options.text(bytes)?.fuse();
            let batches = deserialize_stream(input, DecoderDeserializer::new(decoder));
            Ok(batches.map_err(DataFusionError::from).boxed())
        }
        .boxed())
    }
}

/// The CSV file format of a read (`spark.read.csv`): column names from the first record of
/// the first file (its header, else `_c0`, `_c1`, ...), every column a string.
#[derive(Debug)]
pub struct CsvFormat {
    options: CsvOptions,
}

impl CsvFormat {
    pub fn new(options: CsvOptions) -> Self {
        Self { options }
    }

    /// The first record of an object.
    async fn first_record(
        &self,
        store: &Arc<dyn ObjectStore>,
        meta: &ObjectMeta,
    ) -> Result<Vec<Option<String>>> {
        let bytes = store
            .get(&meta.location)
            .await?
            .into_stream()
            .map_err(DataFusionError::from)
            .boxed();
        let mut input = self.options.text(bytes)?;
        let mut records = Records::new(Arc::new(self.options.clone()));
        while let Some(chunk) = input.next().await {
            if let Some(first) = records.first_record(&chunk?) {
                return Ok(first);
            }
        }
        Ok(records.first_record(&[]).unwrap_or_default())
    }
}

/// The column names of CSV text: its header's, else `_c0`, `_c1`, ...
fn column_names(options: &CsvOptions, first: &[Option<String>]) -> Vec<String> {
    if options.header {
        header_names(first)
    } else {
        (0..first.len()).map(|i| format!("_c{i}")).collect()
    }
}

/// Reads the first record of strings (`from_csv`, `schema_of_csv`), one after another with
/// the same tokenizer and buffers.
pub struct RecordReader {
    records: Records,
}

impl RecordReader {
    pub fn new(options: &CsvOptions) -> Self {
        Self {
            records: Records::new(Arc::new(options.clone())),
        }
    }

    /// The values of the first record of `text`: NULL for nothing and for `nullValue`.
    pub fn values(&mut self, text: &str) -> Vec<Option<String>> {
        let records = &mut self.records;
        records.restart();
        let first = match records.first_record(text.as_bytes()) {
            Some(first) => first,
            None => records.first_record(&[]).unwrap_or_default(),
        };
        let options = &records.options;
        first
            .into_iter()
            .map(|v| v.filter(|t| options.value(t).is_some()))
            .collect()
    }
}

/// CSV text held in memory (`spark.read.csv` of a DataFrame of strings): its rows, every
/// column a string.
pub(crate) fn read_text(options: CsvOptions, text: &[u8]) -> Result<RecordBatch> {
    let options = Arc::new(options);
    let mut records = Records::new(options.clone());
    let first = match records.first_record(text) {
        Some(first) => first,
        None => records.first_record(&[]).unwrap_or_default(),
    };
    let schema = Arc::new(Schema::new(
        column_names(&options, &first)
            .into_iter()
            .map(|n| Field::new(n, DataType::Utf8, true))
            .collect::<Vec<_>>(),
    ));
    let columns = schema.fields().len();
    let header = options.header;
    let mut decoder = CsvDecoder::new(
        options,
        schema.clone(),
        (0..columns).collect(),
        columns,
        usize::MAX,
        header,
    );
    decoder.decode(text)?;
    decoder.decode(&[])?;
    Ok(decoder
        .flush()?
        .unwrap_or_else(|| RecordBatch::new_empty(schema)))
}

/// Spark's names for the columns of a header: `_c<i>` for empty names, and duplicates
/// (ignoring case) numbered by their position.
pub fn header_names(header: &[Option<String>]) -> Vec<String> {
    header
        .iter()
        .enumerate()
        .map(|(i, name)| match name.as_deref() {
            None | Some("") => format!("_c{i}"),
            Some(n) => {
                let same = |other: &Option<String>| {
                    other.as_deref().is_some_and(|o| o.eq_ignore_ascii_case(n))
                };
                if header.iter().filter(|o| same(o)).count() > 1 {
                    format!("{n}{i}")
                } else {
                    n.to_string()
                }
            }
        })
        .collect()
}

#[async_trait]
impl FileFormat for CsvFormat {
    fn get_ext(&self) -> String {
        ".csv".into()
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
        let Some(first) = objects.first() else {
            return Ok(Arc::new(Schema::empty()));
        };
        let record = self.first_record(store, first).await?;
        let fields: Vec<Field> = column_names(&self.options, &record)
            .into_iter()
            .map(|n| Field::new(n, DataType::Utf8, true))
            .collect();
        Ok(Arc::new(Schema::new(fields)))
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
        Arc::new(CsvSource::new(table_schema, self.options.clone()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::{Array, AsArray};

    fn options() -> CsvOptions {
        CsvOptions {
            header: false,
            delimiter: b',',
            quote: Some(b'"'),
            escape: Some(b'\\'),
            comment: None,
            terminator: None,
            null_value: String::new(),
            empty_value: String::new(),
            mode: MalformedMode::Permissive,
            multi_line: false,
            compression: "UNCOMPRESSED".into(),
            charset: Charset::Utf8,
        }
    }

    /// The rows of `text` read in chunks of `chunk` bytes, every value a string.
    fn read(
        options: CsvOptions,
        columns: usize,
        text: &str,
        chunk: usize,
    ) -> Vec<Vec<Option<String>>> {
        let fields: Vec<Field> = (0..columns)
            .map(|i| Field::new(format!("c{i}"), DataType::Utf8, true))
            .collect();
        let schema = Arc::new(Schema::new(fields));
        let mut decoder = CsvDecoder::new(
            Arc::new(options),
            schema,
            (0..columns).collect(),
            columns,
            2,
            false,
        );
        let mut batches = vec![];
        let mut input: Vec<&[u8]> = text.as_bytes().chunks(chunk).collect();
        input.push(&[]);
        for mut part in input {
            loop {
                let n = decoder.decode(part).unwrap();
                part = &part[n..];
                if n == 0 || part.is_empty() && decoder.rows >= 2 {
                    batches.extend(decoder.flush().unwrap());
                }
                if part.is_empty() {
                    break;
                }
            }
        }
        let mut rows = vec![];
        for b in batches {
            for r in 0..b.num_rows() {
                rows.push(
                    (0..columns)
                        .map(|c| {
                            let a = b.column(c).as_string::<i32>();
                            a.is_valid(r).then(|| a.value(r).to_string())
                        })
                        .collect(),
                );
            }
        }
        rows
    }

    fn s(v: &str) -> Option<String> {
        Some(v.to_string())
    }

    #[test]
    fn quoted_empty_values_are_not_nothing() {
        let text = "1,,x\n2,\"\",y\r\n\n3,\"\"\n\"\",,\"\"";
        for chunk in [1, 2, 3, 100] {
            let mut o = options();
            o.null_value = "x".into();
            o.empty_value = "E".into();
            assert_eq!(
                read(o, 3, text, chunk),
                vec![
                    vec![s("1"), None, None],
                    vec![s("2"), s("E"), s("y")],
                    vec![s("3"), s("E"), None],
                    vec![s("E"), None, s("E")],
                ],
                "chunks of {chunk}"
            );
        }
    }

    #[test]
    fn the_header_is_the_first_record_that_is_not_blank() {
        let fields: Vec<Field> = (0..2)
            .map(|i| Field::new(format!("c{i}"), DataType::Utf8, true))
            .collect();
        let mut decoder = CsvDecoder::new(
            Arc::new(options()),
            Arc::new(Schema::new(fields)),
            vec![0, 1],
            2,
            8,
            true,
        );
        decoder.decode(b"  \na,b\n1,2\n").unwrap();
        decoder.decode(b"").unwrap();
        let batch = decoder.flush().unwrap().unwrap();
        assert_eq!(batch.num_rows(), 1);
        assert_eq!(batch.column(0).as_string::<i32>().value(0), "1");
    }

    #[test]
    fn lines_of_white_space_are_skipped() {
        assert_eq!(
            read(options(), 2, "1,2\n   \n\"  \"\n3,4", 1),
            vec![
                vec![s("1"), s("2")],
                vec![s("  "), None],
                vec![s("3"), s("4")]
            ]
        );
    }

    #[test]
    fn record_lengths_follow_the_mode() {
        let text = "1,2\n3\n4,5,6\n";
        assert_eq!(
            read(options(), 2, text, 100),
            vec![
                vec![s("1"), s("2")],
                vec![s("3"), None],
                vec![s("4"), s("5")]
            ]
        );
        let mut drop = options();
        drop.mode = MalformedMode::DropMalformed;
        assert_eq!(read(drop, 2, text, 100), vec![vec![s("1"), s("2")]]);
    }

    #[test]
    fn comments_and_custom_line_ends() {
        let mut o = options();
        o.comment = Some(b'#');
        assert_eq!(read(o, 2, "#\"c\",\n\"\",a\n", 1), vec![vec![None, s("a")]]);
        let mut o = options();
        o.terminator = Some(b';');
        assert_eq!(
            read(o, 2, "\"\",a;b,\"q;\"", 1),
            vec![vec![None, s("a")], vec![s("b"), s("q;")]]
        );
    }

    #[test]
    fn spark_header_names() {
        let header = [s("a"), s("A"), None, s(""), s("b")];
        assert_eq!(header_names(&header), ["a0", "A1", "_c2", "_c3", "b"]);
    }
}
