"""Ember's Python UDF workers as processes: crash isolation (a worker killed mid-query fails
that query only), several workers at once, eight sessions running UDFs concurrently, and the
errors for a worker Python that lacks a package or differs from the client's version."""

import os
import shutil
import signal
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest
from pyspark import cloudpickle
from pyspark.sql import functions as F
from pyspark.sql.functions import udf

from conftest import EmberServer, ember_binary, new_session

cloudpickle.register_pickle_by_value(sys.modules[__name__])


def _square(x):
    return x * x


def test_worker_killed_mid_query(spark):
    pid_file = Path(tempfile.mkdtemp()) / "pid"

    def slow(x, path=str(pid_file)):
        import os
        import time

        # (Only the first row's worker waits to be killed: the cluster modes may spread the
        # rows over several tasks, and a worker nobody kills would sleep on.)
        if x == 0:
            with open(path, "w") as f:
                f.write(str(os.getpid()))
            time.sleep(60)
        return x

    def kill_when_started():
        deadline = time.time() + 30
        while time.time() < deadline:
            if pid_file.exists() and pid_file.read_text():
                os.kill(int(pid_file.read_text()), signal.SIGKILL)
                return
            time.sleep(0.05)

    killer = threading.Thread(target=kill_when_started)
    killer.start()
    started = time.time()
    with pytest.raises(Exception) as info:
        spark.range(0, 4, 1, 1).select(udf(slow, "long")("id")).collect()
    killer.join()
    assert time.time() - started < 50, "the query waited for the killed worker"
    assert "Python worker exited unexpectedly (crashed)" in str(info.value)
    assert [r[0] for r in spark.range(4).select(udf(_square, "long")("id")).collect()] == [0, 1, 4, 9]


def test_workers_run_at_once(spark):
    def pid(x):
        import os
        import time

        time.sleep(1)
        return os.getpid()

    rows = spark.range(0, 8, 1, 8).select(udf(pid, "long")("id")).collect()
    assert len({r[0] for r in rows}) >= 2, "the partitions' UDFs ran in one process"


def test_eight_sessions_at_once(server_url):
    errors, results = [], {}

    def run(i):
        session = new_session(server_url)
        try:
            total = session.range(0, 2000, 1, 4).select(udf(_square, "long")("id").alias("s")).agg(F.sum("s"))
            results[i] = total.collect()[0][0]
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)
        finally:
            session.stop()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert results == {i: sum(x * x for x in range(2000)) for i in range(8)}


def _server_with_python(request, tmp_path, python):
    return EmberServer(ember_binary(request.config), "local", extra_args=["--python", python], workdir=tmp_path)


@pytest.mark.skipif(not Path("/usr/bin/python3").exists(), reason="no system Python")
def test_missing_package_is_named(request, tmp_path, ember_mode):
    if ember_mode != "local":
        pytest.skip("one server is enough")
    import subprocess

    if subprocess.run(["/usr/bin/python3", "-c", "import pyarrow"], capture_output=True).returncode == 0:
        pytest.skip("the system Python has pyarrow")
    server = _server_with_python(request, tmp_path, "/usr/bin/python3")
    session = new_session(server.url)
    try:
        with pytest.raises(Exception) as info:
            session.range(2).select(udf(_square, "long")("id")).collect()
        assert "pyarrow" in str(info.value)
        assert type(info.value).__name__ == "PythonException"
    finally:
        session.stop()
        server.stop()


def test_python_version_mismatch(request, tmp_path, ember_mode):
    if ember_mode != "local":
        pytest.skip("one server is enough")
    other = None
    for minor in (12, 13, 10):
        if minor == sys.version_info[1]:
            continue
        found = sorted(Path(os.path.expanduser("~/.pyenv/versions")).glob(f"3.{minor}.*/bin/python"))
        other = str(found[0]) if found else shutil.which(f"python3.{minor}")
        if other:
            break
    if other is None:
        pytest.skip("no Python of another minor version")
    server = _server_with_python(request, tmp_path, str(other))
    session = new_session(server.url)
    try:
        with pytest.raises(Exception) as info:
            session.range(2).select(udf(_square, "long")("id")).collect()
        assert "PYTHON_VERSION_MISMATCH" in str(info.value)
        assert type(info.value).__name__ == "PythonException"
    finally:
        session.stop()
        server.stop()


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # (A killed child not yet reaped is a zombie: dead for this purpose.)
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def test_cancel_kills_running_function(server_url):
    # A cancelled query (interruptAll) ends at once, the worker running its function (sleeping
    # 60 s) is killed, and the next query of the session runs.
    session = new_session(server_url)
    pid_file = Path(tempfile.mkdtemp()) / "pid"

    def slow(batches, path=str(pid_file)):
        import os
        import time

        for b in batches:
            with open(path, "w") as f:
                f.write(str(os.getpid()))
            time.sleep(60)
            yield b

    def cancel():
        for _ in range(200):
            if pid_file.exists() and pid_file.read_text():
                break
            time.sleep(0.05)
        session.interruptAll()

    threading.Thread(target=cancel, daemon=True).start()
    started = time.time()
    try:
        with pytest.raises(Exception):
            session.range(1, numPartitions=1).mapInPandas(slow, "id long").collect()
        assert time.time() - started < 20, "the cancelled query did not end at once"
        pid = int(pid_file.read_text())
        for _ in range(100):
            if not _alive(pid):
                break
            time.sleep(0.05)
        assert not _alive(pid), "the worker running the cancelled function is still running"
        plus_one = udf(lambda x: x + 1, "long")
        assert [r[0] for r in session.range(3).select(plus_one("id")).collect()] == [1, 2, 3]
        assert session.range(2).mapInPandas(lambda it: it, "id long").count() == 2
    finally:
        session.stop()
