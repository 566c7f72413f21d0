"""`df.show()` and the notebook's `_repr_html_`: the text and HTML tables Spark prints, cell by cell.

Spark lays the table out in UTF-16 code units (an emoji is two), a full-width character (CJK,
Hangul, full-width forms) counts two columns, control characters are escaped (`\\n`, `\\t`, ...),
headers are never truncated, and the HTML escapes every HTML 4 entity.
"""

import html.entities

import pytest
from pyspark.sql import functions as F

TRUNCATES = [True, False, 1, 2, 3, 4, 5, 10]


@pytest.fixture(scope="module")
def generated(spark):
    """Columns whose generated names are longer than 20 characters."""
    df = spark.createDataFrame([("a", [1, 2]), ("bb", [3]), (None, [1])], "data STRING, arr ARRAY<INT>")
    return df.select(
        F.array_position("arr", 1),
        F.concat_ws("-", "data", F.lit("a long separator value")),
        F.col("data"),
        F.lit(12345).alias("x"),
    )


@pytest.fixture(scope="module")
def wide(spark):
    """Full-width, surrogate-pair and combining characters, in values and in a header."""
    return spark.createDataFrame(
        [
            ("中文字符串测试", "한국어", 1),
            ("😀x", "ｆｕｌｌ　ｗｉｄｔｈ", 2),
            ("e\u0301 cafe\u0301", "日本語のテキストです長い値", 3),
            ("😀😀😀😀😀😀😀😀😀😀😀😀", "𝒜𝒷𝒸 math letters", 4),
            ("plain ascii value that is long", "", 5),
            ("ｶﾀｶﾅ half-width", "👨‍👩‍👧 family", 6),
        ],
        ["列名", "😀 emoji header", "ｉｄ"],
    )


@pytest.fixture(scope="module")
def controls(spark):
    """Values and names with newlines, tabs and other control characters."""
    return spark.createDataFrame(
        [("a\nb", "tab\there"), ("cr\rlf\r\n", "ff\fbs\bvt\vbell\x07"), ("nul\x00 esc\x1b", "back\\slash \\n")],
        "`line\nbreak` STRING, `tab\tname` STRING",
    )


@pytest.mark.parametrize("truncate", TRUNCATES, ids=str)
def test_generated_names(generated, expected, truncate):
    expected.check_value(generated._show_string(truncate=truncate), name=f"horizontal_{truncate}")
    expected.check_value(generated._show_string(truncate=truncate, vertical=True), name=f"vertical_{truncate}")


@pytest.mark.parametrize("truncate", TRUNCATES, ids=str)
def test_wide_characters(wide, expected, truncate):
    expected.check_value(wide._show_string(truncate=truncate), name=f"horizontal_{truncate}")
    expected.check_value(wide._show_string(truncate=truncate, vertical=True), name=f"vertical_{truncate}")


@pytest.mark.parametrize("truncate", [True, False, 3, 5], ids=str)
def test_control_characters(controls, expected, truncate):
    expected.check_value(controls._show_string(truncate=truncate), name=f"horizontal_{truncate}")
    expected.check_value(controls._show_string(truncate=truncate, vertical=True), name=f"vertical_{truncate}")


def test_row_limits(spark, expected):
    # (Ordered: the cluster modes gather a range's partitions in the order they finish.)
    df = spark.range(25).withColumn("name", F.concat(F.lit("row "), F.col("id").cast("string"))).orderBy("id")
    expected.check_value(df._show_string(), name="default")
    expected.check_value(df._show_string(1), name="one")
    expected.check_value(df._show_string(0), name="zero")
    expected.check_value(df._show_string(25), name="all")
    expected.check_value(df._show_string(24, truncate=3), name="all_but_one")
    expected.check_value(df._show_string(3, vertical=True), name="vertical")
    expected.check_value(df._show_string(12, vertical=True), name="vertical_two_digit_records")
    expected.check_value(df._show_string(0, vertical=True), name="vertical_zero")
    expected.check_value(df.limit(0)._show_string(), name="empty")
    expected.check_value(df.limit(0)._show_string(vertical=True), name="empty_vertical")
    expected.check_value(df.select()._show_string(), name="no_columns")


def test_nested_values(spark, expected):
    df = spark.sql(
        """SELECT array('a\nb', NULL) AS a,
                  map('k\t', named_struct('x', 1, 'y', 'z\r')) AS m,
                  named_struct('a', array(1, 2), 'b', map(1, 'x'), 'c', CAST(NULL AS INT)) AS s,
                  CAST('ab\ncd' AS BINARY) AS b,
                  CAST(NULL AS STRING) AS n,
                  array(CAST(NULL AS INT)) AS an,
                  map('k', CAST(NULL AS STRING)) AS mn,
                  array(array(1, NULL), NULL) AS aa,
                  array(named_struct('p', CAST(NULL AS DOUBLE))) AS sa,
                  array(1.5D, CAST(NULL AS DOUBLE), 1e20D) AS ad,
                  array(DATE'2020-01-01', NULL) AS dd,
                  array(true, NULL) AS bb,
                  array(CAST(NULL AS BINARY), CAST('x' AS BINARY)) AS bin,
                  array('中文', '😀') AS uni,
                  map('é', array('ü\n')) AS mu"""
    )
    for truncate in [True, False, 4]:
        expected.check_value(df._show_string(truncate=truncate), name=f"horizontal_{truncate}")
        expected.check_value(df._show_string(truncate=truncate, vertical=True), name=f"vertical_{truncate}")


def test_show_prints(generated, expected, capsys):
    generated.show()
    generated.show(2, truncate=False)
    generated.show(vertical=True)
    expected.check_value(capsys.readouterr().out, name="stdout")


@pytest.fixture
def eager(spark):
    """A session with notebook eager evaluation on; the settings are undone afterwards."""
    keys = ["spark.sql.repl.eagerEval.enabled", "spark.sql.repl.eagerEval.maxNumRows", "spark.sql.repl.eagerEval.truncate"]
    spark.conf.set("spark.sql.repl.eagerEval.enabled", "true")
    yield spark
    for key in keys:
        spark.conf.unset(key)


def test_repr_html(eager, generated, wide, controls, expected):
    def html(df, rows=None, truncate=None):
        if rows is not None:
            eager.conf.set("spark.sql.repl.eagerEval.maxNumRows", str(rows))
        if truncate is not None:
            eager.conf.set("spark.sql.repl.eagerEval.truncate", str(truncate))
        return df._repr_html_()

    expected.check_value(html(generated), name="generated")
    expected.check_value(html(wide), name="wide")
    expected.check_value(html(controls), name="controls")
    expected.check_value(html(wide, rows=2, truncate=3), name="wide_limited")
    expected.check_value(html(generated, rows=1, truncate=0), name="generated_untruncated")
    expected.check_value(html(eager.range(0)), name="empty")


def test_html_entities(eager, expected):
    """Every character HTML 4 names is written as its entity, others as they are."""
    names = sorted(html.entities.codepoint2name)
    text = "".join(chr(c) for c in names) + "'~\u0100\u03a2\u2200\u2209\u2666\u2667 😀"
    df = eager.createDataFrame([(text[i : i + 40],) for i in range(0, len(text), 40)], "`<th & \"col\">` STRING")
    eager.conf.set("spark.sql.repl.eagerEval.truncate", "0")
    expected.check_value(df._repr_html_(), name="table")
