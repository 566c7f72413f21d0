//! Where an Iceberg write goes: a table at a path (`format("iceberg").save(path)`, the tables
//! of a Hadoop catalog), whose metadata files Ember writes and links itself, or a table of a
//! REST catalog, whose catalog creates it and takes its commits.

use arrow::array::RecordBatch;
use arrow::datatypes::Field;
use serde_json::Value;

use super::io::Io;
use super::rest::RestTable;
use super::table;
use super::write::{self, CommitMode};
use super::{TableMetadata, is_iceberg_table, load};
use crate::spark_error::{SparkError, SparkResult};

#[derive(Debug, Clone, PartialEq)]
pub enum Target {
    Path(String),
    Rest(Box<RestTable>),
}

impl Target {
    /// The table as messages name it.
    pub fn shown(&self) -> String {
        match self {
            Target::Path(p) => p.clone(),
            Target::Rest(t) => t.shown(),
        }
    }

    /// Refused unless the session may write there (`--allowed-paths`).
    pub fn check_allowed(&self) -> SparkResult<()> {
        match self {
            Target::Path(p) => crate::sandbox::check(p),
            Target::Rest(_) => Ok(()),
        }
    }

    pub fn exists(&self, io: &Io) -> SparkResult<bool> {
        Ok(match self {
            Target::Path(p) => is_iceberg_table(io, p),
            Target::Rest(t) => t.load()?.is_some(),
        })
    }

    /// The table's current metadata.
    pub fn load(&self, io: &Io) -> SparkResult<TableMetadata> {
        match self {
            Target::Path(p) => load(io, p),
            Target::Rest(t) => match t.load()? {
                Some((location, _)) => load(io, &location),
                None => Err(SparkError::table_not_found(&t.shown())),
            },
        }
    }

    /// Create the table: no snapshot, `fields`, partitioned by Spark's items.
    pub fn create(
        &self,
        io: &Io,
        fields: &[Field],
        partitioning: &[(String, Vec<String>)],
    ) -> SparkResult<()> {
        match self {
            Target::Path(p) => table::create_table(io, p, fields, partitioning),
            Target::Rest(t) => {
                let meta = table::new_metadata("", fields, partitioning)?;
                let first = |key: &str| -> Value {
                    meta.get(key)
                        .and_then(|v| v.get(0))
                        .cloned()
                        .unwrap_or(Value::Null)
                };
                t.create(&first("schemas"), &first("partition-specs"))
            }
        }
    }

    /// Commit `batches` (the table's columns, in its types).
    pub fn commit(&self, io: &Io, batches: &[RecordBatch], mode: CommitMode) -> SparkResult<()> {
        match self {
            Target::Path(p) => write::commit(io, p, batches, mode),
            Target::Rest(t) => {
                let table = self.load(io)?;
                let prepared = write::prepare(&table, batches, mode)?;
                crate::failpoint::crash_point("iceberg-commit-before-metadata");
                t.commit(prepared.parent, &prepared.snapshot)
            }
        }
    }
}
