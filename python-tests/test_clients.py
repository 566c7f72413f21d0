"""Every PySpark client version gets answers it can read: `spark.version` as configured,
responses of kinds its own protos know, results without reattaching (as PySpark 3.5 can be set
to run), and older forms of SQL parameters. Runs with every client (client_slice.txt)."""

import datetime
from decimal import Decimal

import pyspark
import pytest
from pyspark.sql import functions as F

from conftest import EmberServer, ember_binary, new_session


def test_spark_version(spark, ember_mode):
    if ember_mode == "spark":
        pytest.skip("Ember's default")
    assert spark.version == "4.3.0"
    # SQL's version() is "<version> <revision>", as Spark's.
    assert spark.sql("SELECT version() v").first().v.split(" ")[0] == "4.3.0"


def test_spark_version_is_configurable(request, ember_mode, tmp_path):
    if ember_mode == "spark":
        pytest.skip("an Ember flag")
    server = EmberServer(ember_binary(request.config), "local", ["--spark-version", "3.5.9"], workdir=tmp_path)
    try:
        session = new_session(server.url)
        assert session.version == "3.5.9"
        assert session.sql("SELECT version() v").first().v.startswith("3.5.9 ")
        assert session.range(3).count() == 3
        session.stop()
    finally:
        server.stop()


def _responses(spark, df):
    """The raw ExecutePlan responses of `df`, decoded with this client's protos."""
    client = spark.client
    req = client._execute_plan_request_with_metadata()
    req.plan.CopyFrom(df._plan.to_proto(client))
    return list(client._stub.ExecutePlan(req, metadata=client._builder.metadata()))


def test_every_response_is_of_a_kind_the_client_knows(spark, ember_mode):
    if ember_mode == "spark":
        pytest.skip("Ember's promise: Spark 4.3 sends progress messages even to a 3.5 client, which skips them")
    df = spark.range(50_000).select("id", F.col("id").cast("string").alias("s"), F.lit(None).alias("n"))
    responses = _responses(spark, df)
    for r in responses:
        known = r.WhichOneof("response_type") is not None or r.HasField("schema") or r.HasField("metrics") or len(r.observed_metrics) > 0
        assert known, f"a response PySpark {pyspark.__version__} cannot read: {r}"
    assert responses[-1].WhichOneof("response_type") == "result_complete"
    rows = sum(r.arrow_batch.row_count for r in responses if r.HasField("arrow_batch"))
    assert rows == 50_000


def test_results_without_reattach(server_url):
    # PySpark 3.5 can run without reattachable execution; the stream then carries everything.
    session = new_session(server_url)
    try:
        session.client.disable_reattachable_execute()
        rows = session.range(200_000).select(F.col("id").cast("string").alias("s")).collect()
        assert len(rows) == 200_000 and rows[-1].s == "199999"
        assert session.sql("SELECT :a + 1 AS b", args={"a": 41}).collect()[0].b == 42
    finally:
        session.stop()


def test_sql_parameters_of_every_form(spark, expected):
    # PySpark 3.5 sends parameters as literals (`args`, `pos_args`); 4.x as expressions.
    expected.check(spark.sql("SELECT :a AS a, :b AS b, :c AS c", args={"a": 1, "b": "x", "c": None}), name="named")
    expected.check(spark.sql("SELECT ? AS a, ? AS b", args=[2.5, True]), name="positional")


def test_sql_parameters_as_columns(spark, expected):
    expected.check(spark.sql("SELECT :d AS d, :e AS e", args={"d": F.lit(3), "e": F.array(F.lit(1), F.lit(2))}), name="column")


def test_literals_of_every_client(spark, expected):
    # Each client builds literals its own way (PySpark sends every Decimal as DECIMAL(10, 0)).
    values = [Decimal("1.25"), Decimal("-0.5"), Decimal("12345678901.5"), Decimal("100"), datetime.date(2020, 1, 2),
              datetime.datetime(2020, 1, 2, 3, 4, 5), datetime.timedelta(days=1, seconds=3), bytearray(b"ab"), [1, 2], ["a", None], 2**40, 1.5]
    df = spark.range(1).select(*[F.lit(v).alias(f"c{i}") for i, v in enumerate(values)])
    expected.check(df, name="lit")


def test_analyze_and_config_of_every_client(spark, expected):
    # AnalyzePlan and Config as each client's protos ask them.
    df = spark.range(3).selectExpr("id", "CAST(id AS STRING) s")
    persisted = spark.range(4).persist()
    answers = [
        df.schema.simpleString(), df.isLocal(), spark.sql("SELECT 1 a").isLocal(), df.isStreaming,
        df.sameSemantics(spark.range(3).selectExpr("id", "CAST(id AS STRING) s")), df.inputFiles(),
        str(persisted.storageLevel),
    ]
    persisted.unpersist()
    spark.conf.set("spark.sql.shuffle.partitions", "5")
    answers += [spark.conf.get("spark.sql.shuffle.partitions"), spark.conf.get("ember.test.absent", "fallback"),
                spark.conf.isModifiable("spark.sql.shuffle.partitions"), spark.conf.isModifiable("spark.sql.warehouse.dir")]
    spark.conf.unset("spark.sql.shuffle.partitions")
    answers.append(spark.conf.get("spark.sql.shuffle.partitions"))
    expected.check_value(answers, name="answers")
