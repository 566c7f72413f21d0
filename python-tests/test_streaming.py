"""Output that streams (issue 23): the final stage's batches reach the client while its tasks
still run, and a client that reads slowly holds the tasks back instead of making the server
(or, in cluster mode, its workers) buffer the result.

Each mode starts its own server with `--memory-limit 128m` (the limit sizes the buffers ahead
of the client: a quarter of it at most). Timing is asserted as an ordering within one test (the first row comes before
half of the whole scan's time), never as a wall time. The slow reader takes Arrow tables one
response at a time (`client.to_table_as_iterator`, the stream `toLocalIterator()` converts to
rows; converting 50 million rows to `Row`s would take minutes) and samples `VmRSS` of the
server and its worker processes while it reads."""

import threading
import time
from pathlib import Path

import pytest

from conftest import EmberServer, ember_binary, new_session
from procs import children, cpu_seconds, rss_mb

LIMIT = "128m"
# Rows of the scan whose first row is timed (the 200 million): a debug build streams
# range() to the client at ~10 million rows a second, so the whole scan takes ~20 s per mode.
SCAN_ROWS = 200_000_000
# Rows the slow reader reads (two longs each: 800 MB of results).
SLOW_ROWS = 50_000_000
# The reader sleeps this long after each Arrow batch (8192 rows): ~15-30 s for all of them.
SLOW_SLEEP = 0.002
# RSS a process may gain over its RSS at start while the slow reader reads (the result is
# 800 MB; a quarter of the memory limit may be ahead of the client, plus the allocator's and
# the runtime's own growth: measured ~100 MB for the server, ~40 MB for a worker).
RSS_GROWTH_BOUND_MB = 200


class RssSampler:
    """Peak VmRSS of the given processes while a block runs."""

    def __init__(self, pids):
        self.pids = pids
        self.before = {p: rss_mb(p) for p in pids}
        self.peak = dict(self.before)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        while not self._stop.is_set():
            for p in self.pids:
                self.peak[p] = max(self.peak[p], rss_mb(p))
            time.sleep(0.05)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()


@pytest.fixture(scope="module")
def streaming(request, ember_mode, tmp_path_factory):
    if ember_mode == "spark":
        pytest.skip("measures Ember's processes")
    root = tmp_path_factory.mktemp(f"streaming-{ember_mode}")
    server = EmberServer(
        ember_binary(request.config),
        ember_mode,
        extra_args=["--memory-limit", LIMIT, "--spill-dir", str(root / "spill")],
        workdir=root,
    )
    spark = new_session(server.url)
    # RSS after one small query, before any large one (the allocator keeps what a query's
    # peak took); in cluster mode the workers have registered by then.
    assert spark.range(10).count() == 10
    pids = [server.proc.pid] + (children(server.proc.pid) if ember_mode == "cluster" else [])
    server.rss_at_start = {p: rss_mb(p) for p in pids}
    yield server, spark
    spark.stop()
    server.stop()


def arrow_tables(spark, df):
    """The Arrow tables of a DataFrame's result, one per response, as they arrive."""
    import pyarrow as pa

    client = spark.client
    for item in client.to_table_as_iterator(df._plan.to_proto(client), {}):
        if isinstance(item, pa.Table):
            yield item


def test_slow_reader_does_not_grow_memory(streaming, ember_mode):
    server, spark = streaming
    pids = list(server.rss_at_start)
    if ember_mode == "cluster":
        assert len(pids) == 3, pids  # the server and its two workers
    df = spark.range(SLOW_ROWS).selectExpr("id", "id * 2 AS twice")
    count = 0
    last = None
    start = time.monotonic()
    with RssSampler(pids) as rss:
        for table in arrow_tables(spark, df):
            count += table.num_rows
            if table.num_rows:
                last = table.column(0)[-1].as_py()
            time.sleep(SLOW_SLEEP)
    took = time.monotonic() - start
    assert (count, last) == (SLOW_ROWS, SLOW_ROWS - 1)
    growth = {p: rss.peak[p] - server.rss_at_start[p] for p in pids}
    print(
        f"\n{ember_mode}: read {SLOW_ROWS} rows in {took:.1f} s; RSS at start "
        f"{server.rss_at_start} MB, before the query {rss.before} MB, peak {rss.peak} MB"
    )
    assert all(g < RSS_GROWTH_BOUND_MB for g in growth.values()), growth
    # The server carries on.
    assert spark.range(10).selectExpr("sum(id)").collect()[0][0] == 45


def _identity(it):
    yield from it


def test_map_in_arrow_streams_through_python(streaming, ember_mode):
    """mapInArrow over 320 MB of rows: the partitions stream through the Python workers a few
    batches at a time, so neither Ember's processes nor the workers hold a partition."""
    import sys

    from pyspark import cloudpickle

    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    server, spark = streaming
    pids = list(server.rss_at_start)
    rows = 40_000_000
    with RssSampler(pids) as rss:
        out = spark.range(0, rows, 1, 2).mapInArrow(_identity, "id long").selectExpr("sum(id)")
        assert out.collect()[0][0] == rows * (rows - 1) // 2
    growth = {p: rss.peak[p] - server.rss_at_start[p] for p in pids}
    print(f"\n{ember_mode}: mapInArrow of {rows} rows, RSS growth {growth} MB")
    assert all(g < RSS_GROWTH_BOUND_MB for g in growth.values()), growth


def _centered(table):
    import pyarrow.compute as pc

    v = table.column("v")
    return table.set_column(1, "v", pc.subtract(v, pc.mean(v)))


def test_apply_in_arrow_holds_a_group_at_a_time(streaming, ember_mode):
    """groupBy().applyInArrow over 10 million rows in 1,000 groups: each partition is sorted by
    the key (spilling under the memory limit) and goes to the worker a group at a time."""
    import sys

    from pyspark import cloudpickle

    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    server, spark = streaming
    pids = list(server.rss_at_start)
    rows = 10_000_000
    df = spark.range(0, rows, 1, 2).selectExpr("id % 1000 AS k", "CAST(id AS DOUBLE) AS v")
    with RssSampler(pids) as rss:
        out = df.groupBy("k").applyInArrow(_centered, "k long, v double")
        got = out.selectExpr("count(*)", "count(DISTINCT k)", "round(sum(v), 3)").collect()[0]
        assert tuple(got) == (rows, 1000, 0.0)
    growth = {p: rss.peak[p] - server.rss_at_start[p] for p in pids}
    print(f"\n{ember_mode}: applyInArrow of {rows} rows, RSS growth {growth} MB")
    assert all(g < RSS_GROWTH_BOUND_MB for g in growth.values()), growth


def test_first_row_before_the_scan_ends(streaming, ember_mode):
    server, spark = streaming
    df = spark.range(SCAN_ROWS)

    start = time.monotonic()
    rows = df.toLocalIterator()
    first = next(rows)
    first_row = time.monotonic() - start
    assert first.id == 0
    rows.close()
    # The abandoned query waits for a reader that never comes: stop it.
    spark.interruptAll()

    start = time.monotonic()
    first_table = None
    count = 0
    last = None
    for table in arrow_tables(spark, df):
        if first_table is None and table.num_rows:
            first_table = time.monotonic() - start
        count += table.num_rows
        if table.num_rows:
            last = table.column(0)[-1].as_py()
    whole = time.monotonic() - start
    assert (count, last) == (SCAN_ROWS, SCAN_ROWS - 1)
    print(
        f"\n{ember_mode}: {SCAN_ROWS} rows; first row (toLocalIterator) {first_row:.2f} s, "
        f"first batch {first_table:.2f} s, whole scan {whole:.2f} s"
    )
    assert first_row < whole / 2, (first_row, whole)
    assert first_table < whole / 2, (first_table, whole)


@pytest.mark.parametrize("shape", ["datafusion_round_robin", "repartition"])
def test_limit_over_a_one_partition_source_does_not_wait_for_it(streaming, ember_mode, shape):
    """A round-robin exchange over a source of one partition (DataFusion adds one to spread it
    over the session's partitions; `repartition(n)` is another) is read while it is written,
    so a limit answers without the whole source: here 10^12 rows, which would take hours.
    Before, the cluster modes cut a barrier there and did not answer. Once the limit is met,
    the source's task stops: the processes go idle."""
    server, spark = streaming
    df = spark.range(0, 10**12, 1, 1)
    if shape == "repartition":
        df = df.repartition(3)
    df = df.selectExpr("id * 2 AS x").filter("x % 3 > 0").limit(2)
    rows = [r.x for r in df.collect()]
    if shape == "datafusion_round_robin":
        # One partition read in order: the first two rows that pass.
        assert rows == [2, 4]
    else:
        # Any two rows that pass, as in Spark (the exchange deals batches out).
        assert len(rows) == 2 and all(x % 2 == 0 and x % 3 > 0 for x in rows), rows
    pids = [server.proc.pid] + children(server.proc.pid)
    # The source stops once every reader of it has what it wants (at the latest when the job
    # ends), so the processes go idle: a second in which they spend under 0.3 CPU seconds
    # comes. (Not at once: the client may still send ReleaseExecute calls for an earlier
    # test's long result, one per response, for some seconds; a source left running would
    # spend a whole CPU in every second.)
    spent = []
    for _ in range(30):
        before = sum(cpu_seconds(p) for p in pids)
        time.sleep(1)
        spent.append(sum(cpu_seconds(p) for p in pids) - before)
        if spent[-1] < 0.3:
            break
    assert spent[-1] < 0.3, f"CPU seconds spent in each second after the query: {spent}"
