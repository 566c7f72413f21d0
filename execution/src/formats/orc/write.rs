//! ORC files as Ember writes them (orc-rust).

use std::sync::Arc;

use arrow::array::{ArrayRef, RecordBatch};
use arrow::datatypes::{DataType, Field, Schema, SchemaRef, TimeUnit};
use datafusion::common::{DataFusionError, Result};

use crate::formats::encode::{BatchEncoder, SharedBuffer};

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
pub(crate) fn check_orc_columns(schema: &Schema) -> Result<()> {
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
pub(crate) struct OrcEncoder {
    steps: std::sync::mpsc::Sender<Option<RecordBatch>>,
    bytes: std::sync::mpsc::Receiver<Result<Vec<u8>>>,
}

fn orc_error(e: orc_rust::error::OrcError) -> DataFusionError {
    DataFusionError::External(Box::new(e))
}

impl OrcEncoder {
    pub(crate) fn try_new(data: &Schema, compression: &str) -> Result<Self> {
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
