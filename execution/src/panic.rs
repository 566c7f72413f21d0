//! A panic inside a task becomes that task's error instead of a task that silently stops: the
//! driver (or the client) is told, rather than waiting forever for a report that never comes.

use std::any::Any;
use std::future::Future;
use std::panic::AssertUnwindSafe;

use futures::FutureExt;

/// Run `f`, turning a panic while it is polled into `Err` with the panic's message.
pub async fn catch_panic<F: Future>(f: F) -> Result<F::Output, String> {
    AssertUnwindSafe(f)
        .catch_unwind()
        .await
        .map_err(|p| panic_message(p.as_ref()))
}

/// Join `task`, which fed a stream through a channel now closed: its panic as the stream's
/// last error (the rows it did not send would otherwise be missing without a word), else
/// `None`.
pub async fn panic_of<T: Send + 'static>(
    task: datafusion_common_runtime::SpawnedTask<T>,
) -> Option<datafusion::error::DataFusionError> {
    match task.join().await {
        Err(e) if e.is_panic() => Some(datafusion::error::DataFusionError::Execution(format!(
            "a task panicked: {}",
            panic_message(e.into_panic().as_ref())
        ))),
        _ => None,
    }
}

/// The items `task` sends through `rx`, then its panic, if it panicked, as the last error.
/// The task lives as long as the stream: dropping the stream aborts it.
pub fn channel_stream<T: Send + 'static>(
    rx: tokio::sync::mpsc::Receiver<datafusion::common::Result<T>>,
    task: datafusion_common_runtime::SpawnedTask<()>,
) -> impl futures::Stream<Item = datafusion::common::Result<T>> + Send {
    futures::stream::unfold((rx, Some(task)), |(mut rx, task)| async move {
        match rx.recv().await {
            Some(item) => Some((item, (rx, task))),
            None => panic_of(task?).await.map(|error| (Err(error), (rx, None))),
        }
    })
}

/// The message a panic was raised with (`panic!("...")` or a formatted one).
pub fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic without a message".to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    #[allow(clippy::panic)]
    async fn a_panic_is_an_error_with_its_message() {
        let ok = catch_panic(async { 7 }).await;
        assert_eq!(ok, Ok(7));
        let n = 3;
        let failed = catch_panic(async move {
            if n > 2 {
                panic!("boom {n}");
            }
            n
        })
        .await;
        assert_eq!(failed, Err("boom 3".to_string()));
    }
}
