"""Spark's SQL dialect beyond the basics: generators and LATERAL VIEW, multiset set
operations, grouping extensions, windows, subqueries, literals and joins, recorded from real
Spark. Statements Ember does not support yet are listed in the README."""

import pytest

QUERIES = {
    # Generators and LATERAL VIEW
    "lateral_view": "SELECT * FROM VALUES (1, 2), (3, 4) AS t(a, b) LATERAL VIEW explode(array(a, b)) e AS x",
    "lateral_view_outer": "SELECT a, x FROM VALUES (1), (2) AS t(a) LATERAL VIEW OUTER explode(CAST(NULL AS ARRAY<INT>)) e AS x",
    "lateral_view_posexplode": "SELECT a, p, x FROM VALUES (1) AS t(a) LATERAL VIEW posexplode(array(10, 20)) e AS p, x",
    "lateral_view_twice": "SELECT a, e.x, f.y FROM VALUES (1) AS t(a) LATERAL VIEW explode(array(1, 2)) e AS x LATERAL VIEW explode(array('u', 'v')) f AS y",
    "lateral_view_map": "SELECT a, k, v FROM VALUES (1) AS t(a) LATERAL VIEW explode(map('p', 1, 'q', 2)) m AS k, v",
    "lateral_view_default_name": "SELECT a, col FROM VALUES (1) AS t(a) LATERAL VIEW explode(array(5)) m",
    "lateral_view_aggregate": "SELECT x, count(*) FROM range(4) LATERAL VIEW explode(array(id % 2)) e AS x GROUP BY x",
    "lateral_view_count": "SELECT count(*) FROM range(3) LATERAL VIEW explode(array(1, 2)) e AS x",
    "explode": "SELECT explode(array(1, 2, 3))",
    "explode_alias": "SELECT explode(array(1, 2, 3)) AS v, 'x' AS s",
    "explode_with_columns": "SELECT id, explode(array(id, id * 10)) FROM range(3)",
    "explode_map": "SELECT explode(map('a', 1, 'b', 2))",
    "explode_map_aliases": "SELECT explode(map('a', 1, 'b', 2)) AS (k, v)",
    "posexplode": "SELECT posexplode(array('x', 'y'))",
    "posexplode_outer_empty": "SELECT posexplode_outer(CAST(array() AS ARRAY<STRING>))",
    "explode_outer_empty": "SELECT explode_outer(array())",
    "inline": "SELECT inline(array(struct(1, 'a'), struct(2, 'b')))",
    "inline_aliases": "SELECT inline(array(named_struct('x', 1, 'y', 'a'))) AS (p, q)",
    "inline_outer_null": "SELECT inline_outer(CAST(NULL AS ARRAY<STRUCT<a: INT>>))",
    "explode_in_from": "SELECT * FROM explode(array(1, 2, 3))",
    "explode_in_from_alias": "SELECT * FROM explode(array(1, 2, 3)) AS t(v)",
    "two_generators": "SELECT explode(array(1, 2)), explode(array('a', 'b'))",
    # PIVOT / UNPIVOT
    "pivot": "SELECT * FROM (SELECT id % 2 AS k, id AS v FROM range(6)) PIVOT (sum(v) FOR k IN (0, 1))",
    "pivot_aliases": "SELECT * FROM (SELECT id % 2 AS k, id % 3 AS g, id AS v FROM range(6)) PIVOT (sum(v) AS s, count(v) AS c FOR k IN (0 AS even, 1 AS odd))",
    "pivot_implicit_grouping": "SELECT * FROM (SELECT id % 2 AS k, id % 3 AS g, id AS v FROM range(6)) PIVOT (sum(v) FOR k IN (0, 1))",
    "pivot_strings": "SELECT * FROM (SELECT CAST(id % 3 AS STRING) AS k, id AS v FROM range(6)) PIVOT (max(v) FOR k IN ('0' AS zero, '2'))",
    "pivot_two_aggregates": "SELECT * FROM (SELECT id % 2 AS k, id AS v FROM range(6)) PIVOT (sum(v), avg(v) FOR k IN (0, 1))",
    "pivot_two_columns": "SELECT * FROM (SELECT id % 2 AS k, CAST(id % 3 AS STRING) AS c, id AS v FROM range(12)) "
    "PIVOT (sum(v) FOR (k, c) IN ((0, '0') AS x, (1, '2') AS y, (1, '9') AS z))",
    "pivot_two_columns_unnamed": "SELECT * FROM (SELECT id % 2 AS k, CAST(id % 3 AS STRING) AS c, id % 4 AS g, id AS v FROM range(12)) "
    "PIVOT (sum(v) AS s, max(v) AS m FOR (k, c) IN ((0, '0'), (1, '2')))",
    "unpivot": "SELECT * FROM (SELECT 1 AS id, 10 AS a, 20 AS b) UNPIVOT (val FOR col IN (a, b))",
    "unpivot_include_nulls": "SELECT * FROM (SELECT 1 AS id, 10 AS a, CAST(NULL AS INT) AS b) UNPIVOT INCLUDE NULLS (val FOR col IN (a, b))",
    "unpivot_aliases": "SELECT * FROM (SELECT 1 AS id, 10 AS a, CAST(NULL AS INT) AS b) UNPIVOT (val FOR col IN (a AS x, b AS y))",
    # Inline tables (VALUES) with an alias: PIVOT/UNPIVOT after them, the alias inside
    # parentheses, and count(*) in a SQL PIVOT (SQL's `count(*)` is `count(1)`).
    "values_pivot": "SELECT * FROM VALUES (1, 'x', 10), (2, 'y', 20) AS t(a, b, c) PIVOT (sum(c) FOR b IN ('x', 'y'))",
    "values_pivot_no_as": "SELECT * FROM VALUES (1, 'x', 10) t(a, b, c) PIVOT (sum(c) FOR b IN ('x', 'y'))",
    "values_unpivot": "SELECT * FROM VALUES (1, 'x', 10) AS t(a, b, c) UNPIVOT (v FOR k IN (a, c))",
    "values_alias_in_parentheses": "SELECT a, b FROM (VALUES (1, 'x'), (2, 'y') AS t(a, b)) WHERE a > 1",
    "values_join_values": "SELECT * FROM VALUES (1, 'x') AS t(a, b) JOIN VALUES (1), (CAST(2 AS INT)) AS u(a) USING (a)",
    "pivot_count_star": "SELECT * FROM (SELECT 1 a, 'x' b) PIVOT (count(*) FOR b IN ('x', 'y'))",
    # A LIMIT/OFFSET of a constant expression (Spark folds it).
    "limit_expression": "SELECT id FROM range(6) ORDER BY id LIMIT 1 + 1 OFFSET 3 - 1",
    # Set operations
    "except_all": "SELECT id % 2 FROM range(6) EXCEPT ALL SELECT 0",
    "intersect_all": "SELECT id FROM range(5) INTERSECT ALL SELECT id FROM range(3)",
    "intersect_all_nulls": "SELECT a, b FROM VALUES (1, NULL), (1, NULL), (1, NULL), (2, 'x') AS t(a, b) INTERSECT ALL SELECT a, b FROM VALUES (1, NULL), (1, NULL), (3, 'y') AS u(a, b)",
    "except_all_nulls": "SELECT a, b FROM VALUES (1, NULL), (1, NULL), (1, NULL), (2, 'x') AS t(a, b) EXCEPT ALL SELECT a, b FROM VALUES (1, NULL), (3, 'y') AS u(a, b)",
    "except_all_counts": "SELECT id % 3 AS k FROM range(10) EXCEPT ALL SELECT id % 2 FROM range(5)",
    "intersect_all_counts": "SELECT id % 3 AS k FROM range(10) INTERSECT ALL SELECT id % 2 FROM range(5)",
    "minus": "SELECT id FROM range(5) MINUS SELECT id FROM range(2)",
    "union_order_limit": "SELECT id FROM range(3) UNION ALL SELECT id FROM range(2) ORDER BY id LIMIT 4",
    "parenthesized_union": "(SELECT id FROM range(3)) UNION (SELECT 5) ORDER BY 1",
    # Grouping
    "qualify": "SELECT id, row_number() OVER (ORDER BY id) AS rn FROM range(5) QUALIFY rn > 3",
    "group_by_all": "SELECT id % 2 AS k, count(*) FROM range(5) GROUP BY ALL",
    "rollup": "SELECT id % 2 AS k, id % 3 AS j, count(*) FROM range(6) GROUP BY ROLLUP(id % 2, id % 3)",
    "cube": "SELECT id % 2 AS k, id % 3 AS j, count(*) FROM range(6) GROUP BY CUBE(k, j)",
    "grouping_sets": "SELECT id % 2 AS k, id % 3 AS j, count(*) FROM range(6) GROUP BY GROUPING SETS ((k), (j), ())",
    "with_rollup": "SELECT k, sum(v) FROM (SELECT id % 3 AS k, id AS v FROM range(9)) GROUP BY k WITH ROLLUP",
    "grouping_expression": "SELECT id % 2 AS k, grouping(id % 2), count(*) FROM range(4) GROUP BY ROLLUP(id % 2)",
    "grouping_cube": "SELECT k, j, grouping(k), grouping(j), grouping_id(k, j), count(*) FROM (SELECT id % 2 AS k, id % 3 AS j FROM range(6)) GROUP BY CUBE(k, j)",
    "grouping_id_all": "SELECT k, grouping_id(), sum(v) FROM (SELECT id % 2 AS k, id AS v FROM range(6)) GROUP BY GROUPING SETS ((k), ())",
    "having_without_group": "SELECT max(id) FROM range(5) HAVING max(id) > 2",
    "aggregate_filter": "SELECT id % 2 k, count(id) FILTER (WHERE id > 1) FROM range(6) GROUP BY 1",
    "distinct_pairs": "SELECT DISTINCT id % 2, id % 3 FROM range(12)",
    # Distribution clauses and hints
    "distribute_by": "SELECT id FROM range(10) DISTRIBUTE BY id % 2",
    "cluster_by": "SELECT id FROM range(10) CLUSTER BY id",
    "distribute_sort_by": "SELECT id FROM range(10) DISTRIBUTE BY id % 2 SORT BY id",
    "hint_broadcast": "SELECT /*+ BROADCAST(b) */ a.id FROM range(3) a JOIN range(2) b ON a.id = b.id",
    "hint_repartition": "SELECT /*+ REPARTITION(3) */ id FROM range(4)",
    "hint_coalesce": "SELECT /*+ COALESCE(1) */ id FROM range(4)",
    # Windows
    "named_window_first_value": "SELECT id, first_value(id) OVER w FROM range(4) WINDOW w AS (PARTITION BY id % 2 ORDER BY id)",
    "lag_lead": "SELECT id, lag(id) OVER (ORDER BY id), lead(id, 2, -1) OVER (ORDER BY id) FROM range(4)",
    # Never NULL where the value and a non-zero offset's default never are.
    "lag_lead_nullability": "SELECT id, lag(id) OVER (ORDER BY id) a, lead(id, 2, -1) OVER (ORDER BY id) b, "
    "lead(id, 1, NULL) OVER (ORDER BY id) d, lag(id, 0) OVER (ORDER BY id) e, lag(id, 1, 0) OVER (ORDER BY id) f FROM range(4)",
    "ntile_percent_rank": "SELECT id, ntile(2) OVER (ORDER BY id), percent_rank() OVER (ORDER BY id), cume_dist() OVER (ORDER BY id) FROM range(4)",
    "count_over_all": "SELECT id, count(*) OVER () FROM range(3)",
    # Subqueries and CTEs
    "nested_cte": "WITH a AS (SELECT 1 AS x), b AS (WITH c AS (SELECT x + 1 AS y FROM a) SELECT y FROM c) SELECT * FROM b",
    "scalar_subquery_where": "SELECT * FROM range(3) WHERE id > (SELECT min(id) FROM range(1, 3))",
    "correlated_in": "SELECT a.id FROM range(5) a WHERE a.id IN (SELECT b.id FROM range(3) b WHERE b.id = a.id)",
    "correlated_scalar_in_select": "SELECT a.id, (SELECT count(*) FROM range(5) b WHERE b.id = a.id) AS c FROM range(3) a",
    "exists_as_value": "SELECT a.id, EXISTS (SELECT 1 FROM range(2) b WHERE b.id = a.id) AS e FROM range(3) a",
    "exists_uncorrelated_value": "SELECT EXISTS(SELECT 1), NOT EXISTS(SELECT 1 FROM range(0))",
    # IN (subquery) as a value: Spark's existence join, never NULL (NOT IN is false for a
    # NULL value or when the subquery has a NULL).
    "in_as_value": "SELECT v, v IN (SELECT k FROM VALUES (1), (2) AS s(k)) i, v NOT IN (SELECT k FROM VALUES (1), (NULL) AS s(k)) n, "
    "v IN (SELECT k FROM VALUES (1) AS s(k) WHERE k > 5) e FROM VALUES (1), (3), (NULL) AS t(v)",
    "lateral": "SELECT a.id, s.v FROM range(4) a, LATERAL (SELECT b.id * 10 AS v FROM range(3) b WHERE b.id <= a.id) s",
    "lateral_aggregate": "SELECT a.id, s.m FROM range(4) a, LATERAL (SELECT max(b.id * 2) AS m FROM range(3) b WHERE b.id = a.id) s",
    "lateral_left_join": "SELECT a.id, s.v FROM range(4) a LEFT JOIN LATERAL (SELECT b.id AS v FROM range(3) b WHERE b.id = a.id + 1) s ON true",
    "in_as_value_correlated": "SELECT a.id, a.id IN (SELECT b.id * 2 FROM range(4) b WHERE b.id = a.id) AS x FROM range(4) a",
    "not_exists": "SELECT a.id FROM range(5) a WHERE NOT EXISTS (SELECT 1 FROM range(2) b WHERE b.id = a.id)",
    # Literals and names
    "spark_literals": "SELECT 1L, 2Y, 3S, 4BD, X'1F', 'it\\'s', \"dq\", 'a' 'b'",
    "typed_literals": "SELECT DATE '2020-02-29', TIMESTAMP_NTZ '2020-01-01 10:00:00'",
    "backquoted_names": "SELECT `a b`.`c d` FROM (SELECT 1 AS `c d`) AS `a b`",
    "values_alias_in_from": "SELECT * FROM VALUES (1, 'a') t(x, y) WHERE y = 'a'",
    "range_alias_columns": "SELECT * FROM range(3) AS r(x)",
    "nulls_last": "SELECT id FROM range(6) ORDER BY id DESC NULLS LAST LIMIT 2",
    "limit_all": "SELECT id FROM range(10) LIMIT ALL",
    "conditionals": "SELECT CASE WHEN 1 > 0 THEN 'y' END, IF(NULL, 1, 2), nvl2(NULL, 1, 2), ifnull(NULL, 3)",
    "in_with_nulls": "SELECT 1 IN (1, NULL), 2 IN (1, NULL), NULL IN (1), 2 NOT IN (1, NULL)",
    "between": "SELECT 5 BETWEEN 1 AND 10, 'b' BETWEEN 'a' AND 'c', 5 NOT BETWEEN 6 AND 7",
    "string_arithmetic": "SELECT '1' + 1, '2' * 2",
    "typeof": "SELECT typeof(1), typeof(1L), typeof(1.5), typeof('a'), typeof(array(1)), typeof(NULL), typeof(map('a', 1)), typeof(named_struct('x', 1)), typeof(DATE'2020-01-01'), typeof(current_timestamp()), typeof(1.5D), typeof(CAST(1 AS DECIMAL(5,2)))",
    "typeof_columns": "SELECT typeof(id), typeof(id + 1.5) FROM range(1)",
    "current_database": "SELECT current_database(), current_schema(), current_catalog()",
    "current_path": "SELECT current_path(), current_path() = current_path() p",
    # Array subscripts (ANSI)
    "array_subscript": "SELECT array(1,2,3)[0], array(1,2,3)[2]",
    "element_at": "SELECT element_at(array(1,2,3), 1), element_at(array(1,2,3), -1), element_at(array(1, 2, 3), -3)",
    "try_element_at": "SELECT try_element_at(array(1,2,3), 4), try_element_at(array(1, 2), -5)",
    "get": "SELECT get(array(1,2,3), 5), get(array(1,2,3), 1), get(array(1, 2, 3), -1)",
    "element_at_map": "SELECT element_at(map('a', 1), 'a'), try_element_at(map('a', 1), 'b')",
    "subscript_nulls": "SELECT a[1], element_at(a, 2) FROM VALUES (array(1, NULL)), (NULL) AS t(a)",
    "subscript_per_row": "SELECT id, array(id, id + 1)[id % 2] FROM range(4)",
    # Under ANSI an item read by a column index is NULL only where the array or its elements
    # may be (Spark's computeNullabilityFromArray; not where the index may be).
    "subscript_nullability": "SELECT id % 2 AS m, array(id, id + 1)[id % 2] AS a, array(id, id + 1)[IF(id > 1, NULL, 0)] AS b, "
    "IF(id > 1, NULL, array(id))[id % 1] AS c, array(id, id + 1)[CAST(id AS INT)] AS d, "
    "element_at(array(id, id + 1), CAST(id % 2 + 1 AS INT)) AS e, get(array(id, id + 1), CAST(id % 2 AS INT)) AS f FROM range(2)",
    # Joins
    "cross_join": "SELECT * FROM range(2) a CROSS JOIN range(2) b",
    "left_anti": "SELECT * FROM range(3) a LEFT ANTI JOIN range(1) b ON a.id = b.id",
    "full_using": "SELECT * FROM range(3) a FULL JOIN range(2, 4) b USING (id)",
    "right_outer": "SELECT * FROM range(3) a RIGHT OUTER JOIN range(1, 5) b ON a.id = b.id",
    "star_except": "SELECT * EXCEPT (b) FROM VALUES (1, 2, 3) AS t(a, b, c)",
    "star_except_two": "SELECT * EXCEPT (a, c) FROM VALUES (1, 2, 3) AS t(a, b, c)",
    "qualified_star_except": "SELECT t.* EXCEPT (A), u.x FROM VALUES (1, 2) AS t(a, b) JOIN VALUES (1) AS u(x) ON t.a = u.x",
    "star_qualified": "SELECT t.* FROM VALUES (1, 2) AS t(a, b)",
    "natural_join": "SELECT * FROM range(3) a NATURAL JOIN range(2, 5) b",
    "natural_left_join": "SELECT * FROM VALUES (1, 'a', 10) AS l(k, s, x) NATURAL LEFT JOIN VALUES (1, 'a', 20), (2, 'b', 30) AS r(k, s, y)",
    "natural_join_nothing_common": "SELECT * FROM VALUES (1) AS l(a) NATURAL JOIN VALUES (2) AS r(b)",
    "describe_query": "DESCRIBE QUERY SELECT 1 AS a, 'x' AS b",
    # Values spelled as Spark's CAST spells them (not as DataFusion's cast does).
    "cast_to_string": "SELECT CAST(TIMESTAMP'2020-01-01 10:00:00' AS STRING) a, CAST(TIMESTAMP'2020-01-01 10:00:00.120' AS STRING) b, "
    "CAST(TIMESTAMP_NTZ'2020-01-01 10:00:00.5' AS STRING) c, CAST(1e10 AS STRING) d, CAST(1.5D AS STRING) e, "
    "CAST(CAST(2.0 AS FLOAT) AS STRING) f, CAST(array(1, NULL) AS STRING) g, CAST(named_struct('a', 1, 'b', 'x') AS STRING) h, "
    "CAST(map('k', 1.5D) AS STRING) i, CAST(array(TIMESTAMP'2020-01-01 10:00:00') AS STRING) k, CAST(CAST(NULL AS DOUBLE) AS STRING) m, "
    "TRY_CAST(1.0D AS STRING) n, CAST(CAST('NaN' AS DOUBLE) AS STRING) o, CAST(1e-5D AS STRING) p",
    # Spark's cast functions, named after their argument.
    "cast_functions": "SELECT double('1.5'), int('7'), string(1.5D), boolean('true'), bigint(2), float('2.5'), smallint(3), "
    "tinyint(4), date('2020-01-02'), decimal('1.25'), binary('ab'), double(id), string(TIMESTAMP'2020-01-02 03:04:05') FROM range(1)",
    "cast_column_to_string": "SELECT CAST(x AS STRING) s, CAST(t AS STRING) ts FROM VALUES (0.1D, TIMESTAMP'2024-02-29 23:59:59.999999'), (123456789.0D, NULL) AS v(x, t)",
}

ERRORS = {
    "generator_nested": "SELECT explode(array(1)) + 1",
    "generator_bad_type": "SELECT explode(1)",
    "generator_alias_count": "SELECT explode(array(1)) AS (a, b)",
    "divide_by_zero": "SELECT 1 / 0",
    "int_overflow": "SELECT 2147483647 + 1",
    "bad_cast": "SELECT cast('x' AS INT)",
    "bad_cast_function": "SELECT int('x')",
    "fractional_string_times_int": "SELECT '1.5' * 2",
    "unbound_parameter": "SELECT :x + 1",
    "grouping_without_sets": "SELECT k, grouping(k) FROM (SELECT id % 2 AS k FROM range(6)) GROUP BY k",
    "star_except_unknown": "SELECT * EXCEPT (nope) FROM VALUES (1, 2) AS t(a, b)",
    "subscript_out_of_bounds": "SELECT array(1,2,3)[3]",
    "subscript_negative": "SELECT array(1,2,3)[-1]",
    "element_at_out_of_bounds": "SELECT element_at(array(1,2,3), 4)",
    "element_at_zero": "SELECT element_at(array(1,2,3), 0)",
}

# Lateral column aliases: an item refers to an earlier item's alias (an input column of the
# same name wins); Spark names such a reference `lateralAliasReference(a)`.
QUERIES.update(
    {
        "lateral_alias": "SELECT 1 AS a, a + 1 AS b",
        "lateral_alias_chain": "SELECT 1 AS a, a + 1 AS b, b * 10 AS c, a + b + c",
        "lateral_alias_columns": "SELECT id, id * 2 AS d, d + id AS e FROM range(3)",
        "lateral_alias_input_wins": "SELECT id * 2 AS id, id + 1 AS x FROM range(2)",
        "lateral_alias_unnamed": "SELECT upper(s) AS u, concat(u, '!') FROM VALUES ('a') t(s)",
    }
)
ERRORS["lateral_alias_unknown"] = "SELECT 1 AS a, nope + 1"
# A NULL index where Spark declares the item never NULL: its generated code reads -1.
ERRORS["subscript_null_index"] = "SELECT id, array(id, id + 1)[IF(id > 0, NULL, 1)] AS e FROM range(2)"
# The alias of an inline table alone in parentheses is not visible outside them.
ERRORS["values_alias_hidden_by_parentheses"] = "SELECT t.a FROM (VALUES (1, 'x') AS t(a, b))"
# A cast keeps the name of a column (not of a struct's field or a map's value, named by their
# path: `s.a`, `m[k]`); structs cast field by field in order, as many fields at any depth.
QUERIES["cast_names_of_nested_fields"] = (
    "SELECT CAST(id AS STRING), CAST(t.id AS STRING), CAST(s.a AS STRING), CAST(s['a'] AS STRING), CAST(s.b[0] AS STRING), "
    "CAST(m['k'] AS STRING), CAST(m.k AS STRING), m.k * 2, CAST(mm.k.x AS STRING), mm.k.x + 1, CAST(sm.m.k AS STRING), "
    "upper(sm.m.k), CAST(s AS STRUCT<x: STRING, y: ARRAY<STRING>>) r FROM (SELECT 1 id, named_struct('a', 1, 'b', array(1, 2)) s, "
    "map('k', 1) m, map('k', named_struct('x', 1)) mm, named_struct('m', map('k', 'v')) sm) t"
)
ERRORS["cast_struct_of_fewer_fields"] = "SELECT CAST(named_struct('a', 1, 'b', 2) AS STRUCT<a: INT>)"
ERRORS["cast_struct_of_more_fields"] = "SELECT CAST(named_struct('a', 1) AS STRUCT<a: INT, b: INT>)"
ERRORS["try_cast_struct_of_fewer_fields"] = "SELECT try_cast(named_struct('a', 1, 'b', 2) AS STRUCT<a: INT>)"
ERRORS["cast_nested_struct_widths"] = "SELECT CAST(map('k', array(named_struct('a', 1))) AS MAP<STRING, ARRAY<STRUCT<a: INT, b: INT>>>)"
ERRORS["pivot_value_of_other_arity"] = "SELECT * FROM (SELECT 1 k, 'a' c, 10 v) PIVOT (sum(v) FOR (k, c) IN ((1, 'a', 3) AS x))"


@pytest.mark.parametrize("name", sorted(QUERIES))
def test_query(spark, expected, name):
    expected.check(spark.sql(QUERIES[name]), name=name)


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_error(spark, expected, name):
    expected.check_error(lambda: spark.sql(ERRORS[name]).collect(), name=name)


def test_dataframe_generators(spark, expected):
    from pyspark.sql import functions as F

    df = spark.createDataFrame(
        [(1, [1, 2], {"a": 1}), (2, [], None), (3, None, {"b": 2, "c": 3})],
        "id INT, arr ARRAY<INT>, m MAP<STRING,INT>",
    )
    expected.check(df.select("id", F.explode("arr")), name="explode")
    expected.check(df.select("id", F.explode_outer("arr").alias("v")), name="explode_outer")
    expected.check(df.withColumn("e", F.explode("arr")), name="with_column")
    expected.check(df.select(F.posexplode("arr")), name="posexplode")
    expected.check(df.select("id", F.explode("m")), name="explode_map")
    expected.check(df.select(F.explode("m").alias("k", "v")), name="explode_map_aliases")
    expected.check(df.select(F.posexplode_outer("m")), name="posexplode_outer_map")
    expected.check(df.selectExpr("id", "explode(arr) AS z"), name="select_expr")
    expected.check(
        df.select(F.inline(F.array(F.struct(F.lit(1).alias("a"), F.lit("x").alias("b"))))), name="inline"
    )


def test_dataframe_pivot_unpivot(spark, expected):
    from pyspark.sql import functions as F

    df = spark.createDataFrame(
        [(1, "a", "x", 10), (1, "b", "y", 20), (2, "a", "x", 30), (2, None, "y", 5)],
        "g INT, k STRING, j STRING, v INT",
    )
    expected.check(df.groupBy("g").pivot("k", ["a", "b"]).sum("v"), name="pivot_values")
    expected.check(df.groupBy("g").pivot("k").sum("v"), name="pivot_distinct_values")
    expected.check(df.groupBy("g").pivot("k").agg(F.sum("v"), F.count("v")), name="pivot_two_aggregates")
    expected.check(df.groupBy("g").pivot("k", ["a"]).agg(F.sum("v").alias("s"), F.max("j").alias("m")), name="pivot_aliases")
    expected.check(df.groupBy().pivot("k").count(), name="pivot_without_grouping")
    # An empty cell: NULL where Spark spreads per-value results (numeric aggregates), the
    # aggregate's value for no rows where it cannot (an array aggregate among them).
    expected.check(df.groupBy("g").pivot("k", ["a", "b"]).count(), name="pivot_empty_count")
    expected.check(
        df.groupBy("g").pivot("k", ["a", "b"]).agg(F.collect_list("v")), name="pivot_empty_collect_list"
    )
    expected.check(
        df.groupBy("g").pivot("k", ["a", "b"]).agg(F.count("v"), F.collect_set("v"), F.max("j")),
        name="pivot_empty_mixed",
    )
    df.createOrReplaceTempView("pivoted")
    expected.check(
        spark.sql(
            "SELECT * FROM pivoted PIVOT (count(v) AS c, collect_list(v) AS l, count_if(v > 5) AS n FOR k IN ('a', 'b'))"
        ),
        name="pivot_empty_sql",
    )
    # A DataFrame pivot expands no star: INVALID_USAGE_OF_STAR_OR_REGEX.
    expected.check_error(lambda: df.groupBy("g").pivot("k").agg(F.count("*")).collect(), name="pivot_count_star")
    expected.check(df.unpivot("g", ["v"], "var", "val"), name="unpivot")
    expected.check(
        df.select("g", "v", F.col("v").alias("w")).melt(["g"], ["v", "w"], "var", "val"), name="melt"
    )
    expected.check_error(lambda: df.unpivot(["g"], None, "var", "val").collect(), name="unpivot_type_mismatch")


SAMPLES = {
    "all": "SELECT count(*) FROM ts TABLESAMPLE (100 PERCENT)",
    "none": "SELECT count(*) FROM ts TABLESAMPLE (0 PERCENT)",
    "rows": "SELECT count(*) FROM ts TABLESAMPLE (3 ROWS)",
    # Random samples: far inside the bounds (more than 8 standard deviations).
    "bucket": "SELECT count(*) BETWEEN 100 AND 400 FROM ts TABLESAMPLE (BUCKET 1 OUT OF 4)",
    "half": "SELECT count(*) BETWEEN 350 AND 650 FROM ts TABLESAMPLE (50 PERCENT)",
}


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_tablesample(spark, expected, name):
    spark.range(1000).createOrReplaceTempView("ts")
    expected.check(spark.sql(SAMPLES[name]), name=name)


def test_dataframe_grouping(spark, expected):
    from pyspark.sql import functions as F

    df = spark.range(6).selectExpr("id % 2 AS k", "id % 3 AS j", "id AS v")
    expected.check(df.rollup("k", "j").agg(F.grouping("k"), F.grouping_id(), F.sum("v")), name="rollup")
    expected.check(df.cube("k").agg(F.grouping_id("k").alias("g"), F.count("*")), name="cube")


def test_functions_statements(spark, expected):
    described = spark.sql("DESCRIBE FUNCTION upper")
    # The class and usage lines name Spark's implementation; the first line and the shape match.
    expected.check_value([described.columns, described.collect()[0][0]], name="describe")
    extended = spark.sql("DESCRIBE FUNCTION EXTENDED abs").collect()
    expected.check_value(extended[0][0], name="describe_extended")
    expected.check_error(lambda: spark.sql("DESCRIBE FUNCTION nope_fn").collect(), name="describe_missing")
    expected.check(spark.sql("SHOW FUNCTIONS LIKE 'upp*'"), name="show_like")
    expected.check(spark.sql("SHOW SYSTEM FUNCTIONS LIKE 'low*'"), name="show_system")
    expected.check(spark.sql("SHOW USER FUNCTIONS"), name="show_user")


def test_like_any_and_all(spark, expected):
    # Values only: Spark names these columns likeany(...)/likeall(...).
    expected.check(
        spark.sql(
            "SELECT 'abc' LIKE ANY ('a%', 'x') AS a, 'abc' LIKE ANY ('x', 'y') AS b, "
            "'abc' NOT LIKE ANY ('a%', 'x') AS c, CAST(NULL AS STRING) LIKE ANY ('a') AS d, "
            "'abc' LIKE ALL ('a%', '%c') AS e, 'abc' LIKE ALL ('a%', 'x') AS f, "
            "'abc' NOT LIKE ALL ('x', 'y') AS g"
        ),
        name="values",
    )
    expected.check(
        spark.sql("SELECT s FROM VALUES ('apple'), ('banana'), ('cherry') t(s) WHERE s LIKE ANY ('a%', '%y')"),
        name="where",
    )
    # Spark's names: one quantified LIKE of text patterns (NULL-able whatever its value),
    # else one LIKE per pattern; ILIKE compares lower(value) with lowered patterns.
    expected.check(
        spark.sql(
            "SELECT 'ab' LIKE ANY ('a%', 'b%'), 'ab' NOT LIKE ALL ('a%', 'c%'), 'ab' ILIKE ALL ('A%', '%B'), "
            "'ab' NOT ILIKE ANY ('A%', 'c'), 'a' LIKE ANY ('b', NULL), 'a' LIKE ANY ('a', concat('b', 'c')), "
            "'AB' ILIKE ANY ('a%', upper('x'))"
        ),
        name="names",
    )
    expected.check(
        spark.sql("SELECT s LIKE ANY ('a%', 'b%') a, s NOT ILIKE ALL ('A%', 'c') b FROM VALUES ('ab'), (NULL), ('Cd') t(s)"),
        name="ilike_rows",
    )


STACK = {
    "two_rows": "SELECT stack(2, 1, 'a', 2, 'b')",
    "padded": "SELECT stack(3, 1, 2, 3, 4)",
    "per_row": "SELECT id, stack(2, id, id * 10) FROM range(2)",
    "aliased": "SELECT stack(2, 1, 2) AS (x)",
    "lateral_view": "SELECT * FROM range(1) LATERAL VIEW stack(2, 'p', 'q') t AS v",
}


@pytest.mark.parametrize("case", sorted(STACK))
def test_stack(spark, expected, case):
    expected.check(spark.sql(STACK[case]), name=case)


# LIKE with an escape character other than the backslash, as Spark reads the pattern.
QUERIES.update(
    {
        "like_escape": "SELECT 'a_c' LIKE 'a#_c' ESCAPE '#' AS a, 'abc' LIKE 'a#_c' ESCAPE '#' AS b, "
        "'a%' LIKE 'a!%' ESCAPE '!' AS c, 'a!' LIKE 'a!!' ESCAPE '!' AS d, 'a\\\\b' LIKE 'a\\\\b' ESCAPE '#' AS e, "
        "'xyz' NOT LIKE 'x/%' ESCAPE '/' AS f, CAST(NULL AS STRING) LIKE 'a' ESCAPE '/' AS g, "
        "'a_b' LIKE 'a__b' ESCAPE '_' AS h, 'ab' LIKE 'a%%b' ESCAPE '%' AS i, 'A_C' ILIKE 'a/_c' ESCAPE '/' AS j",
        "like_escape_rows": "SELECT s FROM VALUES ('10%'), ('100'), ('1_0'), ('x') t(s) WHERE s LIKE '1%!%' ESCAPE '!' OR s LIKE '1!_0' ESCAPE '!'",
        "like_escape_names": "SELECT 'a_c' LIKE 'a#_c' ESCAPE '#', 'xyz' NOT LIKE 'x/%' ESCAPE '/'",
    }
)
ERRORS["values_string_and_int"] = "SELECT * FROM VALUES ('1'), (2) AS t(v)"
ERRORS.update(
    {
        "like_escape_in_the_middle": "SELECT 'ab' LIKE 'a#b' ESCAPE '#'",
        "like_escape_at_the_end": "SELECT 'a#' LIKE 'a#' ESCAPE '#'",
    }
)

# Spark's grammar applies a predicate to a value expression only: chained predicates are
# syntax errors unless parenthesized; chained comparisons are not.
PREDICATE_CHAINS = [
    "1 IS NULL IS NULL",
    "1 IS NULL IS NOT NULL",
    "(1 IS NULL) IS NULL",
    "1 IS NULL = TRUE",
    "1 = 1 IS NULL",
    "1 BETWEEN 0 AND 2 IS NULL",
    "1 IN (1) IS NULL",
    "'a' LIKE 'a' IS NULL",
    "1 IS NULL IS TRUE",
    "TRUE IS TRUE IS TRUE",
    "NOT 1 IS NULL",
    "1 IS DISTINCT FROM 2 IS NULL",
    "1 = 1 = TRUE",
    "1 <=> 1 <=> TRUE",
    "1 < 2 = TRUE",
    "1 IN (1) = TRUE",
    "1 IS NULL OR 2 IS NULL IS NULL",
]


@pytest.mark.parametrize("text", PREDICATE_CHAINS)
def test_predicate_chains(spark, expected, text):
    expected.check_error(lambda: spark.sql(f"SELECT {text} AS v").collect(), name=f"sql {text}")
    expected.check_error(lambda: spark.range(1).selectExpr(f"{text} AS v").collect(), name=f"expression {text}")


# VALUES columns take Spark's common type of their rows' values.
VALUES_TYPES = {
    "decimal_and_double": "SELECT * FROM VALUES (0.0), (PI()) AS t(v)",
    "integer_and_decimal": "SELECT * FROM VALUES (1), (2.5) AS t(v)",
    "decimal_and_float": "SELECT * FROM VALUES (1.5), (CAST(2 AS FLOAT)) AS t(v)",
    "int_and_bigint": "SELECT * FROM VALUES (1), (2L) AS t(v)",
    "decimals": "SELECT * FROM VALUES (0.1), (1.25) AS t(v)",
    "nan_and_decimal": "SELECT * FROM VALUES (float('NaN')), (0.5) AS t(v)",
    "nulls": "SELECT * FROM VALUES (1, 'a'), (NULL, NULL) AS t(v, s)",
    "date_and_timestamp": "SELECT * FROM VALUES (DATE'2024-01-01'), (TIMESTAMP'2024-01-02 03:04:05') AS t(v)",
}


@pytest.mark.parametrize("case", sorted(VALUES_TYPES))
def test_values_types(spark, expected, case):
    expected.check(spark.sql(VALUES_TYPES[case]), name=case)
