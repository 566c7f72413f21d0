//! `str_to_map` as Spark's: its delimiters are Java patterns (Spark splits with
//! `UTF8String.split`), empty pairs are kept, duplicate keys follow
//! spark.sql.mapKeyDedupPolicy.

use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, StringBuilder};
use datafusion::common::Result;

use super::regex::{Patterns, spark_split};
use super::{is_null_at, strings};
use crate::error::{SparkError, to_datafusion};

/// `str_to_map(text[, pairDelim[, keyValueDelim]])`: the text split at the pair delimiter
/// (a Java pattern, `,` by default), each pair at the first key-value delimiter (`:`); a
/// pair without one maps its key to NULL. A repeated key is DUPLICATED_MAP_KEY, or keeps its
/// first place and last value under `last_win` (spark.sql.mapKeyDedupPolicy).
pub(super) fn str_to_map(arrays: &[ArrayRef], last_win: bool) -> Result<ArrayRef> {
    let text = strings(arrays, 0)?;
    let text = text.as_string::<i32>();
    let delimiter = |i: usize| -> Result<Option<ArrayRef>> {
        if i < arrays.len() {
            strings(arrays, i).map(Some)
        } else {
            Ok(None)
        }
    };
    let (pairs, kvs) = (delimiter(1)?, delimiter(2)?);
    let (pairs, kvs) = (
        pairs.as_ref().map(|a| a.as_string::<i32>()),
        kvs.as_ref().map(|a| a.as_string::<i32>()),
    );
    let names = arrow::array::MapFieldNames {
        entry: "entries".into(),
        key: "key".into(),
        value: "value".into(),
    };
    let mut out =
        arrow::array::MapBuilder::new(Some(names), StringBuilder::new(), StringBuilder::new());
    let (mut pair_patterns, mut kv_patterns) = (Patterns::new("split"), Patterns::new("split"));
    for i in 0..text.len() {
        if is_null_at(arrays, i) {
            out.append(false)?;
            continue;
        }
        let pair_delim = pairs.map_or(",", |a| a.value(i));
        let kv_delim = kvs.map_or(":", |a| a.value(i));
        let mut entries: Vec<(&str, Option<&str>)> = Vec::new();
        for pair in spark_split(&mut pair_patterns, text.value(i), pair_delim, -1)? {
            let kv = spark_split(&mut kv_patterns, pair, kv_delim, 2)?;
            let (key, value) = (kv.first().copied().unwrap_or(""), kv.get(1).copied());
            match entries.iter().position(|(k, _)| *k == key) {
                Some(at) if last_win => entries[at].1 = value,
                Some(_) => return Err(duplicate_key(key)),
                None => entries.push((key, value)),
            }
        }
        for (key, value) in entries {
            out.keys().append_value(key);
            out.values().append_option(value);
        }
        out.append(true)?;
    }
    Ok(Arc::new(out.finish()))
}

fn duplicate_key(key: &str) -> datafusion::error::DataFusionError {
    to_datafusion(SparkError::duplicated_map_key(key))
}
