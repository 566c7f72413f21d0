//! What Spark's `ResolveDataFrameColumn` knows about DataFrame columns (`df.a`, by plan id)
//! beyond the columns each plan id gave: which resolution of a plan a column came from (a
//! DataFrame joined with itself is resolved twice: `df.a` then points at both sides, Spark's
//! AMBIGUOUS_COLUMN_REFERENCE), and which plans sit below an aggregation (a column of theirs
//! the aggregation dropped is Spark's UNRESOLVED_COLUMN; one any other operator dropped is
//! CANNOT_RESOLVE_DATAFRAME_COLUMN).

use std::collections::{HashMap, HashSet};

use super::Resolver;
use crate::error::{PlanError, SparkError};

/// Plan-id bookkeeping of one resolver.
#[derive(Debug, Default)]
pub(crate) struct PlanIds {
    /// The internal output names of each resolution of a plan id, in order.
    resolutions: HashMap<i64, Vec<Vec<String>>>,
    /// Plan ids resolved as (part of) the input of an aggregation.
    aggregated: HashSet<i64>,
    /// How many aggregations' inputs are being resolved.
    aggregate_inputs: usize,
    /// The column each column re-exposed under a new internal name (a subquery alias, the
    /// right side of a self-join) stands for: Spark's attribute stays the same there.
    sources: HashMap<String, Vec<String>>,
}

impl PlanIds {
    /// Record one resolution of plan `id` with its output columns.
    pub(crate) fn resolved(&mut self, id: i64, names: &[String]) {
        self.resolutions.entry(id).or_default().push(names.to_vec());
        if self.aggregate_inputs > 0 {
            self.aggregated.insert(id);
        }
    }

    /// `internal` is `source` under a new name (or has its values, as an inner join's USING
    /// column has both sides' keys).
    pub(crate) fn derived(&mut self, internal: &str, source: &str) {
        self.sources
            .entry(internal.to_string())
            .or_default()
            .push(source.to_string());
    }

    /// The first of `internal` and the columns it was re-exposed from (nearest first) that
    /// `matches`.
    fn find_source(&self, internal: &str, matches: &dyn Fn(&str) -> bool) -> Option<String> {
        let mut stack = vec![internal.to_string()];
        let mut seen = HashSet::new();
        while let Some(current) = stack.pop() {
            if matches(&current) {
                return Some(current);
            }
            if !seen.insert(current.clone()) {
                continue;
            }
            if let Some(sources) = self.sources.get(&current) {
                stack.extend(sources.iter().rev().cloned());
            }
        }
        None
    }

    /// Whether `internal`, or a column it was re-exposed from, is one of `outputs`.
    pub(crate) fn stands_for_any(&self, internal: &str, outputs: &[String]) -> bool {
        self.find_source(internal, &|c| outputs.iter().any(|o| o == c))
            .is_some()
    }

    pub(crate) fn enter_aggregate_input(&mut self) {
        self.aggregate_inputs += 1;
    }

    pub(crate) fn leave_aggregate_input(&mut self) {
        self.aggregate_inputs = self.aggregate_inputs.saturating_sub(1);
    }

    /// Whether `internals` (columns of one query, all of plan `id`) come from different
    /// resolutions of that plan: a DataFrame met twice in the query, e.g. joined with itself.
    fn spans_several_resolutions(&self, id: i64, internals: &[&String]) -> bool {
        let Some(resolutions) = self.resolutions.get(&id) else {
            return false;
        };
        let in_one = |c: &str| resolutions.iter().any(|r| r.iter().any(|n| n == c));
        let which = |internal: &String| {
            let source = self.find_source(internal, &in_one)?;
            resolutions.iter().position(|r| r.contains(&source))
        };
        let mut seen: Vec<usize> = internals.iter().filter_map(|i| which(i)).collect();
        seen.sort_unstable();
        seen.dedup();
        seen.len() > 1
    }
}

impl Resolver<'_> {
    /// The error for several columns named like `parts`: Spark's AMBIGUOUS_COLUMN_REFERENCE
    /// when they are one DataFrame's column met several times (a self-join), else `other`.
    pub(crate) fn ambiguous_dataframe_column(
        &self,
        parts: &[String],
        plan_id: Option<i64>,
        internals: &[&String],
        other: PlanError,
    ) -> PlanError {
        match plan_id {
            Some(id) if self.plan_ids.spans_several_resolutions(id, internals) => SparkError::analysis(
                "AMBIGUOUS_COLUMN_REFERENCE",
                "42702",
                format!(
                    "Column {} is ambiguous. It's because you joined several DataFrame together, and some of these DataFrames are the same.\nThis column points to one of the DataFrames but Spark is unable to figure out which one.\nPlease alias the DataFrames with different names via `DataFrame.alias` before joining them,\nand specify the column using qualified name, e.g. `df.alias(\"a\").join(df.alias(\"b\"), col(\"a.id\") > col(\"b.id\"))`.",
                    crate::error::quote_identifier(&parts.join("."))
                ),
            )
            .into(),
            _ => other,
        }
    }

    /// A DataFrame column (`df.b`) its DataFrame has but the query dropped before the place
    /// it is used (`df.select("a").select(df.b)`): Spark's CANNOT_RESOLVE_DATAFRAME_COLUMN,
    /// unless an aggregation dropped it (UNRESOLVED_COLUMN, `None` here).
    pub(crate) fn dropped_dataframe_column(
        &self,
        parts: &[String],
        plan_id: Option<i64>,
    ) -> Option<PlanError> {
        let id = plan_id?;
        if self.in_stored_plan
            || self.references.contains_key(&id)
            || self.plan_ids.aggregated.contains(&id)
            || !self.plan_outputs.contains_key(&id)
        {
            return None;
        }
        Some(cannot_resolve_dataframe_column(parts))
    }
}

/// Spark's CANNOT_RESOLVE_DATAFRAME_COLUMN for `parts`.
pub(crate) fn cannot_resolve_dataframe_column(parts: &[String]) -> PlanError {
    SparkError::analysis(
        "CANNOT_RESOLVE_DATAFRAME_COLUMN",
        "42704",
        format!(
            "Cannot resolve dataframe column \"{}\". It's probably because of illegal references like `df1.select(df2.col(\"a\"))`.",
            parts.join(".")
        ),
    )
    .into()
}
