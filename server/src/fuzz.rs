//! Fuzzing of the Spark Connect `Plan` message (issue 25), run by `cargo test`: real plans
//! and commands (SQL, DataFrame views, table writes) PySpark built
//! (`server/tests/fuzz_corpus/`, captured by `scripts/capture_fuzz_corpus.py`)
//! are mutated byte-wise (bit flips, overwritten and interesting bytes, inserted, deleted and
//! duplicated spans, splices of two plans, truncation), and random bytes are added; each case
//! is decoded, planned and run in-process as `ExecutePlan` runs it. A case must end in an
//! answer or an error; one that panics (which the server turns into an INTERNAL_ERROR "a
//! panic" answer) fails the test, and one still running after a few seconds is interrupted
//! and counted. Panics caught on purpose (arrow-ipc's assertions on bad local data) are
//! counted apart.
//!
//! `EMBER_FUZZ_CASES` (default 20,000) and `EMBER_FUZZ_SEED` (default 25) set a longer or
//! another run: `EMBER_FUZZ_CASES=200000 cargo test -p ember-server fuzz -- --nocapture`.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use ember_execution::LocalJobRunner;
use ember_planner::catalog::{ServerCatalog, Warehouse};
use ember_protos::spark::connect as pb;
use futures::StreamExt;
use prost::Message;

use crate::config::ServerDefaults;
use crate::session::SessionManager;
use crate::state::{RequestContext, ServerState};

/// Longest a case may take before it counts as slow (and is interrupted).
const CASE_TIMEOUT: Duration = Duration::from_secs(5);
/// Threads of the in-process query runtime, named so that their panics are counted.
const THREAD_NAME: &str = "ember-fuzz";

/// Panics raised on the harness's threads, caught or not (the hook sees them all).
static PANICS: AtomicUsize = AtomicUsize::new(0);

/// xorshift64*: reproducible from the seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

const INTERESTING: &[u8] = &[
    0x00, 0x01, 0x7f, 0x80, 0xff, 0xfe, 0x0a, 0x12, 0x1a, 0x22, 0x08,
];

fn mutate(rng: &mut Rng, corpus: &[Vec<u8>], input: &[u8]) -> Vec<u8> {
    let mut out = input.to_vec();
    // Mostly one change, so that most mutants still decode and reach the planner.
    let changes = if rng.below(3) == 0 {
        2 + rng.below(3)
    } else {
        1
    };
    for _ in 0..changes {
        let len = out.len();
        match rng.below(9) {
            0 if len > 0 => {
                let i = rng.below(len);
                out[i] ^= 1 << rng.below(8);
            }
            1 if len > 0 => {
                let i = rng.below(len);
                out[i] = rng.next() as u8;
            }
            2 if len > 0 => {
                let i = rng.below(len);
                out[i] = INTERESTING[rng.below(INTERESTING.len())];
            }
            3 => {
                let i = rng.below(len + 1);
                let n = 1 + rng.below(8);
                let bytes: Vec<u8> = (0..n).map(|_| rng.next() as u8).collect();
                out.splice(i..i, bytes);
            }
            4 if len > 0 => {
                let i = rng.below(len);
                let n = 1 + rng.below((len - i).min(16));
                out.drain(i..i + n);
            }
            5 if len > 0 => {
                let i = rng.below(len);
                let n = 1 + rng.below((len - i).min(64));
                let span = out[i..i + n].to_vec();
                let at = rng.below(len + 1);
                out.splice(at..at, span);
            }
            6 => {
                let other = &corpus[rng.below(corpus.len())];
                if !other.is_empty() {
                    let from = rng.below(other.len());
                    let to = from + rng.below(other.len() - from);
                    let at = rng.below(len + 1);
                    out.truncate(at);
                    out.extend_from_slice(&other[from..=to.min(other.len() - 1)]);
                }
            }
            7 if len > 0 => out.truncate(rng.below(len)),
            // A varint of the largest values, where a length or count was.
            _ if len > 0 => {
                let i = rng.below(len);
                let big: &[u8] = if rng.below(2) == 0 {
                    &[0xff, 0xff, 0xff, 0xff, 0x07]
                } else {
                    &[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]
                };
                let end = (i + 1).min(len);
                out.splice(i..end, big.iter().copied());
            }
            _ => {}
        }
    }
    out
}

fn corpus() -> Vec<Vec<u8>> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz_corpus");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("fuzz corpus")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "bin"))
        .collect();
    files.sort();
    files
        .iter()
        .map(|p| std::fs::read(p).expect("corpus file"))
        .collect()
}

fn env_number(key: &str, default: u64) -> u64 {
    std::env::var(key)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[derive(Default, Debug)]
struct Tally {
    cases: usize,
    undecodable: usize,
    answered: usize,
    errors: usize,
    slow: usize,
    /// Cases the server answered with its error for a panic.
    panicked: usize,
    slowest: Duration,
}

async fn run_case(ctx: &RequestContext, plan: pb::Plan, tally: &mut Tally) {
    let request = pb::ExecutePlanRequest {
        session_id: ctx.session.session_id.clone(),
        user_context: Some(pb::UserContext {
            user_id: "fuzz".into(),
            ..Default::default()
        }),
        plan: Some(plan),
        ..Default::default()
    };
    let started = Instant::now();
    let mut stream = match crate::execute::execute_plan(ctx.clone(), request) {
        Ok(stream) => stream,
        Err(_) => {
            tally.errors += 1;
            return;
        }
    };
    let drained = tokio::time::timeout(CASE_TIMEOUT, async {
        while let Some(item) = stream.next().await {
            item?;
        }
        Ok::<(), tonic::Status>(())
    })
    .await;
    match drained {
        Ok(Ok(())) => tally.answered += 1,
        Ok(Err(status)) if status.message().contains("(a panic)") => {
            eprintln!("fuzz: a case panicked: {}", status.message());
            tally.panicked += 1;
        }
        Ok(Err(_)) => tally.errors += 1,
        Err(_) => {
            tally.slow += 1;
            ctx.session.interrupt_all();
        }
    }
    tally.slowest = tally.slowest.max(started.elapsed());
}

/// Whether a decoded plan may run here: relations; SQL commands, DataFrame views, and writes
/// into tables of the test's own warehouse (table names are checked there); never a command
/// that names a path (a mutated path could point anywhere) or starts Python.
fn runnable(plan: &pb::Plan) -> bool {
    use pb::command::CommandType;
    let no_path = |options: &std::collections::HashMap<String, String>| {
        !options.keys().any(|k| k.eq_ignore_ascii_case("path"))
    };
    match &plan.op_type {
        Some(pb::plan::OpType::Root(_)) => true,
        Some(pb::plan::OpType::Command(c)) => match &c.command_type {
            Some(CommandType::SqlCommand(_) | CommandType::CreateDataframeView(_)) => true,
            Some(CommandType::WriteOperation(w)) => {
                matches!(w.save_type, Some(pb::write_operation::SaveType::Table(_)))
                    && no_path(&w.options)
            }
            Some(CommandType::WriteOperationV2(w)) => no_path(&w.options),
            _ => false,
        },
        _ => false,
    }
}

#[test]
fn mutated_plans_never_panic_or_hang() {
    let cases = env_number("EMBER_FUZZ_CASES", 20_000) as usize;
    let seed = env_number("EMBER_FUZZ_SEED", 25);
    let corpus = corpus();
    assert!(corpus.len() >= 60, "the fuzz corpus is missing");
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let ours = std::thread::current()
            .name()
            .is_some_and(|n| n.starts_with(THREAD_NAME) || n.contains("mutated_plans"));
        if ours && PANICS.fetch_add(1, Ordering::SeqCst) < 5 {
            previous(info);
        }
    }));
    let cpu = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name(THREAD_NAME)
        .thread_stack_size(256 << 20)
        .enable_all()
        .build()
        .expect("runtime");
    let dir = std::env::temp_dir().join(format!("ember-fuzz-{}", std::process::id()));
    let warehouse = Warehouse::open(dir.join("warehouse")).expect("warehouse");
    let state = Arc::new(ServerState {
        sessions: SessionManager::default(),
        global_views: Arc::new(ServerCatalog::new(warehouse)),
        runner: Arc::new(LocalJobRunner),
        defaults: ServerDefaults::default(),
        parallelism: 2,
        cpu: cpu.handle().clone(),
        spark_version: crate::analyze::SPARK_VERSION.to_string(),
    });
    let mut rng = Rng(seed.max(1));
    let mut tally = Tally::default();
    let started = Instant::now();
    let mut ctx = None;
    cpu.block_on(async {
        for case in 0..cases {
            // A fresh session now and then: settings a case changed do not pile up.
            if case % 1000 == 0 {
                let session = state
                    .sessions
                    .get_or_create(
                        "fuzz",
                        &uuid::Uuid::new_v4().to_string(),
                        None,
                        ServerDefaults::default,
                        &state.global_views,
                        2,
                    )
                    .expect("session");
                ctx = Some(RequestContext {
                    state: state.clone(),
                    session,
                });
            }
            let Some(ctx) = &ctx else { continue };
            let bytes = if rng.below(20) == 0 {
                (0..rng.below(256)).map(|_| rng.next() as u8).collect()
            } else {
                let base = corpus[rng.below(corpus.len())].clone();
                if rng.below(50) == 0 {
                    base
                } else {
                    mutate(&mut rng, &corpus, &base)
                }
            };
            tally.cases += 1;
            let panicked_before = tally.panicked;
            match pb::Plan::decode(bytes.as_slice()) {
                Ok(plan) if runnable(&plan) => run_case(ctx, plan, &mut tally).await,
                Ok(_) => tally.errors += 1,
                Err(_) => tally.undecodable += 1,
            }
            if tally.panicked > panicked_before {
                eprintln!("fuzz case {case} (seed {seed}) panicked; its bytes: {bytes:?}");
            }
        }
    });
    let _ = std::fs::remove_dir_all(&dir);
    let caught = PANICS.load(Ordering::SeqCst);
    eprintln!(
        "fuzz: {tally:?}, {caught} panics raised (all caught), {:.1} s (seed {seed})",
        started.elapsed().as_secs_f64()
    );
    assert_eq!(tally.panicked, 0, "cases panicked (seed {seed})");
    assert!(tally.answered > 0, "no mutated plan ran at all: {tally:?}");
}
