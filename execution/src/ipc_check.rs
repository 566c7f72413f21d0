//! Arrow IPC data from outside the process, checked before anything is allocated for it.
//!
//! A client's `createDataFrame` stream, a Flight SQL client's parameters and a peer worker's
//! Flight stream all carry Arrow IPC messages: a flatbuffer header that declares row counts,
//! buffer offsets and lengths, and a body. arrow-ipc trusts some of those declarations (a
//! compressed buffer's own decompressed length is allocated as declared: 26 TB from a 1 KB
//! request aborted the server once). Each message is checked here against the bytes actually
//! sent: the header is a verified flatbuffer, the body has the declared length, every buffer
//! lies within the body, no count is negative, and the buffers of the whole stream decode to at
//! most a budget of bytes. A lie is an error for that request, never an allocation.

use arrow::error::ArrowError;
use arrow::ipc::{MessageHeader, root_as_message};
use arrow_flight::FlightData;

/// The most bytes the buffers of one checked stream may decode to.
pub const MAX_DECODED_BYTES: u64 = 4 << 30;

/// What the messages of one stream have declared so far, against its limit.
#[derive(Debug, Clone)]
pub struct IpcBudget {
    decoded: u64,
    max: u64,
}

impl IpcBudget {
    pub fn new(max: u64) -> Self {
        Self { decoded: 0, max }
    }
}

impl Default for IpcBudget {
    fn default() -> Self {
        Self::new(MAX_DECODED_BYTES)
    }
}

fn bad(why: impl std::fmt::Display) -> ArrowError {
    ArrowError::IpcError(format!("bad Arrow IPC data: {why}"))
}

/// Check one message: its flatbuffer `metadata` (without the length prefix) and its `body`.
/// Exceeding the budget is an [`ArrowError::MemoryError`], anything else malformed an
/// [`ArrowError::IpcError`].
pub fn check_message(
    metadata: &[u8],
    body: &[u8],
    budget: &mut IpcBudget,
) -> Result<(), ArrowError> {
    let message = root_as_message(metadata).map_err(bad)?;
    let body_length =
        usize::try_from(message.bodyLength()).map_err(|_| bad("a negative message body length"))?;
    if body.len() < body_length {
        return Err(bad("a message body is longer than the data"));
    }
    let body = &body[..body_length];
    let batch = match message.header_type() {
        MessageHeader::RecordBatch => message.header_as_record_batch(),
        MessageHeader::DictionaryBatch => {
            message.header_as_dictionary_batch().and_then(|d| d.data())
        }
        _ => None,
    };
    let Some(batch) = batch else { return Ok(()) };
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
        let (Ok(offset), Ok(length)) = (usize::try_from(b.offset()), usize::try_from(b.length()))
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
        budget.decoded = budget.decoded.saturating_add(size);
        if budget.decoded > budget.max {
            return Err(ArrowError::MemoryError(format!(
                "the Arrow IPC data declares more than {} bytes of buffers",
                budget.max
            )));
        }
    }
    Ok(())
}

/// Check a whole Arrow IPC stream (length-prefixed messages, with or without the end marker).
pub fn check_stream(bytes: &[u8], max_decoded: u64) -> Result<(), ArrowError> {
    let mut budget = IpcBudget::new(max_decoded);
    let mut pos = 0usize;
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
        let body_length = root_as_message(metadata).map_err(bad)?.bodyLength();
        let body_length =
            usize::try_from(body_length).map_err(|_| bad("a negative message body length"))?;
        let body = bytes
            .get(pos..pos.saturating_add(body_length))
            .ok_or_else(|| bad("a message body is longer than the data"))?;
        pos += body_length;
        check_message(metadata, body, &mut budget)?;
    }
}

/// Check one Flight message (its header is an IPC message without the length prefix; a
/// message carrying only app metadata has none).
pub fn check_flight_data(data: &FlightData, budget: &mut IpcBudget) -> Result<(), ArrowError> {
    if data.data_header.is_empty() {
        return Ok(());
    }
    check_message(&data.data_header, &data.data_body, budget)
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
    use arrow_flight::encode::FlightDataEncoderBuilder;
    use futures::TryStreamExt;

    use super::*;

    fn batch() -> RecordBatch {
        let schema = Arc::new(Schema::new(vec![Field::new("a", DataType::Int64, false)]));
        RecordBatch::try_new(schema, vec![Arc::new(Int64Array::from_iter_values(0..100))]).unwrap()
    }

    fn stream(compression: Option<arrow::ipc::CompressionType>) -> Vec<u8> {
        let batch = batch();
        let options = IpcWriteOptions::default()
            .try_with_compression(compression)
            .unwrap();
        let mut out = Vec::new();
        let mut w = StreamWriter::try_new_with_options(&mut out, &batch.schema(), options).unwrap();
        w.write(&batch).unwrap();
        w.finish().unwrap();
        drop(w);
        out
    }

    /// `bytes` with the first little-endian `from` at or after `start` replaced by `to`.
    fn patched(mut bytes: Vec<u8>, start: usize, from: i64, to: i64) -> Vec<u8> {
        let needle = from.to_le_bytes();
        let at = start + bytes[start..].windows(8).position(|w| w == needle).unwrap();
        bytes[at..at + 8].copy_from_slice(&to.to_le_bytes());
        bytes
    }

    const HUGE: i64 = 26 << 40;

    #[test]
    fn streams_are_checked_against_their_bytes() {
        let plain = stream(None);
        assert!(check_stream(&plain, MAX_DECODED_BYTES).is_ok());
        let after_schema = 8 + read_u32(&plain, 4).unwrap() as usize;
        assert!(
            check_stream(
                &patched(plain.clone(), after_schema, 800, HUGE),
                MAX_DECODED_BYTES
            )
            .is_err()
        );
        let compressed = stream(Some(arrow::ipc::CompressionType::ZSTD));
        let bomb = patched(compressed.clone(), after_schema, 800, HUGE);
        assert!(matches!(
            check_stream(&bomb, MAX_DECODED_BYTES),
            Err(ArrowError::MemoryError(_))
        ));
        assert!(check_stream(&compressed, 100).is_err());
        for cut in 0..plain.len() {
            let _ = check_stream(&plain[..cut], MAX_DECODED_BYTES);
        }
    }

    #[tokio::test]
    async fn flight_messages_are_checked_against_their_bodies() {
        let messages: Vec<FlightData> = FlightDataEncoderBuilder::new()
            .build(futures::stream::iter([Ok(batch())]))
            .try_collect()
            .await
            .unwrap();
        let mut budget = IpcBudget::default();
        for m in &messages {
            check_flight_data(m, &mut budget).unwrap();
        }
        // The record batch's data buffer declared far beyond its body.
        let mut lying = messages.last().unwrap().clone();
        lying.data_header = patched(lying.data_header.to_vec(), 0, 800, HUGE).into();
        assert!(check_flight_data(&lying, &mut IpcBudget::default()).is_err());
        // A body cut short.
        let mut short = messages.last().unwrap().clone();
        short.data_body = short.data_body.slice(..10);
        assert!(check_flight_data(&short, &mut IpcBudget::default()).is_err());
        // The budget of a stream is shared by its messages.
        let mut small = IpcBudget::new(1000);
        assert!(check_flight_data(messages.last().unwrap(), &mut small).is_ok());
        assert!(check_flight_data(messages.last().unwrap(), &mut small).is_err());
    }
}
