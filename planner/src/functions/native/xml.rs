//! `from_xml`, `schema_of_xml` and `to_xml` as Spark's XML data source reads and writes a row:
//! the root element is the row, child elements its fields, attributes fields named `_name`,
//! an element's own text `_VALUE`; repeated elements are arrays. Documents are parsed by
//! sxd-document.

use std::collections::BTreeMap;
use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, StringArray, StringBuilder};
use arrow::datatypes::{DataType, Field, Fields};
use datafusion::common::{Result, internal_err};
use sxd_document::dom::{ChildOfElement, ChildOfRoot, Element};

use super::strings;

/// The prefix of attribute fields and the name of an element's text field.
const ATTRIBUTE_PREFIX: &str = "_";
const VALUE_TAG: &str = "_VALUE";

/// Runs `f` on the root element of a document; `None` for malformed XML.
fn with_root<T>(text: &str, f: impl FnOnce(Element) -> T) -> Option<T> {
    let package = sxd_document::parser::parse(text).ok()?;
    let doc = package.as_document();
    let root = doc.root().children().into_iter().find_map(|c| match c {
        ChildOfRoot::Element(e) => Some(e),
        _ => None,
    })?;
    Some(f(root))
}

fn own_text(e: Element) -> String {
    e.children()
        .into_iter()
        .filter_map(|c| match c {
            ChildOfElement::Text(t) => Some(t.text().to_string()),
            _ => None,
        })
        .collect::<String>()
        .trim()
        .to_string()
}

fn children<'d>(e: Element<'d>) -> Vec<Element<'d>> {
    e.children()
        .into_iter()
        .filter_map(|c| match c {
            ChildOfElement::Element(c) => Some(c),
            _ => None,
        })
        .collect()
}

// ---- from_xml ----------------------------------------------------------------------------

/// A text as the JSON value of `target` (NULL when it does not read as one).
fn typed_value(text: &str, target: &DataType) -> serde_json::Value {
    use serde_json::Value;
    let text = text.trim();
    if text.is_empty() && target != &DataType::Utf8 {
        return Value::Null;
    }
    match target {
        t if t.is_integer() => text.parse::<i64>().map(Value::from).unwrap_or(Value::Null),
        DataType::Float32 | DataType::Float64 => text
            .parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
            .map(Value::Number)
            .unwrap_or(Value::Null),
        DataType::Decimal128(..) | DataType::Decimal256(..) => {
            match serde_json::from_str::<serde_json::Number>(text) {
                Ok(n) => Value::Number(n),
                Err(_) => Value::Null,
            }
        }
        DataType::Boolean => match text.to_ascii_lowercase().as_str() {
            "true" => Value::Bool(true),
            "false" => Value::Bool(false),
            _ => Value::Null,
        },
        _ => Value::String(text.to_string()),
    }
}

/// An element as the JSON object of the struct `fields`.
fn element_json(e: Element, fields: &Fields) -> serde_json::Value {
    let mut out = serde_json::Map::new();
    let kids = children(e);
    for f in fields {
        let name = f.name();
        let value = if name == VALUE_TAG {
            let t = own_text(e);
            (!t.is_empty()).then(|| typed_value(&t, f.data_type()))
        } else if let Some(attr) = name.strip_prefix(ATTRIBUTE_PREFIX)
            && let Some(a) = e.attribute(attr)
        {
            Some(typed_value(a.value(), f.data_type()))
        } else {
            let matching: Vec<Element> = kids
                .iter()
                .copied()
                .filter(|c| c.name().local_part() == name)
                .collect();
            match f.data_type() {
                DataType::List(item) if !matching.is_empty() => Some(serde_json::Value::Array(
                    matching
                        .iter()
                        .map(|c| child_json(*c, item.data_type()))
                        .collect(),
                )),
                t => matching.last().map(|c| child_json(*c, t)),
            }
        };
        if let Some(v) = value {
            out.insert(name.clone(), v);
        }
    }
    serde_json::Value::Object(out)
}

fn child_json(e: Element, target: &DataType) -> serde_json::Value {
    match target {
        DataType::Struct(fields) => element_json(e, fields),
        t => typed_value(&own_text(e), t),
    }
}

/// `from_xml(xml, schema)`: the rows as JSON objects of the schema, then read as JSON
/// (malformed XML reads as a struct of NULLs, as Spark's PERMISSIVE mode).
pub(super) fn from_xml(arrays: &[ArrayRef], target: &DataType) -> Result<ArrayRef> {
    let DataType::Struct(fields) = target else {
        return internal_err!("from_xml into {target}");
    };
    let text = strings(arrays, 0)?;
    let text = text.as_string::<i32>();
    let json: StringArray = (0..text.len())
        .map(|i| {
            if text.is_null(i) {
                return None;
            }
            Some(
                with_root(text.value(i), |root| element_json(root, fields).to_string())
                    .unwrap_or_else(|| "{}".into()),
            )
        })
        .collect();
    super::json::from_json(
        &[Arc::new(json)],
        target,
        super::Leniency {
            single_quotes: false,
            unquoted_names: false,
        },
    )
}

// ---- schema_of_xml -----------------------------------------------------------------------

fn infer_text(text: &str) -> DataType {
    let t = text.trim();
    if t.is_empty() {
        return DataType::Utf8;
    }
    if t.parse::<i64>().is_ok() {
        return DataType::Int64;
    }
    if t.parse::<f64>().is_ok() && !t.eq_ignore_ascii_case("nan") && !t.contains("inf") {
        return DataType::Float64;
    }
    if t.eq_ignore_ascii_case("true") || t.eq_ignore_ascii_case("false") {
        return DataType::Boolean;
    }
    if chrono::NaiveDate::parse_from_str(t, "%Y-%m-%d").is_ok() {
        return DataType::Date32;
    }
    if chrono::NaiveDateTime::parse_from_str(t, "%Y-%m-%d %H:%M:%S").is_ok()
        || chrono::NaiveDateTime::parse_from_str(t, "%Y-%m-%dT%H:%M:%S").is_ok()
    {
        return crate::types::timestamp_type(crate::types::DEFAULT_TIME_ZONE);
    }
    DataType::Utf8
}

fn merge(a: DataType, b: DataType) -> DataType {
    match (a, b) {
        (a, b) if a == b => a,
        (DataType::Int64, DataType::Float64) | (DataType::Float64, DataType::Int64) => {
            DataType::Float64
        }
        (DataType::Struct(x), DataType::Struct(y)) => {
            let mut fields: BTreeMap<String, DataType> = x
                .iter()
                .map(|f| (f.name().clone(), f.data_type().clone()))
                .collect();
            for f in y.iter() {
                let t = match fields.remove(f.name()) {
                    Some(old) => merge(old, f.data_type().clone()),
                    None => f.data_type().clone(),
                };
                fields.insert(f.name().clone(), t);
            }
            struct_of(fields)
        }
        (DataType::List(x), DataType::List(y)) => {
            crate::types::list_type(merge(x.data_type().clone(), y.data_type().clone()), true)
        }
        (DataType::List(x), other) | (other, DataType::List(x)) => {
            crate::types::list_type(merge(x.data_type().clone(), other), true)
        }
        _ => DataType::Utf8,
    }
}

fn struct_of(fields: BTreeMap<String, DataType>) -> DataType {
    DataType::Struct(
        fields
            .into_iter()
            .map(|(n, t)| Field::new(n, t, true))
            .collect(),
    )
}

/// The type of an element's content: its text's, or a struct of its attributes, children
/// (repeated ones as arrays) and text.
fn infer_element(e: Element, row: bool) -> DataType {
    let kids = children(e);
    let attributes = e.attributes();
    if !row && kids.is_empty() && attributes.is_empty() {
        return infer_text(&own_text(e));
    }
    let mut fields: BTreeMap<String, DataType> = BTreeMap::new();
    for a in attributes {
        fields.insert(
            format!("{ATTRIBUTE_PREFIX}{}", a.name().local_part()),
            infer_text(a.value()),
        );
    }
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for c in &kids {
        *counts.entry(c.name().local_part().to_string()).or_default() += 1;
    }
    for c in &kids {
        let name = c.name().local_part().to_string();
        let t = infer_element(*c, false);
        let t = if counts.get(&name).copied().unwrap_or(0) > 1 {
            crate::types::list_type(t, true)
        } else {
            t
        };
        let merged = match fields.remove(&name) {
            Some(old) => merge(old, t),
            None => t,
        };
        fields.insert(name, merged);
    }
    let text = own_text(e);
    if !text.is_empty() {
        fields.insert(VALUE_TAG.into(), infer_text(&text));
    }
    struct_of(fields)
}

/// `schema_of_xml(xml)`: Spark's DDL of the row's inferred struct.
pub fn schema_of_xml(text: &str) -> Option<String> {
    with_root(text, |root| {
        crate::types::sql_name(&infer_element(root, true))
    })
}

// ---- to_xml ------------------------------------------------------------------------------

fn escape(text: &str, attribute: bool) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' if attribute => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
    out
}

/// Writes the fields of row `row` of a struct column as the content of element `tag`.
fn write_element(
    out: &mut String,
    tag: &str,
    array: &dyn Array,
    row: usize,
    depth: usize,
    tz: &str,
) {
    let indent = "    ".repeat(depth);
    match array.data_type() {
        DataType::Struct(fields) => {
            let s = array.as_struct();
            let mut attributes = String::new();
            let mut text = None;
            let mut body = String::new();
            for (f, c) in fields.iter().zip(s.columns()) {
                if c.is_null(row) {
                    continue;
                }
                let name = f.name();
                if name == VALUE_TAG {
                    text = Some(crate::show::cast_string(c.as_ref(), row, tz, None));
                } else if let Some(attr) = name.strip_prefix(ATTRIBUTE_PREFIX) {
                    let v = crate::show::cast_string(c.as_ref(), row, tz, None);
                    attributes.push_str(&format!(" {attr}=\"{}\"", escape(&v, true)));
                } else {
                    write_element(&mut body, name, c.as_ref(), row, depth + 1, tz);
                }
            }
            if body.is_empty() {
                let text = text.map(|t| escape(&t, false)).unwrap_or_default();
                out.push_str(&format!("{indent}<{tag}{attributes}>{text}</{tag}>\n"));
            } else {
                out.push_str(&format!(
                    "{indent}<{tag}{attributes}>\n{body}{indent}</{tag}>\n"
                ));
            }
        }
        DataType::List(_) => {
            let items = array.as_list::<i32>().value(row);
            for i in 0..items.len() {
                if !items.is_null(i) {
                    write_element(out, tag, items.as_ref(), i, depth, tz);
                }
            }
        }
        _ => {
            let v = crate::show::cast_string(array, row, tz, None);
            out.push_str(&format!("{indent}<{tag}>{}</{tag}>\n", escape(&v, false)));
        }
    }
}

/// `to_xml(struct)`: the row as Spark writes it, `<ROW>` and four-space indents.
pub(super) fn to_xml(arrays: &[ArrayRef], time_zone: &str) -> Result<ArrayRef> {
    let Some(input) = arrays.first() else {
        return internal_err!("to_xml without a value");
    };
    let mut out = StringBuilder::new();
    for row in 0..input.len() {
        if input.is_null(row) {
            out.append_null();
            continue;
        }
        let mut text = String::new();
        write_element(&mut text, "ROW", input.as_ref(), row, 0, time_zone);
        out.append_value(text.trim_end_matches('\n'));
    }
    Ok(Arc::new(out.finish()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schemas_are_inferred_as_spark() {
        assert_eq!(
            schema_of_xml("<p><a>1</a><b>0.8</b><c>x</c><d>true</d><e>12345678901</e></p>")
                .as_deref(),
            Some("STRUCT<a: BIGINT, b: DOUBLE, c: STRING, d: BOOLEAN, e: BIGINT>")
        );
        assert_eq!(
            schema_of_xml(r#"<p x="1"><a>1</a><a>2</a><n><m>q</m></n></p>"#).as_deref(),
            Some("STRUCT<_x: BIGINT, a: ARRAY<BIGINT>, n: STRUCT<m: STRING>>")
        );
        assert_eq!(
            schema_of_xml(r#"<p><a y="z">t</a></p>"#).as_deref(),
            Some("STRUCT<a: STRUCT<_VALUE: STRING, _y: STRING>>")
        );
        assert!(schema_of_xml("<p>bad").is_none());
    }
}
