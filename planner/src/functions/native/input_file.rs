//! `input_file_name()`, `input_file_block_start()`, `input_file_block_length()`: the file a
//! row was read from. The resolver replaces each call by what its input gives
//! (`resolver::input_file`): literals where no file is being read, else DataFusion's
//! `input_file_name()`, which the file scan that reads the row turns into the file's location
//! (its object store path), and the functions here, which spell that location as Spark does.

use std::sync::Arc;

use arrow::array::{Array, ArrayRef, Int64Array, StringArray};
use datafusion::common::{Result, exec_err};
use percent_encoding::{AsciiSet, CONTROLS, percent_decode_str, utf8_percent_encode};
use serde::{Deserialize, Serialize};

/// Which of the three functions a call is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InputFileField {
    Name,
    BlockStart,
    BlockLength,
}

impl InputFileField {
    pub fn of(name: &str) -> Option<Self> {
        match name {
            "input_file_name" => Some(Self::Name),
            "input_file_block_start" => Some(Self::BlockStart),
            "input_file_block_length" => Some(Self::BlockLength),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::Name => "input_file_name",
            Self::BlockStart => "input_file_block_start",
            Self::BlockLength => "input_file_block_length",
        }
    }
}

/// What `java.net.URI` quotes in a path (Hadoop's `Path.toUri`, which Spark's file names
/// come from): ASCII controls, the space and the characters a URI reserves elsewhere;
/// letters beyond ASCII stay as they are.
const URI_PATH: &AsciiSet = &CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'#')
    .add(b'%')
    .add(b'<')
    .add(b'>')
    .add(b'?')
    .add(b'[')
    .add(b'\\')
    .add(b']')
    .add(b'^')
    .add(b'`')
    .add(b'{')
    .add(b'|')
    .add(b'}');

/// The object store location of a file (`tmp/a b/part-0.parquet`, percent-encoded where the
/// object store encodes) as the URI Spark names it: `prefix` (the store's URL, `file:///` for
/// local files) then the path, quoted as `java.net.URI` quotes.
fn uri(prefix: &str, location: &str) -> String {
    if prefix == LOCAL
        && let Some(path) = local_path(location)
    {
        let path = path.to_string_lossy();
        return format!("file://{}", quote(&path));
    }
    let decoded = percent_decode_str(location).decode_utf8_lossy();
    format!("{prefix}{}", quote(&decoded))
}

/// `path` with the ASCII characters of [`URI_PATH`] quoted (`java.net.URI` keeps the letters
/// beyond ASCII in its string form).
fn quote(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    let mut buf = [0u8; 4];
    for c in path.chars() {
        let text: &str = c.encode_utf8(&mut buf);
        if c.is_ascii() {
            out.extend(utf8_percent_encode(text, URI_PATH));
        } else {
            out.push_str(text);
        }
    }
    out
}

/// The URL of the local file system's store.
pub const LOCAL: &str = "file:///";

/// The local file at an object store location, as the local store maps it.
fn local_path(location: &str) -> Option<std::path::PathBuf> {
    let location = object_store::path::Path::parse(location).ok()?;
    object_store::local::LocalFileSystem::new()
        .path_to_filesystem(&location)
        .ok()
}

/// `input_file_name()` of the locations in `args[0]`.
pub(super) fn file_uri(args: &[ArrayRef], prefix: &str) -> Result<ArrayRef> {
    let locations = locations(args)?;
    let out: StringArray = locations
        .iter()
        .map(|l| l.map(|l| uri(prefix, l)))
        .collect();
    Ok(Arc::new(out))
}

/// `input_file_block_length()` of the local files in `args[0]`: the file's length (Ember's
/// blocks are whole files).
pub(super) fn local_file_size(args: &[ArrayRef]) -> Result<ArrayRef> {
    let locations = locations(args)?;
    let mut last: Option<(&str, i64)> = None;
    let mut out = Vec::with_capacity(locations.len());
    for location in locations.iter() {
        let Some(location) = location else {
            out.push(None);
            continue;
        };
        let size = match last {
            Some((l, size)) if l == location => size,
            _ => {
                let size = local_path(location)
                    .and_then(|path| std::fs::metadata(path).ok())
                    .map(|m| i64::try_from(m.len()).unwrap_or(i64::MAX));
                let Some(size) = size else {
                    return exec_err!("input_file_block_length(): no local file at {location}");
                };
                last = Some((location, size));
                size
            }
        };
        out.push(Some(size));
    }
    Ok(Arc::new(Int64Array::from(out)))
}

fn locations(args: &[ArrayRef]) -> Result<&StringArray> {
    match args
        .first()
        .and_then(|a| a.as_any().downcast_ref::<StringArray>())
    {
        Some(a) => Ok(a),
        None => exec_err!("input file functions take the file's location"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_quote_as_java() {
        assert_eq!(
            uri("file:///", "tmp/a b/part-0.parquet"),
            "file:///tmp/a%20b/part-0.parquet"
        );
        // A local location names the file as the local store does (a directory `x%2Fy`, as
        // Spark writes a partition value `x/y`); its `%` is quoted.
        assert_eq!(uri("file:///", "tmp/k=x%2Fy/f"), "file:///tmp/k=x%252Fy/f");
        // Other stores' keys are decoded first.
        assert_eq!(uri("s3a://b/", "x%25y/f"), "s3a://b/x%25y/f");
        assert_eq!(uri("s3a://b/", "d/é,;=@+.csv"), "s3a://b/d/é,;=@+.csv");
    }
}
