//! Python data sources (`spark.dataSource.register(MySource)`): the requests Ember sends a
//! pooled worker (the Python side is `worker_datasource.py`). Planning runs in a worker at
//! planning time: the source's schema ([`schema`]), then its reader and partitions
//! ([`plan_read`]). Each partition is then read by a task (a map over the pickled partitions,
//! eval type [`DS_READ`]), so partitions spread over workers. A write asks for the writer
//! ([`writer`]), runs [`DS_WRITE`] over each partition of the written rows (one commit
//! message each), then commits or aborts once ([`commit`]).

use std::collections::HashMap;
use std::sync::Arc;

use arrow::array::{Array, BinaryArray, RecordBatch};
use arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use arrow::ipc::reader::StreamReader;

use super::{PythonError, PythonFunction, exchange};

/// The source's `schema()`.
pub const DS_SCHEMA: i32 = -10;
/// The reader and its partitions.
pub const DS_PLAN: i32 = -11;
/// Read partitions (a map's eval type: input one pickled partition per row).
pub const DS_READ: i32 = -12;
/// The writer.
pub const DS_WRITER: i32 = -13;
/// Write one partition (a map's eval type), answering its commit message.
pub const DS_WRITE: i32 = -14;
/// Commit or abort a write.
pub const DS_COMMIT: i32 = -15;

/// A pickled Python object (a reader, a partition, a writer).
pub type Pickled = Vec<u8>;

/// What a planning step answered.
pub enum Planned<T> {
    Done(T),
    /// The step failed: Spark's PYTHON_DATA_SOURCE_ERROR message (with the traceback).
    Failed(String),
}

/// The schema of what [`DS_WRITE`] answers per partition.
pub fn write_result_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("message", DataType::Binary, true),
        Field::new("error", DataType::Utf8, true),
    ]))
}

fn options_json(options: &HashMap<String, String>) -> String {
    serde_json::to_string(options).unwrap_or_else(|_| "{}".into())
}

/// An Arrow IPC stream of `schema` (with `metadata` added) holding `batch`, if any.
fn request(
    schema: &Schema,
    metadata: &[(&str, String)],
    column: Option<Vec<Option<&[u8]>>>,
) -> Result<Vec<u8>, PythonError> {
    let mut meta = schema.metadata().clone();
    for (k, v) in metadata {
        meta.insert((*k).to_string(), v.clone());
    }
    let schema = Arc::new(Schema::new_with_metadata(schema.fields().clone(), meta));
    let batches = match column {
        Some(values) => vec![RecordBatch::try_new(
            schema.clone(),
            vec![Arc::new(BinaryArray::from(values)) as _],
        )?],
        None => vec![],
    };
    super::ipc_stream(&schema, &batches)
}

/// The answer's metadata and its binary column's values.
fn answer(bytes: Vec<u8>) -> Result<(HashMap<String, String>, Vec<Pickled>), PythonError> {
    let reader = StreamReader::try_new(std::io::Cursor::new(bytes), None)?;
    let meta = reader.schema().metadata().clone();
    let mut values = Vec::new();
    for batch in reader {
        let batch = batch?;
        if let Some(col) = batch
            .columns()
            .first()
            .and_then(|c| c.as_any().downcast_ref::<BinaryArray>())
        {
            values.extend((0..col.len()).map(|i| col.value(i).to_vec()));
        }
    }
    Ok((meta, values))
}

fn planned<T>(
    meta: &HashMap<String, String>,
    done: impl FnOnce() -> Result<T, PythonError>,
) -> Result<Planned<T>, PythonError> {
    match meta.get("ember.error") {
        Some(e) => Ok(Planned::Failed(e.clone())),
        None => done().map(Planned::Done),
    }
}

/// The schema the source declares: a DDL string or a StructType's JSON.
pub fn schema(
    source: &PythonFunction,
    python: &str,
    options: &HashMap<String, String>,
) -> Result<Planned<String>, PythonError> {
    let input = request(
        &Schema::empty(),
        &[("ember.options", options_json(options))],
        None,
    )?;
    let (meta, _) = answer(exchange(source, DS_SCHEMA, python, &input, &[])?)?;
    planned(&meta, || {
        Ok(meta.get("ember.schema").cloned().unwrap_or_default())
    })
}

/// The source's reader for `schema` (pickled) and its partitions (each pickled).
pub fn plan_read(
    source: &PythonFunction,
    python: &str,
    options: &HashMap<String, String>,
    schema: &Schema,
    pushdown: bool,
) -> Result<Planned<(Pickled, Vec<Pickled>)>, PythonError> {
    let input = request(
        schema,
        &[
            ("ember.options", options_json(options)),
            ("ember.pushdown", pushdown.to_string()),
        ],
        None,
    )?;
    let (meta, mut values) = answer(exchange(source, DS_PLAN, python, &input, &[])?)?;
    planned(&meta, || {
        if values.is_empty() {
            return Err(PythonError::Arrow(
                "the Python data source planned no reader".into(),
            ));
        }
        let reader = values.remove(0);
        Ok((reader, values))
    })
}

/// The source's writer of rows of `schema` (pickled).
pub fn writer(
    source: &PythonFunction,
    python: &str,
    options: &HashMap<String, String>,
    schema: &Schema,
    overwrite: bool,
) -> Result<Planned<Vec<u8>>, PythonError> {
    let input = request(
        schema,
        &[
            ("ember.options", options_json(options)),
            ("ember.overwrite", overwrite.to_string()),
        ],
        None,
    )?;
    let (meta, mut values) = answer(exchange(source, DS_WRITER, python, &input, &[])?)?;
    planned(&meta, || {
        values
            .pop()
            .ok_or_else(|| PythonError::Arrow("the Python data source gave no writer".into()))
    })
}

/// Commit (or abort) a write with the tasks' messages (`None`: a failed task).
pub fn commit(
    writer: &PythonFunction,
    python: &str,
    messages: &[Option<Vec<u8>>],
    abort: bool,
) -> Result<Planned<()>, PythonError> {
    let schema = Schema::new(vec![Field::new("m", DataType::Binary, true)]);
    let values: Vec<Option<&[u8]>> = messages.iter().map(|m| m.as_deref()).collect();
    let input = request(&schema, &[("ember.abort", abort.to_string())], Some(values))?;
    let (meta, _) = answer(exchange(writer, DS_COMMIT, python, &input, &[])?)?;
    planned(&meta, || Ok(()))
}
