//! Relations that run the user's Python: `mapInPandas`/`mapInArrow` (MapPartitions) and
//! `groupBy().applyInPandas`/`applyInArrow` (GroupMap), their cogrouped form (CoGroupMap); the
//! stateful forms are refused.

use ember_protos::spark::connect as pb;

use super::ProtoContext;
use super::expression::convert_all;
use super::relation::input;
use crate::error::{PlanResult, invalid, unsupported};
use crate::spec::{PlanNode, PythonUdfCall};

/// `groupBy(...).applyInPandas/applyInArrow(f, schema)`.
pub(super) fn group_map(ctx: &ProtoContext, g: &pb::GroupMap) -> PlanResult<PlanNode> {
    if g.is_map_groups_with_state.is_some() || g.initial_input.is_some() {
        return unsupported("applyInPandasWithState");
    }
    if g.transform_with_state_info.is_some() {
        return unsupported("transformWithState");
    }
    let Some(func) = &g.func else {
        return invalid("applyInPandas without a function");
    };
    Ok(PlanNode::GroupMap {
        input: input(ctx, &g.input)?,
        grouping: convert_all(ctx, &g.grouping_expressions)?,
        function: Box::new(PythonUdfCall {
            udf: super::expression::python_udf(ctx, func)?,
            args: convert_all(ctx, &func.arguments)?,
        }),
    })
}

/// `df1.groupBy(k).cogroup(df2.groupBy(k)).applyInPandas/applyInArrow(f, schema)`.
pub(super) fn co_group_map(ctx: &ProtoContext, g: &pb::CoGroupMap) -> PlanResult<PlanNode> {
    if !g.input_sorting_expressions.is_empty() || !g.other_sorting_expressions.is_empty() {
        return unsupported("sorted cogroup");
    }
    let Some(func) = &g.func else {
        return invalid("cogroup applyInPandas without a function");
    };
    Ok(PlanNode::CoGroupMap {
        input: input(ctx, &g.input)?,
        grouping: convert_all(ctx, &g.input_grouping_expressions)?,
        other: input(ctx, &g.other)?,
        other_grouping: convert_all(ctx, &g.other_grouping_expressions)?,
        function: Box::new(PythonUdfCall {
            udf: super::expression::python_udf(ctx, func)?,
            args: convert_all(ctx, &func.arguments)?,
        }),
    })
}

/// `mapInPandas/mapInArrow(f, schema)`.
pub(super) fn map_partitions(ctx: &ProtoContext, m: &pb::MapPartitions) -> PlanResult<PlanNode> {
    let Some(func) = &m.func else {
        return invalid("mapInPandas without a function");
    };
    Ok(PlanNode::MapPartitions {
        input: input(ctx, &m.input)?,
        function: Box::new(PythonUdfCall {
            udf: super::expression::python_udf(ctx, func)?,
            args: convert_all(ctx, &func.arguments)?,
        }),
    })
}
