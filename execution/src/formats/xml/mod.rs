//! Spark's XML data source (`spark.read.option("rowTag", ..).xml(path)`), read in Ember's
//! own code: each file is read whole (decompressed by its suffix), split into the records
//! `rowTag` names (`record`), whose types and values are Spark's
//! (`values`). A file source of Ember's, so reads list, prune and partition
//! like the others and run on workers. Schemas are inferred from every record of every file.

use std::sync::Arc;

use arrow::array::{RecordBatch, RecordBatchOptions};
use arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use arrow::error::ArrowError;
use async_trait::async_trait;
use datafusion::catalog::Session;
use datafusion::common::{DataFusionError, Result};
use datafusion::datasource::file_format::file_compression_type::FileCompressionType;
use datafusion::datasource::listing::PartitionedFile;
use datafusion::datasource::physical_plan::{FileOpenFuture, FileOpener};
use datafusion::datasource::table_schema::TableSchema;
use futures::{FutureExt, StreamExt};
use object_store::{ObjectMeta, ObjectStore, ObjectStoreExt};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::formats::source::{FileReader, ReaderFormat, ReaderSource};
use crate::formats::{MalformedMode, Options, flag, malformed_mode, option};
use crate::spark_error::{SparkError, SparkResult, to_datafusion};

mod record;
mod values;
pub mod write;

use record::{FileRecords, split_records};
use values::{canonical, infer_node, merge, struct_value};

/// Spark's XML read options, as Ember's reader applies them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct XmlOptions {
    pub row_tag: String,
    pub attribute_prefix: String,
    pub value_tag: String,
    pub null_value: Option<String>,
    pub ignore_surrounding_spaces: bool,
    pub exclude_attribute: bool,
    pub infer_schema: bool,
    pub mode: MalformedMode,
    pub corrupt_column: String,
    /// chrono formats of `dateFormat` and `timestampFormat`.
    pub date_format: Option<String>,
    pub timestamp_format: Option<String>,
    /// The session's time zone (times without an offset are in it).
    pub time_zone: String,
    /// The files' compression, as DataFusion spells it (`GZIP`, `UNCOMPRESSED`, ...).
    pub compression: String,
}

/// Spark's error for an XML read or write without `rowTag`.
pub fn row_tag_missing() -> SparkError {
    SparkError::analysis(
        "XML_ROW_TAG_MISSING",
        "42KDF",
        "`rowTag` option is required for reading/writing files in XML format.".to_string(),
    )
}

impl XmlOptions {
    /// The options of a read (`rowTag` is required unless `row_tag_required` is false, as
    /// for `spark.read.xml(df)`).
    pub fn of_read(
        ds: &Options,
        time_zone: &str,
        compression: FileCompressionType,
        row_tag_required: bool,
    ) -> SparkResult<Self> {
        let row_tag = match option(ds, "rowTag").map(str::trim) {
            Some(t) if !t.is_empty() => t.to_string(),
            _ if row_tag_required => return Err(row_tag_missing()),
            _ => String::new(),
        };
        for key in [
            "rowValidationXSDPath",
            "wildcardColName",
            "timestampNTZFormat",
            "locale",
        ] {
            if option(ds, key).is_some() {
                return Err(SparkError::unsupported(format!("XML read option {key}")));
            }
        }
        if option(ds, "charset")
            .or_else(|| option(ds, "encoding"))
            .is_some_and(|c| !c.eq_ignore_ascii_case("utf-8") && !c.eq_ignore_ascii_case("utf8"))
        {
            return Err(SparkError::unsupported("XML files not in UTF-8"));
        }
        let (date_format, timestamp_format) = super::datetime_formats(ds, "XML")?;
        Ok(Self {
            row_tag,
            attribute_prefix: option(ds, "attributePrefix").unwrap_or("_").to_string(),
            value_tag: option(ds, "valueTag").unwrap_or("_VALUE").to_string(),
            null_value: option(ds, "nullValue").map(str::to_string),
            ignore_surrounding_spaces: flag(ds, "ignoreSurroundingSpaces", true),
            exclude_attribute: flag(ds, "excludeAttribute", false),
            infer_schema: flag(ds, "inferSchema", true),
            mode: malformed_mode(ds),
            corrupt_column: option(ds, "columnNameOfCorruptRecord")
                .unwrap_or("_corrupt_record")
                .to_string(),
            date_format,
            timestamp_format,
            time_zone: time_zone.to_string(),
            compression: compression.get_variant().to_string(),
        })
    }

    fn compression(&self) -> Result<FileCompressionType> {
        self.compression.parse()
    }

    fn row_tag(&self) -> Option<&str> {
        Some(self.row_tag.as_str()).filter(|t| !t.is_empty())
    }

    /// The text of one file, decompressed.
    async fn file_text(&self, store: &dyn ObjectStore, meta: &ObjectMeta) -> Result<String> {
        let bytes = store.get(&meta.location).await?.bytes().await?;
        let compression = self.compression()?;
        let raw: Vec<u8> = if compression.is_compressed() {
            let mut decompressed =
                compression.convert_stream(futures::stream::once(async { Ok(bytes) }).boxed())?;
            let mut raw = Vec::new();
            while let Some(chunk) = decompressed.next().await {
                raw.extend_from_slice(&chunk?);
            }
            raw
        } else {
            bytes.into()
        };
        Ok(match String::from_utf8(raw) {
            Ok(s) => s,
            Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
        })
    }

    /// The schema of records (the corrupt-record column added when some record is malformed
    /// and the mode keeps them), fields sorted by name.
    pub fn infer<'a>(&self, files: impl IntoIterator<Item = &'a str>) -> SparkResult<Schema> {
        let mut row = DataType::Null;
        let mut malformed = false;
        for text in files {
            let FileRecords {
                records,
                malformed: bad,
            } = split_records(text, self.row_tag(), self.exclude_attribute);
            for r in &records {
                row = merge(row, infer_node(r, self, true), self);
            }
            malformed |= bad;
        }
        if malformed && self.mode == MalformedMode::FailFast {
            return Err(crate::formats::json::records::malformed_record());
        }
        let mut fields: Vec<Field> = match canonical(row) {
            DataType::Struct(fields) => fields.iter().map(|f| f.as_ref().clone()).collect(),
            _ => vec![],
        };
        if malformed
            && self.mode == MalformedMode::Permissive
            && !fields.iter().any(|f| f.name() == &self.corrupt_column)
        {
            fields.push(Field::new(&self.corrupt_column, DataType::Utf8, true));
            fields.sort_by(|a, b| a.name().cmp(b.name()));
        }
        Ok(Schema::new(fields))
    }

    /// The options for the strings of `spark.read.xml(df)`: each is one record, whatever
    /// its root element's name.
    fn for_strings(&self) -> Self {
        Self {
            row_tag: String::new(),
            ..self.clone()
        }
    }

    /// The schema of the records of `spark.read.xml(df)`.
    pub fn infer_strings(&self, texts: &[&str]) -> SparkResult<Schema> {
        self.for_strings().infer(texts.iter().copied())
    }

    /// The rows of `spark.read.xml(df)`.
    pub fn batches_of_strings(
        &self,
        texts: &[&str],
        output: &SchemaRef,
    ) -> SparkResult<Vec<RecordBatch>> {
        self.for_strings().batches(texts, output)
    }

    /// `schema_of_xml(text)`: the type of the record `text` is (NULL type when it is no
    /// record).
    pub fn infer_record(&self, text: &str) -> Option<DataType> {
        let found = split_records(text, None, self.exclude_attribute);
        let record = found.records.first().filter(|_| !found.malformed)?;
        Some(canonical(infer_node(record, self, true)))
    }

    /// `from_xml(texts, schema)`: each text one record read into `fields` as the reader reads
    /// it; a value that does not fit its type, and the rest of its record, NULL, and malformed
    /// text a row of NULLs (Spark's PERMISSIVE mode); a NULL text NULL.
    pub fn struct_of_records(
        &self,
        texts: &arrow::array::StringArray,
        fields: &arrow::datatypes::Fields,
    ) -> SparkResult<arrow::array::StructArray> {
        use arrow::array::Array;
        let arrow = |e: ArrowError| SparkError::from(e);
        let rows: Vec<Value> = texts
            .iter()
            .map(|text| {
                let record = text.map(|t| (t, split_records(t, None, self.exclude_attribute)));
                Value::Object(match &record {
                    Some((t, found)) if !found.malformed => match found.records.first() {
                        Some(r) => {
                            struct_value(r, fields, self, t).unwrap_or_else(|partial| partial)
                        }
                        None => serde_json::Map::new(),
                    },
                    _ => serde_json::Map::new(),
                })
            })
            .collect();
        let schema = Arc::new(Schema::new(fields.clone()));
        let mut decoder = arrow::json::ReaderBuilder::new(schema.clone())
            .with_batch_size(rows.len().max(1))
            .build_decoder()
            .map_err(arrow)?;
        decoder.serialize(&rows).map_err(arrow)?;
        let batch = match decoder.flush().map_err(arrow)? {
            Some(batch) => batch,
            None => RecordBatch::new_empty(schema),
        };
        let (_, columns, _) = arrow::array::StructArray::from(batch).into_parts();
        arrow::array::StructArray::try_new(fields.clone(), columns, texts.nulls().cloned())
            .map_err(arrow)
    }

    /// Schemas inferred from several directories or files, merged as Spark merges types.
    pub fn merge_schemas(&self, schemas: Vec<Schema>) -> Schema {
        let mut row = DataType::Null;
        for s in schemas {
            row = merge(row, DataType::Struct(s.fields().clone()), self);
        }
        match row {
            DataType::Struct(fields) => Schema::new(fields),
            _ => Schema::empty(),
        }
    }

    /// The rows of `texts` (files, or the strings of a DataFrame) in `output`'s columns.
    pub fn batches(&self, texts: &[&str], output: &SchemaRef) -> SparkResult<Vec<RecordBatch>> {
        let arrow = |e: ArrowError| SparkError::from(e);
        let corrupt_at = output
            .fields()
            .iter()
            .position(|f| f.name() == &self.corrupt_column && f.data_type() == &DataType::Utf8);
        let fields = output.fields();
        let mut rows: Vec<Value> = vec![];
        let bad =
            |rows: &mut Vec<Value>, partial: serde_json::Map<String, Value>, text: &str| match self
                .mode
            {
                MalformedMode::FailFast => Err(crate::formats::json::records::malformed_record()),
                MalformedMode::DropMalformed => Ok(()),
                MalformedMode::Permissive => {
                    let mut partial = partial;
                    if corrupt_at.is_some() {
                        partial.insert(self.corrupt_column.clone(), Value::String(text.into()));
                    }
                    rows.push(Value::Object(partial));
                    Ok(())
                }
            };
        for text in texts {
            let found = split_records(text, self.row_tag(), self.exclude_attribute);
            for r in &found.records {
                match struct_value(r, fields, self, text) {
                    Ok(m) => rows.push(Value::Object(m)),
                    Err(partial) => bad(&mut rows, partial, text)?,
                }
            }
            if found.malformed {
                bad(&mut rows, serde_json::Map::new(), text)?;
            }
        }
        if fields.is_empty() {
            let options = RecordBatchOptions::new().with_row_count(Some(rows.len()));
            return Ok(vec![
                RecordBatch::try_new_with_options(output.clone(), vec![], &options)
                    .map_err(arrow)?,
            ]);
        }
        let mut decoder = arrow::json::ReaderBuilder::new(output.clone())
            .with_batch_size(rows.len().max(1))
            .build_decoder()
            .map_err(arrow)?;
        decoder.serialize(&rows).map_err(arrow)?;
        Ok(decoder.flush().map_err(arrow)?.into_iter().collect())
    }
}

/// Whether Ember reads XML values into a column of this type.
pub fn readable(data_type: &DataType) -> bool {
    values::readable(data_type)
}

fn datafusion_error(e: SparkError) -> DataFusionError {
    // A malformed record met by a scan under FAILFAST fails the task reading the file.
    if e.error_class.starts_with("MALFORMED_RECORD_IN_PARSING") {
        DataFusionError::ArrowError(Box::new(ArrowError::JsonError(e.message)), None)
    } else {
        to_datafusion(e)
    }
}

/// Ember's XML reader, with the read's options.
#[derive(Debug, Clone)]
pub struct XmlFiles {
    options: Arc<XmlOptions>,
}

/// Scans XML files as Spark reads them.
pub type XmlSource = ReaderSource<XmlFiles>;

#[async_trait]
impl FileReader for XmlFiles {
    const FILE_TYPE: &'static str = "xml";
    const EXTENSION: &'static str = ".xml";
    type Options = XmlOptions;

    fn new(_table_schema: &TableSchema, options: XmlOptions) -> Self {
        XmlFiles {
            options: Arc::new(options),
        }
    }

    fn options(&self) -> &XmlOptions {
        &self.options
    }

    fn compression(options: &XmlOptions) -> Option<FileCompressionType> {
        options.compression().ok()
    }

    async fn infer_schema(
        options: &XmlOptions,
        _state: &dyn Session,
        store: &Arc<dyn ObjectStore>,
        objects: &[ObjectMeta],
    ) -> Result<SchemaRef> {
        let mut texts = Vec::with_capacity(objects.len());
        for meta in objects {
            texts.push(options.file_text(store.as_ref(), meta).await?);
        }
        let schema = options
            .infer(texts.iter().map(String::as_str))
            .map_err(to_datafusion)?;
        Ok(Arc::new(schema))
    }

    fn opener(
        &self,
        store: Arc<dyn ObjectStore>,
        output: SchemaRef,
        _batch_size: usize,
    ) -> Arc<dyn FileOpener> {
        Arc::new(XmlOpener {
            options: self.options.clone(),
            store,
            output,
        })
    }

    fn splittable(&self) -> bool {
        false
    }
}

struct XmlOpener {
    options: Arc<XmlOptions>,
    store: Arc<dyn ObjectStore>,
    output: SchemaRef,
}

impl FileOpener for XmlOpener {
    fn open(&self, file: PartitionedFile) -> Result<FileOpenFuture> {
        let options = self.options.clone();
        let store = self.store.clone();
        let output = self.output.clone();
        Ok(async move {
            let text = options.file_text(store.as_ref(), &file.object_meta).await?;
            let batches = options
                .batches(&[text.as_str()], &output)
                .map_err(datafusion_error)?;
            Ok(futures::stream::iter(batches.into_iter().map(Ok)).boxed())
        }
        .boxed())
    }
}

/// The XML file format of Ember's reads.
pub type XmlFormat = ReaderFormat<XmlFiles>;
