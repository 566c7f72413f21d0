//! A projection's scalar Python UDF (`udf`, `pandas_udf`, `arrow_udf` and their iterator
//! forms), evaluated as Spark's ArrowEvalPythonExec does: a partition's argument batches
//! stream through one pooled worker (cut to `spark.sql.execution.arrow.maxRecordsPerBatch`
//! rows) while Ember computes the next ones, and each input batch comes out with the result
//! column appended. The worker and Ember overlap, where a call per batch would alternate
//! between them. (Filters, join conditions and aggregates still call the function per batch:
//! `PythonScalarUdf` in the planner.)
//!
//! The planner's physical rule puts this operator under a projection in place of the calls.
//! A stream dropped early (a `LIMIT`) ends the worker's input and lets it answer what it has,
//! so that it returns to the pool (killed if that takes over a second); an interrupted query
//! kills it at once (its cancel scope).

use std::collections::VecDeque;
use std::fmt;
use std::sync::Arc;

use arrow::array::{Array, ArrayRef, RecordBatch, RecordBatchOptions};
use arrow::datatypes::{Field, FieldRef, Schema, SchemaRef};
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::common::{DataFusionError, Result, internal_err};
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_expr::projection::ProjectionMapping;
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, ExecutionPlan, ExecutionPlanProperties, PlanProperties,
};
use parking_lot::Mutex;

use super::cancel::{KillAfter, Registered};
use super::feed::{AbortOnDrop, Rebatch, feed, on_first_poll, spawn_in_scope};
use super::map::ErrorMapper;
use super::{KillSwitch, PythonFunction, StreamInput};

/// How long a worker whose stream was dropped (a `LIMIT` was met) may take to answer the
/// batches it has before it is killed: a fast function's worker goes back to the pool.
const DRAIN_GRACE: std::time::Duration = std::time::Duration::from_secs(1);

/// The function a [`PythonEvalExec`] calls, and how.
#[derive(Debug, Clone)]
pub struct PythonCall {
    pub function: PythonFunction,
    /// The session's `spark.pyspark.python`, if set.
    pub python: Option<String>,
    pub batch_size: usize,
    /// The keyword of each argument passed by keyword, `None` for positional ones.
    pub keywords: Vec<Option<String>>,
    /// The result column (appended to the input's).
    pub result: FieldRef,
}

#[derive(Debug)]
pub struct PythonEvalExec {
    input: Arc<dyn ExecutionPlan>,
    args: Vec<Arc<dyn PhysicalExpr>>,
    call: PythonCall,
    on_error: ErrorMapper,
    /// The arguments as the worker sees them (`_0`, ..., `__kw__<name>`).
    arg_schema: SchemaRef,
    schema: SchemaRef,
    properties: Arc<PlanProperties>,
}

impl PythonEvalExec {
    pub fn try_new(
        input: Arc<dyn ExecutionPlan>,
        args: Vec<Arc<dyn PhysicalExpr>>,
        call: PythonCall,
        on_error: ErrorMapper,
    ) -> Result<Self> {
        let in_schema = input.schema();
        let arg_fields = args
            .iter()
            .enumerate()
            .map(|(i, a)| {
                let name = match call.keywords.get(i) {
                    Some(Some(k)) => format!("__kw__{k}"),
                    _ => format!("_{i}"),
                };
                Ok(Field::new(name, a.data_type(&in_schema)?, true))
            })
            .collect::<Result<Vec<_>>>()?;
        let mut fields = in_schema.fields().to_vec();
        fields.push(call.result.clone());
        let schema = Arc::new(Schema::new_with_metadata(
            fields,
            in_schema.metadata().clone(),
        ));
        // (The input's columns keep their places: its orderings, equivalences and
        // partitioning hold.)
        let all: Vec<usize> = (0..in_schema.fields().len()).collect();
        let mapping = ProjectionMapping::from_indices(&all, &in_schema)?;
        let properties = Arc::new(PlanProperties::new(
            input
                .equivalence_properties()
                .project(&mapping, schema.clone()),
            input.output_partitioning().clone(),
            input.pipeline_behavior(),
            input.boundedness(),
        ));
        Ok(Self {
            input,
            args,
            call,
            on_error,
            arg_schema: Arc::new(Schema::new(arg_fields)),
            schema,
            properties,
        })
    }

    pub fn args(&self) -> &[Arc<dyn PhysicalExpr>] {
        &self.args
    }

    pub fn call(&self) -> &PythonCall {
        &self.call
    }

    pub fn on_error(&self) -> ErrorMapper {
        self.on_error
    }
}

impl DisplayAs for PythonEvalExec {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        let args: Vec<String> = self.args.iter().map(|a| a.to_string()).collect();
        write!(
            f,
            "PythonEvalExec: eval_type={}, args=[{}], result={}",
            self.call.function.eval_type,
            args.join(", "),
            self.call.result.name()
        )
    }
}

impl ExecutionPlan for PythonEvalExec {
    fn name(&self) -> &str {
        "PythonEvalExec"
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        &self.properties
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        vec![&self.input]
    }

    fn maintains_input_order(&self) -> Vec<bool> {
        vec![true]
    }

    fn benefits_from_input_partitioning(&self) -> Vec<bool> {
        vec![false]
    }

    fn apply_expressions(
        &self,
        f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> Result<TreeNodeRecursion>,
    ) -> Result<TreeNodeRecursion> {
        for a in &self.args {
            if f(a)? == TreeNodeRecursion::Stop {
                return Ok(TreeNodeRecursion::Stop);
            }
        }
        Ok(TreeNodeRecursion::Continue)
    }

    fn with_new_children(
        self: Arc<Self>,
        mut children: Vec<Arc<dyn ExecutionPlan>>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let Some(input) = children.pop() else {
            return internal_err!("PythonEvalExec takes one input");
        };
        Ok(Arc::new(Self::try_new(
            input,
            self.args.clone(),
            self.call.clone(),
            self.on_error,
        )?))
    }

    fn execute(
        &self,
        partition: usize,
        context: Arc<TaskContext>,
    ) -> Result<SendableRecordBatchStream> {
        let input = self.input.execute(partition, context)?;
        let args = self.args.clone();
        let arg_schema = self.arg_schema.clone();
        let schema = self.schema.clone();
        let call = self.call.clone();
        let on_error = self.on_error;
        Ok(on_first_poll(self.schema.clone(), move |scope| {
            // The input's batches wait in `pending` while their arguments are with the worker
            // (two argument batches queued, one or two in the worker): neither the partition
            // nor its result is held.
            let (in_tx, mut in_rx) = tokio::sync::mpsc::channel::<RecordBatch>(2);
            let (out_tx, out_rx) = tokio::sync::mpsc::channel::<Result<RecordBatch>>(2);
            let pending = Arc::new(Mutex::new(VecDeque::new()));
            let cut = arguments(args, arg_schema.clone(), call.batch_size, pending.clone());
            let feeder = spawn_in_scope(scope.clone(), feed(input, cut, in_tx, out_tx.clone()));
            let stop = feeder.abort_handle();
            let switch = KillSwitch::default();
            let guard = (
                AbortOnDrop(feeder.abort_handle()),
                KillAfter(switch.clone(), DRAIN_GRACE),
            );
            tokio::task::spawn_blocking(move || {
                let _registered = scope.map(|s| Registered::new(s, &switch));
                // (An empty partition starts no worker.)
                let Some(first) = in_rx.blocking_recv() else {
                    switch.finished();
                    return;
                };
                let mut first = Some(first);
                let mut zip = Zip {
                    pending,
                    results: VecDeque::new(),
                    rows: 0,
                    schema,
                };
                let mut dropped = false;
                let mut failed = false;
                let python = super::python_executable(call.python.as_deref());
                let worker_schema = Arc::new(Schema::new(vec![
                    call.result.as_ref().clone().with_name("result"),
                ]));
                let stop_input = stop.clone();
                let answer = super::stream_killable(
                    &call.function,
                    &python,
                    &arg_schema,
                    StreamInput {
                        next: || first.take().or_else(|| in_rx.blocking_recv()),
                        stop: move || stop_input.abort(),
                    },
                    &worker_schema,
                    |result| {
                        let batches = result.map_err(on_error).and_then(|r| {
                            let Some(column) = r.columns().first() else {
                                return internal_err!("a Python result without its column");
                            };
                            zip.push(column.clone())
                        });
                        match batches {
                            Ok(batches) => {
                                for b in batches {
                                    // (No one reads any more: the input ends, the worker
                                    // answers what it has and goes back to the pool.)
                                    if !dropped && out_tx.blocking_send(Ok(b)).is_err() {
                                        dropped = true;
                                        stop.abort();
                                    }
                                }
                                true
                            }
                            Err(e) => {
                                failed = true;
                                let _ = out_tx.blocking_send(Err(e));
                                false
                            }
                        }
                    },
                    &switch,
                );
                switch.finished();
                let end = match answer {
                    Err(e) => Err(on_error(e)),
                    Ok(()) if dropped || failed || switch.fired() => Ok(()),
                    Ok(()) => zip.finish(),
                };
                if let Err(e) = end {
                    let _ = out_tx.blocking_send(Err(e));
                }
            });
            (out_rx, guard)
        }))
    }
}

/// What the worker gets of each input batch: its arguments (computed), cut to Spark's batch
/// size, the input batch kept in `pending` for its results.
fn arguments(
    args: Vec<Arc<dyn PhysicalExpr>>,
    arg_schema: SchemaRef,
    batch_size: usize,
    pending: Arc<Mutex<VecDeque<RecordBatch>>>,
) -> impl FnMut(Option<RecordBatch>) -> Result<Vec<RecordBatch>> {
    let mut rebatch = Rebatch::new(arg_schema.clone(), batch_size.max(1));
    move |batch| {
        let Some(batch) = batch else {
            return rebatch.finish();
        };
        let rows = batch.num_rows();
        let arrays = args
            .iter()
            .map(|a| a.evaluate(&batch)?.into_array(rows))
            .collect::<Result<Vec<_>>>()?;
        let arguments = RecordBatch::try_new_with_options(
            arg_schema.clone(),
            arrays,
            &RecordBatchOptions::new().with_row_count(Some(rows)),
        )?;
        // (Before its arguments leave: their results find it there.)
        pending.lock().push_back(batch);
        rebatch.push(arguments)
    }
}

/// Joins the result column, as the worker gives it, to the input batches it belongs to.
struct Zip {
    pending: Arc<Mutex<VecDeque<RecordBatch>>>,
    /// Results not yet joined (`rows` rows).
    results: VecDeque<ArrayRef>,
    rows: usize,
    schema: SchemaRef,
}

impl Zip {
    /// The input batches that `result` completes, with their result column.
    fn push(&mut self, result: ArrayRef) -> Result<Vec<RecordBatch>> {
        self.rows += result.len();
        self.results.push_back(result);
        let mut out = Vec::new();
        loop {
            let batch = {
                let mut pending = self.pending.lock();
                match pending.front() {
                    Some(b) if b.num_rows() <= self.rows => pending.pop_front(),
                    _ => None,
                }
            };
            let Some(batch) = batch else {
                return Ok(out);
            };
            if batch.num_rows() == 0 {
                continue;
            }
            let column = self.take(batch.num_rows())?;
            let mut columns = batch.columns().to_vec();
            columns.push(column);
            out.push(RecordBatch::try_new_with_options(
                self.schema.clone(),
                columns,
                &RecordBatchOptions::new().with_row_count(Some(batch.num_rows())),
            )?);
        }
    }

    /// The next `n` result rows (there are as many).
    fn take(&mut self, n: usize) -> Result<ArrayRef> {
        let mut parts = Vec::new();
        let mut needed = n;
        while needed > 0 {
            let Some(front) = self.results.pop_front() else {
                return internal_err!("Python results short of {needed} rows");
            };
            if front.len() > needed {
                parts.push(front.slice(0, needed));
                self.results
                    .push_front(front.slice(needed, front.len() - needed));
                needed = 0;
            } else {
                needed -= front.len();
                parts.push(front);
            }
        }
        self.rows -= n;
        let column = match parts.as_slice() {
            [one] => one.clone(),
            _ => {
                let refs: Vec<&dyn Array> = parts.iter().map(|a| a.as_ref()).collect();
                arrow::compute::concat(&refs)?
            }
        };
        let expected = self.schema.fields()[self.schema.fields().len() - 1].data_type();
        if column.data_type() != expected {
            return Ok(arrow::compute::cast(&column, expected)?);
        }
        Ok(column)
    }

    /// At the end of the worker's answer: every input row has its result.
    fn finish(&mut self) -> Result<()> {
        let left: usize = self.pending.lock().iter().map(|b| b.num_rows()).sum();
        if left > 0 || self.rows > 0 {
            return Err(DataFusionError::Execution(format!(
                "the Python worker's results do not match its input: {left} input rows without \
                 a result, {} results without an input row",
                self.rows
            )));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::Int64Array;
    use arrow::datatypes::DataType;

    fn ints(values: std::ops::Range<i64>) -> ArrayRef {
        Arc::new(Int64Array::from_iter_values(values))
    }

    /// A zip of input batches `x` (their ranges) and results `r` after them.
    fn zip_of(ranges: &[std::ops::Range<i64>]) -> Zip {
        let input = Arc::new(Schema::new(vec![Field::new("x", DataType::Int64, false)]));
        let schema = Arc::new(Schema::new(vec![
            Field::new("x", DataType::Int64, false),
            Field::new("r", DataType::Int64, true),
        ]));
        let pending = ranges
            .iter()
            .map(|r| RecordBatch::try_new(input.clone(), vec![ints(r.clone())]).unwrap())
            .collect();
        Zip {
            pending: Arc::new(Mutex::new(pending)),
            results: VecDeque::new(),
            rows: 0,
            schema,
        }
    }

    #[test]
    fn results_join_their_input_batches_whatever_their_sizes() {
        let mut zip = zip_of(&[0..3, 3..3, 3..8, 8..10]);
        // Results come in other cuts than the input's (an iterator UDF's).
        let mut out = zip.push(ints(100..102)).unwrap();
        assert!(out.is_empty());
        out.extend(zip.push(ints(102..109)).unwrap());
        assert_eq!(out.len(), 2);
        out.extend(zip.push(ints(109..110)).unwrap());
        zip.finish().unwrap();
        let sizes: Vec<usize> = out.iter().map(|b| b.num_rows()).collect();
        assert_eq!(sizes, vec![3, 5, 2]);
        for b in &out {
            let x = b.column(0).as_any().downcast_ref::<Int64Array>().unwrap();
            let r = b.column(1).as_any().downcast_ref::<Int64Array>().unwrap();
            for i in 0..b.num_rows() {
                assert_eq!(r.value(i), x.value(i) + 100);
            }
        }
    }

    #[test]
    fn missing_results_are_an_error() {
        let mut zip = zip_of(&[0..4, 4..4]);
        assert!(zip.push(ints(0..3)).unwrap().is_empty());
        assert!(zip.finish().is_err());
    }
}
