"""Spark's VARIANT: parse_json, variant_get and its paths and casts, schema_of_variant(_agg),
to_variant_object, casts to and from VARIANT, `v:path`; the values' bytes, types, names and
errors recorded from real Spark."""

import pytest
from pyspark.sql import functions as F

from conftest import cases

DOC = """'{"a":1,"b":[1,2.5,"x",null,true],"c":{"d":"e"}}'"""

SQL = {
    "parse_json": f"SELECT parse_json({DOC}) v",
    "parse_json_numbers": """SELECT parse_json('[100.0, 1.0, 0.00, 1E2, -0, -0.0, 1.5e300, 123456789012345678901234567890123456789, """
    """12345678901234567890, 0.1e-2, 127, 128, 32768, 2147483648, -129]') v""",
    "parse_json_strings": """SELECT parse_json('["a\\\\u0001\\\\n/é\\\\"", "", "0123456789012345678901234567890123456789012345678901234567890123456789"]') v""",
    "parse_json_first_value": """SELECT parse_json('1 2') a, parse_json('{"a":1} x') b, parse_json(' [1] ') c, parse_json(NULL) d""",
    "try_parse_json": """SELECT try_parse_json('{bad') a, try_parse_json('[1]') b, try_parse_json('{"a":1,"a":2}') c, try_parse_json('') d""",
    "to_json": """SELECT to_json(parse_json('{"b":1, "a": 2.50, "c": 1e10, "d": 12345678901234567890}')) a, """
    """to_json(parse_json('[100.0, 1.0, 0.00, 1E2, -0, -0.0, 1.5e300, 123456789012345678901234567890123456789, "a\\\\u0001\\\\n/é\\\\"", 0.1e-2]')) b""",
    "cast_to_string": """SELECT CAST(parse_json('{"b":1, "a": 2.50}') AS STRING) a, CAST(parse_json('"ab"') AS STRING) b, """
    """CAST(parse_json('null') AS STRING) c""",
    "variant_get": f"""SELECT variant_get(parse_json('{{"a":{{"b":[1,2,3]}}}}'), '$.a.b[1]', 'int') a, """
    f"""variant_get(parse_json('{{"a":"12"}}'), '$.a', 'int') b, variant_get(parse_json('{{"a":1}}'), '$.a') c, """
    f"""variant_get(parse_json({DOC}), '$.c') d, variant_get(parse_json({DOC}), '$.b[2]', 'string') e""",
    "variant_get_missing": """SELECT variant_get(parse_json('{"a":1}'), '$.z', 'int') a, variant_get(parse_json('[1]'), '$[5]') b, """
    """variant_get(parse_json('{"a":1}'), '$[0]', 'int') c, variant_get(parse_json('null'), '$', 'int') d""",
    "variant_get_casts": """SELECT variant_get(parse_json('12.7'), '$', 'int') a, variant_get(parse_json('true'), '$', 'int') b, """
    """variant_get(parse_json('"12.5"'), '$', 'double') c, variant_get(parse_json('"2020-01-02"'), '$', 'date') d, """
    """variant_get(parse_json('{"a":1}'), '$.a', 'decimal(5,2)') e, variant_get(parse_json('1e400'), '$', 'double') f, """
    """variant_get(parse_json('1.5'), '$', 'string') g, variant_get(parse_json('"x"'), '$', 'variant') h""",
    "variant_get_nested": """SELECT variant_get(parse_json('{"a":1,"b":"x"}'), '$', 'struct<a int, c string>') a, """
    """variant_get(parse_json('{"a":1,"b":2}'), '$', 'map<string,int>') b, variant_get(parse_json('[1,"2",null]'), '$', 'array<int>') c""",
    "variant_get_paths": """SELECT variant_get(parse_json('{"a b":[10,20]}'), '$["a b"][1]', 'int') a, """
    """variant_get(parse_json('{"a b":[10,20]}'), '$[\\'a b\\'][0]', 'int') b, variant_get(parse_json('[[1,2]]'), '$[0][1]', 'string') c, """
    """variant_get(parse_json('{"a":1}'), '$.a', 'boolean') d, variant_get(parse_json('0'), '$', 'boolean') e, """
    """variant_get(parse_json('"true"'), '$', 'boolean') f""",
    "variant_get_column_path": """SELECT variant_get(parse_json('{"a":1,"b":[5]}'), p, 'int') v FROM VALUES ('$.a'), ('$.b[0]'), (NULL) t(p)""",
    "try_variant_get": """SELECT try_variant_get(parse_json('{"a":"x"}'), '$.a', 'int') a, try_variant_get(parse_json('300'), '$', 'tinyint') b, """
    """try_variant_get(parse_json('{"a":1,"b":"x"}'), '$', 'struct<a int, b int>') c, try_variant_get(parse_json('[1,"x"]'), '$', 'array<int>') d""",
    "is_variant_null": """SELECT is_variant_null(parse_json('null')) a, is_variant_null(parse_json('1')) b, is_variant_null(NULL) c, """
    """is_variant_null(variant_get(parse_json('{"a":null}'), '$.a')) d""",
    "schema_of_variant": f"""SELECT schema_of_variant(parse_json({DOC})) a, schema_of_variant(parse_json('[]')) b, """
    """schema_of_variant(parse_json('[1, 2.5]')) c, schema_of_variant(parse_json('[1, 12345678901]')) d, """
    """schema_of_variant(parse_json('"2020-01-01"')) e, schema_of_variant(parse_json('1.50')) f, schema_of_variant(parse_json('null')) g""",
    "schema_of_variant_decimals": """SELECT schema_of_variant(parse_json('100.0')) a, schema_of_variant(parse_json('1.0')) b, """
    """schema_of_variant(parse_json('0.00')) c, schema_of_variant(parse_json('1E2')) d, schema_of_variant(parse_json('-0')) e, """
    """schema_of_variant(parse_json('123456789012345678901234567890123456789')) f, schema_of_variant(parse_json('0.001')) g""",
    "schema_of_variant_merges": """SELECT schema_of_variant(parse_json('[1, 1.5e0]')) a, schema_of_variant(parse_json('[1.25, 1.5e0]')) b, """
    """schema_of_variant(parse_json('[1, true]')) c, schema_of_variant(parse_json('[{"a":1},{"b":"x"}]')) d, """
    """schema_of_variant(parse_json('[[1],[2.5]]')) e, schema_of_variant(parse_json('[null, 1]')) f, """
    """schema_of_variant(parse_json('[12.345, 123456.7]')) g, schema_of_variant(parse_json('[1, {"a":1}]')) h""",
    "schema_of_variant_agg": """SELECT k, schema_of_variant_agg(parse_json(j)) s FROM VALUES (1, '{"a":1}'), (1, '{"a":"x","b":2.5}'), """
    """(2, '[1]'), (2, NULL), (3, NULL) t(k, j) GROUP BY k ORDER BY k""",
    "to_variant_object": """SELECT to_variant_object(named_struct('a', 1, 'b', array(1,2))) a, typeof(to_variant_object(named_struct('a', 1))) b, """
    """to_json(to_variant_object(named_struct('a', 1.50BD, 'b', map('k', 2.5D), 'c', DATE'2020-01-01', """
    """'d', TIMESTAMP'2020-01-01 10:00:00', 'e', X'0102', 'f', 1.5F, 'g', TIMESTAMP_NTZ'2020-01-01 10:00:00', 'h', CAST(NULL AS INT)))) c""",
    "cast_to_variant": """SELECT CAST(12 AS VARIANT) a, CAST(array(1,2) AS VARIANT) b, to_json(CAST(1.50BD AS VARIANT)) c, """
    """schema_of_variant(CAST(1.50BD AS VARIANT)) d, schema_of_variant(CAST(1.5F AS VARIANT)) e, schema_of_variant(CAST(X'01' AS VARIANT)) f, """
    """schema_of_variant(CAST(DATE'2020-01-01' AS VARIANT)) g, schema_of_variant(CAST(TIMESTAMP'2020-01-01 00:00:00' AS VARIANT)) h, """
    """schema_of_variant(CAST(TIMESTAMP_NTZ'2020-01-01 00:00:00' AS VARIANT)) i, schema_of_variant(CAST(1Y AS VARIANT)) j""",
    "cast_from_variant": """SELECT CAST(parse_json('12') AS INT) a, CAST(parse_json('"ab"') AS STRING) b, CAST(parse_json('[1,2]') AS ARRAY<INT>) c, """
    """CAST(parse_json('{"a":1}') AS STRUCT<a INT>) d, try_cast(parse_json('"x"') AS INT) e""",
    "colon_paths": """SELECT parse_json('{"a":1}'):a, parse_json('{"a":{"b":2}}'):a.b, parse_json('{"a":[1,{"c":3}]}'):a[1].c""",
    "is_valid_variant": "SELECT is_valid_variant(parse_json('1')) a, is_valid_variant(parse_json('{\"k\": [1]}')) b",
    "variant_nulls": "SELECT parse_json(NULL) a, variant_get(NULL, '$.a', 'int') b, schema_of_variant(NULL) c, to_json(CAST(NULL AS VARIANT)) d",
    "variant_column_ops": """SELECT typeof(v) t, v IS NULL n, variant_get(v, '$.k', 'int') k FROM (SELECT parse_json(j) v FROM VALUES ('{"k":1}'), (NULL) t(j))""",
}

SQL_GAPS = {}


@pytest.mark.parametrize("case", cases(SQL, SQL_GAPS))
def test_sql(spark, expected, case):
    expected.check(spark.sql(SQL[case]), name=case)


@pytest.fixture
def docs(spark):
    return spark.createDataFrame(
        [(1, '{"a": 1, "b": {"c": [1.5, "x"]}}'), (2, '{"a": "2", "d": null}'), (3, None)], "id INT, j STRING"
    )


FRAME = {
    "parse_json": lambda: F.parse_json("j"),
    "try_parse_json": lambda: F.try_parse_json(F.concat("j", F.lit("}"))),
    "variant_get": lambda: F.variant_get(F.parse_json("j"), "$.a", "int"),
    "variant_get_nested": lambda: F.variant_get(F.parse_json("j"), "$.b.c[0]", "double"),
    "try_variant_get": lambda: F.try_variant_get(F.parse_json("j"), "$.b", "int"),
    "is_variant_null": lambda: F.is_variant_null(F.variant_get(F.parse_json("j"), "$.d", "variant")),
    "schema_of_variant": lambda: F.schema_of_variant(F.parse_json("j")),
    "to_json": lambda: F.to_json(F.parse_json("j")),
    "to_variant_object": lambda: F.to_variant_object(F.struct("id", "j")),
    "cast_string": lambda: F.parse_json("j").cast("string"),
}


@pytest.mark.parametrize("case", sorted(FRAME))
def test_dataframe(docs, expected, case):
    expected.check(docs.select("id", FRAME[case]()), name=case)


def test_schema_of_variant_agg_frame(docs, expected):
    expected.check(docs.select(F.schema_of_variant_agg(F.parse_json("j"))))


def test_variant_schema_and_show(docs, expected):
    df = docs.select("id", F.parse_json("j").alias("v"))
    expected.check_value(
        {
            "dtypes": df.dtypes,
            "tree": df.schema.treeString(),
            "json": df.schema.jsonValue(),
            "show": df._show_string(truncate=False),
        }
    )


ERRORS = {
    "malformed": "SELECT parse_json('{bad')",
    "empty": "SELECT parse_json('')",
    "duplicate_key": """SELECT parse_json('{"a":1,"a":2}')""",
    "nan": "SELECT parse_json('NaN')",
    "invalid_cast": """SELECT variant_get(parse_json('{"a":"x"}'), '$.a', 'int')""",
    "overflow_cast": "SELECT variant_get(parse_json('300'), '$', 'tinyint')",
    "string_to_int": """SELECT variant_get(parse_json('"12.5"'), '$', 'int')""",
    "object_to_int": """SELECT variant_get(parse_json('{"a":1}'), '$', 'int')""",
    "cast_object_to_int": """SELECT CAST(parse_json('"abc"') AS INT)""",
    "bad_path": """SELECT variant_get(parse_json('{"a":1}'), 'a', 'int')""",
    "cast_struct_to_variant": "SELECT CAST(named_struct('a', 1) AS VARIANT)",
    "variant_get_of_string": "SELECT variant_get('{}', '$.a', 'int')",
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors(spark, expected, case):
    expected.check_error(lambda: spark.sql(ERRORS[case]).collect(), name=case)
