//! Physical operators and table providers behind the logical plans the planner builds.

pub mod exchange;
pub mod partition_ids;
pub mod python_map;
pub mod range;
pub mod text;

pub use exchange::{EmberQueryPlanner, ExchangeKind, ExchangeNode};
pub use range::{RangeExec, RangeTable};
