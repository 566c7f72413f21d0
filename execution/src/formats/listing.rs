//! What a directory of data files holds, the way Spark sees it: data files (names starting with
//! `_` or `.` are hidden: `_SUCCESS`, checksums, staging directories), Hive-style partition
//! directories `col=value` and the Spark types of their values.
//!
//! Listing is the read side of the commit protocol: a directory whose last write was
//! interrupted after its commit was published is first rolled forward ([`super::commit`],
//! [`super::object_commit`]), so a read sees the previous contents or the new ones, whole. It
//! is the only place a read changes the file system, and the planner reaches it only through
//! [`list_path`] and [`list_object_path`].

use std::path::Path;

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

/// The file or directory at `path` (absolute), an interrupted commit to it finished first (an
/// overwrite interrupted between its renames leaves no directory at `path` until then).
pub fn list_path(path: &Path) -> SparkResult<LocalPath> {
    super::commit::recover(path)?;
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
/// an interrupted commit to it finished first; `directory`: the path ends in `/`, so it names
/// no single object.
pub async fn list_object_path(
    store: &dyn object_store::ObjectStore,
    store_url: &str,
    prefix: &object_store::path::Path,
    directory: bool,
) -> SparkResult<ObjectPath> {
    use object_store::ObjectStoreExt as _;
    super::object_commit::recover(store, prefix).await?;
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
        let Some((_, dirs)) = relative.split_last() else {
            continue;
        };
        if relative.iter().any(|p| hidden(p)) {
            continue;
        }
        let parts: Parts = dirs.iter().filter_map(|d| partition_dir(d)).collect();
        collector.add(format!("{store_url}{object}"), &parts)?;
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

#[cfg(test)]
mod tests {
    use super::*;

    fn some(v: &[&str]) -> Vec<Option<String>> {
        v.iter().map(|s| Some(s.to_string())).collect()
    }

    #[test]
    fn a_listing_rolls_an_interrupted_overwrite_forward() {
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
            panic!("the directory was not rolled forward");
        };
        assert_eq!(
            listing.files,
            [target.join("k=2/new.csv").display().to_string()]
        );
        assert_eq!(
            listing.partitions,
            [("k".to_string(), vec![Some("2".to_string())])]
        );
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
