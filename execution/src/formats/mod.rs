//! File formats: for each format Ember reads or writes itself, one module with its reader
//! (a DataFusion `FileFormat` and `FileSource`), its options as Spark spells them, its schema
//! inference and its writer; Parquet and Avro reads are DataFusion's. The table formats,
//! which keep their own log or metadata over parquet files, are here too: [`delta`] (Delta
//! Lake, through deltalake-core) and [`iceberg`] (Apache Iceberg, Ember's own metadata code),
//! each with its scan, time travel, writes and commits. Beside them, what every format
//! shares:
//!
//! - [`write`]: the physical operator of a distributed write (each task writes its own
//!   partition's files into a staging area), [`encode`] the writers' common loop;
//! - [`commit`] (local file systems) and [`object_commit`] (object stores): the commit
//!   protocol that publishes a write atomically and finishes an interrupted one;
//! - [`storage`]: the object store registry and compression by file name;
//! - [`partition`]: Hive-style `col=value` directory names, [`listing`] what a directory
//!   holds (data files, partition columns; a directory whose commit a crash interrupted as
//!   the commit leaves it, read-only);
//! - [`source`]: the reader skeleton Ember's text-based readers share.
//!
//! The planner chooses a format and turns Spark's options into the format's options
//! (`planner/src/datasource`); nothing here plans.

use std::collections::HashMap;
use std::sync::Arc;

use arrow::datatypes::{DataType, Field, Schema, TimeUnit};
use datafusion::common::Result;
use datafusion::physical_plan::repartition::RepartitionExec;
use datafusion::physical_plan::{
    ExecutionPlan, ExecutionPlanProperties, Partitioning, replace_children_if_necessary,
};

use crate::spark_error::{SparkError, SparkResult};

pub mod avro;
pub mod commit;
pub mod csv;
pub mod deleted_rows;
pub mod delta;
mod encode;
pub mod filter_views;
pub mod iceberg;
pub mod json;
pub mod listing;
pub mod object_commit;
pub mod orc;
pub mod parquet_strings;
pub mod partition;
pub mod source;
pub mod storage;
pub mod table_files;
pub mod text;
pub mod text_values;
pub mod write;
pub mod xml;

pub use write::{FileWrite, WriteFilesExec, WriteFormat, write_output_schema};

/// A read's options as Spark takes them (`option(key, value)`); keys compare
/// case-insensitively.
pub type Options = HashMap<String, String>;

/// The value of option `key`.
pub fn option<'a>(options: &'a Options, key: &str) -> Option<&'a str> {
    options
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(key))
        .map(|(_, v)| v.as_str())
}

/// A boolean option: `true` in any case is true.
pub fn flag(options: &Options, key: &str, default: bool) -> bool {
    option(options, key)
        .map(|v| v.eq_ignore_ascii_case("true"))
        .unwrap_or(default)
}

/// The local file system path of a read's `path` (plain, `file:` or `file://`); other
/// schemes are not supported where this is asked.
pub fn local_part(path: &str) -> SparkResult<&str> {
    if let Some((scheme, _)) = path.split_once("://")
        && scheme != "file"
    {
        return Err(SparkError::unsupported(format!(
            "reading from {scheme}:// paths"
        )));
    }
    Ok(path
        .strip_prefix("file://")
        .or_else(|| path.strip_prefix("file:"))
        .unwrap_or(path))
}

/// How a read treats records or values that do not fit the schema (`mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum MalformedMode {
    /// NULL for the value.
    Permissive,
    /// The row is skipped.
    DropMalformed,
    /// The read fails.
    FailFast,
}

/// The `mode` of a read; Spark takes an unknown mode for PERMISSIVE.
pub fn malformed_mode(options: &Options) -> MalformedMode {
    match option(options, "mode")
        .map(str::to_ascii_uppercase)
        .as_deref()
    {
        Some("DROPMALFORMED") => MalformedMode::DropMalformed,
        Some("FAILFAST") => MalformedMode::FailFast,
        _ => MalformedMode::Permissive,
    }
}

/// The `dateFormat` and `timestampFormat` of a CSV, JSON or XML read, as chrono formats.
/// They apply to the date and timestamp columns of a given schema, and CSV schema inference
/// uses them (Spark's JSON inference leaves strings as strings).
pub fn datetime_formats(
    options: &Options,
    format_name: &str,
) -> SparkResult<(Option<String>, Option<String>)> {
    for key in ["timestampNTZFormat", "locale"] {
        if option(options, key).is_some() {
            return Err(SparkError::unsupported(format!(
                "{format_name} read option {key}"
            )));
        }
    }
    let mut out = [None, None];
    for (i, key) in ["dateFormat", "timestampFormat"].iter().enumerate() {
        let Some(pattern) = option(options, key) else {
            continue;
        };
        let chrono = crate::values::pattern::to_chrono(pattern)?;
        if chrono.contains("%Z") {
            return Err(SparkError::unsupported(format!(
                "zone names in {format_name} read option {key}"
            )));
        }
        // Spark's `X` offsets are read at the end of a pattern only.
        let markers = [
            crate::values::datetime::OFFSET_X1,
            crate::values::datetime::OFFSET_X2,
            crate::values::datetime::OFFSET_X3,
        ];
        let body = chrono.strip_suffix(markers).unwrap_or(&chrono);
        if body.contains(markers) {
            return Err(SparkError::unsupported(format!(
                "zone offsets before the end of {format_name} read option {key}"
            )));
        }
        out[i] = Some(chrono);
    }
    let [date, timestamp] = out;
    Ok((date, timestamp))
}

/// Spark's error when a read finds nothing to infer a schema from.
pub fn unable_to_infer(format_name: &str) -> SparkError {
    SparkError::analysis(
        "UNABLE_TO_INFER_SCHEMA",
        "42KD9",
        format!(
            "Unable to infer schema for {}. It must be specified manually.",
            format_name.to_uppercase()
        ),
    )
}

/// Spark's view of an inferred schema: nullable columns, Spark's types; CSV without
/// `inferSchema` reads every column as a string.
pub fn spark_schema(inferred: &Schema, all_strings: bool) -> Schema {
    let fields: Vec<Field> = inferred
        .fields()
        .iter()
        .map(|f| {
            let dt = if all_strings {
                DataType::Utf8
            } else {
                match f.data_type() {
                    DataType::Utf8View | DataType::LargeUtf8 => DataType::Utf8,
                    DataType::Timestamp(_, Some(_)) => {
                        DataType::Timestamp(TimeUnit::Microsecond, Some(Arc::from("UTC")))
                    }
                    DataType::Timestamp(_, None) => {
                        DataType::Timestamp(TimeUnit::Microsecond, None)
                    }
                    DataType::BinaryView | DataType::LargeBinary => DataType::Binary,
                    other => other.clone(),
                }
            };
            Field::new(f.name(), dt, true)
        })
        .collect();
    Schema::new(fields)
}

/// The codec parts of the formats' scans (one line per format whose reader is Ember's).
pub fn codec_parts() -> Vec<Arc<dyn crate::codec::CodecPart>> {
    use crate::codec::{file_source_part, node_part};
    vec![
        file_source_part::<csv::CsvSource>(),
        file_source_part::<json::JsonSource>(),
        file_source_part::<xml::XmlSource>(),
        file_source_part::<orc::OrcSource>(),
        node_part::<text::TextScanExec>(),
        node_part::<WriteFilesExec>(),
        node_part::<deleted_rows::DeletedRowsScanExec>(),
    ]
}

/// The plan of a write without the round-robin repartitions DataFusion adds for parallelism
/// at its top (above its last operator that sets the partitioning), so that the files a
/// write produces follow the query's partitions, as in Spark (`coalesce(1)` writes one file).
pub fn without_parallelism_repartitions(
    plan: Arc<dyn ExecutionPlan>,
) -> Result<Arc<dyn ExecutionPlan>> {
    if let Some(r) = plan.downcast_ref::<RepartitionExec>()
        && matches!(r.partitioning(), Partitioning::RoundRobinBatch(_))
        && !r.preserve_order()
    {
        return without_parallelism_repartitions(r.input().clone());
    }
    let children = plan.children();
    if let [child] = children.as_slice()
        && child.output_partitioning().partition_count()
            == plan.output_partitioning().partition_count()
    {
        let child = without_parallelism_repartitions((*child).clone())?;
        return replace_children_if_necessary(plan, vec![child]);
    }
    Ok(plan)
}
