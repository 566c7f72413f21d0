//! Apache Iceberg tables (`format("iceberg")`, catalog tables `USING iceberg`, and the tables
//! of a `spark.sql.catalog.<name>` Hadoop catalog), read and written by Ember's own code: the
//! table format, whole (metadata here, the scan in `scan.rs`, commits in `write.rs` with the
//! Avro container writer of `avro.rs`, metadata tables in `meta.rs`). The planner finds
//! catalog tables and plans a read (`planner/src/datasource/iceberg.rs`).
//!
//! A table is its metadata JSON (`metadata/vN.metadata.json` or `NNNNN-<uuid>.metadata.json`,
//! the newest by version, or the one `version-hint.text` names): its schemas, partition specs
//! and snapshots. A snapshot's manifest list and manifests are Avro files (read with
//! `arrow-avro`); their live entries (status not DELETED) are the snapshot's data files,
//! scanned by DataFusion's parquet scan ([`IcebergFiles`]). Columns are matched by Iceberg
//! field id (the parquet `field_id` of each file), so renamed, added and dropped columns read
//! as Iceberg defines them. Data files hold every column, partition source columns included,
//! so partition transforms need no evaluation to read. Merge-on-read deletes (position and
//! equality delete files, `deletes.rs`) are applied by their own scan of the files they touch
//! (`formats/deleted_rows.rs`). Files are local or in S3-compatible buckets (`io.rs`).

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, RecordBatch, StructArray};
use arrow::datatypes::{DataType, Field, Int64Type, Schema, TimeUnit};
use datafusion::catalog::TableProvider;
use serde_json::Value;

mod avro;
mod deletes;
pub mod io;
mod meta;
pub mod partition;
mod replace;
pub mod rest;
mod scan;
pub mod table;
mod target;
pub mod types;
pub mod write;

use super::{Options, local_part, option};
use crate::sandbox;
use crate::spark_error::{SparkError, SparkResult};
pub use meta::METADATA_TABLES;
pub use rest::{RestCatalog, RestTable};
use scan::{FileGroupMapping, IcebergFiles};
pub use target::Target;

/// The parquet field metadata key of a column's Iceberg field id.
const FIELD_ID: &str = "PARQUET:field_id";

/// A table's metadata JSON, where it is, and the stores its files are read from.
pub struct TableMetadata {
    /// The metadata file's location (a local path, or `s3a://bucket/...`).
    pub file: String,
    pub json: Value,
    pub io: io::Io,
}

fn invalid(text: impl Into<String>) -> SparkError {
    SparkError::invalid_plan(text.into())
}

/// A local path of the table (`file:` URIs as paths).
fn local_path(path: &str) -> SparkResult<PathBuf> {
    let local = local_part(path)?;
    std::path::absolute(local).map_err(|e| invalid(e.to_string()))
}

/// The version a metadata file's name gives (`v3.metadata.json`, `00003-<uuid>.metadata.json`).
pub fn metadata_version(name: &str) -> Option<u64> {
    let stem = name.strip_suffix(".metadata.json")?;
    let stem = stem.strip_prefix('v').unwrap_or(stem);
    let digits: String = stem.chars().take_while(|c| c.is_ascii_digit()).collect();
    digits.parse().ok()
}

/// Whether an Iceberg table (a `metadata/` directory with metadata files) is at `path`.
pub fn is_iceberg_table(io: &io::Io, path: &str) -> bool {
    newest_metadata(io, path).is_some()
}

/// The newest metadata file of the table at `dir`: the highest version, or the one
/// `version-hint.text` names when it is at least as high (a Hadoop table's hint names its
/// current version; a newer file is a commit whose hint update did not happen yet).
fn newest_metadata(io: &io::Io, dir: &str) -> Option<String> {
    let meta = io::join(dir, "metadata");
    let names = io.list(&meta).ok()?;
    let newest = names
        .iter()
        .filter_map(|name| metadata_version(name).map(|v| (v, io::join(&meta, name))))
        .max_by_key(|(v, _)| *v);
    if names.iter().any(|n| n == "version-hint.text")
        && let Ok(hint) = io.read(&io::join(&meta, "version-hint.text"))
        && let Ok(v) = String::from_utf8_lossy(&hint).trim().parse::<u64>()
        && newest.as_ref().is_none_or(|(n, _)| *n <= v)
    {
        let name = format!("v{v}.metadata.json");
        if names.contains(&name) {
            return Some(io::join(&meta, &name));
        }
    }
    newest.map(|(_, p)| p)
}

/// The table at `path` (its location, or one of its metadata JSON files).
pub fn load(io: &io::Io, path: &str) -> SparkResult<TableMetadata> {
    sandbox::check(path)?;
    let file = if io::Io::is_object(path) {
        if path.ends_with(".metadata.json") && io.is_file(path) {
            path.to_string()
        } else {
            newest_metadata(io, path.trim_end_matches('/'))
                .ok_or_else(|| invalid(format!("Table does not exist at location: {path}")))?
        }
    } else {
        // Local paths absolute, so the files a commit adds are named absolutely.
        let local = local_path(path)?;
        if local.is_file() {
            local.display().to_string()
        } else {
            newest_metadata(io, &local.display().to_string())
                .ok_or_else(|| invalid(format!("Table does not exist at location: {path}")))?
        }
    };
    let text = io.read(&file)?;
    let json: Value = serde_json::from_slice(&text)
        .map_err(|e| invalid(format!("bad Iceberg metadata {file}: {e}")))?;
    if json
        .get("format-version")
        .and_then(Value::as_i64)
        .unwrap_or(1)
        > 2
    {
        return Err(SparkError::unsupported("Iceberg format version 3 tables"));
    }
    Ok(TableMetadata {
        file,
        json,
        io: io.clone(),
    })
}

/// What snapshot a read asks for.
#[derive(Debug, Clone, PartialEq)]
pub enum At {
    Snapshot(i64),
    /// A branch or tag name.
    Ref(String),
    /// Milliseconds since the epoch.
    Timestamp(i64),
}

/// The snapshot a read's options ask for (`snapshot-id`, `as-of-timestamp` in milliseconds,
/// `branch`, `tag`, and SQL's `VERSION AS OF` / `TIMESTAMP AS OF` as `versionAsOf` /
/// `timestampAsOf`).
pub fn time_travel(options: &Options, time_zone: &str) -> SparkResult<Option<At>> {
    let number = |key: &str| -> SparkResult<Option<i64>> {
        option(options, key)
            .map(|v| {
                v.trim()
                    .parse()
                    .map_err(|_| invalid(format!("Invalid {key}: {v}")))
            })
            .transpose()
    };
    let mut asked = vec![];
    if let Some(id) = number("snapshot-id")? {
        asked.push(At::Snapshot(id));
    }
    if let Some(v) = option(options, "versionAsOf") {
        asked.push(match v.trim().parse() {
            Ok(id) => At::Snapshot(id),
            Err(_) => At::Ref(v.to_string()),
        });
    }
    for key in ["branch", "tag"] {
        if let Some(v) = option(options, key) {
            asked.push(At::Ref(v.to_string()));
        }
    }
    if let Some(ms) = number("as-of-timestamp")? {
        asked.push(At::Timestamp(ms));
    }
    if let Some(v) = option(options, "timestampAsOf") {
        let t = super::delta::parse_timestamp(v, time_zone)?;
        asked.push(At::Timestamp(t.timestamp_millis()));
    }
    match asked.len() {
        0 => Ok(None),
        1 => Ok(asked.pop()),
        _ => Err(invalid(
            "Cannot specify more than one of snapshot-id, as-of-timestamp, branch and tag",
        )),
    }
}

impl TableMetadata {
    fn snapshots(&self) -> &[Value] {
        self.json
            .get("snapshots")
            .and_then(Value::as_array)
            .map_or(&[], |v| v.as_slice())
    }

    fn snapshot(&self, id: i64) -> Option<&Value> {
        self.snapshots()
            .iter()
            .find(|s| s.get("snapshot-id").and_then(Value::as_i64) == Some(id))
    }

    /// The snapshot read (None: the table has none yet).
    pub fn chosen_snapshot(&self, at: Option<&At>) -> SparkResult<Option<&Value>> {
        let id = match at {
            None => match self.json.get("current-snapshot-id").and_then(Value::as_i64) {
                Some(id) if id >= 0 => id,
                _ => return Ok(None),
            },
            Some(At::Snapshot(id)) => *id,
            Some(At::Ref(name)) => self
                .json
                .get("refs")
                .and_then(|r| r.get(name))
                .and_then(|r| r.get("snapshot-id"))
                .and_then(Value::as_i64)
                .ok_or_else(|| {
                    invalid(format!("Cannot find matching snapshot ID for ref {name}"))
                })?,
            Some(At::Timestamp(ms)) => {
                // The newest snapshot of the table's history at or before the time.
                let entry = |e: &Value| {
                    Some((
                        e.get("timestamp-ms")?.as_i64()?,
                        e.get("snapshot-id")?.as_i64()?,
                    ))
                };
                let log: Vec<(i64, i64)> = match self.json.get("snapshot-log") {
                    Some(Value::Array(log)) => log.iter().filter_map(entry).collect(),
                    _ => self.snapshots().iter().filter_map(entry).collect(),
                };
                let found = log
                    .iter()
                    .filter(|(t, _)| t <= ms)
                    .max_by_key(|(t, _)| *t)
                    .map(|(_, id)| *id);
                found.ok_or_else(|| {
                    let shown = chrono::DateTime::from_timestamp_millis(*ms)
                        .map_or(ms.to_string(), |t| t.to_rfc3339());
                    invalid(format!("Cannot find a snapshot older than {shown}"))
                })?
            }
        };
        self.snapshot(id)
            .map(Some)
            .ok_or_else(|| invalid(format!("Cannot find snapshot with ID {id}")))
    }

    /// The partition spec `spec_id` (None: the metadata has none of that id).
    pub(super) fn partition_spec(&self, spec_id: i64) -> Option<&Value> {
        self.json
            .get("partition-specs")
            .and_then(Value::as_array)?
            .iter()
            .find(|s| s.get("spec-id").and_then(Value::as_i64) == Some(spec_id))
    }

    fn schemas(&self) -> Vec<&Value> {
        match self.json.get("schemas").and_then(Value::as_array) {
            Some(s) => s.iter().collect(),
            None => self.json.get("schema").into_iter().collect(),
        }
    }

    /// The schema a read of `snapshot` sees: the snapshot's own under time travel, else the
    /// table's current one.
    pub fn schema_for(&self, snapshot: Option<&Value>, travel: bool) -> SparkResult<&Value> {
        let wanted = if travel {
            snapshot
                .and_then(|s| s.get("schema-id"))
                .and_then(Value::as_i64)
        } else {
            None
        }
        .or_else(|| self.json.get("current-schema-id").and_then(Value::as_i64));
        let schemas = self.schemas();
        let found = match wanted {
            Some(id) => schemas
                .iter()
                .find(|s| s.get("schema-id").and_then(Value::as_i64).unwrap_or(0) == id),
            None => schemas.first(),
        };
        found
            .copied()
            .ok_or_else(|| invalid("Iceberg metadata without its schema"))
    }

    /// Whether every field id kept one name and every name one field id in all the table's
    /// schemas (then the data files' column names are the table's).
    fn names_stable(&self) -> bool {
        let mut by_id: HashMap<i64, String> = HashMap::new();
        let mut by_name: HashMap<String, i64> = HashMap::new();
        for schema in self.schemas() {
            for (id, name) in top_level(schema) {
                if by_id.insert(id, name.clone()).is_some_and(|n| n != name)
                    || by_name.insert(name, id).is_some_and(|i| i != id)
                {
                    return false;
                }
            }
        }
        true
    }
}

/// The (field id, name) of a struct schema's fields.
fn top_level(schema: &Value) -> Vec<(i64, String)> {
    schema
        .get("fields")
        .and_then(Value::as_array)
        .map(|fields| {
            fields
                .iter()
                .filter_map(|f| {
                    Some((f.get("id")?.as_i64()?, f.get("name")?.as_str()?.to_string()))
                })
                .collect()
        })
        .unwrap_or_default()
}

/// An Iceberg schema (a struct) as Arrow fields in Spark's types.
pub fn arrow_schema(schema: &Value) -> SparkResult<Schema> {
    Ok(Schema::new(struct_fields(schema)?))
}

fn struct_fields(schema: &Value) -> SparkResult<Vec<Field>> {
    let fields = schema
        .get("fields")
        .and_then(Value::as_array)
        .ok_or_else(|| invalid("Iceberg struct without fields"))?;
    fields
        .iter()
        .map(|f| {
            let name = f
                .get("name")
                .and_then(Value::as_str)
                .ok_or_else(|| invalid("Iceberg field without a name"))?;
            let required = f.get("required").and_then(Value::as_bool).unwrap_or(false);
            let t = f
                .get("type")
                .ok_or_else(|| invalid("Iceberg field without a type"))?;
            Ok(Field::new(name, arrow_type(t)?, !required))
        })
        .collect()
}

/// An Iceberg type as the Arrow type of Spark's type for it.
fn arrow_type(t: &Value) -> SparkResult<DataType> {
    if let Some(name) = t.as_str() {
        let name = name.trim();
        return Ok(match name {
            "boolean" => DataType::Boolean,
            "int" => DataType::Int32,
            "long" => DataType::Int64,
            "float" => DataType::Float32,
            "double" => DataType::Float64,
            "date" => DataType::Date32,
            "timestamp" => DataType::Timestamp(TimeUnit::Microsecond, None),
            "timestamptz" => DataType::Timestamp(TimeUnit::Microsecond, Some(Arc::from("UTC"))),
            "string" => DataType::Utf8,
            "binary" => DataType::Binary,
            _ if name.starts_with("fixed[") => DataType::Binary,
            _ if name.starts_with("decimal(") => {
                let inner = name
                    .trim_start_matches("decimal(")
                    .trim_end_matches(')')
                    .split(',')
                    .map(|p| p.trim().parse::<i64>())
                    .collect::<Result<Vec<_>, _>>();
                match inner.as_deref() {
                    Ok([p, s]) => DataType::Decimal128(
                        u8::try_from(*p).map_err(|_| invalid(name))?,
                        i8::try_from(*s).map_err(|_| invalid(name))?,
                    ),
                    _ => return Err(invalid(format!("bad Iceberg type {name}"))),
                }
            }
            other => {
                return Err(SparkError::unsupported(format!("Iceberg type {other}")));
            }
        });
    }
    match t.get("type").and_then(Value::as_str) {
        Some("struct") => Ok(DataType::Struct(struct_fields(t)?.into())),
        Some("list") => {
            let element = arrow_type(t.get("element").unwrap_or(&Value::Null))?;
            let required = t
                .get("element-required")
                .and_then(Value::as_bool)
                .unwrap_or(false);
            Ok(DataType::List(Arc::new(Field::new_list_field(
                element, !required,
            ))))
        }
        Some("map") => {
            let key = arrow_type(t.get("key").unwrap_or(&Value::Null))?;
            let value = arrow_type(t.get("value").unwrap_or(&Value::Null))?;
            let required = t
                .get("value-required")
                .and_then(Value::as_bool)
                .unwrap_or(false);
            let entries = Field::new(
                "entries",
                DataType::Struct(
                    vec![
                        Field::new("key", key, false),
                        Field::new("value", value, !required),
                    ]
                    .into(),
                ),
                false,
            );
            Ok(DataType::Map(Arc::new(entries), false))
        }
        _ => Err(invalid(format!("bad Iceberg type {t}"))),
    }
}

/// The fields of a manifest list read (Avro schema resolution: by name, defaults where v1
/// files lack a field).
const MANIFEST_LIST_READ: &str = r#"{"type": "record", "name": "manifest_file", "fields": [
    {"name": "manifest_path", "type": "string"},
    {"name": "partition_spec_id", "type": "int"},
    {"name": "content", "type": "int", "default": 0},
    {"name": "sequence_number", "type": "long", "default": 0}
]}"#;

/// The fields of a manifest read (a partition tuple may be an empty record, which Arrow cannot
/// hold, so it is left out; `deletes.rs` reads it where equality deletes need it).
const MANIFEST_READ: &str = r#"{"type": "record", "name": "manifest_entry", "fields": [
    {"name": "status", "type": "int"},
    {"name": "sequence_number", "type": ["null", "long"], "default": null},
    {"name": "data_file", "type": {"type": "record", "name": "r2", "fields": [
        {"name": "content", "type": "int", "default": 0},
        {"name": "file_path", "type": "string"},
        {"name": "file_format", "type": "string"},
        {"name": "record_count", "type": "long"},
        {"name": "file_size_in_bytes", "type": "long"},
        {"name": "equality_ids", "type": ["null", {"type": "array", "items": "long"}], "default": null}
    ]}}
]}"#;

/// The record batches of an Avro file (manifest lists and manifests) read with `schema` (empty:
/// the file's own).
pub(super) fn read_avro(io: &io::Io, path: &str, schema: &str) -> SparkResult<Vec<RecordBatch>> {
    let file = std::io::Cursor::new(io.read(path)?);
    let mut builder = arrow_avro::reader::ReaderBuilder::new();
    if !schema.is_empty() {
        builder =
            builder.with_reader_schema(arrow_avro::schema::AvroSchema::new(schema.to_string()));
    }
    let reader = builder
        .build(std::io::BufReader::new(file))
        .map_err(|e| invalid(format!("bad Avro file {path}: {e}")))?;
    reader
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| invalid(format!("bad Avro file {path}: {e}")))
}

pub(super) fn strings(column: Option<&ArrayRef>, rows: usize) -> Vec<Option<String>> {
    let Some(cast) = column.and_then(|c| arrow::compute::cast(c, &DataType::Utf8).ok()) else {
        return vec![None; rows];
    };
    let text = cast.as_string::<i32>();
    (0..rows)
        .map(|i| text.is_valid(i).then(|| text.value(i).to_string()))
        .collect()
}

pub(super) fn longs(column: Option<&ArrayRef>, rows: usize) -> Vec<Option<i64>> {
    let Some(cast) = column.and_then(|c| arrow::compute::cast(c, &DataType::Int64).ok()) else {
        return vec![None; rows];
    };
    let values = cast.as_primitive::<Int64Type>();
    (0..rows)
        .map(|i| values.is_valid(i).then(|| values.value(i)))
        .collect()
}

/// One live file of a snapshot: a data file, or a delete file (merge-on-read deletes).
#[derive(Debug, Clone)]
pub struct DataFile {
    pub path: String,
    pub format: String,
    pub size: u64,
    pub records: i64,
    /// 0 data, 1 position deletes, 2 equality deletes.
    pub content: i64,
    /// The data sequence number (an entry's own, or its manifest's when it inherits it).
    pub sequence: i64,
    /// The columns an equality delete file compares.
    pub equality_ids: Vec<i64>,
    pub spec_id: i64,
    /// Where its entry is: the manifest and the entry's place in it.
    pub manifest: String,
    pub entry: usize,
}

/// The live files (data and delete files) of a snapshot.
pub fn data_files(io: &io::Io, snapshot: &Value) -> SparkResult<Vec<DataFile>> {
    let Some(list) = snapshot.get("manifest-list").and_then(Value::as_str) else {
        return Err(SparkError::unsupported(
            "Iceberg v1 snapshots without a manifest list",
        ));
    };
    let mut out = vec![];
    sandbox::check(list)?;
    for batch in read_avro(io, list, MANIFEST_LIST_READ)? {
        let rows = batch.num_rows();
        let paths = strings(batch.column_by_name("manifest_path"), rows);
        let specs = longs(batch.column_by_name("partition_spec_id"), rows);
        let sequences = longs(batch.column_by_name("sequence_number"), rows);
        for row in 0..rows {
            let Some(path) = &paths[row] else { continue };
            sandbox::check(path)?;
            read_manifest(
                io,
                path,
                specs[row].unwrap_or(0),
                sequences[row].unwrap_or(0),
                &mut out,
            )?;
        }
    }
    Ok(out)
}

fn read_manifest(
    io: &io::Io,
    path: &str,
    spec_id: i64,
    inherited: i64,
    out: &mut Vec<DataFile>,
) -> SparkResult<()> {
    let mut entry = 0;
    for batch in read_avro(io, path, MANIFEST_READ)? {
        let rows = batch.num_rows();
        let status = longs(batch.column_by_name("status"), rows);
        let sequences = longs(batch.column_by_name("sequence_number"), rows);
        let Some(data_file) = batch
            .column_by_name("data_file")
            .and_then(|c| c.as_any().downcast_ref::<StructArray>())
        else {
            return Err(invalid(format!(
                "bad Iceberg manifest {path}: no data_file"
            )));
        };
        let content = longs(data_file.column_by_name("content"), rows);
        let paths = strings(data_file.column_by_name("file_path"), rows);
        let formats = strings(data_file.column_by_name("file_format"), rows);
        let sizes = longs(data_file.column_by_name("file_size_in_bytes"), rows);
        let records = longs(data_file.column_by_name("record_count"), rows);
        let equality = data_file
            .column_by_name("equality_ids")
            .and_then(|c| c.as_list_opt::<i32>());
        for row in 0..rows {
            let at = entry;
            entry += 1;
            // 0 EXISTING, 1 ADDED, 2 DELETED.
            if status[row] == Some(2) {
                continue;
            }
            let Some(p) = &paths[row] else { continue };
            let equality_ids = match equality {
                Some(list) if list.is_valid(row) => {
                    longs(Some(&list.value(row)), list.value(row).len())
                        .into_iter()
                        .flatten()
                        .collect()
                }
                _ => vec![],
            };
            out.push(DataFile {
                path: p.clone(),
                format: formats[row].clone().unwrap_or_else(|| "PARQUET".into()),
                size: sizes[row].and_then(|s| u64::try_from(s).ok()).unwrap_or(0),
                records: records[row].unwrap_or(0),
                content: content[row].unwrap_or(0),
                sequence: sequences[row].unwrap_or(inherited),
                equality_ids,
                spec_id,
                manifest: path.to_string(),
                entry: at,
            });
        }
    }
    Ok(())
}

/// The field id → top-level column name map of a parquet file (empty: the file has no ids).
fn file_field_names(io: &io::Io, path: &str, size: u64) -> SparkResult<HashMap<i64, String>> {
    Ok(io
        .parquet_schema(path, size)?
        .fields()
        .iter()
        .filter_map(|f| {
            let id = f.metadata().get(FIELD_ID)?.parse().ok()?;
            Some((id, f.name().clone()))
        })
        .collect())
}

/// What a `format("iceberg")` read of `path` scans: the table at the snapshot `at` asks for,
/// or its metadata table (`<location>#snapshots`).
pub fn scan(
    state: &datafusion::execution::SessionState,
    path: &str,
    at: Option<At>,
) -> SparkResult<Arc<dyn TableProvider>> {
    let io = io::Io::new(state.runtime_env().clone());
    // `<location>#snapshots`: a metadata table.
    if let Some((location, name)) = path.rsplit_once('#')
        && meta::METADATA_TABLES
            .iter()
            .any(|m| m.eq_ignore_ascii_case(name))
    {
        return meta::metadata_table(&load(&io, location)?, name);
    }
    let table = load(&io, path)?;
    let snapshot = table.chosen_snapshot(at.as_ref())?;
    let schema_json = table.schema_for(snapshot, at.is_some())?;
    let schema = Arc::new(arrow_schema(schema_json)?);
    let ids: Vec<i64> = top_level(schema_json)
        .into_iter()
        .map(|(id, _)| id)
        .collect();
    let files = match snapshot {
        Some(s) => data_files(&io, s)?,
        None => vec![],
    };
    // Files with merge-on-read deletes are read by their own scan.
    let columns: HashMap<i64, Field> = ids
        .iter()
        .zip(schema.fields())
        .map(|(id, f)| (*id, f.as_ref().clone()))
        .collect();
    let mut deleted = deletes::plan(&table, &files, &columns)?;
    let mut with_deletes = vec![];
    let stable = table.names_stable();
    let mut groups: Vec<FileGroupMapping> = vec![];
    let mut store: Option<datafusion::datasource::object_store::ObjectStoreUrl> = None;
    for file in files.into_iter().filter(|f| f.content == 0) {
        if let Some(d) = deleted.remove(&file.path) {
            with_deletes.push(d);
            continue;
        }
        if !file.format.eq_ignore_ascii_case("parquet") {
            return Err(SparkError::unsupported(format!(
                "Iceberg {} data files",
                file.format
            )));
        }
        sandbox::check(&file.path)?;
        let (store_url, location) = io.scan_location(&file.path)?;
        match &store {
            Some(s) if *s != store_url => {
                return Err(SparkError::unsupported(
                    "Iceberg tables with data files in several stores",
                ));
            }
            _ => store = Some(store_url),
        }
        // A file's columns by field id, unless every file names them as the table does (or
        // the file has no ids).
        let by_id = match stable {
            true => HashMap::new(),
            false => file_field_names(&io, &file.path, file.size)?,
        };
        let names: Vec<Option<String>> = if by_id.is_empty() {
            schema
                .fields()
                .iter()
                .map(|f| Some(f.name().clone()))
                .collect()
        } else {
            ids.iter().map(|id| by_id.get(id).cloned()).collect()
        };
        let part = super::listing::partitioned_file(location, file.size);
        match groups.iter_mut().find(|g| g.names == names) {
            Some(g) => g.files.push(part),
            None => groups.push(FileGroupMapping {
                names,
                files: vec![part],
            }),
        }
    }
    Ok(Arc::new(IcebergFiles::new(
        state,
        store
            .unwrap_or_else(datafusion::datasource::object_store::ObjectStoreUrl::local_filesystem),
        schema,
        groups,
        (ids, with_deletes),
    )))
}
