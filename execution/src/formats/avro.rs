//! Avro: reads are DataFusion's (`AvroFormat`); writes are Avro container files through
//! arrow-avro.

use arrow::array::RecordBatch;
use arrow::datatypes::Schema;
use datafusion::common::{DataFusionError, Result};

use crate::formats::encode::{BatchEncoder, SharedBuffer};

/// Avro container files through arrow-avro.
pub(crate) struct AvroEncoder {
    writer: arrow_avro::writer::AvroWriter<SharedBuffer>,
    out: SharedBuffer,
}

impl AvroEncoder {
    pub(crate) fn try_new(data: &Schema, compression: &str) -> Result<Self> {
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
