//! Writes to a Delta table: a query's columns aligned with the table's schema under Delta's
//! rules (schema enforcement, `mergeSchema`, `overwriteSchema`, partition columns), then the
//! rows committed with deltalake-core's write: data files, then one atomic commit to
//! `_delta_log/` (optimistic concurrency: a concurrent commit of the same version fails this
//! one instead of being lost). Also `CREATE TABLE ... USING delta` without a query, and the
//! copy-on-write `DELETE` and `UPDATE`. The query itself runs where every query runs (the
//! server's job); its batches come here.

use std::sync::Arc;

use arrow::datatypes::{DataType, Field, Schema, TimeUnit};
use arrow::record_batch::RecordBatch;
use datafusion::common::{DFSchema, ScalarValue};
use datafusion::logical_expr::{Expr, cast};

use super::{
    DeltaLocation, delta_error, deltalake_core, is_delta_table, open, spark_type, table_schema,
};
use crate::formats::{Options, option};
use crate::spark_error::{ErrorKind, SparkError, SparkResult};

fn analysis(class: &str, state: &str, message: String) -> SparkError {
    SparkError::new(ErrorKind::Analysis, class, state, message, vec![])
}

/// How a write treats the table's schema and rows.
pub struct WriteOptions {
    /// `mergeSchema` (or `spark.databricks.delta.schema.autoMerge.enabled`): new columns added.
    pub merge_schema: bool,
    /// `overwriteSchema` in overwrite mode: the table's schema and partitioning replaced.
    pub overwrite_schema: bool,
    /// `replaceWhere`: only the rows the predicate selects are replaced.
    pub replace_where: Option<String>,
    pub overwrite: bool,
    pub partition_by: Vec<String>,
    /// Spark's `simpleString` of a type, for schema mismatch messages.
    pub type_name: fn(&DataType) -> String,
}

impl WriteOptions {
    /// The options of a write in `mode` (`overwrite`), with the session's auto-merge setting.
    pub fn new(
        options: &Options,
        overwrite: bool,
        auto_merge: bool,
        partition_by: Vec<String>,
        type_name: fn(&DataType) -> String,
    ) -> SparkResult<Self> {
        let flag =
            |key| option(options, key).is_some_and(|v| v.trim().eq_ignore_ascii_case("true"));
        let overwrite_schema = overwrite && flag("overwriteSchema");
        let replace_where = option(options, "replaceWhere").map(str::to_string);
        if replace_where.is_some() && overwrite_schema {
            return Err(metadata_mismatch(
                "To overwrite your schema or change partitioning, please set: '.option(\"overwriteSchema\", \"true\")'.\nNote that the schema can't be overwritten when using 'replaceWhere'.".into(),
            ));
        }
        Ok(WriteOptions {
            merge_schema: flag("mergeSchema") || auto_merge,
            overwrite_schema,
            replace_where,
            overwrite,
            partition_by,
            type_name,
        })
    }
}

/// A type Delta stores a value of `from` in without loss (Delta's implicit up-casts).
fn up_casts(from: &DataType, to: &DataType) -> bool {
    use DataType::*;
    let rank = |t: &DataType| match t {
        Int8 => Some(1),
        Int16 => Some(2),
        Int32 => Some(3),
        Int64 => Some(4),
        _ => None,
    };
    match (from, to) {
        (a, b) if a == b => true,
        (Null, _) => true,
        (a, b) if rank(a).is_some() && rank(b).is_some() => rank(a) <= rank(b),
        (Int8 | Int16 | Int32 | Int64 | Float32, Float64) => true,
        (Utf8 | Utf8View | LargeUtf8, Utf8 | Utf8View | LargeUtf8) => true,
        _ => false,
    }
}

/// How Delta stores a column of Ember's: instants in UTC.
pub fn stored_type(t: &DataType) -> DataType {
    match t {
        DataType::Timestamp(_, Some(_)) => {
            DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into()))
        }
        DataType::Timestamp(_, None) => DataType::Timestamp(TimeUnit::Microsecond, None),
        other => spark_type(other),
    }
}

fn schema_text(fields: &[(String, DataType)], type_name: fn(&DataType) -> String) -> String {
    let mut out = String::from("root\n");
    for (n, t) in fields {
        out.push_str(&format!(" |-- {n}: {} (nullable = true)\n", type_name(t)));
    }
    out
}

fn metadata_mismatch(detail: String) -> SparkError {
    analysis(
        "DELTA_METADATA_MISMATCH",
        "42KDG",
        format!("A metadata mismatch was detected when writing to the Delta table.\n{detail}"),
    )
}

/// What a write to the table at a URL computes and commits: the query's columns as the table
/// takes them (cast and named, the table's in its order then new ones), the partition columns,
/// and the table when it exists.
pub struct Alignment {
    pub exprs: Vec<Expr>,
    partition_by: Vec<String>,
    existing: Option<deltalake_core::DeltaTable>,
}

impl Alignment {
    /// The partition columns of the table the write goes to (an existing one's, kept unless
    /// the write replaces the schema). Empty: a new table or an unpartitioned one, whose
    /// dynamic overwrite replaces every row.
    pub fn existing_partitions(&self) -> &[String] {
        match &self.existing {
            Some(_) => &self.partition_by,
            None => &[],
        }
    }
}

/// Align a query (its columns `names` over `schema`) with the Delta table at `url` under
/// Delta's rules.
pub async fn align(
    url: &DeltaLocation,
    options: &WriteOptions,
    names: &[String],
    schema: &DFSchema,
    time_zone: &str,
) -> SparkResult<Alignment> {
    let existing = if is_delta_table(url).await {
        Some(open(url, None, time_zone).await?)
    } else {
        None
    };
    for (i, name) in names.iter().enumerate() {
        if names[..i].iter().any(|n| n.eq_ignore_ascii_case(name)) {
            return Err(analysis(
                "DELTA_DUPLICATE_COLUMNS_FOUND",
                "42711",
                format!(
                    "Found duplicate column(s) in the data to save: {}",
                    name.to_lowercase()
                ),
            ));
        }
    }
    let data: Vec<(String, DataType)> = names
        .iter()
        .zip(schema.fields())
        .map(|(n, f)| (n.clone(), stored_type(f.data_type())))
        .collect();
    let column = |i: usize| Expr::Column(schema.columns()[i].clone());
    // The columns written, by name: the table's (in its order) then new ones.
    let mut exprs: Vec<Expr> = vec![];
    let mut partition_by = options.partition_by.clone();
    let table_info = match &existing {
        Some(t) if !options.overwrite_schema => Some(table_schema(t)?),
        _ => None,
    };
    match &table_info {
        None => {
            for (i, (n, t)) in data.iter().enumerate() {
                exprs.push(cast(column(i), t.clone()).alias(n));
            }
        }
        Some((table, table_partitions)) => {
            if !partition_by.is_empty()
                && !partition_by
                    .iter()
                    .map(|p| p.to_lowercase())
                    .eq(table_partitions.iter().map(|p| p.to_lowercase()))
            {
                return Err(metadata_mismatch(format!(
                    "Partition columns do not match the partition columns of the table.\nGiven: [{}]\nTable: [{}]\n",
                    partition_by.join(", "),
                    table_partitions.join(", ")
                )));
            }
            partition_by = table_partitions.clone();
            let table_fields: Vec<(String, DataType)> = table
                .fields()
                .iter()
                .map(|f| (f.name().clone(), f.data_type().clone()))
                .collect();
            let mismatch = || {
                metadata_mismatch(format!(
                    "A schema mismatch detected when writing to the Delta table.\nTo enable schema migration using DataFrameWriter or DataStreamWriter, please set: '.option(\"mergeSchema\", \"true\")'.\n\nTable schema:\n{}\nData schema:\n{}",
                    schema_text(&table_fields, options.type_name),
                    schema_text(&data, options.type_name)
                ))
            };
            for (name, t) in &table_fields {
                match data.iter().position(|(n, _)| n.eq_ignore_ascii_case(name)) {
                    Some(i) => {
                        let from = &data[i].1;
                        if !up_casts(from, t) {
                            if !options.merge_schema {
                                return Err(mismatch());
                            }
                            return Err(analysis(
                                "DELTA_FAILED_TO_MERGE_FIELDS",
                                "22005",
                                format!("Failed to merge fields '{name}' and '{}'", data[i].0),
                            ));
                        }
                        exprs.push(cast(column(i), t.clone()).alias(name));
                    }
                    None => exprs.push(Expr::Literal(ScalarValue::try_from(t)?, None).alias(name)),
                }
            }
            for (i, (n, t)) in data.iter().enumerate() {
                if table_fields
                    .iter()
                    .any(|(name, _)| name.eq_ignore_ascii_case(n))
                {
                    continue;
                }
                if !options.merge_schema {
                    return Err(mismatch());
                }
                exprs.push(cast(column(i), t.clone()).alias(n));
            }
        }
    }
    Ok(Alignment {
        exprs,
        partition_by,
        existing,
    })
}

/// Commit the aligned query's `batches` (at least one, maybe empty: deltalake takes the schema
/// from them) to the table at `url`. Returns the number of rows written.
pub async fn commit(
    url: &DeltaLocation,
    options: &WriteOptions,
    alignment: Alignment,
    batches: Vec<RecordBatch>,
) -> SparkResult<u64> {
    let Some(first) = batches.first() else {
        return Err(SparkError::invalid_plan("a Delta write without a schema"));
    };
    // Delta's columns are nullable unless declared otherwise.
    let nullable = Arc::new(Schema::new(
        first
            .schema()
            .fields()
            .iter()
            .map(|f| Field::new(f.name(), f.data_type().clone(), true))
            .collect::<Vec<_>>(),
    ));
    let rows: u64 = batches.iter().map(|b| b.num_rows() as u64).sum();
    let batches = batches
        .into_iter()
        .map(|b| RecordBatch::try_new(nullable.clone(), b.columns().to_vec()))
        .collect::<Result<Vec<_>, _>>()?;
    let table = match alignment.existing {
        Some(t) => t,
        None => new_table(url).await?,
    };
    let mut builder = table
        .write(batches)
        .with_writer_properties(crate::formats::table_files::writer_properties())
        .with_save_mode(if options.overwrite {
            deltalake_core::protocol::SaveMode::Overwrite
        } else {
            deltalake_core::protocol::SaveMode::Append
        });
    // A replaced schema takes the write's partitioning, none included.
    if !alignment.partition_by.is_empty() || options.overwrite_schema {
        builder = builder.with_partition_columns(alignment.partition_by);
    }
    if options.overwrite_schema {
        builder =
            builder.with_schema_mode(deltalake_core::operations::write::SchemaMode::Overwrite);
    } else if options.merge_schema {
        builder = builder.with_schema_mode(deltalake_core::operations::write::SchemaMode::Merge);
    }
    if let Some(predicate) = &options.replace_where {
        if !options.overwrite {
            return Err(SparkError::unsupported(
                "replaceWhere outside overwrite mode",
            ));
        }
        builder = builder.with_replace_where(predicate.clone());
    }
    builder.await.map_err(|e| write_error(&url.url, e))?;
    tracing::debug!(table = %url, rows, "Delta write committed");
    Ok(rows)
}

/// The `replaceWhere` predicate of a dynamic partition overwrite: the partitions (values of
/// `columns`) the rows of `batches` go to, each `"col" = 'value'` (`IS NULL` for NULL), ORed.
/// None: no rows, so no partition.
pub fn partitions_predicate(
    batches: &[RecordBatch],
    columns: &[String],
) -> SparkResult<Option<String>> {
    use arrow::array::{Array, AsArray};
    let mut seen = std::collections::BTreeSet::new();
    for batch in batches {
        let mut texts = vec![];
        for c in columns {
            let column = batch.column_by_name(c).ok_or_else(|| {
                SparkError::invalid_plan(format!("no partition column {c} in the written rows"))
            })?;
            texts.push(arrow::compute::cast(column, &DataType::Utf8)?);
        }
        for row in 0..batch.num_rows() {
            let key: Vec<Option<String>> = texts
                .iter()
                .map(|t| {
                    let t = t.as_string::<i32>();
                    t.is_valid(row).then(|| t.value(row).to_string())
                })
                .collect();
            seen.insert(key);
        }
    }
    if seen.is_empty() {
        return Ok(None);
    }
    let quoted = |c: &str| format!("\"{}\"", c.replace('"', "\"\""));
    let partitions: Vec<String> = seen
        .iter()
        .map(|key| {
            let terms: Vec<String> = columns
                .iter()
                .zip(key)
                .map(|(c, v)| match v {
                    Some(v) => format!("{} = '{}'", quoted(c), v.replace('\'', "''")),
                    None => format!("{} IS NULL", quoted(c)),
                })
                .collect();
            format!("({})", terms.join(" AND "))
        })
        .collect();
    Ok(Some(partitions.join(" OR ")))
}

/// A failed Delta write: a predicate the data breaks is Delta's `replaceWhere` error, a lost
/// race with another writer Delta's concurrent-modification error.
pub fn write_error(url: &url::Url, e: deltalake_core::DeltaTableError) -> SparkError {
    let text = e.to_string();
    if text.contains("does not conform") || text.contains("failed validation check") {
        return analysis(
            "DELTA_REPLACE_WHERE_MISMATCH",
            "44000",
            format!(
                "Written data does not conform to partial table overwrite condition or constraint.\n{text}"
            ),
        );
    }
    if matches!(e, deltalake_core::DeltaTableError::Transaction { .. }) {
        return analysis(
            "DELTA_CONCURRENT_WRITE",
            "2D521",
            format!(
                "ConcurrentWriteException: A concurrent transaction has written new data since the current transaction read the table. Please try the operation again.\n{text}"
            ),
        );
    }
    delta_error(url, e)
}

/// `CREATE TABLE ... USING delta` without a query: version 0 of an empty table with the
/// declared columns (an existing Delta table at the location is kept).
pub async fn create_empty(
    url: &DeltaLocation,
    fields: &[Field],
    partition_by: &[String],
) -> SparkResult<()> {
    if is_delta_table(url).await {
        return Ok(());
    }
    let schema = Arc::new(Schema::new(
        fields
            .iter()
            .map(|f| Field::new(f.name(), stored_type(f.data_type()), true))
            .collect::<Vec<_>>(),
    ));
    let table = new_table(url).await?;
    let mut builder = table.write(vec![RecordBatch::new_empty(schema)]);
    if !partition_by.is_empty() {
        builder = builder.with_partition_columns(partition_by.to_vec());
    }
    builder.await.map_err(|e| write_error(&url.url, e))?;
    Ok(())
}

/// A table to create at `url` (its directory made first).
async fn new_table(url: &DeltaLocation) -> SparkResult<deltalake_core::DeltaTable> {
    if let Ok(path) = url.url.to_file_path() {
        std::fs::create_dir_all(&path).map_err(|e| {
            SparkError::invalid_plan(format!("cannot create {}: {e}", path.display()))
        })?;
    }
    let mut table = url
        .builder()?
        .build()
        .map_err(|e| delta_error(&url.url, e))?;
    match table.load().await {
        Ok(()) | Err(deltalake_core::DeltaTableError::NotATable(_)) => Ok(table),
        Err(e) => Err(delta_error(&url.url, e)),
    }
}

/// `DELETE FROM t [WHERE p]`: copy-on-write by deltalake (the files holding matching rows are
/// rewritten without them; a predicate on partition columns only removes whole files).
/// Returns the number of rows deleted.
pub async fn delete(
    url: &DeltaLocation,
    predicate: Option<String>,
    time_zone: &str,
) -> SparkResult<usize> {
    let mut builder = open(url, None, time_zone)
        .await?
        .delete()
        .with_writer_properties(crate::formats::table_files::writer_properties());
    if let Some(p) = predicate {
        builder = builder.with_predicate(p);
    }
    let (_, metrics) = builder.await.map_err(|e| write_error(&url.url, e))?;
    Ok(metrics.num_deleted_rows.unwrap_or(0))
}

/// `UPDATE t SET c = v, ... [WHERE p]`: copy-on-write by deltalake. Returns the number of rows
/// updated.
pub async fn update(
    url: &DeltaLocation,
    assignments: Vec<(String, String)>,
    predicate: Option<String>,
    time_zone: &str,
) -> SparkResult<usize> {
    let mut builder = open(url, None, time_zone)
        .await?
        .update()
        .with_writer_properties(crate::formats::table_files::writer_properties());
    for (column, value) in assignments {
        builder = builder.with_update(column, value);
    }
    if let Some(p) = predicate {
        builder = builder.with_predicate(p);
    }
    let (_, metrics) = builder.await.map_err(|e| write_error(&url.url, e))?;
    Ok(metrics.num_updated_rows)
}
