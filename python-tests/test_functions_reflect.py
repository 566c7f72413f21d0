"""reflect / java_method / try_reflect: the JDK static methods Ember calls (UUID, Math, number
parsing and printing, URL encoding), answers and errors recorded from real Spark."""

import pytest
from pyspark.sql import functions as F

from conftest import cases

SQL = {
    "uuid": "SELECT reflect('java.util.UUID', 'fromString', 'A5CF6C42-0C85-418F-AF6C-3E4E5B1328F2') a, "
    "length(reflect('java.util.UUID', 'randomUUID')) b",
    "random_uuid_per_row": "SELECT count(DISTINCT u) n FROM (SELECT reflect('java.util.UUID', 'randomUUID') u FROM range(5))",
    "math": "SELECT java_method('java.lang.Math', 'abs', -5) a, reflect('java.lang.Math', 'abs', -5L) b, "
    "reflect('java.lang.Math', 'max', 1, 2) c, reflect('java.lang.Math', 'max', 1.5D, 2.5D) d, "
    "reflect('java.lang.Math', 'sqrt', 2D) e, reflect('java.lang.Math', 'pow', 2D, 10D) f, "
    "reflect('java.lang.Math', 'round', 2.5D) g, reflect('java.lang.Math', 'round', -2.5D) h, "
    "reflect('java.lang.Math', 'floorMod', 7, -3) i, reflect('java.lang.Math', 'floorDiv', -7, 2) j",
    "numbers": "SELECT reflect('java.lang.String', 'valueOf', 1) a, reflect('java.lang.Integer', 'toHexString', 255) b, "
    "reflect('java.lang.Long', 'parseLong', '123') c, reflect('java.lang.Integer', 'valueOf', '77') d, "
    "reflect('java.lang.Boolean', 'parseBoolean', 'TRUE') e, reflect('java.lang.Double', 'parseDouble', '1e3') f, "
    "reflect('java.lang.String', 'valueOf', 1.0D) g, reflect('java.lang.Integer', 'toBinaryString', -1) h",
    "url": "SELECT reflect('java.net.URLDecoder', 'decode', '%E4%BD%A0%E5%A5%BD', 'utf-8') a, "
    "reflect('java.net.URLEncoder', 'encode', 'a b&c/é', 'UTF-8') b, reflect('java.net.URLDecoder', 'decode', 'a+b%21') c",
    "try_reflect": "SELECT try_reflect('java.lang.Integer', 'parseInt', 'x') a, try_reflect('java.lang.Integer', 'parseInt', '12') b",
    "columns": "SELECT s, reflect('java.lang.Integer', 'parseInt', s) v FROM VALUES ('1'), ('-20'), ('+3') t(s)",
}

SQL_GAPS = {}


@pytest.mark.parametrize("case", cases(SQL, SQL_GAPS))
def test_sql(spark, expected, case):
    expected.check(spark.sql(SQL[case]), name=case)


def test_dataframe(spark, expected):
    df = spark.createDataFrame([("a b",), ("c&d",)], "s STRING")
    expected.check(df.select(F.reflect(F.lit("java.net.URLEncoder"), F.lit("encode"), "s", F.lit("UTF-8"))))


ERRORS = {
    "invocation": "SELECT reflect('java.lang.Integer', 'parseInt', 'x')",
    "null_primitive": "SELECT reflect('java.lang.Math', 'abs', CAST(NULL AS INT))",
    "non_foldable": "SELECT reflect(c, 'abs', 1) FROM VALUES ('java.lang.Math') t(c)",
    "decimal_argument": "SELECT reflect('java.lang.Math', 'abs', 1.5BD)",
    "no_matching_method": "SELECT reflect('java.lang.Math', 'sqrt', 4)",
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors(spark, expected, case):
    expected.check_error(lambda: spark.sql(ERRORS[case]).collect(), name=case)
