"""Grouped-aggregate `pandas_udf` (Series -> scalar) and aggregate `arrow_udf` in `agg`, in
SQL after `spark.udf.register`, beside built-in aggregates; and scalar `arrow_udf`. Answers
recorded from Spark 4.3."""

import sys

import pandas as pd
import pyarrow as pa
import pytest
from pyspark import cloudpickle
from pyspark.sql import functions as F
from pyspark.sql.functions import arrow_udf, pandas_udf

cloudpickle.register_pickle_by_value(sys.modules[__name__])


@pytest.fixture(scope="module")
def df(spark):
    return spark.createDataFrame(
        [("a", 1, 1.0), ("a", 2, 2.5), ("b", 3, None), ("b", 4, 4.0), ("c", 5, 5.5)],
        "k STRING, i LONG, v DOUBLE",
    )


def _mean(v: pd.Series) -> float:
    return v.mean()


def _sum(v: pd.Series) -> int:
    return v.sum()


def _weighted(v: pd.Series, w: pd.Series) -> float:
    return float((v * w).sum() / w.sum())


@pytest.fixture(scope="module")
def udfs(spark):
    # (pandas_udf needs a session: built once the module's session exists.)
    return pandas_udf(_mean, "double"), pandas_udf(_sum, "long"), pandas_udf(_weighted, "double")


def test_grouped_agg_pandas_udf(spark, df, udfs, expected):
    mean_udf, sum_udf, weighted = udfs
    expected.check(df.groupBy("k").agg(mean_udf("v")), name="mean")
    expected.check(df.groupBy("k").agg(sum_udf("i"), mean_udf("v")), name="two_udfs")
    # Spark refuses a pandas aggregate beside built-in ones.
    expected.check_error(lambda: df.groupBy("k").agg(sum_udf("i"), F.max("v")).collect(), name="with_builtins")
    expected.check(df.agg(mean_udf("v"), sum_udf("i")), name="global")
    expected.check(df.groupBy("k").agg(weighted("v", "i").alias("w")), name="two_args")
    expected.check(df.groupBy("k").agg(mean_udf(F.col("i") * 2)), name="expression_arg")


def test_grouped_agg_in_sql(spark, df, udfs, expected):
    mean_udf = udfs[0]
    spark.udf.register("ember_mean_udf", mean_udf)
    df.createOrReplaceTempView("ember_agg_t")
    expected.check(spark.sql("SELECT k, ember_mean_udf(v) FROM ember_agg_t GROUP BY k"), name="sql")
    # Over a window, named in SQL.
    expected.check(
        spark.sql("SELECT k, i, ember_mean_udf(v) OVER (PARTITION BY k) m FROM ember_agg_t"), name="sql_window"
    )
    # Spark takes no FILTER on a Python function (INVALID_SQL_SYNTAX), grouped or over a window.
    expected.check_error(
        lambda: spark.sql("SELECT k, ember_mean_udf(v) FILTER (WHERE i > 1) FROM ember_agg_t GROUP BY k").collect(),
        name="sql_filter",
    )
    expected.check_error(
        lambda: spark.sql(
            "SELECT k, ember_mean_udf(v) FILTER (WHERE i > 1) OVER (PARTITION BY k) FROM ember_agg_t"
        ).collect(),
        name="sql_window_filter",
    )
    spark.udf.register("ember_plus_udf", F.udf(lambda x: x + 1, "double"))
    expected.check_error(
        lambda: spark.sql("SELECT ember_plus_udf(v) FILTER (WHERE i > 1) FROM ember_agg_t").collect(),
        name="sql_scalar_filter",
    )
    expected.check_error(
        lambda: spark.sql("SELECT ember_plus_udf(v) OVER (PARTITION BY k) FROM ember_agg_t").collect(),
        name="sql_scalar_over_window",
    )


def test_arrow_udfs(spark, df, expected):
    @arrow_udf("double")
    def arrow_mean(v: pa.Array) -> float:
        import pyarrow.compute as pc

        return pc.mean(v)

    expected.check(df.groupBy("k").agg(arrow_mean("v")), name="aggregate")

    @arrow_udf("long")
    def arrow_plus(v: pa.Array) -> pa.Array:
        import pyarrow.compute as pc

        return pc.add(v, 1)

    expected.check(df.select(arrow_plus("i")), name="scalar")


def test_window_pandas_udf(spark, df, udfs, expected):
    from pyspark.sql import Window

    mean_udf, sum_udf, _ = udfs
    whole = Window.partitionBy("k")
    expected.check(df.select("k", "i", mean_udf("v").over(whole)), name="unbounded")
    running = Window.partitionBy("k").orderBy("i", "v").rowsBetween(Window.unboundedPreceding, Window.currentRow)
    expected.check(df.select("k", "i", "v", sum_udf("i").over(running)), name="running")
    sliding = Window.partitionBy("k").orderBy("i", "v").rowsBetween(-1, 1)
    # (Aliased: Ember names a frame of literal offsets `ROWS BETWEEN -1 AND 1` where Spark
    # says `-1 FOLLOWING AND 1 FOLLOWING`, for every window function alike.)
    expected.check(df.select("k", "i", "v", mean_udf("v").over(sliding).alias("m")), name="sliding")


def test_iterator_aggregates(spark, df, expected):
    from typing import Iterator

    @pandas_udf("double")
    def total(it: Iterator[pd.Series]) -> float:
        return float(sum(s.sum() for s in it))

    expected.check(df.groupBy("k").agg(total("v")), name="pandas")

    @arrow_udf("long")
    def count_all(it: Iterator[pa.Array]) -> int:
        return sum(len(a) for a in it)

    expected.check(df.groupBy("k").agg(count_all("i")), name="arrow")
