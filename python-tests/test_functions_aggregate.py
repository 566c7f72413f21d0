"""Aggregate and window functions with Spark's result types and NULL handling; answers
recorded from real Spark."""

import pytest
from pyspark.sql import Window
from pyspark.sql import functions as F

from conftest import cases

T = "FROM VALUES ('a', 1, 1.5), ('a', 2, NULL), ('a', 2, 3.0), ('b', 5, -1.0), ('b', NULL, 2.0), ('c', NULL, NULL) AS t(k, v, x)"

SQL = {
    "histogram_numeric": "SELECT histogram_numeric(x, 3) h FROM VALUES (1), (2), (3), (4), (5), (6), (10), (10), (20) t(x)",
    "histogram_numeric_types": "SELECT histogram_numeric(x, 2) h FROM VALUES (1.5D), (2.5D), (100D) t(x)",
    # Dates (as days, centres truncated), timestamps and intervals (their fields kept).
    "histogram_numeric_datetimes": "SELECT histogram_numeric(d, 2) d, histogram_numeric(t, 2) t, histogram_numeric(n, 2) n, "
    "histogram_numeric(i, 2) i, transform(histogram_numeric(m, 2), b -> CAST(b.x AS STRING)) m, "
    "typeof(histogram_numeric(m, 2)) mt FROM VALUES "
    "(DATE'2024-02-29', TIMESTAMP'2024-02-29 10:00:00', TIMESTAMP_NTZ'1969-12-31 23:59:59', INTERVAL '1' DAY, INTERVAL '1' YEAR), "
    "(DATE'2024-03-01', TIMESTAMP'2024-02-29 10:00:01', TIMESTAMP_NTZ'1969-12-31 23:59:58', INTERVAL '2' DAY, INTERVAL '2' MONTH), "
    "(DATE'1969-12-30', TIMESTAMP'2024-03-05 00:00:00', TIMESTAMP_NTZ'2000-01-01 00:00:00', INTERVAL '10' HOUR, INTERVAL '5' MONTH), "
    "(DATE'1969-12-31', NULL, NULL, NULL, INTERVAL '-7' MONTH) t(d, t, n, i, m)",
    "histogram_numeric_small": "SELECT histogram_numeric(x, 10) h, typeof(histogram_numeric(CAST(x AS DECIMAL(2,1)), 2)) t FROM VALUES (3), (1), (2) t(x)",
    # Order-sensitive aggregates read their rows in the input's order, as Spark's do.
    "input_order_grouped": "SELECT id % 3 k, collect_list(id) l, first(id) f, last(id) la, "
    "any_value(id) a, array_agg(id) g, first(id, true) fi FROM range(60) GROUP BY 1",
    # collect_set answers in the order of Spark's hash set (by the values' Java hash codes);
    # mode's ties go to the first value in Spark's hash map.
    "collect_set_order": "SELECT collect_set(i) i, collect_set(d) d, collect_set(f) f, collect_set(s) s, collect_set(m) m, "
    "collect_set(l) l, collect_set(t) t, collect_set(b) b FROM VALUES "
    "(3, 1.5D, CAST(1.5 AS FLOAT), 'pear', 1.5, 5000000000L, TIMESTAMP'2024-01-01 00:00:00', true), "
    "(-1, 2.0D, CAST(100 AS FLOAT), 'apple', 2.5, 1L, TIMESTAMP'2020-05-05 10:00:00', false), "
    "(17, -0.5D, CAST(-3 AS FLOAT), 'fig', 10.0, -1L, TIMESTAMP'1999-12-31 23:59:59', true), "
    "(0, 1e10D, CAST(2.5 AS FLOAT), 'kiwi', -3.25, -5000000000L, NULL, NULL), "
    "(40, double('NaN'), CAST(7 AS FLOAT), 'hello', 0.1, 7L, TIMESTAMP'2024-01-01 00:00:00', false), "
    "(-20, 0.1D, NULL, 'zz', 7.77, 300L, NULL, true), (3, 1.5D, CAST(1.5 AS FLOAT), 'pear', 1.5, 1L, NULL, NULL) AS t(i, d, f, s, m, l, t, b)",
    "collect_nulls": "SELECT collect_list(NULL) a, collect_set(NULL) b, collect_list(CAST(NULL AS INT)) c FROM range(3)",
    "mode_ties": "SELECT mode(i) i, mode(d) d, mode(s) s, mode(l) l, mode(m) m FROM VALUES (1, 1.5D, 'apple', 100L, 1.5), "
    "(2, 2.5D, 'pear', -3L, 2.5), (3, 0.5D, 'fig', 5000000000L, 10.0), (4, -1D, 'kiwi', 42L, -3.25) AS t(i, d, s, l, m)",
    "histogram_numeric_nulls": "SELECT k, histogram_numeric(x, 5) h FROM VALUES (1, CAST(NULL AS INT)), (2, 7) t(k, x) GROUP BY k",
    "count": f"SELECT k, count(*), count(v), count(DISTINCT v), count_if(v > 1) {T} GROUP BY k",
    "sum_avg": f"SELECT k, sum(v), avg(v), sum(x), avg(x), mean(v) {T} GROUP BY k",
    "sum_distinct": f"SELECT sum(DISTINCT v), avg(DISTINCT v) {T}",
    "min_max": f"SELECT k, min(v), max(x), min(k) {T} GROUP BY k",
    "first_last": f"SELECT first(v) IGNORE NULLS, last(v, true), first_value(x) FILTER (WHERE v IS NOT NULL) {T} WHERE k = 'b'",
    "any_value": f"SELECT any_value(v, true) IS NOT NULL a {T} WHERE k = 'a'",
    "collect": f"SELECT k, sort_array(collect_list(v)), sort_array(collect_set(v)), size(array_agg(v)) {T} GROUP BY k",
    "stddev": f"SELECT stddev(v), stddev_pop(v), stddev_samp(x), variance(v), var_pop(x), var_samp(v), std(v) {T}",
    "corr_covar": f"SELECT corr(v, x), covar_pop(v, x), covar_samp(v, x) {T}",
    "skew_kurt": f"SELECT skewness(v), kurtosis(v) {T}",
    "percentile": f"SELECT percentile(v, 0.5), percentile(v, array(0.25, 0.75)), median(v) {T}",
    "percentile_approx": f"SELECT percentile_approx(v, 0.5), approx_percentile(v, array(0.1, 0.9), 100) {T}",
    "mode": f"SELECT k, mode(v) {T} WHERE k <> 'b' GROUP BY k",
    "max_by_min_by": f"SELECT k, max_by(x, v), min_by(x, v) {T} WHERE v IS NOT NULL AND x IS NOT NULL GROUP BY k",
    "bool_aggs": f"SELECT bool_and(v > 0), bool_or(v > 4), every(v > 1), some(v > 4) {T}",
    "bit_aggs": f"SELECT bit_and(v), bit_or(v), bit_xor(v) {T}",
    "approx_count_distinct": f"SELECT approx_count_distinct(v), approx_count_distinct(k) {T}",
    "try_sum_avg": f"SELECT try_sum(v), try_avg(v) {T}",
    "regr": f"SELECT regr_count(v, x), regr_slope(v, x), regr_intercept(v, x), regr_r2(v, x), regr_avgx(v, x) {T}",
    "string_agg": f"SELECT k, string_agg(CAST(v AS STRING), '|') WITHIN GROUP (ORDER BY v) {T} GROUP BY k",
    "string_agg_ordered": "SELECT string_agg(k, ',') WITHIN GROUP (ORDER BY k DESC), listagg(k) WITHIN GROUP (ORDER BY k) "
    "FROM VALUES ('a'), ('c'), ('b') AS t(k)",
    "grouping": f"SELECT k, grouping(k), sum(v) {T} GROUP BY ROLLUP(k)",
    "filter_clause": f"SELECT count(*) FILTER (WHERE v > 1), sum(v) FILTER (WHERE k = 'a') {T}",
    "empty_input": "SELECT count(*), sum(id), avg(id), max(id), collect_list(id) FROM range(0)",
    "decimal_sum": "SELECT sum(d), avg(d), typeof(sum(d)), typeof(avg(d)) FROM VALUES (1.25), (2.50) AS t(d)",
    "int_sum_type": "SELECT typeof(sum(CAST(1 AS INT))), typeof(avg(1)), typeof(count(1))",
    # Ordered-set aggregates: f(p) WITHIN GROUP (ORDER BY x [DESC]).
    "percentile_cont_within_group": f"SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY v), "
    f"percentile_cont(0.25) WITHIN GROUP (ORDER BY x DESC), typeof(percentile_cont(0.5) WITHIN GROUP (ORDER BY v)) {T}",
    "percentile_disc_within_group": f"SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY v), "
    f"percentile_disc(0.5) WITHIN GROUP (ORDER BY v DESC), percentile_disc(0.25) WITHIN GROUP (ORDER BY x DESC) {T}",
    "percentile_within_group_grouped": f"SELECT k, percentile_disc(0.5) WITHIN GROUP (ORDER BY x), "
    f"percentile_cont(array(0.25, 0.75)) WITHIN GROUP (ORDER BY v) {T} GROUP BY k ORDER BY k",
    "percentile_within_group_filter": f"SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY v) FILTER (WHERE k = 'a') {T}",
    "mode_within_group": "SELECT mode() WITHIN GROUP (ORDER BY k), mode() WITHIN GROUP (ORDER BY k DESC), "
    "typeof(mode() WITHIN GROUP (ORDER BY k)) FROM VALUES (3), (1), (1), (3), (2) AS t(k)",
    "ordered_set_over_whole_frame": "SELECT id, median(id) OVER (ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) m, "
    "listagg(CAST(id AS STRING)) OVER (ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) l, "
    "mode() WITHIN GROUP (ORDER BY id) OVER (ORDER BY id) o FROM range(3) ORDER BY id",
    "percentile_within_group_over": "SELECT k, percentile_cont(0.5) WITHIN GROUP (ORDER BY v) OVER (PARTITION BY k) c, "
    "percentile_disc(0.5) WITHIN GROUP (ORDER BY v) OVER () d FROM VALUES ('a', 1), ('a', 4), ('b', 2) AS t(k, v) ORDER BY k, c",
}


SQL_GAPS = {
}


@pytest.mark.parametrize("case", cases(SQL, SQL_GAPS))
def test_sql(spark, expected, case):
    expected.check(spark.sql(SQL[case]), name=case)


W = "FROM VALUES ('a', 1, 10), ('a', 2, 20), ('a', 3, 20), ('b', 1, 5), ('b', 2, NULL) AS t(k, i, v)"

WINDOW_SQL = {
    "ranks": f"SELECT k, i, row_number() OVER w, rank() OVER w, dense_rank() OVER w, percent_rank() OVER w, "
    f"cume_dist() OVER w {W} WINDOW w AS (PARTITION BY k ORDER BY v)",
    "ntile": f"SELECT k, i, ntile(2) OVER (PARTITION BY k ORDER BY i) {W}",
    "lag_lead": f"SELECT k, i, lag(v) OVER w, lead(v, 1, -1) OVER w, lag(v, 2) OVER w {W} WINDOW w AS (PARTITION BY k ORDER BY i)",
    "running_sum": f"SELECT k, i, sum(v) OVER (PARTITION BY k ORDER BY i) s {W}",
    "rows_frame": f"SELECT k, i, sum(v) OVER (PARTITION BY k ORDER BY i ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) s {W}",
    "range_frame": f"SELECT k, i, count(*) OVER (PARTITION BY k ORDER BY v RANGE BETWEEN 5 PRECEDING AND CURRENT ROW) c {W}",
    "unbounded": f"SELECT k, i, max(v) OVER (PARTITION BY k) m, avg(v) OVER () a {W}",
    "first_last_value": f"SELECT k, i, first_value(v) OVER w, last_value(v) OVER w, nth_value(v, 2) OVER w {W} "
    "WINDOW w AS (PARTITION BY k ORDER BY i ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)",
    "last_ignore_nulls": f"SELECT k, i, last(v, true) OVER (PARTITION BY k ORDER BY i) {W}",
    "collect_over": f"SELECT k, i, collect_list(v) OVER (PARTITION BY k ORDER BY i) {W}",
    "decimal_avg_over": "SELECT k, avg(d) OVER (PARTITION BY k) a, avg(d) OVER (ORDER BY d) r "
    "FROM VALUES ('a', 1.25), ('a', 2.50), ('b', 1.00), ('b', 2.00), ('b', 2.00) AS t(k, d)",
    "skewness_over": f"SELECT k, i, skewness(v) OVER (PARTITION BY k) s, count_if(v > 5) OVER (PARTITION BY k) c {W}",
    # aggregates over frames that slide (the first row of the frame moves)
    "sliding_first_last": f"SELECT k, i, first(v) OVER w f, last(v) OVER w l, first(v, true) OVER w fi, last(v, true) OVER w li, "
    "first_value(v) OVER w fv, any_value(v) OVER w av "
    f"{W} WINDOW w AS (PARTITION BY k ORDER BY i ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING)",
    "sliding_first_nulls": "SELECT i, first(v) OVER w f, first(v, true) OVER w fi, last(v) OVER w l, last(v, true) OVER w li "
    "FROM VALUES (1, NULL), (2, 2), (3, NULL), (4, NULL), (5, 5) AS t(i, v) WINDOW w AS (ORDER BY i ROWS BETWEEN 1 PRECEDING AND CURRENT ROW)",
    "sliding_bool": f"SELECT k, i, bool_and(v > 5) OVER w a, bool_or(v > 15) OVER w o, every(v > 5) OVER w e, some(v > 15) OVER w s "
    f"{W} WINDOW w AS (PARTITION BY k ORDER BY i ROWS BETWEEN 1 PRECEDING AND CURRENT ROW)",
    # Aggregates recomputed from a sliding frame's rows (DataFusion cannot remove rows from
    # these accumulators, or not exactly: a variance of equal values is 0.0, as in Spark).
    "sliding_recomputed": "SELECT i, listagg(s) OVER w l, string_agg(s, '-') OVER w g, approx_count_distinct(n) OVER w d, "
    "bit_or(n) OVER w b, try_sum(v) OVER w t, stddev(v) OVER w sd, variance(v) OVER w va, var_pop(v) OVER w vp "
    "FROM VALUES (1, 'a', 10.0D, 1), (2, 'b', NULL, 2), (3, NULL, 30.0D, 2), (4, 'd', 20.0D, 5), (5, 'e', 20.0D, 1) "
    "AS t(i, s, v, n) WINDOW w AS (ORDER BY i ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING)",
    "sliding_recomputed_range": f"SELECT k, i, listagg(CAST(v AS STRING), ',') OVER w l, stddev_pop(v) OVER w s, "
    f"bit_and(i) OVER w b {W} WINDOW w AS (PARTITION BY k ORDER BY i RANGE BETWEEN 1 PRECEDING AND CURRENT ROW)",
    # Sums and averages of integers and decimals slide exactly; two windows whose arguments
    # differ only by a cast (DataFusion names both `sum(i)`) are computed side by side.
    "sliding_sum_casts": "SELECT i, sum(i) OVER w s, sum(CAST(i AS DOUBLE)) OVER w d, sum(CAST(i AS INT)) OVER w n, "
    "avg(CAST(i AS DECIMAL(10,2))) OVER w a, avg(i) OVER w m FROM VALUES (1), (2), (NULL), (4), (5) AS t(i) "
    "WINDOW w AS (ORDER BY i ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING)",
    "sliding_range_first": f"SELECT k, i, first(v) OVER (PARTITION BY k ORDER BY i RANGE BETWEEN 1 PRECEDING AND CURRENT ROW) f {W}",
    # max_by/min_by in every frame: the later of equal orderings, NULL orderings skipped.
    "max_min_by_over": "SELECT i, max_by(s, v) OVER w1 a, min_by(s, v) OVER w1 b, max_by(s, v) OVER w2 c, min_by(s, v) OVER w2 d, "
    "max_by(s, v) OVER w3 e, min_by(s, v) OVER w4 f, max_by(s, v) OVER (PARTITION BY i % 3) g, "
    "min_by(s, v) OVER (PARTITION BY i % 2 ORDER BY i) h "
    "FROM VALUES (1, 'a', 3), (2, 'b', 1), (3, 'c', NULL), (4, 'd', 3), (5, NULL, 5), (6, 'f', 1), (7, 'g', 5) AS t(i, s, v) "
    "WINDOW w1 AS (ORDER BY i ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING), w2 AS (ORDER BY i ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING), "
    "w3 AS (ORDER BY i RANGE BETWEEN 2 PRECEDING AND CURRENT ROW), w4 AS (ORDER BY i ROWS BETWEEN 2 PRECEDING AND 1 PRECEDING)",
    "max_min_by_k_over": "SELECT i, max_by(s, v, 2) OVER w1 a, min_by(s, v, 3) OVER w1 b, max_by(i, v * 10 + i, 2) OVER (PARTITION BY i % 2) c, "
    "min_by(s, v, 2) OVER (ORDER BY i) d "
    "FROM VALUES (1, 'a', 3), (2, 'b', 1), (3, 'c', NULL), (4, 'd', 3), (5, NULL, 5), (6, 'f', 1), (7, 'g', 5) AS t(i, s, v) "
    "WINDOW w1 AS (ORDER BY i ROWS BETWEEN 2 PRECEDING AND CURRENT ROW)",
    "max_min_by_types_over": "SELECT i, max_by(i, d) OVER w a, min_by(i, d) OVER w b, max_by(d, s) OVER w c, min_by(s, ts) OVER w e, "
    "max_by(i, arr) OVER w f FROM VALUES (1, 1.5D, 'x', TIMESTAMP'2024-01-02 00:00:00', array(1, 2)), "
    "(2, double('NaN'), 'y', TIMESTAMP'2024-01-01 00:00:00', array(1)), (3, -0.5D, 'a', NULL, array(2)), "
    "(4, double('inf'), 'zz', TIMESTAMP'2023-12-31 00:00:00', NULL) AS t(i, d, s, ts, arr) "
    "WINDOW w AS (ORDER BY i ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING)",
    # Spark's histogram breaks ties between equally close bins by its generator (seed 31183).
    # Order-sensitive aggregates over windows without an order read the rows in the input's
    # order, as Spark's do (not as a shuffle happens to deliver them).
    "input_order_over": "SELECT id, first(id) OVER w f, last(id) OVER w l, collect_list(id) OVER w c, any_value(id) OVER w a, "
    "array_agg(id) OVER w g FROM range(24) WINDOW w AS (PARTITION BY id % 3)",
    # FILTER over windows, also in the cluster modes (datafusion-proto does not carry a window's
    # filters: the resolver moves them into the arguments).
    "window_filter": "SELECT id, collect_list(id) FILTER (WHERE id > 1) OVER (PARTITION BY id % 2) c, "
    "count(id) FILTER (WHERE id > 2) OVER (PARTITION BY id % 2) n, count(*) FILTER (WHERE id > 2) OVER (PARTITION BY id % 2) n2, "
    "sum(id) FILTER (WHERE id % 3 = 0) OVER (ORDER BY id) s FROM range(8)",
    "window_filter_frames": "SELECT id, avg(v) FILTER (WHERE v > 2) OVER w a, "
    "max(v) FILTER (WHERE id < 3) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) m, "
    "collect_list(v) FILTER (WHERE id > 2) OVER (ORDER BY id ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) c, "
    "min_by(id, v) FILTER (WHERE id > 0) OVER w b, stddev(v) FILTER (WHERE id > 0) OVER w sd "
    "FROM VALUES (0, 5), (1, NULL), (2, NULL), (3, 3), (4, 1), (5, 7), (6, NULL) t(id, v) "
    "WINDOW w AS (PARTITION BY id % 2 ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)",
    # FILTER over windows of aggregates built on a list of the values (mode, percentiles,
    # bitmaps) or with constant parameters (a delimiter, a percentage, count(1)), and sketches.
    "window_filter_ordered_sets": "SELECT id, mode(v) FILTER (WHERE id > 1) OVER w mo, "
    "percentile(v, 0.5) FILTER (WHERE id > 1) OVER w p, percentile(v, array(0.25, 0.75)) FILTER (WHERE id <> 3) OVER w pa, "
    "percentile_approx(v, 0.5, 100) FILTER (WHERE id > 1) OVER w pp, median(v) FILTER (WHERE id > 2) OVER w md, "
    "percentile_cont(0.5) WITHIN GROUP (ORDER BY v) FILTER (WHERE id > 1) OVER w pc, "
    "percentile_disc(0.5) WITHIN GROUP (ORDER BY v) FILTER (WHERE id > 1) OVER w pd, "
    "count(1) FILTER (WHERE id > 2) OVER w c1, sum(2) FILTER (WHERE id > 2) OVER w s2, "
    "bitmap_count(bitmap_construct_agg(id) FILTER (WHERE v > 3) OVER w) bm, "
    "hll_sketch_estimate(hll_sketch_agg(v) FILTER (WHERE id > 3) OVER w) hll "
    "FROM VALUES (0, 5), (1, 2), (2, 3), (3, 4), (4, 3), (5, 4), (6, NULL), (7, NULL), (8, 3), (9, 8), (10, 7), (11, 4) t(id, v) "
    "WINDOW w AS (PARTITION BY id % 2)",
    "window_filter_sliding_sets": "SELECT id, "
    "percentile(v, 0.5) FILTER (WHERE id <> 4) OVER (ORDER BY id ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) p, "
    "percentile_approx(v, 0.5) FILTER (WHERE id > 2) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) pp, "
    "string_agg(CAST(v AS STRING), '-') FILTER (WHERE id > 1) OVER (PARTITION BY id % 2 ORDER BY id) sa, "
    "mode(v) FILTER (WHERE id > 0) OVER (ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) mo "
    "FROM VALUES (0, 5), (1, 2), (2, 2), (3, 4), (4, 3), (5, 2), (6, NULL), (7, 1) t(id, v)",
    # Rows that tie in a window's order go in the input's order (Spark's sort is stable):
    # row_number, ntile, lag, lead and ROWS frames answer the same every time.
    "ties_in_input_order": "SELECT id, row_number() OVER w rn, lag(id) OVER w lg, lead(id, 2) OVER w ld, ntile(3) OVER w nt, "
    "sum(id) OVER (PARTITION BY id % 3 ORDER BY id % 2 ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) s, rank() OVER w r "
    "FROM range(0, 30, 1, 3) WINDOW w AS (PARTITION BY id % 3 ORDER BY id % 2)",
    "ties_row_number_desc": "SELECT id, row_number() OVER (ORDER BY id % 3 DESC) rn FROM range(0, 40, 1, 4)",
    "collect_set_mode_over": "SELECT id, collect_set(id % 4) OVER (ORDER BY id ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) s, "
    "mode(id % 3) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) m FROM range(8)",
    "histogram_numeric_over": "SELECT id, histogram_numeric(id, 3) OVER (ORDER BY id) h, "
    "histogram_numeric(id % 5, 2) OVER (ORDER BY id ROWS BETWEEN 3 PRECEDING AND CURRENT ROW) s FROM range(12)",
}


WINDOW_SQL_GAPS = {}


@pytest.mark.parametrize("case", cases(WINDOW_SQL, WINDOW_SQL_GAPS))
def test_window_sql(spark, expected, case):
    expected.check(spark.sql(WINDOW_SQL[case]), name=case)


def test_input_order_is_stable(spark, expected):
    """The same answer every time: rows of several partitions meet in a shuffle in whatever
    order they arrive, but first/last/collect_list read them in the input's order."""
    query = (
        "SELECT id % 4 k, first(id) f, last(id) l, collect_list(id) c FROM range(0, 400, 1, 4) GROUP BY 1"
    )
    answers = {str(sorted(spark.sql(query).collect())) for _ in range(5)}
    assert len(answers) == 1, answers
    expected.check(spark.sql(query), name="input_order_stable")


@pytest.fixture
def sales(spark):
    return spark.createDataFrame(
        [("a", 1, 10.0), ("a", 2, 30.0), ("a", 3, None), ("b", 1, 5.0), ("b", 2, 5.0)], "k STRING, i INT, v DOUBLE"
    )


AGG = {
    "agg_dict": lambda df: df.groupBy("k").agg({"v": "max", "i": "sum"}),
    "agg_funcs": lambda df: df.groupBy("k").agg(F.count("v"), F.countDistinct("v"), F.sum("v").alias("s")),
    "global_agg": lambda df: df.agg(F.avg("v"), F.stddev("v"), F.min("i")),
    "collect_list": lambda df: df.groupBy("k").agg(F.sort_array(F.collect_list("v"))),
    "first_ignorenulls": lambda df: df.groupBy("k").agg(F.first("v", ignorenulls=True), F.last("v", ignorenulls=True)),
    "max_by": lambda df: df.groupBy("k").agg(F.max_by("v", "i"), F.min_by("v", "i")),
    "percentile_approx": lambda df: df.groupBy("k").agg(F.percentile_approx("v", 0.5)),
    "approx_count_distinct": lambda df: df.agg(F.approx_count_distinct("v")),
    "grouping_id": lambda df: df.cube("k").agg(F.grouping_id(), F.sum("i")),
    "count_if": lambda df: df.groupBy("k").agg(F.count_if(F.col("v") > 5)),
    "sum_distinct": lambda df: df.agg(F.sum_distinct("v")),
    "median_mode": lambda df: df.groupBy("k").agg(F.median("i")),
    "product": lambda df: df.groupBy("k").agg(F.product("v")),
    # One distinct value per group, so that the joined order does not matter.
    "listagg_distinct": lambda df: df.groupBy("k").agg(F.listagg_distinct("k"), F.string_agg_distinct("k", "-")),
}


AGG_GAPS = {}


@pytest.mark.parametrize("case", cases(AGG, AGG_GAPS))
def test_dataframe_aggregates(sales, expected, case):
    expected.check(AGG[case](sales), name=case)


def test_product_in_an_expression_string(sales, expected):
    """`F.product` is Spark Connect's; the same call in SQL text (`F.expr`) is unknown."""
    expected.check_error(lambda: sales.groupBy("k").agg(F.expr("product(v)")).collect())


def _w():
    return Window.partitionBy("k").orderBy("i")


WINDOWS = {
    "row_number": lambda: F.row_number().over(_w()),
    "rank": lambda: F.rank().over(Window.partitionBy("k").orderBy("v")),
    "dense_rank_desc": lambda: F.dense_rank().over(Window.partitionBy("k").orderBy(F.desc("v"))),
    "lag": lambda: F.lag("v", 1, 0.0).over(_w()),
    "lead": lambda: F.lead("v").over(_w()),
    "running_sum": lambda: F.sum("v").over(_w().rowsBetween(Window.unboundedPreceding, Window.currentRow)),
    "moving_avg": lambda: F.avg("v").over(_w().rowsBetween(-1, 1)),
    "range_between": lambda: F.count("*").over(Window.partitionBy("k").orderBy("i").rangeBetween(-1, 0)),
    "ntile": lambda: F.ntile(2).over(_w()),
    "percent_rank": lambda: F.percent_rank().over(_w()),
    "cume_dist": lambda: F.cume_dist().over(_w()),
    "nth_value": lambda: F.nth_value("v", 2).over(_w()),
    "total": lambda: F.sum("v").over(Window.partitionBy("k")),
    "first": lambda: F.first("v").over(_w()),
    "max_by_sliding": lambda: F.max_by("i", "v").over(_w().rowsBetween(-1, 0)),
    # ties in v: the first row of each k in the input's order
    "row_number_ties": lambda: F.row_number().over(Window.partitionBy("k").orderBy(F.desc("v"))),
    "min_by_partition": lambda: F.min_by("v", "i").over(Window.partitionBy("k")),
    "product_running": lambda: F.product("v").over(_w()),
}


@pytest.mark.parametrize("case", sorted(WINDOWS))
def test_dataframe_windows(sales, expected, case):
    expected.check(sales.select("k", "i", WINDOWS[case]().alias("w")), name=case)


ERRORS = {
    # `product` is Spark Connect's (`F.product`): Spark's SQL does not know it.
    "product_in_sql": "SELECT product(id) FROM range(3)",
    "product_over_window_in_sql": "SELECT product(id) OVER (ORDER BY id) FROM range(3)",
    "histogram_numeric_bins": "SELECT histogram_numeric(x, 1) h FROM VALUES (1), (2) t(x)",
    "histogram_numeric_column_bins": "SELECT histogram_numeric(id, id) FROM range(3)",
    "histogram_numeric_null_bins": "SELECT histogram_numeric(id, NULL) FROM range(3)",
    "nested_aggregate": "SELECT sum(max(id)) FROM range(3)",
    "not_grouped": "SELECT id, count(*) FROM range(3)",
    "window_without_order": "SELECT row_number() OVER (PARTITION BY id) FROM range(3)",
    "lag_without_order": "SELECT lag(id) OVER (PARTITION BY id) FROM range(3)",
    "window_in_where": "SELECT id FROM range(3) WHERE row_number() OVER (ORDER BY id) = 1",
    "aggregate_in_where": "SELECT id FROM range(3) WHERE sum(id) > 1",
    # Aggregates of non-deterministic values (outside windows) are refused.
    "nondeterministic_rand": "SELECT sum(rand(42)) FROM range(3)",
    "nondeterministic_uuid": "SELECT count(uuid()) FROM range(3)",
    "nondeterministic_partition_id": "SELECT sum(spark_partition_id()) FROM range(3)",
    "nondeterministic_shuffle": "SELECT count(shuffle(array(1, 2))) FROM range(3)",
    "nondeterministic_input_file": "SELECT count(DISTINCT input_file_name()) FROM range(3)",
    "nondeterministic_filter": "SELECT sum(id) FILTER (WHERE rand() > 2) FROM range(3)",
    "within_group_missing": "SELECT percentile_cont(0.5) FROM range(3)",
    "within_group_two_orderings": "SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY id, id) FROM range(3)",
    "mode_argument_and_within_group": "SELECT mode(id) WITHIN GROUP (ORDER BY id) FROM range(3)",
    "percentile_cont_out_of_range": "SELECT percentile_cont(1.5) WITHIN GROUP (ORDER BY id) FROM range(3)",
    "substring_one_argument": "SELECT substring('abc')",
    # Ordered-set aggregates over a window take no ORDER BY and no frame but the whole one.
    "median_over_order": "SELECT median(id) OVER (ORDER BY id) FROM range(3)",
    "median_over_rows": "SELECT median(id) OVER (ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM range(3)",
    "percentile_cont_over_order": "SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY id) OVER (ORDER BY id) FROM range(3)",
    "listagg_within_group_over_order": "SELECT listagg(CAST(id AS STRING)) WITHIN GROUP (ORDER BY id) OVER (ORDER BY id) FROM range(3)",
    # FILTER on a function that is not an aggregate.
    "filter_of_scalar": "SELECT abs(id) FILTER (WHERE id > 1) FROM range(3)",
    "mode_without_a_value": "SELECT mode() FROM range(3)",
    "mode_flag_not_boolean": "SELECT mode(id, 1) FROM range(3)",
    "mode_flag_of_a_column": "SELECT mode(id, id > 1) FROM range(3)",
    "percentile_approx_percentage_of_a_column": "SELECT percentile_approx(id, id / 10.0) FROM range(3)",
    "approx_percentile_accuracy_of_a_column": "SELECT approx_percentile(id, 0.5, CAST(id AS INT) + 10) FROM range(3)",
    "percentile_percentage_of_a_column": "SELECT percentile(id, id / 10.0) FROM range(3)",
    "filter_of_window_function": "SELECT row_number() FILTER (WHERE id > 1) OVER (ORDER BY id) FROM range(3)",
    "scalar_over_window": "SELECT upper(CAST(id AS STRING)) OVER (ORDER BY id) FROM range(3)",
}


ERRORS_GAPS = {
}


# ... but allowed over windows, and over a projection of such values.
NONDETERMINISTIC_ALLOWED = {
    "window": "SELECT count(rand()) OVER () n FROM range(3)",
    "projected": "SELECT count(x) n, sum(x) > 0 s FROM (SELECT rand(7) x FROM range(3))",
    "aes_encrypt": "SELECT count(aes_encrypt('a', '0000111122223333')) n FROM range(3)",
}


@pytest.mark.parametrize("case", sorted(NONDETERMINISTIC_ALLOWED))
def test_nondeterministic_allowed(spark, expected, case):
    expected.check(spark.sql(NONDETERMINISTIC_ALLOWED[case]), name=case)


@pytest.mark.parametrize("case", cases(ERRORS, ERRORS_GAPS))
def test_errors(spark, expected, case):
    expected.check_error(lambda: spark.sql(ERRORS[case]).collect(), name=case)


def test_window_frame_names(spark, expected):
    """How Spark names a window's frame: DataFrame offsets as `n FOLLOWING` (negative ones
    too), SQL's as written."""
    w = Window.orderBy("id")
    df = spark.range(5).select(
        F.sum("id").over(w.rowsBetween(-1, 1)),
        F.sum("id").over(w.rowsBetween(-2, -1)),
        F.sum("id").over(w.rangeBetween(-1, 1)),
        F.sum("id").over(w.rowsBetween(Window.unboundedPreceding, 0)),
    )
    expected.check(df, name="dataframe")
    sql = spark.sql(
        "SELECT sum(id) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING), "
        "sum(id) OVER (ORDER BY id ROWS BETWEEN 2 FOLLOWING AND 3 FOLLOWING) FROM range(5)"
    )
    expected.check(sql, name="sql")


# Sums and averages of decimals at their precision's limit: a sum of DECIMAL(p, s) is a
# DECIMAL(min(p + 10, 38), s) and beyond it NULL, or ARITHMETIC_OVERFLOW under ANSI; an average
# rounds half up and is NULL (NUMERIC_VALUE_OUT_OF_RANGE) where it does not fit its type.
BIG = "CAST(99999999999999999999999999999999999999 AS DECIMAL(38,0))"
DECIMAL_LIMITS = {
    "sum_overflow": f"SELECT sum(x) s, avg(x) a FROM (SELECT {BIG} x FROM range(20))",
    "grouped_overflow": f"SELECT id % 2 g, sum(x) s, avg(x) a FROM (SELECT id, {BIG} x FROM range(20)) GROUP BY 1 ORDER BY 1",
    "back_in_range": f"SELECT sum(x) s, avg(x) a FROM (SELECT {BIG} * (CASE WHEN id % 2 = 0 THEN 1 ELSE -1 END) x FROM range(21))",
    "average_too_wide": "SELECT sum(x) s, avg(x) a FROM (SELECT CAST(900000000000000000000000000 AS DECIMAL(38,10)) x FROM range(10))",
    "rounding": "SELECT g, avg(x) a, sum(x) s FROM VALUES (1.005BD, 1), (2.0BD, 1), (NULL, 1), (NULL, 2), (3.333BD, 3), (-1.115BD, 3), "
    "(-0.005BD, 4), (0.001BD, 4), (0.002BD, 4) AS t(x, g) GROUP BY g ORDER BY g",
    "sliding": "SELECT g, sum(x) OVER w s, avg(x) OVER w a FROM VALUES (99999999999999999999999999999999999999BD, 1), "
    "(99999999999999999999999999999999999999BD, 2), (-99999999999999999999999999999999999999BD, 3), (1BD, 4) AS t(x, g) "
    "WINDOW w AS (ORDER BY g ROWS BETWEEN 1 PRECEDING AND CURRENT ROW)",
    "many_groups": "SELECT count(*) n, sum(s) s, sum(a) a, max(a) m FROM (SELECT id % 1000 g, sum(CAST(id AS DECIMAL(12,2)) / 7) s, "
    "avg(CAST(id AS DECIMAL(12,2)) / 7) a FROM range(100000) GROUP BY 1)",
    "filtered": "SELECT sum(x) FILTER (WHERE x > 1) s, avg(x) FILTER (WHERE x < 3) a FROM VALUES (1.5BD), (2.5BD), (3.5BD), (NULL) AS t(x)",
    # DISTINCT: alone (a grouping below a plain sum) and beside other aggregates (a set of
    # values per group).
    "distinct_sum_overflow": f"SELECT sum(DISTINCT x) s FROM (SELECT {BIG} - id x FROM range(20))",
    "distinct_avg_overflow": f"SELECT id % 2 g, avg(DISTINCT x) a FROM (SELECT id, {BIG} - id x FROM range(20)) GROUP BY 1 ORDER BY 1",
    "distinct_beside_others": f"SELECT id % 2 g, sum(DISTINCT x) s, count(id) n FROM (SELECT id, {BIG} - id % 5 x FROM range(20)) "
    "GROUP BY 1 ORDER BY 1",
    "distinct_values": "SELECT g, sum(DISTINCT x) s, avg(DISTINCT y) a, avg(DISTINCT x) ax, count(*) n FROM (SELECT id % 3 g, "
    "CAST(id % 5 AS DECIMAL(10,3)) / 7 x, CAST(id % 4 AS DECIMAL(5,1)) / 3 y FROM range(30)) GROUP BY g ORDER BY g",
}


@pytest.mark.parametrize("case", sorted(DECIMAL_LIMITS))
@pytest.mark.parametrize("ansi", ["legacy", "ansi"])
def test_decimal_sum_limits(spark, expected, case, ansi):
    spark.conf.set("spark.sql.ansi.enabled", "false" if ansi == "legacy" else "true")
    try:
        if ansi == "ansi" and case not in ("rounding", "many_groups", "filtered", "distinct_values"):
            expected.check_error(lambda: spark.sql(DECIMAL_LIMITS[case]).collect(), name=f"{case}_{ansi}")
        else:
            expected.check(spark.sql(DECIMAL_LIMITS[case]), name=f"{case}_{ansi}")
    finally:
        spark.conf.unset("spark.sql.ansi.enabled")
