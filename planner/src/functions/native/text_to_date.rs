//! `CAST(text AS DATE)` as Spark reads text (its `stringToDate`): after trimming, an optional
//! sign, a year of 4 to 7 digits, then optionally `-[m]m` and `-[d]d`; after a full date,
//! anything from a space or `T` on is ignored (`2024-01-05 10:00`, `2024-01-05T...`).

use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, Date32Builder};
use chrono::NaiveDate;
use datafusion::common::Result;

use super::strings;
use crate::error::{ErrorKind, SparkError, to_datafusion};

pub(super) fn text_to_date(arrays: &[ArrayRef], fail: bool) -> Result<ArrayRef> {
    let text = strings(arrays, 0)?;
    let text = text.as_string::<i32>();
    let mut out = Date32Builder::with_capacity(text.len());
    for i in 0..text.len() {
        if text.is_null(i) {
            out.append_null();
            continue;
        }
        match spark_date(text.value(i)) {
            Some(days) => out.append_value(days),
            None if fail => {
                let mut e = SparkError::cast_invalid_input(text.value(i), "STRING", "DATE");
                e.kind = ErrorKind::DateTime;
                return Err(to_datafusion(e));
            }
            None => out.append_null(),
        }
    }
    Ok(Arc::new(out.finish()))
}

/// The days since the epoch of `s` read as Spark reads a date, or None when it is malformed.
pub(crate) fn spark_date(s: &str) -> Option<i32> {
    // (Spark trims whitespace and control characters alike.)
    let bytes = s.trim_matches(|c: char| c <= ' ').as_bytes();
    let valid = |segment: usize, digits: usize| {
        if segment == 0 {
            (4..=7).contains(&digits)
        } else {
            (1..=2).contains(&digits)
        }
    };
    let mut segments = [1i64, 1, 1];
    let (mut i, mut j, mut value, mut digits) = (0usize, 0usize, 0i64, 0usize);
    let mut sign = 1i64;
    if let Some(&b) = bytes.first()
        && (b == b'-' || b == b'+')
    {
        sign = if b == b'-' { -1 } else { 1 };
        j = 1;
    }
    while j < bytes.len() && i < 3 && bytes[j] != b' ' && bytes[j] != b'T' {
        let b = bytes[j];
        if i < 2 && b == b'-' {
            if !valid(i, digits) {
                return None;
            }
            segments[i] = value;
            (value, digits) = (0, 0);
            i += 1;
        } else if b.is_ascii_digit() {
            value = value * 10 + i64::from(b - b'0');
            digits += 1;
            if digits > 7 {
                return None;
            }
        } else {
            return None;
        }
        j += 1;
    }
    if !valid(i, digits) || (i < 2 && j < bytes.len()) {
        return None;
    }
    segments[i] = value;
    let year = i32::try_from(sign * segments[0]).ok()?;
    let date = NaiveDate::from_ymd_opt(
        year,
        u32::try_from(segments[1]).ok()?,
        u32::try_from(segments[2]).ok()?,
    )?;
    let epoch = NaiveDate::from_ymd_opt(1970, 1, 1)?;
    i32::try_from(date.signed_duration_since(epoch).num_days()).ok()
}

#[cfg(test)]
mod tests {
    use super::spark_date;

    #[test]
    fn spark_date_forms() {
        let day = |s| spark_date(s);
        assert_eq!(day("1970-01-02"), Some(1));
        assert_eq!(day("2024"), day("2024-01-01"));
        assert_eq!(day("2024-01"), day("2024-01-01"));
        assert_eq!(day("2024-1-5"), day("2024-01-05"));
        assert_eq!(day(" 2024-01-01 "), day("2024-01-01"));
        assert_eq!(day("2024-01-01T10:00"), day("2024-01-01"));
        assert_eq!(day("2024-01-01 anything"), day("2024-01-01"));
        for bad in [
            "1",
            "20240101",
            "2024-02-30",
            "2024-",
            "2024 01",
            "2024-01-01-",
            "x",
            "",
            "12345678-01-01",
        ] {
            assert_eq!(day(bad), None, "{bad}");
        }
        assert!(day("-0001-01-01").is_some_and(|d| d < 0));
    }
}
