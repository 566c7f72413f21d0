"""Python UDTFs (`@udtf` classes, eval type 300): called from the DataFrame API
(`Squares(lit(1), lit(3))`), registered with `spark.udtf.register` and called in SQL's FROM
clause. The class is instantiated per call, `eval` runs for the arguments and `terminate` at
the end; the rows it yields are typed by the declared returnType. Answers recorded from
Spark 4.3."""

import sys

import pytest
from pyspark import cloudpickle
from pyspark.sql.functions import lit, udtf

# The Python workers cannot import this test module: its classes are pickled by value.
cloudpickle.register_pickle_by_value(sys.modules[__name__])


@udtf(returnType="n int, sq int")
class Squares:
    def eval(self, start: int, end: int):
        for n in range(start, end + 1):
            yield n, n * n


@udtf(returnType="word string, len int, upper string")
class Words:
    def eval(self, text: str):
        if text is None:
            return
        for w in text.split(" "):
            yield w, len(w), None if w == "" else w.upper()


@udtf(returnType="total long, calls int")
class Summed:
    def __init__(self):
        self.total = 0
        self.calls = 0

    def eval(self, a, b):
        self.total += a + b
        self.calls += 1

    def terminate(self):
        yield self.total, self.calls


@udtf(returnType="x double, tag string")
class Mixed:
    def eval(self, x: float):
        yield x, "as-is"
        yield x * 2, "twice"
        yield None, None


@udtf(returnType="n int")
class Nothing:
    def eval(self, n):
        return None


@udtf(returnType="n int")
class Failing:
    def eval(self, n):
        raise ValueError(f"no rows for {n}")


def test_udtf_dataframe(spark, expected):
    expected.check(Squares(lit(1), lit(3)), name="squares")
    expected.check(Squares(lit(3), lit(1)), name="empty_range")
    expected.check(Words(lit("hello big world")), name="words")
    expected.check(Summed(lit(2), lit(5)), name="terminate")
    expected.check(Mixed(lit(1.5)), name="mixed")
    expected.check(Nothing(lit(1)), name="nothing")


def test_udtf_dataframe_then_more(spark, expected):
    out = Squares(lit(1), lit(5))
    expected.check(out.filter("sq > 4").select("sq", "n"), name="filter_select")
    expected.check(out.groupBy().sum("sq"), name="aggregate")
    expected.check(out.orderBy("n", ascending=False).limit(2), ordered=True, name="order_limit")


def test_udtf_sql(spark, expected):
    spark.udtf.register("ember_squares", Squares)
    spark.udtf.register("ember_words", Words)
    spark.udtf.register("ember_summed", Summed)
    expected.check(spark.sql("SELECT * FROM ember_squares(1, 3)"), name="sql_squares")
    expected.check(
        spark.sql("SELECT sq, n + 1 AS m FROM ember_squares(2, 4) WHERE sq > 5"), name="sql_project"
    )
    expected.check(spark.sql("SELECT * FROM ember_words('a bc def')"), name="sql_words")
    expected.check(spark.sql("SELECT * FROM ember_summed(10, 20)"), name="sql_terminate")
    expected.check(
        spark.sql("SELECT s.n, s.sq FROM ember_squares(1, 2) AS s ORDER BY s.n DESC"),
        ordered=True,
        name="sql_alias",
    )


def test_udtf_errors(spark, expected):
    expected.check_error(lambda: Failing(lit(7)).collect(), name="raises")
    spark.udtf.register("ember_failing", Failing)
    expected.check_error(lambda: spark.sql("SELECT * FROM ember_failing(3)").collect(), name="sql_raises")


def test_udtf_in_session(spark, expected):
    # Defined beside an active session, `@udtf` asks for spark.sql.execution.pythonUDTF.arrow.enabled
    # (true in Spark 4.3): these are Arrow-optimized UDTFs (eval type 301).
    @udtf(returnType="n int, sq long, s string")
    class Squares2:
        def eval(self, start, end):
            for n in range(start, end + 1):
                yield n, n * n, str(n)

    @udtf(returnType="a int, b int")
    class Keywords:
        def eval(self, a, b=5):
            yield a, b

    @udtf(returnType="one int")
    class NoArgs:
        def eval(self):
            yield (1,)

    expected.check(Squares2(lit(1), lit(3)), name="squares")
    expected.check(Keywords(lit(1), b=lit(2)), name="keyword")
    expected.check(Keywords(a=lit(3)), name="keyword_only")
    expected.check(NoArgs(), name="no_args")
    spark.udtf.register("ember_squares2", Squares2)
    expected.check(spark.sql("SELECT * FROM ember_squares2(2, 3)"), name="sql")


def test_udtf_bad_rows(spark, expected):
    @udtf(returnType="n int")
    class Bare:
        def eval(self, n):
            yield n

    # Arrow-optimized (the default here): a bare value is the row of a one-column result.
    expected.check(Bare(lit(1)), name="bare_value")

    @udtf(returnType="n int", useArrow=False)
    class NotTuples:
        def eval(self, n):
            yield n

    expected.check_error(lambda: NotTuples(lit(1)).collect(), name="not_tuples")

    @udtf(returnType="n int, m int")
    class Short:
        def eval(self, n):
            yield n

    expected.check_error(lambda: Short(lit(1)).collect(), name="short_row")


def test_udtf_lateral(spark, expected):
    spark.udtf.register("ember_squares", Squares)
    spark.udtf.register("ember_words", Words)
    spark.sql(
        "CREATE OR REPLACE TEMP VIEW ember_udtf_t AS SELECT * FROM VALUES (1, 2, 'x y'), (3, 3, 'z'), (5, 4, NULL) AS t(a, b, s)"
    )
    expected.check(spark.sql("SELECT * FROM ember_udtf_t t, LATERAL ember_squares(t.a, t.b)"), name="comma")
    expected.check(spark.sql("SELECT t.a, q.* FROM ember_udtf_t t JOIN LATERAL ember_squares(a, b) q"), name="join")
    expected.check(
        spark.sql("SELECT * FROM ember_udtf_t t, LATERAL ember_squares(a, 3) AS x(p, q) WHERE q > 1"),
        name="column_aliases",
    )
    expected.check(
        spark.sql("SELECT s, w.word, w.len FROM ember_udtf_t, LATERAL ember_words(s) w"), name="strings"
    )
    expected.check(
        spark.sql("SELECT a, count(*) AS c, sum(sq) FROM ember_udtf_t, LATERAL ember_squares(1, a) GROUP BY a"),
        name="aggregate",
    )


def test_udtf_lateral_join_dataframe(spark, expected):
    from pyspark.sql.functions import col

    df = spark.createDataFrame([(1, 2), (3, 3), (5, 4)], "a int, b int")
    expected.check(df.lateralJoin(Squares(col("a").outer(), col("b").outer())), name="lateral_join")
    expected.check(
        df.lateralJoin(Squares(col("a").outer(), lit(3))).select("a", "sq"), name="lateral_join_select"
    )


def test_udtf_left_lateral(spark, expected):
    from pyspark.sql.functions import col

    spark.udtf.register("ember_squares", Squares)
    spark.sql("CREATE OR REPLACE TEMP VIEW ember_udtf_l AS SELECT * FROM VALUES (1, 2), (5, 4) AS t(a, b)")
    expected.check(
        spark.sql("SELECT * FROM ember_udtf_l t LEFT JOIN LATERAL ember_squares(t.a, t.b) ON true"),
        name="sql_left",
    )
    df = spark.createDataFrame([(1, 2), (5, 4)], "a int, b int")
    expected.check(
        df.lateralJoin(Squares(col("a").outer(), col("b").outer()), how="left"), name="dataframe_left"
    )
