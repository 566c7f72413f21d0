"""Nullability inside nested values as Spark reports it (`containsNull`, struct fields'
`nullable`, `valueContainsNull`): constructors (`array`, `named_struct`, `struct`, `map`), VALUES
and UNION of them, CASE/`if`/`coalesce` (merged over their values), casts, time window keys
(never NULL), `inline_outer`; schemas and rows recorded from real Spark 4.3."""

import datetime

import pytest
from pyspark.sql import functions as F

from conftest import cases

SQL = {
    "constructors": "SELECT array(1, 2) a, array(1, NULL) b, named_struct('a', 1, 'b', CAST(NULL AS INT)) c, "
    "struct(id, CAST(NULL AS STRING)) d, array(id) g, named_struct('x', nullif(id, 0)) h FROM range(2)",
    "maps": "SELECT map('a', 1) e, map('a', NULL) f, map('k', array(1)) g",
    "values": 'SELECT * FROM VALUES (1,ARRAY(NAMED_STRUCT("a",1,"b",2), NULL, NAMED_STRUCT("a",3,"b",4))), (2,ARRAY()), (3,NULL) AS t(i,s)',
    "values_merged": "SELECT * FROM VALUES (array(1)), (array(CAST(NULL AS INT))) t(a)",
    "conditionals": "SELECT CASE WHEN id > 0 THEN array(1) ELSE array(NULL) END a, CASE WHEN id > 0 THEN array(1) ELSE array(2) END b, "
    "coalesce(array(1), array(2)) c, if(id > 0, named_struct('a', 1), named_struct('a', NULL)) d FROM range(2)",
    "union": "SELECT array(1) a UNION ALL SELECT array(NULL)",
    "casts": "SELECT CAST(array(1,2) AS ARRAY<BIGINT>) a, CAST(named_struct('a',1) AS STRUCT<a: BIGINT>) b, CAST(map('a', 1) AS MAP<STRING, BIGINT>) c",
    "nested": "SELECT array(array(1)) a, struct(array(1)) b, array(named_struct('a', 1)) e",
    "functions_of_constructors": "SELECT array_append(array(1), 2) a, array_append(array(1), CAST(NULL AS INT)) b, "
    "array_prepend(array(1), CAST(NULL AS INT)) c, array_insert(array(1), 3, 5) d, array_union(array(1), array(CAST(NULL AS INT))) e, "
    "array_distinct(array(1, 1)) f, reverse(array(1, 2)) g, slice(array(1, 2, 3), 1, 2) h",
    "array_of_structs": "SELECT array(struct(1, 'a'), struct(2, NULL)) a, array(named_struct('a', 1), NULL) b, "
    "array(array(1), array(CAST(NULL AS INT))) c, array(array(1), NULL) d",
    "map_from_entries": "SELECT map_from_entries(array(struct(1, 'a'), struct(2, NULL))) m",
    "inline_outer": "SELECT inline_outer(array(named_struct('a', 1, 'b', 2)))",
    "concat": "SELECT concat(array(1), array(2)) d",
    # (One partition, and one value per set: the order of collected values is not defined.)
    "collect": "SELECT collect_list(id) a, collect_set(id % 1) b, array_agg(id) c FROM range(0, 3, 1, 1)",
    "collect_skips_nulls": "SELECT k, collect_list(x) a, collect_set(x) b FROM VALUES (1, 1), (1, NULL), (2, NULL) t(k, x) GROUP BY k ORDER BY k",
    "collect_window": "SELECT x, collect_list(x) OVER (ORDER BY x ROWS BETWEEN 1 FOLLOWING AND 2 FOLLOWING) w FROM VALUES (1), (NULL), (3) t(x)",
    "concat_nested": "SELECT concat(array(1), array(NULL)) e, concat(array(array(1)), array(array(NULL))) g",
    "maps_mixed": "SELECT map('a', 1, 'b', NULL) h, map(1, array(1), 2, array(NULL)) i",
    "maps_union": "SELECT * FROM VALUES (map('a', 1)), (map('b', 2)) t(m) UNION ALL SELECT map('c', NULL)",
    # (A map's entries through a lambda keep the struct fields' nullability.)
    "map_lambdas_keep_fields": "SELECT transform_values(m, (k, v) -> v) a, transform_values(m, (k, v) -> v.y) b, "
    "transform_keys(m, (k, v) -> v.y) c, map_filter(m, (k, v) -> true) d "
    "FROM (SELECT map('k', named_struct('x', 1, 'y', 'a')) m)",
    # (A field of a struct never NULL is as NULL-able as the field.)
    "struct_fields": "SELECT named_struct('a', named_struct('x', 1, 'y', CAST(NULL AS INT))).a.x p, "
    "named_struct('a', named_struct('x', 1, 'y', CAST(NULL AS INT))).a.y q, s.a.x r "
    "FROM (SELECT named_struct('a', named_struct('x', 1)) AS s UNION ALL SELECT NULL)",
    "array_sets_of_structs": "SELECT array_union(array(named_struct('x', 1)), array(named_struct('x', 2))) a, "
    "array_intersect(array(named_struct('x', 1)), array(named_struct('x', 1))) b, "
    "array_except(array(named_struct('x', 1)), array(named_struct('x', 2))) c, "
    "array_union(array(named_struct('x', 1)), array(named_struct('x', CAST(NULL AS INT)))) d",
    "map_concat_of_structs": "SELECT map_concat(map('k', named_struct('x', 1, 'y', 'a')), map('j', named_struct('x', 2, 'y', 'b'))) a, "
    "map_concat(map(1, named_struct('x', 1)), map(2, named_struct('x', CAST(NULL AS INT)))) b",
    # (The accumulator is the start's type, NULL-able everywhere; a merge that keeps fields
    # never NULL meets it.)
    "aggregate_nested": "SELECT aggregate(array(named_struct('x', 1)), named_struct('x', 0), (acc, a) -> a) a, "
    "aggregate(array(array(1)), array(0), (acc, a) -> a) b, "
    "reduce(array(named_struct('x', 1)), named_struct('x', 0), (acc, a) -> a, acc -> acc) c",
    # (Nested values that differ only in their nullability: merged, but `array_except`, which
    # keeps its first array's type.)
    "array_sets_nested": "SELECT array_union(array(array(1)), array(array(CAST(NULL AS INT)), NULL)) a, "
    "array_intersect(array(array(1), NULL), array(array(1))) b, "
    "array_except(array(named_struct('x', array(1))), array(named_struct('x', array(CAST(NULL AS INT))))) c, "
    "array_except(array(named_struct('x', array(CAST(NULL AS INT)))), array(named_struct('x', array(1)))) d, "
    "array_intersect(array(named_struct('x', array(1))), array(named_struct('x', array(CAST(NULL AS INT))), named_struct('x', array(1)))) e, "
    "array_except(array(array(1), array(2)), array(array(2), NULL)) f, array_except(array(array(1), NULL), array(array(CAST(NULL AS INT)))) g",
    "map_concat_nested": "SELECT map_concat(map(1, array(1)), map(2, array(CAST(NULL AS INT))), map(3, NULL)) a, "
    "map_concat(map(1, map('a', 1)), map(2, map('b', CAST(NULL AS INT)))) b",
    "map_lambdas_nested": "SELECT transform_values(map('k', map('a', named_struct('x', 1))), (k, v) -> transform_values(v, (k2, v2) -> v2.x)) a, "
    "map_filter(map('k', array(1, 2)), (k, v) -> size(v) > 1) b, transform_keys(map(named_struct('a', 1), 1), (k, v) -> k.a) c, "
    "aggregate(array(named_struct('x', array(1))), named_struct('x', array(0)), (acc, a) -> a) d, "
    "aggregate(array(map('a', 1)), map('b', 2), (acc, a) -> map_concat(acc, a)) e",
    "map_lambdas_of_column": "SELECT transform_values(m, (k, v) -> v) a FROM VALUES (map('k', named_struct('x', 1))), (map('j', named_struct('x', NULL))), (NULL) t(m)",
}

# Maps whose values are never NULL through functions that take their entries apart.
MAP_FLOW = {
    "lambdas": "SELECT map_filter(map('a', 1, 'b', 2), (k, v) -> v > 1) f, transform_values(map('a', 1), (k, v) -> v * 10) v, "
    "transform_keys(map('z', 0), (k, v) -> upper(k)) k",
    "explode": "SELECT explode(map('a', 1, 'b', 2))",
    "posexplode": "SELECT posexplode(map('a', 1))",
    "columns": "SELECT map_filter(m, (k, v) -> v > 1) f, m['b'] b, map_values(m) v FROM VALUES (map('a', 1, 'b', 2)), (map('z', 0)) t(m)",
}


@pytest.mark.parametrize("case", sorted(MAP_FLOW))
def test_map_values_flow(spark, expected, case):
    expected.check(spark.sql(MAP_FLOW[case]), name=case, nullability=True)

# What Ember still reports otherwise (nullable where Spark says not; never the reverse).
GAPS = {}


@pytest.mark.parametrize("case", cases(SQL, GAPS))
def test_sql(spark, expected, case):
    expected.check(spark.sql(SQL[case]), name=case, nullability=True)


def test_window_keys(spark, expected):
    df = spark.createDataFrame([(datetime.datetime(2016, 3, 11, 9, 0, 7), 1)], ["dt", "v"])
    expected.check(df.groupBy(F.window("dt", "5 seconds")).agg(F.sum("v")), name="window", nullability=True)
    df = spark.createDataFrame([("2016-03-11 09:00:07", 1)], ["dt", "v"])
    expected.check(df.groupBy(F.session_window("dt", "5 seconds")).agg(F.sum("v")), name="session_window", nullability=True)


def test_dataframe_constructors(spark, expected):
    df = spark.range(2).select(
        F.array(F.lit(1), F.col("id")).alias("a"),
        F.struct(F.col("id"), F.lit(None).cast("string").alias("n")).alias("s"),
        F.when(F.col("id") > 0, F.array(F.lit(1))).otherwise(F.array(F.lit(None).cast("int"))).alias("w"),
    )
    expected.check(df, nullability=True)
