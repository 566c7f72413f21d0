//! Arrow Flight SQL on `--flight-sql-port` (off by default), for BI and SQL tools that speak
//! it (ADBC's Flight SQL driver, JDBC's Flight SQL driver): statements run through the same
//! SQL front end, catalog and execution as Spark Connect's, in one Ember session shared by the
//! port's clients (Flight SQL has no session of its own). Queries stream their batches;
//! commands (DDL, `INSERT`, `SET`, ...) run when they arrive; prepared statements bind `?`
//! parameters from the batch the client puts; catalogs, schemas, tables (with their schemas),
//! table types and SQL info answer the metadata calls. The Spark Connect port's token guards
//! this port too.

use std::collections::HashMap;
use std::pin::Pin;
use std::sync::Arc;

use arrow::array::RecordBatch;
use arrow::datatypes::Schema;
use arrow_flight::encode::FlightDataEncoderBuilder;
use arrow_flight::sql::metadata::{SqlInfoData, SqlInfoDataBuilder};
use arrow_flight::sql::server::{FlightSqlService, PeekableFlightDataStream};
use arrow_flight::sql::{
    ActionCancelQueryRequest, ActionCancelQueryResult, ActionClosePreparedStatementRequest,
    ActionCreatePreparedStatementRequest, ActionCreatePreparedStatementResult, Any,
    CommandGetCatalogs, CommandGetDbSchemas, CommandGetPrimaryKeys, CommandGetSqlInfo,
    CommandGetTableTypes, CommandGetTables, CommandPreparedStatementQuery,
    CommandPreparedStatementUpdate, CommandStatementQuery, CommandStatementUpdate,
    DoPutPreparedStatementResult, ProstMessageExt, SqlInfo, TicketStatementQuery,
};
use arrow_flight::{
    FlightData, FlightDescriptor, FlightEndpoint, FlightInfo, IpcMessage, SchemaAsIpc, Ticket,
    flight_service_server::FlightService,
};
use datafusion::common::ScalarValue;
use ember_planner::spec::{self, Statement};
use futures::{Stream, StreamExt, TryStreamExt};
use parking_lot::Mutex;
use prost::Message;
use tonic::{Request, Response, Status};

use crate::error::{ServerError, status_of};
use crate::execute::command;
use crate::execute::encode::ResultEncoder;
use crate::state::{RequestContext, ServerState};
use ember_execution::ipc_check::{IpcBudget, check_flight_data};

mod handles;
use handles::Handles;

/// The session the port's statements run in.
const SESSION: &str = "00000000-0000-4000-8000-00000000f115";

type DataStream = Pin<Box<dyn Stream<Item = Result<FlightData, Status>> + Send + 'static>>;

pub struct FlightSql {
    state: Arc<ServerState>,
    /// Results of commands run while their FlightInfo was asked, until fetched.
    results: Mutex<HashMap<Vec<u8>, RecordBatch>>,
    /// Prepared statements: their SQL and the parameters last bound.
    prepared: Mutex<HashMap<Vec<u8>, Bound>>,
    info: SqlInfoData,
}

/// A prepared statement's SQL and the parameters last bound to it.
type Bound = (String, Vec<ScalarValue>);

/// What a statement is once planned: a query to stream, or the rows a command answered.
enum Planned {
    Query(Box<ember_planner::ResolvedQuery>),
    Rows(RecordBatch),
}

fn to_status(e: ServerError) -> Status {
    match e {
        ServerError::Status(s) => s,
        other => match other.to_spark() {
            Some(spark) => status_of(&spark, None),
            None => Status::internal(other.to_string()),
        },
    }
}

fn flight_error(e: ServerError) -> arrow_flight::error::FlightError {
    arrow_flight::error::FlightError::Tonic(Box::new(to_status(e)))
}

fn internal(e: impl std::fmt::Display) -> Status {
    Status::internal(e.to_string())
}

/// A stream of one batch, as Flight data.
fn one_batch(batch: RecordBatch) -> Response<DataStream> {
    let schema = batch.schema();
    let stream = FlightDataEncoderBuilder::new()
        .with_schema(schema)
        .build(futures::stream::once(async move { Ok(batch) }))
        .map_err(Status::from);
    Response::new(Box::pin(stream))
}

fn flight_info(
    schema: &Schema,
    ticket: Vec<u8>,
    descriptor: FlightDescriptor,
) -> Result<FlightInfo, Status> {
    Ok(FlightInfo::new()
        .try_with_schema(schema)
        .map_err(internal)?
        .with_endpoint(FlightEndpoint::new().with_ticket(Ticket::new(ticket)))
        .with_descriptor(descriptor))
}

/// The answer to a metadata command's `GetFlightInfo`: its result schema and a ticket that
/// brings the command back to `DoGet`.
fn metadata_info(
    ticket: Vec<u8>,
    schema: &Schema,
    request: Request<FlightDescriptor>,
) -> Result<Response<FlightInfo>, Status> {
    Ok(Response::new(flight_info(
        schema,
        ticket,
        request.into_inner(),
    )?))
}

impl FlightSql {
    pub fn new(state: Arc<ServerState>) -> Result<Self, String> {
        let mut info = SqlInfoDataBuilder::new();
        info.append(SqlInfo::FlightSqlServerName, "Ember");
        info.append(SqlInfo::FlightSqlServerVersion, env!("CARGO_PKG_VERSION"));
        info.append(SqlInfo::FlightSqlServerArrowVersion, "59");
        info.append(SqlInfo::FlightSqlServerReadOnly, false);
        info.append(SqlInfo::FlightSqlServerSql, true);
        info.append(SqlInfo::FlightSqlServerSubstrait, false);
        info.append(SqlInfo::FlightSqlServerTransaction, 0i32);
        info.append(SqlInfo::FlightSqlServerCancel, false);
        info.append(SqlInfo::SqlIdentifierQuoteChar, "`");
        let info = info.build().map_err(|e| format!("Flight SQL info: {e}"))?;
        Ok(Self {
            state,
            results: Mutex::new(HashMap::new()),
            prepared: Mutex::new(HashMap::new()),
            info,
        })
    }

    fn context(&self) -> Result<RequestContext, Status> {
        RequestContext::open(&self.state, "", SESSION, None)
    }

    /// `sql` with `params` bound to its `?`s: planned when a query, run when a command.
    async fn plan(
        &self,
        ctx: &RequestContext,
        sql: &str,
        params: &[ScalarValue],
    ) -> Result<Planned, Status> {
        let args = ember_planner::sql::Arguments {
            named: vec![],
            positional: params.iter().cloned().map(spec::Expr::Literal).collect(),
        };
        let statement = ember_planner::sql::parse_statement(sql, &args)
            .map_err(|e| to_status(ServerError::from(e)))?;
        match statement {
            Statement::Query(plan) => Ok(Planned::Query(Box::new(
                ctx.resolve(&plan).map_err(to_status)?,
            ))),
            other => {
                let rows = command::execute_statement(ctx, other)
                    .await
                    .map_err(to_status)?;
                Ok(Planned::Rows(rows.unwrap_or_else(|| {
                    RecordBatch::new_empty(Arc::new(Schema::empty()))
                })))
            }
        }
    }

    fn encoder(ctx: &RequestContext, query: &ember_planner::ResolvedQuery) -> ResultEncoder {
        ctx.result_encoder(query.plan.schema().as_arrow(), &query.names)
    }

    /// The FlightInfo of `sql`: a query's result schema and a ticket that runs it, or a
    /// command's rows kept for the ticket that fetches them.
    async fn info_of(
        &self,
        sql: &str,
        params: Vec<ScalarValue>,
        descriptor: FlightDescriptor,
    ) -> Result<FlightInfo, Status> {
        let ctx = self.context()?;
        match self.plan(&ctx, sql, &params).await? {
            Planned::Query(query) => {
                let schema = Self::encoder(&ctx, &query).schema().clone();
                let ticket = Handles::from_query(sql, &params);
                flight_info(&schema, ticket, descriptor)
            }
            Planned::Rows(batch) => {
                let key = format!("rows:{}", uuid::Uuid::new_v4()).into_bytes();
                let schema = batch.schema();
                self.results.lock().insert(key.clone(), batch);
                flight_info(
                    &schema,
                    TicketStatementQuery {
                        statement_handle: key.into(),
                    }
                    .as_any()
                    .encode_to_vec(),
                    descriptor,
                )
            }
        }
    }

    /// The batches of a ticket's statement.
    async fn stream_of(&self, handle: &[u8]) -> Result<Response<DataStream>, Status> {
        if let Some(batch) = self.results.lock().remove(handle) {
            return Ok(one_batch(batch));
        }
        let (sql, params) = Handles::query_of(handle)?;
        let ctx = self.context()?;
        match self.plan(&ctx, &sql, &params).await? {
            Planned::Rows(batch) => Ok(one_batch(batch)),
            Planned::Query(query) => {
                let encoder = Self::encoder(&ctx, &query);
                let schema = encoder.schema().clone();
                let batches = ctx.execute(&query).await.map_err(to_status)?;
                // (A failing batch is the Spark error it carries, as the Spark Connect port
                // reports it.)
                let converted = batches.map(move |b| {
                    let b = b.map_err(|e| flight_error(ServerError::DataFusion(e)))?;
                    encoder.convert(&b).map_err(flight_error)
                });
                let stream = FlightDataEncoderBuilder::new()
                    .with_schema(schema)
                    .build(converted)
                    .map_err(Status::from);
                Ok(Response::new(Box::pin(stream)))
            }
        }
    }

    /// The parameters a client put for a prepared statement: the first row of its batches.
    async fn parameters(
        request: Request<PeekableFlightDataStream>,
    ) -> Result<Vec<ScalarValue>, Status> {
        // The client's messages are checked against their bodies before arrow-ipc decodes them.
        let mut budget = IpcBudget::default();
        let stream = request
            .into_inner()
            .map_err(arrow_flight::error::FlightError::from)
            .and_then(move |m| {
                let checked = check_flight_data(&m, &mut budget).map(|()| m);
                async move { checked.map_err(arrow_flight::error::FlightError::Arrow) }
            });
        let mut batches =
            arrow_flight::decode::FlightRecordBatchStream::new_from_flight_data(stream);
        while let Some(batch) = batches.next().await {
            let batch = batch.map_err(|e| Status::invalid_argument(e.to_string()))?;
            if batch.num_rows() == 0 {
                continue;
            }
            return batch
                .columns()
                .iter()
                .map(|c| ScalarValue::try_from_array(c, 0).map_err(internal))
                .collect();
        }
        Ok(vec![])
    }

    /// Drop the results of `info`'s statements that were not fetched yet.
    fn forget(&self, info: &FlightInfo) {
        for endpoint in &info.endpoint {
            let Some(ticket) = &endpoint.ticket else {
                continue;
            };
            if let Ok(any) = Any::decode(ticket.ticket.as_ref())
                && let Ok(Some(statement)) = any.unpack::<TicketStatementQuery>()
            {
                self.results
                    .lock()
                    .remove(statement.statement_handle.as_ref());
            }
        }
    }

    /// A prepared statement's SQL and the parameters last bound to it.
    fn bound(&self, handle: &[u8]) -> Result<Bound, Status> {
        self.prepared
            .lock()
            .get(handle)
            .cloned()
            .ok_or_else(|| Status::not_found("no such prepared statement"))
    }

    /// Every table and view: (database, name, type, schema).
    fn tables(
        &self,
        ctx: &RequestContext,
    ) -> Result<Vec<(String, String, &'static str, Schema)>, Status> {
        let mut out = vec![];
        let databases =
            crate::execute::catalog::show_databases(ctx, |_| true).map_err(to_status)?;
        let names = |b: &RecordBatch, i: usize| -> Vec<String> {
            b.column(i)
                .as_any()
                .downcast_ref::<arrow::array::StringArray>()
                .map(|a| {
                    a.iter()
                        .map(|v| v.unwrap_or_default().to_string())
                        .collect()
                })
                .unwrap_or_default()
        };
        for db in databases.map(|b| names(&b, 0)).unwrap_or_default() {
            let Some(listed) =
                crate::execute::catalog::show_tables(ctx, Some(&db), |_| true, false)
                    .map_err(to_status)?
            else {
                continue;
            };
            let (spaces, tables) = (names(&listed, 0), names(&listed, 1));
            for (space, table) in spaces.into_iter().zip(tables) {
                if space.is_empty() && db != "default" {
                    continue; // (Temporary views are listed once, under `default`.)
                }
                let name = if space.is_empty() {
                    vec![table.clone()]
                } else {
                    vec![space.clone(), table.clone()]
                };
                let plan = spec::Plan::new(spec::PlanNode::Table { name });
                let schema = match ctx.resolve(&plan) {
                    Ok(q) => Self::encoder(ctx, &q).schema().as_ref().clone(),
                    Err(_) => Schema::empty(),
                };
                let kind = if space.is_empty() {
                    "TEMPORARY"
                } else {
                    "TABLE"
                };
                out.push((
                    if space.is_empty() { db.clone() } else { space },
                    table,
                    kind,
                    schema,
                ));
            }
        }
        Ok(out)
    }
}

#[tonic::async_trait]
impl FlightSqlService for FlightSql {
    type FlightService = FlightSql;

    async fn get_flight_info_statement(
        &self,
        query: CommandStatementQuery,
        request: Request<FlightDescriptor>,
    ) -> Result<Response<FlightInfo>, Status> {
        Ok(Response::new(
            self.info_of(&query.query, vec![], request.into_inner())
                .await?,
        ))
    }

    async fn do_get_statement(
        &self,
        ticket: TicketStatementQuery,
        _request: Request<Ticket>,
    ) -> Result<Response<<Self as FlightService>::DoGetStream>, Status> {
        self.stream_of(&ticket.statement_handle).await
    }

    async fn do_put_statement_update(
        &self,
        command: CommandStatementUpdate,
        _request: Request<PeekableFlightDataStream>,
    ) -> Result<i64, Status> {
        let ctx = self.context()?;
        self.plan(&ctx, &command.query, &[]).await?;
        Ok(-1)
    }

    async fn do_action_create_prepared_statement(
        &self,
        query: ActionCreatePreparedStatementRequest,
        _request: Request<arrow_flight::Action>,
    ) -> Result<ActionCreatePreparedStatementResult, Status> {
        let handle = uuid::Uuid::new_v4().as_bytes().to_vec();
        // The result's schema when the statement plans without its parameters.
        let dataset_schema = match ember_planner::sql::parse_statement(
            &query.query,
            &ember_planner::sql::Arguments {
                named: vec![],
                positional: vec![],
            },
        ) {
            Ok(Statement::Query(plan)) => {
                let ctx = self.context()?;
                match ctx.resolve(&plan) {
                    Ok(q) => {
                        let schema = Self::encoder(&ctx, &q).schema().clone();
                        let options = arrow::ipc::writer::IpcWriteOptions::default();
                        let IpcMessage(bytes) = SchemaAsIpc::new(&schema, &options)
                            .try_into()
                            .map_err(internal)?;
                        bytes
                    }
                    Err(_) => Default::default(),
                }
            }
            _ => Default::default(),
        };
        self.prepared
            .lock()
            .insert(handle.clone(), (query.query, vec![]));
        Ok(ActionCreatePreparedStatementResult {
            prepared_statement_handle: handle.into(),
            dataset_schema,
            parameter_schema: Default::default(),
        })
    }

    async fn do_action_close_prepared_statement(
        &self,
        query: ActionClosePreparedStatementRequest,
        _request: Request<arrow_flight::Action>,
    ) -> Result<(), Status> {
        self.prepared
            .lock()
            .remove(query.prepared_statement_handle.as_ref());
        Ok(())
    }

    async fn do_put_prepared_statement_query(
        &self,
        query: CommandPreparedStatementQuery,
        request: Request<PeekableFlightDataStream>,
    ) -> Result<DoPutPreparedStatementResult, Status> {
        let params = Self::parameters(request).await?;
        let handle = query.prepared_statement_handle.to_vec();
        match self.prepared.lock().get_mut(&handle) {
            Some(entry) => entry.1 = params,
            None => return Err(Status::not_found("no such prepared statement")),
        }
        Ok(DoPutPreparedStatementResult {
            prepared_statement_handle: Some(handle.into()),
        })
    }

    async fn get_flight_info_prepared_statement(
        &self,
        cmd: CommandPreparedStatementQuery,
        request: Request<FlightDescriptor>,
    ) -> Result<Response<FlightInfo>, Status> {
        let (sql, params) = self.bound(cmd.prepared_statement_handle.as_ref())?;
        Ok(Response::new(
            self.info_of(&sql, params, request.into_inner()).await?,
        ))
    }

    async fn do_get_prepared_statement(
        &self,
        query: CommandPreparedStatementQuery,
        _request: Request<Ticket>,
    ) -> Result<Response<<Self as FlightService>::DoGetStream>, Status> {
        let (sql, params) = self.bound(query.prepared_statement_handle.as_ref())?;
        self.stream_of(&Handles::handle(&sql, &params)).await
    }

    async fn do_put_prepared_statement_update(
        &self,
        query: CommandPreparedStatementUpdate,
        request: Request<PeekableFlightDataStream>,
    ) -> Result<i64, Status> {
        let (sql, _) = self.bound(query.prepared_statement_handle.as_ref())?;
        let params = Self::parameters(request).await?;
        let ctx = self.context()?;
        self.plan(&ctx, &sql, &params).await?;
        Ok(-1)
    }

    async fn get_flight_info_catalogs(
        &self,
        query: CommandGetCatalogs,
        request: Request<FlightDescriptor>,
    ) -> Result<Response<FlightInfo>, Status> {
        let ticket = query.as_any().encode_to_vec();
        metadata_info(ticket, &query.into_builder().schema(), request)
    }

    async fn do_get_catalogs(
        &self,
        query: CommandGetCatalogs,
        _request: Request<Ticket>,
    ) -> Result<Response<<Self as FlightService>::DoGetStream>, Status> {
        let mut builder = query.into_builder();
        builder.append(ember_planner::catalog::SESSION_CATALOG);
        Ok(one_batch(builder.build().map_err(internal)?))
    }

    async fn get_flight_info_schemas(
        &self,
        query: CommandGetDbSchemas,
        request: Request<FlightDescriptor>,
    ) -> Result<Response<FlightInfo>, Status> {
        let ticket = query.as_any().encode_to_vec();
        metadata_info(ticket, &query.into_builder().schema(), request)
    }

    async fn do_get_schemas(
        &self,
        query: CommandGetDbSchemas,
        _request: Request<Ticket>,
    ) -> Result<Response<<Self as FlightService>::DoGetStream>, Status> {
        let ctx = self.context()?;
        let mut builder = query.into_builder();
        let databases =
            crate::execute::catalog::show_databases(&ctx, |_| true).map_err(to_status)?;
        if let Some(b) = databases
            && let Some(names) = b
                .column(0)
                .as_any()
                .downcast_ref::<arrow::array::StringArray>()
        {
            for db in names.iter().flatten() {
                builder.append(ember_planner::catalog::SESSION_CATALOG, db);
            }
        }
        Ok(one_batch(builder.build().map_err(internal)?))
    }

    async fn get_flight_info_tables(
        &self,
        query: CommandGetTables,
        request: Request<FlightDescriptor>,
    ) -> Result<Response<FlightInfo>, Status> {
        let ticket = query.as_any().encode_to_vec();
        metadata_info(ticket, &query.into_builder().schema(), request)
    }

    async fn do_get_tables(
        &self,
        query: CommandGetTables,
        _request: Request<Ticket>,
    ) -> Result<Response<<Self as FlightService>::DoGetStream>, Status> {
        let ctx = self.context()?;
        let tables = self.tables(&ctx)?;
        let mut builder = query.into_builder();
        for (db, name, kind, schema) in tables {
            builder
                .append(
                    ember_planner::catalog::SESSION_CATALOG,
                    db,
                    name,
                    kind,
                    &schema,
                )
                .map_err(internal)?;
        }
        Ok(one_batch(builder.build().map_err(internal)?))
    }

    async fn get_flight_info_table_types(
        &self,
        query: CommandGetTableTypes,
        request: Request<FlightDescriptor>,
    ) -> Result<Response<FlightInfo>, Status> {
        let ticket = query.as_any().encode_to_vec();
        metadata_info(ticket, &query.into_builder().schema(), request)
    }

    async fn do_get_table_types(
        &self,
        query: CommandGetTableTypes,
        _request: Request<Ticket>,
    ) -> Result<Response<<Self as FlightService>::DoGetStream>, Status> {
        let mut builder = query.into_builder();
        for kind in ["TABLE", "TEMPORARY", "VIEW"] {
            builder.append(kind);
        }
        Ok(one_batch(builder.build().map_err(internal)?))
    }

    async fn get_flight_info_sql_info(
        &self,
        query: CommandGetSqlInfo,
        request: Request<FlightDescriptor>,
    ) -> Result<Response<FlightInfo>, Status> {
        let ticket = query.as_any().encode_to_vec();
        metadata_info(ticket, &query.into_builder(&self.info).schema(), request)
    }

    async fn do_get_sql_info(
        &self,
        query: CommandGetSqlInfo,
        _request: Request<Ticket>,
    ) -> Result<Response<<Self as FlightService>::DoGetStream>, Status> {
        Ok(one_batch(
            query.into_builder(&self.info).build().map_err(internal)?,
        ))
    }

    async fn get_flight_info_primary_keys(
        &self,
        query: CommandGetPrimaryKeys,
        request: Request<FlightDescriptor>,
    ) -> Result<Response<FlightInfo>, Status> {
        let ticket = query.as_any().encode_to_vec();
        metadata_info(ticket, &primary_keys_schema(), request)
    }

    /// Spark tables have no primary keys: the empty answer, in Flight SQL's shape.
    async fn do_get_primary_keys(
        &self,
        _query: CommandGetPrimaryKeys,
        _request: Request<Ticket>,
    ) -> Result<Response<<Self as FlightService>::DoGetStream>, Status> {
        Ok(one_batch(RecordBatch::new_empty(Arc::new(
            primary_keys_schema(),
        ))))
    }

    /// Flight's `CancelFlightInfo` (what newer clients send in place of `CancelQuery`): the
    /// same answer.
    async fn do_action_fallback(
        &self,
        request: Request<arrow_flight::Action>,
    ) -> Result<Response<<Self as FlightService>::DoActionStream>, Status> {
        if request.get_ref().r#type != "CancelFlightInfo" {
            return Err(Status::invalid_argument(format!(
                "not supported: Flight action {}",
                request.get_ref().r#type
            )));
        }
        let cancel = arrow_flight::CancelFlightInfoRequest::decode(request.get_ref().body.as_ref())
            .map_err(|_| Status::invalid_argument("CancelFlightInfo without a request"))?;
        if let Some(info) = &cancel.info {
            self.forget(info);
        }
        let result = arrow_flight::CancelFlightInfoResult {
            status: arrow_flight::CancelStatus::Cancelled as i32,
        };
        let body = arrow_flight::Result {
            body: result.encode_to_vec().into(),
        };
        Ok(Response::new(Box::pin(futures::stream::once(async move {
            Ok(body)
        }))))
    }

    /// A statement runs while its results are fetched (a client that stops reading ends
    /// it): cancelling forgets what it has not fetched yet.
    async fn do_action_cancel_query(
        &self,
        query: ActionCancelQueryRequest,
        _request: Request<arrow_flight::Action>,
    ) -> Result<ActionCancelQueryResult, Status> {
        let info = FlightInfo::decode(query.info.as_ref())
            .map_err(|_| Status::invalid_argument("CancelQuery without a FlightInfo"))?;
        self.forget(&info);
        Ok(ActionCancelQueryResult {
            // CANCEL_RESULT_CANCELLED (the enum is not exported by arrow-flight).
            result: 1,
        })
    }

    async fn do_get_fallback(
        &self,
        _request: Request<Ticket>,
        message: Any,
    ) -> Result<Response<<Self as FlightService>::DoGetStream>, Status> {
        Err(Status::unimplemented(format!(
            "not supported: Flight SQL request {}",
            message.type_url
        )))
    }

    async fn register_sql_info(&self, _id: i32, _result: &SqlInfo) {}
}

/// The columns of a `GetPrimaryKeys` answer (Flight SQL's specification).
fn primary_keys_schema() -> Schema {
    use arrow::datatypes::{DataType, Field};
    Schema::new(vec![
        Field::new("catalog_name", DataType::Utf8, true),
        Field::new("db_schema_name", DataType::Utf8, true),
        Field::new("table_name", DataType::Utf8, false),
        Field::new("column_name", DataType::Utf8, false),
        Field::new("key_name", DataType::Utf8, true),
        Field::new("key_sequence", DataType::Int32, false),
    ])
}
