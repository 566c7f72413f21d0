//! Iceberg commits: append, overwrite and dynamic partition overwrite (`replace.rs`), to
//! tables partitioned by any of Iceberg's transforms (`partition.rs`); new tables and
//! replacements are made in `table.rs`, the types written in `types.rs`.
//!
//! A commit writes one parquet data file per partition tuple (columns with their Iceberg
//! field ids, under `data/<field>=<value>/...`), a manifest and a manifest list
//! ([`super::avro`]), then the new metadata JSON as `metadata/v<N+1>.metadata.json`, created
//! exclusively (`table.rs`): of two writers that read the same version, the second one's
//! create fails and its commit is refused rather than lost. A crash before the metadata file
//! leaves the table at its previous version (the files written are unreferenced).

use std::collections::HashMap;
use std::sync::Arc;

use arrow::array::{ArrayRef, RecordBatch};
use arrow::datatypes::{DataType, Field, Schema};
use arrow::row::{RowConverter, SortField};
use datafusion::common::ScalarValue;
use serde_json::{Value, json};

use super::avro::{AvroValue, MANIFEST_FILE_SCHEMA, container, manifest_entry_schema};
use super::partition::{self, SpecField};
use super::replace;
use super::table::{now_ms, write_metadata};
use super::types::{table_fields, with_ids};
use super::{self as iceberg, TableMetadata};
use crate::spark_error::{SparkError, SparkResult};

fn invalid(text: impl Into<String>) -> SparkError {
    SparkError::invalid_plan(text.into())
}

/// The manifests of the table's current snapshot, as manifest list records.
fn current_manifests(table: &TableMetadata) -> SparkResult<Vec<AvroValue>> {
    let Some(snapshot) = table.chosen_snapshot(None)? else {
        return Ok(vec![]);
    };
    let Some(list) = snapshot.get("manifest-list").and_then(Value::as_str) else {
        return Err(SparkError::unsupported(
            "Iceberg v1 snapshots without a manifest list",
        ));
    };
    crate::sandbox::check(list)?;
    let mut out = vec![];
    for batch in iceberg::read_avro(&table.io, list, MANIFEST_LIST_COPY)? {
        let rows = batch.num_rows();
        let column = |name: &str| batch.column_by_name(name);
        let text = iceberg::strings(column("manifest_path"), rows);
        let longs: Vec<Vec<Option<i64>>> = [
            "manifest_length",
            "partition_spec_id",
            "content",
            "sequence_number",
            "min_sequence_number",
            "added_snapshot_id",
            "added_files_count",
            "existing_files_count",
            "deleted_files_count",
            "added_rows_count",
            "existing_rows_count",
            "deleted_rows_count",
        ]
        .iter()
        .map(|n| iceberg::longs(column(n), rows))
        .collect();
        for row in 0..rows {
            let mut record = vec![AvroValue::String(text[row].clone().unwrap_or_default())];
            for (i, values) in longs.iter().enumerate() {
                let v = values[row].unwrap_or(0);
                // partition_spec_id, content and the file counts are ints.
                record.push(if matches!(i, 1 | 2 | 6 | 7 | 8) {
                    AvroValue::Int(i32::try_from(v).unwrap_or(0))
                } else {
                    AvroValue::Long(v)
                });
            }
            out.push(AvroValue::Record(record));
        }
    }
    Ok(out)
}

/// The manifest list fields a commit copies into the next snapshot's list.
const MANIFEST_LIST_COPY: &str = r#"{"type": "record", "name": "manifest_file", "fields": [
    {"name": "manifest_path", "type": "string"},
    {"name": "manifest_length", "type": "long"},
    {"name": "partition_spec_id", "type": "int"},
    {"name": "content", "type": "int", "default": 0},
    {"name": "sequence_number", "type": "long", "default": 0},
    {"name": "min_sequence_number", "type": "long", "default": 0},
    {"name": "added_snapshot_id", "type": "long"},
    {"name": "added_files_count", "type": "int", "default": 0},
    {"name": "existing_files_count", "type": "int", "default": 0},
    {"name": "deleted_files_count", "type": "int", "default": 0},
    {"name": "added_rows_count", "type": "long", "default": 0},
    {"name": "existing_rows_count", "type": "long", "default": 0},
    {"name": "deleted_rows_count", "type": "long", "default": 0}
]}"#;

/// How a commit treats the table's rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CommitMode {
    Append,
    /// Every row replaced.
    Overwrite,
    /// The rows of the partitions written replaced (dynamic partition overwrite; every row
    /// of an unpartitioned table).
    OverwritePartitions,
}

/// The rows of one partition of a commit: the partition tuple (Avro values of the manifest's
/// partition record), its directory under `data/`, and the rows.
struct Group {
    key: Vec<ScalarValue>,
    values: Vec<AvroValue>,
    directory: String,
    batches: Vec<RecordBatch>,
}

/// `batches` split by the partition tuples of `spec` (one group when it has no fields).
fn partition_groups(batches: &[RecordBatch], spec: &[SpecField]) -> SparkResult<Vec<Group>> {
    if spec.is_empty() {
        return Ok(vec![Group {
            key: vec![],
            values: vec![],
            directory: String::new(),
            batches: batches.to_vec(),
        }]);
    }
    // A row's partition tuple in Arrow's row format (one converter for every batch, so equal
    // tuples have equal bytes): the group is found without a value per row.
    let converter = RowConverter::new(
        spec.iter()
            .map(|f| SortField::new(f.result.clone()))
            .collect(),
    )
    .map_err(|e| invalid(e.to_string()))?;
    let mut groups: Vec<Group> = vec![];
    let mut found: HashMap<Box<[u8]>, usize> = HashMap::new();
    for batch in batches {
        let values: Vec<ArrayRef> = spec
            .iter()
            .map(|f| f.transform.apply(batch.column(f.source)))
            .collect::<SparkResult<_>>()?;
        let keys = converter
            .convert_columns(&values)
            .map_err(|e| invalid(e.to_string()))?;
        let mut rows: Vec<Vec<u32>> = vec![vec![]; groups.len()];
        for (row, bytes) in keys.iter().enumerate() {
            let at = match found.get(bytes.as_ref()) {
                Some(at) => *at,
                None => {
                    let key = values
                        .iter()
                        .map(|v| ScalarValue::try_from_array(v, row))
                        .collect::<Result<Vec<_>, _>>()
                        .map_err(|e| invalid(e.to_string()))?;
                    let mut avro = vec![];
                    let mut directory = vec![];
                    for (f, v) in spec.iter().zip(&values) {
                        let (value, text) = partition::value(v, row);
                        avro.push(value);
                        let text = partition::path_text(f.transform, v, row, text);
                        directory.push(format!("{}={text}", f.name));
                    }
                    groups.push(Group {
                        key,
                        values: avro,
                        directory: directory.join("/"),
                        batches: vec![],
                    });
                    rows.push(vec![]);
                    found.insert(Box::from(bytes.as_ref()), groups.len() - 1);
                    groups.len() - 1
                }
            };
            rows[at].push(row as u32);
        }
        for (group, rows) in groups.iter_mut().zip(rows) {
            if !rows.is_empty() {
                let indices = arrow::array::UInt32Array::from(rows);
                group.batches.push(
                    arrow::compute::take_record_batch(batch, &indices)
                        .map_err(|e| invalid(e.to_string()))?,
                );
            }
        }
    }
    Ok(groups)
}

/// Write `batches` as the parquet data file `path` with the table's field ids; its size.
fn write_data_file(
    io: &iceberg::io::Io,
    path: &str,
    batches: &[RecordBatch],
    json_fields: &[Value],
) -> SparkResult<u64> {
    let fields: Vec<Field> = batches[0]
        .schema()
        .fields()
        .iter()
        .map(|f| f.as_ref().clone())
        .collect();
    let schema = Arc::new(Schema::new(with_ids(&fields, json_fields)?));
    let mut writer = datafusion::parquet::arrow::ArrowWriter::try_new(
        Vec::new(),
        schema.clone(),
        Some(crate::formats::table_files::writer_properties()),
    )
    .map_err(|e| invalid(e.to_string()))?;
    for b in batches {
        // (Nested columns take their fields' ids by a cast.)
        let columns = b
            .columns()
            .iter()
            .zip(schema.fields())
            .map(|(c, f)| {
                if c.data_type() == f.data_type() {
                    Ok(c.clone())
                } else {
                    arrow::compute::cast(c, f.data_type())
                }
            })
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| invalid(e.to_string()))?;
        let b =
            RecordBatch::try_new(schema.clone(), columns).map_err(|e| invalid(e.to_string()))?;
        writer.write(&b).map_err(|e| invalid(e.to_string()))?;
    }
    let data = writer.into_inner().map_err(|e| invalid(e.to_string()))?;
    let size = data.len() as u64;
    io.write(path, data)?;
    Ok(size)
}

/// The spec a table's writes use (its default spec).
fn default_spec(table: &TableMetadata) -> (i64, Value) {
    let spec_id = table
        .json
        .get("default-spec-id")
        .and_then(Value::as_i64)
        .unwrap_or(0);
    let spec = table
        .partition_spec(spec_id)
        .cloned()
        .unwrap_or_else(|| json!({"spec-id": 0, "fields": []}));
    (spec_id, spec)
}

/// Commit `batches` (the table's columns, in its types) to the table at `location`: appended,
/// or replacing its rows. A partitioned table gets one data file per partition tuple.
pub fn commit(
    io: &iceberg::io::Io,
    location: &str,
    batches: &[RecordBatch],
    mode: CommitMode,
) -> SparkResult<()> {
    let table = iceberg::load(io, location)?;
    commit_to(&table, batches, mode)
}

/// Commit `batches` to the table whose current metadata is `table` (as loaded, or as a
/// replacement made of it): its next metadata file.
pub fn commit_to(
    table: &TableMetadata,
    batches: &[RecordBatch],
    mode: CommitMode,
) -> SparkResult<()> {
    let prepared = prepare(table, batches, mode)?;
    crate::failpoint::crash_point("iceberg-commit-before-metadata");
    write_metadata(
        &table.io,
        &prepared.metadata_dir,
        prepared.version,
        &prepared.next,
    )
}

/// A commit whose files are written: the new snapshot, the metadata that has it, and where
/// that metadata goes.
pub(super) struct Prepared {
    pub next: Value,
    pub snapshot: Value,
    pub parent: Option<i64>,
    metadata_dir: String,
    version: u64,
}

/// Write a commit's data files, manifest and manifest list to `table`'s directories.
pub(super) fn prepare(
    table: &TableMetadata,
    batches: &[RecordBatch],
    mode: CommitMode,
) -> SparkResult<Prepared> {
    let meta = &table.json;
    if meta.get("format-version").and_then(Value::as_i64) != Some(2) {
        return Err(SparkError::unsupported(
            "writing Iceberg format version 1 tables",
        ));
    }
    let (spec_id, spec) = default_spec(table);
    let schema_json = table.schema_for(None, false)?.clone();
    let json_fields = schema_json
        .get("fields")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let ids: Vec<i64> = json_fields
        .iter()
        .map(|f| f.get("id").and_then(Value::as_i64).unwrap_or(0))
        .collect();
    let types: Vec<DataType> = table_fields(table)?
        .iter()
        .map(|f| f.data_type().clone())
        .collect();
    let spec_fields = partition::bind(&spec, &ids, &types)?;
    let mode = match mode {
        CommitMode::OverwritePartitions if spec_fields.is_empty() => CommitMode::Overwrite,
        other => other,
    };
    let io = &table.io;
    let metadata_dir = iceberg::io::parent(&table.file).to_string();
    let root = iceberg::io::parent(&metadata_dir).to_string();
    if root.is_empty() {
        return Err(invalid("bad Iceberg metadata path"));
    }
    let data_dir = iceberg::io::join(&root, "data");
    let snapshot_id = (uuid::Uuid::new_v4().as_u128() as i64) & i64::MAX;
    let sequence = meta
        .get("last-sequence-number")
        .and_then(Value::as_i64)
        .unwrap_or(0)
        + 1;
    let commit_id = uuid::Uuid::new_v4();
    let rows: usize = batches.iter().map(RecordBatch::num_rows).sum();
    let groups = match rows {
        0 => vec![],
        _ => partition_groups(batches, &spec_fields)?,
    };
    let current = match mode {
        CommitMode::Overwrite => vec![],
        _ => current_manifests(table)?,
    };
    let (mut manifests, rewritten, replaced) = match mode {
        CommitMode::OverwritePartitions => {
            let keys = groups
                .iter()
                .map(|g| g.key.iter().map(replace::canonical).collect())
                .collect();
            let mut r = replace::replace_partitions(io, current, spec_id, &keys, snapshot_id)?;
            let manifests = std::mem::take(&mut r.manifests);
            let entries = std::mem::take(&mut r.entries);
            (manifests, entries, Some(r))
        }
        _ => (current, vec![], None),
    };
    let mut added_files = 0;
    if !groups.is_empty() || !rewritten.is_empty() {
        let mut entries = vec![];
        for (n, group) in groups.into_iter().enumerate() {
            let name = format!("00000-{n}-{commit_id}.parquet");
            let path = match group.directory.is_empty() {
                true => iceberg::io::join(&data_dir, &name),
                false => iceberg::io::join(&iceberg::io::join(&data_dir, &group.directory), &name),
            };
            let size = write_data_file(io, &path, &group.batches, &json_fields)?;
            let count: usize = group.batches.iter().map(RecordBatch::num_rows).sum();
            entries.push(AvroValue::Record(vec![
                AvroValue::Int(1),
                AvroValue::Union(1, Box::new(AvroValue::Long(snapshot_id))),
                AvroValue::Union(0, Box::new(AvroValue::Null)),
                AvroValue::Union(0, Box::new(AvroValue::Null)),
                AvroValue::Record(vec![
                    AvroValue::Int(0),
                    AvroValue::String(path.clone()),
                    AvroValue::String("PARQUET".into()),
                    AvroValue::Record(group.values),
                    AvroValue::Long(count as i64),
                    AvroValue::Long(size as i64),
                ]),
            ]));
        }
        added_files = entries.len();
        entries.extend(rewritten);
        let partition_fields: Vec<Value> = spec_fields
            .iter()
            .map(|f| {
                json!({
                    "name": f.name,
                    "type": partition::avro_type(&f.result, f.field_id),
                    "default": null,
                    "field-id": f.field_id,
                })
            })
            .collect();
        let entry_schema = manifest_entry_schema(&Value::Array(partition_fields).to_string());
        let manifest_meta = [
            ("schema", schema_json.to_string()),
            (
                "schema-id",
                schema_json
                    .get("schema-id")
                    .and_then(Value::as_i64)
                    .unwrap_or(0)
                    .to_string(),
            ),
            (
                "partition-spec",
                spec.get("fields").cloned().unwrap_or(json!([])).to_string(),
            ),
            ("partition-spec-id", spec_id.to_string()),
            ("format-version", "2".to_string()),
            ("content", "data".to_string()),
        ];
        let manifest = container(&entry_schema, &manifest_meta, &entries);
        let manifest_path = iceberg::io::join(&metadata_dir, &format!("{commit_id}-m0.avro"));
        let manifest_length = manifest.len() as i64;
        io.write(&manifest_path, manifest)?;
        let r = replaced.as_ref();
        let count = |f: fn(&replace::Replaced) -> usize| r.map_or(0, f) as i32;
        let total = |f: fn(&replace::Replaced) -> i64| r.map_or(0, f);
        let min_sequence = r
            .and_then(|r| r.min_sequence)
            .map_or(sequence, |m| m.min(sequence));
        manifests.insert(
            0,
            AvroValue::Record(vec![
                AvroValue::String(manifest_path.clone()),
                AvroValue::Long(manifest_length),
                AvroValue::Int(spec_id as i32),
                AvroValue::Int(0),
                AvroValue::Long(sequence),
                AvroValue::Long(min_sequence),
                AvroValue::Long(snapshot_id),
                AvroValue::Int(added_files as i32),
                AvroValue::Int(count(|r| r.existing_files)),
                AvroValue::Int(count(|r| r.deleted_files)),
                AvroValue::Long(rows as i64),
                AvroValue::Long(total(|r| r.existing_rows)),
                AvroValue::Long(total(|r| r.deleted_rows)),
            ]),
        );
    }
    let parent = meta
        .get("current-snapshot-id")
        .and_then(Value::as_i64)
        .filter(|id| *id >= 0);
    let list_meta = [
        ("snapshot-id", snapshot_id.to_string()),
        (
            "parent-snapshot-id",
            parent.map_or("null".to_string(), |p| p.to_string()),
        ),
        ("sequence-number", sequence.to_string()),
        ("format-version", "2".to_string()),
    ];
    let list = container(MANIFEST_FILE_SCHEMA, &list_meta, &manifests);
    let list_path = iceberg::io::join(
        &metadata_dir,
        &format!("snap-{snapshot_id}-1-{commit_id}.avro"),
    );
    io.write(&list_path, list)?;
    // The new metadata.
    let now = now_ms();
    let mut next = meta.clone();
    let mut snapshot = json!({
        "snapshot-id": snapshot_id,
        "sequence-number": sequence,
        "timestamp-ms": now,
        "manifest-list": list_path,
        "summary": {
            "operation": if mode == CommitMode::Append { "append" } else { "overwrite" },
            "added-data-files": added_files.to_string(),
            "added-records": rows.to_string(),
        },
        "schema-id": schema_json.get("schema-id").and_then(Value::as_i64).unwrap_or(0),
    });
    if let Some(p) = parent {
        snapshot["parent-snapshot-id"] = json!(p);
    }
    let push = |v: &mut Value, key: &str, item: Value| match v.get_mut(key) {
        Some(Value::Array(a)) => a.push(item),
        _ => v[key] = json!([item]),
    };
    push(&mut next, "snapshots", snapshot.clone());
    push(
        &mut next,
        "snapshot-log",
        json!({"timestamp-ms": now, "snapshot-id": snapshot_id}),
    );
    push(
        &mut next,
        "metadata-log",
        json!({
            "timestamp-ms": meta.get("last-updated-ms").cloned().unwrap_or(json!(now)),
            "metadata-file": table.file,
        }),
    );
    next["current-snapshot-id"] = json!(snapshot_id);
    next["last-sequence-number"] = json!(sequence);
    next["last-updated-ms"] = json!(now);
    next["refs"]["main"] = json!({"snapshot-id": snapshot_id, "type": "branch"});
    let version = iceberg::metadata_version(iceberg::io::file_name(&table.file)).unwrap_or(0) + 1;
    Ok(Prepared {
        next,
        snapshot,
        parent,
        metadata_dir,
        version,
    })
}
