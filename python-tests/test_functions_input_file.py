"""input_file_name / input_file_block_start / input_file_block_length: the file each row was
read from, over the files real Spark wrote (``data/written-by-spark/``), answers recorded from
real Spark. File names are shown relative to ``data/`` (`file://` and the checkout's path
replaced in the query), so that the answers hold wherever the tests run."""

from pathlib import Path

import pytest
from pyspark.sql import Window
from pyspark.sql import functions as F

from conftest import RECORD, cases

DATA = Path(__file__).resolve().parent / "data"
SPARK_FILES = DATA / "written-by-spark"


def relative(c):
    """A file URI relative to ``data/`` (`''` stays `''`)."""
    return F.replace(c, F.lit(DATA.as_uri() + "/"), F.lit(""))


NAME = relative(F.input_file_name()).alias("file")
START = F.input_file_block_start().alias("start")
LENGTH = F.input_file_block_length().alias("length")

READS = {
    "parquet": lambda r: r.parquet(str(SPARK_FILES / "parquet")),
    "json": lambda r: r.json(str(SPARK_FILES / "json")),
    "csv": lambda r: r.option("header", True).csv(str(SPARK_FILES / "csv")),
    "csv_gzip": lambda r: r.option("header", True).csv(str(SPARK_FILES / "csv-gzip")),
    "orc": lambda r: r.orc(str(SPARK_FILES / "orc")),
    # Directory names holding `%` (`part=c%2Fd`) are quoted in the URI.
    "partitioned": lambda r: r.parquet(str(SPARK_FILES / "partitioned")),
    "orc_partitioned": lambda r: r.orc(str(SPARK_FILES / "orc-partitioned")),
}


@pytest.mark.parametrize("case", sorted(READS))
def test_reads(spark, expected, case):
    df = READS[case](spark.read)
    expected.check(df.select("id", NAME, START, LENGTH), name=case)


def test_unnamed_column(spark, expected):
    # The column names Spark gives the calls.
    df = READS["parquet"](spark.read)
    out = df.select(F.input_file_name(), F.input_file_block_start(), F.input_file_block_length())
    expected.check_value([out.columns, out.schema.simpleString()], name="columns")
    assert all(v.startswith("file:///") for (v, _, _) in out.collect())


def parquet(spark):
    return READS["partitioned"](spark.read)


FRAMES = {
    # In the stage that reads the files: the files' names.
    "with_column": lambda s: parquet(s).withColumn("f", NAME).select("id", "f"),
    "filter": lambda s: parquet(s).where(F.input_file_name().contains("flag=true")).select("id"),
    "group_by": lambda s: parquet(s).groupBy(NAME).agg(F.count("*").alias("n")),
    "distinct": lambda s: parquet(s).select(NAME).distinct(),
    "order_by_file": lambda s: parquet(s).orderBy(F.input_file_name(), "id").select("id"),
    "sql_view": lambda s: (
        parquet(s).createOrReplaceTempView("input_file_view"),
        s.sql("SELECT id, input_file_name() LIKE '%part=a%' a FROM input_file_view"),
    )[1],
    "sql_on_files": lambda s: s.sql(
        f"SELECT id, replace(input_file_name(), '{DATA.as_uri()}/', '') f, input_file_block_length() n "
        f"FROM parquet.`{SPARK_FILES / 'partitioned'}`"
    ),
    "union_of_files": lambda s: READS["parquet"](s.read)
    .select("id")
    .union(READS["orc"](s.read).select("id"))
    .select("id", NAME),
    "union_filter": lambda s: READS["parquet"](s.read)
    .select("id")
    .unionByName(READS["json"](s.read).select("id"))
    .where(F.input_file_name().contains("/json/")),
    # After an exchange (an aggregation, a sort, a limit) or with no file read: '' and -1.
    "after_aggregate": lambda s: parquet(s).groupBy().count().select(NAME, START, LENGTH),
    "after_sort": lambda s: parquet(s).orderBy("id").select("id", NAME),
    "after_limit": lambda s: parquet(s).limit(1).select(NAME, START, LENGTH),
    "range": lambda s: s.range(2).select("id", NAME, START, LENGTH),
    "local_rows": lambda s: s.createDataFrame([(1,)], "x INT").select(NAME, LENGTH),
}


@pytest.mark.parametrize("case", sorted(FRAMES))
def test_frames(spark, expected, case):
    expected.check(FRAMES[case](spark), name=case)


SQL = {
    "no_file": "SELECT input_file_name() a, input_file_block_start() b, input_file_block_length() c",
    "over_values": "SELECT x, input_file_name() f FROM VALUES (1), (2) t(x)",
}


@pytest.mark.parametrize("case", cases(SQL))
def test_sql(spark, expected, case):
    expected.check(spark.sql(SQL[case]), name=case)


def test_not_supported(spark):
    """Where Spark's answer depends on its join strategy or a union's sides, or where the call
    would not reach the scan (a window function's arguments), Ember says so."""
    if RECORD:
        pytest.skip("Ember's own answer")
    files = parquet(spark)
    for df in [
        files.join(spark.range(3), "id").select(F.input_file_name()),
        files.select("id").union(spark.range(10, 11)).select(F.input_file_name()),
        spark.read.text(str(SPARK_FILES / "text")).select(F.input_file_name()),
        files.select(F.first(F.input_file_name()).over(Window.orderBy("id"))),
    ]:
        with pytest.raises(Exception, match="not supported: input_file_name"):
            df.collect()
