//! Iceberg metadata tables, as iceberg-spark names them: `<table>.snapshots`, `.history` and
//! `.files` (`ice.db.t.snapshots`, or `load("<location>#snapshots")`), built from the table's
//! metadata JSON and manifests into an in-memory table.

use std::collections::HashSet;
use std::sync::Arc;

use arrow::array::{
    ArrayRef, BooleanArray, Int32Array, Int64Array, MapBuilder, StringArray, StringBuilder,
    TimestampMicrosecondArray,
};
use arrow::datatypes::{DataType, Field, Schema, TimeUnit};
use arrow::record_batch::RecordBatch;
use datafusion::catalog::TableProvider;
use datafusion::datasource::MemTable;
use serde_json::Value;

use super::{TableMetadata, data_files};
use crate::spark_error::{SparkError, SparkResult};

/// The metadata tables Ember answers.
pub const METADATA_TABLES: &[&str] = &["snapshots", "history", "files"];

fn timestamp() -> DataType {
    DataType::Timestamp(TimeUnit::Microsecond, Some(Arc::from("UTC")))
}

fn long(v: &Value, key: &str) -> Option<i64> {
    v.get(key).and_then(Value::as_i64)
}

/// The metadata table `name` of `table`.
pub fn metadata_table(table: &TableMetadata, name: &str) -> SparkResult<Arc<dyn TableProvider>> {
    let snapshots: Vec<&Value> = table
        .json
        .get("snapshots")
        .and_then(Value::as_array)
        .map(|s| s.iter().collect())
        .unwrap_or_default();
    let (schema, columns): (Schema, Vec<ArrayRef>) = match name.to_ascii_lowercase().as_str() {
        "snapshots" => {
            let mut summary = MapBuilder::new(None, StringBuilder::new(), StringBuilder::new());
            for s in &snapshots {
                if let Some(map) = s.get("summary").and_then(Value::as_object) {
                    for (k, v) in map {
                        if k == "operation" {
                            continue;
                        }
                        summary.keys().append_value(k);
                        match v {
                            Value::String(text) => summary.values().append_value(text),
                            other => summary.values().append_value(other.to_string()),
                        }
                    }
                }
                summary
                    .append(true)
                    .map_err(|e| SparkError::invalid_plan(e.to_string()))?;
            }
            let summary = Arc::new(summary.finish()) as ArrayRef;
            (
                Schema::new(vec![
                    Field::new("committed_at", timestamp(), false),
                    Field::new("snapshot_id", DataType::Int64, false),
                    Field::new("parent_id", DataType::Int64, true),
                    Field::new("operation", DataType::Utf8, true),
                    Field::new("manifest_list", DataType::Utf8, true),
                    Field::new("summary", summary.data_type().clone(), true),
                ]),
                vec![
                    Arc::new(
                        snapshots
                            .iter()
                            .map(|s| long(s, "timestamp-ms").map(|t| t * 1000))
                            .collect::<TimestampMicrosecondArray>()
                            .with_timezone("UTC"),
                    ),
                    Arc::new(
                        snapshots
                            .iter()
                            .map(|s| long(s, "snapshot-id"))
                            .collect::<Int64Array>(),
                    ),
                    Arc::new(
                        snapshots
                            .iter()
                            .map(|s| long(s, "parent-snapshot-id"))
                            .collect::<Int64Array>(),
                    ),
                    Arc::new(
                        snapshots
                            .iter()
                            .map(|s| {
                                s.get("summary")
                                    .and_then(|m| m.get("operation"))
                                    .and_then(Value::as_str)
                            })
                            .collect::<StringArray>(),
                    ),
                    Arc::new(
                        snapshots
                            .iter()
                            .map(|s| s.get("manifest-list").and_then(Value::as_str))
                            .collect::<StringArray>(),
                    ),
                    summary,
                ],
            )
        }
        "history" => {
            let parent_of = |id: i64| {
                snapshots
                    .iter()
                    .find(|s| long(s, "snapshot-id") == Some(id))
                    .and_then(|s| long(s, "parent-snapshot-id"))
            };
            // The current snapshot and its ancestors.
            let mut ancestors = HashSet::new();
            let mut at = long(&table.json, "current-snapshot-id").filter(|id| *id >= 0);
            while let Some(id) = at {
                if !ancestors.insert(id) {
                    break;
                }
                at = parent_of(id);
            }
            let log: Vec<(i64, i64)> = table
                .json
                .get("snapshot-log")
                .and_then(Value::as_array)
                .map(|log| {
                    log.iter()
                        .filter_map(|e| Some((long(e, "timestamp-ms")?, long(e, "snapshot-id")?)))
                        .collect()
                })
                .unwrap_or_default();
            (
                Schema::new(vec![
                    Field::new("made_current_at", timestamp(), false),
                    Field::new("snapshot_id", DataType::Int64, false),
                    Field::new("parent_id", DataType::Int64, true),
                    Field::new("is_current_ancestor", DataType::Boolean, false),
                ]),
                vec![
                    Arc::new(
                        log.iter()
                            .map(|(t, _)| Some(t * 1000))
                            .collect::<TimestampMicrosecondArray>()
                            .with_timezone("UTC"),
                    ),
                    Arc::new(log.iter().map(|(_, id)| Some(*id)).collect::<Int64Array>()),
                    Arc::new(
                        log.iter()
                            .map(|(_, id)| parent_of(*id))
                            .collect::<Int64Array>(),
                    ),
                    Arc::new(
                        log.iter()
                            .map(|(_, id)| Some(ancestors.contains(id)))
                            .collect::<BooleanArray>(),
                    ),
                ],
            )
        }
        "files" => {
            let files = match table.chosen_snapshot(None)? {
                Some(s) => data_files(&table.io, s)?,
                None => vec![],
            };
            (
                Schema::new(vec![
                    Field::new("content", DataType::Int32, false),
                    Field::new("file_path", DataType::Utf8, false),
                    Field::new("file_format", DataType::Utf8, false),
                    Field::new("spec_id", DataType::Int32, false),
                    Field::new("record_count", DataType::Int64, false),
                    Field::new("file_size_in_bytes", DataType::Int64, false),
                ]),
                vec![
                    Arc::new(
                        files
                            .iter()
                            .map(|f| i32::try_from(f.content).ok())
                            .collect::<Int32Array>(),
                    ),
                    Arc::new(
                        files
                            .iter()
                            .map(|f| Some(f.path.clone()))
                            .collect::<StringArray>(),
                    ),
                    Arc::new(
                        files
                            .iter()
                            .map(|f| Some(f.format.clone()))
                            .collect::<StringArray>(),
                    ),
                    Arc::new(
                        files
                            .iter()
                            .map(|f| i32::try_from(f.spec_id).ok())
                            .collect::<Int32Array>(),
                    ),
                    Arc::new(
                        files
                            .iter()
                            .map(|f| Some(f.records))
                            .collect::<Int64Array>(),
                    ),
                    Arc::new(
                        files
                            .iter()
                            .map(|f| i64::try_from(f.size).ok())
                            .collect::<Int64Array>(),
                    ),
                ],
            )
        }
        other => {
            return Err(SparkError::unsupported(format!(
                "the Iceberg metadata table {other}"
            )));
        }
    };
    let schema = Arc::new(schema);
    let batch = RecordBatch::try_new(schema.clone(), columns)
        .map_err(|e| SparkError::invalid_plan(e.to_string()))?;
    Ok(Arc::new(MemTable::try_new(schema, vec![vec![batch]])?))
}
