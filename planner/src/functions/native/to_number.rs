//! `to_number(text, format)` / `try_to_number`: text read with a Spark number format (`999`,
//! `0999.99`, `9,999`, `$99.99`, `S99`, `99MI`, `99PR`) into `DECIMAL(digits, fraction
//! digits)`. Text that does not match fails with INVALID_FORMAT.MISMATCH_INPUT, or is NULL.

use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, Decimal128Builder};
use arrow::datatypes::DataType;
use datafusion::common::{DataFusionError, Result};
use serde::{Deserialize, Serialize};

use super::strings;
use crate::error::{ErrorKind, PlanError, SparkError};

/// A parsed number format.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct NumberPattern {
    text: String,
    /// Sizes of the digit groups before the decimal point, left to right.
    groups: Vec<usize>,
    /// The integer part starts with `0`: the text needs exactly as many digits.
    exact: bool,
    fraction: usize,
    dollar: bool,
    /// `S` first or last, `MI` last, `PR` last.
    sign: Sign,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
enum Sign {
    None,
    Leading,
    Trailing,
    Minus,
    Brackets,
}

fn invalid_format(format: &str, reason: &str, sub: &str) -> PlanError {
    SparkError::new(
        ErrorKind::Analysis,
        &format!("INVALID_FORMAT.{sub}"),
        "42601",
        format!("The format is invalid: '{format}'. {reason}"),
        vec![],
    )
    .into()
}

impl NumberPattern {
    pub fn parse(format: &str) -> Result<Self, PlanError> {
        let upper = format.to_ascii_uppercase();
        let mut rest = upper.as_str();
        let mut sign = Sign::None;
        if let Some(r) = rest.strip_prefix('S') {
            (sign, rest) = (Sign::Leading, r);
        } else if let Some(r) = rest.strip_suffix('S') {
            (sign, rest) = (Sign::Trailing, r);
        } else if let Some(r) = rest.strip_suffix("MI") {
            (sign, rest) = (Sign::Minus, r);
        } else if let Some(r) = rest.strip_suffix("PR") {
            (sign, rest) = (Sign::Brackets, r);
        }
        let dollar = rest.starts_with('$');
        let rest = rest.strip_prefix('$').unwrap_or(rest);
        let (int, fraction) = match rest.split_once(['.', 'D']) {
            Some((i, f)) => (i, f),
            None => (rest, ""),
        };
        let digit = |c: char| c == '0' || c == '9';
        if !upper.chars().any(digit) {
            return Err(invalid_format(
                &upper,
                "The format string requires at least one number digit.",
                "WRONG_NUM_DIGIT",
            ));
        }
        if !fraction.chars().all(digit) || !int.chars().all(|c| digit(c) || c == ',' || c == 'G') {
            return Err(invalid_format(
                &upper,
                "Unexpected tokens in the format string.",
                "UNEXPECTED_TOKEN",
            ));
        }
        let groups: Vec<usize> = int.split([',', 'G']).map(str::len).collect();
        let digits = groups.iter().sum::<usize>() + fraction.len();
        if digits > 38 {
            return Err(PlanError::Unsupported(format!(
                "to_number format '{format}' of more than 38 digits"
            )));
        }
        Ok(Self {
            text: format.to_string(),
            exact: int.starts_with('0'),
            groups,
            fraction: fraction.len(),
            dollar,
            sign,
        })
    }

    pub fn data_type(&self) -> DataType {
        let precision = self.groups.iter().sum::<usize>() + self.fraction;
        DataType::Decimal128(precision as u8, self.fraction as i8)
    }

    /// The unscaled value of `text`, if it matches.
    fn read(&self, text: &str) -> Option<i128> {
        let mut t = text.trim();
        let mut negative = false;
        match self.sign {
            Sign::Leading => {
                if let Some(r) = t.strip_prefix('-') {
                    (negative, t) = (true, r);
                } else {
                    t = t.strip_prefix('+').unwrap_or(t);
                }
            }
            Sign::Trailing | Sign::Minus => {
                if let Some(r) = t.strip_suffix('-') {
                    (negative, t) = (true, r);
                } else if self.sign == Sign::Trailing {
                    t = t.strip_suffix('+').unwrap_or(t);
                }
            }
            Sign::Brackets => {
                if let Some(r) = t.strip_prefix('<').and_then(|r| r.strip_suffix('>')) {
                    (negative, t) = (true, r);
                }
            }
            Sign::None => {}
        }
        if self.dollar {
            t = t.strip_prefix('$')?;
        }
        let (int, fraction) = t.split_once('.').unwrap_or((t, ""));
        if fraction.len() > self.fraction || !fraction.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let groups: Vec<&str> = int.split(',').collect();
        if groups.len() > self.groups.len() {
            return None;
        }
        // Groups line up from the right: all but the first as long as the format's.
        let formats = &self.groups[self.groups.len() - groups.len()..];
        for (i, (g, size)) in groups.iter().zip(formats).enumerate() {
            let fits = if i == 0 {
                g.len() <= *size
            } else {
                g.len() == *size
            };
            if !fits || !g.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
        }
        let digits: String = groups.concat();
        if digits.is_empty() && fraction.is_empty() {
            return None;
        }
        if self.exact && digits.len() != self.groups.iter().sum::<usize>() {
            return None;
        }
        let mut value: i128 = 0;
        for b in digits.bytes().chain(fraction.bytes()) {
            value = value * 10 + i128::from(b - b'0');
        }
        value *= 10i128.pow((self.fraction - fraction.len()) as u32);
        Some(if negative { -value } else { value })
    }
}

pub(super) fn to_number(
    arrays: &[ArrayRef],
    pattern: &NumberPattern,
    fail: bool,
) -> Result<ArrayRef> {
    let text = strings(arrays, 0)?;
    let text = text.as_string::<i32>();
    let mut out = Decimal128Builder::with_capacity(text.len());
    for i in 0..text.len() {
        if text.is_null(i) {
            out.append_null();
            continue;
        }
        match pattern.read(text.value(i)) {
            Some(v) => out.append_value(v),
            None if fail => {
                return Err(mismatch(&pattern.text, text.value(i)));
            }
            None => out.append_null(),
        }
    }
    Ok(Arc::new(out.finish().with_data_type(pattern.data_type())))
}

fn mismatch(format: &str, text: &str) -> DataFusionError {
    crate::error::to_datafusion(SparkError::new(
        ErrorKind::IllegalArgument,
        "INVALID_FORMAT.MISMATCH_INPUT",
        "42601",
        format!(
            "The format is invalid: {format}. The input \"STRING\" {text} does not match the format."
        ),
        vec![],
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(format: &str, text: &str) -> Option<i128> {
        NumberPattern::parse(format).unwrap().read(text)
    }

    #[test]
    fn spark_number_formats() {
        assert_eq!(read("999", "454"), Some(454));
        assert_eq!(read("000.00", "454.00"), Some(45400));
        assert_eq!(read("99,999", "12,454"), Some(12454));
        assert_eq!(read("$99.99", "$78.12"), Some(7812));
        assert_eq!(read("$99.99", "78.12"), None);
        assert_eq!(read("S99", "-12"), Some(-12));
        assert_eq!(read("99MI", "12-"), Some(-12));
        assert_eq!(read("99PR", "<12>"), Some(-12));
        assert_eq!(read("0999", "12"), None);
        assert_eq!(read("9909", "12"), Some(12));
        assert_eq!(read("9,999", "1234"), None);
        assert_eq!(read("9,999", "234"), Some(234));
        assert_eq!(read("9.9", ".5"), Some(5));
        assert_eq!(read("99.99", "12."), Some(1200));
        assert_eq!(read("999", "1234"), None);
        assert!(NumberPattern::parse("abc").is_err());
    }
}
