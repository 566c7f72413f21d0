"""String functions with Spark's semantics (1-based positions, Java regular expressions,
NULL handling); answers recorded from real Spark."""

import pytest
from pyspark.sql import functions as F

from conftest import cases

SQL = {
    # Deterministic ciphertexts (ECB, given IVs) and round trips (random IVs).
    "aes_encrypt": "SELECT hex(aes_encrypt('Spark', '0000111122223333', 'ECB')) a, hex(aes_encrypt('Spark', '0000111122223333', 'ECB', 'PKCS')) b, "
    "hex(aes_encrypt('Spark SQL', '1234567890abcdef', 'CBC', 'DEFAULT', unhex('00000000000000000000000000000000'))) c, "
    "hex(aes_encrypt('Spark', 'abcdefghijklmnop12345678ABCDEFGH', 'GCM', 'DEFAULT', unhex('000000000000000000000000'), 'This is an AAD mixed into the input')) d, "
    "hex(aes_encrypt('Spark', 'abcdefghijklmnop12345678ABCDEFGH', 'GCM', 'DEFAULT', unhex('000000000000000000000000'))) e, "
    "length(aes_encrypt('Spark', '0000111122223333')) f, length(aes_encrypt('Spark', '0000111122223333', 'CBC')) g, "
    "length(aes_encrypt('Spark', '000011112222333344445555')) h, aes_encrypt(NULL, '0000111122223333') i",
    "aes_decrypt": "SELECT CAST(aes_decrypt(unhex('83F16B2AA704794132802D248E6BFD4E380078182D1544813898AC97E709B28A94'), '0000111122223333') AS STRING) a, "
    "CAST(aes_decrypt(aes_encrypt('Spark', '0000111122223333', 'CBC'), '0000111122223333', 'CBC') AS STRING) b, "
    "CAST(aes_decrypt(aes_encrypt('x', 'abcdefghijklmnop12345678ABCDEFGH', 'GCM', 'DEFAULT', unhex('000000000000000000000000'), 'aad'), "
    "'abcdefghijklmnop12345678ABCDEFGH', 'GCM', 'DEFAULT', 'aad') AS STRING) c, aes_decrypt(NULL, '0000111122223333') d, "
    "CAST(aes_decrypt(unhex('348FF37EBDE05B7880BA339068FBDA5E'), '0000111122223333', 'ECB') AS STRING) e",
    "try_aes_decrypt": "SELECT try_aes_decrypt(unhex('00'), '0000111122223333') a, "
    "CAST(try_aes_decrypt(aes_encrypt('ok', '0000111122223333'), '0000111122223333') AS STRING) b, "
    "try_aes_decrypt(aes_encrypt('Spark', '0000111122223333', 'GCM'), '0000111122223334', 'GCM') c",
    "try_to_binary": "SELECT to_binary('abc', 'hex') a, try_to_binary('abc', 'hex') b, try_to_binary('a b', 'hex') c, "
    "to_binary('YWJ', 'base64') d, try_to_binary('Y!WJj', 'base64') e, try_to_binary(NULL, 'hex') f, try_to_binary('41') g, "
    "to_binary('YW Jj', 'base64') h, try_to_binary('abc', 'nope') i",
    "sentences": "SELECT sentences('Hi there! How are you? I am fine.') a, sentences('Hello, world. Second sentence', 'en', 'US') b, "
    "sentences(NULL) c, sentences('') d, sentences('  a-b c''d e.f  g1 2,5 ') e, sentences('Ünïcode wörds, ok?') f",
    # Patterns of several parts between % (filters run them without a regular expression).
    "like_parts": "SELECT s, s LIKE '%a%b%' p FROM VALUES ('xaxbx'), ('ba'), ('ab'), (NULL), ('aé b'), ('abba'), ('aba'), ('a\nb') t(s) "
    "WHERE s LIKE '%a%b%' OR s LIKE 'ab%ba' OR s LIKE 'b%a'",
    "not_like_parts": "SELECT s FROM VALUES ('xaxbx'), ('ba'), ('ab'), (NULL), ('aé b'), ('abba'), ('aba'), ('Ünï%x') t(s) "
    "WHERE s NOT LIKE 'ab%ba' AND s NOT LIKE '%é%b' AND s NOT LIKE 'Ü%\\%%'",
    "case": "SELECT upper('aBc') a, lower('aBc') b, initcap('hello wORLD foo') c, ucase(NULL) d",
    "length": "SELECT length('héllo') a, char_length('') b, bit_length('ab') c, octet_length('é') d, length(X'0102') e",
    "trim": "SELECT trim('  a b  ') a, ltrim('  a') b, rtrim('a  ') c, trim(BOTH 'x' FROM 'xxaxx') d, "
    "trim(LEADING 'x' FROM 'xxa') e",
    "pad": "SELECT lpad('ab', 5, '*') a, rpad('ab', 5, '12') b, lpad('abcdef', 3, '*') c, lpad('ab', 4) d",
    "substring": "SELECT substring('Spark SQL', 5) a, substring('Spark SQL', -3) b, substring('Spark SQL', 2, 3) c, "
    "substr('Spark', 0, 2) d, substring('Spark', 10) e",
    "substring_index": "SELECT substring_index('www.apache.org', '.', 2) a, substring_index('www.apache.org', '.', -2) b, "
    "substring_index('a', '.', 0) c",
    "instr_locate": "SELECT instr('SparkSQL', 'SQL') a, locate('a', 'banana') b, locate('a', 'banana', 3) c, "
    "position('z' IN 'abc') d, locate('a', 'banana', 0) e",
    "concat": "SELECT concat('a', 'b', NULL) a, concat('a', 1, 2.5) b, concat_ws('-', 'a', NULL, 'b') c, "
    "concat_ws(',', array('x', 'y'), 'z') d, 'a' || 'b' e",
    "replace_translate": "SELECT replace('aXbXc', 'X', '--') a, replace('abc', 'b') b, translate('abcabc', 'ab', 'x') c",
    "repeat_reverse": "SELECT repeat('ab', 3) a, reverse('abc') b, repeat('x', 0) c",
    "split": "SELECT split('a,b,,c', ',') a, split('a1b22c', '[0-9]+') b, split('a,b,c', ',', 2) c, split('abc', '') d",
    "split_limit_negative": "SELECT split('a,b,c,', ',', -1) a, split('a,b,c,', ',') b",
    "regexp_extract": "SELECT regexp_extract('100-200', '(\\\\d+)-(\\\\d+)', 1) a, regexp_extract('foo', '(\\\\d+)', 1) b, "
    "regexp_extract('x=1', 'x=(\\\\d)', 0) c",
    "regexp_extract_all": "SELECT regexp_extract_all('100-200, 300-400', '(\\\\d+)-(\\\\d+)', 2) a, "
    "regexp_extract_all('a1b2', '[0-9]', 0) b",
    "regexp_replace": "SELECT regexp_replace('100-200', '(\\\\d+)', 'num') a, regexp_replace('abc', '(b)', '[$1]') b",
    "regexp_like": "SELECT 'abc' RLIKE '^a.c$' a, regexp_like('abc', 'B') b, regexp('a1', '\\\\d') c, 'Abc' rlike '(?i)abc' d",
    "regexp_count_substr": "SELECT regexp_count('a1b22c333', '[0-9]+') a, regexp_substr('a1b22c333', '[0-9]{2}') b, "
    "regexp_instr('a1b22c333', '[0-9]{2}') c",
    "like": "SELECT 'abc' LIKE 'a%' a, 'abc' LIKE '_b_' b, 'a%c' LIKE 'a\\\\%c' c, 'ABC' ILIKE 'a%' d, 'abc' NOT LIKE 'b%' e",
    "starts_ends": "SELECT startswith('Spark', 'Sp') a, endswith('Spark', 'rk') b, contains('Spark', 'par') c, "
    "left('Spark', 2) d, right('Spark', 3) e",
    "format_string": "SELECT format_string('%s-%d-%.2f', 'a', 5, 3.14159D) a, printf('%05d', 42) b, format_string('%x', 255) c",
    "format_number": "SELECT format_number(1234567.891, 2) a, format_number(0.5, 0) b, format_number(-1234.5, 4) c, "
    "format_number(1234.5, '#,###.#') d",
    "to_binary": "SELECT to_binary('abc', 'utf-8') a, to_binary('616263', 'hex') b, to_binary('YWJj', 'base64') c, to_binary('414243') d, "
    "validate_utf8('abc') e, try_validate_utf8('x') f",
    # instr's position and occurrence are numbers (text is cast, and may fail); to_binary of
    # base64 fails on a bad value, so only its input makes it NULL.
    "instr_and_to_binary_nullability": "SELECT instr('abcabc', 'bc', 3) h, instr(s, 'b', 1, 1) j, instr(s, 'b', '2') k, "
    "instr(s, 'b', 1.5) l, instr(12345, 3) m, to_binary(s, 'base64') f, to_binary(s, 'utf8') g, try_to_binary(s, 'base64') n "
    "FROM VALUES ('YWJj') t(s)",
    "format_number_patterns": "SELECT format_number(0.5, '#.#') e, format_number(0.125, '0.00') f, format_number(1234567.891, '#,##0.00##') g, "
    "format_number(-7.5, '0') h, format_number(12345, '##,##') i, format_number(1.5, '000.000') j, format_number(3, -1) l",
    "ascii_chr": "SELECT ascii('A') a, ascii('') b, chr(65) c, char(256 + 66) d",
    "base64": "SELECT base64('Spark') a, CAST(unbase64('U3Bhcms=') AS STRING) b, hex('Spark') c, hex(255) d, "
    "CAST(unhex('537061726B') AS STRING) e",
    "encode_decode": "SELECT encode('héllo', 'UTF-8') a, decode(encode('héllo', 'UTF-8'), 'UTF-8') b",
    "find_in_set": "SELECT find_in_set('b', 'a,b,c') a, find_in_set('d', 'a,b,c') b, find_in_set('a,b', 'a,b') c",
    "elt": "SELECT elt(2, 'a', 'b', 'c') a, elt(1, 'x') b",
    "overlay": "SELECT overlay('Spark SQL' PLACING '_' FROM 6) a, overlay('Spark SQL' PLACING 'CORE' FROM 7 FOR 3) b",
    "soundex_levenshtein": "SELECT soundex('Miller') a, levenshtein('kitten', 'sitting') b, space(3) || 'x' c",
    "split_part": "SELECT split_part('a.b.c', '.', 2) a, split_part('a.b.c', '.', -1) b, split_part('a.b.c', '.', 5) c",
    "string_cast": "SELECT CAST(12.50 AS STRING) a, CAST(true AS STRING) b, CAST(X'41' AS STRING) c, CAST('12' AS INT) + 1 d",
    "btrim": "SELECT btrim('xxaxx', 'x') a, btrim('  a  ') b",
    "mask": "SELECT mask('AbCd-123') a, mask('AbCd-123', 'Q', 'q', '9') b",
    "url": "SELECT parse_url('http://a.com/p?q=1#f', 'HOST') a, parse_url('http://a.com/p?q=1', 'QUERY', 'q') b, "
    "url_encode('a b&c') c, url_decode('a+b%26c') d",
    "sentences_len": "SELECT len('abc') a, character_length('ab') b",
    "uuid_shape": "SELECT length(uuid()) a",
    "collation_free_compare": "SELECT 'a' < 'b' a, 'B' < 'a' b, 'abc' = 'abc' c",
}


SQL["charsets"] = (
    "SELECT encode('abc', 'UTF-16BE') a, encode('abc', 'UTF-16LE') b, encode('abc', 'UTF-32') c, "
    "encode('abc', 'UTF-16') d, encode('é', 'ISO-8859-1') e, encode('abc', 'US-ASCII') f, encode('', 'UTF-16') g"
)
SQL["charsets_decode"] = (
    "SELECT decode(X'0061', 'UTF-16BE') a, decode(X'6100', 'UTF-16LE') b, decode(X'00000061', 'UTF-32') c, "
    "decode(X'0061', 'UTF-16') d, decode(X'FEFF00610062', 'UTF-16') e, decode(X'FFFE6100', 'UTF-16') f, "
    "decode(X'E9', 'ISO-8859-1') g, decode(X'', 'UTF-16') h, encode(NULL, 'UTF-16') i"
)

# DecimalFormat's prefixes and suffixes (quoted text, % and ‰), negative subpatterns, the
# empty pattern, a negative rounded to zero; formats read from a column.
SQL["format_number_affixes"] = (
    "SELECT format_number(2.5D, 'abc') a, format_number(0.2D, 'abc') b, format_number(1234.5D, '$#,##0.00') d, "
    "format_number(-1234.5D, '$#,##0.00') e, format_number(0.256D, '#,##0.0%') f, format_number(-1.5D, '0.00;(0.00)') g, "
    "format_number(7, '''#''0') h, format_number(7, '0 o''''clock') i, format_number(1234567.5D, '') j, "
    "format_number(0.456D, '#.##') l, format_number(-0.001D, '0.00') m, format_number(0.0123D, '0.0‰') n, "
    "format_number(-0.001D, 2) o, format_number(CAST(-3 AS INT), '#;#-') p, format_number(3L, '0.0 units') q, "
    "format_number(CAST('-Infinity' AS DOUBLE), '#;(#)') r"
)
SQL["format_number_of_a_column"] = (
    "SELECT format_number(c0, c1) d, format_number(c0, c2) p FROM VALUES (2.5D, 2, '#.0'), "
    "(-0.75D, CAST(NULL AS INT), CAST(NULL AS STRING)), (1234.5D, -1, '$#,##0'), (0.5D, 0, '0%'), "
    "(CAST('Infinity' AS DOUBLE), 1, '#,##0'), (CAST('NaN' AS DOUBLE), 3, 'x0'), (12.345D, 2, '') AS t(c0, c1, c2)"
)

# The charset read from a column, row by row (NULL where it is NULL).
SQL["charsets_of_a_column"] = (
    "SELECT encode(c0, c1) e, decode(encode(c0, c1), c1) d FROM VALUES ('Spark SQL', 'UTF-8'), ('a,b,c', CAST(NULL AS STRING)), "
    "('é', 'utf-16le'), ('é', 'ISO-8859-1'), (CAST(NULL AS STRING), 'UTF-32') AS t(c0, c1)"
)

# to_char/to_varchar of numbers: Spark's number format (the value as a decimal); of dates,
# timestamps and binary: date_format, base64/hex/decode.
SQL["to_char_numbers"] = (
    "SELECT to_char(454.00, '000D00') a, to_char(12454.8, '99,999.9') b, to_char(78.12, '$99.99') c, "
    "to_char(5, '999') d, to_char(5, '000') e, to_char(12345, '99') f, to_char(5.678, '9.99') g, "
    "to_char(12, '9,999') h, to_char(12, '0,999') i, to_char(0, '9') j, to_char(0.5, '9.9') k, "
    "to_char(123, '9G999') l, to_char(1000, '9G999') m, to_char(100, '0G999') n, to_char(12345678, '9,9,9') o, "
    "to_char(5, '9.') p, to_char(5.5, '9.') q, to_char(5, '.9') r, to_char(0, '.99') s, to_char(0, '$9') t"
)
SQL["to_char_signs"] = (
    "SELECT to_char(-5, 'S99') a, to_char(5, 'S99') b, to_char(-5, '99MI') c, to_char(5, '99MI') d, "
    "to_char(-5, '99PR') e, to_char(5, '99PR') f, to_char(-12.5, 'S999.99') g, to_char(-0.1, 'S9.9') h, "
    "to_char(7, '99S') i, to_char(-5, 'S$99') j, to_char(-5, '$99PR') k, to_char(5, 'S99PR') l, "
    "to_char(-5, 'S99PR') m, to_char(5, 'MI99') n, to_char(5, 'S9MI') o, to_char(0, 'S9') p, to_char(-0.5, 'S9') q, "
    "to_char(-0.5, '9MI') r, to_char(-0.05, '9.99MI') s, to_char(0.05, '9.99PR') t, to_char(-100, 'S0G999') u, "
    "to_char(-12454.8, '99G999D9S') v, to_char(5, '999s') w, to_char(-5, 'mi99') x, to_char(-1234.5, '$9,999.99PR') y"
)
SQL["to_char_types"] = (
    "SELECT to_char(CAST(5 AS DECIMAL(10,2)), '999.99') a, to_char(1.5D, '99.99') b, to_char(CAST(1.5 AS FLOAT), '9.9') c, "
    "to_char(CAST(0.1 AS FLOAT), '9.9999999999') d, to_char(0.1D, '9.9999999999999999999') e, "
    "to_char(1.23456789012345678D, '9.99999999999999999999') f, to_char(CAST(5 AS TINYINT), '99') g, "
    "to_char(CAST(5 AS SMALLINT), '99') h, to_char(5L, '99') i, to_char('5.5', '9.9') j, to_char(NULL, '999') k, "
    "to_char(5, NULL) l, to_char(CAST('NaN' AS DOUBLE), '999') m, to_char(CAST('Infinity' AS DOUBLE), '999') n, "
    "to_char(123456789012345678901234567890.12345678BD, '999999999999999999999999999999.99999999') o, "
    "to_char(1, '9999999999999999999999999999999999999999') p, typeof(to_char(5, '9')) q"
)
SQL["to_char_dispatch"] = (
    "SELECT to_char(DATE'2016-04-08', 'y'), to_varchar(TIMESTAMP'2016-04-08 10:00:00', 'yyyy-MM HH'), "
    "to_char(X'537061726b', 'hex'), to_char(X'537061726b', 'Base64'), to_char(X'537061726b', 'utf-8'), "
    "to_varchar(X'537061726b', 'HEX'), to_varchar(X'537061726b', 'base64'), to_varchar(X'537061726b', 'utf-8'), "
    "to_char(5, '999'), to_varchar(5, '999'), to_varchar(-5, 'S9')"
)
SQL["to_char_columns"] = "SELECT id, to_char(id, '9,999') a, to_varchar(id * 1.5 - 1, 'S9.9') b FROM range(4)"

SQL_GAPS = {
}


@pytest.mark.parametrize("case", cases(SQL, SQL_GAPS))
def test_sql(spark, expected, case):
    expected.check(spark.sql(SQL[case]), name=case)


@pytest.fixture
def words(spark):
    return spark.createDataFrame([(1, "Hello World"), (2, "a,b;c"), (3, None), (4, "")], "id INT, s STRING")


FRAME = {
    "upper": lambda: F.upper("s"),
    "split": lambda: F.split("s", "[,; ]"),
    "split_limit": lambda: F.split("s", ",", 2),
    "regexp_extract": lambda: F.regexp_extract("s", r"(\w+) (\w+)", 2),
    "substring": lambda: F.substring("s", 2, 3),
    "instr": lambda: F.instr("s", "o"),
    "locate": lambda: F.locate("o", "s", 6),
    "concat_ws": lambda: F.concat_ws("|", "s", F.lit("x")),
    "length": lambda: F.length("s"),
    "lpad": lambda: F.lpad("s", 6, "-"),
    "translate": lambda: F.translate("s", "lo", "01"),
    "format_string": lambda: F.format_string("%s!", "s"),
    "initcap": lambda: F.initcap("s"),
    "reverse": lambda: F.reverse("s"),
    "regexp_replace": lambda: F.regexp_replace("s", "[aeiou]", "*"),
    "rlike": lambda: F.col("s").rlike("^[A-Z]"),
    "contains": lambda: F.col("s").contains("o"),
    "like": lambda: F.col("s").like("%o%"),
    "substr_col": lambda: F.col("s").substr(1, 4),
    "startswith": lambda: F.col("s").startswith("He"),
    "to_char": lambda: F.to_char(F.length("s") - 3, F.lit("S9,999PR")),
    "to_varchar": lambda: F.to_varchar(F.length("s") * 1.25, F.lit("$00.00")),
}


@pytest.mark.parametrize("case", sorted(FRAME))
def test_dataframe(words, expected, case):
    expected.check(words.select("id", FRAME[case]()), name=case)


ERRORS = {
    "aes_bad_buffer": "SELECT aes_decrypt(unhex('00'), '0000111122223333')",
    "aes_key_length": "SELECT aes_encrypt('Spark', 'short')",
    "aes_mode": "SELECT aes_encrypt('Spark', '0000111122223333', 'CTR')",
    "aes_padding": "SELECT aes_encrypt('Spark', '0000111122223333', 'GCM', 'PKCS')",
    "aes_ecb_iv": "SELECT aes_encrypt('Spark', '0000111122223333', 'ECB', 'DEFAULT', unhex('00'))",
    "aes_iv_length": "SELECT aes_encrypt('Spark', '0000111122223333', 'CBC', 'DEFAULT', unhex('00'))",
    "aes_tag_mismatch": "SELECT aes_decrypt(aes_encrypt('Spark', '0000111122223333', 'GCM'), '0000111122223334', 'GCM')",
    "to_binary_hex": "SELECT to_binary('zz', 'hex')",
    "to_binary_base64": "SELECT to_binary('@@', 'base64')",
    "to_binary_unknown_format": "SELECT to_binary('abc', 'nope')",
    "to_binary_format_of_a_column": "SELECT to_binary('abc', CAST(id AS STRING)) FROM range(3)",
    "to_binary_format_of_a_number": "SELECT to_binary('abc', 1)",
    "try_to_binary_format_of_a_column": "SELECT try_to_binary('abc', CAST(id AS STRING)) FROM range(3)",
    "bad_regex": "SELECT regexp_extract('a', '(', 1)",
    "regex_group": "SELECT regexp_extract('a', '(a)', 3)",
    "wrong_arity": "SELECT upper('a', 'b')",
    "elt_out_of_range": "SELECT elt(4, 'a', 'b')",
    "elt_zero": "SELECT elt(0, 'a', 'b')",
    "unknown_function": "SELECT no_such_function('a')",
}


ERRORS["unknown_charset"] = "SELECT encode('a', 'EBCDIC')"
ERRORS["not_ascii"] = "SELECT encode('é', 'US-ASCII')"
ERRORS["malformed_utf8"] = "SELECT decode(X'FF', 'UTF-8')"
ERRORS["unknown_charset_of_a_column"] = "SELECT encode(c0, c1) FROM VALUES ('a', 'UTF-8'), ('b', 'UTF-7') AS t(c0, c1)"
ERRORS["number_as_charset"] = "SELECT encode('Spark SQL', 3)"
ERRORS["array_as_charset"] = "SELECT decode(X'4142', array(3, 1, 2))"
ERRORS["malformed_ascii"] = "SELECT decode(X'80', 'US-ASCII')"

ERRORS["to_char_no_digit"] = "SELECT to_char(5, 'xyz')"
ERRORS["to_char_two_points"] = "SELECT to_char(5, '99.99.9')"
ERRORS["to_char_empty"] = "SELECT to_char(5, '')"
ERRORS["to_char_currency_after_digits"] = "SELECT to_char(5, '99$')"
ERRORS["to_char_currency_after_point"] = "SELECT to_char(5, '.$9')"
ERRORS["to_char_lone_separator"] = "SELECT to_char(5, ',99')"
ERRORS["to_char_separator_after_point"] = "SELECT to_char(5, '9.9,9')"
ERRORS["to_char_unexpected_token"] = "SELECT to_char(5, '9S9')"
ERRORS["to_char_unexpected_character"] = "SELECT to_char(5, '9 9')"
ERRORS["to_char_non_foldable"] = "SELECT to_char(id, CAST(id AS STRING)) FROM range(3)"
ERRORS["to_char_boolean"] = "SELECT to_char(true, '9')"
ERRORS["to_char_interval"] = "SELECT to_char(INTERVAL 1 DAY, '9')"
ERRORS["to_char_binary_format"] = "SELECT to_char(X'537061726b', 'foo')"
ERRORS["to_char_binary_null_format"] = "SELECT to_char(X'537061726b', NULL)"
ERRORS["to_char_double_overflow"] = "SELECT to_char(1e20D, '999')"
ERRORS["to_char_malformed_text"] = "SELECT to_char('abc', '999')"
ERRORS["try_to_char"] = "SELECT try_to_char(5, '999')"

ERRORS_GAPS = {
}


@pytest.mark.parametrize("case", cases(ERRORS, ERRORS_GAPS))
def test_errors(spark, expected, case):
    expected.check_error(lambda: spark.sql(ERRORS[case]).collect(), name=case)


def test_decode_case_form(spark, expected):
    # decode(expr, search, result, ..., [default]): the result of the first search value equal
    # to expr (NULL matching NULL), else the default or NULL.
    expected.check(
        spark.sql(
            "SELECT decode(2, 1, 'one', 2, 'two', 'other') AS a, decode(5, 1, 'one', 'other') AS b, "
            "decode(NULL, NULL, 'n', 'x') AS c, decode(3, 1, 'one') AS d, decode(id, 0, 'zero', 1, 'one') AS e FROM range(3)"
        ),
        name="values",
    )
    expected.check(spark.sql("SELECT decode(2, 1, 'one', 2, 'two')"), name="name")


def test_overlay_lengths(spark, expected):
    # overlay's length: negative (the client's default, -1) replaces as many characters as the
    # replacement has.
    from pyspark.sql import functions as F

    expected.check(
        spark.sql(
            "SELECT overlay('SPARK_SQL' PLACING 'CORE' FROM 7) a, overlay('SPARK_SQL', 'CORE', 7, -1) b, "
            "overlay('SPARK_SQL', 'CORE', 7, 0) c, overlay('SPARK_SQL', 'CORE', 7, 2) d, overlay('SPARK_SQL', 'CORE', 7, -5) e"
        ),
        name="sql",
    )
    df = spark.createDataFrame([("SPARK_SQL", "CORE", 2)], ("x", "y", "n"))
    expected.check(df.select(F.overlay("x", df.y, 7), F.overlay("x", "y", 7, "n")), name="dataframe")
    # Of BINARY values: bytes, and a BINARY answer (positions past either end, from the end,
    # NULLs, multi-byte text as its bytes).
    expected.check(
        spark.sql(
            "SELECT overlay(X'0102030405' PLACING X'AAFF' FROM 2) a, overlay(X'0102030405', X'AA', 2, 0) b, "
            "overlay(X'0102030405', X'AA', 9, 1) c, overlay(X'0102030405', X'AA', 0, 2) d, "
            "overlay(X'0102030405', X'AA', -2, 1) e, overlay(X'0102', X'', 1, 5) f, "
            "overlay(encode('héllo', 'utf-8'), X'41', 2) g, overlay(X'01', CAST(NULL AS BINARY), 1) h, "
            "overlay(X'0102', X'03', 1, CAST(NULL AS INT)) i, overlay(X'0102', X'03', 2, -7) j"
        ),
        name="binary",
    )
    b = spark.createDataFrame([(bytearray(b"abcdef"), bytearray(b"XY"), 3)], ("x", "y", "n"))
    expected.check(b.select(F.overlay("x", "y", "n"), F.overlay("x", "y", 1, "n")), name="binary_dataframe")


# Java's regular expressions (java.util.regex), as Spark compiles every pattern: classes are
# ASCII unless (?U), `[` inside a class is a nested class, `&&` intersects, `$` also stands
# before a final line terminator, and replacement strings are Java's. Texts with non-ASCII
# characters, line terminators and NULL.
REGEX_ROWS = (
    # (a no-break space as is: Ember's SQL literals do not read `\u00a0` escapes yet)
    r"FROM VALUES (1, 'é b_1'), (2, 'Straße 42'), (3, 'ab\n'), (4, 'x" "\u00a0" r"y\tz'), "
    r"(5, 'αβγ abc.'), (6, 'ÀB:cd'), (7, ''), (8, NULL) AS t(id, s)"
)
REGEX = {
    "classes": r"SELECT id, regexp_replace(s, '[^\\w]', '') a, regexp_replace(s, '\\W', '#') b, "
    r"regexp_replace(s, '\\s', '_') c, regexp_replace(s, '[\\d\\s]', '') d, regexp_replace(s, '\\h', '#') e, "
    r"regexp_replace(s, '\\v', '#') f, regexp_count(s, '\\S') g, regexp_replace(s, '[\\D]', '.') h "
    + REGEX_ROWS,
    "unicode_classes": r"SELECT id, regexp_replace(s, '(?U)\\w', '#') a, regexp_replace(s, '(?U)[^\\s]', '#') b, "
    r"regexp_count(s, '(?U)\\d') c, regexp_replace(s, '\\b', '|') d " + REGEX_ROWS,
    "posix": r"SELECT id, regexp_replace(s, '\\p{Alpha}', '#') a, regexp_replace(s, '\\p{Lower}', '#') b, "
    r"regexp_replace(s, '\\P{Alnum}', '#') c, regexp_replace(s, '\\p{Punct}', '#') d, regexp_replace(s, '\\p{Upper}', '#') e, "
    r"regexp_replace(s, '\\p{Space}', '#') f, regexp_replace(s, '\\p{ASCII}', '') g, regexp_replace(s, '\\p{XDigit}', '#') h "
    + REGEX_ROWS,
    "unicode_properties": r"SELECT id, regexp_replace(s, '\\p{L}', '#') a, regexp_replace(s, '\\p{IsLatin}', '#') b, "
    r"regexp_replace(s, '\\p{InGreek}', '#') c, regexp_replace(s, '\\p{javaLowerCase}', '#') d, regexp_replace(s, '\\pL', '#') e, "
    r"regexp_replace(s, '\\p{IsAlphabetic}', '#') f, regexp_replace(s, '\\p{Lu}', '#') g, regexp_replace(s, '\\p{sc=Greek}', '#') h "
    + REGEX_ROWS,
    "brackets": r"SELECT id, regexp_replace(s, '[[:alpha:]]', '#') a, regexp_replace(s, '[a-z&&[^aeiou]]', '#') b, "
    r"regexp_replace(s, '[^a[b]]', '#') c, regexp_replace(s, '[\\p{L}&&[^\\p{Lu}]]', '#') d, regexp_replace(s, '[]a]', '#') e, "
    r"regexp_replace(s, '[\\w&&[^_]]', '#') f " + REGEX_ROWS,
    "quoting_escapes": r"SELECT regexp_replace('a.b(a)', '\\Q.\\E', '#') a, regexp_replace('a.b(a)', '\\Q(a)\\E', '#') b, "
    r"regexp_replace('AéA', '\\x41', '#') c, regexp_replace('AéA', '\\u00e9', '#') d, regexp_replace('AéA', '\\0101', '#') e, "
    r"regexp_replace('AéA', '\\x{e9}', '#') f, regexp_replace('a\tb', '\\t', '#') g, regexp_replace('a\r\nb\nc', '\\R', '#') h",
    "flags": r"SELECT id, regexp_replace(s, '(?i)[a-c]', '#') a, regexp_replace(s, '(?i)é', '#') b, regexp_replace(s, '(?iu)é', '#') c, "
    r"regexp_replace(s, '(?i)straße', '#') d, regexp_replace(s, '(?s).', '#') e, regexp_replace(s, '.', '#') f, "
    r"regexp_replace(s, '(?x) a  b # comment', '#') g, regexp_replace(s, '(?m)^', '>') h, regexp_replace(s, '(?i:A)B', '#') i "
    + REGEX_ROWS,
    "anchors": r"SELECT id, s RLIKE 'b$' a, regexp_extract(s, '(\\w)$', 1) b, regexp_replace(s, '$', '|') c, "
    r"s RLIKE 'b\\Z' d, s RLIKE 'b\\z' e, regexp_replace(s, '\\A.', '#') f, regexp_count(s, '\\b') g " + REGEX_ROWS,
    "groups": r"SELECT regexp_extract('2024-05-17', '(?<year>\\d{4})-(?<month>\\d\\d)', 2) a, "
    r"regexp_extract_all('a1b22c333', '([a-z])(\\d+)', 2) b, regexp_extract('ab', '(a)|(b)', 2) c, "
    r"regexp_extract_all('ab', '(a)|(b)', 2) d, regexp_replace('abc', '(b)', '[$1]') e, regexp_replace('abc', '(b)', '$10') f, "
    r"regexp_extract('aaaaaa', 'a{2}{3}', 0) g, regexp_extract('xxx', 'x{2,3}?', 0) h",
    "functions": r"SELECT id, s RLIKE '\\d' a, regexp_like(s, '^\\p{Lu}') b, regexp(s, '[αβ]') c, regexp_count(s, '[a-z]') d, "
    r"regexp_instr(s, '\\s') e, regexp_substr(s, '\\p{L}+') f, regexp_extract_all(s, '\\w+', 0) g, split(s, '\\s') h, "
    r"split(s, '[^\\w]', 2) i " + REGEX_ROWS,
    "empty_matches": r"SELECT regexp_count('abc', '') a, regexp_count('', '') b, regexp_count('aaa', 'a*') c, "
    r"regexp_replace('abc', 'x*', '-') d, regexp_replace('', '', '-') e, regexp_extract_all('abc', 'x*', 0) f, "
    r"split('abc', 'x*') g, split('a1b2', '(?=\\d)') h, regexp_substr('abc', 'x*') i",
    "lookahead": r"SELECT split('camelCaseWord', '(?=[A-Z])') a, regexp_extract_all('one,two,three', '\\w+(?=,)', 0) b, "
    r"regexp_replace('abab', 'a(?=b)', '#') c, 'abc' RLIKE 'b(?=c)' d",
    "position": r"SELECT regexp_replace('abcabc', 'b', 'X', 3) a, regexp_replace('abcabc', '^a', 'X', 4) b, "
    r"regexp_replace('abc', 'b', 'X', 10) c, regexp_replace('abc', '', '-', 3) d, regexp_replace('a b', '\\b', '|', 2) e, "
    r"regexp_replace('éaé', 'é', '#', 2) f",
    "row_patterns": r"SELECT s, p, s RLIKE p a, regexp_replace(s, p, '#') b, regexp_count(s, p) c, regexp_extract(s, p, 0) d, "
    r"split(s, p) e FROM VALUES ('é b', '[^\\w]'), ('aé1', '\\p{Alpha}'), ('ab\n', 'b$'), ('a.b', '\\Q.\\E'), "
    r"('abc', '[[:alpha:]]'), ('x y', NULL), (NULL, 'a') AS t(s, p)",
}
REGEX_GAPS = {
    "backreference": "Rust's regex engine has no backreferences",
    "possessive": "Rust's regex engine has no possessive quantifiers",
    "atomic_group": "Rust's regex engine has no atomic groups",
    "lookbehind": "Rust's regex engine has no lookbehind",
    "negative_lookahead": "Rust's regex engine has no negative lookahead",
}
REGEX["backreference"] = r"SELECT regexp_extract('xaay', '(a)\\1', 0) a"
REGEX["possessive"] = r"SELECT regexp_extract('aaab', 'a*+b', 0) a, regexp_extract('aaab', 'a*+ab', 0) b"
REGEX["atomic_group"] = r"SELECT regexp_extract('aaab', '(?>a*)b', 0) a"
REGEX["lookbehind"] = r"SELECT regexp_replace('abcb', '(?<=a)b', '#') a"
REGEX["negative_lookahead"] = r"SELECT regexp_replace('abac', 'a(?!b)', '#') a"


@pytest.mark.parametrize("case", cases(REGEX, REGEX_GAPS))
def test_java_regex(spark, expected, case):
    expected.check(spark.sql(REGEX[case]), name=case)


# Replacement strings through the DataFrame API (SQL text would substitute `${...}`).
REGEX_REPLACEMENTS = {
    "dollar_escaped": ("b", "\\$"),
    "backslash_escaped": ("b", "\\\\"),
    "escaped_letter": ("b", "\\x"),
    "group": ("(b)(c)", "[$2$1]"),
    "named_group": ("(?<first>a)(?<second>b)", "${second}${first}"),
    "group_zero": ("[bc]+", "<$0>"),
    "longest_group": ("(b)", "$11"),
    "no_match_bad_reference": ("z", "$9"),
}


@pytest.mark.parametrize("case", sorted(REGEX_REPLACEMENTS))
def test_java_regex_replacement(spark, expected, case):
    pattern, replacement = REGEX_REPLACEMENTS[case]
    df = spark.createDataFrame([("abcd",), ("é bc",), (None,)], "s STRING")
    expected.check(df.select(F.regexp_replace("s", pattern, replacement).alias("r")), name=case)


REGEX_ERRORS = {
    "rlike_bad_pattern": "SELECT 'a' RLIKE '('",
    "regexp_like_bad_pattern": "SELECT regexp_like('a', '[a')",
    "regexp_replace_bad_pattern": "SELECT regexp_replace('a', '*a', '')",
    "regexp_extract_all_bad_pattern": r"SELECT regexp_extract_all('a', '\\p{Nope}', 0)",
    "regexp_count_bad_pattern": "SELECT regexp_count('a', 'a{2,1}')",
    "regexp_instr_bad_pattern": r"SELECT regexp_instr('a', '\\k<x>')",
    "regexp_substr_bad_pattern": r"SELECT regexp_substr('a', '\\y')",
    "split_bad_pattern": "SELECT split('a', '(')",
    "row_bad_pattern": "SELECT s RLIKE p FROM VALUES ('a', '('), ('b', 'b') AS t(s, p)",
    "replacement_missing_group": "SELECT regexp_replace('abc', '(b)', '$2')",
    "replacement_bad_reference": "SELECT regexp_replace('abc', 'b', '$x')",
    "replacement_trailing_backslash": r"SELECT regexp_replace('abc', 'b', '\\')",
    "group_index_on_match": "SELECT regexp_extract('aaa', 'a', 1)",
    "group_index_negative": "SELECT regexp_extract_all('a', '(a)', -1)",
    "position_zero": "SELECT regexp_replace('abc', 'b', 'X', 0)",
    "position_not_constant": "SELECT regexp_replace('abc', 'b', 'X', id) FROM range(1, 2)",
}


@pytest.mark.parametrize("case", sorted(REGEX_ERRORS))
def test_java_regex_errors(spark, expected, case):
    expected.check_error(lambda: spark.sql(REGEX_ERRORS[case]).collect(), name=case)


# df.colRegex: Java's `String.matches` over the column names, case-insensitive by default.
COL_REGEX = {
    "digits": r"`a\d`",
    "whole_name": "`a|ab`",
    "posix_and_space": r"`\p{Alpha}\s\p{L}`",
    "case_insensitive": "`x.`",
    "case_sensitive_flag": "`(?-i)x.`",
    "nested_class": "`[[:alpha:]]+`",
}


@pytest.mark.parametrize("case", sorted(COL_REGEX))
def test_col_regex(spark, expected, case):
    df = spark.createDataFrame([(1, 2, 3, 4, 5)], "a1 INT, a2 INT, `b é` INT, ab INT, Xy INT")
    expected.check(df.select(df.colRegex(COL_REGEX[case])), name=case)


def test_col_regex_invalid(spark, expected):
    df = spark.createDataFrame([(1,)], "a INT")
    expected.check_error(lambda: df.select(df.colRegex("`(`")).columns, name="unclosed_group")
