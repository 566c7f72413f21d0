//! `df.show()`: values printed the way Spark prints them (spelled by
//! `ember_execution::values`), laid out as Spark's text table.

use arrow::array::{Array, ArrayRef, RecordBatch};
use arrow::datatypes::{DataType, Field, Fields};
use ember_execution::values::{Spelling, spell};

use crate::interval::IntervalFields;

/// Spells Spark's VARIANT values, which the execution crate does not know.
fn variant(array: &dyn Array, row: usize, time_zone: &str) -> Option<String> {
    crate::types::is_variant(array.data_type())
        .then(|| crate::functions::native::variant_json(array, row, time_zone).unwrap_or_default())
}

/// Spark's string form of one value (`ToPrettyString`): NULL, `[1, NULL]`, `{a -> NULL}`, ...
/// (unlike a cast to string, a NULL inside an array, map or struct is `NULL` too).
pub fn value_string(array: &ArrayRef, field: &Field, row: usize, time_zone: &str) -> String {
    // (A NullArray, of type VOID, has no validity buffer: `is_null` is false for its rows.)
    if array.is_null(row) || *array.data_type() == DataType::Null {
        return "NULL".into();
    }
    let spelling = Spelling {
        time_zone,
        null: "NULL",
        extension: Some(variant),
    };
    spell(
        array.as_ref(),
        row,
        &spelling,
        IntervalFields::of_field(field),
    )
}

/// Spark's `CAST(value AS STRING)` of a value that is not NULL: timestamps in `time_zone`
/// without trailing zeros, doubles as Java prints them, `[1, null]`, `{1, a}`, `{k -> v}`;
/// an interval as a value of `interval` (its column's fields; Spark's defaults when None).
pub fn cast_string(
    array: &dyn Array,
    row: usize,
    time_zone: &str,
    interval: Option<IntervalFields>,
) -> String {
    if array.is_null(row) {
        return "NULL".into();
    }
    let spelling = Spelling {
        time_zone,
        null: "null",
        extension: Some(variant),
    };
    spell(array, row, &spelling, interval)
}

// The layout of `Dataset.showString`/`htmlString`. Spark measures a cell as a Java string: in
// UTF-16 code units (an emoji is two), plus one for each full-width character; it cuts a long
// cell after `truncate` code units (which may split a surrogate pair: the half left is sent as
// `?`), and escapes control characters in names and cells alike.

/// The narrowest a column is drawn.
const MIN_WIDTH: usize = 3;

/// The column names as Spark prints them: escaped, never truncated.
fn header(names: &[String]) -> Vec<String> {
    names.iter().map(|n| escape_meta(n)).collect()
}

/// The first `num_rows` rows as escaped (and truncated) cells, and whether there are more.
fn cells(
    batches: &[RecordBatch],
    fields: &Fields,
    num_rows: usize,
    truncate: usize,
    time_zone: &str,
) -> (Vec<Vec<String>>, bool) {
    let mut rows: Vec<Vec<String>> = Vec::new();
    for b in batches {
        for r in 0..b.num_rows() {
            if rows.len() == num_rows {
                return (rows, true);
            }
            rows.push(
                b.columns()
                    .iter()
                    .zip(b.schema_ref().fields())
                    .enumerate()
                    .map(|(i, (c, f))| {
                        // (The plan's field: the batch's may have lost an interval's fields.)
                        let f = fields.get(i).unwrap_or(f);
                        cell(&escape_meta(&value_string(c, f, r, time_zone)), truncate)
                    })
                    .collect(),
            );
        }
    }
    (rows, false)
}

fn showing_top(num_rows: usize) -> String {
    let noun = if num_rows == 1 { "row" } else { "rows" };
    format!("only showing top {num_rows} {noun}")
}

/// Render rows the way `Dataset.htmlString(numRows, truncate)` does (a notebook's
/// `_repr_html_`): an HTML table of the cells `show()` prints, HTML 4 escaped.
pub fn html_string(
    batches: &[RecordBatch],
    names: &[String],
    fields: &Fields,
    num_rows: usize,
    truncate: usize,
    time_zone: &str,
) -> String {
    let (rows, has_more) = cells(batches, fields, num_rows, truncate, time_zone);
    let mut out = String::from("<table border='1'>\n<tr>");
    for n in header(names) {
        out.push_str(&format!("<th>{}</th>", escape_html(&n)));
    }
    out.push_str("</tr>\n");
    for row in &rows {
        out.push_str("<tr>");
        for v in row {
            out.push_str(&format!("<td>{}</td>", escape_html(v)));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</table>\n");
    if has_more {
        out.push_str(&showing_top(num_rows));
        out.push('\n');
    }
    out
}

/// Render rows the way `Dataset.showString(numRows, truncate, vertical)` does.
pub fn show_string(
    batches: &[RecordBatch],
    names: &[String],
    fields: &Fields,
    num_rows: usize,
    truncate: usize,
    vertical: bool,
    time_zone: &str,
) -> String {
    let (rows, has_more) = cells(batches, fields, num_rows, truncate, time_zone);
    let header = header(names);
    let mut out = String::new();
    if vertical {
        if rows.is_empty() {
            return "(0 rows)".into();
        }
        // One block per row: a name column and a value column, each as wide as its widest.
        let key_width = header.iter().map(|h| width(h)).fold(MIN_WIDTH, usize::max);
        let value_width = rows
            .iter()
            .flatten()
            .map(|v| width(v))
            .fold(MIN_WIDTH, usize::max);
        for (i, row) in rows.iter().enumerate() {
            out.push_str(&pad_right(
                &format!("-RECORD {i}"),
                key_width + value_width + 5,
                '-',
            ));
            out.push('\n');
            for (h, v) in header.iter().zip(row) {
                let (h, v) = (pad_right(h, key_width, ' '), pad_right(v, value_width, ' '));
                out.push_str(&format!(" {h} | {v} \n"));
            }
        }
    } else {
        let mut widths: Vec<usize> = header.iter().map(|h| width(h).max(MIN_WIDTH)).collect();
        for row in &rows {
            for (w, v) in widths.iter_mut().zip(row) {
                *w = (*w).max(width(v));
            }
        }
        let sep = format!(
            "+{}+\n",
            widths
                .iter()
                .map(|w| "-".repeat(*w))
                .collect::<Vec<_>>()
                .join("+")
        );
        // Cells are aligned right when truncated, left when not.
        let line = |cells: &[String]| -> String {
            let parts: Vec<String> = cells
                .iter()
                .zip(&widths)
                .map(|(c, w)| {
                    let pad = " ".repeat(w.saturating_sub(width(c)));
                    if truncate > 0 {
                        format!("{pad}{c}")
                    } else {
                        format!("{c}{pad}")
                    }
                })
                .collect();
            format!("|{}|\n", parts.join("|"))
        };
        out.push_str(&sep);
        out.push_str(&line(&header));
        out.push_str(&sep);
        for row in &rows {
            out.push_str(&line(row));
        }
        out.push_str(&sep);
    }
    if has_more {
        out.push_str(&showing_top(num_rows));
    }
    out
}

/// `s` followed by `fill` up to `width` columns.
fn pad_right(s: &str, width_to: usize, fill: char) -> String {
    let mut out = s.to_string();
    out.extend(std::iter::repeat_n(fill, width_to.saturating_sub(width(s))));
    out
}

/// Spark's `Utils.stringHalfWidth`: UTF-16 code units, plus one per full-width character.
fn width(s: &str) -> usize {
    s.chars()
        .map(|c| c.len_utf16() + usize::from(is_full_width(c)))
        .sum()
}

/// The characters Spark draws two columns wide (all in the Basic Multilingual Plane).
fn is_full_width(c: char) -> bool {
    matches!(
        u32::from(c),
        0x1100..=0x115F
            | 0x2E80..=0xA4CF
            | 0xAC00..=0xD7A3
            | 0xF900..=0xFAFF
            | 0xFE10..=0xFE19
            | 0xFE30..=0xFE6F
            | 0xFF00..=0xFF60
            | 0xFFE0..=0xFFE6
    )
}

/// Spark's `escapeMetaCharacters`: control characters that would break the table, as escapes.
fn escape_meta(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{0C}' => out.push_str("\\f"),
            '\u{08}' => out.push_str("\\b"),
            '\u{0B}' => out.push_str("\\v"),
            '\u{07}' => out.push_str("\\a"),
            c => out.push(c),
        }
    }
    out
}

/// A cell longer than `truncate` UTF-16 code units (0: never) cut to `truncate - 3` of them and
/// `...` (to `truncate`, without dots, below 4). A surrogate pair cut in half leaves `?`, which
/// is what the JVM sends for the lone half.
fn cell(s: &str, truncate: usize) -> String {
    let units = s.encode_utf16().count();
    if truncate == 0 || units <= truncate {
        return s.to_string();
    }
    let keep = if truncate < 4 { truncate } else { truncate - 3 };
    let mut out: String = char::decode_utf16(s.encode_utf16().take(keep))
        .map(|c| c.unwrap_or('?'))
        .collect();
    if truncate >= 4 {
        out.push_str("...");
    }
    out
}

/// The HTML 4 character entities (Apache Commons Text's `escapeHtml4`), by code point.
#[rustfmt::skip]
const HTML4_ENTITIES: [(u32, &str); 252] = [
    (0x0022, "quot"), (0x0026, "amp"), (0x003C, "lt"), (0x003E, "gt"), (0x00A0, "nbsp"),
    (0x00A1, "iexcl"), (0x00A2, "cent"), (0x00A3, "pound"), (0x00A4, "curren"), (0x00A5, "yen"),
    (0x00A6, "brvbar"), (0x00A7, "sect"), (0x00A8, "uml"), (0x00A9, "copy"), (0x00AA, "ordf"),
    (0x00AB, "laquo"), (0x00AC, "not"), (0x00AD, "shy"), (0x00AE, "reg"), (0x00AF, "macr"),
    (0x00B0, "deg"), (0x00B1, "plusmn"), (0x00B2, "sup2"), (0x00B3, "sup3"), (0x00B4, "acute"),
    (0x00B5, "micro"), (0x00B6, "para"), (0x00B7, "middot"), (0x00B8, "cedil"), (0x00B9, "sup1"),
    (0x00BA, "ordm"), (0x00BB, "raquo"), (0x00BC, "frac14"), (0x00BD, "frac12"),
    (0x00BE, "frac34"), (0x00BF, "iquest"), (0x00C0, "Agrave"), (0x00C1, "Aacute"),
    (0x00C2, "Acirc"), (0x00C3, "Atilde"), (0x00C4, "Auml"), (0x00C5, "Aring"), (0x00C6, "AElig"),
    (0x00C7, "Ccedil"), (0x00C8, "Egrave"), (0x00C9, "Eacute"), (0x00CA, "Ecirc"),
    (0x00CB, "Euml"), (0x00CC, "Igrave"), (0x00CD, "Iacute"), (0x00CE, "Icirc"), (0x00CF, "Iuml"),
    (0x00D0, "ETH"), (0x00D1, "Ntilde"), (0x00D2, "Ograve"), (0x00D3, "Oacute"), (0x00D4, "Ocirc"),
    (0x00D5, "Otilde"), (0x00D6, "Ouml"), (0x00D7, "times"), (0x00D8, "Oslash"),
    (0x00D9, "Ugrave"), (0x00DA, "Uacute"), (0x00DB, "Ucirc"), (0x00DC, "Uuml"),
    (0x00DD, "Yacute"), (0x00DE, "THORN"), (0x00DF, "szlig"), (0x00E0, "agrave"),
    (0x00E1, "aacute"), (0x00E2, "acirc"), (0x00E3, "atilde"), (0x00E4, "auml"), (0x00E5, "aring"),
    (0x00E6, "aelig"), (0x00E7, "ccedil"), (0x00E8, "egrave"), (0x00E9, "eacute"),
    (0x00EA, "ecirc"), (0x00EB, "euml"), (0x00EC, "igrave"), (0x00ED, "iacute"), (0x00EE, "icirc"),
    (0x00EF, "iuml"), (0x00F0, "eth"), (0x00F1, "ntilde"), (0x00F2, "ograve"), (0x00F3, "oacute"),
    (0x00F4, "ocirc"), (0x00F5, "otilde"), (0x00F6, "ouml"), (0x00F7, "divide"),
    (0x00F8, "oslash"), (0x00F9, "ugrave"), (0x00FA, "uacute"), (0x00FB, "ucirc"),
    (0x00FC, "uuml"), (0x00FD, "yacute"), (0x00FE, "thorn"), (0x00FF, "yuml"), (0x0152, "OElig"),
    (0x0153, "oelig"), (0x0160, "Scaron"), (0x0161, "scaron"), (0x0178, "Yuml"), (0x0192, "fnof"),
    (0x02C6, "circ"), (0x02DC, "tilde"), (0x0391, "Alpha"), (0x0392, "Beta"), (0x0393, "Gamma"),
    (0x0394, "Delta"), (0x0395, "Epsilon"), (0x0396, "Zeta"), (0x0397, "Eta"), (0x0398, "Theta"),
    (0x0399, "Iota"), (0x039A, "Kappa"), (0x039B, "Lambda"), (0x039C, "Mu"), (0x039D, "Nu"),
    (0x039E, "Xi"), (0x039F, "Omicron"), (0x03A0, "Pi"), (0x03A1, "Rho"), (0x03A3, "Sigma"),
    (0x03A4, "Tau"), (0x03A5, "Upsilon"), (0x03A6, "Phi"), (0x03A7, "Chi"), (0x03A8, "Psi"),
    (0x03A9, "Omega"), (0x03B1, "alpha"), (0x03B2, "beta"), (0x03B3, "gamma"), (0x03B4, "delta"),
    (0x03B5, "epsilon"), (0x03B6, "zeta"), (0x03B7, "eta"), (0x03B8, "theta"), (0x03B9, "iota"),
    (0x03BA, "kappa"), (0x03BB, "lambda"), (0x03BC, "mu"), (0x03BD, "nu"), (0x03BE, "xi"),
    (0x03BF, "omicron"), (0x03C0, "pi"), (0x03C1, "rho"), (0x03C2, "sigmaf"), (0x03C3, "sigma"),
    (0x03C4, "tau"), (0x03C5, "upsilon"), (0x03C6, "phi"), (0x03C7, "chi"), (0x03C8, "psi"),
    (0x03C9, "omega"), (0x03D1, "thetasym"), (0x03D2, "upsih"), (0x03D6, "piv"), (0x2002, "ensp"),
    (0x2003, "emsp"), (0x2009, "thinsp"), (0x200C, "zwnj"), (0x200D, "zwj"), (0x200E, "lrm"),
    (0x200F, "rlm"), (0x2013, "ndash"), (0x2014, "mdash"), (0x2018, "lsquo"), (0x2019, "rsquo"),
    (0x201A, "sbquo"), (0x201C, "ldquo"), (0x201D, "rdquo"), (0x201E, "bdquo"), (0x2020, "dagger"),
    (0x2021, "Dagger"), (0x2022, "bull"), (0x2026, "hellip"), (0x2030, "permil"),
    (0x2032, "prime"), (0x2033, "Prime"), (0x2039, "lsaquo"), (0x203A, "rsaquo"),
    (0x203E, "oline"), (0x2044, "frasl"), (0x20AC, "euro"), (0x2111, "image"), (0x2118, "weierp"),
    (0x211C, "real"), (0x2122, "trade"), (0x2135, "alefsym"), (0x2190, "larr"), (0x2191, "uarr"),
    (0x2192, "rarr"), (0x2193, "darr"), (0x2194, "harr"), (0x21B5, "crarr"), (0x21D0, "lArr"),
    (0x21D1, "uArr"), (0x21D2, "rArr"), (0x21D3, "dArr"), (0x21D4, "hArr"), (0x2200, "forall"),
    (0x2202, "part"), (0x2203, "exist"), (0x2205, "empty"), (0x2207, "nabla"), (0x2208, "isin"),
    (0x2209, "notin"), (0x220B, "ni"), (0x220F, "prod"), (0x2211, "sum"), (0x2212, "minus"),
    (0x2217, "lowast"), (0x221A, "radic"), (0x221D, "prop"), (0x221E, "infin"), (0x2220, "ang"),
    (0x2227, "and"), (0x2228, "or"), (0x2229, "cap"), (0x222A, "cup"), (0x222B, "int"),
    (0x2234, "there4"), (0x223C, "sim"), (0x2245, "cong"), (0x2248, "asymp"), (0x2260, "ne"),
    (0x2261, "equiv"), (0x2264, "le"), (0x2265, "ge"), (0x2282, "sub"), (0x2283, "sup"),
    (0x2284, "nsub"), (0x2286, "sube"), (0x2287, "supe"), (0x2295, "oplus"), (0x2297, "otimes"),
    (0x22A5, "perp"), (0x22C5, "sdot"), (0x2308, "lceil"), (0x2309, "rceil"), (0x230A, "lfloor"),
    (0x230B, "rfloor"), (0x2329, "lang"), (0x232A, "rang"), (0x25CA, "loz"), (0x2660, "spades"),
    (0x2663, "clubs"), (0x2665, "hearts"), (0x2666, "diams"),
];

/// `StringEscapeUtils.escapeHtml4`: every character HTML 4 names as its entity (`&eacute;`,
/// `&alpha;`, `&lt;`, ...), the rest as it is.
fn escape_html(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match HTML4_ENTITIES.binary_search_by_key(&u32::from(c), |(cp, _)| *cp) {
            Ok(i) => {
                out.push('&');
                out.push_str(HTML4_ENTITIES[i].1);
                out.push(';');
            }
            Err(_) => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::{Int32Array, StringArray};
    use arrow::datatypes::{Field, Schema};
    use std::sync::Arc;

    #[test]
    fn renders_like_spark() {
        let schema = Arc::new(Schema::new(vec![
            Field::new("id", DataType::Int32, true),
            Field::new("name", DataType::Utf8, true),
        ]));
        let batch = RecordBatch::try_new(
            schema,
            vec![
                Arc::new(Int32Array::from(vec![1, 2])),
                Arc::new(StringArray::from(vec![Some("a"), None])),
            ],
        )
        .unwrap();
        let fields = batch.schema().fields().clone();
        let s = show_string(
            std::slice::from_ref(&batch),
            &["id".into(), "name".into()],
            &fields,
            20,
            20,
            false,
            "UTC",
        );
        assert_eq!(
            s,
            "+---+----+\n| id|name|\n+---+----+\n|  1|   a|\n|  2|NULL|\n+---+----+\n"
        );
        let names = ["id".into(), "name".into()];
        let s = show_string(&[batch], &names, &fields, 1, 20, false, "UTC");
        assert!(s.ends_with("only showing top 1 row"));
    }

    #[test]
    fn measures_like_a_java_string() {
        assert_eq!(width("abc"), 3);
        assert_eq!(width("中文"), 4);
        assert_eq!(width("😀x"), 3);
        assert_eq!(width("e\u{301}"), 2);
        assert_eq!(width("ｆｕｌｌ"), 8);
        assert_eq!(width("ｶﾀ"), 2);
    }

    #[test]
    fn truncates_in_utf16_units() {
        assert_eq!(cell("a long string value here", 20), "a long string val...");
        assert_eq!(cell("abcdef", 3), "abc");
        assert_eq!(cell("abc", 3), "abc");
        assert_eq!(cell("abcdef", 0), "abcdef");
        assert_eq!(cell("😀😀😀", 4), "?...");
        assert_eq!(cell("😀😀😀", 3), "😀?");
        assert_eq!(cell("😀x", 3), "😀x");
    }

    #[test]
    fn escapes_like_spark() {
        assert_eq!(
            escape_meta("a\nb\tc\rd\u{7}\u{8}\u{b}\u{c}"),
            "a\\nb\\tc\\rd\\a\\b\\v\\f"
        );
        assert_eq!(
            escape_html("é<α>&'\"😀"),
            "&eacute;&lt;&alpha;&gt;&amp;'&quot;😀"
        );
        assert!(HTML4_ENTITIES.windows(2).all(|w| w[0].0 < w[1].0));
    }

    #[test]
    fn lays_out_vertically() {
        let schema = Arc::new(Schema::new(vec![Field::new(
            "列\n名",
            DataType::Utf8,
            true,
        )]));
        let batch = RecordBatch::try_new(
            schema,
            vec![Arc::new(StringArray::from(vec![Some("中文"), Some("😀")]))],
        )
        .unwrap();
        let fields = batch.schema().fields().clone();
        let names = ["列\n名".to_string()];
        let s = show_string(
            std::slice::from_ref(&batch),
            &names,
            &fields,
            20,
            20,
            true,
            "UTC",
        );
        assert_eq!(
            s,
            "-RECORD 0------\n 列\\n名 | 中文 \n-RECORD 1------\n 列\\n名 | 😀   \n"
        );
        assert_eq!(
            show_string(&[batch], &names, &fields, 0, 20, true, "UTC"),
            "(0 rows)"
        );
    }
}
