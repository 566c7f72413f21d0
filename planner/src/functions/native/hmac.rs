//! `hmac(key, message[, algorithm])`: the raw HMAC bytes, as Spark computes them with Java's
//! `Mac`. The algorithm (case-insensitive, with or without its dash) is SHA-224, SHA-256
//! (the default), SHA-384, SHA-512, SHA-1 or MD5; any other is
//! INVALID_PARAMETER_VALUE.HMAC_ALGORITHM, and an empty key (which Java refuses) is
//! INVALID_PARAMETER_VALUE.HMAC_CRYPTO_ERROR. NULL when any argument is.

use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, BinaryBuilder};
use arrow::datatypes::DataType;
use datafusion::common::{Result, internal_err};
use hmac::{EagerHash, Hmac, KeyInit, Mac};

use crate::error::{ErrorKind, SparkError, to_datafusion};

#[derive(Clone, Copy)]
enum Algorithm {
    Sha224,
    Sha256,
    Sha384,
    Sha512,
    Sha1,
    Md5,
}

impl Algorithm {
    fn parse(name: &str) -> Option<Self> {
        Some(match name.to_ascii_uppercase().as_str() {
            "SHA-224" | "SHA224" => Algorithm::Sha224,
            "SHA-256" | "SHA256" => Algorithm::Sha256,
            "SHA-384" | "SHA384" => Algorithm::Sha384,
            "SHA-512" | "SHA512" => Algorithm::Sha512,
            "SHA-1" | "SHA1" => Algorithm::Sha1,
            "MD5" => Algorithm::Md5,
            _ => return None,
        })
    }

    fn mac(self, key: &[u8], message: &[u8]) -> Result<Vec<u8>> {
        match self {
            Algorithm::Sha224 => mac::<sha2::Sha224>(key, message),
            Algorithm::Sha256 => mac::<sha2::Sha256>(key, message),
            Algorithm::Sha384 => mac::<sha2::Sha384>(key, message),
            Algorithm::Sha512 => mac::<sha2::Sha512>(key, message),
            Algorithm::Sha1 => mac::<sha1::Sha1>(key, message),
            Algorithm::Md5 => mac::<md5::Md5>(key, message),
        }
    }
}

fn mac<D: EagerHash>(key: &[u8], message: &[u8]) -> Result<Vec<u8>>
where
    Hmac<D>: KeyInit + Mac,
{
    let mut m = <Hmac<D> as KeyInit>::new_from_slice(key)
        .map_err(|e| to_datafusion(crypto_error(&e.to_string())))?;
    m.update(message);
    Ok(m.finalize().into_bytes().to_vec())
}

fn invalid_parameter(sub_class: &str, parameter: &str, detail: String) -> SparkError {
    SparkError::new(
        ErrorKind::Runtime,
        &format!("INVALID_PARAMETER_VALUE.{sub_class}"),
        "22023",
        format!("The value of parameter(s) `{parameter}` in `hmac` is invalid: {detail}"),
        vec![
            ("parameter", format!("`{parameter}`")),
            ("functionName", "`hmac`".to_string()),
        ],
    )
}

fn crypto_error(detail: &str) -> SparkError {
    invalid_parameter(
        "HMAC_CRYPTO_ERROR",
        "key",
        format!("detail message: {detail}"),
    )
}

fn bytes(array: &ArrayRef) -> Result<ArrayRef> {
    Ok(arrow::compute::cast(array, &DataType::Binary)?)
}

pub(super) fn evaluate(arrays: &[ArrayRef]) -> Result<ArrayRef> {
    let (Some(key), Some(message)) = (arrays.first(), arrays.get(1)) else {
        return internal_err!("hmac takes a key and a message");
    };
    let (key, message) = (bytes(key)?, bytes(message)?);
    let algorithm = match arrays.get(2) {
        Some(a) => Some(arrow::compute::cast(a, &DataType::Utf8)?),
        None => None,
    };
    let (keys, messages) = (key.as_binary::<i32>(), message.as_binary::<i32>());
    let names = algorithm.as_ref().map(|a| a.as_string::<i32>());
    let mut out = BinaryBuilder::with_capacity(keys.len(), keys.len() * 32);
    for row in 0..keys.len() {
        let name = match names {
            Some(n) if n.is_null(row) => None,
            Some(n) => Some(n.value(row)),
            None => Some("SHA-256"),
        };
        let (Some(name), false, false) = (name, keys.is_null(row), messages.is_null(row)) else {
            out.append_null();
            continue;
        };
        let Some(algorithm) = Algorithm::parse(name) else {
            return Err(to_datafusion(invalid_parameter(
                "HMAC_ALGORITHM",
                "algorithm",
                format!(
                    "expects one of the algorithms 'SHA-224', 'SHA-256', 'SHA-384', 'SHA-512', 'SHA-1', 'MD5', but got '{name}'."
                ),
            )));
        };
        let key = keys.value(row);
        if key.is_empty() {
            return Err(to_datafusion(crypto_error("Empty key")));
        }
        out.append_value(algorithm.mac(key, messages.value(row))?);
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
    fn macs_as_spark() {
        // Answers recorded from Spark 4.3.
        let m = |a: &str| Algorithm::parse(a).map(|a| a.mac(b"key", b"message"));
        assert_eq!(
            m("SHA-256")
                .and_then(Result::ok)
                .map(|v| hex(&v))
                .as_deref(),
            Some("6E9EF29B75FFFC5B7ABAE527D58FDADB2FE42E7219011976917343065F58ED4A")
        );
        assert_eq!(
            m("sha1").and_then(Result::ok).map(|v| hex(&v)).as_deref(),
            Some("2088DF74D5F2146B48146CAF4965377E9D0BE3A4")
        );
        assert!(Algorithm::parse("SHA_1").is_none());
        assert!(Algorithm::parse("md-5").is_none());
    }
}
