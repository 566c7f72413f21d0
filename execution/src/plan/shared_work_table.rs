//! A recursive CTE whose step reads the CTE more than once (`FROM r a JOIN r b`, a union of two
//! reads): each read sees the rows the previous step added, as in Spark. DataFusion's recursive
//! query gives its work table to one scan only (the rows are taken by the first read), so the
//! scans of such a step share them: [`SharedWorkTable`] is the table the resolver reads, its
//! scans are [`SharedWorkTableExec`]s of one [`Slot`]. One of them receives the work table from
//! the recursive query; in each level the first scan to run takes the level's rows and keeps
//! them for the others.

use std::any::Any;
use std::fmt;
use std::sync::Arc;

use arrow::datatypes::SchemaRef;
use arrow::record_batch::RecordBatch;
use async_trait::async_trait;
use datafusion::catalog::{Session, TableProvider};
use datafusion::common::tree_node::{Transformed, TreeNode, TreeNodeRecursion};
use datafusion::common::{Result, internal_datafusion_err, internal_err};
use datafusion::datasource::TableType;
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::logical_expr::Expr;
use datafusion::physical_expr::{EquivalenceProperties, Partitioning, PhysicalExpr};
use datafusion::physical_plan::common::collect;
use datafusion::physical_plan::execution_plan::{Boundedness, EmissionType};
use datafusion::physical_plan::memory::MemoryStream;
use datafusion::physical_plan::work_table::WorkTableExec;
use datafusion::physical_plan::{DisplayAs, DisplayFormatType, ExecutionPlan, PlanProperties};
use futures::FutureExt;

use crate::codec::{EncodedNode, NodeDecoder, NodeEncoder};

/// What the scans of one recursive CTE share.
#[derive(Debug, Default)]
pub struct Slot {
    inner: parking_lot::Mutex<SlotState>,
}

#[derive(Debug, Default)]
struct SlotState {
    /// The work table the recursive query gave (to tell its second offer from a new one).
    state: Option<Arc<dyn Any + Send + Sync>>,
    /// A scan of the whole work table that takes a level's rows.
    reader: Option<Arc<dyn ExecutionPlan>>,
    /// The rows of the level being run, once a scan took them.
    rows: Option<Vec<RecordBatch>>,
}

impl Slot {
    /// The rows of the level being run: taken from the work table by the first scan to run,
    /// then the same rows for the others.
    fn rows(&self, context: Arc<TaskContext>) -> Result<Vec<RecordBatch>> {
        let mut slot = self.inner.lock();
        let Some(reader) = slot.reader.clone() else {
            return internal_err!("a shared work table scan ran outside its recursive query");
        };
        // A new level's rows are there to take; once taken, the work table is empty (an error)
        // until the next level.
        match reader.execute(0, context) {
            Ok(stream) => {
                let rows = collect(stream)
                    .now_or_never()
                    .ok_or_else(|| internal_datafusion_err!("a work table's rows not ready"))??;
                slot.rows = Some(rows.clone());
                Ok(rows)
            }
            Err(e) => slot.rows.clone().ok_or(e),
        }
    }
}

/// The table a step reads its CTE from, when it reads it more than once.
#[derive(Debug)]
pub struct SharedWorkTable {
    name: String,
    schema: SchemaRef,
    slot: Arc<Slot>,
}

impl SharedWorkTable {
    pub fn new(name: &str, schema: SchemaRef) -> Self {
        Self {
            name: name.to_string(),
            schema,
            slot: Arc::default(),
        }
    }
}

#[async_trait]
impl TableProvider for SharedWorkTable {
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    fn table_type(&self) -> TableType {
        TableType::Temporary
    }

    async fn scan(
        &self,
        _state: &dyn Session,
        projection: Option<&Vec<usize>>,
        _filters: &[Expr],
        _limit: Option<usize>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        Ok(Arc::new(SharedWorkTableExec::try_new(
            self.name.clone(),
            self.schema.clone(),
            projection.cloned(),
            self.slot.clone(),
        )?))
    }
}

/// A scan of a recursive CTE's rows shared with the other scans of its [`Slot`].
#[derive(Debug, Clone)]
pub struct SharedWorkTableExec {
    name: String,
    /// The work table's columns.
    table_schema: SchemaRef,
    projection: Option<Vec<usize>>,
    slot: Arc<Slot>,
    properties: Arc<PlanProperties>,
}

impl SharedWorkTableExec {
    pub fn try_new(
        name: String,
        table_schema: SchemaRef,
        projection: Option<Vec<usize>>,
        slot: Arc<Slot>,
    ) -> Result<Self> {
        let schema = match &projection {
            Some(p) => Arc::new(table_schema.project(p)?),
            None => table_schema.clone(),
        };
        let properties = PlanProperties::new(
            EquivalenceProperties::new(schema),
            Partitioning::UnknownPartitioning(1),
            EmissionType::Incremental,
            Boundedness::Bounded,
        );
        Ok(Self {
            name,
            table_schema,
            projection,
            slot,
            properties: Arc::new(properties),
        })
    }

    pub fn name(&self) -> &str {
        &self.name
    }
}

/// The shared scans of `name` in `step` made to share one new slot (scans decoded apart, each
/// with a slot of its own).
pub fn share_scans(step: Arc<dyn ExecutionPlan>, name: &str) -> Result<Arc<dyn ExecutionPlan>> {
    let slot = Arc::new(Slot::default());
    step.transform_down(|node| {
        let Some(scan) = node.downcast_ref::<SharedWorkTableExec>() else {
            return Ok(Transformed::no(node));
        };
        if scan.name != name {
            return Ok(Transformed::no(node));
        }
        let shared = SharedWorkTableExec {
            slot: slot.clone(),
            ..scan.clone()
        };
        Ok(Transformed::yes(Arc::new(shared) as Arc<dyn ExecutionPlan>))
    })
    .map(|t| t.data)
}

impl DisplayAs for SharedWorkTableExec {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "SharedWorkTableExec: name={}", self.name)
    }
}

impl ExecutionPlan for SharedWorkTableExec {
    fn name(&self) -> &str {
        "SharedWorkTableExec"
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        &self.properties
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        vec![]
    }

    fn apply_expressions(
        &self,
        _f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> Result<TreeNodeRecursion>,
    ) -> Result<TreeNodeRecursion> {
        Ok(TreeNodeRecursion::Continue)
    }

    fn with_new_children(
        self: Arc<Self>,
        children: Vec<Arc<dyn ExecutionPlan>>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        if !children.is_empty() {
            return internal_err!("SharedWorkTableExec takes no children");
        }
        Ok(self)
    }

    /// The work table of the recursive query, offered to each scan of its step: the first
    /// scan of the slot takes it (DataFusion allows one), the others share it through the slot.
    fn with_new_state(&self, state: Arc<dyn Any + Send + Sync>) -> Option<Arc<dyn ExecutionPlan>> {
        let mut slot = self.slot.inner.lock();
        if slot.state.as_ref().is_some_and(|s| Arc::ptr_eq(s, &state)) {
            return None;
        }
        let reader = WorkTableExec::new(self.name.clone(), self.table_schema.clone(), None)
            .ok()?
            .with_new_state(state.clone())?;
        *slot = SlotState {
            state: Some(state),
            reader: Some(reader),
            rows: None,
        };
        Some(Arc::new(self.clone()))
    }

    fn execute(
        &self,
        partition: usize,
        context: Arc<TaskContext>,
    ) -> Result<SendableRecordBatchStream> {
        if partition != 0 {
            return internal_err!("SharedWorkTableExec has one partition, not {partition}");
        }
        let mut rows = self.slot.rows(context)?;
        if let Some(projection) = &self.projection {
            rows = rows
                .iter()
                .map(|b| b.project(projection))
                .collect::<Result<_, _>>()?;
        }
        Ok(Box::pin(MemoryStream::try_new(rows, self.schema(), None)?))
    }
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct SharedWorkTableMessage {
    #[prost(string, tag = "1")]
    name: String,
    /// The work table's columns.
    #[prost(message, optional, tag = "2")]
    schema: Option<datafusion_proto::protobuf::Schema>,
    #[prost(uint32, repeated, tag = "3")]
    projection: Vec<u32>,
    #[prost(bool, tag = "4")]
    projected: bool,
}

impl EncodedNode for SharedWorkTableExec {
    const NAME: &'static str = "shared_work_table";
    type Message = SharedWorkTableMessage;

    fn to_message(&self, _encoder: &NodeEncoder) -> Result<SharedWorkTableMessage> {
        Ok(SharedWorkTableMessage {
            name: self.name.clone(),
            schema: Some(datafusion_proto::protobuf::Schema::try_from(
                self.table_schema.as_ref(),
            )?),
            projection: self
                .projection
                .iter()
                .flatten()
                .map(|&i| u32::try_from(i))
                .collect::<Result<_, _>>()
                .map_err(|e| internal_datafusion_err!("a projection index: {e}"))?,
            projected: self.projection.is_some(),
        })
    }

    /// A scan with a slot of its own; its recursive query (decoded after it) makes the scans
    /// of its step share one (`share_scans`).
    fn from_message(
        m: SharedWorkTableMessage,
        _inputs: &[Arc<dyn ExecutionPlan>],
        _decoder: &NodeDecoder,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let Some(schema) = m.schema.as_ref() else {
            return internal_err!("a shared work table scan without its schema");
        };
        let schema = Arc::new(arrow::datatypes::Schema::try_from(schema)?);
        let projection = m
            .projected
            .then(|| m.projection.iter().map(|&i| i as usize).collect());
        Ok(Arc::new(SharedWorkTableExec::try_new(
            m.name,
            schema,
            projection,
            Arc::default(),
        )?))
    }
}
