//! Iceberg REST catalogs (`spark.sql.catalog.<name>.type=rest`, `uri`, optional `warehouse`,
//! `token`, `prefix` and `header.<name>` settings, as iceberg-spark takes them): tables are
//! loaded (`GET .../namespaces/{ns}/tables/{t}`: the metadata file the catalog points at),
//! created (`POST .../namespaces/{ns}/tables`) and committed to
//! (`POST .../namespaces/{ns}/tables/{t}` with the requirement that the branch is still at the
//! snapshot the commit started from, and the new snapshot as updates), so the catalog decides
//! which commit wins. The data and manifest files of a commit are written by Ember to the
//! table's location, as for Hadoop tables.
//!
//! Authentication: a `token` is sent as a bearer token; a `credential` (`<client id>:<secret>`,
//! or a secret alone) is exchanged for one at the catalog's token endpoint
//! (`oauth2-server-uri`, default `<uri>/v1/oauth/tokens`; OAuth2's client credentials grant
//! with `scope`, default `catalog`), kept for the process until shortly before it expires
//! and asked again when the catalog answers 401.

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::{Value, json};

use crate::spark_error::{SparkError, SparkResult};

/// A REST catalog as a session configures it.
#[derive(Clone, PartialEq)]
pub struct RestCatalog {
    /// The catalog's name in the session (`ice` of `ice.db.t`).
    pub name: String,
    pub uri: String,
    pub warehouse: Option<String>,
    pub token: Option<String>,
    /// OAuth2 client credentials (`credential`), the token endpoint and the scope.
    pub credential: Option<String>,
    pub oauth2_server_uri: Option<String>,
    pub scope: Option<String>,
    pub prefix: Option<String>,
    pub headers: Vec<(String, String)>,
    /// The prefix `/v1/config` gave, asked once per catalog value (an operation's loads,
    /// creates and commits share it).
    config_prefix: std::sync::OnceLock<Option<String>>,
}

/// (Without its token and credential: debug output reaches logs.)
impl std::fmt::Debug for RestCatalog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let hidden = |v: &Option<String>| v.as_ref().map(|_| "<hidden>");
        f.debug_struct("RestCatalog")
            .field("name", &self.name)
            .field("uri", &self.uri)
            .field("warehouse", &self.warehouse)
            .field("token", &hidden(&self.token))
            .field("credential", &hidden(&self.credential))
            .field("oauth2_server_uri", &self.oauth2_server_uri)
            .field("scope", &self.scope)
            .field("prefix", &self.prefix)
            .field(
                "headers",
                &self.headers.iter().map(|(k, _)| k).collect::<Vec<_>>(),
            )
            .finish()
    }
}

/// A table of a REST catalog.
#[derive(Debug, Clone, PartialEq)]
pub struct RestTable {
    pub catalog: RestCatalog,
    pub namespace: Vec<String>,
    pub table: String,
}

fn invalid(text: impl Into<String>) -> SparkError {
    SparkError::invalid_plan(text.into())
}

impl RestCatalog {
    /// The catalog of a session's `spark.sql.catalog.<name>.*` settings (keys without the
    /// prefix).
    pub fn from_settings(name: &str, settings: &BTreeMap<String, String>) -> SparkResult<Self> {
        let uri = settings
            .get("uri")
            .map(|u| u.trim_end_matches('/').to_string())
            .ok_or_else(|| {
                SparkError::illegal_argument(
                    "",
                    format!(
                        "Invalid uri for http client: null (spark.sql.catalog.{name}.uri is not set)"
                    ),
                )
            })?;
        Ok(RestCatalog {
            name: name.to_string(),
            uri,
            warehouse: settings.get("warehouse").cloned(),
            token: settings.get("token").cloned(),
            credential: settings.get("credential").cloned(),
            oauth2_server_uri: settings.get("oauth2-server-uri").cloned(),
            scope: settings.get("scope").cloned(),
            prefix: settings.get("prefix").cloned(),
            headers: settings
                .iter()
                .filter_map(|(k, v)| Some((k.strip_prefix("header.")?.to_string(), v.clone())))
                .collect(),
            config_prefix: std::sync::OnceLock::new(),
        })
    }

    /// The catalog's prefix: the setting, or the one its `/v1/config` gives.
    fn prefix(&self) -> SparkResult<Option<String>> {
        if self.prefix.is_some() {
            return Ok(self.prefix.clone());
        }
        if let Some(prefix) = self.config_prefix.get() {
            return Ok(prefix.clone());
        }
        let mut url = format!("{}/v1/config", self.uri);
        if let Some(w) = &self.warehouse {
            url.push_str("?warehouse=");
            url.push_str(&encode(w));
        }
        let (status, body) = self.call(reqwest::Method::GET, &url, None)?;
        if status != 200 {
            return Err(self.error(status, &body, "GET /v1/config"));
        }
        let prefix = body
            .pointer("/overrides/prefix")
            .or_else(|| body.pointer("/defaults/prefix"))
            .and_then(Value::as_str)
            .map(str::to_string);
        Ok(self.config_prefix.get_or_init(|| prefix).clone())
    }

    fn base(&self) -> SparkResult<String> {
        Ok(match self.prefix()? {
            Some(p) if !p.is_empty() => format!("{}/v1/{}", self.uri, p.trim_matches('/')),
            _ => format!("{}/v1", self.uri),
        })
    }

    /// One HTTP call, on a thread of its own (planning may run on any runtime, or none), with
    /// the catalog's token (asked again once when the catalog answers 401).
    fn call(
        &self,
        method: reqwest::Method,
        url: &str,
        body: Option<Value>,
    ) -> SparkResult<(u16, Value)> {
        let token = self.bearer(false)?;
        let (status, value) = self.send(method.clone(), url, body.clone(), token.as_deref())?;
        if status == 401 && self.credential.is_some() && self.token.is_none() {
            let token = self.bearer(true)?;
            return self.send(method, url, body, token.as_deref());
        }
        Ok((status, value))
    }

    /// The bearer token: the `token` setting, or one the `credential` gets (`fresh`: not
    /// the one kept).
    fn bearer(&self, fresh: bool) -> SparkResult<Option<String>> {
        if self.token.is_some() {
            return Ok(self.token.clone());
        }
        let Some(credential) = &self.credential else {
            return Ok(None);
        };
        let endpoint = self
            .oauth2_server_uri
            .clone()
            .unwrap_or_else(|| format!("{}/v1/oauth/tokens", self.uri));
        let scope = self.scope.clone().unwrap_or_else(|| "catalog".into());
        let key = (endpoint.clone(), credential.clone(), scope.clone());
        let now = std::time::Instant::now();
        if !fresh
            && let Some((token, expires)) = TOKENS.lock().get(&key)
            && *expires > now
        {
            return Ok(Some(token.clone()));
        }
        let (id, secret) = match credential.split_once(':') {
            Some((id, secret)) => (Some(id), secret),
            None => (None, credential.as_str()),
        };
        let mut form = vec![
            ("grant_type", "client_credentials"),
            ("client_secret", secret),
            ("scope", scope.as_str()),
        ];
        if let Some(id) = id {
            form.push(("client_id", id));
        }
        let form = form
            .iter()
            .map(|(k, v)| format!("{k}={}", encode(v)))
            .collect::<Vec<_>>()
            .join("&");
        let (status, body) = self.exchange(&endpoint, form)?;
        let token = body.get("access_token").and_then(Value::as_str);
        let (200, Some(token)) = (status, token) else {
            let error = body.get("error").and_then(Value::as_str).unwrap_or("");
            let description = body
                .get("error_description")
                .and_then(Value::as_str)
                .unwrap_or("");
            return Err(invalid(format!(
                "NotAuthorizedException: Iceberg REST catalog {}: the token endpoint {endpoint} refused the credential (HTTP {status}): {error}: {description}",
                self.name
            )));
        };
        // Kept until a minute before it expires (an hour when the endpoint does not say).
        let lifetime = body
            .get("expires_in")
            .and_then(Value::as_u64)
            .unwrap_or(3600)
            .saturating_sub(60);
        TOKENS.lock().insert(
            key,
            (token.to_string(), now + Duration::from_secs(lifetime)),
        );
        Ok(Some(token.to_string()))
    }

    /// The token endpoint's answer to the form `form` (no bearer token).
    fn exchange(&self, endpoint: &str, form: String) -> SparkResult<(u16, Value)> {
        self.request(reqwest::Method::POST, endpoint, None, |builder| {
            builder
                .header("Content-Type", "application/x-www-form-urlencoded")
                .body(form.clone())
        })
    }

    fn send(
        &self,
        method: reqwest::Method,
        url: &str,
        body: Option<Value>,
        token: Option<&str>,
    ) -> SparkResult<(u16, Value)> {
        self.request(method, url, token, |mut builder| {
            for (k, v) in &self.headers {
                builder = builder.header(k, v);
            }
            if let Some(body) = &body {
                builder = builder
                    .header("Content-Type", "application/json")
                    .body(body.to_string());
            }
            builder
        })
    }

    fn request(
        &self,
        method: reqwest::Method,
        url: &str,
        token: Option<&str>,
        build: impl Fn(reqwest::RequestBuilder) -> reqwest::RequestBuilder + Send + Sync,
    ) -> SparkResult<(u16, Value)> {
        let request = || -> Result<(u16, Value), String> {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .map_err(|e| e.to_string())?;
            runtime.block_on(async {
                let client = reqwest::Client::builder()
                    .timeout(Duration::from_secs(60))
                    .build()
                    .map_err(|e| e.to_string())?;
                let mut builder = client.request(method, url);
                if let Some(token) = token {
                    builder = builder.bearer_auth(token);
                }
                let response = build(builder).send().await.map_err(|e| e.to_string())?;
                let status = response.status().as_u16();
                let bytes = response.bytes().await.map_err(|e| e.to_string())?;
                let value = if bytes.is_empty() {
                    Value::Null
                } else {
                    serde_json::from_slice(&bytes).unwrap_or_else(
                        |_| json!({"error": {"message": String::from_utf8_lossy(&bytes)}}),
                    )
                };
                Ok((status, value))
            })
        };
        std::thread::scope(|s| s.spawn(request).join())
            .map_err(|_| invalid("the Iceberg REST request thread failed"))?
            .map_err(|e| {
                invalid(format!(
                    "Iceberg REST catalog {} at {}: {e}",
                    self.name, self.uri
                ))
            })
    }

    /// An error response as the catalog's exception (`NoSuchTableException: ...`).
    fn error(&self, status: u16, body: &Value, what: &str) -> SparkError {
        let kind = body
            .pointer("/error/type")
            .and_then(Value::as_str)
            .unwrap_or("RESTException");
        let message = body
            .pointer("/error/message")
            .and_then(Value::as_str)
            .unwrap_or("");
        invalid(format!("{kind}: {message} ({what}: HTTP {status})"))
    }
}

/// The tokens client credentials got, by (token endpoint, credential, scope): the token and
/// until when it is used.
type TokenKey = (String, String, String);
static TOKENS: std::sync::LazyLock<
    parking_lot::Mutex<std::collections::HashMap<TokenKey, (String, std::time::Instant)>>,
> = std::sync::LazyLock::new(Default::default);

/// Percent-encoding of a path segment or query value.
fn encode(text: &str) -> String {
    percent_encoding::utf8_percent_encode(text, percent_encoding::NON_ALPHANUMERIC).to_string()
}

impl RestTable {
    fn url(&self) -> SparkResult<String> {
        Ok(format!(
            "{}/namespaces/{}/tables/{}",
            self.catalog.base()?,
            encode(&self.namespace.join("\u{1f}")),
            encode(&self.table)
        ))
    }

    pub fn shown(&self) -> String {
        let mut parts = vec![self.catalog.name.clone()];
        parts.extend(self.namespace.iter().cloned());
        parts.push(self.table.clone());
        parts.join(".")
    }

    /// The table's current metadata file and metadata (None: no such table).
    pub fn load(&self) -> SparkResult<Option<(String, Value)>> {
        let url = self.url()?;
        let (status, body) = self.catalog.call(reqwest::Method::GET, &url, None)?;
        match status {
            200 => {
                let location = body
                    .get("metadata-location")
                    .and_then(Value::as_str)
                    .ok_or_else(|| invalid("a REST catalog's table without metadata-location"))?;
                let metadata = body.get("metadata").cloned().unwrap_or(Value::Null);
                Ok(Some((location.to_string(), metadata)))
            }
            404 => Ok(None),
            _ => Err(self.catalog.error(status, &body, "load table")),
        }
    }

    /// Create the table (its schema and partition spec as metadata JSON gives them).
    pub fn create(&self, schema: &Value, spec: &Value) -> SparkResult<()> {
        let url = format!(
            "{}/namespaces/{}/tables",
            self.catalog.base()?,
            encode(&self.namespace.join("\u{1f}"))
        );
        let body = json!({
            "name": self.table,
            "schema": schema,
            "partition-spec": spec,
            "properties": {},
        });
        let (status, body) = self.catalog.call(reqwest::Method::POST, &url, Some(body))?;
        match status {
            200 => Ok(()),
            _ => Err(self.catalog.error(status, &body, "create table")),
        }
    }

    /// Commit a new snapshot made from the one `parent` (None: the table had none): the branch
    /// `main` must still be there.
    pub fn commit(&self, parent: Option<i64>, snapshot: &Value) -> SparkResult<()> {
        let id = snapshot.get("snapshot-id").cloned().unwrap_or(Value::Null);
        let body = json!({
            "identifier": {"namespace": self.namespace, "name": self.table},
            "requirements": [
                {"type": "assert-ref-snapshot-id", "ref": "main", "snapshot-id": parent},
            ],
            "updates": [
                {"action": "add-snapshot", "snapshot": snapshot},
                {"action": "set-snapshot-ref", "ref-name": "main", "type": "branch", "snapshot-id": id},
            ],
        });
        let url = self.url()?;
        let (status, body) = self.catalog.call(reqwest::Method::POST, &url, Some(body))?;
        match status {
            200 => Ok(()),
            409 => {
                let message = body
                    .pointer("/error/message")
                    .and_then(Value::as_str)
                    .unwrap_or("");
                Err(invalid(format!(
                    "CommitFailedException: Cannot commit to {}: {message}",
                    self.shown()
                )))
            }
            _ => Err(self.catalog.error(status, &body, "commit")),
        }
    }
}
