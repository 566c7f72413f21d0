"""Key filters between a shuffled join's stages (Spark's runtime bloom filters).

In the cluster modes a partitioned join whose build side is filtered gets a one-task stage that
makes a bloom filter of the build side's keys, and the probe side's stage drops the rows whose
key it lacks before they are shuffled (`KeyFilterBuildExec`, `KeyFilterExec`; in one process
DataFusion's dynamic filters do this). `spark.sql.optimizer.runtime.bloomFilter.enabled=false`
turns both off. The plans are Ember's, so nothing here is recorded from Spark; the answers are
checked by construction, with and without the filters, and in every mode.
"""

import re

import pytest

from conftest import RECORD

N = 200_000


@pytest.fixture(autouse=True)
def not_recording():
    if RECORD:
        pytest.skip("Ember's physical plans: nothing to record from Spark")


@pytest.fixture(scope="module")
def tables(spark, tmp_path_factory):
    root = tmp_path_factory.mktemp("key_filters")
    # A fact table of 200,000 rows over 1,000 keys (some NULL), and a dimension of the keys.
    spark.range(N).selectExpr("id", "IF(id % 997 = 0, NULL, id % 1000) AS k").write.parquet(
        str(root / "fact")
    )
    spark.range(1000).selectExpr("id AS k", "id % 100 AS g").write.parquet(str(root / "dim"))
    for name in ("fact", "dim"):
        spark.read.parquet(str(root / name)).createOrReplaceTempView(f"kf_{name}")
    return root


@pytest.fixture
def partitioned(spark):
    """No join side is broadcast: both sides of each join are shuffled."""
    spark.conf.set("spark.sql.autoBroadcastJoinThreshold", "-1")
    yield
    spark.conf.unset("spark.sql.autoBroadcastJoinThreshold")
    spark.conf.unset("spark.sql.optimizer.runtime.bloomFilter.enabled")


def fact_rows(keep):
    return [i for i in range(N) if i % 997 != 0 and keep(i % 1000)]


FILTERED = "SELECT count(*), sum(f.id) FROM kf_fact f JOIN kf_dim d ON f.k = d.k WHERE d.g = 7"


def analyzed(spark, query):
    return spark.sql(f"EXPLAIN ANALYZE {query}").collect()[0][0]


def test_a_filtered_build_side_thins_the_probe_stage(spark, tables, partitioned, ember_mode):
    rows = fact_rows(lambda k: k % 100 == 7)
    assert [tuple(r) for r in spark.sql(FILTERED).collect()] == [(len(rows), sum(rows))]
    if ember_mode == "local":
        return
    plan = spark.sql(f"EXPLAIN {FILTERED}").collect()[0][0].split("== Job Graph ==")[1]
    assert "KeyFilterBuildExec" in plan and "KeyFilterExec" in plan, plan
    text = analyzed(spark, FILTERED)
    dropped = [int(n) for n in re.findall(r"KeyFilterExec.*rows_dropped=(\d+)", text)]
    passed = [int(n) for n in re.findall(r"KeyFilterExec.*output_rows=(\d+)", text)]
    # 199,799 fact rows with a key, 2,000 of them match; a bloom filter passes a few others.
    assert dropped and sum(dropped) > 190_000, text
    assert len(rows) <= sum(passed) < len(rows) + 5_000, text


def test_turned_off_by_spark_setting(spark, tables, partitioned, ember_mode):
    spark.conf.set("spark.sql.optimizer.runtime.bloomFilter.enabled", "false")
    rows = fact_rows(lambda k: k % 100 == 7)
    assert [tuple(r) for r in spark.sql(FILTERED).collect()] == [(len(rows), sum(rows))]
    text = analyzed(spark, FILTERED)
    assert "KeyFilterExec" not in text, text
    plan = spark.sql(f"EXPLAIN {FILTERED}").collect()[0][0]
    assert "KeyFilter" not in plan, plan


@pytest.mark.parametrize(
    "query,keep",
    [
        # The left side (build) keeps every row; its unmatched rows get NULLs.
        (
            "SELECT count(*), sum(f.id), count(d.k) FROM (SELECT * FROM kf_dim WHERE g = 3) d "
            "LEFT JOIN kf_fact f ON f.k = d.k",
            None,
        ),
        ("SELECT count(*), sum(id) FROM kf_fact f LEFT SEMI JOIN (SELECT k FROM kf_dim WHERE g < 2) d ON f.k = d.k",
         lambda k: k % 100 < 2),
        ("SELECT count(*), sum(id) FROM kf_fact f WHERE EXISTS (SELECT 1 FROM kf_dim d WHERE d.k = f.k AND d.g = 5)",
         lambda k: k % 100 == 5),
        # Anti joins: the fact rows whose key is not among the dimension's selected ones.
        ("SELECT count(*), sum(id) FROM kf_fact f LEFT ANTI JOIN (SELECT k FROM kf_dim WHERE g > 0) d ON f.k = d.k",
         lambda k: k % 100 == 0),
        # NOT IN is null-aware: no filter may drop the NULL keys it must see.
        ("SELECT count(*) FROM (SELECT k FROM kf_dim WHERE g = 9) d WHERE d.k NOT IN (SELECT k FROM kf_fact)",
         "not_in"),
    ],
    ids=["left_outer", "left_semi", "exists", "left_anti", "not_in"],
)
def test_join_types_answer_with_and_without_filters(spark, tables, partitioned, query, keep):
    answers = []
    for enabled in ("true", "false"):
        spark.conf.set("spark.sql.optimizer.runtime.bloomFilter.enabled", enabled)
        answers.append([tuple(r) for r in spark.sql(query).collect()])
    assert answers[0] == answers[1]
    if keep == "not_in":
        # The fact table has NULL keys: NOT IN answers no row.
        assert answers[0] == [(0,)]
    elif keep is None:
        rows = fact_rows(lambda k: k % 100 == 3)
        assert answers[0] == [(len(rows), sum(rows), len(rows))]
    else:
        rows = [i for i in range(N) if i % 997 != 0 and keep(i % 1000)]
        if "ANTI" in query:
            # NULL keys match nothing, so the anti join keeps them.
            rows = sorted(rows + [i for i in range(N) if i % 997 == 0])
        assert answers[0] == [(len(rows), sum(rows))]


def dropped_by_filters(spark, query):
    text = analyzed(spark, query)
    return sum(int(n) for n in re.findall(r"KeyFilterExec.*rows_dropped=(\d+)", text)), text


def assert_fact_rows_filtered(spark, query, ember_mode, rows):
    """The query answers `rows`' count and sum, and in the cluster modes its key filters drop
    nearly all of the 200,000 fact rows the join does not need."""
    assert [tuple(r) for r in spark.sql(query).collect()] == [(len(rows), sum(rows))]
    if ember_mode == "local":
        return
    dropped, text = dropped_by_filters(spark, query)
    assert dropped > 190_000, text


def test_a_broadcast_dimension_filters_the_fact_stage_below_a_partitioned_join(
    spark, tables, partitioned, ember_mode
):
    # `kf_other` is filtered, so the dimension's join stays above the fact's partitioned join
    # with it; the dimension alone is small enough to broadcast. Its filter reaches the fact's
    # stage through that join.
    spark.range(N).selectExpr("id", "id % 7 AS w").createOrReplaceTempView("kf_other")
    spark.conf.set("spark.sql.autoBroadcastJoinThreshold", "16KB")
    query = (
        "SELECT count(*), sum(f.id), sum(o.w) FROM kf_fact f "
        "JOIN (SELECT * FROM kf_other WHERE w < 6) o ON f.id = o.id "
        "JOIN kf_dim d ON f.k = d.k WHERE d.g = 7"
    )
    rows = [i for i in fact_rows(lambda k: k % 100 == 7) if i % 7 < 6]
    expected = [(len(rows), sum(rows), sum(i % 7 for i in rows))]
    assert [tuple(r) for r in spark.sql(query).collect()] == expected
    if ember_mode == "local":
        return
    dropped, text = dropped_by_filters(spark, query)
    assert "mode=CollectLeft" in text and "mode=Partitioned" in text, text
    assert dropped > 190_000, text
    spark.conf.set("spark.sql.optimizer.runtime.bloomFilter.enabled", "false")
    assert [tuple(r) for r in spark.sql(query).collect()] == expected


def test_a_build_side_joined_in_its_consumer_stage_becomes_a_stage_for_its_filter(
    spark, tables, partitioned, ember_mode
):
    # The build side `s` joins two shuffled inputs in the stage that joins it with the fact
    # table: it is cut into a stage of its own so that the fact's stage gets its filter.
    query = (
        "SELECT count(*), sum(f.id) FROM kf_fact f JOIN "
        "(SELECT d.k FROM kf_dim d JOIN kf_dim e ON d.k = e.k WHERE d.g = 7 AND e.g < 50) s "
        "ON f.k = s.k"
    )
    assert_fact_rows_filtered(spark, query, ember_mode, fact_rows(lambda k: k % 100 == 7))


def test_an_in_subquery_filters_the_fact_table_it_keeps(spark, tables, partitioned, ember_mode):
    # A semi join keeps the fact rows whose key the dimension has: whichever side DataFusion
    # builds on, the fact table's stage drops the others before its shuffle.
    query = "SELECT count(*), sum(id) FROM kf_fact WHERE k IN (SELECT k FROM kf_dim WHERE g = 7)"
    assert_fact_rows_filtered(spark, query, ember_mode, fact_rows(lambda k: k % 100 == 7))
