//! The joins Spark Connect sends as relations of their own: `AsOfJoin` (`df._joinAsOf`) and
//! `NearestByJoin` (`df.nearestByJoin`), checked as Spark's Connect planner and `Dataset`
//! check them.

use ember_protos::spark::connect as pb;

use super::ProtoContext;
use super::expression::convert as expr;
use super::relation::input;
use crate::error::{ErrorKind, PlanResult, SparkError, invalid};
use crate::spec::{self, PlanNode};

/// The largest `numResults` of a nearest-by join.
const MAX_NEAREST_RESULTS: i32 = 100_000;

pub(super) fn as_of_join(ctx: &ProtoContext, j: &pb::AsOfJoin) -> PlanResult<PlanNode> {
    let required = |e: &Option<pb::Expression>, what: &str| match e {
        Some(e) => expr(ctx, e),
        None => invalid(format!("as-of join without {what}")),
    };
    // (The join type and direction are checked while resolving, in Spark's order.)
    Ok(PlanNode::AsOfJoin(Box::new(spec::AsOfJoin {
        left: input(ctx, &j.left)?,
        right: input(ctx, &j.right)?,
        left_as_of: required(&j.left_as_of, "a left as-of column")?,
        right_as_of: required(&j.right_as_of, "a right as-of column")?,
        condition: j.join_expr.as_ref().map(|e| expr(ctx, e)).transpose()?,
        using: j.using_columns.clone(),
        join_type: j.join_type.clone(),
        tolerance: j.tolerance.as_ref().map(|e| expr(ctx, e)).transpose()?,
        allow_exact_matches: j.allow_exact_matches,
        direction: j.direction.clone(),
    })))
}

pub(super) fn nearest_by_join(ctx: &ProtoContext, j: &pb::NearestByJoin) -> PlanResult<PlanNode> {
    // Spark's Connect planner first asks for the three settings, then `Dataset` checks them
    // (join type, mode, direction, then the number of results).
    for (value, field) in [
        (&j.join_type, "join_type"),
        (&j.mode, "mode"),
        (&j.direction, "direction"),
    ] {
        if value.is_empty() {
            return Err(SparkError::new(
                ErrorKind::InvalidPlanInput,
                "CONNECT_INVALID_PLAN.ASSERTION_FAILURE",
                "56K00",
                format!("The Spark Connect plan is invalid. NearestByJoin.{field} must be set"),
                vec![],
            )
            .into());
        }
    }
    let left_outer = match j.join_type.to_ascii_lowercase().replace('_', "").as_str() {
        "inner" => false,
        "leftouter" | "left" => true,
        _ => {
            return Err(nearest_error(
                "UNSUPPORTED_JOIN_TYPE",
                format!(
                    "Unsupported nearest-by join type {}. Supported types: 'INNER', 'LEFT OUTER'.",
                    j.join_type
                ),
            ));
        }
    };
    if !matches!(j.mode.to_ascii_lowercase().as_str(), "approx" | "exact") {
        return Err(nearest_error(
            "UNSUPPORTED_MODE",
            format!(
                "Unsupported nearest-by join mode '{}'. Supported modes include: 'approx', 'exact'.",
                j.mode
            ),
        ));
    }
    let similarity = match j.direction.to_ascii_lowercase().as_str() {
        "distance" => false,
        "similarity" => true,
        _ => {
            return Err(nearest_error(
                "UNSUPPORTED_DIRECTION",
                format!(
                    "Unsupported nearest-by join direction '{}'. Supported nearest-by join directions include: 'distance', 'similarity'.",
                    j.direction
                ),
            ));
        }
    };
    if !(1..=MAX_NEAREST_RESULTS).contains(&j.num_results) {
        let k = j.num_results;
        return Err(nearest_error(
            "NUM_RESULTS_OUT_OF_RANGE",
            format!(
                "The number of results {k} must be between 1 and {MAX_NEAREST_RESULTS}. Update the literal in `APPROX NEAREST {k} BY ...` (or `EXACT NEAREST {k} BY ...`) to fall within that range."
            ),
        ));
    }
    let Some(ranking) = &j.ranking_expression else {
        return invalid("nearest-by join without a ranking expression");
    };
    Ok(PlanNode::NearestByJoin(Box::new(spec::NearestByJoin {
        left: input(ctx, &j.left)?,
        right: input(ctx, &j.right)?,
        ranking: expr(ctx, ranking)?,
        num_results: j.num_results.unsigned_abs() as usize,
        left_outer,
        similarity,
    })))
}

/// `NEAREST_BY_JOIN.<sub_class>`, an analysis error as Spark raises it.
pub(crate) fn nearest_error(sub_class: &str, message: String) -> crate::error::PlanError {
    SparkError::analysis(
        &format!("NEAREST_BY_JOIN.{sub_class}"),
        "42604",
        format!("Invalid nearest-by join. {message}"),
    )
    .into()
}
