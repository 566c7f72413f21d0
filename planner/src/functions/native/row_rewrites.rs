//! Computed arguments rewritten row by row as the planner rewrites literal ones: zone names
//! ([`zone_ids`]) and LIKE patterns with an escape character other than `\\`
//! ([`like_patterns`]).
//!
//! Zone names of a column read as Java's `ZoneId.of(name, SHORT_IDS)` reads them (`JST`,
//! `GMT+1`, `Z`), in the form Arrow's time zones take, row by row: the per-row counterpart of
//! the planner's literal zone check. A name Java refuses is INVALID_TIMEZONE, as in Spark.

use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, StringBuilder};
use arrow::datatypes::DataType;
use datafusion::common::{Result, internal_err};

use crate::error::{ErrorKind, SparkError, to_datafusion};

pub fn zone_ids(arrays: &[ArrayRef]) -> Result<ArrayRef> {
    let Some(names) = arrays.first() else {
        return internal_err!("java zone names of no argument");
    };
    let names = arrow::compute::cast(names, &DataType::Utf8)?;
    let names = names.as_string::<i32>();
    let mut out = StringBuilder::with_capacity(names.len(), names.values().len());
    for name in names.iter() {
        match name {
            None => out.append_null(),
            Some(name) => match ember_execution::values::pattern::java_zone_id(name) {
                Some(id) => out.append_value(id),
                None => {
                    return Err(to_datafusion(SparkError::new(
                        ErrorKind::DateTime,
                        "INVALID_TIMEZONE",
                        "22009",
                        ember_execution::values::pattern::invalid_timezone_message(name),
                        vec![("timeZone", name.to_string())],
                    )));
                }
            },
        }
    }
    Ok(Arc::new(out.finish()))
}

/// LIKE patterns escaped with `escape` in the form that escapes with a backslash (Spark's
/// INVALID_FORMAT for an escape character out of place).
pub fn like_patterns(arrays: &[ArrayRef], escape: char) -> Result<ArrayRef> {
    let Some(patterns) = arrays.first() else {
        return internal_err!("LIKE patterns of no argument");
    };
    let patterns = arrow::compute::cast(patterns, &DataType::Utf8)?;
    let patterns = patterns.as_string::<i32>();
    let mut out = StringBuilder::with_capacity(patterns.len(), patterns.values().len());
    for pattern in patterns.iter() {
        match pattern {
            None => out.append_null(),
            Some(p) => out.append_value(
                crate::functions::operators::backslash_pattern(p, escape).map_err(to_datafusion)?,
            ),
        }
    }
    Ok(Arc::new(out.finish()))
}
