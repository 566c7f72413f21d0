"""Spark's DataSketches functions: HLL (`hll_*`), Theta (`theta_*`) and KLL (`kll_*`) sketches
built, combined and read; estimates, quantiles, ranks, sketch images (Spark's own images read
back), names and errors recorded from real Spark."""

import pytest
from pyspark.sql import functions as F

from conftest import cases

# Sketch images written by Spark 4.3 (hex), read back by Ember.
SPARK_HLL = "0201070C030002082BF2FB06862FF90D000000000000000000000000000000000000000000000000"
SPARK_THETA = "0104033D011ACC93022D0C35EE5BEFC8AE3EFA70D1DFA7AB80"
SPARK_KLL = (
    "05010F00C80008000300000000000000C8000100C5000000010000000000000003000000000000000200000000000000"
    "03000000000000000100000000000000"
)

SQL = {
    # HLL
    "hll_estimate": "SELECT hll_sketch_estimate(hll_sketch_agg(col)) n FROM VALUES (1), (1), (2), (2), (3) tab(col)",
    "hll_names": "SELECT hll_sketch_estimate(hll_sketch_agg(col)), hll_sketch_estimate(hll_sketch_agg(col, 10)) "
    "FROM VALUES (1), (2) tab(col)",
    "hll_image": "SELECT hex(hll_sketch_agg(col)) a, hex(hll_sketch_agg(col, 4)) b FROM VALUES (1), (2) tab(col)",
    "hll_empty": "SELECT hll_sketch_agg(col) s, hll_sketch_estimate(hll_sketch_agg(col)) n FROM VALUES (1) tab(col) WHERE col > 5",
    "hll_strings": "SELECT hll_sketch_estimate(hll_sketch_agg(col)) n FROM VALUES ('a'), (''), ('b'), (NULL), ('a') tab(col)",
    "hll_binary": "SELECT hll_sketch_estimate(hll_sketch_agg(col)) n FROM VALUES (X'01'), (X''), (X'02') tab(col)",
    "hll_bigint_and_int": "SELECT hll_sketch_estimate(hll_sketch_agg(CAST(col AS BIGINT))) a, "
    "hll_sketch_estimate(hll_union(hll_sketch_agg(CAST(col AS BIGINT)), hll_sketch_agg(col))) b FROM VALUES (1), (2), (3) tab(col)",
    "hll_large": "SELECT hll_sketch_estimate(hll_sketch_agg(id)) a, hll_sketch_estimate(hll_sketch_agg(id, 10)) b, "
    "hll_sketch_estimate(hll_sketch_agg(CAST(id AS STRING), 10)) c FROM range(100000)",
    "hll_union": "SELECT hll_sketch_estimate(hll_union(hll_sketch_agg(id), hll_sketch_agg(id + 5))) n FROM range(10)",
    "hll_union_different_allowed": "SELECT hll_sketch_estimate(hll_union(hll_sketch_agg(id), hll_sketch_agg(id + 5, 5), true)) n FROM range(10)",
    "hll_union_null": "SELECT hll_sketch_estimate(hll_union(hll_sketch_agg(id), NULL)) n, hll_sketch_estimate(NULL) m FROM range(10)",
    "hll_union_agg": "SELECT hll_sketch_estimate(hll_union_agg(s, true)) n FROM (SELECT hll_sketch_agg(id) s FROM range(10) "
    "UNION ALL SELECT hll_sketch_agg(id, 20) FROM range(5, 20))",
    "hll_union_agg_groups": "SELECT k, hll_sketch_estimate(hll_union_agg(s)) n FROM (SELECT id % 3 k, hll_sketch_agg(id) s "
    "FROM range(30) GROUP BY id % 3, id % 2) GROUP BY k ORDER BY k",
    "hll_union_agg_empty": "SELECT hll_sketch_estimate(hll_union_agg(s)) n FROM (SELECT hll_sketch_agg(id) s FROM range(10) WHERE id < 0)",
    "hll_grouped": "SELECT id % 4 k, hll_sketch_estimate(hll_sketch_agg(id % 7)) n FROM range(100) GROUP BY id % 4 ORDER BY k",
    "hll_spark_image": f"SELECT hll_sketch_estimate(X'{SPARK_HLL}') a, "
    f"hll_sketch_estimate(hll_union(X'{SPARK_HLL}', hll_sketch_agg(col))) b FROM VALUES (2), (3) tab(col)",
    "hll_types": "SELECT typeof(hll_sketch_agg(1)) a, typeof(hll_sketch_estimate(hll_sketch_agg(1))) b",
    # Theta
    "theta_estimate": "SELECT theta_sketch_estimate(theta_sketch_agg(col)) n FROM VALUES (1), (1), (2), (2), (3) tab(col)",
    "theta_image": "SELECT hex(theta_sketch_agg(col)) a FROM VALUES (1), (2) tab(col)",
    "theta_empty_image": "SELECT hex(theta_sketch_agg(col)) a, hex(theta_intersection_agg(s)) b "
    "FROM (SELECT col, X'01' s FROM VALUES (1) tab(col) WHERE col > 5)",
    "theta_doubles": "SELECT theta_sketch_estimate(theta_sketch_agg(col)) n FROM VALUES (1.5D), (2D), (-0.0D), (0.0D), (1.5D) tab(col)",
    "theta_floats": "SELECT theta_sketch_estimate(theta_sketch_agg(col)) n FROM VALUES (1.5F), (2F), (1.5F) tab(col)",
    "theta_strings": "SELECT theta_sketch_estimate(theta_sketch_agg(col)) n FROM VALUES ('a'), (''), ('b'), (NULL) tab(col)",
    "theta_arrays": "SELECT theta_sketch_estimate(theta_sketch_agg(a)) n, theta_sketch_estimate(theta_sketch_agg(b)) m "
    "FROM VALUES (array(1, 2), array(1L, 2L)), (array(1, 2), array(3L)), (array(3), array(3L)), (array(), array()) tab(a, b)",
    "theta_binary": "SELECT theta_sketch_estimate(theta_sketch_agg(col)) n FROM VALUES (X'01'), (X''), (X'02') tab(col)",
    "theta_large": "SELECT theta_sketch_estimate(theta_sketch_agg(id)) a, theta_sketch_estimate(theta_sketch_agg(id, 16)) b FROM range(100000)",
    "theta_set_operations": "SELECT theta_sketch_estimate(theta_union(a, b)) u, theta_sketch_estimate(theta_union(a, b, 20)) u20, "
    "theta_sketch_estimate(theta_intersection(a, b)) i, theta_sketch_estimate(theta_difference(a, b)) d, "
    "theta_sketch_estimate(theta_difference(b, a)) e "
    "FROM (SELECT theta_sketch_agg(id) a, theta_sketch_agg(id + 5) b FROM range(10))",
    "theta_set_images": "SELECT hex(theta_union(a, b)) u, hex(theta_intersection(a, b)) i, hex(theta_difference(a, b)) d "
    "FROM (SELECT theta_sketch_agg(col) a, theta_sketch_agg(col + 1) b FROM VALUES (1), (2) tab(col))",
    "theta_union_null": "SELECT theta_sketch_estimate(theta_union(theta_sketch_agg(id), NULL)) n FROM range(10)",
    "theta_union_agg": "SELECT theta_sketch_estimate(theta_union_agg(s)) u, theta_sketch_estimate(theta_intersection_agg(s)) i "
    "FROM (SELECT theta_sketch_agg(id) s FROM range(10) UNION ALL SELECT theta_sketch_agg(id, 20) FROM range(5, 20))",
    "theta_union_agg_lg": "SELECT theta_sketch_estimate(theta_union_agg(s, 5)) n FROM (SELECT theta_sketch_agg(id) s FROM range(10))",
    "theta_intersection_agg_empty": "SELECT theta_sketch_estimate(theta_intersection_agg(s)) n FROM (SELECT theta_sketch_agg(id) s FROM range(10) WHERE id < 0)",
    "theta_grouped": "SELECT id % 4 k, theta_sketch_estimate(theta_sketch_agg(id % 7)) n FROM range(100) GROUP BY id % 4 ORDER BY k",
    "theta_spark_image": f"SELECT theta_sketch_estimate(X'{SPARK_THETA}') a, "
    f"theta_sketch_estimate(theta_union(X'{SPARK_THETA}', theta_sketch_agg(col))) b FROM VALUES (2), (3) tab(col)",
    # KLL
    "kll_n": "SELECT kll_sketch_get_n_bigint(kll_sketch_agg_bigint(col)) n FROM VALUES (1), (2), (3) tab(col)",
    "kll_single_image": "SELECT hex(kll_sketch_agg_bigint(col)) a FROM VALUES (5) tab(col)",
    "kll_empty": "SELECT hex(kll_sketch_agg_bigint(col)) a, kll_sketch_get_n_bigint(kll_sketch_agg_bigint(col)) n "
    "FROM VALUES (5) tab(col) WHERE col > 10",
    "kll_quantiles": "SELECT kll_sketch_get_quantile_bigint(s, 0.5) a, kll_sketch_get_quantile_bigint(s, array(0.1, 0.5, 0.99)) b, "
    "kll_sketch_get_quantile_bigint(s, NULL) c, kll_sketch_get_quantile_bigint(s, 0.0) d, kll_sketch_get_quantile_bigint(s, 1.0) e "
    "FROM (SELECT kll_sketch_agg_bigint(id) s FROM range(1, 101))",
    "kll_ranks": "SELECT kll_sketch_get_rank_bigint(s, 50) a, kll_sketch_get_rank_bigint(s, array(1, 50, 1000)) b, "
    "kll_sketch_get_rank_bigint(s, CAST(NULL AS BIGINT)) c, kll_sketch_get_rank_bigint(s, 0) d "
    "FROM (SELECT kll_sketch_agg_bigint(id) s FROM range(1, 101))",
    "kll_doubles": "SELECT kll_sketch_get_quantile_double(s, 0.5) a, kll_sketch_get_rank_double(s, 2.5) b, "
    "kll_sketch_get_rank_double(s, 2) c, kll_sketch_get_n_double(s) n "
    "FROM (SELECT kll_sketch_agg_double(col) s FROM VALUES (1.0D), (2.0D), (4.0D), (CAST('NaN' AS DOUBLE)), (NULL) tab(col))",
    "kll_floats": "SELECT kll_sketch_get_quantile_float(s, 0.5) a, kll_sketch_get_quantile_float(s, array(0.0, 1.0)) b, "
    "kll_sketch_get_rank_float(s, 2.5) c, kll_sketch_get_n_float(s) n "
    "FROM (SELECT kll_sketch_agg_float(col) s FROM VALUES (1.0F), (2.0F), (4.0F) tab(col))",
    "kll_double_of_floats": "SELECT kll_sketch_get_n_double(kll_sketch_agg_double(col)) n FROM VALUES (1.5F), (2.5F) tab(col)",
    "kll_small_ints": "SELECT kll_sketch_get_n_bigint(kll_sketch_agg_bigint(CAST(col AS TINYINT))) a, "
    "kll_sketch_get_quantile_bigint(kll_sketch_agg_bigint(CAST(col AS SMALLINT)), 1.0) b FROM VALUES (1), (2) tab(col)",
    "kll_bigint_rank_of_fraction": "SELECT kll_sketch_get_rank_bigint(kll_sketch_agg_bigint(col), 2.5D) r FROM VALUES (1L), (3L) tab(col)",
    "kll_merge": "SELECT kll_sketch_get_n_bigint(kll_sketch_merge_bigint(s, s)) n, kll_sketch_get_quantile_bigint(kll_sketch_merge_bigint(s, s), 0.5) q "
    "FROM (SELECT kll_sketch_agg_bigint(id) s FROM range(1, 11))",
    "kll_merge_agg": "SELECT kll_sketch_get_n_bigint(kll_merge_agg_bigint(s)) n, kll_sketch_get_quantile_bigint(kll_merge_agg_bigint(s), 1.0) q "
    "FROM (SELECT kll_sketch_agg_bigint(id) s FROM range(10) UNION ALL SELECT kll_sketch_agg_bigint(id) FROM range(5))",
    "kll_merge_agg_k": "SELECT kll_sketch_get_n_bigint(kll_merge_agg_bigint(s, 300)) n FROM (SELECT kll_sketch_agg_bigint(id, 50) s FROM range(10))",
    "kll_merge_agg_empty": "SELECT kll_sketch_get_n_bigint(kll_merge_agg_bigint(s)) n FROM (SELECT kll_sketch_agg_bigint(id) s FROM range(4) WHERE id < 0)",
    "kll_grouped": "SELECT id % 3 k, kll_sketch_get_quantile_bigint(kll_sketch_agg_bigint(id), 1.0) mx, "
    "kll_sketch_get_n_bigint(kll_sketch_agg_bigint(id)) n FROM range(30) GROUP BY id % 3 ORDER BY k",
    "kll_to_string": "SELECT kll_sketch_to_string_bigint(kll_sketch_agg_bigint(id)) a FROM range(1, 4)",
    "kll_to_string_double": "SELECT kll_sketch_to_string_double(kll_sketch_agg_double(col)) a FROM VALUES (1.5D), (2.0D) tab(col)",
    "kll_to_string_float": "SELECT kll_sketch_to_string_float(kll_sketch_agg_float(col)) a FROM VALUES (1.5F) tab(col)",
    "kll_to_string_empty": "SELECT kll_sketch_to_string_bigint(kll_sketch_agg_bigint(id)) a FROM range(4) WHERE id < 0",
    "kll_spark_image": f"SELECT kll_sketch_get_n_bigint(X'{SPARK_KLL}') n, kll_sketch_get_quantile_bigint(X'{SPARK_KLL}', 0.5) q, "
    f"kll_sketch_get_n_bigint(kll_sketch_merge_bigint(X'{SPARK_KLL}', kll_sketch_agg_bigint(col))) m FROM VALUES (7L) tab(col)",
}

TUPLES = "VALUES (1, 1.0D), (1, 2.0D), (2, 3.0D), (3, NULL), (NULL, 4.0D) tab(k, v)"
PAIRS = "(SELECT tuple_sketch_agg_integer(k, v) a, tuple_sketch_agg_integer(k + 1, v) b, theta_sketch_agg(k + 1) t FROM VALUES (1, 1), (2, 3) tab(k, v))"
SQL.update(
    {
        # Tuple
        "tuple_estimate": f"SELECT tuple_sketch_estimate_double(tuple_sketch_agg_double(k, v)) e, "
        f"tuple_sketch_theta_double(tuple_sketch_agg_double(k, v)) t FROM {TUPLES}",
        "tuple_summary_modes": f"SELECT tuple_sketch_summary_double(tuple_sketch_agg_double(k, v)) s, "
        f"tuple_sketch_summary_double(tuple_sketch_agg_double(k, v, 12, 'min')) mn, "
        f"tuple_sketch_summary_double(tuple_sketch_agg_double(k, v, 12, 'max'), 'max') mx, "
        f"tuple_sketch_summary_double(tuple_sketch_agg_double(k, v, 12, 'alwaysone'), 'sum') one, "
        f"tuple_sketch_summary_double(tuple_sketch_agg_double(k, v), 'alwaysone') n FROM {TUPLES}",
        "tuple_integer": "SELECT tuple_sketch_summary_integer(tuple_sketch_agg_integer(k, v)) s, "
        "tuple_sketch_summary_integer(tuple_sketch_agg_integer(k, v, 12, 'min'), 'sum') mn, "
        "tuple_sketch_estimate_integer(tuple_sketch_agg_integer(k, v)) e "
        "FROM VALUES (1, 5), (1, 3), (2, 7), (2, CAST(1.9 AS DOUBLE)), (3, 4L) tab(k, v)",
        "tuple_integer_wraps": "SELECT tuple_sketch_summary_integer(tuple_sketch_agg_integer(k, v)) s "
        "FROM VALUES (1, 2147483647), (1, 1), (2, 2147483647) tab(k, v)",
        "tuple_keys": "SELECT tuple_sketch_estimate_double(tuple_sketch_agg_double(k, 1.0D)) e FROM VALUES ('a'), ('b'), (''), ('a') tab(k)",
        "tuple_double_keys": "SELECT tuple_sketch_estimate_double(tuple_sketch_agg_double(k, 1.0D)) e "
        "FROM VALUES (1.5F), (-0.0D), (0.0D), (2.5D) tab(k)",
        "tuple_empty": "SELECT tuple_sketch_summary_double(s) a, tuple_sketch_summary_double(s, 'min') b, "
        "tuple_sketch_estimate_double(s) c, tuple_sketch_theta_double(s) d "
        "FROM (SELECT tuple_sketch_agg_double(k, v) s FROM VALUES (1, 1.0D) tab(k, v) WHERE k > 4)",
        "tuple_large": "SELECT tuple_sketch_estimate_double(s) e, tuple_sketch_theta_double(s) t, tuple_sketch_summary_double(s) n "
        "FROM (SELECT tuple_sketch_agg_double(id, 1.0D, 8) s FROM range(1000))",
        "tuple_set_operations": f"SELECT tuple_sketch_summary_integer(tuple_union_integer(a, b)) u, "
        f"tuple_sketch_summary_integer(tuple_union_integer(a, b, 12, 'min')) umin, "
        f"tuple_sketch_estimate_integer(tuple_union_integer(a, b)) ue, "
        f"tuple_sketch_summary_integer(tuple_intersection_integer(a, b)) i, "
        f"tuple_sketch_summary_integer(tuple_intersection_integer(a, b, 'max')) imax, "
        f"tuple_sketch_summary_integer(tuple_difference_integer(a, b)) d FROM {PAIRS}",
        "tuple_theta_operations": f"SELECT tuple_sketch_summary_integer(tuple_union_theta_integer(a, t)) u, "
        f"tuple_sketch_estimate_integer(tuple_union_theta_integer(a, t)) ue, "
        f"tuple_sketch_summary_integer(tuple_intersection_theta_integer(a, t)) i, "
        f"tuple_sketch_summary_integer(tuple_difference_theta_integer(a, t)) d FROM {PAIRS}",
        "tuple_union_null": "SELECT tuple_sketch_estimate_double(tuple_union_double(tuple_sketch_agg_double(k, v), NULL)) e FROM VALUES (1, 1.0D) tab(k, v)",
        "tuple_union_agg": "SELECT tuple_sketch_summary_double(tuple_union_agg_double(s)) u, tuple_sketch_summary_double(tuple_union_agg_double(s, 12, 'max')) umax, "
        "tuple_sketch_summary_double(tuple_intersection_agg_double(s)) i, tuple_sketch_summary_double(tuple_intersection_agg_double(s, 'max')) imax "
        "FROM (SELECT tuple_sketch_agg_double(k, v) s FROM VALUES (1, 1.0D), (2, 3.0D) tab(k, v) "
        "UNION ALL SELECT tuple_sketch_agg_double(k, v) s FROM VALUES (2, 1.0D), (3, 3.0D) tab(k, v))",
        "tuple_intersection_agg_empty": "SELECT tuple_sketch_estimate_double(tuple_intersection_agg_double(s)) e "
        "FROM (SELECT tuple_sketch_agg_double(id, 1.0D) s FROM range(10) WHERE id < 0)",
        "tuple_grouped": "SELECT id % 3 g, tuple_sketch_summary_double(tuple_sketch_agg_double(id % 5, CAST(id AS DOUBLE))) s, "
        "tuple_sketch_estimate_double(tuple_sketch_agg_double(id % 5, 1.0D)) e FROM range(30) GROUP BY id % 3 ORDER BY g",
        "tuple_grouped_union": "SELECT tuple_sketch_summary_double(tuple_union_agg_double(s)) u, tuple_sketch_estimate_double(tuple_union_agg_double(s)) e "
        "FROM (SELECT tuple_sketch_agg_double(id, 2.0D) s FROM range(40) GROUP BY id % 4)",
        "tuple_spark_image": "SELECT tuple_sketch_summary_integer(X'02030901000ACC93020000000000000015F97DCBBD86A1050100000000C397FC1281709D1E0300000000') s, "
        "tuple_sketch_estimate_integer(X'01030901000ACC9315F97DCBBD86A1050500000002') e, tuple_sketch_estimate_double(X'01030901000ECC93') z",
    }
)

SQL.update(
    {
        # count_min_sketch (Spark's own sketch; images byte for byte)
        "count_min_longs": "SELECT hex(count_min_sketch(col, 0.5D, 0.5D, 1)) s FROM VALUES (1), (2), (1) tab(col)",
        "count_min_strings": "SELECT hex(count_min_sketch(col, 0.5D, 0.7D, 42)) s FROM VALUES ('a'), ('bcdef'), (NULL) tab(col)",
        "count_min_binary": "SELECT hex(count_min_sketch(col, 0.9D, 0.6D, 7)) s FROM VALUES (X'0102'), (X'') tab(col)",
        "count_min_bigint_seed": "SELECT hex(count_min_sketch(col, 0.5D, 0.5D, 4294967297L)) a, "
        "hex(count_min_sketch(col, 0.5D, 0.5D, 589585914548888381L)) b FROM VALUES (1) tab(col)",
        "count_min_empty": "SELECT hex(count_min_sketch(col, 0.9D, 0.6D, 7)) s FROM VALUES (1) tab(col) WHERE col > 3",
        "count_min_mixed_ints": "SELECT hex(count_min_sketch(col, 0.9D, 0.6D, 7)) s FROM VALUES (-5L), (CAST(3 AS TINYINT)) tab(col)",
        "count_min_partitions": "SELECT hex(count_min_sketch(id, 0.1D, 0.9D, 3)) s, typeof(count_min_sketch(id, 0.1D, 0.9D, 3)) t FROM range(1000)",
        "count_min_grouped": "SELECT id % 2 g, hex(count_min_sketch(CAST(id AS STRING), 0.5D, 0.5D, 9)) s FROM range(20) GROUP BY id % 2 ORDER BY g",
    }
)

SQL_GAPS = {}


@pytest.mark.parametrize("case", cases(SQL, SQL_GAPS))
def test_sql(spark, expected, case):
    expected.check(spark.sql(SQL[case]), name=case)


@pytest.fixture
def people(spark):
    return spark.createDataFrame(
        [(1, "a", 1.5), (2, "b", 2.5), (3, "a", 3.5), (4, None, 4.5), (5, "c", None)], "id BIGINT, name STRING, x DOUBLE"
    )


FRAME = {
    "hll": lambda: [
        F.hll_sketch_estimate(F.hll_sketch_agg("name")),
        F.hll_sketch_estimate(F.hll_sketch_agg("id", 10)),
        F.hll_sketch_estimate(F.hll_union(F.hll_sketch_agg("id"), F.hll_sketch_agg("name"))),
    ],
    "theta": lambda: [
        F.theta_sketch_estimate(F.theta_sketch_agg("name")),
        F.theta_sketch_estimate(F.theta_sketch_agg("x", 10)),
        F.theta_sketch_estimate(F.theta_union(F.theta_sketch_agg("id"), F.theta_sketch_agg("name"))),
        F.theta_sketch_estimate(F.theta_intersection(F.theta_sketch_agg("id"), F.theta_sketch_agg("id"))),
        F.theta_sketch_estimate(F.theta_difference(F.theta_sketch_agg("id"), F.theta_sketch_agg("id"))),
    ],
    "tuple": lambda: [
        F.tuple_sketch_estimate_double(F.tuple_sketch_agg_double("name", "x")),
        F.tuple_sketch_summary_double(F.tuple_sketch_agg_double("id", "x", 12, "max"), "max"),
        F.tuple_sketch_summary_integer(F.tuple_sketch_agg_integer("name", "id")),
        F.tuple_sketch_theta_integer(F.tuple_sketch_agg_integer("name", "id")),
    ],
    "count_min": lambda: [
        F.hex(F.count_min_sketch("id", 0.5, 0.5, 11)),
        F.hex(F.count_min_sketch("name", F.lit(0.2), F.lit(0.8), F.lit(5))),
    ],
    "kll": lambda: [
        F.kll_sketch_get_quantile_bigint(F.kll_sketch_agg_bigint("id"), F.lit(0.5)),
        F.kll_sketch_get_rank_double(F.kll_sketch_agg_double("x"), F.lit(2.5)),
        F.kll_sketch_get_n_double(F.kll_sketch_agg_double("x", 100)),
        F.kll_sketch_to_string_bigint(F.kll_sketch_agg_bigint("id")),
    ],
}


@pytest.mark.parametrize("case", sorted(FRAME))
def test_dataframe(people, expected, case):
    expected.check(people.agg(*FRAME[case]()), name=case)


def test_sketch_per_group(people, expected):
    df = people.groupBy("name").agg(
        F.hll_sketch_estimate(F.hll_sketch_agg("id")).alias("h"),
        F.theta_sketch_estimate(F.theta_sketch_agg("id")).alias("t"),
        F.kll_sketch_get_n_bigint(F.kll_sketch_agg_bigint("id")).alias("k"),
        F.tuple_sketch_summary_double(F.tuple_sketch_agg_double("id", "x")).alias("u"),
    )
    expected.check(df.orderBy("name"))


def test_union_aggregates(people, expected):
    sketches = people.groupBy("name").agg(
        F.hll_sketch_agg("id").alias("h"),
        F.theta_sketch_agg("id").alias("t"),
        F.kll_sketch_agg_bigint("id").alias("k"),
        F.tuple_sketch_agg_double("id", "x").alias("u"),
    )
    expected.check(
        sketches.agg(
            F.hll_sketch_estimate(F.hll_union_agg("h", True)),
            F.theta_sketch_estimate(F.theta_union_agg("t")),
            F.theta_sketch_estimate(F.theta_intersection_agg("t")),
            F.kll_sketch_get_n_bigint(F.kll_merge_agg_bigint("k")),
            F.tuple_sketch_summary_double(F.tuple_union_agg_double("u")),
            F.tuple_sketch_estimate_double(F.tuple_intersection_agg_double("u")),
        )
    )


ERRORS = {
    "hll_lg_k_range": "SELECT hll_sketch_agg(col, 3) FROM VALUES (1) tab(col)",
    "hll_lg_k_constant": "SELECT hll_sketch_agg(col, c) FROM VALUES (1, 5) tab(col, c)",
    "hll_double": "SELECT hll_sketch_agg(col) FROM VALUES (1.5D) tab(col)",
    "hll_union_different": "SELECT hll_union(hll_sketch_agg(id), hll_sketch_agg(id, 5)) FROM range(10)",
    "hll_union_agg_different": "SELECT hll_union_agg(s) FROM (SELECT hll_sketch_agg(id) s FROM range(10) "
    "UNION ALL SELECT hll_sketch_agg(id, 20) FROM range(5, 20))",
    "hll_estimate_bad_buffer": "SELECT hll_sketch_estimate(X'0102')",
    "hll_union_bad_buffer": "SELECT hll_union(X'01', X'02')",
    "hll_union_agg_bad_buffer": "SELECT hll_union_agg(s) FROM (SELECT X'01' s)",
    "theta_lg_nom_range": "SELECT theta_sketch_agg(col, 27) FROM VALUES (1) tab(col)",
    "theta_lg_nom_constant": "SELECT theta_sketch_agg(col, c) FROM VALUES (1, 5) tab(col, c)",
    "theta_smallint": "SELECT theta_sketch_agg(CAST(col AS SMALLINT)) FROM VALUES (1) tab(col)",
    "theta_boolean": "SELECT theta_sketch_agg(col) FROM VALUES (true) tab(col)",
    "theta_estimate_bad_buffer": "SELECT theta_sketch_estimate(X'0102')",
    "theta_union_bad_buffer": "SELECT theta_union(X'01', X'02')",
    "theta_union_agg_bad_buffer": "SELECT theta_union_agg(s) FROM (SELECT X'01' s)",
    "kll_k_range": "SELECT kll_sketch_agg_bigint(col, 7) FROM VALUES (5) tab(col)",
    "kll_k_constant": "SELECT kll_sketch_agg_bigint(col, c) FROM VALUES (1, 8) tab(col, c)",
    "kll_merge_k_range": "SELECT kll_merge_agg_bigint(s, 5) FROM (SELECT kll_sketch_agg_bigint(id) s FROM range(3))",
    "kll_bigint_of_double": "SELECT kll_sketch_agg_bigint(col) FROM VALUES (5.5D) tab(col)",
    "kll_double_of_int": "SELECT kll_sketch_agg_double(col) FROM VALUES (5) tab(col)",
    "kll_float_of_double": "SELECT kll_sketch_agg_float(col) FROM VALUES (5.5D) tab(col)",
    "kll_quantile_range": "SELECT kll_sketch_get_quantile_bigint(kll_sketch_agg_bigint(id), 1.5) FROM range(1, 11)",
    "kll_quantile_range_list": "SELECT kll_sketch_get_quantile_bigint(kll_sketch_agg_bigint(id), array(-0.5)) FROM range(1, 11)",
    "kll_quantile_of_empty": "SELECT kll_sketch_get_quantile_bigint(kll_sketch_agg_bigint(id), 0.5) FROM range(4) WHERE id < 0",
    "kll_rank_of_empty": "SELECT kll_sketch_get_rank_bigint(kll_sketch_agg_bigint(id), 3) FROM range(4) WHERE id < 0",
    "kll_bad_buffer": "SELECT kll_sketch_get_quantile_bigint(X'0102', 0.5)",
    "kll_merge_bad_buffer": "SELECT kll_sketch_merge_bigint(kll_sketch_agg_bigint(id), X'01') FROM range(3)",
    "kll_merge_agg_bad_buffer": "SELECT kll_merge_agg_bigint(s) FROM (SELECT X'01' s)",
    "tuple_mode": "SELECT tuple_sketch_agg_integer(k, v, 12, 'bogus') FROM VALUES (1, 1) tab(k, v)",
    "tuple_summary_mode": "SELECT tuple_sketch_summary_integer(tuple_sketch_agg_integer(k, v), 'bogus') FROM VALUES (1, 1) tab(k, v)",
    "tuple_lg_nom": "SELECT tuple_sketch_agg_integer(k, v, 3) FROM VALUES (1, 1) tab(k, v)",
    "tuple_bad_summary": "SELECT tuple_sketch_agg_double(k, v) FROM VALUES (1, 'x') tab(k, v)",
    "tuple_bad_buffer": "SELECT tuple_sketch_estimate_double(X'01')",
    "tuple_union_bad_buffer": "SELECT tuple_union_double(tuple_sketch_agg_double(k, v), X'01') FROM VALUES (1, 1.0D) tab(k, v)",
    "tuple_union_theta_bad_buffer": "SELECT tuple_union_theta_double(tuple_sketch_agg_double(k, v), X'01') FROM VALUES (1, 1.0D) tab(k, v)",
    "tuple_union_agg_bad_buffer": "SELECT tuple_union_agg_double(s) FROM (SELECT X'01' s)",
    "count_min_double": "SELECT count_min_sketch(col, 0.9D, 0.6D, 7) FROM VALUES (1.5D) tab(col)",
    "count_min_eps": "SELECT count_min_sketch(col, -0.9D, 0.6D, 7) FROM VALUES (1) tab(col)",
    "count_min_confidence": "SELECT count_min_sketch(col, 0.9D, 1.6D, 7) FROM VALUES (1) tab(col)",
    "count_min_eps_constant": "SELECT count_min_sketch(col, c, 0.6D, 7) FROM VALUES (1, 0.5D) tab(col, c)",
    "count_min_decimal_eps": "SELECT count_min_sketch(col, 0.9, 0.6, 7) FROM VALUES (1) tab(col)",
    "kll_quantile_arity": "SELECT kll_sketch_get_quantile_bigint(kll_sketch_agg_bigint(id), 0.5, false) FROM range(3)",
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors(spark, expected, case):
    expected.check_error(lambda: spark.sql(ERRORS[case]).collect(), name=case)
