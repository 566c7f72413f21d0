//! The step of a recursive CTE under Spark's limits on its levels and rows: a logical node
//! over the step that the query planner turns into execution's `RecursionLimitExec`.

use std::cmp::Ordering;
use std::fmt;
use std::sync::Arc;

use datafusion::common::{DFSchemaRef, Result, internal_err};
use datafusion::logical_expr::{Expr, Extension, LogicalPlan, UserDefinedLogicalNodeCore};
pub use ember_execution::plan::{RecursionLimitExec, RecursionLimits};

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RecursionLimitNode {
    input: LogicalPlan,
    pub limits: RecursionLimits,
}

impl PartialOrd for RecursionLimitNode {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        self.limits.partial_cmp(&other.limits)
    }
}

impl RecursionLimitNode {
    pub fn plan(input: LogicalPlan, limits: RecursionLimits) -> LogicalPlan {
        LogicalPlan::Extension(Extension {
            node: Arc::new(RecursionLimitNode { input, limits }),
        })
    }
}

impl UserDefinedLogicalNodeCore for RecursionLimitNode {
    fn name(&self) -> &str {
        "RecursionLimit"
    }

    fn inputs(&self) -> Vec<&LogicalPlan> {
        vec![&self.input]
    }

    fn schema(&self) -> &DFSchemaRef {
        self.input.schema()
    }

    fn expressions(&self) -> Vec<Expr> {
        vec![]
    }

    fn fmt_for_explain(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(
            f,
            "RecursionLimit: levels={}, rows={}",
            self.limits.levels, self.limits.rows
        )
    }

    fn with_exprs_and_inputs(
        &self,
        _exprs: Vec<Expr>,
        mut inputs: Vec<LogicalPlan>,
    ) -> Result<Self> {
        let Some(input) = inputs.pop() else {
            return internal_err!("RecursionLimit takes one input");
        };
        Ok(Self {
            input,
            limits: self.limits,
        })
    }

    fn supports_limit_pushdown(&self) -> bool {
        false
    }
}
