//! XML records as Spark's XML data source finds them: the elements named `rowTag` (at any
//! depth, the outermost one when they nest) of a file, each parsed into a small tree with
//! quick-xml. As Spark's streaming parser, a file stops at its first malformed record: that
//! record is the file's last, and its text is the whole file's.

use std::ops::Range;

use quick_xml::events::{BytesStart, Event};

/// Records nested deeper than this are refused (they would exhaust the stack).
const MAX_DEPTH: usize = 256;

/// One element: its qualified name (`p:a`), attributes, content and the span of its content
/// in the record's text.
#[derive(Debug, Clone, Default)]
pub struct XmlNode {
    pub name: String,
    pub attributes: Vec<(String, String)>,
    pub children: Vec<XmlChild>,
    /// The raw text between its start and end tags, in the text it was parsed from.
    pub inner: Range<usize>,
}

#[derive(Debug, Clone)]
pub enum XmlChild {
    Element(XmlNode),
    Text(String),
}

impl XmlNode {
    pub fn elements(&self) -> impl Iterator<Item = &XmlNode> {
        self.children.iter().filter_map(|c| match c {
            XmlChild::Element(e) => Some(e),
            XmlChild::Text(_) => None,
        })
    }

    pub fn texts(&self) -> impl Iterator<Item = &str> {
        self.children.iter().filter_map(|c| match c {
            XmlChild::Text(t) => Some(t.as_str()),
            XmlChild::Element(_) => None,
        })
    }

    pub fn has_elements(&self) -> bool {
        self.elements().next().is_some()
    }

    /// Its text chunks that are not only white space (between child elements).
    pub fn value_texts(&self) -> Vec<&str> {
        let mixed = self.has_elements();
        self.texts()
            .filter(|t| !mixed || !t.trim().is_empty())
            .collect()
    }

    /// Its whole text (leaf elements).
    pub fn text(&self) -> String {
        self.texts().collect()
    }
}

/// The records of a file, then whether a malformed one ended it.
pub struct FileRecords {
    pub records: Vec<XmlNode>,
    pub malformed: bool,
}

fn start_node(e: &BytesStart, at: usize, exclude_attributes: bool) -> Result<XmlNode, String> {
    let name = String::from_utf8_lossy(e.name().as_ref()).into_owned();
    let mut attributes = vec![];
    if !exclude_attributes {
        for a in e.attributes() {
            let a = a.map_err(|e| e.to_string())?;
            let key = String::from_utf8_lossy(a.key.as_ref()).into_owned();
            if key == "xmlns" || key.starts_with("xmlns:") {
                continue;
            }
            let value = a.unescape_value().map_err(|e| e.to_string())?;
            attributes.push((key, value.into_owned()));
        }
    } else {
        // Still checked: a malformed attribute makes the record malformed.
        for a in e.attributes() {
            a.map_err(|e| e.to_string())?;
        }
    }
    Ok(XmlNode {
        name,
        attributes,
        children: vec![],
        inner: at..at,
    })
}

fn push_text(node: &mut XmlNode, text: &str, merge: bool) {
    if merge && let Some(XmlChild::Text(t)) = node.children.last_mut() {
        t.push_str(text);
        return;
    }
    node.children.push(XmlChild::Text(text.to_string()));
}

/// The text of an entity or character reference (`&amp;`, `&#65;`).
fn reference(r: &quick_xml::events::BytesRef) -> Result<String, String> {
    if let Some(c) = r.resolve_char_ref().map_err(|e| e.to_string())? {
        return Ok(c.to_string());
    }
    let name = r.decode().map_err(|e| e.to_string())?;
    match name.as_ref() {
        "amp" => Ok("&".into()),
        "lt" => Ok("<".into()),
        "gt" => Ok(">".into()),
        "quot" => Ok("\"".into()),
        "apos" => Ok("'".into()),
        other => Err(format!("unknown entity &{other};")),
    }
}

/// The elements named `row_tag` of `text` (any element at the top when `row_tag` is `None`:
/// a string of `spark.read.xml(df)` is one record).
pub fn split_records(text: &str, row_tag: Option<&str>, exclude_attributes: bool) -> FileRecords {
    let mut reader = quick_xml::Reader::from_str(text);
    reader.config_mut().check_end_names = true;
    let mut records = vec![];
    let mut stack: Vec<XmlNode> = vec![];
    // Whether the last event added text (references split text into several events).
    let mut in_text = false;
    let malformed = loop {
        let before = reader.buffer_position() as usize;
        let event = match reader.read_event() {
            Ok(e) => e,
            Err(_) => break true,
        };
        let after = reader.buffer_position() as usize;
        let was_text = std::mem::replace(&mut in_text, false);
        if matches!(event, Event::Eof) {
            break !stack.is_empty();
        }
        let result: Result<(), String> = (|| match event {
            Event::Start(e) | Event::Empty(e)
                if stack.is_empty()
                    && row_tag.is_some_and(|t| t.as_bytes() != e.name().as_ref()) =>
            {
                Ok(())
            }
            Event::Start(e) => {
                if stack.len() >= MAX_DEPTH {
                    return Err("too deep".into());
                }
                stack.push(start_node(&e, after, exclude_attributes)?);
                Ok(())
            }
            Event::Empty(e) => {
                let node = start_node(&e, after, exclude_attributes)?;
                match stack.last_mut() {
                    Some(parent) => parent.children.push(XmlChild::Element(node)),
                    None => records.push(node),
                }
                Ok(())
            }
            Event::End(_) => {
                let Some(mut node) = stack.pop() else {
                    return Ok(());
                };
                node.inner.end = before;
                match stack.last_mut() {
                    Some(parent) => parent.children.push(XmlChild::Element(node)),
                    None => records.push(node),
                }
                Ok(())
            }
            Event::Text(t) => {
                if let Some(node) = stack.last_mut() {
                    let t = t.decode().map_err(|e| e.to_string())?;
                    push_text(node, &t, was_text);
                    in_text = true;
                }
                Ok(())
            }
            Event::CData(t) => {
                if let Some(node) = stack.last_mut() {
                    let t = t.decode().map_err(|e| e.to_string())?;
                    push_text(node, &t, was_text);
                    in_text = true;
                }
                Ok(())
            }
            Event::GeneralRef(r) => {
                if let Some(node) = stack.last_mut() {
                    push_text(node, &reference(&r)?, was_text);
                    in_text = true;
                }
                Ok(())
            }
            _ => Ok(()),
        })();
        if result.is_err() {
            break true;
        }
        if row_tag.is_none() && !records.is_empty() && stack.is_empty() {
            break false;
        }
    };
    // A string of `spark.read.xml(df)` without an element is a malformed record.
    let malformed = malformed || (row_tag.is_none() && records.is_empty());
    FileRecords { records, malformed }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_are_split_by_row_tag() {
        let text = r#"<?xml version="1.0"?><rows><r id="1"><a>x &amp; y</a><r>in</r></r>
            <r/><other><r><b><![CDATA[<c>]]></b></r></other></rows>"#;
        let found = split_records(text, Some("r"), false);
        assert!(!found.malformed);
        assert_eq!(found.records.len(), 3);
        let first = &found.records[0];
        assert_eq!(first.attributes, vec![("id".to_string(), "1".to_string())]);
        let a = first.elements().next().unwrap();
        assert_eq!(a.text(), "x & y");
        assert_eq!(&text[a.inner.clone()], "x &amp; y");
        assert_eq!(found.records[2].elements().next().unwrap().text(), "<c>");
    }

    #[test]
    fn a_malformed_record_ends_the_file() {
        let found = split_records("<x><r><a>1</a></r><r><a>2</r><r/></x>", Some("r"), false);
        assert!(found.malformed);
        assert_eq!(found.records.len(), 1);
        let open = split_records("<x><r><a>1</a>", Some("r"), false);
        assert!(open.malformed);
        let one = split_records("<any><a>1</a></any>", None, false);
        assert_eq!(one.records.len(), 1);
        assert!(!one.malformed);
    }
}
