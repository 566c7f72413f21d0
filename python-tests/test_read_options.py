"""Options of `spark.read` beyond the basics of test_files.py: CSV schema inference and parse
modes, text options, answers recorded from real Spark reading the same files
(`data/read-options/`)."""

from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parent / "data" / "read-options"


def path(name):
    return str(DATA / name)


CSV_INFERENCE = {
    # int, bigint, decimal(20,0), double, date, timestamps (ISO with and without zones),
    # boolean, mixes that become strings, all-NULL columns, signs.
    "types": lambda r: r.csv(path("infer.csv"), header=True, inferSchema=True),
    # With a custom timestampFormat, dates and timestamps no longer mix.
    "formats": lambda r: r.csv(
        path("infer.csv"), header=True, inferSchema=True, dateFormat="yyyy-MM-dd", timestampFormat="yyyy-MM-dd HH:mm:ss"
    ),
    # Types widen across files.
    "files": lambda r: r.csv(path("multi"), header=True, inferSchema=True),
    "headerless": lambda r: r.csv(path("multi"), inferSchema=True),
    "sampling_all": lambda r: r.csv(path("infer.csv"), header=True, inferSchema=True, samplingRatio=1.0),
    "without": lambda r: r.csv(path("infer.csv"), header=True),
}


@pytest.mark.parametrize("case", sorted(CSV_INFERENCE))
def test_csv_inference(utc, expected, case):
    expected.check(CSV_INFERENCE[case](utc.read), name=case)


CSV_MODES = {
    # A value that does not fit its type is NULL; short rows get NULLs.
    "permissive": lambda r: r.schema("id INT, v INT, d DATE").option("header", True).csv(path("malformed.csv")),
    "permissive_explicit": lambda r: r.schema("id INT, v INT, d DATE")
    .option("header", True)
    .option("mode", "PERMISSIVE")
    .csv(path("malformed.csv")),
    "permissive_inferred": lambda r: r.option("header", True).option("inferSchema", True).csv(path("malformed.csv")),
    "dropmalformed": lambda r: r.schema("id INT, v INT, d DATE")
    .option("header", True)
    .option("mode", "DROPMALFORMED")
    .csv(path("dropmalformed.csv")),
    "null_value": lambda r: r.schema("id INT, v INT, d DATE").option("header", True).option("nullValue", "x").csv(path("malformed.csv")),
    "null_value_strings": lambda r: r.option("header", True).option("nullValue", "x").csv(path("nulls.csv")),
}


@pytest.mark.parametrize("case", sorted(CSV_MODES))
def test_csv_modes(utc, expected, case):
    expected.check(CSV_MODES[case](utc.read), name=case)


def quoting(reader, **options):
    return reader.csv(path("quoting.csv"), header=True, **options)


CSV_QUOTING = {
    # An unquoted empty value is NULL; a quoted one (`""`) is emptyValue, NULL when that is
    # nullValue (both default to the empty string); a value equal to nullValue is NULL, quoted
    # or not. A longer record loses its extra values, a shorter one gets NULLs.
    "default": lambda r: quoting(r),
    "null_value": lambda r: quoting(r, nullValue="x"),
    "empty_value": lambda r: quoting(r, emptyValue="E"),
    "empty_value_is_null_value": lambda r: quoting(r, emptyValue="E", nullValue="E"),
    "both": lambda r: quoting(r, emptyValue="E", nullValue="x"),
    # DROPMALFORMED skips records of the wrong length when every column is read, not when
    # some are (Spark reads only the columns it needs).
    "dropmalformed": lambda r: quoting(r, mode="DROPMALFORMED"),
    "dropmalformed_one_column": lambda r: quoting(r, mode="DROPMALFORMED").select("a"),
    "dropmalformed_count": lambda r: quoting(r, mode="DROPMALFORMED").groupBy().count(),
    "schema_typed": lambda r: r.schema("a INT, b STRING, c STRING").csv(path("quoting.csv"), header=True),
    "schema_typed_dropmalformed": lambda r: r.schema("a INT, b STRING, c STRING").csv(
        path("quoting.csv"), header=True, mode="DROPMALFORMED"
    ),
    "schema_shorter_dropmalformed": lambda r: r.schema("a INT, b STRING").csv(
        path("quoting.csv"), header=True, mode="DROPMALFORMED"
    ),
    "schema_longer": lambda r: r.schema("a INT, b STRING, c STRING, d STRING, e STRING").csv(
        path("quoting.csv"), header=True
    ),
    "inferred": lambda r: quoting(r, inferSchema=True),
    "headerless": lambda r: r.csv(path("quoting.csv")),
    # Empty header names are `_c<i>`, duplicates (ignoring case) numbered by position.
    "header_names": lambda r: r.csv(path("header.csv"), header=True),
}


@pytest.mark.parametrize("case", sorted(CSV_QUOTING))
def test_csv_quoting(utc, expected, case):
    expected.check(CSV_QUOTING[case](utc.read), name=case)


def test_csv_failfast_record_length(utc, expected):
    expected.check_error(lambda: quoting(utc.read, mode="FAILFAST").collect(), name="long_record")


CSV_SYNTAX = {
    "sep": lambda r: r.csv(path("semicolon.csv"), header=True, sep=";"),
    "delimiter": lambda r: r.option("delimiter", ";").csv(path("semicolon.csv"), header=True),
    "tab": lambda r: r.csv(path("tabs.csv"), header=True, sep="\\t"),
    "quote_escape": lambda r: r.csv(path("single-quote.csv"), header=True, quote="'", escape="\\"),
    "comment": lambda r: r.csv(path("comments.csv"), header=True, comment="#"),
    "line_sep": lambda r: r.csv(path("line-sep.csv"), header=True, lineSep=";"),
    "multiline": lambda r: r.csv(path("multiline.csv"), header=True, multiLine=True),
    # Empty lines and (line by line) lines of white space are skipped; a quoted one is a value.
    "blank_lines": lambda r: r.csv(path("blank-lines.csv"), header=True),
    "blank_lines_multiline": lambda r: r.csv(path("blank-lines.csv"), header=True, multiLine=True),
    "multiline_count": lambda r: r.csv(path("multiline.csv"), header=True, multiLine=True).groupBy().count(),
}


@pytest.mark.parametrize("case", sorted(CSV_SYNTAX))
def test_csv_syntax(utc, expected, case):
    expected.check(CSV_SYNTAX[case](utc.read), name=case)


ZONED = {
    # Offsets in timestampFormat (`X`: `Z` or +hh, +hhmm, +hh:mm) make the values instants.
    "csv": lambda r: r.schema("id INT, ts TIMESTAMP").csv(
        path("zoned.csv"), header=True, timestampFormat="yyyy-MM-dd'T'HH:mm:ss.SSSXXX"
    ),
    "csv_x": lambda r: r.schema("id INT, ts TIMESTAMP").csv(
        path("zoned.csv"), header=True, timestampFormat="yyyy-MM-dd'T'HH:mm:ss.SSSX"
    ),
    "json": lambda r: r.schema("id INT, ts TIMESTAMP").json(path("zoned.json"), timestampFormat="yyyy-MM-dd HH:mm:ssX"),
}


@pytest.mark.parametrize("case", sorted(ZONED))
def test_zoned_timestamp_formats(spark, expected, case):
    # Shown in a zone other than UTC, so that instants and wall-clock times differ.
    zone = spark.conf.get("spark.sql.session.timeZone")
    spark.conf.set("spark.sql.session.timeZone", "America/Los_Angeles")
    try:
        df = ZONED[case](spark.read).selectExpr("id", "CAST(ts AS STRING) AS ts")
        expected.check(df, name=case)
    finally:
        spark.conf.set("spark.sql.session.timeZone", zone)


CSV_ENCODINGS = {
    "latin1": lambda r: r.csv(path("latin1.csv"), header=True, encoding="ISO-8859-1"),
    # Bytes that are not UTF-8 read as U+FFFD.
    "latin1_as_utf8": lambda r: r.csv(path("latin1.csv"), header=True),
    "ascii": lambda r: r.csv(path("latin1.csv"), header=True, encoding="us-ascii"),
    # A byte order mark picks the order (Spark splits UTF-16 lines wrongly without multiLine).
    "utf16": lambda r: r.csv(path("utf16.csv"), header=True, encoding="UTF-16", multiLine=True),
    "utf16le": lambda r: r.csv(path("utf16.csv"), header=True, encoding="UTF-16LE", multiLine=True),
}


@pytest.mark.parametrize("case", sorted(CSV_ENCODINGS))
def test_csv_encoding(utc, expected, case):
    expected.check(CSV_ENCODINGS[case](utc.read), name=case)


def test_csv_unknown_encoding(utc, expected):
    # Spark takes only the names on its list (not `latin1` or `UTF8`).
    for name in ["latin1", "UTF8"]:
        expected.check_error(lambda: utc.read.csv(path("latin1.csv"), encoding=name).collect(), name=name)


def test_csv_failfast(utc, expected):
    reader = utc.read.schema("id INT, v INT, d DATE").option("header", True).option("mode", "FAILFAST")
    expected.check_error(lambda: reader.csv(path("malformed.csv")).collect(), name="short_row")
    expected.check_error(lambda: reader.csv(path("dropmalformed.csv")).collect(), name="bad_value")
    expected.check_error(
        lambda: utc.read.option("mode", "SOMETIMES").csv(path("malformed.csv")).collect(), name="bad_mode"
    )


TEXT = {
    "lines": lambda r: r.text(path("lines.txt")),
    "wholetext": lambda r: r.text(path("lines.txt"), wholetext=True),
    "line_sep": lambda r: r.text(path("semi.txt"), lineSep=";"),
    "partitioned": lambda r: r.text(path("parts")),
    "partitioned_wholetext": lambda r: r.text(path("parts"), wholetext=True),
    "partition_filter": lambda r: r.text(path("parts")).where("k = 1"),
    "several": lambda r: r.text([path("lines.txt"), path("semi.txt")]),
}


@pytest.mark.parametrize("case", sorted(TEXT))
def test_text(utc, expected, case):
    expected.check(TEXT[case](utc.read), name=case)


def test_json_formats_while_inferring(utc, expected):
    # Spark's JSON inference keeps strings as strings whatever the formats say.
    expected.check(
        utc.read.json(path("typed.json"), dateFormat="yyyy-MM-dd", timestampFormat="yyyy-MM-dd HH:mm"), name="formats"
    )


def write_avro(path):
    """An Avro file as other tools write them (the reference Spark has no Avro module)."""
    import datetime

    from fastavro import parse_schema, writer

    schema = parse_schema(
        {
            "type": "record",
            "name": "r",
            "fields": [
                {"name": "id", "type": "long"},
                {"name": "i", "type": ["null", "int"]},
                {"name": "s", "type": ["null", "string"]},
                {"name": "d", "type": "double"},
                {"name": "b", "type": "boolean"},
                {"name": "day", "type": {"type": "int", "logicalType": "date"}},
                {"name": "ts", "type": {"type": "long", "logicalType": "timestamp-micros"}},
                {"name": "tags", "type": {"type": "array", "items": "string"}},
            ],
        }
    )
    utc = datetime.timezone.utc
    rows = [
        {"id": 1, "i": 5, "s": "a", "d": 1.5, "b": True, "day": datetime.date(2020, 1, 2),
         "ts": datetime.datetime(2020, 1, 2, 3, 4, 5, tzinfo=utc), "tags": ["x", "y"]},
        {"id": 2, "i": None, "s": None, "d": -2.0, "b": False, "day": datetime.date(1999, 12, 31),
         "ts": datetime.datetime(1999, 12, 31, 23, 59, 59, tzinfo=utc), "tags": []},
    ]
    with open(path, "wb") as f:
        writer(f, schema, rows, codec="deflate")


JSON_WHOLE_FILES = {
    # Files Ember parses itself (multiLine here) list, partition and filter like the others.
    "partitioned": lambda r: r.json(path("json-parts"), multiLine=True),
    "partition_filter": lambda r: r.json(path("json-parts"), multiLine=True).where("k = 2"),
    "glob": lambda r: r.json(path("json-parts/k=*/*.json"), multiLine=True),
    "date_format": lambda r: r.schema("id INT, d DATE").json(
        path("json-parts/k=1"), multiLine=True, dateFormat="dd/MM/yyyy"
    ),
    "comments_partitioned": lambda r: r.json(path("json-parts"), multiLine=True, allowComments=True),
    "count": lambda r: r.json(path("json-parts/k=1"), multiLine=True).groupBy().count(),
}


GLOBS = {
    # Globs across directories; the matches are read as if named, so no partition columns.
    "text": lambda r: r.text(path("parts/*/*.txt")),
    "text_partition_glob": lambda r: r.text(path("parts/k=*/*")),
    "csv_of_json_files": lambda r: r.csv(path("json-parts/k=*/*.json")),
    "json_lines_malformed": lambda r: r.json(path("json-parts/k=*/*.json")),
    "csv": lambda r: r.csv(path("mult?/*.csv"), header=True),
}


@pytest.mark.parametrize("case", sorted(GLOBS))
def test_globs(utc, expected, case):
    expected.check(GLOBS[case](utc.read), name=case)


def test_glob_without_matches(utc, expected):
    expected.check_error(lambda: utc.read.text(path("parts/*/*.nothing")).collect(), name="text")


@pytest.mark.parametrize("case", sorted(JSON_WHOLE_FILES))
def test_json_whole_files(utc, expected, case):
    expected.check(JSON_WHOLE_FILES[case](utc.read), name=case)


JSON_OPTIONS = {
    # Numbers and booleans as strings of their literal text, nested ones too; all-NULL as string.
    "primitives": lambda r: r.json(path("primitives.json"), primitivesAsString=True),
    "primitives_schema": lambda r: r.schema("a INT, b STRING").json(path("primitives.json"), primitivesAsString=True),
    # Comments outside strings are skipped; a line holding only a comment is no row.
    "comments": lambda r: r.json(path("comments.json"), allowComments=True),
    "comments_multiline": lambda r: r.json(path("comments-multiline.json"), allowComments=True, multiLine=True),
    "comments_primitives": lambda r: r.json(
        path("comments-multiline.json"), allowComments=True, multiLine=True, primitivesAsString=True
    ),
}


@pytest.mark.parametrize("case", sorted(JSON_OPTIONS))
def test_json_options(utc, expected, case):
    expected.check(JSON_OPTIONS[case](utc.read), name=case)


JSON_MODES = {
    # Malformed lines (not JSON, not an object, values that do not fit) are kept: NULL
    # columns (those that fit keep their value) and the line in `_corrupt_record`.
    "permissive_inferred": lambda r: r.json(path("malformed.json")),
    "permissive_schema": lambda r: r.schema("a INT, b STRING, _corrupt_record STRING").json(path("malformed.json")),
    "permissive_schema_without_column": lambda r: r.schema("a INT, b STRING").json(path("malformed.json")),
    "corrupt_column_named": lambda r: r.option("columnNameOfCorruptRecord", "bad").json(path("malformed.json")),
    "dropmalformed": lambda r: r.schema("a INT, b STRING").option("mode", "DROPMALFORMED").json(path("malformed.json")),
    "dropmalformed_inferred": lambda r: r.option("mode", "DROPMALFORMED").json(path("malformed.json")),
}


@pytest.mark.parametrize("case", sorted(JSON_MODES))
def test_json_modes(utc, expected, case):
    expected.check(JSON_MODES[case](utc.read), name=case)


def test_json_failfast(utc, expected):
    expected.check_error(lambda: utc.read.option("mode", "FAILFAST").json(path("malformed.json")).collect(), name="failfast")
    # With a schema there is no inference: the scan fails reading the file.
    reader = utc.read.schema("a INT, b STRING").option("mode", "FAILFAST")
    expected.check_error(lambda: reader.json(path("malformed.json")).collect(), name="failfast_schema")
    expected.check_error(lambda: reader.json(path("malformed.json")).groupBy().count().collect(), name="failfast_count")


JSON_COUNTS = {
    # Counting parses the records: DROPMALFORMED leaves the malformed ones out.
    "permissive": lambda r: r.schema("a INT, b STRING").json(path("malformed.json")).groupBy().count(),
    "dropmalformed": lambda r: r.schema("a INT, b STRING").json(path("malformed.json"), mode="DROPMALFORMED").groupBy().count(),
}


@pytest.mark.parametrize("case", sorted(JSON_COUNTS))
def test_json_counts(utc, expected, case):
    expected.check(JSON_COUNTS[case](utc.read), name=case)


def avro_records(directory):
    """Every record of the Avro files under a directory, with the files' schemas and codecs."""
    from fastavro import reader

    records, schemas, codecs = [], [], set()
    for f in sorted(Path(directory).rglob("part-*.avro")):
        with open(f, "rb") as fo:
            r = reader(fo)
            schemas.append(r.writer_schema)
            codecs.add(r.metadata.get("avro.codec", "null"))
            records.extend(r)
    return records, schemas, codecs


def test_avro(utc, tmp_path):
    """Avro through arrow-avro, with Spark's Avro types (spark-avro maps them the same way)."""
    import datetime

    from conftest import RECORD

    if RECORD:
        pytest.skip("the reference Spark has no Avro module")
    (tmp_path / "avro").mkdir()
    write_avro(tmp_path / "avro" / "part-0.avro")
    df = utc.read.format("avro").load(str(tmp_path / "avro"))
    assert df.dtypes == [
        ("id", "bigint"), ("i", "int"), ("s", "string"), ("d", "double"), ("b", "boolean"),
        ("day", "date"), ("ts", "timestamp"), ("tags", "array<string>"),
    ]
    rows = [tuple(r) for r in df.orderBy("id").collect()]
    assert rows == [
        (1, 5, "a", 1.5, True, datetime.date(2020, 1, 2), datetime.datetime(2020, 1, 2, 3, 4, 5), ["x", "y"]),
        (2, None, None, -2.0, False, datetime.date(1999, 12, 31), datetime.datetime(1999, 12, 31, 23, 59, 59), []),
    ]
    assert df.where("b").select("s").collect()[0].s == "a"
    # Written back by Ember (snappy, Spark's default) and read by Ember and by fastavro.
    df.write.format("avro").save(str(tmp_path / "out"))
    assert [tuple(r) for r in utc.read.format("avro").load(str(tmp_path / "out")).orderBy("id").collect()] == rows


def test_avro_files_ember_wrote(utc, tmp_path):
    """Ember's Avro files (`data/written-by-ember/avro*`, make_fixtures.py) as another Avro
    reader sees them: Spark's record name, nullable unions, logical types for decimals, dates and
    timestamps (instants in UTC), snappy blocks."""
    import datetime
    import decimal

    from conftest import RECORD

    if RECORD:
        pytest.skip("the reference Spark has no Avro module")
    written = Path(__file__).resolve().parent / "data" / "written-by-ember"
    records, schemas, codecs = avro_records(written / "avro")
    assert codecs == {"snappy"}
    assert schemas[0]["name"] == "topLevelRecord"
    types = {f["name"]: f["type"] for f in schemas[0]["fields"]}
    assert types["id"] == ["null", "int"]
    assert types["price"][1] == {"logicalType": "decimal", "precision": 10, "scale": 2, "type": "bytes"}
    assert types["d"][1] == {"logicalType": "date", "type": "int"}
    assert types["ts"][1] == {"logicalType": "timestamp-micros", "type": "long"}
    utc_ = datetime.timezone.utc
    assert sorted(records, key=lambda r: r["id"])[0] == {
        "id": 1, "name": "plain", "price": decimal.Decimal("1.50"), "d": datetime.date(2020, 1, 2),
        "ts": datetime.datetime(2020, 1, 2, 3, 4, 5, 500000, tzinfo=utc_), "flag": True, "x": 1.25, "part": "a",
    }
    assert len(records) == 4
    # Partition directories keep the partition column out of the files.
    records, schemas, _ = avro_records(written / "avro-partitioned")
    assert len(records) == 4 and all("part" not in r for r in records)
    back = utc.read.format("avro").load(str(written / "avro-partitioned"))
    assert back.columns == ["id", "name", "price", "d", "ts", "flag", "x", "part"]
    assert sorted((r.id, r.part) for r in back.collect()) == [(1, "a"), (2, "b"), (3, "b"), (4, "c/d")]
    # Every codec Spark offers for Avro.
    df = utc.range(3)
    for codec in ["uncompressed", "deflate", "snappy", "bzip2", "xz", "zstandard"]:
        df.write.format("avro").option("compression", codec).save(str(tmp_path / codec))
        records, _, codecs = avro_records(tmp_path / codec)
        assert sorted(r["id"] for r in records) == [0, 1, 2]
        assert codecs == {"null" if codec == "uncompressed" else codec}


PARSE = {
    "csv_header_infer": lambda s, d: s.read.csv(d, header=True, inferSchema=True),
    "csv_strings": lambda s, d: s.read.csv(d),
    "csv_schema": lambda s, d: s.read.schema("x INT, y STRING").csv(d),
    "json_inferred": lambda s, d: s.read.json(d.selectExpr("'{\"a\": ' || value || '}' AS value")),
    "json_malformed": lambda s, d: s.read.json(d),
    "json_schema": lambda s, d: s.read.schema("a INT").json(s.createDataFrame([('{"a": 1}',), ("bad",)], "value STRING")),
}


@pytest.mark.parametrize("case", sorted(PARSE))
def test_parse_dataframe_of_strings(spark, expected, case):
    """`spark.read.csv/json` of a DataFrame of strings (Spark Connect's Parse)."""
    strings = spark.createDataFrame([("a,b",), ("1,x",), ("2,",)], "value STRING")
    expected.check(PARSE[case](spark, strings), name=case)


def test_parquet_string_views(utc, tmp_path):
    """Parquet files whose embedded Arrow schema says `string_view`/`binary_view` (arrow-rs and
    pyarrow writers, tpchgen-cli): read as Spark's STRING and BINARY at any depth, the strings
    decoded once as plain strings (formats/parquet_strings.rs), in every mode."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from conftest import RECORD

    if RECORD:
        pytest.skip("pyarrow's files, checked by value")
    (tmp_path / "views").mkdir()
    long = "a string longer than twelve bytes"
    table = pa.table({
        "id": pa.array([1, 2, 3], pa.int64()),
        "s": pa.array(["x", long, None], pa.string_view()),
        "tags": pa.array([["p", long], [], None], pa.list_(pa.string_view())),
        "st": pa.array([{"b": b"\x01\x02", "t": "in"}, None, {"b": None, "t": long}],
                       pa.struct([("b", pa.binary_view()), ("t", pa.string_view())])),
    })
    for part in (0, 1):
        try:
            pq.write_table(table, str(tmp_path / "views" / f"part-{part}.parquet"))
        except pa.ArrowNotImplementedError:
            pytest.skip(f"pyarrow {pa.__version__} cannot write string_view to parquet")
    assert pq.read_schema(str(tmp_path / "views" / "part-0.parquet")).field("s").type == pa.string_view()
    df = utc.read.parquet(str(tmp_path / "views"))
    assert df.dtypes == [("id", "bigint"), ("s", "string"), ("tags", "array<string>"),
                         ("st", "struct<b:binary,t:string>")]
    rows = sorted((tuple(r) for r in df.collect()), key=lambda r: r[0])
    expected_rows = [
        (1, "x", ["p", long], (bytearray(b"\x01\x02"), "in")),
        (2, long, [], None),
        (3, None, None, (None, long)),
    ]
    assert rows == [r for r in expected_rows for _ in (0, 1)]
    grouped = df.where("s like 'a string%' or s = 'x'").groupBy("s").count().orderBy("s").collect()
    assert [tuple(r) for r in grouped] == [(long, 2), ("x", 2)]
    assert df.selectExpr("max(length(st.t))").first()[0] == len(long)
