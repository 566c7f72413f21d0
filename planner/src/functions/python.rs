//! A Python UDF call as a DataFusion scalar function: each batch's arguments go to a Python
//! worker process (`ember_execution::python`) and its answer is the column. The function is
//! volatile so that DataFusion never folds it at planning time nor merges two calls of a
//! non-deterministic function; plans carry it to cluster workers through the server's codec.

use std::sync::Arc;

use arrow::datatypes::{DataType, Field, FieldRef};
use datafusion::common::Result;
use datafusion::logical_expr::{
    ColumnarValue, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature, TypeSignature,
    Volatility,
};
use ember_execution::python::{self, PythonError, PythonFunction};

use crate::error::{ErrorKind, SparkError, to_datafusion};

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PythonScalarUdf {
    name: String,
    function: PythonFunction,
    return_type: DataType,
    /// The session's `spark.pyspark.python`, if set.
    python: Option<String>,
    /// `spark.sql.execution.arrow.maxRecordsPerBatch`.
    batch_size: usize,
    deterministic: bool,
    /// The keyword of each argument passed by keyword, `None` for positional ones.
    keywords: Vec<Option<String>>,
    signature: Signature,
}

impl PythonScalarUdf {
    pub fn new(
        name: String,
        function: PythonFunction,
        return_type: DataType,
        python: Option<String>,
        batch_size: usize,
        deterministic: bool,
    ) -> Self {
        Self {
            name,
            function,
            return_type,
            python,
            batch_size,
            deterministic,
            keywords: vec![],
            signature: Signature::one_of(
                vec![TypeSignature::Nullary, TypeSignature::VariadicAny],
                Volatility::Volatile,
            ),
        }
    }

    /// The keywords of the arguments (`f(x, b=y)`: `[None, Some("b")]`).
    pub fn with_keywords(mut self, keywords: Vec<Option<String>>) -> Self {
        self.keywords = keywords;
        self
    }

    pub fn udf(self) -> Arc<ScalarUDF> {
        Arc::new(ScalarUDF::from(self))
    }

    pub fn function(&self) -> &PythonFunction {
        &self.function
    }

    pub fn python(&self) -> Option<&str> {
        self.python.as_deref()
    }

    pub fn batch_size(&self) -> usize {
        self.batch_size
    }

    pub fn deterministic(&self) -> bool {
        self.deterministic
    }
}

impl ScalarUDFImpl for PythonScalarUdf {
    fn name(&self) -> &str {
        &self.name
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _args: &[DataType]) -> Result<DataType> {
        Ok(self.return_type.clone())
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let rows = args.number_rows;
        let arrays = args
            .args
            .iter()
            .map(|a| a.to_array(rows))
            .collect::<Result<Vec<_>>>()?;
        let field: FieldRef = Arc::new(Field::new("result", self.return_type.clone(), true));
        let python = python::python_executable(self.python.as_deref());
        python::evaluate(
            &self.function,
            &python,
            &arrays,
            &self.keywords,
            rows,
            &field,
            self.batch_size,
        )
        .map(ColumnarValue::Array)
        .map_err(|e| to_datafusion(python_error(e)))
    }
}

/// A worker's failure as Spark reports it.
pub fn python_error(e: PythonError) -> SparkError {
    match e {
        PythonError::Exception { traceback, .. } => SparkError::new(
            ErrorKind::Python,
            "PYTHON_EXCEPTION",
            "38000",
            format!("An exception was thrown from the Python worker: {traceback}"),
            vec![("msg", traceback.clone())],
        ),
        PythonError::VersionMismatch { .. } => SparkError::new(
            ErrorKind::Python,
            "PYTHON_EXCEPTION",
            "38000",
            format!("An exception was thrown from the Python worker: {e}"),
            vec![("msg", e.to_string())],
        ),
        // Spark reports a dead worker as a SparkException without an error class.
        PythonError::Crashed(message) => SparkError::new(ErrorKind::Spark, "", "", message, vec![]),
        // Spark's worker fails to import what it lacks, which reaches the client as a
        // PythonException.
        PythonError::Setup(message) => SparkError::new(
            ErrorKind::Python,
            "PYTHON_EXCEPTION",
            "38000",
            format!("An exception was thrown from the Python worker: {message}"),
            vec![("msg", message.clone())],
        ),
        PythonError::Arrow(message) => SparkError::new(
            ErrorKind::Internal,
            "INTERNAL_ERROR",
            "XX000",
            message,
            vec![],
        ),
    }
}

/// How a Python UDF crosses to cluster workers (the server's codec calls these): JSON with
/// the pickled function in hex and the return type as an Arrow IPC schema.
impl PythonScalarUdf {
    pub fn encode(&self) -> Option<Vec<u8>> {
        let schema = arrow::datatypes::Schema::new(vec![Field::new(
            "result",
            self.return_type.clone(),
            true,
        )]);
        let mut type_bytes = Vec::new();
        let mut writer =
            arrow::ipc::writer::StreamWriter::try_new(&mut type_bytes, &schema).ok()?;
        writer.finish().ok()?;
        drop(writer);
        let v = serde_json::json!({
            "name": self.name,
            "eval_type": self.function.eval_type,
            "command": hex(&self.function.command),
            "python_ver": self.function.python_ver,
            "python": self.python,
            "batch_size": self.batch_size,
            "deterministic": self.deterministic,
            "keywords": self.keywords,
            "return_type": hex(&type_bytes),
            "artifacts": self.function.artifacts.as_ref().map(|a| a.to_json()),
        });
        Some(v.to_string().into_bytes())
    }

    pub fn decode(payload: &[u8]) -> Option<Arc<ScalarUDF>> {
        let p = Self::decode_parts(payload)?;
        Some(
            Self::new(
                p.name,
                p.function,
                p.return_type,
                p.python,
                p.batch_size,
                p.deterministic,
            )
            .with_keywords(p.keywords)
            .udf(),
        )
    }

    /// What [`Self::encode`] wrote.
    pub fn decode_parts(payload: &[u8]) -> Option<EncodedPython> {
        let v: serde_json::Value = serde_json::from_slice(payload).ok()?;
        let text = |k: &str| v.get(k).and_then(|x| x.as_str()).map(str::to_string);
        let type_bytes = unhex(&text("return_type")?)?;
        let reader =
            arrow::ipc::reader::StreamReader::try_new(std::io::Cursor::new(type_bytes), None)
                .ok()?;
        let return_type = reader.schema().field(0).data_type().clone();
        Some(EncodedPython {
            name: text("name")?,
            function: PythonFunction {
                eval_type: i32::try_from(v.get("eval_type")?.as_i64()?).ok()?,
                command: unhex(&text("command")?)?.into(),
                python_ver: text("python_ver")?,
                artifacts: v
                    .get("artifacts")
                    .and_then(python::PythonArtifacts::from_json),
            },
            return_type,
            python: text("python"),
            batch_size: usize::try_from(v.get("batch_size")?.as_u64()?).ok()?,
            deterministic: v.get("deterministic")?.as_bool()?,
            keywords: v
                .get("keywords")
                .and_then(|k| serde_json::from_value(k.clone()).ok())
                .unwrap_or_default(),
        })
    }
}

/// A Python function as it crossed to a worker.
pub struct EncodedPython {
    pub name: String,
    pub function: PythonFunction,
    pub return_type: DataType,
    pub python: Option<String>,
    pub batch_size: usize,
    pub deterministic: bool,
    pub keywords: Vec<Option<String>>,
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> Option<Vec<u8>> {
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encoding_round_trips() {
        let udf = PythonScalarUdf::new(
            "plus_one".into(),
            PythonFunction {
                eval_type: 101,
                command: vec![0u8, 1, 2, 255].into(),
                python_ver: "3.11".into(),
                artifacts: None,
            },
            DataType::List(Arc::new(Field::new_list_field(DataType::Int32, true))),
            Some("/usr/bin/python3".into()),
            3,
            false,
        )
        .with_keywords(vec![None, Some("b".into())]);
        let bytes = udf.encode().unwrap();
        let back = PythonScalarUdf::decode(&bytes).unwrap();
        let back: &dyn std::any::Any = back.inner().as_ref();
        assert_eq!(back.downcast_ref::<PythonScalarUdf>(), Some(&udf));
    }
}
