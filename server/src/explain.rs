//! EXPLAIN / `df.explain()`: the resolved and optimized logical plans, DataFusion's physical
//! plan, and the job graph the runner would execute.

use datafusion::physical_plan::displayable;
use ember_planner::ResolvedQuery;
use ember_planner::spec::ExplainMode;

use crate::error::ServerResult;
use crate::state::RequestContext;

pub async fn explain(
    ctx: &RequestContext,
    query: &ResolvedQuery,
    mode: ExplainMode,
) -> ServerResult<String> {
    let (physical, df) = ctx.physical_plan(query).await?;
    let optimized = df.state().optimize(&query.plan)?;
    let mut out = String::new();
    let columns = query.names.join(", ");
    if matches!(
        mode,
        ExplainMode::Extended | ExplainMode::Formatted | ExplainMode::Cost | ExplainMode::Codegen
    ) {
        out.push_str("== Analyzed Logical Plan ==\n");
        out.push_str(&format!("{columns}\n"));
        out.push_str(&format!("{}\n\n", query.plan.display_indent()));
        out.push_str("== Optimized Logical Plan ==\n");
        out.push_str(&format!("{}\n\n", optimized.display_indent()));
    }
    out.push_str("== Physical Plan ==\n");
    out.push_str(&format!(
        "{}\n",
        displayable(physical.as_ref()).indent(true)
    ));
    if let Some(graph) = ctx.state.runner.explain(&physical)? {
        out.push_str("\n== Job Graph ==\n");
        out.push_str(&graph);
        out.push('\n');
    }
    Ok(out)
}
