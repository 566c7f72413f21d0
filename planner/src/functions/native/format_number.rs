//! `format_number(x, d)` and `format_number(x, pattern)`: numbers as Java's DecimalFormat
//! (US symbols, half-even rounding) spells them for Spark's `FormatNumber`. `d` decimals are the
//! pattern `#,###,###,###,###,###,##0.00..`; an empty pattern is that without decimals. A
//! pattern is a prefix, digits (`#`, `0`, `,` and `.`) and a suffix, with an optional negative
//! subpattern after `;` giving negatives their own prefix and suffix. Prefixes and suffixes
//! are text (quoted with `'`, `''` a quote), where `%` multiplies by 100 and `‰` by 1000.

use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, StringArray};
use arrow::datatypes::{DataType, Decimal128Type, Float64Type, Int64Type};
use datafusion::common::{Result, internal_err};

use super::numbers::half_even_i128;
use crate::error::{SparkError, to_datafusion};

/// How `format_number` spells numbers (see the module).
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct NumberFormat {
    min_integer: usize,
    min_fraction: usize,
    max_fraction: usize,
    /// Digits between grouping separators.
    grouping: Option<usize>,
    #[serde(default)]
    prefix: String,
    #[serde(default)]
    suffix: String,
    /// A negative subpattern's prefix and suffix (else `-` and the positive ones).
    #[serde(default)]
    negative: Option<(String, String)>,
    /// 100 for `%`, 1000 for `‰`.
    #[serde(default = "one")]
    multiplier: u32,
}

fn one() -> u32 {
    1
}

/// DecimalFormat's special characters of a number part.
fn is_digit_char(c: char) -> bool {
    matches!(c, '#' | '0' | ',' | '.')
}

impl NumberFormat {
    /// `format_number(x, d)`: grouped by thousands, exactly `d` decimals.
    pub fn decimals(d: usize) -> Self {
        Self {
            min_integer: 1,
            min_fraction: d,
            max_fraction: d,
            grouping: Some(3),
            prefix: String::new(),
            suffix: String::new(),
            negative: None,
            multiplier: 1,
        }
    }

    /// A DecimalFormat pattern, or None for what this subset does not spell (exponents,
    /// currency signs, special characters out of place).
    pub fn pattern(pattern: &str) -> Option<Self> {
        if pattern.is_empty() {
            return Some(Self::decimals(0));
        }
        let (positive, negative) = split_unquoted(pattern, ';');
        let (prefix, number, suffix, multiplier) = subpattern(positive)?;
        let negative = match negative {
            Some(n) => {
                let (p, _, s, _) = subpattern(n)?;
                Some((p, s))
            }
            None => None,
        };
        let (integer, fraction) = match number.split_once('.') {
            Some((i, f)) if !f.contains(['.', ',']) => (i, f),
            Some(_) => return None,
            None => (number.as_str(), ""),
        };
        // As DecimalFormat: with no `0` digit at all, the last `#` before the point is one.
        let zeros = integer.chars().filter(|c| *c == '0').count();
        let min_integer = if zeros == 0 && !fraction.contains('0') && integer.contains('#') {
            1
        } else {
            zeros
        };
        Some(Self {
            min_integer,
            min_fraction: fraction.chars().filter(|c| *c == '0').count(),
            max_fraction: fraction.len(),
            grouping: integer
                .rfind(',')
                .map(|at| integer.len() - at - 1)
                .filter(|n| *n > 0),
            prefix,
            suffix,
            negative,
            multiplier,
        })
    }

    /// The digits of `|x|` (times the multiplier) with `max_fraction` decimals, rounded half
    /// to even on its exact value as Java does (the double 12.345 is a little more than
    /// 12.345: 12.35; the decimal 12.345 is a tie: 12.34), and whether `x` is negative.
    fn rounded(&self, x: Number) -> (String, bool) {
        let decimals = self.max_fraction;
        match x {
            Number::Float(f) => {
                let f = f * f64::from(self.multiplier);
                (format!("{:.*}", decimals, f.abs()), f.is_sign_negative())
            }
            Number::Exact(v, scale) => {
                let (scale, target) = (i32::from(scale), decimals as i32);
                let digits = v.checked_mul(i128::from(self.multiplier)).and_then(|v| {
                    if scale > target {
                        let m = 10i128.checked_pow((scale - target) as u32)?;
                        Some(half_even_i128(v, m) / m)
                    } else {
                        v.checked_mul(10i128.checked_pow((target - scale) as u32)?)
                    }
                });
                let Some(digits) = digits else {
                    // (Beyond 128 bits: as the nearest double.)
                    let f = v as f64 / 10f64.powi(scale);
                    return self.rounded(Number::Float(f));
                };
                let text = format!("{:0>width$}", digits.unsigned_abs(), width = decimals + 1);
                let (int_part, frac) = text.split_at(text.len() - decimals);
                let text = if decimals == 0 {
                    int_part.to_string()
                } else {
                    format!("{int_part}.{frac}")
                };
                (text, v < 0)
            }
        }
    }

    fn format(&self, x: Number) -> String {
        let (text, negative) = self.rounded(x);
        let (int_part, frac) = text.split_once('.').unwrap_or((&text, ""));
        let frac = frac.trim_end_matches('0');
        let frac = format!("{frac:0<width$}", width = self.min_fraction);
        let int_part = int_part.trim_start_matches('0');
        let int_part = format!("{int_part:0>width$}", width = self.min_integer);
        let mut grouped = String::new();
        for (n, c) in int_part.chars().enumerate() {
            if let Some(g) = self.grouping
                && n > 0
                && (int_part.len() - n) % g == 0
            {
                grouped.push(',');
            }
            grouped.push(c);
        }
        // (No digits at all would not read back: DecimalFormat writes a zero.)
        if grouped.is_empty() && frac.is_empty() {
            grouped.push('0');
        }
        let digits = if frac.is_empty() {
            grouped
        } else {
            format!("{grouped}.{frac}")
        };
        // (A negative value rounded to zero keeps its sign, as in Java: `-0.00`.)
        match (negative, &self.negative) {
            (false, _) => format!("{}{digits}{}", self.prefix, self.suffix),
            (true, Some((prefix, suffix))) => format!("{prefix}{digits}{suffix}"),
            (true, None) => format!("-{}{digits}{}", self.prefix, self.suffix),
        }
    }

    /// NaN and the infinities by DecimalFormat's symbols, the others by the pattern.
    fn shown(&self, x: Number) -> String {
        let Number::Float(v) = x else {
            return self.format(x);
        };
        match v {
            v if v.is_nan() => "NaN".to_string(),
            v if v.is_infinite() && v > 0.0 => format!("{}\u{221e}{}", self.prefix, self.suffix),
            v if v.is_infinite() => match &self.negative {
                Some((prefix, suffix)) => format!("{prefix}\u{221e}{suffix}"),
                None => format!("-{}\u{221e}{}", self.prefix, self.suffix),
            },
            v => self.format(Number::Float(v)),
        }
    }
}

/// A number to spell: a double, or exact digits and their scale (decimals, integers).
#[derive(Debug, Clone, Copy)]
enum Number {
    Float(f64),
    Exact(i128, i8),
}

/// The values of a numeric array as numbers to spell.
fn numbers(a: &ArrayRef) -> Result<Vec<Option<Number>>> {
    Ok(match a.data_type() {
        DataType::Decimal128(_, scale) => a
            .as_primitive::<Decimal128Type>()
            .iter()
            .map(|v| v.map(|v| Number::Exact(v, *scale)))
            .collect(),
        DataType::Float16 | DataType::Float32 | DataType::Float64 => {
            let x = arrow::compute::cast(a, &DataType::Float64)?;
            x.as_primitive::<Float64Type>()
                .iter()
                .map(|v| v.map(Number::Float))
                .collect()
        }
        _ => {
            let x = arrow::compute::cast(a, &DataType::Int64)?;
            x.as_primitive::<Int64Type>()
                .iter()
                .map(|v| v.map(|v| Number::Exact(i128::from(v), 0)))
                .collect()
        }
    })
}

/// `text` before and after the first `at` outside quotes.
fn split_unquoted(text: &str, at: char) -> (&str, Option<&str>) {
    let mut quoted = false;
    for (i, c) in text.char_indices() {
        match c {
            '\'' => quoted = !quoted,
            c if c == at && !quoted => return (&text[..i], Some(&text[i + c.len_utf8()..])),
            _ => {}
        }
    }
    (text, None)
}

/// A subpattern's prefix, number part, suffix and multiplier.
fn subpattern(pattern: &str) -> Option<(String, String, String, u32)> {
    let (mut prefix, mut number, mut suffix) = (String::new(), String::new(), String::new());
    let mut multiplier = 1;
    // 0: prefix, 1: number, 2: suffix.
    let mut phase = 0;
    let mut chars = pattern.chars().peekable();
    let mut quoted = false;
    while let Some(c) = chars.next() {
        if quoted {
            if c == '\'' {
                if chars.peek() == Some(&'\'') {
                    chars.next();
                    (if phase == 0 { &mut prefix } else { &mut suffix }).push('\'');
                } else {
                    quoted = false;
                }
            } else {
                (if phase == 0 { &mut prefix } else { &mut suffix }).push(c);
            }
            continue;
        }
        if is_digit_char(c) {
            match phase {
                0 | 1 => {
                    phase = 1;
                    number.push(c);
                    continue;
                }
                _ => return None,
            }
        }
        if phase == 1 {
            phase = 2;
        }
        let text = if phase == 0 { &mut prefix } else { &mut suffix };
        match c {
            '\'' if chars.peek() == Some(&'\'') => {
                chars.next();
                text.push('\'');
            }
            '\'' => quoted = true,
            '%' => {
                multiplier = 100;
                text.push('%');
            }
            '\u{2030}' => {
                multiplier = 1000;
                text.push('\u{2030}');
            }
            // Exponents, currency signs and a misplaced separator: not in this subset.
            'E' | '\u{00a4}' | ';' => return None,
            c => text.push(c),
        }
    }
    (!quoted).then_some((prefix, number, suffix, multiplier))
}

/// `format_number` of each value in one format.
pub(super) fn format_number(arrays: &[ArrayRef], format: &NumberFormat) -> Result<ArrayRef> {
    let Some(a) = arrays.first() else {
        return internal_err!("format_number without a value");
    };
    let out: StringArray = numbers(a)?
        .into_iter()
        .map(|v| v.map(|v| format.shown(v)))
        .collect();
    Ok(Arc::new(out))
}

/// `format_number` of each value in the format of its row (a column of decimals or patterns):
/// NULL where either is NULL or the decimals are negative.
pub(super) fn format_number_per_row(arrays: &[ArrayRef]) -> Result<ArrayRef> {
    let [a, formats] = arrays else {
        return internal_err!("format_number takes a value and a format");
    };
    let x = numbers(a)?;
    let text = matches!(
        formats.data_type(),
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View
    );
    let formats = arrow::compute::cast(
        formats,
        if text {
            &DataType::Utf8
        } else {
            &DataType::Int64
        },
    )?;
    // (The format of the last row, kept while the next rows name the same.)
    let mut last: Option<(Option<String>, Option<i64>, Option<NumberFormat>)> = None;
    let mut out = Vec::with_capacity(x.len());
    for (i, value) in x.into_iter().enumerate() {
        let Some(value) = value.filter(|_| formats.is_valid(i)) else {
            out.push(None);
            continue;
        };
        let (pattern, decimals) = if text {
            (Some(formats.as_string::<i32>().value(i).to_string()), None)
        } else {
            (None, Some(formats.as_primitive::<Int64Type>().value(i)))
        };
        let same = last
            .as_ref()
            .is_some_and(|(p, d, _)| *p == pattern && *d == decimals);
        if !same {
            let format = match (&pattern, decimals) {
                (Some(p), _) => Some(NumberFormat::pattern(p).ok_or_else(|| unsupported(p))?),
                (None, Some(d)) => usize::try_from(d).ok().map(NumberFormat::decimals),
                (None, None) => None,
            };
            last = Some((pattern, decimals, format));
        }
        let shown = last
            .as_ref()
            .and_then(|(_, _, f)| f.as_ref())
            .map(|f| f.shown(value));
        out.push(shown);
    }
    Ok(Arc::new(StringArray::from(out)))
}

fn unsupported(pattern: &str) -> datafusion::error::DataFusionError {
    to_datafusion(SparkError::unsupported(format!(
        "format_number with the pattern '{pattern}'"
    )))
}

#[cfg(test)]
mod tests {
    use super::{Number, NumberFormat};

    fn shown(pattern: &str, x: f64) -> String {
        NumberFormat::pattern(pattern)
            .unwrap()
            .shown(Number::Float(x))
    }

    #[test]
    fn patterns_as_decimal_format_spells_them() {
        assert_eq!(shown("abc", 2.5), "abc2");
        assert_eq!(shown("abc", 0.2), "abc0");
        assert_eq!(shown("Spark SQL", 2.5), "Spark SQL2");
        assert_eq!(shown("$#,##0.00", 1234.5), "$1,234.50");
        assert_eq!(shown("$#,##0.00", -1234.5), "-$1,234.50");
        assert_eq!(shown("#,##0.0%", 0.256), "25.6%");
        assert_eq!(shown("0.00;(0.00)", -1.5), "(1.50)");
        assert_eq!(shown("'#'0", 7.0), "#7");
        assert_eq!(shown("0 o''clock", 7.0), "7 o'clock");
        assert_eq!(shown("", 1234567.5), "1,234,568");
        assert_eq!(shown("0.00", -0.001), "-0.00");
        // Rounded half to even on the exact value: the double 12.345 is above the tie, the
        // decimal is one.
        assert_eq!(shown("0.00", 12.345), "12.35");
        assert_eq!(shown("0.00", 2.675), "2.67");
        let exact = |v, s| NumberFormat::decimals(2).shown(Number::Exact(v, s));
        assert_eq!(exact(12345, 3), "12.34");
        assert_eq!(exact(-1, 3), "-0.00");
        assert_eq!(exact(123456789, 0), "123,456,789.00");
        assert!(NumberFormat::pattern("0.00E0").is_none());
        assert!(NumberFormat::pattern("0#x0").is_none());
    }

    #[test]
    fn decimal_format_patterns() {
        let f = |p: &str, x: f64| NumberFormat::pattern(p).unwrap().format(Number::Float(x));
        assert_eq!(f("#,###.#", 1234.5), "1,234.5");
        assert_eq!(f("#.#", 0.5), "0.5");
        assert_eq!(f("0.00", 0.125), "0.12");
        assert_eq!(f("#,##0.00##", 1234567.891), "1,234,567.891");
        assert_eq!(f("0", -7.5), "-8");
        assert_eq!(f("##,##", 12345.0), "1,23,45");
        assert_eq!(f("000.000", 1.5), "001.500");
        assert_eq!(
            NumberFormat::decimals(2).format(Number::Float(1234567.891)),
            "1,234,567.89"
        );
        assert_eq!(f("$#.#", 0.5), "$0.5");
    }
}
