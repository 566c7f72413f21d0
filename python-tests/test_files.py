"""`spark.read` and `df.write`: file formats, options, partitioned directories, save modes and
the files' contents, compared with what real Spark reads and writes (recorded under
``expected/``). ``data/written-by-spark/`` holds files real Spark wrote
(``data/make_fixtures.py``); ``data/written-by-ember/`` holds files Ember wrote, which real Spark
read when the answers were recorded."""

import datetime
import decimal
import json
import os
import time
from pathlib import Path

import pytest

from conftest import RECORD

DATA = Path(__file__).resolve().parent / "data"
SPARK_FILES = DATA / "written-by-spark"
EMBER_FILES = DATA / "written-by-ember"
SCHEMA = "id INT, name STRING, price DECIMAL(10,2), d DATE, ts TIMESTAMP, flag BOOLEAN, x DOUBLE, part STRING"
ROWS = [
    (1, "plain", decimal.Decimal("1.50"), datetime.date(2020, 1, 2), datetime.datetime(2020, 1, 2, 3, 4, 5, 500000), True, 1.25, "a"),
    (2, None, None, None, None, None, None, "b"),
    (3, "x", decimal.Decimal("-3.00"), datetime.date(1999, 12, 31), datetime.datetime(1999, 12, 31, 23, 59, 59), False, -0.5, "b"),
    (4, 'with "quote", comma', decimal.Decimal("12345678.99"), datetime.date(2024, 2, 29), datetime.datetime(2024, 2, 29, 12, 0, 0), True, 1e10, "c/d"),
]


def frame(spark):
    return spark.createDataFrame(ROWS, SCHEMA)


def data_files(path: Path):
    """The visible data files under a directory, relative, sorted (names minus their ids)."""
    found = []
    for root, dirs, files in os.walk(path):
        dirs[:] = [d for d in dirs if not d.startswith((".", "_"))]
        for f in files:
            if not f.startswith((".", "_")):
                found.append(os.path.relpath(os.path.join(root, f), path))
    return sorted(found)


def suffixes(path: Path):
    """Data file name endings after the part number and unique id, e.g. `.c000.snappy.parquet`."""
    return sorted("." + f.rsplit("/", 1)[-1].split(".", 1)[1] for f in data_files(path))


def text_of(path: Path):
    """The lines of every data file under a single-file output."""
    files = data_files(path)
    assert len(files) == 1, files
    return (path / files[0]).read_text().splitlines()


# --- reading files Spark wrote --------------------------------------------------------------

READS = {
    "parquet": lambda r: r.parquet(str(SPARK_FILES / "parquet")),
    "json": lambda r: r.json(str(SPARK_FILES / "json")),
    "json_schema": lambda r: r.schema(SCHEMA).json(str(SPARK_FILES / "json")),
    "csv_strings": lambda r: r.option("header", True).csv(str(SPARK_FILES / "csv")),
    "csv_schema": lambda r: r.schema(SCHEMA).option("header", True).csv(str(SPARK_FILES / "csv")),
    "csv_gzip": lambda r: r.schema(SCHEMA).option("header", True).csv(str(SPARK_FILES / "csv-gzip")),
    "csv_no_header": lambda r: r.csv(str(SPARK_FILES / "csv")),
    "format_load": lambda r: r.format("parquet").load(str(SPARK_FILES / "parquet")),
    "file_path": lambda r: r.parquet(str(next((SPARK_FILES / "parquet").glob("part-*")))),
    "glob": lambda r: r.parquet(str(SPARK_FILES / "parquet" / "*.parquet")),
    "path_list": lambda r: r.json([str(SPARK_FILES / "json"), str(SPARK_FILES / "parquet" / "_SUCCESS")]),
    "partitioned": lambda r: r.parquet(str(SPARK_FILES / "partitioned")),
    "partitioned_filter": lambda r: r.parquet(str(SPARK_FILES / "partitioned")).filter("part = 'b'"),
    "partitioned_null": lambda r: r.parquet(str(SPARK_FILES / "partitioned")).filter("flag IS NULL"),
    "partition_dir": lambda r: r.parquet(str(SPARK_FILES / "partitioned" / "part=b")),
    "text": lambda r: r.text(str(SPARK_FILES / "text")),
    "text_count": lambda r: r.text(str(SPARK_FILES / "text")).selectExpr("count(*) AS n"),
    "text_file": lambda r: r.format("text").load(str(next((SPARK_FILES / "text").glob("part-*")))),
    "orc": lambda r: r.orc(str(SPARK_FILES / "orc")),
    "orc_nested": lambda r: r.orc(str(SPARK_FILES / "orc-nested")),
    "orc_partitioned": lambda r: r.orc(str(SPARK_FILES / "orc-partitioned")),
    "orc_partitioned_filter": lambda r: r.orc(str(SPARK_FILES / "orc-partitioned")).filter("part = 'b'").select("id", "flag"),
    # Columns the files lack are NULL; others take the schema's types.
    "orc_schema": lambda r: r.schema("id BIGINT, missing STRING, ts TIMESTAMP").orc(str(SPARK_FILES / "orc")),
    "orc_merge": lambda r: r.option("mergeSchema", True).orc([str(SPARK_FILES / "orc"), str(SPARK_FILES / "orc-nested")]),
    "orc_count": lambda r: r.orc(str(SPARK_FILES / "orc-partitioned")).selectExpr("count(*) AS n"),
}


# `SELECT ... FROM format.`path``: SQL on files, read with the format's defaults.
SQL_ON_FILES = {
    "parquet": f"SELECT * FROM parquet.`{SPARK_FILES / 'parquet'}`",
    "partitioned": f"SELECT t.id, t.part, flag FROM PARQUET.`{SPARK_FILES / 'partitioned'}` t WHERE part = 'b'",
    "csv": f"SELECT * FROM csv.`{SPARK_FILES / 'csv'}`",
    "json_count": f"SELECT count(*) n FROM json.`{SPARK_FILES / 'json'}`",
    "orc_join": f"SELECT a.id, b.name FROM orc.`{SPARK_FILES / 'orc'}` a JOIN parquet.`{SPARK_FILES / 'parquet'}` b ON a.id = b.id",
    "text": f"SELECT value FROM text.`{SPARK_FILES / 'text'}`",
}


@pytest.mark.parametrize("name", sorted(SQL_ON_FILES))
def test_sql_on_files(utc, expected, name):
    expected.check(utc.sql(SQL_ON_FILES[name]), name=name)


def test_sql_on_files_errors(spark, expected, out):
    expected.check_error(lambda: spark.sql(f"SELECT * FROM parquet.`{out / 'missing'}`").collect(), name="missing")
    expected.check_error(lambda: spark.sql(f"SELECT * FROM nosuchformat.`{out}`").collect(), name="unknown_format")


@pytest.mark.parametrize("name", sorted(READS))
def test_read_files_spark_wrote(utc, expected, name):
    expected.check(READS[name](utc.read), name=name)


def test_missing_path(spark, expected, out):
    expected.check_error(lambda: spark.read.parquet(str(out / "nope")).collect(), name="parquet")
    expected.check_error(lambda: spark.read.json(str(out / "nope.json")).collect(), name="json")


# --- round trips ----------------------------------------------------------------------------

WRITES = {
    "parquet": (lambda w, p: w.parquet(p), lambda r, p: r.parquet(p)),
    "json": (lambda w, p: w.json(p), lambda r, p: r.schema(SCHEMA).json(p)),
    "json_inferred": (lambda w, p: w.json(p), lambda r, p: r.json(p)),
    "csv": (lambda w, p: w.option("header", True).csv(p), lambda r, p: r.schema(SCHEMA).option("header", True).csv(p)),
    "csv_gzip": (
        lambda w, p: w.option("header", True).option("compression", "gzip").csv(p),
        lambda r, p: r.schema(SCHEMA).option("header", True).csv(p),
    ),
    "parquet_zstd": (lambda w, p: w.option("compression", "zstd").parquet(p), lambda r, p: r.parquet(p)),
    "format_save": (lambda w, p: w.format("json").save(p), lambda r, p: r.format("json").schema(SCHEMA).load(p)),
}


@pytest.mark.parametrize("name", sorted(WRITES))
def test_write_and_read_back(utc, expected, out, name):
    write, read = WRITES[name]
    write(frame(utc).repartition(2).write, str(out / "t"))
    expected.check(read(utc.read, str(out / "t")), name=name)


@pytest.mark.parametrize("name", ["parquet", "csv", "json"])
def test_partitioned_write(utc, expected, out, name):
    write, read = WRITES[name]
    write(frame(utc).write.partitionBy("part", "flag"), str(out / "t"))
    dirs = sorted({os.path.dirname(f) for f in data_files(out / "t")})
    expected.check_value(dirs, name=f"{name}_dirs")
    back = utc.read.format(name)
    if name == "csv":
        back = back.option("header", True)
    expected.check(back.load(str(out / "t")), name=f"{name}_read")


def test_partition_values_and_pruning(utc, expected, out):
    """Partition columns get Spark's inferred types; a filter on them never opens the files of
    other partitions (here, a corrupt one)."""
    df = utc.sql(
        "SELECT id, id % 3 AS i, CAST(id * 1.5 AS DOUBLE) AS dbl, DATE'2020-01-01' + CAST(id AS INT) AS dt,"
        " CASE WHEN id = 1 THEN NULL ELSE concat('s ', id, '%/') END AS s FROM range(4)"
    )
    df.write.partitionBy("i", "dbl", "dt", "s").parquet(str(out / "t"))
    expected.check(utc.read.parquet(str(out / "t")), name="types")
    expected.check(utc.read.parquet(str(out / "t")).filter("s IS NULL"), name="null")
    expected.check(utc.read.parquet(str(out / "t")).filter("s = 's 2%/'"), name="escaped")
    victim = [f for f in data_files(out / "t") if f.startswith("i=2/")]
    for f in victim:
        (out / "t" / f).write_bytes(b"not parquet")
    expected.check(utc.read.parquet(str(out / "t")).filter("i = 1"), name="pruned")


# --- save modes, errors ---------------------------------------------------------------------


def test_save_modes(spark, expected, out):
    path = str(out / "t")
    spark.range(3).write.parquet(path)
    expected.check_error(lambda: spark.range(5).write.parquet(path), name="default_errors")
    expected.check_error(lambda: spark.range(5).write.mode("error").parquet(path), name="error")
    spark.range(5).write.mode("ignore").parquet(path)
    expected.check(spark.read.parquet(path), name="ignore")
    spark.range(10, 12).write.mode("append").parquet(path)
    expected.check(spark.read.parquet(path), name="append")
    spark.range(100, 101).write.mode("overwrite").parquet(path)
    expected.check(spark.read.parquet(path), name="overwrite")
    spark.range(7, 8).write.mode("ignore").parquet(str(out / "fresh"))
    expected.check(spark.read.parquet(str(out / "fresh")), name="ignore_new")
    expected.check_error(lambda: spark.range(1).write.mode("sideways").parquet(str(out / "x")), name="bad_mode")


def test_write_errors(spark, expected, out):
    df = spark.createDataFrame([(1, "a")], "id INT, s STRING")
    expected.check_error(lambda: df.write.partitionBy("nope").parquet(str(out / "a")), name="missing_partition")
    expected.check_error(lambda: df.write.partitionBy("id", "s").parquet(str(out / "b")), name="all_partition")
    expected.check_error(lambda: df.write.text(str(out / "c")), name="text_two_columns")
    expected.check_error(lambda: df.select("id").write.text(str(out / "d")), name="text_int")
    expected.check_error(lambda: df.select("id", "id").write.parquet(str(out / "e")), name="duplicate")
    expected.check_error(lambda: df.write.format("nosuch").save(str(out / "f")), name="format")
    expected.check_value(sorted(p.name for p in out.iterdir()), name="nothing_written")


def test_failed_write_keeps_previous_data(spark, expected, out):
    """A query that fails at run time (ANSI division by zero in one task) publishes nothing."""
    path = str(out / "t")
    spark.range(3).write.parquet(path)
    before = data_files(out / "t")
    bad = spark.range(0, 1000, 1, 4).selectExpr("id", "10 / (id - 900) AS x")
    expected.check_error(lambda: bad.write.mode("overwrite").parquet(path), name="overwrite")
    expected.check_error(lambda: bad.write.mode("append").parquet(path), name="append")
    if RECORD:
        return  # Spark deletes the old files before an overwrite runs: Ember is atomic instead
    assert data_files(out / "t") == before
    # Other tasks of the failed job stop asynchronously; their staging files go with them.
    deadline = time.time() + 10
    while sorted(p.name for p in out.iterdir()) != ["t"] and time.time() < deadline:
        time.sleep(0.1)
    assert sorted(p.name for p in out.iterdir()) == ["t"], "staging files left behind"
    assert sorted(r.id for r in spark.read.parquet(path).collect()) == [0, 1, 2]


# --- what the files hold --------------------------------------------------------------------


def test_file_counts_follow_partitions(spark, expected, out):
    spark.range(0, 100, 1, 3).write.parquet(str(out / "three"))
    spark.range(0, 100, 1, 3).coalesce(1).write.parquet(str(out / "one"))
    spark.range(0, 100).repartition(4).write.parquet(str(out / "four"))
    spark.range(0).write.parquet(str(out / "empty"))
    counts = {k: len(data_files(out / k)) for k in ["three", "one", "four", "empty"]}
    expected.check_value(counts)
    expected.check(spark.read.parquet(str(out / "empty")), name="empty")
    expected.check_value(sorted(p.name for p in (out / "one").iterdir() if p.name.startswith("_")), name="markers")


def test_file_names(spark, expected, out):
    df = spark.range(2).coalesce(1)
    df.write.parquet(str(out / "p"))
    df.write.option("compression", "gzip").parquet(str(out / "pg"))
    df.write.option("compression", "none").parquet(str(out / "pn"))
    df.write.csv(str(out / "c"))
    df.write.option("compression", "gzip").csv(str(out / "cg"))
    df.write.json(str(out / "j"))
    df.selectExpr("CAST(id AS STRING) AS v").write.text(str(out / "t"))
    df.write.orc(str(out / "o"))
    for codec in ["none", "snappy", "zlib", "lz4", "ZSTD"]:
        df.write.option("compression", codec).orc(str(out / f"o-{codec}"))
    names = ["p", "pg", "pn", "c", "cg", "j", "t", "o"] + [f"o-{c}" for c in ["none", "snappy", "zlib", "lz4", "ZSTD"]]
    expected.check_value({k: suffixes(out / k) for k in names})


def test_csv_write_options(utc, expected, out):
    df = frame(utc).coalesce(1).orderBy("id")
    cases = {
        "default": lambda w: w,
        "header_sep": lambda w: w.option("header", True).option("sep", ";"),
        "null_value": lambda w: w.option("nullValue", "NULL"),
        "formats": lambda w: w.option("dateFormat", "dd/MM/yyyy").option("timestampFormat", "yyyy-MM-dd HH:mm:ss"),
        "quote_all": lambda w: w.option("quoteAll", True),
        "quote_escape": lambda w: w.option("quote", "'").option("escape", "\\"),
        "tab": lambda w: w.option("delimiter", "\t"),
        "empty_value": lambda w: w.option("emptyValue", "EMPTY"),
        "empty_value_blank": lambda w: w.option("emptyValue", ""),
        "empty_and_null": lambda w: w.option("emptyValue", "E").option("nullValue", "N"),
    }
    for name, configure in cases.items():
        configure(df.write).csv(str(out / name))
        expected.check_value(text_of(out / name), name=name)


def test_json_and_text_contents(utc, expected, out):
    df = frame(utc).coalesce(1).orderBy("id")
    df.write.json(str(out / "j"))
    expected.check_value([json.loads(line) for line in text_of(out / "j")], name="json")
    df.write.option("timestampFormat", "yyyy-MM-dd HH:mm").option("dateFormat", "yyyy/MM/dd").json(str(out / "jf"))
    expected.check_value([json.loads(line) for line in text_of(out / "jf")], name="json_formats")
    df.select("name").write.text(str(out / "t"))
    expected.check_value(text_of(out / "t"), name="text")
    # The text itself: doubles as Java spells them, NULL fields left out.
    doubles = utc.createDataFrame(
        [(1, 1e10, 0.1), (2, float("nan"), None), (3, float("-inf"), 1.5e-7), (4, -0.0, 123456789.0)],
        "id INT, a DOUBLE, b DOUBLE",
    )
    doubles.coalesce(1).orderBy("id").write.json(str(out / "jd"))
    expected.check_value(text_of(out / "jd"), name="json_doubles_text")
    # Decimals as BigDecimal.toString (1.00000E-10), a map's NULL values written null.
    utc.sql(
        "SELECT map('k', NULL, 'j', 1.5D) m, CAST(1e-10 AS DECIMAL(20,15)) d, CAST(1.5 AS DECIMAL(5,2)) e, "
        "map('x', named_struct('a', NULL, 'b', 1)) s"
    ).coalesce(1).write.json(str(out / "jm"))
    expected.check_value(text_of(out / "jm"), name="json_decimals_maps_text")


def test_bad_option_values(spark, expected, out):
    df = spark.range(1)
    expected.check_error(lambda: df.write.option("header", "maybe").csv(str(out / "a")), name="header")
    expected.check_error(lambda: df.write.option("compression", "lz77").parquet(str(out / "b")), name="parquet_codec")
    expected.check_error(lambda: df.write.option("compression", "lz77").csv(str(out / "c")), name="csv_codec")


# --- files Ember wrote, as real Spark read them ---------------------------------------------

EMBER_READS = {
    "parquet": lambda r: r.parquet(str(EMBER_FILES / "parquet")),
    "json": lambda r: r.schema(SCHEMA).json(str(EMBER_FILES / "json")),
    "csv": lambda r: r.schema(SCHEMA).option("header", True).csv(str(EMBER_FILES / "csv")),
    "partitioned": lambda r: r.parquet(str(EMBER_FILES / "partitioned")),
    "text": lambda r: r.text(str(EMBER_FILES / "text")),
    "orc": lambda r: r.orc(str(EMBER_FILES / "orc")),
    "orc_partitioned": lambda r: r.orc(str(EMBER_FILES / "orc-partitioned")),
}


@pytest.mark.parametrize("name", sorted(EMBER_READS))
def test_files_ember_wrote(utc, expected, name):
    """The answers were recorded from real Spark reading these files."""
    expected.check(EMBER_READS[name](utc.read), name=name)


def test_text_round_trip(spark, expected, out):
    df = spark.createDataFrame([("a",), ("",), (None,), ("x y, z",)], "v STRING")
    df.coalesce(1).write.text(str(out / "t"))
    expected.check(spark.read.text(str(out / "t")), name="plain")
    df.repartition(2).write.option("compression", "gzip").text(str(out / "g"))
    expected.check(spark.read.text(str(out / "g")), name="gzip")
    (out / "crlf.txt").write_bytes(b"one\r\ntwo\n\nlast")
    expected.check(spark.read.text(str(out / "crlf.txt")), name="crlf")
    expected.check(spark.read.text(str(out / "crlf.txt")).filter("length(value) > 3"), name="filter")


def test_multiline_json(spark, expected, out):
    (out / "array.json").write_text('[\n {"b": 1, "a": "x"},\n {"b": 2, "c": [1, 2]}\n]\n')
    (out / "object.json").write_text('{\n  "a": "y",\n  "b": 3\n}\n')
    expected.check(spark.read.option("multiLine", True).json(str(out / "array.json")), name="array")
    expected.check(spark.read.option("multiLine", True).json(str(out)), name="directory")
    expected.check(spark.read.option("multiLine", "true").schema("a STRING, b INT").json(str(out)), name="schema")


def test_read_datetime_patterns(utc, expected, out):
    (out / "d.csv").write_text("id,d,ts\n1,02/01/2020,2020-01-02 03:04\n2,,\n3,31/12/1999,1999-12-31 23:59\n")
    schema = "id INT, d DATE, ts TIMESTAMP"
    reader = utc.read.schema(schema).option("header", True)
    expected.check(
        reader.option("dateFormat", "dd/MM/yyyy").option("timestampFormat", "yyyy-MM-dd HH:mm").csv(str(out / "d.csv")),
        name="csv",
    )
    (out / "d.json").write_text('{"id": 1, "d": "2020/01/02", "ts": "02.01.2020 03:04:05"}\n{"id": 2}\n')
    expected.check(
        utc.read.schema(schema).option("dateFormat", "yyyy/MM/dd").option("timestampFormat", "dd.MM.yyyy HH:mm:ss").json(str(out / "d.json")),
        name="json",
    )


def test_other_file_systems_say_not_supported(spark, out):
    # Object stores are tested in test_object_store.py.
    if RECORD:
        pytest.skip("Ember's own answer")
    with pytest.raises(Exception, match="not supported: reading or writing hdfs:// paths"):
        spark.read.parquet("hdfs://namenode/data").collect()
    with pytest.raises(Exception, match="not supported: reading or writing gs:// paths"):
        spark.range(1).write.parquet("gs://bucket/data")


def test_csv_string_spelling(spark, expected, out):
    df = spark.createDataFrame(
        [(1, "  a ", ""), (2, None, "x\ny"), (3, 'q"q', "tab\tx"), (4, "a,b", " ")], "id INT, a STRING, b STRING"
    ).coalesce(1)
    df.write.csv(str(out / "default"))
    expected.check_value(text_of(out / "default"), name="default")
    df.write.option("ignoreLeadingWhiteSpace", False).option("ignoreTrailingWhiteSpace", False).option("sep", ";").csv(str(out / "keep"))
    expected.check_value(text_of(out / "keep"), name="keep_spaces")
    expected.check(spark.read.schema("id INT, a STRING, b STRING").option("multiLine", True).csv(str(out / "default")), name="read_back")


def test_dynamic_partition_overwrite(spark, expected, out):
    """`spark.sql.sources.partitionOverwriteMode=dynamic`: an overwrite replaces only the
    partitions it writes, for paths and for INSERT OVERWRITE into a partitioned table."""
    first = spark.createDataFrame([(1, "a", 1), (2, "b", 1), (3, "c", 2), (4, "d", 2)], "id INT, v STRING, k INT")
    first.write.partitionBy("k").parquet(str(out / "t"))
    second = spark.createDataFrame([(5, "e", 2), (6, "f", 3)], "id INT, v STRING, k INT")
    spark.conf.set("spark.sql.sources.partitionOverwriteMode", "dynamic")
    try:
        second.write.mode("overwrite").partitionBy("k").parquet(str(out / "t"))
        expected.check(spark.read.parquet(str(out / "t")), name="path")
        spark.sql("DROP TABLE IF EXISTS dyn_overwrite")
        spark.sql("CREATE TABLE dyn_overwrite (id INT, v STRING, k INT) USING parquet PARTITIONED BY (k)")
        spark.sql("INSERT INTO dyn_overwrite VALUES (1, 'a', 1), (2, 'b', 2)")
        spark.sql("INSERT OVERWRITE TABLE dyn_overwrite SELECT 3, 'c', 2")
        expected.check(spark.table("dyn_overwrite"), name="table")
    finally:
        spark.conf.unset("spark.sql.sources.partitionOverwriteMode")
        spark.sql("DROP TABLE IF EXISTS dyn_overwrite")
    # Without the setting, an overwrite replaces every partition.
    second.write.mode("overwrite").partitionBy("k").parquet(str(out / "t"))
    expected.check(spark.read.parquet(str(out / "t")), name="static")


def test_orc_round_trip(utc, expected, out):
    """ORC written by Ember and read back, in the session's zone (the files hold UTC instants).
    orc-rust writes no decimals or nested types: those say "not supported"."""
    df = frame(utc).drop("price")
    df.repartition(2).write.orc(str(out / "t"))
    expected.check(utc.read.orc(str(out / "t")), name="plain")
    df.write.partitionBy("part").orc(str(out / "p"))
    expected.check(utc.read.orc(str(out / "p")).filter("part <> 'a'"), name="partitioned")
    utc.conf.set("spark.sql.session.timeZone", "America/Los_Angeles")
    try:
        expected.check(utc.read.orc(str(out / "t")).selectExpr("id", "CAST(ts AS STRING) AS ts"), name="zone")
    finally:
        utc.conf.set("spark.sql.session.timeZone", "UTC")
    expected.check_error(lambda: df.write.option("compression", "foo").orc(str(out / "bad")), name="codec")
    if not RECORD:
        with pytest.raises(Exception, match="not supported: writing DECIMAL\\(10,2\\) columns to ORC"):
            frame(utc).write.orc(str(out / "decimal"))
        assert not (out / "decimal").exists()


def test_text_with_a_schema(spark, expected, out):
    # A schema for text files: one string column, which names the lines' column.
    df = spark.createDataFrame([("a",), ("b",), ("c",)], schema=["alphabets"])
    df.write.mode("overwrite").format("text").save(str(out / "letters"))
    expected.check(spark.read.schema(df.schema).text(str(out / "letters")), name="read")
    expected.check(spark.read.schema("line STRING NOT NULL").format("text").load(str(out / "letters")), name="load", nullability=True)
    expected.check_error(lambda: spark.read.schema("a STRING, b STRING").text(str(out / "letters")).collect(), name="two_columns")
    expected.check_error(lambda: spark.read.schema("a INT").text(str(out / "letters")).collect(), name="not_a_string")
    spark.sql("DROP TABLE IF EXISTS text_table_with_column")
    spark.sql(f"CREATE TABLE text_table_with_column (col STRING) USING TEXT LOCATION '{out / 'table'}'")
    try:
        spark.sql("INSERT INTO text_table_with_column SELECT 'abc'")
        expected.check(spark.table("text_table_with_column"), name="table")
    finally:
        spark.sql("DROP TABLE text_table_with_column")


def test_a_file_rewritten_in_place_is_read_again(spark, tmp_path):
    # Footers and file statistics are cached across queries, an entry only while its file
    # keeps its size and modification time: a file rewritten in place (the same name, the same
    # size, other values) is read again, its statistics too (stale ones would prune it), and
    # one rewritten with another schema answers with that schema.
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp_path / "t.parquet"
    pq.write_table(pa.table({"a": [1, 2, 3]}), path)

    def values(where="true"):
        return sorted(r[0] for r in spark.read.parquet(str(path)).where(where).collect())

    assert values() == [1, 2, 3]
    assert values("a > 5") == []
    size = path.stat().st_size
    # (A later modification time: file systems' clocks tick in milliseconds.)
    time.sleep(0.05)
    pq.write_table(pa.table({"a": [7, 8, 9]}), path)
    assert path.stat().st_size == size
    assert values() == [7, 8, 9]
    assert values("a > 5") == [7, 8, 9]
    assert spark.sql(f"SELECT max(a) FROM parquet.`{path}`").collect()[0][0] == 9
    time.sleep(0.05)
    pq.write_table(pa.table({"b": ["x"]}), path)
    assert spark.read.parquet(str(path)).columns == ["b"]
    assert spark.read.parquet(str(path)).collect()[0][0] == "x"


def test_parquet_string_filters(spark, out):
    """Filters of a parquet scan's strings (which the scan reads as views where a filter only
    compares them: `formats::filter_views`) answer as on plain strings: long and short values,
    NULL, non-ASCII text, LIKE of several parts, kept columns and columns the filter drops."""
    long = "a string longer than twelve bytes, ünïcode"
    values = ["b", "x", None, long, "c", "none of these", "mé", "", "zz"]
    rows = [(i, s, f"u{i % 3}") for i, s in enumerate(values)]
    frame = spark.createDataFrame(rows, "id BIGINT, s STRING, u STRING")
    frame.repartition(2).write.parquet(str(out / "t"))
    spark.read.parquet(str(out / "t")).createOrReplaceTempView("string_filters")

    def ids(where):
        found = spark.sql(f"SELECT id FROM string_filters WHERE {where}").collect()
        return sorted(r[0] for r in found)

    def want(pred):
        return sorted(i for i, s, _ in rows if pred(s))

    assert ids(f"s = '{long}'") == want(lambda s: s == long)
    assert ids("s IN ('b', 'c') AND s <> 'x'") == want(lambda s: s in ("b", "c"))
    def two_parts(s):
        return s is not None and "ne" in s and "se" in s[s.index("ne") + 2 :]

    assert ids("s LIKE '%ne%se%'") == want(two_parts)
    assert ids("s NOT LIKE 'a%'") == want(lambda s: s is not None and not s.startswith("a"))
    assert ids("s IS NULL") == want(lambda s: s is None)
    above = sorted(i for i, s, u in rows if s is not None and s > "m" and u == "u1")
    assert ids("s > 'm' AND u = 'u1'") == above
    assert ids("s = 'mé' OR s = ''") == want(lambda s: s in ("mé", ""))
    kept = spark.sql(f"SELECT id, s FROM string_filters WHERE s IN ('b', '{long}') ORDER BY id")
    kept = kept.collect()
    assert [tuple(r) for r in kept] == [(i, s) for i, s, _ in rows if s in ("b", long)]
    upper = spark.sql("SELECT upper(s) AS s FROM string_filters WHERE s = 'b' OR s = 'mé' ORDER BY s")
    assert [r[0] for r in upper.collect()] == ["B", "MÉ"]
    assert dict(upper.dtypes) == {"s": "string"}
