"""Array, map and struct functions with Spark's semantics; answers recorded from real Spark."""

import pytest
from pyspark.sql import functions as F

from conftest import cases

SQL = {
    "array": "SELECT array(1, 2, NULL) a, array() b, array('a', 'b') c, array(1, 2.5) d",
    "size": "SELECT size(array(1, 2)) a, size(map(1, 'a')) b, cardinality(array()) c, array_size(array(1, NULL)) d",
    "array_contains": "SELECT array_contains(array(1, 2), 2) a, array_contains(array(1, NULL), 3) b, "
    "array_contains(array(1, 2), 3) c",
    # Numbers of different types meet in Spark's wider type (a decimal and an integer array).
    "array_contains_wider": "SELECT array_contains(array(3, 1, 2), CAST(12.345 AS DECIMAL(10,3))) a, "
    "array_contains(array(3, 1, 2), CAST(3 AS DECIMAL(10,3))) b, array_contains(array(3.5D, 1D), CAST(3.5 AS DECIMAL(10,3))) c, "
    "array_contains(array(CAST(3 AS DECIMAL(5,1))), 3) d, array_contains(array(CAST(3 AS DECIMAL(5,1))), 3L) e, "
    "array_contains(array(1L, 2L), 2) f, array_contains(c0, c1) g "
    "FROM VALUES (array(1, 2, NULL), CAST(2 AS DECIMAL(3,0))), (array(1), CAST(NULL AS DECIMAL(3,0))) AS t(c0, c1)",
    # An untyped NULL among the arrays: NULL, its struct field of no type.
    "arrays_zip_of_null": "SELECT arrays_zip(NULL, array(3, 1, 2)) r, arrays_zip(array('a'), NULL) s, arrays_zip(c, NULL) t "
    "FROM VALUES (array(1)) AS u(c)",
    "array_position": "SELECT array_position(array(3, 2, 1, 2), 2) a, array_position(array(1), 5) b",
    "element_at": "SELECT element_at(array(1, 2, 3), 1) a, element_at(array(1, 2, 3), -1) b, "
    "element_at(map('a', 1), 'a') c, try_element_at(array(1), 5) d, array(1, 2)[0] e",
    "array_set_ops": "SELECT array_distinct(array(1, 2, 2, NULL, NULL)) a, array_union(array(1, 2), array(2, 3)) b, "
    "array_intersect(array(1, 2, 3), array(3, 1)) c, array_except(array(1, 2, 3), array(2)) d",
    "arrays_overlap": "SELECT arrays_overlap(array(1, 2), array(2, 3)) a, arrays_overlap(array(1), array(2)) b",
    "array_remove": "SELECT array_remove(array(1, 2, 1, NULL), 1) a, array_compact(array(1, NULL, 2)) b",
    "array_min_max": "SELECT array_min(array(3, NULL, 1)) a, array_max(array('a', 'c', 'b')) b",
    "array_join": "SELECT array_join(array('a', NULL, 'b'), ',') a, array_join(array('a', NULL, 'b'), ',', '?') b",
    "sort_array": "SELECT sort_array(array(3, NULL, 1)) a, sort_array(array(3, NULL, 1), false) b, "
    "array_sort(array(3, NULL, 1)) c",
    "slice": "SELECT slice(array(1, 2, 3, 4), 2, 2) a, slice(array(1, 2, 3, 4), -2, 5) b",
    "flatten": "SELECT flatten(array(array(1, 2), array(3))) a, flatten(array(array(1), NULL)) b",
    "nested_sizes": "SELECT array_size(array(array(1, 2), array(3))) a, array_insert(array(array(1), array(2, 3)), -1, array(4)) b",
    "array_repeat": "SELECT array_repeat('x', 3) a, array_repeat(1, 0) b",
    "append_prepend": "SELECT array_append(array(1, 2), 3) a, array_prepend(array(1, 2), 0) b, "
    "array_insert(array(1, 2, 3), 2, 9) c, array_insert(array(1, 2), -1, 9) d",
    "arrays_zip": "SELECT arrays_zip(array(1, 2), array('a', 'b', 'c')) a",
    "sequence": "SELECT sequence(1, 5) a, sequence(5, 1) b, sequence(1, 10, 3) c, "
    "sequence(DATE'2024-01-01', DATE'2024-03-01', INTERVAL 1 MONTH) d",
    "reverse_array": "SELECT reverse(array(1, 2, 3)) a, concat(array(1), array(2, 3)) b",
    "map": "SELECT map('a', 1, 'b', 2) a, map_keys(map('a', 1, 'b', 2)) b, map_values(map('a', 1)) c",
    "map_from": "SELECT map_from_arrays(array('a', 'b'), array(1, 2)) a, map_from_entries(array(struct('x', 1))) b",
    "map_concat": "SELECT map_concat(map('a', 1), map('b', 2)) a",
    "map_contains_key": "SELECT map_contains_key(map('a', 1), 'a') a, map_contains_key(map('a', 1), 'b') b",
    "map_entries": "SELECT map_entries(map('a', 1, 'b', 2)) a",
    # A map function's values are NULL-able where its arguments' are (map_concat, map_from_*,
    # map_entries), as Spark types them.
    "map_values_nullability": "SELECT map_concat(map('a', 1), map('b', 2)) a, map_concat(map('a', 1), map('b', NULL)) b, "
    "map_concat(map(1, 'a'), map()) c, map_from_arrays(array('a', 'b'), array(1, 2)) d, map_from_arrays(array('a'), array(NULL)) e, "
    "map_from_entries(array(struct('x', 1))) f, map_entries(map('a', 1, 'b', 2)) g, map_entries(map('a', NULL)) h, "
    "map_concat(m, n) i, map_entries(m) j, map_concat(map(), map()) k FROM (SELECT map('k', id) m, map('j', id) n FROM range(1))",
    "map_subscript": "SELECT map('a', 1)['a'] a, map('a', 1)['z'] b",
    "str_to_map": "SELECT str_to_map('a:1,b:2') a, str_to_map('a=1;b=2', ';', '=') b",
    "struct": "SELECT struct(1 AS x, 'a' AS y) a, named_struct('p', 1, 'q', array(2)) b, struct(1, 'b').col2 c",
    "struct_field": "SELECT s.x, s.y FROM (SELECT named_struct('x', 1, 'y', 'z') s)",
    "explode": "SELECT explode(array(1, 2)) v",
    "posexplode": "SELECT posexplode(array('a', 'b'))",
    "explode_map": "SELECT explode(map('a', 1, 'b', 2))",
    "inline": "SELECT inline(array(struct(1, 'a'), struct(2, 'b')))",
    "explode_outer": "SELECT id, explode_outer(a) FROM VALUES (1, array(1)), (2, CAST(NULL AS ARRAY<INT>)) AS t(id, a)",
    "get": "SELECT get(array(1, 2), 1) a, get(array(1, 2), 5) b",
    "shuffle_shape": "SELECT size(shuffle(array(1, 2, 3))) a, array_sort(shuffle(array(3, 1, 2))) b",
}


SQL["concat_null_array"] = "SELECT concat(CAST(NULL AS ARRAY<INT>), array(9)) a, concat(array(1), array(2)) b"
# The items of the arrays the array functions make are NULL-able as Spark types them.
SQL["array_items_nullability"] = (
    "SELECT array_union(array(1, NULL), array(2)) u, array_intersect(array(1, NULL), array(2)) i, "
    "array_intersect(array(1, NULL), array(NULL)) i2, array_except(array(1), array(NULL)) e, "
    "array_except(array(NULL, 1), array(1)) e2, flatten(array(array(1, NULL), array(2))) f, "
    "arrays_zip(array(array(1)), array('a')) z, array_repeat(CAST(NULL AS INT), 2) r, array_repeat(x, 2) r2 "
    "FROM VALUES (1) t(x)"
)
SQL["insert_concat_sort_nullability"] = (
    "SELECT array_insert(array(1), 5, 2) a, array_insert(array(1), CAST(NULL AS INT), 2) b, "
    "array_insert(array(1), 1, CAST(NULL AS INT)) c, array(1) || array(NULL) d, array(1) || array(2) d2, "
    "array_sort(array(1), (l, r) -> 0) s, array_sort(CAST(NULL AS ARRAY<INT>), (l, r) -> 0) s2"
)
# str_to_map's delimiters are Java regular expressions (Spark splits with them), empty pairs kept.
SQL["str_to_map_patterns"] = (
    r"SELECT str_to_map('a:1, b:2', ',\\s*', ':') a, str_to_map('a=1,b=2', '[,]', '=') b, str_to_map('ab', '', '=') c, "
    r"str_to_map('a1b', 'x*', '=') d, str_to_map('a=1', ',', '') e, str_to_map('a=1,,b=2', ',', '=') f, "
    r"str_to_map('') g, str_to_map('a=1=2', ',', '=') h, str_to_map('é=1|ü=2', '\\|', '=') i, str_to_map(NULL) j"
)

SQL_GAPS = {
}


@pytest.mark.parametrize("case", cases(SQL, SQL_GAPS))
def test_sql(spark, expected, case):
    expected.check(spark.sql(SQL[case]), name=case)


@pytest.fixture
def rows(spark):
    return spark.createDataFrame(
        [(1, [3, 1, 2], {"a": 1}, ("x", 1)), (2, [], {}, ("y", None)), (3, None, None, None)],
        "id INT, a ARRAY<INT>, m MAP<STRING, INT>, s STRUCT<n: STRING, v: INT>",
    )


FRAME = {
    "size": lambda: F.size("a"),
    "sort_array": lambda: F.sort_array("a"),
    "array_contains": lambda: F.array_contains("a", 2),
    "try_element_at": lambda: F.try_element_at("a", F.lit(1)),
    "map_key": lambda: F.col("m")["a"],
    "map_keys": lambda: F.map_keys("m"),
    "struct_field": lambda: F.col("s.n"),
    "getfield": lambda: F.col("s").getField("v"),
    "create_map": lambda: F.create_map(F.lit("k"), "id"),
    "array_cols": lambda: F.array("id", F.lit(0)),
    "struct": lambda: F.struct("id", F.col("s.n").alias("n")),
    "nested_field_in_call": lambda: F.concat(F.upper("s.n"), F.col("s.n"), F.lit("-")),
    "nested_field_in_struct": lambda: F.struct("s.n", "s.v"),
    "with_field": lambda: F.col("s").withField("w", F.lit(1)),
    "drop_fields": lambda: F.col("s").dropFields("v"),
    "with_field_replace": lambda: F.col("s").withField("n", F.lit("new")),
    "with_field_nested": lambda: F.struct(F.col("s").alias("inner")).withField("inner.z", F.lit("q")),
    "with_fields_chained": lambda: F.col("s").withField("a", F.lit(1)).withField("b", F.col("id")).dropFields("n"),
    # A later withField of a field replaces the earlier one (in name and value).
    "with_field_twice": lambda: F.col("s").withField("n", F.lit(1)).withField("n", F.lit(2)),
    "with_field_then_nested": lambda: F.col("s").withField("t", F.struct(F.lit(1).alias("u"))).withField("t.k", F.lit(2)),
    "with_field_replaced_in_place": lambda: F.col("s").withField("v", F.lit(0)).withField("t", F.struct(F.lit(1).alias("u"))).withField("v", F.lit(9)),
    "array_max": lambda: F.array_max("a"),
    "array_append": lambda: F.array_append("a", F.lit(9)),
    "array_join": lambda: F.array_join(F.col("a").cast("array<string>"), "-"),
    "slice": lambda: F.slice("a", 1, 2),
    "array_distinct": lambda: F.array_distinct(F.concat("a", "a")),
    "map_values": lambda: F.map_values("m"),
}


FRAME_GAPS = {}


@pytest.mark.parametrize("case", cases(FRAME, FRAME_GAPS))
def test_dataframe(rows, expected, case):
    expected.check(rows.select("id", FRAME[case]()), name=case)


def test_explode_frame(rows, expected):
    expected.check(rows.select("id", F.explode("a")), name="explode")
    expected.check(rows.select("id", F.posexplode_outer("a")), name="posexplode_outer")
    expected.check(rows.select("id", F.explode("m")), name="explode_map")


ERRORS = {
    "index_out_of_bounds": "SELECT element_at(array(1), 5)",
    "subscript_out_of_bounds": "SELECT array(1)[3]",
    "map_key_missing": "SELECT element_at(map('a', 1), 'b')",
    "duplicate_map_key": "SELECT map('a', 1, 'a', 2)",
    "wrong_type": "SELECT array_contains(1, 1)",
}


ERRORS["str_to_map_bad_pattern"] = "SELECT str_to_map('a=1', '(', '=')"
ERRORS["str_to_map_duplicate_key"] = "SELECT str_to_map('a=1,a=2', ',', '=')"

ERRORS_GAPS = {
}


@pytest.mark.parametrize("case", cases(ERRORS, ERRORS_GAPS))
def test_errors(spark, expected, case):
    expected.check_error(lambda: spark.sql(ERRORS[case]).collect(), name=case)


def test_map_key_dedup_policy(spark, expected):
    # spark.sql.mapKeyDedupPolicy: duplicate map keys are an error (EXCEPTION, the default) or
    # the last one wins (LAST_WIN), in map, map_concat, map_from_arrays, map_from_entries and
    # str_to_map.
    from pyspark.sql import functions as F

    query = (
        "SELECT map(1, 'a', 1, 'b') m, map_concat(map(1, 'a', 2, 'b'), map(2, 'c', 3, 'd')) c, "
        "map_from_arrays(array(1, 1), array('x', 'y')) fa, map_from_entries(array(struct(1, 'a'), struct(1, 'b'))) fe, "
        "str_to_map('a:1,a:2') sm"
    )
    expected.check_value(spark.conf.get("spark.sql.mapKeyDedupPolicy"), name="default")
    expected.check_error(lambda: spark.sql("SELECT map(1, 'a', 1, 'b')").collect(), name="map")
    expected.check_error(lambda: spark.sql("SELECT map_concat(map(1, 'a', 2, 'b'), map(2, 'c', 3, 'd'))").collect(), name="map_concat")
    expected.check_error(lambda: spark.conf.set("spark.sql.mapKeyDedupPolicy", "whatever"), name="bad_value")
    spark.conf.set("spark.sql.mapKeyDedupPolicy", "LAST_WIN")
    try:
        expected.check(spark.sql(query), name="last_win")
        expected.check(spark.sql("SELECT map_keys(map(1, 'a', 1, 'b')), map_values(map(1, 'a', 1, 'b'))"), name="keys")
        expected.check(spark.range(2).select(F.create_map(F.lit(1), "id", F.lit(1), F.lit(9))), name="create_map")
    finally:
        spark.conf.unset("spark.sql.mapKeyDedupPolicy")
