//! Dynamic partition overwrite (`writeTo(...).overwritePartitions()`, `INSERT OVERWRITE` with
//! `spark.sql.sources.partitionOverwriteMode=dynamic`): the data files of the partitions a
//! commit writes are deleted, the others kept. Manifests of the current spec that hold a
//! replaced file are rewritten: their files become EXISTING or DELETED entries of the commit's
//! manifest, with the sequence numbers and snapshot ids they had.

use std::collections::HashSet;

use arrow::array::{Array, ArrayRef, AsArray, StructArray};
use arrow::datatypes::DataType;
use datafusion::common::ScalarValue;

use super::avro::AvroValue;
use super::partition;
use crate::spark_error::{SparkError, SparkResult};

fn invalid(text: impl Into<String>) -> SparkError {
    SparkError::invalid_plan(text.into())
}

/// A partition value as both a commit's tuples and a manifest's read values compare it (the
/// same logical value may come as other Arrow types from Avro).
pub fn canonical(v: &ScalarValue) -> Option<String> {
    if v.is_null() {
        return None;
    }
    let hex = |b: &[u8]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
    Some(match v {
        ScalarValue::Date32(Some(d)) => d.to_string(),
        ScalarValue::TimestampMicrosecond(Some(t), _) => t.to_string(),
        ScalarValue::TimestampMillisecond(Some(t), _) => (t * 1000).to_string(),
        ScalarValue::Decimal128(Some(v), _, _) => v.to_string(),
        ScalarValue::Binary(Some(b))
        | ScalarValue::LargeBinary(Some(b))
        | ScalarValue::BinaryView(Some(b))
        | ScalarValue::FixedSizeBinary(_, Some(b)) => hex(b),
        other => other.to_string(),
    })
}

/// What a dynamic overwrite keeps and rewrites of the current snapshot.
pub struct Replaced {
    /// Manifest list records kept as they are.
    pub manifests: Vec<AvroValue>,
    /// EXISTING and DELETED entries for the commit's manifest.
    pub entries: Vec<AvroValue>,
    pub existing_files: usize,
    pub existing_rows: i64,
    pub deleted_files: usize,
    pub deleted_rows: i64,
    /// The lowest data sequence number of the existing entries.
    pub min_sequence: Option<i64>,
}

fn record_field(record: &AvroValue, i: usize) -> Option<&AvroValue> {
    match record {
        AvroValue::Record(fields) => fields.get(i),
        _ => None,
    }
}

fn long_of(v: Option<&AvroValue>) -> Option<i64> {
    match v? {
        AvroValue::Int(i) => Some(i64::from(*i)),
        AvroValue::Long(l) => Some(*l),
        _ => None,
    }
}

/// Split the current `manifests` (manifest list records) for a commit of snapshot
/// `snapshot_id` that replaces the partitions `replaced` (canonical tuples) of spec `spec_id`.
pub fn replace_partitions(
    io: &super::io::Io,
    manifests: Vec<AvroValue>,
    spec_id: i64,
    replaced: &HashSet<Vec<Option<String>>>,
    snapshot_id: i64,
) -> SparkResult<Replaced> {
    let mut out = Replaced {
        manifests: vec![],
        entries: vec![],
        existing_files: 0,
        existing_rows: 0,
        deleted_files: 0,
        deleted_rows: 0,
        min_sequence: None,
    };
    for manifest in manifests {
        let path = match record_field(&manifest, 0) {
            Some(AvroValue::String(p)) => p.clone(),
            _ => return Err(invalid("a manifest list entry without its path")),
        };
        let same_spec = long_of(record_field(&manifest, 2)) == Some(spec_id);
        let data = long_of(record_field(&manifest, 3)) == Some(0);
        let sequence = long_of(record_field(&manifest, 4)).unwrap_or(0);
        if !same_spec || !data {
            out.manifests.push(manifest);
            continue;
        }
        crate::sandbox::check(&path)?;
        let entries = read_entries(io, &path, sequence)?;
        if !entries.iter().any(|e| e.live && replaced.contains(&e.key)) {
            out.manifests.push(manifest);
            continue;
        }
        for e in entries.into_iter().filter(|e| e.live) {
            let deleted = replaced.contains(&e.key);
            if deleted {
                out.deleted_files += 1;
                out.deleted_rows += e.records;
            } else {
                out.existing_files += 1;
                out.existing_rows += e.records;
                out.min_sequence = Some(out.min_sequence.map_or(e.sequence, |m| m.min(e.sequence)));
            }
            let some_long = |v: i64| AvroValue::Union(1, Box::new(AvroValue::Long(v)));
            out.entries.push(AvroValue::Record(vec![
                AvroValue::Int(if deleted { 2 } else { 0 }),
                some_long(if deleted { snapshot_id } else { e.snapshot_id }),
                some_long(e.sequence),
                some_long(e.file_sequence),
                e.data_file,
            ]));
        }
    }
    Ok(out)
}

/// One entry of a manifest as a rewrite needs it.
struct Entry {
    live: bool,
    key: Vec<Option<String>>,
    snapshot_id: i64,
    sequence: i64,
    file_sequence: i64,
    records: i64,
    /// The `data_file` record (content, path, format, partition, records, size).
    data_file: AvroValue,
}

/// The entries of a data manifest whose sequence number (in its list) is `inherited`.
fn read_entries(io: &super::io::Io, path: &str, inherited: i64) -> SparkResult<Vec<Entry>> {
    let mut out = vec![];
    for batch in super::read_avro(io, path, "")? {
        let rows = batch.num_rows();
        let column = |name: &str| batch.column_by_name(name);
        let status = super::longs(column("status"), rows);
        let snapshots = super::longs(column("snapshot_id"), rows);
        let sequences = super::longs(column("sequence_number"), rows);
        let file_sequences = super::longs(column("file_sequence_number"), rows);
        let Some(data_file) = column("data_file").and_then(|c| c.as_struct_opt()) else {
            return Err(invalid(format!(
                "bad Iceberg manifest {path}: no data_file"
            )));
        };
        let field = |name: &str| data_file.column_by_name(name);
        let content = super::longs(field("content"), rows);
        let paths = super::strings(field("file_path"), rows);
        let formats = super::strings(field("file_format"), rows);
        let records = super::longs(field("record_count"), rows);
        let sizes = super::longs(field("file_size_in_bytes"), rows);
        let partition: Option<&StructArray> = field("partition").and_then(|c| c.as_struct_opt());
        let columns: Vec<ArrayRef> = partition.map(|p| p.columns().to_vec()).unwrap_or_default();
        for c in &columns {
            if !matches!(
                c.data_type(),
                DataType::Boolean
                    | DataType::Int32
                    | DataType::Int64
                    | DataType::Float32
                    | DataType::Float64
                    | DataType::Date32
                    | DataType::Timestamp(arrow::datatypes::TimeUnit::Microsecond, _)
                    | DataType::Utf8
                    | DataType::Binary
                    | DataType::Decimal128(..)
            ) {
                return Err(SparkError::unsupported(format!(
                    "overwriting partitions of Iceberg tables with {} partition values",
                    c.data_type()
                )));
            }
        }
        for row in 0..rows {
            let key = columns
                .iter()
                .map(|c| {
                    ScalarValue::try_from_array(c, row)
                        .map(|v| canonical(&v))
                        .map_err(|e| invalid(e.to_string()))
                })
                .collect::<SparkResult<Vec<_>>>()?;
            let values: Vec<AvroValue> =
                columns.iter().map(|c| partition::value(c, row).0).collect();
            let sequence = sequences[row].unwrap_or(inherited);
            out.push(Entry {
                live: status[row] != Some(2) && content[row].unwrap_or(0) == 0,
                key,
                snapshot_id: snapshots[row].unwrap_or(0),
                sequence,
                file_sequence: file_sequences[row].unwrap_or(sequence),
                records: records[row].unwrap_or(0),
                data_file: AvroValue::Record(vec![
                    AvroValue::Int(0),
                    AvroValue::String(paths[row].clone().unwrap_or_default()),
                    AvroValue::String(formats[row].clone().unwrap_or_else(|| "PARQUET".into())),
                    AvroValue::Record(values),
                    AvroValue::Long(records[row].unwrap_or(0)),
                    AvroValue::Long(sizes[row].unwrap_or(0)),
                ]),
            });
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_values_agree_across_types() {
        assert_eq!(canonical(&ScalarValue::Date32(Some(3))), Some("3".into()));
        assert_eq!(
            canonical(&ScalarValue::TimestampMicrosecond(
                Some(5),
                Some("UTC".into())
            )),
            canonical(&ScalarValue::TimestampMicrosecond(Some(5), None))
        );
        assert_eq!(
            canonical(&ScalarValue::Utf8(Some("a".into()))),
            Some("a".into())
        );
        assert_eq!(canonical(&ScalarValue::Int32(None)), None);
        let fixed = ScalarValue::FixedSizeBinary(2, Some(vec![1, 2]));
        assert_eq!(
            canonical(&fixed),
            canonical(&ScalarValue::Binary(Some(vec![1, 2])))
        );
    }
}
