//! Command line: `ember server` and `ember worker`.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use clap::{Parser, Subcommand, ValueEnum};
use ember_execution::cluster::DriverConfig;
use ember_execution::memory::{MemoryBudget, format_size};
use ember_execution::remote::{
    CLUSTER_SECRET_ENV, ClusterJobRunner, ClusterOptions, WorkerOptions, run_worker,
};
use ember_execution::{JobRunner, LocalClusterJobRunner, LocalJobRunner};
use ember_planner::catalog::{ServerCatalog, Warehouse};
use ember_protos::spark::connect::spark_connect_service_server::SparkConnectServiceServer;
use tokio::net::TcpListener;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::server::TcpIncoming;

use crate::auth::{TOKEN_CONF, TOKEN_ENV, TokenAuth};
use crate::codec::{SparkErrors, ember_codec};
use crate::config::{ServerDefaults, system_time_zone};
use crate::service::EmberService;
use crate::session::SessionManager;
use crate::state::ServerState;
use crate::tls::{ClusterSecurityArgs, TlsArgs, generated_secret};

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
    /// Log lines as text, or as one JSON object per line (with query and session ids).
    #[arg(long, global = true, value_enum, default_value_t = crate::logging::LogFormat::Text)]
    pub log_format: crate::logging::LogFormat,
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
    /// The Spark version `spark.version` answers (clients of every version are served alike).
    #[arg(long, default_value = crate::analyze::SPARK_VERSION, value_parser = crate::analyze::parse_spark_version)]
    pub spark_version: String,
    /// How queries execute.
    #[arg(long, value_enum, default_value_t = Mode::Local)]
    pub mode: Mode,
    /// Workers to start (local-cluster: in-process; cluster: processes). Default: number of cores.
    #[arg(long)]
    pub workers: Option<usize>,
    /// Directory of persistent tables (spark.sql.warehouse.dir).
    #[arg(long, default_value = "spark-warehouse")]
    pub warehouse: String,
    /// Cluster mode: port of the driver service that workers join (0 picks a free port).
    #[arg(long, default_value_t = 15003)]
    pub driver_port: u16,
    /// Port of the HTTP endpoint with Prometheus metrics at /metrics (Spark's UI port; the
    /// next free one when taken; 0 turns it off). With --auth-token it requires the token too.
    #[arg(long, default_value_t = 4040)]
    pub ui_port: u16,
    /// Serve Arrow Flight SQL on this port too (off unless given; 0 picks a free port), for
    /// BI and SQL tools: the same catalog, execution and token as the Spark Connect port.
    #[arg(long)]
    pub flight_sql_port: Option<u16>,
    /// Cluster mode: tasks each started worker runs at once.
    #[arg(long, default_value_t = TASK_SLOTS_PER_WORKER)]
    pub worker_slots: usize,
    /// Attempts of a task before its query fails (like spark.task.maxFailures).
    #[arg(long, default_value_t = 4)]
    pub max_task_attempts: usize,
    /// Require this token from every client (`sc://localhost:15002/;token=TOKEN`). Also read
    /// from SPARK_CONNECT_AUTHENTICATE_TOKEN or `--conf spark.connect.authenticate.token=TOKEN`.
    #[arg(long)]
    pub auth_token: Option<String>,
    /// A Spark configuration for every session, `KEY=VALUE` (repeatable), as spark-submit's.
    #[arg(long = "conf", value_name = "KEY=VALUE")]
    pub conf: Vec<String>,
    /// The Python interpreter that runs Python UDFs (default: PYSPARK_PYTHON, else the
    /// session's spark.pyspark.python, else python3). Passed on to cluster workers.
    #[arg(long)]
    pub python: Option<String>,
    /// Directories (or object store prefixes such as s3a://bucket/dir) that reads and writes
    /// may reach, comma separated; the warehouse is always allowed. Default: anywhere, as Spark.
    #[arg(long, value_delimiter = ',')]
    pub allowed_paths: Vec<String>,
    #[command(flatten)]
    pub tls: TlsArgs,
    #[command(flatten)]
    pub cluster: ClusterArgs,
    #[command(flatten)]
    pub memory: MemoryArgs,
}

/// The process's memory budget (server and workers alike).
#[derive(clap::Args, Debug, Clone)]
pub struct MemoryArgs {
    /// Memory for query execution in this process (e.g. 512m, 4g), shared by all queries at
    /// once; sorts, aggregations and joins spill to --spill-dir beyond it. Default: 60 % of
    /// the machine's memory.
    #[arg(long, value_parser = ember_execution::memory::parse_size)]
    pub memory_limit: Option<usize>,
    /// Directory for spill files; each process uses its own subdirectory, emptied at start
    /// and removed at exit. Default: `ember-spill` in the system temp dir.
    #[arg(long)]
    pub spill_dir: Option<std::path::PathBuf>,
}

impl MemoryArgs {
    /// Install the process's memory budget; `role` names its spill directory.
    fn install(&self, role: &str) -> Result<&'static MemoryBudget, String> {
        Ok(MemoryBudget::new(self.memory_limit, self.spill_dir.clone(), role)?.install())
    }

    /// The same settings as command-line arguments (for the workers the server starts).
    fn to_args(&self) -> Vec<String> {
        let mut args = Vec::new();
        if let Some(limit) = self.memory_limit {
            args.push(format!("--memory-limit={limit}"));
        }
        if let Some(dir) = &self.spill_dir {
            args.push(format!("--spill-dir={}", dir.display()));
        }
        args
    }
}

/// Limits and timings shared by the driver and its workers (`--mode cluster`).
#[derive(clap::Args, Debug, Clone)]
pub struct ClusterArgs {
    /// How often workers report that they are alive, in milliseconds.
    #[arg(long, default_value_t = 500)]
    pub heartbeat_interval_ms: u64,
    /// A worker silent for this long (milliseconds) is lost: its tasks run again elsewhere.
    #[arg(long, default_value_t = 5000)]
    pub heartbeat_timeout_ms: u64,
    /// Largest control message (task plans with local data can be large), in bytes.
    #[arg(long, default_value_t = 1 << 30)]
    pub max_message_bytes: usize,
    /// Largest Arrow Flight message between processes; bigger batches are split. In bytes.
    #[arg(long, default_value_t = 4 << 20)]
    pub max_flight_data_bytes: usize,
    /// With no worker alive for this long (seconds), waiting queries fail.
    #[arg(long, default_value_t = 15)]
    pub worker_wait_timeout_secs: u64,
    #[command(flatten)]
    pub security: ClusterSecurityArgs,
}

impl ClusterArgs {
    /// The options, with the cluster's `secret`.
    fn options(&self, secret: Option<&str>) -> Result<ClusterOptions, String> {
        Ok(ClusterOptions {
            heartbeat_interval: Duration::from_millis(self.heartbeat_interval_ms.max(10)),
            heartbeat_timeout: Duration::from_millis(self.heartbeat_timeout_ms.max(10)),
            max_message_bytes: self.max_message_bytes,
            max_flight_data_bytes: self.max_flight_data_bytes,
            worker_wait_timeout: Duration::from_secs(self.worker_wait_timeout_secs),
            security: self.security.security(secret)?,
        })
    }

    /// The same settings as command-line arguments (for the workers the server starts).
    fn to_args(&self) -> Vec<String> {
        let mut args = vec![
            format!("--heartbeat-interval-ms={}", self.heartbeat_interval_ms),
            format!("--heartbeat-timeout-ms={}", self.heartbeat_timeout_ms),
            format!("--max-message-bytes={}", self.max_message_bytes),
            format!("--max-flight-data-bytes={}", self.max_flight_data_bytes),
            format!(
                "--worker-wait-timeout-secs={}",
                self.worker_wait_timeout_secs
            ),
        ];
        args.extend(self.security.to_args());
        args
    }
}

#[derive(clap::Args, Debug)]
pub struct WorkerArgs {
    /// The driver's control address, e.g. http://127.0.0.1:15003.
    #[arg(long)]
    pub driver: String,
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1")]
    pub host: String,
    /// Host name the driver and other workers use to reach this worker
    /// (default: --host, or 127.0.0.1 when listening on all interfaces).
    #[arg(long)]
    pub advertise_host: Option<String>,
    /// Port for the worker's data and control endpoints (0 picks a free port).
    #[arg(long, default_value_t = 0)]
    pub port: u16,
    /// Tasks the worker runs at once. Default: number of cores.
    #[arg(long)]
    pub slots: Option<usize>,
    /// The Python interpreter that runs Python UDFs (as `ember server --python`).
    #[arg(long)]
    pub python: Option<String>,
    #[command(flatten)]
    pub cluster: ClusterArgs,
    #[command(flatten)]
    pub memory: MemoryArgs,
}

pub async fn run(cli: Cli, cpu: tokio::runtime::Handle) -> Result<(), String> {
    match cli.command {
        Command::Worker(args) => {
            if let Some(python) = &args.python {
                ember_execution::python::set_python(python.clone());
            }
            let budget = args.memory.install("worker")?;
            tracing::info!(
                "Ember worker memory limit {}, spill dir {}",
                format_size(budget.limit()),
                budget.spill_dir().display()
            );
            let secret = args.cluster.security.secret()?;
            let options = WorkerOptions {
                driver: args.driver,
                host: args.host,
                advertise_host: args.advertise_host,
                port: args.port,
                slots: args.slots.unwrap_or_else(cores).max(1),
                cluster: args.cluster.options(secret.as_deref())?,
            };
            let outcome = tokio::select! {
                outcome = run_worker(options, ember_codec(), Arc::new(SparkErrors), cpu) => outcome,
                _ = shutdown_signal() => Ok(()),
            };
            budget.cleanup();
            outcome
        }
        Command::Server(args) => {
            if let Some(python) = &args.python {
                ember_execution::python::set_python(python.clone());
            }
            let budget = args.memory.install("server")?;
            let outcome = serve(args, cpu, budget).await;
            budget.cleanup();
            outcome
        }
    }
}

fn cores() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
}

/// Parse `host:port`, resolving host names.
fn socket_addr(host: &str, port: u16) -> Result<SocketAddr, String> {
    format!("{host}:{port}")
        .parse()
        .or_else(|_| {
            std::net::ToSocketAddrs::to_socket_addrs(&(host, port))
                .map_err(|e| e.to_string())?
                .next()
                .ok_or_else(|| "no address".to_string())
        })
        .map_err(|e| format!("bad address {host}:{port}: {e}"))
}

/// Cluster mode: serve the driver service and start `workers` worker processes that join it.
/// The processes are killed when the returned handles are dropped; were the server killed
/// instead, they stop by themselves once the driver stops answering heartbeats.
async fn start_cluster(
    args: &ServerArgs,
    cpu: &tokio::runtime::Handle,
) -> Result<(Arc<ClusterJobRunner>, Vec<tokio::process::Child>), String> {
    let workers = args.workers.unwrap_or(0);
    // Workers the server starts get a random secret when none is configured: nobody else
    // can join then.
    let secret = match args.cluster.security.secret()? {
        Some(s) => Some(s),
        None if workers > 0 => Some(generated_secret()),
        None => None,
    };
    let options = args.cluster.options(secret.as_deref())?;
    let security = options.security.clone();
    let config = DriverConfig {
        max_attempts: args.max_task_attempts.max(1),
        task_timeout: crate::limits::SessionLimits::task_timeout_in(&args.conf)?,
        ..DriverConfig::default()
    };
    let runner = Arc::new(ClusterJobRunner::start(
        config,
        options.clone(),
        ember_codec(),
        Arc::new(SparkErrors),
        cpu.clone(),
    ));
    let addr = socket_addr(&args.host, args.driver_port)?;
    let listener = TcpListener::bind(addr)
        .await
        .map_err(|e| format!("cannot listen on {addr} (--driver-port): {e}"))?;
    let local = listener.local_addr().map_err(|e| e.to_string())?;
    tracing::info!(
        "Ember driver service listening on {}://{local} (cluster secret: {}, TLS: {})",
        if security.has_tls() { "https" } else { "http" },
        if security.has_secret() { "yes" } else { "none" },
        if security.has_tls() { "yes" } else { "none" },
    );
    if !security.has_secret() && !local.ip().is_loopback() {
        tracing::warn!(
            "WARNING: the driver port {local} is reachable from other machines and needs no \
             cluster secret: anyone who can reach it can join as a worker and receive plans and \
             data. Set --cluster-secret-file (or {CLUSTER_SECRET_ENV}) on the server and workers."
        );
    }
    let mut server = security.server()?;
    // Behind the cluster secret, with the message size limits.
    let service = runner.service();
    tokio::spawn(async move {
        let served = server
            .add_service(service)
            .serve_with_incoming(TcpIncoming::from(listener).with_nodelay(Some(true)))
            .await;
        if let Err(e) = served {
            tracing::error!("driver service stopped: {e}");
        }
    });
    let mut children = Vec::with_capacity(workers);
    if workers > 0 {
        let exe =
            std::env::current_exe().map_err(|e| format!("cannot find the ember binary: {e}"))?;
        let connect_host = if local.ip().is_unspecified() {
            "127.0.0.1".to_string()
        } else {
            local.ip().to_string()
        };
        let driver = format!("http://{connect_host}:{}", local.port());
        for _ in 0..workers {
            let mut command = tokio::process::Command::new(&exe);
            if let Some(secret) = &secret {
                command.env(CLUSTER_SECRET_ENV, secret);
            }
            let child = command
                .args(["worker", "--driver", &driver, "--host", &connect_host])
                .args(crate::logging::child_args())
                .args(["--slots", &args.worker_slots.max(1).to_string()])
                .args(args.cluster.to_args())
                .args(args.memory.to_args())
                .args(
                    args.python
                        .iter()
                        .flat_map(|p| ["--python".to_string(), p.clone()]),
                )
                .kill_on_drop(true)
                .spawn()
                .map_err(|e| format!("cannot start a worker process: {e}"))?;
            children.push(child);
        }
        tracing::info!("started {workers} worker processes");
    } else {
        tracing::info!(
            "waiting for `ember worker --driver http://HOST:{}` to join",
            local.port()
        );
    }
    Ok((runner, children))
}

async fn serve(
    args: ServerArgs,
    cpu: tokio::runtime::Handle,
    budget: &MemoryBudget,
) -> Result<(), String> {
    let parallelism = cores();
    let mut children = Vec::new();
    let runner: Arc<dyn JobRunner> = match args.mode {
        Mode::Local => Arc::new(LocalJobRunner),
        Mode::LocalCluster => {
            let workers = args.workers.unwrap_or(parallelism).max(1);
            Arc::new(LocalClusterJobRunner::start(
                workers,
                TASK_SLOTS_PER_WORKER,
                DriverConfig {
                    task_timeout: crate::limits::SessionLimits::task_timeout_in(&args.conf)?,
                    ..DriverConfig::default()
                },
                cpu.clone(),
            ))
        }
        Mode::Cluster => {
            let (runner, started) = start_cluster(&args, &cpu).await?;
            children = started;
            runner
        }
    };
    args.tls.validate()?;
    let warehouse =
        std::path::absolute(&args.warehouse).map_err(|e| format!("bad --warehouse: {e}"))?;
    if !args.allowed_paths.is_empty() {
        let mut allowed = args.allowed_paths.clone();
        allowed.push(warehouse.display().to_string());
        ember_execution::sandbox::allow_only(&allowed)?;
        tracing::info!("reads and writes restricted to {}", allowed.join(", "));
    }
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
    let mut conf_token = None;
    for entry in &args.conf {
        let Some((key, value)) = entry.split_once('=') else {
            return Err(format!("bad --conf {entry}: expected KEY=VALUE"));
        };
        let key = key.trim();
        if key == TOKEN_CONF {
            // Never a session's config: clients could read it back.
            conf_token = Some(value.to_string());
        } else {
            defaults.values.insert(key.to_string(), value.to_string());
        }
    }
    let token = args
        .auth_token
        .clone()
        .or(conf_token)
        .or_else(|| std::env::var(TOKEN_ENV).ok());
    if token.as_deref() == Some("") {
        return Err("the authentication token is empty (--auth-token)".to_string());
    }
    let auth = TokenAuth::new(token.as_deref());
    let state = Arc::new(ServerState {
        sessions: SessionManager::new(crate::limits::SessionLimits::from_conf(&defaults)?),
        global_views: Arc::new(ServerCatalog::new(
            Warehouse::open(warehouse.clone()).map_err(|e| {
                format!("cannot open the catalog under {}: {e}", warehouse.display())
            })?,
        )),
        runner,
        defaults,
        parallelism,
        cpu,
        spark_version: args.spark_version.clone(),
    });
    if let Some(ui) = crate::prometheus::bind(&args.host, args.ui_port).await {
        if let Ok(at) = ui.local_addr() {
            tracing::info!("Ember job UI on http://{at}/ (metrics on /metrics)");
        }
        tokio::spawn(crate::prometheus::serve(ui, state.clone(), auth.clone()));
    }
    let addr = socket_addr(&args.host, args.port)?;
    let listener = TcpListener::bind(addr)
        .await
        .map_err(|e| format!("cannot listen on {addr}: {e}"))?;
    let local = listener.local_addr().map_err(|e| e.to_string())?;
    let mode = match args.mode {
        Mode::Local => "local",
        Mode::LocalCluster => "local-cluster",
        Mode::Cluster => "cluster",
    };
    tracing::info!(
        "Ember Spark Connect server listening on sc://{local} (mode: {mode}, authentication: {}, \
         TLS: {}, memory limit: {}, spill dir: {})",
        if auth.enabled() { "token" } else { "none" },
        if args.tls.enabled() { "yes" } else { "none" },
        format_size(budget.limit()),
        budget.spill_dir().display()
    );
    if !auth.enabled() && !local.ip().is_loopback() {
        tracing::warn!(
            "WARNING: Spark Connect on {local} is reachable from other machines and needs no \
             authentication: anyone who can reach it can run queries and read or write files \
             as this process. Set --auth-token (or {TOKEN_ENV}), or listen on 127.0.0.1."
        );
    }
    if let Some(port) = args.flight_sql_port {
        let addr = socket_addr(&args.host, port)?;
        let listener = TcpListener::bind(addr)
            .await
            .map_err(|e| format!("cannot listen on {addr} (--flight-sql-port): {e}"))?;
        let at = listener.local_addr().map_err(|e| e.to_string())?;
        tracing::info!(
            "Ember Flight SQL server listening on {}://{at}",
            if args.tls.enabled() {
                "grpc+tls"
            } else {
                "grpc"
            }
        );
        let flight = InterceptedService::new(
            arrow_flight::flight_service_server::FlightServiceServer::new(
                crate::flight_sql::FlightSql::new(state.clone())?,
            )
            .max_decoding_message_size(MAX_MESSAGE_BYTES)
            .max_encoding_message_size(MAX_MESSAGE_BYTES),
            auth.clone(),
        );
        let mut server = args.tls.server()?;
        tokio::spawn(async move {
            let served = server
                .add_service(flight)
                .serve_with_incoming(TcpIncoming::from(listener).with_nodelay(Some(true)))
                .await;
            if let Err(e) = served {
                tracing::error!("Flight SQL server error: {e}");
            }
        });
    }
    let service = InterceptedService::new(
        SparkConnectServiceServer::new(EmberService::new(state.clone()))
            .max_decoding_message_size(MAX_MESSAGE_BYTES)
            .max_encoding_message_size(MAX_MESSAGE_BYTES),
        auth,
    );
    args.tls
        .server()?
        .add_service(service)
        .serve_with_incoming_shutdown(
            TcpIncoming::from(listener).with_nodelay(Some(true)),
            shutdown_signal(),
        )
        .await
        .map_err(|e| format!("server error: {e}"))?;
    for s in state.sessions.all() {
        s.interrupt_all();
    }
    for mut child in children {
        let pid = child.id();
        let _ = child.kill().await;
        if let Some(pid) = pid {
            budget.cleanup_other("worker", pid);
        }
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
