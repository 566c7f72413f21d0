//! The commit protocol of file writes (the idea of Spark's `FileOutputCommitter`), for local
//! file systems.
//!
//! A write to `<dir>/<name>` stages everything in a hidden sibling directory,
//! `<dir>/.<name>.ember-staging-<uuid>/`. Each task attempt writes into its own
//! `task-<partition>-<attempt>/` directory there and marks it complete with a `_COMMITTED`
//! file last. Once the job has succeeded, the driver commits:
//!
//! 1. it picks one complete attempt per partition (retried or duplicated attempts are
//!    ignored) and moves its files into `out/` inside the staging directory;
//! 2. it writes a journal, `<dir>/.<name>.ember-commit`, atomically (write, then rename),
//!    listing the renames that publish `out/` (overwrite: target to a backup, `out/` to the
//!    target; append: each file into the target) and what to delete afterwards;
//! 3. it applies the journal and deletes it.
//!
//! Until step 2 the target is untouched; after it, [`recover`] (run before every write of the
//! target, and by a read's scan when the query runs) finishes an interrupted commit, while
//! [`published`] lists what it publishes without changing anything (a read being planned).
//! So a write that fails, or a process killed at any point, leaves either the previous
//! contents or the new ones, complete, and never partial files.

use std::path::{Path as FsPath, PathBuf};

use datafusion::common::{DataFusionError, Result};
use object_store::path::Path;
use serde_json::{Value, json};

/// Written last by a task attempt whose files are complete.
pub const COMMITTED_MARKER: &str = "_COMMITTED";
/// Written into a committed output directory, as Spark does.
pub const SUCCESS_MARKER: &str = "_SUCCESS";

/// The directory of one task attempt under the job's staging directory.
pub fn task_attempt_dir(staging: &Path, partition: usize, attempt: &str) -> Path {
    staging
        .clone()
        .join(format!("task-{partition:05}-{attempt}"))
}

/// How the committed files replace or join the target's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CommitMode {
    Append,
    Overwrite,
    /// Replace the partition directories the job wrote, keep the others (Spark's dynamic
    /// partition overwrite).
    OverwritePartitions,
}

/// The partition directories (relative, `a=1/b=2`) that hold the job's files.
pub fn written_partitions(files: &[String]) -> Vec<String> {
    let mut dirs: Vec<String> = files
        .iter()
        .filter_map(|f| f.rsplit_once('/').map(|(dir, _)| dir.to_string()))
        .collect();
    dirs.sort();
    dirs.dedup();
    dirs
}

fn io(e: std::io::Error, what: &str, path: &FsPath) -> DataFusionError {
    DataFusionError::Execution(format!("cannot {what} {}: {e}", path.display()))
}

fn sibling(target: &FsPath, suffix: &str) -> Result<PathBuf> {
    let name = target
        .file_name()
        .ok_or_else(|| DataFusionError::Execution(format!("cannot write to {}", target.display())))?
        .to_string_lossy();
    let parent = target.parent().unwrap_or(FsPath::new("/"));
    Ok(parent.join(format!(".{name}.ember-{suffix}")))
}

fn journal_path(target: &FsPath) -> Result<PathBuf> {
    sibling(target, "commit")
}

/// One write job's staging directory and target. Dropped before its commit is published
/// (failure, cancellation), it removes the staging directory.
#[derive(Debug)]
pub struct StagedWrite {
    target: PathBuf,
    staging: PathBuf,
    /// The journal is written: the staging directory now belongs to the commit.
    published: bool,
}

impl Drop for StagedWrite {
    fn drop(&mut self) {
        if !self.published {
            let _ = std::fs::remove_dir_all(&self.staging);
            // Tasks of a failed job are cancelled asynchronously: one that was opening a file
            // just now may have created a directory again. Sweep once more shortly after.
            let staging = self.staging.clone();
            std::thread::spawn(move || {
                for _ in 0..3 {
                    std::thread::sleep(std::time::Duration::from_millis(500));
                    let _ = std::fs::remove_dir_all(&staging);
                }
            });
        }
    }
}

impl StagedWrite {
    /// Prepare a write to `target` (an absolute local path): finish any interrupted commit
    /// there first, then create the staging directory.
    pub fn create(target: &FsPath) -> Result<Self> {
        recover(target)?;
        let parent = target.parent().unwrap_or(FsPath::new("/"));
        std::fs::create_dir_all(parent).map_err(|e| io(e, "create", parent))?;
        let staging = sibling(
            target,
            &format!("staging-{}", uuid::Uuid::new_v4().simple()),
        )?;
        std::fs::create_dir_all(&staging).map_err(|e| io(e, "create", &staging))?;
        Ok(Self {
            target: target.to_path_buf(),
            staging,
            published: false,
        })
    }

    /// Where tasks write: a `file://` URL ending in `/`.
    pub fn staging_url(&self) -> String {
        let mut url = url::Url::from_directory_path(&self.staging)
            .map(|u| u.to_string())
            .unwrap_or_else(|_| format!("file://{}/", self.staging.display()));
        if !url.ends_with('/') {
            url.push('/');
        }
        url
    }

    /// Publish the job's files (see the module documentation).
    pub fn commit(mut self, mode: CommitMode) -> Result<()> {
        let out = self.staging.join("out");
        std::fs::create_dir_all(&out).map_err(|e| io(e, "create", &out))?;
        for attempt in self.chosen_attempts()? {
            move_tree(&attempt, &attempt, &out)?;
        }
        let success = out.join(SUCCESS_MARKER);
        std::fs::write(&success, b"").map_err(|e| io(e, "write", &success))?;

        let mut renames: Vec<(PathBuf, PathBuf)> = Vec::new();
        let delete = vec![self.staging.clone()];
        let exists = self.target.exists();
        match (mode, exists) {
            (_, false) => renames.push((out.clone(), self.target.clone())),
            (CommitMode::Overwrite, true) => {
                let backup = self.staging.join("previous");
                renames.push((self.target.clone(), backup));
                renames.push((out.clone(), self.target.clone()));
            }
            (CommitMode::OverwritePartitions, true) => {
                let files: Vec<String> = list_files(&out)?
                    .iter()
                    .filter_map(|f| f.strip_prefix(&out).ok())
                    .map(|f| f.to_string_lossy().to_string())
                    .collect();
                for (i, dir) in written_partitions(&files).iter().enumerate() {
                    let existing = self.target.join(dir);
                    if existing.exists() {
                        renames.push((existing, self.staging.join(format!("previous-{i}"))));
                    }
                    renames.push((out.join(dir), self.target.join(dir)));
                }
                renames.push((success.clone(), self.target.join(SUCCESS_MARKER)));
            }
            (CommitMode::Append, true) => {
                for file in list_files(&out)? {
                    let relative = file
                        .strip_prefix(&out)
                        .map_err(|e| DataFusionError::Internal(e.to_string()))?
                        .to_path_buf();
                    renames.push((file, self.target.join(relative)));
                }
            }
        }
        // The staging directory (with the backup of overwritten data) goes last.
        let journal = json!({
            "renames": renames.iter().map(|(a, b)| json!([a, b])).collect::<Vec<_>>(),
            "delete": delete,
        });
        let path = journal_path(&self.target)?;
        let temporary = sibling(&self.target, "commit.tmp")?;
        std::fs::write(&temporary, journal.to_string()).map_err(|e| io(e, "write", &temporary))?;
        self.published = true;
        if let Err(e) = std::fs::rename(&temporary, &path) {
            self.published = false;
            let _ = std::fs::remove_file(&temporary);
            return Err(io(e, "write", &path));
        }
        apply_journal(&path)
    }

    /// Give up: remove the staging directory (the target was never touched).
    pub fn abort(self) {}

    /// One complete attempt directory per partition.
    fn chosen_attempts(&self) -> Result<Vec<PathBuf>> {
        let mut chosen: std::collections::BTreeMap<String, PathBuf> = Default::default();
        let entries = std::fs::read_dir(&self.staging).map_err(|e| io(e, "list", &self.staging))?;
        for entry in entries {
            let entry = entry.map_err(|e| io(e, "list", &self.staging))?;
            let name = entry.file_name().to_string_lossy().to_string();
            let Some(rest) = name.strip_prefix("task-") else {
                continue;
            };
            let Some((partition, _attempt)) = rest.split_once('-') else {
                continue;
            };
            if !entry.path().join(COMMITTED_MARKER).exists() {
                continue;
            }
            let path = entry.path();
            match chosen.get(partition) {
                Some(existing) if existing <= &path => {}
                _ => {
                    chosen.insert(partition.to_string(), path);
                }
            }
        }
        Ok(chosen.into_values().collect())
    }
}

/// Move every file under `dir` (relative to `root`) to the same place under `to`, except
/// the attempt's marker.
fn move_tree(root: &FsPath, dir: &FsPath, to: &FsPath) -> Result<()> {
    let entries = std::fs::read_dir(dir).map_err(|e| io(e, "list", dir))?;
    for entry in entries {
        let entry = entry.map_err(|e| io(e, "list", dir))?;
        let path = entry.path();
        if path.is_dir() {
            move_tree(root, &path, to)?;
            continue;
        }
        if dir == root && entry.file_name() == COMMITTED_MARKER {
            continue;
        }
        let relative = path
            .strip_prefix(root)
            .map_err(|e| DataFusionError::Internal(e.to_string()))?;
        let destination = to.join(relative);
        if let Some(parent) = destination.parent() {
            std::fs::create_dir_all(parent).map_err(|e| io(e, "create", parent))?;
        }
        std::fs::rename(&path, &destination).map_err(|e| io(e, "move", &path))?;
    }
    Ok(())
}

fn list_files(dir: &FsPath) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).map_err(|e| io(e, "list", &d))? {
            let path = entry.map_err(|e| io(e, "list", &d))?.path();
            if path.is_dir() {
                stack.push(path);
            } else {
                files.push(path);
            }
        }
    }
    files.sort();
    Ok(files)
}

/// A journal's renames (from, to), in order, and the directories it deletes.
type Journal = (Vec<(PathBuf, PathBuf)>, Vec<PathBuf>);

/// The renames and deletions of the journal at `path`.
fn read_journal(path: &FsPath) -> Result<Journal> {
    let text = std::fs::read_to_string(path).map_err(|e| io(e, "read", path))?;
    let journal: Value = serde_json::from_str(&text).map_err(|e| {
        DataFusionError::Execution(format!("bad commit journal {}: {e}", path.display()))
    })?;
    let as_path = |v: &Value| v.as_str().map(PathBuf::from);
    let renames = journal["renames"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|pair| Some((as_path(&pair[0])?, as_path(&pair[1])?)))
        .collect();
    let delete = journal["delete"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(as_path)
        .collect();
    Ok((renames, delete))
}

/// Commits of this process apply journals one at a time (a writer publishing its commit and a
/// read finishing the same one must not race).
static APPLYING: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Apply a commit journal: each rename not done yet (its source is there, its destination
/// not), then the deletions. Safe to run again after a crash at any point, and a no-op once
/// the journal is gone.
fn apply_journal(path: &FsPath) -> Result<()> {
    let _one_at_a_time = APPLYING.lock().unwrap_or_else(|e| e.into_inner());
    if !path.exists() {
        return Ok(()); // applied meanwhile
    }
    let (renames, delete) = read_journal(path)?;
    for (from, to) in renames {
        // Done before a crash: an overwrite's backup rename, say, left its source (the
        // target) in place again once the new contents were renamed there.
        if !from.exists() || to.exists() {
            continue;
        }
        if let Some(parent) = to.parent() {
            std::fs::create_dir_all(parent).map_err(|e| io(e, "create", parent))?;
        }
        std::fs::rename(&from, &to).map_err(|e| io(e, "move", &from))?;
    }
    for dir in delete {
        if dir.exists() {
            std::fs::remove_dir_all(&dir).map_err(|e| io(e, "delete", &dir))?;
        }
    }
    std::fs::remove_file(path).map_err(|e| io(e, "delete", path))
}

/// Finish a commit of `target` that a crash interrupted, if any. Cheap when there is none.
pub fn recover(target: &FsPath) -> Result<()> {
    let Ok(path) = journal_path(target) else {
        return Ok(());
    };
    if path.exists() {
        tracing::warn!(target = %target.display(), "finishing an interrupted commit");
        apply_journal(&path)?;
    }
    Ok(())
}

/// What `target` holds once an interrupted commit to it is finished, without changing
/// anything: `None` when no commit is unfinished, else every file that will be under
/// `target` (hidden ones too) with the place it is now. [`recover`] finishes the commit.
pub fn published(target: &FsPath) -> Result<Option<Vec<(PathBuf, PathBuf)>>> {
    let Ok(path) = journal_path(target) else {
        return Ok(None);
    };
    if !path.exists() {
        return Ok(None);
    }
    let (renames, _) = match read_journal(&path) {
        Ok(journal) => journal,
        // Finished meanwhile.
        Err(_) if !path.exists() => return Ok(None),
        Err(e) => return Err(e),
    };
    // Every file a rename may move or find in its way, and the target's: where it will be ->
    // where it is.
    let mut files: std::collections::BTreeMap<PathBuf, PathBuf> = Default::default();
    let target = target.to_path_buf();
    for root in renames
        .iter()
        .flat_map(|(from, to)| [from, to])
        .chain([&target])
    {
        if root.is_dir() {
            files.extend(list_files(root)?.into_iter().map(|f| (f.clone(), f)));
        } else if root.exists() {
            files.insert(root.clone(), root.clone());
        }
    }
    // The files at or under `p` (contiguous in the order of paths, by component).
    let under = |files: &std::collections::BTreeMap<PathBuf, PathBuf>, p: &FsPath| {
        files
            .range(p.to_path_buf()..)
            .take_while(|(f, _)| f.starts_with(p))
            .map(|(f, now)| (f.clone(), now.clone()))
            .collect::<Vec<_>>()
    };
    // The renames as `apply_journal` does them, on the paths the files will have.
    for (from, to) in &renames {
        let moved = under(&files, from);
        if moved.is_empty() || !under(&files, to).is_empty() {
            continue;
        }
        for (file, now) in moved {
            files.remove(&file);
            let rest = file.strip_prefix(from).unwrap_or(FsPath::new(""));
            let file = if rest.as_os_str().is_empty() {
                to.clone()
            } else {
                to.join(rest)
            };
            files.insert(file, now);
        }
    }
    Ok(Some(under(&files, &target)))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The state a crash leaves between the two renames of an overwrite of `target` with
    /// `files` (relative paths): the journal written, the old contents moved to the backup, the
    /// new ones not yet in place.
    pub(crate) fn interrupted_overwrite(target: &FsPath, files: &[&str]) {
        let mut write = StagedWrite::create(target).unwrap();
        let out = write.staging.join("out");
        for file in files {
            let path = out.join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, file).unwrap();
        }
        let backup = write.staging.join("previous");
        let journal = json!({
            "renames": [[target, backup], [out, target]],
            "delete": [write.staging],
        });
        std::fs::write(journal_path(target).unwrap(), journal.to_string()).unwrap();
        std::fs::rename(target, &backup).unwrap();
        write.published = true;
    }

    fn files(dir: &FsPath) -> Vec<String> {
        list_files(dir)
            .unwrap()
            .into_iter()
            .map(|p| p.strip_prefix(dir).unwrap().display().to_string())
            .collect()
    }

    fn stage(write: &StagedWrite, partition: usize, attempt: &str, complete: bool, file: &str) {
        let dir = write.staging.join(format!("task-{partition:05}-{attempt}"));
        let path = dir.join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, attempt).unwrap();
        if complete {
            std::fs::write(dir.join(COMMITTED_MARKER), b"").unwrap();
        }
    }

    fn temp() -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("ember-commit-{}", uuid::Uuid::new_v4().simple()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn one_complete_attempt_per_partition() {
        let root = temp();
        let target = root.join("t");
        let write = StagedWrite::create(&target).unwrap();
        stage(&write, 0, "b", true, "a=1/p0b.parquet");
        stage(&write, 0, "a", true, "a=1/p0a.parquet");
        stage(&write, 1, "c", false, "p1c.parquet");
        stage(&write, 1, "d", true, "a=2/p1d.parquet");
        write.commit(CommitMode::Append).unwrap();
        assert_eq!(
            files(&target),
            ["_SUCCESS", "a=1/p0a.parquet", "a=2/p1d.parquet"]
        );
        // Nothing else is left next to the target.
        let siblings: Vec<_> = std::fs::read_dir(&root)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(siblings, ["t"]);
    }

    #[test]
    fn overwrite_and_append() {
        let root = temp();
        let target = root.join("t");
        let write = StagedWrite::create(&target).unwrap();
        stage(&write, 0, "a", true, "old.csv");
        write.commit(CommitMode::Overwrite).unwrap();
        let write = StagedWrite::create(&target).unwrap();
        stage(&write, 0, "b", true, "more.csv");
        write.commit(CommitMode::Append).unwrap();
        assert_eq!(files(&target), ["_SUCCESS", "more.csv", "old.csv"]);
        let write = StagedWrite::create(&target).unwrap();
        stage(&write, 0, "c", true, "new.csv");
        write.commit(CommitMode::Overwrite).unwrap();
        assert_eq!(files(&target), ["_SUCCESS", "new.csv"]);
        // An aborted write changes nothing.
        let write = StagedWrite::create(&target).unwrap();
        stage(&write, 0, "d", true, "lost.csv");
        write.abort();
        assert_eq!(files(&target), ["_SUCCESS", "new.csv"]);
    }

    #[test]
    fn overwrite_of_the_partitions_written() {
        let root = temp();
        let target = root.join("t");
        let write = StagedWrite::create(&target).unwrap();
        stage(&write, 0, "a", true, "k=1/a.csv");
        stage(&write, 1, "a", true, "k=2/b.csv");
        write.commit(CommitMode::Overwrite).unwrap();
        let write = StagedWrite::create(&target).unwrap();
        stage(&write, 0, "b", true, "k=2/c.csv");
        stage(&write, 1, "b", true, "k=3/d.csv");
        write.commit(CommitMode::OverwritePartitions).unwrap();
        assert_eq!(
            files(&target),
            ["_SUCCESS", "k=1/a.csv", "k=2/c.csv", "k=3/d.csv"]
        );
    }

    #[test]
    fn interrupted_commits_finish_on_recovery() {
        let root = temp();
        let target = root.join("t");
        let write = StagedWrite::create(&target).unwrap();
        stage(&write, 0, "a", true, "old.csv");
        write.commit(CommitMode::Overwrite).unwrap();

        // Crash after the first rename of an overwrite: the target is gone, the journal is
        // there.
        interrupted_overwrite(&target, &["new.csv"]);
        let staging = std::fs::read_dir(&root)
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| p.to_string_lossy().contains(".ember-staging-"))
            .unwrap();
        assert!(!target.exists());
        recover(&target).unwrap();
        assert_eq!(files(&target), ["new.csv"]);
        assert!(!staging.exists());
        assert!(!journal_path(&target).unwrap().exists());
    }

    #[test]
    fn an_overwrite_interrupted_after_its_renames_finishes() {
        let root = temp();
        let target = root.join("t");
        std::fs::create_dir_all(&target).unwrap();
        std::fs::write(target.join("old.csv"), "old").unwrap();
        interrupted_overwrite(&target, &["new.csv"]);
        // The second rename done too; only the deletions are left.
        let staging = std::fs::read_dir(&root)
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| p.to_string_lossy().contains(".ember-staging-"))
            .unwrap();
        std::fs::rename(staging.join("out"), &target).unwrap();
        let view = published(&target).unwrap().unwrap();
        assert_eq!(
            view,
            [(target.join("new.csv"), target.join("new.csv"))],
            "{view:?}"
        );
        recover(&target).unwrap();
        assert_eq!(files(&target), ["new.csv"]);
        assert!(!staging.exists());
        assert_eq!(published(&target).unwrap(), None);
    }

    #[test]
    fn the_published_view_changes_nothing() {
        let root = temp();
        let target = root.join("t");
        let write = StagedWrite::create(&target).unwrap();
        stage(&write, 0, "a", true, "k=1/a.csv");
        stage(&write, 1, "a", true, "k=2/b.csv");
        write.commit(CommitMode::Overwrite).unwrap();
        assert_eq!(published(&target).unwrap(), None);

        // An overwrite of partition k=2 interrupted before any rename, then one interrupted
        // between its renames.
        for renamed in [false, true] {
            let write = StagedWrite::create(&target).unwrap();
            let out = write.staging.join("out");
            std::fs::create_dir_all(out.join("k=2")).unwrap();
            std::fs::write(out.join("k=2/c.csv"), "c").unwrap();
            let backup = write.staging.join("previous-0");
            let journal = json!({
                "renames": [[target.join("k=2"), &backup], [out.join("k=2"), target.join("k=2")]],
                "delete": [&write.staging],
            });
            std::fs::write(journal_path(&target).unwrap(), journal.to_string()).unwrap();
            if renamed {
                std::fs::rename(target.join("k=2"), &backup).unwrap();
            }
            let before = files(&root);
            let view = published(&target).unwrap().unwrap();
            assert_eq!(files(&root), before, "the view changed the file system");
            assert_eq!(
                view,
                [
                    (target.join("_SUCCESS"), target.join("_SUCCESS")),
                    (target.join("k=1/a.csv"), target.join("k=1/a.csv")),
                    (target.join("k=2/c.csv"), out.join("k=2/c.csv")),
                ]
            );
            let mut write = write;
            write.published = true;
            recover(&target).unwrap();
            assert_eq!(files(&target), ["_SUCCESS", "k=1/a.csv", "k=2/c.csv"]);
            // Back to the state before, for the next round.
            std::fs::remove_file(target.join("k=2/c.csv")).unwrap();
            std::fs::write(target.join("k=2/b.csv"), "a").unwrap();
        }
    }
}
