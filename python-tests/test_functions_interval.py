"""ANSI intervals with their fields (`INTERVAL DAY`, `INTERVAL HOUR TO MINUTE`, `INTERVAL
YEAR`): literals, typeof, schemas, strings, casts, arithmetic; answers recorded from real
Spark. (PySpark cannot collect year-month intervals from Spark Connect, so those are
compared as strings and types.)"""

import datetime

import pytest
from pyspark.sql import functions as F

from conftest import cases

SQL = {
    "literals": "SELECT INTERVAL 1 DAY a, INTERVAL '1 02' DAY TO HOUR b, INTERVAL 3 HOURS c, INTERVAL 1 DAY 2 HOURS d, "
    "INTERVAL 90 MINUTES e, INTERVAL 1.5 SECONDS f",
    "typeof": "SELECT typeof(INTERVAL 1 DAY) a, typeof(INTERVAL 1 DAY 2 HOURS) b, typeof(INTERVAL '1:2' HOUR TO MINUTE) c, "
    "typeof(INTERVAL 1 YEAR) d, typeof(INTERVAL 2 MONTHS) e, typeof(INTERVAL '1-2' YEAR TO MONTH) f",
    "multi_unit": "SELECT typeof(INTERVAL 1 MINUTE 2 SECONDS) a, typeof(INTERVAL 1 HOUR 2 SECONDS) b, "
    "typeof(INTERVAL '10' SECOND) c, INTERVAL 1 DAY 2 HOURS 3 MINUTES 4.5 SECONDS d",
    "multi_unit_values": "SELECT INTERVAL -1 DAY 2 HOURS a, INTERVAL '1' DAY '2' HOURS b, INTERVAL 1 DAY 30 HOURS c",
    "weeks_and_milliseconds": "SELECT typeof(INTERVAL 1 WEEK) a, typeof(INTERVAL 5 MILLISECONDS) b, "
    "INTERVAL 5 MILLISECONDS c, INTERVAL 2 WEEKS d",
    "to_string": "SELECT CAST(INTERVAL 1 DAY AS STRING) a, CAST(INTERVAL 3 HOURS AS STRING) b, CAST(INTERVAL 1 YEAR AS STRING) c, "
    "CAST(INTERVAL 2 MONTHS AS STRING) d, CAST(INTERVAL '1:2' HOUR TO MINUTE AS STRING) e",
    "to_string_seconds": "SELECT CAST(INTERVAL 1 DAY AS STRING) a, CAST(INTERVAL '1 00:00:01.5' DAY TO SECOND AS STRING) b, "
    "CAST(INTERVAL 1.5 SECONDS AS STRING) c, CAST(INTERVAL 123.456 SECONDS AS STRING) d, CAST(INTERVAL -5 MINUTES AS STRING) e",
    "arithmetic_types": "SELECT typeof(INTERVAL 1 DAY + INTERVAL 2 HOURS) a, typeof(INTERVAL 1 DAY * 2) b, "
    "typeof(INTERVAL 1 DAY / 2) c, typeof(-INTERVAL 1 DAY) d, typeof(INTERVAL 1 YEAR + INTERVAL 1 MONTH) e",
    "add_subtract_types": "SELECT typeof(INTERVAL 1 DAY - INTERVAL 2 HOURS) a, typeof(INTERVAL 1 DAY + INTERVAL 1 DAY) b",
    "multiply_divide": "SELECT INTERVAL 1 DAY * 2 a, INTERVAL 1 DAY * 1.5D b, INTERVAL 1 DAY * 1.5 c, INTERVAL 3 SECONDS / 2 d, "
    "INTERVAL 1 MICROSECOND / 2 e, INTERVAL -1 MICROSECOND / 2 f, 2 * INTERVAL 1 HOUR g, "
    "INTERVAL 1 MICROSECOND * 0.5D h, INTERVAL -1 MICROSECOND * 0.5D i",
    "multiply_null": "SELECT INTERVAL 1 DAY * CAST(NULL AS INT) a, INTERVAL 1 DAY / 3 b",
    "year_month_arithmetic": "SELECT CAST(INTERVAL 1 YEAR * 2 AS STRING) a, typeof(INTERVAL 1 YEAR * 2) b, "
    "CAST(INTERVAL 1 MONTH / 2 AS STRING) c, CAST(INTERVAL 3 MONTHS * 0.5D AS STRING) d, "
    "typeof(INTERVAL 1 MONTH / 2) e, CAST(INTERVAL '1-1' YEAR TO MONTH / 2 AS STRING) f",
    "year_month_rounding": "SELECT CAST(INTERVAL -1 MONTH / 2 AS STRING) a, CAST(INTERVAL 1 DAY * 1.23456789 AS STRING) b",
    "casts": "SELECT CAST(INTERVAL -30 HOURS AS INTERVAL DAY) a, CAST(INTERVAL 90 MINUTES AS INTERVAL HOUR TO MINUTE) b, "
    "CAST(INTERVAL 1 DAY AS INTERVAL MINUTE) d",
    "cast_year": "SELECT CAST(CAST(INTERVAL 14 MONTHS AS INTERVAL YEAR) AS STRING) a, "
    "typeof(CAST(INTERVAL 30 HOURS AS INTERVAL DAY)) b, CAST(INTERVAL 30 HOURS AS INTERVAL DAY) c",
    "values_widen": "SELECT typeof(x) t, x FROM VALUES (INTERVAL 1 DAY), (INTERVAL 2 HOURS) t(x)",
    "union_widen": "SELECT INTERVAL 1 DAY a UNION ALL SELECT INTERVAL 2 HOURS",
    "union_typeof": "SELECT typeof(x) FROM (SELECT INTERVAL 1 DAY x UNION ALL SELECT INTERVAL 2 HOURS)",
    "aggregates": "SELECT typeof(sum(x)) a, typeof(avg(x)) b, typeof(max(x)) c, sum(x) d, max(x) e "
    "FROM VALUES (INTERVAL 1 DAY), (INTERVAL 2 DAY) t(x)",
    "conditionals": "SELECT typeof(coalesce(INTERVAL 1 DAY, INTERVAL 2 HOURS)) a, "
    "typeof(CASE WHEN true THEN INTERVAL 1 DAY ELSE INTERVAL 1 HOUR END) b, typeof(make_dt_interval(1)) d",
    "date_differences": "SELECT typeof(TIMESTAMP'2024-01-02' - TIMESTAMP'2024-01-01') a, "
    "typeof(DATE'2024-01-02' - DATE'2024-01-01') b, DATE'2024-03-01' - DATE'2024-01-01' c, "
    "typeof(TIMESTAMP'2024-01-01' + INTERVAL 1 DAY) d",
    "text_casts": "SELECT CAST('1' AS INTERVAL DAY) a, CAST('INTERVAL \\'2\\' DAY' AS INTERVAL DAY) b, "
    "CAST('1 02' AS INTERVAL DAY TO HOUR) c, CAST('-01:02' AS INTERVAL HOUR TO MINUTE) d, "
    "CAST('1 02:03:04.5' AS INTERVAL DAY TO SECOND) e",
    "text_casts_forms": "SELECT CAST('-1 23:59:59.999' AS INTERVAL DAY TO SECOND) a, CAST('+5' AS INTERVAL MINUTE) b, "
    "CAST(' 5 ' AS INTERVAL MINUTE) c, CAST('interval \\'5\\' minute' AS INTERVAL MINUTE) d, "
    "CAST('INTERVAL -\\'5\\' MINUTE' AS INTERVAL MINUTE) e, CAST('INTERVAL \\'-5\\' MINUTE' AS INTERVAL MINUTE) f",
    "text_casts_year_month": "SELECT CAST(CAST('1-2' AS INTERVAL YEAR TO MONTH) AS STRING) a, "
    "CAST(CAST('5' AS INTERVAL MONTH) AS STRING) b, CAST(CAST('-1-11' AS INTERVAL YEAR TO MONTH) AS STRING) c, "
    "CAST(CAST('INTERVAL \\'3\\' YEAR' AS INTERVAL YEAR) AS STRING) d",
    "try_text_casts": "SELECT TRY_CAST('x' AS INTERVAL DAY) a, CAST(NULL AS INTERVAL DAY) b",
    "number_casts": "SELECT CAST(5 AS INTERVAL HOUR) a, CAST(1.5 AS INTERVAL SECOND) b, CAST(2.5 AS INTERVAL MINUTE) c, "
    "typeof(CAST(5 AS INTERVAL HOUR)) d",
    "to_integers": "SELECT CAST(INTERVAL 1 DAY AS BIGINT) a, CAST(INTERVAL 3 HOURS AS INT) b, "
    "CAST(INTERVAL 1 DAY 2 HOURS AS BIGINT) c, CAST(INTERVAL -90 MINUTES AS BIGINT) d, CAST(INTERVAL 1.5 SECONDS AS BIGINT) e, "
    "CAST(INTERVAL 100 YEARS AS TINYINT) f, CAST(INTERVAL 1 YEAR AS BIGINT) g",
    "widen_to_day_to_second": "SELECT CAST(INTERVAL 3 HOURS AS INTERVAL DAY TO SECOND) a, "
    "typeof(CAST(INTERVAL 3 HOURS AS INTERVAL DAY TO SECOND)) b",
    # Inline tables of intervals of different fields (and NULL) take the wider type, the
    # default ones (DAY TO SECOND, YEAR TO MONTH) included.
    "values_widen_to_default": "SELECT typeof(x) t, CAST(x AS STRING) s FROM VALUES "
    "(INTERVAL '1 02:00:00.000001' DAY TO SECOND), (INTERVAL '-3' HOUR), (NULL) v(x)",
    "values_widen_year_month": "SELECT typeof(x) t, CAST(x AS STRING) s FROM VALUES "
    "(INTERVAL '1' MONTH), (INTERVAL '4' YEAR), (NULL) v(x)",
    # median and percentile of intervals are intervals (of the default fields, whatever the
    # argument's): of their months or microseconds, truncated toward zero; percentile_approx
    # keeps the argument's fields.
    "median_percentile_day_time": "SELECT median(x) a, percentile(x, 0.3) b, typeof(median(x)) c, "
    "median(y) d, typeof(percentile(y, 0.25)) e, percentile(y, 0.3) f FROM VALUES "
    "(INTERVAL '1 02:00:00.000001' DAY TO SECOND, INTERVAL '1' SECOND), (INTERVAL '-3' HOUR, INTERVAL '2' SECOND), "
    "(INTERVAL '7' DAY, NULL), (NULL, INTERVAL '4' SECOND) v(x, y)",
    "median_percentile_year_month": "SELECT CAST(median(x) AS STRING) a, CAST(percentile(x, 0.3) AS STRING) b, "
    "typeof(median(x)) c, CAST(median(y) AS STRING) d, typeof(percentile(y, 0.5)) e, "
    "CAST(percentile(-y, 0.5) AS STRING) f FROM VALUES "
    "(INTERVAL '1' MONTH, INTERVAL '1' YEAR), (INTERVAL '2' MONTH, INTERVAL '2' YEAR), (INTERVAL '4' YEAR, NULL) v(x, y)",
    "median_interval_groups": "SELECT k, median(x) m FROM VALUES (1, INTERVAL '1' SECOND), (1, INTERVAL '4' SECOND), "
    "(2, CAST(NULL AS INTERVAL SECOND)), (3, INTERVAL '-1' SECOND) v(k, x) GROUP BY k ORDER BY k",
    "percentile_approx_keeps_fields": "SELECT percentile_approx(x, 0.3) a, typeof(percentile_approx(x, 0.3)) b, "
    "typeof(approx_percentile(x, array(0.3, 0.6))) c FROM VALUES (INTERVAL '1' SECOND), (INTERVAL '2' SECOND) v(x)",
}

SQL_GAPS = {}


@pytest.mark.parametrize("case", cases(SQL, SQL_GAPS))
def test_sql(spark, expected, case):
    expected.check(spark.sql(SQL[case]), name=case)


ERRORS = {
    "divide_by_zero": "SELECT INTERVAL 1 DAY / 0",
    "divide_by_zero_double": "SELECT INTERVAL 1 DAY / 0.0D",
    "divide_months_by_zero": "SELECT CAST(INTERVAL 1 MONTH / 0 AS STRING)",
    "day_time_overflow": "SELECT INTERVAL 106751991 DAYS * 2",
    "year_month_overflow": "SELECT CAST(INTERVAL 178956970 YEARS * 2 AS STRING)",
    "infinite_factor": "SELECT INTERVAL 1 DAY * 1e300D",
    "mixed_fields": "SELECT INTERVAL 1 YEAR 2 DAYS",
    "text_not_day": "SELECT CAST('x' AS INTERVAL DAY)",
    "text_not_hour_to_minute": "SELECT CAST('1' AS INTERVAL HOUR TO MINUTE)",
    "text_other_units": "SELECT CAST('INTERVAL \\'5\\' HOUR' AS INTERVAL MINUTE)",
    "text_not_year": "SELECT CAST(CAST('1-2' AS INTERVAL YEAR) AS STRING)",
    "text_month_range": "SELECT CAST(CAST('1-12' AS INTERVAL YEAR TO MONTH) AS STRING)",
    "text_hour_range": "SELECT CAST('1 25' AS INTERVAL DAY TO HOUR)",
    "number_overflow_year": "SELECT CAST(CAST(2147483648 AS INTERVAL YEAR) AS STRING)",
    "number_overflow_day": "SELECT CAST(3000000000 AS INTERVAL DAY)",
    "to_integer_overflow": "SELECT CAST(INTERVAL 1000000 DAYS AS SMALLINT)",
    "day_time_to_year_month": "SELECT CAST(INTERVAL 1 DAY AS INTERVAL YEAR)",
    "double_to_interval": "SELECT CAST(1.5D AS INTERVAL SECOND)",
}


@pytest.mark.parametrize("case", cases(ERRORS))
def test_errors(spark, expected, case):
    expected.check_error(lambda: spark.sql(ERRORS[case]).collect(), name=case)


def test_dataframe(spark, expected):
    df = spark.range(2).select(
        F.lit(datetime.timedelta(days=1, hours=2)).alias("d"),
        F.expr("INTERVAL 3 HOURS").alias("h"),
        (F.col("id") + 1).alias("n"),
    )
    expected.check(df, name="columns")
    expected.check(df.select((F.col("d") * F.col("n")).alias("x"), (F.col("h") / 2).alias("y")), name="scaled")
    expected.check(df.select(F.col("h").cast("string").alias("s"), F.col("h").cast("interval minute").alias("m")), name="casts")
    expected.check_value(df.dtypes, name="dtypes")
    expected.check_value(df._show_string(2, 20, False), name="show")


def test_try_arithmetic_keeps_interval_fields(spark, expected):
    from pyspark.sql import functions as F

    df = spark.sql("SELECT * FROM VALUES (INTERVAL 1 YEAR, INTERVAL 2 YEAR, INTERVAL 3 DAY, INTERVAL '4' HOUR) AS t(y1, y2, d, h)")
    out = df.select(F.try_add("y1", "y2"), F.try_subtract("y1", "y2"), F.try_add("d", "h"), F.try_subtract("d", "d"))
    # (PySpark cannot collect year-month intervals: the shown values and the types.)
    expected.check_value(out._show_string(truncate=False), name="shown")
    expected.check_value(out.schema.simpleString(), name="types")
