"""Math functions and numeric semantics as Spark's (half-up vs half-even rounding, decimal
result types, ANSI errors); answers recorded from real Spark."""

from decimal import Decimal

import pytest
from pyspark.sql import functions as F

from conftest import cases

SQL = {
    "round": "SELECT round(2.5) a, round(-2.5) b, round(1.245, 2) c, round(1234.5, -2) d, round(2.5D) e, round(15, -1) f",
    "bround": "SELECT bround(2.5) a, bround(3.5) b, bround(-2.5) c, bround(1.245, 2) d, bround(25, -1) e",
    "ceil_floor": "SELECT ceil(1.2) a, floor(-1.2) b, ceil(5) c, ceil(1.25D) d, floor(CAST(1.5 AS FLOAT)) e, ceiling(-0.5) f",
    "ceil_scale": "SELECT ceil(1.234, 2) a, floor(1.234, 1) b",
    "abs_sign": "SELECT abs(-5) a, abs(-2.50) b, sign(-3.0) c, signum(0) d, negative(4) e, positive(-1) f",
    "pow_sqrt": "SELECT pow(2, 10) a, power(2.0, -1) b, sqrt(16) c, cbrt(27.0) d, sqrt(-1) e",
    "exp_log": "SELECT exp(0) a, ln(1) b, log(10, 100) c, log10(1000) d, log2(8) e, log(2.718281828459045) f, expm1(0) g",
    "log1p": "SELECT log1p(0) a, log(0) b, ln(-1) c",
    "trig": "SELECT sin(0) a, cos(0) b, tan(0) c, asin(1) d, acos(1) e, atan(1) f, atan2(1, 1) g",
    "hyperbolic": "SELECT sinh(0) a, cosh(0) b, tanh(0) c, asinh(0) d, acosh(1) e, atanh(0) f",
    "reciprocal_trig": "SELECT cot(1) a, sec(0) b, csc(1) c",
    "degrees": "SELECT degrees(pi()) a, radians(180) b, e() c, pi() d",
    "mod_pmod": "SELECT 7 % 3 a, -7 % 3 b, mod(-7, 3) c, pmod(-7, 3) d, pmod(7.5, 2) e, 7 div 2 f, -7 div 2 g",
    "division": "SELECT 1 / 2 a, 7 / 2.0 b, 1.0 / 3 c, CAST(1 AS DECIMAL(10,2)) / 3 d",
    "decimal_arith": "SELECT 1.10 + 2.205 a, 1.5 * 2.25 b, CAST(10 AS DECIMAL(38,10)) * CAST(3 AS DECIMAL(38,10)) c",
    "factorial": "SELECT factorial(5) a, factorial(0) b, factorial(21) c",
    "greatest_least": "SELECT greatest(1, 5, 3) a, least(1.5, 0.5) b, greatest(1, NULL, 3) c, least('b', 'a') d",
    "conv": "SELECT conv('100', 2, 10) a, conv('ff', 16, 10) b, conv('255', 10, 16) c, conv('-1', 10, 16) d, conv('z', 10, 2) e",
    "bin_hex": "SELECT bin(13) a, bin(-1) b, hex(17) c",
    "bit_ops": "SELECT 5 & 3 a, 5 | 3 b, 5 ^ 3 c, ~5 d, shiftleft(1, 4) e, shiftright(-16, 2) f, shiftrightunsigned(-16, 28) g",
    "bit_count_get": "SELECT bit_count(7) a, bit_get(5, 0) b, getbit(5, 1) c",
    "isnan_nanvl": "SELECT isnan(CAST('NaN' AS DOUBLE)) a, isnan(1.0) b, nanvl(CAST('NaN' AS DOUBLE), 0.5) c, nanvl(2.0, 0.5) d",
    "nan_ordering": "SELECT CAST('NaN' AS DOUBLE) = CAST('NaN' AS DOUBLE) a, CAST('NaN' AS DOUBLE) > 1e308 b",
    "width_bucket": "SELECT width_bucket(5.3, 0.2, 10.6, 5) a, width_bucket(-1, 0, 10, 5) b",
    "rint_hypot": "SELECT rint(2.5) a, rint(3.5) b, hypot(3, 4) c",
    "try_arith": "SELECT try_add(2147483647, 1) a, try_divide(1, 0) b, try_multiply(2, 3) c, try_subtract(5, 7) d, try_mod(5, 0) e",
    "integer_types": "SELECT 1Y + 1Y a, 1S * 2S b, 2147483647L + 1 c, typeof(1Y + 1Y) d, typeof(1 + 1L) e",
    "float_double": "SELECT CAST(0.1 AS FLOAT) + CAST(0.2 AS FLOAT) a, 0.1D + 0.2D b, 1e308 * 10 c",
    "casts": "SELECT CAST(3.9 AS INT) a, CAST(-3.9 AS INT) b, CAST('1e3' AS DOUBLE) c, CAST(' 12 ' AS INT) d, "
    "CAST(1.5E0 AS DECIMAL(4,1)) e",
    "random_shape": "SELECT rand(42) BETWEEN 0 AND 1 a, randn(1) IS NOT NULL b",
    "nullif_zero": "SELECT nullifzero(0) a, zeroifnull(NULL) b, nvl(NULL, 1) c, nvl2(1, 'x', 'y') d, ifnull(NULL, 2) e",
    "equal_null": "SELECT equal_null(1, 1) a, equal_null(NULL, NULL) b, equal_null(1, NULL) c, NULL <=> NULL d",
    # Spark number formats: result DECIMAL(digits, fraction digits); try_ gives NULL.
    "to_number": "SELECT to_number('454', '999') a, to_number('454.00', '000.00') b, to_number('12,454', '99,999') c, "
    "to_number('$78.12', '$99.99') d, to_number('-12', 'S99') e, to_number('12-', '99MI') f, to_number('<12>', '99PR') g, "
    "to_number('5', '999') h, to_number('0454', '0999') i, to_number('1.5', '9.99') j, to_number(' 12', '999') k, "
    "to_number('.5', '9.9') l, to_number('12.', '99.99') m",
    "try_to_number": "SELECT try_to_number('abc', '999') a, try_to_number('1234', '999') b, try_to_number('12', '999') c, "
    "try_to_number('1234', '9,999') d, try_to_number('1,234', '9,999') e, try_to_number('234', '9,999') f, "
    "try_to_number('12', '9909') g, try_to_number('012', '0999') h, try_to_number('78.12', '$99.99') i, "
    "try_to_number(NULL, '9') j",
}


SQL["sums"] = (
    "SELECT k, sum(x) s, sum(DISTINCT x) d, sum(x) FILTER (WHERE x > 1) f, typeof(sum(x)) t, try_sum(x) ts "
    "FROM VALUES (1, 1L), (1, 2L), (2, NULL), (1, 2L), (3, 9223372036854775807L) t(k, x) GROUP BY k"
)
SQL["abs_types"] = "SELECT abs(-5) a, abs(CAST(-5 AS SMALLINT)) b, abs(-2.5) c, abs(-1L) d, abs(-2147483647) e"
# nanvl reads its second value only where the first is NaN.
SQL["nanvl_lazy"] = (
    "SELECT nanvl(2.5D, 'abc') a, nanvl(CAST('NaN' AS DOUBLE), '1.5') b, nanvl(c0, c1) c FROM VALUES "
    "(CAST('NaN' AS DOUBLE), 1.5D), (2.5D, 3D), (CAST(NULL AS DOUBLE), 1D), (CAST('NaN' AS DOUBLE), CAST(NULL AS DOUBLE)) AS t(c0, c1)"
)
SQL["narrowing_casts"] = (
    "SELECT CAST(127 AS TINYINT) a, CAST(12345.6 AS INT) b, CAST(-1.9D AS BIGINT) c, try_cast(300 AS TINYINT) d, "
    "CAST(CAST(-3e9 AS DECIMAL(12,0)) AS BIGINT) e"
)

# Spark's reading of number formats: every token optional in the text but a `$` before
# other characters, spaces inside digit groups, runs that start with 0 exact.
SQL["to_number_tokens"] = (
    "SELECT try_to_number('-5', 'S$99') a, try_to_number('5', '$99') b, try_to_number('<5', '99PR') c, "
    "try_to_number('5>', '99PR') d, try_to_number('1,234', '0,999') e, try_to_number('234', '0,999') f, "
    "try_to_number('1.2.', '9.9') g, try_to_number(' 1 2 ', '999') h, try_to_number('$', '$9') i, "
    "try_to_number('-5', 'S99PR') j, try_to_number('<-5>', 'S99PR') k, try_to_number('+5', 's9') l, "
    "try_to_number('12,454.8-', '99G999D9S') m, try_to_number('5', '9MI') n"
)

SQL["to_number_null_format"] = "SELECT to_number('5', NULL) a, try_to_number('5', NULL) b"
# Past 38 digits Spark rounds the exact result to its reduced scale (DataFusion's operator
# failed with ARITHMETIC_OVERFLOW where the exact result did not fit 128 bits).
SQL["decimal_precision_loss"] = (
    "SELECT CAST('12345678901234567890.123' AS DECIMAL(38,10)) * CAST(2 AS DECIMAL(38,10)) a, "
    "CAST('1234567890123456789012345.123' AS DECIMAL(38,3)) * CAST('1234567.5' AS DECIMAL(20,1)) b, "
    "CAST(id + 12345678901234567890 AS DECIMAL(38,10)) * CAST(id + 2 AS DECIMAL(38,10)) c, "
    "try_multiply(CAST('12345678901234567890.123' AS DECIMAL(38,10)), CAST(2 AS DECIMAL(38,10))) d, "
    "CAST(id + 12345678901234567890 AS DECIMAL(38,10)) + CAST('1234567890123456789012345678.5' AS DECIMAL(38,2)) e, "
    "CAST('0.0000000005' AS DECIMAL(38,10)) * CAST(id - 1 AS DECIMAL(38,10)) f, "
    "CAST('-0.00000125' AS DECIMAL(38,10)) * CAST('1.2' AS DECIMAL(38,10)) g, "
    "CAST('999999999999999999999999999999999999' AS DECIMAL(38,0)) - CAST('-1' AS DECIMAL(38,1)) h, "
    "try_multiply(CAST(id + 1 AS DECIMAL(38,0)) * CAST(1e20 AS DECIMAL(38,0)), CAST(1e20 AS DECIMAL(38,0))) i, "
    "try_add(CAST('99999999999999999999999999999999999999' AS DECIMAL(38,0)), CAST(id AS DECIMAL(38,0))) j FROM range(3)"
)
# Rows that fit 128 bits next to one that does not, and NULLs, in one batch.
SQL["decimal_precision_loss_mixed_rows"] = (
    "SELECT x, CAST(x AS DECIMAL(38,10)) * CAST(2.5 AS DECIMAL(38,10)) a, CAST(x AS DECIMAL(38,10)) - CAST(y AS DECIMAL(38,2)) b, "
    "try_multiply(CAST(x AS DECIMAL(38,10)), CAST(y AS DECIMAL(38,10))) c FROM VALUES ('1.5', '2.25'), "
    "('12345678901234567890.123', '-3.5'), (NULL, '1'), ('-0.0000000004', NULL), ('9999999999999999999999999999', '99999999999') AS t(x, y)"
)

SQL_GAPS = {
}


@pytest.mark.parametrize("case", cases(SQL, SQL_GAPS))
def test_sql(spark, expected, case):
    expected.check(spark.sql(SQL[case]), name=case)


@pytest.fixture
def numbers(spark):
    return spark.createDataFrame(
        [(1, 2.5, -7, Decimal("10.25")), (2, -0.5, 12, None), (3, None, 0, Decimal("3.00"))], "id INT, x DOUBLE, n INT, d DECIMAL(6,2)"
    )


FRAME = {
    "round": lambda: F.round("x"),
    "round_decimal": lambda: F.round("d", 1),
    "bround": lambda: F.bround("x"),
    "abs": lambda: F.abs("n"),
    "sqrt": lambda: F.sqrt("d"),
    "pow": lambda: F.pow("n", 2),
    "pmod": lambda: F.pmod("n", F.lit(5)),
    "log": lambda: F.log(2.0, "d"),
    "exp": lambda: F.exp("x"),
    "signum": lambda: F.signum("n"),
    "ceil": lambda: F.ceil("x"),
    "floor_decimal": lambda: F.floor("d"),
    "greatest": lambda: F.greatest("x", "n"),
    "arith": lambda: (F.col("n") * F.col("d") + 1) / 2,
    "conv": lambda: F.conv(F.col("n").cast("string"), 10, 2),
    "shiftleft": lambda: F.shiftleft("n", 1),
    "isnan": lambda: F.isnan("x"),
    "hex": lambda: F.hex("n"),
    "factorial": lambda: F.factorial(F.abs("n") % 6),
    "cbrt": lambda: F.cbrt("n"),
    "rand_randn": lambda: F.rand(1).between(0, 1) & F.randn(5).isNotNull(),
}


FRAME_GAPS = {}


@pytest.mark.parametrize("case", cases(FRAME, FRAME_GAPS))
def test_dataframe(numbers, expected, case):
    expected.check(numbers.select("id", FRAME[case]()), name=case)


ERRORS = {
    "overflow": "SELECT 2147483647 + 1",
    "divide_by_zero": "SELECT 1 / 0",
    "mod_by_zero": "SELECT 5 % 0",
    "pmod_by_zero": "SELECT pmod(5, 0)",
    "double_mod_by_zero": "SELECT 5.0D % 0.0D",
    "cast_invalid": "SELECT CAST('abc' AS INT)",
    "decimal_overflow": "SELECT CAST(12345 AS DECIMAL(4,0))",
    "long_overflow": "SELECT 9223372036854775807L * 2",
    "to_number_mismatch": "SELECT to_number(s, '999') FROM VALUES ('1234') t(s)",
    "to_number_no_digits": "SELECT to_number('12', 'abc')",
    # A number beyond the integer type's range is CAST_OVERFLOW (an ArithmeticException).
    "cast_overflow_int": "SELECT CAST(300 AS TINYINT)",
    "cast_overflow_bigint": "SELECT CAST(3000000000L AS INT)",
    "cast_overflow_double": "SELECT CAST(1e20D AS BIGINT)",
    "cast_overflow_nan": "SELECT CAST(CAST('NaN' AS DOUBLE) AS INT)",
    "cast_overflow_decimal": "SELECT CAST(CAST(1e12 AS DECIMAL(20,0)) AS INT)",
    # A BIGINT sum beyond BIGINT's range (DataFusion's wraps around).
    "sum_overflow": "SELECT sum(x) FROM VALUES (9223372036854775807L), (1L) t(x)",
    "sum_overflow_window": "SELECT sum(x) OVER (ORDER BY x) FROM VALUES (9223372036854775807L), (1L) t(x)",
    "sum_overflow_grouped": "SELECT k, sum(x) FROM VALUES (1, 9223372036854775807L), (1, 1L), (2, 1L) t(k, x) GROUP BY k",
    "malformed_boolean": "SELECT CAST('x' AS BOOLEAN)",
    "abs_int_overflow": "SELECT abs(-2147483648)",
    "abs_bigint_overflow": "SELECT abs(-9223372036854775808L)",
    "abs_tinyint_overflow": "SELECT abs(CAST(-128 AS TINYINT))",
}


ERRORS["decimal_multiply_out_of_range"] = (
    "SELECT CAST(id AS DECIMAL(38,0)) * CAST(1e20 AS DECIMAL(38,0)) * CAST(1e20 AS DECIMAL(38,0)) FROM range(2)"
)
ERRORS["decimal_subtract_out_of_range"] = (
    "SELECT CAST('99999999999999999999999999999999999999' AS DECIMAL(38,0)) - CAST('-1' AS DECIMAL(38,1))"
)
ERRORS["to_number_too_many_digits"] = "SELECT to_number('1', '9999999999999999999999999999999999999999')"
ERRORS["to_number_two_signs"] = "SELECT to_number('1', 'S9S')"
ERRORS["to_number_empty"] = "SELECT to_number('1', '')"
ERRORS["to_number_non_foldable"] = "SELECT to_number(s, s) FROM VALUES ('1') t(s)"
ERRORS["nanvl_reads_a_bad_second_value"] = "SELECT nanvl(CAST('NaN' AS DOUBLE), 'abc')"
ERRORS["equal_null_number_and_boolean"] = "SELECT equal_null(3, true)"
ERRORS["null_safe_equal_number_and_boolean"] = "SELECT 3 <=> true"
ERRORS["implicit_cast_of_bad_text"] = "SELECT equal_null(3, 'a')"
ERRORS["to_number_currency_after_digits"] = "SELECT to_number('1', '9$')"

ERRORS_GAPS = {
}


@pytest.mark.parametrize("case", cases(ERRORS, ERRORS_GAPS))
def test_errors(spark, expected, case):
    expected.check_error(lambda: spark.sql(ERRORS[case]).collect(), name=case)
