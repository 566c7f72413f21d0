"""Python UDFs over Spark's types: what the function receives (its Python type and value)
and how its results of each declared type come back, for pickled and Arrow-optimized `udf`
and for `pandas_udf`. Answers recorded from Spark 4.3."""

import sys

import pytest
from pyspark import cloudpickle
from pyspark.sql import functions as F
from pyspark.sql.functions import pandas_udf, udf

cloudpickle.register_pickle_by_value(sys.modules[__name__])

COLUMNS = {
    "b": "boolean",
    "t": "tinyint",
    "i": "int",
    "l": "bigint",
    "f": "float",
    "d": "double",
    "dec": "decimal(10,2)",
    "s": "string",
    "bin": "binary",
    "dt": "date",
    "ts": "timestamp",
    "arr": "array<int>",
    "m": "map<string,int>",
    "st": "struct<a:int,b:string>",
}


@pytest.fixture(scope="module")
def typed(spark):
    return spark.sql(
        """SELECT true AS b, CAST(7 AS TINYINT) AS t, 42 AS i, 10000000000L AS l, CAST(1.5 AS FLOAT) AS f,
                  2.25D AS d, CAST(3.14 AS DECIMAL(10,2)) AS dec, 'héllo' AS s, X'0102' AS bin,
                  DATE'2024-02-29' AS dt, TIMESTAMP'2024-01-02 03:04:05.123456' AS ts,
                  array(1, NULL, 3) AS arr, map('x', 1) AS m, named_struct('a', 1, 'b', 'z') AS st
           UNION ALL
           SELECT NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL"""
    )


def _describe(v):
    return None if v is None else f"{type(v).__name__}:{v!r}"


@pytest.mark.parametrize("arrow", [False, True], ids=["pickled", "arrow"])
def test_argument_types(spark, typed, expected, arrow):
    describe = udf(_describe, "string", useArrow=arrow)
    expected.check(typed.select(*[describe(c).alias(c) for c in COLUMNS]), name=f"describe_{arrow}")


@pytest.mark.parametrize("arrow", [False, True], ids=["pickled", "arrow"])
def test_identity_types(spark, typed, expected, arrow):
    cols = [udf(lambda v: v, t, useArrow=arrow)(c).alias(c) for c, t in COLUMNS.items() if c not in ("ts",)]
    expected.check(typed.select(*cols), name=f"identity_{arrow}")


@pytest.mark.parametrize("arrow", [False, True], ids=["pickled", "arrow"])
def test_result_conversions(spark, expected, arrow):
    one = spark.range(1)
    cases = {
        "int_as_long": (lambda _: 5, "long"),
        "float_as_int": (lambda _: 5.7, "int"),
        "bool_as_int": (lambda _: True, "int"),
        "str_as_int": (lambda _: "5", "int"),
        "big_as_int": (lambda _: 2**40, "int"),
        "int_as_float": (lambda _: 3, "float"),
        "list_as_string": (lambda _: [1, 2], "string"),
        "tuple_as_array": (lambda _: (1, 2), "array<int>"),
        "dict_as_struct": (lambda _: {"a": 1, "b": "x"}, "struct<a:int,b:string>"),
        "decimal_as_decimal": (lambda _: __import__("decimal").Decimal("1.234"), "decimal(10,2)"),
        "date_as_date": (lambda _: __import__("datetime").date(2024, 1, 2), "date"),
        "bytes_as_binary": (lambda _: b"ab", "binary"),
    }
    for name, (f, t) in sorted(cases.items()):
        g = udf(f, t, useArrow=arrow)
        expected.check_error(lambda: one.select(g("id")).collect(), name=f"{name}_{arrow}_error")
        try:
            rows = one.select(g("id").alias("r")).collect()
        except Exception:  # noqa: BLE001 - the error is compared above
            continue
        expected.check(one.select(g("id").alias("r")), name=f"{name}_{arrow}")


def test_pandas_types(spark, typed, expected):
    ident = {c: pandas_udf(lambda s: s, t) for c, t in COLUMNS.items() if c in ("b", "i", "l", "d", "s", "dt", "dec")}
    expected.check(typed.select(*[f(c).alias(c) for c, f in ident.items()]), name="identity")
