//! `mapInPandas` / `mapInArrow`: each partition's rows go through a Python function that takes
//! an iterator of batches and yields batches of another schema. The partition's batches (in
//! slices of `spark.sql.execution.arrow.maxRecordsPerBatch` rows) are sent to one pooled
//! worker, and what the function yields becomes the partition's output.
//!
//! `groupBy().applyInPandas` / `applyInArrow` use the same operator with grouping keys (the
//! input's first columns): the input is hash-partitioned by the keys, each group goes to the
//! worker as one batch (keys first, the schema's metadata saying how many), and the function
//! is called once per group.

use std::fmt;
use std::sync::Arc;

use std::collections::HashMap;

use arrow::array::{RecordBatch, UInt32Array};
use arrow::datatypes::{Schema, SchemaRef};
use arrow::row::{RowConverter, SortField};
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::common::{DataFusionError, Result, internal_err};
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_expr::expressions::Column;
use datafusion::physical_expr::{Distribution, EquivalenceProperties, PhysicalExpr};
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
    /// Grouping keys (the input's first columns), for the grouped forms.
    group_keys: Option<usize>,
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
            group_keys: None,
            properties,
        }
    }

    /// The grouped form: `keys` leading input columns are the grouping keys.
    pub fn grouped(mut self, keys: usize) -> Self {
        self.group_keys = Some(keys);
        self
    }

    pub fn group_keys(&self) -> Option<usize> {
        self.group_keys
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

    fn required_input_distribution(&self) -> Vec<Distribution> {
        match self.group_keys {
            None => vec![Distribution::UnspecifiedDistribution],
            Some(0) => vec![Distribution::SinglePartition],
            Some(n) => vec![Distribution::KeyPartitioned(
                (0..n)
                    .map(|i| {
                        let field = self.input.schema().field(i).clone();
                        Arc::new(Column::new(field.name(), i)) as Arc<dyn PhysicalExpr>
                    })
                    .collect(),
            )],
        }
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
        let mut exec = Self::new(
            input,
            self.function.clone(),
            self.python.clone(),
            self.batch_size,
            self.schema.clone(),
            self.on_error,
        );
        exec.group_keys = self.group_keys;
        Ok(Arc::new(exec))
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
        let group_keys = self.group_keys;
        let stream = futures::stream::once(async move {
            let batches: Vec<_> = input.try_collect().await?;
            let mut slices = Vec::new();
            let mut in_schema = in_schema;
            if let Some(keys) = group_keys {
                (in_schema, slices) = groups(&in_schema, &batches, keys)?;
            }
            for b in batches.into_iter().filter(|_| group_keys.is_none()) {
                let mut offset = 0;
                while offset < b.num_rows() {
                    let len = step.min(b.num_rows() - offset);
                    slices.push(b.slice(offset, len));
                    offset += len;
                }
            }
            let schema = out_schema.clone();
            // (A cancelled query drops this future: the guard kills the worker.)
            let switch = super::KillSwitch::default();
            let guard = super::KillOnDrop(switch.clone());
            let answer = tokio::task::spawn_blocking(move || {
                super::run_killable(
                    &function,
                    &python,
                    &in_schema,
                    &slices,
                    &schema,
                    Some(&switch),
                )
            })
            .await;
            guard.0.finished();
            let answer = answer
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

/// The rows of `batches` as one batch per group of the first `keys` columns (in the order the
/// groups first appear), under a schema whose metadata names the number of keys.
fn groups(
    schema: &SchemaRef,
    batches: &[RecordBatch],
    keys: usize,
) -> Result<(SchemaRef, Vec<RecordBatch>)> {
    let mut metadata = schema.metadata().clone();
    metadata.insert("ember.group_keys".to_string(), keys.to_string());
    let tagged = Arc::new(Schema::new_with_metadata(schema.fields().clone(), metadata));
    let all = arrow::compute::concat_batches(schema, batches)?;
    if all.num_rows() == 0 {
        return Ok((tagged, vec![]));
    }
    if keys == 0 {
        // (One group of every row.)
        return Ok((tagged.clone(), vec![all.with_schema(tagged)?]));
    }
    let converter = RowConverter::new(
        schema
            .fields()
            .iter()
            .take(keys)
            .map(|f| SortField::new(f.data_type().clone()))
            .collect(),
    )?;
    let rows = converter.convert_columns(&all.columns()[..keys])?;
    let mut order: Vec<Vec<u32>> = Vec::new();
    let mut index: HashMap<Vec<u8>, usize> = HashMap::new();
    for i in 0..all.num_rows() {
        let key = rows.row(i).as_ref().to_vec();
        let slot = *index.entry(key).or_insert_with(|| {
            order.push(Vec::new());
            order.len() - 1
        });
        order[slot].push(i as u32);
    }
    let mut out = Vec::with_capacity(order.len());
    for indices in order {
        let indices = UInt32Array::from(indices);
        let columns = all
            .columns()
            .iter()
            .map(|c| arrow::compute::take(c.as_ref(), &indices, None))
            .collect::<std::result::Result<Vec<_>, _>>()?;
        out.push(RecordBatch::try_new(tagged.clone(), columns)?);
    }
    Ok((tagged, out))
}
