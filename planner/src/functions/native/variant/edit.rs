//! Spark 4.3's variant edits: `variant_insert`, `variant_set`, `variant_array_append`,
//! `variant_delete` (and the `try_` forms) at a path, and `variant_strip_nulls`.
//!
//! As Spark, an edit rebuilds the whole value: the fields of each object in their stored
//! (key) order, a new field after the existing ones, so that the dictionary lists keys in the
//! order written. Missing objects and arrays on the way are created (arrays padded with
//! NULLs) where the edit creates; a step that meets a value of another kind is
//! VARIANT_PATH_TYPE_MISMATCH, which the `try_` forms answer with NULL.

use arrow::array::{Array, ArrayRef, AsArray};
use arrow::datatypes::DataType;
use datafusion::common::{Result, internal_err};
use parquet_variant::Variant;
use serde::{Deserialize, Serialize};

use super::builder::{Builder, FieldEntry};
use super::read::{Step, parse_path};
use super::{VariantColumn, Variants, malformed_variant};
use crate::error::{ErrorKind, SparkError, to_datafusion};

/// Spark's limit of a variant's size.
const SIZE_LIMIT: usize = 128 * 1024 * 1024;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EditKind {
    /// A new object field (an existing one is VARIANT_DUPLICATE_KEY) or array element.
    Insert,
    /// An existing field or element replaced; a missing one created if `create`.
    Set { create: bool },
    /// A value appended to the array at the path (a missing path leaves the value as it is).
    Append,
    /// The field or element at the path removed (nothing where it is missing).
    Delete,
}

/// Why an edit could not be made.
pub(super) enum EditError {
    /// The value at this path prefix is of the wrong kind.
    Mismatch(String),
    Duplicate(String),
    TooLarge,
}

impl EditError {
    /// Whether a `try_` form answers NULL for it.
    pub(super) fn tolerated(&self) -> bool {
        !matches!(self, EditError::TooLarge)
    }

    pub(super) fn spark(self, path: &str, function: &str) -> SparkError {
        match self {
            EditError::Mismatch(at) => SparkError::new(
                ErrorKind::Runtime,
                "VARIANT_PATH_TYPE_MISMATCH",
                "22023",
                format!(
                    "The path '{path}' is incompatible with the variant value at '{at}' in `{function}`."
                ),
                vec![
                    ("path", path.to_string()),
                    ("failedAt", at),
                    ("functionName", format!("`{function}`")),
                ],
            ),
            EditError::Duplicate(key) => SparkError::new(
                ErrorKind::Runtime,
                "VARIANT_DUPLICATE_KEY",
                "22023",
                format!("Failed to build variant because of a duplicate object key `{key}`."),
                vec![("key", key)],
            ),
            EditError::TooLarge => size_limit(function),
        }
    }
}

pub(super) fn size_limit(function: &str) -> SparkError {
    SparkError::new(
        ErrorKind::Runtime,
        "VARIANT_SIZE_LIMIT",
        "22023",
        format!("Cannot build variant bigger than 128.0 MiB in `{function}`."),
        vec![
            ("sizeLimit", "128.0 MiB".to_string()),
            ("functionName", format!("`{function}`")),
        ],
    )
}

pub(super) fn invalid_target(path: &str, function: &str) -> SparkError {
    SparkError::new(
        ErrorKind::Runtime,
        "INVALID_VARIANT_PATH",
        "22023",
        format!("The path '{path}' is not a valid `{function}` target."),
        vec![
            ("path", path.to_string()),
            ("functionName", format!("`{function}`")),
        ],
    )
}

/// The steps of an edit's path: a valid path with indexes within an int; the root only for
/// appends.
pub(super) fn edit_path(path: &str, kind: EditKind) -> Option<Vec<Step>> {
    let steps = parse_path(path)?;
    let small = steps.iter().all(|s| match s {
        Step::Index(i) => i32::try_from(*i).is_ok(),
        Step::Key(_) => true,
    });
    (small && (kind == EditKind::Append || !steps.is_empty())).then_some(steps)
}

/// `$` and the steps before `depth`, as Spark shows where a path failed.
fn prefix(steps: &[Step], depth: usize) -> String {
    let mut out = String::from("$");
    for s in &steps[..depth] {
        match s {
            Step::Key(k) => {
                out.push('.');
                out.push_str(k);
            }
            Step::Index(i) => out.push_str(&format!("[{i}]")),
        }
    }
    out
}

/// The paths of argument `i` as text (none for a missing argument).
fn texts(arrays: &[ArrayRef], i: usize) -> Result<Option<ArrayRef>> {
    arrays
        .get(i)
        .map(|p| Ok(arrow::compute::cast(p, &DataType::Utf8)?))
        .transpose()
}

/// Row by row: the variant of argument 0 edited at the path of argument 1 with the value of
/// argument 2 (a delete: at each path from argument 1 on).
pub(super) fn edit_column(
    arrays: &[ArrayRef],
    kind: EditKind,
    fail: bool,
    function: &str,
) -> Result<ArrayRef> {
    let Some(input) = arrays.first() else {
        return internal_err!("{function} without arguments");
    };
    let values = Variants::of(input)?;
    let (paths, news) = if kind == EditKind::Delete {
        let paths = (1..arrays.len())
            .map(|i| texts(arrays, i))
            .collect::<Result<Option<Vec<_>>>>()?
            .unwrap_or_default();
        (paths, None)
    } else {
        let (Some(path), Some(new)) = (texts(arrays, 1)?, arrays.get(2)) else {
            return internal_err!("{function} takes a variant, a path and a value");
        };
        (vec![path], Some(new))
    };
    let news = news.map(Variants::of).transpose()?;
    let mut parsed: std::collections::HashMap<String, Vec<Step>> = Default::default();
    let mut out = VariantColumn::new(input.len());
    'rows: for row in 0..input.len() {
        let Some(v) = values.get(row)? else {
            out.append_null();
            continue;
        };
        let new = match &news {
            Some(n) => match n.get(row)? {
                Some(x) => Some(x),
                None => {
                    out.append_null();
                    continue;
                }
            },
            None => None,
        };
        if kind != EditKind::Delete && paths.iter().any(|p| p.is_null(row)) {
            out.append_null();
            continue;
        }
        let mut current: Option<(Vec<u8>, Vec<u8>)> = None;
        for p in &paths {
            if p.is_null(row) {
                continue;
            }
            let text = p.as_string::<i32>().value(row);
            if !parsed.contains_key(text) {
                let steps = edit_path(text, kind)
                    .ok_or_else(|| to_datafusion(invalid_target(text, function)))?;
                parsed.insert(text.to_string(), steps);
            }
            let steps = parsed.get(text).map(Vec::as_slice).unwrap_or_default();
            let edited = match &current {
                Some((value, metadata)) => {
                    let v = Variant::try_new(metadata, value)
                        .map_err(|_| to_datafusion(malformed_variant()))?;
                    apply(&v, steps, kind, new.as_ref())
                }
                None => apply(&v, steps, kind, new.as_ref()),
            };
            match edited {
                Ok(bytes) => current = Some(bytes),
                Err(e) if !fail && e.tolerated() => {
                    out.append_null();
                    continue 'rows;
                }
                Err(e) => return Err(to_datafusion(e.spark(text, function))),
            }
        }
        match current {
            Some(bytes) => out.append(bytes),
            // No path to apply: the value as it is.
            None => {
                let (value, metadata) = values.bytes(row);
                out.append((value.to_vec(), metadata.to_vec()));
            }
        }
    }
    out.finish()
}

/// `v` rebuilt with `kind` applied at `steps` (`value` the new value, for all but deletes).
pub(super) fn apply(
    v: &Variant,
    steps: &[Step],
    kind: EditKind,
    value: Option<&Variant>,
) -> Result<(Vec<u8>, Vec<u8>), EditError> {
    let mut edit = Edit {
        b: Builder::default(),
        steps,
        kind,
        value,
    };
    edit.write(v, 0)?;
    if edit.b.value.len() > SIZE_LIMIT {
        return Err(EditError::TooLarge);
    }
    Ok(edit.b.finish())
}

/// `v` rebuilt without the object fields (and, with `arrays`, the array elements) that are
/// the variant null.
pub(super) fn strip_nulls(v: &Variant, arrays: bool) -> (Vec<u8>, Vec<u8>) {
    fn write(b: &mut Builder, v: &Variant, arrays: bool) {
        match v {
            Variant::Object(o) => {
                let start = b.value.len();
                let mut fields = Vec::new();
                for (k, f) in o.iter() {
                    if !matches!(f, Variant::Null) {
                        b.field(&mut fields, start, k);
                        write(b, &f, arrays);
                    }
                }
                let _ = b.finish_object(start, fields);
            }
            Variant::List(l) => {
                let start = b.value.len();
                let mut offsets = Vec::new();
                for e in l.iter() {
                    if !(arrays && matches!(e, Variant::Null)) {
                        offsets.push(b.value.len() - start);
                        write(b, &e, arrays);
                    }
                }
                b.finish_array(start, &offsets);
            }
            other => b.append_variant(other),
        }
    }
    let mut b = Builder::default();
    write(&mut b, v, arrays);
    b.finish()
}

struct Edit<'s, 'v> {
    b: Builder,
    steps: &'s [Step],
    kind: EditKind,
    value: Option<&'v Variant<'v, 'v>>,
}

impl Edit<'_, '_> {
    fn creates(&self) -> bool {
        matches!(self.kind, EditKind::Insert | EditKind::Set { create: true })
    }

    fn new_value(&mut self) {
        match self.value {
            Some(v) => self.b.append_variant(v),
            None => self.b.null(),
        }
    }

    /// Writes the steps from `depth` on as new objects and arrays around the new value.
    fn create(&mut self, depth: usize) -> Result<(), EditError> {
        match self.steps.get(depth) {
            None => self.new_value(),
            Some(Step::Key(k)) => {
                let start = self.b.value.len();
                let mut fields = Vec::with_capacity(1);
                self.b.field(&mut fields, start, k);
                self.create(depth + 1)?;
                let _ = self.b.finish_object(start, fields);
            }
            Some(Step::Index(i)) => {
                let start = self.b.value.len();
                let mut offsets = Vec::with_capacity(i + 1);
                self.pad(start, &mut offsets, *i)?;
                offsets.push(self.b.value.len() - start);
                self.create(depth + 1)?;
                self.b.finish_array(start, &offsets);
            }
        }
        Ok(())
    }

    /// `count` NULL elements of the array written from `start`.
    fn pad(
        &mut self,
        start: usize,
        offsets: &mut Vec<usize>,
        count: usize,
    ) -> Result<(), EditError> {
        if count > SIZE_LIMIT || self.b.value.len() + count > SIZE_LIMIT {
            return Err(EditError::TooLarge);
        }
        for _ in 0..count {
            offsets.push(self.b.value.len() - start);
            self.b.null();
        }
        Ok(())
    }

    /// Writes `v`, the value at the path's steps before `depth`.
    fn write(&mut self, v: &Variant, depth: usize) -> Result<(), EditError> {
        let Some(step) = self.steps.get(depth) else {
            // Only an append reaches the path's end: the target array.
            let Variant::List(l) = v else {
                return Err(EditError::Mismatch(prefix(self.steps, depth)));
            };
            let start = self.b.value.len();
            let mut offsets = Vec::with_capacity(l.len() + 1);
            for e in l.iter() {
                offsets.push(self.b.value.len() - start);
                self.b.append_variant(&e);
            }
            offsets.push(self.b.value.len() - start);
            self.new_value();
            self.b.finish_array(start, &offsets);
            return Ok(());
        };
        let last = depth + 1 == self.steps.len() && self.kind != EditKind::Append;
        match (step, v) {
            (Step::Key(key), Variant::Object(o)) => {
                let start = self.b.value.len();
                let mut fields: Vec<FieldEntry> = Vec::with_capacity(o.len() + 1);
                let mut found = false;
                for (k, f) in o.iter() {
                    if k != key {
                        self.b.field(&mut fields, start, k);
                        self.b.append_variant(&f);
                        continue;
                    }
                    found = true;
                    if !last {
                        self.b.field(&mut fields, start, k);
                        self.write(&f, depth + 1)?;
                        continue;
                    }
                    match self.kind {
                        EditKind::Insert => return Err(EditError::Duplicate(key.clone())),
                        EditKind::Delete => {}
                        _ => {
                            self.b.field(&mut fields, start, k);
                            self.new_value();
                        }
                    }
                }
                if !found && self.creates() {
                    self.b.field(&mut fields, start, key);
                    self.create(depth + 1)?;
                }
                let _ = self.b.finish_object(start, fields);
            }
            (Step::Index(index), Variant::List(l)) => {
                let index = *index;
                let start = self.b.value.len();
                let mut offsets = Vec::with_capacity(l.len() + 1);
                for (i, e) in l.iter().enumerate() {
                    if i == index {
                        match (last, self.kind) {
                            (false, _) => {
                                offsets.push(self.b.value.len() - start);
                                self.write(&e, depth + 1)?;
                                continue;
                            }
                            (true, EditKind::Delete) => continue,
                            (true, EditKind::Insert) => {
                                offsets.push(self.b.value.len() - start);
                                self.new_value();
                            }
                            (true, _) => {
                                offsets.push(self.b.value.len() - start);
                                self.new_value();
                                continue;
                            }
                        }
                    }
                    offsets.push(self.b.value.len() - start);
                    self.b.append_variant(&e);
                }
                if index >= l.len() && self.creates() {
                    self.pad(start, &mut offsets, index - l.len())?;
                    offsets.push(self.b.value.len() - start);
                    self.create(depth + 1)?;
                }
                self.b.finish_array(start, &offsets);
            }
            _ if self.kind == EditKind::Delete => self.b.append_variant(v),
            _ => return Err(EditError::Mismatch(prefix(self.steps, depth))),
        }
        Ok(())
    }
}
