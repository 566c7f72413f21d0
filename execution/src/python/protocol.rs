//! The frames Ember and its Python worker exchange over the worker's stdin and stdout
//! (the Python side is `worker.py`): little-endian `u32`/`i32` integers and byte strings
//! prefixed with their `u32` length.

use std::io::{self, Read, Write};

/// The worker's status word before a response (and in its hello).
pub const STATUS_OK: u32 = 0;
/// The UDF raised: an error class and the Python traceback follow.
pub const STATUS_PYTHON_ERROR: u32 = 1;
/// The worker's Python lacks a package: a message naming it follows.
pub const STATUS_SETUP_ERROR: u32 = 2;
/// One result batch of a streamed request: an Arrow IPC stream follows.
pub const STATUS_BATCH: u32 = 3;
/// Sent before a request's eval type when its input is streamed: frames of Arrow IPC streams
/// follow the request (the first holding only the schema), up to an empty one, and the answer is batches (`STATUS_BATCH`) up to a
/// final status.
pub const STREAMED: i32 = -1000;

pub fn write_u32(w: &mut impl Write, v: u32) -> io::Result<()> {
    w.write_all(&v.to_le_bytes())
}

pub fn write_i32(w: &mut impl Write, v: i32) -> io::Result<()> {
    w.write_all(&v.to_le_bytes())
}

pub fn write_bytes(w: &mut impl Write, data: &[u8]) -> io::Result<()> {
    let len = u32::try_from(data.len())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "frame over 4 GiB"))?;
    write_u32(w, len)?;
    w.write_all(data)
}

pub fn read_u32(r: &mut impl Read) -> io::Result<u32> {
    let mut buf = [0u8; 4];
    r.read_exact(&mut buf)?;
    Ok(u32::from_le_bytes(buf))
}

pub fn read_bytes(r: &mut impl Read) -> io::Result<Vec<u8>> {
    let len = read_u32(r)? as usize;
    let mut buf = vec![0u8; len];
    r.read_exact(&mut buf)?;
    Ok(buf)
}

pub fn read_string(r: &mut impl Read) -> io::Result<String> {
    Ok(String::from_utf8_lossy(&read_bytes(r)?).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_round_trip() {
        let mut buf = Vec::new();
        write_u32(&mut buf, 7).unwrap();
        write_bytes(&mut buf, b"abc").unwrap();
        let mut r = buf.as_slice();
        assert_eq!(read_u32(&mut r).unwrap(), 7);
        assert_eq!(read_string(&mut r).unwrap(), "abc");
    }
}
