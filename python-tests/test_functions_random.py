"""Seeded random values as Spark draws them (its XORShiftRandom per partition, in row order):
rand, randn, uniform and randstr in projections, recorded from real Spark over inputs whose
partitioning does not depend on the machine (one row, or ranges with a partition count)."""

import pytest
from pyspark.sql import functions as F

SQL = {
    "one_row": "SELECT rand(42) a, randn(42) b, uniform(10, 20, 0) c, uniform(1.5D, 2.5D, 3) d, randstr(5, 0) e, randstr(3, 0) f",
    "partitions": "SELECT id, rand(7) r, randn(7) n, uniform(0, 100, 7) u, randstr(4, 7) s FROM range(0, 12, 1, 3)",
    "many_rows": "SELECT count(*) n, sum(r) s, min(g) lo, max(g) hi FROM "
    "(SELECT rand(11) r, randn(11) g FROM range(0, 20000, 1, 2))",
    "types": "SELECT typeof(uniform(1, 2L, 3)) a, typeof(uniform(1, 2.5D, 3)) b, "
    "typeof(uniform(CAST(1 AS SMALLINT), CAST(5 AS SMALLINT), 3)) c, typeof(uniform(1.5F, 2, 1)) d",
    "unseeded": "SELECT uniform(10, 20) BETWEEN 10 AND 20 a, length(randstr(7)) b, rand() < 1 c",
    "negative_seed": "SELECT rand(-3) a, randn(-3) b, uniform(-5, 5, -1) c",
}


@pytest.mark.parametrize("case", sorted(SQL))
def test_sql(spark, expected, case):
    expected.check(spark.sql(SQL[case]), name=case)


def test_dataframe(spark, expected):
    df = spark.range(0, 8, 1, 2)
    expected.check(df.select("id", F.rand(42).alias("r"), F.randn(1).alias("n"), F.randstr(F.lit(6), F.lit(9)).alias("s")))
    expected.check(df.withColumn("u", F.uniform(F.lit(0), F.lit(10), F.lit(5))), name="with_column")
