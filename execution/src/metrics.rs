//! Operator metrics of a plan that ran: DataFusion's `MetricsSet` of each operator (rows out,
//! compute time, spills, bytes scanned, ...) summed over partitions (and, in the cluster
//! modes, over a stage's tasks), in the plan's pre-order so that tasks of one stage merge
//! operator by operator. Each metric has Spark's type word (`sum`, `size`, `nsTiming`), which
//! Spark Connect clients show beside the value. A metric that means what one of Spark's
//! means takes Spark's name ([`SPARK_NAMES`], the ones PySpark's `toText()` shows); the
//! others keep DataFusion's (`elapsed_compute`, `spill_count`, `bytes_scanned`, ...).

use std::sync::Arc;

use datafusion::physical_plan::ExecutionPlan;
use datafusion::physical_plan::metrics::MetricValue;
use serde::{Deserialize, Serialize};

use crate::job_graph::JobGraph;
use crate::plan::StageInputExec;

/// DataFusion's metric names that mean what Spark's of another name mean.
pub const SPARK_NAMES: &[(&str, &str)] = &[
    ("output_rows", "numOutputRows"),
    ("spilled_bytes", "spillSize"),
    ("peak_mem_used", "peakMemory"),
];

/// One metric of one operator.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Metric {
    pub name: String,
    pub value: i64,
    /// Spark's metric type: `sum` (counts), `size` (bytes), `nsTiming` (nanoseconds).
    pub kind: String,
}

/// The metrics of one operator.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct OperatorMetrics {
    pub name: String,
    pub metrics: Vec<Metric>,
}

/// What one task (or all tasks of a stage) measured: its plan's operators in pre-order and
/// the rows and bytes it wrote to its output channels.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskMetrics {
    pub operators: Vec<OperatorMetrics>,
    pub output_rows: u64,
    pub output_bytes: u64,
}

impl TaskMetrics {
    /// Add another task's metrics of the same stage plan.
    pub fn merge(&mut self, other: &TaskMetrics) {
        if self.operators.is_empty() {
            self.operators = other.operators.clone();
        } else {
            for (mine, theirs) in self.operators.iter_mut().zip(&other.operators) {
                merge_metrics(&mut mine.metrics, &theirs.metrics);
            }
        }
        self.output_rows += other.output_rows;
        self.output_bytes += other.output_bytes;
    }

    /// The bytes the task's scans read.
    pub fn bytes_scanned(&self) -> u64 {
        self.operators
            .iter()
            .flat_map(|o| &o.metrics)
            .filter(|m| m.name == "bytes_scanned")
            .map(|m| m.value.max(0) as u64)
            .sum()
    }
}

fn merge_metrics(into: &mut Vec<Metric>, from: &[Metric]) {
    for m in from {
        match into.iter_mut().find(|x| x.name == m.name) {
            Some(x) if x.name.starts_with("peak") => x.value = x.value.max(m.value),
            Some(x) => x.value += m.value,
            None => into.push(m.clone()),
        }
    }
}

/// The metrics of `plan`'s operators in pre-order; `skip` names wrappers to see through.
pub fn collect(plan: &Arc<dyn ExecutionPlan>, skip: &[&str]) -> Vec<OperatorMetrics> {
    let mut out = Vec::new();
    let mut stack = vec![plan.clone()];
    while let Some(node) = stack.pop() {
        if !skip.contains(&node.name()) {
            out.push(OperatorMetrics {
                name: node.name().to_string(),
                metrics: node_metrics(node.as_ref()),
            });
        }
        // Pre-order: the first child is visited next.
        stack.extend(node.children().into_iter().rev().cloned());
    }
    out
}

/// One operator's metrics, summed over its partitions.
pub fn node_metrics(node: &dyn ExecutionPlan) -> Vec<Metric> {
    let Some(set) = node.metrics() else {
        return vec![];
    };
    let mut out: Vec<Metric> = Vec::new();
    for metric in set
        .aggregate_by_name()
        .sorted_for_display()
        .timestamps_removed()
        .iter()
    {
        let value = metric.value();
        let Some(kind) = kind_of(value) else {
            continue;
        };
        let name = value.name();
        let name = SPARK_NAMES
            .iter()
            .find(|(df, _)| *df == name)
            .map_or(name, |(_, spark)| spark);
        let m = Metric {
            name: name.to_string(),
            value: value.as_usize() as i64,
            kind: kind.to_string(),
        };
        merge_metrics(&mut out, std::slice::from_ref(&m));
    }
    out
}

/// Spark's type word for a DataFusion metric (`None`: not shown, e.g. timestamps).
fn kind_of(value: &MetricValue) -> Option<&'static str> {
    let bytes = |name: &str| name.contains("bytes") || name.contains("mem");
    Some(match value {
        MetricValue::OutputRows(_)
        | MetricValue::SpillCount(_)
        | MetricValue::SpilledRows(_)
        | MetricValue::OutputBatches(_) => "sum",
        MetricValue::SpilledBytes(_)
        | MetricValue::OutputBytes(_)
        | MetricValue::CurrentMemoryUsage(_)
        | MetricValue::PeakMemoryUsage { .. } => "size",
        MetricValue::ElapsedCompute(_) | MetricValue::Time { .. } => "nsTiming",
        MetricValue::Count { name, .. } | MetricValue::Gauge { name, .. } => {
            if bytes(name) {
                "size"
            } else {
                "sum"
            }
        }
        _ => return None,
    })
}

/// One operator of a stage plan: its name, its parent (index in the same pre-order) and, for
/// an input placeholder, the stage it reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanNodeShape {
    pub name: String,
    pub parent: Option<usize>,
    pub reads_stage: Option<usize>,
}

/// The operators of `plan` in the pre-order [`collect`] uses; `reads` tells which stage an
/// input placeholder reads.
pub fn plan_shape(
    plan: &Arc<dyn ExecutionPlan>,
    reads: &dyn Fn(&dyn ExecutionPlan) -> Option<usize>,
) -> Vec<PlanNodeShape> {
    let mut out = Vec::new();
    let mut stack: Vec<(Arc<dyn ExecutionPlan>, Option<usize>)> = vec![(plan.clone(), None)];
    while let Some((node, parent)) = stack.pop() {
        let index = out.len();
        out.push(PlanNodeShape {
            name: node.name().to_string(),
            parent,
            reads_stage: reads(node.as_ref()),
        });
        for child in node.children().into_iter().rev() {
            stack.push((child.clone(), Some(index)));
        }
    }
    out
}

/// What a job's stage ran: its plan's shape and its tasks' metrics added up.
#[derive(Debug, Clone)]
pub struct StageReport {
    pub shape: Vec<PlanNodeShape>,
    /// The stage plan as EXPLAIN shows it, one line per operator in pre-order.
    pub lines: Vec<String>,
    pub partitions: usize,
    pub metrics: TaskMetrics,
    /// The stages it reads (by index in the job) and how (`Shuffle`, `Forward`, ...).
    pub inputs: Vec<(usize, String)>,
    /// How its tasks split their output, e.g. `Hash([k@0], 4)`.
    pub distribution: String,
    /// `worker` or `driver`.
    pub placement: String,
}

/// One job of a query in the cluster modes: its stages (ids from `first_stage` on) and the
/// stage whose output is the job's.
#[derive(Debug, Clone)]
pub struct JobReport {
    pub first_stage: i64,
    pub stages: Vec<StageReport>,
    pub output_stage: usize,
}

/// One operator of the plan that ran, as Spark Connect reports it (`Metrics.MetricObject`):
/// ids are unique in the query, the root is its own parent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MetricNode {
    pub id: i64,
    pub parent: i64,
    pub name: String,
    pub metrics: Vec<Metric>,
}

/// The operator tree of a job: each stage's operators, and between a stage and the
/// placeholder that reads it an `Exchange` with the rows and bytes the stage wrote.
pub fn job_tree(job: &JobReport, next_id: &mut i64, out: &mut Vec<MetricNode>) {
    // Ids of every stage's operators, by stage and pre-order index.
    let ids: Vec<Vec<i64>> = job
        .stages
        .iter()
        .map(|s| {
            (0..s.shape.len())
                .map(|_| {
                    *next_id += 1;
                    *next_id - 1
                })
                .collect()
        })
        .collect();
    // The exchange above each stage that some placeholder reads.
    let mut exchange_of: Vec<Option<(i64, i64)>> = vec![None; job.stages.len()];
    for (s, stage) in job.stages.iter().enumerate() {
        for (i, node) in stage.shape.iter().enumerate() {
            if let Some(read) = node.reads_stage
                && read < exchange_of.len()
                && exchange_of[read].is_none()
            {
                exchange_of[read] = Some((*next_id, ids[s][i]));
                *next_id += 1;
            }
        }
    }
    for (s, stage) in job.stages.iter().enumerate() {
        let root_parent = match exchange_of[s] {
            Some((exchange, placeholder)) => {
                out.push(MetricNode {
                    id: exchange,
                    parent: placeholder,
                    name: "Exchange".into(),
                    metrics: vec![
                        metric_of("shuffleRecordsWritten", stage.metrics.output_rows, "sum"),
                        metric_of("shuffleBytesWritten", stage.metrics.output_bytes, "size"),
                        metric_of("numPartitions", stage.partitions as u64, "sum"),
                    ],
                });
                exchange
            }
            None => ids[s].first().copied().unwrap_or(0),
        };
        for (i, node) in stage.shape.iter().enumerate() {
            let measured = stage.metrics.operators.get(i);
            out.push(MetricNode {
                id: ids[s][i],
                parent: node.parent.map(|p| ids[s][p]).unwrap_or(root_parent),
                name: measured
                    .map(|m| m.name.clone())
                    .unwrap_or_else(|| node.name.clone()),
                metrics: measured.map(|m| m.metrics.clone()).unwrap_or_default(),
            });
        }
    }
}

/// The operator tree of a plan that ran in this process (local mode).
pub fn local_tree(
    plan: &Arc<dyn ExecutionPlan>,
    skip: &[&str],
    next_id: &mut i64,
    out: &mut Vec<MetricNode>,
) {
    let mut stack: Vec<(Arc<dyn ExecutionPlan>, Option<i64>)> = vec![(plan.clone(), None)];
    while let Some((node, parent)) = stack.pop() {
        let id = if skip.contains(&node.name()) {
            None
        } else {
            let id = *next_id;
            *next_id += 1;
            out.push(MetricNode {
                id,
                parent: parent.unwrap_or(id),
                name: node.name().to_string(),
                metrics: node_metrics(node.as_ref()),
            });
            Some(id)
        };
        for child in node.children().into_iter().rev() {
            stack.push((child.clone(), id.or(parent)));
        }
    }
}

impl JobReport {
    /// The stages of a job graph, their ids from `first_stage` on, nothing measured yet.
    pub fn of(graph: &JobGraph, first_stage: i64) -> Self {
        let stages = graph
            .stages()
            .iter()
            .map(|stage| {
                let reads = |node: &dyn ExecutionPlan| {
                    node.downcast_ref::<StageInputExec>()
                        .and_then(|p| stage.inputs.get(p.index()))
                        .map(|i| i.stage)
                };
                StageReport {
                    shape: plan_shape(&stage.plan, &reads),
                    lines: datafusion::physical_plan::displayable(stage.plan.as_ref())
                        .indent(true)
                        .to_string()
                        .lines()
                        .map(|l| l.trim_end().to_string())
                        .collect(),
                    partitions: stage.partitions(),
                    metrics: TaskMetrics::default(),
                    inputs: stage
                        .inputs
                        .iter()
                        .map(|i| (i.stage, format!("{:?}", i.mode)))
                        .collect(),
                    distribution: stage.distribution.to_string(),
                    placement: match stage.placement {
                        crate::job_graph::Placement::Worker => "worker",
                        crate::job_graph::Placement::Driver => "driver",
                    }
                    .to_string(),
                }
            })
            .collect();
        Self {
            first_stage,
            stages,
            output_stage: graph.output_stage(),
        }
    }

    /// The job graph as EXPLAIN ANALYZE shows it: each stage with its partitions, how long it
    /// ran (`durations` by stage id), what it wrote, and its operators with their metrics.
    pub fn display(&self, durations: &[Option<std::time::Duration>]) -> String {
        let mut out = String::new();
        for (s, stage) in self.stages.iter().enumerate() {
            let id = self.first_stage + s as i64;
            let time = durations
                .get(id as usize)
                .copied()
                .flatten()
                .map_or("did not finish".to_string(), |d| {
                    format!("{:.3} s", d.as_secs_f64())
                });
            let output = if s == self.output_stage {
                " (job output)".to_string()
            } else {
                String::new()
            };
            out.push_str(&format!(
                "Stage {s}: {} partitions, {time}, wrote {} rows ({}){output}\n",
                stage.partitions,
                stage.metrics.output_rows,
                format_value(stage.metrics.output_bytes as i64, "size"),
            ));
            for (i, line) in stage.lines.iter().enumerate() {
                let metrics = stage
                    .metrics
                    .operators
                    .get(i)
                    .map(|o| format_metrics(&o.metrics))
                    .unwrap_or_default();
                let reads = stage
                    .shape
                    .get(i)
                    .and_then(|n| n.reads_stage)
                    .map_or(String::new(), |r| format!(", reads stage {r}"));
                out.push_str(&format!("    {line}{reads}, metrics=[{metrics}]\n"));
            }
        }
        out
    }
}

/// Metrics as DataFusion's EXPLAIN ANALYZE lists them: `name=value` under DataFusion's names,
/// times and sizes readable.
pub fn format_metrics(metrics: &[Metric]) -> String {
    metrics
        .iter()
        .map(|m| {
            let name = SPARK_NAMES
                .iter()
                .find(|(_, spark)| *spark == m.name)
                .map_or(m.name.as_str(), |(df, _)| df);
            format!("{name}={}", format_value(m.value, &m.kind))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn format_value(value: i64, kind: &str) -> String {
    let v = value as f64;
    match kind {
        "nsTiming" if v >= 1e9 => format!("{:.2}s", v / 1e9),
        "nsTiming" if v >= 1e6 => format!("{:.2}ms", v / 1e6),
        "nsTiming" if v >= 1e3 => format!("{:.2}µs", v / 1e3),
        "nsTiming" => format!("{value}ns"),
        "size" if v >= 1048576.0 => format!("{:.1} MB", v / 1048576.0),
        "size" if v >= 1024.0 => format!("{:.1} KB", v / 1024.0),
        "size" => format!("{value} B"),
        _ => value.to_string(),
    }
}

fn metric_of(name: &str, value: u64, kind: &str) -> Metric {
    Metric {
        name: name.into(),
        value: value as i64,
        kind: kind.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn metric(name: &str, value: i64) -> Metric {
        Metric {
            name: name.into(),
            value,
            kind: "sum".into(),
        }
    }

    #[test]
    fn tasks_of_a_stage_add_up() {
        let a = TaskMetrics {
            operators: vec![OperatorMetrics {
                name: "FilterExec".into(),
                metrics: vec![metric("numOutputRows", 3), metric("peakMemory", 10)],
            }],
            output_rows: 3,
            output_bytes: 30,
        };
        let mut total = TaskMetrics::default();
        total.merge(&a);
        total.merge(&a);
        assert_eq!(total.operators[0].metrics[0].value, 6);
        assert_eq!(total.operators[0].metrics[1].value, 10);
        assert_eq!((total.output_rows, total.output_bytes), (6, 60));
    }

    fn shape(name: &str, parent: Option<usize>, reads: Option<usize>) -> PlanNodeShape {
        PlanNodeShape {
            name: name.into(),
            parent,
            reads_stage: reads,
        }
    }

    #[test]
    fn stages_join_through_exchanges_into_one_tree() {
        let stage = |nodes: Vec<PlanNodeShape>, rows| StageReport {
            lines: nodes.iter().map(|n| n.name.clone()).collect(),
            shape: nodes,
            partitions: 2,
            metrics: TaskMetrics {
                output_rows: rows,
                output_bytes: 10 * rows,
                ..Default::default()
            },
            inputs: vec![],
            distribution: String::new(),
            placement: "worker".into(),
        };
        let job = JobReport {
            first_stage: 0,
            stages: vec![
                stage(
                    vec![
                        shape("AggregateExec", None, None),
                        shape("DataSourceExec", Some(0), None),
                    ],
                    4,
                ),
                stage(
                    vec![
                        shape("SortExec", None, None),
                        shape("StageInputExec", Some(0), Some(0)),
                    ],
                    2,
                ),
            ],
            output_stage: 1,
        };
        let mut out = Vec::new();
        let mut next = 0;
        job_tree(&job, &mut next, &mut out);
        assert_eq!(out.len(), 5);
        let roots: Vec<_> = out.iter().filter(|n| n.parent == n.id).collect();
        assert_eq!(roots.len(), 1);
        assert_eq!(roots[0].name, "SortExec");
        let exchange = out.iter().find(|n| n.name == "Exchange").unwrap();
        let placeholder = out.iter().find(|n| n.name == "StageInputExec").unwrap();
        assert_eq!(exchange.parent, placeholder.id);
        let below = out.iter().find(|n| n.name == "AggregateExec").unwrap();
        assert_eq!(below.parent, exchange.id);
        assert!(
            exchange
                .metrics
                .contains(&metric_of("shuffleRecordsWritten", 4, "sum"))
        );
        let text = job.display(&[Some(std::time::Duration::from_millis(5)), None]);
        assert!(
            text.contains("Stage 0: 2 partitions, 0.005 s, wrote 4 rows (40 B)"),
            "{text}"
        );
        assert!(
            text.contains("StageInputExec, reads stage 0, metrics=[]"),
            "{text}"
        );
        assert!(
            text.contains("Stage 1: 2 partitions, did not finish"),
            "{text}"
        );
    }
}
