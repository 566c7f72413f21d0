"""Spark's analyzer on references and scopes: columns a projection dropped used by a later
filter or sort (Spark's missing-reference rule, through selects, filters, drops, renames,
distinct, joins and aliases), DataFrame columns that are not part of the query
(CANNOT_RESOLVE_DATAFRAME_COLUMN), duplicate names, ORDER BY positions, common table
expressions' scopes, constant arguments; answers and error classes recorded from Spark 4.3."""

import pytest
from pyspark.sql import Window
from pyspark.sql import functions as F

from conftest import cases


@pytest.fixture(scope="module")
def frames(spark):
    df = spark.createDataFrame(
        [(1, "a", 10, (1, 2)), (2, "b", 25, (3, 4)), (3, "c", 30, (5, 6)), (4, "a", 40, (7, 8))],
        "id INT, name STRING, age INT, s STRUCT<x: INT, y: INT>",
    )
    df2 = spark.createDataFrame([(1, "p"), (2, "q")], "id INT, v STRING")
    other = spark.createDataFrame([(1,)], "a INT")
    dup = spark.createDataFrame([(1, "a", 3), (2, "a", 4), (3, "b", 5)], "id INT, name STRING, age INT")
    df.createOrReplaceTempView("people")
    return {"df": df, "df2": df2, "other": other, "dup": dup}


# (frame -> DataFrame, ordered)
MISSING = {
    "select_filter": (lambda f: f["df"].select("name").filter(f["df"].age > 21), False),
    "select_where_text": (lambda f: f["df"].select("name").where("age > 21"), False),
    "select_filter_col": (lambda f: f["df"].select("name").filter(F.col("age") > 21), False),
    "select_orderby": (lambda f: f["df"].select("name").orderBy(f["df"].age.desc()), True),
    "select_orderby_name": (lambda f: f["df"].select("name").orderBy("age"), True),
    "alias_filter": (lambda f: f["df"].select(f["df"].name.alias("n")).filter(f["df"].age > 21), False),
    "withcolumn_select_filter": (
        lambda f: f["df"].withColumn("z", f["df"].age * 2).select("name").filter("z > 50"),
        False,
    ),
    "struct_dropped": (lambda f: f["df"].select("name").filter(f["df"].s.x > 2), False),
    "struct_field_after": (lambda f: f["df"].select("s.x").filter(f["df"].s.y > 2), False),
    "two_selects": (lambda f: f["df"].select("name", "age").select("name").filter(f["df"].age > 21), False),
    "filter_then_orderby": (
        lambda f: f["df"].select("name").filter(f["df"].age > 21).orderBy(f["df"].id.desc()),
        True,
    ),
    "join_filter": (lambda f: f["df"].join(f["df2"], "id").select("name").filter(f["df2"].v == "q"), False),
    "join_orderby": (
        lambda f: f["df"].join(f["df2"], f["df"].id == f["df2"].id).select(f["df"].name).orderBy(f["df2"].v.desc()),
        True,
    ),
    "subquery_alias": (lambda f: f["df"].alias("t").select("t.name").filter(F.col("t.age") > 21), False),
    "limit_filter": (lambda f: f["df"].select("name").orderBy("id").limit(2).filter(f["df"].age > 21), False),
    "drop_filter": (lambda f: f["df"].drop("age").filter(f["df"].age > 21), False),
    "renamed_filter": (lambda f: f["df"].withColumnRenamed("age", "a").filter(f["df"].age > 21), False),
    "distinct_filter": (lambda f: f["df"].select("name", "id").distinct().filter(f["df"].age > 21), False),
    "select_expr_filter": (lambda f: f["df"].selectExpr("name").filter("age > 21"), False),
    "window_then_filter": (
        lambda f: f["df"].select("name", F.row_number().over(Window.orderBy("id")).alias("r")).filter(f["df"].age > 0),
        False,
    ),
    "filter_then_select": (lambda f: f["df"].select("name", "id").filter(f["df"].age > 21).select("name"), False),
    "sql_order_missing": (lambda f: f["spark"].sql("SELECT name FROM people ORDER BY age DESC"), True),
    "sql_order_missing_expr": (lambda f: f["spark"].sql("SELECT name FROM people ORDER BY age + id DESC"), True),
    "sql_having_missing": (lambda f: f["spark"].sql("SELECT name FROM people GROUP BY name HAVING max(age) > 20"), False),
    "sql_order_aggregate": (lambda f: f["spark"].sql("SELECT name FROM people GROUP BY name ORDER BY max(age)"), True),
}


@pytest.mark.parametrize("case", cases(MISSING))
def test_missing_references(spark, frames, expected, case):
    build, ordered = MISSING[case]
    expected.check(build({**frames, "spark": spark}), ordered=ordered, name=case)


ERRORS = {
    "foreign_column": lambda f: f["df"].select(f["other"].a),
    "foreign_column_filter": lambda f: f["df"].filter(f["other"].a > 1),
    "foreign_same_name": lambda f: f["df"].select(f["df2"].id),
    "own_missing_column": lambda f: f["df"].select(f["df"]["nope"]),
    "own_missing_after_select": lambda f: f["df"].select("name").filter(f["df"]["nope"] > 1),
    "join_missing_column": lambda f: f["df"].join(f["df2"], "id").select(f["df2"]["nope"]),
    "drop_foreign": lambda f: f["df"].drop(f["df2"].v),
    "drop_foreign_same_name": lambda f: f["df"].drop(f["df2"].id),
    "aggregated_away": lambda f: f["df"].groupBy("name").count().filter(f["df"].age > 1),
    "sql_distinct_order_missing": lambda f: f["spark"].sql("SELECT DISTINCT name FROM people ORDER BY age"),
    "with_columns_duplicate": lambda f: f["df"].withColumns({"a": F.lit(1), "A": F.lit(2)}),
    "order_by_position_beyond": lambda f: f["spark"].sql("SELECT 1 ORDER BY 5"),
    "order_by_position_zero": lambda f: f["spark"].sql("SELECT 1 ORDER BY 0"),
    "order_by_position_negative": lambda f: f["spark"].sql("SELECT 1 a ORDER BY -1"),
    "cte_duplicate_names": lambda f: f["spark"].sql("WITH t AS (SELECT 1 a), t AS (SELECT 2 a) SELECT * FROM t"),
    "cte_forward_reference": lambda f: f["spark"].sql("WITH u AS (SELECT * FROM t), t AS (SELECT 1 a) SELECT * FROM u"),
    "cte_self_reference": lambda f: f["spark"].sql("WITH t AS (SELECT * FROM t) SELECT * FROM t"),
    # operand types Spark's analyzer refuses
    "and_of_integers": lambda f: f["spark"].sql("SELECT 1 AND 2"),
    "not_of_integer": lambda f: f["spark"].sql("SELECT NOT 1"),
    "plus_array": lambda f: f["spark"].sql("SELECT 1 + array(1)"),
    "structs_of_other_shapes": lambda f: f["spark"].sql("SELECT struct(1) = struct(1, 2)"),
    "negative_array": lambda f: f["spark"].sql("SELECT -array(1)"),
    "element_at_of_integer": lambda f: f["spark"].sql("SELECT element_at(1, 1)"),
    "percentile_beyond_one": lambda f: f["spark"].sql("SELECT percentile(1, 2)"),
    "filter_lambda_not_boolean": lambda f: f["spark"].sql("SELECT filter(array(1), x -> 1)"),
    "exists_lambda_not_boolean": lambda f: f["spark"].sql("SELECT exists(array(1), x -> x)"),
    "if_integer_condition": lambda f: f["spark"].sql("SELECT if(1, 2, 3)"),
    "case_integer_condition": lambda f: f["spark"].sql("SELECT CASE WHEN 1 THEN 2 END"),
    "case_column_condition": lambda f: f["df"].selectExpr("CASE WHEN id THEN 1 ELSE 0 END"),
}


@pytest.mark.parametrize("case", cases(ERRORS))
def test_errors(spark, frames, expected, case):
    expected.check_error(lambda: ERRORS[case]({**frames, "spark": spark}).collect(), name=case)


def test_distinct_keeps_one_row_of_each(spark, frames, expected):
    # distinct() over a projection, then a filter on a column the projection dropped: Spark
    # keeps that column of one row of each group (here each group has one row).
    dup = frames["dup"]
    expected.check(dup.select("name", "id").distinct().filter(dup.age > 3))


SQL = {
    "cte_union_twice": "WITH t AS (SELECT 1 a) SELECT a FROM t UNION ALL SELECT a FROM t",
    "cte_subquery": "WITH t AS (SELECT 1 a) SELECT * FROM t WHERE a IN (SELECT a FROM t)",
    "cte_nested_shadow": "WITH t AS (SELECT 1 a) SELECT * FROM (WITH t AS (SELECT 2 a) SELECT * FROM t)",
    "cte_earlier_in_later": "WITH t AS (SELECT 1 a), u AS (SELECT a + 1 b FROM t) SELECT * FROM u, t",
    "cte_scalar_subquery": "WITH t AS (SELECT 5 a) SELECT (SELECT max(a) FROM t) m",
    "cte_outer_in_inner": "WITH t AS (SELECT 1 a) SELECT * FROM (WITH u AS (SELECT a + 1 b FROM t) SELECT * FROM u)",
    "cte_shadowed_inside": "WITH t AS (SELECT 1 a), u AS (WITH t AS (SELECT 7 a) SELECT a FROM t) SELECT u.a, t.a FROM u, t",
    "range_constant_expression": "SELECT * FROM range(1 + 2)",
    "range_constant_expressions": "SELECT * FROM range(2 * 2, 10 - 4)",
    "range_cast": "SELECT * FROM range(CAST('3' AS INT))",
    "arrays_zip_no_arguments": "SELECT arrays_zip()",
    # column arguments where Spark takes them
    "date_format_pattern_column": "SELECT f, date_format(DATE'2020-01-02', f) d, date_format(TIMESTAMP'2020-01-02 03:04:05', f) t, "
    "date_format(CAST(NULL AS DATE), f) n FROM VALUES ('yyyy'), ('MM-dd'), ('HH:mm:ss EEE'), (CAST(NULL AS STRING)) t(f)",
    "to_timestamp_pattern_column": "SELECT to_timestamp(s, f) FROM VALUES ('2020-01-02', 'yyyy-MM-dd'), ('02/01/2020', 'dd/MM/yyyy') t(s, f)",
}


@pytest.mark.parametrize("case", cases(SQL))
def test_sql(spark, expected, case):
    expected.check(spark.sql(SQL[case]), name=case)


def test_view_of_dataframe_columns(spark, frames, expected):
    # A view keeps a DataFrame's plan without its plan ids; its `df.a` references still
    # resolve when the view is made and when a later query (with plan ids of its own) reads it.
    df = frames["df"]
    df.filter(df.age > 21).select(df.name, df.id).createOrReplaceTempView("older")
    other = spark.createDataFrame([(2, "x")], "id INT, w STRING")
    expected.check(other.join(spark.table("older"), "id"), name="joined")
    expected.check(spark.sql("SELECT name FROM older"), name="sql")


NON_ANSI = {
    # numbers to integer types: low bits kept, floating point values saturated (NaN is 0)
    "integer_casts": "SELECT CAST(300 AS TINYINT) a, CAST(-129 AS TINYINT) b, CAST(3000000000L AS INT) c, CAST(1e20 AS INT) d, "
    "CAST(-1e20 AS BIGINT) e, CAST(CAST('NaN' AS DOUBLE) AS INT) f, CAST(1e10 AS SMALLINT) g, CAST(3.9D AS INT) h, "
    "CAST(-3.9D AS INT) i, CAST(CAST('Infinity' AS DOUBLE) AS BIGINT) j, CAST(70000 AS SMALLINT) k, CAST(1e10 AS TINYINT) l, "
    "CAST(CAST(3.5e9 AS FLOAT) AS INT) m, CAST(12345678901.5BD AS INT) n, CAST(1e40D AS FLOAT) o, CAST(-200.7D AS TINYINT) p",
    "integer_casts_columns": "SELECT x, CAST(x AS INT) i, CAST(x AS TINYINT) t, CAST(x AS BIGINT) b, TRY_CAST(x AS INT) r "
    "FROM VALUES (1e20D), (-2.5D), (CAST(NULL AS DOUBLE)), (CAST('NaN' AS DOUBLE)), (255.9D) t(x)",
    # Nullable where Spark's legacy cast may answer NULL: integers wrap and saturate as
    # timestamps, DOUBLE overflows FLOAT as infinity, so those are as nullable as their value.
    "legacy_cast_nullability": "SELECT CAST(x AS TIMESTAMP) a, CAST(y AS TINYINT) c, CAST(x AS INT) e, CAST(z AS TIMESTAMP) g, "
    "CAST(y AS DECIMAL(2,0)) h, CAST(s AS INT) j, CAST(x AS FLOAT) k, TRY_CAST(y AS TINYINT) l, CAST(y AS SMALLINT) m, "
    "unix_micros(CAST(9223372036854775807L AS TIMESTAMP)) n, unix_micros(CAST(-9223372036855L AS TIMESTAMP)) o, "
    "unix_micros(CAST(z * 1000 AS TIMESTAMP)) p FROM VALUES (1.5D, 300, 1L, 'x') t(x, y, z, s)",
    "text_casts": "SELECT CAST('2020-13-01' AS DATE) a, CAST('abc' AS DOUBLE) b, CAST('12x' AS INT) c, CAST('99999999999' AS INT) d",
}


@pytest.mark.parametrize("case", cases(NON_ANSI))
def test_non_ansi(spark, expected, case):
    spark.conf.set("spark.sql.ansi.enabled", "false")
    try:
        expected.check(spark.sql(NON_ANSI[case]), name=case)
    finally:
        spark.conf.unset("spark.sql.ansi.enabled")


IMPLICIT = {
    # numbers, booleans and dates where a string is expected: their text
    "strings_of_numbers": "SELECT lower(1) a, upper(true) b, instr(12345, 3) c, locate(3, 12345) d, length(12345) e, trim(123) f, "
    "lpad(5, 3, 0) g, concat_ws('-', 1, 2) h, split(123, 2) i, initcap(DATE'2020-01-01') j, ascii(1) k, replace(12321, 2, 9) l, "
    "translate(123, 2, 9) m, left(12345, 2) n, right(12345, 2) o, substring(12345, 2, 2) p",
    # strings where a number is expected: read as one
    "numbers_of_strings": "SELECT abs('-1') a, sqrt('4') b, round('2.5') c, ceil('1.5') d, exp('0') e, power('2', 3) f, log(10, '100') g, "
    "substring('hello', '2') h, repeat('ab', '2') i, date_add('2020-01-01', '2') j, lpad('a', '3', 'x') k",
    "aggregates_of_strings": "SELECT sum(x) s, avg(x) a, stddev(x) d FROM VALUES ('3'), ('4'), (NULL) t(x)",
    "strings_of_columns": "SELECT id, upper(id) u, abs(CAST(id - 2 AS STRING)) a FROM range(3)",
}


@pytest.mark.parametrize("case", cases(IMPLICIT))
def test_implicit_casts(spark, expected, case):
    expected.check(spark.sql(IMPLICIT[case]), name=case)


IMPLICIT_ERRORS = {
    "number_not_a_number": "SELECT abs('a')",
    "position_not_a_number": "SELECT substring('hello', 'a')",
    "sum_not_numbers": "SELECT sum(x) FROM VALUES ('3'), ('x') t(x)",
    "array_not_a_string": "SELECT lower(array(1))",
}


@pytest.mark.parametrize("case", cases(IMPLICIT_ERRORS))
def test_implicit_cast_errors(spark, expected, case):
    expected.check_error(lambda: spark.sql(IMPLICIT_ERRORS[case]).collect(), name=case)

