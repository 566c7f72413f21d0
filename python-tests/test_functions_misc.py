"""Hashing (Spark's exact values), JSON functions, conditionals and types/schemas as Spark
reports them; answers recorded from real Spark."""

import pytest
from pyspark.sql import functions as F
from pyspark.sql import types as T

from conftest import cases

SQL = {
    "stack_of_a_constant_expression": "SELECT stack(1 + 1, 3, 'a', 4, 'b')",
    # XML rows as Spark's XML source reads and writes them.
    "from_xml": """SELECT from_xml('<p><a>1</a><b>0.8</b></p>', 'a INT, b DOUBLE') a, """
    """from_xml('<p x="7"><a>1</a><a>2</a><c>t</c></p>', 'a ARRAY<INT>, _x INT, c STRING, d STRING') b, """
    """from_xml('<p>bad', 'a INT') c, from_xml(NULL, 'a INT') d""",
    # The reader's inference and values (one implementation for files and functions): a value
    # that does not fit its type ends the record (PERMISSIVE), the last of several roots.
    "schema_of_xml_reader": """SELECT schema_of_xml('<p><a>2024-01-01</a><b>2024-01-01 10:00:00</b><c>1.5e3</c><d>NaN</d><e></e></p>') a, """
    """schema_of_xml('<p><a>1</a><a>x</a><b><c>1</c></b><b>2</b></p>') b, schema_of_xml('<p a="1" b="2.5">x</p>') c, """
    """schema_of_xml('<p><a>  7  </a><b>true</b><c>99999999999999999999</c></p>') d, schema_of_xml('<a/>') e""",
    "from_xml_reader": """SELECT from_xml('<p><t>2024-01-01 10:00:00</t><d>2024-02-03</d></p>', 't TIMESTAMP, d DATE') a, """
    """from_xml('<p><a>1</a><b>x</b><c>3</c></p>', 'a INT, b INT, c INT') b, """
    """from_xml('<x><a>1</a></x><y><a>2</a></y>', 'a INT') c, from_xml('<p><a>1.5</a></p>', 'a DECIMAL(5,2), b BOOLEAN') d, """
    """from_xml('<p><a><x>1</x></a><a><x>2</x></a></p>', 'a ARRAY<STRUCT<x: INT>>') e, from_xml('', 'a INT') f""",
    # to_xml is the XML writer's row: maps as elements, nested arrays as <item>s, empty
    # elements closed, '>' as is, datetimes in the writer's patterns.
    "to_xml_writer": """SELECT to_xml(named_struct('t', TIMESTAMP'2024-01-01 10:00:00', 'd', DATE'2024-02-03', 'x', 1.5D, 'y', 1e20D, 'f', 0.1F)) a, """
    """to_xml(named_struct('m', map('k', 1), 'a', array(1,2), 'e', '<&>"', '_at', 'q"', 'n', CAST(NULL AS INT), 'b', X'0102')) b, """
    """to_xml(named_struct('aa', array(array(1,2), array(3)), 's', named_struct('_VALUE', 'v', '_k', 1), 'z', named_struct('q', CAST(NULL AS INT)))) c, """
    """to_xml(named_struct('t', TIMESTAMP_NTZ'2024-01-01 10:00:00.123456', 'dec', 1.50BD)) d""",
    "from_xml_values": """SELECT from_xml('<p><a>x</a></p>', 'a INT') a, from_xml('<p><a> 5 </a></p>', 'a INT') b, """
    """from_xml('<p><n><m>2</m></n></p>', 'n STRUCT<m: INT>') c, from_xml('<p>text<a>1</a></p>', 'a INT, _VALUE STRING') d""",
    "schema_of_xml": """SELECT schema_of_xml('<p><a>1</a><b>0.8</b><c>x</c><d>true</d><e>12345678901</e></p>') a, """
    """schema_of_xml('<p x="1"><a>1</a><a>2</a><n><m>q</m></n></p>') b, schema_of_xml('<p><a y="z">t</a></p>') c, """
    """schema_of_xml('<p><a>2020-01-01</a><c></c><d>1.0</d></p>') d""",
    "to_xml": """SELECT to_xml(named_struct('a', 1, 'b', 'x<y', 'c', CAST(NULL AS INT))) a, """
    """to_xml(named_struct('a', array(1, 2), 'n', named_struct('m', 1.5D))) b, to_xml(named_struct('_id', 3, 'v', true)) c""",
    "hash": "SELECT hash(1) a, hash('Spark') b, hash(1L) c, hash(1.5D) d, hash(NULL) e, hash(1, 'a') f, hash(true) g",
    "hash_more_types": "SELECT hash(CAST(1.5 AS FLOAT)) a, hash(DATE'2024-01-01') b, hash(TIMESTAMP'2024-01-01 00:00:00') c, "
    "hash(CAST(12.34 AS DECIMAL(10,2))) d, hash(X'0102') e, hash(array(1, 2)) f, hash('') g, hash(-0.0D) h",
    "xxhash64": "SELECT xxhash64(1) a, xxhash64('Spark') b, xxhash64(1, 'a') c",
    "digests": "SELECT md5('Spark') a, sha1('Spark') b, sha2('Spark', 256) c, sha2('Spark', 512) d, crc32('Spark') e, sha('x') f",
    "get_json_object": """SELECT get_json_object('{"a": {"b": [1, 2]}, "c": "x"}', '$.a.b[1]') a, """
    """get_json_object('{"a": {"b": 1}}', '$.a') b, get_json_object('{"c": "x"}', '$.c') c, get_json_object('bad', '$.a') d""",
    # Wildcards as Spark (Hive) evaluates them: matches as an array, one match unwrapped (quoted
    # if a string), NULLs skipped, a double wildcard flattened.
    "get_json_object_wildcards": """SELECT get_json_object('{"a":[{"b":1},{"b":2}]}', '$.a[*].b') a, """
    """get_json_object('{"a":[{"b":1}]}', '$.a[*].b') b, get_json_object('{"a":[1,2]}', '$.a[*]') c, """
    """get_json_object('{"a":[{"b":"x"}]}', '$.a[*].b') d, get_json_object('{"a":[{"b":"x"},{"b":"y"}]}', '$.a[*].b') e, """
    """get_json_object('{"a":[{"b":null},{"b":2}]}', '$.a[*].b') f, get_json_object('{"a":[]}', '$.a[*]') g""",
    "get_json_object_nested_wildcards": """SELECT get_json_object('{"a":[[1,2],[3]]}', '$.a[*][*]') a, """
    """get_json_object('{"a":[[1,2],[3]]}', '$.a[*][0]') b, get_json_object('{"a":[{"b":[1,2]},{"b":[3]}]}', '$.a[*].b[*]') c, """
    """get_json_object('[[1,2]]', '$[0][*]') d, get_json_object('{"a":{"b":[1]}}', '$.*') e, """
    """get_json_object('{"b":1,"a":{"z":1,"y":[3,{"q":"w","p":1}]}}', '$') f""",
    "json_tuple": """SELECT json_tuple('{"a": 1, "b": "x"}', 'a', 'b', 'z')""",
    "json_tuple_lateral": """SELECT id, t.* FROM VALUES (1, '{"k": "v", "n": [1]}'), (2, NULL) AS s(id, j) """
    """LATERAL VIEW json_tuple(j, 'k', 'n') t AS key, nums""",
    "to_json": "SELECT to_json(named_struct('a', 1, 'b', 'x', 'c', CAST(NULL AS INT))) a, to_json(array(1, 2)) b, "
    "to_json(map('k', 1.5)) c, to_json(named_struct('d', DATE'2024-01-01', 'l', array(named_struct('x', true)))) d",
    # Jackson's spelling: doubles and floats as Java prints them, NaN and infinities quoted,
    # decimals as BigDecimal.toString, a map's NULL values written (a struct's left out).
    "to_json_numbers": "SELECT to_json(named_struct('a', 1e10D, 'b', 0.00001D, 'c', CAST('NaN' AS DOUBLE), "
    "'d', CAST('Infinity' AS DOUBLE), 'e', 1.5D, 'f', 1e7D, 'g', 1234567.0D, 'h', -0.0D, 'i', CAST(1e10 AS FLOAT), "
    "'j', CAST('-Infinity' AS FLOAT), 'k', CAST(1.1 AS FLOAT), 'l', CAST(1.50 AS DECIMAL(5,2)), 'm', CAST(1e-10 AS DECIMAL(20,15)))) a, "
    "to_json(array(1e10D, CAST('NaN' AS DOUBLE), NULL)) b, to_json(map('k', NULL, 'j', 1)) c, to_json(map('k', CAST(NULL AS STRING))) d, "
    "to_json(named_struct('a', map(1, 'x', 2, NULL), 'b', NULL)) e, to_json(map('x', named_struct('a', NULL))) f",
    "from_json": """SELECT from_json('{"a": 1, "b": "x"}', 'a INT, b STRING') a, from_json('[1, 2]', 'ARRAY<INT>') b, """
    """from_json('{"a": "notint"}', 'a INT') c, from_json('{"m": {"k": 1}}', 'm MAP<STRING, INT>') d""",
    "schema_of_json": """SELECT schema_of_json('{"a": 1, "b": [1.5], "c": {"d": "x"}}') a""",
    # A string is its first CSV record: missing values NULL, extra ones dropped, values that
    # do not convert NULL (' 2' is no INT), '' a struct of NULLs.
    "from_csv": """SELECT from_csv(s, 'a INT, b STRING') r FROM VALUES ('1,abc'), ('x,"q,r"'), """
    """(NULL), (''), ('2'), ('3,d,e'), (' 2,x') AS t(s)""",
    "from_csv_typed": """SELECT from_csv('2020-01-02,1.5,true,', 'd DATE, x DOUBLE, b BOOLEAN, n INT') r""",
    "from_csv_options": """SELECT from_csv('1;"";x', 'a INT, b STRING, c STRING', map('sep', ';', 'nullValue', 'x', 'emptyValue', 'E')) r""",
    "to_csv": """SELECT to_csv(named_struct('a', 1L, 'b', 1.5D, 'c', CAST(2.50 AS DECIMAL(5,2)), 'd', true, """
    """'e', ' sp ', 'f', 'a\nb', 'g', CAST(NULL AS STRING), 'h', 1e10D, 'i', timestamp_ntz'2020-01-01 01:02:03', """
    """'j', '', 'k', 'say "hi"', 'l', date'2020-01-02')) x, to_csv(CAST(NULL AS STRUCT<a: INT>)) y, """
    """to_csv(named_struct('a', array(1, 2), 'b', 1)) z""",
    "schema_of_csv": "SELECT schema_of_csv('1,abc,2.5,true,2020-01-01') a, schema_of_csv('a,1') b, "
    "schema_of_csv('1|x', map('sep', '|')) c, schema_of_csv('12345678901,,2020-01-01 10:00:00') d",
    "json_array_length": "SELECT json_array_length('[1, 2, [3]]') a, json_object_keys('{\"a\": 1, \"b\": 2}') b",
    "bitmap_positions": "SELECT bitmap_bit_position(1) a, bitmap_bit_position(32768) b, bitmap_bit_position(32769) c, "
    "bitmap_bit_position(0) d, bitmap_bit_position(-1) e, bitmap_bit_position(-32769) f, bitmap_bit_position(NULL) g, "
    "bitmap_bucket_number(1) h, bitmap_bucket_number(32769) i, bitmap_bucket_number(0) j, bitmap_bucket_number(-32769) k",
    "bitmap_count": "SELECT bitmap_count(X'1010') a, bitmap_count(X'FFFF') b, bitmap_count(X'') c, bitmap_count(CAST(NULL AS BINARY)) d",
    "bitmap_construct_agg": "SELECT k, substring(hex(bitmap_construct_agg(bitmap_bit_position(x))), 1, 8) h, "
    "length(bitmap_construct_agg(bitmap_bit_position(x))) l, bitmap_count(bitmap_construct_agg(bitmap_bit_position(x))) n "
    "FROM VALUES (1, 1), (1, 2), (1, 3), (1, 9), (2, 32768), (2, NULL) t(k, x) GROUP BY k",
    "bitmap_or_and_agg": "SELECT substring(hex(bitmap_or_agg(b)), 1, 8) o, substring(hex(bitmap_and_agg(b)), 1, 8) a, "
    "length(bitmap_or_agg(b)) l FROM VALUES (X'11'), (X'0102'), (NULL) t(b)",
    # XPath 1.0 over XML strings: elements list as NULL, text and attributes as values.
    "xpath": """SELECT xpath(x, 'a/b/text()') a, xpath(x, 'a/b/@id') b, xpath(x, 'a/x') c, xpath(NULL, 'a') d, """
    """xpath(x, 'a/d') e, xpath(x, 'a/b') f FROM VALUES ('<a><b id="1">b1</b><b id="2">b2</b><c>3.5</c><d/></a>') t(x)""",
    "xpath_string": """SELECT xpath_string(x, 'a/b') a, xpath_string(x, 'a/x') b, xpath_string(x, 'count(a/b)') c, """
    """xpath_string(x, 'a/b[2]/@id') d FROM VALUES ('<a><b id="1">b1</b><b id="2">b2</b><c>3.5</c><d/></a>') t(x)""",
    "xpath_numbers": """SELECT xpath_int(x, 'a/c') a, xpath_long(x, 'sum(a/b/@id)') b, xpath_double(x, 'a/c') c, """
    """xpath_float(x, 'a/c') d, xpath_number(x, 'a/x') e, xpath_short(x, 'a/b/@id') f, xpath_int(x, 'a/b') g """
    """FROM VALUES ('<a><b id="1">b1</b><b id="2">b2</b><c>3.5</c><d/></a>') t(x)""",
    "xpath_boolean": """SELECT xpath_boolean(x, 'a/b') a, xpath_boolean(x, 'a/x') b, xpath_boolean(x, 'a/c > 3') c """
    """FROM VALUES ('<a><b id="1">b1</b><b id="2">b2</b><c>3.5</c><d/></a>') t(x)""",
    "collation": "SELECT collation('a') a, collation(collate('a', 'UTF8_BINARY')) b, collate('A', 'UTF8_BINARY') = 'a' c",
    "case_when": "SELECT CASE WHEN 1 > 2 THEN 'a' WHEN 2 > 1 THEN 'b' END a, CASE 3 WHEN 1 THEN 'x' ELSE 'y' END b, "
    "if(NULL, 1, 2) c",
    "coalesce": "SELECT coalesce(NULL, NULL, 3) a, coalesce(NULL, 'x') b, nullif(1, 1) c, nullif(1, 2) d",
    "in_between": "SELECT 2 IN (1, 2) a, 3 IN (1, NULL) b, 2 BETWEEN 1 AND 3 c, 'b' NOT IN ('a') d",
    "isnull": "SELECT isnull(NULL) a, isnotnull(1) b, NULL IS NULL c, 1 IS DISTINCT FROM NULL d",
    "typeof": "SELECT typeof(1) a, typeof(1.5) b, typeof('x') c, typeof(array(1)) d, typeof(map('a', 1)) e, "
    "typeof(DATE'2024-01-01') f, typeof(INTERVAL 1 DAY) g, typeof(X'01') h",
    "literals": "SELECT 1Y a, 2S b, 3L c, 4.5BD d, 1.5F e, 2.5D f, X'CAFE' g, DATE'2024-02-29' h, "
    "TIMESTAMP_NTZ'2024-01-01 10:00:00' i, INTERVAL '1 02:03:04' DAY TO SECOND k",
    "decimal_literals": "SELECT 123.450 a, 1E2 b, -0.001 c, typeof(123.450) d, typeof(1E2) e",
    "coercion": "SELECT 1 + '2' a, '3' * 2 b, 1 = '1' c, typeof(1 + 1.5) d, typeof(1L + 1.5D) e, "
    "typeof(CAST(1 AS DECIMAL(5,2)) + 1) f",
    "decimal_types": "SELECT typeof(CAST(1 AS DECIMAL(10,2)) * CAST(1 AS DECIMAL(10,3))) a, "
    "typeof(CAST(1 AS DECIMAL(10,2)) / CAST(3 AS DECIMAL(5,1))) b, CAST(1 AS DECIMAL(10,2)) / CAST(3 AS DECIMAL(5,1)) c",
    "string_to_number": "SELECT CAST('1.5' AS DECIMAL(4,2)) a, CAST('  7' AS BIGINT) b, try_cast('x' AS INT) c, "
    "CAST('true' AS BOOLEAN) d, CAST('2024-01-01' AS DATE) e",
    "monotonically_increasing_id": "SELECT monotonically_increasing_id() a FROM range(3)",
    "spark_partition_id": "SELECT spark_partition_id() a",
    "partition_ids_with_star": "SELECT *, spark_partition_id() p, monotonically_increasing_id() m FROM VALUES (1, 'a') AS t(x, y)",
    "version_shape": "SELECT length(version()) > 0 a, current_user() IS NOT NULL b",
    "greatest_types": "SELECT greatest(1, 2L, 3.5) a, typeof(greatest(1, 2L)) b",
    "input_file_name": "SELECT input_file_name() a",
    "assert_true": "SELECT assert_true(1 < 2) a",
    "named_args": "SELECT mask('AbC1', lowerChar => 'x') a",
    # Spark's common types: dates and timestamps meet as timestamps (TIMESTAMP over
    # TIMESTAMP_NTZ), strings take the date's or timestamp's type.
    "common_type_array": "SELECT array(DATE'2024-01-01', TIMESTAMP'2024-01-01 10:00:00') a, "
    "array(DATE'2024-01-01', NULL, TIMESTAMP_NTZ'2024-01-01 10:00:00') b, "
    "array(TIMESTAMP_NTZ'2024-01-01 10:00:00', TIMESTAMP'2024-01-01 10:00:00') c, "
    "array('2024-01-01', DATE'2024-01-02') d, array('2024-01-01 10:00:00', TIMESTAMP'2024-01-01 10:00:00') e",
    "common_type_functions": "SELECT coalesce(DATE'2024-01-01', TIMESTAMP'2024-01-01 10:00:00') a, "
    "greatest(DATE'2024-01-01', TIMESTAMP'2024-01-01 10:00:00') b, least(DATE'2024-01-01', TIMESTAMP_NTZ'2024-01-01 10:00:00') c, "
    "nvl(DATE'2024-01-01', TIMESTAMP'2024-01-01 10:00:00') d, coalesce('2024-01-01', DATE'2024-01-02') e, "
    "map(1, DATE'2024-01-01', 2, TIMESTAMP'2024-01-01 10:00:00') f, if(true, DATE'2024-01-01', TIMESTAMP_NTZ'2024-01-01 10:00:00') g",
    "common_type_case": "SELECT CASE WHEN id = 0 THEN DATE'2024-01-01' ELSE TIMESTAMP'2024-01-01 10:00:00' END a, "
    "CASE WHEN id = 0 THEN '2024-01-01' ELSE DATE'2024-01-02' END b FROM range(2)",
    "common_type_union": "SELECT DATE'2024-01-01' a, '2024-01-01' b UNION ALL SELECT TIMESTAMP'2024-01-01 10:00:00', DATE'2024-01-02'",
    "common_type_ntz_union": "SELECT TIMESTAMP_NTZ'2024-01-01 10:00:00' a UNION SELECT TIMESTAMP'2024-01-01 11:00:00'",
    # Set operations widen each column to Spark's common type of both sides.
    "union_numbers": "SELECT 1 a, 1 b, 1.5BD c, CAST(1 AS DECIMAL(5,2)) d, 1Y e, 1.5F f, array(1) g "
    "UNION ALL SELECT 2L, 2.5D, 2, CAST(2 AS DECIMAL(10,1)), 300S, 2L, array(2L)",
    "union_strings": "SELECT '7' a, '1.5' b, 'true' c UNION ALL SELECT 1, CAST(2 AS DECIMAL(5,2)), false",
    "intersect_except": "SELECT typeof(a) t FROM (SELECT 1 a INTERSECT SELECT 1L) UNION ALL "
    "SELECT typeof(a) FROM (SELECT 1S a EXCEPT SELECT 2.5D)",
    # A value whose cast fails is an error only where a row takes it.
    "untaken_branches": "SELECT if(false, 'x', DATE'2024-01-01') a, typeof(if(false, 'x', DATE'2024-01-01')) b, "
    "coalesce(DATE'2024-01-02', 'x') c, CASE WHEN false THEN CAST('x' AS DATE) ELSE DATE'2024-01-03' END d",
    # Spark's CaseWhen is nullable where a value is (it never asks whether a branch can be
    # taken); text compared with a number and a date to a TIMESTAMP_NTZ are casts that may fail.
    "case_and_cast_nullability": "SELECT CASE WHEN id > 5 THEN 1 END a, CASE WHEN id IS NOT NULL THEN id ELSE 0 END b, "
    "CASE WHEN false THEN NULL ELSE id END c, if(id > 1, id, NULL) d, nvl2(id, 1, 2) e, "
    "CAST(DATE'2024-01-01' AS TIMESTAMP_NTZ) f, id = '1' g, '2' > id h, CAST(TIMESTAMP_NTZ'2024-01-01 10:00:00' AS DATE) i, "
    "CASE id WHEN 1 THEN 'x' ELSE 'y' END j FROM range(3)",
    # A TRY_CAST to text (but of nested values) or of text to binary never fails; parsing with
    # a pattern fails in ANSI mode instead of answering NULL.
    "try_cast_and_parse_nullability": "SELECT to_timestamp_ntz('2024-07-10 20:30:00') a, to_timestamp_ntz('10/07/2024', 'dd/MM/yyyy') b, "
    "to_timestamp_ltz('2024-07-10 20:30:00') c, to_timestamp_ltz('10/07/2024', 'dd/MM/yyyy') d, TRY_CAST(1.0D AS STRING) e, "
    "TRY_CAST(DATE'2024-01-01' AS STRING) f, TRY_CAST(array(1) AS STRING) g, TRY_CAST(X'41' AS STRING) h, TRY_CAST('1' AS BINARY) i, "
    "TRY_CAST(true AS STRING) j, TRY_CAST(1 AS BIGINT) k, TRY_CAST(1L AS INT) l",
    "untaken_branches_of_rows": "SELECT id, if(id > 100, 'x', DATE'2024-01-01') a, "
    "CASE WHEN id > 100 THEN CAST('y' AS INT) ELSE 7 END b FROM range(3)",
    # A group without values has the bitmap the aggregate starts from (never NULL).
    "bitmap_aggregates_of_no_values": "SELECT substring(hex(bitmap_construct_agg(x)), 1, 8) a, length(bitmap_construct_agg(x)) l, "
    "substring(hex(bitmap_or_agg(b)), 1, 8) o, substring(hex(bitmap_and_agg(b)), 1, 8) n, bitmap_count(bitmap_and_agg(b)) c "
    "FROM VALUES (CAST(NULL AS INT), CAST(NULL AS BINARY)) t(x, b)",
    "bitmap_aggregates_of_groups": "SELECT k, substring(hex(bitmap_construct_agg(x)), 1, 8) a, bitmap_count(bitmap_or_agg(b)) o "
    "FROM VALUES (1, CAST(NULL AS INT), CAST(NULL AS BINARY)), (2, 3, X'01') t(k, x, b) GROUP BY k ORDER BY k",
}


SQL_GAPS = {}


@pytest.mark.parametrize("case", cases(SQL, SQL_GAPS))
def test_sql(spark, expected, case):
    expected.check(spark.sql(SQL[case]), name=case)


# Schemas compared with their nullability: functions NULL only for NULL arguments are not
# nullable over literals and non-null columns, as in Spark.
NULLABILITY = {
    "sketches": "SELECT hll_sketch_estimate(hll_sketch_agg(1)) a, hll_sketch_agg(1) b, theta_sketch_agg(1) c, "
    "kll_sketch_agg_bigint(1L) d, theta_sketch_estimate(theta_sketch_agg(1)) e, kll_sketch_get_n_bigint(kll_sketch_agg_bigint(1L)) f",
    "sketch_ops": "SELECT hll_union(hll_sketch_agg(1), hll_sketch_agg(2)) a, count_min_sketch(1, 0.5d, 0.5d, 1) b",
    "sketch_of_column": "SELECT hll_sketch_estimate(s) c FROM (SELECT hll_sketch_agg(x) s FROM VALUES (1), (NULL) t(x))",
    "spatial": "SELECT st_geomfromwkb(X'0101000000000000000000F03F0000000000000040') a, "
    "st_srid(st_geomfromwkb(X'0101000000000000000000F03F0000000000000040')) b, "
    "st_asbinary(st_geomfromwkb(X'0101000000000000000000F03F0000000000000040')) c, st_geomfromwkb(w) d "
    "FROM VALUES (CAST(NULL AS BINARY)) t(w)",
    "input_file": "SELECT input_file_name() a, input_file_block_start() b, input_file_block_length() c",
    "integer_arithmetic": "SELECT id + 1 AS a, id * 2 AS b, id - 1 AS c, x + 1 AS d, id + x AS e, id / 2 AS f, id % 2 AS g "
    "FROM range(2) JOIN VALUES (CAST(NULL AS BIGINT)) t(x)",
    # Spark's rule of each function (`functions/nullability.rs`), of non-null and nullable inputs.
    "of_non_null": "SELECT abs(id) a, CAST(id AS INT) + 1 b, upper('x') c, cardinality(array(1, 2)) d, "
    "year(current_date()) > 2000 g, rand(1) < 2 h, length(uuid()) i, greatest(1, id) j, md5('a') k, hash(id) l, "
    "pow(2, 3) m, size(array(1)) n, CAST(id AS DECIMAL(10,2)) * 2 o, id / 2 p, length('ab') q, "
    "concat('a', CAST(id AS STRING)) r, day(DATE '2020-01-01') s, id = 1 t, NOT (id = 1) u FROM range(3)",
    "of_nullable": "SELECT abs(x) a, CAST(x AS INT) + 1 b, upper(s) c, array(x) d, map('a', x) e, "
    "named_struct('a', x) f, greatest(1, x) g, greatest(x, x) h, coalesce(x, 1) i, md5(s) k, hash(x) l, "
    "pow(x, 3) m, size(array(x)) n, length(s) q, concat('a', s) r, x = 1 t, x <=> 1 u, isnull(x) v, "
    "concat_ws(',', s) w, date_add(d, 1) y, datediff(d, d) z FROM range(2) "
    "JOIN VALUES (CAST(NULL AS BIGINT), CAST(NULL AS STRING), CAST(NULL AS DATE)) t(x, s, d)",
    "casts": "SELECT CAST(id AS STRING) a, CAST(id AS DOUBLE) b, CAST(id AS DECIMAL(10,2)) c, CAST(id AS DECIMAL(30,2)) d, "
    "CAST('1' AS INT) e, CAST(1.5 AS INT) f, try_cast(id AS INT) g, CAST(DATE '2020-01-01' AS STRING) h, "
    "CAST(DATE '2020-01-01' AS TIMESTAMP) i, CAST(id AS INT) j FROM range(3)",
    "dates_of_text": "SELECT day('2020-01-01') a, month(DATE '2020-01-01') b, date_add('2020-01-01', 1) c, "
    "datediff(DATE '2020-01-02', DATE '2020-01-01') d, hour('2020-01-01 10:00:00') e, date_format(DATE '2020-01-01', 'y') f",
    "collections": "SELECT array_contains(array(1, NULL), 1) a, array_contains(a, 1) b, arrays_overlap(a, a) c, "
    "array_append(a, NULL) d, concat_ws(',', 'a', NULL) e, element_at(a, 1) f, size(a) g "
    "FROM (SELECT array(CAST(id AS INT), NULL) a FROM range(2))",
    "with_null_values": "SELECT upper(s) a, array_contains(a, 1) b, day(s) c, abs(x) d, x + 1 e, coalesce(x, s) f "
    "FROM VALUES ('2020-01-01', array(1, NULL), 1), (NULL, array(2), NULL) t(s, a, x)",
}


@pytest.mark.parametrize("case", sorted(NULLABILITY))
def test_nullability(spark, expected, case):
    expected.check(spark.sql(NULLABILITY[case]), name=case, nullability=True)


SCHEMAS = {
    "ddl_nested": "a INT, b ARRAY<STRING>, c MAP<STRING, DECIMAL(10,2)>",
    "ddl_struct": "s STRUCT<x: INT, y: ARRAY<STRUCT<z: DOUBLE>>>, t TIMESTAMP, n TIMESTAMP_NTZ, d DATE",
    "ddl_not_null": "id BIGINT NOT NULL, v STRING",
    "ddl_types": "a TINYINT, b SMALLINT, c FLOAT, d BINARY, e BOOLEAN, f DECIMAL(38,18)",
}


@pytest.mark.parametrize("case", sorted(SCHEMAS))
def test_schemas(spark, expected, case):
    df = spark.createDataFrame([], SCHEMAS[case])
    expected.check_value(
        {"schema": df.schema.jsonValue(), "dtypes": df.dtypes, "columns": df.columns, "tree": df.schema.treeString()},
        name=case,
    )


@pytest.fixture
def people(spark):
    return spark.createDataFrame([(1, "ann", 30), (2, "bob", None)], "id INT, name STRING, age INT")


FRAME = {
    "hash": lambda: F.hash("id", "name"),
    "xxhash64": lambda: F.xxhash64("name"),
    "md5": lambda: F.md5("name"),
    "sha2": lambda: F.sha2("name", 256),
    "crc32": lambda: F.crc32("name"),
    "to_json": lambda: F.to_json(F.struct("id", "name", "age")),
    "from_json": lambda: F.from_json(F.lit('{"x": 1}'), "x INT"),
    # The 4.3 client sends a DataType schema as JSON, older ones as DDL.
    "from_json_struct_type": lambda: F.from_json(F.lit('{"x": 1, "y": "a"}'), T.StructType([T.StructField("x", T.IntegerType()), T.StructField("y", T.StringType())])),
    "from_json_map_type": lambda: F.from_json(F.lit('{"x": 1, "y": 2}'), T.MapType(T.StringType(), T.LongType())),
    "from_json_array_type": lambda: F.from_json(F.lit('[{"x": 1}]'), T.ArrayType(T.StructType([T.StructField("x", T.IntegerType())]))),
    "from_json_map_ddl": lambda: F.from_json(F.lit('{"x": 1}'), "map<string, int>"),
    "from_csv": lambda: F.from_csv(F.concat_ws(",", "id", "name", "age"), "i INT, n STRING, a INT"),
    "from_csv_options": lambda: F.from_csv(F.concat_ws(";", "id", "name"), "i INT, n STRING", {"sep": ";"}),
    "schema_of_csv": lambda: F.schema_of_csv(F.lit("1,abc")),
    "to_csv": lambda: F.to_csv(F.struct("id", "name", "age")),
    "when": lambda: F.when(F.col("age") > 18, "adult").otherwise("unknown"),
    "coalesce": lambda: F.coalesce("age", F.lit(0)),
    "isin": lambda: F.col("name").isin("ann", "zed"),
    "between": lambda: F.col("age").between(20, 40),
    "cast_string": lambda: F.col("age").cast("string"),
    "eq_null_safe": lambda: F.col("age").eqNullSafe(F.lit(None)),
    "typeof_like": lambda: F.expr("typeof(age)"),
}


@pytest.mark.parametrize("case", sorted(FRAME))
def test_dataframe(people, expected, case):
    expected.check(people.select("id", FRAME[case]()), name=case)


ERRORS = {
    "stack_of_null_rows": "SELECT stack(CAST(NULL AS INT), 3, 'a')",
    "stack_of_no_rows": "SELECT stack(0, 3, 'a')",
    "from_json_bad_schema": "SELECT from_json('{}', 'a NOTATYPE')",
    "to_csv_not_struct": "SELECT to_csv(1)",
    "bitmap_position_out_of_bounds": "SELECT bitmap_construct_agg(x) FROM VALUES (1), (32768) t(x)",
    "assert_false": "SELECT assert_true(1 > 2)",
    "raise_error": "SELECT raise_error('boom')",
    "sha2_bad_bits": "SELECT sha2('a', 7)",
    "union_incompatible": "SELECT 1 a UNION ALL SELECT true",
    "union_string_not_number": "SELECT 'x' a UNION ALL SELECT 1",
    # Values that must share a type and have none (Spark's DATA_DIFF_TYPES).
    "array_diff_types": "SELECT array(1, DATE'2024-01-01')",
    "array_nested_diff_types": "SELECT array(array(1), 2)",
    "array_boolean_number": "SELECT array(true, 1)",
    "coalesce_diff_types": "SELECT coalesce(1, DATE'2024-01-01')",
    "nvl_diff_types": "SELECT nvl(1, DATE'2024-01-01')",
    "greatest_diff_types": "SELECT greatest(1, DATE'2024-01-01')",
    "if_diff_types": "SELECT if(true, 1, DATE'2024-01-01')",
    "case_diff_types": "SELECT CASE WHEN true THEN 1 ELSE DATE'2024-01-01' END",
    "map_key_diff_types": "SELECT map(1, 'a', DATE'2024-01-01', 'b')",
    "map_value_diff_types": "SELECT map('a', 1, 'b', DATE'2024-01-01')",
    "taken_branch_fails": "SELECT if(id > 0, 'x', DATE'2024-01-01') a FROM range(2)",
    "taken_branch_fails_number": "SELECT CASE WHEN id = 0 THEN 'nope' ELSE 5 END a FROM range(2)",
    "malformed_date": "SELECT CAST('x' AS DATE)",
    "malformed_timestamp": "SELECT CAST('2024-13-45 10:00' AS TIMESTAMP)",
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors(spark, expected, case):
    expected.check_error(lambda: spark.sql(ERRORS[case]).collect(), name=case)


def test_partition_ids_follow_the_partitions(spark):
    """Rows of one partition share spark_partition_id(); monotonically_increasing_id() is
    unique and counts up within a partition from partition << 33, as in Spark."""
    df = spark.range(0, 100, 1, 4).withColumn("p", F.spark_partition_id()).withColumn("m", F.monotonically_increasing_id())
    rows = df.collect()
    assert len({r.m for r in rows}) == 100
    by_partition = {}
    for r in rows:
        by_partition.setdefault(r.p, []).append(r.m)
    assert sorted(by_partition) == [0, 1, 2, 3]
    for p, ids in by_partition.items():
        assert sorted(ids) == [(p << 33) + i for i in range(len(ids))]
    assert df.columns == ["id", "p", "m"]
    assert spark.range(10).repartition(3).select(F.spark_partition_id().alias("p")).distinct().count() == 3
    # As a grouping key (was a schema error): one group per partition.
    grouped = spark.range(0, 100, 1, 4).groupBy(F.spark_partition_id().alias("p")).count()
    assert sorted(r.p for r in grouped.collect()) == [0, 1, 2, 3]
    assert sum(r["count"] for r in grouped.collect()) == 100
    assert spark.range(100).repartition(4, "id").groupBy(F.spark_partition_id()).count().count() == 4


def test_day_time_interval_literals(spark, expected):
    """Literals of every day-time field range: values and names as Spark's (Ember types them
    all as INTERVAL DAY TO SECOND)."""
    df = spark.sql(
        "SELECT INTERVAL 1 HOUR, INTERVAL 5 MINUTE, INTERVAL '1.5' SECOND, INTERVAL '1 2' DAY TO HOUR, "
        "INTERVAL '1 2:3' DAY TO MINUTE, INTERVAL '1 2:3:4.5' DAY TO SECOND, INTERVAL '2:3' HOUR TO MINUTE, "
        "INTERVAL '-2:3:4' HOUR TO SECOND, INTERVAL '3:4' MINUTE TO SECOND, INTERVAL 100 HOUR, INTERVAL '-1 2' DAY TO HOUR"
    )
    row = df.collect()[0]
    expected.check_value({"columns": df.columns, "seconds": [v.total_seconds() for v in row]})


def test_aliased_arguments_are_named_as_spark(spark, expected):
    df = spark.createDataFrame([(1, "x", "2024-01-01 10:00:00")], "id INT, s STRING, ts STRING")
    columns = [
        F.upper(F.col("s").alias("t")),
        F.struct(F.col("id").alias("k"), "s"),
        F.to_timestamp("ts") - F.expr("INTERVAL 1 HOUR"),
        F.to_date("ts") + F.expr("INTERVAL 1 DAY"),
        F.to_date("ts") + 1,
        F.expr("date'2024-01-01' + INTERVAL '1' MONTH"),
    ]
    expected.check(df.select(*columns))
