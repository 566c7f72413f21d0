//! Writes to Delta Lake tables (`df.write.format("delta")`, `saveAsTable(..., format="delta")`,
//! CTAS and INSERT into tables `USING delta`).
//!
//! The query runs as any other job (in the cluster modes on the workers) and its batches come
//! back to the driver, which aligns them with the table's schema under Delta's rules (schema
//! enforcement, `mergeSchema`, `overwriteSchema`, partition columns) and commits them with
//! deltalake-core's write: data files, then one atomic commit to `_delta_log/` (optimistic
//! concurrency: a concurrent commit of the same version fails this one instead of being lost).
//! DELETE, UPDATE and MERGE (`merge.rs`) run deltalake's operations on the driver.

use std::collections::HashMap;

use arrow::datatypes::{DataType, Field, Schema, TimeUnit};
use arrow::record_batch::RecordBatch;
use datafusion::common::ScalarValue;
use datafusion::logical_expr::{Expr, LogicalPlanBuilder, cast};
use ember_execution::formats::option;
use ember_planner::datasource::delta::{self, deltalake_core};
use ember_planner::spec::{SaveMode, WriteSpec};
use ember_planner::{ResolvedQuery, SparkError, types};
use futures::TryStreamExt;

use crate::error::ServerResult;
use crate::execute::write::{FileWriteSpec, WriteLocation, analysis, location};
use crate::state::RequestContext;

mod merge;
pub use merge::merge;

/// `df.write.format("delta")...save(path)` with Delta's save modes.
pub async fn save(ctx: &RequestContext, spec: WriteSpec, path: &str) -> ServerResult<()> {
    let target = location(path)?;
    let url = table_url(&target)?;
    if delta::is_delta_table(&url).await {
        match spec.mode {
            SaveMode::ErrorIfExists => {
                let shown = delta::shown(&url);
                return Err(analysis(
                    "DELTA_PATH_EXISTS",
                    "42K04",
                    format!("Cannot write to already existent path {shown} without setting OVERWRITE = 'true'."),
                    vec![("path", shown.clone())],
                )
                .into());
            }
            SaveMode::Ignore => return Ok(()),
            SaveMode::Append | SaveMode::Overwrite => {}
        }
    }
    let query = ctx.resolve(&spec.input)?;
    write(
        ctx,
        query,
        FileWriteSpec {
            target,
            format: "delta".into(),
            options: spec.options,
            partition_by: spec.partition_by,
            bucketing: None,
            overwrite: spec.mode == SaveMode::Overwrite,
            dynamic_overwrite: crate::execute::catalog::dynamic_partition_overwrite(ctx),
        },
    )
    .await?;
    Ok(())
}

/// Run `plan` projected to `exprs` as an Ember job and collect its batches (one empty batch
/// of its schema when it has no rows: deltalake takes the schema from the batches).
pub(super) async fn run_projected(
    ctx: &RequestContext,
    plan: datafusion::logical_expr::LogicalPlan,
    exprs: Vec<Expr>,
) -> ServerResult<Vec<RecordBatch>> {
    let plan = LogicalPlanBuilder::from(plan).project(exprs)?.build()?;
    let df = ctx.datafusion_context();
    let physical = df.state().create_physical_plan(&plan).await?;
    let output_schema = physical.schema();
    let context = crate::execute::progress::attach(df.task_ctx());
    let stream = ctx.state.runner.execute(physical, context).await?;
    let mut batches: Vec<RecordBatch> = stream.try_collect().await?;
    if batches.is_empty() {
        batches.push(RecordBatch::new_empty(output_schema));
    }
    Ok(batches)
}

fn table_url(target: &WriteLocation) -> ServerResult<url::Url> {
    match target {
        WriteLocation::Local(p) => {
            Ok(delta::table_url(&p.display().to_string()).map_err(|e| e.into_spark())?)
        }
        WriteLocation::Object(o) => Err(SparkError::unsupported(format!(
            "Delta tables in object stores ({})",
            o.shown()
        ))
        .into()),
    }
}

fn flag(options: &HashMap<String, String>, key: &str) -> bool {
    option(options, key).is_some_and(|v| v.trim().eq_ignore_ascii_case("true"))
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
pub(super) fn stored_type(t: &DataType) -> DataType {
    match t {
        DataType::Timestamp(_, Some(_)) => {
            DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into()))
        }
        DataType::Timestamp(_, None) => DataType::Timestamp(TimeUnit::Microsecond, None),
        other => delta::spark_type(other),
    }
}

fn schema_text(fields: &[(String, DataType)]) -> String {
    let mut out = String::from("root\n");
    for (n, t) in fields {
        out.push_str(&format!(
            " |-- {n}: {} (nullable = true)\n",
            types::simple_string(t)
        ));
    }
    out
}

fn metadata_mismatch(detail: String) -> SparkError {
    analysis(
        "DELTA_METADATA_MISMATCH",
        "42KDG",
        format!("A metadata mismatch was detected when writing to the Delta table.\n{detail}"),
        vec![],
    )
}

/// Write `query`'s rows to the Delta table at `spec.target` (created if missing). Returns the
/// number of rows written.
pub async fn write(
    ctx: &RequestContext,
    query: ResolvedQuery,
    spec: FileWriteSpec,
) -> ServerResult<u64> {
    let url = table_url(&spec.target)?;
    let time_zone = ctx.session.conf.time_zone();
    let merge = flag(&spec.options, "mergeSchema")
        || ctx
            .session
            .conf
            .get("spark.databricks.delta.schema.autoMerge.enabled")
            .is_some_and(|v| v.eq_ignore_ascii_case("true"));
    let overwrite_schema = spec.overwrite && flag(&spec.options, "overwriteSchema");
    let replace_where = option(&spec.options, "replaceWhere").map(str::to_string);
    if replace_where.is_some() && overwrite_schema {
        return Err(metadata_mismatch(
            "To overwrite your schema or change partitioning, please set: '.option(\"overwriteSchema\", \"true\")'.\nNote that the schema can't be overwritten when using 'replaceWhere'.".into(),
        )
        .into());
    }
    if spec.overwrite && spec.dynamic_overwrite && !spec.partition_by.is_empty() {
        return Err(SparkError::unsupported("dynamic partition overwrite of Delta tables").into());
    }
    let existing = if delta::is_delta_table(&url).await {
        Some(
            delta::open(&url, None, &time_zone)
                .await
                .map_err(|e| e.into_spark())?,
        )
    } else {
        None
    };
    let schema = query.plan.schema().clone();
    for (i, name) in query.names.iter().enumerate() {
        if query.names[..i]
            .iter()
            .any(|n| n.eq_ignore_ascii_case(name))
        {
            return Err(analysis(
                "DELTA_DUPLICATE_COLUMNS_FOUND",
                "42711",
                format!(
                    "Found duplicate column(s) in the data to save: {}",
                    name.to_lowercase()
                ),
                vec![],
            )
            .into());
        }
    }
    let data: Vec<(String, DataType)> = query
        .names
        .iter()
        .zip(schema.fields())
        .map(|(n, f)| (n.clone(), stored_type(f.data_type())))
        .collect();
    let column = |i: usize| Expr::Column(schema.columns()[i].clone());
    // The columns written, by name: the table's (in its order) then new ones.
    let mut exprs: Vec<Expr> = vec![];
    let mut partition_by = spec.partition_by.clone();
    let table_info = match &existing {
        Some(t) if !overwrite_schema => Some(delta::table_schema(t).map_err(|e| e.into_spark())?),
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
                ))
                .into());
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
                    schema_text(&table_fields),
                    schema_text(&data)
                ))
            };
            for (name, t) in &table_fields {
                match data.iter().position(|(n, _)| n.eq_ignore_ascii_case(name)) {
                    Some(i) => {
                        let from = &data[i].1;
                        if !up_casts(from, t) {
                            if !merge {
                                return Err(mismatch().into());
                            }
                            return Err(analysis(
                                "DELTA_FAILED_TO_MERGE_FIELDS",
                                "22005",
                                format!("Failed to merge fields '{name}' and '{}'", data[i].0),
                                vec![],
                            )
                            .into());
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
                if !merge {
                    return Err(mismatch().into());
                }
                exprs.push(cast(column(i), t.clone()).alias(n));
            }
        }
    }
    let batches = run_projected(ctx, query.plan, exprs).await?;
    // Delta's columns are nullable unless declared otherwise.
    let nullable = std::sync::Arc::new(Schema::new(
        batches[0]
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
        .collect::<Result<Vec<_>, _>>()
        .map_err(datafusion::error::DataFusionError::from)?;
    let table = match existing {
        Some(t) => t,
        None => new_table(&url).await?,
    };
    let mut builder = table.write(batches).with_save_mode(if spec.overwrite {
        deltalake_core::protocol::SaveMode::Overwrite
    } else {
        deltalake_core::protocol::SaveMode::Append
    });
    // A replaced schema takes the write's partitioning, none included.
    if !partition_by.is_empty() || overwrite_schema {
        builder = builder.with_partition_columns(partition_by);
    }
    if overwrite_schema {
        builder =
            builder.with_schema_mode(deltalake_core::operations::write::SchemaMode::Overwrite);
    } else if merge {
        builder = builder.with_schema_mode(deltalake_core::operations::write::SchemaMode::Merge);
    }
    if let Some(predicate) = replace_where {
        if !spec.overwrite {
            return Err(SparkError::unsupported("replaceWhere outside overwrite mode").into());
        }
        builder = builder.with_replace_where(predicate);
    }
    builder.await.map_err(|e| write_error(&url, e))?;
    tracing::debug!(table = %url, rows, "Delta write committed");
    Ok(rows)
}

/// A failed Delta write: a predicate the data breaks is Delta's `replaceWhere` error, a lost
/// race with another writer Delta's concurrent-modification error.
pub(super) fn write_error(url: &url::Url, e: deltalake_core::DeltaTableError) -> SparkError {
    let text = e.to_string();
    if text.contains("does not conform") || text.contains("failed validation check") {
        return analysis(
            "DELTA_REPLACE_WHERE_MISMATCH",
            "44000",
            format!(
                "Written data does not conform to partial table overwrite condition or constraint.\n{text}"
            ),
            vec![],
        );
    }
    if matches!(e, deltalake_core::DeltaTableError::Transaction { .. }) {
        return analysis(
            "DELTA_CONCURRENT_WRITE",
            "2D521",
            format!(
                "ConcurrentWriteException: A concurrent transaction has written new data since the current transaction read the table. Please try the operation again.\n{text}"
            ),
            vec![],
        );
    }
    delta::delta_error(url, e).into_spark()
}

/// `CREATE TABLE ... USING delta` without a query: version 0 of an empty table with the
/// declared columns (an existing Delta table at the location is kept).
pub async fn create_empty(
    location: &std::path::Path,
    fields: &[Field],
    partition_by: &[String],
) -> ServerResult<()> {
    let url = table_url(&WriteLocation::Local(location.to_path_buf()))?;
    if delta::is_delta_table(&url).await {
        return Ok(());
    }
    let schema = std::sync::Arc::new(Schema::new(
        fields
            .iter()
            .map(|f| Field::new(f.name(), stored_type(f.data_type()), true))
            .collect::<Vec<_>>(),
    ));
    let table = new_table(&url).await?;
    let mut builder = table.write(vec![RecordBatch::new_empty(schema)]);
    if !partition_by.is_empty() {
        builder = builder.with_partition_columns(partition_by.to_vec());
    }
    builder.await.map_err(|e| write_error(&url, e))?;
    Ok(())
}

/// `DESCRIBE HISTORY t [LIMIT n]`: the table's commits, newest first, with delta-spark's
/// columns (less `job` and `notebook`, which only Databricks fills).
pub async fn describe_history(
    ctx: &RequestContext,
    table: &[String],
    limit: Option<usize>,
) -> ServerResult<Option<RecordBatch>> {
    use arrow::array::{
        ArrayRef, BooleanBuilder, Int64Builder, MapBuilder, MapFieldNames, StringBuilder,
        TimestampMicrosecondBuilder,
    };
    let url = named_table(ctx, table, "DESCRIBE HISTORY")?;
    let time_zone = ctx.session.conf.time_zone();
    let t = delta::open(&url, None, &time_zone)
        .await
        .map_err(|e| e.into_spark())?;
    let latest = t.version().and_then(|v| i64::try_from(v).ok()).unwrap_or(0);
    let commits: Vec<_> = t
        .history(limit)
        .try_collect()
        .await
        .map_err(|e| delta::delta_error(&url, e).into_spark())?;
    let names = || MapFieldNames {
        entry: "entries".into(),
        key: "key".into(),
        value: "value".into(),
    };
    let text = |v: &serde_json::Value| match v {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let mut version = Int64Builder::new();
    let mut timestamp = TimestampMicrosecondBuilder::new();
    let mut user_id = StringBuilder::new();
    let mut user_name = StringBuilder::new();
    let mut operation = StringBuilder::new();
    let mut parameters = MapBuilder::new(Some(names()), StringBuilder::new(), StringBuilder::new());
    let mut cluster_id = StringBuilder::new();
    let mut read_version = Int64Builder::new();
    let mut isolation = StringBuilder::new();
    let mut blind = BooleanBuilder::new();
    let mut metrics = MapBuilder::new(Some(names()), StringBuilder::new(), StringBuilder::new());
    let mut user_metadata = StringBuilder::new();
    let mut engine = StringBuilder::new();
    for (i, c) in commits.iter().enumerate() {
        version.append_value(latest - i as i64);
        timestamp.append_option(c.timestamp.map(|ms| ms * 1000));
        user_id.append_option(c.user_id.as_deref());
        user_name.append_option(c.user_name.as_deref());
        operation.append_option(c.operation.as_deref());
        let mut params: Vec<_> = c.operation_parameters.iter().flatten().collect();
        params.sort_by(|a, b| a.0.cmp(b.0));
        for (k, v) in params {
            parameters.keys().append_value(k);
            parameters.values().append_value(text(v));
        }
        parameters.append(true).map_err(arrow_error)?;
        cluster_id.append_null();
        read_version.append_option(c.read_version.and_then(|v| i64::try_from(v).ok()));
        isolation.append_option(c.isolation_level.as_ref().map(|l| format!("{l:?}")));
        blind.append_option(c.is_blind_append);
        match c.info.get("operationMetrics") {
            Some(serde_json::Value::Object(m)) => {
                let mut m: Vec<_> = m.iter().collect();
                m.sort_by(|a, b| a.0.cmp(b.0));
                for (k, v) in m {
                    metrics.keys().append_value(k);
                    metrics.values().append_value(text(v));
                }
                metrics.append(true).map_err(arrow_error)?;
            }
            _ => metrics.append(false).map_err(arrow_error)?,
        }
        user_metadata.append_option(c.user_metadata.as_deref());
        engine.append_option(c.engine_info.as_deref());
    }
    let timestamp = timestamp.finish().with_timezone(time_zone.as_str());
    let columns: Vec<(&str, ArrayRef)> = vec![
        ("version", std::sync::Arc::new(version.finish())),
        ("timestamp", std::sync::Arc::new(timestamp)),
        ("userId", std::sync::Arc::new(user_id.finish())),
        ("userName", std::sync::Arc::new(user_name.finish())),
        ("operation", std::sync::Arc::new(operation.finish())),
        (
            "operationParameters",
            std::sync::Arc::new(parameters.finish()),
        ),
        ("clusterId", std::sync::Arc::new(cluster_id.finish())),
        ("readVersion", std::sync::Arc::new(read_version.finish())),
        ("isolationLevel", std::sync::Arc::new(isolation.finish())),
        ("isBlindAppend", std::sync::Arc::new(blind.finish())),
        ("operationMetrics", std::sync::Arc::new(metrics.finish())),
        ("userMetadata", std::sync::Arc::new(user_metadata.finish())),
        ("engineInfo", std::sync::Arc::new(engine.finish())),
    ];
    let schema = std::sync::Arc::new(Schema::new(
        columns
            .iter()
            .map(|(n, a)| Field::new(*n, a.data_type().clone(), true))
            .collect::<Vec<_>>(),
    ));
    let arrays = columns.into_iter().map(|(_, a)| a).collect();
    Ok(Some(
        RecordBatch::try_new(schema, arrays).map_err(arrow_error)?,
    ))
}

fn arrow_error(e: arrow::error::ArrowError) -> datafusion::error::DataFusionError {
    datafusion::error::DataFusionError::from(e)
}

/// A table to create at `url` (its directory made first).
async fn new_table(url: &url::Url) -> ServerResult<deltalake_core::DeltaTable> {
    if let Ok(path) = url.to_file_path() {
        std::fs::create_dir_all(&path).map_err(|e| {
            SparkError::invalid_plan(format!("cannot create {}: {e}", path.display()))
        })?;
    }
    Ok(deltalake_core::DeltaTable::try_from_url(url.clone())
        .await
        .map_err(|e| delta::delta_error(url, e).into_spark())?)
}

/// The location of the Delta table a statement names: ``delta.`path` `` or a catalog table.
pub(super) fn named_table(
    ctx: &RequestContext,
    table: &[String],
    operation: &str,
) -> ServerResult<url::Url> {
    match table {
        [format, path] if format.eq_ignore_ascii_case("delta") => table_url(&location(path)?),
        _ => match ctx.session.catalog.lookup_table(table) {
            Some(meta) if meta.format.eq_ignore_ascii_case("delta") => table_url(
                &WriteLocation::Local(std::path::PathBuf::from(&meta.location)),
            ),
            Some(_) => {
                let shown = table.join(".");
                Err(analysis(
                    "DELTA_TABLE_ONLY_OPERATION",
                    "0AKDD",
                    format!("{shown} is not a Delta table. {operation} is only supported for Delta tables."),
                    vec![],
                )
                .into())
            }
            None => Err(SparkError::table_not_found(&table.join(".")).into()),
        },
    }
}

/// One row of counts, as delta-spark answers DML statements.
pub(super) fn counts(columns: &[(&str, i64)]) -> ServerResult<Option<RecordBatch>> {
    let schema = std::sync::Arc::new(Schema::new(
        columns
            .iter()
            .map(|(n, _)| Field::new(*n, DataType::Int64, false))
            .collect::<Vec<_>>(),
    ));
    let arrays: Vec<arrow::array::ArrayRef> = columns
        .iter()
        .map(|(_, v)| std::sync::Arc::new(arrow::array::Int64Array::from(vec![*v])) as _)
        .collect();
    Ok(Some(
        RecordBatch::try_new(schema, arrays).map_err(arrow_error)?,
    ))
}

pub(super) fn count(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// `DELETE FROM t [WHERE p]`: copy-on-write by deltalake (the files holding matching rows are
/// rewritten without them; a predicate on partition columns only removes whole files).
pub async fn delete(
    ctx: &RequestContext,
    table: &[String],
    predicate: Option<String>,
) -> ServerResult<Option<RecordBatch>> {
    let url = named_table(ctx, table, "DELETE")?;
    let time_zone = ctx.session.conf.time_zone();
    let t = delta::open(&url, None, &time_zone)
        .await
        .map_err(|e| e.into_spark())?;
    let mut builder = t.delete();
    if let Some(p) = predicate {
        builder = builder.with_predicate(p);
    }
    let (_, metrics) = builder.await.map_err(|e| write_error(&url, e))?;
    counts(&[(
        "num_affected_rows",
        count(metrics.num_deleted_rows.unwrap_or(0)),
    )])
}

/// `UPDATE t SET c = v, ... [WHERE p]`: copy-on-write by deltalake.
pub async fn update(
    ctx: &RequestContext,
    table: &[String],
    assignments: Vec<(String, String)>,
    predicate: Option<String>,
) -> ServerResult<Option<RecordBatch>> {
    let url = named_table(ctx, table, "UPDATE")?;
    let time_zone = ctx.session.conf.time_zone();
    let t = delta::open(&url, None, &time_zone)
        .await
        .map_err(|e| e.into_spark())?;
    let mut builder = t.update();
    for (column, value) in assignments {
        builder = builder.with_update(column, value);
    }
    if let Some(p) = predicate {
        builder = builder.with_predicate(p);
    }
    let (_, metrics) = builder.await.map_err(|e| write_error(&url, e))?;
    counts(&[("num_affected_rows", count(metrics.num_updated_rows))])
}
