//! `mapInPandas` / `mapInArrow`: each partition's rows go through a Python function that takes
//! an iterator of batches and yields batches of another schema. The partition's batches (in
//! slices of `spark.sql.execution.arrow.maxRecordsPerBatch` rows) are sent to one pooled
//! worker, and what the function yields becomes the partition's output.

use std::fmt;
use std::sync::Arc;

use arrow::datatypes::SchemaRef;
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::common::{DataFusionError, Result, internal_err};
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_expr::{EquivalenceProperties, PhysicalExpr};
use datafusion::physical_plan::execution_plan::{Boundedness, EmissionType};
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, ExecutionPlan, ExecutionPlanProperties, PlanProperties,
};
use futures::TryStreamExt;

use super::{PythonError, PythonFunction};

/// Turns a worker's failure into the error the query reports (the planner's Spark error).
pub type ErrorMapper = fn(PythonError) -> DataFusionError;

#[derive(Debug)]
pub struct PythonMapExec {
    input: Arc<dyn ExecutionPlan>,
    function: PythonFunction,
    /// The session's `spark.pyspark.python`, if set.
    python: Option<String>,
    batch_size: usize,
    schema: SchemaRef,
    on_error: ErrorMapper,
    properties: Arc<PlanProperties>,
}

impl PythonMapExec {
    pub fn new(
        input: Arc<dyn ExecutionPlan>,
        function: PythonFunction,
        python: Option<String>,
        batch_size: usize,
        schema: SchemaRef,
        on_error: ErrorMapper,
    ) -> Self {
        let properties = Arc::new(PlanProperties::new(
            EquivalenceProperties::new(schema.clone()),
            input.output_partitioning().clone(),
            EmissionType::Final,
            Boundedness::Bounded,
        ));
        Self {
            input,
            function,
            python,
            batch_size,
            schema,
            on_error,
            properties,
        }
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

    pub fn on_error(&self) -> ErrorMapper {
        self.on_error
    }
}

impl DisplayAs for PythonMapExec {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "PythonMapExec: eval_type={}", self.function.eval_type)
    }
}

impl ExecutionPlan for PythonMapExec {
    fn name(&self) -> &str {
        "PythonMapExec"
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        &self.properties
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        vec![&self.input]
    }

    fn benefits_from_input_partitioning(&self) -> Vec<bool> {
        vec![false]
    }

    fn apply_expressions(
        &self,
        _f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> Result<TreeNodeRecursion>,
    ) -> Result<TreeNodeRecursion> {
        Ok(TreeNodeRecursion::Continue)
    }

    fn with_new_children(
        self: Arc<Self>,
        mut children: Vec<Arc<dyn ExecutionPlan>>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let Some(input) = children.pop() else {
            return internal_err!("PythonMapExec takes one input");
        };
        Ok(Arc::new(Self::new(
            input,
            self.function.clone(),
            self.python.clone(),
            self.batch_size,
            self.schema.clone(),
            self.on_error,
        )))
    }

    fn execute(
        &self,
        partition: usize,
        context: Arc<TaskContext>,
    ) -> Result<SendableRecordBatchStream> {
        let input = self.input.execute(partition, context)?;
        let in_schema = self.input.schema();
        let out_schema = self.schema.clone();
        let function = self.function.clone();
        let python = super::python_executable(self.python.as_deref());
        let step = self.batch_size.max(1);
        let on_error = self.on_error;
        let stream = futures::stream::once(async move {
            let batches: Vec<_> = input.try_collect().await?;
            let mut slices = Vec::new();
            for b in batches {
                let mut offset = 0;
                while offset < b.num_rows() {
                    let len = step.min(b.num_rows() - offset);
                    slices.push(b.slice(offset, len));
                    offset += len;
                }
            }
            let schema = out_schema.clone();
            let answer = tokio::task::spawn_blocking(move || {
                super::run(&function, &python, &in_schema, &slices, &schema)
            })
            .await
            .map_err(|e| DataFusionError::External(Box::new(e)))?
            .map_err(on_error)?;
            Ok::<_, DataFusionError>(futures::stream::iter(answer.into_iter().map(Ok)))
        })
        .try_flatten();
        Ok(Box::pin(RecordBatchStreamAdapter::new(
            self.schema.clone(),
            stream,
        )))
    }
}
