"""Spark 4.3's new functions: base32, hmac, jaro_winkler_similarity, the vector functions,
collect_union, counter_diff, the variant edits (variant_insert/set/delete/array_append/
strip_nulls and their try_ forms), the row index of zipWithIndex (distributed_sequence_id),
and to_timestamp_ltz/ntz/to_unix_timestamp with a pattern column; answers, names, types and
errors recorded from real Spark 4.3.

Most cases are SQL, so that they also run with clients older than 4.3 (whose
pyspark.sql.functions lacks these names); the DataFrame cases skip there."""

import pytest
from pyspark.sql import Window
from pyspark.sql import functions as F

from conftest import cases

DOC = """parse_json('{"a":1,"arr":["x",[1,2]],"o":{"p":true},"n":null}')"""

SQL = {
    # base32
    "base32": "SELECT x, to_base32(x) e, from_base32(to_base32(x)) d FROM VALUES (''), ('f'), ('fo'), ('foo'), ('foob'), "
    "('fooba'), ('foobar'), (NULL) t(x)",
    "base32_lenient": "SELECT from_base32('mzxw6ytboi======') a, from_base32('MZXW6YTBOI') b, from_base32('MZ XW6YTBOI======\\n') c, "
    "from_base32('1234') d, from_base32('A') e, from_base32('ABCD') f, from_base32('AAAAAAABC') g, from_base32('MZ=XW6YTBOI') h, "
    "from_base32('!!') i, from_base32('MZXW6YT') j, from_base32('') k",
    "base32_types": "SELECT to_base32(X'00FF') a, from_base32(123) b, from_base32(true) c, from_base32(X'4D5A5857') d, "
    "to_base32(CAST(NULL AS BINARY)) e, from_base32(CAST(NULL AS STRING)) f",
    # hmac
    "hmac": "SELECT hex(hmac('key', 'message')) a, hex(hmac('key', 'message', 'SHA-1')) b, hex(hmac('key', 'message', 'sha-512')) c, "
    "hex(hmac('key', 'message', 'MD5')) d, hex(hmac('key', 'message', 'SHA-224')) e, hex(hmac('key', 'message', 'SHA-384')) f, "
    "hex(hmac('key', 'message', 'SHA256')) g, hex(hmac('k', 'm', 'sha1')) h, hex(hmac(X'00', X'01')) i, hex(hmac('k', '', 'md5')) j, "
    "hex(hmac(repeat('k', 200), 'm', 'SHA-384')) k",
    "hmac_raw": "SELECT hmac('key', 'message') a, hmac('key', 'message', 'MD5') b",
    "hmac_nulls": "SELECT hmac(NULL, 'message') a, hmac('key', NULL) b, hmac('key', 'm', NULL) c, hmac(CAST(NULL AS BINARY), 'm', 'foo') d",
    "hmac_column_algorithm": "SELECT a, hex(hmac('k', 'm', a)) h FROM VALUES ('SHA-1'), ('md5'), ('SHA-512'), (NULL) t(a)",
    # jaro_winkler_similarity
    "jaro_winkler": "SELECT a, b, jaro_winkler_similarity(a, b) s FROM VALUES ('MARTHA', 'MARHTA'), ('', ''), ('a', ''), ('abc', 'abc'), "
    "('DWAYNE', 'DUANE'), ('DIXON', 'DICKSONX'), ('abc', 'xyz'), ('frog', 'fog'), ('elephant', 'hippo'), ('hello', 'hallo'), "
    "('ab', 'ba'), ('abcd', 'abdc'), ('crate', 'trace'), ('dwayne', 'DWAYNE'), ('é', 'e'), ('😀a', '😀b'), "
    "('PENNSYLVANIA', 'PENNCISYLVNIA'), ('abcdefghij', 'abcdefghix'), ('x', NULL), ('abcab', 'acabbc'), ('bacabb', 'bcbacc'), "
    "('aabbcc', 'abcabc') t(a, b)",
    "jaro_winkler_types": "SELECT jaro_winkler_similarity(1, 2) a, jaro_winkler_similarity(X'41', 'A') b, jaro_winkler_similarity(12, 123) c",
    # vectors
    "vector_distances": "SELECT vector_cosine_similarity(array(1.0F, 2.0F, 3.0F), array(4.0F, 5.0F, 6.0F)), "
    "vector_inner_product(array(1.0F, 2.0F, 3.0F), array(4.0F, 5.0F, 6.0F)), vector_l2_distance(array(1.0F, 2.0F, 3.0F), array(4.0F, 5.0F, 6.0F))",
    "vector_distances_floats": "SELECT vector_l2_distance(array(0.1F, 0.2F, 0.3F), array(0.4F, 0.5F, 0.7F)) l, "
    "vector_inner_product(array(0.1F, 0.2F, 0.3F), array(0.4F, 0.5F, 0.7F)) i, vector_cosine_similarity(array(0.1F, 0.2F, 0.3F), array(0.4F, 0.5F, 0.7F)) c",
    "vector_distances_edges": "SELECT vector_cosine_similarity(array(0.0F, 0.0F), array(1.0F, 2.0F)) a, "
    "vector_cosine_similarity(array(1.0F, NULL), array(1.0F, 2.0F)) b, vector_inner_product(CAST(NULL AS ARRAY<FLOAT>), array(1.0F)) c, "
    "vector_inner_product(CAST(array() AS ARRAY<FLOAT>), CAST(array() AS ARRAY<FLOAT>)) d, "
    "vector_cosine_similarity(CAST(array() AS ARRAY<FLOAT>), CAST(array() AS ARRAY<FLOAT>)) e, "
    "vector_l2_distance(CAST(array() AS ARRAY<FLOAT>), CAST(array() AS ARRAY<FLOAT>)) f, "
    "vector_inner_product(array(3.0E38F, 3.0E38F), array(3.0E38F, 3.0E38F)) g",
    "vector_norm": "SELECT vector_norm(array(3.0F, 4.0F)), vector_norm(array(-3.0F, 4.0F), 1.0F), vector_norm(array(-3.0F, 4.0F), float('inf')), "
    "vector_norm(CAST(array() AS ARRAY<FLOAT>)) e, vector_norm(array(1.0F, NULL)), vector_norm(array(3.0F, 4.0F), CAST(NULL AS FLOAT)), "
    "vector_norm(array(CAST('NaN' AS FLOAT), 1.0F))",
    "vector_norm_column_degree": "SELECT d, vector_norm(array(3.0F, -4.0F), d) n, vector_normalize(array(3.0F, -4.0F), d) z "
    "FROM VALUES (1.0F), (2.0F), (CAST('inf' AS FLOAT)), (CAST(NULL AS FLOAT)) t(d)",
    "vector_normalize": "SELECT vector_normalize(array(3.0F, 4.0F)), vector_normalize(array(0.0F, 0.0F)) a, "
    "vector_normalize(CAST(array() AS ARRAY<FLOAT>)) b, vector_normalize(array(1.0F, NULL)) c, "
    "vector_normalize(array(CAST('inf' AS FLOAT), 1.0F)) d, vector_normalize(array(1.0F, 3.0F), 1.0F) e",
    "vector_sum_avg": "SELECT vector_avg(v), vector_sum(v) FROM VALUES (array(1.0F, 2.0F)), (array(3.0F, 4.0F)), (NULL), (array(5.0F, NULL)) t(v)",
    "vector_sum_avg_groups": "SELECT k, vector_sum(v) s, vector_avg(v) a FROM VALUES (1, array(1.0F, 2.0F)), (1, array(2.0F, 0.5F)), "
    "(2, array(5.0F, 1.0F)), (3, CAST(NULL AS ARRAY<FLOAT>)) t(k, v) GROUP BY k ORDER BY k",
    "vector_sum_avg_empty": "SELECT vector_avg(v) a, vector_sum(v) s FROM (SELECT CAST(NULL AS ARRAY<FLOAT>) v) WHERE false",
    "vector_sum_avg_empty_vectors": "SELECT vector_avg(v) a, vector_sum(v) s FROM VALUES (CAST(array() AS ARRAY<FLOAT>)), (CAST(array() AS ARRAY<FLOAT>)) t(v)",
    "vector_sum_distinct_filter": "SELECT vector_sum(DISTINCT v), vector_sum(v) FILTER (WHERE v[0] > 1) "
    "FROM VALUES (array(1.0F)), (array(1.0F)), (array(2.0F)), (array(3.0F)) t(v)",
    "vector_sum_window": "SELECT v[0] x, vector_sum(v) OVER (ORDER BY v[0]) s FROM VALUES (array(1.0F)), (array(2.0F)), (array(3.0F)) t(v)",
    # collect_union
    "collect_union": "SELECT sort_array(collect_union(v)) FROM VALUES (array(1, 2)), (array(2, 3)), (array(1)), (NULL), (array(NULL, 4)) t(v)",
    "collect_union_groups": "SELECT k, sort_array(collect_union(v)) u FROM VALUES ('a', array(1, 2)), ('a', array(2, 3)), ('b', array(4)), "
    "('c', CAST(NULL AS ARRAY<INT>)) t(k, v) GROUP BY k ORDER BY k",
    "collect_union_empty": "SELECT collect_union(v) u FROM (SELECT array(1) v) WHERE false",
    "collect_union_respect_nulls": "SELECT sort_array(collect_union(v) RESPECT NULLS) r, sort_array(collect_union(v) IGNORE NULLS) i "
    "FROM VALUES (array(1, NULL)), (array(NULL, 3)) t(v)",
    "collect_union_respect_nulls_name": "SELECT sort_array(collect_union(v) RESPECT NULLS) FROM VALUES (array(1, NULL)), (array(NULL, 3)) t(v)",
    "collect_union_values": "SELECT sort_array(collect_union(v)) d, size(collect_union(w)) n, sort_array(collect_union(s)) s "
    "FROM VALUES (array(CAST('NaN' AS DOUBLE), 0.0D, -0.0D), array(array(1), array(1)), array('b', 'a')), "
    "(array(CAST('NaN' AS DOUBLE)), array(array(1)), array('c', 'a', 'b')) t(v, w, s)",
    "collect_union_distinct": "SELECT collect_union(DISTINCT v) FROM VALUES (array(1)), (array(1)) t(v)",
    # counter_diff
    "counter_diff": "SELECT t, c, counter_diff(c) OVER (ORDER BY t) d FROM VALUES (1, 100), (2, 200), (3, NULL), (4, 250), (5, 50), "
    "(6, 50), (7, 60) t(t, c)",
    "counter_diff_name": "SELECT t, counter_diff(c) OVER (PARTITION BY k ORDER BY t) FROM VALUES (1, 'a', 5), (2, 'a', 7), (3, 'b', 1) t(t, k, c)",
    "counter_diff_doubles": "SELECT t, counter_diff(c) OVER (ORDER BY t) d FROM VALUES (1, CAST('NaN' AS DOUBLE)), (2, 7D), "
    "(3, CAST('Infinity' AS DOUBLE)), (4, CAST('Infinity' AS DOUBLE)), (5, 1.5D), (6, 2.25D) t(t, c)",
    "counter_diff_types": "SELECT t, counter_diff(c) OVER (ORDER BY t) d, counter_diff(b) OVER (ORDER BY t) e, counter_diff(f) OVER (ORDER BY t) g "
    "FROM VALUES (1, 1.5, CAST(1 AS TINYINT), 1.5F), (2, 2.25, CAST(100 AS TINYINT), 2.0F), (3, 1.0, CAST(100 AS TINYINT), 1.0F) t(t, c, b, f)",
    "counter_diff_start_time": "SELECT t, counter_diff(c, s) OVER (ORDER BY t) d FROM VALUES (1, 100, TIMESTAMP'2026-01-01 00:00:00'), "
    "(2, 200, TIMESTAMP'2026-01-01 00:00:00'), (3, 300, TIMESTAMP'2026-01-01 00:02:00'), (4, 400, NULL), "
    "(5, 500, TIMESTAMP'2026-01-01 00:02:00'), (6, NULL, TIMESTAMP'2026-01-01 00:03:00'), (7, 700, TIMESTAMP'2026-01-01 00:03:00'), "
    "(8, 650, TIMESTAMP'2026-01-01 00:03:00'), (9, 660, TIMESTAMP'2026-01-01 00:03:00') t(t, c, s)",
    "counter_diff_start_time_ntz": "SELECT t, counter_diff(c, s) OVER (ORDER BY t) d FROM VALUES (1, 5, TIMESTAMP_NTZ'2026-01-01 00:00:00'), "
    "(2, 7, TIMESTAMP_NTZ'2026-01-01 00:00:00'), (3, 9, TIMESTAMP_NTZ'2026-01-01 00:00:01') t(t, c, s)",
    "counter_diff_null_start_times": "SELECT t, counter_diff(c, s) OVER (ORDER BY t) d FROM VALUES (1, 5, NULL), "
    "(2, 6, TIMESTAMP'2020-01-01 00:00:00'), (3, 7, NULL), (4, 8, TIMESTAMP'2020-01-01 00:00:01'), (5, 9, TIMESTAMP'2020-01-01 00:00:01') t(t, c, s)",
    "counter_diff_of_null": "SELECT counter_diff(NULL) OVER (ORDER BY 1), counter_diff(c, NULL) OVER (ORDER BY c) d FROM VALUES (1), (2) t(c)",
    # variant edits
    "variant_insert": f"SELECT to_json(variant_insert({DOC}, '$.b', 2)) a, to_json(variant_insert({DOC}, '$.c.d', 3)) b, "
    f"to_json(variant_insert({DOC}, '$.arr[0]', 'z')) c, to_json(variant_insert({DOC}, '$.arr[2]', 'z')) d, "
    f"to_json(variant_insert({DOC}, '$.arr[5]', 'z')) e, to_json(variant_insert({DOC}, '$.new.x[0].y', 'z')) f, "
    f"""to_json(variant_insert({DOC}, '$["we ird"]', 1.5)) g, to_json(variant_insert({DOC}, '$.arr[4].x', 2)) h, """
    f"to_json(variant_insert({DOC}, '$.arr[1][01]', 2)) i",
    "variant_insert_values": f"SELECT to_json(variant_insert({DOC}, '$.o.q', array(1, 2))) a, to_json(variant_insert({DOC}, '$.o.q', DATE'2020-01-01')) b, "
    f"to_json(variant_insert({DOC}, '$.o.q', parse_json('null'))) c, to_json(variant_insert({DOC}, '$.o.q', parse_json('{{\"z\":[1]}}'))) d",
    "variant_insert_bytes": """SELECT variant_insert(parse_json('{"c":1,"b":2}'), '$.a', 0) a, """
    """variant_insert(parse_json('{"c":{"z":1},"b":2, "unused": null}'), '$.c.a', 0) b, """
    f"variant_insert({DOC}, '$.b', 2)",
    "variant_insert_nulls": f"SELECT variant_insert({DOC}, '$.o.q', CAST(NULL AS INT)) a, variant_insert({DOC}, NULL, 1) b, "
    "variant_insert(NULL, '$.a', 1) c",
    "variant_insert_column_path": f"SELECT p, to_json(variant_insert({DOC}, p, 9)) r FROM VALUES ('$.d'), ('$.arr[1]'), (NULL) t(p)",
    "try_variant_insert": f"SELECT to_json(try_variant_insert({DOC}, '$.b', 2)) a, to_json(try_variant_insert({DOC}, '$.a', 2)) b, "
    f"to_json(try_variant_insert({DOC}, '$.a.b', 2)) c, to_json(try_variant_insert({DOC}, '$[0]', 2)) d, "
    f"try_variant_insert(parse_json('{{}}'), '$.a', 1) e",
    "variant_set": f"SELECT to_json(variant_set({DOC}, '$.a', 9)) a, to_json(variant_set({DOC}, '$.b', 2)) b, "
    f"to_json(variant_set({DOC}, '$.arr[1]', 9)) c, to_json(variant_set({DOC}, '$.arr[5]', 9)) d, "
    f"to_json(variant_set({DOC}, '$.arr[5]', 9, false)) e, to_json(variant_set({DOC}, '$.x.y', 9, false)) f, "
    f"to_json(variant_set({DOC}, '$.x.y', 9, true)) g, to_json(variant_set({DOC}, '$.a', parse_json('null'))) h, "
    f"to_json(variant_set({DOC}, '$.arr[4][1]', 2)) i",
    "variant_set_bytes": """SELECT variant_set(parse_json('{"c":{"z":1},"b":2}'), '$.b', parse_json('{"q":1}')) a, """
    """variant_set(parse_json('{"c":1,"b":2}'), '$.zz.q', 1, false) b, variant_set(parse_json('{}'), '$.a', 1)""",
    "variant_set_nulls": f"SELECT variant_set({DOC}, '$.a', 9, NULL) a, variant_set({DOC}, '$.a', NULL) b, "
    f"try_variant_set({DOC}, '$.a', 9, NULL) c",
    "try_variant_set": f"SELECT to_json(try_variant_set({DOC}, '$.a', 9)) a, to_json(try_variant_set({DOC}, '$.a.b', 9)) b, "
    f"to_json(try_variant_set({DOC}, '$.arr[5]', 9)) c, to_json(try_variant_set({DOC}, '$.n.y', 9)) d, try_variant_set(parse_json('{{}}'), '$.a', 1)",
    "variant_array_append": f"SELECT to_json(variant_array_append({DOC}, '$.arr', 1)) a, to_json(variant_array_append({DOC}, '$.arr[1]', 3)) b, "
    f"to_json(variant_array_append({DOC}, '$.zz', 3)) c, to_json(variant_array_append({DOC}, '$.zz.y', 3)) d, "
    f"to_json(variant_array_append({DOC}, '$.arr', parse_json('null'))) e, to_json(variant_array_append(parse_json('[]'), '$', parse_json('{{\"z\":1}}'))) f, "
    "variant_array_append(parse_json('[1]'), '$', 300) g, variant_array_append(parse_json('[]'), '$', 1)",
    "try_variant_array_append": f"SELECT to_json(try_variant_array_append({DOC}, '$.a', 3)) a, to_json(try_variant_array_append({DOC}, '$.a.y', 3)) b, "
    "to_json(try_variant_array_append(parse_json('[[1, 2], 5]'), '$[0]', 9)) c, try_variant_array_append(parse_json('[]'), '$', 1) d",
    "variant_delete": f"SELECT to_json(variant_delete({DOC}, '$.a', '$.o.p', '$.arr[0]')) a, to_json(variant_delete({DOC}, '$.a.b')) b, "
    f"to_json(variant_delete({DOC}, '$.arr.b')) c, to_json(variant_delete({DOC}, '$[0]')) d, "
    f"to_json(variant_delete({DOC}, '$.arr[9]', '$.zz.y')) e, to_json(variant_delete({DOC}, NULL)) f, "
    f"to_json(variant_delete({DOC}, '$.n.x')) g, to_json(variant_delete(parse_json('[1]'), '$[0]')) h, "
    "to_json(variant_delete(parse_json('5'), '$.a')) i, to_json(variant_delete(parse_json('{\"a\":[1,2,3]}'), '$.a[0]', '$.a[0]')) j",
    "variant_delete_bytes": f"""SELECT variant_delete(parse_json('{{"c":1,"b":2}}'), '$.zz') a, variant_delete(parse_json('{{"c":1,"b":2}}'), NULL) b, """
    f"variant_delete({DOC}, '$.a') c, variant_delete(CAST(NULL AS VARIANT), '$.a') d, variant_delete(parse_json('{{}}'), '$.a', '$.b')",
    "variant_delete_column_path": "SELECT p, to_json(variant_delete(parse_json('[1,2,3]'), p)) r FROM VALUES ('$[0]'), (NULL), ('$[7]') t(p)",
    "variant_strip_nulls": """SELECT to_json(variant_strip_nulls(parse_json('{ "a" : 1, "b" : null, "c" : [1, null], "d" : { "e" : null, "f" : 4 } }'))) a, """
    """to_json(variant_strip_nulls(parse_json('{ "a" : 1, "b" : null, "c" : [1, null], "d" : { "e" : null, "f" : 4 } }'), false)) b, """
    """to_json(variant_strip_nulls(parse_json('[null, {"a":null, "b":[null]}, [null]]'))) c, """
    """to_json(variant_strip_nulls(parse_json('[null, {"a":null, "b":[null]}, [null]]'), false)) d, """
    """to_json(variant_strip_nulls(parse_json('null'))) e, variant_strip_nulls(parse_json('{}'), NULL) f""",
    "variant_strip_nulls_bytes": """SELECT variant_strip_nulls(parse_json('{"c":{"z":null},"b":2}')) a, variant_strip_nulls(parse_json('{"c":1,"b":2}')) b, """
    """variant_strip_nulls(parse_json('null')) c, variant_strip_nulls(parse_json('{"c":1,"b":null}'), false), variant_strip_nulls(parse_json('{}'))""",
    # to_timestamp_ltz/ntz/to_unix_timestamp (and their siblings) with a pattern column
    "parse_with_pattern_column": "SELECT s, f, to_timestamp_ltz(s, f) a, to_timestamp_ntz(s, f) b, to_unix_timestamp(s, f) c, "
    "to_timestamp(s, f) d, to_date(s, f) e, unix_timestamp(s, f) g, try_to_timestamp(s, f) h FROM VALUES "
    "('2020-01-02 03:04:05', 'yyyy-MM-dd HH:mm:ss'), ('02/01/2020', 'dd/MM/yyyy'), ('2020', 'yyyy'), (NULL, 'yyyy'), ('2020', NULL) t(s, f)",
    "parse_partial_patterns": "SELECT to_timestamp('2020', 'yyyy') a, to_timestamp('03', 'MM') b, to_timestamp('10:20', 'HH:mm') c, "
    "to_timestamp('2020-01-02 10', 'yyyy-MM-dd HH') d, to_date(s, f) e, to_unix_timestamp(s, f) g FROM VALUES ('2020-05', 'yyyy-MM') t(s, f)",
    "try_parse_with_pattern_column": "SELECT try_to_timestamp(s, f) FROM VALUES ('2020-01-02', 'yyyy-MM'), ('2020-01', 'yyyy-MM') t(s, f)",
}

SQL_GAPS = {
    # Spark names the column `collect_union(v) RESPECT NULLS`; Ember's resolver does not show
    # the null treatment in a name yet.
    "collect_union_respect_nulls_name": "the RESPECT NULLS clause in the column name",
}


@pytest.mark.parametrize("case", cases(SQL, SQL_GAPS))
def test_sql(spark, expected, case):
    expected.check(spark.sql(SQL[case]), name=case)


NULLABILITY = {
    "base32": "SELECT to_base32('f') a, from_base32('MY') b, to_base32(x) c FROM VALUES (CAST(NULL AS BINARY)) t(x)",
    "variant_edits": f"SELECT variant_set({DOC}, '$.a', 1) a, variant_delete({DOC}, '$.a') b, variant_array_append(parse_json('[]'), '$', 1) c, "
    f"variant_strip_nulls({DOC}) d, try_variant_set({DOC}, '$.a', 1) e, variant_insert({DOC}, p, 1) f, variant_delete({DOC}, p) g "
    "FROM (SELECT CAST(NULL AS STRING) p)",
}


@pytest.mark.parametrize("case", sorted(NULLABILITY))
def test_nullability(spark, expected, case):
    expected.check(spark.sql(NULLABILITY[case]), name=case, nullability=True)


def test_collect_union_not_null(spark, expected):
    expected.check_value(spark.sql("SELECT collect_union(v) u FROM VALUES (array(1)) t(v) WHERE false").schema["u"].nullable)


def test_parse_with_pattern_column_not_ansi(spark, expected):
    spark.conf.set("spark.sql.ansi.enabled", "false")
    try:
        df = spark.sql(
            "SELECT to_timestamp_ltz(s, f) a, to_timestamp_ntz(s, f) b, to_unix_timestamp(s, f) c "
            "FROM VALUES ('2020-01-02', 'yyyy-MM'), ('2020-01', 'yyyy-MM') t(s, f)"
        )
        expected.check(df)
    finally:
        spark.conf.unset("spark.sql.ansi.enabled")


ERRORS = {
    "to_base32_of_int": "SELECT to_base32(123)",
    "hmac_algorithm": "SELECT hmac('key', 'message', 'foo')",
    "hmac_algorithm_spelling": "SELECT hmac('k', 'm', 'SHA_1')",
    "hmac_algorithm_column": "SELECT hmac('k', 'm', c) FROM VALUES ('SHA-1'), ('bogus') t(c)",
    "hmac_empty_key": "SELECT hmac('', 'm')",
    "hmac_key_type": "SELECT hmac(1, 'm')",
    "hmac_arity": "SELECT hmac('k')",
    "jaro_winkler_arity": "SELECT jaro_winkler_similarity('a')",
    "vector_dimension": "SELECT vector_inner_product(array(1.0F), array(1.0F, 2.0F))",
    "vector_double_elements": "SELECT vector_cosine_similarity(array(1D, 2D), array(4D, 5D))",
    "vector_decimal_elements": "SELECT vector_l2_distance(array(1.0, 2.0), array(4.0, 5.0))",
    "vector_not_an_array": "SELECT vector_inner_product(array(1.0F), 1.0F)",
    "vector_norm_degree": "SELECT vector_norm(array(1.0F), 3.0F)",
    "vector_normalize_degree": "SELECT vector_normalize(array(3.0F, 4.0F), 0.5F)",
    "vector_norm_degree_nan": "SELECT vector_norm(array(3.0F, 4.0F), CAST('NaN' AS FLOAT))",
    "vector_norm_degree_type": "SELECT vector_norm(array(3.0F, 4.0F), 1)",
    "vector_norm_degree_void": "SELECT vector_norm(array(3.0F, 4.0F), NULL)",
    "vector_norm_arity": "SELECT vector_norm(array(1.0F, 2.0F), 2.0F, 3)",
    "vector_sum_dimension": "SELECT vector_sum(v) FROM VALUES (array(1.0F, 2.0F)), (array(3.0F)) t(v)",
    "vector_avg_type": "SELECT vector_avg(v) FROM VALUES (array(1.0D)) t(v)",
    "collect_union_of_int": "SELECT collect_union(1)",
    "collect_union_of_null": "SELECT collect_union(NULL)",
    "vector_sum_of_null": "SELECT vector_sum(NULL)",
    "vector_inner_product_of_null": "SELECT vector_inner_product(NULL, array(1.0F))",
    "counter_diff_start_after_null": "SELECT counter_diff(c, s) OVER (ORDER BY t) FROM VALUES (1, 5, TIMESTAMP'2020-01-01 00:00:02'), "
    "(2, 6, NULL), (3, 7, TIMESTAMP'2020-01-01 00:00:01'), (4, 8, TIMESTAMP'2020-01-01 00:00:00') t(t, c, s)",
    "collect_union_of_maps": "SELECT collect_union(v) FROM VALUES (array(map(1, 2))) t(v)",
    "counter_diff_negative": "SELECT counter_diff(c) OVER (ORDER BY t) FROM VALUES (1, 5), (2, -1) t(t, c)",
    "counter_diff_negative_double": "SELECT counter_diff(c) OVER (ORDER BY c) FROM VALUES (-1.5D) t(c)",
    "counter_diff_start_decreased": "SELECT counter_diff(c, s) OVER (ORDER BY c) FROM VALUES (1, TIMESTAMP'2020-01-01 00:00:01'), "
    "(2, TIMESTAMP'2020-01-01 00:00:00.5') t(c, s)",
    "counter_diff_unordered": "SELECT counter_diff(c) OVER () FROM VALUES (1) t(c)",
    "counter_diff_frame": "SELECT counter_diff(c) OVER (ORDER BY c ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM VALUES (1) t(c)",
    "counter_diff_range_frame": "SELECT counter_diff(c) OVER (ORDER BY c RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM VALUES (1) t(c)",
    "counter_diff_of_string": "SELECT counter_diff('a') OVER (ORDER BY 1)",
    "counter_diff_start_of_date": "SELECT counter_diff(c, s) OVER (ORDER BY c) FROM VALUES (5, DATE'2026-01-01') t(c, s)",
    "variant_insert_duplicate": f"SELECT variant_insert({DOC}, '$.a', 2)",
    "variant_insert_mismatch": f"SELECT variant_insert({DOC}, '$.a.b', 2)",
    "variant_insert_root": f"SELECT variant_insert({DOC}, '$', 2)",
    "variant_insert_bad_path": f"SELECT variant_insert({DOC}, 'bad', 2)",
    "variant_insert_negative_index": f"SELECT variant_insert({DOC}, '$.arr[-1]', 2)",
    "variant_insert_huge_index": f"SELECT variant_insert({DOC}, '$.arr[99999999999]', 2)",
    "variant_insert_too_large": f"SELECT variant_insert({DOC}, '$.arr[2147483647]', 2)",
    "variant_insert_struct": f"SELECT variant_insert({DOC}, '$.o.q', named_struct('x', 1))",
    "variant_insert_of_string": "SELECT variant_insert('{}', '$.a', 1)",
    "variant_set_mismatch": f"SELECT variant_set({DOC}, '$.n.y', 9)",
    "variant_set_root": f"SELECT variant_set({DOC}, '$', 9)",
    "variant_set_flag_column": f"SELECT variant_set({DOC}, '$.a', 9, c) FROM VALUES (true) t(c)",
    "variant_set_flag_type": f"SELECT variant_set({DOC}, '$.a', 9, 'yes')",
    "try_variant_set_root": f"SELECT try_variant_set({DOC}, '$', 9)",
    "try_variant_insert_too_large": f"SELECT try_variant_insert({DOC}, '$.arr[1000000000]', 9)",
    "variant_array_append_not_array": f"SELECT variant_array_append({DOC}, '$.a', 3)",
    "variant_array_append_root_object": f"SELECT variant_array_append({DOC}, '$', 3)",
    "variant_array_append_null_target": f"SELECT variant_array_append({DOC}, '$.n', 3)",
    "variant_array_append_bad_path": f"SELECT try_variant_array_append({DOC}, 'x', 3)",
    "variant_delete_root": f"SELECT variant_delete({DOC}, '$')",
    "variant_delete_arity": f"SELECT variant_delete({DOC})",
    "variant_delete_int_path": f"SELECT variant_delete({DOC}, 5)",
    "variant_strip_nulls_flag_column": "SELECT variant_strip_nulls(parse_json('{}'), c) FROM VALUES (true) t(c)",
    "variant_strip_nulls_flag_type": "SELECT variant_strip_nulls(parse_json('{}'), 1)",
    "variant_strip_nulls_of_string": "SELECT variant_strip_nulls('x')",
    "parse_with_pattern_column": "SELECT to_timestamp_ltz(s, f) FROM VALUES ('2020-01-02', 'yyyy-MM') t(s, f)",
    "parse_ntz_with_pattern_column": "SELECT to_timestamp_ntz(s, f) FROM VALUES ('2020-01-02', 'yyyy-MM') t(s, f)",
    "parse_unix_with_pattern_column": "SELECT to_unix_timestamp(s, f) FROM VALUES ('2020-01-02', 'yyyy-MM') t(s, f)",
    "parse_with_invalid_pattern_column": "SELECT to_timestamp_ltz(s, f) FROM VALUES ('2020-01-02', 'qqqqq') t(s, f)",
    "distributed_sequence_id_in_sql": "SELECT distributed_sequence_id() FROM range(3)",
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors(spark, expected, case):
    expected.check_error(lambda: spark.sql(ERRORS[case]).collect(), name=case)


# zipWithIndex: the 0-based index of each row in the order of the input's partitions.
def _internal(name, *cols):
    from pyspark.sql.connect.functions.builtin import _invoke_function

    return _invoke_function(name, *cols)


ZIP = {
    "range_partitions": lambda s: s.range(0, 10, 1, 3).selectExpr("id * 10 AS v").zipWithIndex(),
    "named": lambda s: s.range(0, 10, 1, 3).selectExpr("id * 10 AS v").zipWithIndex("idx"),
    "filtered": lambda s: s.range(0, 10, 1, 3).selectExpr("id * 10 AS v").filter("v > 30").zipWithIndex(),
    "then_filtered": lambda s: s.range(0, 10, 1, 3).selectExpr("id * 10 AS v").zipWithIndex().filter("index > 5"),
    "sorted": lambda s: s.range(0, 10, 1, 3).selectExpr("id * 10 AS v").orderBy(F.desc("v")).zipWithIndex(),
    "aggregated": lambda s: s.range(0, 10, 1, 3).groupBy((F.col("id") % 2).alias("k")).count().orderBy("k").zipWithIndex(),
    "empty": lambda s: s.range(0).zipWithIndex(),
    "created": lambda s: s.createDataFrame([("a",), ("b",), ("c",)], "x STRING").zipWithIndex(),
    "internal": lambda s: s.range(0, 5, 1, 2).select(_internal("distributed_sequence_id", F.lit(True)), "*"),
    "no_arguments": lambda s: s.range(0, 5, 1, 2).select(_internal("distributed_sequence_id")),
    "in_expression": lambda s: s.range(0, 5, 1, 2).select((_internal("distributed_sequence_id") + 1).alias("x")),
}


@pytest.mark.parametrize("case", sorted(ZIP))
def test_zip_with_index(spark, expected, case):
    expected.check(ZIP[case](spark), ordered=True, name=case)


def test_zip_with_index_schema(spark, expected):
    df = spark.range(0, 10, 1, 3).zipWithIndex("idx")
    expected.check_value(df.schema["idx"].jsonValue())


# The DataFrame functions of the 4.3 client.
def _frame(spark):
    return spark.createDataFrame(
        [("key", "message", [1.0, 2.0], [3.0, 4.0], "MARTHA", "MARHTA", '{"a":1,"arr":[1,2]}', [1, 2])],
        "k STRING, m STRING, u ARRAY<FLOAT>, w ARRAY<FLOAT>, l STRING, r STRING, j STRING, xs ARRAY<INT>",
    )


FRAME = {
    "to_base32": lambda: F.to_base32(F.col("k").cast("binary")),
    "from_base32": lambda: F.from_base32(F.lit("MZXW6YTBOI======")),
    "hmac": lambda: F.hex(F.hmac(F.col("k"), F.col("m"))),
    "hmac_algorithm": lambda: F.hex(F.hmac("k", "m", F.lit("SHA-1"))),
    "jaro_winkler_similarity": lambda: F.jaro_winkler_similarity("l", "r"),
    "vector_cosine_similarity": lambda: F.vector_cosine_similarity("u", "w"),
    "vector_inner_product": lambda: F.vector_inner_product("u", "w"),
    "vector_l2_distance": lambda: F.vector_l2_distance("u", "w"),
    "vector_norm": lambda: F.vector_norm("u"),
    "vector_norm_degree": lambda: F.vector_norm("u", F.lit(1.0).cast("float")),
    "vector_normalize": lambda: F.vector_normalize("w"),
    "variant_insert": lambda: F.to_json(F.variant_insert(F.parse_json("j"), "$.b", F.lit(2))),
    "variant_set": lambda: F.variant_set(F.parse_json("j"), "$.a", F.lit(9)),
    "variant_set_no_create": lambda: F.to_json(F.variant_set(F.parse_json("j"), "$.z", F.lit(9), False)),
    "variant_delete": lambda: F.to_json(F.variant_delete(F.parse_json("j"), "$.a", F.lit(None), "$.arr[0]")),
    "variant_array_append": lambda: F.variant_array_append(F.parse_json("j"), "$.arr", F.lit(3)),
    "variant_strip_nulls": lambda: F.variant_strip_nulls(F.parse_json(F.lit('{"a":null,"b":[null]}'))),
    "variant_strip_nulls_keep_arrays": lambda: F.to_json(F.variant_strip_nulls(F.parse_json(F.lit('{"a":null,"b":[null]}')), False)),
    "try_variant_insert": lambda: F.try_variant_insert(F.parse_json("j"), "$.a", F.lit(2)),
    "try_variant_set": lambda: F.try_variant_set(F.parse_json("j"), "$.a.b", F.lit(2)),
    "try_variant_array_append": lambda: F.try_variant_array_append(F.parse_json("j"), "$.a", F.lit(2)),
}


@pytest.mark.parametrize("case", sorted(FRAME))
def test_dataframe(spark, expected, case):
    name = case.removesuffix("_degree").removesuffix("_algorithm").removesuffix("_no_create").removesuffix("_keep_arrays")
    if not hasattr(F, name):
        pytest.skip(f"this client's pyspark.sql.functions has no {name}")
    expected.check(_frame(spark).select(FRAME[case]()), name=case)


def test_dataframe_aggregates(spark, expected):
    if not hasattr(F, "vector_sum"):
        pytest.skip("this client's pyspark.sql.functions has no vector_sum")
    df = spark.createDataFrame([("a", [1.0, 2.0], [1, 2]), ("a", [3.0, 4.0], [2, 3]), ("b", [4.0, 0.5], [4])], "g STRING, v ARRAY<FLOAT>, xs ARRAY<INT>")
    expected.check(
        df.groupBy("g").agg(F.vector_sum("v"), F.vector_avg("v"), F.sort_array(F.collect_union("xs")).alias("u")).orderBy("g"),
        ordered=True,
    )


def test_dataframe_counter_diff(spark, expected):
    if not hasattr(F, "counter_diff"):
        pytest.skip("this client's pyspark.sql.functions has no counter_diff")
    from datetime import datetime

    df = spark.createDataFrame(
        [
            ("http_requests", datetime(2026, 1, 1, 0, 0), 100, datetime(2026, 1, 1, 0, 0)),
            ("http_requests", datetime(2026, 1, 1, 0, 1), 200, datetime(2026, 1, 1, 0, 0)),
            ("http_requests", datetime(2026, 1, 1, 0, 2), 400, datetime(2026, 1, 1, 0, 0)),
            ("http_requests", datetime(2026, 1, 1, 0, 3), 500, datetime(2026, 1, 1, 0, 2, 15)),
            ("http_requests", datetime(2026, 1, 1, 0, 4), 50, datetime(2026, 1, 1, 0, 2, 15)),
        ],
        "m STRING, t TIMESTAMP_NTZ, c INT, s TIMESTAMP_NTZ",
    )
    w = Window.partitionBy("m").orderBy("t")
    expected.check(df.select("t", "c", F.counter_diff("c").over(w), F.counter_diff("c", "s").over(w)))


def test_dataframe_parse_with_pattern_column(spark, expected):
    df = spark.createDataFrame([("2020-01-02 03:04", "yyyy-MM-dd HH:mm"), ("02.01.2020", "dd.MM.yyyy")], "s STRING, f STRING")
    expected.check(
        df.select(
            F.to_timestamp_ltz("s", F.col("f")),
            F.to_timestamp_ntz("s", F.col("f")),
            F.to_unix_timestamp("s", F.col("f")),
        )
    )
