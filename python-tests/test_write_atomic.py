"""A server killed with SIGKILL in the middle of a write leaves the target's previous contents
complete and readable, with no partial files visible; the next server reads them. Runs in every
mode of ``--ember-modes`` (not against real Spark, which deletes the old files first)."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import RECORD, EmberServer, ember_binary, new_session


WRITER = """
import sys
from pyspark.sql import SparkSession
url, target, mode = sys.argv[1:]
spark = SparkSession.builder.remote(url).create()
big = spark.range(0, 400_000_000, 1, 8).selectExpr("id", "id % 3 AS p")
big.write.mode(mode).partitionBy("p").parquet(target)
"""


@pytest.fixture(autouse=True)
def not_spark():
    if RECORD:
        pytest.skip("Ember's own guarantee")


def visible_files(path: Path):
    found = []
    for root, dirs, files in os.walk(path):
        dirs[:] = [d for d in dirs if not d.startswith((".", "_"))]
        found += [os.path.relpath(os.path.join(root, f), path) for f in files if not f.startswith((".", "_"))]
    return sorted(found)


def kill_tree(server: EmberServer):
    """SIGKILL the server and, in cluster mode, its worker processes."""
    children = subprocess.run(["pgrep", "-P", str(server.proc.pid)], capture_output=True, text=True).stdout.split()
    os.kill(server.proc.pid, signal.SIGKILL)
    for pid in children:
        try:
            os.kill(int(pid), signal.SIGKILL)
        except ProcessLookupError:
            pass
    server.proc.wait()
    server.log.close()


@pytest.mark.parametrize("mode_of_write", ["overwrite", "append"])
def test_kill_mid_write_keeps_previous_data(request, ember_mode, tmp_path, mode_of_write):
    binary = ember_binary(request.config)
    target = tmp_path / "table"
    server = EmberServer(binary, ember_mode, workdir=tmp_path)
    spark = new_session(server.url)
    spark.range(1000).selectExpr("id", "id % 3 AS p").write.partitionBy("p").parquet(str(target))
    before = visible_files(target)
    assert before
    spark.stop()  # (a client of a dead server would retry at exit)

    # A write big enough to be caught in the middle, from a client process of its own.
    # (A script file: `python -c` makes PySpark look for a local Spark installation.)
    script = tmp_path / "writer.py"
    script.write_text(WRITER)
    writer = subprocess.Popen(
        [sys.executable, str(script), server.url, str(target), mode_of_write],
        stdout=subprocess.DEVNULL,
        stderr=open(tmp_path / "writer.err", "w"),
    )
    try:
        deadline = time.time() + 60
        staging = []
        while not staging and time.time() < deadline and writer.poll() is None:
            staging = [p for p in tmp_path.iterdir() if ".ember-staging-" in p.name]
            time.sleep(0.02)
        assert staging, f"the write never started: {(tmp_path / 'writer.err').read_text()}"
        time.sleep(1.5)  # tasks are writing (the whole write takes far longer)
        kill_tree(server)
        # Killed before its commit: the staging directory is still there and no commit
        # journal was written.
        assert writer.poll() is None, "the write ended before the server was killed"
        assert all(s.exists() for s in staging), "the write committed before the server was killed"
        assert not (tmp_path / ".table.ember-commit").exists()
    finally:
        writer.kill()
        writer.wait()

    assert visible_files(target) == before, "the killed write changed the target"
    restarted = EmberServer(binary, ember_mode, workdir=tmp_path)
    try:
        spark = new_session(restarted.url)
        rows = spark.read.parquet(str(target)).selectExpr("count(*) AS n", "sum(id) AS s").collect()
        assert (rows[0].n, rows[0].s) == (1000, sum(range(1000)))
        # The next write to the same place works and replaces everything.
        spark.range(5).selectExpr("id", "id % 3 AS p").write.mode("overwrite").partitionBy("p").parquet(str(target))
        assert spark.read.parquet(str(target)).count() == 5
        spark.stop()
    finally:
        restarted.stop()


def _stage_new_version(spark, tmp_path, fmt, partitioned):
    """The files of a write of ids 100..104 in ``fmt``, written elsewhere by Ember, as the
    ``out/`` directory of a staging directory next to ``table``."""
    staging = tmp_path / ".table.ember-staging-0123456789abcdef"
    source = tmp_path / "new-version"
    writer = spark.range(100, 105).selectExpr("id", "id % 3 AS p").write.mode("overwrite")
    if partitioned:
        writer = writer.partitionBy("p")
    writer.format(fmt).option("header", True).save(str(source))
    staging.mkdir()
    os.rename(source, staging / "out")
    return staging


def _journal(tmp_path, renames, delete):
    (tmp_path / ".table.ember-commit").write_text(
        json.dumps({"renames": [[str(a), str(b)] for a, b in renames], "delete": [str(d) for d in delete]})
    )


def _everything(path: Path):
    return sorted(str(p.relative_to(path)) for p in path.rglob("*"))


@pytest.mark.parametrize("kind", ["overwrite", "append"])
def test_a_read_sees_an_interrupted_commit_whole_and_finishes_it_when_it_runs(spark, tmp_path, kind):
    """A crash in the middle of publishing a commit (its journal written, some renames done):
    planning a read (the schema) lists what the commit publishes and changes nothing; running
    the read finishes the commit first (a read-only listing, recovery where the read executes)."""
    target = tmp_path / "table"
    fmt, partitioned = ("parquet", True) if kind == "overwrite" else ("csv", False)
    old = spark.range(10).selectExpr("id", "id % 3 AS p").write.option("header", True)
    (old.partitionBy("p") if partitioned else old).format(fmt).save(str(target))
    staging = _stage_new_version(spark, tmp_path, fmt, partitioned)
    out = staging / "out"
    if kind == "overwrite":
        # Crashed between the renames: the previous contents moved to the backup, the new
        # ones not in place yet: nothing at the target.
        backup = staging / "previous"
        _journal(tmp_path, [(target, backup), (out, target)], [staging])
        os.rename(target, backup)
        want = list(range(100, 105))
    else:
        # Crashed after the first of the appended files was moved into the target.
        files = sorted(p for p in out.rglob("*") if p.is_file() and not p.name.startswith("_"))
        assert len(files) >= 2, files
        _journal(tmp_path, [(f, target / f.relative_to(out)) for f in files], [staging])
        os.rename(files[0], target / files[0].relative_to(out))
        want = list(range(10)) + list(range(100, 105))
    before = _everything(tmp_path)

    df = spark.read.format(fmt).option("header", True).option("inferSchema", True).load(str(target))
    id_type = "int" if fmt == "csv" else "bigint"
    assert [(f.name, f.dataType.simpleString()) for f in df.schema.fields] == [("id", id_type), ("p", "int")]
    assert _everything(tmp_path) == before, "planning the read changed the file system"

    assert sorted(r.id for r in df.select("id").collect()) == want
    assert not (tmp_path / ".table.ember-commit").exists(), "the read did not finish the commit"
    assert not staging.exists()
    again = spark.read.format(fmt).option("header", True).load(str(target))
    assert sorted(int(r.id) for r in again.collect()) == want
