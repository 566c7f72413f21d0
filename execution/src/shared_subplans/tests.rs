use std::sync::Arc;

use arrow::array::{Int64Array, RecordBatch};
use datafusion::execution::TaskContext;
use datafusion::execution::memory_pool::GreedyMemoryPool;
use datafusion::execution::runtime_env::RuntimeEnvBuilder;
use datafusion::parquet::arrow::ArrowWriter;
use datafusion::physical_plan::{ExecutionPlan, collect};
use datafusion::prelude::{ParquetReadOptions, SessionConfig, SessionContext};
use futures::TryStreamExt;

use super::*;

/// A table `t(k, v)` of 20,000 rows in 4 parquet files, `k` in 0..100.
async fn context() -> (SessionContext, std::path::PathBuf) {
    let dir = std::env::temp_dir().join(format!(
        "ember-shared-subplans-{}",
        uuid::Uuid::new_v4().simple()
    ));
    std::fs::create_dir_all(dir.join("t")).unwrap();
    for part in 0..4i64 {
        let rows: Vec<i64> = (part * 5000..(part + 1) * 5000).collect();
        let batch = RecordBatch::try_from_iter([
            (
                "k",
                Arc::new(Int64Array::from_iter_values(rows.iter().map(|i| i % 100))) as _,
            ),
            ("v", Arc::new(Int64Array::from(rows.clone())) as _),
        ])
        .unwrap();
        let file =
            std::fs::File::create(dir.join("t").join(format!("part-{part}.parquet"))).unwrap();
        let mut writer = ArrowWriter::try_new(file, batch.schema(), None).unwrap();
        writer.write(&batch).unwrap();
        writer.close().unwrap();
    }
    let keys =
        RecordBatch::try_from_iter([("dk", Arc::new(Int64Array::from_iter_values(0..10)) as _)])
            .unwrap();
    std::fs::create_dir_all(dir.join("d")).unwrap();
    let file = std::fs::File::create(dir.join("d").join("part-0.parquet")).unwrap();
    let mut writer = ArrowWriter::try_new(file, keys.schema(), None).unwrap();
    writer.write(&keys).unwrap();
    writer.close().unwrap();
    let mut config = SessionConfig::new().with_target_partitions(2);
    config
        .options_mut()
        .optimizer
        .enable_physical_uncorrelated_scalar_subquery = false;
    let context = SessionContext::new_with_config(config);
    for table in ["t", "d"] {
        context
            .register_parquet(
                table,
                dir.join(table).to_str().unwrap(),
                ParquetReadOptions::default(),
            )
            .await
            .unwrap();
    }
    (context, dir)
}

async fn physical(context: &SessionContext, sql: &str) -> Arc<dyn ExecutionPlan> {
    context
        .sql(sql)
        .await
        .unwrap()
        .create_physical_plan()
        .await
        .unwrap()
}

fn count_nodes(plan: &Arc<dyn ExecutionPlan>, name: &str) -> usize {
    let mut n = 0;
    plan.apply(|node| {
        if node.name() == name {
            n += 1;
        }
        Ok(TreeNodeRecursion::Continue)
    })
    .unwrap();
    n
}

fn sorted_rows(batches: &[RecordBatch]) -> Vec<String> {
    let mut rows: Vec<String> = arrow::util::pretty::pretty_format_batches(batches)
        .unwrap()
        .to_string()
        .lines()
        .map(str::to_string)
        .collect();
    rows.sort();
    rows
}

const COMMON: &str = "WITH r AS (SELECT k, sum(v) AS s FROM t WHERE v % 3 = 0 GROUP BY k) \
     SELECT r.k, r.s FROM r WHERE r.s >= (SELECT max(s) FROM r) - 40000";

#[tokio::test]
async fn a_common_aggregate_is_computed_once_and_freed_when_read() {
    let (context, dir) = context().await;
    let plan = physical(&context, COMMON).await;
    assert_eq!(count_nodes(&plan, "DataSourceExec"), 2);
    let want = collect(Arc::clone(&plan), context.task_ctx())
        .await
        .unwrap();

    let plan = physical(&context, COMMON).await;
    let shared = share_subplans(plan).unwrap();
    assert_eq!(count_nodes(&shared, "SharedExec"), 2, "{shared:?}");
    assert_eq!(count_nodes(&shared, "DataSourceExec"), 1);
    let got = collect(Arc::clone(&shared), context.task_ctx())
        .await
        .unwrap();
    assert_eq!(sorted_rows(&got), sorted_rows(&want));
    assert!(!want.is_empty());

    // Both readers read every partition: the outputs are freed.
    let mut states = vec![];
    shared
        .apply(|node| {
            if let Some(exec) = node.downcast_ref::<SharedExec>() {
                for slot in &exec.shared.slots {
                    states.push(matches!(*slot.state.borrow(), State::Released));
                }
            }
            Ok(TreeNodeRecursion::Continue)
        })
        .unwrap();
    assert!(!states.is_empty() && states.iter().all(|released| *released));
    std::fs::remove_dir_all(dir).unwrap();
}

/// A join's dynamic filter reaches one copy's scan (through the aggregate, on its grouping
/// key): the other copy runs for both, and the answer is the plain plan's.
#[tokio::test]
async fn a_copy_with_a_dynamic_filter_from_outside_reads_the_other() {
    let (context, dir) = context().await;
    let sql = "WITH r AS (SELECT k, sum(v) AS s FROM t GROUP BY k) \
               SELECT r.k, r.s FROM d JOIN r ON d.dk = r.k \
               WHERE r.s >= (SELECT max(s) FROM r) - 50000";
    let plan = || async { physical(&context, sql).await };
    let want = collect(plan().await, context.task_ctx()).await.unwrap();
    let plain = plan().await;
    let text = format!(
        "{}",
        DisplayableExecutionPlan::new(plain.as_ref()).indent(false)
    );
    assert!(text.contains("DynamicFilter"), "{text}");
    let shared = share_subplans(plain).unwrap();
    assert_eq!(count_nodes(&shared, "SharedExec"), 2, "{text}");
    // The scan without the filter runs; one of `d` and one of `t`.
    assert_eq!(count_nodes(&shared, "DataSourceExec"), 2);
    let mut first_reads_outside = false;
    shared
        .apply(|node| {
            if let Some(exec) = node.downcast_ref::<SharedExec>()
                && let Some(input) = &exec.input
            {
                let text = format!(
                    "{}",
                    DisplayableExecutionPlan::new(input.as_ref()).indent(false)
                );
                first_reads_outside = text.contains("DynamicFilter");
            }
            Ok(TreeNodeRecursion::Continue)
        })
        .unwrap();
    assert!(!first_reads_outside);
    let got = collect(shared, context.task_ctx()).await.unwrap();
    assert_eq!(sorted_rows(&got), sorted_rows(&want));
    assert!(!want.is_empty());
    std::fs::remove_dir_all(dir).unwrap();
}

#[tokio::test]
async fn subplans_with_a_volatile_function_are_not_shared() {
    let (context, dir) = context().await;
    let sql = "WITH r AS (SELECT k, sum(v * random()) AS s FROM t GROUP BY k) \
               SELECT r.k FROM r WHERE r.s >= (SELECT max(s) FROM r)";
    let plan = physical(&context, sql).await;
    let shared = share_subplans(plan).unwrap();
    assert_eq!(count_nodes(&shared, "SharedExec"), 0);
    assert_eq!(count_nodes(&shared, "DataSourceExec"), 2);
    std::fs::remove_dir_all(dir).unwrap();
}

#[tokio::test]
async fn different_subplans_are_not_shared() {
    let (context, dir) = context().await;
    let sql = "WITH r AS (SELECT k, sum(v) AS s FROM t GROUP BY k), \
               q AS (SELECT k, sum(v) AS s FROM t WHERE v > 10 GROUP BY k) \
               SELECT r.k FROM r WHERE r.s >= (SELECT max(s) FROM q)";
    let plan = physical(&context, sql).await;
    let shared = share_subplans(plan).unwrap();
    assert_eq!(count_nodes(&shared, "SharedExec"), 0);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn column_names_are_renamed_in_order_of_appearance() {
    assert_eq!(
        canonical("a #70@0 as #84, #70 + #73"),
        canonical("a #33@0 as #47, #33 + #36")
    );
    assert_ne!(
        canonical("a #70@0 as #84, #70 + #73"),
        canonical("a #33@0 as #47, #47 + #36")
    );
    assert_eq!(canonical("é #5 ü #"), "é #~0 ü #");
}

/// What the memory pool does not grant goes to a spill file, and is read back in order.
#[tokio::test]
async fn output_past_the_memory_pool_is_spilled_and_read_back() {
    let (context, dir) = context().await;
    let plan = || async { physical(&context, "SELECT v FROM t").await };
    let runtime = RuntimeEnvBuilder::new()
        .with_memory_pool(Arc::new(GreedyMemoryPool::new(1024)))
        .build_arc()
        .unwrap();
    let task = Arc::new(TaskContext::default().with_runtime(runtime));
    let metrics = ExecutionPlanMetricsSet::new();
    let want: Vec<RecordBatch> = plan()
        .await
        .execute(0, Arc::clone(&task))
        .unwrap()
        .try_collect()
        .await
        .unwrap();
    let output = Arc::new(compute(plan().await, 0, task, &metrics).await.unwrap());
    assert!(output.batches.is_empty());
    assert!(output.spilled.is_some());
    let slot = Arc::new(Slot {
        started: AtomicBool::new(true),
        task: Mutex::new(None),
        state: watch::Sender::new(State::Pending),
        unread: AtomicUsize::new(1),
    });
    let got: Vec<RecordBatch> = replay(&output, Reading(Arc::clone(&slot)))
        .unwrap()
        .try_collect()
        .await
        .unwrap();
    let values = |batches: &[RecordBatch]| -> Vec<i64> {
        batches
            .iter()
            .flat_map(|b| {
                b.column(0)
                    .as_any()
                    .downcast_ref::<Int64Array>()
                    .unwrap()
                    .values()
                    .to_vec()
            })
            .collect()
    };
    assert_eq!(values(&got), values(&want));
    assert!(!want.is_empty());
    assert!(matches!(*slot.state.borrow(), State::Released));
    std::fs::remove_dir_all(dir).unwrap();
}
