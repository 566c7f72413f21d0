//! Task definitions and keys between Rust and the wire.

use std::collections::HashMap;
use std::sync::Arc;

use datafusion::common::{DataFusionError, Result};
use datafusion::execution::TaskContext;
use datafusion_proto::physical_plan::from_proto::parse_physical_expr;
use datafusion_proto::physical_plan::to_proto::serialize_physical_expr;
use datafusion_proto::protobuf::PhysicalExprNode;
use ember_protos::ember::worker as pb;
use prost::Message;

use crate::codec::EmberCodec;
use crate::job_graph::OutputDistribution;
use crate::stream::{JobId, StreamKey, StreamRef, WorkerId};
use crate::task::{TaskDefinition, TaskId, TaskInput};

/// A job id's (upper, lower) 64 bits on the wire.
pub fn split_job(job: JobId) -> (u64, u64) {
    ((job >> 64) as u64, job as u64)
}

/// A job id from its halves on the wire.
pub fn join_job(high: u64, low: u64) -> JobId {
    (JobId::from(high) << 64) | JobId::from(low)
}

pub fn task_key(id: &TaskId) -> pb::TaskKey {
    pb::TaskKey {
        job: split_job(id.job).1,
        job_high: split_job(id.job).0,
        stage: id.stage as u32,
        partition: id.partition as u32,
        attempt: id.attempt as u32,
    }
}

pub fn task_id(key: &pb::TaskKey) -> TaskId {
    TaskId {
        job: join_job(key.job_high, key.job),
        stage: key.stage as usize,
        partition: key.partition as usize,
        attempt: key.attempt as usize,
    }
}

pub fn stream_key(key: &StreamKey) -> pb::StreamKey {
    pb::StreamKey {
        task: Some(pb::TaskKey {
            job: split_job(key.job).1,
            job_high: split_job(key.job).0,
            stage: key.stage as u32,
            partition: key.partition as u32,
            attempt: key.attempt as u32,
        }),
        channel: key.channel as u32,
    }
}

pub fn from_stream_key(key: &pb::StreamKey) -> Result<StreamKey> {
    let task = key
        .task
        .as_ref()
        .ok_or_else(|| DataFusionError::Internal("stream key without task".into()))?;
    Ok(StreamKey {
        job: join_job(task.job_high, task.job),
        stage: task.stage as usize,
        partition: task.partition as usize,
        attempt: task.attempt as usize,
        channel: key.channel as usize,
    })
}

/// A task definition for the wire: the plan and hash keys serialized with `codec`, stream
/// locations with their workers' addresses, and the job's DataFusion settings.
pub fn encode_task(
    task: &TaskDefinition,
    context: &TaskContext,
    codec: &EmberCodec,
    addresses: &HashMap<WorkerId, String>,
) -> Result<pb::TaskDefinition> {
    let plan = codec.encode_plan(task.plan.clone())?;
    tracing::debug!(
        stage = task.id.stage,
        partition = task.id.partition,
        plan_bytes = plan.len(),
        "task plan encoded"
    );
    let inputs = task
        .inputs
        .iter()
        .map(|input| pb::TaskInput {
            partitions: input
                .partitions
                .iter()
                .map(|streams| pb::InputPartition {
                    streams: streams
                        .iter()
                        .map(|r| pb::StreamLocation {
                            worker: r.worker,
                            address: addresses.get(&r.worker).cloned().unwrap_or_default(),
                            key: Some(stream_key(&r.key)),
                        })
                        .collect(),
                })
                .collect(),
        })
        .collect();
    let output = match &task.output {
        OutputDistribution::Hash { keys, channels } => {
            pb::output_distribution::Kind::Hash(pb::output_distribution::Hash {
                keys: keys
                    .iter()
                    .map(|k| Ok(serialize_physical_expr(k, codec)?.encode_to_vec()))
                    .collect::<Result<Vec<_>>>()?,
                channels: *channels as u32,
            })
        }
        OutputDistribution::RoundRobin { channels } => {
            pb::output_distribution::Kind::RoundRobin(pb::output_distribution::RoundRobin {
                channels: *channels as u32,
            })
        }
    };
    let config = context
        .session_config()
        .options()
        .entries()
        .into_iter()
        .filter_map(|e| e.value.map(|v| (e.key, v)))
        .chain(
            context
                .session_config()
                .get_extension::<crate::formats::storage::StorageOptions>()
                .map(|storage| storage.task_entries().collect::<Vec<_>>())
                .unwrap_or_default(),
        )
        .collect();
    Ok(pb::TaskDefinition {
        key: Some(task_key(&task.id)),
        plan,
        inputs,
        output: Some(pb::OutputDistribution { kind: Some(output) }),
        config,
        job_output: task.job_output,
    })
}

/// The stream locations of a wire task: references plus the addresses to reach them.
pub type Addresses = HashMap<WorkerId, String>;

pub fn decode_task(
    task: &pb::TaskDefinition,
    context: &Arc<TaskContext>,
    codec: &EmberCodec,
) -> Result<(TaskDefinition, Addresses)> {
    let key = task
        .key
        .as_ref()
        .ok_or_else(|| DataFusionError::Internal("task without key".into()))?;
    let plan = codec.decode_plan(&task.plan, context)?;
    let plan = crate::formats::parquet_strings::read_strings_plain_in(plan, context)?;
    let mut addresses = HashMap::new();
    let inputs = task
        .inputs
        .iter()
        .map(|input| {
            Ok(TaskInput {
                partitions: input
                    .partitions
                    .iter()
                    .map(|p| {
                        p.streams
                            .iter()
                            .map(|s| {
                                addresses.insert(s.worker, s.address.clone());
                                let key = s.key.as_ref().ok_or_else(|| {
                                    DataFusionError::Internal("stream without key".into())
                                })?;
                                Ok(StreamRef {
                                    worker: s.worker,
                                    key: from_stream_key(key)?,
                                })
                            })
                            .collect::<Result<Vec<_>>>()
                    })
                    .collect::<Result<Vec<_>>>()?,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let output = match task.output.as_ref().and_then(|o| o.kind.as_ref()) {
        Some(pb::output_distribution::Kind::Hash(h)) => {
            let schema = plan.schema();
            let keys = h
                .keys
                .iter()
                .map(|bytes| {
                    let node = PhysicalExprNode::decode(bytes.as_slice())
                        .map_err(|e| DataFusionError::Internal(e.to_string()))?;
                    parse_physical_expr(&node, context, &schema, codec)
                })
                .collect::<Result<Vec<_>>>()?;
            OutputDistribution::Hash {
                keys,
                channels: h.channels as usize,
            }
        }
        Some(pb::output_distribution::Kind::RoundRobin(r)) => OutputDistribution::RoundRobin {
            channels: r.channels as usize,
        },
        None => OutputDistribution::RoundRobin { channels: 1 },
    };
    Ok((
        TaskDefinition {
            id: task_id(key),
            plan,
            inputs,
            output,
            job_output: task.job_output,
        },
        addresses,
    ))
}
