//! An Iceberg table's metadata files: a new table's first metadata (format version 2), the
//! metadata of a replacement, and the creation of `metadata/v<N>.metadata.json`, exclusively
//! (of two writers of one version the second fails and its commit is refused rather than
//! lost), then the version hint, replaced atomically.

use std::collections::HashMap;
use std::path::PathBuf;

use arrow::datatypes::{DataType, Field};
use serde_json::{Value, json};

use super::types::{iceberg_type, schema_json, take};
use super::{self as iceberg, TableMetadata, partition};
use crate::spark_error::{SparkError, SparkResult};

fn invalid(text: impl Into<String>) -> SparkError {
    SparkError::invalid_plan(text.into())
}

pub(super) fn now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}

/// Create an empty table (format version 2) at `location` (a local directory or a prefix of
/// a bucket), partitioned by Spark's partitioning items (`("days", ["ts"])`,
/// `("identity", ["cat"])`; none: unpartitioned).
pub fn create_table(
    io: &iceberg::io::Io,
    location: &str,
    fields: &[Field],
    partitioning: &[(String, Vec<String>)],
) -> SparkResult<()> {
    crate::sandbox::check(location)?;
    let dir = match iceberg::io::Io::is_object(location) {
        true => location.trim_end_matches('/').to_string(),
        false => {
            let dir = PathBuf::from(super::super::local_part(location)?);
            std::path::absolute(dir)
                .map_err(|e| invalid(e.to_string()))?
                .display()
                .to_string()
        }
    };
    let meta = new_metadata(&dir, fields, partitioning)?;
    write_metadata(io, &iceberg::io::join(&dir, "metadata"), 1, &meta)
}

/// The metadata of a new table at `dir` (format version 2, no snapshot).
pub(super) fn new_metadata(
    dir: &str,
    fields: &[Field],
    partitioning: &[(String, Vec<String>)],
) -> SparkResult<Value> {
    let (schema, last_id) = schema_json(fields)?;
    let names: Vec<String> = fields.iter().map(|f| f.name().clone()).collect();
    let ids: Vec<i64> = (1..=fields.len() as i64).collect();
    // (The types as the table stores them: a TINYINT is an Iceberg int.)
    let types: Vec<DataType> = iceberg::arrow_schema(&schema)?
        .fields()
        .iter()
        .map(|f| f.data_type().clone())
        .collect();
    let spec = partition::spec_from_spark(partitioning, &names, &ids, &types)?;
    let last_partition_id = 999 + partitioning.len() as i64;
    let meta = json!({
        "format-version": 2,
        "table-uuid": uuid::Uuid::new_v4().to_string(),
        "location": dir,
        "last-sequence-number": 0,
        "last-updated-ms": now_ms(),
        "last-column-id": last_id,
        "current-schema-id": 0,
        "schemas": [schema],
        "default-spec-id": 0,
        "partition-specs": [spec],
        "last-partition-id": last_partition_id,
        "default-sort-order-id": 0,
        "sort-orders": [{"order-id": 0, "fields": []}],
        "properties": {},
        "current-snapshot-id": -1,
        "refs": {},
        "snapshots": [],
        "snapshot-log": [],
        "metadata-log": [],
    });
    Ok(meta)
}

/// Write `metadata/v<version>.metadata.json` if no file of that version exists, then point
/// the version hint at it.
pub(super) fn write_metadata(
    io: &iceberg::io::Io,
    dir: &str,
    version: u64,
    meta: &Value,
) -> SparkResult<()> {
    let taken = io
        .list(dir)?
        .iter()
        .any(|name| iceberg::metadata_version(name) == Some(version));
    let path = iceberg::io::join(dir, &format!("v{version}.metadata.json"));
    let conflict = || {
        invalid(format!(
            "CommitFailedException: Cannot commit: version {version} of the table's metadata was written by another commit"
        ))
    };
    if taken {
        return Err(conflict());
    }
    let text = serde_json::to_vec_pretty(meta).map_err(|e| invalid(e.to_string()))?;
    if !io.create_new(&path, text)? {
        return Err(conflict());
    }
    crate::failpoint::crash_point("iceberg-commit-before-hint");
    io.write(
        &iceberg::io::join(dir, "version-hint.text"),
        version.to_string().into_bytes(),
    )
}

/// `table`'s metadata replaced (REPLACE TABLE, CREATE OR REPLACE TABLE,
/// `writeTo(...).replace()` and `createOrReplace()`), as iceberg-spark's replace transaction
/// makes it: a new current schema of `fields` (a column of the old schema's name keeps its id;
/// other ids come after `last-column-id`), `partitioning` as the new default spec (its field
/// ids after `last-partition-id`), and no current snapshot (the `main` branch removed). The
/// snapshots, with their schemas and specs, stay for time travel and history. The commit of
/// the new rows (none for a replacement without a query) makes the next metadata file.
pub fn replacement(
    table: &TableMetadata,
    fields: &[Field],
    partitioning: &[(String, Vec<String>)],
) -> SparkResult<TableMetadata> {
    let mut meta = table.json.clone();
    let long = |v: &Value, key: &str| v.get(key).and_then(Value::as_i64);
    let old_ids: HashMap<String, i64> = table
        .schema_for(None, false)?
        .get("fields")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|f| {
            Some((
                f.get("name")?.as_str()?.to_ascii_lowercase(),
                f.get("id")?.as_i64()?,
            ))
        })
        .collect();
    let mut next = long(&meta, "last-column-id").unwrap_or(0);
    let ids: Vec<i64> = fields
        .iter()
        .map(|f| match old_ids.get(&f.name().to_ascii_lowercase()) {
            Some(id) => *id,
            None => take(&mut next),
        })
        .collect();
    let mut out = vec![];
    for (f, id) in fields.iter().zip(&ids) {
        out.push(json!({
            "id": id,
            "name": f.name(),
            "required": false,
            "type": iceberg_type(f.data_type(), &mut next)?,
        }));
    }
    let max_id = |key: &str, id_key: &str| {
        meta.get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|v| long(v, id_key))
            .max()
            .unwrap_or(-1)
    };
    let schema_id = max_id("schemas", "schema-id") + 1;
    let schema = json!({
        "type": "struct",
        "schema-id": schema_id,
        "identifier-field-ids": [],
        "fields": out,
    });
    let names: Vec<String> = fields.iter().map(|f| f.name().clone()).collect();
    let types: Vec<DataType> = iceberg::arrow_schema(&schema)?
        .fields()
        .iter()
        .map(|f| f.data_type().clone())
        .collect();
    let mut spec = partition::spec_from_spark(partitioning, &names, &ids, &types)?;
    let spec_id = max_id("partition-specs", "spec-id") + 1;
    let last_partition = long(&meta, "last-partition-id").unwrap_or(999);
    let mut partition_id = last_partition;
    if let Some(Value::Array(spec_fields)) = spec.get_mut("fields") {
        for f in spec_fields {
            partition_id += 1;
            f["field-id"] = json!(partition_id);
        }
    }
    spec["spec-id"] = json!(spec_id);
    let push = |v: &mut Value, key: &str, item: Value| match v.get_mut(key) {
        Some(Value::Array(a)) => a.push(item),
        _ => v[key] = json!([item]),
    };
    push(&mut meta, "schemas", schema);
    push(&mut meta, "partition-specs", spec);
    meta["current-schema-id"] = json!(schema_id);
    meta["default-spec-id"] = json!(spec_id);
    meta["last-column-id"] = json!(next);
    meta["last-partition-id"] = json!(partition_id.max(last_partition));
    meta["current-snapshot-id"] = json!(-1);
    if let Some(Value::Object(refs)) = meta.get_mut("refs") {
        refs.remove("main");
    }
    Ok(TableMetadata {
        file: table.file.clone(),
        json: meta,
        io: table.io.clone(),
    })
}
