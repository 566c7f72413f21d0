//! Ember's planner: Spark Connect relations and expressions, and Spark SQL, to DataFusion
//! logical plans with Spark's semantics.
//!
//! The path is `proto` / `sql` (front ends) -> [`spec`] (one unresolved plan language) ->
//! [`resolver`] (names, functions, types) -> DataFusion `LogicalPlan`. The planner knows
//! nothing of gRPC or workers.

pub mod catalog;
pub mod datasource;
pub mod error;
pub mod functions;
pub use ember_execution::values::interval;
pub mod literal;
pub mod logical;
pub mod proto;
pub mod resolver;
pub mod show;
pub mod spec;
pub mod sql;
pub mod types;

pub use error::{PlanError, PlanResult, SparkError};
pub use resolver::{Observation, PlannerConfig, PostProcess, ResolvedQuery, Resolver};
