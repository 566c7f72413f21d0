//! A reattachable operation: the responses of one ExecutePlan, buffered so that a client can
//! reattach after a broken stream (`ReattachExecute` resumes after the last response id it
//! saw) and freed as the client acknowledges them (`ReleaseExecute`).
//!
//! The producer (the task running the query) stays at most [`MAX_AHEAD`] responses ahead of
//! the fastest consumer, so a slow client applies backpressure instead of growing the buffer.
//! Responses already sent are kept for a reattach up to [`RETRY_BUFFER_BYTES`] (Spark's
//! `spark.connect.execute.reattachable.observerRetryBufferSize`, 10 MiB) even if the client has
//! not released them yet: a client whose releases lag behind its reading (PySpark releases
//! from a thread pool) does not make the server hold the whole result.

use std::collections::VecDeque;
use std::sync::Arc;

use ember_execution::progress::QueryProgress;
use ember_protos::spark::connect::ExecutePlanResponse;
use futures::Stream;
use parking_lot::Mutex;
use prost::Message;
use tokio::sync::Notify;
use tokio::task::AbortHandle;
use tonic::Status;

use crate::error::{operation_canceled, status_of};

/// Responses the producer may run ahead of the client.
pub const MAX_AHEAD: u64 = 16;

/// Bytes of sent responses kept for a reattach before the oldest are dropped unreleased.
pub const RETRY_BUFFER_BYTES: usize = 10 << 20;

struct Buffered {
    seq: u64,
    response_id: String,
    response: ExecutePlanResponse,
    bytes: usize,
}

#[derive(Default)]
struct OpState {
    buffer: VecDeque<Buffered>,
    /// Encoded bytes of the responses in `buffer`.
    buffered_bytes: usize,
    next_seq: u64,
    /// One past the highest sequence number any stream has sent.
    consumed: u64,
    /// `Some` once the producer has finished (or the operation was interrupted).
    finished: Option<Result<(), Status>>,
    interrupted: bool,
    released: bool,
}

pub struct Operation {
    pub id: String,
    pub tags: Vec<String>,
    pub reattachable: bool,
    /// What the query has done so far (`execution_progress`).
    pub progress: Arc<QueryProgress>,
    /// Whether the client is sent `execution_progress` (`spark.connect.progress.reportInterval`
    /// above 0).
    pub report_progress: std::sync::atomic::AtomicBool,
    state: Mutex<OpState>,
    notify: Notify,
    task: Mutex<Option<AbortHandle>>,
}

impl Operation {
    pub fn new(id: String, tags: Vec<String>, reattachable: bool) -> Self {
        Self {
            id,
            tags,
            reattachable,
            progress: QueryProgress::new(),
            report_progress: std::sync::atomic::AtomicBool::new(true),
            state: Mutex::new(OpState::default()),
            notify: Notify::new(),
            task: Mutex::new(None),
        }
    }

    pub fn set_task(&self, handle: AbortHandle) {
        *self.task.lock() = Some(handle);
    }

    /// Add a response; waits while the client is far behind. Returns false if the
    /// operation was interrupted or released (the producer should stop).
    pub async fn push(&self, response: ExecutePlanResponse) -> bool {
        loop {
            let notified = self.notify.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            {
                let mut s = self.state.lock();
                if s.interrupted || s.released {
                    return false;
                }
                if s.next_seq < s.consumed + MAX_AHEAD {
                    let seq = s.next_seq;
                    s.next_seq += 1;
                    let response_id = response.response_id.clone();
                    let bytes = response.encoded_len();
                    s.buffered_bytes += bytes;
                    s.buffer.push_back(Buffered {
                        seq,
                        response_id,
                        response,
                        bytes,
                    });
                    drop(s);
                    self.notify.notify_waiters();
                    return true;
                }
            }
            notified.await;
        }
    }

    /// Record the outcome of the producer.
    pub fn finish(&self, result: Result<(), Status>) {
        let mut s = self.state.lock();
        if s.finished.is_none() {
            s.finished = Some(result);
        }
        drop(s);
        self.notify.notify_waiters();
    }

    pub fn is_finished(&self) -> bool {
        self.state.lock().finished.is_some()
    }

    /// Cancel the running query. Returns whether it was still running.
    pub fn interrupt(&self) -> bool {
        let mut s = self.state.lock();
        let was_running = s.finished.is_none();
        s.interrupted = true;
        if was_running {
            s.finished = Some(Err(status_of(&operation_canceled(), None)));
        }
        drop(s);
        // (A local plan waiting in a Python function is not stopped by aborting its task.)
        self.progress.cancel_python_calls();
        if let Some(task) = self.task.lock().take() {
            task.abort();
        }
        self.notify.notify_waiters();
        was_running
    }

    /// Free responses up to and including `response_id`.
    pub fn release_until(&self, response_id: &str) {
        let mut s = self.state.lock();
        if let Some(pos) = s.buffer.iter().position(|b| b.response_id == response_id) {
            let freed: usize = s.buffer.drain(..=pos).map(|b| b.bytes).sum();
            s.buffered_bytes -= freed;
        }
    }

    /// Free everything; a still running query is cancelled.
    pub fn release_all(&self) {
        {
            let mut s = self.state.lock();
            s.released = true;
            s.buffer.clear();
            s.buffered_bytes = 0;
        }
        self.interrupt();
    }

    /// The responses after `last_response_id` (all when `None`), then the outcome.
    pub fn stream_from(
        self: &Arc<Self>,
        last_response_id: Option<String>,
    ) -> impl Stream<Item = Result<ExecutePlanResponse, Status>> + Send + 'static {
        let start = {
            let s = self.state.lock();
            match &last_response_id {
                Some(id) => s
                    .buffer
                    .iter()
                    .find(|b| &b.response_id == id)
                    .map(|b| b.seq + 1)
                    .unwrap_or_else(|| s.buffer.front().map(|b| b.seq).unwrap_or(s.next_seq)),
                None => 0,
            }
        };
        let op = self.clone();
        futures::stream::unfold((op, start, false), |(op, cursor, done)| async move {
            if done {
                return None;
            }
            let waker = op.clone();
            loop {
                let notified = waker.notify.notified();
                tokio::pin!(notified);
                notified.as_mut().enable();
                {
                    let mut s = op.state.lock();
                    let next = s
                        .buffer
                        .iter()
                        .find(|b| b.seq >= cursor)
                        .map(|b| (b.seq, b.response.clone()));
                    if let Some((seq, response)) = next {
                        s.consumed = s.consumed.max(seq + 1);
                        // Sent responses go at once (not reattachable), or once those kept
                        // for a reattach exceed their budget.
                        while let Some(front) = s.buffer.front()
                            && front.seq <= seq
                            && (!op.reattachable || s.buffered_bytes > RETRY_BUFFER_BYTES)
                        {
                            let bytes = front.bytes;
                            s.buffer.pop_front();
                            s.buffered_bytes -= bytes;
                        }
                        drop(s);
                        op.notify.notify_waiters();
                        return Some((Ok(response), (op, seq + 1, false)));
                    }
                    if let Some(outcome) = &s.finished {
                        return match outcome {
                            Ok(()) => None,
                            Err(status) => Some((Err(status.clone()), (op.clone(), cursor, true))),
                        };
                    }
                }
                notified.await;
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::StreamExt;

    fn response(id: &str) -> ExecutePlanResponse {
        ExecutePlanResponse {
            response_id: id.to_string(),
            ..Default::default()
        }
    }

    #[tokio::test]
    async fn reattach_resumes_after_the_last_seen_response() {
        let op = Arc::new(Operation::new("op".into(), vec![], true));
        for id in ["a", "b", "c"] {
            assert!(op.push(response(id)).await);
        }
        op.finish(Ok(()));
        let first: Vec<String> = op
            .stream_from(None)
            .map(|r| r.unwrap().response_id)
            .collect()
            .await;
        assert_eq!(first, vec!["a", "b", "c"]);
        let again: Vec<String> = op
            .stream_from(Some("a".into()))
            .map(|r| r.unwrap().response_id)
            .collect()
            .await;
        assert_eq!(again, vec!["b", "c"]);
        op.release_until("b");
        let rest: Vec<String> = op
            .stream_from(Some("b".into()))
            .map(|r| r.unwrap().response_id)
            .collect()
            .await;
        assert_eq!(rest, vec!["c"]);
    }

    #[tokio::test]
    async fn producer_waits_for_a_slow_client() {
        let op = Arc::new(Operation::new("op".into(), vec![], true));
        for i in 0..MAX_AHEAD {
            assert!(op.push(response(&i.to_string())).await);
        }
        let blocked =
            tokio::time::timeout(std::time::Duration::from_millis(50), op.push(response("x")))
                .await;
        assert!(
            blocked.is_err(),
            "push must wait while the client is behind"
        );
        let mut s = Box::pin(op.stream_from(None));
        assert!(s.next().await.is_some());
        assert!(op.push(response("x")).await);
    }

    #[tokio::test]
    async fn interrupt_ends_streams_with_an_error() {
        let op = Arc::new(Operation::new("op".into(), vec![], true));
        assert!(op.interrupt());
        let items: Vec<_> = op.stream_from(None).collect().await;
        assert_eq!(items.len(), 1);
        assert!(
            items[0]
                .as_ref()
                .unwrap_err()
                .message()
                .contains("OPERATION_CANCELED")
        );
        assert!(!op.push(response("late")).await);
    }
}
