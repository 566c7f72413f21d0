//! Result batches -> Spark Connect `ArrowBatch` payloads: columns renamed to the names Spark
//! shows, types normalised to what Spark sends (Utf8 rather than Utf8View, ...), each batch its
//! own Arrow IPC stream, split so no message exceeds the size limit.

use std::sync::Arc;

use arrow::array::{ArrayRef, RecordBatch, RecordBatchOptions};
use arrow::compute::cast;
use arrow::datatypes::{DataType, Field, Fields, Schema, SchemaRef};
use arrow::ipc::writer::StreamWriter;

use crate::error::ServerResult;

/// Arrow IPC payloads larger than this are split into several batches.
pub const MAX_BATCH_BYTES: usize = 4 * 1024 * 1024;

/// Renames and normalises batches of one result.
pub struct ResultEncoder {
    schema: SchemaRef,
}

impl ResultEncoder {
    pub fn new(input: &Schema, names: &[String]) -> Self {
        Self::with_var_types(input, names, false)
    }

    /// With `large_var_types` (`spark.sql.execution.arrow.useLargeVarTypes`), strings and
    /// binaries go out as Arrow's large types, at every depth, as Spark sends them.
    pub fn with_var_types(input: &Schema, names: &[String], large_var_types: bool) -> Self {
        let fields: Vec<Field> = input
            .fields()
            .iter()
            .zip(names.iter().chain(std::iter::repeat(&String::new())))
            .map(|(f, name)| {
                let name = if name.is_empty() {
                    f.name().clone()
                } else {
                    name.clone()
                };
                let dt = client_type(f.data_type());
                let dt = if large_var_types { large_type(&dt) } else { dt };
                Field::new(name, dt, f.is_nullable())
            })
            .collect();
        Self {
            schema: Arc::new(Schema::new(fields)),
        }
    }

    pub fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    /// The batch with client names and types.
    pub fn convert(&self, batch: &RecordBatch) -> ServerResult<RecordBatch> {
        let columns = batch
            .columns()
            .iter()
            .zip(self.schema.fields())
            .map(|(c, f)| {
                if c.data_type() == f.data_type() {
                    Ok(c.clone())
                } else {
                    cast(c, f.data_type())
                        .map_err(|e| datafusion::error::DataFusionError::from(e).into())
                }
            })
            .collect::<ServerResult<Vec<ArrayRef>>>()?;
        let options = RecordBatchOptions::new().with_row_count(Some(batch.num_rows()));
        Ok(
            RecordBatch::try_new_with_options(self.schema.clone(), columns, &options)
                .map_err(datafusion::error::DataFusionError::from)?,
        )
    }

    /// Encode a (converted) batch as one or more IPC payloads with their row counts.
    pub fn encode(&self, batch: &RecordBatch) -> ServerResult<Vec<(i64, Vec<u8>)>> {
        let size = batch.get_array_memory_size();
        let rows = batch.num_rows();
        let pieces = if size > MAX_BATCH_BYTES && rows > 1 {
            size.div_ceil(MAX_BATCH_BYTES).min(rows)
        } else {
            1
        };
        let mut out = Vec::with_capacity(pieces);
        let per = rows.div_ceil(pieces.max(1)).max(1);
        let mut offset = 0;
        loop {
            let len = per.min(rows - offset);
            let slice = batch.slice(offset, len);
            out.push((len as i64, ipc_bytes(&self.schema, &slice)?));
            offset += len;
            if offset >= rows {
                break;
            }
        }
        Ok(out)
    }
}

fn ipc_bytes(schema: &SchemaRef, batch: &RecordBatch) -> ServerResult<Vec<u8>> {
    let mut buf = Vec::new();
    {
        let mut w = StreamWriter::try_new(&mut buf, schema)
            .map_err(datafusion::error::DataFusionError::from)?;
        w.write(batch)
            .map_err(datafusion::error::DataFusionError::from)?;
        w.finish()
            .map_err(datafusion::error::DataFusionError::from)?;
    }
    Ok(buf)
}

/// The Arrow type Spark would send for a value of this type.
fn client_field(f: &Field) -> Field {
    f.clone().with_data_type(client_type(f.data_type()))
}

/// A client type with strings and binaries as Arrow's large types, at every depth.
fn large_type(dt: &DataType) -> DataType {
    let field = |f: &Field| f.clone().with_data_type(large_type(f.data_type()));
    match dt {
        DataType::Utf8 => DataType::LargeUtf8,
        DataType::Binary => DataType::LargeBinary,
        DataType::List(f) => DataType::List(Arc::new(field(f))),
        DataType::Struct(fields) => DataType::Struct(fields.iter().map(|f| field(f)).collect()),
        DataType::Map(entries, sorted) => DataType::Map(Arc::new(field(entries)), *sorted),
        other => other.clone(),
    }
}

pub fn client_type(dt: &DataType) -> DataType {
    match dt {
        DataType::Utf8View | DataType::LargeUtf8 => DataType::Utf8,
        DataType::BinaryView | DataType::LargeBinary => DataType::Binary,
        DataType::Dictionary(_, v) => client_type(v),
        DataType::Date64 => DataType::Date32,
        DataType::UInt8 => DataType::Int16,
        DataType::UInt16 => DataType::Int32,
        DataType::UInt32 => DataType::Int64,
        DataType::UInt64 => DataType::Decimal128(20, 0),
        DataType::Float16 => DataType::Float32,
        DataType::List(f)
        | DataType::LargeList(f)
        | DataType::ListView(f)
        | DataType::LargeListView(f) => DataType::List(Arc::new(client_field(f))),
        // (Field metadata is kept: it marks a struct as a VARIANT.)
        DataType::Struct(fields) => {
            DataType::Struct(fields.iter().map(|f| client_field(f)).collect::<Fields>())
        }
        DataType::Map(entries, sorted) => DataType::Map(Arc::new(client_field(entries)), *sorted),
        // (Nanoseconds are Spark 4.3's TIMESTAMP_LTZ(9)/TIMESTAMP_NTZ(9), sent as they are.)
        DataType::Timestamp(unit, tz)
            if !matches!(
                unit,
                arrow::datatypes::TimeUnit::Microsecond | arrow::datatypes::TimeUnit::Nanosecond
            ) =>
        {
            DataType::Timestamp(arrow::datatypes::TimeUnit::Microsecond, tz.clone())
        }
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::{Int64Array, StringViewArray};

    #[test]
    fn renames_normalises_and_splits() {
        let schema = Schema::new(vec![
            Field::new("#1", DataType::Int64, false),
            Field::new("#2", DataType::Utf8View, true),
        ]);
        let n = 300_000;
        let batch = RecordBatch::try_new(
            Arc::new(schema.clone()),
            vec![
                Arc::new(Int64Array::from_iter_values(0..n)),
                Arc::new(StringViewArray::from_iter_values(
                    (0..n).map(|i| format!("value number {i}")),
                )),
            ],
        )
        .unwrap();
        let enc = ResultEncoder::new(&schema, &["id".into(), "id".into()]);
        let converted = enc.convert(&batch).unwrap();
        assert_eq!(converted.schema().field(1).data_type(), &DataType::Utf8);
        assert_eq!(converted.schema().field(0).name(), "id");
        let parts = enc.encode(&converted).unwrap();
        assert!(parts.len() > 1);
        assert_eq!(parts.iter().map(|(r, _)| *r).sum::<i64>(), n);
        assert!(parts.iter().all(|(_, b)| b.len() < 2 * MAX_BATCH_BYTES));
    }
}
