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

use arrow::array::RecordBatch;
use arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use async_trait::async_trait;
use bytes::Bytes;
use csv_core::Terminator;
use datafusion::catalog::Session;
use datafusion::common::{DataFusionError, Result};
use datafusion::datasource::file_format::file_compression_type::FileCompressionType;
use datafusion::datasource::listing::PartitionedFile;
use datafusion::datasource::physical_plan::{FileOpenFuture, FileOpener};
use datafusion::datasource::table_schema::TableSchema;
use datafusion_datasource::decoder::{Decoder, DecoderDeserializer, deserialize_stream};
use futures::stream::BoxStream;
use futures::{FutureExt, StreamExt, TryStreamExt};
use object_store::{ObjectMeta, ObjectStore, ObjectStoreExt};
use serde::{Deserialize, Serialize};

use crate::formats::MalformedMode;
use crate::formats::source::{FileReader, ReaderFormat, ReaderSource, file_bytes};

mod charset;
mod decode;
pub mod infer;
mod options;
mod records;

pub use options::csv_options;

pub use charset::Charset;
use charset::{Transcoder, to_utf8};
use decode::CsvDecoder;
pub use records::RecordReader;
use records::Records;

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
    /// `ignoreLeadingWhiteSpace` / `ignoreTrailingWhiteSpace`: white space around values
    /// dropped (both false when reading, as in Spark).
    pub trim_leading: bool,
    pub trim_trailing: bool,
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

/// Ember's CSV reader, with the read's options.
#[derive(Debug, Clone)]
pub struct CsvFiles {
    options: Arc<CsvOptions>,
    /// The file's columns (the reader's output is a projection of them).
    file_schema: SchemaRef,
}

/// Scans CSV files as Spark reads them.
pub type CsvSource = ReaderSource<CsvFiles>;

#[async_trait]
impl FileReader for CsvFiles {
    const FILE_TYPE: &'static str = "csv";
    const EXTENSION: &'static str = ".csv";
    type Options = CsvOptions;

    fn new(table_schema: &TableSchema, options: CsvOptions) -> Self {
        CsvFiles {
            options: Arc::new(options),
            file_schema: table_schema.file_schema().clone(),
        }
    }

    fn options(&self) -> &CsvOptions {
        &self.options
    }

    fn compression(options: &CsvOptions) -> Option<FileCompressionType> {
        options.compression().ok()
    }

    async fn infer_schema(
        options: &CsvOptions,
        _state: &dyn Session,
        store: &Arc<dyn ObjectStore>,
        objects: &[ObjectMeta],
    ) -> Result<SchemaRef> {
        let Some(first) = objects.first() else {
            return Ok(Arc::new(Schema::empty()));
        };
        let record = first_record(options, store, first).await?;
        let fields: Vec<Field> = column_names(options, &record)
            .into_iter()
            .map(|n| Field::new(n, DataType::Utf8, true))
            .collect();
        Ok(Arc::new(Schema::new(fields)))
    }

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
pub type CsvFormat = ReaderFormat<CsvFiles>;

/// The first record of an object.
async fn first_record(
    options: &CsvOptions,
    store: &Arc<dyn ObjectStore>,
    meta: &ObjectMeta,
) -> Result<Vec<Option<String>>> {
    let bytes = store
        .get(&meta.location)
        .await?
        .into_stream()
        .map_err(DataFusionError::from)
        .boxed();
    let mut input = options.text(bytes)?;
    let mut records = Records::new(Arc::new(options.clone()));
    while let Some(chunk) = input.next().await {
        if let Some(first) = records.first_record(&chunk?) {
            return Ok(first);
        }
    }
    Ok(records.first_record(&[]).unwrap_or_default())
}

/// The column names of CSV text: its header's, else `_c0`, `_c1`, ...
fn column_names(options: &CsvOptions, first: &[Option<String>]) -> Vec<String> {
    if options.header {
        header_names(first)
    } else {
        (0..first.len()).map(|i| format!("_c{i}")).collect()
    }
}

/// CSV text held in memory (`spark.read.csv` of a DataFrame of strings): its rows, every
/// column a string.
pub fn read_text(options: CsvOptions, text: &[u8]) -> Result<RecordBatch> {
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
            trim_leading: false,
            trim_trailing: false,
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
