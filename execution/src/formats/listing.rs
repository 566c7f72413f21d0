//! What a directory of data files holds, the way Spark sees it: data files (names starting with
//! `_` or `.` are hidden: `_SUCCESS`, checksums, staging directories), Hive-style partition
//! directories `col=value` and the Spark types of their values.
//!
//! Listing is the read side of the commit protocol, and it changes nothing: a directory whose
//! last write was interrupted after its commit was published is listed as the commit leaves
//! it ([`super::commit::published`], [`super::object_commit::published`]), so a read sees the
//! previous contents or the new ones, whole. The commit is finished ([`finish`]) where the
//! read executes, before its files are opened.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use arrow::datatypes::DataType;
use chrono::{NaiveDate, NaiveDateTime};

use crate::spark_error::{ErrorKind, SparkError, SparkResult};

pub use super::partition::DEFAULT_PARTITION_NAME;
use super::partition::unescape_path_name;

/// The files and partition columns found under a directory.
#[derive(Debug, Default)]
pub struct Listing {
    /// Local files as absolute paths, objects as URLs.
    pub files: Vec<String>,
    /// The raw values of each file's partition directories (parallel to `files`).
    pub file_partitions: Vec<Vec<String>>,
    /// Partition columns in directory order, with every (unescaped) value seen.
    pub partitions: Vec<(String, Vec<Option<String>>)>,
    /// A commit to the listed path that a crash interrupted: `files` are the files it
    /// publishes, and [`finish`] must run before they are opened.
    pub unfinished: Option<Unfinished>,
    /// Until then, where the files of `files` that are not in place yet are (for reads while
    /// planning, such as schema inference).
    pub moved: HashMap<String, String>,
}

/// The target of a commit that a crash interrupted.
#[derive(Debug, Clone, PartialEq)]
pub enum Unfinished {
    /// A local directory (absolute).
    Local(PathBuf),
    /// A prefix of the object store at `store_url` (`s3a://bucket/`).
    Object {
        store_url: String,
        target: object_store::path::Path,
    },
}

/// Finish the interrupted commit (see [`super::commit`], [`super::object_commit`]); a no-op
/// when it was finished meanwhile.
pub async fn finish(
    unfinished: &Unfinished,
    runtime: &datafusion::execution::runtime_env::RuntimeEnv,
) -> datafusion::common::Result<()> {
    match unfinished {
        Unfinished::Local(target) => {
            let target = target.clone();
            tokio::task::spawn_blocking(move || super::commit::recover(&target))
                .await
                .map_err(|e| datafusion::common::DataFusionError::External(Box::new(e)))?
        }
        Unfinished::Object { store_url, target } => {
            let url = datafusion::execution::object_store::ObjectStoreUrl::parse(store_url)?;
            let store = runtime.object_store(&url)?;
            super::object_commit::recover(store.as_ref(), target).await
        }
    }
}

pub fn hidden(name: &str) -> bool {
    name.starts_with('_') || name.starts_with('.')
}

/// Builds a [`Listing`] from the files found and the `col=value` directories above them.
struct Collector<'a> {
    root: &'a str,
    listing: Listing,
    columns: Option<Vec<String>>,
    values: Vec<Vec<Option<String>>>,
}

impl<'a> Collector<'a> {
    fn new(root: &'a str) -> Self {
        Self {
            root,
            listing: Listing::default(),
            columns: None,
            values: vec![],
        }
    }

    fn add(&mut self, file: String, parts: &Parts) -> SparkResult<()> {
        let names: Vec<String> = parts.iter().map(|(k, _)| k.clone()).collect();
        match &self.columns {
            None => {
                self.values = vec![vec![]; names.len()];
                self.columns = Some(names);
            }
            Some(known) if *known != names => {
                return Err(SparkError::new(
                    ErrorKind::Runtime,
                    "CONFLICTING_PARTITION_COLUMN_NAMES",
                    "KD009",
                    format!(
                        "Conflicting partition column names detected: {} and {} under {}.",
                        known.join(", "),
                        names.join(", "),
                        self.root
                    ),
                    vec![],
                ));
            }
            _ => {}
        }
        for (i, (_, v)) in parts.iter().enumerate() {
            let v = (v != DEFAULT_PARTITION_NAME).then(|| unescape_path_name(v));
            if !self.values[i].contains(&v) {
                self.values[i].push(v);
            }
        }
        self.listing.files.push(file);
        self.listing
            .file_partitions
            .push(parts.iter().map(|(_, v)| v.clone()).collect());
        Ok(())
    }

    /// A file at `relative` (path components) under the root, unless a component is hidden.
    fn add_relative(&mut self, file: String, relative: &[String]) -> SparkResult<()> {
        let Some((_, dirs)) = relative.split_last() else {
            return Ok(());
        };
        if relative.iter().any(|p| hidden(p)) {
            return Ok(());
        }
        let parts: Parts = dirs.iter().filter_map(|d| partition_dir(d)).collect();
        self.add(file, &parts)
    }

    /// The files an unfinished commit to the root publishes: (where each will be, where it
    /// is now, its path components under the root).
    fn add_published(
        &mut self,
        view: impl IntoIterator<Item = (String, String, Vec<String>)>,
    ) -> SparkResult<()> {
        for (file, now, relative) in view {
            if now != file {
                self.listing.moved.insert(file.clone(), now);
            }
            self.add_relative(file, &relative)?;
        }
        Ok(())
    }

    fn finish(mut self) -> Listing {
        self.listing.partitions = self
            .columns
            .unwrap_or_default()
            .into_iter()
            .zip(self.values)
            .collect();
        self.listing
    }
}

/// The partition column a directory name gives (`col=value`), if any.
fn partition_dir(name: &str) -> Option<(String, String)> {
    match name.split_once('=') {
        Some((k, v)) if !k.is_empty() => Some((k.to_string(), v.to_string())),
        _ => None,
    }
}

/// Walk `dir`: its visible data files, and the partition columns their directories name.
fn walk_directory(dir: &Path) -> SparkResult<Listing> {
    let root = dir.display().to_string();
    let mut collector = Collector::new(&root);
    walk(dir, &mut vec![], &mut |file, parts| {
        collector.add(file.to_string_lossy().to_string(), parts)
    })?;
    Ok(collector.finish())
}

/// What a local path of a read names.
pub enum LocalPath {
    /// One file.
    File,
    /// A directory, listed.
    Directory(Listing),
    /// Nothing.
    Missing,
}

/// The file or directory at `path` (absolute); a directory with an interrupted commit as the
/// commit leaves it (an overwrite interrupted between its renames leaves no directory at
/// `path` until it is finished).
pub fn list_path(path: &Path) -> SparkResult<LocalPath> {
    if let Some(view) = super::commit::published(path)? {
        let root = path.display().to_string();
        let mut collector = Collector::new(&root);
        collector.add_published(view.into_iter().filter_map(|(file, now)| {
            let relative = file
                .strip_prefix(path)
                .ok()?
                .components()
                .map(|c| c.as_os_str().to_string_lossy().to_string())
                .collect();
            let text = |p: &Path| p.to_string_lossy().to_string();
            Some((text(&file), text(&now), relative))
        }))?;
        let mut listing = collector.finish();
        listing.unfinished = Some(Unfinished::Local(path.to_path_buf()));
        return Ok(LocalPath::Directory(listing));
    }
    if !path.exists() {
        return Ok(LocalPath::Missing);
    }
    if !path.is_dir() {
        return Ok(LocalPath::File);
    }
    Ok(LocalPath::Directory(walk_directory(path)?))
}

/// What an object path of a read names.
pub enum ObjectPath {
    /// One object.
    Object,
    /// The objects under it, listed as [`list`] lists a directory.
    Directory(Listing),
    /// Nothing.
    Missing,
}

/// The object or objects at `prefix` of `store` (whose URL is `store_url`, `s3a://bucket/`),
/// with an interrupted commit as the commit leaves them; `directory`: the path ends in `/`,
/// so it names no single object.
pub async fn list_object_path(
    store: &dyn object_store::ObjectStore,
    store_url: &str,
    prefix: &object_store::path::Path,
    directory: bool,
) -> SparkResult<ObjectPath> {
    use object_store::ObjectStoreExt as _;
    if let Some(view) = super::object_commit::published(store, prefix).await? {
        let root = format!("{store_url}{prefix}");
        let mut collector = Collector::new(&root);
        collector.add_published(view.into_iter().filter_map(|(object, now)| {
            let relative = object.prefix_match(prefix)?.map(|p| p.as_ref().to_string());
            Some((
                format!("{store_url}{object}"),
                format!("{store_url}{now}"),
                relative.collect(),
            ))
        }))?;
        let mut listing = collector.finish();
        listing.unfinished = Some(Unfinished::Object {
            store_url: store_url.to_string(),
            target: prefix.clone(),
        });
        return Ok(ObjectPath::Directory(listing));
    }
    if !directory && store.head(prefix).await.is_ok() {
        return Ok(ObjectPath::Object);
    }
    let objects = super::object_commit::list_objects(store, prefix).await?;
    if objects.is_empty() {
        return Ok(ObjectPath::Missing);
    }
    Ok(ObjectPath::Directory(list_objects(
        store_url, prefix, &objects,
    )?))
}

/// The objects under `prefix` of the store at `store_url` (`s3a://bucket/`) the way [`list`]
/// lists a directory.
fn list_objects(
    store_url: &str,
    prefix: &object_store::path::Path,
    objects: &[object_store::path::Path],
) -> SparkResult<Listing> {
    let root = format!("{store_url}{prefix}");
    let mut collector = Collector::new(&root);
    for object in objects {
        let Some(relative) = object.prefix_match(prefix) else {
            continue;
        };
        let relative: Vec<String> = relative.map(|p| p.as_ref().to_string()).collect();
        collector.add_relative(format!("{store_url}{object}"), &relative)?;
    }
    Ok(collector.finish())
}

type Parts = Vec<(String, String)>;

fn walk(
    dir: &Path,
    parts: &mut Parts,
    found: &mut dyn FnMut(&Path, &Parts) -> SparkResult<()>,
) -> SparkResult<()> {
    let read = std::fs::read_dir(dir)
        .map_err(|e| SparkError::invalid_plan(format!("cannot list {}: {e}", dir.display())))?;
    let mut entries: Vec<_> = read.filter_map(|e| e.ok()).collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let name = entry.file_name().to_string_lossy().to_string();
        if hidden(&name) {
            continue;
        }
        let path = entry.path();
        if path.is_dir() {
            // Directories that are not `col=value` are walked too, as Spark does for plain
            // nested directories (recursiveFileLookup aside, their files have no partitions).
            match partition_dir(&name) {
                Some(part) => {
                    parts.push(part);
                    walk(&path, parts, found)?;
                    parts.pop();
                }
                None => walk(&path, parts, found)?,
            }
        } else {
            found(&path, parts)?;
        }
    }
    Ok(())
}

/// The Spark type of a partition column (`spark.sql.sources.partitionColumnTypeInference`):
/// int, bigint, double, date, timestamp, else string; NULLs (the default partition) fit all.
pub fn infer_type(values: &[Option<String>], timestamp: &DataType) -> DataType {
    let present: Vec<&str> = values.iter().flatten().map(String::as_str).collect();
    if present.is_empty() {
        return DataType::Utf8;
    }
    let all = |f: &dyn Fn(&str) -> bool| present.iter().all(|v| f(v));
    if all(&|v| v.parse::<i32>().is_ok()) {
        DataType::Int32
    } else if all(&|v| v.parse::<i64>().is_ok()) {
        DataType::Int64
    } else if all(&|v| v.parse::<f64>().is_ok() && !v.contains(|c: char| c.is_ascii_alphabetic())) {
        DataType::Float64
    } else if all(&|v| NaiveDate::parse_from_str(v, "%Y-%m-%d").is_ok()) {
        DataType::Date32
    } else if all(&|v| {
        NaiveDateTime::parse_from_str(v, "%Y-%m-%d %H:%M:%S%.f").is_ok()
            || NaiveDateTime::parse_from_str(v, "%Y-%m-%d %H:%M:%S").is_ok()
    }) {
        timestamp.clone()
    } else {
        DataType::Utf8
    }
}

/// A scan's file at `location` (an object store path, as is: `PartitionedFile::new` would parse
/// the text again and escape a `%` of a file name twice, so a table whose partition
/// directories have escaped names, `name_trunc=%CF%89m`, would not find its files).
pub fn partitioned_file(
    location: object_store::path::Path,
    size: u64,
) -> datafusion::datasource::listing::PartitionedFile {
    let mut file = datafusion::datasource::listing::PartitionedFile::new(String::new(), size);
    file.object_meta.location = location;
    file
}

#[cfg(test)]
mod tests {
    use super::*;

    fn some(v: &[&str]) -> Vec<Option<String>> {
        v.iter().map(|s| Some(s.to_string())).collect()
    }

    #[tokio::test]
    async fn a_listing_shows_an_interrupted_overwrite_and_changes_nothing() {
        let root =
            std::env::temp_dir().join(format!("ember-listing-{}", uuid::Uuid::new_v4().simple()));
        let target = root.join("t");
        std::fs::create_dir_all(target.join("k=1")).unwrap();
        std::fs::write(target.join("k=1").join("old.csv"), "old").unwrap();
        // Crashed between an overwrite's renames: the old data moved away, the new not yet
        // in place; nothing at the target.
        super::super::commit::tests::interrupted_overwrite(&target, &["k=2/new.csv"]);
        assert!(!target.exists());
        let LocalPath::Directory(listing) = list_path(&target).unwrap() else {
            panic!("the published view was not listed");
        };
        assert!(!target.exists(), "the listing finished the commit");
        let new = target.join("k=2/new.csv").display().to_string();
        assert_eq!(listing.files, std::slice::from_ref(&new));
        assert_eq!(
            listing.partitions,
            [("k".to_string(), vec![Some("2".to_string())])]
        );
        let now = &listing.moved[&new];
        assert!(now.contains(".ember-staging-") && now.ends_with("/out/k=2/new.csv"));
        assert_eq!(listing.unfinished, Some(Unfinished::Local(target.clone())));
        // Where the read executes.
        let runtime = datafusion::execution::runtime_env::RuntimeEnv::default();
        finish(listing.unfinished.as_ref().unwrap(), &runtime)
            .await
            .unwrap();
        assert_eq!(std::fs::read_to_string(&new).unwrap(), "k=2/new.csv");
        let LocalPath::Directory(listing) = list_path(&target).unwrap() else {
            panic!("the directory is gone");
        };
        assert_eq!((listing.files, listing.unfinished), (vec![new], None));
        assert!(matches!(
            list_path(&root.join("missing")).unwrap(),
            LocalPath::Missing
        ));
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn partition_types_follow_spark_inference() {
        let ts = DataType::Utf8View;
        assert_eq!(infer_type(&some(&["1", "01", "-3"]), &ts), DataType::Int32);
        assert_eq!(
            infer_type(&some(&["1", "3000000000"]), &ts),
            DataType::Int64
        );
        assert_eq!(infer_type(&some(&["1", "1.5"]), &ts), DataType::Float64);
        assert_eq!(infer_type(&some(&["2020-01-01"]), &ts), DataType::Date32);
        assert_eq!(infer_type(&some(&["2020-01-01 10:00:00"]), &ts), ts);
        assert_eq!(infer_type(&some(&["true", "false"]), &ts), DataType::Utf8);
        assert_eq!(infer_type(&some(&["NaN"]), &ts), DataType::Utf8);
        assert_eq!(infer_type(&[None], &ts), DataType::Utf8);
        let mut mixed = some(&["7"]);
        mixed.push(None);
        assert_eq!(infer_type(&mixed, &ts), DataType::Int32);
    }
}
