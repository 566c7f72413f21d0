//! XML files as Spark's XML data source writes them: a declaration, `<ROWS>` (`rootTag`),
//! one `<ROW>` (`rowTag`) per row indented by four spaces, fields named
//! `attributePrefix`+name as attributes, `valueTag` as the element's text, structs and maps
//! as nested elements, arrays as repeated elements (nested arrays as `<item>`s), NULLs left
//! out unless `nullValue` is set. A partition without rows is an empty file.

use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, RecordBatch, StringArray};
use arrow::datatypes::{DataType, Field, Schema};
use datafusion::common::{DataFusionError, Result};

use crate::formats::encode::BatchEncoder;
use crate::formats::text_values::TextValues;

/// The writer options (`format.<key>`) an XML write carries.
pub const ROW_TAG: &str = "format.row_tag";
pub const ROOT_TAG: &str = "format.root_tag";
pub const ATTRIBUTE_PREFIX: &str = "format.attribute_prefix";
pub const VALUE_TAG: &str = "format.value_tag";
pub const NULL_VALUE: &str = "format.null_value";
pub const DECLARATION: &str = "format.declaration";
pub const ARRAY_ELEMENT_NAME: &str = "format.array_element_name";

/// The options of an XML write.
#[derive(Debug, Clone)]
pub struct XmlWriteOptions {
    pub row_tag: String,
    pub root_tag: String,
    pub attribute_prefix: String,
    pub value_tag: String,
    pub null_value: Option<String>,
    pub declaration: String,
    pub array_element_name: String,
}

impl XmlWriteOptions {
    pub fn from_options(option: impl Fn(&str) -> Option<String>) -> Self {
        Self {
            row_tag: option(ROW_TAG).unwrap_or_else(|| "ROW".into()),
            root_tag: option(ROOT_TAG).unwrap_or_else(|| "ROWS".into()),
            attribute_prefix: option(ATTRIBUTE_PREFIX).unwrap_or_else(|| "_".into()),
            value_tag: option(VALUE_TAG).unwrap_or_else(|| "_VALUE".into()),
            null_value: option(NULL_VALUE),
            declaration: option(DECLARATION)
                .unwrap_or_else(|| r#"version="1.0" encoding="UTF-8" standalone="yes""#.into()),
            array_element_name: option(ARRAY_ELEMENT_NAME).unwrap_or_else(|| "item".into()),
        }
    }

    fn is_attribute(&self, name: &str) -> bool {
        !self.attribute_prefix.is_empty()
            && name != self.value_tag
            && name.starts_with(&self.attribute_prefix)
    }
}

/// A column with its leaves spelled as Spark writes them.
enum Spelled {
    Leaf(StringArray),
    Struct(ArrayRef, Vec<(String, Spelled)>),
    List(ArrayRef, Box<Spelled>),
    Map(ArrayRef, StringArray, Box<Spelled>),
}

fn spell(array: &ArrayRef, values: &TextValues) -> Result<Spelled> {
    Ok(match array.data_type() {
        DataType::Struct(fields) => {
            let s = array.as_struct();
            let children = fields
                .iter()
                .zip(s.columns())
                .map(|(f, c)| Ok((f.name().clone(), spell(c, values)?)))
                .collect::<Result<Vec<_>>>()?;
            Spelled::Struct(array.clone(), children)
        }
        DataType::List(_) => Spelled::List(
            array.clone(),
            Box::new(spell(array.as_list::<i32>().values(), values)?),
        ),
        DataType::LargeList(_) => Spelled::List(
            array.clone(),
            Box::new(spell(array.as_list::<i64>().values(), values)?),
        ),
        DataType::Map(..) => {
            let m = array.as_map();
            let Spelled::Leaf(keys) = spell(m.keys(), values)? else {
                return Err(DataFusionError::NotImplemented(
                    "XML maps with keys that are not primitive".into(),
                ));
            };
            Spelled::Map(array.clone(), keys, Box::new(spell(m.values(), values)?))
        }
        DataType::Binary | DataType::LargeBinary | DataType::BinaryView => {
            let bytes = arrow::compute::cast(array, &DataType::Binary)?;
            let bytes = bytes.as_binary::<i32>();
            Spelled::Leaf(
                bytes
                    .iter()
                    .map(|b| {
                        b.map(|b| {
                            let hex: Vec<String> = b.iter().map(|x| format!("{x:02X}")).collect();
                            format!("[{}]", hex.join(" "))
                        })
                    })
                    .collect(),
            )
        }
        DataType::Interval(_) | DataType::Duration(_) => {
            return Err(DataFusionError::NotImplemented(format!(
                "writing {} values to XML",
                array.data_type()
            )));
        }
        t => {
            let column = if matches!(
                t,
                DataType::Date32
                    | DataType::Date64
                    | DataType::Timestamp(..)
                    | DataType::Float32
                    | DataType::Float64
            ) {
                let schema = Arc::new(Schema::new(vec![Field::new("v", t.clone(), true)]));
                let batch = RecordBatch::try_new(schema.clone(), vec![array.clone()])?;
                values
                    .convert(&batch, &values.schema(&schema))?
                    .column(0)
                    .clone()
            } else {
                array.clone()
            };
            let text = arrow::compute::cast(&column, &DataType::Utf8)?;
            Spelled::Leaf(text.as_string::<i32>().clone())
        }
    })
}

fn escape_text(text: &str, out: &mut String) {
    let mut prev = ['\0', '\0'];
    for c in text.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '&' => out.push_str("&amp;"),
            '>' if prev == [']', ']'] => out.push_str("&gt;"),
            c => out.push(c),
        }
        prev = [prev[1], c];
    }
}

fn escape_attribute(text: &str, out: &mut String) {
    for c in text.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
}

fn indent(out: &mut String, depth: usize) {
    for _ in 0..depth {
        out.push_str("    ");
    }
}

/// The text of a leaf value, if it is not NULL.
fn leaf_text(s: &Spelled, row: usize) -> Option<&str> {
    match s {
        Spelled::Leaf(a) if a.is_valid(row) => Some(a.value(row)),
        _ => None,
    }
}

impl XmlWriteOptions {
    /// Element `tag` holding row `row` of `s`, at `depth` (a list: one element per item).
    fn element(&self, out: &mut String, tag: &str, s: &Spelled, row: usize, depth: usize) {
        let null = match s {
            Spelled::Leaf(a) => a.is_null(row),
            Spelled::Struct(a, _) | Spelled::List(a, _) | Spelled::Map(a, _, _) => a.is_null(row),
        };
        if null {
            if let Some(n) = &self.null_value {
                indent(out, depth);
                out.push_str(&format!("<{tag}>"));
                escape_text(n, out);
                out.push_str(&format!("</{tag}>\n"));
            }
            return;
        }
        match s {
            Spelled::Leaf(a) => {
                indent(out, depth);
                out.push_str(&format!("<{tag}>"));
                escape_text(a.value(row), out);
                out.push_str(&format!("</{tag}>\n"));
            }
            Spelled::Struct(_, fields) => self.struct_element(out, tag, fields, row, depth),
            Spelled::List(a, items) => {
                let offsets = match a.data_type() {
                    DataType::LargeList(_) => {
                        let o = a.as_list::<i64>().value_offsets();
                        (o[row] as usize, o[row + 1] as usize)
                    }
                    _ => {
                        let o = a.as_list::<i32>().value_offsets();
                        (o[row] as usize, o[row + 1] as usize)
                    }
                };
                for i in offsets.0..offsets.1 {
                    if let Spelled::List(..) = items.as_ref() {
                        indent(out, depth);
                        out.push_str(&format!("<{tag}>\n"));
                        self.element(out, &self.array_element_name, items, i, depth + 1);
                        indent(out, depth);
                        out.push_str(&format!("</{tag}>\n"));
                    } else {
                        self.element(out, tag, items, i, depth);
                    }
                }
            }
            Spelled::Map(a, keys, values) => {
                let o = a.as_map().value_offsets();
                indent(out, depth);
                if o[row] == o[row + 1] {
                    out.push_str(&format!("<{tag}/>\n"));
                    return;
                }
                out.push_str(&format!("<{tag}>\n"));
                for i in o[row] as usize..o[row + 1] as usize {
                    self.element(out, keys.value(i), values, i, depth + 1);
                }
                indent(out, depth);
                out.push_str(&format!("</{tag}>\n"));
            }
        }
    }

    fn struct_element(
        &self,
        out: &mut String,
        tag: &str,
        fields: &[(String, Spelled)],
        row: usize,
        depth: usize,
    ) {
        indent(out, depth);
        out.push('<');
        out.push_str(tag);
        let mut text = None;
        let mut body = String::new();
        for (name, s) in fields {
            if name == &self.value_tag {
                text = leaf_text(s, row);
            } else if self.is_attribute(name) {
                if let Some(v) = leaf_text(s, row) {
                    out.push(' ');
                    out.push_str(&name[self.attribute_prefix.len()..]);
                    out.push_str("=\"");
                    escape_attribute(v, out);
                    out.push('"');
                }
            } else {
                self.element(&mut body, name, s, row, depth + 1);
            }
        }
        match (text, body.is_empty()) {
            (None, true) => out.push_str("/>\n"),
            (Some(t), true) => {
                out.push('>');
                escape_text(t, out);
                out.push_str(&format!("</{tag}>\n"));
            }
            (text, false) => {
                out.push('>');
                if let Some(t) = text {
                    escape_text(t, out);
                }
                out.push('\n');
                out.push_str(&body);
                indent(out, depth);
                out.push_str(&format!("</{tag}>\n"));
            }
        }
    }
}

/// `to_xml(struct)`: each row of `rows` (a struct column) as the writer writes a row, one
/// `rowTag` element without indentation of its own; NULL rows NULL.
pub fn row_texts(
    rows: &ArrayRef,
    options: &XmlWriteOptions,
    values: &TextValues,
) -> Result<StringArray> {
    let Spelled::Struct(_, fields) = spell(rows, values)? else {
        return Err(DataFusionError::Internal(format!(
            "to_xml of {}",
            rows.data_type()
        )));
    };
    Ok((0..rows.len())
        .map(|row| {
            rows.is_valid(row).then(|| {
                let mut out = String::new();
                options.struct_element(&mut out, &options.row_tag, &fields, row, 0);
                out.trim_end_matches('\n').to_string()
            })
        })
        .collect())
}

/// Encodes batches as the rows of one XML file.
pub(crate) struct XmlEncoder {
    options: XmlWriteOptions,
    values: TextValues,
    started: bool,
}

impl XmlEncoder {
    pub(crate) fn new(options: XmlWriteOptions, values: TextValues) -> Self {
        Self {
            options,
            values,
            started: false,
        }
    }
}

impl BatchEncoder for XmlEncoder {
    fn encode(&mut self, batch: &RecordBatch, buf: &mut Vec<u8>) -> Result<()> {
        if batch.num_rows() == 0 {
            return Ok(());
        }
        let mut out = String::new();
        if !self.started {
            self.started = true;
            if !self.options.declaration.is_empty() {
                out.push_str(&format!("<?xml {}?>\n", self.options.declaration));
            }
            out.push_str(&format!("<{}>\n", self.options.root_tag));
        }
        let fields = batch
            .schema()
            .fields()
            .iter()
            .zip(batch.columns())
            .map(|(f, c)| Ok((f.name().clone(), spell(c, &self.values)?)))
            .collect::<Result<Vec<_>>>()?;
        for row in 0..batch.num_rows() {
            self.options
                .struct_element(&mut out, &self.options.row_tag, &fields, row, 1);
        }
        buf.extend_from_slice(out.as_bytes());
        Ok(())
    }

    fn finish(&mut self, buf: &mut Vec<u8>) -> Result<()> {
        if self.started {
            buf.extend_from_slice(format!("</{}>", self.options.root_tag).as_bytes());
        }
        Ok(())
    }
}
