"""Python UDFs over values beyond the basics: nulls, decimals, timestamps in a session time
zone, nested arrays / maps / structs in and out, UDFs in filters, grouping keys, ordering,
joins and nested calls, and the errors a function's failures give. Answers recorded from
Spark 4.3."""

import decimal
import sys

import pytest
from pyspark import cloudpickle
from pyspark.sql import functions as F
from pyspark.sql.functions import arrow_udf, pandas_udf, udf

cloudpickle.register_pickle_by_value(sys.modules[__name__])


@pytest.fixture(scope="module")
def nums(spark):
    return spark.createDataFrame(
        [(1, "a", 1.5), (2, None, None), (None, "c", 3.25), (4, "d", -0.5), (5, "a", 2.0)],
        "n INT, s STRING, x DOUBLE",
    )


@pytest.fixture(scope="module")
def nested(spark):
    return spark.sql(
        """SELECT array(named_struct('a', 1, 'b', 'x'), named_struct('a', 2, 'b', NULL)) AS arr,
                  map('k', array(1, 2), 'j', CAST(NULL AS ARRAY<INT>)) AS m,
                  named_struct('id', 7, 'tags', array('p', 'q'), 'inner', named_struct('z', 1.5D)) AS st
           UNION ALL
           SELECT CAST(NULL AS ARRAY<STRUCT<a:INT,b:STRING>>), CAST(NULL AS MAP<STRING,ARRAY<INT>>),
                  CAST(NULL AS STRUCT<id:INT,tags:ARRAY<STRING>,inner:STRUCT<z:DOUBLE>>)"""
    )


@pytest.mark.parametrize("arrow", [False, True], ids=["pickled", "arrow"])
def test_nulls(spark, nums, expected, arrow):
    plus = udf(lambda v: None if v is None else v + 1, "int", useArrow=arrow)
    is_null = udf(lambda v: v is None, "boolean", useArrow=arrow)
    concat = udf(lambda a, b: f"{a}-{b}", "string", useArrow=arrow)
    expected.check(nums.select(plus("n").alias("p"), is_null("s").alias("z")), name=f"null_in_{arrow}")
    expected.check(nums.select(concat("n", "s").alias("c")), name=f"null_repr_{arrow}")
    expected.check(nums.filter(is_null("x")).select("n"), name=f"filter_{arrow}")
    expected.check(nums.select(udf(lambda v: None, "string", useArrow=arrow)("n").alias("none")), name=f"always_null_{arrow}")


@pytest.mark.parametrize("arrow", [False, True], ids=["pickled", "arrow"])
def test_decimals(spark, expected, arrow):
    df = spark.sql("SELECT CAST(v AS DECIMAL(12,4)) AS d FROM VALUES (1.2345), (-7.5), (NULL) AS t(v)")
    times = udf(lambda d: None if d is None else d * 2, "decimal(12,4)", useArrow=arrow)
    kind = udf(lambda d: None if d is None else f"{type(d).__name__}:{d}", "string", useArrow=arrow)
    expected.check(df.select(times("d").alias("t"), kind("d").alias("k")), name=f"decimal_{arrow}")
    wide = udf(lambda d: None if d is None else d / 3, "decimal(20,10)", useArrow=arrow)
    expected.check(df.select(wide("d").alias("w")), name=f"decimal_rescale_{arrow}")
    make = udf(lambda i: decimal.Decimal(i) / 4, "decimal(10,2)", useArrow=arrow)
    expected.check(spark.range(3).select(make("id").alias("q")), name=f"decimal_out_{arrow}")


def test_timestamps_in_zone(spark, expected):
    old = spark.conf.get("spark.sql.session.timeZone")
    spark.conf.set("spark.sql.session.timeZone", "America/Los_Angeles")
    try:
        df = spark.sql("SELECT TIMESTAMP'2024-03-10 01:30:00' AS ts UNION ALL SELECT TIMESTAMP'2024-07-01 12:00:00'")
        hour = udf(lambda t: t.hour, "int")
        expected.check(df.select(hour("ts").alias("h")), name="row_hour")
        iso = udf(lambda t: t.isoformat(), "string", useArrow=True)
        expected.check(df.select(iso("ts").alias("i")), name="arrow_iso")

        @pandas_udf("string")
        def pandas_iso(s):
            return s.dt.strftime("%Y-%m-%d %H:%M")

        expected.check(df.select(pandas_iso("ts").alias("p")), name="pandas_local")

        @pandas_udf("timestamp")
        def plus_day(s):
            import pandas as pd

            return s + pd.Timedelta(days=1)

        expected.check(df.select(plus_day("ts").alias("t")), name="pandas_timestamp_out")
        expected.check(
            df.select(udf(lambda t: t.replace(minute=0), "timestamp")("ts").alias("t")), name="row_timestamp_out"
        )
        expected.check(df.select(udf(lambda t: t.date(), "date")("ts").alias("d")), name="to_date")
    finally:
        spark.conf.set("spark.sql.session.timeZone", old)


@pytest.mark.parametrize("arrow", [False, True], ids=["pickled", "arrow"])
def test_nested_in(spark, nested, expected, arrow):
    first_b = udf(lambda a: None if a is None else a[0]["b"], "string", useArrow=arrow)
    keys = udf(lambda m: None if m is None else ",".join(sorted(m)), "string", useArrow=arrow)
    inner = udf(lambda s: None if s is None else s["inner"]["z"] + len(s["tags"]), "double", useArrow=arrow)
    expected.check(nested.select(first_b("arr").alias("b"), keys("m").alias("k"), inner("st").alias("z")), name=f"read_{arrow}")


@pytest.mark.parametrize("arrow", [False, True], ids=["pickled", "arrow"])
def test_nested_out(spark, expected, arrow):
    df = spark.range(3)
    pairs = udf(lambda i: [{"a": int(i), "b": str(i)}] * int(i), "array<struct<a:int,b:string>>", useArrow=arrow)
    grid = udf(lambda i: {str(i): list(range(int(i)))}, "map<string,array<int>>", useArrow=arrow)
    deep = udf(lambda i: (int(i), ["x"] * int(i), (float(i) / 2,)), "struct<id:int,tags:array<string>,inner:struct<z:double>>", useArrow=arrow)
    expected.check(df.select(pairs("id").alias("p"), grid("id").alias("g"), deep("id").alias("d")), name=f"write_{arrow}")
    expected.check(
        df.filter("id > 0").select(pairs("id")[0]["b"].alias("b"), deep("id")["inner"]["z"].alias("z")),
        name=f"extract_{arrow}",
    )


def test_pandas_nested(spark, nested, expected):
    @pandas_udf("int")
    def lengths(s):
        return s.apply(lambda a: None if a is None else len(a)).astype("Int32")

    expected.check(nested.select(lengths("arr").alias("n")), name="array_lengths")

    @pandas_udf("struct<id:long,half:double>")
    def as_struct(s):
        import pandas as pd

        return pd.DataFrame({"id": s, "half": s / 2})

    expected.check(spark.range(3).select(as_struct("id").alias("st")), name="struct_out")

    @pandas_udf("array<long>")
    def ranges(s):
        import pandas as pd

        return pd.Series([list(range(i)) for i in s])

    expected.check(spark.range(3).select(ranges("id").alias("r")), name="array_out")


def test_arrow_udf_values(spark, nums, expected):
    import pyarrow as pa
    import pyarrow.compute as pc

    @arrow_udf("double")
    def scaled(x: pa.Array) -> pa.Array:
        return pc.multiply(x, 10)

    @arrow_udf("string")
    def upper(s: pa.Array) -> pa.Array:
        return pc.utf8_upper(s)

    expected.check(nums.select(scaled("x").alias("x10"), upper("s").alias("u")), name="compute")

    @arrow_udf("double")
    def mean(x: pa.Array) -> float:
        return pc.mean(x).as_py()

    expected.check(nums.groupBy("s").agg(mean("x").alias("m")), name="grouped_mean")


def test_udf_placements(spark, nums, expected):
    bucket = udf(lambda v: None if v is None else v % 2, "int")
    expected.check(nums.groupBy(bucket("n").alias("b")).count(), name="group_key")
    expected.check(nums.orderBy(bucket("n"), "n").select("n"), ordered=True, name="order_by")
    other = spark.createDataFrame([(0, "even"), (1, "odd")], "b INT, label STRING")
    expected.check(nums.join(other, bucket(nums.n) == other.b).select("n", "label"), name="join_condition")
    twice = udf(lambda v: None if v is None else v * 2, "int")
    expected.check(nums.select(twice(twice(twice("n"))).alias("eight")), name="nested_calls")
    expected.check(
        nums.select(F.when(bucket("n") == 1, twice("n")).otherwise(F.lit(-1)).alias("w")), name="case_when"
    )
    expected.check(nums.select(twice(F.lit(21)).alias("lit")), name="literal_argument")
    expected.check(nums.filter("n > 100").select(twice("n")), name="empty_input")
    expected.check(spark.range(0, 100, 1, 7).select(twice(F.col("id").cast("int")).alias("v")).agg(F.sum("v")), name="partitions")
    expected.check(
        nums.groupBy("s").agg(F.sum("n").alias("total")).filter(bucket("total") == 0).select("s", "total"),
        name="having",
    )
    spark.udf.register("ember_values_twice", twice)
    nums.createOrReplaceTempView("ember_values_nums")
    expected.check(
        spark.sql("SELECT s, ember_values_twice(n) AS t FROM ember_values_nums WHERE ember_values_twice(n) > 4"),
        name="sql_where",
    )


def test_udf_errors(spark, nums, expected):
    divide = udf(lambda v: 10 // (v - 1), "int")
    expected.check_error(lambda: nums.filter("n = 1").select(divide("n")).collect(), name="zero_division")

    @pandas_udf("long")
    def short(s):
        return s.head(1)

    expected.check_error(lambda: spark.range(5).select(short("id")).collect(), name="pandas_wrong_length")

    @pandas_udf("long")
    def not_series(s):
        return 1

    expected.check_error(lambda: spark.range(2).select(not_series("id")).collect(), name="pandas_not_series")
    bad_int = udf(lambda v: "text", "int")
    expected.check_error(lambda: spark.range(2).select(bad_int("id")).collect(), name="row_wrong_type")
