//! Decoding CSV text into batches of string columns: each record's values of the projected
//! columns, with Spark's handling of malformed records (too few or too many values) by the
//! read's mode.

use std::sync::Arc;

use arrow::array::{ArrayRef, RecordBatch, RecordBatchOptions, StringBuilder};
use arrow::compute::CastOptions;
use arrow::datatypes::{DataType, SchemaRef};
use arrow::error::ArrowError;
use datafusion::common::Result;
use datafusion_datasource::decoder::Decoder;

use super::*;
use crate::formats::MalformedMode;

/// Decodes CSV text into batches of the `output` columns (by their index in `projection`
/// among the file's `file_columns`).
pub(super) struct CsvDecoder {
    records: Records,
    output: SchemaRef,
    projection: Vec<usize>,
    file_columns: usize,
    batch_size: usize,
    skip_header: bool,
    builders: Vec<StringBuilder>,
    pub(super) rows: usize,
}

impl std::fmt::Debug for CsvDecoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CsvDecoder")
            .field("output", &self.output)
            .field("rows", &self.rows)
            .finish()
    }
}

impl CsvDecoder {
    pub(super) fn new(
        options: Arc<CsvOptions>,
        output: SchemaRef,
        projection: Vec<usize>,
        file_columns: usize,
        batch_size: usize,
        skip_header: bool,
    ) -> Self {
        Self {
            builders: output
                .fields()
                .iter()
                .map(|_| StringBuilder::new())
                .collect(),
            records: Records::new(options),
            output,
            projection,
            file_columns,
            batch_size: batch_size.max(1),
            skip_header,
            rows: 0,
        }
    }

    /// Adds the record just read to the batch, unless it is skipped.
    fn end_record(&mut self) -> Result<(), ArrowError> {
        let records = &mut self.records;
        // Blank lines first: the header is the first record that is not blank.
        if records.is_blank() || std::mem::take(&mut self.skip_header) {
            records.clear();
            return Ok(());
        }
        let count = records.fields.len();
        if self.projection.len() == self.file_columns && count != self.file_columns {
            match records.options.mode {
                MalformedMode::Permissive => {}
                MalformedMode::DropMalformed => {
                    records.clear();
                    return Ok(());
                }
                MalformedMode::FailFast => {
                    return Err(ArrowError::CsvError(format!(
                        "malformed record: {count} values for {} columns",
                        self.file_columns
                    )));
                }
            }
        }
        for (builder, &i) in self.builders.iter_mut().zip(&self.projection) {
            let field = records.field(i);
            builder.append_option(field.as_deref().and_then(|t| records.options.value(t)));
        }
        records.clear();
        self.rows += 1;
        Ok(())
    }
}

impl Decoder for CsvDecoder {
    fn decode(&mut self, buf: &[u8]) -> Result<usize, ArrowError> {
        if buf.is_empty() {
            // The end of the text: its last record, if it has no line end.
            while self.records.read(&[]).1 {
                self.end_record()?;
            }
            return Ok(0);
        }
        let mut consumed = 0;
        while consumed < buf.len() && self.rows < self.batch_size {
            let (read, ended) = self.records.read(&buf[consumed..]);
            consumed += read;
            if ended {
                self.end_record()?;
            }
        }
        Ok(consumed)
    }

    fn flush(&mut self) -> Result<Option<RecordBatch>, ArrowError> {
        if self.rows == 0 {
            return Ok(None);
        }
        let convert = CastOptions {
            safe: false,
            ..Default::default()
        };
        let columns = self
            .builders
            .iter_mut()
            .zip(self.output.fields())
            .map(|(builder, field)| {
                let strings: ArrayRef = Arc::new(builder.finish());
                if field.data_type() == &DataType::Utf8 {
                    return Ok(strings);
                }
                arrow::compute::cast_with_options(&strings, field.data_type(), &convert)
                    .map_err(|e| ArrowError::CsvError(format!("column {}: {e}", field.name())))
            })
            .collect::<Result<Vec<_>, ArrowError>>()?;
        let rows = std::mem::take(&mut self.rows);
        RecordBatch::try_new_with_options(
            self.output.clone(),
            columns,
            &RecordBatchOptions::new().with_row_count(Some(rows)),
        )
        .map(Some)
    }

    fn can_flush_early(&self) -> bool {
        false
    }
}
