"""All 22 TPC-H queries through PySpark, checked against DataFusion in-process on the same
files. Several partitions (`spark.sql.shuffle.partitions`) make the job graph shuffle."""

import pytest

import tpch

SCALE = 0.01


@pytest.fixture(scope="module")
def tpch_data(tmp_path_factory):
    return tpch.generate(SCALE, tmp_path_factory.getbasetemp() / f"tpch-sf{SCALE}")


@pytest.fixture(scope="module")
def reference(tpch_data):
    return tpch.datafusion_context(tpch_data)


@pytest.fixture(scope="module")
def tpch_spark(spark, tpch_data):
    spark.conf.set("spark.sql.shuffle.partitions", "4")
    tpch.register_spark(spark, tpch_data)
    yield spark
    spark.conf.unset("spark.sql.shuffle.partitions")


@pytest.mark.parametrize("n", range(1, 23))
def test_tpch_query(tpch_spark, reference, n):
    sql = tpch.query(n)
    got = [tuple(r) for r in tpch_spark.sql(sql).collect()]
    want = tpch.datafusion_rows(reference, sql)
    assert want, "the reference answer is empty; the data set is too small for this query"
    problem = tpch.same_answer(got, want)
    assert not problem, f"q{n}: {problem}"
