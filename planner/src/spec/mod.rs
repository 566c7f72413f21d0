//! Ember's unresolved plan language: what a Spark Connect request or a Spark SQL statement
//! means before names, functions and types are resolved.
//!
//! Both front ends lower into this form (`crate::proto` for Spark Connect messages,
//! `crate::sql` for SQL text) and one resolver (`crate::resolver`) turns it into a DataFusion
//! `LogicalPlan`, so that the DataFrame API and SQL share Spark's semantics by construction.

mod expr;
mod plan;
mod statement;

pub use expr::*;
pub use plan::*;
pub use statement::*;
