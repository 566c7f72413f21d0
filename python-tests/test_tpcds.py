"""All 99 TPC-DS queries through PySpark at SF0.1, checked against DuckDB in-process on the same
parquet files (python-tests/tpcds). The data is generated once into ~/.cache/ember/tpcds-sf0.1
(about 5 s, 37 MB). Several partitions (`spark.sql.shuffle.partitions`) make the job graph
shuffle. Every answer matches DuckDB's in order (LIMIT and ORDER BY cut and sort the same rows;
DuckDB runs with Spark's NULL order), decimals and doubles to 1e-5 relative (see
`answers.close`). Debug build, 2 busy cores: about 80 s per distributed mode and 75-195 s in
local mode; q04, q14, q23 and q72 take the longest."""

import os
from pathlib import Path

import pytest

import tpcds

SCALE = 0.1

# Queries whose ORDER BY leaves ties (or has no ORDER BY at all), so Spark may return the same
# rows in another order: compared as multisets. Why, per query:
UNORDERED: dict[int, str] = {}

# Queries Ember cannot answer yet, with the reason.
XFAIL: dict[int, str] = {}


@pytest.fixture(scope="module")
def tpcds_data():
    # The queries are SQL text: every client sends them alike, so the suite runs them with the
    # newest client only (six minutes per client on CI's two cores); EMBER_TPCDS=1 runs them
    # with any client.
    from conftest import NEWEST_CLIENT, client_version

    if client_version() != NEWEST_CLIENT and os.environ.get("EMBER_TPCDS") != "1":
        pytest.skip(f"TPC-DS runs with the newest client ({NEWEST_CLIENT}); EMBER_TPCDS=1 to run it here")
    return tpcds.generate(SCALE, Path.home() / ".cache" / "ember" / f"tpcds-sf{SCALE}")


@pytest.fixture(scope="module")
def reference(tpcds_data):
    con = tpcds.duckdb_context(tpcds_data)
    yield con
    con.close()


@pytest.fixture(scope="module")
def tpcds_spark(spark, tpcds_data):
    spark.conf.set("spark.sql.shuffle.partitions", "4")
    tpcds.register_spark(spark, tpcds_data)
    yield spark
    spark.conf.unset("spark.sql.shuffle.partitions")


@pytest.mark.parametrize(
    "n",
    [
        pytest.param(n, marks=pytest.mark.xfail(reason=XFAIL[n], strict=True)) if n in XFAIL else n
        for n in range(1, 100)
    ],
)
def test_tpcds_query(tpcds_spark, reference, n):
    sql = tpcds.query(n)
    got = [tuple(r) for r in tpcds_spark.sql(sql).collect()]
    want = tpcds.duckdb_rows(reference, sql)
    ordered = n not in UNORDERED
    problem = tpcds.same_answer(got, want, ordered)
    if problem and ordered and not tpcds.same_answer(got, want, False):
        problem += " (the same rows in another order)"
    assert not problem, f"q{n:02d}: {problem}"
