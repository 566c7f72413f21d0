//! The process's memory budget: ONE DataFusion memory pool and ONE disk manager shared by
//! every session, query and task of this process (`--memory-limit`, `--spill-dir`).
//!
//! The pool is a [`FairSpillPool`] (queries running at once share it fairly; sorts,
//! aggregations and sort-merge joins spill to disk when it refuses them) wrapped in a
//! [`TrackConsumersPool`] so that a refusal names the largest consumers. Spill files go to a
//! per-process directory under the spill root, emptied at start and removed at exit; leftovers
//! of processes that died are removed at start too. Every [`RuntimeEnv`] the process builds
//! (`crate::formats::storage::runtime_env`) takes the pool and disk manager from here, so in-process
//! workers share the server's budget.
//!
//! [`RuntimeEnv`]: datafusion::execution::runtime_env::RuntimeEnv

pub mod joins;

pub use joins::SpillableJoins;

use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use datafusion::common::DataFusionError;
use datafusion::execution::disk_manager::{DiskManager, DiskManagerBuilder, DiskManagerMode};
use datafusion::execution::memory_pool::{FairSpillPool, MemoryPool, TrackConsumersPool};

/// Share of the machine's memory the pool gets when `--memory-limit` is not given.
const DEFAULT_FRACTION: f64 = 0.6;
/// The pool's size when the machine's memory cannot be read.
const FALLBACK_LIMIT: usize = 4 << 30;
/// Consumers named in a refusal.
const TOP_CONSUMERS: usize = 5;
/// Spill files one merge pass of a sort reads at once (each holds a batch in memory); more
/// are merged in several passes. Unbounded, a sort that spilled 24 times held 8 MiB to merge.
const MERGE_FAN_IN: usize = 4;
/// Prefix of the per-process spill directories.
const DIR_PREFIX: &str = "ember-";

/// The process's memory pool, disk manager and their settings.
pub struct MemoryBudget {
    limit: usize,
    spill_dir: PathBuf,
    pool: Arc<dyn MemoryPool>,
    disk: Arc<DiskManager>,
}

impl std::fmt::Debug for MemoryBudget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemoryBudget")
            .field("limit", &self.limit)
            .field("spill_dir", &self.spill_dir)
            .finish()
    }
}

static BUDGET: OnceLock<MemoryBudget> = OnceLock::new();

impl MemoryBudget {
    /// A budget of `limit` bytes (default: a share of the machine's memory) spilling under
    /// `spill_root` (default: the system temp dir's `ember-spill`), in a directory of this
    /// process named after `role` and the process id.
    pub fn new(
        limit: Option<usize>,
        spill_root: Option<PathBuf>,
        role: &str,
    ) -> Result<Self, String> {
        let limit = limit.unwrap_or_else(default_limit).max(1 << 20);
        let root = spill_root.unwrap_or_else(|| std::env::temp_dir().join("ember-spill"));
        std::fs::create_dir_all(&root)
            .map_err(|e| format!("cannot create the spill directory {}: {e}", root.display()))?;
        remove_stale(&root);
        let spill_dir = root.join(format!("{DIR_PREFIX}{role}-{}", std::process::id()));
        if spill_dir.exists() {
            let _ = std::fs::remove_dir_all(&spill_dir);
        }
        std::fs::create_dir_all(&spill_dir).map_err(|e| {
            format!(
                "cannot create the spill directory {}: {e}",
                spill_dir.display()
            )
        })?;
        let disk = DiskManagerBuilder::default()
            .with_mode(DiskManagerMode::Directories(vec![spill_dir.clone()]))
            .with_max_spill_merge_fan_in(MERGE_FAN_IN)
            .build()
            .map_err(|e| format!("cannot use the spill directory: {e}"))?;
        let top = NonZeroUsize::new(TOP_CONSUMERS).unwrap_or(NonZeroUsize::MIN);
        let pool: Arc<dyn MemoryPool> =
            Arc::new(TrackConsumersPool::new(FairSpillPool::new(limit), top));
        Ok(Self {
            limit,
            spill_dir,
            pool,
            disk: Arc::new(disk),
        })
    }

    /// Make this the process's budget (once; later calls keep the first).
    pub fn install(self) -> &'static MemoryBudget {
        BUDGET.get_or_init(|| self)
    }

    pub fn limit(&self) -> usize {
        self.limit
    }

    /// This process's spill directory.
    pub fn spill_dir(&self) -> &Path {
        &self.spill_dir
    }

    pub fn pool(&self) -> &Arc<dyn MemoryPool> {
        &self.pool
    }

    pub fn disk_manager(&self) -> &Arc<DiskManager> {
        &self.disk
    }

    /// Remove the spill directory (at exit).
    pub fn cleanup(&self) {
        let _ = std::fs::remove_dir_all(&self.spill_dir);
    }

    /// Remove the spill directory of another process under the same root (a worker this
    /// process started and killed, which could not clean up itself).
    pub fn cleanup_other(&self, role: &str, pid: u32) {
        if let Some(root) = self.spill_dir.parent() {
            let _ = std::fs::remove_dir_all(root.join(format!("{DIR_PREFIX}{role}-{pid}")));
        }
    }
}

/// Fit DataFusion's per-operator memory settings to the budget: each partition of a sort
/// sets aside memory to merge its spill files (10 MiB by default, far too much for several
/// partitions and sorts under a small limit).
pub fn configure(config: &mut datafusion::prelude::SessionConfig) {
    let Some(budget) = installed() else { return };
    let partitions = config.target_partitions().max(1);
    let share = budget.limit() / partitions / SORT_SHARE;
    let execution = &mut config.options_mut().execution;
    execution.sort_spill_reservation_bytes = execution
        .sort_spill_reservation_bytes
        .min(share.max(MIN_SORT_RESERVATION));
    execution.sort_in_place_threshold_bytes = execution
        .sort_in_place_threshold_bytes
        .min(share.max(MIN_SORT_RESERVATION));
    // A collected (broadcast) join side cannot spill: at most a small share of the budget.
    let optimizer = &mut config.options_mut().optimizer;
    optimizer.hash_join_single_partition_threshold = optimizer
        .hash_join_single_partition_threshold
        .min(budget.limit() / BROADCAST_SHARE);
}

/// A join side is collected only when its estimate is below this share of the budget.
const BROADCAST_SHARE: usize = 16;

/// A partition's sort merges its spill files in at most this share of its part of the budget.
const SORT_SHARE: usize = 16;
const MIN_SORT_RESERVATION: usize = 256 << 10;

/// The process's budget, if one was installed (tests and tools run without).
pub fn installed() -> Option<&'static MemoryBudget> {
    BUDGET.get()
}

/// A share of the machine's memory (or of the cgroup's limit, if lower).
pub fn default_limit() -> usize {
    match machine_memory() {
        Some(total) => (total as f64 * DEFAULT_FRACTION) as usize,
        None => FALLBACK_LIMIT,
    }
}

fn machine_memory() -> Option<usize> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok()?;
    let total_kib: usize = meminfo
        .lines()
        .find_map(|l| l.strip_prefix("MemTotal:"))?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    let total = total_kib.checked_mul(1024)?;
    let cgroup = std::fs::read_to_string("/sys/fs/cgroup/memory.max")
        .ok()
        .and_then(|s| s.trim().parse::<usize>().ok());
    Some(cgroup.map_or(total, |c| c.min(total)))
}

/// Remove spill directories of processes that no longer run (Linux: no `/proc/<pid>`).
fn remove_stale(root: &Path) {
    let proc = Path::new("/proc");
    if !proc.join("self").exists() {
        return;
    }
    let Ok(entries) = std::fs::read_dir(root) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        let Some(pid) = name
            .strip_prefix(DIR_PREFIX)
            .and_then(|rest| rest.rsplit('-').next())
            .and_then(|pid| pid.parse::<u32>().ok())
        else {
            continue;
        };
        if !proc.join(pid.to_string()).exists() {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// Parse a size: bytes, or a number with a binary unit as Spark writes them (`512m`, `4g`,
/// `1.5g`, `256MiB`, `2GB`, `100k`, `1t`).
pub fn parse_size(text: &str) -> Result<usize, String> {
    let s = text.trim().to_ascii_lowercase();
    let split = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(s.len());
    let (number, unit) = s.split_at(split);
    let number: f64 = number
        .parse()
        .map_err(|_| format!("bad size {text:?}: expected e.g. 512m or 4g"))?;
    let shift = match unit.trim() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        "t" | "tb" | "tib" => 40,
        _ => return Err(format!("bad size {text:?}: unknown unit {unit:?}")),
    };
    let bytes = number * (1u64 << shift) as f64;
    if !bytes.is_finite() || bytes < 1.0 || bytes > usize::MAX as f64 {
        return Err(format!("bad size {text:?}"));
    }
    Ok(bytes as usize)
}

/// A size as people read it: `256 MiB`, `1.5 GiB`.
pub fn format_size(bytes: usize) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if (value - value.round()).abs() < 0.05 {
        format!("{} {}", value.round() as u64, UNITS[unit])
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

/// The message of a query the budget refused: names the limit, then DataFusion's detail
/// (which consumers held the memory). `None` when `error` is not a refusal of the pool.
pub fn exhausted_message(error: &DataFusionError) -> Option<String> {
    let detail = find_exhausted(error)?;
    if detail.contains("--memory-limit") {
        return Some(detail);
    }
    let limit = match installed() {
        Some(budget) => format!("--memory-limit {}", format_size(budget.limit())),
        None => "the memory limit".to_string(),
    };
    Some(format!(
        "The query needs more memory than {limit} allows (after spilling what can spill to \
         disk). Raise --memory-limit or run fewer queries at once. Detail: {detail}"
    ))
}

fn find_exhausted(error: &DataFusionError) -> Option<String> {
    match error {
        DataFusionError::ResourcesExhausted(detail) => Some(detail.clone()),
        DataFusionError::Context(_, inner) | DataFusionError::Diagnostic(_, inner) => {
            find_exhausted(inner)
        }
        DataFusionError::Shared(inner) => find_exhausted(inner),
        DataFusionError::External(inner) => inner
            .downcast_ref::<DataFusionError>()
            .and_then(find_exhausted),
        DataFusionError::Collection(errors) => errors.iter().find_map(find_exhausted),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::execution::memory_pool::MemoryConsumer;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("512m"), Ok(512 << 20));
        assert_eq!(parse_size("4g"), Ok(4 << 30));
        assert_eq!(parse_size("4G"), Ok(4 << 30));
        assert_eq!(parse_size("1.5g"), Ok(3 << 29));
        assert_eq!(parse_size("256MiB"), Ok(256 << 20));
        assert_eq!(parse_size("2GB"), Ok(2 << 30));
        assert_eq!(parse_size("100k"), Ok(100 << 10));
        assert_eq!(parse_size("1048576"), Ok(1 << 20));
        assert!(parse_size("").is_err());
        assert!(parse_size("g").is_err());
        assert!(parse_size("4x").is_err());
        assert!(parse_size("0").is_err());
        assert_eq!(format_size(256 << 20), "256 MiB");
        assert_eq!(format_size(3 << 29), "1.5 GiB");
        assert!(default_limit() >= 1 << 20);
    }

    #[test]
    fn pool_refuses_past_the_limit_and_names_it() {
        let root = std::env::temp_dir().join(format!("ember-memory-test-{}", std::process::id()));
        let budget = MemoryBudget::new(Some(4 << 20), Some(root.clone()), "test")
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(budget.spill_dir().starts_with(&root));
        assert!(budget.spill_dir().is_dir());
        let a = MemoryConsumer::new("a").register(budget.pool());
        assert!(a.try_grow(3 << 20).is_ok());
        let b = MemoryConsumer::new("b").register(budget.pool());
        let refused = b
            .try_grow(2 << 20)
            .err()
            .unwrap_or_else(|| panic!("not refused"));
        let message = exhausted_message(&DataFusionError::Context(
            "sorting".into(),
            Box::new(refused),
        ))
        .unwrap_or_else(|| panic!("not a refusal"));
        assert!(message.contains("memory"), "{message}");
        assert!(message.contains("a#"), "top consumers named: {message}");
        a.free();
        assert!(b.try_grow(2 << 20).is_ok());
        // Spill files go to the process's directory, and leave with their handles.
        let file = budget
            .disk_manager()
            .create_tmp_file("test")
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(
            file.path()
                .is_some_and(|p| p.starts_with(budget.spill_dir()))
        );
        drop(file);
        budget.cleanup();
        assert!(!budget.spill_dir().exists());
        let _ = std::fs::remove_dir_all(root);
    }
}
