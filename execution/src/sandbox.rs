//! `ember server --allowed-paths`: the directories and object store prefixes reads and
//! writes may reach (default: anywhere, as Spark).
//!
//! A local path is made absolute and resolved component by component: what exists through
//! symbolic links (`canonicalize`), `..` after what does not exist yet lexically. The result must lie under one of the allowed directories (themselves
//! resolved). So `allowed/../etc`, and a link inside an allowed directory that points out of
//! it, are outside. An object URL (`s3a://bucket/key`) must start with an allowed prefix of
//! the same bucket (`s3://` and `s3a://` alike) and hold no `..` segment.

use std::path::{Component, Path, PathBuf};
use std::sync::OnceLock;

use crate::spark_error::{ErrorKind, SparkError, SparkResult};

/// The allowed roots, when restricted.
static ALLOWED: OnceLock<Vec<Root>> = OnceLock::new();

#[derive(Debug)]
enum Root {
    Local(PathBuf),
    /// `bucket/prefix/` of an object store URL (the scheme left out).
    Object(String),
}

/// Restrict reads and writes to `paths` (once, at start).
pub fn allow_only(paths: &[String]) -> Result<(), String> {
    let mut roots = Vec::new();
    for p in paths.iter().map(|p| p.trim()).filter(|p| !p.is_empty()) {
        if let Some(rest) = object_part(p) {
            let mut prefix = rest.to_string();
            if !prefix.ends_with('/') {
                prefix.push('/');
            }
            roots.push(Root::Object(prefix));
        } else {
            let resolved = resolve(Path::new(local_part(p)))
                .map_err(|e| format!("bad --allowed-paths entry {p}: {e}"))?;
            roots.push(Root::Local(resolved));
        }
    }
    ALLOWED
        .set(roots)
        .map_err(|_| "the allowed paths are already set".to_string())
}

/// Whether reads and writes are restricted.
pub fn restricted() -> bool {
    ALLOWED.get().is_some()
}

/// Whether `path` (a local path, `file:` URL or object URL) may be read or written.
pub fn allowed(path: &str) -> bool {
    let Some(roots) = ALLOWED.get() else {
        return true;
    };
    if let Some(rest) = object_part(path) {
        if rest.split('/').any(|s| s == ".." || s == ".") {
            return false;
        }
        let with_slash = format!("{}/", rest.trim_end_matches('/'));
        return roots
            .iter()
            .any(|r| matches!(r, Root::Object(prefix) if with_slash.starts_with(prefix.as_str())));
    }
    let Ok(resolved) = resolve(Path::new(local_part(path))) else {
        return false;
    };
    roots
        .iter()
        .any(|r| matches!(r, Root::Local(root) if resolved.starts_with(root)))
}

/// The message of a refused path.
pub fn refusal(path: &str) -> String {
    format!(
        "Insufficient privileges: the path {path} is outside the directories this server may \
         read and write (ember server --allowed-paths)."
    )
}

/// A read or write outside `--allowed-paths`, with Spark's class for a denied permission.
pub fn not_allowed(path: &str) -> SparkError {
    SparkError::new(
        ErrorKind::Analysis,
        "INSUFFICIENT_PERMISSIONS",
        "42501",
        refusal(path),
        vec![("report", refusal(path))],
    )
}

/// Refuse `path` when it is outside `--allowed-paths`.
pub fn check(path: &str) -> SparkResult<()> {
    if allowed(path) {
        Ok(())
    } else {
        Err(not_allowed(path))
    }
}

/// `bucket/key` of an object URL, `None` for local paths.
fn object_part(path: &str) -> Option<&str> {
    let (scheme, rest) = path.split_once("://")?;
    (!scheme.eq_ignore_ascii_case("file")).then_some(rest)
}

fn local_part(path: &str) -> &str {
    path.strip_prefix("file://")
        .or_else(|| path.strip_prefix("file:"))
        .unwrap_or(path)
}

/// `path` made absolute, each component that exists resolved through links (as the kernel
/// would), `..` after a missing one taken lexically. A dangling link is an error.
fn resolve(path: &Path) -> std::io::Result<PathBuf> {
    let absolute = std::path::absolute(path)?;
    let mut resolved = PathBuf::new();
    for component in absolute.components() {
        match component {
            Component::Prefix(_) | Component::RootDir => resolved.push(component.as_os_str()),
            Component::CurDir => {}
            Component::ParentDir => {
                resolved.pop();
            }
            Component::Normal(name) => {
                resolved.push(name);
                if resolved.symlink_metadata().is_ok() {
                    resolved = resolved.canonicalize()?;
                }
            }
        }
    }
    Ok(resolved)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dot_dot_and_links_are_resolved() {
        let base = std::env::temp_dir().join(format!("ember-sandbox-{}", std::process::id()));
        let inside = base.join("inside");
        let outside = base.join("outside");
        std::fs::create_dir_all(&inside).unwrap_or_default();
        std::fs::create_dir_all(&outside).unwrap_or_default();
        #[cfg(unix)]
        let _ = std::os::unix::fs::symlink(&outside, inside.join("link"));
        let root = resolve(&inside).unwrap_or_default();
        let under = |p: PathBuf| resolve(&p).map(|r| r.starts_with(&root)).unwrap_or(false);
        assert!(under(inside.join("new/dir/file")));
        assert!(under(inside.join("new/../other")));
        assert!(!under(inside.join("../outside")));
        assert!(!under(inside.join("new/../../outside")));
        #[cfg(unix)]
        assert!(!under(inside.join("link/file")));
        let _ = std::fs::remove_dir_all(&base);
    }
}
