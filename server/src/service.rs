//! The gRPC `SparkConnectService`: every RPC answers, with the session ids the client checks.

use std::collections::HashMap;
use std::sync::Arc;

use bytes::Bytes;
use ember_protos::spark::connect as pb;
use ember_protos::spark::connect::spark_connect_service_server::SparkConnectService;
use futures::StreamExt;
use tonic::{Request, Response, Status, Streaming};

use crate::analyze;
use crate::error::{ErrorRecord, error_details, status_of};
use crate::execute::{self, ResponseStream, error_status};
use crate::session::Session;
use crate::state::{RequestContext, ServerState};

pub struct EmberService {
    state: Arc<ServerState>,
}

impl EmberService {
    /// The service; it also starts the periodic expiry of idle sessions
    /// (`spark.connect.session.manager.maintenanceInterval`).
    pub fn new(state: Arc<ServerState>) -> Self {
        if state.sessions.limits.idle_timeout.is_some()
            && let Ok(runtime) = tokio::runtime::Handle::try_current()
        {
            let weak = Arc::downgrade(&state);
            let every = state.sessions.limits.maintenance_interval;
            runtime.spawn(async move {
                let mut ticks = tokio::time::interval(every);
                ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
                loop {
                    ticks.tick().await;
                    let Some(state) = weak.upgrade() else { break };
                    state.sessions.expire_idle();
                }
            });
        }
        Self { state }
    }

    fn user(ctx: &Option<pb::UserContext>) -> String {
        ctx.as_ref().map(|u| u.user_id.clone()).unwrap_or_default()
    }

    fn context(
        &self,
        user: &Option<pb::UserContext>,
        session_id: &str,
        observed: Option<&str>,
    ) -> Result<RequestContext, Status> {
        RequestContext::open(&self.state, &Self::user(user), session_id, observed)
    }

    /// The context of the session a request names (created if new).
    fn context_of(&self, req: &impl SessionRequest) -> Result<RequestContext, Status> {
        let (user, session_id, observed) = req.session();
        self.context(user, session_id, observed)
    }

    /// The context of the session a request names, which must exist.
    fn existing_of(&self, req: &impl SessionRequest) -> Result<RequestContext, Status> {
        let (user, session_id, observed) = req.session();
        self.existing(user, session_id, observed)
    }

    /// The context of a session that exists (SESSION_NOT_FOUND otherwise).
    fn existing(
        &self,
        user: &Option<pb::UserContext>,
        session_id: &str,
        observed: Option<&str>,
    ) -> Result<RequestContext, Status> {
        let session = self
            .state
            .sessions
            .existing(&Self::user(user), session_id, observed)?;
        Ok(RequestContext {
            state: self.state.clone(),
            session,
        })
    }

    fn operation(
        session: &Session,
        operation_id: &str,
    ) -> Result<Arc<execute::operation::Operation>, Status> {
        session
            .operations
            .lock()
            .get(operation_id)
            .cloned()
            .ok_or_else(|| {
                crate::error::invalid_handle(
                    "INVALID_HANDLE.OPERATION_NOT_FOUND",
                    &format!("The handle {operation_id} is invalid. Operation not found."),
                )
            })
    }
}

/// A request that names its session: the user, the session id and the server-side session id
/// the client saw last.
trait SessionRequest {
    fn session(&self) -> (&Option<pb::UserContext>, &str, Option<&str>);
}

macro_rules! session_requests {
    ($($request:ty),* $(,)?) => {
        $(impl SessionRequest for $request {
            fn session(&self) -> (&Option<pb::UserContext>, &str, Option<&str>) {
                (
                    &self.user_context,
                    &self.session_id,
                    self.client_observed_server_side_session_id.as_deref(),
                )
            }
        })*
    };
}

session_requests!(
    pb::ExecutePlanRequest,
    pb::AnalyzePlanRequest,
    pb::ConfigRequest,
    pb::AddArtifactsRequest,
    pb::ArtifactStatusesRequest,
    pb::InterruptRequest,
    pb::ReattachExecuteRequest,
    pb::ReleaseExecuteRequest,
    pb::FetchErrorDetailsRequest,
    pb::CloneSessionRequest,
    pb::GetStatusRequest,
);

#[tonic::async_trait]
impl SparkConnectService for EmberService {
    type ExecutePlanStream = ResponseStream;

    async fn execute_plan(
        &self,
        request: Request<pb::ExecutePlanRequest>,
    ) -> Result<Response<Self::ExecutePlanStream>, Status> {
        let req = request.into_inner();
        let ctx = self.context_of(&req)?;
        Ok(Response::new(execute::execute_plan(ctx, req)?))
    }

    async fn analyze_plan(
        &self,
        request: Request<pb::AnalyzePlanRequest>,
    ) -> Result<Response<pb::AnalyzePlanResponse>, Status> {
        let req = request.into_inner();
        let ctx = self.context_of(&req)?;
        let Some(what) = req.analyze else {
            return Err(Status::invalid_argument("AnalyzePlan without a request"));
        };
        let result = analyze::analyze(&ctx, what)
            .await
            .map_err(|e| error_status(&ctx, e))?;
        Ok(Response::new(pb::AnalyzePlanResponse {
            session_id: ctx.session.session_id.clone(),
            server_side_session_id: ctx.session.server_side_session_id.clone(),
            result: Some(result),
        }))
    }

    async fn config(
        &self,
        request: Request<pb::ConfigRequest>,
    ) -> Result<Response<pb::ConfigResponse>, Status> {
        use pb::config_request::operation::OpType;
        let req = request.into_inner();
        let ctx = self.context_of(&req)?;
        let conf = &ctx.session.conf;
        let op = req
            .operation
            .and_then(|o| o.op_type)
            .ok_or_else(|| Status::invalid_argument("Config without an operation"))?;
        let mut pairs = Vec::new();
        let mut warnings = Vec::new();
        let kv = |key: String, value: Option<String>| pb::KeyValue { key, value };
        match op {
            OpType::Set(s) => {
                // A silent set (how the 4.3 client applies the builder's options) skips what
                // Spark refuses, with a warning each, as Spark does.
                let silent = s.silent.unwrap_or(false);
                for p in s.pairs {
                    if let Some(e) = crate::config::value_refusal(&p.key, p.value.as_deref()) {
                        if !silent {
                            return Err(status_of(&e, None));
                        }
                        let value = match &p.value {
                            Some(v) => format!("Some({v})"),
                            None => "None".to_string(),
                        };
                        warnings.push(format!(
                            "Failed to set {} to {value} due to {}",
                            p.key,
                            e.full_message()
                        ));
                        continue;
                    }
                    match p.value {
                        Some(v) => conf.set(&p.key, &v),
                        None => conf.unset(&p.key),
                    }
                }
            }
            OpType::Get(g) => {
                for key in g.keys {
                    match conf.get(&key) {
                        Some(v) => pairs.push(kv(key, Some(v))),
                        None if conf.is_known(&key) => pairs.push(kv(key, None)),
                        None => {
                            let e = ember_planner::SparkError::new(
                                ember_planner::error::ErrorKind::NoSuchElement,
                                "SQL_CONF_NOT_FOUND",
                                "42K0I",
                                format!(
                                    "The SQL config \"{key}\" cannot be found. Please verify that the config exists."
                                ),
                                vec![("sqlConf", format!("\"{key}\""))],
                            );
                            let id = ctx.session.remember_error(ErrorRecord { error: e.clone() });
                            return Err(status_of(&e, Some(&id)));
                        }
                    }
                }
            }
            OpType::GetWithDefault(g) => {
                for p in g.pairs {
                    let value = conf.get(&p.key).or(p.value);
                    pairs.push(kv(p.key, value));
                }
            }
            OpType::GetOption(g) => {
                for key in g.keys {
                    let value = conf.get(&key);
                    pairs.push(kv(key, value));
                }
            }
            OpType::GetAll(g) => {
                let prefix = g.prefix.unwrap_or_default();
                // Spark answers the keys with the prefix taken off (`timeZone`).
                for (k, v) in conf.all() {
                    if let Some(rest) = k.strip_prefix(&prefix) {
                        pairs.push(kv(rest.to_string(), Some(v)));
                    }
                }
            }
            OpType::Unset(u) => {
                for key in u.keys {
                    conf.unset(&key);
                }
            }
            OpType::IsModifiable(m) => {
                for key in m.keys {
                    let modifiable = conf.is_modifiable(&key);
                    pairs.push(kv(key, Some(modifiable.to_string())));
                }
            }
        }
        Ok(Response::new(pb::ConfigResponse {
            session_id: ctx.session.session_id.clone(),
            server_side_session_id: ctx.session.server_side_session_id.clone(),
            pairs,
            warnings,
        }))
    }

    async fn add_artifacts(
        &self,
        request: Request<Streaming<pb::AddArtifactsRequest>>,
    ) -> Result<Response<pb::AddArtifactsResponse>, Status> {
        use pb::add_artifacts_request::Payload;
        let mut stream = request.into_inner();
        let mut ctx: Option<RequestContext> = None;
        let mut summaries = Vec::new();
        // A chunked artifact being assembled: name, bytes so far, chunks left, crc ok.
        let mut pending: Option<(String, Vec<u8>, i64, bool)> = None;
        while let Some(msg) = stream.next().await {
            let msg = msg?;
            if ctx.is_none() {
                ctx = Some(self.context_of(&msg)?);
            }
            let Some(c) = &ctx else { continue };
            let limits = &self.state.sessions.limits;
            match msg.payload {
                Some(Payload::Batch(b)) => {
                    for a in b.artifacts {
                        let (data, ok) = match a.data {
                            Some(chunk) => {
                                let ok = crc32fast::hash(&chunk.data) as i64 == chunk.crc;
                                (chunk.data, ok)
                            }
                            None => (vec![], true),
                        };
                        if ok {
                            c.session
                                .add_artifact(limits, a.name.clone(), Bytes::from(data))?;
                        }
                        summaries.push(pb::add_artifacts_response::ArtifactSummary {
                            name: a.name,
                            is_crc_successful: ok,
                        });
                    }
                }
                Some(Payload::BeginChunk(b)) => {
                    let (data, ok) = match b.initial_chunk {
                        Some(chunk) => {
                            let ok = crc32fast::hash(&chunk.data) as i64 == chunk.crc;
                            (chunk.data, ok)
                        }
                        None => (vec![], true),
                    };
                    let remaining = b.num_chunks - 1;
                    pending = Some((b.name, data, remaining, ok));
                }
                Some(Payload::Chunk(chunk)) => {
                    if let Some((name, data, remaining, ok)) = pending.as_mut() {
                        *ok &= crc32fast::hash(&chunk.data) as i64 == chunk.crc;
                        // (Checked as it grows: a stream of chunks is not held past the limit.)
                        let held = c.session.artifact_bytes();
                        let size = data.len().saturating_add(chunk.data.len());
                        if held.saturating_add(size) > limits.max_artifact_bytes {
                            return Err(limits.too_many_artifact_bytes(name, held, size));
                        }
                        data.extend_from_slice(&chunk.data);
                        *remaining -= 1;
                    }
                }
                None => {}
            }
            if let Some((_, _, remaining, _)) = &pending
                && *remaining <= 0
                && let Some((name, data, _, ok)) = pending.take()
            {
                if ok {
                    c.session
                        .add_artifact(limits, name.clone(), Bytes::from(data))?;
                }
                summaries.push(pb::add_artifacts_response::ArtifactSummary {
                    name,
                    is_crc_successful: ok,
                });
            }
        }
        let (session_id, server_side_session_id) = match &ctx {
            Some(c) => (
                c.session.session_id.clone(),
                c.session.server_side_session_id.clone(),
            ),
            None => (String::new(), String::new()),
        };
        Ok(Response::new(pb::AddArtifactsResponse {
            session_id,
            server_side_session_id,
            artifacts: summaries,
        }))
    }

    async fn artifact_status(
        &self,
        request: Request<pb::ArtifactStatusesRequest>,
    ) -> Result<Response<pb::ArtifactStatusesResponse>, Status> {
        let req = request.into_inner();
        let ctx = self.context_of(&req)?;
        let artifacts = ctx.session.artifacts.lock();
        let statuses: HashMap<String, pb::artifact_statuses_response::ArtifactStatus> = req
            .names
            .into_iter()
            .map(|n| {
                let exists = artifacts.contains_key(&n);
                (n, pb::artifact_statuses_response::ArtifactStatus { exists })
            })
            .collect();
        Ok(Response::new(pb::ArtifactStatusesResponse {
            session_id: ctx.session.session_id.clone(),
            server_side_session_id: ctx.session.server_side_session_id.clone(),
            statuses,
        }))
    }

    async fn interrupt(
        &self,
        request: Request<pb::InterruptRequest>,
    ) -> Result<Response<pb::InterruptResponse>, Status> {
        use pb::interrupt_request::{Interrupt, InterruptType};
        let req = request.into_inner();
        let ctx = self.context_of(&req)?;
        let ops: Vec<_> = ctx.session.operations.lock().values().cloned().collect();
        let kind =
            InterruptType::try_from(req.interrupt_type).unwrap_or(InterruptType::Unspecified);
        let interrupted: Vec<String> = ops
            .into_iter()
            .filter(|op| match (kind, &req.interrupt) {
                (InterruptType::All, _) => true,
                (InterruptType::Tag, Some(Interrupt::OperationTag(tag))) => op.tags.contains(tag),
                (InterruptType::OperationId, Some(Interrupt::OperationId(id))) => &op.id == id,
                _ => false,
            })
            .filter(|op| op.interrupt())
            .map(|op| op.id.clone())
            .collect();
        Ok(Response::new(pb::InterruptResponse {
            session_id: ctx.session.session_id.clone(),
            server_side_session_id: ctx.session.server_side_session_id.clone(),
            interrupted_ids: interrupted,
        }))
    }

    type ReattachExecuteStream = ResponseStream;

    async fn reattach_execute(
        &self,
        request: Request<pb::ReattachExecuteRequest>,
    ) -> Result<Response<Self::ReattachExecuteStream>, Status> {
        let req = request.into_inner();
        let ctx = self.context_of(&req)?;
        let op = Self::operation(&ctx.session, &req.operation_id)?;
        if !op.reattachable {
            return Err(crate::error::invalid_handle(
                "INVALID_HANDLE.OPERATION_NOT_REATTACHABLE",
                &format!(
                    "The handle {} is invalid. Operation is not reattachable.",
                    req.operation_id
                ),
            ));
        }
        Ok(Response::new(Box::pin(
            op.stream_from(req.last_response_id),
        )))
    }

    async fn release_execute(
        &self,
        request: Request<pb::ReleaseExecuteRequest>,
    ) -> Result<Response<pb::ReleaseExecuteResponse>, Status> {
        use pb::release_execute_request::Release;
        let req = request.into_inner();
        let ctx = self.context_of(&req)?;
        let op = ctx
            .session
            .operations
            .lock()
            .get(&req.operation_id)
            .cloned();
        if let Some(op) = op {
            match &req.release {
                Some(Release::ReleaseUntil(u)) => op.release_until(&u.response_id),
                Some(Release::ReleaseAll(_)) | None => {
                    op.release_all();
                    ctx.session.operations.lock().remove(&req.operation_id);
                }
            }
        }
        Ok(Response::new(pb::ReleaseExecuteResponse {
            session_id: ctx.session.session_id.clone(),
            server_side_session_id: ctx.session.server_side_session_id.clone(),
            operation_id: Some(req.operation_id),
        }))
    }

    async fn release_session(
        &self,
        request: Request<pb::ReleaseSessionRequest>,
    ) -> Result<Response<pb::ReleaseSessionResponse>, Status> {
        let req = request.into_inner();
        let user = Self::user(&req.user_context);
        let released = self
            .state
            .sessions
            .release(&user, &req.session_id, req.allow_reconnect);
        Ok(Response::new(pb::ReleaseSessionResponse {
            session_id: req.session_id,
            server_side_session_id: released
                .map(|s| s.server_side_session_id.clone())
                .unwrap_or_default(),
        }))
    }

    async fn fetch_error_details(
        &self,
        request: Request<pb::FetchErrorDetailsRequest>,
    ) -> Result<Response<pb::FetchErrorDetailsResponse>, Status> {
        let req = request.into_inner();
        let ctx = self.context_of(&req)?;
        // An unknown error id is answered with an empty message, as Spark answers it.
        let Some(record) = ctx.session.take_error(&req.error_id) else {
            return Ok(Response::new(pb::FetchErrorDetailsResponse::default()));
        };
        Ok(Response::new(pb::FetchErrorDetailsResponse {
            server_side_session_id: ctx.session.server_side_session_id.clone(),
            session_id: ctx.session.session_id.clone(),
            root_error_idx: Some(0),
            errors: error_details(&record),
        }))
    }

    async fn clone_session(
        &self,
        request: Request<pb::CloneSessionRequest>,
    ) -> Result<Response<pb::CloneSessionResponse>, Status> {
        let req = request.into_inner();
        // The source must exist: a missing one creates neither session.
        let ctx = self.existing_of(&req)?;
        let new_id = req
            .new_session_id
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
        let clone = self.context(&req.user_context, &new_id, None)?;
        for (k, v) in ctx.session.conf.all() {
            clone.session.conf.set(&k, &v);
        }
        clone.session.catalog.copy_views_from(&ctx.session.catalog);
        Ok(Response::new(pb::CloneSessionResponse {
            session_id: ctx.session.session_id.clone(),
            server_side_session_id: ctx.session.server_side_session_id.clone(),
            new_session_id: new_id,
            new_server_side_session_id: clone.session.server_side_session_id.clone(),
        }))
    }

    async fn get_status(
        &self,
        request: Request<pb::GetStatusRequest>,
    ) -> Result<Response<pb::GetStatusResponse>, Status> {
        use pb::get_status_response::operation_status::OperationState;
        let req = request.into_inner();
        // Asking for the status of a session never creates it.
        let ctx = self.existing_of(&req)?;
        let ops = ctx.session.operations.lock();
        let ids: Vec<String> = match &req.operation_status {
            Some(s) if !s.operation_ids.is_empty() => s.operation_ids.clone(),
            _ => ops.keys().cloned().collect(),
        };
        let statuses = ids
            .into_iter()
            .map(|id| {
                let state = match ops.get(&id) {
                    Some(op) if op.is_finished() => OperationState::Succeeded,
                    Some(_) => OperationState::Running,
                    None => OperationState::Unknown,
                };
                pb::get_status_response::OperationStatus {
                    operation_id: id,
                    state: state as i32,
                    extensions: vec![],
                }
            })
            .collect();
        Ok(Response::new(pb::GetStatusResponse {
            session_id: ctx.session.session_id.clone(),
            server_side_session_id: ctx.session.server_side_session_id.clone(),
            operation_statuses: statuses,
            extensions: vec![],
        }))
    }
}
