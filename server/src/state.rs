//! Server-wide state and the per-request context that ties a session to the planner and the
//! job runner.

use std::sync::Arc;

use datafusion::execution::SendableRecordBatchStream;
use datafusion::physical_plan::ExecutionPlan;
use datafusion::prelude::SessionContext;
use ember_execution::JobRunner;
use ember_planner::catalog::ServerCatalog;
use ember_planner::proto::{ArtifactLookup, CachedRelationLookup, ProtoContext};
use ember_planner::{PlannerConfig, ResolvedQuery, spec};
use futures::TryStreamExt;

use crate::config::ServerDefaults;
use crate::error::ServerResult;
use crate::session::{Session, SessionManager};

pub struct ServerState {
    pub sessions: SessionManager,
    pub global_views: Arc<ServerCatalog>,
    pub runner: Arc<dyn JobRunner>,
    pub defaults: ServerDefaults,
    /// Partitions DataFusion plans for (and `spark.range` defaults to).
    pub parallelism: usize,
    /// The runtime queries execute on, apart from the one serving gRPC.
    pub cpu: tokio::runtime::Handle,
    /// What `spark.version` answers (`--spark-version`).
    pub spark_version: String,
}

/// One request's view of the server: its session and everything needed to run a plan.
#[derive(Clone)]
pub struct RequestContext {
    pub state: Arc<ServerState>,
    pub session: Arc<Session>,
}

impl RequestContext {
    /// The context of `user`'s session `session_id`, created with the server's defaults if
    /// new (`observed`: the server-side session id the client saw last).
    pub fn open(
        state: &Arc<ServerState>,
        user: &str,
        session_id: &str,
        observed: Option<&str>,
    ) -> Result<Self, tonic::Status> {
        let session = state.sessions.get_or_create(
            user,
            session_id,
            observed,
            || state.defaults.clone(),
            &state.global_views,
            state.parallelism,
        )?;
        Ok(RequestContext {
            state: state.clone(),
            session,
        })
    }

    pub fn planner_config(&self) -> PlannerConfig {
        PlannerConfig {
            spark_version: self.state.spark_version.clone(),
            ..self.session.conf.planner_config(self.state.parallelism)
        }
    }

    /// The encoder of a result's batches, with the session's Arrow settings.
    pub fn result_encoder(
        &self,
        schema: &arrow::datatypes::Schema,
        names: &[String],
    ) -> crate::execute::encode::ResultEncoder {
        let large = self
            .session
            .conf
            .get("spark.sql.execution.arrow.useLargeVarTypes")
            .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"));
        crate::execute::encode::ResultEncoder::with_var_types(schema, names, large)
    }

    /// DataFusion's context for this request, as the session and the job runner need it.
    pub fn datafusion_context(&self) -> SessionContext {
        self.session
            .datafusion_context(|config| self.state.runner.configure(config))
    }

    pub fn proto_context(&self) -> ProtoContext {
        let session = self.session.clone();
        let lookup: ArtifactLookup = Arc::new(move |name: &str| session.artifact(name));
        let session = self.session.clone();
        let checkpoints: CachedRelationLookup =
            Arc::new(move |id: &str| session.checkpoints.lock().get(id).cloned());
        // (A static setting: the same for every session, installed where SQL text is parsed.)
        ember_planner::sql::set_max_expression_depth(self.session.conf.usize(
            "spark.ember.maxExpressionDepth",
            ember_planner::sql::DEFAULT_MAX_EXPRESSION_DEPTH,
        ));
        ProtoContext {
            time_zone: self.session.conf.time_zone(),
            artifacts: Some(lookup),
            cached_relations: Some(checkpoints),
            python_artifacts: ember_execution::python::PythonArtifacts::new(
                self.session
                    .artifacts
                    .lock()
                    .iter()
                    .map(|(n, b)| (n.clone(), Arc::from(b.as_ref()))),
            ),
            max_depth: self
                .session
                .conf
                .usize(
                    "spark.ember.maxPlanDepth",
                    ember_planner::proto::MAX_PLAN_DEPTH,
                )
                .max(1),
            depth: std::cell::Cell::new(0),
            expr_depth: std::cell::Cell::new(0),
        }
    }

    pub fn resolve(&self, plan: &spec::Plan) -> ServerResult<ResolvedQuery> {
        let config = self.planner_config();
        let state = self
            .session
            .datafusion_state(|config| self.state.runner.configure(config));
        let mut resolver =
            ember_planner::Resolver::new(&config, &self.session.catalog).with_session_state(&state);
        Ok(off_the_runtime(|| resolver.resolve_query(plan))?)
    }

    /// DataFusion's optimized physical plan for a resolved query.
    pub async fn physical_plan(
        &self,
        q: &ResolvedQuery,
    ) -> ServerResult<(Arc<dyn ExecutionPlan>, SessionContext)> {
        let ctx = self.datafusion_context();
        let plan = ctx.state().create_physical_plan(&q.plan).await?;
        Ok((plan, ctx))
    }

    pub async fn execute(&self, q: &ResolvedQuery) -> ServerResult<SendableRecordBatchStream> {
        let (plan, ctx) = self.physical_plan(q).await?;
        let context = crate::execute::progress::attach(ctx.task_ctx());
        Ok(self.state.runner.execute(plan, context).await?)
    }

    pub async fn collect(&self, q: &ResolvedQuery) -> ServerResult<Vec<arrow::array::RecordBatch>> {
        let stream = self.execute(q).await?;
        Ok(stream.try_collect().await?)
    }
}

/// Runs synchronous, possibly long work (planning a deeply nested expression takes seconds)
/// with `block_in_place`: the runtime hands this thread's queued tasks and its I/O driver to
/// another thread meanwhile, so gRPC calls on the same runtime (the cluster driver's worker
/// heartbeats, interrupts) are still answered. Plainly inline on a current-thread runtime.
fn off_the_runtime<T>(work: impl FnOnce() -> T) -> T {
    let multi_thread = tokio::runtime::Handle::try_current()
        .is_ok_and(|h| h.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread);
    if multi_thread {
        tokio::task::block_in_place(work)
    } else {
        work()
    }
}
