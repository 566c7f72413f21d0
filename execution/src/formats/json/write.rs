//! JSON lines as Spark writes them.

use std::sync::Arc;

use arrow::array::RecordBatch;
use arrow::datatypes::DataType;
use datafusion::common::Result;

/// JSON lines as Spark writes them: NULL fields left out, doubles as Java prints them
/// (`1.0E10`; NaN and infinities as the strings `"NaN"`, `"Infinity"`, as Jackson quotes
/// them).
pub(crate) fn encode_json(batch: &RecordBatch, buf: &mut Vec<u8>) -> Result<()> {
    let mut json = arrow::json::WriterBuilder::new()
        .with_explicit_nulls(false)
        .with_encoder_factory(Arc::new(JavaDoubles))
        .build::<_, arrow::json::writer::LineDelimited>(buf);
    json.write(batch)?;
    json.finish()?;
    Ok(())
}

/// Encodes floating point values of JSON output as Spark (Java) spells them.
#[derive(Debug)]
struct JavaDoubles;

struct JavaDoubleEncoder<'a>(&'a dyn arrow::array::Array);

impl arrow::json::writer::Encoder for JavaDoubleEncoder<'_> {
    fn encode(&mut self, idx: usize, out: &mut Vec<u8>) {
        use arrow::array::AsArray;
        use arrow::datatypes::{Float32Type, Float64Type};
        let text = match self.0.data_type() {
            DataType::Float32 => {
                let v = self.0.as_primitive::<Float32Type>().value(idx);
                (v.is_finite(), crate::values::java_float(v))
            }
            _ => {
                let v = self.0.as_primitive::<Float64Type>().value(idx);
                (v.is_finite(), crate::values::java_double(v))
            }
        };
        match text {
            (true, t) => out.extend_from_slice(t.as_bytes()),
            (false, t) => {
                out.push(b'"');
                out.extend_from_slice(t.as_bytes());
                out.push(b'"');
            }
        }
    }
}

impl arrow::json::writer::EncoderFactory for JavaDoubles {
    fn make_default_encoder<'a>(
        &self,
        _field: &'a arrow::datatypes::FieldRef,
        array: &'a dyn arrow::array::Array,
        _options: &'a arrow::json::writer::EncoderOptions,
    ) -> std::result::Result<
        Option<arrow::json::writer::NullableEncoder<'a>>,
        arrow::error::ArrowError,
    > {
        if !matches!(array.data_type(), DataType::Float32 | DataType::Float64) {
            return Ok(None);
        }
        Ok(Some(arrow::json::writer::NullableEncoder::new(
            Box::new(JavaDoubleEncoder(array)),
            array.nulls().cloned(),
        )))
    }
}
