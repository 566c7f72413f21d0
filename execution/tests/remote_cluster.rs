//! A driver and two workers in one test process, talking over real gRPC and Arrow Flight on
//! loopback: jobs give the right answer, and the workers free every stream of a job once it
//! is finished or cancelled.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use arrow::array::{Int64Array, RecordBatch};
use arrow::datatypes::{DataType, Field, Schema};
use datafusion::datasource::MemTable;
use datafusion::prelude::{SessionConfig, SessionContext};
use ember_execution::JobRunner;
use ember_execution::cluster::DriverConfig;
use ember_execution::codec::EmberCodec;
use ember_execution::plan::codec;
use ember_execution::remote::{
    ClusterJobRunner, ClusterOptions, TextErrors, WorkerOptions, run_worker,
};
use futures::StreamExt;
use tokio::net::TcpListener;
use tonic::transport::server::TcpIncoming;

fn options() -> ClusterOptions {
    ClusterOptions {
        heartbeat_interval: Duration::from_millis(20),
        ..ClusterOptions::default()
    }
}

async fn start_cluster(workers: usize) -> Arc<ClusterJobRunner> {
    let codec = Arc::new(EmberCodec::new(codec::parts()));
    let runtime = tokio::runtime::Handle::current();
    let runner = Arc::new(ClusterJobRunner::start(
        DriverConfig::default(),
        options(),
        codec.clone(),
        Arc::new(TextErrors),
        runtime.clone(),
    ));
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let driver = format!("http://{}", listener.local_addr().unwrap());
    let service = runner.service();
    tokio::spawn(
        tonic::transport::Server::builder()
            .add_service(service)
            .serve_with_incoming(TcpIncoming::from(listener).with_nodelay(Some(true))),
    );
    for _ in 0..workers {
        let worker = WorkerOptions {
            driver: driver.clone(),
            host: "127.0.0.1".into(),
            advertise_host: None,
            port: 0,
            slots: 2,
            cluster: options(),
        };
        tokio::spawn(run_worker(
            worker,
            codec.clone(),
            Arc::new(TextErrors),
            runtime.clone(),
        ));
    }
    wait_for(|| runner.worker_count() == workers, "workers to register").await;
    runner
}

async fn wait_for(condition: impl Fn() -> bool, what: &str) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !condition() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// A session over 4 partitions of (k, v) rows, set up as the runner wants.
fn session(runner: &ClusterJobRunner) -> SessionContext {
    let schema = Arc::new(Schema::new(vec![
        Field::new("k", DataType::Int64, false),
        Field::new("v", DataType::Int64, false),
    ]));
    let partitions = (0..4)
        .map(|p| {
            let ks: Vec<i64> = (0..1000).map(|i| (i * 7 + p) % 10).collect();
            let vs: Vec<i64> = (0..1000).map(|i| i + p * 1000).collect();
            let batch = RecordBatch::try_new(
                schema.clone(),
                vec![
                    Arc::new(Int64Array::from(ks)),
                    Arc::new(Int64Array::from(vs)),
                ],
            )
            .unwrap();
            vec![batch]
        })
        .collect();
    let mut config = SessionConfig::new().with_target_partitions(4);
    runner.configure(&mut config);
    let ctx = SessionContext::new_with_config(config);
    ctx.register_table(
        "t",
        Arc::new(MemTable::try_new(schema, partitions).unwrap()),
    )
    .unwrap();
    ctx
}

const QUERY: &str = "SELECT k, count(*) AS n, sum(v) AS s FROM t GROUP BY k ORDER BY k";
const BIG_QUERY: &str = "SELECT a.k, a.v, b.v AS w FROM t a JOIN t b ON a.k = b.k";

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn finished_jobs_free_their_streams() {
    let runner = start_cluster(2).await;
    let ctx = session(&runner);
    let plan = ctx
        .sql(QUERY)
        .await
        .unwrap()
        .create_physical_plan()
        .await
        .unwrap();
    let graph = runner
        .explain(&plan, ctx.state().config_options())
        .unwrap()
        .unwrap();
    assert!(
        graph.contains("Stage 1"),
        "expected several stages:\n{graph}"
    );

    let mut stream = runner.execute(plan.clone(), ctx.task_ctx()).await.unwrap();
    let mut rows = Vec::new();
    while let Some(batch) = stream.next().await {
        let batch = batch.unwrap();
        let k = batch
            .column(0)
            .as_any()
            .downcast_ref::<Int64Array>()
            .unwrap();
        let n = batch
            .column(1)
            .as_any()
            .downcast_ref::<Int64Array>()
            .unwrap();
        for i in 0..batch.num_rows() {
            rows.push((k.value(i), n.value(i)));
        }
    }
    assert_eq!(rows, (0..10).map(|k| (k, 400)).collect::<Vec<_>>());

    // Until the output stream is dropped, the stage outputs stay on the workers (a lost
    // final partition could still need them) ...
    wait_for(
        || runner.held_streams() > 0,
        "workers to report their streams",
    )
    .await;
    // ... and once it is, they are freed.
    drop(stream);
    wait_for(|| runner.held_streams() == 0, "streams to be freed").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn cancelled_jobs_free_their_streams() {
    let runner = start_cluster(2).await;
    let ctx = session(&runner);
    // An answer (1.6M rows, about 38 MB) larger than a final stream holds unread, so that the
    // query is still running, its streams held, when the reader gives up after one batch.
    let plan = ctx
        .sql(BIG_QUERY)
        .await
        .unwrap()
        .create_physical_plan()
        .await
        .unwrap();
    for _ in 0..3 {
        let mut stream = runner.execute(plan.clone(), ctx.task_ctx()).await.unwrap();
        // Take one batch, then give up on the query.
        stream.next().await.unwrap().unwrap();
        wait_for(
            || runner.held_streams() > 0,
            "workers to report their streams",
        )
        .await;
        drop(stream);
        wait_for(|| runner.held_streams() == 0, "streams to be freed").await;
    }
    // Never consumed at all.
    drop(runner.execute(plan, ctx.task_ctx()).await.unwrap());
    wait_for(|| runner.held_streams() == 0, "streams to be freed").await;
}
