//! The Arrow IPC stream of a `LocalRelation` (`createDataFrame`), decoded without trusting it.
//!
//! The bytes come from the client, so before anything is allocated every message is checked
//! against the bytes actually sent (`ember_execution::ipc_check`): each message's metadata is a
//! verified flatbuffer, its body lies within the stream, each buffer within its body, and the
//! sizes a compressed buffer declares for itself add up to at most [`MAX_DECODED_BYTES`]. Decoding then slices the one
//! input buffer (arrow-ipc's `StreamDecoder`, never a buffer of a declared size) and validates
//! every array. A lie in the data is an error for that request, never an allocation of
//! terabytes that aborts the server.

use arrow::buffer::Buffer;
use arrow::ipc::reader::StreamDecoder;
use ember_execution::ipc_check;
use ember_protos::spark::connect as pb;

use crate::error::{PlanError, PlanResult};
use crate::spec::{LocalData, PlanNode};

/// The most bytes one `LocalRelation` may decode to (its buffers once decompressed).
pub const MAX_DECODED_BYTES: u64 = ipc_check::MAX_DECODED_BYTES;

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

/// Check every size the stream declares against the bytes there are ([`ipc_check`]).
fn check_stream(bytes: &[u8], max_decoded: u64) -> PlanResult<()> {
    ipc_check::check_stream(bytes, max_decoded).map_err(|e| match e {
        arrow::error::ArrowError::MemoryError(m) => {
            PlanError::InvalidPlan(format!("local data too large: {m}"))
        }
        arrow::error::ArrowError::IpcError(m) => PlanError::InvalidPlan(m),
        other => bad(other),
    })
}

/// A `LocalRelation`'s rows (Arrow IPC, checked) and schema.
pub(super) fn local_relation(l: &pb::LocalRelation) -> PlanResult<PlanNode> {
    Ok(PlanNode::LocalRelation {
        data: match &l.data {
            Some(bytes) => Some(std::sync::Arc::new(decode_arrow(bytes)?)),
            None => None,
        },
        schema: l.schema.clone(),
    })
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
        8 + u32::from_le_bytes([bytes[4], bytes[5], bytes[6], bytes[7]]) as usize
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
