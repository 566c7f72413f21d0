"""The Spark Connect protocol: analyze requests, reattachable streams, interrupts, artifacts."""

import threading
import time

import pyarrow as pa
import pytest
from pyspark.sql import functions as F


def test_version_and_analyze(spark, expected):
    assert spark.version.startswith("4.")
    df = spark.range(3).select((F.col("id") + 1).alias("x"))
    expected.check_value(df.schema.simpleString(), name="schema")
    assert df.isLocal() is False
    assert spark.createDataFrame([(1,)], "a INT").isLocal() is True
    assert df.isStreaming is False
    assert df.inputFiles() == []
    assert df.sameSemantics(spark.range(3).select((F.col("id") + 1).alias("x")))
    assert not df.sameSemantics(spark.range(4))
    assert isinstance(df.semanticHash(), int)
    expected.check_value(spark.client._analyze(method="ddl_parse", ddl_string="a INT, b ARRAY<STRING>").parsed.simpleString(), name="ddl")
    # A single type parses as that type (what @pandas_udf('int') asks), not a struct.
    for ddl in ["int", "array<string>", "map<string, bigint>", "struct<a: int>", "a int", "decimal(10, 2)"]:
        expected.check_value(spark.client._analyze(method="ddl_parse", ddl_string=ddl).parsed.simpleString(), name=f"ddl {ddl}")


def test_explain_shows_plans(spark, capsys, ember_mode):
    spark.range(10).groupBy((F.col("id") % 2).alias("k")).count().explain(mode="extended")
    out = capsys.readouterr().out
    assert "Physical Plan" in out
    if ember_mode != "spark":
        assert "Optimized Logical Plan" in out


def test_large_results_stream_in_many_batches(spark):
    n = 2_000_000
    table = spark.range(n).select("id", (F.col("id") * 2).alias("d")).toArrow()
    assert table.num_rows == n
    assert table.column("d").to_pylist()[-1] == 2 * (n - 1)


def test_empty_result_keeps_schema(spark):
    df = spark.range(5).filter("id > 100").select("id", F.lit("x").alias("s"))
    table = df.toArrow()
    assert table.num_rows == 0
    assert table.schema.names == ["id", "s"]
    assert df.toPandas().shape == (0, 2)


def test_interrupt_cancels_running_query(spark):
    errors = []

    def run():
        try:
            spark.range(0, 10**12, 1, 2).filter("id < 0").count()
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    t = threading.Thread(target=run)
    t.start()
    time.sleep(1.0)
    interrupted = []
    deadline = time.time() + 10
    while not interrupted and time.time() < deadline:
        interrupted = spark.interruptAll()
        time.sleep(0.2)
    t.join(timeout=30)
    assert not t.is_alive(), "the query was not cancelled"
    assert interrupted
    assert errors and "CANCEL" in str(errors[0]).upper()
    assert spark.range(3).count() == 3


def test_interrupt_by_tag(spark):
    result = []

    def run():
        spark.addTag("slow-one")  # tags are per thread
        try:
            spark.range(0, 10**12, 1, 2).filter("id < 0").count()
        except Exception as e:  # noqa: BLE001
            result.append(e)

    t = threading.Thread(target=run)
    t.start()
    time.sleep(1.0)
    ids = []
    deadline = time.time() + 10
    while not ids and time.time() < deadline:
        ids = spark.interruptTag("slow-one")
        time.sleep(0.2)
    t.join(timeout=30)
    assert ids and not t.is_alive()


def test_artifacts_are_stored_per_session(spark, server_url, tmp_path):
    from conftest import new_session

    path = tmp_path / "data.txt"
    path.write_text("hello")
    spark.addArtifacts(str(path), file=True)
    manager = spark.client._artifact_manager
    digest = manager.cache_artifact(b"some bytes to cache")
    assert manager.is_cached_artifact(digest)
    other = new_session(server_url)
    try:
        assert not other.client._artifact_manager.is_cached_artifact(digest)
    finally:
        other.stop()


def test_reattach_and_release(spark):
    # A result big enough for many responses exercises ReleaseExecute as the client consumes.
    rows = spark.range(300_000).select(F.col("id").cast("string").alias("s")).collect()
    assert len(rows) == 300_000
    assert rows[-1].s == "299999"


def test_explain_shows_the_job_graph(spark, ember_mode, capsys):
    if ember_mode in ("spark", "local"):
        pytest.skip("the job graph exists in the cluster modes")
    spark.conf.set("spark.sql.shuffle.partitions", "3")
    try:
        spark.range(100).groupBy((F.col("id") % 5).alias("k")).count().explain(mode="extended")
    finally:
        spark.conf.unset("spark.sql.shuffle.partitions")
    out = capsys.readouterr().out
    for part in ["Analyzed Logical Plan", "Physical Plan", "Job Graph", "Stage 0", "Shuffle from stage", "Hash(", "3 partitions"]:
        assert part in out, f"{part!r} missing from:\n{out}"


def test_large_values_and_plans(spark):
    """A 9 MB plan (inline local data) and a 6 MB value: bigger than gRPC's and Arrow Flight's
    default message sizes, through shuffles and out; only configured limits may fail a query."""
    big = "x" * (6 * 1024 * 1024)
    rows = [(i, big if i == 0 else "y" * 1000) for i in range(3000)]
    df = spark.createDataFrame(rows, "i INT, s STRING")
    summary = (
        df.repartition(3)
        .groupBy((F.col("i") % 3).alias("k"))
        .agg(F.max(F.length("s")).alias("m"), F.count("*").alias("n"))
        .orderBy("k")
        .collect()
    )
    assert [(r.k, r.m, r.n) for r in summary] == [(0, len(big), 1000), (1, 1000, 1000), (2, 1000, 1000)]
    got = df.repartition(4, "i").filter("i < 2").orderBy("i").collect()
    assert [r.i for r in got] == [0, 1]
    assert got[0].s == big


def test_ml_cache_cleanup_answered_as_spark(spark, expected):
    # PySpark's exit hook sends this command; Spark answers the count removed before
    # ResultComplete (see test_script_without_stop_exits).
    import pyspark.sql.connect.proto as pb2

    command = pb2.Command()
    command.ml_command.clean_cache.SetInParent()
    _, properties, _ = spark.client.execute_command(command)
    expected.check_value(str(properties["ml_command_result"]).split(), name="clean_cache")


SCRIPT_WITHOUT_STOP = """
import sys
from pyspark.sql import SparkSession
spark = SparkSession.builder.remote(sys.argv[1]).getOrCreate()
spark.range(3).collect()
"""


def test_script_without_stop_exits(server_url, tmp_path, ember_mode):
    # A script that ends without spark.stop() must exit: PySpark's exit hook runs an ML cache
    # cleanup whose stream it stops reading after the first answer; answered by ResultComplete
    # alone, the call completed while the interpreter shut down and grpcio deadlocked in about
    # a third of the runs.
    import subprocess
    import sys

    if ember_mode == "cluster":
        pytest.skip("the session protocol is the same in every mode")
    script = tmp_path / "no_stop.py"
    script.write_text(SCRIPT_WITHOUT_STOP)
    for _ in range(6):
        done = subprocess.run(
            [sys.executable, str(script), server_url], capture_output=True, timeout=60
        )
        assert done.returncode == 0, done.stderr.decode()[-2000:]
