//! Writes to Iceberg tables (`df.write.format("iceberg").mode(...).save(location)`, and for
//! the tables of a session's Iceberg catalog `CREATE TABLE ice.db.t ... [AS SELECT]`,
//! `INSERT INTO|OVERWRITE ice.db.t`, `saveAsTable`/`insertInto`).
//!
//! The query runs as any other job (in the cluster modes on the workers) and its batches come
//! back to the driver, which aligns them with the table's columns by name (cast to the
//! table's types; a table column the data lacks is NULL; a data column the table lacks is an
//! error) and commits them ([`Target::commit`]: a path's table, or a REST catalog's). A missing
//! table is created from the data's schema (format version 2, partitioned by the write's
//! `partitionBy`/`PARTITIONED BY`/`partitionedBy` items).

use arrow::datatypes::Field;
use datafusion::common::ScalarValue;
use datafusion::logical_expr::{Expr, cast, lit};
use ember_execution::formats::delta;
use ember_execution::formats::iceberg::Target;
use ember_execution::formats::iceberg::io::Io;
use ember_execution::formats::iceberg::write::{self as iceberg_write, CommitMode};
use ember_planner::SparkError;
use ember_planner::spec::{self, CreateTableSpec, Plan, SaveMode, WriteSpec};

use super::write::analysis;
use crate::error::ServerResult;
use crate::state::RequestContext;

/// `df.write.format("iceberg")...save(location)`.
pub async fn save(ctx: &RequestContext, spec: WriteSpec, target: &Target) -> ServerResult<()> {
    target.check_allowed()?;
    let exists = target.exists(&iceberg_io(ctx))?;
    let path = target.shown();
    if exists {
        match spec.mode {
            SaveMode::ErrorIfExists => {
                return Err(analysis(
                    "TABLE_OR_VIEW_ALREADY_EXISTS",
                    "42P07",
                    format!("Cannot create table or view {path} because it already exists."),
                    vec![("relationName", path.to_string())],
                )
                .into());
            }
            SaveMode::Ignore => return Ok(()),
            SaveMode::Append | SaveMode::Overwrite => {}
        }
    }
    if spec.bucketing.is_some() {
        return Err(SparkError::unsupported("bucketBy of Iceberg tables").into());
    }
    // `partitionBy(...)` partitions a new table by those columns; an existing table keeps its
    // spec (as iceberg-spark).
    let partitioning: Vec<(String, Vec<String>)> = spec
        .partition_by
        .iter()
        .map(|c| ("identity".to_string(), vec![c.clone()]))
        .collect();
    let query = ctx.resolve(&spec.input)?;
    let mode = match spec.mode {
        SaveMode::Overwrite if super::catalog::dynamic_partition_overwrite(ctx) => {
            CommitMode::OverwritePartitions
        }
        SaveMode::Overwrite => CommitMode::Overwrite,
        _ => CommitMode::Append,
    };
    let write = Write {
        mode,
        ..Write::creating(&partitioning)
    };
    write_query(ctx, query, target, write).await
}

/// The table `name` names when it is a table of one of the session's Iceberg catalogs.
pub fn catalog_location(ctx: &RequestContext, name: &[String]) -> ServerResult<Option<Target>> {
    Ok(
        ember_planner::datasource::iceberg::catalog_table(&ctx.planner_config().catalogs, name)
            .map_err(|e| e.into_spark())?,
    )
}

/// `CREATE TABLE ice.db.t (...) USING iceberg [AS SELECT ...]` in an Iceberg catalog.
pub async fn create_table(
    ctx: &RequestContext,
    spec: &CreateTableSpec,
    location: &Target,
) -> ServerResult<()> {
    location.check_allowed()?;
    if spec
        .format
        .as_deref()
        .is_some_and(|f| !f.eq_ignore_ascii_case("iceberg"))
    {
        return Err(SparkError::unsupported(format!(
            "tables of format {} in an Iceberg catalog",
            spec.format.clone().unwrap_or_default()
        ))
        .into());
    }
    // (A `bucket(...)` of PARTITIONED BY also sets the bucketing; CLUSTERED BY alone does.)
    if spec.bucketing.is_some() && !spec.transforms.iter().any(|t| t.name == "bucket") {
        return Err(SparkError::unsupported("CLUSTERED BY of Iceberg tables").into());
    }
    let partitioning = partitioning(&spec.transforms);
    let exists = location.exists(&iceberg_io(ctx))?;
    if spec.replace && exists {
        // CREATE OR REPLACE TABLE of an existing table: replaced in one commit.
        return match (&spec.query, &spec.columns) {
            (Some(query), _) => {
                let query = ctx.resolve(query)?;
                let write = Write::replacing(&partitioning);
                write_query(ctx, query, location, write).await
            }
            (None, Some(columns)) => {
                let fields = declared_fields(ctx, columns)?;
                let table = replaced(ctx, location, &fields, &partitioning)?;
                Ok(iceberg_write::commit_to(&table, &[], CommitMode::Append)?)
            }
            (None, None) => Err(SparkError::unsupported("CREATE TABLE without columns").into()),
        };
    }
    if exists {
        if spec.if_not_exists {
            return Ok(());
        }
        let shown = spec.name.join(".");
        return Err(analysis(
            "TABLE_OR_VIEW_ALREADY_EXISTS",
            "42P07",
            format!("Cannot create table or view {shown} because it already exists."),
            vec![("relationName", shown.clone())],
        )
        .into());
    }
    match (&spec.query, &spec.columns) {
        (Some(query), _) => {
            let query = ctx.resolve(query)?;
            write_query(ctx, query, location, Write::creating(&partitioning)).await
        }
        (None, Some(columns)) => {
            let fields = declared_fields(ctx, columns)?;
            location.create(&iceberg_io(ctx), &fields, &partitioning)?;
            Ok(())
        }
        (None, None) => Err(SparkError::unsupported("CREATE TABLE without columns").into()),
    }
}

/// The columns a CREATE TABLE declares, as the table's fields (nullable, in Iceberg's types).
fn declared_fields(ctx: &RequestContext, columns: &str) -> ServerResult<Vec<Field>> {
    let schema = ember_planner::types::parse_schema(columns, &ctx.session.conf.time_zone())?;
    Ok(schema
        .fields()
        .iter()
        .map(|f| Field::new(f.name(), delta::spark_type(f.data_type()), true))
        .collect())
}

/// `INSERT INTO|OVERWRITE ice.db.t ...` (columns by position) and `insertInto`.
pub async fn insert(
    ctx: &RequestContext,
    location: &Target,
    query: &Plan,
    mode: CommitMode,
    by_name: bool,
) -> ServerResult<()> {
    location.check_allowed()?;
    if !location.exists(&iceberg_io(ctx))? {
        return Err(SparkError::table_not_found(&location.shown()).into());
    }
    let query = ctx.resolve(query)?;
    let write = Write {
        mode,
        by_position: !by_name,
        partitioning: &[],
        replace: false,
    };
    write_query(ctx, query, location, write).await
}

/// Spark's partitioning items as the Iceberg writer takes them.
fn partitioning(transforms: &[spec::PartitionTransform]) -> Vec<(String, Vec<String>)> {
    transforms
        .iter()
        .map(|t| (t.name.clone(), t.args.clone()))
        .collect()
}

/// `df.writeTo("ice.db.t")` with `create`, `replace`, `createOrReplace`, `append` and
/// `overwritePartitions`.
pub async fn write_v2(
    ctx: &RequestContext,
    w: spec::WriteV2,
    location: &Target,
) -> ServerResult<()> {
    use spec::WriteV2Mode as M;
    location.check_allowed()?;
    if w.provider
        .as_deref()
        .is_some_and(|f| !f.eq_ignore_ascii_case("iceberg"))
    {
        return Err(SparkError::unsupported(format!(
            "tables of format {} in an Iceberg catalog",
            w.provider.clone().unwrap_or_default()
        ))
        .into());
    }
    let exists = location.exists(&iceberg_io(ctx))?;
    let shown = w.name.join(".");
    match (w.mode, exists) {
        (M::Create, true) => Err(analysis(
            "TABLE_OR_VIEW_ALREADY_EXISTS",
            "42P07",
            format!("Cannot create table or view {shown} because it already exists."),
            vec![("relationName", shown.clone())],
        )
        .into()),
        (M::Create | M::CreateOrReplace, false) => {
            let query = ctx.resolve(&w.input)?;
            let partitioning = partitioning(&w.transforms);
            write_query(ctx, query, location, Write::creating(&partitioning)).await
        }
        (M::Replace | M::CreateOrReplace, true) => {
            let query = ctx.resolve(&w.input)?;
            let partitioning = partitioning(&w.transforms);
            write_query(ctx, query, location, Write::replacing(&partitioning)).await
        }
        (M::Replace | M::Append | M::Overwrite | M::OverwritePartitions, false) => Err(analysis(
            "TABLE_OR_VIEW_NOT_FOUND",
            "42P01",
            format!("The table or view {shown} cannot be found. Verify the spelling and correctness of the schema and catalog."),
            vec![("relationName", shown.clone())],
        )
        .into()),
        (M::Append, true) => {
            let query = ctx.resolve(&w.input)?;
            write_query(ctx, query, location, Write::creating(&[])).await
        }
        (M::OverwritePartitions, true) => {
            let query = ctx.resolve(&w.input)?;
            let write = Write {
                mode: CommitMode::OverwritePartitions,
                ..Write::creating(&[])
            };
            write_query(ctx, query, location, write).await
        }
        (M::Overwrite, true) => {
            Err(SparkError::unsupported("writeTo(...).overwrite(condition)").into())
        }
    }
}

/// How a query's rows are written.
struct Write<'a> {
    mode: CommitMode,
    /// Columns matched by position (INSERT), not by name.
    by_position: bool,
    /// The partitioning of a table the write creates (or replaces).
    partitioning: &'a [(String, Vec<String>)],
    /// The table is replaced by one of the query's columns and these rows.
    replace: bool,
}

impl<'a> Write<'a> {
    /// Appended by name; a missing table created with `partitioning`.
    fn creating(partitioning: &'a [(String, Vec<String>)]) -> Self {
        Write {
            mode: CommitMode::Append,
            by_position: false,
            partitioning,
            replace: false,
        }
    }

    /// The table replaced (created when missing).
    fn replacing(partitioning: &'a [(String, Vec<String>)]) -> Self {
        Write {
            replace: true,
            ..Self::creating(partitioning)
        }
    }
}

/// The replacement of the existing table at `target` (tables at paths and of Hadoop
/// catalogs; a REST catalog's would need its replace updates).
fn replaced(
    ctx: &RequestContext,
    target: &Target,
    fields: &[Field],
    partitioning: &[(String, Vec<String>)],
) -> ServerResult<ember_execution::formats::iceberg::TableMetadata> {
    if matches!(target, Target::Rest(_)) {
        return Err(SparkError::unsupported("replacing tables of Iceberg REST catalogs").into());
    }
    let table = target.load(&iceberg_io(ctx))?;
    Ok(ember_execution::formats::iceberg::table::replacement(
        &table,
        fields,
        partitioning,
    )?)
}

/// Commit the rows of `query` to the table at `path` (created from the query's columns when
/// missing, or replaced by such a table), its columns matched by name or by position.
async fn write_query(
    ctx: &RequestContext,
    query: ember_planner::ResolvedQuery,
    target: &Target,
    write: Write<'_>,
) -> ServerResult<()> {
    let Write {
        mode,
        by_position,
        partitioning,
        replace,
    } = write;
    let exists = target.exists(&iceberg_io(ctx))?;
    let path = &target.shown();
    let schema = query.plan.schema().clone();
    let data: Vec<Field> = query
        .names
        .iter()
        .zip(schema.fields())
        .map(|(n, f)| Field::new(n, delta::spark_type(f.data_type()), true))
        .collect();
    let replacing = replace && exists;
    let table = if replacing {
        replaced(ctx, target, &data, partitioning)?
    } else {
        if !exists {
            target.create(&iceberg_io(ctx), &data, partitioning)?;
        }
        target.load(&iceberg_io(ctx))?
    };
    let fields = ember_execution::formats::iceberg::types::table_fields(&table)?;
    if by_position && query.names.len() != fields.len() {
        return Err(analysis(
            "INSERT_COLUMN_ARITY_MISMATCH",
            "21S01",
            format!(
                "Cannot write to {path}, the reason is: the number of data columns ({}) differs from the number of table columns ({}).",
                query.names.len(),
                fields.len()
            ),
            vec![],
        )
        .into());
    }
    for name in &query.names {
        if !by_position && !fields.iter().any(|f| f.name().eq_ignore_ascii_case(name)) {
            return Err(analysis(
                "INCOMPATIBLE_DATA_FOR_TABLE.EXTRA_COLUMNS",
                "KD000",
                format!(
                    "Cannot write incompatible data for the table {path}: Cannot find data for the output column `{name}`."
                ),
                vec![],
            )
            .into());
        }
    }
    let mut exprs = vec![];
    for (i, f) in fields.iter().enumerate() {
        let found = if by_position {
            Some(i)
        } else {
            query
                .names
                .iter()
                .position(|n| n.eq_ignore_ascii_case(f.name()))
        };
        let value = match found {
            Some(i) => Expr::Column(schema.columns()[i].clone()),
            None if f.is_nullable() => lit(ScalarValue::Null),
            None => {
                return Err(analysis(
                    "INCOMPATIBLE_DATA_FOR_TABLE.CANNOT_FIND_DATA",
                    "KD000",
                    format!(
                        "Cannot write incompatible data for the table {path}: Cannot find data for the output column `{}`.",
                        f.name()
                    ),
                    vec![],
                )
                .into());
            }
        };
        exprs.push(cast(value, f.data_type().clone()).alias(f.name()));
    }
    let batches = super::delta::run_projected(ctx, query.plan, exprs).await?;
    if replacing {
        iceberg_write::commit_to(&table, &batches, mode)?;
    } else {
        target.commit(&iceberg_io(ctx), &batches, mode)?;
    }
    Ok(())
}

/// The stores of the session (where a table in a bucket is).
fn iceberg_io(ctx: &RequestContext) -> Io {
    Io::new(ctx.datafusion_context().runtime_env())
}
