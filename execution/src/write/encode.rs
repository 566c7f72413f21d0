//! The writers of the formats DataFusion has no sink for: JSON lines as Spark spells them,
//! text, ORC (orc-rust) and Avro (arrow-avro). Each encodes batches into bytes that
//! [`write_encoded`] streams into one object.

use std::io::Write;
use std::sync::Arc;

use arrow::array::{ArrayRef, RecordBatch};
use arrow::datatypes::{DataType, Field, Schema, SchemaRef, TimeUnit};
use datafusion::common::{DataFusionError, Result};
use datafusion::datasource::file_format::file_compression_type::FileCompressionType;
use datafusion::execution::SendableRecordBatchStream;
use futures::StreamExt;
use object_store::ObjectStore;
use object_store::path::Path;
use parking_lot::Mutex;
use tokio::io::AsyncWriteExt;

/// Appends the bytes of each batch in a file format to a buffer, then the file's last bytes.
pub(super) trait BatchEncoder: Send {
    fn encode(&mut self, batch: &RecordBatch, buf: &mut Vec<u8>) -> Result<()>;

    /// The bytes after the last batch (a footer).
    fn finish(&mut self, _buf: &mut Vec<u8>) -> Result<()> {
        Ok(())
    }
}

impl<F: FnMut(&RecordBatch, &mut Vec<u8>) -> Result<()> + Send> BatchEncoder for F {
    fn encode(&mut self, batch: &RecordBatch, buf: &mut Vec<u8>) -> Result<()> {
        self(batch, buf)
    }
}

/// Write each batch as `encode` spells it into one (compressed) file; returns the rows.
pub(super) async fn write_encoded(
    mut input: SendableRecordBatchStream,
    store: Arc<dyn ObjectStore>,
    path: Path,
    compression: FileCompressionType,
    mut encode: Box<dyn BatchEncoder>,
) -> Result<u64> {
    let writer = object_store::buffered::BufWriter::new(store, path);
    let mut writer = compression.convert_async_writer(writer)?;
    let mut rows = 0u64;
    let mut buf = Vec::new();
    while let Some(batch) = input.next().await {
        let batch = batch?;
        buf.clear();
        encode.encode(&batch, &mut buf)?;
        writer
            .write_all(&buf)
            .await
            .map_err(DataFusionError::IoError)?;
        rows += batch.num_rows() as u64;
    }
    buf.clear();
    encode.finish(&mut buf)?;
    writer
        .write_all(&buf)
        .await
        .map_err(DataFusionError::IoError)?;
    writer.shutdown().await.map_err(DataFusionError::IoError)?;
    Ok(rows)
}

/// JSON lines as Spark writes them: NULL fields left out, doubles as Java prints them
/// (`1.0E10`; NaN and infinities as the strings `"NaN"`, `"Infinity"`, as Jackson quotes
/// them).
pub(super) fn encode_json(batch: &RecordBatch, buf: &mut Vec<u8>) -> Result<()> {
    let mut json = arrow::json::WriterBuilder::new()
        .with_explicit_nulls(false)
        .with_encoder_factory(Arc::new(JavaDoubles))
        .build::<_, arrow::json::writer::LineDelimited>(buf);
    json.write(batch)?;
    json.finish()?;
    Ok(())
}

/// Encodes floating point values of JSON output as Spark (Java) spells them.
#[derive(Debug)]
struct JavaDoubles;

struct JavaDoubleEncoder<'a>(&'a dyn arrow::array::Array);

impl arrow::json::writer::Encoder for JavaDoubleEncoder<'_> {
    fn encode(&mut self, idx: usize, out: &mut Vec<u8>) {
        use arrow::array::AsArray;
        use arrow::datatypes::{Float32Type, Float64Type};
        let text = match self.0.data_type() {
            DataType::Float32 => {
                let v = self.0.as_primitive::<Float32Type>().value(idx);
                (v.is_finite(), crate::values::java_float(v))
            }
            _ => {
                let v = self.0.as_primitive::<Float64Type>().value(idx);
                (v.is_finite(), crate::values::java_double(v))
            }
        };
        match text {
            (true, t) => out.extend_from_slice(t.as_bytes()),
            (false, t) => {
                out.push(b'"');
                out.extend_from_slice(t.as_bytes());
                out.push(b'"');
            }
        }
    }
}

impl arrow::json::writer::EncoderFactory for JavaDoubles {
    fn make_default_encoder<'a>(
        &self,
        _field: &'a arrow::datatypes::FieldRef,
        array: &'a dyn arrow::array::Array,
        _options: &'a arrow::json::writer::EncoderOptions,
    ) -> std::result::Result<
        Option<arrow::json::writer::NullableEncoder<'a>>,
        arrow::error::ArrowError,
    > {
        if !matches!(array.data_type(), DataType::Float32 | DataType::Float64) {
            return Ok(None);
        }
        Ok(Some(arrow::json::writer::NullableEncoder::new(
            Box::new(JavaDoubleEncoder(array)),
            array.nulls().cloned(),
        )))
    }
}

/// Text files: each row's single string value followed by the line separator (only the
/// separator for NULL, as Spark writes it).
pub(super) fn encode_text(batch: &RecordBatch, line_sep: &str, buf: &mut Vec<u8>) -> Result<()> {
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

/// The bytes a synchronous writer has written so far, taken after each batch.
#[derive(Clone, Default)]
struct SharedBuffer(Arc<Mutex<Vec<u8>>>);

impl SharedBuffer {
    fn drain_into(&self, buf: &mut Vec<u8>) {
        buf.append(&mut self.0.lock());
    }
}

impl Write for SharedBuffer {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        self.0.lock().extend_from_slice(data);
        Ok(data.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Why orc-rust cannot write a column of this type, if it cannot.
fn orc_unsupported(data_type: &DataType) -> Option<String> {
    match data_type {
        DataType::Boolean
        | DataType::Int8
        | DataType::Int16
        | DataType::Int32
        | DataType::Int64
        | DataType::Float32
        | DataType::Float64
        | DataType::Utf8
        | DataType::LargeUtf8
        | DataType::Utf8View
        | DataType::Binary
        | DataType::LargeBinary
        | DataType::BinaryView
        | DataType::Date32
        | DataType::Timestamp(_, Some(_)) => None,
        DataType::Timestamp(_, None) => Some("TIMESTAMP_NTZ".into()),
        DataType::Decimal128(p, s) => Some(format!("DECIMAL({p},{s})")),
        DataType::List(_) | DataType::LargeList(_) => Some("ARRAY".into()),
        DataType::Map(_, _) => Some("MAP".into()),
        DataType::Struct(_) => Some("STRUCT".into()),
        other => Some(other.to_string()),
    }
}

/// A "not supported" error for the first column orc-rust cannot write (checked once, when
/// the write's plan is made).
pub(super) fn check_orc_columns(schema: &Schema) -> Result<()> {
    for field in schema.fields() {
        if let Some(t) = orc_unsupported(field.data_type()) {
            return Err(DataFusionError::NotImplemented(format!(
                "writing {t} columns to ORC files (column {})",
                field.name()
            )));
        }
    }
    Ok(())
}

/// ORC files through orc-rust. Spark's timestamps are written as ORC `timestamp` values in
/// UTC (the writer's zone), strings and binaries in their plain Arrow types. orc-rust's
/// writer cannot move between threads, so it lives on a blocking thread of its own and the
/// encoder hands it each batch.
pub(super) struct OrcEncoder {
    steps: std::sync::mpsc::Sender<Option<RecordBatch>>,
    bytes: std::sync::mpsc::Receiver<Result<Vec<u8>>>,
}

fn orc_error(e: orc_rust::error::OrcError) -> DataFusionError {
    DataFusionError::External(Box::new(e))
}

impl OrcEncoder {
    pub(super) fn try_new(data: &Schema, compression: &str) -> Result<Self> {
        let schema: SchemaRef = Arc::new(Schema::new(
            data.fields()
                .iter()
                .map(|f| {
                    let t = match f.data_type() {
                        DataType::Timestamp(unit, Some(_)) => DataType::Timestamp(*unit, None),
                        DataType::LargeUtf8 | DataType::Utf8View => DataType::Utf8,
                        DataType::LargeBinary | DataType::BinaryView => DataType::Binary,
                        other => other.clone(),
                    };
                    Field::new(f.name(), t, true)
                })
                .collect::<Vec<_>>(),
        ));
        use orc_rust::compression::CompressionType;
        let codec = match compression {
            "none" => None,
            "snappy" => Some(CompressionType::Snappy),
            "zlib" => Some(CompressionType::Zlib),
            "lz4" => Some(CompressionType::Lz4),
            "zstd" => Some(CompressionType::Zstd),
            other => {
                return Err(DataFusionError::NotImplemented(format!(
                    "ORC compression codec {other}"
                )));
            }
        };
        let (steps, step_rx) = std::sync::mpsc::channel::<Option<RecordBatch>>();
        let (bytes_tx, bytes) = std::sync::mpsc::channel::<Result<Vec<u8>>>();
        tokio::task::spawn_blocking(move || {
            let out = SharedBuffer::default();
            let mut builder = orc_rust::ArrowWriterBuilder::new(out.clone(), schema.clone());
            if let Some(codec) = codec {
                builder = builder.with_compression(codec);
            }
            let mut writer = match builder.try_build() {
                Ok(w) => Some(w),
                Err(e) => {
                    let _ = bytes_tx.send(Err(orc_error(e)));
                    return;
                }
            };
            // Ends when the encoder is dropped (a cancelled write) or the file is closed.
            while let Ok(step) = step_rx.recv() {
                let done = step.is_none();
                let written = match (step, writer.as_mut()) {
                    (Some(batch), Some(w)) => {
                        conform(&batch, &schema).and_then(|b| w.write(&b).map_err(orc_error))
                    }
                    (None, _) => match writer.take() {
                        Some(w) => w.close().map_err(orc_error),
                        None => Ok(()),
                    },
                    (Some(_), None) => Err(DataFusionError::Internal("ORC file closed".into())),
                };
                let mut buf = Vec::new();
                out.drain_into(&mut buf);
                if bytes_tx.send(written.map(|_| buf)).is_err() || done {
                    break;
                }
            }
        });
        Ok(Self { steps, bytes })
    }

    /// Give the writer thread one step and take the bytes it wrote.
    fn step(&mut self, batch: Option<RecordBatch>, buf: &mut Vec<u8>) -> Result<()> {
        let gone = || DataFusionError::Internal("the ORC writer stopped".into());
        self.steps.send(batch).map_err(|_| gone())?;
        buf.extend(self.bytes.recv().map_err(|_| gone())??);
        Ok(())
    }
}

/// The batch's columns in the writer's types; timestamps keep their UTC values.
fn conform(batch: &RecordBatch, schema: &SchemaRef) -> Result<RecordBatch> {
    let columns = batch
        .columns()
        .iter()
        .zip(schema.fields())
        .map(
            |(column, field)| match (column.data_type(), field.data_type()) {
                (a, b) if a == b => Ok(column.clone()),
                (
                    DataType::Timestamp(TimeUnit::Microsecond, Some(_)),
                    DataType::Timestamp(_, None),
                ) => {
                    let values = arrow::array::TimestampMicrosecondArray::from(column.to_data())
                        .with_timezone_opt(None::<String>);
                    Ok(Arc::new(values) as ArrayRef)
                }
                (_, t) => Ok(arrow::compute::cast(column, t)?),
            },
        )
        .collect::<Result<Vec<_>>>()?;
    Ok(RecordBatch::try_new(schema.clone(), columns)?)
}

impl BatchEncoder for OrcEncoder {
    fn encode(&mut self, batch: &RecordBatch, buf: &mut Vec<u8>) -> Result<()> {
        self.step(Some(batch.clone()), buf)
    }

    fn finish(&mut self, buf: &mut Vec<u8>) -> Result<()> {
        self.step(None, buf)
    }
}

/// Avro container files through arrow-avro.
pub(super) struct AvroEncoder {
    writer: arrow_avro::writer::AvroWriter<SharedBuffer>,
    out: SharedBuffer,
}

impl AvroEncoder {
    pub(super) fn try_new(data: &Schema, compression: &str) -> Result<Self> {
        use arrow_avro::compression::CompressionCodec;
        let codec = match compression {
            "uncompressed" => None,
            "snappy" => Some(CompressionCodec::Snappy),
            "deflate" => Some(CompressionCodec::Deflate),
            "bzip2" => Some(CompressionCodec::Bzip2),
            "xz" => Some(CompressionCodec::Xz),
            "zstandard" => Some(CompressionCodec::ZStandard),
            other => {
                return Err(DataFusionError::NotImplemented(format!(
                    "Avro compression codec {other}"
                )));
            }
        };
        let out = SharedBuffer::default();
        let writer = arrow_avro::writer::WriterBuilder::new(data.clone())
            .with_compression(codec)
            .build::<_, arrow_avro::writer::format::AvroOcfFormat>(out.clone())
            .map_err(|e| DataFusionError::External(Box::new(e)))?;
        Ok(Self { writer, out })
    }
}

impl BatchEncoder for AvroEncoder {
    fn encode(&mut self, batch: &RecordBatch, buf: &mut Vec<u8>) -> Result<()> {
        self.writer
            .write(batch)
            .map_err(|e| DataFusionError::External(Box::new(e)))?;
        self.out.drain_into(buf);
        Ok(())
    }

    fn finish(&mut self, buf: &mut Vec<u8>) -> Result<()> {
        self.writer
            .finish()
            .map_err(|e| DataFusionError::External(Box::new(e)))?;
        self.out.drain_into(buf);
        Ok(())
    }
}
