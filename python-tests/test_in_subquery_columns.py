"""`IN (subquery)` of several columns, as Spark: a struct built in place (`struct(a, b)`,
SQL's `(a, b)`, `struct(df.a, df.b).isin(df2)` as in PySpark's `Column.isin` doctest) stands
for its fields, compared with the subquery's columns; IN_SUBQUERY_LENGTH_MISMATCH when the
counts differ. Recorded from real Spark 4.3."""

from pyspark.sql import functions as F

VALUES = "SELECT * FROM VALUES (5, 'Bob'), (2, 'x'), (3, 'Bob') t(a, b)"


def people(spark):
    return spark.createDataFrame([(2, "Alice"), (5, "Bob"), (8, "Mike")], ["age", "name"])


def test_struct_isin_dataframe(spark, expected):
    df = people(spark)
    sub = spark.range(6).select("id", F.lit("Bob"))
    expected.check(df.where(F.struct(df.age, df.name).isin(sub)), name="isin")


def test_sql_tuple_in(spark, expected):
    expected.check(spark.sql(f"{VALUES} WHERE (a, b) IN (SELECT id, 'Bob' FROM range(6))"), name="in")
    expected.check(spark.sql(f"{VALUES} WHERE (a, b) NOT IN (SELECT id, 'Bob' FROM range(6))"), name="not_in")
    # (Values of other types: compared in their common type.)
    expected.check(spark.sql(f"{VALUES} WHERE (a, b) IN (SELECT CAST(id AS DOUBLE), 'Bob' FROM range(6))"), name="in_double")
    expected.check(
        spark.sql(f"{VALUES} WHERE a > 2 AND (a, b) IN (SELECT id, 'Bob' FROM range(4))"), name="in_conjunct"
    )


def test_nullable_columns_in_filter(spark, expected):
    df = spark.createDataFrame([(5, "Bob"), (None, "Bob"), (3, None), (3, "Bob")], "a int, b string")
    sub = spark.createDataFrame([(5, "Bob"), (3, None), (None, "Bob")], "x int, y string")
    expected.check(df.where(F.struct(df.a, df.b).isin(sub)), name="nullable")


def test_length_mismatch(spark, expected):
    df = people(spark)
    expected.check_error(
        lambda: df.where(F.struct(df.age, df.name).isin(spark.range(6).select("id"))).collect(), name="isin_one_column"
    )
    expected.check_error(
        lambda: spark.sql(f"{VALUES} WHERE (a, b) IN (SELECT struct(id, 'Bob') FROM range(6))").collect(),
        name="struct_column",
    )
    expected.check_error(
        lambda: spark.sql(f"{VALUES} WHERE named_struct('a', a, 'b', b) IN (SELECT id, 'Bob' FROM range(6))").collect(),
        name="named_struct",
    )
