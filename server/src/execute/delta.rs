//! The server's side of Delta Lake tables (`df.write.format("delta")`, `saveAsTable(...,
//! format="delta")`, CTAS and INSERT into tables `USING delta`, DELETE, UPDATE, MERGE,
//! DESCRIBE HISTORY): the statement's table found in the catalog, its query run as any other
//! job (in the cluster modes on the workers), the batches handed to the format
//! (`ember_execution::formats::delta`), which aligns, commits and runs deltalake's operations.

use arrow::record_batch::RecordBatch;
use datafusion::logical_expr::{Expr, LogicalPlanBuilder, cast};
use ember_execution::formats::delta;
use ember_execution::formats::delta::DeltaLocation;
use ember_planner::spec::{MergeSpec, SaveMode, WriteSpec};
use ember_planner::{ResolvedQuery, SparkError, types};
use futures::TryStreamExt;

use crate::error::ServerResult;
use crate::execute::write::{FileWriteSpec, WriteLocation, analysis, location};
use crate::state::RequestContext;

/// `df.write.format("delta")...save(path)` with Delta's save modes.
pub async fn save(ctx: &RequestContext, spec: WriteSpec, path: &str) -> ServerResult<()> {
    let target = location(path)?;
    let url = table_location(ctx, &target)?;
    if delta::is_delta_table(&url).await {
        match spec.mode {
            SaveMode::ErrorIfExists => {
                let shown = url.to_string();
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

/// The Delta table at a write's target (a local directory, or a prefix of a bucket).
fn table_location(ctx: &RequestContext, target: &WriteLocation) -> ServerResult<DeltaLocation> {
    let path = match target {
        WriteLocation::Local(p) => p.display().to_string(),
        WriteLocation::Object(o) => o.shown(),
    };
    Ok(DeltaLocation::new(
        &path,
        &ctx.datafusion_context().runtime_env(),
    )?)
}

/// Write `query`'s rows to the Delta table at `spec.target` (created if missing). Returns the
/// number of rows written.
pub async fn write(
    ctx: &RequestContext,
    query: ResolvedQuery,
    spec: FileWriteSpec,
) -> ServerResult<u64> {
    let url = table_location(ctx, &spec.target)?;
    let time_zone = ctx.session.conf.time_zone();
    let auto_merge = ctx
        .session
        .conf
        .get("spark.databricks.delta.schema.autoMerge.enabled")
        .is_some_and(|v| v.eq_ignore_ascii_case("true"));
    let mut options = delta::WriteOptions::new(
        &spec.options,
        spec.overwrite,
        auto_merge,
        spec.partition_by.clone(),
        types::simple_string,
    )?;
    // Dynamic partition overwrite: the writer's `partitionOverwriteMode`, else the session's
    // (which a `replaceWhere` overrides, as in delta-spark).
    let mode_option = ember_execution::formats::option(&spec.options, "partitionOverwriteMode");
    let dynamic = spec.overwrite
        && match mode_option {
            Some(mode) => mode.trim().eq_ignore_ascii_case("dynamic"),
            None => spec.dynamic_overwrite && options.replace_where.is_none(),
        };
    if dynamic && options.replace_where.is_some() {
        return Err(analysis(
            "DELTA_REPLACE_WHERE_WITH_DYNAMIC_PARTITION_OVERWRITE",
            "42613",
            "A 'replaceWhere' expression and 'partitionOverwriteMode'='dynamic' cannot both be set in the DataFrameWriter options.".into(),
            vec![],
        )
        .into());
    }
    let mut alignment = delta::align(
        &url,
        &options,
        &query.names,
        query.plan.schema(),
        &time_zone,
    )
    .await?;
    let exprs = std::mem::take(&mut alignment.exprs);
    let batches = run_projected(ctx, query.plan, exprs).await?;
    // Only the partitions the rows go to are replaced (a partitioned table that exists;
    // otherwise the whole table, as Spark's dynamic mode on an unpartitioned one).
    if dynamic && !options.overwrite_schema && !alignment.existing_partitions().is_empty() {
        match delta::partitions_predicate(&batches, alignment.existing_partitions())? {
            Some(predicate) => options.replace_where = Some(predicate),
            // No rows: no partition is replaced, nothing is written.
            None => return Ok(0),
        }
    }
    Ok(delta::commit(&url, &options, alignment, batches).await?)
}

/// `CREATE TABLE ... USING delta` without a query.
pub async fn create_empty(
    ctx: &RequestContext,
    location: &std::path::Path,
    fields: &[arrow::datatypes::Field],
    partition_by: &[String],
) -> ServerResult<()> {
    let url = table_location(ctx, &WriteLocation::Local(location.to_path_buf()))?;
    Ok(delta::create_empty(&url, fields, partition_by).await?)
}

/// `DESCRIBE HISTORY t [LIMIT n]`.
pub async fn describe_history(
    ctx: &RequestContext,
    table: &[String],
    limit: Option<usize>,
) -> ServerResult<Option<RecordBatch>> {
    let url = named_table(ctx, table, "DESCRIBE HISTORY")?;
    let time_zone = ctx.session.conf.time_zone();
    Ok(Some(delta::history(&url, limit, &time_zone).await?))
}

/// The location of the Delta table a statement names: ``delta.`path` `` or a catalog table.
fn named_table(
    ctx: &RequestContext,
    table: &[String],
    operation: &str,
) -> ServerResult<DeltaLocation> {
    match table {
        [format, path] if format.eq_ignore_ascii_case("delta") => {
            table_location(ctx, &location(path)?)
        }
        _ => match ctx.session.catalog.lookup_table(table) {
            Some(meta) if meta.format.eq_ignore_ascii_case("delta") => {
                table_location(ctx, &location(&meta.location)?)
            }
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

/// One row of counts, as delta-spark answers DML statements (never NULL).
fn counts(columns: &[(&str, usize)]) -> ServerResult<Option<RecordBatch>> {
    use arrow::datatypes::{DataType, Field, Schema};
    let schema = Schema::new(
        columns
            .iter()
            .map(|(n, _)| Field::new(*n, DataType::Int64, false))
            .collect::<Vec<_>>(),
    );
    let arrays: Vec<arrow::array::ArrayRef> = columns
        .iter()
        .map(|(_, v)| {
            let v = i64::try_from(*v).unwrap_or(i64::MAX);
            std::sync::Arc::new(arrow::array::Int64Array::from(vec![v])) as _
        })
        .collect();
    let batch = RecordBatch::try_new(std::sync::Arc::new(schema), arrays)
        .map_err(datafusion::error::DataFusionError::from)?;
    Ok(Some(batch))
}

/// `DELETE FROM t [WHERE p]`.
pub async fn delete(
    ctx: &RequestContext,
    table: &[String],
    predicate: Option<String>,
) -> ServerResult<Option<RecordBatch>> {
    let url = named_table(ctx, table, "DELETE")?;
    let time_zone = ctx.session.conf.time_zone();
    let deleted = delta::delete(&url, predicate, &time_zone).await?;
    counts(&[("num_affected_rows", deleted)])
}

/// `UPDATE t SET c = v, ... [WHERE p]`.
pub async fn update(
    ctx: &RequestContext,
    table: &[String],
    assignments: Vec<(String, String)>,
    predicate: Option<String>,
) -> ServerResult<Option<RecordBatch>> {
    let url = named_table(ctx, table, "UPDATE")?;
    let time_zone = ctx.session.conf.time_zone();
    let updated = delta::update(&url, assignments, predicate, &time_zone).await?;
    counts(&[("num_affected_rows", updated)])
}

/// `MERGE INTO`: the source query runs as an Ember job first, its rows under their Spark names
/// and in Delta's types.
pub async fn merge(ctx: &RequestContext, spec: MergeSpec) -> ServerResult<Option<RecordBatch>> {
    let url = named_table(ctx, &spec.target, "MERGE")?;
    let time_zone = ctx.session.conf.time_zone();
    let query = ctx.resolve(&spec.source)?;
    let plan_schema = query.plan.schema().clone();
    let exprs: Vec<Expr> = query
        .names
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let column = Expr::Column(plan_schema.columns()[i].clone());
            cast(column, delta::stored_type(plan_schema.field(i).data_type())).alias(n)
        })
        .collect();
    let source_names = query.names.clone();
    let batches = run_projected(ctx, query.plan, exprs).await?;
    let target_alias = spec
        .target_alias
        .or_else(|| spec.target.last().cloned())
        .unwrap_or_else(|| "target".into());
    let source_alias = spec.source_alias.unwrap_or_else(|| "source".into());
    let m = delta::merge(
        &url,
        &time_zone,
        batches,
        &source_names,
        source_alias,
        target_alias,
        spec.on,
        spec.clauses,
    )
    .await?;
    counts(&[
        ("num_affected_rows", m.updated + m.deleted + m.inserted),
        ("num_updated_rows", m.updated),
        ("num_deleted_rows", m.deleted),
        ("num_inserted_rows", m.inserted),
    ])
}
