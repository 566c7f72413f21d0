//! `aes_encrypt`, `aes_decrypt` and `try_aes_decrypt` as Spark computes them: AES with a 16,
//! 24 or 32 byte key in GCM (the default: a 12-byte IV first, the 16-byte tag last), CBC (a
//! 16-byte IV first, PKCS#7 padding) or ECB (PKCS#7 padding); random IVs unless one is given.

use std::sync::Arc;

use aes::cipher::{BlockDecryptMut, BlockEncryptMut, KeyInit, KeyIvInit, block_padding::Pkcs7};
use aes_gcm::aead::{Aead, OsRng, Payload, rand_core::RngCore};
use arrow::array::{Array, ArrayRef, AsArray, BinaryBuilder};
use arrow::datatypes::DataType;
use datafusion::common::{Result, internal_err};

use crate::error::{ErrorKind, SparkError, to_datafusion};

#[derive(Clone, Copy, PartialEq)]
enum Mode {
    Gcm,
    Cbc,
    Ecb,
}

fn invalid(class: &str, parameter: &str, message: String) -> SparkError {
    SparkError::new(
        ErrorKind::Runtime,
        &format!("INVALID_PARAMETER_VALUE.{class}"),
        "22023",
        format!(
            "The value of parameter(s) {parameter} in `aes_encrypt`/`aes_decrypt` is invalid: {message}"
        ),
        vec![
            ("parameter", parameter.to_string()),
            ("functionName", "`aes_encrypt`/`aes_decrypt`".into()),
        ],
    )
}

fn unsupported(class: &str, message: String) -> SparkError {
    SparkError::new(
        ErrorKind::Runtime,
        &format!("UNSUPPORTED_FEATURE.{class}"),
        "0A000",
        format!("The feature is not supported: {message}"),
        vec![],
    )
}

fn crypto_error(detail: &str) -> SparkError {
    invalid(
        "AES_CRYPTO_ERROR",
        "`expr`, `key`",
        format!("detail message: {detail}"),
    )
}

fn mode_of(mode: &str, padding: &str) -> std::result::Result<Mode, SparkError> {
    let (m, p) = (mode.to_ascii_uppercase(), padding.to_ascii_uppercase());
    match (m.as_str(), p.as_str()) {
        ("GCM", "DEFAULT" | "NONE") => Ok(Mode::Gcm),
        ("CBC", "DEFAULT" | "PKCS") => Ok(Mode::Cbc),
        ("ECB", "DEFAULT" | "PKCS") => Ok(Mode::Ecb),
        _ => Err(unsupported(
            "AES_MODE",
            format!("AES-{m} with the padding {p} by the `aes_encrypt`/`aes_decrypt` function."),
        )),
    }
}

macro_rules! with_key {
    ($key:expr, $cipher:ident, $body:expr) => {
        match $key.len() {
            16 => {
                type $cipher = aes::Aes128;
                $body
            }
            24 => {
                type $cipher = aes::Aes192;
                $body
            }
            _ => {
                type $cipher = aes::Aes256;
                $body
            }
        }
    };
}

fn encrypt(
    input: &[u8],
    key: &[u8],
    mode: Mode,
    iv: &[u8],
    aad: &[u8],
) -> std::result::Result<Vec<u8>, SparkError> {
    match mode {
        Mode::Ecb => {
            if !iv.is_empty() {
                return Err(unsupported(
                    "AES_MODE_IV",
                    "`aes_encrypt` with AES-ECB does not support initialization vectors (IVs)."
                        .into(),
                ));
            }
            Ok(with_key!(key, C, {
                ecb::Encryptor::<C>::new_from_slice(key)
                    .map_err(|_| crypto_error("Invalid key"))?
                    .encrypt_padded_vec_mut::<Pkcs7>(input)
            }))
        }
        Mode::Cbc => {
            let mut iv = iv.to_vec();
            if iv.is_empty() {
                iv = vec![0; 16];
                OsRng.fill_bytes(&mut iv);
            } else if iv.len() != 16 {
                return Err(iv_length(iv.len(), "CBC"));
            }
            let ct = with_key!(key, C, {
                cbc::Encryptor::<C>::new_from_slices(key, &iv)
                    .map_err(|_| crypto_error("Invalid key"))?
                    .encrypt_padded_vec_mut::<Pkcs7>(input)
            });
            Ok([iv, ct].concat())
        }
        Mode::Gcm => {
            let mut iv = iv.to_vec();
            if iv.is_empty() {
                iv = vec![0; 12];
                OsRng.fill_bytes(&mut iv);
            } else if iv.len() != 12 {
                return Err(iv_length(iv.len(), "GCM"));
            }
            let payload = Payload { msg: input, aad };
            let nonce = aes_gcm::Nonce::from_slice(&iv);
            let ct = with_key!(key, C, {
                aes_gcm::AesGcm::<C, aes_gcm::aead::consts::U12>::new_from_slice(key)
                    .map_err(|_| crypto_error("Invalid key"))?
                    .encrypt(nonce, payload)
                    .map_err(|_| crypto_error("encryption failed"))?
            });
            Ok([iv, ct].concat())
        }
    }
}

fn decrypt(
    input: &[u8],
    key: &[u8],
    mode: Mode,
    aad: &[u8],
) -> std::result::Result<Vec<u8>, SparkError> {
    let bad_buffer = || crypto_error("Invalid buffer arguments");
    match mode {
        Mode::Ecb => with_key!(key, C, {
            ecb::Decryptor::<C>::new_from_slice(key)
                .map_err(|_| crypto_error("Invalid key"))?
                .decrypt_padded_vec_mut::<Pkcs7>(input)
                .map_err(|_| bad_buffer())
        }),
        Mode::Cbc => {
            if input.len() < 16 {
                return Err(bad_buffer());
            }
            let (iv, ct) = input.split_at(16);
            with_key!(key, C, {
                cbc::Decryptor::<C>::new_from_slices(key, iv)
                    .map_err(|_| crypto_error("Invalid key"))?
                    .decrypt_padded_vec_mut::<Pkcs7>(ct)
                    .map_err(|_| bad_buffer())
            })
        }
        Mode::Gcm => {
            if input.len() < 12 + 16 {
                return Err(bad_buffer());
            }
            let (iv, ct) = input.split_at(12);
            let nonce = aes_gcm::Nonce::from_slice(iv);
            with_key!(key, C, {
                aes_gcm::AesGcm::<C, aes_gcm::aead::consts::U12>::new_from_slice(key)
                    .map_err(|_| crypto_error("Invalid key"))?
                    .decrypt(nonce, Payload { msg: ct, aad })
                    .map_err(|_| crypto_error("Tag mismatch!"))
            })
        }
    }
}

fn iv_length(len: usize, mode: &str) -> SparkError {
    invalid(
        "AES_IV_LENGTH",
        "`iv`",
        format!("supports 16-byte CBC IVs and 12-byte GCM IVs, but got {len} bytes for {mode}."),
    )
}

/// `aes_encrypt(input, key[, mode[, padding[, iv[, aad]]]])` (`encrypt`) or
/// `aes_decrypt(input, key[, mode[, padding[, aad]]])`; `fail` false for try_aes_decrypt.
pub(super) fn aes(arrays: &[ArrayRef], encrypt_rows: bool, fail: bool) -> Result<ArrayRef> {
    let Some(first) = arrays.first() else {
        return internal_err!("aes without arguments");
    };
    let rows = first.len();
    let binary = |i: usize| -> Result<Option<ArrayRef>> {
        arrays
            .get(i)
            .map(|a| arrow::compute::cast(a, &DataType::Binary))
            .transpose()
            .map_err(Into::into)
    };
    let text = |i: usize| -> Result<Option<ArrayRef>> {
        arrays
            .get(i)
            .map(|a| arrow::compute::cast(a, &DataType::Utf8))
            .transpose()
            .map_err(Into::into)
    };
    let (input, key) = (binary(0)?, binary(1)?);
    let (Some(input), Some(key)) = (input, key) else {
        return internal_err!("aes takes an input and a key");
    };
    let (mode, padding) = (text(2)?, text(3)?);
    let (iv, aad) = if encrypt_rows {
        (binary(4)?, binary(5)?)
    } else {
        (None, binary(4)?)
    };
    let bytes = |a: &Option<ArrayRef>, i: usize| -> Option<Vec<u8>> {
        match a {
            None => Some(Vec::new()),
            Some(a) if a.is_null(i) => None,
            Some(a) => Some(a.as_binary::<i32>().value(i).to_vec()),
        }
    };
    let string = |a: &Option<ArrayRef>, i: usize, default: &str| -> Option<String> {
        match a {
            None => Some(default.to_string()),
            Some(a) if a.is_null(i) => None,
            Some(a) => Some(a.as_string::<i32>().value(i).to_string()),
        }
    };
    let (input, key) = (Some(input), Some(key));
    let mut out = BinaryBuilder::with_capacity(rows, rows * 32);
    for i in 0..rows {
        let (Some(x), Some(k), Some(m), Some(p), Some(iv), Some(aad)) = (
            bytes(&input, i),
            bytes(&key, i),
            string(&mode, i, "GCM"),
            string(&padding, i, "DEFAULT"),
            bytes(&iv, i),
            bytes(&aad, i),
        ) else {
            out.append_null();
            continue;
        };
        let result = (|| {
            if ![16, 24, 32].contains(&k.len()) {
                return Err(invalid(
                    "AES_KEY_LENGTH",
                    "`key`",
                    format!(
                        "expects a binary value with 16, 24 or 32 bytes, but got {} bytes.",
                        k.len()
                    ),
                ));
            }
            let mode = mode_of(&m, &p)?;
            if !aad.is_empty() && mode != Mode::Gcm {
                return Err(unsupported(
                    "AES_MODE_AAD",
                    format!(
                        "`aes_encrypt`/`aes_decrypt` with AES-{} does not support additional authenticate data (AAD).",
                        m.to_ascii_uppercase()
                    ),
                ));
            }
            if encrypt_rows {
                encrypt(&x, &k, mode, &iv, &aad)
            } else {
                decrypt(&x, &k, mode, &aad)
            }
        })();
        match result {
            Ok(v) => out.append_value(v),
            Err(_) if !fail => out.append_null(),
            Err(e) => return Err(to_datafusion(e)),
        }
    }
    Ok(Arc::new(out.finish()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(b: &[u8]) -> String {
        b.iter().map(|x| format!("{x:02X}")).collect()
    }

    #[test]
    fn ciphertexts_match_spark() {
        // Recorded from Spark 4.3.
        let ecb = encrypt(b"Spark", b"0000111122223333", Mode::Ecb, b"", b"").unwrap();
        assert_eq!(hex(&ecb), "348FF37EBDE05B7880BA339068FBDA5E");
        let cbc = encrypt(b"Spark SQL", b"1234567890abcdef", Mode::Cbc, &[0; 16], b"").unwrap();
        assert_eq!(
            hex(&cbc),
            "00000000000000000000000000000000DE59B0BBE330D07DDF8B9343BDCBBD96"
        );
        let key = b"abcdefghijklmnop12345678ABCDEFGH";
        let gcm = encrypt(b"Spark", key, Mode::Gcm, &[0; 12], b"").unwrap();
        assert_eq!(
            hex(&gcm),
            "000000000000000000000000422622FAC44D60300E4E375211C60116C0163CBD5F"
        );
        assert_eq!(decrypt(&gcm, key, Mode::Gcm, b"").unwrap(), b"Spark");
        assert!(decrypt(&gcm, key, Mode::Gcm, b"aad").is_err());
    }
}
