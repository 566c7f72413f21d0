"""Spark's type rules where Arrow's differ: numbers as timestamps are seconds (Arrow reads
microseconds), text read as a date by Spark's own forms, the casts Spark refuses (numbers and
dates, numbers and TIMESTAMP_NTZ, booleans and datetimes, numbers and binary) or answers with
NULL outside ANSI mode, and the argument types functions refuse (greatest of text and numbers,
length of an array, concat of an array and text, a lambda of the wrong arity, ...). Answers and
error classes recorded from Spark 4.3."""

import pytest
from pyspark.sql import functions as F

from conftest import cases

ANSWERS = {
    "numbers_as_timestamps": "SELECT CAST(1 AS TIMESTAMP) a, CAST(-1.5 AS TIMESTAMP) b, CAST(CAST(1.5 AS DOUBLE) AS TIMESTAMP) c, "
    "CAST(1Y AS TIMESTAMP) d, CAST(2.25BD AS TIMESTAMP) e, CAST(-7L AS TIMESTAMP) f, try_cast(CAST('NaN' AS DOUBLE) AS TIMESTAMP) g",
    "timestamps_as_numbers": "SELECT CAST(TIMESTAMP'1970-01-01 00:00:01.5 UTC' AS BIGINT) a, CAST(TIMESTAMP'1969-12-31 23:59:59.5 UTC' AS BIGINT) b, "
    "CAST(TIMESTAMP'1970-01-01 00:00:01.5 UTC' AS DOUBLE) c, CAST(TIMESTAMP'1970-01-01 00:00:01.5 UTC' AS DECIMAL(10,3)) d, "
    "CAST(TIMESTAMP'2024-05-01 10:00:00 UTC' AS INT) e, CAST(TIMESTAMP'1969-12-31 23:59:59.5 UTC' AS DOUBLE) f",
    "numbers_as_timestamps_columns": "SELECT x, CAST(x AS TIMESTAMP) t, CAST(CAST(x AS TIMESTAMP) AS BIGINT) back "
    "FROM VALUES (0L), (86400L), (-1L), (NULL) t(x)",
    "to_timestamp_of_numbers": "SELECT to_timestamp(1) a, to_timestamp(1.5) b, to_timestamp(1L) c, to_timestamp(CAST(2 AS DOUBLE)) d",
    "text_as_dates": "SELECT CAST('2024' AS DATE) a, CAST('2024-1-5' AS DATE) b, CAST(' 2024-01-01 ' AS DATE) c, "
    "CAST('2024-01-01T10:00' AS DATE) d, CAST('2024-01-01 10:00:00' AS DATE) e, CAST('2024-01' AS DATE) f, "
    "try_cast('1' AS DATE) g, try_cast('20240101' AS DATE) h, try_cast('2024-02-30' AS DATE) i, to_date(' 2024-3-4') j",
    "to_date_of_numbers_with_pattern": "SELECT to_date(2024, 'yyyy') a, to_date(202403, 'yyyyMM') b",
    "concat_of_arrays": "SELECT array(1) || array(2) a, concat(array(1), array(2, 3)) b, 'a' || 1 c",
    "length_of_text_and_bytes": "SELECT length(X'0102') a, length(12) b, char_length('héllo') c",
    # Never NULL for a value: casts between datetimes, locate at a NULL position (0).
    "datetime_casts_and_locate_not_null": "SELECT to_timestamp_ntz(TIMESTAMP'2024-03-10 12:34:56') a, try_to_date(DATE'2024-02-29') b, "
    "try_to_date(TIMESTAMP'2024-02-29 10:00:00') c, to_date(TIMESTAMP'2024-02-29 10:00:00') d, to_timestamp(DATE'2024-02-29') e, "
    "locate('S', 'Spark SQL', CAST(NULL AS INT)) f, locate('S', 'Spark SQL', 3) g, locate('S', s, NULL) h, "
    "to_timestamp_ntz(DATE'2024-02-29') i FROM VALUES ('xS') AS t(s)",
    "locate_of_columns": "SELECT locate('S', s, p) r FROM VALUES ('xS', NULL), (NULL, 1), ('SS', 2) AS t(s, p)",
    # Decimals meet in a decimal that keeps their integer digits first (beyond 38 digits the
    # fraction gives way): DECIMAL(38, 37) and an INT are a DECIMAL(38, 28).
    "wider_decimals_keep_integer_digits": "SELECT x, typeof(x) t FROM VALUES (CAST(1 AS DECIMAL(38,37))), (1234567890) t(x)",
    "wider_decimals_in_unions_and_functions": "SELECT typeof(x) a, typeof(coalesce(CAST(1 AS DECIMAL(38,37)), 0)) b, "
    "greatest(CAST(1.5 AS DECIMAL(38,36)), 12345678901L) c, typeof(array(CAST(1 AS DECIMAL(20,19)), CAST(1 AS DECIMAL(30,0)))) d "
    "FROM (SELECT CAST(1 AS DECIMAL(38,37)) AS x UNION ALL SELECT 0)",
}

ERRORS = {
    "cast_int_to_date": "SELECT CAST(1 AS DATE)",
    "cast_decimal_to_date": "SELECT CAST(1.5BD AS DATE)",
    "cast_date_to_int": "SELECT CAST(DATE'2024-01-01' AS INT)",
    "cast_date_to_double": "SELECT CAST(DATE'2024-01-01' AS DOUBLE)",
    "cast_date_to_decimal": "SELECT CAST(DATE'2024-01-01' AS DECIMAL(10,2))",
    "cast_date_to_boolean": "SELECT CAST(DATE'2024-01-01' AS BOOLEAN)",
    "cast_int_to_timestamp_ntz": "SELECT CAST(1 AS TIMESTAMP_NTZ)",
    "cast_timestamp_ntz_to_bigint": "SELECT CAST(TIMESTAMP_NTZ'2024-01-01 00:00:00' AS BIGINT)",
    "cast_boolean_to_timestamp": "SELECT CAST(true AS TIMESTAMP)",
    "cast_timestamp_to_boolean": "SELECT CAST(TIMESTAMP'2024-01-01 00:00:00' AS BOOLEAN)",
    "cast_int_to_binary": "SELECT CAST(1 AS BINARY)",
    "cast_decimal_to_binary": "SELECT CAST(1.5 AS BINARY)",
    "cast_binary_to_int": "SELECT CAST(X'01' AS INT)",
    "try_cast_int_to_date": "SELECT try_cast(1 AS DATE)",
    "cast_nan_to_timestamp": "SELECT CAST(CAST('NaN' AS DOUBLE) AS TIMESTAMP)",
    "cast_text_digits_to_date": "SELECT CAST('20240101' AS DATE)",
    "cast_text_feb_30_to_date": "SELECT CAST('2024-02-30' AS DATE)",
    "cast_text_short_year_to_date": "SELECT CAST('1' AS DATE)",
    "to_date_of_int": "SELECT to_date(1)",
    "to_date_of_digits": "SELECT to_date(20240101)",
    "to_date_of_decimal": "SELECT to_date(1.5)",
    "to_timestamp_ntz_of_int": "SELECT to_timestamp_ntz(1)",
    "unix_timestamp_of_int": "SELECT unix_timestamp(1)",
    "greatest_int_string": "SELECT greatest(1, 'a')",
    "greatest_string_int": "SELECT greatest('1', 2)",
    "least_int_string": "SELECT least(1, 'a')",
    "greatest_boolean_int": "SELECT greatest(true, 1)",
    "greatest_date_string": "SELECT greatest(DATE'2024-01-01', '2024-01-02')",
    "first_flag_not_boolean": "SELECT first(x, 1) FROM VALUES (1) t(x)",
    "last_flag_text": "SELECT last(x, 'true') FROM VALUES (1) t(x)",
    "any_value_flag_text": "SELECT any_value(x, 'a') FROM VALUES (1) t(x)",
    "first_value_flag_text": "SELECT first_value(x, 'a') FROM VALUES (1) t(x)",
    "length_of_map": "SELECT length(map(1, 2))",
    "length_of_array": "SELECT length(array(1))",
    "char_length_of_array": "SELECT char_length(array(1))",
    "zip_with_lambda_of_one": "SELECT zip_with(array(1), array(2), x -> x)",
    "transform_lambda_of_three": "SELECT transform(array(1), (x, y, z) -> x)",
    "exists_lambda_of_two": "SELECT exists(array(1), (x, y) -> x > 0)",
    "map_filter_lambda_of_one": "SELECT map_filter(map(1, 2), k -> true)",
    "concat_array_string": "SELECT array(1) || 'a'",
    "concat_string_array_int": "SELECT concat('a', array(1), 1)",
    "concat_array_null": "SELECT concat(array(1), NULL)",
    "array_join_int_delimiter": "SELECT array_join(array('a', 'b'), 1)",
    "flatten_of_flat_array": "SELECT flatten(array(1, 2))",
    "from_json_int_option": "SELECT from_json('{\"a\":1}', 'a INT', map('mode', 1))",
    "from_json_options_not_a_map": "SELECT from_json('{\"a\":1}', 'a INT', named_struct('mode', 'x'))",
    # Comparisons DataFusion would coerce and Spark refuses: a date or timestamp with a number,
    # intervals of the two kinds, maps (no equality), IN lists without a common type.
    "date_equals_int": "SELECT DATE'2024-02-29' = 3",
    "int_below_date": "SELECT 3 < DATE'2024-02-29'",
    "date_equals_decimal": "SELECT DATE'2024-01-01' = 1.5",
    "nullif_date_int": "SELECT nullif(DATE'2024-02-29', 3)",
    "equal_null_date_int": "SELECT equal_null(DATE'2024-02-29', 3)",
    "nullifzero_date": "SELECT nullifzero(DATE'2024-02-29')",
    "intervals_of_two_kinds": "SELECT INTERVAL '1' DAY = INTERVAL '1' MONTH",
    "map_equality": "SELECT map(1, 2) = map(1, 2)",
    "array_of_maps_equality": "SELECT array(map(1, 2)) <=> array(map(1, 2))",
    "in_date_int": "SELECT 1 IN (DATE'2024-01-01')",
    "in_boolean_int": "SELECT true IN (1)",
    # Text and bytes together, a LIKE escape that is no text, exact percentiles of datetimes.
    "string_agg_bytes_and_text": "SELECT string_agg(X'414243', ';')",
    "listagg_bytes_and_text": "SELECT listagg(X'414243', ';')",
    "overlay_bytes_placing_text": "SELECT overlay(X'414243', '__', 2)",
    "overlay_text_placing_bytes": "SELECT overlay('Spark SQL', X'414243', 2, 3)",
    "ilike_escape_not_text": "SELECT ilike('Spark SQL', 'sp%', 1)",
    "median_of_timestamps": "SELECT median(TIMESTAMP'2024-03-10 12:34:56')",
    "percentile_of_dates": "SELECT percentile(DATE'2024-02-29', 0.5D)",
    "in_column_date_int": "SELECT d IN (1, 2) FROM VALUES (DATE'2024-01-01') AS t(d)",
}

NON_ANSI = {
    # A boolean equals a number as the number, also through <=> and equal_null.
    "boolean_null_safe_equals_number": "SELECT 3 <=> true a, 1 <=> true b, equal_null(1, true) c, equal_null(0, false) d",
    "dates_as_numbers_are_null": "SELECT CAST(DATE'2024-01-01' AS INT) a, CAST(DATE'2024-01-01' AS DOUBLE) b, "
    "CAST(DATE'2024-01-01' AS BOOLEAN) c, CAST(DATE'2024-01-01' AS DECIMAL(10,2)) d",
    "numbers_as_timestamps": "SELECT CAST(1 AS TIMESTAMP) a, CAST(-1.5 AS TIMESTAMP) b, CAST(TIMESTAMP'1970-01-01 00:00:02 UTC' AS BIGINT) c",
    "text_as_dates": "SELECT CAST('2024' AS DATE) a, CAST('20240101' AS DATE) b, CAST('x' AS DATE) c",
    # Legacy casts that always answer a value: never NULL for a value.
    "decimals_and_timestamps": "SELECT CAST(CAST(-1.5 AS DECIMAL(2,1)) AS TIMESTAMP) b, CAST(TIMESTAMP'2020-01-01 00:00:00' AS BIGINT) c, "
    "CAST(CAST(123456789012.123456 AS DECIMAL(18,6)) AS TIMESTAMP) d, CAST(CAST(1 AS DECIMAL(38,20)) AS TIMESTAMP) e",
    # Decimals past 38 digits: NULL where the rounded result does not fit.
    "decimal_out_of_range_is_null": "SELECT CAST(id + 1 AS DECIMAL(38,0)) * CAST(1e20 AS DECIMAL(38,0)) * CAST(1e20 AS DECIMAL(38,0)) r, "
    "CAST('99999999999999999999999999999999999999' AS DECIMAL(38,0)) + CAST(id AS DECIMAL(38,0)) s FROM range(2)",
    # Outside ANSI mode a boolean equals a number as that number's type (not `<`).
    "boolean_equals_number": "SELECT true = 1 a, true = 2 b, false = 0 c, true <=> 1 d, nullif(true, 1) e, nullif(false, 1) f, "
    "CAST(NULL AS BOOLEAN) = 1 g, true != 1 h, 1.0 = true i, nullif(true, 1.0D) j",
    # A legacy cast to text answers for every value.
    "casts_to_text_not_null": "SELECT if(true, 'abc', 3) a, nvl2(3, 'abc', 3) b, CAST(1.5D AS STRING) c, CAST(array(1) AS STRING) d, "
    "coalesce('x', 1) e, CAST('1' AS INT) f",
    "boolean_column_equals_number": "SELECT b = n a, nullif(b, n) c FROM VALUES (true, 1), (false, 1), (NULL, 0), (true, NULL) AS t(b, n)",
    # to_char reads text as a DECIMAL: NULL where it is not a number.
    "to_char_of_text": "SELECT to_char('abc', '9999.999') a, to_varchar('12.5', '99.99') b, to_char(s, '999') c "
    "FROM VALUES ('x'), ('42'), (' 7 '), (NULL) AS t(s)",
}

NON_ANSI_ERRORS = {
    "date_equals_int": "SELECT DATE'2024-02-29' = 3",
    "boolean_below_number": "SELECT true < 1",
    "in_boolean_int": "SELECT true IN (1)",
    "cast_int_to_date": "SELECT CAST(1 AS DATE)",
    "cast_int_to_timestamp_ntz": "SELECT CAST(1 AS TIMESTAMP_NTZ)",
    "cast_binary_to_int": "SELECT CAST(X'01' AS INT)",
}


@pytest.mark.parametrize("case", cases(ANSWERS))
def test_answers(spark, expected, case):
    expected.check(spark.sql(ANSWERS[case]), name=case)


@pytest.mark.parametrize("case", cases(ERRORS))
def test_errors(spark, expected, case):
    expected.check_error(lambda: spark.sql(ERRORS[case]).collect(), name=case)


@pytest.fixture
def non_ansi(spark):
    spark.conf.set("spark.sql.ansi.enabled", "false")
    try:
        yield spark
    finally:
        spark.conf.unset("spark.sql.ansi.enabled")


@pytest.mark.parametrize("case", cases(NON_ANSI))
def test_non_ansi(non_ansi, expected, case):
    expected.check(non_ansi.sql(NON_ANSI[case]), name=case)


@pytest.mark.parametrize("case", cases(NON_ANSI_ERRORS))
def test_non_ansi_errors(non_ansi, expected, case):
    expected.check_error(lambda: non_ansi.sql(NON_ANSI_ERRORS[case]).collect(), name=case)


def test_dataframe_casts(spark, expected):
    df = spark.range(3).select(
        F.col("id").cast("timestamp").alias("t"),
        (F.col("id") * 1.5).cast("timestamp").alias("f"),
        F.lit("2024-2-3").cast("date").alias("d"),
    )
    expected.check(df, name="dataframe_casts")
    expected.check_error(lambda: spark.range(1).select(F.col("id").cast("date")).collect(), name="dataframe_cast_to_date")
