//! The `xpath` functions: XPath 1.0 over each row's XML (sxd-xpath), read as Spark's
//! (javax.xml) functions read the result: `xpath` lists the values of the nodes found (NULL
//! for elements, as `Node.getNodeValue`), `xpath_string` the string value of the first, the
//! numbers Java's narrowing of the XPath number (NaN is 0 for integers).

use std::sync::Arc;

use arrow::array::{
    Array, ArrayRef, AsArray, BooleanArray, Float32Array, Float64Array, Int16Array, Int32Array,
    Int64Array, ListBuilder, StringArray, StringBuilder,
};
use arrow::datatypes::DataType;
use datafusion::common::{DataFusionError, Result, internal_err};
use serde::{Deserialize, Serialize};
use sxd_xpath::nodeset::Node;
use sxd_xpath::{Context, Factory, Value, XPath};

use super::strings;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum XpathResult {
    /// `xpath`: the values of the nodes found.
    Strings,
    String,
    Boolean,
    Short,
    Int,
    Long,
    Float,
    /// `xpath_double`, `xpath_number`.
    Double,
}

impl XpathResult {
    pub(super) fn return_type(self) -> DataType {
        match self {
            XpathResult::Strings => crate::types::list_type(DataType::Utf8, true),
            XpathResult::String => DataType::Utf8,
            XpathResult::Boolean => DataType::Boolean,
            XpathResult::Short => DataType::Int16,
            XpathResult::Int => DataType::Int32,
            XpathResult::Long => DataType::Int64,
            XpathResult::Float => DataType::Float32,
            XpathResult::Double => DataType::Float64,
        }
    }
}

fn failure(message: String) -> DataFusionError {
    crate::error::to_datafusion(crate::error::SparkError::new(
        crate::error::ErrorKind::Runtime,
        "INTERNAL_ERROR",
        "XX000",
        message,
        vec![],
    ))
}

/// The compiled path, kept while rows repeat it.
fn compile(path: &str) -> Result<XPath> {
    match Factory::new().build(path) {
        Ok(Some(xpath)) => Ok(xpath),
        Ok(None) => Err(failure(format!("Invalid XPath '{path}': empty"))),
        Err(e) => Err(failure(format!("Invalid XPath '{path}': {e}"))),
    }
}

/// What a node contributes to `xpath`'s list.
fn node_value(node: &Node) -> Option<String> {
    match node {
        Node::Attribute(a) => Some(a.value().to_string()),
        Node::Text(t) => Some(t.text().to_string()),
        Node::Comment(c) => Some(c.text().to_string()),
        Node::ProcessingInstruction(p) => p.value().map(str::to_string),
        Node::Namespace(n) => Some(n.uri().to_string()),
        Node::Root(_) | Node::Element(_) => None,
    }
}

/// The result of each row: None for a NULL XML or path.
enum Out {
    Strings(ListBuilder<StringBuilder>),
    String(Vec<Option<String>>),
    Boolean(Vec<Option<bool>>),
    Number(Vec<Option<f64>>),
}

/// Adds a row's result (None: NULL).
fn push(out: &mut Out, value: Option<Value>) -> Result<()> {
    match (out, value) {
        (Out::Strings(b), None) => b.append(false),
        (Out::Strings(b), Some(Value::Nodeset(nodes))) => {
            for node in nodes.document_order() {
                b.values().append_option(node_value(&node));
            }
            b.append(true);
        }
        (Out::Strings(_), Some(other)) => {
            return Err(failure(format!(
                "xpath of a path that finds no nodes but {}",
                other.string()
            )));
        }
        (Out::String(v), value) => v.push(value.map(|x| x.string())),
        (Out::Boolean(v), value) => v.push(value.map(|x| x.boolean())),
        (Out::Number(v), value) => v.push(value.map(|x| x.number())),
    }
    Ok(())
}

pub(super) fn evaluate(kind: XpathResult, arrays: &[ArrayRef]) -> Result<ArrayRef> {
    let xml = strings(arrays, 0)?;
    let xml = xml.as_string::<i32>();
    let paths = strings(arrays, 1)?;
    let paths = paths.as_string::<i32>();
    let mut out = match kind {
        XpathResult::Strings => Out::Strings(ListBuilder::new(StringBuilder::new())),
        XpathResult::String => Out::String(vec![]),
        XpathResult::Boolean => Out::Boolean(vec![]),
        _ => Out::Number(vec![]),
    };
    let mut compiled: Option<(String, XPath)> = None;
    for row in 0..xml.len() {
        if xml.is_null(row) || paths.is_null(row) {
            push(&mut out, None)?;
            continue;
        }
        let path = paths.value(row);
        if compiled.as_ref().is_none_or(|(p, _)| p != path) {
            compiled = Some((path.to_string(), compile(path)?));
        }
        let Some((_, xpath)) = &compiled else {
            return internal_err!("xpath not compiled");
        };
        let package = sxd_document::parser::parse(xml.value(row))
            .map_err(|e| failure(format!("Error loading expression '{path}': {e}")))?;
        let document = package.as_document();
        let value = xpath
            .evaluate(&Context::new(), document.root())
            .map_err(|e| failure(format!("Error evaluating '{path}': {e}")))?;
        push(&mut out, Some(value))?;
    }
    Ok(match out {
        Out::Strings(mut b) => Arc::new(b.finish()),
        Out::String(v) => Arc::new(StringArray::from(v)),
        Out::Boolean(v) => Arc::new(BooleanArray::from(v)),
        // Java's narrowing: saturating, NaN as 0 (`as` does the same); shorts through int.
        Out::Number(v) => match kind {
            XpathResult::Short => Arc::new(Int16Array::from_iter(
                v.iter().map(|x| x.map(|x| x as i32 as i16)),
            )),
            XpathResult::Int => {
                Arc::new(Int32Array::from_iter(v.iter().map(|x| x.map(|x| x as i32))))
            }
            XpathResult::Long => {
                Arc::new(Int64Array::from_iter(v.iter().map(|x| x.map(|x| x as i64))))
            }
            XpathResult::Float => Arc::new(Float32Array::from_iter(
                v.iter().map(|x| x.map(|x| x as f32)),
            )),
            _ => Arc::new(Float64Array::from(v)),
        },
    })
}
