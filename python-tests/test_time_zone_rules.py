"""Time-zone offsets after 2037, as Spark (java.time) gives them: a zone's last recurring rule
goes on (Los Angeles keeps daylight-saving time every summer), where the zone tables Ember
reads list transitions only up to 2037. Instants shown and cast to text, their fields, local
times read as instants (literals, TIMESTAMP_NTZ casts, a daylight-saving gap) and
convert_timezone; recorded from Spark 4.3."""

import pytest

ZONE = "America/Los_Angeles"

SQL = {
    "text": "SELECT CAST(TIMESTAMP '2100-07-01 12:00:00Z' AS STRING) summer, CAST(TIMESTAMP '2100-01-01 12:00:00Z' AS STRING) winter, "
    "CAST(TIMESTAMP '2038-03-14 09:59:59Z' AS STRING) before_change, CAST(TIMESTAMP '2038-03-14 10:00:00Z' AS STRING) after_change, "
    "date_format(TIMESTAMP '2100-07-01 12:00:00Z', 'yyyy-MM-dd HH:mm XXX') formatted",
    "fields": "SELECT hour(TIMESTAMP '2100-07-01 12:00:00Z') h, year(TIMESTAMP '2101-01-01 07:30:00Z') y, day(TIMESTAMP '2100-07-01 03:00:00Z') d",
    "local_to_instant": "SELECT unix_timestamp(TIMESTAMP '2100-07-01 12:00:00') u, CAST(CAST(TIMESTAMP_NTZ '2100-07-01 12:00:00' AS TIMESTAMP) AS LONG) l, "
    "CAST(TIMESTAMP '2100-03-14 02:30:00' AS STRING) gap, CAST(TIMESTAMP '2020-07-01 12:00:00' AS LONG) before_2038, "
    "CAST(TIMESTAMP '2100-07-01 12:00:00+02:00' AS STRING) with_offset",
    "to_local": "SELECT CAST(CAST(TIMESTAMP '2100-07-01 12:00:00Z' AS TIMESTAMP_NTZ) AS STRING) n, "
    "CAST(convert_timezone('UTC', 'America/Los_Angeles', TIMESTAMP_NTZ '2100-07-01 12:00:00') AS STRING) cz",
}


@pytest.fixture
def zoned(spark):
    spark.conf.set("spark.sql.session.timeZone", ZONE)
    yield spark
    spark.conf.unset("spark.sql.session.timeZone")


@pytest.mark.parametrize("case", sorted(SQL))
def test_after_2037(zoned, expected, case):
    expected.check(zoned.sql(SQL[case]), name=case)


def test_show(zoned, expected, capsys):
    zoned.sql("SELECT TIMESTAMP '2100-07-01 12:00:00Z' summer, TIMESTAMP '2100-12-01 12:00:00Z' winter").show()
    expected.check_value(capsys.readouterr().out, name="show")
