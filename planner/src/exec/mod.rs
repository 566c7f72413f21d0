//! Physical operators and table providers behind the logical plans the planner builds.

pub mod range;

pub use range::{RangeExec, RangeTable};
