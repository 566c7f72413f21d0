"""`groupBy().applyInPandas` and `applyInArrow` (relation GroupMap): the function is called
once per group with the group's rows (and, if it takes two arguments, the key); its result's
columns are matched by name. Answers recorded from Spark 4.3."""

import sys

import pytest
from pyspark import cloudpickle
from pyspark.sql import functions as F

cloudpickle.register_pickle_by_value(sys.modules[__name__])


@pytest.fixture(scope="module")
def df(spark):
    return spark.createDataFrame(
        [("a", 1, 1.0), ("a", 2, 2.5), ("b", 1, None), ("b", 2, 4.0), ("b", 2, 6.0), ("c", 5, 5.5)],
        "k STRING, i LONG, v DOUBLE",
    )


def _center(pdf):
    return pdf.assign(v=pdf.v - pdf.v.mean())


def _count_with_key(key, pdf):
    import pandas as pd

    return pd.DataFrame({"k": [key[0]], "n": [len(pdf)]})


def test_apply_in_pandas(spark, df, expected):
    expected.check(df.groupBy("k").applyInPandas(_center, "k string, i long, v double"), name="center")
    expected.check(df.groupBy("k").applyInPandas(_count_with_key, "k string, n long"), name="with_key")

    def sizes(key, pdf):
        import pandas as pd

        return pd.DataFrame({"k": [key[0]], "i": [key[1]], "n": [len(pdf)]})

    expected.check(df.groupBy("k", "i").applyInPandas(sizes, "k string, i long, n long"), name="two_keys")

    def parity(key, pdf):
        import pandas as pd

        return pd.DataFrame({"p": [key[0]], "total": [pdf.i.sum()]})

    expected.check(df.groupBy(F.col("i") % 2).applyInPandas(parity, "p long, total long"), name="expression_key")

    def reorder(pdf):
        return pdf[["v", "k"]]

    expected.check(df.groupBy("k").applyInPandas(reorder, "k string, v double"), name="by_name")
    expected.check(
        df.groupBy("k").applyInPandas(_center, "k string, i long, v double").filter("i > 1").select("k", "v"),
        name="then_filter",
    )


def test_apply_in_arrow(spark, df, expected):
    expected.check(df.groupBy("k").applyInArrow(lambda t: t, df.schema), name="identity")

    def count(key, table):
        import pyarrow as pa

        return pa.table({"k": [key[0].as_py()], "n": [table.num_rows]})

    expected.check(df.groupBy("k").applyInArrow(count, "k string, n long"), name="with_key")


def test_apply_in_pandas_errors(spark, df, expected):
    expected.check_error(
        lambda: df.groupBy("k").applyInPandas(lambda pdf: 1, "k string").collect(), name="not_a_frame"
    )


def test_apply_iterator_forms(spark, df, expected):
    # Functions over an iterator of frames / batches (type hints pick eval types 216 and 215).
    from typing import Iterator, Tuple

    import pandas as pd
    import pyarrow as pa

    def sums(frames: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
        for pdf in frames:
            yield pd.DataFrame({"k": [pdf.k.iloc[0]], "n": [len(pdf)], "s": [pdf.i.sum()]})

    expected.check(df.groupBy("k").applyInPandas(sums, "k string, n long, s long"), name="pandas_iter")

    def keyed(key: Tuple, frames: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
        n = sum(len(f) for f in frames)
        yield pd.DataFrame({"k": [key[0]], "n": [n], "key_type": [type(key[0]).__name__]})

    expected.check(df.groupBy("k").applyInPandas(keyed, "k string, n long, key_type string"), name="pandas_iter_key")

    def key_types(key, pdf):
        return pd.DataFrame({"i": [key[0]], "t": [type(key[0]).__name__]})

    expected.check(df.groupBy("i").applyInPandas(key_types, "i long, t string"), name="numpy_key")

    def batches(it: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for b in it:
            yield pa.RecordBatch.from_pydict({"k": [b.column(0)[0].as_py()], "n": [b.num_rows]})

    expected.check(df.groupBy("k").applyInArrow(batches, "k string, n long"), name="arrow_iter")

    def arrow_keyed(key: Tuple[pa.Scalar, ...], it: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        total = sum(b.num_rows for b in it)
        yield pa.RecordBatch.from_pydict({"k": [key[0].as_py()], "n": [total]})

    expected.check(df.groupBy("k").applyInArrow(arrow_keyed, "k string, n long"), name="arrow_iter_key")

    def nothing(frames: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
        for _ in frames:
            pass
        return iter([])

    expected.check(df.groupBy("k").applyInPandas(nothing, "k string"), name="pandas_iter_empty")
