"""Spark's GEOMETRY and GEOGRAPHY values: st_geomfromwkb, st_geogfromwkb, st_asbinary, st_srid,
st_setsrid; the values PySpark reads (WKB kept little-endian, as Spark keeps it), types, SRIDs
and errors recorded from real Spark."""

import pytest
from pyspark.sql import functions as F

from conftest import cases

POINT = "X'0101000000000000000000F03F0000000000000040'"
POINT_BE = "X'00000000013FF00000000000004000000000000000'"
LINE = "X'0102000000020000000000000000000000000000000000000000000000000000000000F03F000000000000F03F'"
# POLYGON Z with one ring of four points, and a collection of a point and a line (big-endian).
POLYGON_Z = (
    "X'01EB0300000100000004000000"
    + "000000000000000000000000000000000000000000000000"
    + "000000000000F03F00000000000000000000000000000000"
    + "0000000000000000000000000000F03F0000000000000000"
    + "000000000000000000000000000000000000000000000000'"
)
COLLECTION = (
    "X'00000000070000000200000000013FF00000000000004000000000000000"
    + "000000000200000002" + "0" * 64 + "3FF0000000000000" + "0" * 16 + "'"
)

SQL = {
    "geometry": f"SELECT st_geomfromwkb({POINT}) g, typeof(st_geomfromwkb({POINT})) t",
    "geometry_srid": f"SELECT st_geomfromwkb({POINT}, 4326) g, st_srid(st_geomfromwkb({POINT}, 3857)) s",
    "geography": f"SELECT st_geogfromwkb({POINT}) g, typeof(st_geogfromwkb({POINT})) t, st_srid(st_geogfromwkb({POINT})) s",
    "big_endian": f"SELECT hex(st_asbinary(st_geomfromwkb({POINT_BE}))) h, st_geomfromwkb({POINT_BE}) g",
    "trailing_bytes": "SELECT st_geomfromwkb(X'0101000000000000000000F03F000000000000004000') g",
    "shapes": f"SELECT hex(st_asbinary(st_geomfromwkb({LINE}))) l, hex(st_asbinary(st_geomfromwkb({POLYGON_Z}))) p, "
    f"hex(st_asbinary(st_geomfromwkb({COLLECTION}))) c",
    "as_binary": f"SELECT st_asbinary(st_geomfromwkb({POINT})) g, st_asbinary(st_geogfromwkb({POINT})) h",
    "srid": f"SELECT st_srid(st_geomfromwkb({POINT})) a, st_srid(st_setsrid(st_geomfromwkb({POINT}), 4326)) b",
    "set_srid": f"SELECT st_setsrid(st_geomfromwkb({POINT}), 3857) g, typeof(st_setsrid(st_geomfromwkb({POINT}), 3857)) t, "
    f"st_setsrid(st_geogfromwkb({POINT}), 4326) h",
    "set_srid_column": f"SELECT st_setsrid(st_geomfromwkb({POINT}), s) g, typeof(st_setsrid(st_geomfromwkb({POINT}), s)) t "
    "FROM VALUES (4326), (0), (NULL) tab(s)",
    "nulls": "SELECT st_geomfromwkb(NULL) g, st_srid(NULL) s, st_asbinary(NULL) b",
    "column": "SELECT id, st_srid(st_geomfromwkb(w)) s, hex(st_asbinary(st_geomfromwkb(w))) h FROM VALUES "
    f"(1, {POINT}), (2, {LINE}), (3, NULL) tab(id, w)",
    "big_endian_out": f"SELECT hex(st_asbinary(st_geomfromwkb({POINT}), 'XDR')) a, hex(st_asbinary(st_geomfromwkb({COLLECTION}), 'xdr')) b, "
    f"hex(st_asbinary(st_geomfromwkb({POINT}), 'ndr')) c",
    "empty_shapes": "SELECT hex(st_asbinary(st_geomfromwkb(X'010200000000000000'))) a, "
    "hex(st_asbinary(st_geomfromwkb(X'0101000000000000000000F87F000000000000F87F'))) b, "
    "hex(st_asbinary(st_geomfromwkb(X'0104000000010000000101000000000000000000F03F0000000000000040'))) c",
    "string_wkb": "SELECT st_geomfromwkb(unhex('0101000000000000000000F03F0000000000000040')) g",
}

SQL_GAPS = {}


@pytest.mark.parametrize("case", cases(SQL, SQL_GAPS))
def test_sql(spark, expected, case):
    expected.check(spark.sql(SQL[case]), name=case)


def test_schema(spark, expected):
    df = spark.sql(
        f"SELECT st_geomfromwkb({POINT}) g, st_geogfromwkb({POINT}) h, st_setsrid(st_geomfromwkb({POINT}), 3857) k"
    )
    # (Ember's spatial values are nullable where Spark's of literals are not.)
    types = [(f["name"], f["type"]) for f in df.schema.jsonValue()["fields"]]
    expected.check_value({"dtypes": df.dtypes, "types": types, "simple": df.schema.simpleString()})


def test_dataframe(spark, expected):
    df = spark.createDataFrame([(1, bytes.fromhex(POINT[2:-1]))], "id INT, w BINARY")
    expected.check(
        df.select(
            F.st_srid(F.st_geomfromwkb("w")),
            F.st_asbinary(F.st_geogfromwkb("w")),
            F.st_srid(F.st_setsrid(F.st_geomfromwkb("w"), F.lit(3857))),
            F.st_geomfromwkb("w", 4326),
        )
    )


ERRORS = {
    "short": "SELECT st_geomfromwkb(X'01')",
    "truncated": "SELECT st_geomfromwkb(X'01010000000000000000F03F')",
    "unknown_type": "SELECT st_geomfromwkb(X'0109000000')",
    "infinite_coordinate": "SELECT st_geogfromwkb(X'0101000000000000000000F0FF0000000000000040')",
    "invalid_srid": f"SELECT st_setsrid(st_geomfromwkb({POINT}), 12345)",
    "geography_srid": f"SELECT st_setsrid(st_geogfromwkb({POINT}), 0)",
    "ring_too_short": "SELECT st_geomfromwkb(X'010300000001000000030000000000000000000000000000000000000000000000000000000000000000000000000000000000F03F0000000000000000')",
    "ring_not_closed": "SELECT st_geomfromwkb(X'0103000000010000000400000000000000000000000000000000000000000000000000F03F000000000000F03F0000000000000000000000000000F03F000000000000F03F000000000000F03F')",
    "multipoint_of_line": "SELECT st_geomfromwkb(X'0104000000010000000102000000000000000000F03F0000000000000040')",
    "ewkb": "SELECT st_geomfromwkb(X'0101000020E6100000000000000000F03F0000000000000040')",
    "geography_range": "SELECT st_geogfromwkb(X'01010000000000000000C066400000000000000040')",
    "byte_order": "SELECT st_geomfromwkb(X'0501000000000000000000F03F0000000000000040')",
    "endianness": f"SELECT st_asbinary(st_geomfromwkb({POINT}), 'abc')",
    "srid_of_binary": f"SELECT st_srid({POINT})",
    "cast_to_string": f"SELECT CAST(st_geomfromwkb({POINT}) AS STRING)",
    "equality": f"SELECT st_geomfromwkb({POINT}) = st_geomfromwkb({POINT})",
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors(spark, expected, case):
    expected.check_error(lambda: spark.sql(ERRORS[case]).collect(), name=case)
