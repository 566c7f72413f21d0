//! Where an Iceberg table's files are: the local file system (plain paths and `file:` URIs),
//! or an S3-compatible bucket (`s3://`, `s3a://`) whose store comes from the session's
//! settings (`spark.hadoop.fs.s3a.*`) through its runtime, as for every other read and write.
//!
//! Iceberg paths are whole locations (`s3a://bucket/wh/db/t/metadata/v2.metadata.json`); an
//! object's key is the text after the bucket as it is (Iceberg escapes partition directory
//! names itself: `s_trunc=%CF%89m` is the key, not to be escaped again). The table code is
//! synchronous (planning reads metadata); object store calls wait on the runtime here.
//!
//! A commit's metadata file is created only if its name is free: a hard link of a complete
//! temporary file locally, a conditional put (`If-None-Match: *`) in a bucket. Of two writers
//! of one version, one wins and the other fails with Iceberg's `CommitFailedException`.

use std::path::PathBuf;
use std::sync::Arc;

use bytes::Bytes;
use datafusion::datasource::object_store::ObjectStoreUrl;
use datafusion::execution::runtime_env::RuntimeEnv;
use object_store::path::Path as ObjectPath;
use object_store::{ObjectStore, ObjectStoreExt, PutMode, PutOptions};

use super::{invalid, local_path};
use crate::spark_error::SparkResult;

/// The stores Iceberg files are read from and written to.
#[derive(Clone, Debug)]
pub struct Io {
    runtime: Arc<RuntimeEnv>,
}

/// One file or directory: local, or a key in a bucket.
enum Place {
    Local(PathBuf),
    Object {
        store_url: ObjectStoreUrl,
        store: Arc<dyn ObjectStore>,
        key: ObjectPath,
    },
}

/// Wait for `f` from synchronous code, on the current runtime when there is one.
fn wait<T, F>(f: F) -> SparkResult<T>
where
    F: std::future::Future<Output = SparkResult<T>> + Send,
    T: Send,
{
    use tokio::runtime::{Builder, Handle, RuntimeFlavor};
    match Handle::try_current() {
        Ok(handle) if handle.runtime_flavor() == RuntimeFlavor::MultiThread => {
            tokio::task::block_in_place(|| handle.block_on(f))
        }
        _ => std::thread::scope(|s| {
            s.spawn(|| {
                Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .map_err(|e| invalid(format!("cannot start a runtime: {e}")))?
                    .block_on(f)
            })
            .join()
            .unwrap_or_else(|_| Err(invalid("an object store call panicked")))
        }),
    }
}

fn store_error(path: &str, e: object_store::Error) -> crate::spark_error::SparkError {
    invalid(format!("cannot reach {path}: {e}"))
}

impl Io {
    /// Files in the stores of `runtime` (a session's).
    pub fn new(runtime: Arc<RuntimeEnv>) -> Self {
        Self { runtime }
    }

    /// Local files only (a bucket is refused).
    pub fn local() -> Self {
        Self {
            runtime: Arc::new(RuntimeEnv::default()),
        }
    }

    fn place(&self, path: &str) -> SparkResult<Place> {
        if !crate::formats::storage::is_object_store_path(path) {
            return Ok(Place::Local(local_path(path)?));
        }
        let (store_url, key) = crate::formats::storage::object_key(path)?;
        let store = self.runtime.object_store(&store_url)?;
        Ok(Place::Object {
            store_url,
            store,
            key,
        })
    }

    /// Whether `path` is in a bucket.
    pub fn is_object(path: &str) -> bool {
        crate::formats::storage::is_object_store_path(path)
    }

    /// The file at `path`, whole.
    pub fn read(&self, path: &str) -> SparkResult<Bytes> {
        match self.place(path)? {
            Place::Local(p) => std::fs::read(&p)
                .map(Bytes::from)
                .map_err(|e| invalid(format!("cannot read {}: {e}", p.display()))),
            Place::Object { store, key, .. } => wait(async {
                store
                    .get(&key)
                    .await
                    .map_err(|e| store_error(path, e))?
                    .bytes()
                    .await
                    .map_err(|e| store_error(path, e))
            }),
        }
    }

    /// Whether a file is at `path`.
    pub fn is_file(&self, path: &str) -> bool {
        match self.place(path) {
            Ok(Place::Local(p)) => p.is_file(),
            Ok(Place::Object { store, key, .. }) => {
                wait(async { Ok(store.head(&key).await.is_ok()) }).unwrap_or(false)
            }
            Err(_) => false,
        }
    }

    /// The names of the files directly in the directory `dir` (none when it does not exist).
    pub fn list(&self, dir: &str) -> SparkResult<Vec<String>> {
        match self.place(dir)? {
            Place::Local(p) => Ok(std::fs::read_dir(&p)
                .map(|entries| {
                    entries
                        .filter_map(|e| e.ok())
                        .map(|e| e.file_name().to_string_lossy().to_string())
                        .collect()
                })
                .unwrap_or_default()),
            Place::Object { store, key, .. } => wait(async {
                let listed = store
                    .list_with_delimiter(Some(&key))
                    .await
                    .map_err(|e| store_error(dir, e))?;
                Ok(listed
                    .objects
                    .iter()
                    .filter_map(|o| o.location.filename().map(str::to_string))
                    .collect())
            }),
        }
    }

    /// Write the file `path` (its directory made first), replacing one that is there. A
    /// reader sees the old file or the new one, whole.
    pub fn write(&self, path: &str, data: Vec<u8>) -> SparkResult<()> {
        match self.place(path)? {
            Place::Local(p) => {
                let io = |e: std::io::Error| invalid(format!("cannot write {}: {e}", p.display()));
                if let Some(dir) = p.parent() {
                    std::fs::create_dir_all(dir).map_err(io)?;
                }
                let name = p.file_name().map(|n| n.to_string_lossy().to_string());
                let temporary = p.with_file_name(format!(
                    ".{}.{}.tmp",
                    name.unwrap_or_default(),
                    uuid::Uuid::new_v4()
                ));
                std::fs::write(&temporary, &data).map_err(io)?;
                std::fs::rename(&temporary, &p).map_err(|e| {
                    let _ = std::fs::remove_file(&temporary);
                    io(e)
                })
            }
            Place::Object { store, key, .. } => wait(async {
                store
                    .put(&key, data.into())
                    .await
                    .map(|_| ())
                    .map_err(|e| store_error(path, e))
            }),
        }
    }

    /// Create the file `path` with `data` unless a file of that name exists (false then).
    pub fn create_new(&self, path: &str, data: Vec<u8>) -> SparkResult<bool> {
        match self.place(path)? {
            Place::Local(p) => {
                use std::io::Write;
                let io = |e: std::io::Error| invalid(format!("cannot write {}: {e}", p.display()));
                if let Some(dir) = p.parent() {
                    std::fs::create_dir_all(dir).map_err(io)?;
                }
                // Written whole under a temporary name, then linked to its name: the link
                // fails when the name exists, and a reader never sees a partly written file.
                let temporary = p.with_file_name(format!(".{}.tmp", uuid::Uuid::new_v4()));
                let mut file = std::fs::File::create(&temporary).map_err(io)?;
                file.write_all(&data).map_err(io)?;
                file.sync_all().map_err(io)?;
                let linked = std::fs::hard_link(&temporary, &p);
                let _ = std::fs::remove_file(&temporary);
                match linked {
                    Ok(()) => Ok(true),
                    Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(false),
                    Err(e) => Err(io(e)),
                }
            }
            Place::Object { store, key, .. } => wait(async {
                let options = PutOptions {
                    mode: PutMode::Create,
                    ..Default::default()
                };
                match store.put_opts(&key, data.into(), options).await {
                    Ok(_) => Ok(true),
                    Err(object_store::Error::AlreadyExists { .. }) => Ok(false),
                    Err(e) => Err(store_error(path, e)),
                }
            }),
        }
    }

    /// Where a data file is for DataFusion's parquet scan: its store and its key.
    pub fn scan_location(&self, path: &str) -> SparkResult<(ObjectStoreUrl, ObjectPath)> {
        match self.place(path)? {
            Place::Local(p) => Ok((
                ObjectStoreUrl::local_filesystem(),
                ObjectPath::from_absolute_path(&p)
                    .map_err(|e| invalid(format!("bad Iceberg data file path: {e}")))?,
            )),
            // `s3a://b` and `s3://b` are one bucket, reached with the same settings: a
            // table that pyiceberg (`s3://`) and Ember under Spark's `s3a://` both wrote
            // scans as one store.
            Place::Object { store_url, key, .. } => {
                let text = store_url.as_str();
                let store_url = match text.strip_prefix("s3a://") {
                    Some(bucket) => ObjectStoreUrl::parse(format!("s3://{bucket}"))?,
                    None => store_url,
                };
                Ok((store_url, key))
            }
        }
    }

    /// The Arrow schema of the parquet file at `path` (of `size` bytes), from its footer.
    pub fn parquet_schema(
        &self,
        path: &str,
        size: u64,
    ) -> SparkResult<arrow::datatypes::SchemaRef> {
        use datafusion::parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
        let bad = |e: datafusion::parquet::errors::ParquetError| {
            invalid(format!("bad parquet file {path}: {e}"))
        };
        match self.place(path)? {
            Place::Local(p) => {
                let file = std::fs::File::open(&p)
                    .map_err(|e| invalid(format!("cannot read {}: {e}", p.display())))?;
                Ok(ParquetRecordBatchReaderBuilder::try_new(file)
                    .map_err(bad)?
                    .schema()
                    .clone())
            }
            Place::Object { store, key, .. } => wait(async {
                use datafusion::datasource::physical_plan::parquet::metadata::DFParquetMetadata;
                let meta = object_store::ObjectMeta {
                    location: key,
                    last_modified: chrono::Utc::now(),
                    size,
                    e_tag: None,
                    version: None,
                };
                let footer = DFParquetMetadata::new(store.as_ref(), &meta)
                    .fetch_metadata()
                    .await?;
                let file = footer.file_metadata();
                Ok(Arc::new(
                    datafusion::parquet::arrow::parquet_to_arrow_schema(
                        file.schema_descr(),
                        file.key_value_metadata(),
                    )
                    .map_err(bad)?,
                ))
            }),
        }
    }
}

/// `dir/name` for a location (local or in a bucket).
pub fn join(dir: &str, name: &str) -> String {
    format!("{}/{name}", dir.trim_end_matches('/'))
}

/// The directory a location is in (`.../metadata` of `.../metadata/v1.metadata.json`).
pub fn parent(path: &str) -> &str {
    let trimmed = path.trim_end_matches('/');
    trimmed.rsplit_once('/').map_or("", |(dir, _)| dir)
}

/// The last part of a location.
pub fn file_name(path: &str) -> &str {
    let trimmed = path.trim_end_matches('/');
    trimmed.rsplit_once('/').map_or(trimmed, |(_, name)| name)
}
