//! The Arrow IPC stream of a `LocalRelation` (`createDataFrame`), decoded without trusting it.
//!
//! The bytes come from the client, so before anything is allocated every message is checked
//! against the bytes actually sent: each message's metadata is a verified flatbuffer, its body
//! lies within the stream, each buffer within its body, and the sizes a compressed buffer
//! declares for itself add up to at most [`MAX_DECODED_BYTES`]. Decoding then slices the one
//! input buffer (arrow-ipc's `StreamDecoder`, never a buffer of a declared size) and validates
//! every array. A lie in the data is an error for that request, never an allocation of
//! terabytes that aborts the server.

use arrow::buffer::Buffer;
use arrow::ipc::reader::StreamDecoder;
use arrow::ipc::{MessageHeader, root_as_message};

use crate::error::{PlanError, PlanResult};
use crate::spec::LocalData;

/// The most bytes one `LocalRelation` may decode to (its buffers once decompressed).
pub const MAX_DECODED_BYTES: u64 = 4 << 30;

fn bad(why: impl std::fmt::Display) -> PlanError {
    PlanError::InvalidPlan(format!("bad Arrow IPC data: {why}"))
}

/// Decode the Arrow IPC stream the client sends for `createDataFrame`.
pub fn decode_arrow(bytes: &[u8]) -> PlanResult<LocalData> {
    check_stream(bytes, MAX_DECODED_BYTES)?;
    // arrow-ipc asserts some sizes rather than returning an error (a validity bitmap shorter
    // than its array panics while the array is built; found by fuzzing): such a panic is this
    // data's error too.
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| decode_checked(bytes)))
        .unwrap_or_else(|p| Err(bad(ember_execution::panic::panic_message(p.as_ref()))))
}

fn decode_checked(bytes: &[u8]) -> PlanResult<LocalData> {
    let mut buffer = Buffer::from(bytes.to_vec());
    let mut decoder = StreamDecoder::new();
    let mut batches = Vec::new();
    while !buffer.is_empty() {
        match decoder.decode(&mut buffer).map_err(bad)? {
            Some(batch) => batches.push(batch),
            None => break,
        }
    }
    decoder.finish().map_err(bad)?;
    let schema = decoder
        .schema()
        .ok_or_else(|| bad("the stream has no schema"))?;
    Ok(LocalData { schema, batches })
}

/// Walk the stream's messages and check every size they declare against the bytes there are.
fn check_stream(bytes: &[u8], max_decoded: u64) -> PlanResult<()> {
    let mut pos = 0usize;
    let mut decoded: u64 = 0;
    loop {
        let Some(word) = read_u32(bytes, pos) else {
            // The end of a stream without an end-of-stream marker.
            return if pos == bytes.len() {
                Ok(())
            } else {
                Err(bad("truncated message header"))
            };
        };
        pos += 4;
        let size = if word == u32::MAX {
            let size = read_u32(bytes, pos).ok_or_else(|| bad("truncated message header"))?;
            pos += 4;
            size
        } else {
            word
        };
        if size == 0 {
            return Ok(());
        }
        let size = usize::try_from(size).map_err(bad)?;
        let metadata = bytes
            .get(pos..pos.saturating_add(size))
            .ok_or_else(|| bad("a message is longer than the data"))?;
        pos += size;
        let message = root_as_message(metadata).map_err(bad)?;
        let body_length = usize::try_from(message.bodyLength())
            .map_err(|_| bad("a negative message body length"))?;
        let body = bytes
            .get(pos..pos.saturating_add(body_length))
            .ok_or_else(|| bad("a message body is longer than the data"))?;
        pos += body_length;
        let batch = match message.header_type() {
            MessageHeader::RecordBatch => message.header_as_record_batch(),
            MessageHeader::DictionaryBatch => {
                message.header_as_dictionary_batch().and_then(|d| d.data())
            }
            _ => None,
        };
        let Some(batch) = batch else { continue };
        if batch.length() < 0 {
            return Err(bad("a negative row count"));
        }
        if let Some(nodes) = batch.nodes()
            && nodes.iter().any(|n| n.length() < 0 || n.null_count() < 0)
        {
            return Err(bad("a negative array length"));
        }
        let compressed = batch.compression().is_some();
        for b in batch.buffers().into_iter().flatten() {
            let (Ok(offset), Ok(length)) =
                (usize::try_from(b.offset()), usize::try_from(b.length()))
            else {
                return Err(bad("a negative buffer offset or length"));
            };
            let data = body
                .get(offset..offset.saturating_add(length))
                .ok_or_else(|| bad("a buffer lies outside its message body"))?;
            let size = match data.get(..8) {
                // A compressed buffer starts with its decompressed length (-1: not compressed).
                Some(prefix) if compressed => {
                    let mut le = [0u8; 8];
                    le.copy_from_slice(prefix);
                    match i64::from_le_bytes(le) {
                        -1 => length as u64,
                        n => u64::try_from(n)
                            .map_err(|_| bad("a negative decompressed buffer length"))?,
                    }
                }
                _ => length as u64,
            };
            decoded = decoded.saturating_add(size);
            if decoded > max_decoded {
                return Err(PlanError::InvalidPlan(format!(
                    "local data too large: the Arrow IPC data declares more than {max_decoded} bytes of buffers"
                )));
            }
        }
    }
}

fn read_u32(bytes: &[u8], pos: usize) -> Option<u32> {
    let b = bytes.get(pos..pos.checked_add(4)?)?;
    Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow::array::{Int64Array, RecordBatch};
    use arrow::datatypes::{DataType, Field, Schema};
    use arrow::ipc::writer::{IpcWriteOptions, StreamWriter};

    use super::*;

    fn stream(compression: Option<arrow::ipc::CompressionType>) -> PlanResult<Vec<u8>> {
        let schema = Arc::new(Schema::new(vec![Field::new("a", DataType::Int64, false)]));
        let batch = RecordBatch::try_new(
            schema.clone(),
            vec![Arc::new(Int64Array::from_iter_values(0..100))],
        )
        .map_err(bad)?;
        let options = IpcWriteOptions::default()
            .try_with_compression(compression)
            .map_err(bad)?;
        let mut out = Vec::new();
        let mut w = StreamWriter::try_new_with_options(&mut out, &schema, options).map_err(bad)?;
        w.write(&batch).map_err(bad)?;
        w.finish().map_err(bad)?;
        drop(w);
        Ok(out)
    }

    /// `bytes` with the first little-endian `from` at or after `start` replaced by `to`.
    fn patched(mut bytes: Vec<u8>, start: usize, from: i64, to: i64) -> Option<Vec<u8>> {
        let needle = from.to_le_bytes();
        let at = start + bytes[start..].windows(8).position(|w| w == needle)?;
        bytes[at..at + 8].copy_from_slice(&to.to_le_bytes());
        Some(bytes)
    }

    const HUGE: i64 = 26 << 40;

    /// Where the message after the schema starts.
    fn after_schema(bytes: &[u8]) -> usize {
        8 + read_u32(bytes, 4).unwrap_or(0) as usize
    }

    #[test]
    fn valid_streams_decode() -> PlanResult<()> {
        for compression in [None, Some(arrow::ipc::CompressionType::ZSTD)] {
            let data = decode_arrow(&stream(compression)?)?;
            assert_eq!(
                data.batches.iter().map(|b| b.num_rows()).sum::<usize>(),
                100
            );
        }
        Ok(())
    }

    #[test]
    fn declared_sizes_beyond_the_data_are_errors_not_allocations() -> PlanResult<()> {
        let plain = stream(None)?;
        // The record batch's body length (800 bytes of values) and its data buffer's length.
        let body =
            patched(plain.clone(), after_schema(&plain), 800, HUGE).ok_or_else(|| bad("no 800"))?;
        assert!(decode_arrow(&body).is_err());
        let compressed = stream(Some(arrow::ipc::CompressionType::ZSTD))?;
        // The decompressed length a compressed buffer declares for itself.
        let bomb = patched(compressed.clone(), after_schema(&compressed), 800, HUGE)
            .ok_or_else(|| bad("no 800"))?;
        let message = decode_arrow(&bomb).err().map(|e| e.to_string());
        assert!(
            message.as_deref().is_some_and(|m| m.contains("too large")),
            "{message:?}"
        );
        // Every truncation is an error too.
        for cut in 0..plain.len() {
            let _ = decode_arrow(&plain[..cut]);
        }
        assert!(check_stream(&compressed, 100).is_err());
        Ok(())
    }
}
