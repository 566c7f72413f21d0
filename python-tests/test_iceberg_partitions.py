"""Partitioned Iceberg writes (issue 28): `CREATE TABLE ... USING iceberg PARTITIONED BY
(days(ts), bucket(16, id), truncate(2, name), ...)`, `df.write.format("iceberg").partitionBy(...)`,
`writeTo(...).partitionedBy(...).create()`, appends to partitioned tables written by pyiceberg,
and dynamic partition overwrite (`overwritePartitions()`, `INSERT OVERWRITE` under
`spark.sql.sources.partitionOverwriteMode=dynamic`).

Interoperability is the test, as in test_iceberg.py: pyiceberg reads every table Ember writes
(its spec, its rows, each data file's partition tuple), and the partition tuples Ember computes
(Iceberg's Murmur3 buckets, truncation, time transforms) are compared with the ones pyiceberg
computes when it writes the same rows to a table of the same spec. Nothing here is recorded
from Spark (the reference Spark has no Iceberg runtime offline).
"""

import datetime
import decimal
import os

import pyarrow as pa
import pytest
from pyiceberg.catalog.sql import SqlCatalog
from pyiceberg.partitioning import PartitionField, PartitionSpec
from pyiceberg.schema import Schema
from pyiceberg.transforms import (
    BucketTransform,
    DayTransform,
    HourTransform,
    IdentityTransform,
    MonthTransform,
    TruncateTransform,
    YearTransform,
)
from pyiceberg.types import (
    BinaryType,
    DateType,
    DecimalType,
    IntegerType,
    LongType,
    NestedField,
    StringType,
    TimestampType,
)

from conftest import RECORD
from test_iceberg import error_of, iceberg_rows, normal, rows, static

pytestmark = pytest.mark.usefixtures("utc")


@pytest.fixture(autouse=True)
def not_recording():
    if RECORD:
        pytest.skip("the reference Spark has no Iceberg (iceberg-spark jars unavailable offline)")


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory):
    return str(tmp_path_factory.mktemp("iceberg_partitions"))


@pytest.fixture(scope="module")
def catalog(warehouse):
    cat = SqlCatalog("pyiceberg", uri=f"sqlite:///{warehouse}/catalog.db", warehouse=f"file://{warehouse}")
    cat.create_namespace("db")
    return cat


@pytest.fixture
def ice(spark, warehouse):
    keys = {
        "spark.sql.catalog.ice": "org.apache.iceberg.spark.SparkCatalog",
        "spark.sql.catalog.ice.type": "hadoop",
        "spark.sql.catalog.ice.warehouse": warehouse,
    }
    for k, v in keys.items():
        spark.conf.set(k, v)
    yield "ice"
    for k in keys:
        spark.conf.unset(k)
    spark.conf.unset("spark.sql.sources.partitionOverwriteMode")


_names = iter(range(10**6))


def name():
    return f"p{next(_names)}"


def files(table):
    """Each live data file's partition tuple and record count, as pyiceberg reads the manifests."""
    return sorted(
        ((tuple(sorted((k, normal(v)) for k, v in f["partition"].items())), f["record_count"])
         for f in table.inspect.files().to_pylist()),
        key=repr,
    )


def partitions_by_row(table, key):
    """{row key: partition tuple} from pyiceberg's view of the data files."""
    import pyarrow.parquet as pq

    out = {}
    for f in table.inspect.files().to_pylist():
        data = pq.read_table(f["file_path"].removeprefix("file://")).to_pylist()
        for r in data:
            out[key(r)] = tuple(sorted((k, normal(v)) for k, v in f["partition"].items()))
    return out


SCHEMA = Schema(
    NestedField(1, "id", LongType(), required=False),
    NestedField(2, "name", StringType(), required=False),
    NestedField(3, "ts", TimestampType(), required=False),
    NestedField(4, "d", DateType(), required=False),
    NestedField(5, "dec", DecimalType(10, 2), required=False),
    NestedField(6, "bin", BinaryType(), required=False),
    NestedField(7, "i", IntegerType(), required=False),
)

DDL = "id BIGINT, name STRING, ts TIMESTAMP_NTZ, d DATE, dec DECIMAL(10,2), bin BINARY, i INT"


def sample(n=40):
    """Rows with edge values: NULLs, negatives, times before 1970, multi-byte text."""
    out = []
    for k in range(n):
        out.append(
            {
                "id": None if k == 7 else k * 7919 - 100_000,
                "name": None if k == 3 else ["alpha", "béta", "ωmega", "", "x"][k % 5] + str(k % 3),
                "ts": None if k == 5 else datetime.datetime(1969 + k % 60, 1 + k % 12, 1 + k % 28, k % 24, k % 60),
                "d": None if k == 9 else datetime.date(1960 + k, 1 + k % 12, 1 + k % 27),
                "dec": None if k == 11 else decimal.Decimal(k * 137 - 2500) / 100,
                "bin": None if k == 13 else bytes([k % 256, (k * 3) % 256]) * (k % 3 + 1),
                "i": None if k == 17 else k * 13 - 250,
            }
        )
    return out


def arrow_sample():
    return pa.Table.from_pylist(sample(), schema=SCHEMA.as_arrow())


def spark_sample(spark, data=None):
    return spark.createDataFrame([tuple(r.values()) for r in (data or sample())], DDL)


# (Spark's PARTITIONED BY item, pyiceberg's field) for every transform and source type.
TRANSFORMS = [
    ("id", PartitionField(1, 1000, IdentityTransform(), "id")),
    ("bucket(16, id)", PartitionField(1, 1000, BucketTransform(16), "id_bucket")),
    ("bucket(7, name)", PartitionField(2, 1000, BucketTransform(7), "name_bucket")),
    ("bucket(5, ts)", PartitionField(3, 1000, BucketTransform(5), "ts_bucket")),
    ("bucket(9, d)", PartitionField(4, 1000, BucketTransform(9), "d_bucket")),
    ("bucket(11, dec)", PartitionField(5, 1000, BucketTransform(11), "dec_bucket")),
    ("bucket(3, bin)", PartitionField(6, 1000, BucketTransform(3), "bin_bucket")),
    ("bucket(4, i)", PartitionField(7, 1000, BucketTransform(4), "i_bucket")),
    ("truncate(2, name)", PartitionField(2, 1000, TruncateTransform(2), "name_trunc")),
    ("truncate(1000, id)", PartitionField(1, 1000, TruncateTransform(1000), "id_trunc")),
    ("truncate(10, i)", PartitionField(7, 1000, TruncateTransform(10), "i_trunc")),
    ("truncate(50, dec)", PartitionField(5, 1000, TruncateTransform(50), "dec_trunc")),
    ("years(ts)", PartitionField(3, 1000, YearTransform(), "ts_year")),
    ("months(ts)", PartitionField(3, 1000, MonthTransform(), "ts_month")),
    ("days(ts)", PartitionField(3, 1000, DayTransform(), "ts_day")),
    ("hours(ts)", PartitionField(3, 1000, HourTransform(), "ts_hour")),
    ("years(d)", PartitionField(4, 1000, YearTransform(), "d_year")),
    ("months(d)", PartitionField(4, 1000, MonthTransform(), "d_month")),
    ("days(d)", PartitionField(4, 1000, DayTransform(), "d_day")),
]


@pytest.mark.parametrize("item,field", TRANSFORMS, ids=[t[0] for t in TRANSFORMS])
def test_each_transform_partitions_as_pyiceberg(spark, catalog, warehouse, ice, item, field):
    """Ember's partition tuple of every row equals the one pyiceberg computes for the same row
    in a table of the same spec; pyiceberg reads Ember's spec and rows back."""
    t = name()
    spark.sql(f"CREATE TABLE ice.db.{t} ({DDL}) USING iceberg PARTITIONED BY ({item})")
    spark_sample(spark).writeTo(f"ice.db.{t}").append()
    ours = static(os.path.join(warehouse, "db", t))
    assert [(f.name, str(f.transform), f.source_id) for f in ours.spec().fields] == [
        (field.name, str(field.transform), field.source_id)
    ]
    theirs = catalog.create_table(f"db.{t}_py", schema=SCHEMA, partition_spec=PartitionSpec(field), location=f"{warehouse}/db/{t}_py")
    theirs.append(arrow_sample())
    key = lambda r: r["id"] if r["id"] is not None else ("null", r["name"])
    assert partitions_by_row(ours, key) == partitions_by_row(theirs, key)
    assert iceberg_rows(ours) == iceberg_rows(theirs)
    assert rows(spark.table(f"ice.db.{t}")) == iceberg_rows(theirs)


def test_partitioned_by_several_transforms(spark, warehouse, ice):
    t = name()
    spark.sql(
        f"CREATE TABLE ice.db.{t} (id BIGINT, name STRING, ts TIMESTAMP, cat STRING) USING iceberg "
        "PARTITIONED BY (days(ts), bucket(16, id), cat)"
    )
    spark.sql(
        f"INSERT INTO ice.db.{t} VALUES (1, 'a', TIMESTAMP'2024-03-01 10:00:00', 'x'), "
        "(2, 'b', TIMESTAMP'2024-03-01 11:00:00', 'x'), (3, 'c', TIMESTAMP'2024-03-02 00:00:00', NULL)"
    )
    table = static(os.path.join(warehouse, "db", t))
    assert [(f.name, str(f.transform), f.field_id) for f in table.spec().fields] == [
        ("ts_day", "day", 1000), ("id_bucket", "bucket[16]", 1001), ("cat", "identity", 1002)
    ]
    assert table.metadata.last_partition_id == 1002
    assert files(table) == sorted(
        [
            ((("cat", "x"), ("id_bucket", 4), ("ts_day", datetime.date(2024, 3, 1))), 2),
            ((("cat", None), ("id_bucket", 3), ("ts_day", datetime.date(2024, 3, 2))), 1),
        ],
        key=repr,
    )
    # The directories name the partitions.
    paths = sorted(f["file_path"].split("/data/")[1].rsplit("/", 1)[0] for f in table.inspect.files().to_pylist())
    assert paths == ["ts_day=2024-03-01/id_bucket=4/cat=x", "ts_day=2024-03-02/id_bucket=3/cat=null"]
    # pyiceberg prunes by the partition values Ember wrote.
    assert table.scan(row_filter="cat == 'x'").to_arrow().num_rows == 2
    assert sorted(r["id"] for r in table.scan(row_filter="ts >= '2024-03-02T00:00:00+00:00'").to_arrow().to_pylist()) == [3]
    assert rows(spark.sql(f"SELECT id FROM ice.db.{t} WHERE cat IS NULL")) == [(3,)]


def test_partition_by_columns_in_a_path_write(spark, tmp_path):
    location = str(tmp_path / "t")
    df = spark.sql("SELECT id, CAST(id % 3 AS STRING) AS k, DATE'2024-01-01' + CAST(id % 2 AS INT) AS d FROM range(12)")
    df.write.format("iceberg").partitionBy("k", "d").save(location)
    table = static(location)
    assert [(f.name, str(f.transform)) for f in table.spec().fields] == [("k", "identity"), ("d", "identity")]
    assert len(table.inspect.files().to_pylist()) == 6
    assert iceberg_rows(table) == rows(df) == rows(spark.read.format("iceberg").load(location))
    # An existing table keeps its spec; rows go to their partitions.
    spark.sql("SELECT 100 AS id, '1' AS k, DATE'2024-01-02' AS d").write.format("iceberg").mode("append").save(location)
    table = static(location)
    assert ((("d", datetime.date(2024, 1, 2)), ("k", "1")), 1) in files(table)
    assert table.scan(row_filter="k == '1'").to_arrow().num_rows == 5


def test_append_to_a_pyiceberg_partitioned_table(spark, catalog, warehouse):
    spec = PartitionSpec(
        PartitionField(3, 1000, DayTransform(), "ts_day"), PartitionField(1, 1001, BucketTransform(4), "id_bucket")
    )
    t = name()
    table = catalog.create_table(f"db.{t}", schema=SCHEMA, partition_spec=spec, location=f"{warehouse}/db/{t}")
    table.append(arrow_sample().slice(0, 20))
    spark_sample(spark, sample()[20:]).write.format("iceberg").mode("append").save(table.location())
    # (A path write does not move pyiceberg's SQL catalog pointer: read the newest metadata.)
    table = static(table.location())
    assert sorted(r["id"] or 0 for r in table.scan().to_arrow().to_pylist()) == sorted(r["id"] or 0 for r in sample())
    # Every file holds the rows of one partition tuple, as pyiceberg computes it.
    ids = {r["id"]: r for r in sample()}
    for f in table.inspect.files().to_pylist():
        import pyarrow.parquet as pq

        for r in pq.read_table(f["file_path"].removeprefix("file://")).to_pylist():
            day = r["ts"].date() if r["ts"] is not None else None
            assert f["partition"]["ts_day"] == day
            if r["id"] is not None:
                assert f["partition"]["id_bucket"] == BucketTransform(4).transform(LongType())(r["id"]), r
    assert rows(spark.read.format("iceberg").load(table.location())) == iceberg_rows(table)


def test_truncate_binary(spark, warehouse, ice):
    # (pyiceberg cannot truncate its large binary arrays: the expected values are computed here.)
    t = name()
    spark.sql(f"CREATE TABLE ice.db.{t} (b BINARY) USING iceberg PARTITIONED BY (truncate(2, b))")
    spark.sql(f"INSERT INTO ice.db.{t} VALUES (X'010203'), (X'0102'), (X'01'), (NULL), (X'')")
    table = static(os.path.join(warehouse, "db", t))
    assert files(table) == sorted(
        [((("b_trunc", b"\x01\x02"),), 2), ((("b_trunc", b"\x01"),), 1), ((("b_trunc", None),), 1), ((("b_trunc", b""),), 1)],
        key=repr,
    )
    assert spark.table(f"ice.db.{t}").count() == 5


def test_write_to_partitioned_by(spark, warehouse, ice):
    from pyspark.sql.functions import col, partitioning

    t = name()
    df = spark.sql("SELECT id, TIMESTAMP_NTZ'2024-05-01 00:00:00' + make_interval(0, 0, 0, CAST(id AS INT), CAST(id AS INT)) AS ts FROM range(6)")
    df.writeTo(f"ice.db.{t}").using("iceberg").partitionedBy(partitioning.days(col("ts")), partitioning.bucket(2, col("id"))).create()
    table = static(os.path.join(warehouse, "db", t))
    assert [(f.name, str(f.transform)) for f in table.spec().fields] == [("ts_day", "day"), ("id_bucket", "bucket[2]")]
    assert iceberg_rows(table) == rows(df)
    assert "TABLE_OR_VIEW_ALREADY_EXISTS" in error_of(lambda: df.writeTo(f"ice.db.{t}").partitionedBy(col("id")).create())
    df.writeTo(f"ice.db.{t}").append()
    assert static(os.path.join(warehouse, "db", t)).scan().to_arrow().num_rows == 12
    missing = name()
    assert "TABLE_OR_VIEW_NOT_FOUND" in error_of(lambda: df.writeTo(f"ice.db.{missing}").append())
    assert "TABLE_OR_VIEW_NOT_FOUND" in error_of(lambda: df.writeTo(f"ice.db.{missing}").overwritePartitions())
    # createOrReplace of a new table creates it; of an existing one replaces it (unpartitioned
    # now: no partitionedBy).
    df.writeTo(f"ice.db.{missing}").partitionedBy(partitioning.years(col("ts"))).createOrReplace()
    assert [str(f.transform) for f in static(os.path.join(warehouse, "db", missing)).spec().fields] == ["year"]
    df.where("id < 2").writeTo(f"ice.db.{missing}").createOrReplace()
    replaced = static(os.path.join(warehouse, "db", missing))
    assert not replaced.spec().fields and replaced.scan().to_arrow().num_rows == 2
    assert "TABLE_OR_VIEW_NOT_FOUND" in error_of(lambda: df.writeTo(f"ice.db.{name()}").replace())


def test_overwrite_partitions(spark, warehouse, ice):
    t = name()
    spark.sql(f"CREATE TABLE ice.db.{t} (id BIGINT, k STRING) USING iceberg PARTITIONED BY (k)")
    spark.sql(f"INSERT INTO ice.db.{t} VALUES (1, 'a'), (2, 'a'), (3, 'b'), (4, NULL)")
    spark.sql("SELECT 10L AS id, 'a' AS k UNION ALL SELECT 11L, 'c'").writeTo(f"ice.db.{t}").overwritePartitions()
    location = os.path.join(warehouse, "db", t)
    table = static(location)
    assert iceberg_rows(table) == [(3, "b"), (4, None), (10, "a"), (11, "c")]
    assert rows(spark.table(f"ice.db.{t}")) == iceberg_rows(table)
    assert table.current_snapshot().summary.operation.value == "overwrite"
    # The earlier snapshot still reads as it was.
    first = table.snapshots()[0].snapshot_id
    assert rows(spark.read.format("iceberg").option("snapshot-id", first).load(location)) == [(1, "a"), (2, "a"), (3, "b"), (4, None)]
    # A NULL partition is a partition too.
    spark.sql("SELECT 12L AS id, CAST(NULL AS STRING) AS k").writeTo(f"ice.db.{t}").overwritePartitions()
    assert iceberg_rows(static(location)) == [(3, "b"), (10, "a"), (11, "c"), (12, None)]
    # pyiceberg's files table: the replaced files are gone from the current snapshot.
    assert sorted(f["record_count"] for f in static(location).inspect.files().to_pylist()) == [1, 1, 1, 1]


def test_insert_overwrite_static_and_dynamic(spark, warehouse, ice):
    t = name()
    spark.sql(f"CREATE TABLE ice.db.{t} (id BIGINT, d DATE) USING iceberg PARTITIONED BY (months(d))")
    spark.sql(f"INSERT INTO ice.db.{t} VALUES (1, DATE'2024-01-05'), (2, DATE'2024-02-05'), (3, DATE'2024-02-20')")
    location = os.path.join(warehouse, "db", t)
    spark.conf.set("spark.sql.sources.partitionOverwriteMode", "dynamic")
    spark.sql(f"INSERT OVERWRITE ice.db.{t} VALUES (9, DATE'2024-02-01')")
    assert iceberg_rows(static(location)) == [(1, datetime.date(2024, 1, 5)), (9, datetime.date(2024, 2, 1))]
    spark.conf.set("spark.sql.sources.partitionOverwriteMode", "static")
    spark.sql(f"INSERT OVERWRITE ice.db.{t} VALUES (7, DATE'2024-03-01')")
    assert iceberg_rows(static(location)) == [(7, datetime.date(2024, 3, 1))]


def test_overwrite_partitions_of_a_pyiceberg_table(spark, catalog, warehouse):
    """Entries pyiceberg wrote (sequence numbers inherited from its manifest list) are kept
    as EXISTING entries with those numbers, and the replaced ones deleted."""
    spec = PartitionSpec(PartitionField(4, 1000, YearTransform(), "d_year"))
    t = name()
    table = catalog.create_table(f"db.{t}", schema=SCHEMA, partition_spec=spec, location=f"{warehouse}/db/{t}")
    data = arrow_sample()
    table.append(data.slice(0, 20))
    table.append(data.slice(20))
    spark.conf.set("spark.sql.sources.partitionOverwriteMode", "dynamic")
    try:
        spark.sql("SELECT 1L AS id, DATE'1965-06-01' AS d").write.format("iceberg").mode("overwrite").save(table.location())
    finally:
        spark.conf.unset("spark.sql.sources.partitionOverwriteMode")
    table = static(table.location())
    expected = sorted(
        [r["id"] for r in sample() if r["d"] is None or r["d"].year != 1965] + [1], key=lambda v: (v is None, v or 0)
    )
    assert sorted((r["id"] for r in table.scan().to_arrow().to_pylist()), key=lambda v: (v is None, v or 0)) == expected
    assert rows(spark.read.format("iceberg").load(table.location()).select("id")) == [(v,) for v in sorted(expected, key=lambda v: (v is None, v or 0))]
    # The entries of the manifests the commit wrote: the new file ADDED, the replaced ones
    # DELETED, the other files of the manifest they were in (pyiceberg's first append, whose
    # entries inherit sequence number 1 from its manifest list) EXISTING with that number. The
    # second append's manifest holds no 1965 row and is kept as it is.
    entries = manifest_entries(table, only_new=True)
    by_status = {}
    for e in entries:
        by_status.setdefault(e["status"], set()).add(e["sequence_number"])
    assert by_status == {1: {3}, 0: {1}, 2: {1}}
    years = {e["data_file"]["partition"]["d_year"] for e in entries if e["status"] == 2}
    assert years == {1965 - 1970}


def manifest_entries(table, only_new=False):
    """The current snapshot's manifest entries as fastavro reads them (`only_new`: of the
    manifests it added), with the sequence numbers an entry inherits from its list filled in."""
    import fastavro

    out = []
    with open(table.current_snapshot().manifest_list.removeprefix("file://"), "rb") as f:
        manifests = list(fastavro.reader(f))
    for m in manifests:
        if only_new and m["added_snapshot_id"] != table.current_snapshot().snapshot_id:
            continue
        with open(m["manifest_path"].removeprefix("file://"), "rb") as f:
            for e in fastavro.reader(f):
                if e["sequence_number"] is None:
                    e["sequence_number"] = m["sequence_number"]
                out.append(e)
    return out


def test_partition_transform_errors(spark, tmp_path, ice):
    t = name()
    assert "UNSUPPORTED_PARTITION_TRANSFORM" in error_of(
        lambda: spark.sql(f"CREATE TABLE ice.db.{t} (id BIGINT) USING iceberg PARTITIONED BY (squares(id))")
    )
    assert "Invalid source type string for transform: day" in error_of(
        lambda: spark.sql(f"CREATE TABLE ice.db.{t} (name STRING) USING iceberg PARTITIONED BY (days(name))")
    )
    assert "Cannot find source column: nope" in error_of(
        lambda: spark.sql(f"CREATE TABLE ice.db.{t} (id BIGINT) USING iceberg PARTITIONED BY (bucket(4, nope))")
    )
    assert "INTERNAL_ERROR" not in error_of(
        lambda: spark.sql(f"CREATE TABLE ice.db.{t} (name STRING) USING iceberg PARTITIONED BY (hours(name))")
    )
    # Only primitive columns partition a table.
    assert "for transform: identity" in error_of(
        lambda: spark.sql(f"CREATE TABLE ice.db.{t} (st STRUCT<a: INT>) USING iceberg PARTITIONED BY (st)")
    )
    # The session catalog still takes only columns and one bucket.
    assert "UNSUPPORTED_PARTITION_TRANSFORM" in error_of(
        lambda: spark.sql(f"CREATE TABLE {t} (id BIGINT, ts TIMESTAMP) USING parquet PARTITIONED BY (days(ts))")
    )


def test_partition_values_that_need_escaping(spark, warehouse, ice):
    """Identity partitions of text with `/`, `%`, `=`, spaces and non-ASCII: escaped directory
    names, read back by Ember (a `%` in a file's path once made its scan miss the file) and by
    pyiceberg."""
    t = name()
    values = ["a/b", "50%", "k=v", "with space", "ωmega", "", None]
    spark.sql(f"CREATE TABLE ice.db.{t} (id BIGINT, s STRING) USING iceberg PARTITIONED BY (s)")
    spark.createDataFrame(list(enumerate(values)), "id long, s string").writeTo(f"ice.db.{t}").append()
    table = static(os.path.join(warehouse, "db", t))
    assert iceberg_rows(table) == rows(spark.table(f"ice.db.{t}")) == sorted(
        [(i, v) for i, v in enumerate(values)], key=lambda r: r[0]
    )
    assert rows(spark.table(f"ice.db.{t}").where("s = '50%'").select("id")) == [(1,)]
    assert len(table.inspect.files().to_pylist()) == len(values)


def test_empty_and_arity_checked_writes(spark, warehouse, ice):
    t = name()
    spark.sql(f"CREATE TABLE ice.db.{t} (id BIGINT, d DATE) USING iceberg PARTITIONED BY (days(d))")
    spark.sql(f"INSERT INTO ice.db.{t} SELECT id, DATE'2024-01-01' FROM range(0)")
    table = static(os.path.join(warehouse, "db", t))
    assert iceberg_rows(table) == [] and len(table.snapshots()) == 1
    assert "INSERT_COLUMN_ARITY_MISMATCH" in error_of(lambda: spark.sql(f"INSERT INTO ice.db.{t} VALUES (1)"))
    # By name: a missing nullable column is NULL, in the NULL partition.
    spark.createDataFrame([(5,)], "id long").write.mode("append").saveAsTable(f"ice.db.{t}")
    assert files(static(os.path.join(warehouse, "db", t))) == [((("d_day", None),), 1)]


def test_snapshots_of_partitioned_writes(spark, warehouse, ice):
    t = name()
    spark.sql(f"CREATE TABLE ice.db.{t} (id BIGINT, k STRING) USING iceberg PARTITIONED BY (bucket(2, k))")
    spark.sql(f"INSERT INTO ice.db.{t} VALUES (1, 'a'), (2, 'b')")
    spark.sql(f"INSERT INTO ice.db.{t} VALUES (3, 'c')")
    spark.sql("SELECT 9L AS id, 'a' AS k").writeTo(f"ice.db.{t}").overwritePartitions()
    got = spark.sql(f"SELECT operation, summary['added-records'] AS added FROM ice.db.{t}.snapshots").collect()
    assert [(r.operation, r.added) for r in got] == [("append", "2"), ("append", "1"), ("overwrite", "1")]
    table = static(os.path.join(warehouse, "db", t))
    second = table.snapshots()[1].snapshot_id
    assert rows(spark.sql(f"SELECT * FROM ice.db.{t} VERSION AS OF {second}")) == [(1, "a"), (2, "b"), (3, "c")]
    # The current snapshot: bucket('a') replaced; whichever of 'b' and 'c' share it go too.
    bucket_a = BucketTransform(2).transform(StringType())("a")
    kept = [(i, k) for i, k in [(2, "b"), (3, "c")] if BucketTransform(2).transform(StringType())(k) != bucket_a]
    assert rows(spark.table(f"ice.db.{t}")) == sorted(kept + [(9, "a")])


def test_replace_table(spark, warehouse, ice):
    """`writeTo(...).replace()`, `createOrReplace()` and CREATE OR REPLACE TABLE of an existing
    table, as iceberg-spark's replace transaction: one commit whose metadata has the new
    schema (a column of the same name keeps its field id, new columns get new ids), the new
    partition spec and the new rows as the current snapshot; the old snapshots stay readable
    with their own schema."""
    from pyspark.sql.functions import col, partitioning

    t = name()
    location = os.path.join(warehouse, "db", t)
    spark.sql(f"CREATE TABLE ice.db.{t} (id BIGINT, s STRING) USING iceberg PARTITIONED BY (s)")
    spark.sql(f"INSERT INTO ice.db.{t} VALUES (1, 'a'), (2, 'b')")
    old = static(location)
    old_snapshot = old.current_snapshot().snapshot_id
    old_ids = {f.name: f.field_id for f in old.schema().fields}
    versions = len([f for f in os.listdir(os.path.join(location, "metadata")) if f.endswith(".metadata.json")])
    df = spark.sql("SELECT id, CAST(id * 10 AS INT) AS k, id * 0.5 AS x FROM range(3)")
    df.writeTo(f"ice.db.{t}").using("iceberg").partitionedBy(partitioning.bucket(2, col("id"))).replace()
    table = static(location)
    # One new metadata file.
    assert len([f for f in os.listdir(os.path.join(location, "metadata")) if f.endswith(".metadata.json")]) == versions + 1
    new_ids = {f.name: f.field_id for f in table.schema().fields}
    assert list(new_ids) == ["id", "k", "x"] and new_ids["id"] == old_ids["id"]
    assert new_ids["k"] > max(old_ids.values()) and new_ids["x"] > new_ids["k"]
    assert [(f.name, str(f.transform)) for f in table.spec().fields] == [("id_bucket", "bucket[2]")]
    assert table.spec().fields[0].field_id > 1000
    assert iceberg_rows(table) == [(0, 0, 0.0), (1, 10, 0.5), (2, 20, 1.0)]
    assert rows(spark.table(f"ice.db.{t}")) == [(0, 0, 0.0), (1, 10, 0.5), (2, 20, 1.0)]
    # History: the old snapshot reads with its schema.
    assert spark.sql(f"SELECT count(*) FROM ice.db.{t}.snapshots").first()[0] == 2
    assert rows(spark.sql(f"SELECT * FROM ice.db.{t} VERSION AS OF {old_snapshot}")) == [(1, "a"), (2, "b")]
    # CREATE OR REPLACE TABLE ... AS SELECT, and with columns only (no rows).
    spark.sql(f"CREATE OR REPLACE TABLE ice.db.{t} USING iceberg PARTITIONED BY (k) AS SELECT 7L AS id, 'z' AS k")
    assert rows(spark.table(f"ice.db.{t}")) == [(7, "z")]
    assert [str(f.transform) for f in static(location).spec().fields] == ["identity"]
    spark.sql(f"CREATE OR REPLACE TABLE ice.db.{t} (a INT, b STRING) USING iceberg")
    assert spark.table(f"ice.db.{t}").columns == ["a", "b"] and spark.table(f"ice.db.{t}").count() == 0
    assert static(location).scan().to_arrow().num_rows == 0
    spark.sql(f"INSERT INTO ice.db.{t} VALUES (1, 'q')")
    assert iceberg_rows(static(location)) == [(1, "q")]
    # A missing table is created.
    u = name()
    spark.sql(f"CREATE OR REPLACE TABLE ice.db.{u} USING iceberg AS SELECT 1L AS id")
    assert rows(spark.table(f"ice.db.{u}")) == [(1,)]
