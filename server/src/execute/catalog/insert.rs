//! Rows into tables: INSERT, `saveAsTable`, `insertInto`, `writeTo`, with Spark's store
//! assignment rules.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use arrow::datatypes::{DataType, Field};
use datafusion::logical_expr::{Expr, LogicalPlanBuilder, cast};
use datafusion::scalar::ScalarValue;
use ember_execution::formats::commit::recover;
use ember_execution::formats::partition::{DEFAULT_PARTITION_NAME, escape_path_name};
use ember_planner::catalog::TableMeta;
use ember_planner::spec::{self, CreateTableSpec, Plan, SaveMode, WriteSpec};
use ember_planner::{PlanError, ResolvedQuery, SparkError, types};

use super::*;
use crate::error::ServerResult;
use crate::execute::write::{FileWriteSpec, analysis, format_or_default, write_files};
use crate::state::RequestContext;

/// Whether Spark's ANSI store assignment writes a `from` value into a `to` column.
fn can_store(from: &DataType, to: &DataType) -> bool {
    use DataType::*;
    let numeric = |t: &DataType| t.is_numeric();
    let stringy = |t: &DataType| matches!(t, Utf8 | LargeUtf8 | Utf8View);
    if from == to || from == &Null {
        return true;
    }
    match (from, to) {
        (_, t) if stringy(t) => !matches!(from, Binary | LargeBinary | BinaryView),
        (f, t) if stringy(f) => stringy(t),
        (f, t) if numeric(f) && numeric(t) => true,
        (Date32 | Timestamp(_, _), Date32 | Timestamp(_, _)) => true,
        (Binary | LargeBinary | BinaryView, Binary | LargeBinary | BinaryView) => true,
        (List(a), List(b)) => can_store(a.data_type(), b.data_type()),
        (Struct(a), Struct(b)) => {
            a.len() == b.len()
                && a.iter()
                    .zip(b.iter())
                    .all(|(x, y)| can_store(x.data_type(), y.data_type()))
        }
        (Map(_, _), Map(_, _)) => true,
        _ => false,
    }
}

/// How the rows of an insert find their columns.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum ColumnMatch {
    ByPosition,
    ByName,
}

/// Whether an insert replaces the table's rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Overwrite {
    No,
    /// All of them, or (`spark.sql.sources.partitionOverwriteMode=dynamic`) those of the
    /// partitions the rows go to.
    Yes,
    /// Those of the partitions the rows go to (`writeTo(...).overwritePartitions()`).
    Partitions,
}

impl Overwrite {
    pub fn from_flag(overwrite: bool) -> Self {
        if overwrite { Self::Yes } else { Self::No }
    }
}

/// INSERT INTO / OVERWRITE, `insertInto`, `saveAsTable` in append mode.
pub async fn insert(
    ctx: &RequestContext,
    table_name: &[String],
    query: &Plan,
    overwrite: Overwrite,
    partition: &[(String, Option<spec::Expr>)],
    columns: &[String],
    matching: ColumnMatch,
) -> ServerResult<()> {
    if let Some(location) = crate::execute::iceberg::catalog_location(ctx, table_name)? {
        if !partition.is_empty() || !columns.is_empty() {
            return Err(SparkError::unsupported(
                "INSERT into Iceberg tables with a PARTITION or column list",
            )
            .into());
        }
        let by_name = matching == ColumnMatch::ByName;
        use ember_execution::formats::iceberg::write::CommitMode;
        let mode = match overwrite {
            Overwrite::No => CommitMode::Append,
            Overwrite::Partitions => CommitMode::OverwritePartitions,
            _ if dynamic_partition_overwrite(ctx) => CommitMode::OverwritePartitions,
            _ => CommitMode::Overwrite,
        };
        return crate::execute::iceberg::insert(ctx, &location, query, mode, by_name).await;
    }
    if ctx.session.catalog.lookup_view(table_name) {
        return Err(SparkError::unsupported(format!(
            "inserting into the view {}",
            table_name.join(".")
        ))
        .into());
    }
    let table = match delta_path_table(ctx, table_name)? {
        Some(t) => t,
        None => existing_table(ctx, table_name)?,
    };
    let is_delta = table.format.eq_ignore_ascii_case("delta");
    let fields = table_fields(ctx, &table)?;
    let q = quoted(&table.database, &table.name);
    let is_partition = |name: &str| {
        table
            .partition_columns
            .iter()
            .any(|p| p.eq_ignore_ascii_case(name))
    };
    // Static partition values name directories; the query gives the other columns.
    let mut static_values: Vec<(String, String)> = vec![];
    // (Their typed values: a Delta table's rows carry them.)
    let mut static_scalars: Vec<ScalarValue> = vec![];
    for (column, value) in partition {
        if !is_partition(column) {
            return Err(analysis(
                "PARTITIONS_NOT_FOUND",
                "428FT",
                format!("The partition(s) `{column}` cannot be found in table {q}."),
                vec![],
            )
            .into());
        }
        let Some(value) = value else { continue };
        let spec::Expr::Literal(v) = value else {
            return Err(SparkError::unsupported("a partition value that is not a literal").into());
        };
        let field = fields
            .iter()
            .find(|f| f.name().eq_ignore_ascii_case(column))
            .ok_or_else(|| SparkError::table_not_found(column))?;
        static_scalars.push(v.cast_to(field.data_type()).map_err(PlanError::from)?);
        let text = if v.is_null() {
            DEFAULT_PARTITION_NAME.to_string()
        } else {
            let typed = v
                .cast_to(field.data_type())
                .and_then(|t| t.cast_to(&DataType::Utf8))
                .map_err(PlanError::from)?;
            match typed {
                ScalarValue::Utf8(Some(s)) if !s.is_empty() => escape_path_name(&s),
                _ => DEFAULT_PARTITION_NAME.to_string(),
            }
        };
        static_values.push((field.name().clone(), text));
    }
    // Static partitions come first in the directory tree, as in Spark.
    let static_prefix_ok = table
        .partition_columns
        .iter()
        .take(static_values.len())
        .zip(&static_values)
        .all(|(p, (s, _))| p.eq_ignore_ascii_case(s));
    if !static_prefix_ok {
        return Err(SparkError::unsupported(
            "a static partition value after a dynamic partition column",
        )
        .into());
    }
    let targets: Vec<&Field> = fields
        .iter()
        .filter(|f| !static_values.iter().any(|(s, _)| s == f.name()))
        .map(|f| f.as_ref())
        .collect();
    let resolved = ctx.resolve(query)?;
    let data_schema = resolved.plan.schema().clone();
    let arity = |reason: &str, detail: &str| -> ServerResult<()> {
        let table_cols: Vec<String> = targets.iter().map(|f| format!("`{}`", f.name())).collect();
        let data_cols: Vec<String> = resolved.names.iter().map(|n| format!("`{n}`")).collect();
        Err(analysis(
            &format!("INSERT_COLUMN_ARITY_MISMATCH.{reason}"),
            "21S01",
            format!(
                "Cannot write to {q}, the reason is {detail}:\nTable columns: {}.\nData columns: {}.",
                table_cols.join(", "),
                data_cols.join(", ")
            ),
            vec![],
        )
        .into())
    };
    // For each target column, the query column that fills it (None: NULL).
    let sources: Vec<Option<usize>> = if !columns.is_empty() || matching == ColumnMatch::ByName {
        let given: Vec<String> = if columns.is_empty() {
            resolved.names.clone()
        } else {
            columns.to_vec()
        };
        if given.len() != resolved.names.len() {
            let (reason, detail) = if given.len() > resolved.names.len() {
                ("NOT_ENOUGH_DATA_COLUMNS", "not enough data columns")
            } else {
                ("TOO_MANY_DATA_COLUMNS", "too many data columns")
            };
            arity(reason, detail)?;
        }
        for g in &given {
            if !targets.iter().any(|f| f.name().eq_ignore_ascii_case(g)) {
                let proposal: Vec<String> =
                    targets.iter().map(|f| format!("`{}`", f.name())).collect();
                return Err(analysis(
                    "UNRESOLVED_COLUMN.WITH_SUGGESTION",
                    "42703",
                    format!(
                        "A column, variable, or function parameter with name `{g}` cannot be resolved. Did you mean one of the following? [{}].",
                        proposal.join(", ")
                    ),
                    vec![],
                )
                .into());
            }
        }
        if matching == ColumnMatch::ByName && columns.is_empty() && given.len() < targets.len() {
            arity("NOT_ENOUGH_DATA_COLUMNS", "not enough data columns")?;
        }
        targets
            .iter()
            .map(|f| given.iter().position(|g| g.eq_ignore_ascii_case(f.name())))
            .collect()
    } else {
        if resolved.names.len() < targets.len() {
            arity("NOT_ENOUGH_DATA_COLUMNS", "not enough data columns")?;
        }
        if resolved.names.len() > targets.len() {
            arity("TOO_MANY_DATA_COLUMNS", "too many data columns")?;
        }
        (0..targets.len()).map(Some).collect()
    };
    let mut exprs = Vec::with_capacity(targets.len());
    for (f, source) in targets.iter().zip(&sources) {
        let e = match source {
            Some(i) => {
                let from = data_schema.field(*i).data_type();
                if !can_store(from, f.data_type()) {
                    return Err(analysis(
                        "INCOMPATIBLE_DATA_FOR_TABLE.CANNOT_SAFELY_CAST",
                        "KD000",
                        format!(
                            "Cannot write incompatible data for the table {q}: Cannot safely cast `{}` \"{}\" to \"{}\".",
                            f.name(),
                            types::sql_name(from),
                            types::sql_name(f.data_type())
                        ),
                        vec![],
                    )
                    .into());
                }
                let col = Expr::Column(data_schema.columns()[*i].clone());
                if from == f.data_type() {
                    col
                } else {
                    cast(col, f.data_type().clone())
                }
            }
            None => Expr::Literal(
                ScalarValue::try_from(f.data_type()).map_err(PlanError::from)?,
                None,
            ),
        };
        exprs.push(e.alias(f.name()));
    }
    let mut names: Vec<String> = targets.iter().map(|f| f.name().clone()).collect();
    if is_delta {
        // A Delta table's rows hold their partition values; a static partition's are
        // constants of the query.
        for ((name, _), value) in static_values.iter().zip(&static_scalars) {
            exprs.push(Expr::Literal(value.clone(), None).alias(name));
            names.push(name.clone());
        }
    }
    let plan = LogicalPlanBuilder::from(resolved.plan)
        .project(exprs)?
        .build()?;
    let query = ResolvedQuery {
        plan,
        names,
        post: resolved.post,
        observations: resolved.observations,
    };
    if is_delta {
        return insert_delta(
            ctx,
            &table,
            query,
            overwrite,
            &static_values,
            &static_scalars,
        )
        .await;
    }
    let mut target = PathBuf::from(&table.location);
    for (column, value) in &static_values {
        target.push(format!("{}={value}", escape_path_name(column)));
    }
    recover(Path::new(&table.location))?;
    write_files(
        ctx,
        query,
        FileWriteSpec {
            target: target.into(),
            format: table.format.clone(),
            options: table.options.clone().into_iter().collect(),
            partition_by: table
                .partition_columns
                .iter()
                .skip(static_values.len())
                .cloned()
                .collect(),
            bucketing: table.bucketing.clone(),
            overwrite: overwrite != Overwrite::No,
            dynamic_overwrite: overwrite == Overwrite::Partitions
                || (overwrite == Overwrite::Yes && dynamic_partition_overwrite(ctx)),
        },
    )
    .await?;
    Ok(())
}

/// ``delta.`/path` `` named by an INSERT (and not a catalog table): the Delta table there, with
/// its log's partitioning (its columns come from the log as a catalog Delta table's do).
fn delta_path_table(ctx: &RequestContext, name: &[String]) -> ServerResult<Option<TableMeta>> {
    use ember_execution::formats::delta;
    use ember_planner::datasource::block_on;
    let [format, path] = name else {
        return Ok(None);
    };
    if !format.eq_ignore_ascii_case("delta") || ctx.session.catalog.lookup_table(name).is_some() {
        return Ok(None);
    }
    crate::execute::write::location(path)?;
    let location = delta::DeltaLocation::new(path, &ctx.datafusion_context().runtime_env())?;
    let time_zone = ctx.session.conf.time_zone();
    let table =
        block_on(delta::open(&location, None, &time_zone)).map_err(|e| e.into_spark())??;
    let (_, partition_columns) = delta::table_schema(&table)?;
    Ok(Some(TableMeta {
        database: "delta".into(),
        name: path.clone(),
        format: "delta".into(),
        schema: serde_json::Value::Null,
        partition_columns,
        bucketing: None,
        location: path.clone(),
        managed: false,
        options: Default::default(),
        properties: Default::default(),
        comment: None,
        created_ms: 0,
    }))
}

/// An INSERT into a Delta table, its static partition values (if any) among the query's
/// columns: INSERT OVERWRITE with static values replaces those partitions (`replaceWhere`)
/// in static mode; in dynamic mode, the partitions the rows go to.
async fn insert_delta(
    ctx: &RequestContext,
    table: &TableMeta,
    query: ResolvedQuery,
    overwrite: Overwrite,
    static_values: &[(String, String)],
    static_scalars: &[ScalarValue],
) -> ServerResult<()> {
    let dynamic = overwrite == Overwrite::Partitions
        || (overwrite == Overwrite::Yes && dynamic_partition_overwrite(ctx));
    let mut options: HashMap<String, String> = table.options.clone().into_iter().collect();
    if overwrite != Overwrite::No && !dynamic && !static_values.is_empty() {
        let terms: Vec<String> = static_values
            .iter()
            .zip(static_scalars)
            .map(|((name, _), value)| {
                let column = format!("\"{}\"", name.replace('"', "\"\""));
                match value.cast_to(&DataType::Utf8) {
                    Ok(ScalarValue::Utf8(Some(text))) if !value.is_null() => {
                        format!("{column} = '{}'", text.replace('\'', "''"))
                    }
                    _ => format!("{column} IS NULL"),
                }
            })
            .collect();
        options.insert("replaceWhere".into(), terms.join(" AND "));
    }
    write_files(
        ctx,
        query,
        FileWriteSpec {
            target: crate::execute::write::location(&table.location)?,
            format: table.format.clone(),
            options,
            partition_by: table.partition_columns.clone(),
            bucketing: None,
            overwrite: overwrite != Overwrite::No,
            dynamic_overwrite: dynamic,
        },
    )
    .await?;
    Ok(())
}

/// `df.write.saveAsTable(name)` and `df.write.insertInto(name)`.
pub async fn write_table(ctx: &RequestContext, spec: WriteSpec) -> ServerResult<()> {
    let spec::WriteTarget::Table {
        name,
        insert: is_insert,
    } = &spec.target
    else {
        return Err(SparkError::invalid_plan("not a table write").into());
    };
    if *is_insert {
        if !spec.partition_by.is_empty() {
            return Err(analysis(
                "_LEGACY_ERROR_TEMP_1309",
                "",
                "insertInto() can't be used together with partitionBy(). Partition columns have already been defined for the table. It is not necessary to use partitionBy().".into(),
                vec![],
            )
            .into());
        }
        return insert(
            ctx,
            name,
            &spec.input,
            Overwrite::from_flag(spec.mode == SaveMode::Overwrite),
            &[],
            &[],
            ColumnMatch::ByPosition,
        )
        .await;
    }
    // `saveAsTable("ice.db.t")`: a table of an Iceberg catalog, with the path write's modes.
    if let Some(location) = crate::execute::iceberg::catalog_location(ctx, name)? {
        return crate::execute::iceberg::save(ctx, spec.clone(), &location).await;
    }
    let (db, table) = table_name(ctx, name)?;
    let existing = ctx.session.catalog.warehouse().table(&db, &table);
    match (existing, spec.mode) {
        (Some(_), SaveMode::ErrorIfExists) => Err(table_exists_error(&db, &table).into()),
        (Some(_), SaveMode::Ignore) => Ok(()),
        (Some(t), SaveMode::Append) => {
            let fields: Vec<Field> = table_fields(ctx, &t)?
                .iter()
                .map(|f| f.as_ref().clone())
                .collect();
            let given = checked_bucketing(spec.bucketing.clone(), &fields, &db, &table)?;
            if given != t.bucketing {
                return Err(analysis(
                    "_LEGACY_ERROR_TEMP_1164",
                    "",
                    format!(
                        "Specified bucketing does not match that of the existing table \
                         spark_catalog.{db}.{table}."
                    ),
                    vec![],
                )
                .into());
            }
            insert(
                ctx,
                name,
                &spec.input,
                Overwrite::No,
                &[],
                &[],
                ColumnMatch::ByName,
            )
            .await
        }
        (Some(t), SaveMode::Overwrite) => {
            replace_table(
                ctx,
                t,
                &spec.input,
                NewLayout {
                    format: spec.format,
                    partition_by: spec.partition_by,
                    bucketing: spec.bucketing,
                    options: spec.options,
                    properties: None,
                },
            )
            .await
        }
        (None, _) => {
            let mut options = spec.options;
            let location = options.remove("path");
            create_table(
                ctx,
                CreateTableSpec {
                    name: name.clone(),
                    format: spec.format,
                    partition_by: spec.partition_by,
                    bucketing: spec.bucketing,
                    location,
                    options: options.into_iter().collect(),
                    query: Some(spec.input),
                    ..Default::default()
                },
            )
            .await
        }
    }
}

/// What a replaced table becomes: its format, partitioning, bucketing and options (its
/// properties stay unless given).
pub struct NewLayout {
    pub format: Option<String>,
    pub partition_by: Vec<String>,
    pub bucketing: Option<Bucketing>,
    pub options: HashMap<String, String>,
    pub properties: Option<Vec<(String, String)>>,
}

/// Overwrite a table with a query's rows and the query's schema (`saveAsTable` in overwrite
/// mode, `writeTo(...).replace()`): the data is replaced atomically, then the catalog entry.
pub async fn replace_table(
    ctx: &RequestContext,
    old: TableMeta,
    input: &Plan,
    layout: NewLayout,
) -> ServerResult<()> {
    let NewLayout {
        format,
        partition_by,
        bucketing,
        options,
        properties,
    } = layout;
    let format = format_or_default(ctx, format.as_deref());
    check_table_format(&format)?;
    let query = ctx.resolve(input)?;
    let fields = query_fields(&query);
    let names: Vec<&str> = fields.iter().map(|f| f.name().as_str()).collect();
    check_unique_columns(&names)?;
    let declared = fields.clone();
    let (fields, partition_columns) =
        partitioned_last(fields, &partition_by, &old.database, &old.name)?;
    // A Delta table keeps its columns in the declared order.
    let fields = if format == "delta" { declared } else { fields };
    let bucketing = checked_bucketing(bucketing, &fields, &old.database, &old.name)?;
    let location = PathBuf::from(&old.location);
    recover(&location)?;
    let mut write_options = options.clone();
    if format == "delta" {
        // Replacing a Delta table replaces its schema and partitioning too.
        write_options.insert("overwriteSchema".into(), "true".into());
    }
    write_files(
        ctx,
        query,
        FileWriteSpec {
            target: location.into(),
            format: format.clone(),
            options: write_options,
            partition_by: partition_columns.clone(),
            bucketing: bucketing.clone(),
            overwrite: true,
            dynamic_overwrite: false,
        },
    )
    .await?;
    let mut options = options;
    options.remove("path");
    let meta = TableMeta {
        format,
        schema: schema_json(&fields)?,
        partition_columns,
        bucketing,
        options: options.into_iter().collect(),
        properties: properties
            .map(|p| p.into_iter().collect())
            .unwrap_or(old.properties.clone()),
        created_ms: now_ms(),
        ..old
    };
    ctx.session.catalog.warehouse().update(|s| {
        s.tables
            .entry(meta.database.clone())
            .or_default()
            .insert(meta.name.clone(), meta);
        Ok(())
    })?;
    Ok(())
}

/// `df.writeTo(name)...`: DataFrameWriterV2 on file tables of the session catalog.
pub async fn write_v2(ctx: &RequestContext, w: spec::WriteV2) -> ServerResult<()> {
    use spec::WriteV2Mode as M;
    if let Some(location) = crate::execute::iceberg::catalog_location(ctx, &w.name)? {
        return crate::execute::iceberg::write_v2(ctx, w, &location).await;
    }
    spec::check_transforms(&w.transforms)?;
    let (db, table) = table_name(ctx, &w.name)?;
    let existing = ctx.session.catalog.warehouse().table(&db, &table);
    let create = |w: spec::WriteV2| CreateTableSpec {
        name: w.name,
        format: w.provider,
        partition_by: w.partition_by,
        bucketing: w.bucketing,
        transforms: w.transforms,
        options: w.options.into_iter().collect(),
        properties: w.properties,
        query: Some(w.input),
        ..Default::default()
    };
    match (w.mode, existing) {
        (M::Create, _) => create_table(ctx, create(w)).await,
        (M::CreateOrReplace, None) => create_table(ctx, create(w)).await,
        (M::Replace | M::CreateOrReplace, Some(t)) => {
            let properties = (!w.properties.is_empty()).then_some(w.properties);
            replace_table(
                ctx,
                t,
                &w.input,
                NewLayout {
                    format: w.provider,
                    partition_by: w.partition_by,
                    bucketing: w.bucketing,
                    options: w.options,
                    properties,
                },
            )
            .await
        }
        (M::Replace, None) => {
            let q = quoted(&db, &table);
            Err(analysis(
                "TABLE_OR_VIEW_NOT_FOUND",
                "42P01",
                format!("The table or view {q} cannot be found. Verify the spelling and correctness of the schema and catalog."),
                vec![("relationName", q.clone())],
            )
            .into())
        }
        (M::Append | M::Overwrite | M::OverwritePartitions, None) => {
            Err(SparkError::table_not_found(&w.name.join(".")).into())
        }
        (M::Append, Some(_)) => {
            let input = &w.input;
            insert(
                ctx,
                &w.name,
                input,
                Overwrite::No,
                &[],
                &[],
                ColumnMatch::ByName,
            )
            .await
        }
        (M::OverwritePartitions, Some(_)) => {
            let input = &w.input;
            insert(
                ctx,
                &w.name,
                input,
                Overwrite::Partitions,
                &[],
                &[],
                ColumnMatch::ByName,
            )
            .await
        }
        (M::Overwrite, Some(_)) => {
            Err(SparkError::unsupported("writeTo(...).overwrite(condition)").into())
        }
    }
}

/// `spark.sql.sources.partitionOverwriteMode=dynamic`: an overwrite of a partitioned table
/// or directory replaces only the partitions it writes.
pub fn dynamic_partition_overwrite(ctx: &RequestContext) -> bool {
    ctx.session
        .conf
        .get("spark.sql.sources.partitionOverwriteMode")
        .is_some_and(|m| m.trim().eq_ignore_ascii_case("dynamic"))
}
