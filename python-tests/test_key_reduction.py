"""An aggregate joined on its grouping key reads only the keys the other side's filtered table
holds (`planner/src/logical/key_reduction.rs`): a correlated subquery over a whole table (TPC-H
q17's `avg(l_quantity)` per part, q2's `min(ps_supplycost)`) aggregated 6 million rows into
200,000 groups for the 204 parts the outer query keeps.

The answers must stay Spark's: recorded from real Spark 4.3, with groups the filter drops,
NULL keys, duplicate keys on the filtered side, a key passed through an alias and across a join,
and semi joins. The plan check is Ember's own (skipped while recording)."""

import pytest

from conftest import RECORD


@pytest.fixture(scope="module")
def tables(spark, tmp_path_factory):
    root = tmp_path_factory.mktemp("key_reduction")
    # 3,000 facts over 300 keys (NULL for some rows); 300 dimension rows of which a filter keeps
    # a few; a second dimension row for key 7 (duplicate keys on the filtered side).
    spark.range(3000).selectExpr(
        "CASE WHEN id % 101 = 0 THEN NULL ELSE id % 300 END AS k",
        "id % 17 AS q",
        "CAST(id % 23 AS DECIMAL(12, 2)) AS price",
    ).write.parquet(str(root / "fact"))
    spark.range(300).selectExpr("id AS k", "id % 37 AS brand", "id % 5 AS box").unionByName(
        spark.range(7, 8).selectExpr("id AS k", "0 AS brand", "0 AS box")
    ).write.parquet(str(root / "dim"))
    for name in ("fact", "dim"):
        spark.read.parquet(str(root / name)).createOrReplaceTempView(f"kr_{name}")
    return root


QUERIES = {
    # q17's shape: the fact's rows of a few parts under a fifth of their part's average.
    "correlated_average": """SELECT sum(f.price) / 7 AS s, count(*) AS n FROM kr_fact f, kr_dim d
        WHERE d.k = f.k AND d.brand = 7 AND d.box = 2
        AND f.q < (SELECT 0.5 * avg(f2.q) FROM kr_fact f2 WHERE f2.k = d.k)""",
    # q2's shape: the rows at their key's minimum.
    "correlated_minimum": """SELECT d.k, f.q, f.price FROM kr_fact f JOIN kr_dim d ON f.k = d.k
        WHERE d.brand IN (0, 3) AND f.q = (SELECT min(f2.q) FROM kr_fact f2 WHERE f2.k = d.k)
        ORDER BY d.k, f.price""",
    # A derived table of aggregates joined on its key (duplicate keys on the filtered side).
    "joined_aggregate": """SELECT d.k, a.total, a.n FROM kr_dim d
        JOIN (SELECT k, sum(price) AS total, count(*) AS n FROM kr_fact GROUP BY k) a ON a.k = d.k
        WHERE d.box = 0 ORDER BY d.k, a.total""",
    # The key under another name, across a join's equality.
    "key_across_a_join": """SELECT g.kk, g.m, count(*) AS n FROM kr_fact f JOIN kr_dim d ON f.k = d.k
        JOIN (SELECT k AS kk, max(q) AS m FROM kr_fact GROUP BY k) g ON g.kk = f.k
        WHERE d.brand = 11 GROUP BY g.kk, g.m ORDER BY g.kk""",
    # A semi join (IN) with an aggregate on its right.
    "in_aggregate": """SELECT d.k FROM kr_dim d WHERE d.box = 1 AND d.k IN
        (SELECT k FROM kr_fact GROUP BY k HAVING count(*) > 9) ORDER BY d.k""",
    # Grouped by the key and another column.
    "two_grouping_columns": """SELECT d.k, a.q, a.n FROM kr_dim d
        JOIN (SELECT k, q, count(*) AS n FROM kr_fact GROUP BY k, q) a ON a.k = d.k
        WHERE d.brand = 5 ORDER BY d.k, a.q""",
}


@pytest.mark.parametrize("case", sorted(QUERIES))
def test_answers(spark, expected, tables, case):
    expected.check(spark.sql(QUERIES[case]), name=case, ordered="ORDER BY" in QUERIES[case])


@pytest.mark.skipif(RECORD, reason="Ember's physical plans: nothing to record from Spark")
def test_the_aggregate_reads_only_the_filtered_keys(spark, tables):
    plan = spark.sql(f"EXPLAIN {QUERIES['correlated_average']}").collect()[0][0].split("== Job Graph ==")[0]
    lines = plan.splitlines()
    # Below the partial aggregate of the subquery, a semi join with the filtered dimension.
    partial = [i for i, line in enumerate(lines) if "AggregateExec: mode=Partial, gby=[" in line and "gby=[]" not in line]
    assert partial, plan
    below = "\n".join(lines[partial[0] + 1 :])
    assert "Semi" in below.split("AggregateExec")[0], plan
