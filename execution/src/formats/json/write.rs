//! JSON lines as Spark writes them.

use std::sync::Arc;

use arrow::array::{Array, AsArray, MapArray, RecordBatch};
use arrow::buffer::OffsetBuffer;
use arrow::datatypes::{DataType, Decimal128Type, FieldRef, Float32Type, Float64Type};
use arrow::error::ArrowError;
use arrow::json::writer::{Encoder, EncoderFactory, EncoderOptions, NullableEncoder, make_encoder};
use datafusion::common::Result;

/// JSON lines as Spark writes them: NULL fields left out, values as [`SparkJson`] spells them.
pub(crate) fn encode_json(batch: &RecordBatch, buf: &mut Vec<u8>) -> Result<()> {
    let mut json = arrow::json::WriterBuilder::new()
        .with_explicit_nulls(false)
        .with_encoder_factory(spark_json())
        .build::<_, arrow::json::writer::LineDelimited>(buf);
    json.write(batch)?;
    json.finish()?;
    Ok(())
}

/// The encoders of Spark's JSON generator (Jackson's, as `to_json` and the JSON writer use
/// it) where arrow's spell values otherwise: doubles and floats as Java prints them (`1.0E10`;
/// NaN and infinities as the strings `"NaN"`, `"Infinity"`, as Jackson quotes them), decimals
/// as `BigDecimal.toString` (`1.00000E-10`), and a map's NULL values written `null` (a
/// struct's NULL fields stay left out).
pub fn spark_json() -> Arc<dyn EncoderFactory> {
    Arc::new(SparkJson)
}

#[derive(Debug)]
struct SparkJson;

struct JavaNumberEncoder<'a>(&'a dyn Array);

impl Encoder for JavaNumberEncoder<'_> {
    fn encode(&mut self, idx: usize, out: &mut Vec<u8>) {
        let text = match self.0.data_type() {
            DataType::Float32 => {
                let v = self.0.as_primitive::<Float32Type>().value(idx);
                (v.is_finite(), crate::values::java_float(v))
            }
            DataType::Decimal128(_, scale) => {
                let v = self.0.as_primitive::<Decimal128Type>().value(idx);
                (true, crate::values::numbers::java_big_decimal(v, *scale))
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

/// A map with text keys, its NULL values written `null` (arrow's leaves them out unless every
/// NULL is written, a struct's fields too).
struct MapEncoder<'a> {
    offsets: OffsetBuffer<i32>,
    keys: NullableEncoder<'a>,
    values: NullableEncoder<'a>,
}

impl Encoder for MapEncoder<'_> {
    fn encode(&mut self, idx: usize, out: &mut Vec<u8>) {
        let (start, end) = (
            self.offsets[idx].unsigned_abs() as usize,
            self.offsets[idx + 1].unsigned_abs() as usize,
        );
        out.push(b'{');
        for i in start..end {
            if i > start {
                out.push(b',');
            }
            self.keys.encode(i, out);
            out.push(b':');
            if self.values.is_null(i) {
                out.extend_from_slice(b"null");
            } else {
                self.values.encode(i, out);
            }
        }
        out.push(b'}');
    }
}

fn map_encoder<'a>(
    field: &'a FieldRef,
    map: &'a MapArray,
    options: &'a EncoderOptions,
) -> std::result::Result<MapEncoder<'a>, ArrowError> {
    Ok(MapEncoder {
        offsets: map.offsets().clone(),
        keys: make_encoder(field, map.keys(), options)?,
        values: make_encoder(field, map.values(), options)?,
    })
}

impl EncoderFactory for SparkJson {
    fn make_default_encoder<'a>(
        &self,
        field: &'a FieldRef,
        array: &'a dyn Array,
        options: &'a EncoderOptions,
    ) -> std::result::Result<Option<NullableEncoder<'a>>, ArrowError> {
        let encoder: Box<dyn Encoder + 'a> = match array.data_type() {
            DataType::Float32 | DataType::Float64 | DataType::Decimal128(_, _) => {
                Box::new(JavaNumberEncoder(array))
            }
            // (Other keys: arrow's error.)
            DataType::Map(entries, _)
                if matches!(
                    entries.data_type(),
                    DataType::Struct(f) if f.first().is_some_and(|k| k.data_type() == &DataType::Utf8)
                ) =>
            {
                Box::new(map_encoder(field, array.as_map(), options)?)
            }
            _ => return Ok(None),
        };
        Ok(Some(NullableEncoder::new(encoder, array.nulls().cloned())))
    }
}
