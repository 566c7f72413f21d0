//! `to_char(number, format)`: a decimal written with Spark's number format (the tokens of
//! [`NumberPattern`]): digits padded with spaces (zeros for runs that start with `0`), `#`
//! for every digit when the number does not fit, signs and brackets next to the digits.

use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, StringBuilder};
use arrow::datatypes::{DataType, Decimal128Type};
use datafusion::common::{Result, internal_err};

use super::to_number::{NumberPattern, Part, Token};

pub(super) fn to_char(arrays: &[ArrayRef], pattern: &NumberPattern) -> Result<ArrayRef> {
    let Some(values) = arrays.first() else {
        return internal_err!("to_char without a value");
    };
    let DataType::Decimal128(_, scale) = values.data_type() else {
        return internal_err!("to_char of {}, not a decimal", values.data_type());
    };
    let values = values.as_primitive::<Decimal128Type>();
    let mut out = StringBuilder::with_capacity(values.len(), values.len() * 8);
    for v in values.iter() {
        out.append_option(v.map(|v| pattern.write(v, *scale)));
    }
    Ok(Arc::new(out.finish()))
}

/// Appends `c`, moving it left over the spaces before it (`" 5" + "-"` stays `" 5-"`, but a
/// sign after padding comes next to the digits).
fn push_over_spaces(out: &mut Vec<char>, c: char) {
    out.push(c);
    let mut i = out.len() - 1;
    while i >= 1 && out[i - 1] == ' ' && out[i] == c {
        out.swap(i - 1, i);
        i -= 1;
    }
}

/// Appends a space, moving it left of the signs and `<` before it.
fn push_space(out: &mut Vec<char>) {
    out.push(' ');
    let mut i = out.len() - 1;
    while i >= 1 && matches!(out[i - 1], '+' | '-' | '<') && out[i] == ' ' {
        out.swap(i - 1, i);
        i -= 1;
    }
}

/// A decimal point with nothing after it becomes a space.
fn drop_lone_point(out: &mut [char]) {
    if let Some(i) = out.iter().position(|c| *c == '.')
        && out.get(i + 1).is_none_or(|c| *c == ' ')
    {
        out[i] = ' ';
    }
}

impl NumberPattern {
    /// `unscaled` at `scale` written with this format.
    fn write(&self, unscaled: i128, scale: i8) -> String {
        let negative = unscaled < 0;
        let mut digits = unscaled.unsigned_abs().to_string();
        let scale = if scale < 0 {
            digits.push_str(&"0".repeat(usize::from(scale.unsigned_abs())));
            0
        } else {
            scale as usize
        };
        if digits.len() <= scale {
            digits = format!("{}{digits}", "0".repeat(scale + 1 - digits.len()));
        }
        let (int, fraction) = digits.split_at(digits.len() - scale);
        let int = int.trim_start_matches('0');
        let fraction = fraction.trim_end_matches('0');
        let (places, decimals) = self.digits();
        let (int, fraction) = if places < int.len() || decimals < fraction.len() {
            ("#".repeat(places), "#".repeat(decimals))
        } else {
            (int.to_string(), fraction.to_string())
        };
        let before: Vec<char> = " "
            .repeat(places - int.len())
            .chars()
            .chain(int.chars())
            .collect();
        let after: Vec<char> = fraction
            .chars()
            .chain("0".repeat(decimals - fraction.len()).chars())
            .collect();
        let (mut b, mut a) = (before.iter(), after.iter());
        let mut out: Vec<char> = Vec::new();
        let mut point = false;
        for token in &self.tokens {
            match token {
                Token::Group(parts) => {
                    for part in parts {
                        match part {
                            Part::Digits { count, exact } => {
                                for _ in 0..*count {
                                    let next = if point { a.next() } else { b.next() };
                                    match next {
                                        Some(' ') if *exact => out.push('0'),
                                        Some(' ') => push_space(&mut out),
                                        Some(c) => out.push(*c),
                                        None => {}
                                    }
                                }
                            }
                            Part::Separator => {
                                if out.last().is_some_and(char::is_ascii_digit) {
                                    out.push(',');
                                } else {
                                    push_space(&mut out);
                                }
                            }
                        }
                    }
                }
                Token::Point => {
                    if let Some(last) = out.last_mut()
                        && *last == ' '
                    {
                        *last = '0';
                    }
                    out.push('.');
                    point = true;
                }
                Token::Dollar => out.push('$'),
                Token::Sign => {
                    drop_lone_point(&mut out);
                    push_over_spaces(&mut out, if negative { '-' } else { '+' });
                }
                Token::Minus if negative => {
                    drop_lone_point(&mut out);
                    push_over_spaces(&mut out, '-');
                }
                Token::Minus => out.push(' '),
                Token::Open if negative => out.push('<'),
                Token::Open => {}
                Token::Close => {
                    drop_lone_point(&mut out);
                    if negative {
                        push_over_spaces(&mut out, '>');
                    } else {
                        out.extend([' ', ' ']);
                    }
                }
                Token::Other(_) => {}
            }
        }
        drop_lone_point(&mut out);
        let text: String = out.into_iter().collect();
        if text.is_empty() || text == "+" || text == "-" {
            "0".into()
        } else {
            text
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(value: i128, scale: i8, format: &str) -> String {
        NumberPattern::new(format).unwrap().write(value, scale)
    }

    #[test]
    fn writes_as_spark() {
        assert_eq!(write(45400, 2, "000D00"), "454.00");
        assert_eq!(write(124548, 1, "99,999.9"), "12,454.8");
        assert_eq!(write(7812, 2, "$99.99"), "$78.12");
        assert_eq!(write(5, 0, "999"), "  5");
        assert_eq!(write(5, 0, "000"), "005");
        assert_eq!(write(12345, 0, "99"), "##");
        assert_eq!(write(-5, 0, "S99"), " -5");
        assert_eq!(write(5, 0, "S99"), " +5");
        assert_eq!(write(-5, 0, "99MI"), " 5-");
        assert_eq!(write(5, 0, "99MI"), " 5 ");
        assert_eq!(write(-5, 0, "99PR"), " <5>");
        assert_eq!(write(5, 0, "99PR"), " 5  ");
        assert_eq!(write(5678, 3, "9.99"), "#.##");
        assert_eq!(write(12, 0, "9,999"), "   12");
        assert_eq!(write(12, 0, "0,999"), "0, 12");
        assert_eq!(write(-125, 1, "S999.99"), " -12.50");
        assert_eq!(write(0, 0, "9"), " ");
        assert_eq!(write(5, 1, "9.9"), "0.5");
        assert_eq!(write(123, 0, "9G999"), "  123");
        assert_eq!(write(-1, 1, "S9.9"), " -.1");
        assert_eq!(write(500, 2, "999.99"), "  5.00");
        assert_eq!(write(7, 0, "99S"), " 7+");
        assert_eq!(write(-5, 1, "S9"), "-#");
        assert_eq!(write(-5, 0, "S99PR"), " <-5>");
        assert_eq!(write(5, 0, "S99PR"), " +5  ");
        assert_eq!(write(-5, 0, "$99PR"), "<$ 5>");
        assert_eq!(write(5, 0, "9."), "5 ");
        assert_eq!(write(0, 0, ".99"), ".00");
        assert_eq!(write(0, 0, "S.99"), "+.00");
        assert_eq!(write(12345678, 0, "9,9,9"), "# # #");
        assert_eq!(write(-100, 0, "S0G999"), "-0,100");
        assert_eq!(write(123, -1, "9999"), "1230");
    }
}
