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
