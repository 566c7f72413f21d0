//! `from_xml`, `schema_of_xml` and `to_xml` as Spark's XML data source reads and writes a row:
//! the root element is the row, child elements its fields, attributes fields named `_name`,
//! an element's own text `_VALUE`; repeated elements are arrays. They are the data source's
//! own inference, values and writer (`ember_execution::formats::xml`), as Spark's functions
//! are its data source's.

use std::sync::Arc;

use arrow::array::{ArrayRef, AsArray};
use arrow::datatypes::DataType;
use datafusion::common::{Result, internal_err};
use datafusion::datasource::file_format::file_compression_type::FileCompressionType;
use ember_execution::formats::text_values::TextValues;
use ember_execution::formats::xml::XmlOptions;
use ember_execution::formats::xml::write::{self, XmlWriteOptions};
use ember_execution::spark_error::to_datafusion;

use super::strings;

/// The reader's options for a function's record: Spark's defaults in the session's zone.
fn record_options(time_zone: &str) -> Result<XmlOptions> {
    XmlOptions::of_read(
        &Default::default(),
        time_zone,
        FileCompressionType::UNCOMPRESSED,
        false,
    )
    .map_err(to_datafusion)
}

/// `from_xml(xml, schema)`: each text one record read into the schema's fields.
pub(super) fn from_xml(
    arrays: &[ArrayRef],
    target: &DataType,
    time_zone: &str,
) -> Result<ArrayRef> {
    let DataType::Struct(fields) = target else {
        return internal_err!("from_xml into {target}");
    };
    let text = strings(arrays, 0)?;
    let values = record_options(time_zone)?
        .struct_of_records(text.as_string::<i32>(), fields)
        .map_err(to_datafusion)?;
    Ok(Arc::new(values))
}

/// `schema_of_xml(xml)`: Spark's DDL of the row's inferred struct (NULL for malformed XML).
pub fn schema_of_xml(text: &str, time_zone: &str) -> Option<String> {
    let options = record_options(time_zone).ok()?;
    Some(crate::types::sql_name(&options.infer_record(text)?))
}

/// `to_xml(struct)`: the row as Spark's XML writer writes it (`<ROW>`, four-space indents, its
/// default date and timestamp patterns), by the writer itself.
pub(super) fn to_xml(arrays: &[ArrayRef]) -> Result<ArrayRef> {
    let Some(input) = arrays.first() else {
        return internal_err!("to_xml without a value");
    };
    let spark_options = [("rowTag".to_string(), "ROW".to_string())].into();
    let settings = crate::datasource::write::write_settings(
        "xml",
        &spark_options,
        &crate::datasource::write::CodecDefaults::default(),
    )
    .map_err(|e| to_datafusion(e.into_spark()))?;
    let setting = |key: &str| {
        settings
            .options
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.clone())
    };
    let options = XmlWriteOptions::from_options(setting);
    let values = TextValues::from_options(setting);
    Ok(Arc::new(write::row_texts(input, &options, &values)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schemas_are_inferred_as_spark() {
        let schema = |text| schema_of_xml(text, "UTC");
        assert_eq!(
            schema("<p><a>1</a><b>0.8</b><c>x</c><d>true</d><e>12345678901</e></p>").as_deref(),
            Some("STRUCT<a: BIGINT, b: DOUBLE, c: STRING, d: BOOLEAN, e: BIGINT>")
        );
        assert_eq!(
            schema(r#"<p x="1"><a>1</a><a>2</a><n><m>q</m></n></p>"#).as_deref(),
            Some("STRUCT<_x: BIGINT, a: ARRAY<BIGINT>, n: STRUCT<m: STRING>>")
        );
        assert_eq!(
            schema(r#"<p><a y="z">t</a></p>"#).as_deref(),
            Some("STRUCT<a: STRUCT<_VALUE: STRING, _y: STRING>>")
        );
        assert!(schema("<p>bad").is_none());
    }
}
