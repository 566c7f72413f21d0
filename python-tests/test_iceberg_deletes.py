"""Merge-on-read deletes of Iceberg tables (issue 28): position delete files and equality
delete files, scoped by data sequence numbers and partitions as the Iceberg spec says.

pyiceberg writes no delete files (its deletes are copy-on-write), so each test adds one to a
table pyiceberg wrote: a delete file in parquet, a delete manifest and a new manifest list
(fastavro, with pyiceberg's own manifest schemas), named by a new snapshot in a new metadata
file. Position deletes are checked against pyiceberg's own scan (it applies them); equality
deletes, which pyiceberg cannot read, against the rows computed here.
"""

import json
import os
import random
import time

import fastavro
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pyiceberg.catalog.sql import SqlCatalog
from pyiceberg.partitioning import PartitionField, PartitionSpec
from pyiceberg.schema import Schema
from pyiceberg.table import StaticTable
from pyiceberg.transforms import IdentityTransform
from pyiceberg.types import LongType, NestedField, StringType

from conftest import RECORD
from test_iceberg import iceberg_rows, rows

pytestmark = pytest.mark.usefixtures("utc")


@pytest.fixture(autouse=True)
def not_recording():
    if RECORD:
        pytest.skip("the reference Spark has no Iceberg (iceberg-spark jars unavailable offline)")


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory):
    return str(tmp_path_factory.mktemp("iceberg_deletes"))


@pytest.fixture(scope="module")
def catalog(warehouse):
    cat = SqlCatalog("pyiceberg", uri=f"sqlite:///{warehouse}/catalog.db", warehouse=f"file://{warehouse}")
    cat.create_namespace("db")
    return cat


SCHEMA = Schema(
    NestedField(1, "id", LongType(), required=False),
    NestedField(2, "name", StringType(), required=False),
    NestedField(3, "cat", StringType(), required=False),
)

_names = iter(range(10**6))


def new_table(catalog, warehouse, spec=PartitionSpec()):
    name = f"t{next(_names)}"
    return catalog.create_table(f"db.{name}", schema=SCHEMA, partition_spec=spec, location=f"{warehouse}/db/{name}")


def data(ids, cat="a"):
    return pa.table(
        {
            "id": pa.array(ids, pa.int64()),
            "name": pa.array([None if i is None else f"n{i}" for i in ids], pa.string()),
            "cat": pa.array([cat] * len(ids), pa.string()),
        }
    )


def local(path):
    return path.removeprefix("file://")


def data_files(table):
    """The current snapshot's data files, in the order of their sequence numbers."""
    files = [(f["file_path"], f["record_count"]) for f in table.inspect.files().to_pylist() if f["content"] == 0]
    return sorted(files, key=lambda f: os.path.getmtime(local(f[0])))


def add_delete_file(table, columns, content, equality_ids=None, sequence=None, partition=None):
    """A new snapshot of `table` (a StaticTable or pyiceberg table) with one more delete file
    of `columns` (a pyarrow table; `content` 1 position deletes, 2 equality deletes). Its data
    sequence number is the snapshot's (or `sequence`). Returns the table at the new metadata."""
    location = local(table.location())
    meta_path = local(table.metadata_location)
    meta = json.load(open(meta_path))
    current = next(s for s in meta["snapshots"] if s["snapshot-id"] == meta["current-snapshot-id"])
    with open(local(current["manifest-list"]), "rb") as f:
        reader = fastavro.reader(f)
        list_schema, manifests = reader.writer_schema, list(reader)
    template = next(m for m in manifests if m["content"] == 0)
    with open(local(template["manifest_path"]), "rb") as f:
        reader = fastavro.reader(f)
        manifest_schema, manifest_meta, entries = reader.writer_schema, reader.metadata, list(reader)
    snapshot_id = random.randrange(1, 2**62)
    new_sequence = meta["last-sequence-number"] + 1
    n = len(os.listdir(f"{location}/data"))
    deletes = f"{location}/data/deletes-{n}.parquet"
    pq.write_table(columns, deletes)
    entry = dict(entries[0])
    entry.update(status=1, snapshot_id=snapshot_id, sequence_number=sequence, file_sequence_number=sequence)
    data_file = dict(entry["data_file"])
    for stat in ("column_sizes", "value_counts", "null_value_counts", "nan_value_counts", "lower_bounds", "upper_bounds"):
        if stat in data_file:
            data_file[stat] = None
    data_file.update(
        content=content,
        file_path=deletes,
        file_format="PARQUET",
        record_count=columns.num_rows,
        file_size_in_bytes=os.path.getsize(deletes),
        equality_ids=equality_ids,
    )
    if partition is not None:
        data_file["partition"] = partition
    entry["data_file"] = data_file
    manifest_path = f"{location}/metadata/deletes-{snapshot_id}-m0.avro"
    with open(manifest_path, "wb") as f:
        m = {k: v for k, v in manifest_meta.items() if not k.startswith("avro.")}
        m["content"] = "deletes"
        fastavro.writer(f, manifest_schema, [entry], metadata=m)
    listed = dict(
        template,
        manifest_path=manifest_path,
        manifest_length=os.path.getsize(manifest_path),
        content=1,
        sequence_number=new_sequence,
        min_sequence_number=new_sequence if sequence is None else sequence,
        added_snapshot_id=snapshot_id,
        added_files_count=1,
        existing_files_count=0,
        deleted_files_count=0,
        added_rows_count=columns.num_rows,
        existing_rows_count=0,
        deleted_rows_count=0,
    )
    list_path = f"{location}/metadata/snap-{snapshot_id}-deletes.avro"
    with open(list_path, "wb") as f:
        fastavro.writer(f, list_schema, manifests + [listed], metadata={"snapshot-id": str(snapshot_id), "sequence-number": str(new_sequence), "format-version": "2"})
    now = int(time.time() * 1000)
    meta["snapshots"].append(
        {
            "snapshot-id": snapshot_id,
            "parent-snapshot-id": current["snapshot-id"],
            "sequence-number": new_sequence,
            "timestamp-ms": now,
            "manifest-list": list_path,
            "summary": {"operation": "delete"},
            "schema-id": current.get("schema-id", 0),
        }
    )
    meta["current-snapshot-id"] = snapshot_id
    meta["last-sequence-number"] = new_sequence
    meta["refs"] = {"main": {"snapshot-id": snapshot_id, "type": "branch"}}
    meta["snapshot-log"].append({"timestamp-ms": now, "snapshot-id": snapshot_id})
    version = max(int(f.split("-")[0].removeprefix("v").split(".")[0]) for f in os.listdir(f"{location}/metadata") if f.endswith(".metadata.json"))
    path = f"{location}/metadata/{version + 1:05d}-{snapshot_id}.metadata.json"
    with open(path, "w") as f:
        json.dump(meta, f)
    return StaticTable.from_metadata(path)


def position_deletes(pairs):
    """A position delete file's columns, with Iceberg's reserved field ids."""
    schema = pa.schema(
        [
            pa.field("file_path", pa.string(), nullable=False, metadata={b"PARQUET:field_id": b"2147483546"}),
            pa.field("pos", pa.int64(), nullable=False, metadata={b"PARQUET:field_id": b"2147483545"}),
        ]
    )
    return pa.table({"file_path": [p for p, _ in pairs], "pos": [q for _, q in pairs]}, schema=schema)


def equality_deletes(**columns):
    ids = {"id": 1, "name": 2, "cat": 3}
    types = {"id": pa.int64(), "name": pa.string(), "cat": pa.string()}
    schema = pa.schema([pa.field(k, types[k], metadata={b"PARQUET:field_id": str(ids[k]).encode()}) for k in columns])
    return pa.table(columns, schema=schema)


def read(spark, table):
    return spark.read.format("iceberg").load(local(table.location()))


def test_position_deletes(spark, catalog, warehouse):
    table = new_table(catalog, warehouse)
    table.append(data([1, 2, 3, 4]))
    table.append(data([5, 6, 7]))
    (a, _), (b, _) = data_files(table)
    deleted = add_delete_file(table, position_deletes([(a, 0), (a, 2), (b, 1), ("file:///elsewhere.parquet", 0)]), 1)
    assert iceberg_rows(deleted) == [(2, "n2", "a"), (4, "n4", "a"), (5, "n5", "a"), (7, "n7", "a")]
    assert rows(read(spark, deleted)) == iceberg_rows(deleted)
    assert read(spark, deleted).count() == 4
    assert rows(read(spark, deleted).where("id > 3").select("name")) == [("n4",), ("n5",), ("n7",)]
    # The snapshot before the deletes still has every row.
    first = deleted.snapshots()[-2].snapshot_id
    assert spark.read.format("iceberg").option("snapshot-id", first).load(local(table.location())).count() == 7


def test_position_deletes_of_many_rows_and_batches(spark, catalog, warehouse):
    table = new_table(catalog, warehouse)
    table.append(data(list(range(20000))))
    ((a, _),) = data_files(table)
    gone = set(range(0, 20000, 3)) | {19999, 8191, 8192}
    deleted = add_delete_file(table, position_deletes([(a, p) for p in sorted(gone)]), 1)
    assert read(spark, deleted).count() == 20000 - len(gone)
    assert rows(read(spark, deleted).selectExpr("sum(id)")) == [(sum(i for i in range(20000) if i not in gone),)]
    assert rows(read(spark, deleted)) == iceberg_rows(deleted)


def test_position_deletes_only_reach_older_data(spark, catalog, warehouse):
    """A position delete file applies to data files whose sequence number is at most its own."""
    table = new_table(catalog, warehouse)
    table.append(data([1, 2]))
    table.append(data([3, 4]))
    (a, _), (b, _) = data_files(table)
    # Sequence number 1: the first file (1) is reached, the second (2) is not.
    deleted = add_delete_file(table, position_deletes([(a, 0), (b, 0)]), 1, sequence=1)
    assert rows(read(spark, deleted)) == [(2, "n2", "a"), (3, "n3", "a"), (4, "n4", "a")]
    # (pyiceberg 0.12 plans the delete file for the first file only, as here, but then applies
    # every position it holds to whichever file it names, so it also drops row 3.)


def test_equality_deletes(spark, catalog, warehouse):
    table = new_table(catalog, warehouse)
    table.append(data([1, 2, 3, None]))
    table.append(data([2, 5]))
    deleted = add_delete_file(table, equality_deletes(id=pa.array([2, None, 9], pa.int64())), 2, equality_ids=[1])
    # NULL equals NULL in equality deletes.
    assert rows(read(spark, deleted)) == [(1, "n1", "a"), (3, "n3", "a"), (5, "n5", "a")]
    assert read(spark, deleted).where("name = 'n2'").count() == 0


def test_equality_deletes_of_several_columns(spark, catalog, warehouse):
    table = new_table(catalog, warehouse)
    table.append(pa.concat_tables([data([1, 2], "a"), data([1, 2], "b")]))
    deleted = add_delete_file(
        table, equality_deletes(id=pa.array([1, 2], pa.int64()), cat=["a", "b"]), 2, equality_ids=[1, 3]
    )
    assert rows(read(spark, deleted)) == [(1, "n1", "b"), (2, "n2", "a")]


def test_equality_deletes_only_reach_older_data(spark, catalog, warehouse):
    """An equality delete applies to data files whose sequence number is lower than its own."""
    table = new_table(catalog, warehouse)
    table.append(data([1, 2]))
    table.append(data([1, 3]))
    deleted = add_delete_file(table, equality_deletes(id=pa.array([1], pa.int64())), 2, equality_ids=[1], sequence=2)
    # Sequence number 2: the first file (1) loses its row 1, the second (2, not lower) keeps it.
    assert rows(read(spark, deleted)) == [(1, "n1", "a"), (2, "n2", "a"), (3, "n3", "a")]


def test_equality_deletes_stay_in_their_partition(spark, catalog, warehouse):
    spec = PartitionSpec(PartitionField(3, 1000, IdentityTransform(), "cat"))
    table = new_table(catalog, warehouse, spec)
    table.append(pa.concat_tables([data([1, 2], "a"), data([1, 2], "b")]))
    deleted = add_delete_file(table, equality_deletes(id=pa.array([1], pa.int64())), 2, equality_ids=[1], partition={"cat": "a"})
    assert rows(read(spark, deleted)) == [(1, "n1", "b"), (2, "n2", "a"), (2, "n2", "b")]


def test_both_kinds_of_deletes_and_the_files_table(spark, catalog, warehouse):
    table = new_table(catalog, warehouse)
    table.append(data([1, 2, 3, 4]))
    ((a, _),) = data_files(table)
    deleted = add_delete_file(table, position_deletes([(a, 3)]), 1)
    deleted = add_delete_file(deleted, equality_deletes(name=["n1"]), 2, equality_ids=[2])
    assert rows(read(spark, deleted)) == [(2, "n2", "a"), (3, "n3", "a")]
    files = spark.read.format("iceberg").load(local(table.location()) + "#files").select("content").collect()
    assert sorted(r.content for r in files) == [0, 1, 2]


def test_deletes_in_a_join_and_an_aggregate(spark, catalog, warehouse):
    table = new_table(catalog, warehouse)
    table.append(data(list(range(100))))
    ((a, _),) = data_files(table)
    deleted = add_delete_file(table, position_deletes([(a, p) for p in range(0, 100, 2)]), 1)
    df = read(spark, deleted)
    assert rows(df.groupBy((df.id % 5).alias("k")).count()) == [(k, 10) for k in range(5)]
    joined = df.alias("x").join(spark.range(0, 100, 10).alias("y"), "id")
    assert joined.count() == 0


def test_equality_deletes_of_text_with_nulls(spark, catalog, warehouse):
    table = new_table(catalog, warehouse)
    table.append(data([1, 2, None, 4]))
    deleted = add_delete_file(table, equality_deletes(name=pa.array([None, "n2"], pa.string())), 2, equality_ids=[2])
    # The row with a NULL id has a NULL name: the NULL delete row removes it.
    assert rows(read(spark, deleted)) == [(1, "n1", "a"), (4, "n4", "a")]
    assert rows(read(spark, deleted).select("name")) == [("n1",), ("n4",)]
