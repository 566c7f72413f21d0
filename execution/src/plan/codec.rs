//! Wire format of the execution layer's own plan nodes.

use std::sync::Arc;

use arrow::datatypes::Schema;
use datafusion::common::{DataFusionError, Result};
use datafusion::physical_expr::EquivalenceProperties;
use datafusion::physical_plan::execution_plan::{Boundedness, EmissionType};
use datafusion::physical_plan::{ExecutionPlan, Partitioning, PlanProperties};
use prost::Message;

use super::{CompressedScanExec, ExchangeExec, RescaleExec, StageInputExec};
use crate::codec::{CodecPart, NodeDecoder, NodeEncoder};
use crate::ordered::OrderedCoalesceExec;
use crate::write::{FileWrite, WriteFilesExec, WriteFormat};

#[derive(Clone, PartialEq, prost::Message)]
struct Node {
    #[prost(oneof = "NodeKind", tags = "1, 2, 3, 4, 5, 6")]
    kind: Option<NodeKind>,
}

#[derive(Clone, PartialEq, prost::Oneof)]
enum NodeKind {
    #[prost(message, tag = "1")]
    StageInput(StageInputNode),
    #[prost(message, tag = "2")]
    OrderedCoalesce(OrderedCoalesceNode),
    #[prost(message, tag = "3")]
    Rescale(RescaleNode),
    #[prost(message, tag = "4")]
    WriteFiles(WriteFilesNode),
    #[prost(message, tag = "5")]
    Exchange(ExchangeNode),
    #[prost(message, tag = "6")]
    CompressedScan(CompressedScanNode),
}

#[derive(Clone, PartialEq, prost::Message)]
struct CompressedScanNode {
    #[prost(bytes = "vec", tag = "1")]
    scan: Vec<u8>,
    /// DataFusion's name of the compression (`gzip`, `zstd`, ...).
    #[prost(string, tag = "2")]
    compression: String,
}

#[derive(Clone, PartialEq, prost::Message)]
struct ExchangeNode {
    #[prost(message, optional, tag = "1")]
    partitioning: Option<datafusion_proto::protobuf::Partitioning>,
}

#[derive(Clone, PartialEq, prost::Message)]
struct WriteFilesNode {
    #[prost(string, tag = "1")]
    format: String,
    #[prost(btree_map = "string, string", tag = "2")]
    options: std::collections::BTreeMap<String, String>,
    #[prost(string, tag = "3")]
    staging: String,
    #[prost(uint32, tag = "4")]
    partition_columns: u32,
    #[prost(string, tag = "5")]
    extension: String,
    #[prost(bool, tag = "6")]
    bucketed: bool,
}

#[derive(Clone, PartialEq, prost::Message)]
struct StageInputNode {
    #[prost(uint32, tag = "1")]
    index: u32,
    #[prost(message, optional, tag = "2")]
    schema: Option<datafusion_proto::protobuf::Schema>,
    #[prost(uint32, tag = "3")]
    partitions: u32,
    #[prost(message, optional, tag = "4")]
    partitioning: Option<datafusion_proto::protobuf::Partitioning>,
    /// The output ordering, if any.
    #[prost(message, repeated, tag = "5")]
    ordering: Vec<datafusion_proto::protobuf::PhysicalSortExprNode>,
}

#[derive(Clone, PartialEq, prost::Message)]
struct OrderedCoalesceNode {
    #[prost(uint64, optional, tag = "1")]
    fetch: Option<u64>,
    #[prost(uint64, optional, tag = "2")]
    buffer: Option<u64>,
}

#[derive(Clone, PartialEq, prost::Message)]
struct RescaleNode {
    #[prost(uint32, tag = "1")]
    partitions: u32,
}

/// Encodes `StageInputExec`, `OrderedCoalesceExec`, `RescaleExec`, `ExchangeExec` and
/// `WriteFilesExec`.
#[derive(Debug, Default)]
pub struct ExecutionCodec;

fn one_input(inputs: &[Arc<dyn ExecutionPlan>]) -> Result<Arc<dyn ExecutionPlan>> {
    match inputs {
        [input] => Ok(input.clone()),
        _ => Err(DataFusionError::Internal(format!(
            "expected one input, got {}",
            inputs.len()
        ))),
    }
}

impl CodecPart for ExecutionCodec {
    fn name(&self) -> &'static str {
        "ember.execution"
    }

    fn encode_node(
        &self,
        node: &Arc<dyn ExecutionPlan>,
        encoder: &NodeEncoder,
    ) -> Result<Option<Vec<u8>>> {
        let kind = if let Some(p) = node.downcast_ref::<StageInputExec>() {
            // Operators above the input rely on its partitioning and ordering (for example
            // an interleave of hash-partitioned inputs), so they travel with it.
            let properties = p.properties();
            NodeKind::StageInput(StageInputNode {
                index: p.index() as u32,
                schema: Some(datafusion_proto::protobuf::Schema::try_from(
                    p.schema().as_ref(),
                )?),
                partitions: properties.output_partitioning().partition_count() as u32,
                partitioning: Some(encoder.partitioning(properties.output_partitioning())?),
                ordering: encoder.sort_exprs(properties.output_ordering())?,
            })
        } else if let Some(c) = node.downcast_ref::<OrderedCoalesceExec>() {
            NodeKind::OrderedCoalesce(OrderedCoalesceNode {
                fetch: c.fetch().map(|f| f as u64),
                buffer: c.buffer().map(|b| b as u64),
            })
        } else if let Some(w) = node.downcast_ref::<WriteFilesExec>() {
            let write = w.write();
            NodeKind::WriteFiles(WriteFilesNode {
                format: write.format.name().to_string(),
                options: write.options.iter().cloned().collect(),
                staging: write.staging.clone(),
                partition_columns: write.partition_columns as u32,
                extension: write.extension.clone(),
                bucketed: write.bucketed,
            })
        } else if let Some(c) = node.downcast_ref::<CompressedScanExec>() {
            NodeKind::CompressedScan(CompressedScanNode {
                scan: encoder.plan(c.scan().clone())?,
                compression: c.compression().get_variant().to_string(),
            })
        } else if let Some(x) = node.downcast_ref::<ExchangeExec>() {
            NodeKind::Exchange(ExchangeNode {
                partitioning: Some(encoder.partitioning(x.partitioning())?),
            })
        } else if let Some(r) = node.downcast_ref::<RescaleExec>() {
            NodeKind::Rescale(RescaleNode {
                partitions: r.properties().output_partitioning().partition_count() as u32,
            })
        } else {
            return Ok(None);
        };
        Ok(Some(Node { kind: Some(kind) }.encode_to_vec()))
    }

    fn decode_node(
        &self,
        payload: &[u8],
        inputs: &[Arc<dyn ExecutionPlan>],
        decoder: &NodeDecoder,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let node = Node::decode(payload)
            .map_err(|e| DataFusionError::Internal(format!("bad execution node: {e}")))?;
        match node.kind {
            Some(NodeKind::StageInput(s)) => {
                let schema = s.schema.as_ref().ok_or_else(|| {
                    DataFusionError::Internal("stage input without schema".into())
                })?;
                let schema = Arc::new(Schema::try_from(schema)?);
                let partitioning = match &s.partitioning {
                    Some(p) => decoder.partitioning(p, &schema)?,
                    None => Partitioning::UnknownPartitioning(s.partitions as usize),
                };
                let equivalence = match decoder.sort_exprs(&s.ordering, &schema)? {
                    Some(ordering) => EquivalenceProperties::new_with_orderings(schema, [ordering]),
                    None => EquivalenceProperties::new(schema),
                };
                let properties = Arc::new(PlanProperties::new(
                    equivalence,
                    partitioning,
                    EmissionType::Incremental,
                    Boundedness::Bounded,
                ));
                Ok(Arc::new(StageInputExec::new(s.index as usize, properties)))
            }
            Some(NodeKind::OrderedCoalesce(c)) => Ok(Arc::new(OrderedCoalesceExec::new(
                one_input(inputs)?,
                c.fetch.map(|f| f as usize),
                c.buffer.map(|b| b as usize),
            ))),
            Some(NodeKind::WriteFiles(w)) => {
                let format = WriteFormat::from_name(&w.format).ok_or_else(|| {
                    DataFusionError::Internal(format!("bad write format {}", w.format))
                })?;
                let write = FileWrite {
                    format,
                    options: w.options.into_iter().collect(),
                    staging: w.staging,
                    partition_columns: w.partition_columns as usize,
                    extension: w.extension,
                    bucketed: w.bucketed,
                };
                Ok(Arc::new(WriteFilesExec::try_new(
                    one_input(inputs)?,
                    write,
                )?))
            }
            Some(NodeKind::Rescale(r)) => Ok(Arc::new(RescaleExec::new(
                one_input(inputs)?,
                r.partitions as usize,
            ))),
            Some(NodeKind::CompressedScan(c)) => {
                let compression = c
                    .compression
                    .parse::<datafusion::common::parsers::CompressionTypeVariant>()?;
                CompressedScanExec::restore(decoder.plan(&c.scan)?, compression.into())
            }
            Some(NodeKind::Exchange(x)) => {
                let input = one_input(inputs)?;
                let partitioning = x.partitioning.as_ref().ok_or_else(|| {
                    DataFusionError::Internal("exchange without partitioning".into())
                })?;
                let partitioning = decoder.partitioning(partitioning, &input.schema())?;
                Ok(Arc::new(ExchangeExec::try_new(input, partitioning)?))
            }
            None => Err(DataFusionError::Internal("empty execution node".into())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::EmberCodec;
    use arrow::datatypes::{DataType, Field};
    use datafusion::physical_expr::expressions::col;
    use datafusion::physical_expr::{LexOrdering, PhysicalSortExpr};
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
        let codec = EmberCodec::new(vec![Arc::new(ExecutionCodec)]);
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
}
