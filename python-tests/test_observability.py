"""Observability: query progress (`ExecutePlanResponse.execution_progress`, PySpark's
`registerProgressHandler`), per-operator metrics with the results (`df.executionInfo`) and
EXPLAIN ANALYZE, in every execution mode.

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
