//! Writing query results to files, distributed: each task writes its own partition's files
//! into a staging area, and the driver commits the job atomically ([`commit`] on local file
//! systems, [`object_commit`] on object stores).

pub mod commit;
mod encode;
mod exec;
pub mod object_commit;
pub mod partition;
pub mod values;
pub mod xml;

pub use exec::{FileWrite, WriteFilesExec, WriteFormat, write_output_schema};

use std::sync::Arc;

use datafusion::common::Result;
use datafusion::physical_plan::repartition::RepartitionExec;
use datafusion::physical_plan::{
    ExecutionPlan, ExecutionPlanProperties, Partitioning, replace_children_if_necessary,
};

/// The plan of a write without the round-robin repartitions DataFusion adds for parallelism
/// at its top (above its last operator that sets the partitioning), so that the files a
/// write produces follow the query's partitions, as in Spark (`coalesce(1)` writes one file).
pub fn without_parallelism_repartitions(
    plan: Arc<dyn ExecutionPlan>,
) -> Result<Arc<dyn ExecutionPlan>> {
    if let Some(r) = plan.downcast_ref::<RepartitionExec>()
        && matches!(r.partitioning(), Partitioning::RoundRobinBatch(_))
        && !r.preserve_order()
    {
        return without_parallelism_repartitions(r.input().clone());
    }
    let children = plan.children();
    if let [child] = children.as_slice()
        && child.output_partitioning().partition_count()
            == plan.output_partitioning().partition_count()
    {
        let child = without_parallelism_repartitions((*child).clone())?;
        return replace_children_if_necessary(plan, vec![child]);
    }
    Ok(plan)
}
