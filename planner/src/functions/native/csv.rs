//! `from_csv`: each string read as a CSV record (the first one it holds), by Ember's CSV
//! reader with the function's options, into a struct whose fields convert the values as a
//! PERMISSIVE read does (a value that does not convert is NULL).

use std::sync::Arc;

use arrow::array::NullBufferBuilder;
use arrow::array::{Array, ArrayRef, AsArray, StringBuilder, StructArray};
use arrow::compute::CastOptions;
use arrow::datatypes::DataType;
use datafusion::common::{Result, internal_err};

use super::strings;
use crate::datasource::csv::{CsvOptions, record_values};

pub(super) fn from_csv(
    arrays: &[ArrayRef],
    target: &DataType,
    options: &CsvOptions,
) -> Result<ArrayRef> {
    let DataType::Struct(fields) = target else {
        return internal_err!("from_csv into {target}");
    };
    let text = strings(arrays, 0)?;
    let text = text.as_string::<i32>();
    let mut builders: Vec<StringBuilder> = fields.iter().map(|_| StringBuilder::new()).collect();
    let mut valid = NullBufferBuilder::new(text.len());
    for i in 0..text.len() {
        let values = if text.is_null(i) {
            valid.append_null();
            vec![]
        } else {
            valid.append_non_null();
            record_values(options, text.value(i))
        };
        for ((builder, field), value) in builders.iter_mut().zip(fields.iter()).zip(
            values
                .into_iter()
                .chain(std::iter::repeat(None))
                .take(fields.len()),
        ) {
            // Spark reads integers with Java's parser, which takes no spaces around them.
            let spaced = |v: &String| v.trim() != v;
            let value = value.filter(|v| !(field.data_type().is_integer() && spaced(v)));
            builder.append_option(value);
        }
    }
    let lenient = CastOptions {
        safe: true,
        ..Default::default()
    };
    let columns = builders
        .iter_mut()
        .zip(fields.iter())
        .map(|(builder, field)| {
            let strings: ArrayRef = Arc::new(builder.finish());
            Ok(arrow::compute::cast_with_options(
                &strings,
                field.data_type(),
                &lenient,
            )?)
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(Arc::new(StructArray::try_new(
        fields.clone(),
        columns,
        valid.finish(),
    )?))
}
