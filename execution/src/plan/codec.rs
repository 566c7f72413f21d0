//! The execution crate's plan nodes on the wire: one line each in [`parts`] (the file
//! formats' scans and writes are in `formats::codec_parts`). Each node's
//! message and conversion live in the node's own module ([`EncodedNode`](crate::codec::EncodedNode)).

use std::sync::Arc;

use super::{
    CompressedScanExec, ExchangeExec, PartitionIdsExec, RangeExec, RescaleExec, StageInputExec,
};
use crate::codec::{CodecPart, node_part};
use crate::ordered::OrderedCoalesceExec;

/// The codec parts of the execution crate's plan nodes.
pub fn parts() -> Vec<Arc<dyn CodecPart>> {
    vec![
        node_part::<StageInputExec>(),
        node_part::<OrderedCoalesceExec>(),
        node_part::<RescaleExec>(),
        node_part::<ExchangeExec>(),
        node_part::<super::KeyFilterBuildExec>(),
        node_part::<super::KeyFilterExec>(),
        node_part::<CompressedScanExec>(),
        node_part::<RangeExec>(),
        node_part::<PartitionIdsExec>(),
        node_part::<super::RecursionLimitExec>(),
        node_part::<datafusion::physical_plan::recursive_query::RecursiveQueryExec>(),
        node_part::<datafusion::physical_plan::work_table::WorkTableExec>(),
        node_part::<super::shared_work_table::SharedWorkTableExec>(),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::EmberCodec;
    use arrow::datatypes::{DataType, Field, Schema};
    use datafusion::physical_expr::EquivalenceProperties;
    use datafusion::physical_expr::expressions::col;
    use datafusion::physical_expr::{LexOrdering, PhysicalSortExpr};
    use datafusion::physical_plan::execution_plan::{Boundedness, EmissionType};
    use datafusion::physical_plan::{ExecutionPlan, Partitioning, PlanProperties};
    use datafusion::prelude::SessionContext;

    #[test]
    fn stage_inputs_keep_partitioning_and_ordering() {
        let schema = Arc::new(Schema::new(vec![
            Field::new("k", DataType::Int64, false),
            Field::new("v", DataType::Utf8, true),
        ]));
        let key = col("k", &schema).unwrap();
        let ordering = LexOrdering::new([PhysicalSortExpr::new_default(key.clone())]).unwrap();
        let properties = Arc::new(PlanProperties::new(
            EquivalenceProperties::new_with_orderings(schema.clone(), [ordering.clone()]),
            Partitioning::Hash(vec![key], 6),
            EmissionType::Incremental,
            Boundedness::Bounded,
        ));
        let input: Arc<dyn ExecutionPlan> = Arc::new(StageInputExec::new(2, properties));
        let codec = EmberCodec::new(parts());
        let bytes = codec.encode_plan(input.clone()).unwrap();
        let back = codec
            .decode_plan(&bytes, &SessionContext::new().task_ctx())
            .unwrap();
        let back_input = back.downcast_ref::<StageInputExec>().unwrap();
        assert_eq!(back_input.index(), 2);
        assert_eq!(back.schema(), schema);
        assert_eq!(
            back.properties().output_partitioning(),
            input.properties().output_partitioning()
        );
        assert_eq!(back.properties().output_ordering(), Some(&ordering));
    }

    #[test]
    fn stage_inputs_keep_constants_and_equal_columns() {
        use datafusion::common::ScalarValue;
        use datafusion::physical_expr::{AcrossPartitions, ConstExpr};
        let schema = Arc::new(Schema::new(vec![
            Field::new("a", DataType::Int64, false),
            Field::new("b", DataType::Int64, false),
            Field::new("c", DataType::Int64, false),
            Field::new("d", DataType::Int64, false),
        ]));
        let [a, b, c, d] = ["a", "b", "c", "d"].map(|n| col(n, &schema).unwrap());
        let mut known = EquivalenceProperties::new(schema.clone());
        known.add_equal_conditions(a.clone(), b.clone()).unwrap();
        known
            .add_constants([
                ConstExpr::new(
                    c.clone(),
                    AcrossPartitions::Uniform(Some(ScalarValue::Int64(Some(1999)))),
                ),
                ConstExpr::new(d.clone(), AcrossPartitions::Heterogeneous),
            ])
            .unwrap();
        let properties = Arc::new(PlanProperties::new(
            known,
            Partitioning::UnknownPartitioning(2),
            EmissionType::Incremental,
            Boundedness::Bounded,
        ));
        let input: Arc<dyn ExecutionPlan> = Arc::new(StageInputExec::new(0, properties));
        let codec = EmberCodec::new(parts());
        let bytes = codec.encode_plan(input).unwrap();
        let back = codec
            .decode_plan(&bytes, &SessionContext::new().task_ctx())
            .unwrap();
        let back = back.properties().equivalence_properties();
        assert!(back.eq_group().exprs_equal(&a, &b));
        let constants = back.constants();
        let across = |e: &Arc<dyn datafusion::physical_expr::PhysicalExpr>| {
            constants
                .iter()
                .find(|k| k.expr.eq(e))
                .map(|k| k.across_partitions.clone())
        };
        assert_eq!(
            across(&c),
            Some(AcrossPartitions::Uniform(Some(ScalarValue::Int64(Some(
                1999
            )))))
        );
        assert_eq!(across(&d), Some(AcrossPartitions::Heterogeneous));
    }
}
