//! Job graphs cut from real DataFusion physical plans.

use std::sync::Arc;

use arrow::array::{Int64Array, RecordBatch, StringArray};
use arrow::datatypes::{DataType, Field, Schema};
use datafusion::common::tree_node::{TreeNode, TreeNodeRecursion};
use datafusion::common::{JoinType, NullEquality};
use datafusion::datasource::MemTable;
use datafusion::datasource::memory::MemorySourceConfig;
use datafusion::physical_expr::expressions::Column;
use datafusion::physical_plan::joins::{HashJoinExec, PartitionMode};
use datafusion::physical_plan::limit::GlobalLimitExec;
use datafusion::physical_plan::repartition::RepartitionExec;
use datafusion::physical_plan::{ExecutionPlan, ExecutionPlanProperties, Partitioning, collect};
use datafusion::prelude::{SessionConfig, SessionContext};

use super::*;
use crate::cluster::{DriverConfig, LocalClusterJobRunner};
use crate::runner::JobRunner;
use crate::topology::{JobTopology, TaskPosition};

fn schema() -> Arc<Schema> {
    Arc::new(Schema::new(vec![
        Field::new("k", DataType::Utf8, false),
        Field::new("v", DataType::Int64, false),
    ]))
}

fn batch(rows: std::ops::Range<i64>) -> RecordBatch {
    let keys: Vec<String> = rows.clone().map(|i| format!("k{}", i % 5)).collect();
    RecordBatch::try_new(
        schema(),
        vec![
            Arc::new(StringArray::from(keys)),
            Arc::new(Int64Array::from_iter_values(rows)),
        ],
    )
    .unwrap()
}

/// A session with a 3-partition table `t` and a 1-partition table `small`.
fn context(target_partitions: usize) -> SessionContext {
    context_with(SessionConfig::new().with_target_partitions(target_partitions))
}

fn context_with(mut config: SessionConfig) -> SessionContext {
    crate::cluster::configure_for_job_graph(&mut config);
    let ctx = SessionContext::new_with_config(config);
    let t = MemTable::try_new(
        schema(),
        vec![
            vec![batch(0..40)],
            vec![batch(40..80)],
            vec![batch(80..100)],
        ],
    )
    .unwrap();
    ctx.register_table("t", Arc::new(t)).unwrap();
    let small = MemTable::try_new(schema(), vec![vec![batch(0..7)]]).unwrap();
    ctx.register_table("small", Arc::new(small)).unwrap();
    ctx
}

/// A 3-partition session whose hash joins collect a side of at most `bytes` and `rows` for a
/// broadcast and shuffle both sides otherwise (0, 0: every join shuffled).
fn context_with_join_thresholds(bytes: usize, rows: usize) -> SessionContext {
    let mut config = SessionConfig::new().with_target_partitions(3);
    let optimizer = &mut config.options_mut().optimizer;
    optimizer.hash_join_single_partition_threshold = bytes;
    optimizer.hash_join_single_partition_threshold_rows = rows;
    context_with(config)
}

async fn physical(ctx: &SessionContext, sql: &str) -> Arc<dyn ExecutionPlan> {
    ctx.sql(sql)
        .await
        .unwrap()
        .create_physical_plan()
        .await
        .unwrap()
}

fn modes(graph: &JobGraph) -> Vec<InputMode> {
    graph
        .stages()
        .iter()
        .flat_map(|s| s.inputs.iter().map(|i| i.mode))
        .collect()
}

#[tokio::test]
async fn hash_aggregate_is_two_stages_joined_by_a_hash_shuffle() {
    let ctx = context(4);
    let plan = physical(&ctx, "SELECT k, count(*) FROM t GROUP BY k").await;
    let graph = JobGraph::try_new(plan).unwrap();
    let shuffles: Vec<&Stage> = graph
        .stages()
        .iter()
        .filter(|s| matches!(s.distribution, OutputDistribution::Hash { channels: 4, .. }))
        .collect();
    assert_eq!(shuffles.len(), 1, "{graph}");
    let last = &graph.stages()[graph.output_stage()];
    assert_eq!(last.inputs.len(), 1);
    assert_eq!(last.inputs[0].mode, InputMode::Shuffle);
    assert_eq!(last.partitions(), 4);
    // Stages are in topological order.
    for (i, s) in graph.stages().iter().enumerate() {
        assert!(s.inputs.iter().all(|input| input.stage < i));
    }
}

#[tokio::test]
async fn global_limit_reads_one_partition() {
    let ctx = context(4);
    let scan = physical(&ctx, "SELECT v FROM t").await;
    assert!(scan.output_partitioning().partition_count() > 1);
    let limit: Arc<dyn ExecutionPlan> = Arc::new(GlobalLimitExec::new(scan, 2, Some(5)));
    let rewritten = ensure_single_partition_for_global_limit(limit).unwrap();
    let limit = rewritten.downcast_ref::<GlobalLimitExec>().unwrap();
    assert_eq!(limit.input().output_partitioning().partition_count(), 1);
    let graph = JobGraph::try_new(rewritten.clone()).unwrap();
    assert_eq!(modes(&graph), vec![InputMode::Merge], "{graph}");
    assert_eq!(graph.stages()[graph.output_stage()].partitions(), 1);
}

fn hash_join(
    left: Arc<dyn ExecutionPlan>,
    right: Arc<dyn ExecutionPlan>,
    join_type: JoinType,
    mode: PartitionMode,
) -> Arc<dyn ExecutionPlan> {
    let on = vec![(
        Arc::new(Column::new("v", 1)) as Arc<dyn datafusion::physical_expr::PhysicalExpr>,
        Arc::new(Column::new("v", 1)) as Arc<dyn datafusion::physical_expr::PhysicalExpr>,
    )];
    Arc::new(
        HashJoinExec::try_new(
            left,
            right,
            on,
            None,
            &join_type,
            None,
            mode,
            NullEquality::NullEqualsNothing,
            false,
        )
        .unwrap(),
    )
}

fn memory(parts: usize) -> Arc<dyn ExecutionPlan> {
    let data: Vec<Vec<RecordBatch>> = (0..parts)
        .map(|p| vec![batch(p as i64 * 10..p as i64 * 10 + 10)])
        .collect();
    MemorySourceConfig::try_new_exec(&data, schema(), None).unwrap()
}

#[tokio::test]
async fn collect_left_joins_emitting_unmatched_build_rows_become_partitioned() {
    for join_type in [
        JoinType::Left,
        JoinType::Full,
        JoinType::LeftSemi,
        JoinType::LeftAnti,
    ] {
        let join = hash_join(memory(1), memory(3), join_type, PartitionMode::CollectLeft);
        let rewritten = ensure_partitioned_join_for_unmatched_build_rows(join).unwrap();
        let join = rewritten.downcast_ref::<HashJoinExec>().unwrap();
        assert_eq!(
            *join.partition_mode(),
            PartitionMode::Partitioned,
            "{join_type}"
        );
        for side in [join.left(), join.right()] {
            let r = side.downcast_ref::<RepartitionExec>().unwrap();
            assert!(matches!(r.partitioning(), Partitioning::Hash(_, 3)));
        }
        let graph = JobGraph::try_new(rewritten.clone()).unwrap();
        assert_eq!(
            modes(&graph),
            vec![InputMode::Shuffle, InputMode::Shuffle],
            "{graph}"
        );
    }
    // Inner joins keep the shared build side, read by every partition.
    let join = hash_join(
        memory(1),
        memory(3),
        JoinType::Inner,
        PartitionMode::CollectLeft,
    );
    let rewritten = ensure_partitioned_join_for_unmatched_build_rows(join).unwrap();
    assert_eq!(
        *rewritten
            .downcast_ref::<HashJoinExec>()
            .unwrap()
            .partition_mode(),
        PartitionMode::CollectLeft
    );
    let graph = JobGraph::try_new(rewritten).unwrap();
    assert_eq!(modes(&graph), vec![InputMode::Broadcast], "{graph}");
    assert_eq!(graph.replicas(0), 3);
}

#[tokio::test]
async fn sort_preserving_merge_reads_its_input_by_merge() {
    let ctx = context(4);
    let plan = physical(&ctx, "SELECT v FROM t ORDER BY v").await;
    let graph = JobGraph::try_new(plan).unwrap();
    let last = &graph.stages()[graph.output_stage()];
    assert_eq!(last.partitions(), 1);
    assert_eq!(last.inputs[0].mode, InputMode::Merge, "{graph}");
    // The merge consumer has one partition, which reads every input partition.
    assert_eq!(graph.replicas(last.inputs[0].stage), 1);
    assert!(graph.to_string().contains("SortPreservingMergeExec"));
}

#[test]
fn channel_mapping_follows_the_input_mode() {
    // Shuffle: partition i reads channel i of every input partition.
    assert_eq!(
        input_streams(InputMode::Shuffle, 1, 3, 2, 3),
        vec![(0, 1), (1, 1)]
    );
    // Forward and Merge: partition i reads partition i (all its channels).
    assert_eq!(input_streams(InputMode::Forward, 2, 3, 3, 1), vec![(2, 0)]);
    assert_eq!(input_streams(InputMode::Merge, 1, 4, 4, 1), vec![(1, 0)]);
    // Broadcast: everything.
    assert_eq!(
        input_streams(InputMode::Broadcast, 0, 2, 2, 2),
        vec![(0, 0), (0, 1), (1, 0), (1, 1)]
    );
    // Rescale: contiguous ranges of input partitions.
    assert_eq!(
        input_streams(InputMode::Rescale, 0, 2, 5, 1),
        vec![(0, 0), (1, 0)]
    );
    assert_eq!(
        input_streams(InputMode::Rescale, 1, 2, 5, 1),
        vec![(2, 0), (3, 0), (4, 0)]
    );
    let all: Vec<usize> = (0..3)
        .flat_map(|k| input_streams(InputMode::Rescale, k, 3, 8, 1))
        .map(|(p, _)| p)
        .collect();
    assert_eq!(all, (0..8).collect::<Vec<_>>());
}

#[test]
fn rescale_node_cuts_a_rescale_input() {
    let plan: Arc<dyn ExecutionPlan> = Arc::new(crate::plan::RescaleExec::new(memory(5), 2));
    let graph = JobGraph::try_new(plan).unwrap();
    assert_eq!(modes(&graph), vec![InputMode::Rescale]);
    assert_eq!(graph.stages()[0].partitions(), 5);
    assert_eq!(graph.stages()[1].partitions(), 2);
}

#[tokio::test]
async fn regions_group_forward_components_and_wait_for_exchanges() {
    let ctx = context(4);
    let plan = physical(&ctx, "SELECT k, count(*) FROM t GROUP BY k").await;
    let graph = JobGraph::try_new(plan).unwrap();
    let topology = JobTopology::new(&graph);
    // Stages without Forward links are each a component; a component whose inputs all come
    // from other components is sliced per partition, and each slice waits for every
    // partition of the stage it shuffles from.
    let partitions: usize = graph.stages().iter().map(|s| s.partitions()).sum();
    assert_eq!(topology.regions.len(), partitions);
    let last = graph.output_stage();
    let upstream = graph.stages()[last].inputs[0].stage;
    let final_regions: Vec<_> = topology
        .regions
        .iter()
        .filter(|r| r.tasks.iter().all(|t| t.stage == last))
        .collect();
    assert_eq!(final_regions.len(), graph.stages()[last].partitions());
    for r in final_regions {
        assert_eq!(r.tasks.len(), 1);
        assert_eq!(r.depends_on.len(), graph.stages()[upstream].partitions());
        assert!(r.depends_on.iter().all(|t| t.stage == upstream));
    }

    // Stages joined by Forward inputs are sliced per partition.
    let scan = memory(3);
    let forward = JobGraph::from_parts(
        vec![
            Stage {
                inputs: vec![],
                plan: scan.clone(),
                distribution: OutputDistribution::RoundRobin { channels: 1 },
                placement: Placement::Worker,
            },
            Stage {
                inputs: vec![StageInput {
                    stage: 0,
                    mode: InputMode::Forward,
                }],
                plan: scan,
                distribution: OutputDistribution::RoundRobin { channels: 1 },
                placement: Placement::Worker,
            },
        ],
        schema(),
    );
    let topology = JobTopology::new(&forward);
    assert_eq!(topology.regions.len(), 3);
    assert!(
        topology
            .regions
            .iter()
            .all(|r| r.tasks.len() == 2 && r.depends_on.is_empty())
    );
}

/// A round-robin shuffle is read while it is written: its producer and consumers are one
/// region, queued producer first; a hash shuffle stays a barrier.
#[test]
fn round_robin_shuffles_pipeline_and_hash_shuffles_wait() {
    let stage = |inputs: Vec<StageInput>, parts, distribution| Stage {
        inputs,
        plan: memory(parts),
        distribution,
        placement: Placement::Worker,
    };
    let shuffle = |stage| StageInput {
        stage,
        mode: InputMode::Shuffle,
    };
    let hash = OutputDistribution::Hash {
        keys: vec![Arc::new(Column::new("v", 1))],
        channels: 2,
    };
    let graph = JobGraph::from_parts(
        vec![
            stage(vec![], 1, OutputDistribution::RoundRobin { channels: 3 }),
            stage(vec![shuffle(0)], 3, hash),
            stage(
                vec![shuffle(1)],
                2,
                OutputDistribution::RoundRobin { channels: 1 },
            ),
        ],
        schema(),
    );
    assert!(graph.pipelined(&graph.stages()[1].inputs[0]));
    assert!(!graph.pipelined(&graph.stages()[2].inputs[0]));
    let topology = JobTopology::new(&graph);
    // Stages 0 and 1 are one region; stage 2's partitions wait for all of stage 1.
    assert_eq!(topology.regions.len(), 3);
    let first = &topology.regions[0];
    let at = |stage, partition| TaskPosition { stage, partition };
    assert_eq!(
        first.tasks,
        vec![at(0, 0), at(1, 0), at(1, 1), at(1, 2)],
        "{topology:?}"
    );
    assert!(first.depends_on.is_empty());
    for region in &topology.regions[1..] {
        assert_eq!(region.tasks.len(), 1);
        assert_eq!(region.depends_on.len(), 3);
    }
}

async fn sorted_rows(batches: &[RecordBatch]) -> Vec<String> {
    let mut rows: Vec<String> = arrow::util::pretty::pretty_format_batches(batches)
        .unwrap()
        .to_string()
        .lines()
        .filter(|l| l.starts_with('|'))
        .skip(1)
        .map(str::to_string)
        .collect();
    rows.sort();
    rows
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn job_graphs_return_what_datafusion_returns() {
    let ctx = context(3);
    let runner = LocalClusterJobRunner::start(
        2,
        2,
        DriverConfig::default(),
        tokio::runtime::Handle::current(),
    );
    for sql in [
        "SELECT k, count(*), sum(v) FROM t GROUP BY k",
        "SELECT v FROM t ORDER BY v DESC LIMIT 7",
        "SELECT a.k, count(*) FROM t a JOIN t b ON a.v = b.v GROUP BY a.k",
        "SELECT s.k, t.v FROM small s LEFT JOIN t ON s.v = t.v + 100",
        "SELECT count(*) FROM t WHERE v IN (SELECT v FROM small)",
        "SELECT k, v, row_number() OVER (PARTITION BY k ORDER BY v) FROM t",
    ] {
        let plan = physical(&ctx, sql).await;
        let expected = collect(plan.clone(), ctx.task_ctx()).await.unwrap();
        let stream = runner.execute(plan, ctx.task_ctx()).await.unwrap();
        let got: Vec<RecordBatch> = futures::TryStreamExt::try_collect(stream).await.unwrap();
        assert_eq!(
            sorted_rows(&got).await,
            sorted_rows(&expected).await,
            "{sql}"
        );
    }
    // Finished jobs free their streams.
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    assert_eq!(runner.stream_count(), 0);
}

/// A stage's streams are freed once every consumer has read them, before the job ends: with
/// the final tasks done and the output not read yet, only the final stage's streams are left.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn read_stage_outputs_are_freed_before_the_job_ends() {
    let ctx = context(3);
    let runner = LocalClusterJobRunner::start(
        2,
        2,
        DriverConfig::default(),
        tokio::runtime::Handle::current(),
    );
    let plan = physical(&ctx, "SELECT k, count(*), sum(v) FROM t GROUP BY k").await;
    let graph = JobGraph::try_new(plan.clone()).unwrap();
    assert!(graph.stages().len() > 1, "{graph}");
    let final_streams = graph.stages()[graph.output_stage()].partitions();
    let expected = collect(plan.clone(), ctx.task_ctx()).await.unwrap();
    let stream = runner.execute(plan, ctx.task_ctx()).await.unwrap();
    let mut left = usize::MAX;
    for _ in 0..50 {
        tokio::time::sleep(std::time::Duration::from_millis(40)).await;
        left = runner.stream_count();
        if left <= final_streams {
            break;
        }
    }
    assert!(left <= final_streams, "{left} streams held");
    let got: Vec<RecordBatch> = futures::TryStreamExt::try_collect(stream).await.unwrap();
    assert_eq!(sorted_rows(&got).await, sorted_rows(&expected).await);
}

#[tokio::test]
async fn a_recursive_query_is_not_cut_and_crosses_processes() {
    use datafusion::physical_plan::recursive_query::RecursiveQueryExec;
    let ctx = context(4);
    // The step joins the 3-partition `t` (repartitions inside the step) and reads one of the
    // work table's two columns (a projected work-table scan).
    let sql = "WITH RECURSIVE r AS (SELECT 1 AS n, 'a' AS s UNION ALL \
               SELECT r.n + 1, 'b' FROM r JOIN t ON t.v = r.n WHERE r.n < 5) \
               SELECT n, s FROM r ORDER BY n";
    let plan = physical(&ctx, sql).await;
    let graph = JobGraph::try_new(plan).unwrap();
    let holding: Vec<&Stage> = graph
        .stages()
        .iter()
        .filter(|s| {
            let mut found = false;
            s.plan
                .apply(|node| {
                    found |= node.is::<RecursiveQueryExec>();
                    Ok(TreeNodeRecursion::Continue)
                })
                .unwrap();
            found
        })
        .collect();
    assert_eq!(holding.len(), 1, "{graph}");
    // Nothing below the recursive query reads another stage.
    assert!(holding[0].inputs.is_empty(), "{graph}");
    let stage_plan = holding[0].plan.clone();
    let codec = crate::codec::EmberCodec::new(crate::plan::codec::parts());
    let bytes = codec.encode_plan(stage_plan.clone()).unwrap();
    let back = codec.decode_plan(&bytes, &ctx.task_ctx()).unwrap();
    let rows = |batches: Vec<RecordBatch>| batches.iter().map(|b| b.num_rows()).sum::<usize>();
    let expected = rows(collect(stage_plan, ctx.task_ctx()).await.unwrap());
    assert_eq!(rows(collect(back, ctx.task_ctx()).await.unwrap()), expected);
    assert_eq!(expected, 5);
}

/// A partitioned join whose build side is filtered gets a key filter stage before its probe
/// stage, which then filters its rows before its shuffle; the job answers as the plan does in
/// one process, and without the filter.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_filtered_build_side_gets_a_key_filter_before_the_probe_shuffle() {
    use crate::plan::{KeyFilterBuildExec, KeyFilterExec};
    let ctx = context_with_join_thresholds(0, 0);
    let sql = "SELECT t.k, t.v, s.k FROM t JOIN (SELECT k, v FROM t WHERE v < 30 AND k = 'k1') s \
               ON t.v = s.v";
    let plan = physical(&ctx, sql).await;
    let plain = JobGraph::try_new(plan.clone()).unwrap();
    let graph = plain.clone().with_key_filters().unwrap();
    assert_eq!(graph.stages().len(), plain.stages().len() + 1, "{graph}");
    let builds: Vec<usize> = (0..graph.stages().len())
        .filter(|s| graph.stages()[*s].plan.is::<KeyFilterBuildExec>())
        .collect();
    assert_eq!(builds.len(), 1, "{graph}");
    let probe = graph
        .stages()
        .iter()
        .position(|s| s.plan.is::<KeyFilterExec>())
        .unwrap();
    assert!(
        graph.stages()[probe].inputs.contains(&StageInput {
            stage: builds[0],
            mode: InputMode::Broadcast
        }),
        "{graph}"
    );
    for (i, s) in graph.stages().iter().enumerate() {
        assert!(s.inputs.iter().all(|input| input.stage < i), "{graph}");
    }
    // Its filter is made from the build stage's output, read by Merge.
    let build_input = graph.stages()[builds[0]].inputs[0];
    assert_eq!(build_input.mode, InputMode::Merge);
    assert!(matches!(
        graph.stages()[build_input.stage].distribution,
        OutputDistribution::Hash { .. }
    ));
    let runner = LocalClusterJobRunner::start(
        2,
        2,
        DriverConfig::default(),
        tokio::runtime::Handle::current(),
    );
    let expected = collect(plan.clone(), ctx.task_ctx()).await.unwrap();
    assert_eq!(sorted_rows(&expected).await.len(), 6);
    let stream = runner.execute(plan, ctx.task_ctx()).await.unwrap();
    let got: Vec<RecordBatch> = futures::TryStreamExt::try_collect(stream).await.unwrap();
    assert_eq!(sorted_rows(&got).await, sorted_rows(&expected).await);
}

/// The stage a key filter stage reads its keys from, for every key filter stage, and the
/// stage its filter is applied in.
fn key_filters_of(graph: &JobGraph) -> Vec<(usize, usize)> {
    use crate::plan::KeyFilterBuildExec;
    let stages = graph.stages();
    (0..stages.len())
        .filter(|f| stages[*f].plan.is::<KeyFilterBuildExec>())
        .flat_map(|f| {
            graph
                .consumers(f)
                .into_iter()
                .map(move |(probe, _)| (stages[f].inputs[0].stage, probe))
        })
        .collect()
}

fn has_join(stage: &Stage) -> bool {
    let mut joins = false;
    stage
        .plan
        .apply(|node| {
            joins |= node.is::<HashJoinExec>();
            Ok(TreeNodeRecursion::Continue)
        })
        .unwrap();
    joins
}

/// The job's answer through the in-process cluster, which runs the session's graph (key
/// filters included), against the plan's in one process.
async fn assert_cluster_answers_as_one_process(
    ctx: &SessionContext,
    plan: Arc<dyn ExecutionPlan>,
    rows: usize,
) {
    let runner = LocalClusterJobRunner::start(
        2,
        2,
        DriverConfig::default(),
        tokio::runtime::Handle::current(),
    );
    let expected = collect(plan.clone(), ctx.task_ctx()).await.unwrap();
    assert_eq!(sorted_rows(&expected).await.len(), rows);
    let stream = runner.execute(plan, ctx.task_ctx()).await.unwrap();
    let got: Vec<RecordBatch> = futures::TryStreamExt::try_collect(stream).await.unwrap();
    assert_eq!(sorted_rows(&got).await, sorted_rows(&expected).await);
}

/// A filtered build side computed inside the join's stage (a join of two shuffled inputs) is
/// made a stage of its own, so that the probe side's shuffle gets a key filter from it; the job
/// answers as the plan does in one process.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_build_side_joined_in_the_consumer_stage_is_separated_for_a_key_filter() {
    let ctx = context_with_join_thresholds(0, 0);
    let sql = "SELECT a.k, a.v FROM t a JOIN \
               (SELECT x.v FROM t x JOIN t y ON x.v = y.v WHERE y.k = 'k1' AND x.v < 50) s \
               ON a.v = s.v";
    let plan = physical(&ctx, sql).await;
    let options = ctx.state().config_options().clone();
    // Without the separation, the outer join's build side is no stage: no filter for `a`.
    let plain = JobGraph::try_new(plan.clone())
        .unwrap()
        .with_key_filters()
        .unwrap();
    assert!(
        key_filters_of(&plain)
            .iter()
            .all(|(build, _)| !has_join(&plain.stages()[*build])),
        "{plain}"
    );
    let graph = JobGraph::for_session(plan.clone(), &options).unwrap();
    let from_joins: Vec<(usize, usize)> = key_filters_of(&graph)
        .into_iter()
        .filter(|(build, _)| has_join(&graph.stages()[*build]))
        .collect();
    assert_eq!(from_joins.len(), 1, "{graph}");
    // The separated build side is partitioned on the outer join's key, read by Shuffle.
    let (build, probe) = from_joins[0];
    assert!(matches!(
        graph.stages()[build].distribution,
        OutputDistribution::Hash { .. }
    ));
    assert!(
        graph.stages()[probe]
            .plan
            .is::<crate::plan::KeyFilterExec>(),
        "{graph}"
    );
    assert_cluster_answers_as_one_process(&ctx, plan, 10).await;
}

/// A broadcast (collect-left) build side filters the stage its probe key comes from, through
/// a partitioned join in the consumer stage.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_broadcast_build_side_filters_the_stage_its_probe_key_comes_from() {
    // `small` (7 rows) is collected for a broadcast, `t` (100 rows) is shuffled.
    let ctx = context_with_join_thresholds(1000, 10);
    let sql = "SELECT a.v, b.k, d.v FROM t a JOIN t b ON a.v = b.v \
               JOIN small d ON a.k = d.k WHERE d.v < 2";
    let plan = physical(&ctx, sql).await;
    let options = ctx.state().config_options().clone();
    let graph = JobGraph::for_session(plan.clone(), &options).unwrap();
    let filters = key_filters_of(&graph);
    let (build, probe) = *filters
        .iter()
        .find(|(build, _)| {
            // Read whole by the join (collect-left), not shuffled.
            graph
                .consumers(*build)
                .iter()
                .all(|(_, mode)| *mode != InputMode::Shuffle)
        })
        .unwrap_or_else(|| panic!("{graph}"));
    // The probe stage scans `t` (100 rows) and shuffles it to the partitioned join.
    assert!(matches!(
        graph.stages()[probe].distribution,
        OutputDistribution::Hash { .. }
    ));
    assert_ne!(build, probe);
    for (i, s) in graph.stages().iter().enumerate() {
        assert!(s.inputs.iter().all(|input| input.stage < i), "{graph}");
    }
    // d.v < 2 keeps k0 and k1: 40 of a's 100 rows, each joined with one b row and one d row.
    assert_cluster_answers_as_one_process(&ctx, plan, 40).await;
}

/// A selective probe side filters the build side of a join whose unmatched build rows never
/// reach its output (the left side of a semi join, the build side): the build side's stage,
/// numbered before the probe side's, moves after the filter made from it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_selective_probe_side_filters_the_build_side_of_a_semi_join() {
    use crate::plan::{KeyFilterExec, StageInputExec};
    let ctx = context_with_join_thresholds(0, 0);
    let sql = "SELECT a.k, a.v FROM t a WHERE a.v IN \
               (SELECT x.v FROM t x JOIN t y ON x.v = y.v WHERE y.k = 'k1' AND x.v < 50)";
    let plan = physical(&ctx, sql).await;
    let options = ctx.state().config_options().clone();
    let graph = JobGraph::for_session(plan.clone(), &options).unwrap();
    // The semi join's left (build) side scans `t` unfiltered: it is filtered by the keys of
    // the right side's stage.
    let last = graph.stages().last().unwrap();
    let semi = |node: &Arc<dyn ExecutionPlan>| {
        node.downcast_ref::<HashJoinExec>()
            .is_some_and(|j| *j.join_type() == JoinType::LeftSemi)
    };
    let mut build_stage = None;
    last.plan
        .apply(|node| {
            if semi(node) {
                let join = node.downcast_ref::<HashJoinExec>().unwrap();
                let input = join.left().downcast_ref::<StageInputExec>().unwrap();
                build_stage = Some(last.inputs[input.index()].stage);
            }
            Ok(TreeNodeRecursion::Continue)
        })
        .unwrap();
    let build_stage = build_stage.unwrap_or_else(|| panic!("{graph}"));
    assert!(
        graph.stages()[build_stage].plan.is::<KeyFilterExec>(),
        "{graph}"
    );
    for (i, s) in graph.stages().iter().enumerate() {
        assert!(s.inputs.iter().all(|input| input.stage < i), "{graph}");
    }
    assert_cluster_answers_as_one_process(&ctx, plan, 10).await;
}
