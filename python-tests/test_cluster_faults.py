"""Cluster mode under faults: worker processes killed (SIGKILL) or hung (SIGSTOP) in the middle
of a multi-stage TPC-H query. Each test starts its own `ember server --mode cluster` with three
worker processes and reads the driver's log to strike while the query runs: once a later stage
has started and a worker holds output it still needs.

Runs when `cluster` is among `--ember-modes`."""

import os
import re
import signal
import subprocess
import threading
import time

import pytest

import tpch
from conftest import EmberServer, ember_binary, new_session

SCALE = 0.1
QUERY = 9  # six tables, five joins, an aggregation and a sort: several shuffle stages

SECRET = "test-cluster-secret"
WORKER = re.compile(r"Ember worker (\d+) \(pid (\d+)\)")
DRIVER = re.compile(r"Ember driver service listening on (http://\S+)")
ACCEPTED = re.compile(r"job accepted job=(\d+)")
LAUNCHED = re.compile(r"task launched task=job (\d+) stage (\d+) partition (\d+) attempt (\d+) worker=(\d+)")
FINISHED = re.compile(
    r"task finished task=job (\d+) stage (\d+) partition (\d+) attempt (\d+) worker=(\d+) outcome=Succeeded"
)


@pytest.fixture(scope="module", autouse=True)
def cluster_only(request):
    modes = request.config.getoption("--ember-modes").split(",")
    if "cluster" not in modes or os.environ.get("EMBER_RECORD") == "1":
        pytest.skip("cluster mode is not among --ember-modes")


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    return tpch.generate(SCALE, tmp_path_factory.getbasetemp() / f"tpch-sf{SCALE}")


@pytest.fixture(scope="module")
def want(data):
    return tpch.datafusion_rows(tpch.datafusion_context(data), tpch.query(QUERY))


class Cluster:
    """A cluster-mode server with debug logging of the scheduler."""

    def __init__(self, request, tmp_path, *extra):
        tmp_path.mkdir(parents=True, exist_ok=True)
        args = ["--workers", "3", "--heartbeat-timeout-ms", "1500", "--worker-wait-timeout-secs", "3", *extra]
        self.server = EmberServer(
            ember_binary(request.config),
            "cluster",
            extra_args=args,
            workdir=tmp_path,
            # A known cluster secret, so that a worker started by hand may join.
            env={"EMBER_LOG": "info,ember_execution::cluster::driver=debug", "EMBER_CLUSTER_SECRET": SECRET},
        )
        self.spark = new_session(self.server.url)

    def log(self) -> str:
        return self.server.log_path.read_text()

    def workers(self) -> dict:
        """Worker id -> pid, once all three have started."""
        deadline = time.time() + 30
        while time.time() < deadline:
            found = {int(w): int(p) for w, p in WORKER.findall(self.log())}
            if len(found) >= 3:
                return found
            time.sleep(0.05)
        raise AssertionError(f"the workers did not start:\n{self.log()}")

    def stop(self):
        self.spark.stop()
        self.server.stop()


@pytest.fixture
def cluster_factory(request, tmp_path):
    started = []

    def start(*extra):
        c = Cluster(request, tmp_path / f"c{len(started)}", *extra)
        started.append(c)
        return c

    yield start
    for c in started:
        c.stop()


def prepare(cluster, data):
    cluster.spark.conf.set("spark.sql.shuffle.partitions", "6")
    tpch.register_spark(cluster.spark, data)


def run_with_fault(cluster, sql, strike, tries=5):
    """Run `sql` and call `strike(victims)` once the query's job is past its first stage.
    `victims` are the worker ids holding that job's stage-0 output. Returns the rows or the
    exception, and what `strike` returned."""
    for _ in range(tries):
        start = len(cluster.log())
        outcome = {}

        def query():
            try:
                outcome["rows"] = [tuple(r) for r in cluster.spark.sql(sql).collect()]
            except Exception as e:  # noqa: BLE001 - the test inspects it
                outcome["error"] = e

        thread = threading.Thread(target=query)
        thread.start()
        struck = None
        while thread.is_alive() and struck is None:
            text = cluster.log()[start:]
            jobs = ACCEPTED.findall(text)
            if jobs:
                job = jobs[-1]
                later = [m for m in LAUNCHED.findall(text) if m[0] == job and int(m[1]) >= 2]
                holders = sorted({int(m[4]) for m in FINISHED.findall(text) if m[0] == job and m[1] == "0"})
                if later and holders:
                    struck = strike(holders)
                    break
            time.sleep(0.005)
        thread.join(timeout=180)
        assert not thread.is_alive(), "the query did not finish after the fault"
        if struck is not None:
            return outcome, struck
        # The query finished before the fault: try again (its answer must still be right).
    pytest.fail("the query always finished before the fault could be injected")


def kill(pid, sig=signal.SIGKILL):
    try:
        os.kill(pid, sig)
    except ProcessLookupError:
        pass


@pytest.mark.parametrize("query", [QUERY, 21], ids=["q9", "q21_key_filters"])
def test_sigkill_worker_mid_query(cluster_factory, data, want, query):
    cluster = cluster_factory()
    pids = cluster.workers()
    prepare(cluster, data)
    if query != QUERY:
        # Every join shuffled: q21's semi and anti joins get key filter stages (the filter
        # built from the thinned lineitem side, the other two lineitem scans filtered by it),
        # which a lost worker's outputs must be recomputed through.
        cluster.spark.conf.set("spark.sql.autoBroadcastJoinThreshold", "-1")
        want = tpch.datafusion_rows(tpch.datafusion_context(data), tpch.query(query))
        plan = cluster.spark.sql(f"EXPLAIN {tpch.query(query)}").collect()[0][0]
        assert "KeyFilterExec" in plan, plan
    sql = tpch.query(query)

    def strike(holders):
        victim = holders[0]
        kill(pids[victim])
        return victim

    outcome, victim = run_with_fault(cluster, sql, strike)
    assert "error" not in outcome, f"query failed after losing worker {victim}: {outcome['error']}"
    got = outcome["rows"]
    problem = tpch.same_answer(got, want)
    assert not problem, f"wrong answer after losing worker {victim}: {problem}"
    assert len(got) == len(set(got)), "duplicated rows"
    log = cluster.log()
    assert f"worker lost worker={victim}" in log
    assert re.search(r"task launched task=job \d+ stage \d+ partition \d+ attempt [1-9]", log), "nothing ran again"
    # The remaining workers keep serving.
    again = [tuple(r) for r in cluster.spark.sql(sql).collect()]
    assert not tpch.same_answer(again, want)


def test_hung_worker_detected_by_heartbeat(cluster_factory, data, want):
    cluster = cluster_factory()
    pids = cluster.workers()
    prepare(cluster, data)
    stopped = []

    def strike(holders):
        victim = holders[0]
        kill(pids[victim], signal.SIGSTOP)
        stopped.append(pids[victim])
        return victim

    try:
        outcome, victim = run_with_fault(cluster, tpch.query(QUERY), strike)
    finally:
        for pid in stopped:
            kill(pid, signal.SIGKILL)
    assert "error" not in outcome, f"query failed with worker {victim} hung: {outcome['error']}"
    problem = tpch.same_answer(outcome["rows"], want)
    assert not problem, f"wrong answer with worker {victim} hung: {problem}"
    assert f"no heartbeat: worker lost worker={victim}" in cluster.log()


def test_paused_worker_rejoins(cluster_factory, data, want):
    """A worker paused past the heartbeat timeout is declared lost (its work runs elsewhere);
    resumed, it drops what it held and rejoins under its id, and later queries use it again."""
    cluster = cluster_factory()
    pids = cluster.workers()
    prepare(cluster, data)
    paused = []

    def strike(holders):
        victim = holders[0]
        kill(pids[victim], signal.SIGSTOP)
        paused.append(victim)
        return victim

    try:
        outcome, victim = run_with_fault(cluster, tpch.query(QUERY), strike)
        assert "error" not in outcome, f"query failed with worker {victim} paused: {outcome['error']}"
        assert not tpch.same_answer(outcome["rows"], want)
        assert f"no heartbeat: worker lost worker={victim}" in cluster.log()
    finally:
        for v in paused:
            kill(pids[v], signal.SIGCONT)
    deadline = time.time() + 30
    while f"worker {victim} rejoined the driver" not in cluster.log():
        assert time.time() < deadline, f"worker {victim} did not rejoin:\n{cluster.log()[-3000:]}"
        time.sleep(0.1)
    assert f"a lost worker comes back worker={victim}" in cluster.log()
    # Queries use it again (several, so that the scheduler reaches every worker).
    start = len(cluster.log())
    for _ in range(3):
        assert not tpch.same_answer([tuple(r) for r in cluster.spark.sql(tpch.query(QUERY)).collect()], want)
    assert re.search(rf"task launched task=job \d+ stage \d+ partition \d+ attempt \d+ worker={victim}\b", cluster.log()[start:])


def test_attempts_exhausted_names_the_stage(cluster_factory, data):
    cluster = cluster_factory("--max-task-attempts", "1")
    pids = cluster.workers()
    prepare(cluster, data)

    def strike(holders):
        kill(pids[holders[0]])
        return holders[0]

    outcome, victim = run_with_fault(cluster, tpch.query(QUERY), strike)
    assert "error" in outcome, "the query succeeded although no task may run twice"
    message = str(outcome["error"])
    assert re.search(rf"stage \d+ failed after 1 attempt: worker {victim} was lost", message), message
    # The server is still there, and the remaining workers run the next query.
    assert cluster.spark.sql("SELECT count(*) FROM nation").collect()[0][0] == 25


def test_all_workers_killed(cluster_factory, data, want, request):
    cluster = cluster_factory()
    pids = cluster.workers()
    prepare(cluster, data)

    def strike(_holders):
        for pid in pids.values():
            kill(pid)
        return True

    started = time.time()
    outcome, _ = run_with_fault(cluster, tpch.query(QUERY), strike)
    assert "error" in outcome, "the query succeeded with every worker dead"
    message = str(outcome["error"])
    assert "no workers are available" in message, message
    assert time.time() - started < 60
    # The server keeps serving: configuration works, and a worker that joins runs queries.
    assert cluster.spark.conf.get("spark.sql.shuffle.partitions") == "6"
    driver = DRIVER.search(cluster.log()).group(1)
    worker = subprocess.Popen(
        [str(ember_binary(request.config)), "worker", "--driver", driver, "--slots", "2"],
        stdout=open(cluster.server.log_path, "a"),
        stderr=subprocess.STDOUT,
        env={**os.environ, "EMBER_CLUSTER_SECRET": SECRET},
    )
    try:
        got = [tuple(r) for r in cluster.spark.sql(tpch.query(QUERY)).collect()]
        assert not tpch.same_answer(got, want)
    finally:
        worker.kill()
        worker.wait()


def read_while_killing(cluster, pids, df, before_kill, check=lambda row: True):
    """Read `df` through toLocalIterator; after `before_kill` rows, kill the worker running
    the final task of partition 0 (it is still writing: the client stopped reading). Returns
    each row's first column (None where `check(row)` is false) or the error, and the victim."""
    start = len(cluster.log())
    rows, victim = [], None
    try:
        for row in df.toLocalIterator():
            rows.append(row[0] if check(row) else None)
            if victim is None and len(rows) == before_kill:
                text = cluster.log()[start:]
                job = ACCEPTED.findall(text)[-1]
                running = [m for m in LAUNCHED.findall(text) if m[0] == job and m[2] == "0"]
                victim = int(running[-1][4])
                kill(pids[victim])
    except Exception as e:  # noqa: BLE001 - the test inspects it
        return e, victim
    return rows, victim


def test_worker_lost_while_the_client_reads_the_output(cluster_factory):
    """The final task of a partition whose rows already stream to the client (past the rows
    the server holds back, an eighth of the memory limit) is lost: its new run's first rows
    are compared with the ones sent, and the output goes on after them, each row once."""
    cluster = cluster_factory("--memory-limit", "64m")
    pids = cluster.workers()
    n = 4_000_000
    df = cluster.spark.range(0, n, 1, 2).selectExpr("id", "id * 7 % 1000 AS b")
    got, victim = read_while_killing(cluster, pids, df, 700_000, lambda r: r[1] == r[0] * 7 % 1000)
    assert victim is not None
    assert not isinstance(got, Exception), f"the output failed after losing worker {victim}: {got}"
    assert len(got) == n, f"{len(got)} rows, not {n}"
    assert got == list(range(n)), "rows missing, twice, out of order or wrong"
    log = cluster.log()
    assert f"worker lost worker={victim}" in log
    assert re.search(r"task launched task=job \d+ stage 0 partition 0 attempt [1-9]", log), "nothing ran again"


def test_worker_lost_while_the_client_reads_other_rows_fails(cluster_factory):
    """When the new run's first rows are not the ones sent (uuid() differs from run to run),
    the output fails rather than show rows twice or miss some; the server serves on."""
    cluster = cluster_factory("--memory-limit", "64m")
    pids = cluster.workers()
    df = cluster.spark.range(0, 4_000_000, 1, 2).selectExpr("id", "uuid() AS u")
    got, victim = read_while_killing(cluster, pids, df, 400_000)
    assert victim is not None
    assert isinstance(got, Exception), "the output went on with rows of another run"
    assert "not deterministic" in str(got), str(got)
    assert cluster.spark.range(10).count() == 10
