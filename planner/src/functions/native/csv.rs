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
use crate::datasource::csv::{CsvOptions, RecordReader};

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
    let mut reader = RecordReader::new(options);
    for i in 0..text.len() {
        let values = if text.is_null(i) {
            valid.append_null();
            vec![]
        } else {
            valid.append_non_null();
            reader.values(text.value(i))
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

/// `to_csv(struct)`: the struct's fields as one CSV record, spelled as Spark's CSV writer
/// spells values by default (quoted when needed, NULL as nothing, `""` for the empty string,
/// ISO dates and timestamps, Java doubles).
pub(super) fn to_csv(arrays: &[ArrayRef]) -> Result<ArrayRef> {
    use ember_execution::formats::text_values::{CsvStrings, TextValues};
    let Some(DataType::Struct(_)) = arrays.first().map(|a| a.data_type()) else {
        return internal_err!("to_csv of something other than a struct");
    };
    let value = arrays[0].as_struct();
    let pattern = |p: &str| {
        ember_execution::values::pattern::to_chrono(p)
            .map_err(|e| datafusion::error::DataFusionError::Plan(e.to_string()))
    };
    let spelling = TextValues {
        date: Some(pattern("yyyy-MM-dd")?),
        timestamp: Some(pattern("yyyy-MM-dd'T'HH:mm:ss.SSSXXX")?),
        timestamp_ntz: Some(pattern("yyyy-MM-dd'T'HH:mm:ss.SSS")?),
        java_doubles: true,
        csv_strings: Some(CsvStrings {
            sep: ',',
            quote: '"',
            escape: '\\',
            trim_leading: true,
            trim_trailing: true,
            empty: None,
        }),
    };
    // Nested values as Spark casts them to strings (`[1, 2]`).
    let columns = value
        .columns()
        .iter()
        .map(|c| match c.data_type() {
            DataType::List(_) | DataType::Struct(_) | DataType::Map(..) => {
                let mut nested = StringBuilder::new();
                for row in 0..c.len() {
                    if c.is_null(row) {
                        nested.append_null();
                    } else {
                        nested.append_value(crate::show::cast_string(c.as_ref(), row, "UTC", None));
                    }
                }
                Arc::new(nested.finish()) as ArrayRef
            }
            _ => c.clone(),
        })
        .collect::<Vec<_>>();
    let batch = arrow::array::RecordBatch::try_new_with_options(
        Arc::new(arrow::datatypes::Schema::new(
            value
                .fields()
                .iter()
                .zip(&columns)
                .map(|(f, c)| f.as_ref().clone().with_data_type(c.data_type().clone()))
                .collect::<Vec<_>>(),
        )),
        columns,
        &arrow::array::RecordBatchOptions::new().with_row_count(Some(value.len())),
    )?;
    let spelled = spelling.convert(&batch, &spelling.schema(&batch.schema()))?;
    let texts = spelled
        .columns()
        .iter()
        .map(|c| Ok(arrow::compute::cast(c, &DataType::Utf8)?))
        .collect::<Result<Vec<_>>>()?;
    let mut out = StringBuilder::with_capacity(value.len(), value.len() * 16);
    let mut line = String::new();
    for i in 0..value.len() {
        if value.is_null(i) {
            out.append_null();
            continue;
        }
        line.clear();
        for (j, text) in texts.iter().enumerate() {
            if j > 0 {
                line.push(',');
            }
            let text = text.as_string::<i32>();
            if text.is_valid(i) {
                line.push_str(text.value(i));
            }
        }
        out.append_value(&line);
    }
    Ok(Arc::new(out.finish()))
}
