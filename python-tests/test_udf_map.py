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


def _batch_sizes(it):
    import pyarrow as pa

    for b in it:
        yield pa.RecordBatch.from_arrays([pa.array([b.num_rows], pa.int64())], names=["n"])


def _first_batch_only(it):
    for b in it:
        yield b
        return


def test_map_batches(spark, expected):
    """The function sees batches of spark.sql.execution.arrow.maxRecordsPerBatch rows (10,000
    unless set), however the input's rows were cut, and its input may end early."""
    df = spark.range(0, 25_000, 1, 1)
    expected.check(df.mapInArrow(_batch_sizes, "n long"), name="batch_sizes", ordered=True)
    spark.conf.set("spark.sql.execution.arrow.maxRecordsPerBatch", "7000")
    try:
        expected.check(df.mapInArrow(_batch_sizes, "n long"), name="batch_sizes_7000", ordered=True)
        expected.check(df.mapInPandas(lambda it: (p.head(1) for p in it), "id long"), name="heads_7000")
    finally:
        spark.conf.unset("spark.sql.execution.arrow.maxRecordsPerBatch")
    big = spark.range(0, 3_000_000, 1, 1)
    expected.check(big.mapInArrow(_first_batch_only, "id long").groupBy().count(), name="first_batch_only")


def test_map_error_after_yielding(spark, expected):
    def fails_later(it):
        for i, b in enumerate(it):
            if i == 2:
                raise ValueError("third batch")
            yield b

    df = spark.range(0, 50_000, 1, 1)
    expected.check_error(lambda: df.mapInArrow(fails_later, "id long").collect(), name="fails_later")
    # The next query gets a working worker.
    assert df.mapInArrow(lambda it: (b for b in it), "id long").count() == 50_000


def test_map_stops_its_input_when_the_function_ends(spark, ember_mode):
    """Ember streams a partition through the worker: when the function ends before its input,
    no more of the input is computed. (Spark keeps feeding the worker the whole partition:
    this query does not end there, so it has no recorded answer; its answer is the recorded
    `first_batch_only`'s.)"""
    if ember_mode == "spark":
        pytest.skip("Spark computes the whole input")
    huge = spark.range(0, 10**12, 1, 2)
    assert huge.mapInArrow(_first_batch_only, "id long").count() == 20_000
