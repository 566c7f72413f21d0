//! The writers' common loop: a format's [`BatchEncoder`] spells each batch as bytes that
//! [`write_encoded`] streams into one (compressed) object. The formats DataFusion has no sink
//! for write this way (JSON, text, ORC, Avro, XML; each encoder is in its format's module).

use std::io::Write;
use std::sync::Arc;

use arrow::array::RecordBatch;
use datafusion::common::{DataFusionError, Result};
use datafusion::datasource::file_format::file_compression_type::FileCompressionType;
use datafusion::execution::SendableRecordBatchStream;
use futures::StreamExt;
use object_store::ObjectStore;
use object_store::path::Path;
use parking_lot::Mutex;
use tokio::io::AsyncWriteExt;

/// Appends the bytes of each batch in a file format to a buffer, then the file's last bytes.
pub(crate) trait BatchEncoder: Send {
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
pub(crate) async fn write_encoded(
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

/// The bytes a synchronous writer has written so far, taken after each batch.
#[derive(Clone, Default)]
pub(crate) struct SharedBuffer(Arc<Mutex<Vec<u8>>>);

impl SharedBuffer {
    pub(crate) fn drain_into(&self, buf: &mut Vec<u8>) {
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
