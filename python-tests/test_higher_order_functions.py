"""Higher-order functions with lambda functions (`transform`, `filter`, `exists`, `forall`),
from the DataFrame API and from SQL, answers recorded from real Spark."""

import pytest
from pyspark.sql import functions as F


@pytest.fixture
def arrays(spark):
    return spark.createDataFrame(
        [(1, [1, 2, None], [(1, "a"), (2, "b")]), (2, [], []), (3, None, None), (4, [5, -1], [(None, "z")])],
        "id INT, a ARRAY<INT>, s ARRAY<STRUCT<k: INT, v: STRING>>",
    )


FRAME = {
    "transform": lambda c: F.transform("a", lambda x: x + 1),
    "transform_cast": lambda c: F.transform("a", lambda x: F.concat(F.lit("v"), x.cast("string"))),
    "transform_column": lambda c: F.transform("a", lambda x: x * c.id),
    "transform_struct_field": lambda c: F.transform("s", lambda x: x.v),
    "filter": lambda c: F.filter("a", lambda x: x > 1),
    "filter_nulls": lambda c: F.filter("a", lambda x: x.isNotNull()),
    "exists": lambda c: F.exists("a", lambda x: x > 1),
    "forall": lambda c: F.forall("a", lambda x: x > 0),
    "nested": lambda c: F.transform("a", lambda x: F.exists("a", lambda y: y > x)),
    "filter_structs": lambda c: F.filter("s", lambda x: x.k.isNull()),
    "transform_index": lambda c: F.transform("a", lambda x, i: x * 10 + i),
    "filter_index": lambda c: F.filter("a", lambda x, i: i > 0),
    "zip_with": lambda c: F.zip_with("a", F.array(F.lit(10), F.lit(20)), lambda x, y: x + y),
    "aggregate": lambda c: F.aggregate("a", F.lit(0), lambda acc, x: acc + F.coalesce(x, F.lit(0))),
    "aggregate_finish": lambda c: F.aggregate("a", F.lit(0), lambda acc, x: acc + x, lambda acc: acc * 2),
    "aggregate_column": lambda c: F.aggregate("a", c.id, lambda acc, x: acc + F.coalesce(x, c.id)),
    "reduce_strings": lambda c: F.reduce("s", F.lit(""), lambda acc, x: F.concat(acc, x.v)),
    "array_sort_default": lambda c: F.array_sort("a"),
    "array_sort_comparator": lambda c: F.array_sort(
        "s", lambda l, r: F.when(l.v < r.v, 1).when(l.v > r.v, -1).otherwise(0)
    ),
}


@pytest.mark.parametrize("case", sorted(FRAME))
def test_dataframe_functions(arrays, expected, case):
    expected.check(arrays.select("id", FRAME[case](arrays)), name=case)


SQL = {
    "all_four": "SELECT transform(array(1, 2), x -> x * 10) t, filter(array(1, NULL, 3), x -> x > 1) f, "
    "exists(array(1, 2), x -> x = 2) e, forall(array(1, NULL), x -> x > 0) fa",
    "column_in_body": "SELECT id, transform(a, x -> x + id) FROM VALUES (1, array(1, 2)), (2, array(3)) AS t(id, a)",
    # A lambda variable shadows a column of the same name.
    "shadowing": "SELECT transform(a, id -> id * 2) FROM VALUES (1, array(1, 2)) AS t(id, a)",
    "nested": "SELECT transform(array(array(1, 2), array(3)), xs -> transform(xs, x -> x + size(xs))) n",
    "exists_subquery_still_works": "SELECT id FROM range(3) WHERE EXISTS (SELECT 1) AND NOT EXISTS(SELECT 1 WHERE false)",
    "in_where": "SELECT id FROM VALUES (1, array(1, 5)), (2, array(2)) AS t(id, a) WHERE exists(a, x -> x > 4)",
    "transform_index": "SELECT transform(array('a', 'b', 'c'), (x, i) -> concat(x, i)) t, transform(array(), (x, i) -> i) e",
    "filter_index": "SELECT filter(array(5, 6, 7, 8), (x, i) -> i % 2 = 0) f",
    "transform_index_nested": "SELECT transform(array(array(1, 2), array(3)), (x, i) -> size(x) * 10 + i) t",
    "zip_with": "SELECT zip_with(array(1, 2, 3), array('a', 'b'), (x, y) -> concat(y, x)) z",
    "map_filter": "SELECT map_filter(map('a', 1, 'b', 2, 'c', 3), (k, v) -> v > 1 AND k <> 'c') m",
    "transform_values": "SELECT transform_values(map('a', 1, 'b', 2), (k, v) -> v * 10) m",
    "transform_keys": "SELECT transform_keys(map('a', 1, 'b', 2), (k, v) -> upper(k)) m",
    # The values map_filter and transform_keys keep are NULL-able as the input's.
    "kept_map_values_nullability": "SELECT map_filter(map('a', 1, 'b', 2), (k, v) -> v > 1) a, "
    "map_filter(map('a', 1, 'b', NULL), (k, v) -> k = 'a') b, transform_keys(map('a', 1), (k, v) -> upper(k)) c, "
    "transform_keys(map('a', NULL), (k, v) -> upper(k)) d, map_filter(m, (k, v) -> v >= 0) e, "
    "transform_keys(m, (k, v) -> concat(k, 'x')) f FROM (SELECT map('k', id) m FROM range(2))",
    "map_functions_on_columns": "SELECT id, map_filter(m, (k, v) -> v > id), transform_values(m, (k, v) -> k || v) "
    "FROM VALUES (1, map('x', 1, 'y', 2)), (2, map('z', 5)) AS t(id, m)",
    "aggregate": "SELECT aggregate(array(1, 2, 3), 0, (acc, x) -> acc + x) a, aggregate(array(1, 2, 3), 0L, (acc, x) -> acc + x) b, "
    "aggregate(array(1, NULL, 3), 0, (acc, x) -> acc + x) n, aggregate(array(), 5, (acc, x) -> acc) e",
    "aggregate_finish": "SELECT aggregate(array(1.5D, 2.5D), 0D, (acc, x) -> acc + x, acc -> acc * 10) f, "
    "reduce(array(1, 2, 3), 0, (acc, x) -> acc + x, acc -> acc * 10) r",
    "aggregate_struct": "SELECT aggregate(array(1, 2), named_struct('s', 0, 'c', 0), "
    "(acc, x) -> named_struct('s', acc.s + x, 'c', acc.c + 1), acc -> acc.s / acc.c) avg",
    "aggregate_null_array": "SELECT aggregate(a, 0, (acc, x) -> acc + x) s FROM VALUES (array(1, 2)), (CAST(NULL AS ARRAY<INT>)), (array(7)) AS t(a)",
    "map_zip_with": "SELECT map_zip_with(map(1, 'a', 2, 'b'), map(1, 'x', 3, 'y'), (k, v1, v2) -> concat(v1, v2)) m",
    "map_zip_with_sum": "SELECT map_zip_with(map('a', 1), map('a', 2, 'b', 3), (k, v1, v2) -> coalesce(v1, 0) + coalesce(v2, 0)) AS m",
    "map_zip_with_null": "SELECT map_zip_with(CAST(NULL AS MAP<INT, INT>), map(1, 2), (k, v1, v2) -> v2) m",
    "cast_to_map": "SELECT CAST(map(1, 2) AS MAP<INT,BIGINT>) m, CAST(NULL AS ARRAY<MAP<STRING, INT>>) a",
    # A comparator: sorted as Java's sort with it sorts (even one that is no total order).
    "array_sort_comparator": "SELECT array_sort(array(3, 1, NULL, 2), (l, r) -> CASE WHEN l < r THEN 1 WHEN l > r THEN -1 "
    "ELSE 0 END) a, array_sort(array('bc', 'a', 'def', 'gh'), (l, r) -> length(l) - length(r)) b, "
    "array_sort(array(5, 3, 9), (x, y) -> y - x) c",
    "array_sort_comparator_rows": "SELECT array_sort(a, (l, r) -> l - r) s FROM VALUES (array(3, 1, 2)), (NULL), (array()), "
    "(array(7)) t(a)",
    "array_sort_structs": "SELECT array_sort(array(named_struct('k', 2, 'v', 'x'), named_struct('k', 1, 'v', 'y')), "
    "(l, r) -> l.k - r.k) a",
    "array_sort_long": "SELECT array_sort(sequence(1, 100), (l, r) -> (r % 7) - (l % 7)) a",
    # Lambda variables and the values lambdas make, NULL-able as Spark types them: an element's
    # position never NULL, a map's key never, its value as the map's.
    "lambda_variables_nullability": "SELECT transform(array(1, NULL), (x, i) -> x + i) a, "
    "transform(array(1, 2), (x, i) -> x + i) b, filter(array(1, NULL), (x, i) -> i > 0) c, "
    "transform_values(map('a', 1), (k, v) -> CAST(NULL AS INT)) d, transform_values(map('a', 1, 'b', NULL), (k, v) -> k) d2, "
    "transform_values(map('a', 1, 'b', NULL), (k, v) -> v) d3, map_zip_with(map('a', 1), map('a', 2), (k, a, b) -> a + b) m, "
    "map_filter(map('a', 1), (k, v) -> k IS NOT NULL) mf",
}


@pytest.mark.parametrize("case", sorted(SQL))
def test_sql_functions(spark, expected, case):
    expected.check(spark.sql(SQL[case]), name=case)


def test_errors(spark, expected):
    expected.check_error(lambda: spark.sql("SELECT transform(1, x -> x)").collect(), name="not_an_array")
    expected.check_error(
        lambda: spark.sql("SELECT aggregate(array(1.5, 2.5), 0, (acc, x) -> acc + x)").collect(), name="fold_type_changes"
    )
