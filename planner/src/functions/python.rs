//! A Python UDF call as a DataFusion scalar function: each batch's arguments go to a Python
//! worker process (`ember_execution::python`) and its answer is the column. The function is
//! volatile so that DataFusion never folds it at planning time nor merges two calls of a
//! non-deterministic function; it encodes itself for cluster workers (`impl EncodedUdf`).

use std::sync::Arc;

use arrow::datatypes::{DataType, Field, FieldRef};
use datafusion::common::{DataFusionError, Result, internal_err};
use datafusion::logical_expr::{
    ColumnarValue, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature, TypeSignature,
    Volatility,
};
use ember_execution::codec::{ArrowType, EncodedUdf, data_type_message, data_type_of};
use ember_execution::python::{self, PythonError, PythonFunction, PythonFunctionMessage};

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

    pub fn keywords(&self) -> &[Option<String>] {
        &self.keywords
    }

    pub fn return_type(&self) -> &DataType {
        &self.return_type
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

/// A Python scalar or aggregate function on the wire for cluster workers.
#[derive(Clone, PartialEq, prost::Message)]
pub struct PythonUdfMessage {
    #[prost(string, tag = "1")]
    name: String,
    #[prost(message, optional, tag = "2")]
    function: Option<PythonFunctionMessage>,
    #[prost(message, optional, tag = "3")]
    return_type: Option<ArrowType>,
    #[prost(string, optional, tag = "4")]
    python: Option<String>,
    #[prost(uint64, tag = "5")]
    batch_size: u64,
    #[prost(bool, tag = "6")]
    deterministic: bool,
    #[prost(message, repeated, tag = "7")]
    keywords: Vec<KeywordMessage>,
}

/// The keyword an argument was passed by (none: positional).
#[derive(Clone, PartialEq, prost::Message)]
pub struct KeywordMessage {
    #[prost(string, optional, tag = "1")]
    keyword: Option<String>,
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

impl EncodedPython {
    pub fn to_message(&self) -> Option<PythonUdfMessage> {
        Some(PythonUdfMessage {
            name: self.name.clone(),
            function: Some(self.function.to_message()),
            return_type: Some(data_type_message(&self.return_type)?),
            python: self.python.clone(),
            batch_size: self.batch_size as u64,
            deterministic: self.deterministic,
            keywords: self
                .keywords
                .iter()
                .map(|k| KeywordMessage { keyword: k.clone() })
                .collect(),
        })
    }

    pub fn from_message(m: PythonUdfMessage) -> Result<Self> {
        let Some(function) = m.function else {
            return internal_err!("a Python function message without its function");
        };
        Ok(Self {
            name: m.name,
            function: PythonFunction::from_message(function),
            return_type: data_type_of(m.return_type.as_ref())?,
            python: m.python,
            batch_size: usize::try_from(m.batch_size)
                .map_err(|_| DataFusionError::Internal("bad Python batch size".into()))?,
            deterministic: m.deterministic,
            keywords: m.keywords.into_iter().map(|k| k.keyword).collect(),
        })
    }
}

impl EncodedUdf for PythonScalarUdf {
    const NAME: &'static str = "python_udf";
    type Message = PythonUdfMessage;

    fn to_message(&self) -> Option<PythonUdfMessage> {
        EncodedPython {
            name: self.name.clone(),
            function: self.function.clone(),
            return_type: self.return_type.clone(),
            python: self.python.clone(),
            batch_size: self.batch_size,
            deterministic: self.deterministic,
            keywords: self.keywords.clone(),
        }
        .to_message()
    }

    fn from_message(_name: &str, m: PythonUdfMessage) -> Result<Arc<ScalarUDF>> {
        let p = EncodedPython::from_message(m)?;
        Ok(Self::new(
            p.name,
            p.function,
            p.return_type,
            p.python,
            p.batch_size,
            p.deterministic,
        )
        .with_keywords(p.keywords)
        .udf())
    }
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
        let message = udf.to_message().unwrap();
        let back = <PythonScalarUdf as EncodedUdf>::from_message("plus_one", message).unwrap();
        let back: &dyn std::any::Any = back.inner().as_ref();
        assert_eq!(back.downcast_ref::<PythonScalarUdf>(), Some(&udf));
    }
}
