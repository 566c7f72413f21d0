//! Recursive CTEs (`WITH RECURSIVE`): Spark's limits on a recursion (`RecursionLimitExec`, at
//! the top of the step DataFusion's `RecursiveQueryExec` runs again for each level), and
//! DataFusion's recursive query and work table on the wire (`datafusion-proto` has no
//! messages for them).

use std::fmt;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Weak};

use arrow::datatypes::{Field, Schema, SchemaRef};
use datafusion::common::tree_node::{Transformed, TreeNode, TreeNodeRecursion};
use datafusion::common::{DataFusionError, Result, internal_err};
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_plan::recursive_query::RecursiveQueryExec;
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::work_table::WorkTableExec;
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, Distribution, ExecutionPlan, PlanProperties,
};
use futures::StreamExt;

use crate::codec::{EncodedNode, NodeDecoder, NodeEncoder, one_input};
use crate::spark_error::{ErrorKind, SparkError, to_datafusion};

/// Spark's limits on a recursive CTE (`spark.sql.cteRecursionLevelLimit`,
/// `spark.sql.cteRecursionRowLimit`; negative: none).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd)]
pub struct RecursionLimits {
    /// Steps `1..levels` may add rows (Spark's level limit, the anchor's level counted).
    pub levels: i64,
    /// The rows (the anchor's with the steps') must stay under this.
    pub rows: i64,
}

/// What one run of a recursion has done so far: shared by every copy of the node DataFusion
/// makes for each level (it resets the step's operators before running them again), and
/// started again by a run of another task context (a task run again, a plan run twice).
#[derive(Debug, Default)]
struct Progress {
    /// The task context of the run counted.
    run: parking_lot::Mutex<Weak<TaskContext>>,
    /// Steps started.
    levels: AtomicI64,
    /// Rows the steps added.
    rows: AtomicI64,
}

impl Progress {
    /// Count a run of the node in `context`: the level it starts.
    fn start(&self, context: &Arc<TaskContext>) -> i64 {
        let mut run = self.run.lock();
        if !run.upgrade().is_some_and(|c| Arc::ptr_eq(&c, context)) {
            *run = Arc::downgrade(context);
            self.levels.store(0, Ordering::Relaxed);
            self.rows.store(0, Ordering::Relaxed);
        }
        self.levels.fetch_add(1, Ordering::Relaxed) + 1
    }
}

/// A recursive CTE's step counting its levels, or the whole CTE counting its rows: Spark's
/// RECURSION_LEVEL_LIMIT_EXCEEDED once step number `levels` (the anchor's is 0) adds rows,
/// RECURSION_ROW_LIMIT_EXCEEDED once the rows reach `rows`.
#[derive(Debug)]
pub struct RecursionLimitExec {
    input: Arc<dyn ExecutionPlan>,
    limits: RecursionLimits,
    progress: Arc<Progress>,
}

impl RecursionLimitExec {
    pub fn new(input: Arc<dyn ExecutionPlan>, limits: RecursionLimits) -> Self {
        Self {
            input,
            limits,
            progress: Arc::default(),
        }
    }

    pub fn limits(&self) -> RecursionLimits {
        self.limits
    }
}

impl DisplayAs for RecursionLimitExec {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        write!(
            f,
            "RecursionLimitExec: levels={}, rows={}",
            self.limits.levels, self.limits.rows
        )
    }
}

impl ExecutionPlan for RecursionLimitExec {
    fn name(&self) -> &str {
        "RecursionLimitExec"
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        self.input.properties()
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        vec![&self.input]
    }

    fn apply_expressions(
        &self,
        _f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> Result<TreeNodeRecursion>,
    ) -> Result<TreeNodeRecursion> {
        Ok(TreeNodeRecursion::Continue)
    }

    /// One partition: each run is one level, and the rows stay in the order the steps make
    /// them (a round-robin spread above it is removed: `rules::SparkLimitOrder`).
    fn required_input_distribution(&self) -> Vec<Distribution> {
        vec![Distribution::SinglePartition]
    }

    fn benefits_from_input_partitioning(&self) -> Vec<bool> {
        vec![false]
    }

    fn maintains_input_order(&self) -> Vec<bool> {
        vec![true]
    }

    fn with_new_children(
        self: Arc<Self>,
        mut children: Vec<Arc<dyn ExecutionPlan>>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        match children.pop() {
            // (The same progress: DataFusion makes a new copy for each level.)
            Some(input) if children.is_empty() => Ok(Arc::new(Self {
                input,
                limits: self.limits,
                progress: self.progress.clone(),
            })),
            _ => internal_err!("RecursionLimitExec takes one child"),
        }
    }

    fn execute(
        &self,
        partition: usize,
        context: Arc<TaskContext>,
    ) -> Result<SendableRecordBatchStream> {
        let level = self.progress.start(&context);
        let limits = self.limits;
        let progress = self.progress.clone();
        let input = self.input.execute(partition, context)?;
        let schema = input.schema();
        let checked = input.map(move |batch| {
            let batch = batch?;
            let rows = batch.num_rows() as i64;
            if rows == 0 {
                return Ok(batch);
            }
            if limits.levels >= 0 && level >= limits.levels {
                return Err(level_limit_exceeded(limits.levels));
            }
            let total = progress.rows.fetch_add(rows, Ordering::Relaxed) + rows;
            if limits.rows >= 0 && total >= limits.rows {
                return Err(row_limit_exceeded(limits.rows));
            }
            Ok(batch)
        });
        Ok(Box::pin(RecordBatchStreamAdapter::new(schema, checked)))
    }
}

fn level_limit_exceeded(limit: i64) -> DataFusionError {
    to_datafusion(SparkError::new(
        ErrorKind::Spark,
        "RECURSION_LEVEL_LIMIT_EXCEEDED",
        "42836",
        format!(
            "Recursion level limit {limit} reached but query has not exhausted, try increasing it like 'WITH RECURSIVE t(col) MAX RECURSION LEVEL 200'."
        ),
        vec![("levelLimit", limit.to_string())],
    ))
}

fn row_limit_exceeded(limit: i64) -> DataFusionError {
    to_datafusion(SparkError::new(
        ErrorKind::Spark,
        "RECURSION_ROW_LIMIT_EXCEEDED",
        "42836",
        format!(
            "Recursion row limit {limit} reached but query has not exhausted, try setting a larger LIMIT value when querying the CTE relation."
        ),
        vec![("rowLimit", limit.to_string())],
    ))
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct RecursionLimitMessage {
    #[prost(int64, tag = "1")]
    levels: i64,
    #[prost(int64, tag = "2")]
    rows: i64,
}

impl EncodedNode for RecursionLimitExec {
    const NAME: &'static str = "recursion_limit";
    type Message = RecursionLimitMessage;

    fn to_message(&self, _encoder: &NodeEncoder) -> Result<RecursionLimitMessage> {
        Ok(RecursionLimitMessage {
            levels: self.limits.levels,
            rows: self.limits.rows,
        })
    }

    fn from_message(
        m: RecursionLimitMessage,
        inputs: &[Arc<dyn ExecutionPlan>],
        _decoder: &NodeDecoder,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let limits = RecursionLimits {
            levels: m.levels,
            rows: m.rows,
        };
        Ok(Arc::new(RecursionLimitExec::new(
            one_input(inputs)?,
            limits,
        )))
    }
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct RecursiveQueryMessage {
    #[prost(string, tag = "1")]
    name: String,
    #[prost(bool, tag = "2")]
    distinct: bool,
    /// The query's output (the rows of the work table).
    #[prost(message, optional, tag = "3")]
    schema: Option<datafusion_proto::protobuf::Schema>,
}

impl EncodedNode for RecursiveQueryExec {
    const NAME: &'static str = "recursive_query";
    type Message = RecursiveQueryMessage;

    fn to_message(&self, _encoder: &NodeEncoder) -> Result<RecursiveQueryMessage> {
        Ok(RecursiveQueryMessage {
            name: self.name().to_string(),
            distinct: self.is_distinct(),
            schema: schema_message(&self.schema())?,
        })
    }

    fn from_message(
        m: RecursiveQueryMessage,
        inputs: &[Arc<dyn ExecutionPlan>],
        _decoder: &NodeDecoder,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let [anchor, step] = inputs else {
            return internal_err!("a recursive query takes two inputs");
        };
        let schema = schema_of(m.schema.as_ref())?;
        let step = with_work_table_projections(step.clone(), &m.name, &schema)?;
        let step = super::shared_work_table::share_scans(step, &m.name)?;
        Ok(Arc::new(RecursiveQueryExec::try_new(
            m.name,
            schema,
            anchor.clone(),
            step,
            m.distinct,
        )?))
    }
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct WorkTableMessage {
    #[prost(string, tag = "1")]
    name: String,
    /// The columns the scan reads.
    #[prost(message, optional, tag = "2")]
    schema: Option<datafusion_proto::protobuf::Schema>,
}

impl EncodedNode for WorkTableExec {
    const NAME: &'static str = "work_table";
    type Message = WorkTableMessage;

    fn to_message(&self, _encoder: &NodeEncoder) -> Result<WorkTableMessage> {
        Ok(WorkTableMessage {
            name: self.name().to_string(),
            schema: schema_message(&WorkTableExec::schema(self))?,
        })
    }

    /// A scan of the columns it read; its recursive query (decoded after it) makes it read
    /// them from the work table's rows (`with_work_table_projections`).
    fn from_message(
        m: WorkTableMessage,
        _inputs: &[Arc<dyn ExecutionPlan>],
        _decoder: &NodeDecoder,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        Ok(Arc::new(WorkTableExec::new(
            m.name,
            schema_of(m.schema.as_ref())?,
            None,
        )?))
    }
}

/// The work-table scans of `name` in `step` reading their columns out of the work table's
/// rows (of `schema`): `WorkTableExec` does not tell which columns its scan projected, so
/// they are found by name (the resolver's internal names, unique in a plan).
fn with_work_table_projections(
    step: Arc<dyn ExecutionPlan>,
    name: &str,
    schema: &SchemaRef,
) -> Result<Arc<dyn ExecutionPlan>> {
    step.transform_down(|node| {
        let Some(scan) = node.downcast_ref::<WorkTableExec>() else {
            return Ok(Transformed::no(node));
        };
        if scan.name() != name {
            return Ok(Transformed::no(node));
        }
        let read = WorkTableExec::schema(scan);
        let mut projection = Vec::with_capacity(read.fields().len());
        for field in read.fields() {
            match schema.index_of(field.name()) {
                Ok(i) => projection.push(i),
                Err(_) => {
                    return internal_err!("work table {name} has no column {}", field.name());
                }
            }
        }
        // (The columns read as the scan had them; the others as the query's.)
        let fields: Vec<Field> = schema
            .fields()
            .iter()
            .enumerate()
            .map(|(i, f)| match projection.iter().position(|p| *p == i) {
                Some(k) => read.field(k).clone(),
                None => f.as_ref().clone().with_nullable(true),
            })
            .collect();
        let scan = WorkTableExec::new(
            name.to_string(),
            Arc::new(Schema::new(fields)),
            Some(projection),
        )?;
        Ok(Transformed::yes(Arc::new(scan) as Arc<dyn ExecutionPlan>))
    })
    .map(|t| t.data)
}

fn schema_message(schema: &Schema) -> Result<Option<datafusion_proto::protobuf::Schema>> {
    Ok(Some(datafusion_proto::protobuf::Schema::try_from(schema)?))
}

fn schema_of(message: Option<&datafusion_proto::protobuf::Schema>) -> Result<SchemaRef> {
    match message {
        Some(schema) => Ok(Arc::new(Schema::try_from(schema)?)),
        None => internal_err!("a recursive query's node without its schema"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::{Int64Array, RecordBatch};
    use arrow::datatypes::DataType;
    use datafusion::datasource::memory::MemorySourceConfig;
    use datafusion::physical_plan::common::collect;
    use datafusion::prelude::SessionContext;

    #[tokio::test]
    async fn levels_count_per_run_and_start_again_in_another() {
        let schema = Arc::new(Schema::new(vec![Field::new("n", DataType::Int64, false)]));
        let batch =
            RecordBatch::try_new(schema.clone(), vec![Arc::new(Int64Array::from(vec![1, 2]))])
                .unwrap();
        let input = MemorySourceConfig::try_new_exec(&[vec![batch]], schema, None).unwrap();
        let limits = RecursionLimits {
            levels: 2,
            rows: -1,
        };
        let node: Arc<dyn ExecutionPlan> = Arc::new(RecursionLimitExec::new(input, limits));
        let run = |context: &Arc<TaskContext>| {
            let stream = node
                .clone()
                .reset_state()
                .unwrap()
                .execute(0, context.clone());
            async move { collect(stream?).await }
        };
        let first = SessionContext::new().task_ctx();
        assert!(run(&first).await.is_ok(), "level 1");
        let error = run(&first).await.unwrap_err().to_string();
        assert!(error.contains("RECURSION_LEVEL_LIMIT_EXCEEDED"), "{error}");
        // (A task run again, or the plan run twice: its own count.)
        let second = SessionContext::new().task_ctx();
        assert!(run(&second).await.is_ok(), "level 1 of another run");
    }
}
