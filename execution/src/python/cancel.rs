//! Cancelling Python calls. A worker process serving a request is killed when the query that
//! asked for it is cancelled, instead of running the user's function to its end:
//! - Streaming operators (`mapInPandas` and the other map operators, and a projection's scalar
//!   UDFs: `PythonEvalExec`) call their worker from a thread of their own, started on the
//!   stream's first poll: the call registers with the scope current then ([`Registered`]), and
//!   the map operators also hold a [`KillOnDrop`] (a cancelled query drops the stream). What
//!   their input computes runs in a task polled under the same scope.
//! - Calls made synchronously inside an operator's poll (scalar and aggregate UDFs: DataFusion
//!   calls them as functions) block the thread, so dropping the future waits for the call. They
//!   register with the [`CancelScope`] of the query or task whose stream is being polled on
//!   that thread ([`InScope`]); whoever cancels the query or stops the task calls
//!   [`CancelScope::cancel`], which kills the processes serving its calls at once.

use std::cell::RefCell;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};

use parking_lot::Mutex;

use super::PythonError;

type Process = Arc<Mutex<std::process::Child>>;

/// Kills the worker process serving a request when asked to (its query was cancelled) before
/// the answer came: the process is not left running the function, and is never given back to
/// the pool. Asked before the request has its worker, it kills the worker as soon as it is
/// armed.
#[derive(Default, Clone)]
pub struct KillSwitch {
    process: Arc<Mutex<Option<Process>>>,
    done: Arc<AtomicBool>,
    /// Cancellation was asked for.
    requested: Arc<AtomicBool>,
    /// The switch killed a process.
    fired: Arc<AtomicBool>,
}

impl KillSwitch {
    pub(super) fn arm(&self, process: Process) {
        *self.process.lock() = Some(process);
        if self.requested.load(Ordering::SeqCst) {
            self.kill();
        }
    }

    pub(super) fn disarm(&self) {
        *self.process.lock() = None;
    }

    /// Whether the switch killed the process serving the request.
    pub(super) fn fired(&self) -> bool {
        self.fired.load(Ordering::SeqCst)
    }

    /// The request finished: dropping the switch kills nothing.
    pub fn finished(&self) {
        self.done.store(true, Ordering::SeqCst);
    }

    /// Kill the process serving the request now, if any (or as soon as it has one).
    pub fn kill(&self) {
        self.requested.store(true, Ordering::SeqCst);
        if let Some(p) = self.process.lock().take() {
            self.fired.store(true, Ordering::SeqCst);
            let _ = p.lock().kill();
        }
    }
}

/// Kills the request's worker when dropped before [`KillSwitch::finished`].
pub struct KillOnDrop(pub KillSwitch);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        if !self.0.done.load(Ordering::SeqCst) {
            self.0.kill();
        }
    }
}

/// Kills the request's worker if it has not finished `grace` after this is dropped: a request
/// whose input was ended early may answer what it has in hand and its worker go back to the
/// pool, but a slow function is not left running.
pub(super) struct KillAfter(pub(super) KillSwitch, pub(super) std::time::Duration);

impl Drop for KillAfter {
    fn drop(&mut self) {
        if self.0.done.load(Ordering::SeqCst) {
            return;
        }
        let switch = self.0.clone();
        let grace = self.1;
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => {
                runtime.spawn(async move {
                    tokio::time::sleep(grace).await;
                    if !switch.done.load(Ordering::SeqCst) {
                        switch.kill();
                    }
                });
            }
            Err(_) => switch.kill(),
        }
    }
}

/// The Python calls of one query (or one task of it) that are running now.
#[derive(Default)]
pub struct CancelScope {
    cancelled: AtomicBool,
    calls: Mutex<Vec<KillSwitch>>,
}

impl std::fmt::Debug for CancelScope {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CancelScope")
            .field("cancelled", &self.is_cancelled())
            .field("calls", &self.calls.lock().len())
            .finish()
    }
}

impl CancelScope {
    pub fn new() -> Arc<Self> {
        Arc::new(Self::default())
    }

    /// Kill the workers serving the scope's calls now; later calls fail at once.
    pub fn cancel(&self) {
        self.cancelled.store(true, Ordering::SeqCst);
        for call in self.calls.lock().drain(..) {
            call.kill();
        }
    }

    pub fn is_cancelled(&self) -> bool {
        self.cancelled.load(Ordering::SeqCst)
    }

    fn register(&self, call: &KillSwitch) {
        self.calls.lock().push(call.clone());
        // (Cancelled meanwhile: `cancel` may have drained before the push.)
        if self.is_cancelled() {
            call.kill();
        }
    }

    fn unregister(&self, call: &KillSwitch) {
        self.calls
            .lock()
            .retain(|c| !Arc::ptr_eq(&c.requested, &call.requested));
    }
}

/// A kill switch registered in a scope for as long as this lives (the call of a streaming
/// operator, which runs on its own thread outside any poll).
pub(super) struct Registered {
    scope: Arc<CancelScope>,
    switch: KillSwitch,
}

impl Registered {
    pub(super) fn new(scope: Arc<CancelScope>, switch: &KillSwitch) -> Self {
        scope.register(switch);
        Self {
            scope,
            switch: switch.clone(),
        }
    }
}

impl Drop for Registered {
    fn drop(&mut self) {
        self.scope.unregister(&self.switch);
    }
}

thread_local! {
    static CURRENT: RefCell<Option<Arc<CancelScope>>> = const { RefCell::new(None) };
}

/// The scope of the stream being polled on this thread, if any.
pub(super) fn current_scope() -> Option<Arc<CancelScope>> {
    CURRENT.with(|c| c.borrow().clone())
}

/// Run `call` with a kill switch registered in the scope of the stream being polled on this
/// thread (without one outside any scope).
pub(super) fn in_current_scope<T>(
    call: impl FnOnce(Option<&KillSwitch>) -> Result<T, PythonError>,
) -> Result<T, PythonError> {
    let Some(scope) = current_scope() else {
        return call(None);
    };
    if scope.is_cancelled() {
        return Err(PythonError::Crashed(
            "the query was cancelled: its Python function was not called".into(),
        ));
    }
    let switch = KillSwitch::default();
    scope.register(&switch);
    let result = call(Some(&switch));
    scope.unregister(&switch);
    result
}

/// Run `f`, which waits for a worker process, on this thread; on a multi-threaded runtime
/// first let the runtime move its other tasks to other threads.
pub(super) fn blocking<T>(f: impl FnOnce() -> T) -> T {
    match tokio::runtime::Handle::try_current() {
        Ok(h) if h.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread => {
            tokio::task::block_in_place(f)
        }
        _ => f(),
    }
}

/// A stream or future polled with `scope` as its thread's current scope.
pub struct InScope<S> {
    inner: S,
    scope: Arc<CancelScope>,
}

impl<S> InScope<S> {
    pub fn new(inner: S, scope: Arc<CancelScope>) -> Self {
        Self { inner, scope }
    }

    fn enter<T>(scope: &Arc<CancelScope>, f: impl FnOnce() -> T) -> T {
        let previous = CURRENT.with(|c| c.replace(Some(scope.clone())));
        // (Restored even if `f` unwinds: a panic in an operator must not leave the scope.)
        struct Restore(Option<Arc<CancelScope>>);
        impl Drop for Restore {
            fn drop(&mut self) {
                let previous = self.0.take();
                CURRENT.with(|c| *c.borrow_mut() = previous);
            }
        }
        let _restore = Restore(previous);
        f()
    }
}

impl<S: futures::Stream + Unpin> futures::Stream for InScope<S> {
    type Item = S::Item;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<S::Item>> {
        let this = &mut *self;
        Self::enter(&this.scope, || Pin::new(&mut this.inner).poll_next(cx))
    }
}

impl<F: std::future::Future + Unpin> std::future::Future for InScope<F> {
    type Output = F::Output;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let this = &mut *self;
        Self::enter(&this.scope, || Pin::new(&mut this.inner).poll(cx))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cancelled_scope_refuses_new_calls_and_kills_running_ones() {
        let scope = CancelScope::new();
        let switch = KillSwitch::default();
        scope.register(&switch);
        scope.cancel();
        assert!(switch.requested.load(Ordering::SeqCst));
        let later = KillSwitch::default();
        scope.register(&later);
        assert!(later.requested.load(Ordering::SeqCst));
    }

    #[test]
    fn calls_see_the_scope_of_the_stream_being_polled() {
        use futures::StreamExt;
        let scope = CancelScope::new();
        let seen = futures::stream::iter([1])
            .map(|_| in_current_scope(|switch| Ok(switch.is_some())).unwrap_or(false));
        let mut stream = InScope::new(seen, scope);
        let inside = futures::executor::block_on(stream.next());
        assert_eq!(inside, Some(true));
        let outside: Result<bool, PythonError> = in_current_scope(|switch| Ok(switch.is_some()));
        assert!(!outside.unwrap_or(true));
    }
}
