"""Bucketed tables (`bucketBy`/`sortBy`, `CLUSTERED BY ... INTO n BUCKETS`,
`writeTo().partitionedBy(bucket(n, col))`) and the partition transforms (`years`, `months`,
`days`, `hours`, `bucket`), answers recorded from real Spark.

A row's bucket is read back from the name of the file holding it (`part-..._00003...`), so the
buckets Ember writes are compared with the ones Spark writes."""

import re
from pathlib import Path

import pytest
from pyspark.sql import functions as F

from test_catalog import fresh, stable

BUCKET = F.regexp_extract(F.input_file_name(), r"_(\d{5})\.", 1).alias("bucket")


@pytest.fixture
def db(spark, request):
    name = "bkt_" + request.node.originalname.removeprefix("test_")[:40]
    fresh(spark, name)
    yield name
    spark.sql("USE default")
    spark.sql(f"DROP DATABASE IF EXISTS {name} CASCADE")


def rows(spark):
    return spark.range(12).selectExpr("id", "cast(id * 7 AS STRING) s", "id % 2 p")


def buckets(spark, table, *columns):
    return spark.table(table).select(*columns, BUCKET)


def bucket_rows(df):
    """DESCRIBE rows about bucketing."""
    return stable(df).filter(F.col("col_name").isin("Num Buckets", "Bucket Columns", "Sort Columns"))


def test_bucket_by(spark, expected, db):
    rows(spark).write.bucketBy(4, "id").sortBy("s").saveAsTable("t")
    expected.check(buckets(spark, "t", "id", "s", "p"), name="buckets")
    expected.check(stable(spark.sql("DESCRIBE TABLE EXTENDED t")), name="describe")
    expected.check_value(spark.sql("SHOW CREATE TABLE t").collect()[0][0], name="show_create")
    expected.check_value([tuple(c) for c in spark.catalog.listColumns("t")], name="columns")
    # Each bucket's file is sorted by the sort columns.
    files = [r[0] for r in spark.table("t").select(F.input_file_name()).distinct().collect()]
    for f in files:
        values = [r[0] for r in spark.read.parquet(f).select("s").collect()]
        assert values == sorted(values), f
    # INSERT INTO a bucketed table writes its rows to their buckets too.
    spark.sql("INSERT INTO t VALUES (100, 'x', 0), (101, 'y', 1)")
    expected.check(buckets(spark, "t", "id").where("id >= 100"), name="inserted")


def test_bucket_by_many_types(spark, expected, db):
    df = spark.createDataFrame(
        [(1, "a", 1.5, True, None), (-7, "héllo", -0.0, False, "2024-02-29"), (2**31 - 1, "", 1e300, None, "1970-01-01")],
        "i INT, s STRING, d DOUBLE, b BOOLEAN, day STRING",
    ).withColumn("day", F.to_date("day"))
    df.write.bucketBy(5, "i", "s", "d", "b", "day").saveAsTable("many")
    expected.check(buckets(spark, "many", "i"), name="buckets")
    df.write.bucketBy(3, "d").saveAsTable("by_double")
    expected.check(buckets(spark, "by_double", "i"), name="by_double")


def test_partitioned_and_bucketed(spark, expected, db):
    rows(spark).write.partitionBy("p").bucketBy(3, "s").saveAsTable("t")
    expected.check(buckets(spark, "t", "id", "p"), name="buckets")
    files = {r[0].rsplit("/", 2)[-2] for r in spark.table("t").select(F.input_file_name()).collect()}
    assert files == {"p=0", "p=1"}
    expected.check(bucket_rows(spark.sql("DESCRIBE TABLE EXTENDED t")), name="describe")


def test_write_to_bucket(spark, expected, db):
    rows(spark).writeTo("t").partitionedBy(F.bucket(3, "id")).create()
    expected.check(buckets(spark, "t", "id"), name="buckets")
    expected.check(bucket_rows(spark.sql("DESCRIBE TABLE EXTENDED t")), name="describe")
    rows(spark).writeTo("u").partitionedBy("p", F.bucket(2, "id")).create()
    expected.check(buckets(spark, "u", "id", "p"), name="with_column")


def test_sql(spark, expected, db):
    spark.sql("CREATE TABLE c (id INT, s STRING) USING parquet CLUSTERED BY (id) SORTED BY (s) INTO 3 BUCKETS")
    spark.sql("INSERT INTO c VALUES (1, 'a'), (2, 'b'), (7, 'c'), (-3, 'd')")
    expected.check(buckets(spark, "c", "id"), name="clustered")
    expected.check_value(spark.sql("SHOW CREATE TABLE c").collect()[0][0], name="show_create")
    spark.sql("CREATE TABLE pb (id INT, s STRING) USING parquet PARTITIONED BY (bucket(2, id))")
    expected.check(bucket_rows(spark.sql("DESCRIBE TABLE EXTENDED pb")), name="partitioned_by_bucket")
    spark.sql("CREATE TABLE ctas USING parquet CLUSTERED BY (id) INTO 2 BUCKETS AS SELECT id FROM range(6)")
    expected.check(buckets(spark, "ctas", "id"), name="ctas")


ERRORS = {
    "save_path": lambda s, d: rows(s).write.bucketBy(2, "id").parquet("/tmp/ember-bucketing-never-written"),
    "save_path_sorted": lambda s, d: rows(s).write.bucketBy(2, "id").sortBy("s").parquet("/tmp/ember-bucketing-never-written"),
    "sort_without_buckets": lambda s, d: rows(s).write.sortBy("s").saveAsTable("e"),
    "insert_into": lambda s, d: (
        s.sql("CREATE TABLE e (id BIGINT, s STRING, p BIGINT) USING parquet"),
        rows(s).write.bucketBy(2, "id").insertInto("e"),
    ),
    "missing_column": lambda s, d: rows(s).write.bucketBy(2, "nope").saveAsTable("e"),
    "missing_sort_column": lambda s, d: rows(s).write.bucketBy(2, "id").sortBy("nope").saveAsTable("e"),
    "too_many_buckets": lambda s, d: rows(s).write.bucketBy(100001, "id").saveAsTable("e"),
    "append_unbucketed": lambda s, d: (
        rows(s).write.bucketBy(2, "id").saveAsTable("e"),
        rows(s).write.mode("append").saveAsTable("e"),
    ),
    "append_other_buckets": lambda s, d: (
        rows(s).write.bucketBy(2, "id").saveAsTable("e"),
        rows(s).write.mode("append").bucketBy(3, "id").saveAsTable("e"),
    ),
    "sql_zero_buckets": lambda s, d: s.sql("CREATE TABLE e (id INT) USING parquet CLUSTERED BY (id) INTO 0 BUCKETS"),
    "sql_missing_column": lambda s, d: s.sql("CREATE TABLE e (id INT) USING parquet CLUSTERED BY (x) INTO 3 BUCKETS"),
    # The partition transforms: Spark's session catalog takes only `bucket`.
    "select_years": lambda s, d: s.sql("SELECT TIMESTAMP'2024-05-06 07:08:09' ts").select(F.years("ts")).collect(),
    "select_bucket": lambda s, d: rows(s).select(F.bucket(4, "id")).collect(),
    "write_to_months": lambda s, d: rows(s).writeTo("e").partitionedBy(F.months("id")).create(),
    "write_to_two_buckets": lambda s, d: rows(s).writeTo("e").partitionedBy(F.bucket(3, "id"), F.bucket(2, "s")).create(),
    "sql_partitioned_by_years": lambda s, d: s.sql("CREATE TABLE e (ts TIMESTAMP) USING parquet PARTITIONED BY (years(ts))"),
    "sql_years_function": lambda s, d: s.sql("SELECT years(TIMESTAMP'2024-01-01')").collect(),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors(spark, expected, db, case):
    expected.check_error(lambda: ERRORS[case](spark, db), name=case)
    assert not Path("/tmp/ember-bucketing-never-written").exists()
