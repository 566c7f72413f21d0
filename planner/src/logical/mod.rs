//! Ember's own logical plan nodes (repartitions, partition ids, Python map functions, a
//! recursive CTE's limits) and the query planner that turns them into the execution crate's
//! operators.

pub mod exchange;
pub mod join_order;
pub mod key_reduction;
pub mod like_parts;
pub mod partition_ids;
pub mod python_eval;
pub mod python_map;
pub mod recursion;
pub mod semi_joins;
#[cfg(test)]
mod test_plans;

pub use exchange::{EmberQueryPlanner, ExchangeKind, ExchangeNode};
