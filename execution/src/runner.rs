//! Job runners: how a physical plan is executed.

use std::sync::Arc;

use async_trait::async_trait;
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_plan::ExecutionPlan;

use crate::error::ExecutionResult;

/// Executes physical plans and streams their output.
#[async_trait]
pub trait JobRunner: Send + Sync {
    /// Start executing `plan`; the stream yields the job's output as it is produced.
    async fn execute(
        &self,
        plan: Arc<dyn ExecutionPlan>,
        context: Arc<TaskContext>,
    ) -> ExecutionResult<SendableRecordBatchStream>;

    /// A description of how the plan would run (the job graph) in a session of `options`,
    /// for EXPLAIN.
    fn explain(
        &self,
        plan: &Arc<dyn ExecutionPlan>,
        options: &datafusion::common::config::ConfigOptions,
    ) -> ExecutionResult<Option<String>>;

    /// A short name of the runner for logs ("local", "local-cluster", "cluster").
    fn name(&self) -> &str;

    /// Workers alive, for runners that have workers (metrics).
    fn workers_alive(&self) -> Option<usize> {
        None
    }

    /// The workers, alive and lately lost, for runners that have workers (the job UI).
    fn workers(&self) -> Option<Vec<crate::cluster::WorkerInfo>> {
        None
    }

    /// Adjust DataFusion's settings for plans this runner executes.
    fn configure(&self, _config: &mut datafusion::prelude::SessionConfig) {}
}

/// Runs the whole plan in this process with DataFusion.
#[derive(Debug, Default)]
pub struct LocalJobRunner;

#[async_trait]
impl JobRunner for LocalJobRunner {
    async fn execute(
        &self,
        plan: Arc<dyn ExecutionPlan>,
        context: Arc<TaskContext>,
    ) -> ExecutionResult<SendableRecordBatchStream> {
        let plan = crate::shared_subplans::share_subplans(plan)?;
        let plan = crate::dynamic_rows::filter_rows(plan)?;
        let plan = crate::progress::track_local(plan, &context);
        // Output keeps partition order, like Spark's collect().
        Ok(crate::ordered::ordered_concat(&plan, context, None)?)
    }

    fn explain(
        &self,
        _plan: &Arc<dyn ExecutionPlan>,
        _options: &datafusion::common::config::ConfigOptions,
    ) -> ExecutionResult<Option<String>> {
        Ok(None)
    }

    fn name(&self) -> &str {
        "local"
    }
}
