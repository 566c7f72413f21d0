//! Statement handles and tickets: a statement's SQL and its bound parameters (one Arrow IPC
//! row) in a small protobuf message, so a ticket carries everything needed to run it.

use std::sync::Arc;

use arrow::array::RecordBatch;
use arrow::datatypes::Schema;
use arrow_flight::sql::{ProstMessageExt, TicketStatementQuery};
use datafusion::common::ScalarValue;
use prost::Message;
use tonic::Status;

use super::internal;

/// Tickets and handles that carry a statement: its SQL and bound parameters.
pub(super) struct Handles;

#[derive(Clone, PartialEq, prost::Message)]
struct StatementHandle {
    #[prost(string, tag = "1")]
    sql: String,
    /// The parameters as one Arrow IPC row batch (empty: none).
    #[prost(bytes = "vec", tag = "2")]
    params: Vec<u8>,
}

impl Handles {
    pub(super) fn handle(sql: &str, params: &[ScalarValue]) -> Vec<u8> {
        let params = if params.is_empty() {
            vec![]
        } else {
            encode_params(params).unwrap_or_default()
        };
        StatementHandle {
            sql: sql.to_string(),
            params,
        }
        .encode_to_vec()
    }

    pub(super) fn from_query(sql: &str, params: &[ScalarValue]) -> Vec<u8> {
        TicketStatementQuery {
            statement_handle: Self::handle(sql, params).into(),
        }
        .as_any()
        .encode_to_vec()
    }

    pub(super) fn query_of(handle: &[u8]) -> Result<(String, Vec<ScalarValue>), Status> {
        let h = StatementHandle::decode(handle)
            .map_err(|_| Status::invalid_argument("not an Ember statement handle"))?;
        let params = if h.params.is_empty() {
            vec![]
        } else {
            decode_params(&h.params)?
        };
        Ok((h.sql, params))
    }
}

fn encode_params(params: &[ScalarValue]) -> Result<Vec<u8>, Status> {
    let columns = params
        .iter()
        .map(|v| v.to_array().map_err(internal))
        .collect::<Result<Vec<_>, _>>()?;
    let fields: Vec<arrow::datatypes::Field> = columns
        .iter()
        .enumerate()
        .map(|(i, c)| arrow::datatypes::Field::new(format!("p{i}"), c.data_type().clone(), true))
        .collect();
    let batch = RecordBatch::try_new(Arc::new(Schema::new(fields)), columns).map_err(internal)?;
    let mut out = vec![];
    {
        let mut w = arrow::ipc::writer::StreamWriter::try_new(&mut out, &batch.schema())
            .map_err(internal)?;
        w.write(&batch).map_err(internal)?;
        w.finish().map_err(internal)?;
    }
    Ok(out)
}

fn decode_params(bytes: &[u8]) -> Result<Vec<ScalarValue>, Status> {
    // A handle comes back from the client: its parameters are checked before they are decoded.
    ember_execution::ipc_check::check_stream(bytes, ember_execution::ipc_check::MAX_DECODED_BYTES)
        .map_err(|e| Status::invalid_argument(e.to_string()))?;
    let mut reader = arrow::ipc::reader::StreamReader::try_new(bytes, None).map_err(internal)?;
    match reader.next() {
        Some(batch) => {
            let batch = batch.map_err(internal)?;
            batch
                .columns()
                .iter()
                .map(|c| ScalarValue::try_from_array(c, 0).map_err(internal))
                .collect()
        }
        None => Ok(vec![]),
    }
}
