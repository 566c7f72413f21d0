//! Spark's datetime patterns (`yyyy-MM-dd HH:mm:ss.SSS`, Java `DateTimeFormatter` letters)
//! as chrono format strings, for formatting.

use crate::values::datetime as values;

use crate::spark_error::{SparkError, SparkResult};

fn unsupported(pattern: &str, what: &str) -> SparkError {
    SparkError::unsupported(format!("datetime pattern letter(s) {what} in '{pattern}'"))
}

/// Spark's refusal of week-based pattern letters outside quoted text (checked before anything
/// else about a pattern: `true` is refused for its `e`).
pub fn week_based(pattern: &str) -> SparkResult<()> {
    let found = pattern
        .split('\'')
        .step_by(2)
        .flat_map(str::chars)
        .find(|c| matches!(c, 'Y' | 'W' | 'w' | 'e' | 'c'));
    match found {
        Some(c) => Err(SparkError::new(
            crate::spark_error::ErrorKind::Spark,
            "INCONSISTENT_BEHAVIOR_CROSS_VERSION.DATETIME_WEEK_BASED_PATTERN",
            "42K0B",
            format!(
                "You may get a different result due to the upgrading to Spark >= 3.0: All week-based patterns are unsupported since Spark 3.0, detected week-based character: {c}. Please use the SQL function EXTRACT instead."
            ),
            vec![("c", c.to_string())],
        )),
        None => Ok(()),
    }
}

/// Translate a Spark datetime pattern into a chrono `strftime` format.
pub fn to_chrono(pattern: &str) -> SparkResult<String> {
    week_based(pattern)?;
    let chars: Vec<char> = pattern.chars().collect();
    let [x1, x2, x3] = [values::OFFSET_X1, values::OFFSET_X2, values::OFFSET_X3].map(String::from);
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '\'' {
            // Quoted literal text; '' is a single quote.
            if chars.get(i + 1) == Some(&'\'') {
                out.push('\'');
                i += 2;
                continue;
            }
            i += 1;
            while i < chars.len() {
                if chars[i] == '\'' {
                    if chars.get(i + 1) == Some(&'\'') {
                        out.push('\'');
                        i += 2;
                        continue;
                    }
                    break;
                }
                push_literal(&mut out, chars[i]);
                i += 1;
            }
            i += 1;
            continue;
        }
        if !c.is_ascii_alphabetic() {
            push_literal(&mut out, c);
            i += 1;
            continue;
        }
        let mut n = 1;
        while chars.get(i + n) == Some(&c) {
            n += 1;
        }
        let run: String = std::iter::repeat_n(c, n).collect();
        let spec = match (c, n) {
            // `y`/`yyy` take a year of any width, `yyyy` exactly four digits (see
            // `functions::native::datetime::widths_fit`).
            ('y' | 'u', 1 | 3) => "%-Y",
            ('y' | 'u', 2) => "%y",
            ('y' | 'u', _) => "%Y",
            ('M' | 'L', 1) => "%-m",
            ('M' | 'L', 2) => "%m",
            ('M' | 'L', 3) => "%b",
            ('M' | 'L', _) => "%B",
            ('d', 1) => "%-d",
            ('d', 2) => "%d",
            ('D', 1) => "%-j",
            ('D', _) => "%j",
            ('H', 1) => "%-H",
            ('H', 2) => "%H",
            ('h', 1) => "%-I",
            ('h', 2) => "%I",
            ('m', 1) => "%-M",
            ('m', 2) => "%M",
            ('s', 1) => "%-S",
            ('s', 2) => "%S",
            ('S', 3) => "%3f",
            ('S', 6) => "%6f",
            ('S', 9) => "%9f",
            ('a', 1) => "%p",
            ('E', 1..=3) => "%a",
            ('E', _) => "%A",
            // Spark's `X` prints `Z` for UTC: markers that the writer spells out.
            ('X', 1) => x1.as_str(),
            ('X', 2) => x2.as_str(),
            ('X', 3) => x3.as_str(),
            ('x', 1 | 2) | ('Z', 1..=3) => "%z",
            ('x', 3) | ('Z', 5) => "%:z",
            ('z', 1..=3) | ('V', 2) => "%Z",
            _ => return Err(unsupported(pattern, &run)),
        };
        out.push_str(spec);
        i += n;
    }
    Ok(out)
}

fn push_literal(out: &mut String, c: char) {
    if c == '%' {
        out.push_str("%%");
    } else {
        out.push(c);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn common_patterns() {
        assert_eq!(to_chrono("yyyy-MM-dd").unwrap(), "%Y-%m-%d");
        assert_eq!(
            to_chrono("yyyy-MM-dd'T'HH:mm:ss.SSSXXX").unwrap(),
            format!("%Y-%m-%dT%H:%M:%S.%3f{}", values::OFFSET_X3)
        );
        assert_eq!(to_chrono("dd/MM/yy h:m a").unwrap(), "%d/%m/%y %-I:%-M %p");
        assert_eq!(to_chrono("'it''s' yyyy %").unwrap(), "it's %Y %%");
        assert!(to_chrono("yyyy G").is_err());
        let week = |p: &str| to_chrono(p).err().map(|e| e.error_class);
        assert_eq!(
            week("true").as_deref(),
            Some("INCONSISTENT_BEHAVIOR_CROSS_VERSION.DATETIME_WEEK_BASED_PATTERN")
        );
        assert_eq!(week("yyyy 'week' MM"), None);
    }
}

/// Java's `ZoneId.SHORT_IDS`, which Spark's zone arguments accept (`from_utc_timestamp(ts,
/// 'PST')`).
const SHORT_IDS: &[(&str, &str)] = &[
    ("ACT", "Australia/Darwin"),
    ("AET", "Australia/Sydney"),
    ("AGT", "America/Argentina/Buenos_Aires"),
    ("ART", "Africa/Cairo"),
    ("AST", "America/Anchorage"),
    ("BET", "America/Sao_Paulo"),
    ("BST", "Asia/Dhaka"),
    ("CAT", "Africa/Harare"),
    ("CNT", "America/St_Johns"),
    ("CST", "America/Chicago"),
    ("CTT", "Asia/Shanghai"),
    ("EAT", "Africa/Addis_Ababa"),
    ("ECT", "Europe/Paris"),
    ("IET", "America/Indiana/Indianapolis"),
    ("IST", "Asia/Kolkata"),
    ("JST", "Asia/Tokyo"),
    ("MIT", "Pacific/Apia"),
    ("NET", "Asia/Yerevan"),
    ("NST", "Pacific/Auckland"),
    ("PLT", "Asia/Karachi"),
    ("PNT", "America/Phoenix"),
    ("PRT", "America/Puerto_Rico"),
    ("PST", "America/Los_Angeles"),
    ("SST", "Pacific/Guadalcanal"),
    ("VST", "Asia/Ho_Chi_Minh"),
    ("EST", "-05:00"),
    ("MST", "-07:00"),
    ("HST", "-10:00"),
];

/// Spark's INVALID_TIMEZONE message for `name`.
pub fn invalid_timezone_message(name: &str) -> String {
    format!(
        "The timezone: {name} is invalid. The timezone must be either a region-based zone ID or a zone offset. Region IDs must have the form 'area/city', such as 'America/Los_Angeles'. Zone offsets must be in the format '(+|-)HH', '(+|-)HH:mm\u{2019} or '(+|-)HH:mm:ss', e.g '-08' , '+01:00' or '-13:33:33', and must be in the range from -18:00 to +18:00. 'Z' and 'UTC' are accepted as synonyms for '+00:00'."
    )
}

/// A zone name as Java's `ZoneId.of(name, SHORT_IDS)` reads it, in the form Arrow's time zones
/// take (a region name or `+HH:MM`); None for a name Java refuses.
pub fn java_zone_id(name: &str) -> Option<String> {
    if let Some((_, id)) = SHORT_IDS.iter().find(|(short, _)| *short == name) {
        return Some((*id).to_string());
    }
    if name == "Z" {
        return Some("UTC".into());
    }
    // `GMT+1`, `UTC+08:00`, `UT-3`: a prefix and an offset; a bare prefix is UTC.
    for prefix in ["GMT", "UTC", "UT"] {
        if let Some(rest) = name.strip_prefix(prefix) {
            if rest.is_empty() {
                return Some("UTC".into());
            }
            if rest.starts_with(['+', '-']) {
                return offset(rest);
            }
        }
    }
    if name.starts_with(['+', '-']) {
        return offset(name);
    }
    name.parse::<chrono_tz::Tz>().ok().map(|_| name.to_string())
}

/// A Java zone offset (`+h`, `+hh`, `+hh:mm`, `+hhmm`, `+hh:mm:ss`) as `+HH:MM[:SS]`.
fn offset(text: &str) -> Option<String> {
    let (sign, digits) = text.split_at(1);
    let parts: Vec<&str> = if digits.contains(':') {
        digits.split(':').collect()
    } else if digits.len() <= 2 {
        vec![digits]
    } else if digits.len() == 4 || digits.len() == 6 {
        digits
            .as_bytes()
            .chunks(2)
            .filter_map(|c| std::str::from_utf8(c).ok())
            .collect()
    } else {
        return None;
    };
    let numbers: Vec<u32> = parts
        .iter()
        .map(|p| {
            (!p.is_empty() && p.len() <= 2 && p.bytes().all(|b| b.is_ascii_digit()))
                .then(|| p.parse().ok())
                .flatten()
        })
        .collect::<Option<_>>()?;
    let (h, m, s) = match numbers.as_slice() {
        [h] => (*h, 0, 0),
        [h, m] => (*h, *m, 0),
        [h, m, s] => (*h, *m, *s),
        _ => return None,
    };
    if h > 18 || m > 59 || s > 59 || (h == 18 && (m > 0 || s > 0)) {
        return None;
    }
    Some(if s > 0 {
        format!("{sign}{h:02}:{m:02}:{s:02}")
    } else {
        format!("{sign}{h:02}:{m:02}")
    })
}

#[cfg(test)]
mod zone_tests {
    use super::java_zone_id;

    #[test]
    fn zone_ids_as_java_reads_them() {
        assert_eq!(java_zone_id("PST").as_deref(), Some("America/Los_Angeles"));
        assert_eq!(java_zone_id("EST").as_deref(), Some("-05:00"));
        assert_eq!(java_zone_id("GMT+1").as_deref(), Some("+01:00"));
        assert_eq!(java_zone_id("UTC+8").as_deref(), Some("+08:00"));
        assert_eq!(java_zone_id("+0530").as_deref(), Some("+05:30"));
        assert_eq!(
            java_zone_id("Europe/Paris").as_deref(),
            Some("Europe/Paris")
        );
        assert_eq!(java_zone_id("UTC").as_deref(), Some("UTC"));
        assert_eq!(java_zone_id("pst"), None);
        assert_eq!(java_zone_id("XYZ"), None);
        assert_eq!(java_zone_id("+19"), None);
    }
}
