"""The basic DataFrame API: the relations of the foundation, with Spark's answers and names."""

import pandas as pd
import pytest
from pyspark.sql import functions as F


@pytest.fixture(scope="module")
def people(spark):
    return spark.createDataFrame(
        [(1, "alice", 30, 1.5), (2, "bob", None, 2.0), (3, "carol", 25, None), (4, "dan", 30, 4.25)],
        "id INT, name STRING, age INT, score DOUBLE",
    )


def test_issue_example(spark, expected):
    expected.check(spark.sql("SELECT 1 AS a, 'x' AS b"), name="sql")
    assert spark.range(10).filter("id % 2 = 0").count() == 5
    df = spark.createDataFrame([(1, "a"), (2, None)], "id INT, name STRING")
    expected.check(df.groupBy("name").count().orderBy("name"), ordered=True, name="groupby")
    pdf = df.groupBy("name").count().orderBy("name").toPandas()
    assert list(pdf.columns) == ["name", "count"]
    assert list(pdf["count"]) == [1, 1]


def test_range(spark, expected):
    expected.check(spark.range(5), name="end")
    expected.check(spark.range(2, 11, 3), name="step")
    expected.check(spark.range(10, 0, -3), name="negative_step")
    expected.check(spark.range(0, 100, 1, 7).filter("id > 95"), name="partitions")


def test_select_and_expressions(spark, people, expected):
    expected.check(people.select("name", people.age + 1, (F.col("score") * 2).alias("double"), F.lit("k")))
    expected.check(people.select("*"), name="star")
    expected.check(people.selectExpr("id * 10 AS x", "upper(name)", "age IS NULL"), name="select_expr")
    # An alias without AS may be a word that is also a keyword (`id`, `name`).
    expected.check(people.selectExpr("cast(id AS string) id", "concat('v', name) name", "age + 1 x"), name="select_expr_bare_alias")
    expected.check(people.select(F.col("id").cast("string"), (F.col("id") + 1).cast("string")), name="casts")
    expected.check(people.select(F.when(F.col("age") > 26, "old").otherwise("young"), F.coalesce("age", F.lit(0))), name="when")
    expected.check(people.select(F.col("id") != 1, F.col("id") % 2, F.col("id") / 2, -F.col("id"), F.col("name").isNull()), name="operators")


def test_filter(spark, people, expected):
    expected.check(people.filter(people.age > 26), name="column")
    expected.check(people.filter("age > 26 AND score > 2"), name="string")
    expected.check(people.where(F.col("name").like("%a%")), name="like")
    expected.check(people.filter(F.col("id").isin(1, 3)), name="isin")


def test_with_columns(spark, people, expected):
    expected.check(people.withColumn("age2", people.age * 2), name="add")
    expected.check(people.withColumn("age", F.lit(0)), name="replace")
    expected.check(people.withColumns({"a": F.lit(1), "b": F.col("id") + 1}), name="many")
    expected.check(people.withColumnRenamed("name", "who"), name="renamed")
    expected.check(people.withColumnsRenamed({"id": "key", "age": "years"}), name="renamed_many")
    expected.check(people.drop("age", "score"), name="drop")
    expected.check(people.drop(people.name), name="drop_column")
    expected.check(people.toDF("a", "b", "c", "d"), name="todf")


def test_aggregate(spark, people, expected):
    expected.check(people.groupBy("age").count(), name="count")
    expected.check(people.groupBy("age").agg(F.sum("id"), F.avg("score"), F.max("name")), name="agg")
    expected.check(people.groupBy().agg(F.count("*"), F.countDistinct("age")), name="global")
    expected.check(people.agg({"id": "sum", "age": "max"}), name="dict")
    expected.check(people.groupBy(F.col("age") > 26).agg(F.count("id").alias("n")), name="expr_key")
    expected.check(people.select(F.count("*"), F.sum("id")), name="select_aggregates")


def test_sort_limit_offset(spark, people, expected):
    expected.check(people.orderBy("age"), ordered=True, name="asc_nulls_first")
    expected.check(people.orderBy(F.col("age").desc()), ordered=True, name="desc")
    expected.check(people.orderBy(F.col("age").asc_nulls_last(), "id"), ordered=True, name="nulls_last")
    expected.check(people.sort(F.desc("score")).limit(2), ordered=True, name="limit")
    expected.check(people.orderBy("id").offset(2), ordered=True, name="offset")
    expected.check(people.select("name").orderBy(F.col("id").desc()), ordered=True, name="missing_column")


def test_distinct(spark, people, expected):
    expected.check(people.select("age").distinct(), name="distinct")
    expected.check(people.dropDuplicates(["age"]).select("age"), name="subset")


def test_joins(spark, expected):
    left = spark.createDataFrame([(1, "a"), (2, "b"), (3, "c")], "id INT, l STRING")
    right = spark.createDataFrame([(2, "x"), (3, "y"), (4, "z")], "id INT, r STRING")
    expected.check(left.join(right, "id"), name="using")
    expected.check(left.join(right, ["id"], "left"), name="using_left")
    expected.check(left.join(right, ["id"], "right"), name="using_right")
    expected.check(left.join(right, ["id"], "outer"), name="using_full")
    expected.check(left.join(right, left.id == right.id), name="condition")
    expected.check(left.join(right, left.id == right.id, "left_semi"), name="semi")
    expected.check(left.join(right, left.id == right.id, "left_anti"), name="anti")
    expected.check(left.crossJoin(right).select(left.l, right.r), name="cross")
    expected.check(left.alias("a").join(left.alias("b"), F.col("a.id") == F.col("b.id") + 1).select("a.l", "b.l"), name="self_alias")
    expected.check(left.join(right, left.id == right.id).select(left.id, right.r), name="plan_id_reference")


def test_set_operations(spark, expected):
    a = spark.createDataFrame([(1, "x"), (2, "y"), (2, "y")], "n INT, s STRING")
    b = spark.createDataFrame([(2, "y"), (3, "z")], "n INT, s STRING")
    expected.check(a.union(b), name="union")
    expected.check(a.union(b).distinct(), name="union_distinct")
    expected.check(a.intersect(b), name="intersect")
    expected.check(a.subtract(b), name="except")
    expected.check(a.unionByName(b.select("s", "n")), name="by_name")
    expected.check(a.unionByName(b.select("n"), allowMissingColumns=True), name="by_name_missing")


def test_create_dataframe(spark, expected):
    expected.check(spark.createDataFrame([(1, 2.5, "a", True)], ["i", "d", "s", "b"]), name="inferred")
    expected.check(spark.createDataFrame(pd.DataFrame({"x": [1, 2], "y": ["a", None]})), name="pandas")
    expected.check(spark.createDataFrame([], "a INT, b STRING"), name="empty")
    expected.check(spark.createDataFrame([("2020-01-02",)], "s STRING").select(F.col("s").cast("date").alias("d")), name="cast_date")


def test_large_create_dataframe_uses_artifacts(spark):
    rows = [(i, "x" * 40) for i in range(40_000)]
    df = spark.createDataFrame(rows, "i INT, s STRING")
    assert df.count() == 40_000
    assert df.agg(F.sum("i")).collect()[0][0] == sum(range(40_000))


def test_temp_view_roundtrip(spark, expected):
    spark.range(3).withColumn("sq", F.col("id") * F.col("id")).createOrReplaceTempView("squares")
    expected.check(spark.table("squares"), name="table")
    expected.check(spark.read.table("squares").filter("sq > 0"), name="read_table")


def test_show(spark, expected):
    df = spark.createDataFrame([(1, "a"), (2, None), (3, "a long string value here")], "id INT, name STRING")
    expected.check_value(df._show_string(), name="default")
    expected.check_value(df._show_string(n=2, truncate=5), name="truncated")
    expected.check_value(df._show_string(truncate=False), name="untruncated")
    expected.check_value(df._show_string(n=2, vertical=True), name="vertical")
    expected.check_value(spark.range(3).select(F.lit(1.5), F.lit(None).cast("int"), F.array(F.lit(1), F.lit(2)))._show_string(), name="values")


def test_schema_and_tree_string(spark, people, expected):
    expected.check_value(people.schema.simpleString(), name="simple")
    expected.check_value(people.schema.treeString(), name="tree")
    nested = spark.createDataFrame([], "a ARRAY<INT>, m MAP<STRING, DECIMAL(2,1)>, s STRUCT<x: INT NOT NULL>")
    expected.check_value(nested.schema.treeString(), name="nested")
    plan = nested._plan.to_proto(spark.client)
    expected.check_value(spark.client._analyze(method="tree_string", plan=plan).tree_string, name="tree_rpc")
    assert people.columns == ["id", "name", "age", "score"]
    assert people.dtypes == [("id", "int"), ("name", "string"), ("age", "int"), ("score", "double")]


def test_tail(spark, expected):
    assert [r.id for r in spark.range(10).tail(3)] == [7, 8, 9]


def test_subquery_alias_qualifiers(spark, expected):
    df = spark.range(3).alias("t")
    expected.check(df.select("t.id"), name="qualified")
    expected.check(df.select(F.col("t.*")), name="qualified_star")


def test_column_metadata(spark, expected):
    # alias(metadata=...) and withMetadata give a column Spark's metadata (a JSON object), kept
    # through later projections, filters and re-aliasing.
    from pyspark.sql import functions as F

    df = spark.range(2)
    expected.check_value(df.withMetadata("id", {"comment": "c1", "k": 3}).schema["id"].metadata, name="with_metadata")
    aliased = df.select(F.col("id").alias("x", metadata={"m": "v"}))
    expected.check_value(aliased.schema["x"].metadata, name="alias")
    expected.check_value(aliased.select("x").schema["x"].metadata, name="kept")
    expected.check_value(aliased.select(F.col("x").alias("y")).schema["y"].metadata, name="realiased")
    expected.check_value(df.select((F.col("id") + 1).alias("x", metadata={"m": [1, 2]})).filter("x > 0").schema["x"].metadata, name="expression")
    expected.check_value(df.select("id").schema["id"].metadata, name="none")
    expected.check(aliased, name="rows")
    # withColumn drops an alias's metadata (withMetadata gives it).
    expected.check_value(
        df.withColumn("y", F.col("id").alias("z", metadata={"a": 1})).schema["y"].metadata, name="with_column_aliased"
    )
    expected.check_value(
        df.withColumns({"y": F.col("id").alias("z", metadata={"a": 1})}).schema["y"].metadata, name="with_columns"
    )
    expected.check_value(
        aliased.withColumn("y", F.col("x")).withMetadata("y", {"b": 2}).schema["y"].metadata,
        name="with_column_then_metadata",
    )
    # withColumn gives even a plain column reference no metadata: the source column's is
    # dropped, replaced or new (withColumnRenamed keeps it).
    expected.check_value(
        [f.metadata for f in aliased.withColumn("y", F.col("x")).schema.fields], name="with_column_source_dropped"
    )
    expected.check_value(
        [f.metadata for f in aliased.withColumn("x", F.col("x")).schema.fields], name="with_column_same_dropped"
    )
    expected.check_value(
        [f.metadata for f in aliased.withColumnRenamed("x", "q").schema.fields], name="renamed_kept"
    )


def test_rows_after_a_limit_keep_its_order(spark, expected):
    # What follows a limit runs over the limit's rows in their order, as in Spark (a spread over
    # more partitions would interleave batches once there is more than one).
    from pyspark.sql import functions as F

    ids = [r.id for r in spark.range(0, 100000, 1, 2).limit(60000).withColumn("x", F.col("id") * 2).collect()]
    expected.check_value([len(ids), ids == sorted(ids), ids[8190:8195]], name="projection")
    ids = [r.id for r in spark.range(0, 100000, 1, 2).limit(60000).filter("id % 3 = 0").collect()]
    expected.check_value([len(ids), ids == sorted(ids)], name="filter")
    expected.check_value(spark.range(25).withColumn("x", F.col("id") * 2)._show_string(), name="show")


def test_sort_after_a_limit_sorts_the_limited_rows(spark, expected):
    # `df.limit(3).orderBy(...)` sorts the first three rows (Spark's limit takes rows in
    # partition order), not the top three of all rows: DataFusion's sort pushdown moved the
    # sort below the limit (range(10).limit(3).orderBy(desc("id")) gave 7, 6, 5).
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    ten = spark.range(0, 10, 1, 2)
    expected.check(ten.limit(3).orderBy(F.desc("id")), ordered=True, name="range_desc")
    local = spark.createDataFrame([(i, 9 - i) for i in range(10)], "id long, v long")
    expected.check(local.limit(4).orderBy("v"), ordered=True, name="local_relation")
    expected.check(
        spark.sql("SELECT * FROM (SELECT * FROM range(0, 10, 1, 2) LIMIT 3) ORDER BY id DESC"),
        ordered=True,
        name="sql_subquery",
    )
    expected.check(ten.limit(3).orderBy(F.desc("id")).limit(2), ordered=True, name="then_limit_again")
    expected.check(
        ten.limit(4).withColumn("r", F.row_number().over(Window.orderBy(F.desc("id")))),
        name="then_window",
    )
    expected.check(ten.orderBy("id").limit(3).orderBy(F.desc("id")), ordered=True, name="sorted_limit_resorted")


def test_sort_ties_keep_the_input_order(spark, expected):
    """Rows that tie in a sort come in the input's order (Spark's sort is stable), the same
    every time: ties had come out in the order a shuffle delivered the partitions' rows."""
    four = spark.range(0, 40, 1, 4)
    expected.check(four.orderBy(F.col("id") % 3), ordered=True, name="ties_asc")
    expected.check(four.orderBy((F.col("id") % 4).desc(), F.col("id") % 2), ordered=True, name="ties_two_keys")
    expected.check(
        spark.sql("SELECT id, id % 5 k FROM range(0, 50, 1, 3) ORDER BY k DESC"), ordered=True, name="ties_sql"
    )
    people = spark.createDataFrame(
        [(i, ["x", "y", "z"][i % 3]) for i in range(20)], "id INT, team STRING"
    ).repartition(3)
    answers = {str(people.orderBy("team").collect()) for _ in range(4)}
    assert len(answers) == 1, answers
