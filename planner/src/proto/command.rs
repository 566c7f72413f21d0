//! Spark Connect `Command` -> [`spec::Statement`].

use ember_protos::spark::connect as pb;
use ember_protos::spark::connect::command::CommandType;

use super::{ProtoContext, relation};
use datafusion::common::ScalarValue;

use crate::error::{ErrorKind, PlanResult, SparkError, invalid, unsupported};
use crate::spec::{
    Bucketing, PartitionTransform, SaveMode, Statement, ViewKind, WriteSpec, WriteTarget, WriteV2,
    WriteV2Mode,
};
use crate::sql;

/// What a command asks for. `Sql` is returned separately because Spark answers a SQL command
/// with the relation to run rather than running it eagerly when it is a query.
pub enum CommandSpec {
    /// `spark.sql(...)`: a statement with its original relation (for queries).
    Sql {
        statement: Statement,
        relation: Box<pb::Relation>,
    },
    Statement(Statement),
    /// `df.checkpoint()`/`df.localCheckpoint()`: compute the relation and keep its rows in
    /// the session; later plans read them as `CachedRemoteRelation`.
    Checkpoint(Box<crate::spec::Plan>),
    /// The client dropped a checkpointed DataFrame.
    RemoveCachedRelation(String),
    /// The ML cache cleanup PySpark sends when a script exits: nothing is cached, so it
    /// removes nothing (answered as Spark answers: the count removed, 0).
    MlCleanCache,
    /// `spark.udf.register(name, f)`: a temporary Python function of the session.
    RegisterPythonFunction(crate::spec::PythonUdf),
    /// `spark.dataSource.register(MySource)`: a Python data source of the session, by the
    /// name its `name()` gives.
    RegisterPythonDataSource {
        name: String,
        source: ember_execution::python::PythonFunction,
    },
}

pub fn convert_command(ctx: &ProtoContext, cmd: &pb::Command) -> PlanResult<CommandSpec> {
    let Some(command) = &cmd.command_type else {
        return invalid("command without a type");
    };
    Ok(match command {
        CommandType::SqlCommand(s) => {
            #[allow(deprecated)]
            let relation = match &s.input {
                Some(r) => r.clone(),
                None => pb::Relation {
                    common: None,
                    rel_type: Some(pb::relation::RelType::Sql(pb::Sql {
                        query: s.sql.clone(),
                        args: s.args.clone(),
                        pos_args: s.pos_args.clone(),
                        named_arguments: s.named_arguments.clone(),
                        pos_arguments: s.pos_arguments.clone(),
                    })),
                },
            };
            let statement = match &relation.rel_type {
                Some(pb::relation::RelType::Sql(q)) => {
                    let args = sql_arguments(ctx, q)?;
                    sql::parse_statement(&q.query, &args)?
                }
                Some(_) => Statement::Query(relation::convert(ctx, &relation)?),
                None => return invalid("SQL command without input"),
            };
            CommandSpec::Sql {
                statement,
                relation: Box::new(relation),
            }
        }
        CommandType::CreateDataframeView(v) => {
            let Some(input) = &v.input else {
                return invalid("createOrReplaceTempView without input");
            };
            let mut plan = relation::convert(ctx, input)?;
            plan.strip_plan_ids();
            CommandSpec::Statement(Statement::CreateView {
                name: vec![v.name.clone()],
                plan,
                kind: if v.is_global {
                    ViewKind::GlobalTemporary
                } else {
                    ViewKind::Temporary
                },
                replace: v.replace,
                if_not_exists: false,
                columns: vec![],
            })
        }
        CommandType::MlCommand(m) => match &m.command {
            Some(pb::ml_command::Command::CleanCache(_)) => CommandSpec::MlCleanCache,
            _ => return unsupported("ML commands"),
        },
        CommandType::WriteOperation(w) => {
            CommandSpec::Statement(Statement::Write(Box::new(write_operation(ctx, w)?)))
        }
        CommandType::WriteOperationV2(w) => {
            CommandSpec::Statement(Statement::WriteV2(Box::new(write_v2(ctx, w)?)))
        }
        CommandType::RegisterFunction(f) => {
            CommandSpec::RegisterPythonFunction(super::expression::python_udf(ctx, f)?)
        }
        CommandType::RegisterTableFunction(f) => {
            CommandSpec::RegisterPythonFunction(super::udtf::python_udtf(ctx, f)?)
        }
        CommandType::RegisterDataSource(d) => {
            use pb::common_inline_user_defined_data_source::DataSource;
            let Some(DataSource::PythonDataSource(p)) = &d.data_source else {
                return invalid("register_data_source without a Python data source");
            };
            CommandSpec::RegisterPythonDataSource {
                name: d.name.clone(),
                source: ember_execution::python::PythonFunction {
                    eval_type: ember_execution::python::datasource::DS_SCHEMA,
                    command: p.command.as_slice().into(),
                    python_ver: p.python_ver.clone(),
                    artifacts: ctx.python_artifacts.clone(),
                },
            }
        }
        CommandType::WriteStreamOperationStart(_)
        | CommandType::StreamingQueryCommand(_)
        | CommandType::StreamingQueryManagerCommand(_)
        | CommandType::StreamingQueryListenerBusCommand(_) => {
            return unsupported("structured streaming");
        }
        CommandType::GetResourcesCommand(_) => return unsupported("SparkContext.resources"),
        CommandType::CreateResourceProfileCommand(_) => return unsupported("resource profiles"),
        CommandType::CheckpointCommand(c) => {
            let Some(relation) = &c.relation else {
                return invalid("checkpoint without a relation");
            };
            CommandSpec::Checkpoint(Box::new(relation::convert(ctx, relation)?))
        }
        CommandType::RemoveCachedRemoteRelationCommand(r) => CommandSpec::RemoveCachedRelation(
            r.relation
                .as_ref()
                .map(|r| r.relation_id.clone())
                .unwrap_or_default(),
        ),
        CommandType::MergeIntoTableCommand(_) => return unsupported("MERGE INTO"),
        CommandType::ExecuteExternalCommand(_) => return unsupported("external commands"),
        CommandType::PipelineCommand(_) => return unsupported("declarative pipelines"),
        CommandType::Extension(_) => return unsupported("command extensions"),
    })
}

/// `df.writeTo(name)`: DataFrameWriterV2's settings.
fn write_v2(ctx: &ProtoContext, w: &pb::WriteOperationV2) -> PlanResult<WriteV2> {
    use pb::write_operation_v2::Mode;
    let Some(input) = &w.input else {
        return invalid("writeTo without input");
    };
    if !w.clustering_columns.is_empty() {
        return unsupported("clusterBy");
    }
    let (partition_by, bucketing, transforms) = partitioning(ctx, &w.partitioning_columns)?;
    let mode = match w.mode() {
        Mode::Create => WriteV2Mode::Create,
        Mode::Replace => WriteV2Mode::Replace,
        Mode::CreateOrReplace => WriteV2Mode::CreateOrReplace,
        Mode::Append => WriteV2Mode::Append,
        Mode::Overwrite => WriteV2Mode::Overwrite,
        Mode::OverwritePartitions => WriteV2Mode::OverwritePartitions,
        Mode::Unspecified => return invalid("writeTo without a mode"),
    };
    if mode == WriteV2Mode::Overwrite {
        return unsupported("writeTo(...).overwrite(condition)");
    }
    Ok(WriteV2 {
        input: relation::convert(ctx, input)?,
        name: crate::sql::parse_identifier_parts(&w.table_name)?,
        provider: w.provider.clone(),
        partition_by,
        bucketing,
        transforms,
        options: w.options.clone(),
        properties: w
            .table_properties
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect(),
        mode,
    })
}

/// `df.write`: the DataFrameWriter's settings.
fn write_operation(ctx: &ProtoContext, w: &pb::WriteOperation) -> PlanResult<WriteSpec> {
    use pb::write_operation::save_table::TableSaveMethod;
    use pb::write_operation::{SaveMode as PbMode, SaveType};
    let Some(input) = &w.input else {
        return invalid("write without input");
    };
    let bucketing = match &w.bucket_by {
        Some(b) if !b.bucket_column_names.is_empty() => Some(Bucketing {
            num_buckets: bucket_count(i64::from(b.num_buckets), ErrorKind::Analysis)?,
            columns: b.bucket_column_names.clone(),
            sort_columns: w.sort_column_names.clone(),
        }),
        _ if !w.sort_column_names.is_empty() => {
            return Err(SparkError::analysis(
                "SORT_BY_WITHOUT_BUCKETING",
                "42601",
                "sortBy must be used together with bucketBy.",
            )
            .into());
        }
        _ => None,
    };
    if !w.clustering_columns.is_empty() {
        return unsupported("clusterBy");
    }
    // Only `saveAsTable` writes bucketed tables.
    let operation = match &w.save_type {
        Some(SaveType::Table(t)) if t.save_method() == TableSaveMethod::InsertInto => {
            Some("insertInto")
        }
        Some(SaveType::Table(_)) => None,
        _ => Some("save"),
    };
    if let (Some(operation), Some(b)) = (operation, &bucketing) {
        let (class, what) = match b.sort_columns.is_empty() {
            true => ("_LEGACY_ERROR_TEMP_1312", "bucketBy"),
            false => ("_LEGACY_ERROR_TEMP_1313", "bucketBy and sortBy"),
        };
        return Err(SparkError::analysis(
            class,
            "",
            format!("'{operation}' does not support {what} right now."),
        )
        .into());
    }
    let target = match &w.save_type {
        Some(SaveType::Path(p)) => WriteTarget::Path(p.clone()),
        Some(SaveType::Table(t)) => WriteTarget::Table {
            name: crate::sql::parse_identifier_parts(&t.table_name)?,
            insert: t.save_method() == TableSaveMethod::InsertInto,
        },
        // (A Python data source needs none; other formats refuse an empty path.)
        None => WriteTarget::Path(String::new()),
    };
    let mode = match w.mode() {
        PbMode::Append => SaveMode::Append,
        PbMode::Overwrite => SaveMode::Overwrite,
        PbMode::Ignore => SaveMode::Ignore,
        PbMode::ErrorIfExists | PbMode::Unspecified => SaveMode::ErrorIfExists,
    };
    Ok(WriteSpec {
        input: relation::convert(ctx, input)?,
        format: w.source.clone(),
        target,
        mode,
        partition_by: w.partitioning_columns.clone(),
        bucketing,
        options: w.options.clone(),
    })
}

/// A table's number of buckets, checked as Spark checks it.
pub(crate) fn bucket_count(n: i64, kind: crate::error::ErrorKind) -> PlanResult<usize> {
    if n <= 0 || n > 100_000 {
        return Err(SparkError::invalid_bucket_count(n, kind).into());
    }
    Ok(n as usize)
}

/// `partitionedBy(...)` of `writeTo`: columns, the first `bucket(n, cols)`, and every item in
/// order (the session catalog refuses transforms other than one `bucket` when it creates the
/// table, [`crate::spec::check_transforms`]; Iceberg tables take them all).
fn partitioning(
    ctx: &ProtoContext,
    exprs: &[pb::Expression],
) -> PlanResult<(Vec<String>, Option<Bucketing>, Vec<PartitionTransform>)> {
    let mut columns = vec![];
    let mut bucketing: Option<Bucketing> = None;
    let mut transforms = vec![];
    let other = || unsupported("partitionedBy with expressions other than columns and transforms");
    for e in exprs {
        match super::convert_expression(ctx, e)? {
            crate::spec::Expr::Attribute { name, .. } => {
                transforms.push(PartitionTransform::identity(&name.join(".")));
                columns.push(name.join("."));
            }
            crate::spec::Expr::Function(f) => {
                let Some(transform) = f.name.strip_prefix(crate::spec::PARTITION_TRANSFORM) else {
                    return other();
                };
                let mut args = vec![];
                for a in &f.args {
                    args.push(match a {
                        crate::spec::Expr::Attribute { name, .. } => name.join("."),
                        crate::spec::Expr::Literal(
                            v @ (ScalarValue::Int32(Some(_)) | ScalarValue::Int64(Some(_))),
                        ) => v.to_string(),
                        _ => return other(),
                    });
                }
                if transform == "bucket" && bucketing.is_none() {
                    let n = match f.args.first() {
                        Some(crate::spec::Expr::Literal(n)) => n,
                        _ => return invalid("bucket() without a number of buckets"),
                    };
                    let n = match n {
                        ScalarValue::Int32(Some(n)) => i64::from(*n),
                        ScalarValue::Int64(Some(n)) => *n,
                        _ => {
                            return invalid(
                                "bucket() with a number of buckets that is not an integer",
                            );
                        }
                    };
                    bucketing = Some(Bucketing {
                        num_buckets: bucket_count(n, ErrorKind::Analysis)?,
                        columns: args[1..].to_vec(),
                        sort_columns: vec![],
                    });
                }
                transforms.push(PartitionTransform {
                    name: transform.to_string(),
                    args,
                });
            }
            _ => return other(),
        }
    }
    Ok((columns, bucketing, transforms))
}

pub fn sql_arguments(ctx: &ProtoContext, q: &pb::Sql) -> PlanResult<sql::Arguments> {
    #[allow(deprecated)]
    let mut named = q
        .named_arguments
        .iter()
        .map(|(k, v)| Ok((k.clone(), super::convert_expression(ctx, v)?)))
        .collect::<PlanResult<Vec<_>>>()?;
    #[allow(deprecated)]
    for (k, v) in &q.args {
        named.push((
            k.clone(),
            crate::spec::Expr::Literal(crate::literal::from_proto(v, &ctx.time_zone)?),
        ));
    }
    #[allow(deprecated)]
    let positional = if !q.pos_arguments.is_empty() {
        q.pos_arguments
            .iter()
            .map(|v| super::convert_expression(ctx, v))
            .collect::<PlanResult<Vec<_>>>()?
    } else {
        q.pos_args
            .iter()
            .map(|v| {
                Ok(crate::spec::Expr::Literal(crate::literal::from_proto(
                    v,
                    &ctx.time_zone,
                )?))
            })
            .collect::<PlanResult<Vec<_>>>()?
    };
    Ok(sql::Arguments { named, positional })
}
