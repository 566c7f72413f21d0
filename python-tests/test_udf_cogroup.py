"""`df1.groupBy(k).cogroup(df2.groupBy(k)).applyInPandas` and `applyInArrow` (relation
CoGroupMap): the function is called once per key present on either side with both sides' rows
of that key (an empty frame for a side without it), and with the key first if it takes three
arguments; its result's columns are matched by name. Answers recorded from Spark 4.3."""

import sys

import pytest
from pyspark import cloudpickle
from pyspark.sql import functions as F

cloudpickle.register_pickle_by_value(sys.modules[__name__])


@pytest.fixture(scope="module")
def left(spark):
    return spark.createDataFrame(
        [("a", 1, 1.0), ("a", 2, 2.5), ("b", 1, None), ("c", 5, 5.5), (None, 7, 7.0)],
        "k STRING, i LONG, v DOUBLE",
    )


@pytest.fixture(scope="module")
def right(spark):
    return spark.createDataFrame(
        [("a", "x"), ("b", "y"), ("b", "z"), ("d", "w"), (None, "n")],
        "k STRING, s STRING",
    )


def _sizes(l, r):
    import pandas as pd

    k = l.k.iloc[0] if len(l) else r.k.iloc[0]
    return pd.DataFrame({"k": pd.Series([k], dtype=object), "nl": [len(l)], "nr": [len(r)]})


def _with_key(key, l, r):
    import pandas as pd

    tags = ",".join(sorted(r.s))
    return pd.DataFrame({"k": pd.Series([key[0]], dtype=object), "total": [l.i.sum()], "tags": pd.Series([tags], dtype=object)})


def test_cogroup_apply_in_pandas(spark, left, right, expected):
    cg = left.groupBy("k").cogroup(right.groupBy("k"))
    expected.check(cg.applyInPandas(_sizes, "k string, nl long, nr long"), name="sizes")
    expected.check(cg.applyInPandas(_with_key, "k string, total long, tags string"), name="with_key")

    def merge(l, r):
        return l.merge(r, on="k", how="outer")[["s", "k", "i"]].astype({"s": object, "k": object})

    expected.check(cg.applyInPandas(merge, "k string, i long, s string"), name="merge_by_name")
    expected.check(
        cg.applyInPandas(_sizes, "k string, nl long, nr long").filter("nl > 0 and nr > 0").select("k"),
        name="then_filter",
    )


def test_cogroup_keys_on_one_side(spark, expected):
    a = spark.range(6).withColumn("g", F.col("id") % 3)
    b = spark.range(10, 14).withColumn("g", F.col("id") % 4)

    def counts(key, l, r):
        import pandas as pd

        cols = ",".join(list(l.columns) + list(r.columns))
        return pd.DataFrame({"g": [key[0]], "nl": [len(l)], "nr": [len(r)], "cols": pd.Series([cols], dtype=object)})

    expected.check(
        a.groupBy("g").cogroup(b.groupBy("g")).applyInPandas(counts, "g long, nl long, nr long, cols string"),
        name="disjoint",
    )


def test_cogroup_two_keys_and_expression(spark, left, right, expected):
    l2 = left.withColumn("p", F.col("i") % 2)
    r2 = right.withColumn("p", F.length("s") % 2)

    def keyed(key, l, r):
        import pandas as pd

        return pd.DataFrame({"k": pd.Series([key[0]], dtype=object), "p": [key[1]], "n": [len(l) + len(r)]})

    expected.check(
        l2.groupBy("k", "p").cogroup(r2.groupBy("k", "p")).applyInPandas(keyed, "k string, p long, n long"),
        name="two_keys",
    )

    def upper(key, l, r):
        import pandas as pd

        return pd.DataFrame({"u": pd.Series([key[0]], dtype=object), "n": [len(l) + len(r)]})

    expected.check(
        left.groupBy(F.upper("k")).cogroup(right.groupBy(F.upper("k"))).applyInPandas(upper, "u string, n long"),
        name="expression_key",
    )


def test_cogroup_apply_in_arrow(spark, left, right, expected):
    cg = left.groupBy("k").cogroup(right.groupBy("k"))

    def sizes(l, r):
        import pyarrow as pa

        k = l.column("k")[0].as_py() if l.num_rows else r.column("k")[0].as_py()
        return pa.table({"k": pa.array([k], pa.string()), "nl": [l.num_rows], "nr": [r.num_rows]})

    expected.check(cg.applyInArrow(sizes, "k string, nl long, nr long"), name="sizes")

    def with_key(key, l, r):
        import pyarrow as pa

        cols = ",".join(l.column_names + r.column_names)
        return pa.table({"k": pa.array([key[0].as_py()], pa.string()), "cols": [cols]})

    expected.check(cg.applyInArrow(with_key, "k string, cols string"), name="with_key")


def test_cogroup_errors(spark, left, right, expected):
    cg = left.groupBy("k").cogroup(right.groupBy("k"))
    expected.check_error(lambda: cg.applyInPandas(lambda l, r: 1, "k string").collect(), name="not_a_frame")


def test_cogroup_more_shapes(spark, left, right, expected):
    def describe(key, l, r):
        import pandas as pd

        cols = ",".join(list(l.columns) + ["|"] + list(r.columns))
        return pd.DataFrame({"u": pd.Series([key[0]], dtype=object), "cols": pd.Series([cols], dtype=object)})

    expected.check(
        left.groupBy(F.upper("k")).cogroup(right.groupBy(F.upper("k"))).applyInPandas(describe, "u string, cols string"),
        name="expression_key_columns",
    )
    empty = left.filter("i > 100")
    expected.check(
        empty.groupBy("k").cogroup(right.groupBy("k")).applyInPandas(_sizes, "k string, nl long, nr long"),
        name="left_empty",
    )
    a = spark.range(5).select((F.col("id") % 2).cast("int").alias("g"), "id")
    b = spark.range(3).select((F.col("id") % 3).alias("g"), F.lit("x").alias("t"))

    def mixed(key, l, r):
        import pandas as pd

        return pd.DataFrame({"g": [int(key[0])], "n": [len(l) + len(r)]})

    expected.check(
        a.groupBy("g").cogroup(b.groupBy("g")).applyInPandas(mixed, "g long, n long"),
        name="int_and_long_keys",
    )


def test_cogroup_column_errors(spark, left, right, expected):
    cg = left.groupBy("k").cogroup(right.groupBy("k"))

    def missing(l, r):
        import pandas as pd

        return pd.DataFrame({"other": [1]})

    expected.check_error(lambda: cg.applyInPandas(missing, "k string").collect(), name="missing_column")


def test_cogroup_key_values_and_key_count(spark, expected):
    a = spark.range(4).withColumn("g", F.col("id") % 2)
    b = spark.range(3).withColumn("g", F.col("id") % 3)

    def types(key, l, r):
        import pandas as pd

        t = type(key[0]).__name__ + " " + ",".join(str(d) for d in l.dtypes)
        return pd.DataFrame({"g": [int(key[0])], "t": pd.Series([t], dtype=object)})

    expected.check(a.groupBy("g").cogroup(b.groupBy("g")).applyInPandas(types, "g long, t string"), name="key_types")

    def arrow_types(key, l, r):
        import pyarrow as pa

        t = str(l.schema).replace("\n", ";") + " / " + type(key[0]).__name__
        return pa.table({"t": pa.array([t], pa.string())})

    expected.check(a.groupBy("g").cogroup(b.groupBy("g")).applyInArrow(arrow_types, "t string"), name="arrow_types")
    expected.check_error(
        lambda: a.groupBy("g", "id").cogroup(b.groupBy("g")).applyInPandas(lambda l, r: l, "id long, g long").collect(),
        name="key_count",
    )
