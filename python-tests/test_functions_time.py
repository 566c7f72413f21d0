"""Spark's TIME type and functions (make_time, to_time, time_diff, time_trunc, time_to_*,
time_from_*, casts, fields) and time_bucket; answers recorded from real Spark 4.3 (where TIME
needs `spark.sql.timeType.enabled`)."""

import pytest

from conftest import cases


@pytest.fixture
def tspark(spark):
    spark.conf.set("spark.sql.timeType.enabled", "true")
    return spark


SQL = {
    "literal": "SELECT TIME'12:34:56.123456' t, typeof(TIME'12:34:56') ty, TIME'01:02:03'",
    "make_time": "SELECT make_time(12, 34, 56.123456) a, make_time(0, 0, 0) b, typeof(make_time(1,2,3)) c, "
    "make_time(23, 59, 59.999999) d, make_time(NULL, 1, 1) e, make_time(12, 34, 56.1234567) f",
    "to_time": "SELECT to_time('12:34:56') a, to_time('12.34', 'HH.mm') b, try_to_time('xx') c, to_time(NULL) d, "
    "to_time('12:34') e, to_time('1:2:3') f, to_time('12:34:56.1234567') g, to_time(' 12:34:56') h",
    "to_time_patterns": "SELECT to_time('10 PM', 'h a') a, to_time('23-59', 'HH-mm') b",
    "time_diff": "SELECT time_diff('HOUR', TIME'10:00:00', TIME'12:30:00') a, time_diff('MINUTE', TIME'10:00:00', TIME'09:30:00') b, "
    "time_diff('MICROSECOND', TIME'10:00:00', TIME'10:00:01') c, time_diff('SECOND', TIME'10:00:00', TIME'10:00:01.9') d, "
    "time_diff('second', TIME'10:00:01.9', TIME'10:00:00') e",
    "time_trunc": "SELECT time_trunc('HOUR', TIME'12:34:56.789') a, time_trunc('MINUTE', TIME'12:34:56.789') b, "
    "time_trunc('SECOND', TIME'12:34:56.789') c, time_trunc('MILLISECOND', TIME'12:34:56.789123') d, "
    "time_trunc('microsecond', TIME'12:34:56.789123') e",
    "time_to": "SELECT time_to_seconds(TIME'01:02:03.5') a, time_to_millis(TIME'01:02:03.5') b, time_to_micros(TIME'01:02:03.5') c, "
    "typeof(time_to_seconds(TIME'01:02:03.5')) d, typeof(time_to_millis(TIME'00:00:01')) e",
    "time_from": "SELECT time_from_seconds(3723.5) a, time_from_millis(3723500) b, time_from_micros(3723500000) c, "
    "time_from_seconds(3723) d, time_from_seconds(1.5D) e, time_from_seconds(2) f",
    "casts": "SELECT CAST('12:34:56' AS TIME) a, CAST(TIME'12:34:56' AS STRING) b, CAST(TIME'12:34:56.5' AS STRING) c, "
    "try_cast('25:00:00' AS TIME) d, CAST(TIME'01:02:03.000100' AS STRING) e",
    "fields": "SELECT hour(TIME'12:34:56') h, minute(TIME'12:34:56') m, second(TIME'12:34:56') s",
    "compare_and_aggregate": "SELECT max(t) m, min(t) n, TIME'01:02:03' < TIME'02:00:00' a "
    "FROM VALUES (TIME'01:00:00'), (TIME'03:00:00') v(t)",
    "current_time": "SELECT current_time() IS NOT NULL a, typeof(current_time()) b",
    "time_bucket": "SELECT time_bucket(INTERVAL '15' MINUTE, TIMESTAMP'2024-01-01 12:34:56') a, "
    "time_bucket(INTERVAL '1' DAY, TIMESTAMP'2024-01-01 12:34:56') b, time_bucket(INTERVAL '15' MINUTE, TIMESTAMP_NTZ'2024-01-01 12:34:56') c",
}

SQL_GAPS = {}


@pytest.mark.parametrize("case", cases(SQL, SQL_GAPS))
def test_sql(tspark, expected, case):
    expected.check(tspark.sql(SQL[case]), name=case)


ERRORS = {
    "make_time_hour": "SELECT make_time(25, 0, 0)",
    "make_time_minute": "SELECT make_time(1, 60, 0)",
    "make_time_second": "SELECT make_time(1, 1, 60)",
    "make_time_negative_second": "SELECT make_time(1, 1, -0.5)",
    "to_time": "SELECT to_time('xx')",
    "time_diff_unit": "SELECT time_diff('DAY', TIME'10:00:00', TIME'12:30:00')",
    "time_trunc_unit": "SELECT time_trunc('DAY', TIME'10:00:00')",
    "time_from_negative": "SELECT time_from_seconds(-1)",
    "time_from_day": "SELECT time_from_millis(86400000)",
    "cast": "SELECT CAST('25:00:00' AS TIME)",
    "time_bucket_of_time": "SELECT time_bucket(INTERVAL '15' MINUTE, TIME'12:34:56')",
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors(tspark, expected, case):
    expected.check_error(lambda: tspark.sql(ERRORS[case]).collect(), name=case)
