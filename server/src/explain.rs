//! EXPLAIN / `df.explain()`: the resolved and optimized logical plans, DataFusion's physical
//! plan, and the job graph the runner would execute. `EXPLAIN ANALYZE` runs the query and
//! shows what ran: in local mode DataFusion's plan with each operator's metrics (as
//! DataFusion's own EXPLAIN ANALYZE), in the cluster modes the job graph with each stage's
//! time and output and each operator's metrics summed over the stage's tasks.

use datafusion::physical_plan::display::DisplayableExecutionPlan;
use datafusion::physical_plan::displayable;
use ember_execution::progress::QueryProgress;
use ember_planner::ResolvedQuery;
use ember_planner::spec::ExplainMode;
use futures::StreamExt;

use crate::error::ServerResult;
use crate::state::RequestContext;

pub async fn explain(
    ctx: &RequestContext,
    query: &ResolvedQuery,
    mode: ExplainMode,
) -> ServerResult<String> {
    if mode == ExplainMode::Analyze {
        return analyze(ctx, query).await;
    }
    let (physical, df) = ctx.physical_plan(query).await?;
    let optimized = df.state().optimize(&query.plan)?;
    let mut out = String::new();
    let columns = query.names.join(", ");
    if matches!(
        mode,
        ExplainMode::Extended | ExplainMode::Formatted | ExplainMode::Codegen
    ) {
        out.push_str("== Analyzed Logical Plan ==\n");
        out.push_str(&format!("{columns}\n"));
        out.push_str(&format!("{}\n\n", query.plan.display_indent()));
    }
    if matches!(
        mode,
        ExplainMode::Extended | ExplainMode::Formatted | ExplainMode::Cost | ExplainMode::Codegen
    ) {
        out.push_str("== Optimized Logical Plan ==\n");
        out.push_str(&format!("{}\n\n", optimized.display_indent()));
    }
    out.push_str("== Physical Plan ==\n");
    // The cost mode shows what the optimizer estimates of each operator (Spark's
    // `Statistics(sizeInBytes=..., rowCount=...)`): DataFusion's row counts and sizes, exact or
    // inexact as it knows them.
    let plan = displayable(physical.as_ref()).set_show_statistics(mode == ExplainMode::Cost);
    out.push_str(&format!("{}\n", plan.indent(true)));
    if let Some(graph) = ctx
        .state
        .runner
        .explain(&physical, df.state().config_options())?
    {
        out.push_str("\n== Job Graph ==\n");
        out.push_str(&graph);
        out.push('\n');
    }
    Ok(out)
}

/// Run the query (its rows are counted, not kept) and show what each operator measured.
async fn analyze(ctx: &RequestContext, query: &ResolvedQuery) -> ServerResult<String> {
    let progress = QueryProgress::new();
    let started = std::time::Instant::now();
    let rows = crate::execute::progress::scope(progress.clone(), async {
        let mut stream = ctx.execute(query).await?;
        let mut rows = 0usize;
        while let Some(batch) = stream.next().await {
            rows += batch?.num_rows();
        }
        ServerResult::Ok(rows)
    })
    .await?;
    // Tasks report their metrics as they end, just after their output was read.
    progress.wait_idle(std::time::Duration::from_secs(1)).await;
    let elapsed = started.elapsed();
    let mut out = String::new();
    let jobs = progress.job_reports();
    if jobs.is_empty() {
        out.push_str("== Physical Plan (analyzed) ==\n");
        for plan in progress.local_plans() {
            out.push_str(&format!(
                "{}\n",
                DisplayableExecutionPlan::with_metrics(plan.as_ref()).indent(true)
            ));
        }
    } else {
        let durations = progress.stage_durations();
        for (i, job) in jobs.iter().enumerate() {
            out.push_str(&format!("== Job Graph (analyzed, job {i}) ==\n"));
            out.push_str(&job.display(&durations));
            out.push('\n');
        }
    }
    out.push_str(&format!(
        "Output: {rows} rows in {:.3} s\n",
        elapsed.as_secs_f64()
    ));
    Ok(out)
}
