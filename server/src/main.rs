//! `ember`: a Spark Connect server on Apache DataFusion.
//!
//! `ember server` serves Spark Connect; `ember worker` joins a cluster driver.
//!
//! Two Tokio runtimes: the gRPC services run on one, and ExecutePlan operations (planning and
//! running the query) and workers' tasks on the other, the query runtime (one thread per
//! core), so that running queries never starve interrupts, config or reattach. AnalyzePlan is answered on the service
//! runtime itself: its planning (resolving, and the schema inference that reads files) runs
//! there, not on the query runtime.

mod analyze;
mod auth;
mod cache;
mod cli;
mod codec;
mod config;
mod error;
mod execute;
mod explain;
mod flight_sql;
#[cfg(test)]
mod fuzz;
mod limits;
mod logging;
mod prometheus;
mod service;
mod session;
mod state;
mod tls;
mod ui;

use clap::Parser;

/// Stack of every runtime thread. Planning and DataFusion's rewrites recurse over plan and
/// expression trees: with the 2 MiB default, `SELECT id + id + ... ` of 40 terms overflowed
/// the stack and aborted the server (debug build). Only touched pages are committed.
const STACK_BYTES: usize = 256 << 20;

/// glibc's malloc gives threads that allocate at once arenas of their own, up to eight per
/// core, and hands little of an arena's freed memory back: what one query's operators freed
/// on some threads stayed resident while the next query grew on others. TPC-H SF1 in
/// local-cluster mode peaked at 955 MiB; with one arena per core (at least two), 540 MiB, its
/// times within 3 %. A `MALLOC_ARENA_MAX` in the environment wins.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(unsafe_code)]
fn limit_malloc_arenas() {
    if std::env::var_os("MALLOC_ARENA_MAX").is_some() {
        return;
    }
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let arenas = libc::c_int::try_from(cores.max(2)).unwrap_or(libc::c_int::MAX);
    // SAFETY: mallopt only sets a parameter of glibc's allocator, here before any other
    // thread exists; it reports failure by its return value (then the default stays).
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, arenas);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn limit_malloc_arenas() {}

fn main() -> std::process::ExitCode {
    limit_malloc_arenas();
    let args = cli::Cli::parse();
    logging::init(args.log_format);
    // rustls's provider, chosen once for the process (both ring and aws-lc-rs are linked in).
    let _ = rustls::crypto::ring::default_provider().install_default();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .thread_stack_size(STACK_BYTES)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("ember: cannot start the async runtime: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    // ExecutePlan operations run on their own runtime so that CPU-heavy work never starves the
    // gRPC service (interrupts and config stay responsive while queries run); AnalyzePlan
    // plans on the service runtime.
    let cores = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1);
    let cpu = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(cores)
        .thread_name("ember-cpu")
        .thread_stack_size(STACK_BYTES)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("ember: cannot start the query runtime: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let outcome = runtime.block_on(cli::run(args, cpu.handle().clone()));
    cpu.shutdown_background();
    match outcome {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("ember: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
