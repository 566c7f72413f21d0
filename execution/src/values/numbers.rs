//! Numbers and bytes as Spark writes them as text: doubles and floats as Java's
//! `Double.toString` / `Float.toString` print them (`1.0E10`, `0.1`), decimals with all their
//! scale's digits, binary as Spark's `[0A FF]`.

/// Java's `Double.toString`, which Spark uses wherever it turns a double into text.
pub fn java_double(v: f64) -> String {
    if v.is_nan() {
        return "NaN".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    java_finite(format!("{v}"), format!("{v:e}"), v.abs())
}

/// Java's `Float.toString`: the shortest digits that read back as the same float.
pub fn java_float(v: f32) -> String {
    if v.is_nan() || v.is_infinite() {
        return java_double(v as f64);
    }
    java_finite(format!("{v}"), format!("{v:e}"), v.abs() as f64)
}

/// A finite value from its shortest plain and scientific spellings: plain between 10^-3 and
/// 10^7 (always with a fraction), else `1.0E10`-style.
fn java_finite(plain: String, scientific: String, abs: f64) -> String {
    if abs == 0.0 || (1e-3..1e7).contains(&abs) {
        return if plain.contains('.') {
            plain
        } else {
            format!("{plain}.0")
        };
    }
    match scientific.split_once('e') {
        Some((m, e)) if m.contains('.') => format!("{m}E{e}"),
        Some((m, e)) => format!("{m}.0E{e}"),
        None => scientific,
    }
}

/// A decimal's unscaled value `v` with `scale` fraction digits (`12345`, 2: `123.45`).
pub fn decimal_text(v: i128, scale: i8) -> String {
    if scale <= 0 {
        return (v * 10i128.pow((-scale) as u32)).to_string();
    }
    let negative = v < 0;
    let digits = v.unsigned_abs().to_string();
    let scale = scale as usize;
    let padded = if digits.len() <= scale {
        format!("{}{digits}", "0".repeat(scale - digits.len() + 1))
    } else {
        digits
    };
    let (int, frac) = padded.split_at(padded.len() - scale);
    format!("{}{int}.{frac}", if negative { "-" } else { "" })
}

/// Java's `BigDecimal.toString` (as Jackson writes a decimal): plain unless the exponent of
/// its first digit is below -6, then `1.00000E-10`.
pub fn java_big_decimal(v: i128, scale: i8) -> String {
    let digits = v.unsigned_abs().to_string();
    let adjusted = digits.len() as i64 - 1 - scale as i64;
    if scale >= 0 && adjusted >= -6 {
        return decimal_text(v, scale);
    }
    let (first, rest) = digits.split_at(1);
    let mantissa = if rest.is_empty() {
        first.to_string()
    } else {
        format!("{first}.{rest}")
    };
    let sign = if v < 0 { "-" } else { "" };
    let plus = if adjusted >= 0 { "+" } else { "" };
    format!("{sign}{mantissa}E{plus}{adjusted}")
}

/// Binary as Spark casts it to a string for `show()`: upper-case hex bytes in brackets.
pub fn binary_text(b: &[u8]) -> String {
    format!(
        "[{}]",
        b.iter()
            .map(|x| format!("{x:02X}"))
            .collect::<Vec<_>>()
            .join(" ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_print_like_big_decimal() {
        assert_eq!(java_big_decimal(150, 2), "1.50");
        assert_eq!(java_big_decimal(100000, 15), "1.00000E-10");
        assert_eq!(java_big_decimal(-1, 7), "-1E-7");
        assert_eq!(java_big_decimal(1, 6), "0.000001");
        assert_eq!(java_big_decimal(0, 10), "0E-10");
        assert_eq!(java_big_decimal(12, -3), "1.2E+4");
    }

    #[test]
    fn doubles_print_like_java() {
        assert_eq!(java_double(1.25), "1.25");
        assert_eq!(java_double(-0.5), "-0.5");
        assert_eq!(java_double(1e10), "1.0E10");
        assert_eq!(java_double(12345678.9), "1.23456789E7");
        assert_eq!(java_double(3.0), "3.0");
        assert_eq!(java_double(0.0001), "1.0E-4");
        assert_eq!(java_double(0.0), "0.0");
        assert_eq!(java_float(1.5), "1.5");
    }

    #[test]
    fn formats_decimals() {
        assert_eq!(decimal_text(12345, 2), "123.45");
        assert_eq!(decimal_text(-5, 2), "-0.05");
        assert_eq!(decimal_text(7, 0), "7");
    }
}
