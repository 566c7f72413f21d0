//! Stream batches that left memory: when the process's memory pool refuses a stream's next
//! batch, the stream's batches still in memory are written to one Arrow IPC file (compressed
//! with the job's `datafusion.execution.spill_compression`, which the server sets from
//! `spark.shuffle.compress` and `spark.io.compression.codec`: LZ4 frames, ZSTD or none) in the
//! process's spill directory, and read back from it by index. A file is
//! removed when the last stream slot referring to it is dropped (the job's streams freed).

use std::fs::File;
use std::io::{BufReader, BufWriter};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use arrow::array::RecordBatch;
use arrow::datatypes::SchemaRef;
use arrow::ipc::CompressionType;
use arrow::ipc::reader::FileReader;
use arrow::ipc::writer::{FileWriter, IpcWriteOptions};
use datafusion::common::config::SpillCompression;
use datafusion::common::{DataFusionError, Result};

/// Files written so far by this process (for logs and tests).
static WRITTEN: AtomicU64 = AtomicU64::new(0);

/// One spilled run of a stream's batches.
#[derive(Debug)]
pub struct SpillChunk {
    path: PathBuf,
}

impl Drop for SpillChunk {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Shuffle files this process wrote since it started.
pub fn files_written() -> u64 {
    WRITTEN.load(Ordering::Relaxed)
}

/// Arrow IPC's compression for a spill codec.
fn ipc_compression(codec: SpillCompression) -> Option<CompressionType> {
    match codec {
        SpillCompression::Lz4Frame => Some(CompressionType::LZ4_FRAME),
        SpillCompression::Zstd => Some(CompressionType::ZSTD),
        SpillCompression::Uncompressed => None,
    }
}

/// Write `batches` to a new file in `dir`, compressed with `codec`.
pub fn write_chunk(
    dir: &std::path::Path,
    schema: &SchemaRef,
    batches: &[RecordBatch],
    codec: SpillCompression,
) -> Result<Arc<SpillChunk>> {
    let n = WRITTEN.fetch_add(1, Ordering::Relaxed);
    let path = dir.join(format!(
        "shuffle-{}-{n}.arrow",
        uuid::Uuid::new_v4().simple()
    ));
    let chunk = Arc::new(SpillChunk { path });
    let file = File::create(&chunk.path)?;
    let options = IpcWriteOptions::default().try_with_compression(ipc_compression(codec))?;
    let mut writer = FileWriter::try_new_with_options(BufWriter::new(file), schema, options)?;
    for batch in batches {
        writer.write(batch)?;
    }
    writer.finish()?;
    Ok(chunk)
}

/// Reads batches of one chunk, in any order.
pub struct ChunkReader {
    chunk: Arc<SpillChunk>,
    reader: FileReader<BufReader<File>>,
}

impl ChunkReader {
    pub fn open(chunk: Arc<SpillChunk>) -> Result<Self> {
        let file = File::open(&chunk.path)?;
        let reader = FileReader::try_new(BufReader::new(file), None)?;
        Ok(Self { chunk, reader })
    }

    pub fn is_of(&self, chunk: &Arc<SpillChunk>) -> bool {
        Arc::ptr_eq(&self.chunk, chunk)
    }

    pub fn read(&mut self, index: usize) -> Result<RecordBatch> {
        self.reader.set_index(index)?;
        match self.reader.next() {
            Some(batch) => Ok(batch?),
            None => Err(DataFusionError::Internal(format!(
                "spilled stream file {} has no batch {index}",
                self.chunk.path.display()
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::{Int64Array, StringArray};
    use arrow::datatypes::{DataType, Field, Schema};

    #[test]
    fn batches_round_trip_through_a_file_removed_on_drop() {
        let dir = std::env::temp_dir().join(format!("ember-spill-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let schema = Arc::new(Schema::new(vec![
            Field::new("x", DataType::Int64, false),
            Field::new("s", DataType::Utf8, true),
        ]));
        let batches: Vec<RecordBatch> = (0..3i64)
            .map(|b| {
                RecordBatch::try_new(
                    schema.clone(),
                    vec![
                        Arc::new(Int64Array::from_iter_values(b * 10..b * 10 + 10)),
                        Arc::new(StringArray::from_iter(
                            (0..10).map(|i| (i % 3 != 0).then(|| format!("row {b}-{i}"))),
                        )),
                    ],
                )
                .unwrap()
            })
            .collect();
        for codec in [SpillCompression::Uncompressed, SpillCompression::Zstd] {
            let chunk = write_chunk(&dir, &schema, &batches, codec).unwrap();
            let mut reader = ChunkReader::open(chunk.clone()).unwrap();
            assert_eq!(reader.read(1).unwrap(), batches[1]);
        }
        let before = files_written();
        let chunk = write_chunk(&dir, &schema, &batches, SpillCompression::Lz4Frame).unwrap();
        assert_eq!(files_written(), before + 1);
        let path = chunk.path.clone();
        assert!(path.exists());
        let mut reader = ChunkReader::open(chunk.clone()).unwrap();
        assert!(reader.is_of(&chunk));
        for i in [2usize, 0, 1] {
            assert_eq!(reader.read(i).unwrap(), batches[i]);
        }
        assert!(reader.read(3).is_err());
        drop(reader);
        drop(chunk);
        assert!(!path.exists());
        let _ = std::fs::remove_dir_all(dir);
    }
}
