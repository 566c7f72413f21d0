"""DataFrame methods that Spark Connect sends as their own relations (`df.na.*`, ...), with
answers recorded from real Spark."""

import pytest

from conftest import RECORD


@pytest.fixture(scope="module")
def df(spark):
    return spark.createDataFrame(
        [(1, "a", 1.0, None, True), (None, "b", float("nan"), "x", None), (3, None, None, "y", False)],
        "id INT, s STRING, d DOUBLE, t STRING, b BOOLEAN",
    )


NA = {
    # A number fills numeric columns (cast to their type; NaN counts as missing), a string
    # the string columns, a boolean the boolean ones.
    "fill_int": lambda df: df.fillna(0),
    "fill_double": lambda df: df.fillna(1.5),
    "fill_string": lambda df: df.fillna("z"),
    "fill_bool": lambda df: df.fillna(True),
    "fill_subset": lambda df: df.fillna(0, ["d"]),
    "fill_subset_other_kinds": lambda df: df.fillna("z", ["id", "s"]),
    "fill_dict": lambda df: df.fillna({"id": 7, "s": "q", "d": 2}),
    "fill_dict_mismatch": lambda df: df.fillna({"id": "x"}),
    "na_fill": lambda df: df.na.fill(5, subset="id"),
    "drop_any": lambda df: df.dropna(),
    "drop_all": lambda df: df.dropna("all"),
    "drop_thresh": lambda df: df.dropna(thresh=4),
    "drop_subset_nan": lambda df: df.dropna(subset=["d"]),
    "na_drop": lambda df: df.na.drop(how="any", subset=["id", "s"]),
    "replace_string": lambda df: df.replace("a", "q"),
    "replace_number_in_all_numeric": lambda df: df.replace(1, 9),
    "replace_lists": lambda df: df.replace(["a", "b"], ["c", "d"], "s"),
    "replace_dict": lambda df: df.replace({1.0: 5.0}),
    "replace_with_null": lambda df: df.replace("a", None),
    "replace_fraction_in_int": lambda df: df.replace(1.5, 8.0),
    "replace_bool": lambda df: df.replace(True, False),
}


@pytest.mark.parametrize("case", sorted(NA))
def test_na_functions(df, expected, case):
    expected.check(NA[case](df), name=case)


def test_na_errors(df, expected):
    expected.check_error(lambda: df.dropna(subset=["nope"]).collect(), name="drop_unknown_column")
    expected.check_error(lambda: df.fillna(0, subset=["nope"]).collect(), name="fill_unknown_column")


@pytest.fixture(scope="module")
def numbers(spark):
    return spark.createDataFrame(
        [(1, "a", 1.5, 10), (2, "b", None, 20), (3, "a", 3.25, None), (4, None, 4.0, 40)],
        "id INT, s STRING, d DOUBLE, l BIGINT",
    )


STATS = {
    "describe": lambda df: df.describe(),
    "describe_cols": lambda df: df.describe("s", "d"),
    "summary_some": lambda df: df.summary("count", "min", "max"),
    "summary_mean": lambda df: df.select("id", "l").summary("mean", "stddev"),
    "summary_default": lambda df: df.summary(),
    "summary_percentiles": lambda df: df.select("id", "d", "l").summary("10%", "50%", "99.9%", "count_distinct"),
    # A decimal's mean is a decimal (four digits finer), its stddev a double.
    "describe_decimal": lambda df: df.select(df.d.cast("decimal(5,2)").alias("m")).describe(),
}


@pytest.mark.parametrize("case", sorted(STATS))
def test_statistics(numbers, expected, case):
    expected.check(STATS[case](numbers), ordered=True, name=case)


def test_cov_and_corr(numbers, expected):
    # Spark's DataFrame cov/corr count a NULL as 0.0.
    expected.check_value(numbers.cov("id", "d"), name="cov")
    expected.check_value(numbers.cov("id", "l"), name="cov_long")
    expected.check_value(numbers.corr("id", "d"), name="corr")
    expected.check_value(numbers.stat.corr("id", "l", "pearson"), name="corr_pearson")
    expected.check_error(lambda: numbers.corr("id", "s"), name="corr_string")
    expected.check_error(lambda: numbers.cov("id", "nope"), name="cov_unknown")


def test_select_expr_star(numbers, expected):
    expected.check(numbers.selectExpr("*", "id + 1 AS next"), name="star")
    expected.check(numbers.alias("n").selectExpr("n.*"), name="qualified")


def test_sample_is_deterministic_for_a_seed(spark):
    """`sample` draws `rand(seed)` per partition in row order, as Spark does (Spark's own rows
    even differ between collect() and count()); `randomSplit`'s splits hash the seed and each
    row, so they partition the rows in every mode."""
    if RECORD:
        pytest.skip("Ember's own rows")
    df = spark.range(1000).selectExpr("id", "cast(id AS string) AS s")

    def ids(d):
        return sorted(r.id for r in d.collect())

    # (PySpark's `sample(0.3, seed=7)` drops the seed; the three-argument form keeps it.)
    first = ids(df.sample(False, 0.3, 7))
    assert first == ids(df.sample(False, 0.3, 7))
    assert 200 < len(first) < 400
    assert first != ids(df.sample(False, 0.3, 8))
    assert df.sample(False, 0.0, 1).count() == 0
    assert df.sample(False, 1.0, 1).count() == 1000
    splits = df.randomSplit([0.5, 0.3, 0.2], seed=11)
    parts = [ids(s) for s in splits]
    assert sorted(i for p in parts for i in p) == list(range(1000))
    assert 400 < len(parts[0]) < 600 and 100 < len(parts[2]) < 300


def test_sample_with_replacement(spark, expected):
    """With replacement each row is kept a Poisson number of times of mean `fraction` (which
    may exceed 1), drawn from the row's `rand(seed)` number: Spark's distribution, not its
    generator's rows (its PoissonSampler draws from its own generator)."""
    if not RECORD:
        df = spark.range(1000).selectExpr("id", "cast(id AS string) AS s")
        rows = [r.id for r in df.sample(True, 0.5, 3).collect()]
        assert rows == [r.id for r in df.sample(True, 0.5, 3).collect()]
        assert 420 < len(rows) < 580
        assert len(set(rows)) < len(rows), "some rows come more than once"
        assert set(rows) <= set(range(1000))
        assert df.sample(True, 0.5, 4).count() != len(rows) or rows != [r.id for r in df.sample(True, 0.5, 4).collect()]
        assert 1800 < df.sample(True, 2.0, 7).count() < 2200
        assert df.sample(True, 0.0, 1).count() == 0
        assert df.sample(True, 0.5, 3).columns == ["id", "s"]
    expected.check_error(lambda: spark.range(10).sample(True, -1.0, 1).count(), name="negative_fraction")


def test_samples_of_few_distinct_rows(spark):
    # Each row is drawn for itself: equal rows are not kept or dropped together.
    df = spark.range(1000).selectExpr("id % 3 AS k")
    assert 350 < df.sample(False, 0.5, 3).count() < 650
    assert 20 < df.sample(False, 0.1, 0).count() < 180


def test_sample_by_as_spark(spark, expected):
    # sampleBy filters by rand(seed) < the stratum's fraction, as Spark: its rows where the
    # partitioning is Spark's (a range).
    from pyspark.sql import functions as F

    dataset = spark.range(0, 100).select((F.col("id") % 3).alias("key"))
    sampled = dataset.sampleBy("key", fractions={0: 0.1, 1: 0.2}, seed=0)
    expected.check(sampled.groupBy("key").count(), name="counts")
    expected.check_value(dataset.sampleBy("key", {0: 1.0, 1: 0.5}, seed=0).count(), name="count")


def test_sample_by(spark):
    """Each stratum sampled with its fraction."""
    df = spark.range(1000).selectExpr("id", "id % 3 AS k")

    def sample(seed):
        return sorted((r.id, r.k) for r in df.sampleBy("k", {0: 0.5, 1: 1.0}, seed=seed).collect())

    rows = sample(7)
    assert rows == sample(7)
    assert rows != sample(8)
    counts = {k: sum(1 for _, kk in rows if kk == k) for k in range(3)}
    assert counts[1] == 333 and counts[2] == 0
    assert 120 < counts[0] < 215
    assert df.sampleBy("k", {}, seed=1).count() == 0


def test_xxhash64(spark, expected):
    expected.check(spark.sql("SELECT xxhash64('a', 1), xxhash64(1), xxhash64(NULL), xxhash64('')"), name="values")


def test_crosstab(numbers, expected):
    expected.check(numbers.crosstab("id", "s"), name="id_s")
    expected.check(numbers.crosstab("s", "l"), name="s_l")


def test_approx_quantile(numbers, expected):
    expected.check_value(numbers.approxQuantile("d", [0.0, 0.5, 1.0], 0.0), name="one_column")
    expected.check_value(numbers.approxQuantile(["id", "l"], [0.25, 0.75], 0.0), name="columns")
    expected.check_value(numbers.approxQuantile("id", [0.1, 0.9], 0.25), name="with_error")
    expected.check_error(lambda: numbers.approxQuantile("s", [0.5], 0.0), name="string_column")


def test_count_of_several_columns(spark, expected):
    from pyspark.sql import functions as F

    df = spark.createDataFrame([(1, "a"), (1, "a"), (2, None), (None, "b"), (3, "c"), (3, "d")], "x INT, y STRING")
    expected.check(df.select(F.count_distinct("x", "y")), name="dataframe")
    expected.check(df.groupBy("x").agg(F.count_distinct("x", "y").alias("n")), name="grouped")
    df.createOrReplaceTempView("count_tuples")
    expected.check(spark.sql("SELECT count(DISTINCT x, y), count(x, y), count(DISTINCT x) FROM count_tuples"), name="sql")


def test_observe(spark, expected):
    from pyspark.sql import Observation
    from pyspark.sql import functions as F

    df = spark.range(10).withColumn("g", F.col("id") % 3)
    seen = Observation("metrics")
    metrics = [F.count(F.lit(1)).alias("rows"), F.max("id").alias("mx"), F.sum("g").alias("s"), F.avg("id").alias("a")]
    rows = df.observe(seen, *metrics).filter("id > 4").collect()
    assert len(rows) == 5
    expected.check_value(seen.get, name="after_filter")
    counted = Observation("counted")
    assert df.observe(counted, (F.sum("id") + 1).alias("y"), F.lit(5).alias("five")).count() == 10
    expected.check_value(counted.get, name="expression_of_aggregates")
    collected = Observation("collected")
    df.observe(collected, F.sort_array(F.collect_set("g")).alias("groups")).collect()
    expected.check_value(collected.get, name="collect_set")
    expected.check_error(lambda: df.observe("x", F.col("id").alias("y")).collect(), name="attribute")
    expected.check_error(lambda: df.observe("x", F.count_distinct("id").alias("y")).collect(), name="distinct")
    expected.check_error(lambda: df.observe("x", (F.sum("id") + F.col("g")).alias("y")).collect(), name="column_outside_aggregate")


def test_freq_items(spark, expected):
    df = spark.createDataFrame(
        [(1, "a", 1.0), (1, "b", None), (2, "a", 3.0), (None, "c", 3.0), (1, None, 3.0)], "x int, s string, d double"
    )

    def sorted_items(frame):
        row = frame.collect()[0]
        return {k: sorted(v, key=lambda x: (x is not None, x)) for k, v in row.asDict().items()}

    expected.check_value(sorted_items(df.freqItems(["x", "s", "d"])), name="few_values")
    expected.check_value(df.freqItems(["x", "s"]).schema.simpleString(), name="schema")
    expected.check_value(sorted_items(df.stat.freqItems(["x"], 0.5)), name="one_frequent")
    expected.check_value(sorted_items(spark.range(0).freqItems(["id"])), name="empty")
    expected.check_error(lambda: df.freqItems(["x"], 1e-6).collect(), name="bad_support")
    expected.check_error(lambda: df.freqItems(["nope"]).collect(), name="unknown_column")


def test_transpose(spark, expected):
    from pyspark.sql import functions as F

    t = spark.createDataFrame([("b", 1, 2), ("a", 3, 4)], "k string, v1 int, v2 int")
    expected.check(t.transpose(), name="default_index")
    widened = spark.createDataFrame([("b", 1, 2.5), ("a", 3, None), (None, 5, 6.0)], "k string, v1 int, v2 double")
    expected.check(widened.transpose(), name="widened_null_index")
    expected.check(spark.createDataFrame([(3, 1), (1, 2)], "k int, v int").transpose(), name="int_index")
    expected.check(spark.createDataFrame([("a",)], "k string").transpose(), name="no_values")
    expected.check_error(lambda: t.transpose(F.col("v1")).collect(), name="no_common_type")


def test_local_checkpoint(spark, expected):
    from pyspark.sql import functions as F

    df = spark.range(5).withColumn("s", F.concat(F.lit("r"), F.col("id").cast("string")))
    checkpointed = df.localCheckpoint()
    expected.check(checkpointed.filter("id > 1"), name="rows", nullability=True)
    lazy = df.localCheckpoint(eager=False)
    expected.check(lazy.groupBy().count(), name="lazy")


@pytest.mark.skipif(RECORD, reason="Spark needs a checkpoint directory for checkpoint(); Ember keeps the rows in the session")
def test_checkpoint_keeps_rows_in_the_session(spark):
    df = spark.range(3).checkpoint()
    assert [r.id for r in df.orderBy("id").collect()] == [0, 1, 2]
    assert df.schema.simpleString() == "struct<id:bigint>"


def test_lateral_join(spark, expected):
    from pyspark.sql import functions as F

    t = spark.range(3)
    u = spark.createDataFrame([(1, 10), (2, 20), (2, 21)], "k INT, v INT")
    matching = u.where(F.col("k") == F.col("id").outer())
    expected.check(t.lateralJoin(matching.select("v")), name="inner_projected")
    expected.check(t.lateralJoin(matching), name="inner")
    expected.check(t.lateralJoin(matching.select("v"), how="left"), name="left")
    expected.check(t.lateralJoin(u.where(F.col("k") >= F.col("id").outer()), F.col("v") > 15), name="with_condition")


def test_html_string(spark, expected):
    """A notebook's `_repr_html_` (eager evaluation): an HTML table of the cells `show()` prints."""
    spark.conf.set("spark.sql.repl.eagerEval.enabled", True)
    try:
        df = spark.createDataFrame([(1, "a<b", None), (2, "x" * 30, 1.5)], "id INT, s STRING, d DOUBLE")
        expected.check_value(df._repr_html_(), name="table")
        spark.conf.set("spark.sql.repl.eagerEval.maxNumRows", 1)
        expected.check_value(df._repr_html_(), name="top_rows")
        expected.check_value(spark.range(0)._repr_html_(), name="empty")
    finally:
        spark.conf.unset("spark.sql.repl.eagerEval.maxNumRows")
        spark.conf.unset("spark.sql.repl.eagerEval.enabled")


AS_OF = {
    "backward_no_keys": lambda l, r, F: l._joinAsOf(r, "a", "a"),
    "backward": lambda l, r, F: l._joinAsOf(r, "a", "a", on="k"),
    "left": lambda l, r, F: l._joinAsOf(r, "a", "a", on="k", how="left"),
    "forward": lambda l, r, F: l._joinAsOf(r, "a", "a", on="k", direction="forward"),
    "nearest": lambda l, r, F: l._joinAsOf(r, "a", "a", on="k", direction="nearest"),
    "no_exact_matches": lambda l, r, F: l._joinAsOf(r, "a", "a", on="k", allowExactMatches=False),
    "tolerance": lambda l, r, F: l._joinAsOf(r, "a", "a", on="k", tolerance=F.lit(1), how="left"),
    "condition": lambda l, r, F: l._joinAsOf(r, l.a, r.a, on=l.k == r.k),
}


@pytest.mark.parametrize("case", sorted(AS_OF))
def test_as_of_join(spark, expected, case):
    from pyspark.sql import functions as F

    left = spark.createDataFrame([(1, "a", 1), (5, "b", 1), (10, "c", 2), (7, "d", 3)], "a INT, lv STRING, k INT")
    right = spark.createDataFrame(
        [(1, 1, "x"), (2, 1, "y"), (3, 1, "z"), (6, 1, "w"), (7, 2, "q"), (11, 2, "p")], "a INT, k INT, rv STRING"
    )
    expected.check(AS_OF[case](left, right, F), name=case)


def test_as_of_join_of_timestamps(spark, expected):
    from pyspark.sql import functions as F

    trades = spark.createDataFrame([("2024-01-01 10:00:05", "A"), ("2024-01-01 10:01:00", "A")], "t STRING, s STRING").select(
        F.to_timestamp("t").alias("t"), "s"
    )
    quotes = spark.createDataFrame([("2024-01-01 10:00:00", "A", 1.5), ("2024-01-01 10:00:50", "A", 2.5)], "qt STRING, s STRING, p DOUBLE").select(
        F.to_timestamp("qt").alias("qt"), "s", "p"
    )
    expected.check(trades._joinAsOf(quotes, "t", "qt", on="s", tolerance=F.expr("INTERVAL 30 SECONDS"), how="left"))


# An as-of join's every direction, with and without exact matches and a tolerance (Spark's
# bound is strict when exact matches are not allowed), inner and left; a NULL as-of value is
# never matched; of equally close rows the last one wins (Spark's `min_by`).
AS_OF_SEMANTICS = {
    f"{direction}_{'exact' if exact else 'inexact'}_{'tolerance' if tolerance else 'unbounded'}_{how}": (
        direction,
        exact,
        tolerance,
        how,
    )
    for direction in ("backward", "forward", "nearest")
    for exact in (True, False)
    for tolerance in (False, True)
    for how in ("inner", "left")
}


@pytest.mark.parametrize("case", sorted(AS_OF_SEMANTICS))
def test_as_of_join_semantics(spark, expected, case):
    from pyspark.sql import functions as F

    direction, exact, tolerance, how = AS_OF_SEMANTICS[case]
    left = spark.createDataFrame([(10, "q", 1), (4, "r", 1), (None, "n", 1), (7, "s", 2)], "lk INT, ll STRING, g INT")
    right = spark.createDataFrame(
        [(8, "prev", 1), (10, "exact", 1), (12, "next", 1), (None, "null", 1), (3, "far", 1), (6, "other", 2)], "rk INT, rl STRING, g INT"
    )
    extra = {"tolerance": F.lit(2)} if tolerance else {}
    joined = left._joinAsOf(right, "lk", "rk", on="g", how=how, allowExactMatches=exact, direction=direction, **extra)
    expected.check(joined, name=case)


def test_as_of_join_arguments(spark, expected):
    from pyspark.sql import functions as F

    left = spark.createDataFrame([(10, "q"), (4, "r")], "lk INT, ll STRING")
    right = spark.createDataFrame([(8, "prev"), (12, "next"), (3, "far")], "rk INT, rl STRING")

    def join(**kw):
        return left._joinAsOf(right, "lk", "rk", **kw).select("lk", "rl")

    expected.check(join(how="LEFT_OUTER", direction="Nearest"), name="spellings")
    expected.check(join(tolerance=F.lit(1.5), direction="nearest"), name="fractional_tolerance")
    expected.check(left._joinAsOf(right.selectExpr("CAST(rk AS BIGINT) rk", "rl"), "lk", "rk", direction="forward", tolerance=F.lit(2)), name="wider_right")
    dates = left.selectExpr("date_add(DATE'2024-01-01', lk) AS lk", "ll")
    expected.check(dates._joinAsOf(right.selectExpr("date_add(DATE'2024-01-01', rk) AS rk", "rl"), "lk", "rk", tolerance=F.lit(1)), name="dates")
    expected.check_error(lambda: join(how="full").collect(), name="full_join")
    expected.check_error(lambda: join(how="sideways").collect(), name="unknown_join_type")
    expected.check_error(lambda: join(direction="sideways").collect(), name="unknown_direction")
    expected.check_error(lambda: join(tolerance=F.lit(-1)).collect(), name="negative_tolerance")
    expected.check_error(lambda: join(tolerance=F.lit(None).cast("int")).collect(), name="null_tolerance")
    expected.check_error(lambda: join(tolerance=F.col("lk")).collect(), name="column_tolerance")
    strings = left.selectExpr("CAST(lk AS STRING) AS lk", "ll")
    expected.check(strings._joinAsOf(right, "lk", "rk", direction="nearest"), name="string_and_number")
    expected.check_error(
        lambda: strings._joinAsOf(right.selectExpr("CAST(rk AS STRING) AS rk", "rl"), "lk", "rk").collect(), name="strings"
    )
    expected.check_error(
        lambda: left.selectExpr("lk > 5 AS lk")._joinAsOf(right.selectExpr("rk > 5 AS rk"), "lk", "rk").collect(), name="booleans"
    )


@pytest.fixture(scope="module")
def rows_to_convert(spark):
    return spark.createDataFrame([("a", 1, 2), ("b", 3, None)], "category STRING, first INT, second INT")


def _schema(ddl):
    from pyspark.sql.types import _parse_datatype_string

    return _parse_datatype_string(ddl)


def _fields(*fields):
    from pyspark.sql.types import StructField, StructType

    return StructType([StructField(*f) for f in fields])


def _types():
    import pyspark.sql.types as T

    return T


# `df.to(schema)`: columns matched by name, reordered, cast where Spark's ANSI store assignment
# allows (narrowing too, failing on overflow), missing nullable columns NULL, others dropped.
TO_SCHEMA = {
    "widen": lambda df, s: df.to(_schema("category STRING, first BIGINT, second BIGINT")),
    "reorder_and_drop": lambda df, s: df.to(_schema("second BIGINT, category STRING")),
    "missing_nullable": lambda df, s: df.to(_schema("first INT, nope INT")),
    "case_insensitive": lambda df, s: df.to(_schema("FIRST INT, Category STRING")),
    "narrow": lambda df, s: df.to(_schema("first SMALLINT")),
    "to_string": lambda df, s: df.to(_schema("first STRING, second STRING")),
    "to_fractional": lambda df, s: df.to(_schema("first DOUBLE, second DECIMAL(5, 2)")),
    "empty": lambda df, s: df.to(_schema("struct<>")),
    "struct_reorder": lambda df, s: s.sql("SELECT named_struct('x', 1, 'y', 'a') AS s").to(_schema("s STRUCT<y: STRING, x: BIGINT>")),
    "struct_fields": lambda df, s: s.sql("SELECT named_struct('x', 1, 'y', 'a') AS s").to(_schema("s STRUCT<x: BIGINT, z: INT>")),
    "null_struct": lambda df, s: s.sql("SELECT CAST(NULL AS STRUCT<x: INT>) AS s").to(_schema("s STRUCT<x: BIGINT, q: INT>")),
    "array_of_structs": lambda df, s: s.sql("SELECT array(named_struct('x', 1, 'y', 'a'), NULL) AS a").to(_schema("a ARRAY<STRUCT<y: STRING, x: BIGINT>>")),
    "map_values": lambda df, s: s.sql("SELECT map('k', named_struct('x', 1, 'y', 'a')) AS m").to(_schema("m MAP<STRING, STRUCT<y: STRING, q: INT>>")),
    "array_widen": lambda df, s: s.sql("SELECT array(1, 2) AS a").to(_schema("a ARRAY<BIGINT>")),
    "datetimes": lambda df, s: s.sql("SELECT DATE'2024-01-02' AS d, TIMESTAMP_NTZ'2024-01-02 03:04:05' AS t").to(_schema("t DATE, d TIMESTAMP_NTZ")),
    "other_values_to_string": lambda df, s: s.sql("SELECT true AS b, DATE'2024-01-02' AS d, 1.50 AS n").to(_schema("b STRING, d STRING, n STRING")),
}

TO_SCHEMA_ERRORS = {
    "string_to_int": lambda df, s: df.to(_schema("category INT")),
    "boolean_to_int": lambda df, s: s.sql("SELECT true AS b").to(_schema("b INT")),
    "string_to_date": lambda df, s: df.to(_schema("category DATE")),
    "struct_field_type": lambda df, s: s.sql("SELECT named_struct('x', 1) AS s").to(_schema("s STRUCT<x: BOOLEAN>")),
    "array_element_type": lambda df, s: s.sql("SELECT array(1) AS a").to(_schema("a ARRAY<BOOLEAN>")),
    "array_to_string": lambda df, s: s.sql("SELECT array(1) AS a").to(_schema("a STRING")),
    "nullable_into_non_nullable": lambda df, s: df.to(_fields(("first", _types().IntegerType(), False))),
    "missing_non_nullable": lambda df, s: df.to(_fields(("nope", _types().IntegerType(), False))),
    "missing_non_nullable_field": lambda df, s: s.sql("SELECT named_struct('x', 1) AS s").to(
        _fields(("s", _fields(("z", _types().IntegerType(), False)), True))
    ),
    "null_elements_into_non_nullable": lambda df, s: s.sql("SELECT array(1, NULL) AS a").to(
        _fields(("a", _types().ArrayType(_types().IntegerType(), False), True))
    ),
    "ambiguous": lambda df, s: s.sql("SELECT 1 AS a, 2 AS A").to(_schema("a INT")),
    "char": lambda df, s: df.to(_fields(("category", _types().CharType(3), True))),
    "overflow": lambda df, s: s.sql("SELECT 3000000000 AS x").to(_schema("x INT")),
    "decimal_overflow": lambda df, s: s.sql("SELECT 12.5 AS d").to(_schema("d DECIMAL(2, 1)")),
}


@pytest.mark.parametrize("case", sorted(TO_SCHEMA))
def test_to_schema(spark, rows_to_convert, expected, case):
    # (The client answers `schema` of `df.to(...)` itself: `select("*")` asks the server.)
    expected.check(TO_SCHEMA[case](rows_to_convert, spark).select("*"), name=case)


@pytest.mark.parametrize("case", sorted(TO_SCHEMA_ERRORS))
def test_to_schema_errors(spark, rows_to_convert, expected, case):
    expected.check_error(lambda: TO_SCHEMA_ERRORS[case](rows_to_convert, spark).collect(), name=case)


def test_to_schema_case_sensitive(spark, rows_to_convert, expected):
    spark.conf.set("spark.sql.caseSensitive", "true")
    try:
        expected.check(rows_to_convert.to(_schema("first BIGINT, Second BIGINT")).select("*"), name="case_sensitive")
    finally:
        spark.conf.unset("spark.sql.caseSensitive")


def test_to_schema_metadata(spark, expected):
    """A column keeps its metadata, updated by the schema field's."""
    from pyspark.sql import functions as F

    T = _types()
    df = spark.createDataFrame([("a", 1, 2)], "category STRING, n INT, m INT")
    tagged = df.select(F.col("n").alias("n", metadata={"a": 1}), "m")
    cases = {
        "from_the_schema": df.to(_fields(("n", T.LongType(), True, {"comment": "hi"}))),
        "merged": tagged.to(_fields(("n", T.LongType(), True, {"b": 2}))),
        "overridden": tagged.to(_fields(("n", T.IntegerType(), True, {"a": 5}))),
        "kept": tagged.to(_fields(("n", T.IntegerType(), True))),
        "missing_column": df.to(_fields(("zz", T.IntegerType(), True, {"c": 3}))),
    }
    for name, frame in cases.items():
        expected.check_value([[f.name, f.metadata] for f in frame.select("*").schema.fields], name=name)


def _nearest_by_join_inputs(spark):
    users = spark.createDataFrame([(1, 10.0), (2, 20.0), (3, 30.0), (4, None)], "user_id INT, score DOUBLE")
    products = spark.createDataFrame([("A", 11.0), ("B", 22.0), ("C", 5.0), ("D", None)], "product STRING, pscore DOUBLE")
    return users, products


# `df.nearestByJoin`: each left row with its k best right rows; a NULL ranking is no match, a
# left row without one is dropped (inner) or kept once with NULLs (left outer).
NEAREST_BY_JOIN = {
    "distance": lambda u, p, F: u.nearestByJoin(p, F.abs(u.score - p.pscore), 1, "exact", "distance"),
    "distance_two": lambda u, p, F: u.nearestByJoin(p, F.abs(u.score - p.pscore), 2, "exact", "distance"),
    "similarity_two": lambda u, p, F: u.nearestByJoin(p, F.abs(u.score - p.pscore), 2, "exact", "similarity"),
    "approx": lambda u, p, F: u.nearestByJoin(p, F.abs(u.score - p.pscore), 2, "approx", "distance"),
    "more_than_there_are": lambda u, p, F: u.nearestByJoin(p, F.abs(u.score - p.pscore), 100, "exact", "distance"),
    "left_outer": lambda u, p, F: u.nearestByJoin(p, F.abs(u.score - p.pscore), 2, "exact", "distance", joinType="leftouter"),
    "left_spellings": lambda u, p, F: u.nearestByJoin(p, F.abs(u.score - p.pscore), 1, "EXACT", "Similarity", joinType="LEFT_OUTER"),
    "empty_right_inner": lambda u, p, F: u.nearestByJoin(p.filter("false"), F.abs(u.score - p.pscore), 1, "exact", "distance"),
    "empty_right_left_outer": lambda u, p, F: u.nearestByJoin(p.filter("false"), F.abs(u.score - p.pscore), 1, "exact", "distance", joinType="left"),
    "all_null_left_outer": lambda u, p, F: u.nearestByJoin(p, F.lit(None).cast("double"), 1, "exact", "distance", joinType="leftouter"),
    "string_ranking": lambda u, p, F: u.nearestByJoin(p, F.concat(p.product, F.col("user_id").cast("string")), 1, "exact", "similarity"),
    "names_by_string": lambda u, p, F: u.nearestByJoin(p, F.abs(F.col("score") - F.col("pscore")), 1, "exact", "distance").select("user_id", "product"),
    "same_names": lambda u, p, F: u.nearestByJoin(u.select("user_id", F.col("score").alias("other")), F.abs(F.col("score") - F.col("other") - 9), 1, "exact", "distance"),
    "then_filtered": lambda u, p, F: u.nearestByJoin(p, F.abs(u.score - p.pscore), 2, "exact", "distance").filter("pscore > 10"),
}


@pytest.mark.parametrize("case", sorted(NEAREST_BY_JOIN))
def test_nearest_by_join(spark, expected, case):
    from pyspark.sql import functions as F

    users, products = _nearest_by_join_inputs(spark)
    expected.check(NEAREST_BY_JOIN[case](users, products, F), name=case)


def _raw_nearest_by_join(frame, **fields):
    """`frame` (a nearestByJoin) with fields of its relation replaced, as a client that does not
    check them first sends it."""
    from pyspark.sql.connect import plan
    from pyspark.sql.connect.dataframe import DataFrame

    class Raw(plan.LogicalPlan):
        def __init__(self, base):
            super().__init__(None)
            self.base = base

        def plan(self, session):
            relation = self.base.plan(session)
            for name, value in fields.items():
                setattr(relation.nearest_by_join, name, value)
            return relation

    return DataFrame(Raw(frame._plan), session=frame._session)


def test_nearest_by_join_errors(spark, expected):
    from pyspark.sql import functions as F

    users, products = _nearest_by_join_inputs(spark)
    good = users.nearestByJoin(products, F.abs(users.score - products.pscore), 1, "exact", "distance")
    for name, fields in {
        "no_results": {"num_results": 0},
        "too_many_results": {"num_results": 100001},
        "full_join": {"join_type": "full"},
        "unknown_join_type": {"join_type": "left outer"},
        "unknown_mode": {"mode": "fast"},
        "unknown_direction": {"direction": "ascending"},
        "join_type_before_the_rest": {"num_results": 0, "join_type": "cross", "mode": "x", "direction": "y"},
        "mode_before_direction": {"num_results": 0, "mode": "x", "direction": "y"},
        "missing_join_type": {"join_type": ""},
        "missing_direction": {"direction": ""},
    }.items():
        expected.check_error(lambda: _raw_nearest_by_join(good, **fields).collect(), name=name)
    expected.check(_raw_nearest_by_join(good, num_results=100000, join_type="Left_Outer"), name="largest_k")
    expected.check_error(
        lambda: users.nearestByJoin(products, F.create_map(users.score, products.pscore), 1, "exact", "distance").collect(), name="map_ranking"
    )
    expected.check_error(lambda: users.nearestByJoin(products, F.sum(products.pscore), 1, "exact", "distance").collect(), name="aggregate_ranking")
    expected.check_error(lambda: users.nearestByJoin(products, F.col("nope"), 1, "exact", "distance").collect(), name="unknown_column")


def test_nearest_by_join_negated_similarity(spark, expected):
    # A similarity written as a negated distance (PySpark's own example).
    from pyspark.sql import functions as F

    users = spark.createDataFrame([(1, 10.0), (2, 20.0), (3, 30.0)], ["user_id", "score"])
    products = spark.createDataFrame([("A", 11.0), ("B", 22.0), ("C", 5.0)], ["product", "pscore"])
    joined = users.nearestByJoin(products, -F.abs(users.score - products.pscore), 1, "exact", "similarity")
    expected.check(joined.select("user_id", "product"), name="rows")
