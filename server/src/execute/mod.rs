//! ExecutePlan: decode the plan, run it as a reattachable operation, stream the responses.

pub mod catalog;
pub mod catalog_api;
pub mod command;
pub mod delta;
pub mod encode;
pub(crate) mod iceberg;
pub mod operation;
pub mod progress;
pub mod python_source;
mod tail;
pub mod write;

use std::pin::Pin;
use std::sync::Arc;

use arrow::array::{RecordBatch, StringArray};
use arrow::datatypes::{DataType, Field, Schema};
use ember_planner::proto::{CommandSpec, convert_command, convert_relation};
use ember_planner::spec::Statement;
use ember_planner::{PostProcess, show};
use ember_protos::spark::connect as pb;
use ember_protos::spark::connect::execute_plan_response::{
    ArrowBatch, ResponseType, ResultComplete, SqlCommandResult,
};
use futures::{Stream, StreamExt};
use prost::Message;
use tonic::Status;

use self::encode::ResultEncoder;
use self::operation::Operation;
use crate::error::{ErrorRecord, ServerError, ServerResult, status_of};
use crate::state::RequestContext;

pub type ResponseStream =
    Pin<Box<dyn Stream<Item = Result<pb::ExecutePlanResponse, Status>> + Send>>;

/// Builds responses that carry the ids the client checks.
#[derive(Clone)]
pub struct Responder {
    pub session_id: String,
    pub server_side_session_id: String,
    pub operation_id: String,
}

impl Responder {
    pub fn response(&self, kind: Option<ResponseType>) -> pb::ExecutePlanResponse {
        pb::ExecutePlanResponse {
            session_id: self.session_id.clone(),
            server_side_session_id: self.server_side_session_id.clone(),
            operation_id: self.operation_id.clone(),
            response_id: uuid::Uuid::new_v4().to_string(),
            response_type: kind,
            ..Default::default()
        }
    }
}

/// Start an operation for `req` and return the stream of its responses.
pub fn execute_plan(
    ctx: RequestContext,
    req: pb::ExecutePlanRequest,
) -> Result<ResponseStream, Status> {
    let operation_id = match req.operation_id.as_deref() {
        Some(id) if !id.is_empty() => {
            uuid::Uuid::parse_str(id).map_err(|_| {
                crate::error::invalid_handle(
                    "INVALID_HANDLE.FORMAT",
                    &format!("The handle {id} is invalid. Handle must be an UUID string."),
                )
            })?;
            id.to_string()
        }
        _ => uuid::Uuid::new_v4().to_string(),
    };
    let reattachable = req.request_options.iter().any(|o| {
        matches!(
            &o.request_option,
            Some(pb::execute_plan_request::request_option::RequestOption::ReattachOptions(r)) if r.reattachable
        )
    });
    let plan = req.plan.ok_or_else(|| {
        status_of(
            &ember_planner::SparkError::invalid_plan("ExecutePlan without a plan"),
            None,
        )
    })?;
    let op = Arc::new(Operation::new(
        operation_id.clone(),
        req.tags.clone(),
        reattachable,
    ));
    {
        let mut ops = ctx.session.operations.lock();
        if ops.contains_key(&operation_id) {
            return Err(crate::error::invalid_handle(
                "INVALID_HANDLE.OPERATION_ALREADY_EXISTS",
                &format!("The handle {operation_id} is invalid. Operation already exists."),
            ));
        }
        ops.insert(operation_id.clone(), op.clone());
    }
    let responder = Responder {
        session_id: ctx.session.session_id.clone(),
        server_side_session_id: ctx.session.server_side_session_id.clone(),
        operation_id: operation_id.clone(),
    };
    let task_op = op.clone();
    let cpu = ctx.state.cpu.clone();
    let text = crate::ui::plan_text(&plan);
    // (A client older than Spark 4.0 has no `execution_progress`: it gets none.)
    let interval = progress::report_interval(
        ctx.session
            .conf
            .get(progress::REPORT_INTERVAL_KEY)
            .as_deref(),
    )
    .filter(|_| !progress::before_spark_4(req.client_type.as_deref()));
    let span = tracing::info_span!(
        "query",
        session = %ctx.session.session_id,
        operation = %operation_id
    );
    let handle = cpu.spawn(tracing::Instrument::instrument(
        async move {
            let started = std::time::Instant::now();
            let counted = crate::prometheus::QueryGuard::started();
            let shown = crate::ui::QueryGuard::started(
                &ctx.session.session_id,
                &ctx.session.user_id,
                &task_op.id,
                text,
                task_op.progress.clone(),
            );
            // A panic while planning or running is this query's error, not a client left waiting.
            let run =
                ember_execution::panic::catch_panic(run_plan(&ctx, &task_op, &responder, plan));
            // `spark.ember.queryTimeout` (and in local mode `spark.ember.taskTimeout`): past it
            // the operation stops (its job is dropped).
            let limits = &ctx.state.sessions.limits;
            let tasks = ctx.state.runner.name() != "local";
            let run = async {
                match limits.operation_timeout(tasks) {
                    Some((limit, setting)) => {
                        // A local plan waiting in a Python function sees the timer only when
                        // the call returns: a watchdog kills the workers serving it.
                        let fired = Arc::new(std::sync::atomic::AtomicBool::new(false));
                        let watchdog = tokio::spawn({
                            let (progress, fired) = (task_op.progress.clone(), fired.clone());
                            async move {
                                tokio::time::sleep(limit).await;
                                fired.store(true, std::sync::atomic::Ordering::SeqCst);
                                progress.cancel_python_calls();
                            }
                        });
                        let outcome = tokio::time::timeout(limit, run).await;
                        watchdog.abort();
                        match outcome {
                            Ok(outcome) if !fired.load(std::sync::atomic::Ordering::SeqCst) => {
                                outcome
                            }
                            _ => Ok(Err(limits.query_timed_out(limit, setting).into())),
                        }
                    }
                    None => run.await,
                }
            };
            // Progress is tracked for the metrics sent with the results, reported if asked for.
            let run = progress::scope(task_op.progress.clone(), run);
            let outcome = match interval {
                Some(interval) => {
                    tokio::select! {
                        outcome = run => outcome,
                        () = progress::tick(&task_op, &responder, interval) => unreachable_tick(),
                    }
                }
                None => {
                    task_op
                        .report_progress
                        .store(false, std::sync::atomic::Ordering::Relaxed);
                    run.await
                }
            };
            // (The metrics were sent with the results: the plans and what they hold go.)
            task_op.progress.release_plans();
            let outcome = outcome.unwrap_or_else(|panic| {
                tracing::error!(operation = %task_op.id, "query panicked: {panic}");
                Err(ember_planner::SparkError::new(
                    ember_planner::error::ErrorKind::Internal,
                    "INTERNAL_ERROR",
                    "XX000",
                    format!("The query failed with an internal error (a panic): {panic}"),
                    vec![],
                )
                .into())
            });
            // Counted and logged before the client is told: once it has ResultComplete it may
            // release the operation, which ends this task.
            progress::operation_ended(&task_op, counted, started, outcome.is_err()).await;
            shown.ended(outcome.as_ref().err().map(|e| e.to_string()));
            match outcome {
                Ok(()) => {
                    let complete =
                        responder.response(Some(ResponseType::ResultComplete(ResultComplete {})));
                    progress::push_if_changed(&task_op, &complete).await;
                    task_op.push(complete).await;
                    task_op.finish(Ok(()));
                }
                Err(e) => task_op.finish(Err(error_status(&ctx, e))),
            }
            if !task_op.reattachable {
                // Nothing can reattach: drop the operation once its stream has drained.
                ctx.session.operations.lock().remove(&task_op.id);
            }
        },
        span,
    ));
    op.set_task(handle.abort_handle());
    Ok(Box::pin(op.stream_from(None)))
}

/// [`progress::tick`] never ends: the query's end ends it.
fn unreachable_tick() -> Result<ServerResult<()>, String> {
    Err("progress reporting ended".into())
}

/// Record the error for FetchErrorDetails and turn it into a status.
pub fn error_status(ctx: &RequestContext, e: ServerError) -> Status {
    match e.to_spark() {
        Some(spark) => {
            tracing::debug!(error = %spark, "request failed");
            let id = ctx.session.remember_error(ErrorRecord {
                error: spark.clone(),
            });
            status_of(&spark, Some(&id))
        }
        None => match e {
            ServerError::Status(s) => s,
            other => Status::internal(other.to_string()),
        },
    }
}

/// Decode `Plan.op_type`, including zstd-compressed plans.
enum Decoded {
    Relation(Box<pb::Relation>),
    Command(Box<pb::Command>),
}

/// The largest plan a compressed operation may decompress to (as gRPC's message limit).
const MAX_PLAN_BYTES: u64 = 512 * 1024 * 1024;

fn decode_plan(plan: pb::Plan) -> ServerResult<Decoded> {
    use pb::plan::OpType;
    use pb::plan::compressed_operation::OpType as CompressedType;
    match plan.op_type {
        Some(OpType::Root(r)) => Ok(Decoded::Relation(Box::new(r))),
        Some(OpType::Command(c)) => Ok(Decoded::Command(Box::new(c))),
        Some(OpType::CompressedOperation(c)) => {
            if c.compression_codec != pb::CompressionCodec::Zstd as i32 {
                return Err(ember_planner::SparkError::invalid_plan(
                    "unknown plan compression codec",
                )
                .into());
            }
            // (Read at most the limit: a few KiB of zstd can claim gigabytes.)
            let decompress_error = |e: std::io::Error| {
                ember_planner::SparkError::invalid_plan(format!("cannot decompress plan: {e}"))
            };
            let decoder =
                zstd::stream::read::Decoder::new(c.data.as_slice()).map_err(decompress_error)?;
            let mut bytes = Vec::new();
            std::io::Read::read_to_end(
                &mut std::io::Read::take(decoder, MAX_PLAN_BYTES + 1),
                &mut bytes,
            )
            .map_err(decompress_error)?;
            if bytes.len() as u64 > MAX_PLAN_BYTES {
                return Err(ember_planner::SparkError::invalid_plan(format!(
                    "the decompressed plan is larger than {} MiB",
                    MAX_PLAN_BYTES >> 20
                ))
                .into());
            }
            let bad = |e: prost::DecodeError| {
                ember_planner::SparkError::invalid_plan(format!("cannot decode plan: {e}"))
            };
            match CompressedType::try_from(c.op_type).unwrap_or(CompressedType::Unspecified) {
                CompressedType::Relation => Ok(Decoded::Relation(Box::new(
                    pb::Relation::decode(bytes.as_slice()).map_err(bad)?,
                ))),
                CompressedType::Command => Ok(Decoded::Command(Box::new(
                    pb::Command::decode(bytes.as_slice()).map_err(bad)?,
                ))),
                CompressedType::Unspecified => Err(ember_planner::SparkError::invalid_plan(
                    "compressed plan without type",
                )
                .into()),
            }
        }
        None => Err(ember_planner::SparkError::invalid_plan("plan without an operation").into()),
    }
}

async fn run_plan(
    ctx: &RequestContext,
    op: &Operation,
    responder: &Responder,
    plan: pb::Plan,
) -> ServerResult<()> {
    match decode_plan(plan)? {
        Decoded::Relation(rel) => stream_relation(ctx, op, responder, &rel).await,
        Decoded::Command(cmd) => run_command(ctx, op, responder, &cmd).await,
    }
}

async fn stream_relation(
    ctx: &RequestContext,
    op: &Operation,
    responder: &Responder,
    rel: &pb::Relation,
) -> ServerResult<()> {
    let spec = match &rel.rel_type {
        // A DataFrame `spark.catalog.createTable` returned reads its table when run again
        // (Spark's plan cache gives the same); the creation happened once.
        Some(pb::relation::RelType::Catalog(pb::Catalog {
            cat_type:
                Some(
                    pb::catalog::CatType::CreateTable(pb::CreateTable { table_name, .. })
                    | pb::catalog::CatType::CreateExternalTable(pb::CreateExternalTable {
                        table_name,
                        ..
                    }),
                ),
        })) if rel
            .common
            .as_ref()
            .and_then(|c| c.plan_id)
            .is_some_and(|id| ctx.session.created_by_plan.lock().contains(&id)) =>
        {
            ember_planner::spec::Plan::new(ember_planner::spec::PlanNode::Table {
                name: ember_planner::sql::parse_identifier_parts(table_name)?,
            })
        }
        Some(pb::relation::RelType::Catalog(c)) => match catalog_api::answer(ctx, c).await? {
            catalog_api::CatalogAnswer::Rows(batch) => {
                let names: Vec<String> = batch
                    .schema()
                    .fields()
                    .iter()
                    .map(|f| f.name().clone())
                    .collect();
                let encoder = ctx.result_encoder(&batch.schema(), &names);
                send_schema(op, responder, &encoder).await?;
                send_batch(op, responder, &encoder, &batch, 0).await?;
                return Ok(());
            }
            catalog_api::CatalogAnswer::Table(name) => {
                if let Some(id) = rel.common.as_ref().and_then(|c| c.plan_id) {
                    ctx.session.created_by_plan.lock().insert(id);
                }
                ember_planner::spec::Plan::new(ember_planner::spec::PlanNode::Table { name })
            }
        },
        // A SQL command sent as a relation (the ADBC Spark driver sends every statement so)
        // runs now, as Spark's `spark.sql` runs commands, and answers its result rows.
        Some(pb::relation::RelType::Sql(_)) => {
            let as_command = pb::Command {
                command_type: Some(pb::command::CommandType::SqlCommand(pb::SqlCommand {
                    input: Some(rel.clone()),
                    ..Default::default()
                })),
            };
            match convert_command(&ctx.proto_context(), &as_command)? {
                CommandSpec::Sql {
                    statement: Statement::Query(_),
                    ..
                } => convert_relation(&ctx.proto_context(), rel)?,
                CommandSpec::Sql { statement, .. } => {
                    let result = command::execute_statement(ctx, statement).await?;
                    convert_relation(&ctx.proto_context(), &command::local_relation(result)?)?
                }
                _ => convert_relation(&ctx.proto_context(), rel)?,
            }
        }
        _ => convert_relation(&ctx.proto_context(), rel)?,
    };
    let query = ctx.resolve(&spec)?;
    crate::ui::describe(&op.progress, query.plan.display_indent().to_string());
    send_rows(ctx, op, responder, &query).await?;
    if let Some(metrics) = progress::metrics_response(op, responder) {
        push(op, metrics).await?;
    }
    send_observed_metrics(ctx, op, responder, &query.observations).await
}

/// The rows of a resolved query, shaped by its post-processing.
async fn send_rows(
    ctx: &RequestContext,
    op: &Operation,
    responder: &Responder,
    query: &ember_planner::ResolvedQuery,
) -> ServerResult<()> {
    match query.post {
        PostProcess::None => {
            let mut stream = ctx.execute(query).await?;
            let encoder = ctx.result_encoder(&stream.schema(), &query.names);
            send_schema(op, responder, &encoder).await?;
            let mut offset = 0i64;
            let mut sent = false;
            while let Some(batch) = stream.next().await {
                let batch = batch?;
                if batch.num_rows() == 0 && sent {
                    continue;
                }
                offset = send_batch(op, responder, &encoder, &batch, offset).await?;
                sent = true;
            }
            if !sent {
                let empty = RecordBatch::new_empty(encoder.schema().clone());
                send_batch(op, responder, &encoder, &empty, 0).await?;
            }
            Ok(())
        }
        PostProcess::ShowString {
            num_rows,
            truncate,
            vertical,
        } => {
            let batches = ctx.collect(query).await?;
            let text = show::show_string(
                &batches,
                &query.names,
                query.plan.schema().inner().fields(),
                num_rows,
                truncate,
                vertical,
                &ctx.session.conf.time_zone(),
            );
            send_text(op, responder, "show_string", text).await
        }
        PostProcess::HtmlString { num_rows, truncate } => {
            let batches = ctx.collect(query).await?;
            let html = show::html_string(
                &batches,
                &query.names,
                query.plan.schema().inner().fields(),
                num_rows,
                truncate,
                &ctx.session.conf.time_zone(),
            );
            send_text(op, responder, "html_string", html).await
        }
        PostProcess::Tail(n) => {
            let mut stream = ctx.execute(query).await?;
            let schema = stream.schema();
            let mut kept = tail::Tail::new(n);
            while let Some(batch) = stream.next().await {
                kept.push(batch?);
            }
            let tail = kept
                .finish(&schema)
                .map_err(datafusion::error::DataFusionError::from)?;
            let encoder = ctx.result_encoder(&schema, &query.names);
            send_schema(op, responder, &encoder).await?;
            send_batch(op, responder, &encoder, &tail, 0).await?;
            Ok(())
        }
    }
}

/// `df.observe(...)` metrics: each observation's aggregation, run once the query's rows
/// are sent, answered as literals keyed by the metrics' names.
async fn send_observed_metrics(
    ctx: &RequestContext,
    op: &Operation,
    responder: &Responder,
    observations: &[ember_planner::Observation],
) -> ServerResult<()> {
    if observations.is_empty() {
        return Ok(());
    }
    let mut metrics = Vec::with_capacity(observations.len());
    for o in observations {
        let query = ember_planner::ResolvedQuery {
            plan: o.plan.clone(),
            names: o.keys.clone(),
            post: PostProcess::None,
            observations: vec![],
        };
        let batches = ctx.collect(&query).await?;
        let mut values = Vec::with_capacity(o.keys.len());
        if let Some(batch) = batches.iter().find(|b| b.num_rows() > 0) {
            for column in batch.columns() {
                let value = datafusion::common::ScalarValue::try_from_array(column, 0)?;
                values.push(ember_planner::literal::to_proto(&value)?);
            }
        }
        metrics.push(pb::execute_plan_response::ObservedMetrics {
            name: o.name.clone(),
            values,
            keys: o.keys.clone(),
            plan_id: o.plan_id,
            root_error_idx: None,
            errors: vec![],
        });
    }
    let mut response = responder.response(None);
    response.observed_metrics = metrics;
    push(op, response).await
}

/// One row of one string column (`show()`'s and `_repr_html_`'s answers).
async fn send_text(
    op: &Operation,
    responder: &Responder,
    column: &str,
    text: String,
) -> ServerResult<()> {
    let schema = Arc::new(Schema::new(vec![Field::new(column, DataType::Utf8, false)]));
    let batch = RecordBatch::try_new(
        schema.clone(),
        vec![Arc::new(StringArray::from(vec![text]))],
    )
    .map_err(datafusion::error::DataFusionError::from)?;
    let encoder = ResultEncoder::new(&schema, &[column.to_string()]);
    send_schema(op, responder, &encoder).await?;
    send_batch(op, responder, &encoder, &batch, 0).await?;
    Ok(())
}

async fn send_schema(
    op: &Operation,
    responder: &Responder,
    encoder: &ResultEncoder,
) -> ServerResult<()> {
    let names: Vec<String> = encoder
        .schema()
        .fields()
        .iter()
        .map(|f| f.name().clone())
        .collect();
    let mut response = responder.response(None);
    response.schema = Some(ember_planner::types::schema_to_proto(
        encoder.schema(),
        &names,
    )?);
    push(op, response).await
}

async fn send_batch(
    op: &Operation,
    responder: &Responder,
    encoder: &ResultEncoder,
    batch: &RecordBatch,
    mut offset: i64,
) -> ServerResult<i64> {
    let converted = encoder.convert(batch)?;
    for (rows, data) in encoder.encode(&converted)? {
        let response = responder.response(Some(ResponseType::ArrowBatch(ArrowBatch {
            row_count: rows,
            data,
            start_offset: Some(offset),
            chunk_index: None,
            num_chunks_in_batch: None,
        })));
        push(op, response).await?;
        op.progress.add_rows_returned(rows.max(0) as u64);
        offset += rows;
    }
    Ok(offset)
}

async fn push(op: &Operation, response: pb::ExecutePlanResponse) -> ServerResult<()> {
    // The progress goes ahead of the query's last responses (its metrics, its end); while
    // results stream, the ticks report it (a report ahead of every batch cost the client a
    // release call each, as many as the results themselves for a short query).
    let results = response.schema.is_some()
        || matches!(response.response_type, Some(ResponseType::ArrowBatch(_)));
    let reported = results || progress::push_if_changed(op, &response).await;
    if reported && op.push(response).await {
        Ok(())
    } else {
        Err(ember_execution::ExecutionError::Cancelled.into())
    }
}

async fn run_command(
    ctx: &RequestContext,
    op: &Operation,
    responder: &Responder,
    cmd: &pb::Command,
) -> ServerResult<()> {
    match convert_command(&ctx.proto_context(), cmd)? {
        CommandSpec::Sql {
            statement,
            relation,
        } => {
            let relation = match statement {
                Statement::Query(_) => *relation,
                other => {
                    let result = command::execute_statement(ctx, other).await?;
                    command::local_relation(result)?
                }
            };
            let response =
                responder.response(Some(ResponseType::SqlCommandResult(SqlCommandResult {
                    relation: Some(relation),
                })));
            push(op, response).await
        }
        CommandSpec::Statement(statement) => {
            command::execute_statement(ctx, statement).await?;
            Ok(())
        }
        CommandSpec::Checkpoint(plan) => {
            let query = ctx.resolve(&plan)?;
            // Kept under the names Spark shows (the plan's columns have internal names).
            let fields: Vec<Field> = query
                .plan
                .schema()
                .fields()
                .iter()
                .zip(&query.names)
                .map(|(f, name)| f.as_ref().clone().with_name(name))
                .collect();
            let schema = Arc::new(Schema::new(fields));
            let batches = ctx
                .collect(&query)
                .await?
                .into_iter()
                .map(|b| RecordBatch::try_new(schema.clone(), b.columns().to_vec()))
                .collect::<Result<Vec<_>, _>>()
                .map_err(datafusion::error::DataFusionError::from)?;
            let relation_id = uuid::Uuid::new_v4().to_string();
            ctx.session.checkpoints.lock().insert(
                relation_id.clone(),
                Arc::new(ember_planner::spec::LocalData { schema, batches }),
            );
            let response = responder.response(Some(ResponseType::CheckpointCommandResult(
                pb::CheckpointCommandResult {
                    relation: Some(pb::CachedRemoteRelation { relation_id }),
                },
            )));
            push(op, response).await
        }
        CommandSpec::RemoveCachedRelation(id) => {
            ctx.session.checkpoints.lock().remove(&id);
            Ok(())
        }
        CommandSpec::RegisterPythonFunction(udf) => {
            ctx.session.catalog.register_function(udf);
            Ok(())
        }
        CommandSpec::RegisterPythonDataSource { name, source } => {
            ctx.session.catalog.register_data_source(&name, source);
            Ok(())
        }
        // (Its answer comes before ResultComplete as Spark's does: a client that stops reading
        // after the first answer, as PySpark's exit hook does, leaves the call open rather
        // than completing it while the interpreter shuts down, which can deadlock grpcio.)
        CommandSpec::MlCleanCache => {
            let removed = pb::expression::Literal {
                literal_type: Some(pb::expression::literal::LiteralType::Integer(0)),
                ..Default::default()
            };
            let response =
                responder.response(Some(ResponseType::MlCommandResult(pb::MlCommandResult {
                    result_type: Some(pb::ml_command_result::ResultType::Param(removed)),
                })));
            push(op, response).await
        }
    }
}
