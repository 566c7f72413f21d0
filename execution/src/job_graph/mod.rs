//! The job graph: a DataFusion physical plan cut into stages at exchanges.
//!
//! Vocabulary: a job has stages; a stage has partitions; a task runs one partition of one
//! stage (with attempt numbers); a task splits its output into channels by the stage's
//! [`OutputDistribution`]; a downstream stage reads those channels by an [`InputMode`].
//! Each stage is itself a DataFusion plan in which the edges to other stages are
//! [`StageInputExec`](crate::plan::StageInputExec) placeholders numbered by the stage's
//! `inputs`. Stages are kept in topological order: a stage's inputs come before it.

mod build;
mod display;
mod key_filters;
mod rewrite;

use std::sync::Arc;

use arrow::datatypes::SchemaRef;
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_plan::{ExecutionPlan, ExecutionPlanProperties};

pub use build::build_job_graph;
pub use rewrite::{
    ensure_partitioned_join_for_unmatched_build_rows, ensure_single_partition_for_global_limit,
};

/// How a stage's partitions read an input stage's output channels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputMode {
    /// Partition `i` reads partition `i` of the input (all its channels).
    Forward,
    /// Partition `i` of the input becomes partition `i` here; every consuming partition may
    /// read every input partition (sort-preserving merges, coalescing).
    Merge,
    /// Partition `i` reads channel `i` of every input partition: the exchange.
    Shuffle,
    /// Every partition reads every channel of every input partition (shared build sides).
    Broadcast,
    /// Partition `i` reads a contiguous range of input partitions (fewer partitions).
    Rescale,
}

/// How a task splits its output into channels.
#[derive(Debug, Clone)]
pub enum OutputDistribution {
    Hash {
        keys: Vec<Arc<dyn PhysicalExpr>>,
        channels: usize,
    },
    RoundRobin {
        channels: usize,
    },
}

impl OutputDistribution {
    pub fn channels(&self) -> usize {
        match self {
            OutputDistribution::Hash { channels, .. }
            | OutputDistribution::RoundRobin { channels } => *channels,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placement {
    Worker,
    Driver,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StageInput {
    pub stage: usize,
    pub mode: InputMode,
}

#[derive(Debug, Clone)]
pub struct Stage {
    pub inputs: Vec<StageInput>,
    pub plan: Arc<dyn ExecutionPlan>,
    pub distribution: OutputDistribution,
    pub placement: Placement,
}

impl Stage {
    pub fn partitions(&self) -> usize {
        self.plan.output_partitioning().partition_count()
    }
}

#[derive(Debug, Clone)]
pub struct JobGraph {
    stages: Vec<Stage>,
    schema: SchemaRef,
}

impl JobGraph {
    /// Cut `plan` into stages, after the rewrites distributed execution needs.
    pub fn try_new(plan: Arc<dyn ExecutionPlan>) -> datafusion::common::Result<Self> {
        let plan = ensure_single_partition_for_global_limit(plan)?;
        let plan = ensure_partitioned_join_for_unmatched_build_rows(plan)?;
        build_job_graph(plan)
    }

    /// The graph a session runs: with key filters between the stages of shuffled joins
    /// ([`key_filters`]) unless the session turned DataFusion's join dynamic filters off
    /// (Spark's `spark.sql.optimizer.runtime.bloomFilter.enabled=false`).
    pub fn for_session(
        plan: Arc<dyn ExecutionPlan>,
        options: &datafusion::common::config::ConfigOptions,
    ) -> datafusion::common::Result<Self> {
        if options.optimizer.enable_join_dynamic_filter_pushdown {
            Self::try_new(key_filters::separate_filterable_build_sides(plan)?)?.with_key_filters()
        } else {
            Self::try_new(plan)
        }
    }

    pub(crate) fn from_parts(stages: Vec<Stage>, schema: SchemaRef) -> Self {
        Self { stages, schema }
    }

    pub fn stages(&self) -> &[Stage] {
        &self.stages
    }

    pub fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    /// The last stage: its output is the job's output.
    pub fn output_stage(&self) -> usize {
        self.stages.len().saturating_sub(1)
    }

    /// Whether a stage reads `input` while the input's tasks still write it (the two are
    /// scheduled together, see [`crate::topology`]): Forward inputs, and round-robin shuffles.
    /// A round-robin exchange only spreads its input's rows over more partitions (DataFusion
    /// adds one over a source of fewer partitions than it wants), so its consumers go on with
    /// the rows as they come: a limit over a one-partition source answers without waiting for
    /// the whole source. Other exchanges are barriers: their consumers (joins, aggregations)
    /// need every input partition, and would hold slots waiting for them.
    pub fn pipelined(&self, input: &StageInput) -> bool {
        match input.mode {
            InputMode::Forward => true,
            InputMode::Shuffle => matches!(
                self.stages[input.stage].distribution,
                OutputDistribution::RoundRobin { .. }
            ),
            InputMode::Merge | InputMode::Broadcast | InputMode::Rescale => false,
        }
    }

    /// The stages `stage` reads.
    pub fn input_stages(&self, stage: usize) -> Vec<usize> {
        self.stages[stage].inputs.iter().map(|i| i.stage).collect()
    }

    /// Stages that read `stage`, with how they read it.
    pub fn consumers(&self, stage: usize) -> Vec<(usize, InputMode)> {
        self.stages
            .iter()
            .enumerate()
            .flat_map(|(s, st)| {
                st.inputs
                    .iter()
                    .filter(|i| i.stage == stage)
                    .map(move |i| (s, i.mode))
            })
            .collect()
    }

    /// How many times each output stream of `stage` is read: once per consuming partition
    /// for Merge and Broadcast inputs, once otherwise; at least once (the job output).
    pub fn replicas(&self, stage: usize) -> usize {
        self.consumers(stage)
            .iter()
            .map(|(s, mode)| match mode {
                InputMode::Forward | InputMode::Shuffle | InputMode::Rescale => 1,
                InputMode::Merge | InputMode::Broadcast => self.stages[*s].partitions(),
            })
            .sum::<usize>()
            .max(1)
    }
}

/// Which input partitions and channels partition `partition` of a consumer reads, in order.
/// `input_partitions` and `input_channels` describe the input stage; `consumer_partitions`
/// the placeholder in the consumer.
pub fn input_streams(
    mode: InputMode,
    partition: usize,
    consumer_partitions: usize,
    input_partitions: usize,
    input_channels: usize,
) -> Vec<(usize, usize)> {
    match mode {
        InputMode::Forward | InputMode::Merge => {
            (0..input_channels).map(|c| (partition, c)).collect()
        }
        // Channels in the outer loop, partitions in the inner: partition i gets channel i of all.
        InputMode::Shuffle => (0..input_partitions).map(|p| (p, partition)).collect(),
        InputMode::Broadcast => (0..input_partitions)
            .flat_map(|p| (0..input_channels).map(move |c| (p, c)))
            .collect(),
        InputMode::Rescale => {
            let start = partition * input_partitions / consumer_partitions.max(1);
            let end = (partition + 1) * input_partitions / consumer_partitions.max(1);
            (start..end)
                .flat_map(|p| (0..input_channels).map(move |c| (p, c)))
                .collect()
        }
    }
}

#[cfg(test)]
mod tests;
