//! Python UDFs: Ember's own worker processes evaluate the functions PySpark clients send
//! (cloudpickled), batch by batch, with the arguments and results moving as Arrow IPC.
//!
//! `pool` keeps idle workers per interpreter, `worker` runs one process, `protocol` is the
//! framing both sides speak, and `worker.py` is the Python side. Which interpreter runs the
//! workers: `--python` (set once per process with [`set_python`]), else `PYSPARK_PYTHON`,
//! else the session's `spark.pyspark.python`, else `python3`.

mod cancel;
pub mod datasource;
pub mod eval;
mod feed;
pub mod map;
mod pool;
mod protocol;
mod worker;

use std::sync::{Arc, OnceLock};

use arrow::array::{ArrayRef, RecordBatch, RecordBatchOptions};
use arrow::datatypes::{Field, FieldRef, Schema, SchemaRef};
use arrow::ipc::reader::StreamReader;
use arrow::ipc::writer::StreamWriter;

pub use cancel::{CancelScope, InScope, KillOnDrop, KillSwitch};
pub use worker::Request;

/// Row-at-a-time `udf`.
pub const SQL_BATCHED_UDF: i32 = 100;
/// `udf(useArrow=True)`.
pub const SQL_ARROW_BATCHED_UDF: i32 = 101;
/// Scalar `pandas_udf`.
pub const SQL_SCALAR_PANDAS_UDF: i32 = 200;
/// Scalar iterator `pandas_udf`.
pub const SQL_SCALAR_PANDAS_ITER_UDF: i32 = 204;
/// `mapInPandas`.
pub const SQL_MAP_PANDAS_ITER_UDF: i32 = 205;
/// `mapInArrow`.
pub const SQL_MAP_ARROW_ITER_UDF: i32 = 207;
/// `groupBy().applyInPandas`.
pub const SQL_GROUPED_MAP_PANDAS_UDF: i32 = 201;
/// `groupBy().applyInArrow`.
pub const SQL_GROUPED_MAP_ARROW_UDF: i32 = 209;
/// `groupBy().applyInArrow` with a function over an iterator of batches.
pub const SQL_GROUPED_MAP_ARROW_ITER_UDF: i32 = 215;
/// `groupBy().applyInPandas` with a function over an iterator of frames.
pub const SQL_GROUPED_MAP_PANDAS_ITER_UDF: i32 = 216;
/// `cogroup().applyInPandas`.
pub const SQL_COGROUPED_MAP_PANDAS_UDF: i32 = 206;
/// `cogroup().applyInArrow`.
pub const SQL_COGROUPED_MAP_ARROW_UDF: i32 = 210;
/// Grouped-aggregate `pandas_udf`.
pub const SQL_GROUPED_AGG_PANDAS_UDF: i32 = 202;
/// Grouped-aggregate `arrow_udf`.
pub const SQL_GROUPED_AGG_ARROW_UDF: i32 = 252;
/// Grouped-aggregate `pandas_udf` over an iterator of Series.
pub const SQL_GROUPED_AGG_PANDAS_ITER_UDF: i32 = 217;
/// Grouped-aggregate `arrow_udf` over an iterator of arrays.
pub const SQL_GROUPED_AGG_ARROW_ITER_UDF: i32 = 254;

/// The eval types evaluated as aggregates.
pub fn is_aggregate_eval_type(eval_type: i32) -> bool {
    matches!(
        eval_type,
        SQL_GROUPED_AGG_PANDAS_UDF
            | SQL_GROUPED_AGG_ARROW_UDF
            | SQL_GROUPED_AGG_PANDAS_ITER_UDF
            | SQL_GROUPED_AGG_ARROW_ITER_UDF
    )
}
/// A Python UDTF (`@udtf` class).
pub const SQL_TABLE_UDF: i32 = 300;
/// A Python UDTF with Arrow optimization (`spark.sql.execution.pythonUDTF.arrow.enabled`).
pub const SQL_ARROW_TABLE_UDF: i32 = 301;
/// An Arrow UDTF (`@arrow_udtf`): `eval` over pyarrow arrays, yielding Arrow tables.
pub const SQL_ARROW_UDTF: i32 = 302;
/// Scalar `arrow_udf`.
pub const SQL_SCALAR_ARROW_UDF: i32 = 250;
/// Scalar iterator `arrow_udf`.
pub const SQL_SCALAR_ARROW_ITER_UDF: i32 = 251;

/// The eval types [`evaluate`] takes (scalar functions).
pub fn is_scalar_eval_type(eval_type: i32) -> bool {
    matches!(
        eval_type,
        SQL_BATCHED_UDF
            | SQL_ARROW_BATCHED_UDF
            | SQL_SCALAR_PANDAS_UDF
            | SQL_SCALAR_PANDAS_ITER_UDF
            | SQL_SCALAR_ARROW_UDF
            | SQL_SCALAR_ARROW_ITER_UDF
    )
}

#[derive(Debug, Clone, thiserror::Error)]
pub enum PythonError {
    /// The UDF raised; `traceback` is Python's.
    #[error("{traceback}")]
    Exception {
        error_class: String,
        traceback: String,
    },
    /// The worker process died while evaluating.
    #[error("{0}")]
    Crashed(String),
    /// The worker cannot run (no interpreter, a missing package).
    #[error("{0}")]
    Setup(String),
    /// The client's Python differs from the workers'.
    #[error(
        "[PYTHON_VERSION_MISMATCH] Python in worker has different version: {worker} than that in driver: {client}, PySpark cannot run with different minor versions.\nPlease check environment variables PYSPARK_PYTHON and PYSPARK_DRIVER_PYTHON are correctly set."
    )]
    VersionMismatch { worker: String, client: String },
    #[error("Python UDF data: {0}")]
    Arrow(String),
}

impl From<arrow::error::ArrowError> for PythonError {
    fn from(e: arrow::error::ArrowError) -> Self {
        PythonError::Arrow(e.to_string())
    }
}

static PYTHON_OVERRIDE: OnceLock<String> = OnceLock::new();

/// The interpreter `--python` names, for every UDF of this process.
pub fn set_python(python: String) {
    let _ = PYTHON_OVERRIDE.set(python);
}

/// The interpreter that runs UDFs, given the session's `spark.pyspark.python`.
pub fn python_executable(session: Option<&str>) -> String {
    if let Some(p) = PYTHON_OVERRIDE.get() {
        return p.clone();
    }
    if let Ok(p) = std::env::var("PYSPARK_PYTHON")
        && !p.is_empty()
    {
        return p;
    }
    match session {
        Some(p) if !p.is_empty() => p.to_string(),
        _ => "python3".to_string(),
    }
}

/// A Python function as the client sent it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PythonFunction {
    pub eval_type: i32,
    /// cloudpickled `(function, return type)`.
    pub command: Arc<[u8]>,
    /// The client's Python `major.minor`.
    pub python_ver: String,
    /// The session's Python artifacts (`spark.addArtifacts(..., pyfile/archive/file=True)`),
    /// importable by the function.
    pub artifacts: Option<Arc<PythonArtifacts>>,
}

/// The files a session added for its Python functions: `pyfiles/<name>`, `archives/<name>`
/// (maybe `#<alias>`) and `files/<name>`, as the client names them. `key` identifies this set
/// (a hash of the names and contents): the worker's copy on disk is made once per key.
#[derive(Debug, Clone)]
pub struct PythonArtifacts {
    pub key: String,
    pub files: Vec<(String, Arc<[u8]>)>,
}

impl PythonArtifacts {
    /// The set of `files` (the session's artifacts; those that are not Python's are left out),
    /// or `None` when there are none.
    pub fn new(files: impl IntoIterator<Item = (String, Arc<[u8]>)>) -> Option<Arc<Self>> {
        use std::hash::{Hash, Hasher};
        let mut files: Vec<(String, Arc<[u8]>)> = files
            .into_iter()
            .filter(|(n, _)| {
                ["pyfiles/", "archives/", "files/"]
                    .iter()
                    .any(|p| n.starts_with(p))
            })
            .collect();
        if files.is_empty() {
            return None;
        }
        files.sort_by(|a, b| a.0.cmp(&b.0));
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        for (n, data) in &files {
            n.hash(&mut hasher);
            data.hash(&mut hasher);
        }
        Some(Arc::new(Self {
            key: format!("{:016x}", hasher.finish()),
            files,
        }))
    }
}

/// A [`PythonFunction`] in serialized plans.
#[derive(Clone, PartialEq, prost::Message)]
pub struct PythonFunctionMessage {
    #[prost(int32, tag = "1")]
    eval_type: i32,
    #[prost(bytes = "vec", tag = "2")]
    command: Vec<u8>,
    #[prost(string, tag = "3")]
    python_ver: String,
    #[prost(message, optional, tag = "4")]
    artifacts: Option<PythonArtifactsMessage>,
}

#[derive(Clone, PartialEq, prost::Message)]
struct PythonArtifactsMessage {
    #[prost(string, tag = "1")]
    key: String,
    #[prost(message, repeated, tag = "2")]
    files: Vec<PythonFileMessage>,
}

#[derive(Clone, PartialEq, prost::Message)]
struct PythonFileMessage {
    #[prost(string, tag = "1")]
    name: String,
    #[prost(bytes = "vec", tag = "2")]
    data: Vec<u8>,
}

impl PythonFunction {
    /// For plans sent to cluster workers.
    pub fn to_message(&self) -> PythonFunctionMessage {
        PythonFunctionMessage {
            eval_type: self.eval_type,
            command: self.command.to_vec(),
            python_ver: self.python_ver.clone(),
            artifacts: self.artifacts.as_ref().map(|a| PythonArtifactsMessage {
                key: a.key.clone(),
                files: a
                    .files
                    .iter()
                    .map(|(name, data)| PythonFileMessage {
                        name: name.clone(),
                        data: data.to_vec(),
                    })
                    .collect(),
            }),
        }
    }

    /// What [`Self::to_message`] wrote.
    pub fn from_message(m: PythonFunctionMessage) -> Self {
        Self {
            eval_type: m.eval_type,
            command: m.command.into(),
            python_ver: m.python_ver,
            artifacts: m.artifacts.map(|a| {
                Arc::new(PythonArtifacts {
                    key: a.key,
                    files: a
                        .files
                        .into_iter()
                        .map(|f| (f.name, Arc::from(f.data)))
                        .collect(),
                })
            }),
        }
    }
}

impl PartialEq for PythonArtifacts {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}

impl Eq for PythonArtifacts {}

impl std::hash::Hash for PythonArtifacts {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.key.hash(state);
    }
}

static MATERIALIZED: std::sync::LazyLock<parking_lot::Mutex<std::collections::HashSet<String>>> =
    std::sync::LazyLock::new(|| parking_lot::Mutex::new(std::collections::HashSet::new()));

/// The directory of this process's copies of Python artifacts.
fn artifacts_root() -> std::path::PathBuf {
    std::env::temp_dir().join(format!("ember-python-artifacts-{}", std::process::id()))
}

/// Remove this process's copy of the artifacts set `key` (its last session closed); a later
/// use writes it again.
pub fn forget_artifacts(key: &str) {
    let mut done = MATERIALIZED.lock();
    done.remove(key);
    let dir = artifacts_root().join(key);
    if dir.exists() {
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// The directory holding `artifacts` for the workers of this process (written on first use):
/// pyfiles and files at its top, archives under `.archives/` for the worker to unpack.
fn artifacts_dir(artifacts: &PythonArtifacts) -> Result<String, PythonError> {
    let dir = artifacts_root().join(&artifacts.key);
    let mut done = MATERIALIZED.lock();
    if !done.contains(&artifacts.key) {
        let io = |e: std::io::Error| PythonError::Setup(format!("Python artifacts: {e}"));
        std::fs::create_dir_all(dir.join(".archives")).map_err(io)?;
        for (name, data) in &artifacts.files {
            let (prefix, rest) = name.split_once('/').unwrap_or(("files", name));
            // (Names are the client's: no way out of the directory.)
            let rest: String = rest
                .split('/')
                .filter(|p| !p.is_empty() && *p != "." && *p != "..")
                .collect::<Vec<_>>()
                .join("/");
            let path = match prefix {
                "archives" => dir.join(".archives").join(rest.replace('/', "_")),
                _ => dir.join(&rest),
            };
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent).map_err(io)?;
            }
            std::fs::write(&path, data).map_err(io)?;
        }
        done.insert(artifacts.key.clone());
    }
    Ok(dir.to_string_lossy().into_owned())
}

/// Evaluate a scalar Python function over `args` (`num_rows` rows), in batches of at most
/// `batch_size` rows, giving a column of `result`'s type. `keywords` names the arguments
/// passed by keyword (`f(x, b=y)`), `None` for positional ones.
pub fn evaluate(
    function: &PythonFunction,
    python: &str,
    args: &[ArrayRef],
    keywords: &[Option<String>],
    num_rows: usize,
    result: &FieldRef,
    batch_size: usize,
) -> Result<ArrayRef, PythonError> {
    let fields: Vec<Field> = args
        .iter()
        .enumerate()
        .map(|(i, a)| {
            let name = match keywords.get(i) {
                Some(Some(k)) => format!("__kw__{k}"),
                _ => format!("_{i}"),
            };
            Field::new(name, a.data_type().clone(), true)
        })
        .collect();
    let schema = Arc::new(Schema::new(fields));
    let batch = RecordBatch::try_new_with_options(
        schema.clone(),
        args.to_vec(),
        &RecordBatchOptions::new().with_row_count(Some(num_rows)),
    )?;
    let step = batch_size.max(1);
    let mut slices = Vec::new();
    let mut offset = 0;
    while offset < num_rows {
        let len = step.min(num_rows - offset);
        slices.push(batch.slice(offset, len));
        offset += len;
    }
    let out_schema = Arc::new(Schema::new(vec![
        result.as_ref().clone().with_name("result"),
    ]));
    let answer = run(function, python, &schema, &slices, &out_schema)?;
    let parts: Vec<ArrayRef> = answer
        .iter()
        .filter_map(|b| b.columns().first().cloned())
        .collect();
    let refs: Vec<&dyn arrow::array::Array> = parts.iter().map(|a| a.as_ref()).collect();
    let column = match refs.as_slice() {
        [] => arrow::array::new_empty_array(result.data_type()),
        [one] => one.slice(0, one.len()),
        _ => arrow::compute::concat(&refs)?,
    };
    if column.len() != num_rows {
        return Err(PythonError::Arrow(format!(
            "the Python worker gave {} rows for {num_rows}",
            column.len()
        )));
    }
    if column.data_type() != result.data_type() {
        return Ok(arrow::compute::cast(&column, result.data_type())?);
    }
    Ok(column)
}

/// An Arrow IPC stream holding only `schema`.
/// Send `batches` (of `schema`) to a worker of `python` for `function`, and read back the
/// batches it answers (of `out_schema`).
pub fn run(
    function: &PythonFunction,
    python: &str,
    schema: &SchemaRef,
    batches: &[RecordBatch],
    out_schema: &SchemaRef,
) -> Result<Vec<RecordBatch>, PythonError> {
    // (Called from an operator's poll: the thread waits for the worker, so the call is
    // cancelled through the query's scope, and the runtime moves its other tasks elsewhere.)
    cancel::in_current_scope(|switch| {
        cancel::blocking(|| run_killable(function, python, schema, batches, out_schema, switch))
    })
}

/// [`run`], the worker killed through `kill` if the query is cancelled meanwhile.
pub fn run_killable(
    function: &PythonFunction,
    python: &str,
    schema: &SchemaRef,
    batches: &[RecordBatch],
    out_schema: &SchemaRef,
    kill: Option<&KillSwitch>,
) -> Result<Vec<RecordBatch>, PythonError> {
    let input = ipc_stream(schema, batches)?;
    let output_schema = schema_bytes(out_schema)?;
    let answer = exchange_killable(
        function,
        function.eval_type,
        python,
        &input,
        &output_schema,
        kill,
    )?;
    let reader = StreamReader::try_new(std::io::Cursor::new(answer), None)?;
    let mut out = Vec::new();
    for b in reader {
        out.push(b?);
    }
    Ok(out)
}

/// One request to a pooled worker of `python`; the answer's bytes.
fn exchange(
    function: &PythonFunction,
    eval_type: i32,
    python: &str,
    input: &[u8],
    output_schema: &[u8],
) -> Result<Vec<u8>, PythonError> {
    exchange_killable(function, eval_type, python, input, output_schema, None)
}

fn exchange_killable(
    function: &PythonFunction,
    eval_type: i32,
    python: &str,
    input: &[u8],
    output_schema: &[u8],
    kill: Option<&KillSwitch>,
) -> Result<Vec<u8>, PythonError> {
    let (mut worker, artifacts) = checked_worker(function, python)?;
    let request = Request {
        eval_type,
        command: &function.command,
        input,
        output_schema,
        artifacts: artifacts.as_bytes(),
    };
    if let Some(k) = kill {
        k.arm(worker.process());
    }
    let answer = worker.evaluate(&request);
    if let Some(k) = kill {
        k.disarm();
        if k.fired() {
            // (Killed as it answered: never given back.)
            return answer;
        }
    }
    match answer {
        Ok(bytes) => {
            pool::give_back(python, worker);
            Ok(bytes)
        }
        Err(e @ PythonError::Crashed(_)) => Err(e),
        Err(e) => {
            pool::give_back(python, worker);
            Err(e)
        }
    }
}

/// A pooled worker of `python` fit to run `function` (its Python version, its packages), and
/// the directory of the function's artifacts.
fn checked_worker(
    function: &PythonFunction,
    python: &str,
) -> Result<(worker::Worker, String), PythonError> {
    let artifacts = match &function.artifacts {
        Some(a) => artifacts_dir(a)?,
        None => String::new(),
    };
    let mut worker = pool::take(python)?;
    if !function.python_ver.is_empty() && worker.version != function.python_ver {
        let error = PythonError::VersionMismatch {
            worker: worker.version.clone(),
            client: function.python_ver.clone(),
        };
        if worker.setup_error.is_none() {
            pool::give_back(python, worker);
        }
        return Err(error);
    }
    if let Some(message) = worker.setup_error.take() {
        return Err(PythonError::Setup(message));
    }
    Ok((worker, artifacts))
}

/// Stream batches through `function` on a pooled worker of `python` (the map functions):
/// `input.next` gives the input's batches (of `schema`; `None` ends it), each result batch
/// (of `out_schema`) goes to `on_batch` as the worker yields it, which answers false when no
/// one wants more; `input.stop` is called when the function has ended before its input (the
/// input then ends soon). Runs on a blocking thread; `kill` kills the worker if the query is
/// cancelled meanwhile.
pub fn stream_killable(
    function: &PythonFunction,
    python: &str,
    schema: &SchemaRef,
    input: StreamInput<impl FnMut() -> Option<RecordBatch> + Send, impl FnOnce()>,
    out_schema: &SchemaRef,
    mut on_batch: impl FnMut(Result<RecordBatch, PythonError>) -> bool,
    kill: &KillSwitch,
) -> Result<(), PythonError> {
    let StreamInput {
        next: mut next_input,
        stop: stop_input,
    } = input;
    let output_schema = schema_bytes(out_schema)?;
    let (mut worker, artifacts) = checked_worker(function, python)?;
    let request = Request {
        eval_type: function.eval_type,
        command: &function.command,
        input: &[],
        output_schema: &output_schema,
        artifacts: artifacts.as_bytes(),
    };
    kill.arm(worker.process());
    let mut encode_error = None;
    // (The first frame holds only the schema, which the function may read before any batch.)
    let mut first = Some(schema_bytes(schema)?);
    let answer = worker.stream(
        &request,
        || {
            if let Some(frame) = first.take() {
                return Some(frame);
            }
            let batch = next_input()?;
            match ipc_stream(schema, &[batch]) {
                Ok(bytes) => Some(bytes),
                Err(e) => {
                    encode_error = Some(e);
                    None
                }
            }
        },
        |bytes| {
            let batches = StreamReader::try_new(std::io::Cursor::new(bytes), None)
                .map_err(PythonError::from)
                .and_then(|r| {
                    r.map(|b| b.map_err(PythonError::from))
                        .collect::<Result<Vec<_>, _>>()
                });
            match batches {
                Ok(batches) => batches.into_iter().all(|b| on_batch(Ok(b))),
                Err(e) => {
                    on_batch(Err(e));
                    false
                }
            }
        },
        stop_input,
    );
    kill.disarm();
    if let Some(e) = encode_error {
        return Err(e);
    }
    match answer {
        Ok(worker::Streamed::Done) if !kill.fired() => {
            pool::give_back(python, worker);
            Ok(())
        }
        Ok(_) => Ok(()),
        Err(e) => Err(e),
    }
}

/// The input of [`stream_killable`]: where its batches come from, and how to end it early.
pub struct StreamInput<N, S> {
    pub next: N,
    pub stop: S,
}

/// `batches` (of `schema`) as one Arrow IPC stream.
pub(crate) fn ipc_stream(schema: &Schema, batches: &[RecordBatch]) -> Result<Vec<u8>, PythonError> {
    let mut bytes = Vec::new();
    let mut writer = StreamWriter::try_new(&mut bytes, schema)?;
    for b in batches {
        writer.write(b)?;
    }
    writer.finish()?;
    drop(writer);
    Ok(bytes)
}

/// The worker's request to run a UDTF's static `analyze` method (`worker_udtf.py`).
const UDTF_ANALYZE: i32 = -1;

/// What a UDTF's `analyze` answered: its result schema (a Spark type string,
/// `struct<a:int,...>`) and the rest of its `AnalyzeResult` as JSON
/// (`withSinglePartition`, `partitionBy`, `orderBy`, `select`).
#[derive(Debug, Clone)]
pub struct Analyzed {
    pub schema: String,
    pub rest: String,
}

/// Run the static `analyze` method of the UDTF class `function` over `args`: one column per
/// argument (named as the UDTF's request names them), its field metadata `ember.kind` one of
/// `table`, `constant` (the value in the batch's one row) or `expr`.
pub fn analyze_udtf(
    function: &PythonFunction,
    python: &str,
    args: &RecordBatch,
) -> Result<Analyzed, PythonError> {
    let input = ipc_stream(&args.schema(), std::slice::from_ref(args))?;
    let answer = exchange(function, UDTF_ANALYZE, python, &input, &[])?;
    let schema = StreamReader::try_new(std::io::Cursor::new(answer), None)?.schema();
    let get = |k: &str| schema.metadata().get(k).cloned().unwrap_or_default();
    Ok(Analyzed {
        schema: get("ember.schema"),
        rest: get("ember.analyze"),
    })
}

pub fn schema_bytes(schema: &Schema) -> Result<Vec<u8>, PythonError> {
    ipc_stream(schema, &[])
}

/// The schema of an Arrow IPC stream (what [`schema_bytes`] wrote).
pub fn schema_from_bytes(bytes: &[u8]) -> Result<SchemaRef, PythonError> {
    Ok(StreamReader::try_new(std::io::Cursor::new(bytes), None)?.schema())
}
