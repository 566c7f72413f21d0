//! TLS and the cluster secret on the command line.
//!
//! `ember server --tls-cert FILE --tls-key FILE` serves Spark Connect (and Flight SQL) over
//! TLS; PySpark connects with `sc://HOST:PORT/;use_ssl=true;token=...` when it trusts the
//! certificate's CA. A cluster's driver, worker and Flight ports are secured apart from that
//! (see `ember_execution::remote::ClusterSecurity`): `--cluster-secret-file` (or
//! `EMBER_CLUSTER_SECRET`) and `--cluster-tls-cert/--cluster-tls-key/--cluster-ca`, given to
//! the server and to every `ember worker` alike.

use std::path::PathBuf;

use ember_execution::remote::{CLUSTER_SECRET_ENV, ClusterSecurity, ClusterTls};
use tonic::transport::{Identity, Server, ServerTlsConfig};

/// A connection that has not finished its TLS handshake by then is closed.
const HANDSHAKE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// TLS on the client-facing gRPC ports (Spark Connect, Flight SQL).
#[derive(clap::Args, Debug, Clone)]
pub struct TlsArgs {
    /// Serve Spark Connect (and Flight SQL) over TLS with this certificate chain (PEM);
    /// clients connect with `sc://HOST:PORT/;use_ssl=true`. Needs --tls-key.
    #[arg(long, requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,
    /// The private key of --tls-cert (PEM).
    #[arg(long, requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,
}

impl TlsArgs {
    pub fn enabled(&self) -> bool {
        self.tls_cert.is_some()
    }

    /// A server builder for a client-facing port: TLS when configured.
    pub fn server(&self) -> Result<Server, String> {
        let builder = Server::builder();
        let (Some(cert), Some(key)) = (&self.tls_cert, &self.tls_key) else {
            return Ok(builder);
        };
        let identity = Identity::from_pem(read(cert, "--tls-cert")?, read(key, "--tls-key")?);
        builder
            .tls_config(
                ServerTlsConfig::new()
                    .identity(identity)
                    .timeout(HANDSHAKE_TIMEOUT),
            )
            .map_err(|e| format!("bad --tls-cert/--tls-key: {e}"))
    }

    /// Check that the files hold a usable certificate and key (before serving, so that a
    /// mistake stops the server at start rather than failing every handshake).
    pub fn validate(&self) -> Result<(), String> {
        let (Some(cert), Some(key)) = (&self.tls_cert, &self.tls_key) else {
            return Ok(());
        };
        let cert_pem = read(cert, "--tls-cert")?;
        let key_pem = read(key, "--tls-key")?;
        if !contains(&cert_pem, b"-----BEGIN CERTIFICATE-----") {
            return Err(format!(
                "--tls-cert {}: no PEM certificate in the file",
                cert.display()
            ));
        }
        if !contains(&key_pem, b"PRIVATE KEY-----") {
            return Err(format!(
                "--tls-key {}: no PEM private key in the file",
                key.display()
            ));
        }
        Ok(())
    }
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

fn read(path: &std::path::Path, flag: &str) -> Result<Vec<u8>, String> {
    std::fs::read(path).map_err(|e| format!("cannot read {flag} {}: {e}", path.display()))
}

/// The secret and TLS between the processes of a cluster (`--mode cluster`, `ember worker`).
#[derive(clap::Args, Debug, Clone, Default)]
pub struct ClusterSecurityArgs {
    /// A file holding the cluster's shared secret (its first line): the driver refuses
    /// workers without it, and workers refuse callers without it. Also read from
    /// EMBER_CLUSTER_SECRET. A server that starts its own workers (--workers N) and has no
    /// secret makes a random one for them.
    #[arg(long)]
    pub cluster_secret_file: Option<PathBuf>,
    /// Serve the driver, worker and Flight ports over TLS with this certificate (PEM); every
    /// process of the cluster gets the same flags. Needs --cluster-tls-key and --cluster-ca.
    #[arg(long, requires_all = ["cluster_tls_key", "cluster_ca"])]
    pub cluster_tls_cert: Option<PathBuf>,
    /// The private key of --cluster-tls-cert (PEM).
    #[arg(long, requires = "cluster_tls_cert")]
    pub cluster_tls_key: Option<PathBuf>,
    /// The CA (PEM) the cluster's certificates are checked against.
    #[arg(long, requires = "cluster_tls_cert")]
    pub cluster_ca: Option<PathBuf>,
    /// The name the cluster's certificates are checked for (default: the host each process
    /// is reached at), e.g. one certificate for `ember-cluster` on every machine.
    #[arg(long, requires = "cluster_tls_cert")]
    pub cluster_tls_domain: Option<String>,
}

impl ClusterSecurityArgs {
    /// The secret from --cluster-secret-file, else from EMBER_CLUSTER_SECRET.
    pub fn secret(&self) -> Result<Option<String>, String> {
        if let Some(path) = &self.cluster_secret_file {
            let text = std::fs::read_to_string(path).map_err(|e| {
                format!("cannot read --cluster-secret-file {}: {e}", path.display())
            })?;
            let line = text.lines().next().unwrap_or("").trim().to_string();
            if line.is_empty() {
                return Err(format!("--cluster-secret-file {} is empty", path.display()));
            }
            return Ok(Some(line));
        }
        Ok(std::env::var(CLUSTER_SECRET_ENV)
            .ok()
            .filter(|s| !s.trim().is_empty()))
    }

    /// The cluster's security with `secret` (see [`Self::secret`]).
    pub fn security(&self, secret: Option<&str>) -> Result<ClusterSecurity, String> {
        let tls = match (
            &self.cluster_tls_cert,
            &self.cluster_tls_key,
            &self.cluster_ca,
        ) {
            (Some(cert), Some(key), Some(ca)) => Some(ClusterTls::from_pem_files(
                cert,
                key,
                ca,
                self.cluster_tls_domain.clone(),
            )?),
            _ => None,
        };
        ClusterSecurity::new(secret, tls)
    }

    /// The TLS flags as arguments for the workers the server starts (the secret goes in
    /// their environment, never on a command line).
    pub fn to_args(&self) -> Vec<String> {
        let mut args = Vec::new();
        let mut push = |flag: &str, value: Option<String>| {
            if let Some(v) = value {
                args.push(format!("--{flag}={v}"));
            }
        };
        let shown = |p: &Option<PathBuf>| p.as_ref().map(|p| p.display().to_string());
        push("cluster-tls-cert", shown(&self.cluster_tls_cert));
        push("cluster-tls-key", shown(&self.cluster_tls_key));
        push("cluster-ca", shown(&self.cluster_ca));
        push("cluster-tls-domain", self.cluster_tls_domain.clone());
        args
    }
}

/// A random secret for the workers a server starts itself.
pub fn generated_secret() -> String {
    format!(
        "{}{}",
        uuid::Uuid::new_v4().simple(),
        uuid::Uuid::new_v4().simple()
    )
}
