"""How joins are planned: Spark's broadcast threshold and the size estimates it is compared with.

A join side estimated below `spark.sql.autoBroadcastJoinThreshold` (10 MiB; 0 or negative: off)
is built once and shared by every partition of the other side (`HashJoinExec` in `CollectLeft`
mode, Spark's broadcast hash join); larger sides are hashed into partitions with the other side.
The estimates of a join's output weigh the rows the join keeps, not its inputs' rows (TPC-H q21:
a 60,000-row semi join over an inner join of `lineitem` was estimated at 95 MB). The plans are
Ember's, so nothing here is recorded from Spark; the answers are checked by construction.
"""

import pytest

from conftest import RECORD


@pytest.fixture(autouse=True)
def not_recording():
    if RECORD:
        pytest.skip("Ember's physical plans: nothing to record from Spark")


@pytest.fixture(scope="module")
def tables(spark, tmp_path_factory):
    root = tmp_path_factory.mktemp("join_selection")
    # 200,000 rows of 106-character strings (about 21 MB), 1,000 keys of 200 rows each.
    spark.range(200_000).selectExpr(
        "id", "id % 1000 AS k", "concat(repeat('x', 100), CAST(id AS STRING)) AS s"
    ).write.parquet(str(root / "big"))
    # 150,000 rows of two longs: 2.4 MB, between DataFusion's 1 MiB and Spark's 10 MiB (the
    # join reads only `big`'s ids, 1.6 MB, and builds on them).
    spark.range(150_000).selectExpr("id AS k", "id * 2 AS v").write.parquet(str(root / "mid"))
    spark.range(1000).selectExpr("id AS k", "id % 100 AS g").write.parquet(str(root / "dim"))
    for name in ("big", "mid", "dim"):
        spark.read.parquet(str(root / name)).createOrReplaceTempView(f"js_{name}")
    return root


def joins(spark, query):
    plan = spark.sql(f"EXPLAIN {query}").collect()[0][0]
    # (The cluster modes add the job graph after the plan: the same joins again.)
    plan = plan.split("== Job Graph ==")[0]
    return [line.strip() for line in plan.splitlines() if "HashJoinExec" in line], plan


@pytest.fixture
def threshold(spark):
    """Set the session's broadcast threshold for one test."""
    key = "spark.sql.autoBroadcastJoinThreshold"
    yield lambda value: spark.conf.set(key, value)
    spark.conf.unset(key)


MID_JOIN = "SELECT count(*), max(v) FROM js_big JOIN js_mid ON js_big.id = js_mid.k"


def test_a_side_under_spark_threshold_is_collected(spark, tables):
    found, plan = joins(spark, MID_JOIN)
    assert len(found) == 1 and "mode=CollectLeft" in found[0], plan
    assert [tuple(r) for r in spark.sql(MID_JOIN).collect()] == [(150_000, 299_998)]


def test_a_lower_threshold_partitions_the_same_join(spark, tables, threshold):
    threshold("1m")
    found, plan = joins(spark, MID_JOIN)
    assert len(found) == 1 and "mode=Partitioned" in found[0], plan
    assert [tuple(r) for r in spark.sql(MID_JOIN).collect()] == [(150_000, 299_998)]


@pytest.mark.parametrize("off", ["-1", "0"])
def test_threshold_off_collects_no_side_by_size(spark, tables, threshold, off):
    threshold(off)
    query = "SELECT g, count(*) FROM js_big JOIN js_dim USING (k) GROUP BY g ORDER BY g LIMIT 3"
    found, plan = joins(spark, query)
    assert found and all("mode=Partitioned" in j for j in found), plan
    assert [tuple(r) for r in spark.sql(query).collect()] == [(0, 2000), (1, 2000), (2, 2000)]


def test_semi_join_over_an_inner_join_is_estimated_by_its_rows(spark, tables):
    """The anti join's build side is the 2,000-row semi join (about 200 KB), not the 21 MB
    table: estimated by the inputs' bytes, the semi join looked larger than the table and the
    join was turned around to build on the table."""
    query = """
        SELECT b.id, b.s FROM js_big b JOIN js_dim d ON b.k = d.k
        WHERE d.g = 7
          AND EXISTS (SELECT 1 FROM js_big b3 WHERE b3.k = b.k AND b3.id <> b.id)
          AND NOT EXISTS (SELECT 1 FROM js_big b2 WHERE b2.k = b.k AND b2.id > b.id)
        ORDER BY b.id
    """
    found, plan = joins(spark, query)
    assert "join_type=LeftAnti" in found[0] and "mode=CollectLeft" in found[0], plan
    assert "join_type=LeftSemi" in found[1], plan
    expected = [(199_007 + 100 * i, "x" * 100 + str(199_007 + 100 * i)) for i in range(10)]
    assert [tuple(r) for r in spark.sql(query).collect()] == expected
