"""Python data sources (`pyspark.sql.datasource`): `spark.dataSource.register(MySource)`, then
`spark.read.format("my").load()` (the source's schema or the reader's, options, partitions
read by tasks, rows as tuples, Rows or pyarrow RecordBatches) and `df.write.format("my")`
(append and overwrite; each task's `write` gives a commit message, the writer commits with
all of them, or aborts when a task failed). What the writers do is observed through the
files they write into a temporary directory. Errors as Spark reports them (planning steps as
PYTHON_DATA_SOURCE_ERROR, a reader's exception as a PythonException). Answers recorded from
Spark 4.3."""

import json
import os
import sys
from dataclasses import dataclass

import pyarrow as pa
import pytest
from pyspark import cloudpickle
from pyspark.sql import Row
from pyspark.sql.datasource import (
    DataSource,
    DataSourceArrowWriter,
    DataSourceReader,
    DataSourceWriter,
    InputPartition,
    WriterCommitMessage,
)
from pyspark.sql.types import IntegerType, StringType, StructField, StructType

# The Python workers cannot import this test module: its classes are pickled by value.
cloudpickle.register_pickle_by_value(sys.modules[__name__])


class RangePartition(InputPartition):
    def __init__(self, start, end):
        super().__init__((start, end))
        self.start, self.end = start, end


class BasicReader(DataSourceReader):
    def __init__(self, options, schema):
        self.options = options
        self.schema = schema

    def partitions(self):
        return [InputPartition(i) for i in range(int(self.options.get("parts", "3")))]

    def read(self, partition):
        mode = self.options.get("mode", "")
        if mode == "fail":
            raise ValueError("boom in read")
        if mode == "shape":
            yield (1,)
            return
        if mode == "kind":
            yield 5
            return
        if mode == "fields":
            yield ("row", partition.value)
            return
        suffix = self.options.get("k", "")
        for f in self.schema.fields if mode == "names" else []:
            yield (partition.value, f.name)
        if mode != "names":
            yield (partition.value, f"row{partition.value}{suffix}")


class RowWriter(DataSourceWriter):
    def __init__(self, options, overwrite):
        self.dir = options["dir"]
        self.options = options
        self.overwrite = overwrite

    def write(self, rows):
        import uuid

        rows = [r.asDict() for r in rows]
        if self.options.get("mode") == "fail" and any(r.get("id") == 2 for r in rows):
            raise ValueError("boom in write")
        if self.options.get("mode") == "nomsg":
            return len(rows)
        with open(os.path.join(self.dir, f"part-{uuid.uuid4().hex}.json"), "w") as f:
            json.dump(rows, f)
        return CountMessage(len(rows))

    def commit(self, messages):
        if self.options.get("mode") == "commitfail":
            raise RuntimeError("boom in commit")
        total = sum(m.count for m in messages if m is not None)
        with open(os.path.join(self.dir, "_commit"), "w") as f:
            json.dump({"rows": total, "overwrite": self.overwrite}, f)

    def abort(self, messages):
        with open(os.path.join(self.dir, "_abort"), "w") as f:
            json.dump({"failed": any(m is None for m in messages)}, f)


@dataclass
class CountMessage(WriterCommitMessage):
    count: int


class MySource(DataSource):
    @classmethod
    def name(cls):
        return "my_source"

    def schema(self):
        if self.options.get("mode") == "badschema":
            raise ValueError("no schema")
        return "id int, name string"

    def reader(self, schema):
        return BasicReader(self.options, schema)

    def writer(self, schema, overwrite):
        return RowWriter(self.options, overwrite)


class WhereSource(DataSource):
    """Each partition says which processes read it."""

    @classmethod
    def name(cls):
        return "where_source"

    def schema(self):
        return "p int, pid long, ppid long"

    def reader(self, schema):
        class R(DataSourceReader):
            def partitions(self):
                return [InputPartition(i) for i in range(8)]

            def read(self, partition):
                import time

                time.sleep(0.2)
                yield (partition.value, os.getpid(), os.getppid())

        return R()


class StructSource(DataSource):
    @classmethod
    def name(cls):
        return "struct_source"

    def schema(self):
        return StructType([StructField("n", IntegerType()), StructField("s", StringType())])

    def reader(self, schema):
        return RangeReader()


class RangeReader(DataSourceReader):
    def partitions(self):
        return [RangePartition(0, 3), RangePartition(3, 5)]

    def read(self, partition):
        for n in range(partition.start, partition.end):
            yield Row(s=f"s{n}", n=n)


class NoPartitions(DataSource):
    @classmethod
    def name(cls):
        return "no_partitions"

    def schema(self):
        return "v long"

    def reader(self, schema):
        class R(DataSourceReader):
            def read(self, partition):
                yield (1 if partition.value is None else 2,)

        return R()


class EmptyPartitions(DataSource):
    @classmethod
    def name(cls):
        return "empty_partitions"

    def schema(self):
        return "v long"

    def reader(self, schema):
        class R(DataSourceReader):
            def partitions(self):
                return []

            def read(self, partition):
                yield (7,)

        return R()


class BadPartitions(DataSource):
    @classmethod
    def name(cls):
        return "bad_partitions"

    def schema(self):
        return "v int"

    def reader(self, schema):
        class R(DataSourceReader):
            def partitions(self):
                return 5

            def read(self, partition):
                yield (1,)

        return R()


class ArrowSource(DataSource):
    @classmethod
    def name(cls):
        return "arrow_source"

    def schema(self):
        return "x long, label string"

    def reader(self, schema):
        class R(DataSourceReader):
            def partitions(self):
                return [InputPartition(0), InputPartition(1)]

            def read(self, partition):
                base = partition.value * 100
                yield pa.record_batch(
                    [pa.array([base + i for i in range(4)], pa.int64()), pa.array([f"b{base + i}" for i in range(4)])],
                    names=["x", "label"],
                )
                yield pa.record_batch([pa.array([base + 50], pa.int64()), pa.array([None], pa.string())], names=["x", "label"])

        return R()


class WrongArrow(DataSource):
    @classmethod
    def name(cls):
        return "wrong_arrow"

    def schema(self):
        return "x long"

    def reader(self, schema):
        class R(DataSourceReader):
            def read(self, partition):
                yield pa.record_batch([pa.array([1, 2], pa.int32())], names=["x"])

        return R()


class TypesSource(DataSource):
    @classmethod
    def name(cls):
        return "types_source"

    def schema(self):
        return "b boolean, l long, d double, dec decimal(10,2), dt date, arr array<int>, m map<string,int>, st struct<a:int,b:string>, bin binary"

    def reader(self, schema):
        class R(DataSourceReader):
            def read(self, partition):
                import datetime
                import decimal

                yield (True, 2**40, 1.5, decimal.Decimal("12.34"), datetime.date(2024, 2, 29), [1, None, 3], {"k": 1}, Row(a=1, b="x"), b"\x00\x01")
                yield (None, None, None, None, None, None, None, None, None)

        return R()


class ManyRows(DataSource):
    @classmethod
    def name(cls):
        return "many_rows"

    def schema(self):
        return "i long"

    def reader(self, schema):
        class R(DataSourceReader):
            def partitions(self):
                return [InputPartition(0), InputPartition(1)]

            def read(self, partition):
                for i in range(25000):
                    yield (partition.value * 25000 + i,)

        return R()


class PushSource(DataSource):
    @classmethod
    def name(cls):
        return "push_source"

    def schema(self):
        return "id int"

    def reader(self, schema):
        class R(DataSourceReader):
            def pushFilters(self, filters):
                return iter(filters)

            def read(self, partition):
                for i in range(5):
                    yield (i,)

        return R()


class ReadOnly(DataSource):
    @classmethod
    def name(cls):
        return "read_only"

    def schema(self):
        return "id int"

    def reader(self, schema):
        return RangeReader()


class ArrowWriterSource(DataSource):
    @classmethod
    def name(cls):
        return "arrow_writer"

    def schema(self):
        return "id long"

    def writer(self, schema, overwrite):
        class W(DataSourceArrowWriter):
            def __init__(self, d):
                self.dir = d

            def write(self, batches):
                import uuid

                kinds, ids = set(), []
                for b in batches:
                    kinds.add(type(b).__name__)
                    ids.extend(b.column(0).to_pylist())
                with open(os.path.join(self.dir, f"part-{uuid.uuid4().hex}.json"), "w") as f:
                    json.dump({"kinds": sorted(kinds), "ids": ids}, f)
                return WriterCommitMessage()

            def commit(self, messages):
                with open(os.path.join(self.dir, "_commit"), "w") as f:
                    json.dump({"messages": all(isinstance(m, WriterCommitMessage) for m in messages)}, f)

        return W(self.options["dir"])


SOURCES = [WrongArrow, WhereSource, MySource, StructSource, NoPartitions, EmptyPartitions, BadPartitions, ArrowSource, TypesSource, ManyRows, PushSource, ReadOnly, ArrowWriterSource]


@pytest.fixture(scope="module", autouse=True)
def registered(spark):
    for s in SOURCES:
        spark.dataSource.register(s)


def written(d):
    """What the writers left in `d`: rows written (sorted), the commit and abort files."""
    rows, commit, abort = [], None, None
    for name in sorted(os.listdir(d)):
        with open(os.path.join(d, name)) as f:
            data = json.load(f)
        if name == "_commit":
            commit = data
        elif name == "_abort":
            abort = data
        elif isinstance(data, list):
            rows.extend(data)
        else:
            rows.append(data)
    return {"rows": sorted(rows, key=lambda r: json.dumps(r, sort_keys=True)), "commit": commit, "abort": abort}


def error_text(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        return str(e)
    return ""


# --- reading ---------------------------------------------------------------------------------


def test_read_partitions(spark, expected):
    expected.check(spark.read.format("my_source").load(), name="rows")
    expected.check_value(spark.read.format("my_source").load().schema.simpleString(), name="schema")


def test_read_options(spark, expected):
    expected.check(spark.read.format("my_source").option("k", "v").load(), name="option")
    expected.check(spark.read.format("my_source").options(K="upper", parts="2").load(), name="case_insensitive")
    expected.check(spark.read.format("my_source").option("parts", "5").load(), name="five_partitions")


def test_read_name_case_insensitive(spark, expected):
    expected.check(spark.read.format("MY_SOURCE").load(), name="upper")


def test_read_user_schema(spark, expected):
    df = spark.read.format("my_source").schema("a int, b string").load()
    expected.check(df, name="ddl")
    df = spark.read.format("my_source").schema("p int, q string").option("mode", "names").load()
    expected.check(df, name="reader_sees_schema")
    schema = StructType([StructField("x", IntegerType()), StructField("y", StringType())])
    expected.check(spark.read.format("my_source").schema(schema).load(), name="struct_type")


def test_read_struct_schema_and_rows(spark, expected):
    expected.check(spark.read.format("struct_source").load(), name="rows_by_name")


def test_read_without_partitions(spark, expected):
    expected.check(spark.read.format("no_partitions").load(), name="default_partition")
    expected.check(spark.read.format("empty_partitions").load(), name="empty_list")


def test_read_arrow_batches(spark, expected):
    expected.check(spark.read.format("arrow_source").load(), name="batches")


def test_read_types(spark, expected):
    expected.check(spark.read.format("types_source").load(), name="types", nullability=False)


def test_read_many_rows(spark, expected):
    df = spark.read.format("many_rows").load()
    expected.check(df.selectExpr("count(*) c", "sum(i) s", "min(i) lo", "max(i) hi"), name="aggregate")


def test_read_then_query(spark, expected):
    df = spark.read.format("my_source").option("parts", "4").load()
    expected.check(df.filter("id % 2 = 0").selectExpr("id * 10 AS t", "upper(name) AS n"), name="filter_project")
    other = spark.read.format("struct_source").load()
    expected.check(df.join(other, df.id == other.n).select("id", "name", "s"), name="join")
    expected.check(df.groupBy((df.id % 2).alias("k")).count(), name="group")


def test_read_load_path(spark, expected):
    class PathReader(DataSourceReader):
        def __init__(self, options):
            self.path = options.get("path")

        def read(self, partition):
            yield (1, self.path)

    class PathSource(DataSource):
        @classmethod
        def name(cls):
            return "path_source"

        def schema(self):
            return "id int, name string"

        def reader(self, schema):
            return PathReader(self.options)

    spark.dataSource.register(PathSource)
    expected.check(spark.read.format("path_source").load("/some/where"), name="path_option")


def test_sql_temporary_view_using(spark, expected):
    spark.sql("CREATE OR REPLACE TEMPORARY VIEW ds_view USING my_source OPTIONS (k 'z')")
    expected.check(spark.sql("SELECT * FROM ds_view"), name="view")
    spark.sql("DROP VIEW ds_view")
    spark.sql("CREATE TEMPORARY VIEW ds_view2 (id INT, name STRING) USING my_source")
    expected.check(spark.sql("SELECT name FROM ds_view2 WHERE id > 0"), name="view_with_schema")
    spark.sql("DROP VIEW ds_view2")


def test_sql_table_using(spark, expected):
    spark.sql("DROP TABLE IF EXISTS ds_table")
    spark.sql("CREATE TABLE ds_table USING my_source OPTIONS (k 't')")
    try:
        expected.check(spark.sql("SELECT * FROM ds_table"), name="table")
        expected.check(spark.table("ds_table").filter("id = 1"), name="table_api")
    finally:
        spark.sql("DROP TABLE IF EXISTS ds_table")
    spark.sql("CREATE TABLE ds_table2 (a INT, b STRING) USING my_source")
    try:
        expected.check(spark.sql("SELECT b, a FROM ds_table2"), name="declared_columns")
    finally:
        spark.sql("DROP TABLE IF EXISTS ds_table2")


def test_insert_into_table(spark, tmp_path, expected):
    class DirSource(MySource):
        """`my_source`, its writer's directory fixed (a table's writer gets no options)."""

        @classmethod
        def name(cls):
            return "dir_source"

        def writer(self, schema, overwrite):
            return RowWriter({"dir": DIRECTORY}, overwrite)

    DIRECTORY = str(tmp_path)
    spark.dataSource.register(DirSource)
    spark.sql("DROP TABLE IF EXISTS ds_sink")
    spark.sql("CREATE TABLE ds_sink USING dir_source")
    try:
        data(spark).write.insertInto("ds_sink")
        expected.check_value(written(tmp_path), name="insert_into")
        spark.sql("INSERT INTO ds_sink VALUES (9, 'nine')")
        expected.check_value(written(tmp_path)["rows"], name="insert_sql")
    finally:
        spark.sql("DROP TABLE IF EXISTS ds_sink")


def test_reader_imports_artifact_added_later(spark, tmp_path, expected):
    import uuid

    module = f"ds_helper_{uuid.uuid4().hex[:8]}"

    class ImportingSource(DataSource):
        @classmethod
        def name(cls):
            return "importing_source"

        def schema(self):
            return "v string"

        def reader(self, schema):
            class R(DataSourceReader):
                def read(self, partition):
                    import importlib

                    yield (importlib.import_module(module).WORD,)

            return R()

    spark.dataSource.register(ImportingSource)
    (tmp_path / f"{module}.py").write_text("WORD = 'imported'\n")
    spark.addArtifacts(str(tmp_path / f"{module}.py"), pyfile=True)
    expected.check(spark.read.format("importing_source").load(), name="artifact")


def test_sql_temporary_view_using_files(spark, tmp_path, expected):
    (tmp_path / "a.csv").write_text("x,y\n1,a\n2,b\n")
    spark.sql(f"CREATE OR REPLACE TEMPORARY VIEW csv_view USING csv OPTIONS (path '{tmp_path}/a.csv', header 'true', inferSchema 'true')")
    expected.check(spark.sql("SELECT * FROM csv_view"), name="csv")
    spark.sql("DROP VIEW csv_view")


def test_pushfilters_enabled(spark, expected):
    spark.conf.set("spark.sql.python.filterPushdown.enabled", "true")
    try:
        expected.check(spark.read.format("push_source").load().filter("id > 2"), name="filtered")
    finally:
        spark.conf.unset("spark.sql.python.filterPushdown.enabled")


# --- read errors -----------------------------------------------------------------------------


def test_not_registered(spark, expected):
    expected.check_error(lambda: spark.read.format("no_such_source_xyz").load().collect(), name="read")


def test_read_raises(spark, expected):
    fn = lambda: spark.read.format("my_source").option("mode", "fail").load().collect()  # noqa: E731
    expected.check_error(fn, name="error")
    text = error_text(fn)
    expected.check_value(["ValueError: boom in read" in text, "in read" in text], name="traceback")


def test_read_wrong_row_shape(spark, expected):
    fn = lambda: spark.read.format("my_source").option("mode", "shape").load().collect()  # noqa: E731
    expected.check_error(fn, name="error")
    expected.check_value("DATA_SOURCE_RETURN_SCHEMA_MISMATCH" in error_text(fn), name="class")


def test_read_wrong_row_kind(spark, expected):
    fn = lambda: spark.read.format("my_source").option("mode", "kind").load().collect()  # noqa: E731
    expected.check_error(fn, name="error")
    expected.check_value("DATA_SOURCE_INVALID_RETURN_TYPE" in error_text(fn), name="class")


def test_read_arrow_batch_of_other_types(spark, expected):
    fn = lambda: spark.read.format("wrong_arrow").load().collect()  # noqa: E731
    expected.check_error(fn, name="error")
    expected.check_value("DATA_SOURCE_RETURN_SCHEMA_MISMATCH" in error_text(fn), name="class")


def test_read_wrong_value_type(spark, expected):
    fn = lambda: spark.read.format("my_source").option("mode", "fields").load().collect()  # noqa: E731
    expected.check_error(fn, name="error")


def test_schema_raises(spark, expected):
    fn = lambda: spark.read.format("my_source").option("mode", "badschema").load().collect()  # noqa: E731
    expected.check_error(fn, name="error")
    text = error_text(fn)
    expected.check_value(["Failed to create Python data source instance" in text, "no schema" in text], name="message")


def test_partitions_not_a_list(spark, expected):
    fn = lambda: spark.read.format("bad_partitions").load().collect()  # noqa: E731
    expected.check_error(fn, name="error")
    text = error_text(fn)
    expected.check_value(["Failed to generate Python data source read partitions" in text, "DATA_SOURCE_TYPE_MISMATCH" in text], name="message")


def test_pushfilters_disabled(spark, expected):
    fn = lambda: spark.read.format("push_source").load().collect()  # noqa: E731
    expected.check_error(fn, name="error")
    expected.check_value("DATA_SOURCE_PUSHDOWN_DISABLED" in error_text(fn), name="class")


def test_reader_not_implemented(spark, expected):
    fn = lambda: spark.read.format("arrow_writer").load().collect()  # noqa: E731
    expected.check_error(fn, name="error")
    expected.check_value("Failed to initialize Python data source reader" in error_text(fn), name="message")


# --- writing ---------------------------------------------------------------------------------


def data(spark):
    return spark.createDataFrame([(i, f"n{i}") for i in range(5)], "id int, name string").repartition(3)


def test_write_append(spark, tmp_path, expected):
    data(spark).write.format("my_source").mode("append").option("dir", str(tmp_path)).save()
    expected.check_value(written(tmp_path), name="files")


def test_write_overwrite(spark, tmp_path, expected):
    data(spark).write.format("my_source").mode("overwrite").option("dir", str(tmp_path)).save()
    expected.check_value(written(tmp_path), name="files")


def test_write_expression_columns(spark, tmp_path, expected):
    spark.range(4).selectExpr("cast(id AS int) AS id", "concat('v', id) AS name").write.format("my_source").mode("append").option(
        "dir", str(tmp_path)
    ).save()
    got = written(tmp_path)
    expected.check_value([got["rows"], got["commit"]], name="round_trip")


def test_write_arrow_writer(spark, tmp_path, expected):
    spark.range(6).coalesce(1).write.format("arrow_writer").mode("append").option("dir", str(tmp_path)).save()
    expected.check_value(written(tmp_path), name="files")


def test_write_task_fails_aborts(spark, tmp_path, expected):
    fn = lambda: data(spark).write.format("my_source").mode("append").option("dir", str(tmp_path)).option("mode", "fail").save()  # noqa: E731
    expected.check_error(fn, name="error")
    got = written(tmp_path)
    expected.check_value([got["commit"], got["abort"]], name="aborted")
    expected.check_value("boom in write" in error_text(fn), name="traceback")


def test_write_wrong_message(spark, tmp_path, expected):
    fn = lambda: data(spark).write.format("my_source").mode("append").option("dir", str(tmp_path)).option("mode", "nomsg").save()  # noqa: E731
    expected.check_error(fn, name="error")
    expected.check_value("DATA_SOURCE_TYPE_MISMATCH" in error_text(fn), name="class")
    expected.check_value(written(tmp_path)["commit"], name="not_committed")


def test_write_unsupported_modes(spark, tmp_path, expected):
    df = data(spark)
    expected.check_error(lambda: df.write.format("my_source").option("dir", str(tmp_path)).save(), name="default_mode")
    expected.check_error(lambda: df.write.format("my_source").mode("ignore").option("dir", str(tmp_path)).save(), name="ignore")


def test_write_without_writer(spark, expected):
    fn = lambda: spark.range(2).write.format("read_only").mode("append").save()  # noqa: E731
    expected.check_error(fn, name="error")
    expected.check_value("Failed to initialize Python data source writer" in error_text(fn), name="message")


def test_write_commit_fails(spark, tmp_path, expected):
    fn = lambda: data(spark).write.format("my_source").mode("append").option("dir", str(tmp_path)).option("mode", "commitfail").save()  # noqa: E731
    expected.check_error(fn, name="error")
    expected.check_value("boom in commit" in error_text(fn), name="traceback")
    expected.check_value(written(tmp_path)["abort"], name="aborted")


def test_partitions_read_by_tasks(spark, ember_mode):
    """Ember's own: each partition is a task, read by pooled Python workers at once; in
    cluster mode they spread over the worker processes (the Python workers' parents are
    different `ember worker` processes; local-cluster's workers are in the server)."""
    if ember_mode == "spark":
        pytest.skip("Ember's processes")
    rows = spark.read.format("where_source").load().collect()
    assert sorted(r.p for r in rows) == list(range(8))
    assert len({r.pid for r in rows}) > 1, "every partition read by one Python worker"
    parents = {r.ppid for r in rows}
    if ember_mode == "cluster":
        assert len(parents) > 1, f"every partition read under one process: {parents}"
    else:
        assert len(parents) == 1
