//! The commit protocol of file writes to object stores (S3 and compatible), where there are
//! no directories and no renames, only objects that are put, copied and deleted one by one.
//!
//! A write to `<dir>/<name>` stages its objects under the hidden sibling prefix
//! `<dir>/.<name>.ember-staging-<uuid>/`, one `task-<partition>-<attempt>/` prefix per task
//! attempt marked complete by a `_COMMITTED` object (as on local file systems, see
//! [`super::commit`]). Once the job has succeeded, the driver commits:
//!
//! 1. it picks one complete attempt per partition and lists its objects;
//! 2. it puts a journal object, `<dir>/.<name>.ember-commit` (a put is atomic), naming the
//!    copies that publish the new objects, the previous objects an overwrite deletes, and
//!    the staging prefix;
//! 3. it applies the journal: copies first, then deletes the previous objects, writes
//!    `_SUCCESS`, deletes the staging objects and finally the journal.
//!
//! Until step 2 the target is untouched, so a failed write leaves the previous objects
//! intact. After it, [`recover`] (run before every write of the target, and by a read's scan
//! when the query runs) finishes an interrupted commit: every step is idempotent, and staging
//! objects are deleted only after every copy; [`published`] lists what the commit publishes
//! without changing anything. Unlike a local rename, the steps are not one atomic switch: a
//! reader running during a commit may see new and previous objects together, as with Spark's
//! S3A committers.

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;

use datafusion::common::{DataFusionError, Result};
use futures::TryStreamExt;
use object_store::path::Path;
use object_store::{ObjectStore, ObjectStoreExt, PutPayload};
use serde_json::{Value, json};

use super::commit::{COMMITTED_MARKER, CommitMode, SUCCESS_MARKER};

fn store_error(e: object_store::Error, what: &str, path: &Path) -> DataFusionError {
    DataFusionError::Execution(format!("cannot {what} {path}: {e}"))
}

/// `<parent>/.<name>.ember-<suffix>` for a target `<parent>/<name>`.
fn sibling(target: &Path, suffix: &str) -> Result<Path> {
    let parts: Vec<_> = target.parts().collect();
    let Some((name, parent)) = parts.split_last() else {
        return Err(DataFusionError::Execution(
            "cannot write to the root of a bucket".into(),
        ));
    };
    let file = format!(".{}.ember-{suffix}", name.as_ref());
    Ok(Path::from_iter(
        parent.iter().map(|p| p.as_ref().to_string()).chain([file]),
    ))
}

/// Every object under `prefix` (a directory-like prefix: `a/b` lists `a/b/...`).
pub async fn list_objects(store: &dyn ObjectStore, prefix: &Path) -> Result<Vec<Path>> {
    let mut all: Vec<Path> = store
        .list(Some(prefix))
        .map_ok(|meta| meta.location)
        .try_collect()
        .await
        .map_err(|e| store_error(e, "list", prefix))?;
    all.sort();
    Ok(all)
}

fn relative(path: &Path, root: &Path) -> Option<Vec<String>> {
    path.prefix_match(root)
        .map(|parts| parts.map(|p| p.as_ref().to_string()).collect())
}

/// One write job's staging prefix and target in an object store. Dropped before its commit
/// is published (failure, cancellation), it deletes the staged objects.
#[derive(Debug)]
pub struct ObjectStagedWrite {
    store: Arc<dyn ObjectStore>,
    /// `s3a://bucket/`: the store's URL, with a trailing `/`.
    base_url: String,
    target: Path,
    staging: Path,
    published: bool,
}

impl Drop for ObjectStagedWrite {
    fn drop(&mut self) {
        if self.published {
            return;
        }
        let (store, staging) = (self.store.clone(), self.staging.clone());
        if let Ok(handle) = tokio::runtime::Handle::try_current() {
            handle.spawn(async move {
                // Late tasks of a failed job may still put objects: sweep again shortly after.
                for delay in [0u64, 500, 1500] {
                    tokio::time::sleep(std::time::Duration::from_millis(delay)).await;
                    let _ = delete_all(store.as_ref(), &staging).await;
                }
            });
        }
    }
}

async fn delete_all(store: &dyn ObjectStore, prefix: &Path) -> Result<()> {
    for object in list_objects(store, prefix).await? {
        delete_object(store, &object).await?;
    }
    Ok(())
}

async fn delete_object(store: &dyn ObjectStore, path: &Path) -> Result<()> {
    match store.delete(path).await {
        Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
        Err(e) => Err(store_error(e, "delete", path)),
    }
}

impl ObjectStagedWrite {
    /// Prepare a write to `target` in `store` (reached as `base_url`): finish any
    /// interrupted commit there first.
    pub async fn create(store: Arc<dyn ObjectStore>, base_url: &str, target: Path) -> Result<Self> {
        recover(store.as_ref(), &target).await?;
        let staging = sibling(
            &target,
            &format!("staging-{}", uuid::Uuid::new_v4().simple()),
        )?;
        Ok(Self {
            store,
            base_url: if base_url.ends_with('/') {
                base_url.to_string()
            } else {
                format!("{base_url}/")
            },
            target,
            staging,
            published: false,
        })
    }

    /// Where tasks write: a URL ending in `/`.
    pub fn staging_url(&self) -> String {
        format!("{}{}/", self.base_url, self.staging)
    }

    /// Publish the job's objects (see the module documentation).
    pub async fn commit(mut self, mode: CommitMode) -> Result<()> {
        let store = self.store.clone();
        let staged = list_objects(store.as_ref(), &self.staging).await?;
        // One complete attempt per partition: the first by name among the complete ones.
        let mut chosen: BTreeMap<String, String> = BTreeMap::new();
        for object in &staged {
            let Some(parts) = relative(object, &self.staging) else {
                continue;
            };
            if let [attempt, marker] = parts.as_slice()
                && marker == COMMITTED_MARKER
                && let Some((partition, _)) = attempt
                    .strip_prefix("task-")
                    .and_then(|rest| rest.split_once('-'))
            {
                let entry = chosen
                    .entry(partition.to_string())
                    .or_insert_with(|| attempt.clone());
                if attempt < entry {
                    *entry = attempt.clone();
                }
            }
        }
        let chosen: HashSet<&String> = chosen.values().collect();
        let mut copies = vec![];
        for object in &staged {
            let Some(parts) = relative(object, &self.staging) else {
                continue;
            };
            let [attempt, rest @ ..] = parts.as_slice() else {
                continue;
            };
            if !chosen.contains(attempt) || rest.is_empty() || rest == [COMMITTED_MARKER] {
                continue;
            }
            let destination = Path::from_iter(
                self.target
                    .parts()
                    .map(|p| p.as_ref().to_string())
                    .chain(rest.iter().cloned()),
            );
            copies.push((object.clone(), destination));
        }
        let previous = match mode {
            CommitMode::Overwrite => list_objects(store.as_ref(), &self.target).await?,
            CommitMode::OverwritePartitions => {
                let written: Vec<String> = copies
                    .iter()
                    .filter_map(|(_, to)| relative(to, &self.target))
                    .map(|parts| parts.join("/"))
                    .collect();
                let mut previous = vec![];
                for dir in super::commit::written_partitions(&written) {
                    let prefix = Path::from_iter(
                        self.target
                            .parts()
                            .map(|p| p.as_ref().to_string())
                            .chain(dir.split('/').map(str::to_string)),
                    );
                    previous.extend(list_objects(store.as_ref(), &prefix).await?);
                }
                previous
            }
            CommitMode::Append => vec![],
        };
        let journal = json!({
            "copies": copies.iter().map(|(a, b)| json!([a.as_ref(), b.as_ref()])).collect::<Vec<_>>(),
            "delete": previous.iter().map(|p| p.as_ref()).collect::<Vec<_>>(),
            "staging": self.staging.as_ref(),
            "target": self.target.as_ref(),
        });
        let path = sibling(&self.target, "commit")?;
        store
            .put(&path, PutPayload::from(journal.to_string().into_bytes()))
            .await
            .map_err(|e| store_error(e, "write", &path))?;
        self.published = true;
        apply_journal(store.as_ref(), &path).await
    }
}

/// Apply a commit journal. Safe to run again after a crash at any point.
async fn apply_journal(store: &dyn ObjectStore, path: &Path) -> Result<()> {
    let bytes = store
        .get(path)
        .await
        .map_err(|e| store_error(e, "read", path))?
        .bytes()
        .await
        .map_err(|e| store_error(e, "read", path))?;
    let journal: Value = serde_json::from_slice(&bytes)
        .map_err(|e| DataFusionError::Execution(format!("bad commit journal {path}: {e}")))?;
    let as_path = |v: &Value| v.as_str().map(Path::from);
    let mut published = HashSet::new();
    for pair in journal["copies"].as_array().into_iter().flatten() {
        let (Some(from), Some(to)) = (as_path(&pair[0]), as_path(&pair[1])) else {
            continue;
        };
        match store.copy(&from, &to).await {
            // Copied before a crash; its staged object is gone.
            Ok(()) | Err(object_store::Error::NotFound { .. }) => {}
            Err(e) => return Err(store_error(e, "copy", &from)),
        }
        published.insert(to);
    }
    for old in journal["delete"].as_array().into_iter().flatten() {
        if let Some(old) = as_path(old)
            && !published.contains(&old)
        {
            delete_object(store, &old).await?;
        }
    }
    if let Some(target) = journal["target"].as_str().map(Path::from) {
        let success = target.clone().join(SUCCESS_MARKER);
        store
            .put(&success, PutPayload::new())
            .await
            .map_err(|e| store_error(e, "write", &success))?;
    }
    if let Some(staging) = journal["staging"].as_str().map(Path::from) {
        delete_all(store, &staging).await?;
    }
    delete_object(store, path).await
}

/// Finish a commit of `target` that a crash interrupted, if any. One request when there is
/// none.
pub async fn recover(store: &dyn ObjectStore, target: &Path) -> Result<()> {
    let Ok(path) = sibling(target, "commit") else {
        return Ok(());
    };
    match store.head(&path).await {
        Ok(_) => {
            tracing::warn!(target = %target, "finishing an interrupted commit");
            apply_journal(store, &path).await
        }
        Err(object_store::Error::NotFound { .. }) => Ok(()),
        Err(e) => Err(store_error(e, "read", &path)),
    }
}

/// What `target` holds once an interrupted commit to it is finished, without changing
/// anything: `None` when no commit is unfinished, else every object that will be under
/// `target` with the place it is now (a staged object until its copy is done). [`recover`]
/// finishes the commit.
pub async fn published(
    store: &dyn ObjectStore,
    target: &Path,
) -> Result<Option<Vec<(Path, Path)>>> {
    let Ok(path) = sibling(target, "commit") else {
        return Ok(None);
    };
    let bytes = match store.get(&path).await {
        Ok(got) => got.bytes().await,
        Err(e) => Err(e),
    };
    let bytes = match bytes {
        Ok(bytes) => bytes,
        Err(object_store::Error::NotFound { .. }) => return Ok(None),
        Err(e) => return Err(store_error(e, "read", &path)),
    };
    let journal: Value = serde_json::from_slice(&bytes)
        .map_err(|e| DataFusionError::Execution(format!("bad commit journal {path}: {e}")))?;
    let as_path = |v: &Value| v.as_str().map(Path::from);
    let mut objects: BTreeMap<Path, Path> = list_objects(store, target)
        .await?
        .into_iter()
        .map(|o| (o.clone(), o))
        .collect();
    // The previous objects an overwrite deletes (once every copy is done), then the copies.
    let copies: Vec<(Path, Path)> = journal["copies"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|pair| Some((as_path(&pair[0])?, as_path(&pair[1])?)))
        .collect();
    let destinations: HashSet<&Path> = copies.iter().map(|(_, to)| to).collect();
    for old in journal["delete"].as_array().into_iter().flatten() {
        if let Some(old) = as_path(old)
            && !destinations.contains(&old)
        {
            objects.remove(&old);
        }
    }
    for (from, to) in copies {
        objects.entry(to).or_insert(from);
    }
    Ok(Some(objects.into_iter().collect()))
}

#[cfg(test)]
mod tests {
    use object_store::memory::InMemory;

    use super::*;

    async fn put(store: &dyn ObjectStore, path: &str) {
        store
            .put(&Path::from(path), PutPayload::from_static(b"x"))
            .await
            .unwrap();
    }

    async fn names(store: &dyn ObjectStore, prefix: &str) -> Vec<String> {
        list_objects(store, &Path::from(prefix))
            .await
            .unwrap()
            .iter()
            .map(|p| p.to_string())
            .collect()
    }

    async fn stage(write: &ObjectStagedWrite, store: &dyn ObjectStore, attempt: &str, file: &str) {
        put(store, &format!("{}/{attempt}/{file}", write.staging)).await;
        put(
            store,
            &format!("{}/{attempt}/{COMMITTED_MARKER}", write.staging),
        )
        .await;
    }

    #[tokio::test]
    async fn overwrite_replaces_and_append_adds() {
        let store: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
        put(store.as_ref(), "data/t/old.parquet").await;
        let write = ObjectStagedWrite::create(store.clone(), "memory://", Path::from("data/t"))
            .await
            .unwrap();
        assert!(
            write
                .staging_url()
                .starts_with("memory://data/.t.ember-staging-")
        );
        stage(&write, store.as_ref(), "task-00000-a", "k=1/new.parquet").await;
        stage(&write, store.as_ref(), "task-00000-b", "k=1/dup.parquet").await;
        // An incomplete attempt of another partition is ignored.
        put(
            store.as_ref(),
            &format!("{}/task-00001-c/part.parquet", write.staging),
        )
        .await;
        write.commit(CommitMode::Overwrite).await.unwrap();
        assert_eq!(
            names(store.as_ref(), "data").await,
            ["data/t/_SUCCESS", "data/t/k=1/new.parquet"]
        );

        let write = ObjectStagedWrite::create(store.clone(), "memory://", Path::from("data/t"))
            .await
            .unwrap();
        stage(&write, store.as_ref(), "task-00000-d", "more.parquet").await;
        write.commit(CommitMode::Append).await.unwrap();
        assert_eq!(
            names(store.as_ref(), "data").await,
            [
                "data/t/_SUCCESS",
                "data/t/k=1/new.parquet",
                "data/t/more.parquet"
            ]
        );
    }

    #[tokio::test]
    async fn overwrite_of_the_partitions_written() {
        let store: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
        put(store.as_ref(), "t/k=1/a").await;
        put(store.as_ref(), "t/k=2/b").await;
        let write = ObjectStagedWrite::create(store.clone(), "memory://", Path::from("t"))
            .await
            .unwrap();
        stage(&write, store.as_ref(), "task-00000-a", "k=2/c").await;
        stage(&write, store.as_ref(), "task-00001-a", "k=3/d").await;
        write.commit(CommitMode::OverwritePartitions).await.unwrap();
        assert_eq!(
            names(store.as_ref(), "").await,
            ["t/_SUCCESS", "t/k=1/a", "t/k=2/c", "t/k=3/d"]
        );
    }

    #[tokio::test]
    async fn an_interrupted_commit_finishes_on_recovery() {
        let store: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
        put(store.as_ref(), "t/old").await;
        put(store.as_ref(), ".t.ember-staging-1/task-00000-a/new").await;
        let journal = json!({
            "copies": [[".t.ember-staging-1/task-00000-a/new", "t/new"]],
            "delete": ["t/old"],
            "staging": ".t.ember-staging-1",
            "target": "t",
        });
        store
            .put(
                &Path::from(".t.ember-commit"),
                PutPayload::from(journal.to_string().into_bytes()),
            )
            .await
            .unwrap();
        let view = |store: Arc<dyn ObjectStore>| async move {
            published(store.as_ref(), &Path::from("t"))
                .await
                .unwrap()
                .map(|v| {
                    v.iter()
                        .map(|(to, now)| format!("{to} <- {now}"))
                        .collect::<Vec<_>>()
                })
        };
        // The crash came after the journal: the new object is still staged.
        let before = names(store.as_ref(), "").await;
        assert_eq!(
            view(store.clone()).await.unwrap(),
            ["t/new <- .t.ember-staging-1/task-00000-a/new"]
        );
        assert_eq!(names(store.as_ref(), "").await, before);
        // The crash came after the copy, before anything was deleted.
        put(store.as_ref(), "t/new").await;
        assert_eq!(view(store.clone()).await.unwrap(), ["t/new <- t/new"]);
        recover(store.as_ref(), &Path::from("t")).await.unwrap();
        assert_eq!(names(store.as_ref(), "").await, ["t/_SUCCESS", "t/new"]);
        assert_eq!(view(store.clone()).await, None);
        // Nothing to do the second time.
        recover(store.as_ref(), &Path::from("t")).await.unwrap();
    }

    #[tokio::test]
    async fn a_dropped_write_leaves_the_target_alone() {
        let store: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
        put(store.as_ref(), "t/old").await;
        let write = ObjectStagedWrite::create(store.clone(), "memory://", Path::from("t"))
            .await
            .unwrap();
        stage(&write, store.as_ref(), "task-00000-a", "new").await;
        drop(write);
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        assert_eq!(names(store.as_ref(), "").await, ["t/old"]);
    }
}
