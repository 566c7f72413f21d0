//! The latest snapshots of local Delta tables, kept between queries.
//!
//! Loading a table's latest version lists its log, reads its commits (or checkpoint) and
//! replays them, about 1.5 ms for a one-commit table here, spent mostly waiting on file reads
//! handed between threads; a query that names a table twice, or a session that queries a view
//! of it again, loaded it again. A kept snapshot is used while the log's newest commit file is
//! the one it was loaded at (same version, modification time and size: a table deleted and
//! written again at the same path is a new table), which one listing of `_delta_log` checks.
//! Tables in buckets are not kept (their stores come from each session's credentials, and a
//! listing there costs what a load costs).

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use deltalake_core::DeltaTable;
use parking_lot::Mutex;

/// The most snapshots kept (least recently used go first).
const KEPT: usize = 32;

/// What identifies a table's latest version: its newest commit file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Stamp {
    version: u64,
    modified: SystemTime,
    len: u64,
}

struct Kept {
    root: PathBuf,
    stamp: Stamp,
    table: DeltaTable,
    used: u64,
}

static KEPT_TABLES: Mutex<(u64, Vec<Kept>)> = Mutex::new((0, Vec::new()));

/// The newest commit of the log under `root` (`None`: no readable commit file).
pub(super) fn stamp(root: &Path) -> Option<Stamp> {
    let log = root.join("_delta_log");
    let mut newest: Option<u64> = None;
    for entry in std::fs::read_dir(&log).ok()?.flatten() {
        let name = entry.file_name();
        let Some(version) = name.to_str().and_then(commit_version) else {
            continue;
        };
        newest = newest.max(Some(version));
    }
    let version = newest?;
    let meta = std::fs::metadata(log.join(format!("{version:020}.json"))).ok()?;
    Some(Stamp {
        version,
        modified: meta.modified().ok()?,
        len: meta.len(),
    })
}

/// The version of a commit file's name (`00000000000000000012.json`).
fn commit_version(name: &str) -> Option<u64> {
    let digits = name.strip_suffix(".json")?;
    if digits.len() != 20 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// The kept snapshot of the table under `root`, if it is still the latest (`now`).
pub(super) fn lookup(root: &Path, now: &Stamp) -> Option<DeltaTable> {
    let mut kept = KEPT_TABLES.lock();
    let (clock, tables) = &mut *kept;
    let found = tables.iter_mut().find(|k| k.root == root)?;
    if &found.stamp != now {
        return None;
    }
    *clock += 1;
    found.used = *clock;
    Some(found.table.clone())
}

/// Keep `table`, loaded when the log's newest commit was `before`, if it is that version.
pub(super) fn keep(root: &Path, before: Stamp, table: &DeltaTable) {
    if table.version() != Some(before.version) {
        return;
    }
    let mut kept = KEPT_TABLES.lock();
    let (clock, tables) = &mut *kept;
    *clock += 1;
    tables.retain(|k| k.root != root);
    if tables.len() >= KEPT
        && let Some(oldest) = tables
            .iter()
            .enumerate()
            .min_by_key(|(_, k)| k.used)
            .map(|(i, _)| i)
    {
        tables.swap_remove(oldest);
    }
    tables.push(Kept {
        root: root.to_path_buf(),
        stamp: before,
        table: table.clone(),
        used: *clock,
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commit_files_give_their_versions_and_nothing_else_does() {
        assert_eq!(commit_version("00000000000000000012.json"), Some(12));
        assert_eq!(
            commit_version("00000000000000000012.checkpoint.parquet"),
            None
        );
        assert_eq!(
            commit_version("00000000000000000012.00000000000000000014.compacted.json"),
            None
        );
        assert_eq!(commit_version("_last_checkpoint"), None);
        assert_eq!(commit_version("0012.json"), None);
    }

    #[test]
    fn the_stamp_is_the_newest_commit_file() -> std::io::Result<()> {
        let dir = std::env::temp_dir().join(format!("ember-delta-stamp-{}", std::process::id()));
        let log = dir.join("_delta_log");
        std::fs::create_dir_all(&log)?;
        assert_eq!(stamp(&dir), None);
        std::fs::write(log.join("00000000000000000000.json"), "{}")?;
        std::fs::write(log.join("00000000000000000001.json"), "{}\n{}")?;
        std::fs::write(log.join("00000000000000000001.checkpoint.parquet"), "x")?;
        let first = stamp(&dir);
        assert_eq!(first.as_ref().map(|s| (s.version, s.len)), Some((1, 5)));
        // Written again at the same version (a table replaced by a new one): another stamp.
        std::fs::write(log.join("00000000000000000001.json"), "{}\n{}\n")?;
        assert_ne!(stamp(&dir), first);
        std::fs::remove_dir_all(&dir)?;
        Ok(())
    }
}
