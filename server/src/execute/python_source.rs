//! `df.write.format("my").mode("append"|"overwrite").save()` into a Python data source the
//! session registered: a pooled worker gives the source's writer (pickled), the query runs
//! as a map whose tasks each call the writer's `write` over their partition's rows
//! (`DS_WRITE`: one commit message, or the task's error, per partition), and then the writer
//! commits with every message, or aborts (a failed task's message is `None`) and the write
//! fails with the task's error. See `ember_execution::python::datasource`.

use arrow::array::{Array, BinaryArray, StringArray};
use datafusion::logical_expr::{Expr, LogicalPlanBuilder};
use ember_execution::python::datasource::{self, DS_WRITE};
use ember_execution::python::{PythonError, PythonFunction, python_executable};
use ember_planner::error::ErrorKind;
use ember_planner::functions::python::python_error;
use ember_planner::logical::python_map::PythonMapNode;
use ember_planner::resolver::python_source::{planned, source_options};
use ember_planner::spec::{SaveMode, WriteSpec, WriteTarget};
use ember_planner::{PostProcess, ResolvedQuery, SparkError};

use crate::error::ServerResult;
use crate::state::RequestContext;

/// Run the blocking worker call `f` off the async threads.
async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, PythonError> + Send + 'static,
) -> ServerResult<Result<T, PythonError>> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| datafusion::error::DataFusionError::External(Box::new(e)).into())
}

pub async fn write(
    ctx: &RequestContext,
    spec: WriteSpec,
    name: &str,
    source: PythonFunction,
) -> ServerResult<()> {
    let mode = match spec.mode {
        SaveMode::Append => false,
        SaveMode::Overwrite => true,
        other => {
            let mode = match other {
                SaveMode::Ignore => "Ignore",
                _ => "ErrorIfExists",
            };
            return Err(SparkError::new(
                ErrorKind::Analysis,
                "UNSUPPORTED_DATA_SOURCE_SAVE_MODE",
                "0A000",
                format!(
                    "The data source \"{name}\" cannot be written in the \"{mode}\" mode. Please use either the \"Append\" or \"Overwrite\" mode instead."
                ),
                vec![("source", name.to_string()), ("createMode", format!("\"{mode}\""))],
            )
            .into());
        }
    };
    if !spec.partition_by.is_empty() || spec.bucketing.is_some() {
        return Err(ember_planner::PlanError::Unsupported(
            "partitionBy or bucketBy into a Python data source".into(),
        )
        .into());
    }
    let mut ds = ember_planner::spec::DataSource {
        format: Some(name.to_string()),
        schema: None,
        options: spec.options.clone(),
        paths: vec![],
    };
    if let WriteTarget::Path(p) = &spec.target
        && !p.is_empty()
    {
        ds.paths.push(p.clone());
    }
    let options = source_options(&ds)?;
    let query = ctx.resolve(&spec.input)?;
    write_query(ctx, query, source, options, mode).await
}

/// Write `query`'s rows into the source (`overwrite`: the writer is asked to replace what
/// the source holds).
pub async fn write_query(
    ctx: &RequestContext,
    query: ResolvedQuery,
    source: PythonFunction,
    options: std::collections::HashMap<String, String>,
    mode: bool,
) -> ServerResult<()> {
    // The writer sees the columns by the names the user sees.
    let exprs: Vec<Expr> = query
        .plan
        .schema()
        .columns()
        .into_iter()
        .zip(&query.names)
        .map(|(c, n)| Expr::Column(c).alias(n))
        .collect();
    let plan = LogicalPlanBuilder::from(query.plan)
        .project(exprs)?
        .build()?;
    let schema = plan.schema().as_arrow().clone();
    let config = ctx.planner_config();
    let python = python_executable(config.python.as_deref());
    let writer = {
        let (source, python, options, schema) = (
            source.clone(),
            python.clone(),
            options.clone(),
            schema.clone(),
        );
        planned(
            blocking(move || datasource::writer(&source, &python, &options, &schema, mode)).await?,
        )?
    };
    let writer = PythonFunction {
        eval_type: DS_WRITE,
        command: writer.into(),
        python_ver: source.python_ver.clone(),
        artifacts: source.artifacts.clone(),
    };
    let node = PythonMapNode::plan(
        plan,
        writer.clone(),
        config.python.clone(),
        config.arrow_batch_size,
        datasource::write_result_schema(),
        None,
    )?;
    let tasks = ResolvedQuery {
        plan: node,
        names: vec!["message".into(), "error".into()],
        post: PostProcess::None,
        observations: vec![],
    };
    let finish = |messages: Vec<Option<Vec<u8>>>, abort: bool| {
        let (writer, python) = (writer.clone(), python.clone());
        blocking(move || datasource::commit(&writer, &python, &messages, abort))
    };
    let batches = match ctx.collect(&tasks).await {
        Ok(b) => b,
        Err(e) => {
            // (A task's worker died: nothing is known of the others' messages.)
            let _ = finish(vec![], true).await;
            return Err(e);
        }
    };
    let mut messages = Vec::new();
    let mut failure = None;
    for b in &batches {
        let (Some(m), Some(e)) = (
            b.column(0).as_any().downcast_ref::<BinaryArray>(),
            b.column(1).as_any().downcast_ref::<StringArray>(),
        ) else {
            continue;
        };
        for i in 0..b.num_rows() {
            messages.push(m.is_valid(i).then(|| m.value(i).to_vec()));
            if e.is_valid(i) && failure.is_none() {
                failure = Some(e.value(i).to_string());
            }
        }
    }
    if let Some(traceback) = failure {
        planned(finish(messages, true).await?)?;
        return Err(python_error(PythonError::Exception {
            error_class: String::new(),
            traceback,
        })
        .into());
    }
    if let Err(commit) = planned(finish(messages.clone(), false).await?) {
        // Spark aborts a job whose commit failed; when the abort fails too, the job fails.
        return match planned(finish(messages, true).await?) {
            Ok(()) => Err(commit.into()),
            Err(_) => Err(SparkError::new(
                ErrorKind::Spark,
                "",
                "",
                "Writing job failed.".to_string(),
                vec![],
            )
            .into()),
        };
    }
    Ok(())
}

/// The session's Python data source named `format`, if any.
pub fn registered(ctx: &RequestContext, format: &str) -> Option<PythonFunction> {
    use ember_planner::catalog::Catalog;
    ctx.session.catalog.python_data_source(format)
}
