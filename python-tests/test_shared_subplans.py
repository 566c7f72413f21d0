"""A subplan a query names twice is computed once in local mode (Spark's ReuseExchange).

A common table expression, view or DataFrame used twice is planned twice; in local mode Ember
runs one copy of an identical aggregate subplan and lets the other copy read its output
(`execution/src/shared_subplans.rs`). The answers are checked by construction in every mode; in
local mode EXPLAIN ANALYZE shows the shared subplan and that the table was scanned once. The
plans are Ember's, so nothing here is recorded from Spark.
"""

import re

import pytest
from pyspark.sql import functions as F

from conftest import RECORD

N = 100_000


@pytest.fixture(autouse=True)
def not_recording():
    if RECORD:
        pytest.skip("Ember's physical plans: nothing to record from Spark")


@pytest.fixture(scope="module")
def table(spark, tmp_path_factory):
    root = tmp_path_factory.mktemp("shared_subplans")
    spark.range(N).selectExpr("id", "id % 100 AS k", "CAST(id % 7 AS DOUBLE) AS v").write.parquet(
        str(root / "facts")
    )
    spark.read.parquet(str(root / "facts")).createOrReplaceTempView("ss_facts")
    return root


def sums_of(remainder):
    """Per key, the sum of `v` over rows with id % 3 = remainder."""
    sums = {}
    for i in range(remainder, N, 3):
        sums[i % 100] = sums.get(i % 100, 0.0) + float(i % 7)
    return sums


def expected_top():
    """Keys whose sum of `v` over rows with id % 3 = 0 is the largest, with that sum."""
    sums = sums_of(0)
    top = max(sums.values())
    return sorted((k, s) for k, s in sums.items() if s == top)


CTE = (
    "WITH r AS (SELECT k, sum(v) AS s FROM ss_facts WHERE id % 3 = 0 GROUP BY k) "
    "SELECT k, s FROM r WHERE s = (SELECT max(s) FROM r) ORDER BY k"
)


def scans_and_shares(spark, query):
    """How many times the plan scans a table (every query here reads only `ss_facts`), and the
    plan."""
    text = spark.sql(f"EXPLAIN ANALYZE {query}").collect()[0][0]
    return len(re.findall(r"DataSourceExec:", text)), text


def test_a_cte_aggregate_named_twice_runs_once(spark, table, ember_mode):
    assert [tuple(r) for r in spark.sql(CTE).collect()] == expected_top()
    if ember_mode != "local":
        return
    scans, text = scans_and_shares(spark, CTE)
    assert "SharedExec: subplan=1, readers=2" in text, text
    assert "SharedExec: reads subplan=1" in text, text
    assert scans == 1, text


def test_a_cte_joined_on_its_key_runs_once(spark, table, ember_mode):
    # TPC-H q15's shape: the join with a small table on the aggregate's key hands that copy's
    # scan a dynamic filter; the other copy (without it) runs for both.
    spark.range(0, 100, 2).selectExpr("id AS key", "concat('name ', id) AS name").write.mode(
        "overwrite"
    ).parquet(str(table / "names"))
    spark.read.parquet(str(table / "names")).createOrReplaceTempView("ss_names")
    query = (
        "WITH r AS (SELECT k, sum(v) AS s FROM ss_facts WHERE id % 3 = 0 GROUP BY k) "
        "SELECT n.name, r.s FROM ss_names n JOIN r ON n.key = r.k "
        "WHERE r.s = (SELECT max(s) FROM r) ORDER BY n.name"
    )
    want = sorted((f"name {k}", s) for k, s in expected_top() if k % 2 == 0)
    assert [tuple(r) for r in spark.sql(query).collect()] == want
    if ember_mode != "local":
        return
    text = spark.sql(f"EXPLAIN ANALYZE {query}").collect()[0][0]
    assert "SharedExec: subplan=1, readers=2" in text, text
    assert len(re.findall(r"DataSourceExec:", text)) == 2, text


def test_a_dataframe_aggregate_used_twice_runs_once(spark, table, ember_mode):
    sums = spark.table("ss_facts").where("id % 3 = 0").groupBy("k").agg(F.sum("v").alias("s"))
    top = sums.agg(F.max("s").alias("top"))
    got = sums.join(top, sums.s == top.top).select("k", "s").orderBy("k")
    assert [tuple(r) for r in got.collect()] == expected_top()
    if ember_mode != "local":
        return
    # The DataFrame's own plan, analyzed through a temporary view.
    got.createOrReplaceTempView("ss_top")
    scans, text = scans_and_shares(spark, "SELECT * FROM ss_top")
    assert "SharedExec: subplan=1, readers=2" in text, text
    assert scans == 1, text


def test_different_filters_are_not_shared(spark, table, ember_mode):
    query = (
        "WITH a AS (SELECT k, sum(v) AS s FROM ss_facts WHERE id % 3 = 0 GROUP BY k), "
        "b AS (SELECT k, sum(v) AS s FROM ss_facts WHERE id % 3 = 1 GROUP BY k) "
        "SELECT count(*) FROM a JOIN b ON a.k = b.k AND a.s >= b.s"
    )
    a, b = sums_of(0), sums_of(1)
    assert spark.sql(query).collect()[0][0] == sum(1 for k in a if a[k] >= b[k])
    if ember_mode != "local":
        return
    scans, text = scans_and_shares(spark, query)
    assert "SharedExec" not in text, text
    assert scans == 2, text
