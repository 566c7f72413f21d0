//! `mapInPandas` / `mapInArrow`: each partition's rows go through a Python function that takes
//! an iterator of batches and yields batches of another schema. The partition's batches (of
//! `spark.sql.execution.arrow.maxRecordsPerBatch` rows, as Spark's) stream to one pooled worker
//! while what the function yields streams back as the partition's output, a few batches in
//! flight each way (the worker protocol's streamed requests).
//!
//! `groupBy().applyInPandas` / `applyInArrow` use the same operator with grouping keys (the
//! input's first columns): the input is hash-partitioned and sorted by the keys (as Spark's:
//! the sort spills, and one group at a time is held), each group goes to the worker as one
//! batch (keys first, the schema's metadata saying how many), and the function is called once
//! per group.

use std::fmt;
use std::sync::Arc;

use arrow::array::{RecordBatch, RecordBatchOptions};
use arrow::compute::SortOptions;
use arrow::datatypes::{Schema, SchemaRef};
use arrow::row::{RowConverter, SortField};
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::common::{DataFusionError, Result, internal_err};
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_expr::expressions::Column;
use datafusion::physical_expr::{
    Distribution, EquivalenceProperties, LexRequirement, OrderingRequirements, PhysicalExpr,
    PhysicalSortRequirement,
};
use datafusion::physical_plan::execution_plan::{Boundedness, EmissionType};
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, ExecutionPlan, ExecutionPlanProperties, PlanProperties,
};

use super::cancel::Registered;
use super::feed::{AbortOnDrop, Rebatch, feed, on_first_poll, spawn_in_scope};
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

    /// The first `n` input columns (the grouping keys).
    fn key_columns(&self, n: usize) -> Vec<Arc<dyn PhysicalExpr>> {
        let schema = self.input.schema();
        (0..n)
            .map(|i| Arc::new(Column::new(schema.field(i).name(), i)) as Arc<dyn PhysicalExpr>)
            .collect()
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
            Some(n) => vec![Distribution::KeyPartitioned(self.key_columns(n))],
        }
    }

    /// The grouped forms read each partition sorted by its keys, as Spark's: a group at a time
    /// is held, never the partition (and the sort spills).
    fn required_input_ordering(&self) -> Vec<Option<OrderingRequirements>> {
        let Some(n @ 1..) = self.group_keys else {
            return vec![None];
        };
        let sorted = self
            .key_columns(n)
            .into_iter()
            .map(|c| PhysicalSortRequirement::new(c, Some(SortOptions::default())));
        vec![LexRequirement::new(sorted).map(OrderingRequirements::new)]
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
        // What the worker gets: batches of `step` rows, or (the grouped forms, whose batches
        // carry the number of keys in their schema) one batch per group.
        let mut cut = match self.group_keys {
            Some(keys) => Cut::Groups(Groups::new(&in_schema, keys)?),
            None => Cut::Rows(Rebatch::new(in_schema.clone(), step)),
        };
        let schema = match &cut {
            Cut::Groups(g) => g.schema.clone(),
            Cut::Rows(_) => in_schema,
        };
        Ok(on_first_poll(self.schema.clone(), move |scope| {
            // Batches go to the worker while it yields its results (the worker protocol's
            // streamed requests), a few at a time each way: neither the partition nor its
            // result is held.
            let (in_tx, mut in_rx) = tokio::sync::mpsc::channel::<RecordBatch>(2);
            let (out_tx, out_rx) = tokio::sync::mpsc::channel::<Result<RecordBatch>>(2);
            let cut = move |batch: Option<RecordBatch>| match batch {
                Some(batch) => cut.push(batch),
                None => cut.finish(),
            };
            let feeder = spawn_in_scope(scope.clone(), feed(input, cut, in_tx, out_tx.clone()));
            let switch = super::KillSwitch::default();
            let stop_feeder = feeder.abort_handle();
            let guard = (
                AbortOnDrop(feeder.abort_handle()),
                super::KillOnDrop(switch.clone()),
            );
            tokio::task::spawn_blocking(move || {
                // (An interrupted query kills the worker at once.)
                let _registered = scope.map(|s| Registered::new(s, &switch));
                let answer = super::stream_killable(
                    &function,
                    &python,
                    &schema,
                    super::StreamInput {
                        next: || in_rx.blocking_recv(),
                        // (The function ended before its input: no more of it is computed.)
                        stop: move || stop_feeder.abort(),
                    },
                    &out_schema,
                    |batch| out_tx.blocking_send(batch.map_err(on_error)).is_ok(),
                    &switch,
                );
                switch.finished();
                if let Err(e) = answer {
                    let _ = out_tx.blocking_send(Err(on_error(e)));
                }
            });
            (out_rx, guard)
        }))
    }
}

/// How a partition's batches are cut for the worker.
enum Cut {
    Rows(Rebatch),
    Groups(Groups),
}

impl Cut {
    /// The batches for the worker that `batch` completes.
    fn push(&mut self, batch: RecordBatch) -> Result<Vec<RecordBatch>> {
        match self {
            Cut::Rows(r) => r.push(batch),
            Cut::Groups(g) => g.push(&batch),
        }
    }

    /// The last ones, at the end of the input.
    fn finish(&mut self) -> Result<Vec<RecordBatch>> {
        match self {
            Cut::Rows(r) => r.finish(),
            Cut::Groups(g) => g.finish(),
        }
    }
}

/// The groups of a sorted input, one batch each (keys first, under a schema whose metadata
/// names the number of keys): a group is complete when a row of other keys follows it.
struct Groups {
    schema: SchemaRef,
    keys: usize,
    converter: RowConverter,
    /// The rows of the group not known to be complete yet.
    pending: Vec<RecordBatch>,
}

impl Groups {
    fn new(schema: &SchemaRef, keys: usize) -> Result<Self> {
        let mut metadata = schema.metadata().clone();
        metadata.insert("ember.group_keys".to_string(), keys.to_string());
        let fields = schema.fields().iter().take(keys);
        Ok(Self {
            schema: Arc::new(Schema::new_with_metadata(schema.fields().clone(), metadata)),
            keys,
            converter: RowConverter::new(
                fields
                    .map(|f| SortField::new(f.data_type().clone()))
                    .collect(),
            )?,
            pending: Vec::new(),
        })
    }

    /// The groups `batch` completes.
    fn push(&mut self, batch: &RecordBatch) -> Result<Vec<RecordBatch>> {
        if batch.num_rows() == 0 {
            return Ok(vec![]);
        }
        // (Under the tagged schema; a shuffled batch may call a never-NULL column nullable.)
        let batch = RecordBatch::try_new_with_options(
            self.schema.clone(),
            batch.columns().to_vec(),
            &RecordBatchOptions::new().with_row_count(Some(batch.num_rows())),
        )?;
        let ranges = if self.keys == 0 {
            std::iter::once(0..batch.num_rows()).collect()
        } else {
            arrow::compute::partition(&batch.columns()[..self.keys])?.ranges()
        };
        let mut done = Vec::new();
        for (i, range) in ranges.iter().enumerate() {
            let slice = batch.slice(range.start, range.len());
            if i > 0 || !self.continues(&slice)? {
                done.extend(self.finish()?);
            }
            self.pending.push(slice);
        }
        Ok(done)
    }

    /// Whether `slice` (rows of one key) belongs to the pending group.
    fn continues(&self, slice: &RecordBatch) -> Result<bool> {
        let Some(last) = self.pending.last() else {
            return Ok(true);
        };
        if self.keys == 0 {
            return Ok(true);
        }
        let a = self
            .converter
            .convert_columns(&last.slice(0, 1).columns()[..self.keys])?;
        let b = self
            .converter
            .convert_columns(&slice.slice(0, 1).columns()[..self.keys])?;
        Ok(a.row(0) == b.row(0))
    }

    /// The pending group, complete (if there is one).
    fn finish(&mut self) -> Result<Vec<RecordBatch>> {
        if self.pending.is_empty() {
            return Ok(vec![]);
        }
        let rows = std::mem::take(&mut self.pending);
        Ok(vec![arrow::compute::concat_batches(&self.schema, &rows)?])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::{Array, Int64Array};
    use arrow::datatypes::{DataType, Field};

    /// The groups of sorted key batches: each group's values, in order.
    fn grouped(keys: usize, batches: &[&[Option<i64>]]) -> Vec<Vec<Option<i64>>> {
        let schema = Arc::new(Schema::new(vec![Field::new("k", DataType::Int64, true)]));
        let mut groups = Groups::new(&schema, keys).unwrap();
        let mut out = Vec::new();
        for values in batches {
            let column = Arc::new(Int64Array::from(values.to_vec()));
            let batch = RecordBatch::try_new(schema.clone(), vec![column]).unwrap();
            out.extend(groups.push(&batch).unwrap());
        }
        out.extend(groups.finish().unwrap());
        for g in &out {
            assert_eq!(g.schema().metadata()["ember.group_keys"], keys.to_string());
        }
        out.iter()
            .map(|b| {
                let values = b.column(0).as_any().downcast_ref::<Int64Array>().unwrap();
                values.iter().collect()
            })
            .collect()
    }

    #[test]
    fn groups_of_a_sorted_input_span_batches() {
        let (n, one, two, three) = (None, Some(1), Some(2), Some(3));
        assert_eq!(
            grouped(
                1,
                &[&[n, n, one], &[one, one], &[], &[one, two, three], &[three]]
            ),
            vec![
                vec![n, n],
                vec![one, one, one, one],
                vec![two],
                vec![three, three]
            ]
        );
        // No keys: one group of every row.
        assert_eq!(grouped(0, &[&[one], &[two, n]]), vec![vec![one, two, n]]);
        assert!(grouped(1, &[]).is_empty());
    }
}
