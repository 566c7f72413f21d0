//! `to_base32(bin)` and `from_base32(text)`: RFC 4648 base32 as Spark computes it with Apache
//! Commons Codec. Encoding pads with `=`; decoding is lenient as Commons' is: bytes outside
//! the alphabet (either case) are skipped, the first `=` ends the input, and a trailing group
//! of any length is decoded (one leftover character still gives a byte).

use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, BinaryBuilder, StringBuilder};
use arrow::datatypes::DataType;
use datafusion::common::Result;

const ALPHABET: &[u8; 32] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

/// The value of a base32 digit (either case), if `b` is one.
fn digit(b: u8) -> Option<u64> {
    match b {
        b'A'..=b'Z' => Some(u64::from(b - b'A')),
        b'a'..=b'z' => Some(u64::from(b - b'a')),
        b'2'..=b'7' => Some(u64::from(b - b'2') + 26),
        _ => None,
    }
}

pub(super) fn encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(5) * 8);
    for chunk in bytes.chunks(5) {
        let mut block = [0u8; 5];
        block[..chunk.len()].copy_from_slice(chunk);
        let bits = block.iter().fold(0u64, |acc, b| (acc << 8) | u64::from(*b));
        // Characters carrying data for 1..=5 input bytes.
        let used = match chunk.len() {
            1 => 2,
            2 => 4,
            3 => 5,
            4 => 7,
            _ => 8,
        };
        for i in 0..8 {
            if i < used {
                let index = ((bits >> (35 - 5 * i)) & 31) as usize;
                out.push(char::from(ALPHABET[index]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Commons Codec's lenient decoding (see the module docs).
pub(super) fn decode(text: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len() * 5 / 8);
    // Commons keeps the bits in a long that is never cleared: a trailing group reads the
    // low bits, which may still hold the previous character's.
    let mut work: u64 = 0;
    let mut modulus = 0;
    for &b in text {
        if b == b'=' {
            break;
        }
        let Some(d) = digit(b) else { continue };
        modulus = (modulus + 1) % 8;
        work = (work << 5).wrapping_add(d);
        if modulus == 0 {
            out.extend((0..5).rev().map(|i| (work >> (8 * i)) as u8));
        }
    }
    let byte = |shift: u32| (work >> shift) as u8;
    match modulus {
        1 | 2 => out.push(byte(2)),
        3 => out.push(byte(7)),
        4 => {
            let w = work >> 4;
            out.extend([(w >> 8) as u8, w as u8]);
        }
        5 => {
            let w = work >> 1;
            out.extend([(w >> 16) as u8, (w >> 8) as u8, w as u8]);
        }
        6 => {
            let w = work >> 6;
            out.extend([(w >> 16) as u8, (w >> 8) as u8, w as u8]);
        }
        7 => {
            let w = work >> 3;
            out.extend([(w >> 24) as u8, (w >> 16) as u8, (w >> 8) as u8, w as u8]);
        }
        _ => {}
    }
    out
}

/// The bytes of a binary or text column.
fn bytes(array: &ArrayRef) -> Result<ArrayRef> {
    Ok(match array.data_type() {
        DataType::Binary => Arc::clone(array),
        _ => arrow::compute::cast(array, &DataType::Binary)?,
    })
}

pub(super) fn evaluate(arrays: &[ArrayRef], encode_bytes: bool) -> Result<ArrayRef> {
    let Some(input) = arrays.first() else {
        return datafusion::common::internal_err!("base32 takes one argument");
    };
    let input = bytes(input)?;
    let input = input.as_binary::<i32>();
    if encode_bytes {
        let mut out = StringBuilder::with_capacity(input.len(), input.values().len() * 2);
        for v in input.iter() {
            out.append_option(v.map(encode));
        }
        Ok(Arc::new(out.finish()))
    } else {
        let mut out = BinaryBuilder::with_capacity(input.len(), input.values().len());
        for v in input.iter() {
            out.append_option(v.map(decode));
        }
        Ok(Arc::new(out.finish()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_as_rfc_4648() {
        for (plain, coded) in [
            ("", ""),
            ("f", "MY======"),
            ("fo", "MZXQ===="),
            ("foo", "MZXW6==="),
            ("foob", "MZXW6YQ="),
            ("fooba", "MZXW6YTB"),
            ("foobar", "MZXW6YTBOI======"),
        ] {
            assert_eq!(encode(plain.as_bytes()), coded);
            assert_eq!(decode(coded.as_bytes()), plain.as_bytes());
        }
    }

    #[test]
    fn decodes_leniently_as_commons_codec() {
        // Answers recorded from Spark 4.3.
        assert_eq!(decode(b"1234"), b"\xd6");
        assert_eq!(decode(b"A"), b"\x00");
        assert_eq!(decode(b"Z"), b"\x06");
        assert_eq!(decode(b"ABCD"), b"\x00D");
        assert_eq!(decode(b"AAAAAAABC"), b"\x00\x00\x00\x00\x01\x08");
        assert_eq!(decode(b"MZ=XW6YTBOI"), b"f");
        assert_eq!(decode(b"mz xw6ytboi======\n"), b"foobar");
        assert_eq!(decode(b"MZXW6YT"), b"foob");
        assert_eq!(decode(b"!!"), b"");
    }
}
