"""exp, cosh and log2 to the last bit as Spark computes them (Java's StrictMath, fdlibm):
exp(1) is 2.7182818284590455, cosh(1) 1.543080634815244, log2(3) 1.584962500721156, where
the platform's libm gives other last digits (and show() a wider column, as PySpark's own
doctests of these functions show). Recorded from Spark 4.3."""


def test_values(spark, expected):
    df = spark.sql(
        "SELECT id, exp(id) e, cosh(id) c, log2(id) l, cosh(id / 10.0) small, exp(-id * 3.7) neg, "
        "cosh(30 + id) big, exp(id * 80) huge FROM range(12)"
    )
    expected.check(df, ordered=True, name="range")


def test_show(spark, expected, capsys):
    spark.range(10).selectExpr("id", "exp(id)", "cosh(id)", "log2(id)").show()
    expected.check_value(capsys.readouterr().out, name="show")
