"""`mapInPandas` and `mapInArrow` (relation MapPartitions): the function sees an iterator of
pandas DataFrames / Arrow record batches of the input's columns and yields batches of the
declared schema, matched by column name. Answers recorded from Spark 4.3."""

import sys

import pytest
from pyspark import cloudpickle

# The Python workers cannot import this test module: its functions are pickled by value.
cloudpickle.register_pickle_by_value(sys.modules[__name__])


@pytest.fixture(scope="module")
def df(spark):
    return spark.createDataFrame(
        [(1, "a", 1.5), (2, "bb", None), (3, None, 3.25), (4, "dddd", -1.0)],
        "id LONG, s STRING, d DOUBLE",
    )


def _keep_even(it):
    for pdf in it:
        yield pdf[pdf.id % 2 == 0]


def test_map_in_pandas(spark, df, expected):
    expected.check(df.mapInPandas(_keep_even, df.schema), name="filter")

    def derive(it):
        import pandas as pd

        for pdf in it:
            yield pd.DataFrame({"twice": pdf.id * 2, "len": pdf.s.str.len()})

    expected.check(df.mapInPandas(derive, "twice long, len int"), name="new_schema")

    def reordered(it):
        for pdf in it:
            yield pdf[["d", "s", "id"]]

    expected.check(df.mapInPandas(reordered, df.schema), name="by_name")
    expected.check(df.mapInPandas(_keep_even, df.schema, barrier=True), name="barrier")
    expected.check(df.select("id").mapInPandas(lambda it: (p + 100 for p in it), "id long"), name="lambda")


def test_map_in_pandas_then_more(spark, df, expected):
    out = df.mapInPandas(_keep_even, df.schema)
    expected.check(out.filter("id > 2").select("s", "id"), name="filter_after")
    expected.check(out.groupBy().count(), name="count")


def test_map_in_arrow(spark, df, expected):
    expected.check(df.mapInArrow(lambda it: (b for b in it), df.schema), name="identity")

    def scaled(it):
        import pyarrow as pa
        import pyarrow.compute as pc

        for b in it:
            yield pa.RecordBatch.from_arrays([pc.multiply(b.column("id"), 10)], names=["x"])

    expected.check(df.mapInArrow(scaled, "x long"), name="compute")


def test_map_errors(spark, df, expected):
    def not_frames(it):
        for _ in it:
            yield 1

    expected.check_error(lambda: df.mapInPandas(not_frames, df.schema).collect(), name="not_frames")

    def missing(it):
        import pandas as pd

        for pdf in it:
            yield pd.DataFrame({"other": pdf.id})

    expected.check_error(lambda: df.mapInPandas(missing, "id long").collect(), name="missing_column")

    def boom(it):
        raise RuntimeError("no")

    expected.check_error(lambda: df.mapInArrow(boom, df.schema).collect(), name="raises")
