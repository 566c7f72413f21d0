//! Merge-on-read deletes of a snapshot: which rows of which data files its delete files
//! remove, as the Iceberg spec scopes them.
//! - A position delete file (`file_path`, `pos`) removes rows of the data files it names whose
//!   data sequence number is at most its own.
//! - An equality delete file removes the rows whose `equality_ids` columns equal one of its
//!   rows (NULL equal to NULL) in data files with a lower data sequence number, of its
//!   partition (same spec and partition tuple), or of every partition when its spec is
//!   unpartitioned.
//!
//! The deletes are read here, when the scan is planned, and travel in the plan
//! ([`DeletedRowsScanExec`](crate::formats::deleted_rows::DeletedRowsScanExec)).

use std::collections::HashMap;

use arrow::array::{Array, AsArray};
use arrow::datatypes::{DataType, Field, Schema};
use datafusion::common::ScalarValue;
use serde_json::Value;

use super::{DataFile, TableMetadata};
use crate::formats::deleted_rows::{Chunks, EqualityDeletes, FileDeletes, read_columns};
use crate::spark_error::{SparkError, SparkResult};

fn invalid(text: impl Into<String>) -> SparkError {
    SparkError::invalid_plan(text.into())
}

/// Iceberg's reserved field ids of a position delete file's columns.
const FILE_PATH_ID: i64 = 2_147_483_546;
const POS_ID: i64 = 2_147_483_545;

/// A data or delete file's path as the scan reads it (checked against `--allowed-paths`): a
/// local path's text (`file:` prefixes gone), or the object's URL as written.
fn file_path(path: &str) -> SparkResult<String> {
    crate::sandbox::check(path)?;
    if super::io::Io::is_object(path) {
        return Ok(path.to_string());
    }
    Ok(super::local_path(path)?.display().to_string())
}

/// A file's path as the scan reads it, to compare paths.
fn normal(path: &str) -> String {
    file_path(path).unwrap_or_else(|_| path.to_string())
}

/// A delete file's bytes (read whole when the plan is made: delete files are small).
fn delete_file(table: &TableMetadata, path: &str) -> SparkResult<Chunks> {
    let path = file_path(path)?;
    Ok(Chunks::Bytes(table.io.read(&path)?))
}

/// The deletes of each data file (by path) of a snapshot whose files are `files`. `columns`:
/// the name and Arrow type of each top-level field id of the table.
pub fn plan(
    table: &TableMetadata,
    files: &[DataFile],
    columns: &HashMap<i64, Field>,
) -> SparkResult<HashMap<String, FileDeletes>> {
    let (deletes, data): (Vec<&DataFile>, Vec<&DataFile>) =
        files.iter().partition(|f| f.content != 0);
    let mut out: HashMap<String, FileDeletes> = HashMap::new();
    if deletes.is_empty() {
        return Ok(out);
    }
    for d in &deletes {
        if !d.format.eq_ignore_ascii_case("parquet") {
            return Err(SparkError::unsupported(format!(
                "Iceberg {} delete files",
                d.format
            )));
        }
    }
    // Position deletes: (data file, position, delete sequence number).
    let mut positions: HashMap<String, Vec<(i64, i64)>> = HashMap::new();
    for d in deletes.iter().filter(|d| d.content == 1) {
        let schema = Schema::new(vec![
            Field::new("file_path", DataType::Utf8, true),
            Field::new("pos", DataType::Int64, true),
        ]);
        for batch in read_columns(
            delete_file(table, &d.path)?,
            &schema,
            &[FILE_PATH_ID, POS_ID],
        )? {
            let batch = batch?;
            let paths = batch.column(0).as_string::<i32>();
            let pos = batch
                .column(1)
                .as_primitive::<arrow::datatypes::Int64Type>();
            for i in 0..batch.num_rows() {
                if paths.is_valid(i) && pos.is_valid(i) {
                    positions
                        .entry(normal(paths.value(i)))
                        .or_default()
                        .push((pos.value(i), d.sequence));
                }
            }
        }
    }
    // Equality deletes: their rows, spec and partition tuple.
    let equality: Vec<&DataFile> = deletes.iter().copied().filter(|d| d.content == 2).collect();
    let mut equality_rows = vec![];
    for d in &equality {
        if d.equality_ids.is_empty() {
            return Err(invalid(format!(
                "an Iceberg equality delete file without equality ids: {}",
                d.path
            )));
        }
        let mut fields = vec![];
        for id in &d.equality_ids {
            let field = columns.get(id).ok_or_else(|| {
                SparkError::unsupported(format!(
                    "Iceberg equality deletes of nested or dropped fields (field id {id})"
                ))
            })?;
            fields.push(field.clone().with_nullable(true));
        }
        let schema = std::sync::Arc::new(Schema::new(fields));
        let batches = read_columns(delete_file(table, &d.path)?, &schema, &d.equality_ids)?
            .collect::<datafusion::common::Result<Vec<_>>>()?;
        let rows = arrow::compute::concat_batches(&schema, &batches)?;
        equality_rows.push(EqualityDeletes {
            field_ids: d.equality_ids.clone(),
            rows,
        });
    }
    let partitioned = |spec_id: i64| spec_fields(table, spec_id) > 0;
    let mut keys = PartitionKeys::default();
    for f in &data {
        // (Checked against `--allowed-paths` as every file a scan reads.)
        let path = file_path(&f.path)?;
        let mut deleted: Vec<i64> = positions
            .get(&path)
            .map(|p| {
                p.iter()
                    .filter(|(_, seq)| *seq >= f.sequence)
                    .map(|(pos, _)| *pos)
                    .collect()
            })
            .unwrap_or_default();
        deleted.sort_unstable();
        deleted.dedup();
        let mut applied = vec![];
        for (d, rows) in equality.iter().zip(&equality_rows) {
            if d.sequence <= f.sequence {
                continue;
            }
            let applies = if !partitioned(d.spec_id) {
                true
            } else {
                d.spec_id == f.spec_id && keys.of(&table.io, d)? == keys.of(&table.io, f)?
            };
            if applies {
                applied.push(rows.clone());
            }
        }
        if !deleted.is_empty() || !applied.is_empty() {
            out.insert(
                f.path.clone(),
                FileDeletes {
                    path,
                    positions: deleted,
                    equality: applied,
                    constants: None,
                },
            );
        }
    }
    Ok(out)
}

/// The number of fields of the table's partition spec `spec_id`.
fn spec_fields(table: &TableMetadata, spec_id: i64) -> usize {
    table
        .partition_spec(spec_id)
        .and_then(|s| s.get("fields"))
        .and_then(Value::as_array)
        .map_or(0, Vec::len)
}

/// The partition tuples of manifests' entries, read once per manifest (with the manifest's
/// own schema, whose partition record has the spec's fields).
#[derive(Default)]
struct PartitionKeys {
    manifests: HashMap<String, Vec<Vec<Option<String>>>>,
}

impl PartitionKeys {
    fn of(&mut self, io: &super::io::Io, f: &DataFile) -> SparkResult<Vec<Option<String>>> {
        if !self.manifests.contains_key(&f.manifest) {
            let mut keys = vec![];
            for batch in super::read_avro(io, &f.manifest, "")? {
                let partition = batch
                    .column_by_name("data_file")
                    .and_then(|c| c.as_struct_opt())
                    .and_then(|d| d.column_by_name("partition"))
                    .and_then(|p| p.as_struct_opt())
                    .ok_or_else(|| {
                        invalid(format!("bad Iceberg manifest {}: no partition", f.manifest))
                    })?;
                for row in 0..batch.num_rows() {
                    keys.push(
                        partition
                            .columns()
                            .iter()
                            .map(|c| {
                                ScalarValue::try_from_array(c, row)
                                    .map(|v| super::replace::canonical(&v))
                                    .map_err(|e| invalid(e.to_string()))
                            })
                            .collect::<SparkResult<Vec<_>>>()?,
                    );
                }
            }
            self.manifests.insert(f.manifest.clone(), keys);
        }
        Ok(self.manifests[&f.manifest]
            .get(f.entry)
            .cloned()
            .unwrap_or_default())
    }
}
