"""Bounded memory (issue 23): `ember server --memory-limit SIZE --spill-dir DIR`.

TPC-H SF0.1 q18, q21 and q9 run under a limit small enough that their sorts, aggregations and
sort-merge joins spill: the answers are checked against DataFusion in-process on the same
files, spill files must appear under the spill directory while the query runs and be gone
after it. A query that cannot fit fails with an error naming the limit, and the next query
works. Each test starts its own server (the limit is a process setting)."""

import os
import re
import threading
import time
from pathlib import Path

import pytest

import tpch
from conftest import EmberServer, ember_binary, new_session

SCALE = 0.1

# The limit the queries run under, per mode: small enough that they spill, large enough that
# they fit. The sessions prefer sort-merge joins (`spark.sql.join.preferSortMergeJoin`), so the
# joins spill too; DataFusion's fair pool gives each spillable operator an equal share, and
# local mode runs every partition's sorts at once (more, smaller shares) where the cluster
# modes run a few tasks at a time.
LIMITS = {"local": "80m", "local-cluster": "40m", "cluster": "24m"}


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    return tpch.generate(SCALE, tmp_path_factory.getbasetemp() / f"tpch-sf{SCALE}")


@pytest.fixture(scope="module")
def reference(data):
    return tpch.datafusion_context(data)


class Limited:
    """A server with a memory limit and its own spill root, and a session on it."""

    def __init__(self, request, mode, root: Path, limit: str):
        self.spill = root / "spill"
        self.spill.mkdir(parents=True, exist_ok=True)
        self.server = EmberServer(
            ember_binary(request.config),
            mode,
            extra_args=["--memory-limit", limit, "--spill-dir", str(self.spill)],
            workdir=root,
        )
        self.spark = new_session(self.server.url)
        self.spark.conf.set("spark.sql.shuffle.partitions", "2")
        self.spark.conf.set("spark.sql.join.preferSortMergeJoin", "true")

    def files(self):
        return [Path(r) / f for r, _, fs in os.walk(self.spill) for f in fs]

    def stop(self):
        self.spark.stop()
        self.server.stop()


@pytest.fixture(scope="module")
def limited(request, ember_mode, tmp_path_factory):
    """One server per limit, kept for the module."""
    if ember_mode == "spark":
        pytest.skip("a setting of Ember's")
    started = {}

    def get(limit):
        if limit not in started:
            root = tmp_path_factory.mktemp(f"memory-{ember_mode}-{limit}")
            started[limit] = Limited(request, ember_mode, root, limit)
        return started[limit]

    yield get
    for s in started.values():
        s.stop()


class SpillWatch:
    """Spill files seen under a directory while a query runs."""

    def __init__(self, root: Path):
        self.root = root
        self.seen = set()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        while not self._stop.is_set():
            for r, _, fs in os.walk(self.root):
                self.seen.update(os.path.join(r, f) for f in fs)
            time.sleep(0.002)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()


def no_files_left(server: Limited, timeout=10.0):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if not server.files():
            return []
        time.sleep(0.05)
    return server.files()


@pytest.mark.parametrize("n", [18, 21, 9])
def test_tpch_spills_and_answers(limited, ember_mode, data, reference, n):
    server = limited(LIMITS[ember_mode])
    tpch.register_spark(server.spark, data)
    with SpillWatch(server.spill) as watch:
        got = [tuple(r) for r in server.spark.sql(tpch.query(n)).collect()]
    problem = tpch.same_answer(got, tpch.datafusion_rows(reference, tpch.query(n)))
    assert not problem, f"q{n}: {problem}"
    assert watch.seen, f"q{n} wrote no spill file under {LIMITS[ember_mode]}"
    assert not no_files_left(server), "spill files left after the query"


def test_start_up_line_names_the_limit(limited, ember_mode):
    server = limited("16m")
    log = server.server.log_path.read_text()
    found = re.search(r"memory limit: 16 MiB, spill dir: (\S+)\)", log)
    assert found, log
    process_dir = Path(found.group(1))
    assert process_dir.parent == server.spill and process_dir.is_dir()


def test_query_that_cannot_fit_fails_cleanly(limited, ember_mode, data):
    server = limited("1m")
    tpch.register_spark(server.spark, data)
    with pytest.raises(Exception) as failure:
        server.spark.sql(tpch.query(21)).collect()
    message = str(failure.value)
    assert "UNABLE_TO_ACQUIRE_MEMORY" in message, message
    assert "--memory-limit 1 MiB" in message, message
    # The server carries on: the same session, and a new one, run the next query.
    assert server.spark.range(10).selectExpr("sum(id)").collect()[0][0] == 45
    other = new_session(server.server.url)
    try:
        assert other.sql("SELECT count(*) FROM VALUES (1), (2) AS t(x)").collect()[0][0] == 2
    finally:
        other.stop()
    # (Not asserted here: under load, a failed query's sort spill files were once seen to
    # outlive it by more than 10 s in local mode; they go with the process's directory.)


def test_spill_dir_removed_at_exit(request, ember_mode, tmp_path):
    if ember_mode == "spark":
        pytest.skip("a setting of Ember's")
    server = Limited(request, ember_mode, tmp_path, "64m")
    server.stop()
    assert list(server.spill.iterdir()) == []


def test_tail_keeps_the_last_rows(limited, ember_mode):
    spark = limited("16m").spark
    df = spark.range(0, 200_000, 1, 4).selectExpr("id", "id * 2 AS twice")
    everything = df.collect()
    for n in (0, 1, 5, 10_000):
        assert df.tail(n) == (everything[-n:] if n else [])


def test_shuffle_outputs_spill_to_files(limited, ember_mode, data):
    """Stage outputs over the pool's share go to Arrow IPC files (`shuffle-*.arrow`), read back
    by the next stage (over Flight in cluster mode) and removed with the job's streams."""
    if ember_mode == "local":
        pytest.skip("local mode has no stage outputs")
    server = limited(LIMITS[ember_mode])
    lineitem = server.spark.read.parquet(str(data / "lineitem"))
    df = lineitem.repartition(4).selectExpr("count(*)", "max(l_comment)", "sum(l_quantity)")
    with SpillWatch(server.spill) as watch:
        got = tuple(df.collect()[0])
    want = tuple(lineitem.selectExpr("count(*)", "max(l_comment)", "sum(l_quantity)").collect()[0])
    assert got == want
    assert any(Path(f).name.startswith("shuffle-") for f in watch.seen), sorted(watch.seen)[:5]
    assert not no_files_left(server)


def test_a_stalled_reader_frees_its_slots(limited, ember_mode):
    """A client that stops reading in the middle of a result (toLocalIterator) holds the slots
    of the final tasks waiting for it. While another query waits for a slot, their outputs are
    released (what the client has not read is spilled), so the other query runs; the first
    client then reads every row in order, and the spill files go."""
    if ember_mode == "local":
        pytest.skip("local mode runs no tasks in slots")
    server = limited("256m")
    other = new_session(server.server.url)
    n = 400_000
    # 8 partitions of 10 MB each, more than the slots (4) and than a task's window (4 MiB).
    df = server.spark.range(0, n, 1, 8).selectExpr("id", "repeat(CAST(id % 10 AS STRING), 200) AS s")
    rows = df.toLocalIterator()
    first = next(rows)
    with SpillWatch(server.spill) as watch:
        answered = {}
        thread = threading.Thread(target=lambda: answered.update(n=other.range(10).count()), daemon=True)
        thread.start()
        thread.join(60)
        assert answered.get("n") == 10, "the other query waited for the slots the stalled reader holds"
    ids = [first.id]
    for r in rows:
        assert r.s == str(r.id % 10) * 200
        ids.append(r.id)
    assert ids == list(range(n)), "rows missing, twice or out of order"
    assert watch.seen, "nothing was spilled"
    assert not no_files_left(server)
    other.stop()
