//! Where files live: the local file system, or an S3-compatible object store configured the
//! way Spark configures Hadoop's S3A connector (`spark.hadoop.fs.s3a.*`).
//!
//! Each DataFusion context gets a [`StoreRegistry`] built from its session's settings; it
//! creates the store of an `s3://` or `s3a://` bucket when a scan or a write first asks for
//! it. Clients are shared between contexts with the same settings. Tasks sent to remote
//! workers carry the settings (see [`StorageOptions::task_entries`]) so that workers reach
//! the same buckets.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, LazyLock};

use datafusion::common::{DataFusionError, Result};
use datafusion::datasource::file_format::file_compression_type::FileCompressionType;
use datafusion::execution::object_store::{DefaultObjectStoreRegistry, ObjectStoreRegistry};
use object_store::ObjectStore;
use object_store::aws::AmazonS3Builder;
use parking_lot::Mutex;
use url::Url;

/// The prefix of Hadoop settings in a Spark session's configuration.
pub const HADOOP_PREFIX: &str = "spark.hadoop.";

/// Hadoop file system settings of a session (`fs.s3a.endpoint`, ...), without the
/// `spark.hadoop.` prefix.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct StorageOptions {
    entries: BTreeMap<String, String>,
}

impl StorageOptions {
    /// The `spark.hadoop.fs.*` settings among a session's `(key, value)` settings.
    pub fn from_session<'a>(settings: impl IntoIterator<Item = (&'a str, &'a str)>) -> Self {
        let entries = settings
            .into_iter()
            .filter_map(|(k, v)| {
                let key = k.strip_prefix(HADOOP_PREFIX)?;
                key.starts_with("fs.")
                    .then(|| (key.to_string(), v.to_string()))
            })
            .collect();
        Self { entries }
    }

    /// The settings as entries of a task's configuration (with their `spark.hadoop.` prefix,
    /// which no DataFusion setting has).
    pub fn task_entries(&self) -> impl Iterator<Item = (String, String)> + '_ {
        self.entries
            .iter()
            .map(|(k, v)| (format!("{HADOOP_PREFIX}{k}"), v.clone()))
    }

    /// Split a task's configuration into DataFusion's settings and the storage settings.
    pub fn split_task_config(
        config: &HashMap<String, String>,
    ) -> (HashMap<String, String>, StorageOptions) {
        let (storage, rest): (HashMap<_, _>, HashMap<_, _>) = config
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .partition(|(k, _)| k.starts_with(HADOOP_PREFIX));
        let options = Self::from_session(storage.iter().map(|(k, v)| (k.as_str(), v.as_str())));
        (rest, options)
    }

    fn get(&self, key: &str) -> Option<&str> {
        self.entries.get(key).map(String::as_str)
    }

    /// A setting of one bucket (`fs.s3a.bucket.<bucket>.<key>`, as S3A allows) or of all.
    fn s3a(&self, bucket: &str, key: &str) -> Option<&str> {
        self.get(&format!("fs.s3a.bucket.{bucket}.{key}"))
            .or_else(|| self.get(&format!("fs.s3a.{key}")))
    }

    fn s3a_flag(&self, bucket: &str, key: &str) -> Option<bool> {
        self.s3a(bucket, key)
            .map(|v| v.trim().eq_ignore_ascii_case("true"))
    }

    /// The S3 client of `bucket`: the AWS environment (`AWS_ACCESS_KEY_ID`, ...) overridden
    /// by the session's `fs.s3a.*` settings.
    fn s3(&self, bucket: &str) -> Result<Arc<dyn ObjectStore>> {
        let mut builder = AmazonS3Builder::from_env().with_bucket_name(bucket);
        let ssl = self
            .s3a_flag(bucket, "connection.ssl.enabled")
            .unwrap_or(true);
        if let Some(endpoint) = self.s3a(bucket, "endpoint") {
            let endpoint = endpoint.trim().trim_end_matches('/');
            let endpoint = if endpoint.contains("://") {
                endpoint.to_string()
            } else if ssl {
                format!("https://{endpoint}")
            } else {
                format!("http://{endpoint}")
            };
            builder = builder
                .with_allow_http(endpoint.starts_with("http://"))
                .with_endpoint(endpoint);
        }
        if let Some(region) = self
            .s3a(bucket, "endpoint.region")
            .or_else(|| self.s3a(bucket, "region"))
        {
            builder = builder.with_region(region.trim());
        }
        if let Some(key) = self.s3a(bucket, "access.key") {
            builder = builder.with_access_key_id(key.trim());
        }
        if let Some(secret) = self.s3a(bucket, "secret.key") {
            builder = builder.with_secret_access_key(secret.trim());
        }
        if let Some(token) = self.s3a(bucket, "session.token") {
            builder = builder.with_token(token.trim());
        }
        if let Some(path_style) = self.s3a_flag(bucket, "path.style.access") {
            builder = builder.with_virtual_hosted_style_request(!path_style);
        }
        let anonymous = self
            .s3a(bucket, "aws.credentials.provider")
            .is_some_and(|p| p.contains("AnonymousAWSCredentialsProvider"));
        if anonymous {
            builder = builder.with_skip_signature(true);
        }
        // S3A's `attempts.maximum` bounds retries of failed requests (object_store's
        // default is 10 retries within 3 minutes).
        if let Some(attempts) = self
            .s3a(bucket, "attempts.maximum")
            .and_then(|v| v.trim().parse::<usize>().ok())
        {
            builder = builder.with_retry(object_store::RetryConfig {
                max_retries: attempts,
                ..Default::default()
            });
        }
        let store = builder.build().map_err(|e| {
            DataFusionError::Configuration(format!("cannot reach the S3 bucket {bucket}: {e}"))
        })?;
        Ok(Arc::new(store))
    }
}

/// The compression of a data file, by its name's suffix (as Hadoop's codecs go by).
pub fn compression_of(file: &str) -> FileCompressionType {
    let name = file.rsplit('/').next().unwrap_or(file);
    match name.rsplit_once('.').map(|(_, e)| e) {
        Some("gz") => FileCompressionType::GZIP,
        Some("bz2") => FileCompressionType::BZIP2,
        Some("xz") => FileCompressionType::XZ,
        Some("zst") => FileCompressionType::ZSTD,
        _ => FileCompressionType::UNCOMPRESSED,
    }
}

/// Whether a path names an object store rather than the local file system.
pub fn is_object_store_path(path: &str) -> bool {
    matches!(
        path.split_once("://").map(|(scheme, _)| scheme.to_ascii_lowercase()),
        Some(s) if s != "file"
    )
}

/// The store of an object's URL (`s3a://bucket/dir/name`) and its key as written after the
/// bucket, not decoded: table formats name files with `%` in them (Iceberg's and Hadoop's
/// escaped partition directories), and that text is the key.
pub fn object_key(
    path: &str,
) -> Result<(
    datafusion::datasource::object_store::ObjectStoreUrl,
    object_store::path::Path,
)> {
    let bad = |e: &dyn std::fmt::Display| DataFusionError::Plan(format!("bad path {path}: {e}"));
    let url = Url::parse(path).map_err(|e| bad(&e))?;
    let store_url = datafusion::datasource::object_store::ObjectStoreUrl::parse(
        &url[..url::Position::BeforePath],
    )?;
    let key = path
        .split_once("://")
        .and_then(|(_, rest)| rest.split_once('/'))
        .map_or("", |(_, key)| key);
    let key = object_store::path::Path::parse(key.trim_end_matches('/')).map_err(|e| bad(&e))?;
    Ok((store_url, key))
}

/// The schemes whose stores a [`StoreRegistry`] creates.
fn s3_scheme(scheme: &str) -> bool {
    matches!(scheme, "s3" | "s3a")
}

/// Clients of buckets, by settings and bucket: built once per process.
type ClientKey = (StorageOptions, String);
static CLIENTS: LazyLock<Mutex<HashMap<ClientKey, Arc<dyn ObjectStore>>>> =
    LazyLock::new(Default::default);

/// DataFusion's store registry, plus S3 buckets created on demand from the session's
/// settings.
#[derive(Debug)]
pub struct StoreRegistry {
    options: StorageOptions,
    inner: DefaultObjectStoreRegistry,
}

impl StoreRegistry {
    pub fn new(options: StorageOptions) -> Self {
        Self {
            options,
            inner: DefaultObjectStoreRegistry::new(),
        }
    }
}

impl ObjectStoreRegistry for StoreRegistry {
    fn register_store(
        &self,
        url: &Url,
        store: Arc<dyn ObjectStore>,
    ) -> Option<Arc<dyn ObjectStore>> {
        self.inner.register_store(url, store)
    }

    fn deregister_store(&self, url: &Url) -> Result<Arc<dyn ObjectStore>> {
        self.inner.deregister_store(url)
    }

    fn get_store(&self, url: &Url) -> Result<Arc<dyn ObjectStore>> {
        if let Ok(store) = self.inner.get_store(url) {
            return Ok(store);
        }
        if !s3_scheme(url.scheme()) {
            return Err(DataFusionError::Plan(format!(
                "not supported: reading or writing {}:// paths (supported: local paths, file://, s3://, s3a://)",
                url.scheme()
            )));
        }
        let bucket = url.host_str().unwrap_or_default().to_string();
        if bucket.is_empty() {
            return Err(DataFusionError::Plan(format!("no bucket in {url}")));
        }
        let key = (self.options.clone(), bucket.clone());
        let store = {
            let mut clients = CLIENTS.lock();
            match clients.get(&key) {
                Some(store) => store.clone(),
                None => {
                    let store = self.options.s3(&bucket)?;
                    clients.insert(key, store.clone());
                    store
                }
            }
        };
        self.inner.register_store(url, store.clone());
        Ok(store)
    }
}

/// The file caches every runtime of the process shares: Parquet footers and page indexes
/// (and other formats' embedded metadata), and the statistics of files. Each request has a
/// runtime of its own, so with caches of their own every query read the footers of every
/// file again, once to infer a schema and once more to scan. An entry holds only while the
/// file keeps its size and modification time (DataFusion checks both on every lookup), so a
/// rewritten file is read again. Listings are not cached: a new DataFrame sees the files there
/// are now, as in Spark.
static FILE_CACHES: LazyLock<(
    Arc<datafusion::execution::cache::cache_manager::FileMetadataCache>,
    Arc<datafusion::execution::cache::cache_manager::FileStatisticsCache>,
)> = LazyLock::new(|| {
    use datafusion::execution::cache::cache_manager::{
        DEFAULT_FILE_STATISTICS_MEMORY_LIMIT, DEFAULT_METADATA_CACHE_LIMIT,
    };
    use datafusion::execution::cache::default_cache::DefaultCache;
    (
        Arc::new(DefaultCache::new(DEFAULT_METADATA_CACHE_LIMIT).with_name("EmberFileMetadata")),
        Arc::new(
            DefaultCache::new(DEFAULT_FILE_STATISTICS_MEMORY_LIMIT)
                .with_name("EmberFileStatistics"),
        ),
    )
});

/// A runtime whose object stores come from `options`, on the process's memory pool and spill
/// directory (`crate::memory`) when one is installed, and on its file caches
/// ([`FILE_CACHES`]).
pub fn runtime_env(
    options: StorageOptions,
) -> Result<Arc<datafusion::execution::runtime_env::RuntimeEnv>> {
    let (metadata, statistics) = &*FILE_CACHES;
    // (No cache of directory listings: a runtime lives as long as its session's settings, and
    // a listing kept that long would miss what later writes put in a directory.)
    let caches = datafusion::execution::cache::cache_manager::CacheManagerConfig::default()
        .with_file_metadata_cache(Some(metadata.clone()))
        .with_file_statistics_cache(Some(statistics.clone()))
        .with_list_files_cache_limit(0);
    let mut builder = datafusion::execution::runtime_env::RuntimeEnvBuilder::new()
        .with_object_store_registry(Arc::new(StoreRegistry::new(options)))
        .with_cache_manager(caches);
    if let Some(budget) = crate::memory::installed() {
        builder.memory_pool = Some(budget.pool().clone());
        builder.disk_manager = Some(budget.disk_manager().clone());
    }
    builder.build_arc()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_of_a_session_and_of_a_task() {
        let options = StorageOptions::from_session([
            ("spark.hadoop.fs.s3a.endpoint", "localhost:9000"),
            ("spark.hadoop.fs.s3a.path.style.access", "true"),
            ("spark.sql.shuffle.partitions", "4"),
            ("spark.hadoop.mapreduce.job.x", "1"),
        ]);
        let entries: HashMap<String, String> = options
            .task_entries()
            .chain([("datafusion.execution.batch_size".into(), "8192".into())])
            .collect();
        let (rest, back) = StorageOptions::split_task_config(&entries);
        assert_eq!(back, options);
        assert_eq!(rest.len(), 1);
        assert_eq!(
            options.s3a("b", "endpoint"),
            Some("localhost:9000"),
            "{options:?}"
        );
    }

    #[test]
    fn bucket_settings_win() {
        let options = StorageOptions::from_session([
            ("spark.hadoop.fs.s3a.endpoint", "a:1"),
            ("spark.hadoop.fs.s3a.bucket.logs.endpoint", "b:2"),
        ]);
        assert_eq!(options.s3a("logs", "endpoint"), Some("b:2"));
        assert_eq!(options.s3a("data", "endpoint"), Some("a:1"));
    }

    #[test]
    fn unknown_schemes_are_not_supported() {
        let registry = StoreRegistry::new(StorageOptions::default());
        let Err(e) = registry.get_store(&Url::parse("hdfs://nn/x").unwrap()) else {
            panic!("hdfs is not supported");
        };
        assert!(e.to_string().contains("not supported"), "{e}");
        assert!(
            registry
                .get_store(&Url::parse("s3a://bucket/x").unwrap())
                .is_ok()
        );
        assert!(is_object_store_path("s3a://b/x"));
        assert!(!is_object_store_path("file:///tmp/x"));
        assert!(!is_object_store_path("/tmp/x"));
    }
}
