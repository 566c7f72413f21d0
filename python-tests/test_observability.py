"""Observability: query progress (`ExecutePlanResponse.execution_progress`, PySpark's
`registerProgressHandler`), per-operator metrics with the results (`df.executionInfo`),
EXPLAIN ANALYZE, `--log-format json` and Prometheus' `/metrics` on `--ui-port`, in every
execution mode.

Progress and metrics are about how Ember ran a query, so their numbers are checked against
Ember's own job graph (its EXPLAIN), not against Spark's stages; their shape (what a handler
receives, what `executionInfo.metrics` holds) is Spark's.
"""

import re
import threading
import time

import pytest

REPORT_INTERVAL = "spark.connect.progress.reportInterval"


def multi_stage(spark):
    """An aggregation then a sort: three stages in the cluster modes."""
    return (
        spark.range(0, 200_000, 1, 4)
        .selectExpr("id % 7 AS k", "id")
        .groupBy("k")
        .count()
        .orderBy("k")
    )


def job_graph_stages(df):
    """(stage, partitions) of the job graph EXPLAIN shows (empty in local mode)."""
    text = df._explain_string(extended=False)
    return [(int(s), int(p)) for s, p in re.findall(r"^Stage (\d+): (\d+) partitions", text, re.M)]


class Recorder:
    def __init__(self):
        self.calls = []
        self.lock = threading.Lock()

    def __call__(self, stages, inflight_tasks, operation_id, done):
        with self.lock:
            self.calls.append(
                {
                    "stages": [
                        (s.stage_id, s.num_tasks, s.num_completed_tasks, s.num_bytes_read, s.done)
                        for s in stages
                    ],
                    "inflight": inflight_tasks,
                    "operation_id": operation_id,
                    "done": done,
                }
            )


@pytest.fixture
def progress(spark):
    recorder = Recorder()
    spark.clearProgressHandlers()
    spark.registerProgressHandler(recorder)
    yield recorder
    spark.clearProgressHandlers()
    spark.conf.unset(REPORT_INTERVAL)


def check_monotonic(calls):
    """Completed tasks never go back, per stage and in total."""
    seen = {}
    total = 0
    for call in calls:
        now = sum(s[2] for s in call["stages"])
        assert now >= total, f"completed tasks went back: {calls}"
        total = now
        for stage_id, tasks, completed, _, _ in call["stages"]:
            assert 0 <= completed <= tasks
            assert completed >= seen.get(stage_id, 0), f"stage {stage_id} went back: {calls}"
            seen[stage_id] = completed
        assert call["inflight"] >= 0


def test_progress_follows_the_job_graph(spark, progress, ember_mode):
    df = multi_stage(spark)
    rows = df.collect()
    assert [r["count"] for r in rows] == [28572, 28572, 28572, 28571, 28571, 28571, 28571]
    calls = progress.calls
    assert calls, "no progress reached the handler"
    assert calls[-1]["done"] is True
    assert all(not c["done"] for c in calls[:-1])
    check_monotonic(calls)
    final = calls[-1]
    assert final["inflight"] == 0
    assert final["stages"], f"no stages in the last report: {calls}"
    assert all(s[4] and s[2] == s[1] for s in final["stages"]), f"unfinished stages: {final}"
    assert len({c["operation_id"] for c in calls}) == 1
    if ember_mode == "local":
        # One stage per pipeline of DataFusion's plan (cut at its repartitions and merges):
        # the scan and partial aggregation, the final aggregation, the sort's merge.
        assert len(final["stages"]) >= 3, final
    else:
        graph = job_graph_stages(df)
        assert len(graph) >= 2, f"not a multi-stage job graph: {graph}"
        assert sorted(s[1] for s in final["stages"]) == sorted(p for _, p in graph)
        assert sum(s[1] for s in final["stages"]) == sum(p for _, p in graph)


def test_progress_while_a_query_runs(spark, progress, ember_mode):
    # Reports come at the session's interval while the query runs (Spark's default is 2 s).
    spark.conf.set(REPORT_INTERVAL, "50ms")
    start = time.time()
    spark.range(0, 20_000_000, 1, 4).selectExpr("sum(hash(id)) AS s").collect()
    elapsed = time.time() - start
    calls = progress.calls
    check_monotonic(calls)
    assert calls[-1]["done"] is True
    if elapsed > 0.5:
        assert len(calls) >= 3, f"{len(calls)} reports in {elapsed:.2f}s: {calls}"
    if ember_mode != "spark":  # (Spark leaves the stages AQE skipped unfinished)
        final = calls[-1]["stages"]
        assert all(s[4] and s[2] == s[1] for s in final), "\n".join(map(str, calls))


def test_progress_off(spark, progress):
    spark.conf.set(REPORT_INTERVAL, "0")
    assert spark.range(10).count() == 10
    # Without reports the handler is only told that the query finished.
    assert [c["stages"] for c in progress.calls] == [[]]
    assert progress.calls[-1]["done"] is True


def test_results_without_a_handler(spark):
    # A client that registers nothing reads the same results; reattachable streams skip the
    # progress responses like any other.
    spark.clearProgressHandlers()
    assert [r[0] for r in multi_stage(spark).collect()] == list(range(7))
    assert spark.range(0, 1000, 1, 3).count() == 1000


# ---------------------------------------------------------------------------------------------
# Metrics with the results: `df.executionInfo.metrics`


def metric_nodes(df):
    info = df.executionInfo
    assert info is not None, "no executionInfo after collect()"
    assert info.metrics is not None, "executionInfo without metrics"
    return [
        {
            "name": m.name,
            "id": m.plan_id,
            "parent": m.parent_plan_id,
            "metrics": {v.name: (v.value, v.metric_type) for v in m.metrics},
        }
        for m in info.metrics._metrics
    ]


def tree_shape(nodes):
    """What Spark's and Ember's metrics have in common: one tree whose root is its own parent."""
    ids = {n["id"] for n in nodes}
    return {
        "roots": sum(1 for n in nodes if n["parent"] == n["id"]),
        "unique_ids": len(ids) == len(nodes),
        "parents_known": all(n["parent"] in ids for n in nodes),
        "types_known": all(
            t in ("sum", "size", "timing", "nsTiming", "average")
            for n in nodes
            for _, t in n["metrics"].values()
        ),
        "some_metrics": any(n["metrics"] for n in nodes),
    }


def test_metrics_with_results(spark, expected, ember_mode):
    df = spark.range(0, 1000, 1, 2).selectExpr("id % 3 AS k").groupBy("k").count()
    assert sorted(r["count"] for r in df.collect()) == [333, 333, 334]
    nodes = metric_nodes(df)
    expected.check_value(tree_shape(nodes), name="shape")
    # The client draws the tree.
    assert df.executionInfo.metrics.toText()
    if ember_mode == "spark":
        return
    names = [n["name"] for n in nodes]
    assert "AggregateExec" in names, names
    # DataFusion's metrics: rows out of the final aggregation, compute time.
    rows = [n["metrics"].get("numOutputRows") for n in nodes if n["name"] == "AggregateExec"]
    assert (3, "sum") in rows, nodes
    assert any(m.get("elapsed_compute", (0, ""))[1] == "nsTiming" for m in (n["metrics"] for n in nodes))
    if ember_mode != "local":
        exchanges = [n for n in nodes if n["name"] == "Exchange"]
        assert exchanges, names
        assert all(e["metrics"]["shuffleBytesWritten"][0] > 0 for e in exchanges), exchanges
        assert sum(e["metrics"]["shuffleRecordsWritten"][0] for e in exchanges) > 0
    # PySpark's text view shows the metrics Spark names numOutputRows, spillSize, peakMemory.
    assert "numOutputRows: 3 (sum)" in df.executionInfo.metrics.toText()


def test_observed_metrics_keep_working(spark):
    from pyspark.sql import Observation
    from pyspark.sql import functions as F

    obs = Observation("counts")
    df = spark.range(0, 100, 1, 3).observe(obs, F.count(F.lit(1)).alias("n"), F.max("id").alias("top"))
    assert df.count() == 100
    assert obs.get == {"n": 100, "top": 99}
    collected = spark.range(5).observe("plain", F.sum("id").alias("s"))
    collected.collect()
    assert metric_nodes(collected)


def test_progress_counts_bytes_read(spark, progress, tmp_path, ember_mode):
    path = str(tmp_path / "bytes")
    spark.range(0, 50_000, 1, 2).selectExpr("id", "id * 2 AS v").write.parquet(path)
    progress.calls.clear()
    assert spark.read.parquet(path).selectExpr("sum(v)").collect()[0][0] == 2 * sum(range(50_000))
    final = progress.calls[-1]["stages"]
    assert sum(s[3] for s in final) > 0, final


# ---------------------------------------------------------------------------------------------
# EXPLAIN ANALYZE (Ember's, as DataFusion's; Spark's parser refuses it)


def test_explain_analyze(spark, ember_mode):
    if ember_mode == "spark":
        pytest.skip("Spark has no EXPLAIN ANALYZE")
    spark.range(0, 1000, 1, 2).selectExpr("id % 3 AS k", "id").createOrReplaceTempView("obs_t")
    df = spark.sql("EXPLAIN ANALYZE SELECT k, count(*) AS n FROM obs_t GROUP BY k ORDER BY k")
    assert df.columns == ["plan"]
    text = df.collect()[0][0]
    assert "Output: 3 rows in " in text, text
    assert re.search(r"AggregateExec: mode=Final.*metrics=\[.*output_rows=3\b", text), text
    assert "elapsed_compute=" in text
    if ember_mode == "local":
        assert text.startswith("== Physical Plan (analyzed) ==")
    else:
        # The job graph with each stage's time and output, operators with their metrics.
        assert text.startswith("== Job Graph (analyzed, job 0) ==")
        stages = re.findall(r"^Stage (\d+): (\d+) partitions, ([\d.]+) s, wrote (\d+) rows", text, re.M)
        assert len(stages) >= 2, text
        assert "reads stage 0" in text
        assert "(job output)" in text
    # EXPLAIN ANALYZE ran the query: plain EXPLAIN does not show metrics.
    plain = spark.sql("EXPLAIN SELECT k, count(*) FROM obs_t GROUP BY k").collect()[0][0]
    assert "metrics=" not in plain


def test_explain_cost_shows_estimates(spark, ember_mode):
    """`explain(mode="cost")` / EXPLAIN COST: as Spark, the optimized logical plan (no analyzed
    one) and the estimates of each operator; Ember's are DataFusion's statistics (Spark's
    `Statistics(sizeInBytes=..., rowCount=...)` are its own optimizer's)."""
    if ember_mode == "spark":
        pytest.skip("Ember's estimates are DataFusion's statistics")
    text = spark.sql("EXPLAIN COST SELECT id FROM range(0, 10, 1, 2) WHERE id > 3").collect()[0][0]
    assert text.startswith("== Optimized Logical Plan ==\n"), text
    assert "== Analyzed Logical Plan ==" not in text
    # range's row count and bounds are exact; the filter narrows the bounds.
    assert re.search(r"RangeExec: .*statistics=\[Rows=Exact\(10\), .*Min=Exact\(Int64\(0\)\) Max=Exact\(Int64\(9\)\)", text), text
    assert re.search(r"FilterExec: .*statistics=\[.*Min=Inexact\(Int64\(4\)\)", text), text
    # Other modes show no estimates.
    plain = spark.sql("EXPLAIN EXTENDED SELECT id FROM range(10)").collect()[0][0]
    assert "statistics=" not in plain and "== Analyzed Logical Plan ==" in plain


# ---------------------------------------------------------------------------------------------
# Logs as JSON and Prometheus metrics (Ember's own: servers of their own, not recorded)


def own_server(request, ember_mode, tmp_path, *args):
    from conftest import EmberServer, ember_binary

    if ember_mode == "spark":
        pytest.skip("Ember's own server options")
    return EmberServer(ember_binary(request.config), ember_mode, extra_args=list(args), workdir=tmp_path)


def test_log_format_json(request, ember_mode, tmp_path):
    import json

    from conftest import new_session

    server = own_server(request, ember_mode, tmp_path, "--log-format", "json", "--ui-port", "0")
    try:
        spark = new_session(server.url)
        assert multi_stage(spark).count() == 7
        session_id = spark.client._session_id
        spark.stop()
    finally:
        server.stop()
    lines = [l for l in server.log_path.read_text().splitlines() if l.strip()]
    records = [json.loads(l) for l in lines]  # every line is one JSON object
    assert all({"timestamp", "level", "fields"} <= r.keys() for r in records), lines[:3]
    assert any("listening on sc://" in r["fields"].get("message", "") for r in records)
    done = [r for r in records if r["fields"].get("message") == "operation finished"]
    assert done, lines
    # Each query's lines carry its session and operation ids.
    assert all(r["span"]["name"] == "query" and r["span"]["operation"] for r in done)
    assert any(r["span"]["session"] == session_id for r in done)
    assert max(r["fields"]["stages"] for r in done) >= 1


def scrape(port):
    import urllib.request

    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as r:
        assert r.headers["Content-Type"].startswith("text/plain")
        text = r.read().decode()
    values = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            name, value = line.rsplit(" ", 1)
            values[name.split("{")[0]] = float(value)
    return text, values


def test_prometheus_metrics(request, ember_mode, tmp_path):
    from conftest import free_port, new_session

    port = free_port()
    server = own_server(request, ember_mode, tmp_path, "--ui-port", str(port))
    try:
        text, before = scrape(port)
        assert "# TYPE ember_queries_running gauge" in text
        assert "# TYPE ember_queries_finished_total counter" in text
        spark = new_session(server.url)
        assert multi_stage(spark).count() == 7
        assert len(multi_stage(spark).collect()) == 7
        with pytest.raises(Exception):
            spark.sql("SELECT no_such_column FROM range(1)").collect()
        text, after = scrape(port)
        assert after["ember_queries_finished_total"] >= before["ember_queries_finished_total"] + 2
        assert after["ember_queries_failed_total"] >= before["ember_queries_failed_total"] + 1
        assert after["ember_queries_running"] == 0
        assert after["ember_tasks_completed_total"] > before["ember_tasks_completed_total"]
        assert after["ember_sessions"] >= 1
        assert after["ember_memory_limit_bytes"] > 0
        assert after["ember_spill_disk_bytes"] >= 0
        if ember_mode == "cluster":
            # Worker processes report their memory and spill files with their heartbeats (every
            # 500 ms: a worker that joined just now may not have sent one yet).
            deadline = time.time() + 10
            while text.count("ember_worker_memory_used_bytes{worker=") < 2 and time.time() < deadline:
                time.sleep(0.2)
                text, after = scrape(port)
            assert text.count("ember_worker_memory_used_bytes{worker=") == 2, text
            assert after["ember_worker_memory_limit_bytes"] > 0
            assert "ember_worker_spill_disk_bytes" in after
        if ember_mode != "local":
            assert after["ember_workers_alive"] == 2
            assert after["ember_shuffle_bytes_written_total"] > 0
            assert after["ember_shuffle_records_written_total"] > 0
        spark.stop()
    finally:
        server.stop()


def test_responses_of_a_short_query(spark):
    # A query of one batch answers as Spark does: its schema, its batch, one progress report,
    # its metrics and its end (each response costs the client a release call; a progress
    # report ahead of every response doubled them).
    from pyspark.sql.connect.client import reattach

    kinds = []
    original = reattach.ExecutePlanResponseReattachableIterator.__next__

    def record(self):
        response = original(self)
        if response.HasField("schema"):
            kinds.append("schema")
        elif response.HasField("metrics"):
            kinds.append("metrics")
        else:
            kinds.append(response.WhichOneof("response_type"))
        return response

    df = spark.sql("SELECT 1 AS x")
    reattach.ExecutePlanResponseReattachableIterator.__next__ = record
    try:
        assert df.collect()[0].x == 1
    finally:
        reattach.ExecutePlanResponseReattachableIterator.__next__ = original
    assert sorted(kinds) == sorted(["schema", "execution_progress", "arrow_batch", "metrics", "result_complete"]), kinds
    assert kinds[0] == "schema" and kinds[-1] == "result_complete", kinds
