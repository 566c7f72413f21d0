"""Spark 4.3's nanosecond timestamps: TIMESTAMP_LTZ(9)/TIMESTAMP_NTZ(9) (casts to and from
them, typed literals with nine fraction digits, show() of them), `timestamp_nanos` and
`unix_nanos`, all behind `spark.sql.timestampNanosTypes.enabled`; recorded from real Spark 4.3.

Neither client (4.3.0, 4.2.0) reads these types in a schema (PySpark raises
UNSUPPORTED_OPERATION for `df.schema`, `collect()`, `toPandas()`): their values reach a client
as text (`show()`, casts to STRING) or as numbers (`unix_nanos`)."""

import contextlib
import io

import pytest
from pyspark.sql import functions as F

from conftest import cases

ZONE = "America/Los_Angeles"


@pytest.fixture
def nanos(spark):
    spark.conf.set("spark.sql.session.timeZone", ZONE)
    spark.conf.set("spark.sql.timestampNanosTypes.enabled", "true")
    try:
        yield spark
    finally:
        spark.conf.unset("spark.sql.timestampNanosTypes.enabled")
        spark.conf.unset("spark.sql.session.timeZone")


def shown(df, **kw):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        df.show(truncate=False, **kw)
    return out.getvalue()


NTZ = "TIMESTAMP_NTZ '2020-01-01 13:24:35.123456789'"

# Shown with show(): the values and the generated column names.
SHOW = {
    "timestamp_nanos": "SELECT timestamp_nanos(1577885075123456789)",
    "timestamp_nanos_values": "SELECT timestamp_nanos(-1) a, timestamp_nanos(0) b, timestamp_nanos(4102444800123456789) c, "
    "timestamp_nanos(1577885075000000000) d, timestamp_nanos(1577885075100000000) e, timestamp_nanos(-1577885075123456789) f",
    "timestamp_nanos_types": "SELECT timestamp_nanos(1S) a, timestamp_nanos(1Y) b, timestamp_nanos(1.5) c, "
    "timestamp_nanos(CAST(1577885075123456789.9 AS DECIMAL(30, 1))) d, timestamp_nanos(NULL) e",
    "unix_nanos": f"SELECT unix_nanos({NTZ}), unix_nanos(timestamp_nanos(-1)) b, unix_nanos(NULL) c",
    "ntz_literal": f"SELECT {NTZ}",
    "ltz_literal": "SELECT TIMESTAMP '2020-01-01 13:24:35.123456789' a, TIMESTAMP_LTZ '2020-01-01 13:24:35.123456789' b",
    "casts_from_text": "SELECT CAST('2020-01-01 13:24:35.123456789' AS TIMESTAMP_NTZ(9)) a, "
    "CAST('2020-01-01 13:24:35.123456789' AS TIMESTAMP(9)) b, CAST('2020-01-01 13:24:35.1' AS TIMESTAMP_NTZ(9)) c, "
    "CAST('2020-01-01' AS TIMESTAMP(9)) d, CAST('2020-01-01T13:24:35.123456789Z' AS TIMESTAMP(9)) e, "
    "try_cast('x' AS TIMESTAMP_NTZ(9)) f",
    "casts_between": "SELECT CAST(timestamp_nanos(1577885075123456789) AS STRING) s, CAST(timestamp_nanos(1577885075123456789) AS TIMESTAMP) m, "
    "CAST(timestamp_nanos(1577885075123456789) AS TIMESTAMP_NTZ(9)) n, CAST(timestamp_nanos(1577885075123456789) AS DATE) d, "
    f"CAST({NTZ} AS TIMESTAMP_LTZ(9)) l, CAST({NTZ} AS TIMESTAMP_NTZ) u, CAST(CAST(1 AS TIMESTAMP) AS TIMESTAMP(9)) w",
    "casts_from_dates": "SELECT CAST(DATE '2020-01-01' AS TIMESTAMP(9)) a, CAST(DATE '2020-01-01' AS TIMESTAMP_NTZ(9)) b",
    "compare": f"SELECT timestamp_nanos(1) = timestamp_nanos(1) a, timestamp_nanos(1000) > TIMESTAMP '1970-01-01 00:00:00Z' b, "
    f"{NTZ} < CAST('2020-01-01 13:24:35.12345679' AS TIMESTAMP_NTZ(9)) c",
    "null_casts": "SELECT CAST(NULL AS TIMESTAMP_NTZ(9)) a, CAST(NULL AS TIMESTAMP_NTZ(6)) b, CAST(NULL AS TIMESTAMP_LTZ(9)) c",
}

# Answers a client can collect (no nanosecond type among the columns).
COLLECT = {
    "typeof": f"SELECT typeof({NTZ}) a, typeof(TIMESTAMP '2020-01-01 13:24:35.123456789') b, "
    "typeof(TIMESTAMP '2020-01-01 13:24:35.12') c, typeof(timestamp_nanos(1)) d, typeof(CAST(NULL AS TIMESTAMP_NTZ(9))) e, "
    "typeof(unix_nanos(timestamp_nanos(5))) f",
    "unix_nanos_values": f"SELECT unix_nanos({NTZ}) a, unix_nanos(timestamp_nanos(-1)) b, "
    "unix_nanos(CAST(TIMESTAMP '2020-01-01 00:00:00' AS TIMESTAMP(9))) c, unix_nanos(CAST(NULL AS TIMESTAMP_LTZ(9))) d",
    "as_text": "SELECT CAST(timestamp_nanos(n) AS STRING) s FROM VALUES (1577885075123456789), (-1), (0), (NULL) t(n)",
    "round_trip": "SELECT n, unix_nanos(timestamp_nanos(n)) r FROM VALUES (1577885075123456789), (-1577885075123456789), (1), (NULL) t(n)",
}

ERRORS = {
    "timestamp_nanos_of_string": "SELECT timestamp_nanos('1')",
    "timestamp_nanos_of_double": "SELECT timestamp_nanos(1.5D)",
    "unix_nanos_of_ntz": "SELECT unix_nanos(TIMESTAMP_NTZ '2020-01-01 13:24:35.123456')",
    "unix_nanos_of_timestamp": "SELECT unix_nanos(TIMESTAMP '2020-01-01 13:24:35.123456')",
    "cast_of_int": "SELECT CAST(1 AS TIMESTAMP(9))",
    "cast_of_boolean": "SELECT CAST(true AS TIMESTAMP(9))",
    "cast_of_decimal": "SELECT CAST(1.5 AS TIMESTAMP_NTZ(9))",
    "cast_to_bigint": "SELECT CAST(timestamp_nanos(1500000000) AS BIGINT)",
    "cast_to_double": "SELECT CAST(timestamp_nanos(1500000000) AS DOUBLE)",
    "cast_malformed": "SELECT CAST('x' AS TIMESTAMP_NTZ(9))",
    "precision_10": "SELECT CAST(NULL AS TIMESTAMP_NTZ(10))",
    "precision_0": "SELECT CAST(NULL AS TIMESTAMP_NTZ(0))",
}

# Without spark.sql.timestampNanosTypes.enabled.
DISABLED = {
    "timestamp_nanos": "SELECT timestamp_nanos(1577885075123456789) c",
    "cast_ntz9": "SELECT CAST('2020-01-01 13:24:35.123456789' AS TIMESTAMP_NTZ(9)) c",
    "cast_ltz9": "SELECT CAST('2020-01-01 13:24:35.123456789' AS TIMESTAMP(9)) c",
    "typeof_cast": "SELECT typeof(CAST(NULL AS TIMESTAMP_NTZ(9))) t",
    "unix_nanos": "SELECT unix_nanos(TIMESTAMP_NTZ '2020-01-01 13:24:35.123456789') c",
}


@pytest.mark.parametrize("case", cases(SHOW))
def test_show(nanos, expected, case):
    expected.check_value(shown(nanos.sql(SHOW[case])), name=case)


@pytest.mark.parametrize("case", cases(COLLECT))
def test_collect(nanos, expected, case):
    expected.check(nanos.sql(COLLECT[case]), name=case, nullability=True)


@pytest.mark.parametrize("case", cases(ERRORS))
def test_errors(nanos, expected, case):
    # (show(): collect() of a nanosecond column fails in the client before any error arrives.)
    expected.check_error(lambda: shown(nanos.sql(ERRORS[case])), name=case)


def test_schema_unreadable_by_the_client(nanos, expected):
    df = nanos.sql(f"SELECT {NTZ} AS ts, timestamp_nanos(1) AS l")
    expected.check_error(lambda: df.schema, name="schema")
    expected.check_error(lambda: df.collect(), name="collect")
    expected.check_error(lambda: df.toPandas(), name="toPandas")


@pytest.mark.parametrize("case", cases(DISABLED))
def test_disabled(spark, expected, case):
    spark.conf.set("spark.sql.session.timeZone", ZONE)
    try:
        expected.check_error(lambda: shown(spark.sql(DISABLED[case])), name=case)
    finally:
        spark.conf.unset("spark.sql.session.timeZone")


def test_literal_without_the_setting(spark, expected):
    # Microseconds: the digits beyond the sixth dropped.
    df = spark.sql("SELECT TIMESTAMP_NTZ '2020-01-01 13:24:35.123456789' AS ts, typeof(TIMESTAMP '2020-01-01 13:24:35.123456789') t")
    expected.check(df, nullability=True)


def test_dataframe_doctests(nanos, expected):
    """The examples of PySpark 4.3's docstrings of timestamp_nanos and unix_nanos."""
    if not hasattr(F, "timestamp_nanos"):
        pytest.skip("this client's pyspark.sql.functions has no timestamp_nanos")
    nanos.conf.set("spark.sql.session.timeZone", "UTC")
    df = nanos.createDataFrame([(1577885075123456789,)], ["nanos"])
    expected.check_value(shown(df.select(F.timestamp_nanos("nanos"))), name="timestamp_nanos")
    expected.check_value(shown(df.select(F.timestamp_nanos(F.lit(None).cast("bigint")))), name="timestamp_nanos_null")
    ts = nanos.sql("SELECT TIMESTAMP_NTZ '2020-01-01 13:24:35.123456789' AS ts")
    expected.check_value(shown(ts.select("*", F.unix_nanos("ts"))), name="unix_nanos")
    expected.check_value(shown(ts.select(F.unix_nanos(F.lit(None).cast("timestamp_ntz(9)")))), name="unix_nanos_null")


def test_dataframe_doctests_older_client(nanos, expected):
    """The same calls by name (4.2's pyspark.sql.functions has neither function)."""
    nanos.conf.set("spark.sql.session.timeZone", "UTC")
    df = nanos.createDataFrame([(1577885075123456789,)], ["nanos"])
    expected.check_value(shown(df.select(F.call_function("timestamp_nanos", "nanos"))), name="timestamp_nanos")
    ts = nanos.sql("SELECT TIMESTAMP_NTZ '2020-01-01 13:24:35.123456789' AS ts")
    expected.check_value(shown(ts.select(F.call_function("unix_nanos", "ts"))), name="unix_nanos")
