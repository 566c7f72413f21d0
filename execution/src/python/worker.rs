//! One Python worker process: started with Ember's worker script (`worker.py`, passed with
//! `-c`), greeted, then sent evaluation requests one at a time. A worker that dies (a UDF
//! calling `os._exit`, a segfault, the kernel's OOM killer) only fails the request it was
//! serving; Ember itself carries on.

use std::io::{BufReader, BufWriter, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::Arc;

use parking_lot::Mutex;

use super::PythonError;
use super::protocol::{self, STATUS_OK, STATUS_PYTHON_ERROR, STATUS_SETUP_ERROR};

/// The worker's Python: UDTFs (`worker_udtf.py`), data sources (`worker_datasource.py`), map
/// functions and streamed requests (`worker_map.py`) and the rest, whose end runs the loop.
const SCRIPT: &str = concat!(
    include_str!("worker_udtf.py"),
    include_str!("worker_datasource.py"),
    include_str!("worker_map.py"),
    include_str!("worker.py")
);

/// What one evaluation needs besides its data.
pub struct Request<'a> {
    pub eval_type: i32,
    pub command: &'a [u8],
    /// Arrow IPC stream of the arguments.
    pub input: &'a [u8],
    /// Arrow IPC schema of the result (one field).
    pub output_schema: &'a [u8],
    /// The directory of the session's Python artifacts (empty: none).
    pub artifacts: &'a [u8],
}

pub struct Worker {
    /// (Shared with a [`super::KillSwitch`], which kills it when its query is cancelled.)
    child: Arc<Mutex<Child>>,
    stdin: BufWriter<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    /// The worker's Python `major.minor`.
    pub version: String,
    /// Why the worker cannot evaluate (a missing package), if it cannot.
    pub setup_error: Option<String>,
}

impl Worker {
    pub fn spawn(python: &str) -> Result<Self, PythonError> {
        let mut child = Command::new(python)
            .arg("-c")
            .arg(SCRIPT)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .env("PYTHONUNBUFFERED", "1")
            // User code runs here: it gets no secrets through its environment (it runs as the
            // server's user all the same; see README, Security).
            .env_remove(crate::remote::CLUSTER_SECRET_ENV)
            .env_remove("SPARK_CONNECT_AUTHENTICATE_TOKEN")
            .spawn()
            .map_err(|e| {
                PythonError::Setup(format!("cannot start the Python worker `{python}`: {e}"))
            })?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(PythonError::Setup("the Python worker has no pipes".into()));
        };
        let mut worker = Self {
            child: Arc::new(Mutex::new(child)),
            stdin: BufWriter::new(stdin),
            stdout: BufReader::new(stdout),
            version: String::new(),
            setup_error: None,
        };
        let hello = (|| -> std::io::Result<(u32, String, Option<String>)> {
            let status = protocol::read_u32(&mut worker.stdout)?;
            let version = protocol::read_string(&mut worker.stdout)?;
            let message = match status {
                STATUS_OK => None,
                _ => Some(protocol::read_string(&mut worker.stdout)?),
            };
            Ok((status, version, message))
        })();
        match hello {
            Ok((_, version, setup_error)) => {
                worker.version = version;
                worker.setup_error = setup_error;
                Ok(worker)
            }
            Err(e) => Err(PythonError::Setup(format!(
                "the Python worker `{python}` did not start: {e}{}",
                worker.exit_note()
            ))),
        }
    }

    /// Send one request and wait for its answer.
    pub fn evaluate(&mut self, request: &Request) -> Result<Vec<u8>, PythonError> {
        match self.exchange(request) {
            Ok(answer) => answer,
            Err(e) => Err(self.crashed(e)),
        }
    }

    fn exchange(&mut self, request: &Request) -> std::io::Result<Result<Vec<u8>, PythonError>> {
        protocol::write_i32(&mut self.stdin, request.eval_type)?;
        protocol::write_bytes(&mut self.stdin, request.command)?;
        protocol::write_bytes(&mut self.stdin, request.input)?;
        protocol::write_bytes(&mut self.stdin, request.output_schema)?;
        protocol::write_bytes(&mut self.stdin, request.artifacts)?;
        self.stdin.flush()?;
        let status = protocol::read_u32(&mut self.stdout)?;
        read_answer(&mut self.stdout, status)
    }

    /// Send one streamed request (`request.input` is not sent): the frames `next_input`
    /// gives (each an Arrow IPC stream; `None` ends the input) are written by a second thread
    /// while this one reads the worker's result batches and hands each to `on_batch`, which
    /// answers false when no one wants more. Ends when the function has ended (then
    /// `stop_input` is called, so that `next_input` ends soon: the worker reads what is still
    /// sent) or at the first error. A worker that failed or was stopped mid-stream is killed:
    /// it is out of step with its pipes and must not be given back.
    pub fn stream(
        &mut self,
        request: &Request,
        mut next_input: impl FnMut() -> Option<Vec<u8>> + Send,
        mut on_batch: impl FnMut(Vec<u8>) -> bool,
        stop_input: impl FnOnce(),
    ) -> Result<Streamed, PythonError> {
        let child = self.child.clone();
        let (stdin, stdout) = (&mut self.stdin, &mut self.stdout);
        let read = std::thread::scope(|scope| {
            let writer = scope.spawn(move || -> std::io::Result<()> {
                protocol::write_i32(stdin, protocol::STREAMED)?;
                protocol::write_i32(stdin, request.eval_type)?;
                protocol::write_bytes(stdin, request.command)?;
                protocol::write_bytes(stdin, &[])?;
                protocol::write_bytes(stdin, request.output_schema)?;
                protocol::write_bytes(stdin, request.artifacts)?;
                stdin.flush()?;
                while let Some(frame) = next_input() {
                    protocol::write_bytes(stdin, &frame)?;
                    stdin.flush()?;
                }
                protocol::write_u32(stdin, 0)?;
                stdin.flush()
            });
            let read = read_streamed(stdout, &mut on_batch);
            if matches!(read, Ok(Ok(Streamed::Done))) {
                stop_input();
            } else {
                // (Also unblocks the writer if it waits on a full pipe.)
                let _ = child.lock().kill();
            }
            // (A pipe error of the writer shows in what the reader read.)
            let _ = writer.join();
            read
        });
        match read {
            Ok(answer) => answer,
            Err(e) => Err(self.crashed(e)),
        }
    }

    fn crashed(&mut self, e: std::io::Error) -> PythonError {
        PythonError::Crashed(format!(
            "Python worker exited unexpectedly (crashed){}: {e}",
            self.exit_note()
        ))
    }

    /// Whether the process still runs.
    pub fn is_alive(&self) -> bool {
        matches!(self.child.lock().try_wait(), Ok(None))
    }

    /// The process, for a kill switch.
    pub fn process(&self) -> Arc<Mutex<Child>> {
        self.child.clone()
    }

    /// How the process ended, if it did (`; exit status 1`).
    fn exit_note(&mut self) -> String {
        // Give a dying process a moment to be reaped.
        for _ in 0..20 {
            let status = self.child.lock().try_wait();
            match status {
                Ok(Some(status)) => return format!(" ({status})"),
                Ok(None) => std::thread::sleep(std::time::Duration::from_millis(5)),
                Err(_) => break,
            }
        }
        String::new()
    }
}

/// How a streamed request ended.
#[derive(Debug, PartialEq, Eq)]
pub enum Streamed {
    /// The function ended and every batch it yielded was taken.
    Done,
    /// Whoever took the batches wanted no more.
    Stopped,
}

/// The answer after its status word: the result's bytes, or the worker's error.
fn read_answer(
    stdout: &mut impl std::io::Read,
    status: u32,
) -> std::io::Result<Result<Vec<u8>, PythonError>> {
    Ok(match status {
        STATUS_OK => Ok(protocol::read_bytes(stdout)?),
        STATUS_PYTHON_ERROR => {
            let error_class = protocol::read_string(stdout)?;
            let traceback = protocol::read_string(stdout)?;
            Err(PythonError::Exception {
                error_class,
                traceback,
            })
        }
        STATUS_SETUP_ERROR => Err(PythonError::Setup(protocol::read_string(stdout)?)),
        other => Err(PythonError::Crashed(format!(
            "the Python worker answered an unknown status {other}"
        ))),
    })
}

/// A streamed request's answers: result batches up to the final status.
fn read_streamed(
    stdout: &mut impl std::io::Read,
    on_batch: &mut impl FnMut(Vec<u8>) -> bool,
) -> std::io::Result<Result<Streamed, PythonError>> {
    loop {
        match protocol::read_u32(stdout)? {
            protocol::STATUS_BATCH => {
                if !on_batch(protocol::read_bytes(stdout)?) {
                    return Ok(Ok(Streamed::Stopped));
                }
            }
            status => return Ok(read_answer(stdout, status)?.map(|_| Streamed::Done)),
        }
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        let mut child = self.child.lock();
        let _ = child.kill();
        let _ = child.wait();
    }
}
