"""Names Spark gives function calls (the column names users see in show() and df.columns) and
the optional arguments of functions, as PySpark 4.3's doctests use them: defaults of omitted
parameters shown in the name (`substr(s, 2, 2147483647)`), calls named as written or by their
canonical name, trim's trim string first, instr's position and occurrence, levenshtein's
threshold, max_by/min_by's k, mode's deterministic flag, make_timestamp's time zone and
date/time forms; answers, names, types and errors recorded from real Spark 4.3."""

import pytest
from pyspark.sql import functions as F

from conftest import cases

SQL = {
    # names with the defaults of omitted parameters
    "substr_defaults": "SELECT substr('Spark SQL', 5), substring('Spark SQL', 5), substr('Spark SQL', 5, 1), "
    "substr('Spark SQL' FROM 5), substring('Spark SQL' FROM 5 FOR 1)",
    "pad_defaults": "SELECT lpad('hi', 5), rpad('hi', 5), lpad('hi', 5, '?'), rpad('hi', 1)",
    "split_defaults": "SELECT split('a,b,c', ','), split('a,b,c', ',', 2)",
    "regexp_defaults": "SELECT regexp_extract_all('100-200, 300-400', '(\\\\d+)-(\\\\d+)'), regexp_instr('abc', 'b')",
    "mask_defaults": "SELECT mask('AbCD123-@$#'), mask('AbCD123-@$#', 'Q'), mask('AbCD123-@$#', 'Q', 'q'), "
    "mask('AbCD123-@$#', 'Q', 'q', 'd', 'o')",
    "locate_defaults": "SELECT locate('bar', 'foobarbar'), position('bar', 'foobarbar', 5), locate('bar', 'foobarbar', 0)",
    "sentences_defaults": "SELECT sentences('Hi there! Good morning.'), sentences('Hi there!', 'en'), sentences('Hi there!', 'en', 'US')",
    "aes_defaults": "SELECT aes_decrypt(aes_encrypt('Spark', '0000111122223333'), '0000111122223333') a, "
    "cast(aes_decrypt(aes_encrypt('Spark', '0000111122223333'), '0000111122223333') AS STRING)",
    "datetime_defaults": "SELECT from_unixtime(0), months_between('1997-02-28 10:30:00', '1996-10-30'), "
    "months_between('1997-02-28 10:30:00', '1996-10-30', false), unix_timestamp('2016-04-08 00:00:00')",
    "make_dt_interval_defaults": "SELECT make_dt_interval(1), make_dt_interval(1, 12), make_dt_interval(1, 12, 30, 1.5), make_dt_interval()",
    "convert_timezone_name": "SELECT convert_timezone('Europe/Brussels', TIMESTAMP_NTZ'2021-12-06 00:00:00')",
    # (the unordered forms over equal values: their order is that of the rows' arrival)
    "string_agg_names": "SELECT string_agg(s), listagg(s, '-'), string_agg(DISTINCT s), "
    "string_agg(t, ',') WITHIN GROUP (ORDER BY t), listagg(t) WITHIN GROUP (ORDER BY t DESC) "
    "FROM VALUES ('b', 'b'), ('b', 'a'), ('b', 'b') t(s, t)",
    # named as written, or by Spark's canonical name
    "written_names": "SELECT sign(-2), signum(-2), ceiling(1.5), ceil(1.5), ceiling(1.55, 1), curdate() IS NOT NULL, "
    "+(3), positive(3), expm1(0), hypot(3, 4)",
    "dateadd_name": "SELECT dateadd(DATE'2020-01-01', 3), date_add(DATE'2020-01-01', 3), datepart('YEAR', DATE'2020-01-01'), "
    "date_part('YEAR', DATE'2020-01-01'), extract(YEAR FROM DATE'2020-01-01')",
    "like_names": "SELECT 'Spark' ILIKE '_park', 'Spark' ILIKE '/_park' ESCAPE '/', regexp_like('Spark', 'S.*'), "
    "regexp('Spark', 'S.*'), 'Spark' RLIKE 'S.*', 'Spark' REGEXP 'S.*'",
    "any_value_first_names": "SELECT any_value(x), any_value(x, true), first(x), first(x, true), last(x, false) "
    "FROM VALUES (CAST(NULL AS INT)), (1) t(x)",
    "to_json_names": "SELECT to_json(named_struct('a', 1)), to_json(named_struct('a', 1), map('pretty', 'false')), "
    "to_csv(named_struct('a', 1)), schema_of_json('[1]'), schema_of_csv('1,abc')",
    "void_show": "SELECT NULL AS n, CAST(NULL AS VOID) v",
    # trim with a trim string
    "trim_forms": "SELECT trim('  x  '), trim(BOTH 'S' FROM 'SSxSS'), trim(LEADING 'S' FROM 'SSxSS'), "
    "trim(TRAILING 'S' FROM 'SSxSS'), ltrim('  x'), rtrim('x  '), btrim('SSxSS', 'S'), trim('S', 'SSxSS'), ltrim('S', 'SSxSS')",
    # instr with a position and an occurrence
    "instr_positions": "SELECT s, p, o, instr(s, 'ab', p, o) FROM VALUES ('abcabcab', 1, 1), ('abcabcab', 1, 2), ('abcabcab', 2, 1), "
    "('abcabcab', -1, 1), ('abcabcab', -1, 2), ('abcabcab', -3, 1), ('abcabcab', 0, 1), ('abcabcab', 20, 1), ('abcabcab', -20, 1), "
    "('aaaa', 1, 3), ('aaaa', -1, 3), ('ab', 1, 5), (NULL, 1, 1), ('ab', NULL, 1), ('ab', 1, NULL), ('é😀é', 2, 1) t(s, p, o)",
    "instr_three_args": "SELECT instr('abcabc', 'bc', 3), instr('abcabc', 'bc'), instr('abc', '', 2, 1)",
    # levenshtein with a threshold
    "levenshtein_threshold": "SELECT a, b, t, levenshtein(a, b, t) FROM VALUES ('kitten', 'sitting', 2), ('kitten', 'sitting', 3), "
    "('kitten', 'sitting', 10), ('', '', 0), ('a', NULL, 1), ('a', 'b', NULL) t(a, b, t)",
    "levenshtein_name": "SELECT levenshtein('kitten', 'sitting'), levenshtein('kitten', 'sitting', 2)",
    # max_by / min_by with k
    "max_by_k": "SELECT max_by(x, y, 2), min_by(x, y, 2), max_by(x, y, 10), min_by(x, y, 1) "
    "FROM VALUES ('a', 10), ('b', 50), ('c', 20), ('d', NULL) t(x, y)",
    "max_by_k_groups": "SELECT k, max_by(x, y, 2) m FROM VALUES (1, 'a', 10), (1, 'b', 50), (2, 'c', 20), (3, 'd', NULL) t(k, x, y) "
    "GROUP BY k ORDER BY k",
    # mode with the deterministic flag (the least of tied values; without it, any of them)
    "mode_deterministic": "SELECT mode(x), mode(y, true), mode(x, false) FROM VALUES (10, 10), (0, 0), (10, 10), (0, 0), (10, NULL) t(x, y)",
    # make_timestamp's forms
    "make_timestamp_zone": "SELECT make_timestamp(2014, 12, 28, 6, 30, 45.887, 'CET'), make_timestamp(2014, 12, 28, 6, 30, 45.887), "
    "try_make_timestamp(2014, 12, 28, 6, 30, 45.887, 'CET'), make_timestamp(2019, 6, 30, 23, 59, 60)",
    "make_timestamp_date_time": "SELECT make_timestamp(DATE'2014-12-28', TIME'06:30:45.887'), "
    "make_timestamp(DATE'2014-12-28', TIME'06:30:45.887', 'CET'), make_timestamp_ntz(DATE'2014-12-28', TIME'06:30:45.887'), "
    "try_make_timestamp_ntz(DATE'2014-12-28', TIME'06:30:45.887'), make_timestamp_ltz(2014, 12, 28, 6, 30, 45.887, 'CET')",
    "make_timestamp_nulls": "SELECT make_timestamp(DATE'2014-12-28', NULL), make_timestamp(2014, 12, 28, 6, 30, 45.887, NULL)",
    "assert_true_message": "SELECT assert_true(1 < 2), assert_true(x > 0) FROM VALUES (1) t(x)",
}

SQL_GAPS = {}


@pytest.mark.parametrize("case", cases(SQL, SQL_GAPS))
def test_sql(spark, expected, case):
    spark.conf.set("spark.sql.session.timeZone", "America/Los_Angeles")
    try:
        expected.check(spark.sql(SQL[case]), name=case)
    finally:
        spark.conf.unset("spark.sql.session.timeZone")


ERRORS = {
    "instr_occurrence_zero": "SELECT instr('abc', 'b', 1, 0)",
    "max_by_k_zero": "SELECT max_by(x, y, 0) FROM VALUES ('a', 1) t(x, y)",
    "max_by_k_column": "SELECT max_by(x, y, y) FROM VALUES ('a', 1) t(x, y)",
    "make_timestamp_arity": "SELECT make_timestamp(2014, 12, 28, 6)",
    "make_timestamp_ntz_zone": "SELECT make_timestamp_ntz(2014, 12, 28, 6, 30, 45.887, 'CET')",
    "make_timestamp_date_types": "SELECT make_timestamp(1, TIME'06:30:45')",
    "assert_true_fails": "SELECT assert_true(x > 1) FROM VALUES (1) t(x)",
}


@pytest.mark.parametrize("case", cases(ERRORS))
def test_errors(spark, expected, case):
    expected.check_error(lambda: spark.sql(ERRORS[case]).collect(), name=case)


@pytest.fixture
def words(spark):
    return spark.createDataFrame([(1, "SSparkSS"), (2, "  x "), (3, None)], "id INT, s STRING")


FRAME = {
    "trim": lambda: F.trim("s"),
    "trim_with": lambda: F.trim("s", F.lit("S")),
    "ltrim_with": lambda: F.ltrim("s", F.lit("S")),
    "rtrim_with": lambda: F.rtrim("s", F.lit("S")),
    "btrim_with": lambda: F.btrim("s", F.lit("S")),
    "substr": lambda: F.substr("s", F.lit(2)),
    "lpad": lambda: F.lpad("s", 10, "*"),
    "instr": lambda: F.instr("s", "S"),
    "levenshtein": lambda: F.levenshtein("s", F.lit("Spark"), 3),
    "sign": lambda: F.sign(F.col("id") - 2),
    "signum": lambda: F.signum(F.col("id") - 2),
    "ceiling": lambda: F.ceiling(F.col("id") / 2),
    "positive": lambda: F.positive("id"),
    "mask": lambda: F.mask("s"),
    "split": lambda: F.split("s", "a"),
}


@pytest.mark.parametrize("case", sorted(FRAME))
def test_dataframe(words, expected, case):
    expected.check(words.select("id", FRAME[case]()), name=case)


def test_aggregate_names(spark, expected):
    df = spark.createDataFrame([(1, 10), (1, 0), (1, 0), (2, 10), (2, 10)], "k INT, v INT")
    expected.check(df.groupBy("k").agg(F.any_value("v"), F.mode("v"), F.max_by("v", "v")).orderBy("k"), ordered=True)
