//! Command line: `ember server` and `ember worker`.

use std::net::SocketAddr;
use std::sync::Arc;

use clap::{Parser, Subcommand, ValueEnum};
use ember_execution::cluster::DriverConfig;
use ember_execution::{JobRunner, LocalClusterJobRunner, LocalJobRunner};
use ember_planner::catalog::GlobalViews;
use ember_protos::spark::connect::spark_connect_service_server::SparkConnectServiceServer;
use tokio::net::TcpListener;
use tokio_stream::wrappers::TcpListenerStream;

use crate::config::{ServerDefaults, system_time_zone};
use crate::service::EmberService;
use crate::session::SessionManager;
use crate::state::ServerState;

/// Tasks each in-process worker runs at once.
const TASK_SLOTS_PER_WORKER: usize = 2;

/// Largest request the server accepts (plans with local data can be large).
const MAX_MESSAGE_BYTES: usize = 512 * 1024 * 1024;

#[derive(Parser, Debug)]
#[command(
    name = "ember",
    version,
    about = "Ember: a Spark Connect server on Apache DataFusion"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Serve Spark Connect (PySpark: SparkSession.builder.remote("sc://HOST:PORT")).
    Server(ServerArgs),
    /// Run a worker that joins a cluster driver.
    Worker(WorkerArgs),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Mode {
    /// DataFusion executes each plan in this process.
    Local,
    /// A driver and in-process workers execute the job graph.
    LocalCluster,
    /// A driver schedules the job graph on `ember worker` processes.
    Cluster,
}

#[derive(clap::Args, Debug)]
pub struct ServerArgs {
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1")]
    pub host: String,
    /// Port to listen on (0 picks a free port; the log line says which).
    #[arg(long, default_value_t = 15002)]
    pub port: u16,
    /// How queries execute.
    #[arg(long, value_enum, default_value_t = Mode::Local)]
    pub mode: Mode,
    /// Workers to start (local-cluster: in-process; cluster: processes). Default: number of cores.
    #[arg(long)]
    pub workers: Option<usize>,
    /// Directory of persistent tables (spark.sql.warehouse.dir).
    #[arg(long, default_value = "spark-warehouse")]
    pub warehouse: String,
}

#[derive(clap::Args, Debug)]
pub struct WorkerArgs {
    /// The driver's control address, e.g. http://127.0.0.1:15003.
    #[arg(long)]
    pub driver: String,
    /// Port for the worker's data and control endpoints (0 picks a free port).
    #[arg(long, default_value_t = 0)]
    pub port: u16,
    /// Tasks the worker runs at once. Default: number of cores.
    #[arg(long)]
    pub slots: Option<usize>,
}

pub async fn run(cli: Cli, cpu: tokio::runtime::Handle) -> Result<(), String> {
    match cli.command {
        Command::Server(args) => serve(args, cpu).await,
        Command::Worker(_) => Err("not supported yet: `ember worker` (cluster mode)".to_string()),
    }
}

fn cores() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
}

async fn serve(args: ServerArgs, cpu: tokio::runtime::Handle) -> Result<(), String> {
    let parallelism = cores();
    let runner: Arc<dyn JobRunner> = match args.mode {
        Mode::Local => Arc::new(LocalJobRunner),
        Mode::LocalCluster => {
            let workers = args.workers.unwrap_or(parallelism).max(1);
            Arc::new(LocalClusterJobRunner::start(
                workers,
                TASK_SLOTS_PER_WORKER,
                DriverConfig::default(),
                cpu.clone(),
            ))
        }
        Mode::Cluster => return Err("not supported yet: --mode cluster".to_string()),
    };
    let warehouse =
        std::path::absolute(&args.warehouse).map_err(|e| format!("bad --warehouse: {e}"))?;
    let mut defaults = ServerDefaults::default();
    defaults.values.insert(
        "spark.sql.warehouse.dir".into(),
        format!("file:{}", warehouse.display()),
    );
    defaults
        .values
        .insert("spark.sql.session.timeZone".into(), system_time_zone());
    defaults
        .values
        .insert("spark.master".into(), format!("local[{parallelism}]"));
    let state = Arc::new(ServerState {
        sessions: SessionManager::default(),
        global_views: Arc::new(GlobalViews::default()),
        runner,
        defaults,
        parallelism,
        cpu,
    });
    let addr: SocketAddr = format!("{}:{}", args.host, args.port)
        .parse()
        .or_else(|_| {
            std::net::ToSocketAddrs::to_socket_addrs(&(args.host.as_str(), args.port))
                .map_err(|e| e.to_string())?
                .next()
                .ok_or_else(|| "no address".to_string())
        })
        .map_err(|e| format!("bad --host/--port: {e}"))?;
    let listener = TcpListener::bind(addr)
        .await
        .map_err(|e| format!("cannot listen on {addr}: {e}"))?;
    let local = listener.local_addr().map_err(|e| e.to_string())?;
    let mode = match args.mode {
        Mode::Local => "local",
        Mode::LocalCluster => "local-cluster",
        Mode::Cluster => "cluster",
    };
    tracing::info!("Ember Spark Connect server listening on sc://{local} (mode: {mode})");
    let service = SparkConnectServiceServer::new(EmberService::new(state.clone()))
        .max_decoding_message_size(MAX_MESSAGE_BYTES)
        .max_encoding_message_size(MAX_MESSAGE_BYTES);
    tonic::transport::Server::builder()
        .add_service(service)
        .serve_with_incoming_shutdown(TcpListenerStream::new(listener), shutdown_signal())
        .await
        .map_err(|e| format!("server error: {e}"))?;
    for s in state.sessions.all() {
        s.interrupt_all();
    }
    tracing::info!("Ember server stopped");
    Ok(())
}

async fn shutdown_signal() {
    let ctrl_c = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = ctrl_c => {},
                    _ = term.recv() => {},
                }
            }
            Err(_) => {
                let _ = ctrl_c.await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = ctrl_c.await;
    }
}
