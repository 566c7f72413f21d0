//! The data plane: each worker serves its task output streams over Arrow Flight (`do_get`
//! with a [`StreamTicket`](ember_protos::ember::worker::StreamTicket)); tasks and the
//! driver's job output read them with [`FlightStreams`].

use std::collections::HashMap;
use std::pin::Pin;
use std::sync::Arc;

use arrow::datatypes::{Schema, SchemaRef};
use arrow_flight::decode::FlightRecordBatchStream;
use arrow_flight::encode::FlightDataEncoderBuilder;
use arrow_flight::error::FlightError;
use arrow_flight::flight_service_client::FlightServiceClient;
use arrow_flight::flight_service_server::FlightService;
use arrow_flight::{
    Action, ActionType, Criteria, Empty, FlightClient, FlightData, FlightDescriptor, FlightInfo,
    HandshakeRequest, HandshakeResponse, PollInfo, PutResult, SchemaResult, Ticket,
};
use datafusion::common::{DataFusionError, Result};
use datafusion::execution::SendableRecordBatchStream;
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use ember_protos::ember::worker::StreamTicket;
use futures::{Stream, TryStreamExt};
use parking_lot::RwLock;
use prost::Message;
use tonic::transport::Channel;
use tonic::{Request, Response, Status, Streaming};

use super::convert::{from_stream_key, stream_key};
use super::{ClusterSecurity, StreamLost};
use crate::ipc_check::{IpcBudget, check_flight_data};
use crate::stream::{StreamManager, StreamRef, StreamSource, WorkerId};

type BoxedStream<T> = Pin<Box<dyn Stream<Item = std::result::Result<T, Status>> + Send + 'static>>;

/// `batch` with every column declared nullable (the data as it is).
fn nullable_columns(batch: arrow::array::RecordBatch) -> arrow::array::RecordBatch {
    let schema = batch.schema();
    if schema.fields().iter().all(|f| f.is_nullable()) {
        return batch;
    }
    let fields: Vec<_> = schema
        .fields()
        .iter()
        .map(|f| f.as_ref().clone().with_nullable(true))
        .collect();
    let relaxed = Arc::new(Schema::new_with_metadata(fields, schema.metadata().clone()));
    let columns = batch.columns().to_vec();
    let rows = batch.num_rows();
    arrow::array::RecordBatch::try_new_with_options(
        relaxed,
        columns,
        &arrow::array::RecordBatchOptions::new().with_row_count(Some(rows)),
    )
    .unwrap_or(batch)
}

/// Serves one worker's streams.
pub struct StreamFlightService {
    streams: Arc<StreamManager>,
    max_flight_data_bytes: usize,
}

impl StreamFlightService {
    pub fn new(streams: Arc<StreamManager>, max_flight_data_bytes: usize) -> Self {
        Self {
            streams,
            max_flight_data_bytes,
        }
    }
}

#[tonic::async_trait]
impl FlightService for StreamFlightService {
    type HandshakeStream = BoxedStream<HandshakeResponse>;
    type ListFlightsStream = BoxedStream<FlightInfo>;
    type DoGetStream = BoxedStream<FlightData>;
    type DoPutStream = BoxedStream<PutResult>;
    type DoExchangeStream = BoxedStream<FlightData>;
    type DoActionStream = BoxedStream<arrow_flight::Result>;
    type ListActionsStream = BoxedStream<ActionType>;

    async fn do_get(
        &self,
        request: Request<Ticket>,
    ) -> std::result::Result<Response<Self::DoGetStream>, Status> {
        let ticket = StreamTicket::decode(request.into_inner().ticket)
            .map_err(|e| Status::invalid_argument(e.to_string()))?;
        let key = ticket
            .key
            .ok_or_else(|| Status::invalid_argument("ticket without a stream key"))?;
        let key = from_stream_key(&key).map_err(|e| Status::invalid_argument(e.to_string()))?;
        // The reader may come before the task that writes the stream: then it waits for it.
        // The schema goes with the first batch, its columns all declared nullable: a plan may
        // declare a column non-nullable that its batches hold nulls in (DataFusion builds some
        // batches unchecked; in local mode they pass as they are), and the encoder re-declaring
        // them would fail. The reader knows the stream's schema from its own plan.
        let schema = self.streams.schema(&key);
        tracing::debug!(?key, known = schema.is_some(), "serving a stream");
        let batches = self
            .streams
            .open(key, schema.unwrap_or_else(|| Arc::new(Schema::empty())))
            .map_ok(nullable_columns)
            .map_err(|e| FlightError::ExternalError(Box::new(e)));
        let encoder =
            FlightDataEncoderBuilder::new().with_max_flight_data_size(self.max_flight_data_bytes);
        let encoded = encoder
            .build(batches)
            .map_err(|e| Status::internal(e.to_string()));
        Ok(Response::new(Box::pin(encoded)))
    }

    async fn handshake(
        &self,
        _r: Request<Streaming<HandshakeRequest>>,
    ) -> std::result::Result<Response<Self::HandshakeStream>, Status> {
        Err(Status::unimplemented("handshake"))
    }

    async fn list_flights(
        &self,
        _r: Request<Criteria>,
    ) -> std::result::Result<Response<Self::ListFlightsStream>, Status> {
        Err(Status::unimplemented("list_flights"))
    }

    async fn get_flight_info(
        &self,
        _r: Request<FlightDescriptor>,
    ) -> std::result::Result<Response<FlightInfo>, Status> {
        Err(Status::unimplemented("get_flight_info"))
    }

    async fn poll_flight_info(
        &self,
        _r: Request<FlightDescriptor>,
    ) -> std::result::Result<Response<PollInfo>, Status> {
        Err(Status::unimplemented("poll_flight_info"))
    }

    async fn get_schema(
        &self,
        _r: Request<FlightDescriptor>,
    ) -> std::result::Result<Response<SchemaResult>, Status> {
        Err(Status::unimplemented("get_schema"))
    }

    async fn do_put(
        &self,
        _r: Request<Streaming<FlightData>>,
    ) -> std::result::Result<Response<Self::DoPutStream>, Status> {
        Err(Status::unimplemented("do_put"))
    }

    async fn do_exchange(
        &self,
        _r: Request<Streaming<FlightData>>,
    ) -> std::result::Result<Response<Self::DoExchangeStream>, Status> {
        Err(Status::unimplemented("do_exchange"))
    }

    async fn do_action(
        &self,
        _r: Request<Action>,
    ) -> std::result::Result<Response<Self::DoActionStream>, Status> {
        Err(Status::unimplemented("do_action"))
    }

    async fn list_actions(
        &self,
        _r: Request<Empty>,
    ) -> std::result::Result<Response<Self::ListActionsStream>, Status> {
        Err(Status::unimplemented("list_actions"))
    }
}

/// Reads streams of any worker: its own through memory, others over Flight.
#[derive(Debug)]
pub struct FlightStreams {
    local: Option<(WorkerId, Arc<StreamManager>)>,
    addresses: Arc<RwLock<HashMap<WorkerId, String>>>,
    channels: RwLock<HashMap<String, Channel>>,
    max_message_bytes: usize,
    security: ClusterSecurity,
}

impl FlightStreams {
    pub fn new(
        local: Option<(WorkerId, Arc<StreamManager>)>,
        addresses: Arc<RwLock<HashMap<WorkerId, String>>>,
        max_message_bytes: usize,
        security: ClusterSecurity,
    ) -> Self {
        Self {
            local,
            addresses,
            channels: RwLock::new(HashMap::new()),
            max_message_bytes,
            security,
        }
    }

    fn channel(&self, address: &str) -> Result<Channel> {
        if let Some(c) = self.channels.read().get(address) {
            return Ok(c.clone());
        }
        let channel = self
            .security
            .endpoint(address)
            .map_err(|e| DataFusionError::Execution(format!("bad worker address {address}: {e}")))?
            .connect_lazy();
        self.channels
            .write()
            .insert(address.to_string(), channel.clone());
        Ok(channel)
    }
}

impl StreamSource for FlightStreams {
    fn open(&self, stream: &StreamRef, schema: SchemaRef) -> Result<SendableRecordBatchStream> {
        if let Some((id, manager)) = &self.local
            && *id == stream.worker
        {
            return Ok(manager.open(stream.key, schema));
        }
        let worker = stream.worker;
        let lost = move |message: String| {
            DataFusionError::External(Box::new(StreamLost { worker, message }))
        };
        let address = self
            .addresses
            .read()
            .get(&worker)
            .cloned()
            .ok_or_else(|| lost("unknown worker".into()))?;
        tracing::debug!(?stream, %address, "opening a remote stream");
        let channel = self.channel(&address)?;
        let max = self.max_message_bytes;
        let security = self.security.clone();
        let ticket = StreamTicket {
            key: Some(stream_key(&stream.key)),
        }
        .encode_to_vec();
        let batches = futures::stream::once(async move {
            let inner = FlightServiceClient::new(channel)
                .max_decoding_message_size(max)
                .max_encoding_message_size(max);
            let mut client = FlightClient::new_from_inner(inner);
            security.authorize(client.metadata_mut());
            let mut request = Request::new(Ticket::new(ticket));
            *request.metadata_mut() = client.metadata().clone();
            let messages = client
                .inner_mut()
                .do_get(request)
                .await
                .map_err(|e| lost(e.to_string()))?
                .into_inner();
            // Each message is checked against its body before arrow-ipc decodes (and
            // allocates for) it: a peer's stream is data from outside this process.
            let mut budget = IpcBudget::new(u64::MAX);
            let messages = messages.map_err(FlightError::from).and_then(move |m| {
                let checked = check_flight_data(&m, &mut budget).map(|()| m);
                async move { checked.map_err(FlightError::Arrow) }
            });
            let stream = FlightRecordBatchStream::new_from_flight_data(messages);
            Ok::<_, DataFusionError>(stream.map_err(move |e| lost(e.to_string())))
        })
        .try_flatten();
        Ok(Box::pin(RecordBatchStreamAdapter::new(schema, batches)))
    }
}
