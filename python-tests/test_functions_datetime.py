"""Date and time functions in the session time zone (America/Los_Angeles here, so DST
transitions show), with Spark's datetime patterns; answers recorded from real Spark."""

import pytest
from pyspark.sql import functions as F

from conftest import cases


@pytest.fixture(scope="module")
def la(spark):
    spark.conf.set("spark.sql.session.timeZone", "America/Los_Angeles")
    yield spark
    spark.conf.unset("spark.sql.session.timeZone")


TS = "TIMESTAMP'2024-03-10 01:30:15.123456'"

SQL = {
    "date_format": f"SELECT date_format({TS}, 'yyyy-MM-dd HH:mm:ss.SSS') a, date_format({TS}, 'dd/MM/yy E') b, "
    "date_format(DATE'2024-01-05', 'yyyyMMdd') c, date_format('2024-02-29 10:00:00', 'MMM d, yyyy hh:mm a') d",
    "date_format_null": "SELECT date_format(CAST(NULL AS TIMESTAMP), 'yyyy') a",
    "date_format_zone": f"SELECT date_format({TS}, 'yyyy-MM-dd HH:mm XXX') a",
    "to_timestamp_default": "SELECT to_timestamp('2024-03-10 03:30:00') a, to_timestamp('2024-07-01') b",
    "to_timestamp_format": "SELECT to_timestamp('10/03/2024 14:05', 'dd/MM/yyyy HH:mm') a, "
    "to_timestamp('20240101', 'yyyyMMdd') b",
    "to_timestamp_null": "SELECT to_timestamp(CAST(NULL AS STRING), 'yyyy') a",
    "to_date_format": "SELECT to_date('03/15/2024', 'MM/dd/yyyy') a, to_date('2024-03-15 23:59:59') b",
    "to_date_timestamp": f"SELECT to_date({TS}) a",
    "try_to_timestamp": "SELECT try_to_timestamp('not a time') a, try_to_timestamp('2024-01-01 00:00:01') b",
    "unix_timestamp": "SELECT unix_timestamp('2024-03-10 03:30:00') a, unix_timestamp('2024/01/01', 'yyyy/MM/dd') b, "
    f"unix_timestamp({TS}) c, unix_timestamp(DATE'2024-01-01') d",
    "to_unix_timestamp": "SELECT to_unix_timestamp('2024-01-01 00:00:00') a",
    "from_unixtime": "SELECT from_unixtime(0) a, from_unixtime(1710063015, 'yyyy-MM-dd HH:mm') b, "
    "from_unixtime(CAST(NULL AS BIGINT)) c",
    "timestamp_seconds": "SELECT timestamp_seconds(1710063015) a, timestamp_millis(1710063015123) b, "
    "timestamp_micros(1710063015123456) c",
    "unix_seconds": f"SELECT unix_seconds({TS}) a, unix_millis({TS}) b, unix_micros({TS}) c",
    "unix_date": "SELECT unix_date(DATE'2024-03-10') a, date_from_unix_date(19792) b",
    "make_date": "SELECT make_date(2024, 2, 29) a, make_date(2023, 12, 31) b",
    "make_timestamp": "SELECT make_timestamp(2024, 3, 10, 1, 30, 15.5) a, make_timestamp(2024, 7, 1, 0, 0, 0) b",
    "months_between": "SELECT months_between(TIMESTAMP'2024-03-31 00:00:00', TIMESTAMP'2024-02-29 00:00:00') a, "
    "months_between(DATE'2024-05-15', DATE'2024-01-01') b, months_between(DATE'2024-05-15', DATE'2024-01-01', false) c",
    "from_utc_timestamp": "SELECT from_utc_timestamp(TIMESTAMP'2024-01-01 12:00:00', 'Asia/Tokyo') a, "
    "to_utc_timestamp(TIMESTAMP'2024-01-01 12:00:00', 'Asia/Tokyo') b",
    "dayofweek": "SELECT dayofweek(DATE'2024-03-10') a, weekday(DATE'2024-03-10') b, dayofweek(DATE'2024-03-16') c",
    "dayname": "SELECT dayname(DATE'2024-03-10') a, monthname(DATE'2024-03-10') b",
    "parts": f"SELECT year({TS}) y, month({TS}) m, day({TS}) d, hour({TS}) h, minute({TS}) mi, second({TS}) s, "
    f"quarter({TS}) q, dayofyear({TS}) doy, weekofyear({TS}) w",
    "parts_of_strings": "SELECT year('2024-03-10') y, month('2024-03-10 10:00:00') m, hour('2024-03-10 10:11:12') h",
    "date_add_sub": "SELECT date_add(DATE'2024-02-28', 2) a, date_sub(DATE'2024-03-01', 1) b, "
    "date_add('2024-12-31', 1) c, datediff(DATE'2024-03-10', DATE'2024-01-01') d",
    "add_months": "SELECT add_months(DATE'2024-01-31', 1) a, add_months(DATE'2024-03-31', -1) b",
    "last_next_day": "SELECT last_day(DATE'2024-02-10') a, next_day(DATE'2024-03-10', 'Mon') b",
    "trunc": "SELECT trunc(DATE'2024-03-10', 'MM') a, trunc(DATE'2024-03-10', 'year') b, trunc(DATE'2024-03-10', 'week') c",
    "date_trunc": f"SELECT date_trunc('HOUR', {TS}) a, date_trunc('day', {TS}) b, date_trunc('MONTH', {TS}) c",
    "dst_gap": "SELECT CAST('2024-03-10 02:30:00' AS TIMESTAMP) a, CAST(TIMESTAMP'2024-03-10 01:59:59' + INTERVAL 1 HOUR AS STRING) b",
    "timestamp_ntz": "SELECT TIMESTAMP_NTZ'2024-03-10 02:30:00' a, CAST(TIMESTAMP_NTZ'2024-03-10 02:30:00' AS TIMESTAMP) b",
    "to_ntz": f"SELECT CAST({TS} AS TIMESTAMP_NTZ) a, CAST(CAST({TS} AS TIMESTAMP_NTZ) AS STRING) b, "
    "unix_timestamp(TIMESTAMP_NTZ'2024-07-10 20:30:00') c",
    "to_timestamp_ntz": "SELECT to_timestamp_ntz('2024-07-10 20:30:00') a, to_timestamp_ntz('10/07/2024', 'dd/MM/yyyy') b",
    "make_interval": "SELECT CAST(make_interval(1, 2, 0, 3, 4, 5, 6.5) AS STRING) a",
    "interval_strings": "SELECT CAST(make_interval(0,0,0,0,0,0,0) AS STRING) a, CAST(make_interval(0,0,0,0,-1,-30,-0.25) AS STRING) b, "
    "CAST(INTERVAL '1-2' YEAR TO MONTH AS STRING) c",
    "try_make_interval": "SELECT CAST(try_make_interval(1, 2, 3, 4, 5, 6, 7.5) AS STRING) a, try_make_interval(2147483647, 12) IS NULL b",
    "make_ym_interval": "SELECT CAST(make_ym_interval(1, 2) AS STRING) a, CAST(make_ym_interval(-1) AS STRING) b, "
    "CAST(make_ym_interval() AS STRING) c, typeof(make_ym_interval(1, 2)) d, make_ym_interval(NULL, 1) IS NULL e",
    "current_timezone": "SELECT current_timezone() a",
    "extract": f"SELECT extract(YEAR FROM {TS}) a, extract(DAYOFWEEK FROM {TS}) b, date_part('minute', {TS}) c",
    "timestampadd": f"SELECT timestampadd(HOUR, 2, {TS}) a, timestampdiff(MINUTE, {TS}, TIMESTAMP'2024-03-10 05:00:00') b",
    "timestampadd_units": "SELECT timestampadd(MONTH, 1, TIMESTAMP'2024-01-31 10:00:00') a, "
    "timestampadd(DAY, 1, TIMESTAMP'2024-03-09 12:00:00') b, dateadd(WEEK, -1, TIMESTAMP'2024-03-12 12:00:00') c, "
    "timestampadd(MICROSECOND, 5, TIMESTAMP'2024-01-01 00:00:00') d, timestampadd(QUARTER, 1, DATE'2024-11-30') e",
    "timestampdiff_units": "SELECT timestampdiff(MONTH, TIMESTAMP'2024-01-31 10:00:00', TIMESTAMP'2024-02-29 09:00:00') a, "
    "timestampdiff(DAY, TIMESTAMP'2024-03-09 12:00:00', TIMESTAMP'2024-03-11 11:00:00') b, "
    "datediff(HOUR, TIMESTAMP'2024-03-10 00:00:00', TIMESTAMP'2024-03-10 05:00:00') c, "
    "timestampdiff(YEAR, DATE'2020-02-29', DATE'2024-02-28') d, timestampdiff(SECOND, TIMESTAMP'2024-01-01 00:00:10', TIMESTAMP'2024-01-01 00:00:00') e",
    "convert_timezone": "SELECT convert_timezone('UTC', 'Asia/Tokyo', TIMESTAMP_NTZ'2024-01-01 00:00:00') a",
}


# An unknown format truncates to NULL.
SQL["trunc_formats"] = (
    "SELECT trunc('2024-05-17', 'Q') a, trunc('2024-05-17', 'QUARTER') b, trunc(DATE'2024-05-17', 'mon') c, "
    "trunc('2024-05-17', 'week') d, trunc('2024-05-17', NULL) e, trunc('2024-05-17', 'yy') f"
)

# Spark's shorter timestamp forms.
SQL["timestamp_short_forms"] = (
    "SELECT CAST('2024-01-01 10:00' AS TIMESTAMP) a, CAST('2024-1-5 9:3' AS TIMESTAMP) b, CAST('2024' AS TIMESTAMP) c, "
    "CAST('2024-02' AS TIMESTAMP) d, CAST('2024-01-01 10:00:01.5' AS TIMESTAMP) f, CAST('2024-01-01 10' AS TIMESTAMP) h"
)
SQL["timestamp_ntz_text"] = (
    "SELECT CAST('2024-01-01 10:00' AS TIMESTAMP_NTZ) a, CAST('2024-03-10 02:30:00' AS TIMESTAMP_NTZ) b, "
    "try_cast('x' AS TIMESTAMP_NTZ) c, to_timestamp('2024-01-01 10:00') d"
)

# Timestamp arithmetic across daylight-saving changes, in local time as Spark does it: days
# (and day-time intervals of whole days: INTERVAL 24 HOURS too) and months move the local
# date-time, keeping its offset where still valid (else the earlier offset of an overlap, or
# forward by a gap's length); hours and smaller move the instant; ts - ts is the difference of
# the local date-times.
SQL["dst_add_day_time"] = (
    "SELECT TIMESTAMP'2024-03-09 12:00:00' + INTERVAL 1 DAY a, TIMESTAMP'2024-03-09 12:00:00' + INTERVAL 24 HOURS b, "
    "TIMESTAMP'2024-03-10 01:30:00' + INTERVAL '1' HOUR c, TIMESTAMP'2024-11-03 00:30:00' + INTERVAL 1 DAY d, "
    "TIMESTAMP'2024-03-09 12:00:00' + INTERVAL 90000 SECONDS e, TIMESTAMP'2024-03-09 12:00:00' + INTERVAL '1 2:03' DAY TO MINUTE f, "
    "TIMESTAMP'2024-03-09 02:30:00' + INTERVAL '1 00:30:00' DAY TO SECOND g, INTERVAL 1 DAY + TIMESTAMP'2024-03-09 12:00:00' h, "
    "CAST(TIMESTAMP'2024-03-09 12:00:00' + INTERVAL 24 HOURS AS STRING) i, typeof(TIMESTAMP'2024-03-09 12:00:00' + INTERVAL 1 DAY) j"
)
SQL["dst_subtract_interval"] = (
    "SELECT TIMESTAMP'2024-03-11 12:00:00' - INTERVAL 1 DAY a, TIMESTAMP'2024-03-11 12:00:00' - INTERVAL 48 HOURS b, "
    "TIMESTAMP'2024-03-11 02:30:00' - INTERVAL '1 00:30:00' DAY TO SECOND c, "
    "TIMESTAMP'2024-03-11 02:30:00' + INTERVAL '-1 00:30:00' DAY TO SECOND d, TIMESTAMP'2024-11-04 01:30:00' - INTERVAL 1 DAY e"
)
SQL["dst_overlap"] = (
    "SELECT TIMESTAMP'2024-11-02 01:30:00' + INTERVAL 1 DAY a, TIMESTAMP'2024-11-03 01:30:00 -08:00' + INTERVAL 1 DAY b, "
    "TIMESTAMP'2024-11-03 01:30:00 -08:00' - INTERVAL 1 DAY c, TIMESTAMP'2024-11-03 01:30:00 -07:00' + INTERVAL 0 DAY d, "
    "TIMESTAMP'2024-11-03 01:30:00 -08:00' + INTERVAL 1 SECOND e, TIMESTAMP'2024-11-03 01:30:00 -07:00' + INTERVAL 1 HOUR f, "
    "TIMESTAMP'2024-11-03 01:30:00' g, TIMESTAMP'2024-03-10 02:30:00' h"
)
SQL["dst_months"] = (
    "SELECT TIMESTAMP'2024-02-10 02:30:00' + INTERVAL 1 MONTH a, TIMESTAMP'2024-11-03 01:30:00 -08:00' + INTERVAL 1 MONTH b, "
    "TIMESTAMP'2024-10-03 01:30:00' + INTERVAL 1 MONTH c, TIMESTAMP'2024-12-03 01:30:00' - INTERVAL 1 MONTH d, "
    "TIMESTAMP'2024-01-31 10:00:00' + INTERVAL 1 MONTH e, INTERVAL 1 MONTH + TIMESTAMP'2024-02-10 02:30:00' f, "
    "TIMESTAMP'2024-03-09 12:00:00' - INTERVAL '1-1' YEAR TO MONTH g"
)
SQL["dst_calendar_interval"] = (
    "SELECT TIMESTAMP'2024-03-09 12:00:00' + make_interval(0, 0, 0, 1, 0, 0, 0) a, "
    "TIMESTAMP'2024-03-09 12:00:00' + make_interval(0, 1, 0, 1, 1, 0, 0) b, TIMESTAMP'2024-02-10 02:30:00' + make_interval(0, 1, 0, 0, 0, 0, 0) c, "
    "TIMESTAMP'2024-03-10 12:00:00' - make_interval(0, 0, 0, 1, 0, 0, 0) d, TIMESTAMP'2024-11-02 01:30:00' + make_interval(0, 0, 0, 1, 0, 0, 0) e, "
    "make_interval(0, 0, 0, 1, 0, 0, 0) + TIMESTAMP'2024-03-09 12:00:00' f, timestampadd(DAY, 1, TIMESTAMP'2024-03-09 12:00:00') g, "
    "timestampadd(HOUR, 24, TIMESTAMP'2024-03-09 12:00:00') h"
)
SQL["dst_timestamp_difference"] = (
    "SELECT TIMESTAMP'2024-03-11 12:00:00' - TIMESTAMP'2024-03-09 12:00:00' a, TIMESTAMP'2024-03-09 12:00:00' - TIMESTAMP'2024-03-11 12:00:00' b, "
    "TIMESTAMP'2024-11-04 00:00:00' - TIMESTAMP'2024-11-03 00:00:00' c, TIMESTAMP'2024-03-10 03:00:00' - TIMESTAMP'2024-03-10 01:59:59' d, "
    "TIMESTAMP'2024-11-03 01:30:00 -08:00' - TIMESTAMP'2024-11-03 01:30:00 -07:00' e, DATE'2024-03-11' - TIMESTAMP'2024-03-09 12:00:00' f, "
    "TIMESTAMP'2024-03-11 12:00:00' - DATE'2024-03-09' g, TIMESTAMP_NTZ'2024-03-11 12:00:00' - TIMESTAMP'2024-03-09 12:00:00' h"
)
SQL["dst_timestamp_ntz"] = (
    "SELECT TIMESTAMP_NTZ'2024-03-10 02:30:00' + INTERVAL 1 HOUR a, TIMESTAMP_NTZ'2024-02-10 02:30:00' + INTERVAL 1 MONTH b, "
    "TIMESTAMP_NTZ'2024-03-09 02:30:00' + make_interval(0, 0, 0, 1, 0, 0, 0) c, TIMESTAMP_NTZ'2024-03-09 12:00:00' + INTERVAL 1 DAY d, "
    "TIMESTAMP_NTZ'2024-03-11 12:00:00' - TIMESTAMP_NTZ'2024-03-09 12:00:00' e, INTERVAL 1 HOUR + TIMESTAMP_NTZ'2024-03-11 12:00:00' f"
)
SQL["dst_date_functions_of_timestamps"] = (
    "SELECT date_add(TIMESTAMP'2024-03-09 12:00:00', 1) a, date_sub(TIMESTAMP'2024-03-09 23:30:00', 1) b, "
    "date_add(TIMESTAMP_NTZ'2024-03-09 23:30:00', 1) c, datediff(TIMESTAMP'2024-03-10 23:30:00', TIMESTAMP'2024-03-09 00:30:00') d, "
    "dateadd(TIMESTAMP'2024-03-09 23:30:00', 2) e, date_add('2024-03-09 23:30:00', 1) f"
)
# A TIMESTAMP_NTZ where a DATE is taken is a cast Spark calls nullable (its rule names
# TIMESTAMP only); hour, date_format and months_between take timestamps.
SQL["ntz_as_date_nullability"] = (
    "SELECT year(TIMESTAMP_NTZ'2024-01-01 10:00:00') a, date_add(TIMESTAMP_NTZ'2024-01-01 10:00:00', 1) b, "
    "hour(TIMESTAMP_NTZ'2024-01-01 10:00:00') c, datediff(TIMESTAMP_NTZ'2024-01-01 10:00:00', DATE'2024-01-01') d, "
    "last_day(TIMESTAMP_NTZ'2024-01-01 10:00:00') e, months_between(TIMESTAMP_NTZ'2024-01-01 10:00:00', TIMESTAMP_NTZ'2024-01-01 10:00:00') f, "
    "add_months(TIMESTAMP_NTZ'2024-01-01 10:00:00', 1) g, date_format(TIMESTAMP_NTZ'2024-01-01 10:00:00', 'y') h, "
    "monthname(TIMESTAMP_NTZ'2024-01-01 10:00:00') i, year(TIMESTAMP'2024-01-01 10:00:00') j, "
    "date_diff(DATE'2024-01-01', TIMESTAMP_NTZ'2024-01-01 10:00:00') k, weekday(TIMESTAMP_NTZ'2024-01-01 10:00:00') l"
)
SQL["dst_date_plus_time"] = (
    "SELECT DATE'2024-03-09' + INTERVAL 24 HOURS a, DATE'2024-03-09' + INTERVAL '1 2' DAY TO HOUR b, DATE'2024-03-09' + INTERVAL 1 DAY c, "
    "DATE'2024-03-11' - INTERVAL 36 HOURS d, INTERVAL 3 HOURS + DATE'2024-03-10' e, INTERVAL 1 MONTH + DATE'2024-03-09' f"
)
SQL["dst_timestampadd_overlap"] = (
    "SELECT timestampadd(DAY, -1, TIMESTAMP'2024-11-04 01:30:00') a, timestampadd(MONTH, -1, TIMESTAMP'2024-12-03 01:30:00') b, "
    "timestampadd(WEEK, 1, TIMESTAMP'2024-10-27 01:30:00') c, timestampadd(DAY, 1, TIMESTAMP'2024-11-03 01:30:00 -08:00') d, "
    "timestampadd(YEAR, 1, TIMESTAMP'2023-03-12 02:30:00') e"
)
SQL["date_calendar_interval"] = (
    "SELECT DATE'2024-03-09' + make_interval(0, 0, 0, 1, 0, 0, 0) a, DATE'2024-01-31' + make_interval(0, 1, 0, 1, 0, 0, 0) b, "
    "DATE'2024-03-31' - make_interval(0, 1, 0, 1, 0, 0, 0) c, make_interval(1, 0, 0, 0, 0, 0, 0) + DATE'2024-02-29' d, "
    "DATE'2024-03-09' - make_interval(0, 0, 1, 0, 0, 0, 0) e"
)
SQL["dst_rows"] = (
    "SELECT ts + INTERVAL 1 DAY a, ts - INTERVAL 36 HOURS b, ts + INTERVAL 1 MONTH c, ts2 - ts d, date_add(ts, 1) e FROM VALUES "
    "(TIMESTAMP'2024-03-09 12:00:00', TIMESTAMP'2024-03-11 12:00:00'), (TIMESTAMP'2024-11-02 01:30:00', TIMESTAMP'2024-11-03 01:30:00'), "
    "(NULL, NULL) t(ts, ts2)"
)

# Zone names as Java's ZoneId reads them: short ids (PST, JST, EST), GMT+h, offsets.
SQL["java_zone_ids"] = (
    "SELECT from_utc_timestamp(TIMESTAMP'1997-02-28 10:30:00', 'PST') a, to_utc_timestamp(TIMESTAMP'1997-02-28 10:30:00', 'JST') b, "
    "from_utc_timestamp(TIMESTAMP'1997-02-28 10:30:00', 'EST') c, from_utc_timestamp(TIMESTAMP'1997-02-28 10:30:00', 'UTC+8') d, "
    "from_utc_timestamp(TIMESTAMP'1997-02-28 10:30:00', 'GMT+1') e, from_utc_timestamp(TIMESTAMP'1997-02-28 10:30:00', '+05:30') f, "
    "convert_timezone('PST', 'JST', TIMESTAMP_NTZ'1997-02-28 10:30:00') g"
)

# (A constant date with a column of days was an internal error; day names in any case.)
SQL["next_day_column_of_days"] = (
    "SELECT id, next_day(DATE'2024-02-29', CASE WHEN id > 4 THEN 'sa' WHEN id > 2 THEN 'Thursday' ELSE 'TU' END) r, "
    "next_day(DATE'1969-12-31', 'fri') s FROM range(7)"
)

# Text read as Spark's parseTimestampString reads it: a zone only after the seconds, `+h:mm`,
# short ids and region names; TIMESTAMP_NTZ ignores the zone. (Ember read a zone after the
# minutes and converted an NTZ text's zone to UTC.)
SQL["timestamp_text_forms"] = (
    "SELECT s, try_cast(s AS TIMESTAMP) AS ts, try_cast(s AS TIMESTAMP_NTZ) AS ntz FROM VALUES "
    "('2024-01-01 12:34:56.123'), ('2024-01-01T12:34:56Z'), ('  2024-01-01  '), ('2024-01-01 12:34:56 +01:00'), "
    "('2024-01-01 12:34:56GMT+1'), ('2024-01-01 12:34:56 PST'), ('2024-01-01 12:34:56UTC'), "
    "('2024-01-01 12:34:56 America/New_York'), ('2024-03-10 02:30:00'), ('2024-11-03 01:30:00'), ('+2024-01-01'), "
    "('20240101'), ('2024/01/01'), ('2024-01-01 12:34:56.'), ('2024-01-01 12:34:56.+01:00'), "
    "('2024-01-01T'), ('2024-13-01'), ('2024-01-01 12:34:56 Z'), ('2024-01-01 12:34:56+0100'), ('2024-01-01 12:34:56+1'), "
    "('2024-01-01 12:34:56+01:0'), ('2024-01-01 12:34:56 +1:00'), ('2024-01-01 12:34:56 UT-3'), "
    "('2024-01-01 12:34:56 europe/paris'), ('2024-1-1 1:1:1.1'), ('2024-01'), "
    "('2024-01-01 12:34:56.123456789'), ('2024-01-01 12:34:56 +18:00'), ('2024-01-01 12:34:56 +19:00'), "
    "('2024-01-01 12:34:56 Foo'), ('2024-01-01 12:34:56-0830'), ('2024-01-01 12:34:56 JST'), ('2024-01-01 12:00+01:00'), "
    "('2024-01-01 12:34Z'), ('2024-01-01 12:34 UTC'), ('2024-01-01T12Z'), ('2040-07-01 12:00:00') AS v(s)"
)
SQL["timestamp_text_far_years"] = (
    "SELECT s, CAST(try_cast(s AS TIMESTAMP) AS STRING) AS ts, CAST(try_cast(s AS TIMESTAMP_NTZ) AS STRING) AS ntz "
    "FROM VALUES ('-0044-03-15'), ('99999-01-01'), ('+10000-01-01 10:00:00'), ('0001-01-01 00:00:00 UTC') AS v(s)"
)
# Only a time: today's date (where the time is); a TIMESTAMP_NTZ or DATE has none. Nothing
# here may depend on the day or the hour the test runs: a text without a zone is read as a wall
# time in the session zone (and today is checked for it only), a text with a fixed offset as the
# UTC time of day of its instant (a region's offset changes with DST).
SQL["timestamp_text_time_only"] = (
    "SELECT s, CASE WHEN s RLIKE '^[T ]?[0-9:.]+$' THEN date_format(try_cast(s AS TIMESTAMP), 'HH:mm:ss.SSSSSS') END AS wall, "
    "CASE WHEN s RLIKE '(Z|[+-][0-9:]+| UTC)$' THEN pmod(unix_micros(try_cast(s AS TIMESTAMP)), 86400000000) END AS utc_micros, "
    "CASE WHEN s RLIKE '^[T ]?[0-9:.]+$' THEN to_date(try_cast(s AS TIMESTAMP)) = current_date() END AS today, "
    "try_cast(s AS TIMESTAMP_NTZ) AS ntz, try_cast(s AS DATE) AS d, try_to_timestamp(s) IS NULL AS bad FROM VALUES "
    "('12:34'), ('12:34:56'), ('T12:34:56.123456'), ('T12'), ('1:2:3'), ('12'), ('T'), ('T:12'), ('123:45'), (' 7:08'), "
    "('12:34:56Z'), ('12:34:56+01:00'), ('T9:05 UTC'), ('24:00'), ('12:60'), ('12:34:56.1234567'), ('-12:34'), ('+12:34'), "
    "('12:34:56 Europe/Paris'), ('T12:34:56.5-08:00') AS v(s)"
)
SQL["timestamp_literals"] = (
    "SELECT TIMESTAMP_NTZ '2024-01-01 12:34:56+01:00' a, to_timestamp_ntz('2024-01-01 12:34:56 Europe/Paris') b, "
    "TIMESTAMP '2024-01-01 12:34:56 PST' c, date_format(TIMESTAMP '12:34:56', 'HH:mm') d, "
    "to_date(TIMESTAMP 'T1:2') = current_date() e, TIMESTAMP '2040-07-01 12:00:00' f, TIMESTAMP '2024-03-10 02:30:00' g"
)

# date_trunc on microseconds: year 9999 ("no end" in many tables) overflowed the
# nanoseconds DataFusion's truncates through; a TIMESTAMP_NTZ is read as a TIMESTAMP; times
# before 1970 floor; an hour in a DST overlap keeps its offset.
SQL["date_trunc_units"] = (
    "SELECT u, CAST(date_trunc(u, TIMESTAMP'9999-12-31 23:59:59.5') AS STRING) a, date_trunc(u, TIMESTAMP_NTZ'2024-03-10 03:30:00') b, "
    "date_trunc(u, TIMESTAMP'1969-12-31 23:59:59.9995') c, date_trunc(u, TIMESTAMP'2024-11-03 01:30:00 -08:00') d, "
    "CAST(date_trunc(u, TIMESTAMP'0001-01-01 00:00:00') AS STRING) e, date_trunc(u, DATE'2024-03-10') f FROM VALUES "
    "('YEAR'), ('yy'), ('QUARTER'), ('MON'), ('week'), ('DD'), ('HOUR'), ('MINUTE'), ('SECOND'), ('MILLISECOND'), "
    "('MICROSECOND'), ('nope'), (NULL) AS t(u)"
)
SQL["date_trunc_literal_units"] = (
    "SELECT date_trunc('MONTH', TIMESTAMP'9999-12-31 23:59:59') a, date_trunc('week', TIMESTAMP'9999-12-31 23:59:59') b, "
    "date_trunc('MM', TIMESTAMP_NTZ'2024-03-10 03:30:00') c, date_trunc('millisecond', TIMESTAMP'1969-12-31 23:59:59.9995') d, "
    "date_trunc('X', TIMESTAMP'2024-01-01 00:00:00') e, date_trunc('hour', '2024-03-10 03:30:00') g"
)
# A DATE compared with a TIMESTAMP is its midnight in the session zone; DataFusion's
# coercion went through nanoseconds, which DATE'9999-12-31' overflowed (INTERNAL_ERROR).
SQL["date_with_timestamp"] = (
    "SELECT t, t > TIMESTAMP'2024-01-01 00:00:00' a, t = TIMESTAMP'9999-12-31 00:00:00' b, "
    "t BETWEEN TIMESTAMP'2024-01-01 00:00:00' AND TIMESTAMP'9999-12-31 23:00:00' c, t IN (TIMESTAMP'9999-12-31 00:00:00') d, "
    "t <=> TIMESTAMP'2024-01-01 00:00:00' e, t > TIMESTAMP_NTZ'2024-01-01 00:00:00' f, nullif(t, TIMESTAMP'2024-01-01 00:00:00') g, "
    "t < current_timestamp() h, t NOT IN (TIMESTAMP'2024-01-01 08:00:00', NULL) i FROM VALUES (DATE'9999-12-31'), (DATE'2024-01-01'), (NULL) AS x(t)"
)
# window() in microseconds: DataFusion's date_bin went through nanoseconds (years past 2262
# and before 1677 were INTERNAL_ERROR); a TIMESTAMP_NTZ's windows are aligned as in UTC.
SQL["window_far_years"] = (
    "SELECT CAST(window(t, '1 hour') AS STRING) w FROM VALUES (TIMESTAMP'9999-12-31 23:59:59'), (TIMESTAMP'0001-01-01 00:00:00'), "
    "(TIMESTAMP'1969-12-31 23:59:59.5'), (TIMESTAMP'2024-03-10 03:30:00') AS x(t)"
)
SQL["window_start_far_years"] = (
    "SELECT CAST(window(t, '10 minutes', '10 minutes', '3 minutes') AS STRING) w FROM VALUES (TIMESTAMP'9999-12-31 23:59:59'), "
    "(TIMESTAMP'0001-01-01 00:00:00'), (TIMESTAMP'1969-12-31 23:59:59.5') AS x(t)"
)
SQL["window_days_in_zone"] = (
    "SELECT CAST(window(t, '1 day') AS STRING) w FROM VALUES (TIMESTAMP'2024-03-10 03:30:00'), (TIMESTAMP'2024-11-03 01:30:00'), "
    "(TIMESTAMP'9999-12-31 12:00:00') AS x(t)"
)
SQL["window_of_local_times"] = (
    "SELECT CAST(window(t, '2 hours') AS STRING) w FROM VALUES (TIMESTAMP_NTZ'2024-03-10 03:30:00'), (TIMESTAMP_NTZ'9999-12-31 23:30:00') AS x(t)"
)
# Spark's TimeWindowing: rows whose time is NULL have no window, and are left out (Ember
# kept them with a window of NULL bounds, grouped too).
SQL["window_drops_null_times"] = (
    "SELECT x, CAST(window(t, '1 hour') AS STRING) w FROM VALUES (1, TIMESTAMP'2024-03-10 03:30:00'), (2, NULL) AS x(x, t)"
)
SQL["window_group_drops_null_times"] = (
    "SELECT CAST(window(t, '1 hour') AS STRING) w, count(*) c FROM VALUES (TIMESTAMP'2024-03-10 03:30:00'), (NULL) AS x(t) "
    "GROUP BY window(t, '1 hour')"
)
SQL["window_sliding_group_drops_null_times"] = (
    "SELECT CAST(window(t, '1 hour', '30 minutes') AS STRING) w, count(*) c FROM VALUES (TIMESTAMP'2024-03-10 03:30:00'), "
    "(NULL) AS x(t) GROUP BY window(t, '1 hour', '30 minutes')"
)
# to_json writes instants in Spark's default timestampFormat, yyyy-MM-dd'T'HH:mm:ss.SSSXXX
# (milliseconds always, the zone's offset), at any depth; Ember wrote arrow's ISO form
# (`2024-01-01T10:00:00Z`, microseconds when there were any).
SQL["to_json_timestamps"] = (
    "SELECT to_json(named_struct('t', TIMESTAMP'2024-07-01 10:00:00', 'u', TIMESTAMP'2024-01-01 10:00:00.123456', "
    "'d', DATE'2024-01-02', 'n', TIMESTAMP_NTZ'2024-01-01 10:00:00.5')) a, to_json(array(TIMESTAMP'2024-01-01 10:00:00')) b, "
    "to_json(named_struct('t', TIMESTAMP'2024-07-01 10:00:00'), map('timestampFormat', 'yyyy/MM/dd HH:mm XXX')) c, "
    "to_json(map(1, TIMESTAMP'2024-01-01 00:00:00')) d, to_json(named_struct('s', named_struct('x', TIMESTAMP'9999-12-31 23:59:59'), "
    "'m', map('k', TIMESTAMP'1969-12-31 23:59:59.9995'))) e"
)
# Epoch counts in integers: a double loses digits past 2^53 (timestamp_millis of year 9999
# gave .999008; unix_millis floors through a double).
SQL["epoch_counts_exact"] = (
    "SELECT CAST(timestamp_millis(253402300799999) AS STRING) a, CAST(timestamp_millis(-62135596800001) AS STRING) b, "
    "timestamp_millis(-1) c, timestamp_seconds(CAST(-1 AS SMALLINT)) d, CAST(timestamp_seconds(253402300799) AS STRING) e, "
    "unix_millis(TIMESTAMP'9999-12-31 23:59:59.999999') f, unix_seconds(TIMESTAMP'9999-12-31 23:59:59.999999') g, "
    "unix_millis(TIMESTAMP'1969-12-31 23:59:59.9995') h, unix_seconds(TIMESTAMP'1969-12-31 23:59:59.5') i, "
    "unix_millis(TIMESTAMP'0001-01-01 00:00:00.0005') j, timestamp_seconds(1.5D) k"
)

# Seconds of a DOUBLE or FLOAT: NaN and infinities are NULL, a long's ends saturate (Java's
# toLong), and a long's ends are spelled as Spark spells them; a DECIMAL multiplies exactly.
SQL["epoch_seconds_of_fractions"] = (
    "SELECT x, CAST(timestamp_seconds(x) AS STRING) s, CAST(timestamp_seconds(CAST(x AS FLOAT)) AS STRING) f, "
    "timestamp_seconds(x) IS NULL n "
    "FROM VALUES (CAST('NaN' AS DOUBLE)), (CAST('Infinity' AS DOUBLE)), (CAST('-Infinity' AS DOUBLE)), (1e300D), (-1e300D), "
    "(1.5D), (-1.5D), (1e-7D), (-1e-7D), (9.2233720368547e12D), (NULL) AS v(x)"
)
SQL["epoch_seconds_of_decimals"] = (
    "SELECT timestamp_seconds(1.123456) a, timestamp_seconds(CAST(1.1000000 AS DECIMAL(8,7))) b, "
    "CAST(timestamp_seconds(CAST(-9223372036854.775808 AS DECIMAL(20,6))) AS STRING) c, "
    "CAST(timestamp_millis(9223372036854775L) AS STRING) d, timestamp_seconds(CAST(-2.5 AS DECIMAL(2,1))) e"
)

# A cast of a window is named `window` (TimeWindowing makes it a column first), a cast of its
# field by its path.
SQL["time_window_casts"] = (
    "SELECT window(t, '1 hour') a, window(t, '1 hour') b, CAST(window(t, '1 hour') AS STRING), "
    "upper(CAST(window(t, '1 hour') AS STRING)), CAST(window(t, '1 hour').start AS STRING) FROM VALUES (TIMESTAMP'2024-01-01 10:30:00') AS v(t)"
)

SQL_GAPS = {}


@pytest.mark.parametrize("case", cases(SQL, SQL_GAPS))
def test_sql(la, expected, case):
    expected.check(la.sql(SQL[case]), name=case)


@pytest.fixture
def events(la):
    return la.createDataFrame(
        [(1, "2024-03-10 01:30:00", "2024-03-10"), (2, "2024-11-03 01:30:00", "2024-11-03"), (3, None, None)],
        "id INT, ts STRING, d STRING",
    )


FRAME = {
    "to_timestamp": lambda: F.to_timestamp("ts"),
    "to_timestamp_fmt": lambda: F.to_timestamp("d", "yyyy-MM-dd"),
    "to_date": lambda: F.to_date("ts"),
    "date_format": lambda: F.date_format(F.to_timestamp("ts"), "yyyy-MM-dd'T'HH:mm:ssXXX"),
    "unix_timestamp": lambda: F.unix_timestamp("ts"),
    "from_unixtime": lambda: F.from_unixtime(F.unix_timestamp("ts") + 3600),
    "hour_plus_interval": lambda: F.hour(F.to_timestamp("ts") + F.expr("INTERVAL 1 HOUR")),
    "date_add": lambda: F.date_add(F.to_date("d"), 1),
    "dayofweek": lambda: F.dayofweek("d"),
    "months_between": lambda: F.months_between(F.to_date("d"), F.lit("2024-01-01")),
    "timestamp_add": lambda: F.timestamp_add("HOUR", F.lit(3), F.to_timestamp("ts")),
    "timestamp_diff": lambda: F.timestamp_diff("MINUTE", F.to_timestamp("ts"), F.to_timestamp(F.lit("2024-12-01 00:00:00"))),
}


FRAME["plus_day"] = lambda: F.to_timestamp("ts") + F.expr("INTERVAL 1 DAY")
FRAME["minus_hours"] = lambda: F.to_timestamp("ts") - F.expr("INTERVAL 24 HOURS")
FRAME["between_timestamps"] = lambda: F.to_timestamp("ts") - F.to_timestamp(F.lit("2024-03-09 01:30:00"))
FRAME["date_add_timestamp"] = lambda: F.date_add(F.to_timestamp("ts"), 1)

FRAME["window_drops_null_times"] = lambda: F.window(F.to_timestamp("ts"), "1 hour").cast("string").alias("w")

FRAME_GAPS = {
}


@pytest.mark.parametrize("case", cases(FRAME, FRAME_GAPS))
def test_dataframe(events, expected, case):
    expected.check(events.select("id", FRAME[case]()), name=case)


ERRORS = {
    "make_ym_interval_overflow": "SELECT make_ym_interval(178956970, 8)",
    "bad_timestamp": "SELECT to_timestamp('not a time')",
    "bad_format_letter": "SELECT date_format(TIMESTAMP'2024-01-01 00:00:00', 'yyyy-MM-dd qqqqq')",
    "make_date_invalid": "SELECT make_date(2023, 2, 29)",
}


ERRORS["timestamp_bad_month"] = "SELECT CAST('2024-13-01 10:00' AS TIMESTAMP)"
ERRORS["timestamp_ntz_malformed"] = "SELECT CAST('x' AS TIMESTAMP_NTZ)"
ERRORS["timestamp_zone_after_minutes"] = "SELECT CAST('2024-01-01 12:34Z' AS TIMESTAMP)"
ERRORS["timestamp_ntz_time_only"] = "SELECT CAST('12:34' AS TIMESTAMP_NTZ)"
ERRORS["to_timestamp_ntz_time_only"] = "SELECT to_timestamp_ntz('12:34')"
ERRORS["literal_ntz_time_only"] = "SELECT TIMESTAMP_NTZ '12:34:56'"
ERRORS["literal_zone_after_minutes"] = "SELECT TIMESTAMP '2024-01-01 12:34Z'"

ERRORS["date_plus_microseconds"] = "SELECT DATE'2024-03-09' + make_interval(0, 0, 0, 1, 1, 0, 0)"
ERRORS["timestamp_plus_days_overflow"] = "SELECT TIMESTAMP'2024-01-01 00:00:00' + INTERVAL 106751990 DAYS"
ERRORS["timestamp_plus_years_overflow"] = "SELECT TIMESTAMP'2024-01-01 00:00:00' + INTERVAL 178000000 YEARS"

ERRORS["zone_lower_case_short_id"] = "SELECT from_utc_timestamp(TIMESTAMP'1997-02-28 10:30:00', 'pst')"
ERRORS["zone_unknown"] = "SELECT to_utc_timestamp(TIMESTAMP'1997-02-28 10:30:00', 'XYZ')"

ERRORS["next_day_illegal_day_of_a_column"] = (
    "SELECT next_day(c0, c1) FROM VALUES (DATE'2024-02-29', 'MON'), (DATE'1999-12-31', 'XYZ') t(c0, c1)"
)
ERRORS["timestamp_seconds_overflow"] = "SELECT timestamp_seconds(9223372036854775807)"
ERRORS["timestamp_millis_overflow"] = "SELECT timestamp_millis(x) FROM VALUES (-9223372036854775807L) AS t(x)"
ERRORS["timestamp_seconds_decimal_overflow"] = "SELECT timestamp_seconds(CAST(92233720368547.75807 AS DECIMAL(20,5)))"
ERRORS["timestamp_seconds_decimal_nanos"] = "SELECT timestamp_seconds(x) FROM VALUES (CAST(1.1234567 AS DECIMAL(8,7))) AS t(x)"
# One time or session window per query (Spark's TimeWindowing: the rows of several would
# multiply); the same window twice is one.
ERRORS["two_time_windows"] = "SELECT window(t, '1 hour') a, window(t, '2 hours') b FROM VALUES (TIMESTAMP'2024-01-01 10:30:00') AS v(t)"
ERRORS["time_and_session_windows"] = (
    "SELECT window(t, '1 hour') a, session_window(t, '5 minutes') b FROM VALUES (TIMESTAMP'2024-01-01 10:30:00') AS v(t)"
)
ERRORS["two_time_window_keys"] = (
    "SELECT count(*) FROM VALUES (TIMESTAMP'2024-01-01 10:30:00') AS v(t) GROUP BY window(t, '1 hour'), window(t, '2 hours')"
)
ERRORS["date_part_unknown_field"] = "SELECT date_part('foo', TIMESTAMP'2024-03-10 12:34:56')"

ERRORS_GAPS = {
}


@pytest.mark.parametrize("case", cases(ERRORS, ERRORS_GAPS))
def test_errors(la, expected, case):
    expected.check_error(lambda: la.sql(ERRORS[case]).collect(), name=case)


def test_time_windows(la, expected):
    """`window(ts, duration[, slide, start])`: tumbling windows aligned to the epoch (shifted
    by the start time), as the struct Spark gives; grouping by them."""
    df = la.createDataFrame(
        [("2024-01-01 10:03:00", 1), ("2024-01-01 10:07:00", 2), ("2024-01-01 10:12:00", 3), ("1969-12-31 23:58:00", 4)],
        "t STRING, v INT",
    ).select(F.to_timestamp("t").alias("t"), "v")
    expected.check(df.groupBy(F.window("t", "10 minutes")).agg(F.sum("v").alias("s")), name="grouped")
    expected.check(df.select(F.window("t", "1 hour", startTime="15 minutes").alias("w"), "v"), name="start_time")
    expected.check(df.select(F.window("t", "1 hour 30 minutes"), "v"), name="compound_duration")
    expected.check(df.groupBy(F.window("t", "5 minutes")).count().select(F.window_time("window")), name="window_time")
    expected.check(la.sql("SELECT typeof(localtimestamp()) t"), name="localtimestamp")
    expected.check(df.select(F.window("t", "1 hour").cast("string"), F.window("t", "1 hour").start.cast("string")), name="casts")
    expected.check(
        la.sql("SELECT make_timestamp_ntz(2024, 1, 2, 3, 4, 5.5) n, make_timestamp_ltz(2024, 1, 2, 3, 4, 5) l"), name="make"
    )


def test_sliding_windows(la, expected):
    """`window(ts, duration, slide[, start])` with a slide shorter than the duration: each row
    counts in every window holding it (rows without a time in none), in the session time zone
    (America/Los_Angeles) and for TIMESTAMP_NTZ; windows before the epoch too."""
    df = la.createDataFrame(
        [("2024-01-01 10:03:00", 1), ("2024-01-01 10:07:30", 2), ("2024-01-01 10:12:00", 3), (None, 4),
         ("1969-12-31 23:58:00", 5)],
        "t STRING, v INT",
    ).select(F.to_timestamp("t").alias("t"), "v")
    grouped = df.groupBy(F.window("t", "10 minutes", "5 minutes")).agg(F.sum("v").alias("s"), F.count("*").alias("n"))
    expected.check(grouped, name="grouped")
    uneven = df.groupBy(F.window("t", "10 minutes", "3 minutes", "1 minute").alias("w")).agg(F.sum("v").alias("s"))
    expected.check(uneven, name="uneven")
    by_key = df.groupBy((F.col("v") % 2).alias("k"), F.window("t", "1 hour", "20 minutes")).count()
    expected.check(by_key, name="with_key")
    ntz = la.sql(
        "SELECT sum(v) s, count(*) n FROM VALUES (TIMESTAMP_NTZ'2024-01-01 10:03:00', 1), "
        "(TIMESTAMP_NTZ'2024-01-01 10:07:30', 2) t(ts, v) GROUP BY window(ts, '10 minutes', '5 minutes')"
    )
    expected.check(ntz, name="ntz")


def test_half_hour_gap(la, expected):
    """A local time in a daylight-saving gap moves forward by the gap's length (30 minutes on
    Lord Howe Island), in every path that reads or computes a local time."""
    la.conf.set("spark.sql.session.timeZone", "Australia/Lord_Howe")
    try:
        df = la.sql(
            "SELECT CAST(CAST('2024-10-06 02:15:00' AS TIMESTAMP) AS STRING) a, CAST(TIMESTAMP'2024-10-06 02:15:00' AS STRING) b, "
            "CAST(make_timestamp(2024, 10, 6, 2, 15, 0) AS STRING) c, CAST(to_timestamp('2024-10-06 02:15', 'yyyy-MM-dd HH:mm') AS STRING) d, "
            "CAST(TIMESTAMP'2024-10-05 02:15:00' + INTERVAL 1 DAY AS STRING) e, CAST(CAST(TIMESTAMP_NTZ'2024-10-06 02:15:00' AS TIMESTAMP) AS STRING) f, "
            "TIMESTAMP'2024-10-06 03:00:00' - TIMESTAMP'2024-10-06 01:45:00' g"
        )
        expected.check(df, name="lord_howe")
    finally:
        la.conf.set("spark.sql.session.timeZone", "America/Los_Angeles")
