//! Reading a Python data source (`spark.read.format("my").load()` after
//! `spark.dataSource.register(MySource)`): at planning time a pooled worker gives the source's
//! schema (unless the reader gave one) and plans the read (its pickled reader and partitions,
//! `ember_execution::python::datasource`); the plan is then a map (`PythonMapNode`, eval type
//! `DS_READ`) over a table of the pickled partitions, one partition each, so each partition is
//! read by a task of its own (on cluster workers too).

use std::collections::HashMap;
use std::sync::Arc;

use arrow::array::{BinaryArray, RecordBatch};
use arrow::datatypes::{DataType, Field, Schema};
use datafusion::datasource::{MemTable, provider_as_source};
use datafusion::logical_expr::{LogicalPlan, LogicalPlanBuilder};
use ember_execution::python::datasource::{self, DS_READ, Planned};
use ember_execution::python::{PythonFunction, python_executable};

use super::Resolver;
use crate::error::{ErrorKind, PlanResult, SparkError};
use crate::functions::python::python_error;
use crate::spec::DataSource;

/// A planning step of a Python data source failed, as Spark reports it.
pub fn data_source_error(message: String) -> SparkError {
    SparkError::new(
        ErrorKind::Analysis,
        "PYTHON_DATA_SOURCE_ERROR",
        "38000",
        message.clone(),
        vec![("msg", message)],
    )
}

/// A planning step's result, its failure as Spark's error.
pub fn planned<T>(step: Result<Planned<T>, ember_execution::python::PythonError>) -> PlanResult<T> {
    match step.map_err(python_error)? {
        Planned::Done(v) => Ok(v),
        Planned::Failed(message) => Err(data_source_error(message).into()),
    }
}

/// The options a Python data source sees: the reader's, with `path` for `load(path)`.
pub fn source_options(ds: &DataSource) -> PlanResult<HashMap<String, String>> {
    let mut options = ds.options.clone();
    match ds.paths.as_slice() {
        [] => {}
        [path] => {
            options.insert("path".into(), path.clone());
        }
        _ => {
            return Err(crate::error::PlanError::Unsupported(
                "several paths for a Python data source".into(),
            ));
        }
    }
    Ok(options)
}

/// Whether Spark knows `format` without a registered Python data source (its built-in short
/// names; a class name, with dots, is left to the readers to refuse).
pub fn is_builtin_source(format: &str) -> bool {
    const BUILTIN: &[&str] = &[
        "parquet",
        "csv",
        "json",
        "orc",
        "text",
        "avro",
        "delta",
        "iceberg",
        "xml",
        "binaryfile",
        "jdbc",
        "libsvm",
        "image",
        "noop",
        "kafka",
        "rate",
        "console",
        "memory",
        "socket",
        "hive",
        "foreach",
        "foreachbatch",
        "rate-micro-batch",
        "state-metadata",
        "statestore",
    ];
    format.contains('.') || BUILTIN.iter().any(|b| b.eq_ignore_ascii_case(format))
}

impl Resolver<'_> {
    pub(crate) fn resolve_python_source(
        &mut self,
        name: &str,
        source: &PythonFunction,
        ds: &DataSource,
    ) -> PlanResult<LogicalPlan> {
        let python = python_executable(self.config.python.as_deref());
        let options = source_options(ds)?;
        let text = match &ds.schema {
            Some(s) if !s.trim().is_empty() => s.clone(),
            _ => planned(datasource::schema(source, &python, &options))?,
        };
        let schema = crate::types::parse_schema(&text, &self.config.time_zone)?;
        let (reader, partitions) = planned(datasource::plan_read(
            source,
            &python,
            &options,
            &schema,
            self.config.python_filter_pushdown,
        ))?;
        let part_schema = Arc::new(Schema::new(vec![Field::new(
            "partition",
            DataType::Binary,
            false,
        )]));
        let parts = partitions
            .iter()
            .map(|p| {
                let column = BinaryArray::from(vec![p.as_slice()]);
                RecordBatch::try_new(part_schema.clone(), vec![Arc::new(column) as _])
                    .map(|b| vec![b])
            })
            .collect::<Result<Vec<_>, _>>()
            .map_err(datafusion::error::DataFusionError::from)?;
        let table = MemTable::try_new(part_schema, parts)?;
        let scan = LogicalPlanBuilder::scan(
            format!("python_source_{}", name.to_ascii_lowercase()),
            provider_as_source(Arc::new(table)),
            None,
        )?
        .build()?;
        let read = PythonFunction {
            eval_type: DS_READ,
            command: reader.into(),
            python_ver: source.python_ver.clone(),
            artifacts: source.artifacts.clone(),
        };
        self.python_map(scan, read, schema.fields(), None)
    }
}
