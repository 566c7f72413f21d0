"""Spark SQL through `spark.sql`: answers, column names and types as real Spark gives them."""

import pytest


QUERIES = {
    "literals": "SELECT 1 AS a, 'x' AS b, 1.5 AS c, NULL AS d, true AS e",
    "unaliased_names": "SELECT 1, 'x', 1.5, 1L, NULL, true, 1 + 2, upper('a'), 2 * 3 + 1, (1 + 2) * 3",
    "typed_literals": "SELECT 1Y, 1S, 1L, 1.5BD, 1.5D, 1.5F, 1e10, 0.1, -1, -1.5, 1234567890123, 'it''s', \"dq\", X'0A0B'",
    "date_literals": "SELECT DATE '2020-01-01' AS d, TIMESTAMP_NTZ '2020-01-01 01:02:03' AS t",
    "arithmetic": "SELECT 7 + 2, 7 - 2, 7 * 2, 7 / 2, 7 % 2, 7 div 2, -7 / 2, 1.5 * 2, 10 / 4.0",
    "comparisons": "SELECT 1 = 1, 1 <> 2, 1 != 1, 1 < 2, 2 <= 2, 3 > 2, 2 >= 3, NULL <=> NULL, 1 <=> NULL",
    "logic": "SELECT true AND false, true OR false, NOT true, NULL AND false, NULL OR true",
    "null_tests": "SELECT NULL IS NULL, 1 IS NOT NULL, coalesce(NULL, 2), nvl(NULL, 'x'), nullif(1, 1), if(1 < 2, 'y', 'n')",
    "case_when": "SELECT CASE WHEN id = 1 THEN 'one' WHEN id = 2 THEN 'two' ELSE 'many' END, CASE id WHEN 0 THEN 'zero' END FROM range(4)",
    "in_between_like": "SELECT id IN (1, 3), id BETWEEN 1 AND 2, id NOT IN (0), 'abc' LIKE 'a%', 'abc' LIKE '_b_', 'abc' RLIKE 'b.' FROM range(4)",
    "strings": "SELECT upper('aBc'), lower('ABC'), length('hello'), concat('a', 'b', 'c'), substring('hello', 2, 3), trim('  x  '), 'a' || 'b'",
    "range_filter": "SELECT id FROM range(10) WHERE id % 3 = 0",
    "range_args": "SELECT * FROM range(5, 20, 4)",
    "group_by": "SELECT id % 3 AS k, count(*), sum(id), min(id), max(id), avg(id) FROM range(10) GROUP BY id % 3",
    "group_by_ordinal": "SELECT id % 2, count(1) FROM range(5) GROUP BY 1",
    "group_by_alias": "SELECT id % 2 AS parity, count(1) AS n FROM range(5) GROUP BY parity",
    "having": "SELECT id % 3 AS k, count(*) AS c FROM range(10) GROUP BY id % 3 HAVING count(*) > 3",
    "having_alias": "SELECT id % 3 AS k, sum(id) AS s FROM range(10) GROUP BY id % 3 HAVING s > 12",
    "global_aggregate": "SELECT count(*), sum(id), count(DISTINCT id % 2) FROM range(10)",
    "empty_aggregate": "SELECT count(*), sum(id), max(id) FROM range(0)",
    "distinct": "SELECT DISTINCT id % 3 FROM range(10)",
    "order_limit": "SELECT id FROM range(10) ORDER BY id DESC LIMIT 3",
    "order_nulls": "SELECT * FROM VALUES (1), (NULL), (3) AS t(x) ORDER BY x",
    "order_nulls_desc": "SELECT * FROM VALUES (1), (NULL), (3) AS t(x) ORDER BY x DESC",
    "order_hidden_column": "SELECT id * 2 AS d FROM range(5) ORDER BY id DESC",
    "order_by_aggregate": "SELECT id % 3 AS k, count(*) FROM range(10) GROUP BY id % 3 ORDER BY count(*) DESC, k",
    "offset": "SELECT id FROM range(10) ORDER BY id LIMIT 3 OFFSET 4",
    "values": "SELECT * FROM VALUES (1, 'a'), (2, 'b') AS t(n, s)",
    "values_unnamed": "VALUES (1, 'a'), (2, 'b')",
    "subquery_from": "SELECT x + 1 FROM (SELECT id AS x FROM range(3)) s",
    "cte": "WITH a AS (SELECT id FROM range(5)), b AS (SELECT id * 10 AS y FROM a) SELECT sum(y) FROM b",
    "scalar_subquery": "SELECT id, (SELECT max(id) FROM range(4)) AS m FROM range(2)",
    "in_subquery": "SELECT id FROM range(6) WHERE id IN (SELECT id * 2 FROM range(3))",
    "exists_correlated": "SELECT a.id FROM range(5) a WHERE EXISTS (SELECT 1 FROM range(3) b WHERE b.id = a.id)",
    "join_on": "SELECT a.id, b.id FROM range(4) a JOIN range(2, 6) b ON a.id = b.id",
    "join_left": "SELECT a.id, b.id FROM range(4) a LEFT JOIN range(2, 6) b ON a.id = b.id",
    "join_full": "SELECT a.id, b.id FROM range(4) a FULL OUTER JOIN range(2, 6) b ON a.id = b.id",
    "join_using": "SELECT * FROM range(4) a JOIN range(2, 6) b USING (id)",
    "join_semi_anti": "SELECT * FROM range(5) a LEFT SEMI JOIN range(2) b ON a.id = b.id UNION ALL SELECT * FROM range(5) a LEFT ANTI JOIN range(2) b ON a.id = b.id",
    "cross_join": "SELECT a.id, b.id FROM range(2) a, range(3) b",
    "union": "SELECT id FROM range(3) UNION SELECT id FROM range(2, 5)",
    "union_all": "SELECT id FROM range(3) UNION ALL SELECT id FROM range(2, 5)",
    "intersect": "SELECT id FROM range(5) INTERSECT SELECT id FROM range(3, 8)",
    "except": "SELECT id FROM range(5) EXCEPT SELECT id FROM range(3, 8)",
    "duplicate_names": "SELECT 1 AS a, 2 AS a",
    "case_insensitive": "SELECT ID, Id + 1 FROM range(2)",
    "window_rank": "SELECT id, id % 2 AS g, row_number() OVER (PARTITION BY id % 2 ORDER BY id) AS rn FROM range(6)",
    "window_sum": "SELECT id, sum(id) OVER (ORDER BY id) FROM range(5)",
    # A window over columns of which one is fixed by a filter in the stage below: the
    # distributed modes carry that the column is constant to the stage that sorts without it.
    "window_over_fixed_column": "SELECT a, y, v, sum(v) OVER (PARTITION BY a, y) s, rank() OVER (PARTITION BY a ORDER BY v) r "
    "FROM (SELECT id % 10 AS a, id % 3 AS y, id AS v FROM range(0, 2000, 1, 4)) WHERE y = 1 ORDER BY a, v LIMIT 5",
    "window_over_fixed_group": "WITH g AS (SELECT id % 10 AS a, id % 3 AS y, sum(id) v, rank() OVER (PARTITION BY id % 10 ORDER BY id % 3) r "
    "FROM range(0, 2000, 1, 4) GROUP BY id % 10, id % 3) SELECT a, y, v, r, avg(v) OVER (PARTITION BY a, y) m FROM g WHERE y = 1 ORDER BY a LIMIT 5",
    "window_unnamed": "SELECT id, rank() OVER (ORDER BY id % 2) FROM range(4)",
    "qualified_star": "SELECT a.*, b.id AS bid FROM range(2) a JOIN range(2) b ON a.id = b.id",
    "cast_names": "SELECT CAST(id AS STRING), CAST(1 AS STRING), CAST(id + 1 AS INT), try_cast('x' AS INT) FROM range(2)",
    "nested_types": "SELECT array(1, 2, 3) AS arr, map('k', 1) AS m, named_struct('a', 1, 'b', 'x') AS st",
    "nested_access": "SELECT st.a, arr[0], m['k'] FROM (SELECT named_struct('a', 1) AS st, array(5, 6) AS arr, map('k', 7) AS m)",
}

ORDERED = {"order_limit", "order_nulls", "order_nulls_desc", "order_hidden_column", "order_by_aggregate", "offset"}


@pytest.mark.parametrize("name", sorted(QUERIES))
def test_query(spark, expected, name):
    expected.check(spark.sql(QUERIES[name]), ordered=name in ORDERED, name=name)


def test_named_and_positional_parameters(spark, expected):
    expected.check(spark.sql("SELECT :a + 1 AS x, :b AS y", args={"a": 41, "b": "hi"}), name="named")
    expected.check(spark.sql("SELECT ? * 2 AS x, ? AS y", args=[21, "there"]), name="positional")


def test_sql_sees_temp_views(spark, expected):
    spark.range(5).createOrReplaceTempView("five")
    expected.check(spark.sql("SELECT sum(id) AS s FROM five"))
    spark.sql("CREATE OR REPLACE TEMP VIEW evens AS SELECT id FROM five WHERE id % 2 = 0")
    expected.check(spark.sql("SELECT * FROM evens"), name="sql_view")
    spark.sql("DROP VIEW evens")
    expected.check_error(lambda: spark.sql("SELECT * FROM evens").collect(), name="dropped")


def test_set_command_returns_rows(spark, expected):
    expected.check(spark.sql("SET spark.sql.shuffle.partitions=7"))
    assert spark.conf.get("spark.sql.shuffle.partitions") == "7"
    spark.sql("RESET spark.sql.shuffle.partitions")
    assert spark.conf.get("spark.sql.shuffle.partitions") == "200"


def test_sql_over_dataframe_arguments(spark, expected):
    # spark.sql("... {df}", df=df): the client sends the query with each DataFrame as a named
    # reference, which the query reads as a view.
    from pyspark.sql import functions as F

    mydf = spark.range(10)
    expected.check(spark.sql("SELECT {col} FROM {mydf} WHERE id IN {x}", col=mydf.id, mydf=mydf, x=(0, 1, 2, 3)), name="formatted")
    a, b = spark.range(3), spark.range(2).select("id", (F.col("id") * 10).alias("v"))
    expected.check(spark.sql("SELECT a.id, b.v FROM {a} a JOIN {b} b ON a.id = b.id", a=a, b=b), name="join")
    expected.check(spark.sql("SELECT * FROM {df} WHERE id > :m", args={"m": 5}, df=mydf), name="with_args")


def test_positional_parameters_bind_in_text_order(spark, expected):
    # `?` markers take the arguments in the order they are written, wherever they stand.
    from pyspark.sql.functions import array, lit

    mydf = spark.createDataFrame([(1, 4), (2, 4), (3, 6)], ["A", "B"])
    expected.check(
        spark.sql(
            "SELECT *, element_at(?, 1) AS C FROM {df} WHERE {df[B]} > ? and ? < {df[A]}",
            args=[array(lit(1), lit(2), lit(3)), 5, 2],
            df=mydf,
        ),
        name="select_and_where",
    )
    expected.check(spark.sql("SELECT ? AS a, ? AS b FROM range(1) WHERE ? > 0", args=[1, "x", 3]), name="three")
    expected.check(spark.sql("SELECT id FROM range(5) WHERE id > ? ORDER BY id LIMIT ?", args=[1, 2]), name="limit", ordered=True)
