"""The XML data source (`spark.read.option("rowTag", ..).xml`, `df.write.xml`,
`spark.read.xml(df)`): schema inference, options, modes, nested elements, attributes,
compression, partitioned directories and the files' text, compared with what real Spark reads
and writes (recorded under ``expected/``). ``data/written-by-spark/xml*`` are files real Spark
wrote (``data/make_fixtures.py``); ``data/written-by-ember/xml*`` are files Ember wrote, which
real Spark read when the answers were recorded."""

import datetime
import decimal
import gzip
from pathlib import Path

import pytest

from conftest import cases
from test_files import data_files, suffixes

DATA = Path(__file__).resolve().parent / "data"
SPARK_FILES = DATA / "written-by-spark"
EMBER_FILES = DATA / "written-by-ember"
SCHEMA = "id INT, name STRING, price DECIMAL(10,2), d DATE, ts TIMESTAMP, flag BOOLEAN, x DOUBLE, part STRING"
ROWS = [
    (1, "a<b&\"c", decimal.Decimal("1.50"), datetime.date(2020, 1, 2), datetime.datetime(2020, 1, 2, 3, 4, 5, 500000), True, 1.25, "a"),
    (2, None, None, None, None, None, None, "b"),
    (3, "", decimal.Decimal("-3.00"), datetime.date(1999, 12, 31), datetime.datetime(1999, 12, 31, 23, 59, 59), False, 1e10, "b"),
]

PEOPLE = """<?xml version="1.0"?>
<people>
  <person id="1" kind="x">
    <name>Alice</name>
    <age>30</age>
    <score>1.5</score>
    <ok>true</ok>
    <when>2020-01-02T03:04:05</when>
    <day>2020-01-02</day>
    <addr><city>NL</city><zip>123</zip></addr>
    <tag>a</tag><tag>b</tag>
  </person>
  <person id="2">
    <name>Bob</name>
    <age>x</age>
    <tag>c</tag>
    <note lang="en">hi</note>
  </person>
</people>
"""

# The third record is malformed (`<a>` is not closed): Spark's reader stops at it.
MERGED = """<rows>
<r><a>1</a><b>2</b><c> x </c><d>2020-01-01</d><e>1</e><f><g>1</g></f><h></h><i/></r>
<r><a>1.5</a><b>y</b><c>NA</c><d>2020-01-01 10:00:00</d><e>true</e><f>text</f><h>5</h></r>
<r><a>bad<b>2</b></r>
<r><a>3</a></r>
</rows>"""

GOOD = """<rows>
<r n="1"><a>1</a><b>x &amp; y</b></r>
<r n="2"><a>2</a><b><![CDATA[<z>]]></b><!-- a comment --></r>
<r n="3"><a>oops</a><b>w</b></r>
</rows>"""

DOCUMENTS = {
    "people": PEOPLE,
    "merged": MERGED,
    "good": GOOD,
    "formats": "<r><t>01/02/2020 10:11</t><d>02.01.2020</d></r>",
    "namespaces": '<root xmlns:p="http://x"><p:r p:at="1"><p:a>1</p:a><b>t<![CDATA[<x>]]></b><!-- c --></p:r><r><a>2</a></r></root>',
    "mixed": '<root><r><a>1<b>2</b>3</a><c k="v"/><e><x>1</x></e><e>s</e></r></root>',
    "nested_row_tag": "<root><r><r><a>1</a></r></r><r><a>2</a></r></root>",
    "numbers": "<root><r><a>9223372036854775808</a><b>1e400</b><c>NaN</c><d>-0</d><e>+5</e><f>1.0f</f>"
    "<g>2020-01-02T03:04:05Z</g><h>2020-01-02T03:04:05+01:00</h><i>1d</i><j>0x10</j></r></root>",
    "empty": "",
    "row_value": '<rows><r id="1">v</r><r id="2"><x>1</x></r></rows>',
}


def write_docs(out: Path):
    for name, text in DOCUMENTS.items():
        (out / f"{name}.xml").write_text(text)
    return out


def rows(r):
    return r.option("rowTag", "r")


def person(r):
    return r.option("rowTag", "person")


READS = {
    "inferred": lambda r, d: person(r).xml(f"{d}/people.xml"),
    "no_infer_schema": lambda r, d: person(r).option("inferSchema", False).xml(f"{d}/people.xml"),
    "prefix_and_value_tag": lambda r, d: person(r).option("attributePrefix", "@").option("valueTag", "V").xml(f"{d}/people.xml"),
    "exclude_attribute": lambda r, d: person(r).option("excludeAttribute", True).xml(f"{d}/people.xml"),
    "schema": lambda r, d: person(r)
    .schema("name STRING, age INT, _id INT, tag ARRAY<STRING>, addr STRUCT<city STRING>")
    .xml(f"{d}/people.xml"),
    "schema_dropmalformed": lambda r, d: person(r).option("mode", "DROPMALFORMED").schema("name STRING, age INT").xml(f"{d}/people.xml"),
    "schema_corrupt_record": lambda r, d: person(r).schema("name STRING, age INT, _corrupt_record STRING").xml(f"{d}/people.xml"),
    "format_load": lambda r, d: r.format("xml").option("rowTag", "person").load(f"{d}/people.xml"),
    "merged_types": lambda r, d: rows(r).xml(f"{d}/merged.xml"),
    "dropmalformed": lambda r, d: rows(r).option("mode", "DROPMALFORMED").xml(f"{d}/merged.xml"),
    "corrupt_column_name": lambda r, d: rows(r).option("columnNameOfCorruptRecord", "bad").xml(f"{d}/merged.xml"),
    "null_value": lambda r, d: rows(r).option("nullValue", "NA").xml(f"{d}/merged.xml"),
    "surrounding_spaces": lambda r, d: rows(r).option("ignoreSurroundingSpaces", False).xml(f"{d}/merged.xml"),
    "entities_cdata_comments": lambda r, d: rows(r).xml(f"{d}/good.xml"),
    "schema_partial_row": lambda r, d: rows(r).schema("_n INT, a INT, b STRING, _corrupt_record STRING").xml(f"{d}/good.xml"),
    "sampling_ratio": lambda r, d: rows(r).option("samplingRatio", 1.0).xml(f"{d}/good.xml"),
    "formats": lambda r, d: rows(r).option("timestampFormat", "MM/dd/yyyy HH:mm").option("dateFormat", "dd.MM.yyyy").xml(f"{d}/formats.xml"),
    "formats_schema": lambda r, d: rows(r)
    .schema("t TIMESTAMP, d DATE")
    .option("timestampFormat", "MM/dd/yyyy HH:mm")
    .option("dateFormat", "dd.MM.yyyy")
    .xml(f"{d}/formats.xml"),
    "without_formats": lambda r, d: rows(r).xml(f"{d}/formats.xml"),
    "namespaces": lambda r, d: rows(r).xml(f"{d}/namespaces.xml"),
    "prefixed_row_tag": lambda r, d: r.option("rowTag", "p:r").xml(f"{d}/namespaces.xml"),
    "mixed_content": lambda r, d: rows(r).xml(f"{d}/mixed.xml"),
    "nested_row_tag": lambda r, d: rows(r).xml(f"{d}/nested_row_tag.xml"),
    "numbers": lambda r, d: rows(r).xml(f"{d}/numbers.xml"),
    "empty_file": lambda r, d: rows(r).xml(f"{d}/empty.xml"),
    "empty_file_schema": lambda r, d: rows(r).schema("a INT").xml(f"{d}/empty.xml"),
    "row_value": lambda r, d: rows(r).xml(f"{d}/row_value.xml"),
    "several_files": lambda r, d: rows(r).xml([f"{d}/good.xml", f"{d}/row_value.xml"]),
    "projection": lambda r, d: person(r).xml(f"{d}/people.xml").select("name", "tag"),
    "filter": lambda r, d: person(r).xml(f"{d}/people.xml").where("_id = 2").select("name"),
}


@pytest.mark.parametrize("case", cases(READS))
def test_read(utc, expected, out, case):
    expected.check(READS[case](utc.read, write_docs(out)), name=case)


def test_read_count(utc, expected, out):
    d = write_docs(out)
    expected.check_value(rows(utc.read).xml(f"{d}/merged.xml").count())
    expected.check_value(person(utc.read).xml(f"{d}/people.xml").count())


ERRORS = {
    "read_without_row_tag": lambda s, d: s.read.xml(f"{d}/people.xml").collect(),
    "write_without_row_tag": lambda s, d: s.range(1).write.xml(f"{d}/w"),
    "failfast_inferring": lambda s, d: rows(s.read).option("mode", "FAILFAST").xml(f"{d}/merged.xml").collect(),
    "failfast_scanning": lambda s, d: person(s.read).option("mode", "FAILFAST").schema("name STRING, age INT").xml(f"{d}/people.xml").collect(),
    "missing_path": lambda s, d: rows(s.read).xml(f"{d}/nothing.xml").collect(),
}


@pytest.mark.parametrize("case", cases(ERRORS))
def test_error(utc, expected, out, case):
    expected.check_error(lambda: ERRORS[case](utc, write_docs(out)), name=case)


def test_compressed_read(utc, expected, out):
    with gzip.open(out / "people.xml.gz", "wt") as f:
        f.write(PEOPLE)
    expected.check(person(utc.read).xml(str(out / "people.xml.gz")))


def test_partitioned_read(utc, expected, out):
    for part, doc in (("a", GOOD), ("b", DOCUMENTS["row_value"])):
        (out / f"p={part}").mkdir()
        (out / f"p={part}" / "data.xml").write_text(doc)
    df = rows(utc.read).xml(str(out))
    expected.check(df)
    expected.check(df.where("p = 'b'").select("_id", "p"))


# --- spark.read.xml(df) ---------------------------------------------------------------------

STRINGS = ["<r><a>1</a></r>", "<r><a>2</a><b>x</b></r>", '<other id="3"><a>4</a></other>']

PARSES = {
    "inferred": lambda s, df: s.read.xml(df),
    "row_tag_ignored": lambda s, df: s.read.option("rowTag", "zz").xml(df),
    "schema": lambda s, df: s.read.schema("a INT, b STRING").xml(df),
    "malformed": lambda s, df: s.read.schema("a INT").xml(df.union(s.createDataFrame([("<r><a>x</a></r>",), ("bad",)], "v string"))),
    "malformed_inferred": lambda s, df: s.read.xml(df.union(s.createDataFrame([("bad",)], "v string"))),
}


@pytest.mark.parametrize("case", cases(PARSES))
def test_parse_strings(utc, expected, case):
    df = utc.createDataFrame([(v,) for v in STRINGS], "v string")
    expected.check(PARSES[case](utc, df), name=case)


# --- files written by Spark, read by Ember (and the reverse) ----------------------------------

SPARK_READS = {
    "inferred": lambda r: r.option("rowTag", "row").xml(str(SPARK_FILES / "xml")),
    "schema": lambda r: r.option("rowTag", "row").schema(SCHEMA).xml(str(SPARK_FILES / "xml")),
    "gzip": lambda r: r.option("rowTag", "row").xml(str(SPARK_FILES / "xml-gzip")),
    "partitioned": lambda r: r.option("rowTag", "row").xml(str(SPARK_FILES / "xml-partitioned")),
    "nested": lambda r: r.option("rowTag", "item").xml(str(SPARK_FILES / "xml-nested")),
    "nested_schema": lambda r: r.option("rowTag", "item")
    .schema("_id INT, arr ARRAY<INT>, m MAP<STRING, INT>, s STRUCT<x: INT, y: STRING>, t TINYINT, f FLOAT")
    .xml(str(SPARK_FILES / "xml-nested")),
}


@pytest.mark.parametrize("case", cases(SPARK_READS))
def test_read_spark_files(utc, expected, case):
    expected.check(SPARK_READS[case](utc.read), name=case)


EMBER_READS = {
    "inferred": lambda r: r.option("rowTag", "row").xml(str(EMBER_FILES / "xml")),
    "gzip": lambda r: r.option("rowTag", "row").xml(str(EMBER_FILES / "xml-gzip")),
    "partitioned": lambda r: r.option("rowTag", "row").xml(str(EMBER_FILES / "xml-partitioned")),
    "nested": lambda r: r.option("rowTag", "item").xml(str(EMBER_FILES / "xml-nested")),
}


@pytest.mark.parametrize("case", cases(EMBER_READS))
def test_read_ember_files(utc, expected, case):
    """Files Ember wrote read as real Spark read them (when recording)."""
    expected.check(EMBER_READS[case](utc.read), name=case)


def test_spark_and_ember_files_have_the_same_text():
    for name in ("xml", "xml-nested"):
        spark_text = [(SPARK_FILES / name / f).read_text() for f in data_files(SPARK_FILES / name)]
        ember_text = [(EMBER_FILES / name / f).read_text() for f in data_files(EMBER_FILES / name)]
        assert spark_text == ember_text, name


# --- writing --------------------------------------------------------------------------------


def frame(spark):
    return spark.createDataFrame(ROWS, SCHEMA).coalesce(1)


NESTED_SQL = """select 1 as id, named_struct('city', 'NL', 'zip', 12) as addr, array(1, 2) as arr,
    map('k', 'v') as m, array(named_struct('a', 1), named_struct('a', 2)) as sa,
    array(array(1, 2), array(3)) as aa, named_struct('_k', 'x<"&>', 'b', 1) as attrs,
    named_struct('p', cast(null as int)) as empty, X'0102' as bin, '' as blank
    union all select 2, null, array(), null, null, null, null, null, null, null"""

WRITES = {
    "plain": lambda s: frame(s).write.option("rowTag", "row"),
    "root_tag": lambda s: frame(s).write.option("rowTag", "r").option("rootTag", "top"),
    "null_value": lambda s: frame(s).write.option("rowTag", "r").option("nullValue", "NULL"),
    "formats": lambda s: frame(s).write.option("rowTag", "r").option("timestampFormat", "yyyy/MM/dd HH:mm").option("dateFormat", "dd.MM.yyyy"),
    "no_declaration": lambda s: frame(s).write.option("rowTag", "r").option("declaration", ""),
    "attributes": lambda s: s.sql("select 1 as _id, 'v' as _VALUE, 'q' as name union all select 2, 'w', null")
    .coalesce(1)
    .write.option("rowTag", "r"),
    "attribute_prefix": lambda s: s.sql("select 1 as `@id`, 'v' as V").coalesce(1).write.option("rowTag", "r").option("attributePrefix", "@").option("valueTag", "V"),
    "nested": lambda s: s.sql(NESTED_SQL).coalesce(1).write.option("rowTag", "r"),
    "nested_null_value": lambda s: s.sql(NESTED_SQL).coalesce(1).write.option("rowTag", "r").option("nullValue", "N"),
}


@pytest.mark.parametrize("case", cases(WRITES))
def test_write_text(utc, expected, out, case):
    WRITES[case](utc).xml(str(out / "w"))
    files = data_files(out / "w")
    expected.check_value([(out / "w" / f).read_text() for f in files], name=case)


def test_write_read_back(utc, expected, out):
    frame(utc).write.option("rowTag", "row").xml(str(out / "w"))
    expected.check(utc.read.option("rowTag", "row").xml(str(out / "w")))
    expected.check(utc.read.option("rowTag", "row").schema(SCHEMA).xml(str(out / "w")))
    utc.sql(NESTED_SQL).coalesce(1).write.option("rowTag", "r").xml(str(out / "n"))
    expected.check(utc.read.option("rowTag", "r").xml(str(out / "n")))


def test_write_compressed(utc, expected, out):
    frame(utc).write.option("rowTag", "row").option("compression", "gzip").xml(str(out / "w"))
    expected.check_value(suffixes(out / "w"))
    (f,) = data_files(out / "w")
    expected.check_value(gzip.open(out / "w" / f, "rt").read())
    expected.check(utc.read.option("rowTag", "row").xml(str(out / "w")))


def test_write_partitioned(utc, expected, out):
    frame(utc).write.option("rowTag", "row").partitionBy("part").xml(str(out / "w"))
    expected.check_value([f.rsplit("/", 1)[0] for f in data_files(out / "w")])
    expected.check(utc.read.option("rowTag", "row").xml(str(out / "w")))


def test_write_modes_and_files(utc, expected, out):
    utc.range(4).repartition(2).write.option("rowTag", "r").xml(str(out / "w"))
    expected.check_value(suffixes(out / "w"))
    utc.range(2).coalesce(1).write.mode("append").option("rowTag", "r").xml(str(out / "w"))
    expected.check(utc.read.option("rowTag", "r").xml(str(out / "w")))
    utc.range(1).coalesce(1).write.mode("overwrite").option("rowTag", "r").xml(str(out / "w"))
    expected.check(utc.read.option("rowTag", "r").xml(str(out / "w")))
