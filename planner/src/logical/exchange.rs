//! Repartitions a user asked for (`repartition`, `coalesce`, `DISTRIBUTE BY`) as a logical
//! node that physical planning turns into operators the optimizer keeps: an
//! [`ExchangeExec`] (a shuffle) or a [`RescaleExec`] (fewer partitions, no shuffle).

use std::cmp::Ordering;
use std::fmt;
use std::sync::Arc;

use async_trait::async_trait;
use datafusion::catalog::Session;
use datafusion::common::{DFSchemaRef, Result, internal_err};
use datafusion::execution::context::QueryPlanner;
use datafusion::logical_expr::physical_planning_context::PhysicalPlanningContext;
use datafusion::logical_expr::{
    Expr, Extension, LogicalPlan, UserDefinedLogicalNode, UserDefinedLogicalNodeCore,
};
use datafusion::physical_plan::{ExecutionPlan, ExecutionPlanProperties, Partitioning};
use datafusion::physical_planner::{DefaultPhysicalPlanner, ExtensionPlanner, PhysicalPlanner};
use ember_execution::plan::{ExchangeExec, RescaleExec};

/// How an [`ExchangeNode`] redistributes its input's rows.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd)]
pub enum ExchangeKind {
    /// `repartition(n, cols)`: rows with equal keys meet in one of `n` partitions.
    Hash(Vec<Expr>, usize),
    /// `repartition(n)`: rows spread evenly over `n` partitions.
    RoundRobin(usize),
    /// `coalesce(n)`: at most `n` partitions, each joining whole input partitions.
    Coalesce(usize),
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ExchangeNode {
    pub input: LogicalPlan,
    pub kind: ExchangeKind,
}

impl PartialOrd for ExchangeNode {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        self.kind.partial_cmp(&other.kind)
    }
}

impl ExchangeNode {
    pub fn plan(input: LogicalPlan, kind: ExchangeKind) -> LogicalPlan {
        LogicalPlan::Extension(Extension {
            node: Arc::new(ExchangeNode { input, kind }),
        })
    }
}

impl UserDefinedLogicalNodeCore for ExchangeNode {
    fn name(&self) -> &str {
        "Exchange"
    }

    fn inputs(&self) -> Vec<&LogicalPlan> {
        vec![&self.input]
    }

    fn schema(&self) -> &DFSchemaRef {
        self.input.schema()
    }

    fn expressions(&self) -> Vec<Expr> {
        match &self.kind {
            ExchangeKind::Hash(keys, _) => keys.clone(),
            _ => vec![],
        }
    }

    fn fmt_for_explain(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match &self.kind {
            ExchangeKind::Hash(keys, n) => {
                let keys: Vec<String> = keys.iter().map(|k| k.to_string()).collect();
                write!(f, "Exchange: Hash([{}], {n})", keys.join(", "))
            }
            ExchangeKind::RoundRobin(n) => write!(f, "Exchange: RoundRobin({n})"),
            ExchangeKind::Coalesce(n) => write!(f, "Exchange: Coalesce({n})"),
        }
    }

    fn with_exprs_and_inputs(
        &self,
        exprs: Vec<Expr>,
        mut inputs: Vec<LogicalPlan>,
    ) -> Result<Self> {
        let Some(input) = inputs.pop() else {
            return internal_err!("Exchange takes one input");
        };
        let kind = match &self.kind {
            ExchangeKind::Hash(_, n) => ExchangeKind::Hash(exprs, *n),
            other => other.clone(),
        };
        Ok(Self { input, kind })
    }

    fn supports_limit_pushdown(&self) -> bool {
        false
    }
}

/// Plans [`ExchangeNode`]s, [`super::partition_ids::PartitionIdsNode`]s, Python map nodes
/// and [`super::recursion::RecursionLimitNode`]s.
#[derive(Debug, Default)]
pub struct ExchangePlanner;

#[async_trait]
impl ExtensionPlanner for ExchangePlanner {
    async fn plan_extension(
        &self,
        planner: &dyn PhysicalPlanner,
        node: &dyn UserDefinedLogicalNode,
        logical_inputs: &[&LogicalPlan],
        physical_inputs: &[Arc<dyn ExecutionPlan>],
        session_state: &dyn Session,
        planning_ctx: &PhysicalPlanningContext,
    ) -> Result<Option<Arc<dyn ExecutionPlan>>> {
        if node
            .as_any()
            .downcast_ref::<super::partition_ids::PartitionIdsNode>()
            .is_some()
        {
            let Some(input) = physical_inputs.first() else {
                return internal_err!("PartitionIds takes one input");
            };
            return Ok(Some(Arc::new(super::partition_ids::PartitionIdsExec::new(
                input.clone(),
            )?)));
        }
        if let Some(limit) = node
            .as_any()
            .downcast_ref::<super::recursion::RecursionLimitNode>()
        {
            let Some(input) = physical_inputs.first() else {
                return internal_err!("RecursionLimit takes one input");
            };
            return Ok(Some(Arc::new(super::recursion::RecursionLimitExec::new(
                input.clone(),
                limit.limits,
            ))));
        }
        if let Some(map) = node
            .as_any()
            .downcast_ref::<super::python_map::PythonMapNode>()
        {
            let Some(input) = physical_inputs.first() else {
                return internal_err!("PythonMap takes one input");
            };
            return Ok(Some(map.exec(input.clone())));
        }
        let Some(exchange) = node.as_any().downcast_ref::<ExchangeNode>() else {
            return Ok(None);
        };
        let (Some(input), Some(logical)) = (physical_inputs.first(), logical_inputs.first()) else {
            return internal_err!("Exchange takes one input");
        };
        let plan: Arc<dyn ExecutionPlan> = match &exchange.kind {
            ExchangeKind::Hash(keys, n) => {
                let keys = keys
                    .iter()
                    .map(|k| {
                        planner.create_physical_expr(
                            k,
                            logical.schema(),
                            session_state,
                            planning_ctx,
                        )
                    })
                    .collect::<Result<Vec<_>>>()?;
                Arc::new(ExchangeExec::try_new(
                    input.clone(),
                    Partitioning::Hash(keys, *n),
                )?)
            }
            ExchangeKind::RoundRobin(n) => Arc::new(ExchangeExec::try_new(
                input.clone(),
                Partitioning::RoundRobinBatch(*n),
            )?),
            ExchangeKind::Coalesce(n) => {
                if input.output_partitioning().partition_count() <= *n {
                    input.clone()
                } else {
                    Arc::new(RescaleExec::new(input.clone(), *n))
                }
            }
        };
        Ok(Some(plan))
    }
}

/// DataFusion's physical planner with Ember's logical extension nodes.
#[derive(Debug, Default)]
pub struct EmberQueryPlanner;

#[async_trait]
impl QueryPlanner for EmberQueryPlanner {
    async fn create_physical_plan(
        &self,
        logical_plan: &LogicalPlan,
        session_state: &dyn Session,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        DefaultPhysicalPlanner::with_extension_planners(vec![Arc::new(ExchangePlanner)])
            .create_physical_plan(logical_plan, session_state)
            .await
    }
}
