"""`WITH RECURSIVE` (issue 30): a CTE `anchor UNION ALL step` whose step reads the rows the
previous step added, with Spark's rules (UNION ALL only, where the step may read itself, the
anchor's column types) and its limits (`spark.sql.cteRecursionLevelLimit`,
`spark.sql.cteRecursionRowLimit`). Answers and error classes recorded from Spark 4.3."""

import pytest

from conftest import cases


@pytest.fixture(scope="module")
def spark_with_edges(spark):
    spark.createDataFrame([(1, 2), (2, 3), (2, 4), (4, 5), (6, 7)], "src INT, dst INT").createOrReplaceTempView(
        "rc_edges"
    )
    yield spark
    spark.catalog.dropTempView("rc_edges")


# name -> (query, ordered)
ANSWERS = {
    "count_up": ("WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 5) SELECT * FROM r", True),
    "sum": ("WITH RECURSIVE r AS (SELECT 1 AS n UNION ALL SELECT n + 1 FROM r WHERE n < 5) SELECT sum(n) FROM r", False),
    # the last level the default limit (100) allows
    "level_limit_reached_not_passed": (
        "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 100) SELECT count(*) FROM r",
        False,
    ),
    # a LIMIT over an endless recursion takes the first rows (Spark stops the steps)
    "limit_over_endless": ("WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT * FROM r LIMIT 3", True),
    "wider_anchor_type": (
        "WITH RECURSIVE r(n) AS (SELECT 1L UNION ALL SELECT n + 1 FROM r WHERE n < 3) SELECT n, typeof(n) FROM r",
        False,
    ),
    "two_columns": (
        "WITH RECURSIVE r(n, s) AS (SELECT 1, 'a' UNION ALL SELECT n + 1, concat(s, 'b') FROM r WHERE n < 3) SELECT * FROM r",
        False,
    ),
    "several_anchors": (
        "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT n + 10 FROM r WHERE n < 10) SELECT * FROM r ORDER BY n",
        True,
    ),
    "not_recursive_in_with_recursive": ("WITH RECURSIVE x AS (SELECT 1 AS v) SELECT * FROM x", False),
    "chained": (
        "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3), "
        "s(m) AS (SELECT n * 10 FROM r UNION ALL SELECT m + 1 FROM s WHERE m < 11) SELECT * FROM s ORDER BY m",
        True,
    ),
    "null_anchor": (
        "WITH RECURSIVE r(n) AS (SELECT CAST(NULL AS INT) UNION ALL SELECT 1 FROM r WHERE n IS NULL) SELECT * FROM r",
        False,
    ),
    "array_path": (
        "WITH RECURSIVE r(n, path) AS (SELECT 1, array(1) UNION ALL "
        "SELECT n + 1, array_append(path, n + 1) FROM r WHERE n < 3) SELECT * FROM r",
        False,
    ),
    "anchor_of_a_table": (
        "WITH RECURSIVE r(n) AS (SELECT id FROM range(3) UNION ALL SELECT n + 3 FROM r WHERE n < 6) SELECT * FROM r",
        False,
    ),
    "in_subquery": (
        "SELECT * FROM (WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3) SELECT * FROM r) t",
        False,
    ),
    "outer_self_join": (
        "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3) "
        "SELECT * FROM r a JOIN r b ON a.n = b.n ORDER BY 1",
        True,
    ),
    "graph_reach": (
        "WITH RECURSIVE reach(node, depth) AS (SELECT 1, 0 UNION ALL "
        "SELECT e.dst, depth + 1 FROM reach JOIN rc_edges e ON reach.node = e.src) SELECT * FROM reach",
        False,
    ),
    "graph_reach_where_and_aggregate": (
        "WITH RECURSIVE reach(node, depth) AS (SELECT 1, 0 UNION ALL "
        "SELECT e.dst, depth + 1 FROM rc_edges e JOIN reach ON reach.node = e.src WHERE depth < 2) "
        "SELECT depth, count(*) AS c, max(node) AS m FROM reach GROUP BY depth ORDER BY depth",
        True,
    ),
    # the step reads one column of two (the work table's scan projected, across processes too)
    "step_reads_some_columns": (
        "WITH RECURSIVE r(n, k) AS (SELECT 1, 'x' UNION ALL SELECT n + 1, 'y' FROM r WHERE n < 3) SELECT * FROM r",
        False,
    ),
    "step_reads_last_column": (
        "WITH RECURSIVE r(k, n) AS (SELECT 'x', 1 UNION ALL SELECT 'y', n * 2 FROM r WHERE n < 8) SELECT * FROM r",
        False,
    ),
    "fibonacci": (
        "WITH RECURSIVE fib(i, a, b) AS (SELECT 1, 0L, 1L UNION ALL SELECT i + 1, b, a + b FROM fib WHERE i < 40) "
        "SELECT max(a) FROM fib",
        False,
    ),
    "step_reads_left_of_left_join": (
        "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT r.n + 1 FROM r LEFT JOIN rc_edges e ON r.n = e.src WHERE r.n < 4) "
        "SELECT * FROM r",
        False,
    ),
}

# name -> (query, {conf: value})
LIMITED = {
    "level_limit_5_last_level": (
        "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 5) SELECT count(*) FROM r",
        {"spark.sql.cteRecursionLevelLimit": "5"},
    ),
    "row_limit_10_under": (
        "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 9) SELECT count(*) FROM r",
        {"spark.sql.cteRecursionRowLimit": "10"},
    ),
}

LIMITED_ERRORS = {
    "level_limit_5_passed": (
        "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 6) SELECT count(*) FROM r",
        {"spark.sql.cteRecursionLevelLimit": "5"},
    ),
    "row_limit_10_reached": (
        "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 10) SELECT count(*) FROM r",
        {"spark.sql.cteRecursionRowLimit": "10"},
    ),
    "row_limit_10_anchor_alone": (
        "WITH RECURSIVE r(n) AS (SELECT id FROM range(20) UNION ALL SELECT n + 1 FROM r WHERE n < 0) SELECT count(*) FROM r",
        {"spark.sql.cteRecursionRowLimit": "10"},
    ),
}

ERRORS = {
    "level_limit_passed": "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 101) SELECT count(*) FROM r",
    "endless": "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT * FROM r",
    "union_distinct": "WITH RECURSIVE r(n) AS (SELECT 1 UNION SELECT (n + 1) % 3 FROM r) SELECT * FROM r",
    "narrower_anchor_type": "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1L FROM r WHERE n < 3) SELECT * FROM r",
    "anchor_reads_itself": "WITH RECURSIVE r(n) AS (SELECT n FROM r UNION ALL SELECT 1) SELECT * FROM r",
    "aggregate_of_itself": "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT max(n) + 1 FROM r WHERE n < 3) SELECT * FROM r",
    "order_by_in_body": "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3 ORDER BY n LIMIT 1) SELECT * FROM r",
    "except_body": "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3 EXCEPT SELECT 2) SELECT * FROM r",
    "right_of_left_join": (
        "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT e.dst FROM rc_edges e LEFT JOIN r ON r.n = e.src WHERE e.dst < 4) "
        "SELECT * FROM r"
    ),
    "window_of_itself": (
        "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT row_number() OVER (ORDER BY n) + n FROM r WHERE n < 3) SELECT * FROM r"
    ),
}

ANSWER_GAPS = {}

# Spark lets a step read its CTE more than once (each read sees the previous step's rows);
# DataFusion's recursive query has one work table reader, so Ember's scans of such a step share
# its rows (`plan::shared_work_table`).
SEVERAL_READS = {
    "self_join_in_step": (
        "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT a.n + b.n FROM r a JOIN r b ON true WHERE a.n < 10) SELECT * FROM r",
        False,
    ),
    "union_of_two_reads_in_step": (
        "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL (SELECT n + 1 FROM r WHERE n < 3 "
        "UNION ALL SELECT n + 100 FROM r WHERE n < 2)) SELECT * FROM r ORDER BY n",
        True,
    ),
    "three_reads_in_step": (
        "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT a.n + b.n + c.n FROM r a, r b, r c WHERE a.n < 20) "
        "SELECT * FROM r ORDER BY n",
        True,
    ),
    # Enough rows for the join to be partitioned and batches to be several.
    "self_join_of_many_rows": (
        "WITH RECURSIVE r(n, lvl) AS (SELECT id, 0 FROM range(5000) UNION ALL "
        "SELECT a.n, a.lvl + 1 FROM r a JOIN r b ON a.n = b.n WHERE a.lvl < 3) "
        "SELECT lvl, count(*) c, sum(n) s FROM r GROUP BY lvl ORDER BY lvl",
        True,
    ),
    "reads_in_step_and_subquery": (
        "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 4 AND n IN (SELECT n FROM r)) "
        "SELECT * FROM r ORDER BY n",
        True,
    ),
}
SEVERAL_READS_GAPS = {}


@pytest.mark.parametrize("case", cases(ANSWERS, ANSWER_GAPS))
def test_answers(spark_with_edges, expected, case):
    query, ordered = ANSWERS[case]
    expected.check(spark_with_edges.sql(query), ordered=ordered, name=case, nullability=True)


@pytest.mark.parametrize("case", cases(SEVERAL_READS, SEVERAL_READS_GAPS))
def test_several_reads(spark_with_edges, expected, case):
    query, ordered = SEVERAL_READS[case]
    expected.check(spark_with_edges.sql(query), ordered=ordered, name=case)


@pytest.mark.parametrize("case", cases(ERRORS))
def test_errors(spark_with_edges, expected, case):
    expected.check_error(lambda: spark_with_edges.sql(ERRORS[case]).collect(), name=case)


def with_conf(spark, conf, fn):
    for k, v in conf.items():
        spark.conf.set(k, v)
    try:
        return fn()
    finally:
        for k in conf:
            spark.conf.unset(k)


@pytest.mark.parametrize("case", cases(LIMITED))
def test_limits(spark_with_edges, expected, case):
    query, conf = LIMITED[case]
    rows = with_conf(spark_with_edges, conf, lambda: spark_with_edges.sql(query).collect())
    expected.check_value([list(r) for r in rows], name=case)


@pytest.mark.parametrize("case", cases(LIMITED_ERRORS))
def test_limit_errors(spark_with_edges, expected, case):
    query, conf = LIMITED_ERRORS[case]
    expected.check_error(lambda: with_conf(spark_with_edges, conf, lambda: spark_with_edges.sql(query).collect()), name=case)


def test_dataframe_over_a_recursive_cte(spark_with_edges, expected):
    """The DataFrame API over a recursive CTE's rows (a filter, a column, a sort)."""
    df = spark_with_edges.sql(
        "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 10) SELECT * FROM r"
    )
    out = df.filter(df.n % 3 == 0).withColumn("sq", df.n * df.n).orderBy(df.n.desc())
    expected.check(out, ordered=True)
