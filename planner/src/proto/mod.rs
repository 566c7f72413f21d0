//! Spark Connect messages -> Ember's unresolved plan language ([`crate::spec`]).
//!
//! This layer validates the request's shape (a missing required field is a malformed plan)
//! and names every relation or expression it does not support, so that everything after it
//! deals with one well-formed representation.

mod command;
mod expression;
mod joins;
mod local_data;
mod python;
mod relation;
mod to_schema;
mod udtf;

use std::sync::Arc;

pub(crate) use command::bucket_count;
pub use command::{CommandSpec, convert_command};
pub use expression::{as_sort_order, convert as convert_expression, is_operator_name};
pub(crate) use joins::nearest_error;
pub use relation::convert as convert_relation;

/// Looks up bytes stored through `AddArtifacts` (for `CachedLocalRelation`).
pub type ArtifactLookup = Arc<dyn Fn(&str) -> Option<bytes::Bytes> + Send + Sync>;

/// Looks up the rows of a checkpointed DataFrame (`CachedRemoteRelation`) by id.
pub type CachedRelationLookup =
    Arc<dyn Fn(&str) -> Option<Arc<crate::spec::LocalData>> + Send + Sync>;

/// What the conversion needs from the session.
#[derive(Clone)]
pub struct ProtoContext {
    /// The session time zone, used for timestamp types and literals.
    pub time_zone: String,
    pub artifacts: Option<ArtifactLookup>,
    pub cached_relations: Option<CachedRelationLookup>,
    /// The session's Python artifacts, for the Python functions the plan holds.
    pub python_artifacts: Option<Arc<ember_execution::python::PythonArtifacts>>,
    /// The most relations the plan may nest (`spark.ember.maxPlanDepth`).
    pub max_depth: usize,
    /// How deep the conversion is now.
    pub depth: std::cell::Cell<usize>,
    /// How deep the expression being converted nests now (bounded by
    /// [`crate::sql::max_expression_depth`]).
    pub expr_depth: std::cell::Cell<usize>,
}

/// The default of `spark.ember.maxPlanDepth`: what the protobuf decoder's 4,096 levels hold.
pub const MAX_PLAN_DEPTH: usize = 2000;

impl ProtoContext {
    pub fn new(time_zone: impl Into<String>) -> Self {
        Self {
            time_zone: time_zone.into(),
            artifacts: None,
            cached_relations: None,
            python_artifacts: None,
            max_depth: MAX_PLAN_DEPTH,
            depth: std::cell::Cell::new(0),
            expr_depth: std::cell::Cell::new(0),
        }
    }
}
