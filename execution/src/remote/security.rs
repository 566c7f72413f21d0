//! Cluster security: a shared secret every driver, worker and Flight RPC carries, and TLS on
//! those ports.
//!
//! With a secret (`--cluster-secret-file` or `EMBER_CLUSTER_SECRET`), each call between the
//! processes of a cluster carries `authorization: Bearer SECRET`, checked in constant time by
//! an interceptor before the message is decoded: a worker without it cannot register, run
//! tasks, or read another worker's streams. With TLS (`--cluster-tls-cert`, `--cluster-tls-key`
//! and `--cluster-ca`), every process serves its ports over TLS with that certificate and
//! verifies the others' against the CA, so plans (with their S3 keys) and data never cross the
//! network in the clear. Addresses stay `http://host:port` in messages; [`ClusterSecurity::
//! endpoint`] turns them into `https://` when TLS is on.

use std::fmt;
use std::sync::Arc;

use subtle::ConstantTimeEq;
use tonic::metadata::{AsciiMetadataValue, MetadataMap};
use tonic::service::Interceptor;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::{
    Certificate, Channel, ClientTlsConfig, Endpoint, Identity, Server, ServerTlsConfig,
};
use tonic::{Request, Status};

/// The environment variable the cluster secret can come from (instead of a file).
pub const CLUSTER_SECRET_ENV: &str = "EMBER_CLUSTER_SECRET";

/// The metadata key the secret travels in.
const HEADER: &str = "authorization";

/// TLS between the processes of a cluster: this process's certificate and key, and the CA
/// the others' certificates are checked against.
#[derive(Clone, Debug)]
pub struct ClusterTls {
    pub identity: Identity,
    pub ca: Certificate,
    /// The name the peers' certificates are checked for (default: the host of the address).
    pub domain: Option<String>,
}

impl ClusterTls {
    /// Read PEM files: the certificate (chain), its private key, and the CA.
    pub fn from_pem_files(
        cert: &std::path::Path,
        key: &std::path::Path,
        ca: &std::path::Path,
        domain: Option<String>,
    ) -> Result<Self, String> {
        let read = |path: &std::path::Path| {
            std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
        };
        Ok(Self {
            identity: Identity::from_pem(read(cert)?, read(key)?),
            ca: Certificate::from_pem(read(ca)?),
            domain,
        })
    }
}

/// The secret and TLS settings of a cluster (none: plain gRPC, every caller accepted).
#[derive(Clone, Default)]
pub struct ClusterSecurity {
    /// `Bearer SECRET`, the whole `authorization` value.
    bearer: Option<AsciiMetadataValue>,
    tls: Option<ClusterTls>,
}

impl fmt::Debug for ClusterSecurity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClusterSecurity")
            .field("secret", &self.bearer.as_ref().map(|_| "<set>"))
            .field("tls", &self.tls.is_some())
            .finish()
    }
}

impl ClusterSecurity {
    pub fn new(secret: Option<&str>, tls: Option<ClusterTls>) -> Result<Self, String> {
        let bearer = match secret.map(str::trim) {
            None => None,
            Some("") => return Err("the cluster secret is empty".to_string()),
            Some(s) => Some(
                format!("Bearer {s}")
                    .parse()
                    .map_err(|_| "the cluster secret must be printable ASCII".to_string())?,
            ),
        };
        Ok(Self { bearer, tls })
    }

    pub fn has_secret(&self) -> bool {
        self.bearer.is_some()
    }

    pub fn has_tls(&self) -> bool {
        self.tls.is_some()
    }

    /// A server builder for the cluster's ports (TLS when configured).
    pub fn server(&self) -> Result<Server, String> {
        let builder = Server::builder();
        match &self.tls {
            None => Ok(builder),
            Some(tls) => builder
                .tls_config(
                    ServerTlsConfig::new()
                        .identity(tls.identity.clone())
                        .timeout(std::time::Duration::from_secs(10)),
                )
                .map_err(|e| format!("bad cluster TLS certificate: {e}")),
        }
    }

    /// `service` behind the secret check.
    pub fn guard<S>(&self, service: S) -> InterceptedService<S, SecretCheck> {
        InterceptedService::new(
            service,
            SecretCheck {
                expected: self
                    .bearer
                    .as_ref()
                    .map(|b| Arc::from(b.as_bytes().to_vec())),
            },
        )
    }

    /// A lazily connecting channel to another process of the cluster (`http://host:port`,
    /// made `https://` with TLS).
    pub fn endpoint(&self, address: &str) -> Result<Endpoint, String> {
        let Some(tls) = &self.tls else {
            return Endpoint::from_shared(address.to_string())
                .map_err(|e| format!("bad address {address}: {e}"));
        };
        let secure = match address.strip_prefix("http://") {
            Some(rest) => format!("https://{rest}"),
            None => address.to_string(),
        };
        let mut config = ClientTlsConfig::new().ca_certificate(tls.ca.clone());
        if let Some(domain) = &tls.domain {
            config = config.domain_name(domain.clone());
        }
        Endpoint::from_shared(secure)
            .map_err(|e| format!("bad address {address}: {e}"))?
            .tls_config(config)
            .map_err(|e| format!("bad cluster TLS configuration: {e}"))
    }

    /// A channel whose calls carry the secret.
    pub fn channel(&self, address: &str) -> Result<SecureChannel, String> {
        Ok(InterceptedService::new(
            self.endpoint(address)?.connect_lazy(),
            self.client(),
        ))
    }

    /// The interceptor that adds the secret to a client's calls.
    pub fn client(&self) -> AddSecret {
        AddSecret {
            bearer: self.bearer.clone(),
        }
    }

    /// Add the secret to `metadata` (for clients that are not interceptors, e.g. Flight's).
    pub fn authorize(&self, metadata: &mut MetadataMap) {
        if let Some(bearer) = &self.bearer {
            metadata.insert(HEADER, bearer.clone());
        }
    }
}

/// A channel to another process of the cluster, its calls carrying the secret.
pub type SecureChannel = InterceptedService<Channel, AddSecret>;

/// Client side: adds `authorization: Bearer SECRET` to every call.
#[derive(Clone, Debug)]
pub struct AddSecret {
    bearer: Option<AsciiMetadataValue>,
}

impl Interceptor for AddSecret {
    fn call(&mut self, mut request: Request<()>) -> Result<Request<()>, Status> {
        if let Some(bearer) = &self.bearer {
            request.metadata_mut().insert(HEADER, bearer.clone());
        }
        Ok(request)
    }
}

/// Server side: lets a call through only with the cluster's secret (any call without one).
#[derive(Clone)]
pub struct SecretCheck {
    expected: Option<Arc<[u8]>>,
}

impl Interceptor for SecretCheck {
    fn call(&mut self, request: Request<()>) -> Result<Request<()>, Status> {
        let Some(expected) = &self.expected else {
            return Ok(request);
        };
        let given = request.metadata().get(HEADER).map(|v| v.as_bytes());
        match given {
            Some(given) if bool::from(given.ct_eq(expected)) => Ok(request),
            _ => Err(Status::unauthenticated(
                "not a member of this cluster: missing or wrong cluster secret",
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_same_secret_passes() {
        let secure = ClusterSecurity::new(Some("abc"), None).unwrap_or_default();
        let other = ClusterSecurity::new(Some("abd"), None).unwrap_or_default();
        let none = ClusterSecurity::default();
        let expected = secure
            .bearer
            .as_ref()
            .map(|b| Arc::from(b.as_bytes().to_vec()));
        let mut interceptor = SecretCheck { expected };
        for (sender, ok) in [(&secure, true), (&other, false), (&none, false)] {
            let mut request = Request::new(());
            sender.authorize(request.metadata_mut());
            assert_eq!(interceptor.call(request).is_ok(), ok);
        }
        let mut open = SecretCheck { expected: None };
        assert!(open.call(Request::new(())).is_ok());
        assert!(ClusterSecurity::new(Some("  "), None).is_err());
        assert!(!format!("{secure:?}").contains("abc"));
    }
}
