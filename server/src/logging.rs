//! Logs: human-readable lines on stderr (the default), or with `--log-format json` one JSON
//! object per line (timestamp, level, target, message and fields, and the spans the event
//! happened in: a query's `session` and `operation` ids), for log collectors. `EMBER_LOG`
//! filters as `RUST_LOG` does (default `info`, with the Delta kernel's per-snapshot lines at
//! `warn`: four lines for every Delta table a query opens).

use clap::ValueEnum;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum LogFormat {
    /// Human-readable lines.
    #[default]
    Text,
    /// One JSON object per line.
    Json,
}

static FORMAT: std::sync::OnceLock<LogFormat> = std::sync::OnceLock::new();

/// The arguments that give worker processes this process's log format.
pub fn child_args() -> Vec<String> {
    match FORMAT.get() {
        Some(LogFormat::Json) => vec!["--log-format".into(), "json".into()],
        _ => vec![],
    }
}

/// `info`, except the Delta kernel's (`buoyant_kernel`) informational lines of every snapshot
/// and scan it builds.
const DEFAULT_FILTER: &str = "info,buoyant_kernel=warn";

pub fn init(format: LogFormat) {
    let _ = FORMAT.set(format);
    let filter = tracing_subscriber::EnvFilter::try_from_env("EMBER_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(DEFAULT_FILTER));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    match format {
        LogFormat::Text => builder
            .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
            .init(),
        LogFormat::Json => builder
            .json()
            .with_current_span(true)
            .with_span_list(false)
            .init(),
    }
}
