"""Python UDTFs over TABLE arguments and with `analyze`: `f(TABLE(t))` calls `eval` with each
row of `t` (a Row); `TABLE(t) PARTITION BY k ORDER BY v` gives each partition its own instance
(`terminate` at the end of each), `WITH SINGLE PARTITION` one instance over every row; a
static `analyze` method decides the result schema at planning time (from the arguments' types
and constant values) and may ask for partitioning, ordering and a selection of the table's
columns. Answers recorded from Spark 4.3."""

import sys

import pytest
from pyspark import cloudpickle
from pyspark.sql.functions import lit, udtf
from pyspark.sql.types import IntegerType, LongType, StringType, StructType

cloudpickle.register_pickle_by_value(sys.modules[__name__])


@udtf(returnType="k string, v long, twice long")
class Doubled:
    def eval(self, row):
        yield row["k"], row["v"], None if row["v"] is None else row["v"] * 2


@udtf(returnType="k string, n int, total long, first long")
class PerKey:
    def __init__(self):
        self.k = None
        self.n = 0
        self.total = 0
        self.first = None

    def eval(self, row):
        self.k = row["k"]
        if self.n == 0:
            self.first = row["v"]
        self.n += 1
        self.total += row["v"] or 0

    def terminate(self):
        yield self.k, self.n, self.total, self.first


@udtf(returnType="n int, total long")
class CountAll:
    def __init__(self):
        self.n = 0
        self.total = 0

    def eval(self, row):
        self.n += 1
        self.total += row["v"] or 0

    def terminate(self):
        yield self.n, self.total


@udtf(returnType="seen string")
class Fields:
    def eval(self, row, sep):
        yield (sep.join(f"{k}={v}" for k, v in row.asDict().items()),)


@udtf
class Echo:
    """The schema comes from the arguments: one column per argument, of its type."""

    @staticmethod
    def analyze(*args):
        from pyspark.sql.udtf import AnalyzeResult

        schema = StructType()
        for i, a in enumerate(args):
            schema = schema.add(f"c{i}", a.dataType)
        return AnalyzeResult(schema)

    def eval(self, *args):
        yield args


@udtf
class Repeat:
    """The number of columns is the constant second argument's value."""

    @staticmethod
    def analyze(word, times):
        from pyspark.sql.udtf import AnalyzeResult

        if not times.isConstantExpression or word.isTable:
            raise ValueError("times must be a constant")
        schema = StructType()
        for i in range(times.value):
            schema = schema.add(f"w{i}", StringType())
        return AnalyzeResult(schema)

    def eval(self, word, times):
        yield tuple([word] * times)


@udtf
class Columns:
    """A table argument's columns as rows: the schema of the table is known to analyze."""

    @staticmethod
    def analyze(table):
        from pyspark.sql.udtf import AnalyzeResult

        if not table.isTable:
            raise ValueError("a TABLE argument is needed")
        return AnalyzeResult(StructType().add("name", StringType()).add("value", StringType()))

    def eval(self, row):
        for k, v in row.asDict().items():
            yield k, str(v)


@udtf
class SumPerPartition:
    """analyze asks for the partitioning and the order the rows arrive in."""

    @staticmethod
    def analyze(table):
        from pyspark.sql.udtf import AnalyzeResult, OrderingColumn, PartitioningColumn

        return AnalyzeResult(
            StructType().add("k", StringType()).add("vs", StringType()),
            partitionBy=[PartitioningColumn("k")],
            orderBy=[OrderingColumn("v", ascending=False)],
        )

    def __init__(self):
        self.k = None
        self.vs = []

    def eval(self, row):
        self.k = row["k"]
        self.vs.append(str(row["v"]))

    def terminate(self):
        yield self.k, ",".join(self.vs)


@udtf
class SinglePartitionCount:
    @staticmethod
    def analyze(table):
        from pyspark.sql.udtf import AnalyzeResult

        return AnalyzeResult(StructType().add("n", LongType()), withSinglePartition=True)

    def __init__(self):
        self.n = 0

    def eval(self, row):
        self.n += 1

    def terminate(self):
        yield (self.n,)


@udtf
class Selected:
    """analyze selects (and renames) the columns eval sees of the table."""

    @staticmethod
    def analyze(table):
        from pyspark.sql.udtf import AnalyzeResult, SelectedColumn

        return AnalyzeResult(
            StructType().add("fields", StringType()),
            select=[SelectedColumn("v"), SelectedColumn("k", alias="key")],
        )

    def eval(self, row):
        yield (",".join(row.asDict().keys()) + ":" + str(row["key"]),)


@udtf
class NotAResult:
    @staticmethod
    def analyze(x):
        return "not an AnalyzeResult"

    def eval(self, x):
        yield (x,)


@pytest.fixture(scope="module")
def table(spark):
    df = spark.createDataFrame(
        [("a", 1), ("a", 3), ("b", 2), ("b", None), ("b", 7), ("c", 5)],
        "k STRING, v LONG",
    )
    df.createOrReplaceTempView("ember_udtf_t")
    return df


def test_table_argument(spark, table, expected):
    spark.udtf.register("ember_doubled", Doubled)
    spark.udtf.register("ember_fields", Fields)
    expected.check(spark.sql("SELECT * FROM ember_doubled(TABLE(ember_udtf_t))"), name="table")
    expected.check_error(
        lambda: spark.sql("SELECT * FROM ember_doubled(TABLE ember_udtf_t)").collect(), name="table_no_parens"
    )
    expected.check(
        spark.sql("SELECT * FROM ember_doubled(TABLE(SELECT k, v + 1 AS v FROM ember_udtf_t WHERE v > 2))"),
        name="table_query",
    )
    expected.check(
        spark.sql("SELECT twice FROM ember_doubled(TABLE(ember_udtf_t)) WHERE k = 'b'"), name="then_filter"
    )
    expected.check(spark.sql("SELECT * FROM ember_fields(TABLE(ember_udtf_t), '|')"), name="with_scalar")


def test_partition_by(spark, table, expected):
    spark.udtf.register("ember_per_key", PerKey)
    spark.udtf.register("ember_count_all", CountAll)
    expected.check(
        spark.sql("SELECT * FROM ember_per_key(TABLE(ember_udtf_t) PARTITION BY k)"), name="partition_by"
    )
    expected.check(
        spark.sql("SELECT * FROM ember_per_key(TABLE(ember_udtf_t) PARTITION BY k ORDER BY v DESC)"),
        name="order_by_desc",
    )
    expected.check(
        spark.sql("SELECT * FROM ember_per_key(TABLE(ember_udtf_t) PARTITION BY k ORDER BY v ASC NULLS LAST)"),
        name="order_by_nulls_last",
    )
    expected.check(
        spark.sql("SELECT * FROM ember_per_key(TABLE(ember_udtf_t) PARTITION BY (k, v % 2) ORDER BY (v, k))"),
        name="two_keys",
    )
    expected.check(
        spark.sql("SELECT * FROM ember_count_all(TABLE(ember_udtf_t) WITH SINGLE PARTITION)"),
        name="single_partition",
    )
    expected.check(
        spark.sql("SELECT * FROM ember_per_key(TABLE(ember_udtf_t) WITH SINGLE PARTITION ORDER BY v)"),
        name="single_partition_ordered",
    )


def test_analyze(spark, table, expected):
    expected.check(Echo(lit(1), lit("x"), lit(2.5)), name="echo")
    expected.check(Repeat(lit("ab"), lit(3)), name="constant_value")
    spark.udtf.register("ember_echo", Echo)
    spark.udtf.register("ember_repeat", Repeat)
    expected.check(spark.sql("SELECT * FROM ember_echo(1, 'two', array(3))"), name="sql_echo")
    expected.check(spark.sql("SELECT * FROM ember_repeat('hi', 2)"), name="sql_constant_value")
    expected.check(
        spark.sql("SELECT t.k, e.* FROM ember_udtf_t t, LATERAL ember_echo(t.v, t.k) e"), name="lateral"
    )


def test_analyze_table(spark, table, expected):
    spark.udtf.register("ember_columns", Columns)
    spark.udtf.register("ember_sum_per_partition", SumPerPartition)
    spark.udtf.register("ember_single_count", SinglePartitionCount)
    spark.udtf.register("ember_selected", Selected)
    expected.check(spark.sql("SELECT * FROM ember_columns(TABLE(ember_udtf_t))"), name="table_schema")
    expected.check(
        spark.sql("SELECT * FROM ember_sum_per_partition(TABLE(ember_udtf_t))"), name="partition_by"
    )
    expected.check(spark.sql("SELECT * FROM ember_single_count(TABLE(ember_udtf_t))"), name="single_partition")
    expected.check(spark.sql("SELECT * FROM ember_selected(TABLE(ember_udtf_t))"), name="select")


def test_analyze_errors(spark, table, expected):
    expected.check_error(lambda: NotAResult(lit(1)).collect(), name="not_a_result")
    spark.udtf.register("ember_sum_per_partition", SumPerPartition)
    expected.check_error(
        lambda: spark.sql("SELECT * FROM ember_sum_per_partition(TABLE(ember_udtf_t) PARTITION BY k)").collect(),
        name="partition_twice",
    )


def test_arrow_udtf(spark, table, expected):
    # `@arrow_udtf` (eval type 302): eval takes pyarrow Arrays (a TABLE argument as a
    # RecordBatch) and yields pyarrow Tables / RecordBatches, matched by column name.
    import pyarrow as pa
    from pyspark.sql.functions import arrow_udtf

    @arrow_udtf(returnType="x long, doubled long")
    class Doubles:
        def eval(self, a: pa.Array):
            import pyarrow.compute as pc

            yield pa.table({"doubled": pc.multiply(a, 2), "x": a})

    @arrow_udtf(returnType="k string, total long")
    class Totals:
        def __init__(self):
            self.k = None
            self.total = 0

        def eval(self, batch: pa.RecordBatch):
            import pyarrow.compute as pc

            self.k = batch.column(0)[0].as_py()
            self.total += pc.sum(batch.column(1)).as_py() or 0
            return iter([])

        def terminate(self):
            yield pa.table({"k": [self.k], "total": pa.array([self.total], pa.int64())})

    @arrow_udtf(returnType="n long, label string")
    class Labels:
        def eval(self, batch: pa.RecordBatch, label: pa.Array):
            yield pa.RecordBatch.from_pydict(
                {"n": pa.array([batch.num_rows], pa.int64()), "label": [label[0].as_py()]}
            )

    @arrow_udtf(returnType="x int")
    class NotArrow:
        def eval(self, a: pa.Array):
            yield [1, 2]

    expected.check(Doubles(lit(21)), name="dataframe")
    spark.udtf.register("ember_doubles", Doubles)
    spark.udtf.register("ember_totals", Totals)
    spark.udtf.register("ember_labels", Labels)
    spark.udtf.register("ember_not_arrow", NotArrow)
    expected.check(spark.sql("SELECT * FROM ember_doubles(4)"), name="sql")
    expected.check(
        spark.sql("SELECT * FROM ember_totals(TABLE(ember_udtf_t) PARTITION BY k)"), name="table_partitioned"
    )
    expected.check(
        spark.sql("SELECT * FROM ember_labels(TABLE(ember_udtf_t) WITH SINGLE PARTITION, 'all')"),
        name="table_with_scalar",
    )
    expected.check_error(lambda: spark.sql("SELECT * FROM ember_not_arrow(1)").collect(), name="not_arrow")


def test_dataframe_table_arguments(spark, table, expected):
    """`df.asTable()` (PySpark 4.1+) passes a DataFrame as a UDTF's TABLE argument, with
    `partitionBy`/`withSinglePartition` and `orderBy` as SQL's PARTITION BY / ORDER BY."""
    from pyspark.sql.functions import col

    if not hasattr(table, "asTable"):
        pytest.skip("this client has no DataFrame.asTable")
    expected.check(Doubled(table.asTable()), name="df_table")
    expected.check(Fields(table.filter("v > 2").asTable(), lit("|")), name="df_table_query_with_scalar")
    expected.check(PerKey(table.asTable().partitionBy("k")), name="df_partition_by")
    expected.check(PerKey(table.asTable().partitionBy(table.k).orderBy(col("v").desc())), name="df_order_by_desc")
    expected.check(
        PerKey(table.asTable().partitionBy("k").orderBy(col("v").asc_nulls_last())), name="df_order_by_nulls_last"
    )
    expected.check(CountAll(table.asTable().withSinglePartition()), name="df_single_partition")
    expected.check(
        PerKey(table.asTable().withSinglePartition().orderBy("v")), name="df_single_partition_ordered"
    )
