"""Delta tables with deletion vectors (issue 28): the rows a file's deletion vector marks are
not read, whether the vector is inline in the log (`storageType` `i`) or in a
`deletion_vector_<uuid>.bin` file beside the data (`u`), in partitioned tables too, and time
travel to a version before the vector sees the rows again.

Spark and Databricks write deletion vectors (delta-spark's default for new tables since 3.x);
the `deltalake` package does not, so each test writes its table with `deltalake` and then
commits a vector as delta-spark does: a `remove` and an `add` of the same file, the `add`
carrying the vector's descriptor (a RoaringBitmapArray: magic, then 64-bit Roaring buckets
in the portable format, from `pyroaring`, which pyiceberg requires), with the protocol's `deletionVectors` feature.
"""

import json
import os
import time
import uuid
import zlib

import pyarrow as pa
import pytest
from deltalake import DeltaTable, write_deltalake
from pyroaring import BitMap

from conftest import RECORD

pytestmark = pytest.mark.usefixtures("utc")

Z85 = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#"
MAGIC = 1681511377


@pytest.fixture(autouse=True)
def not_recording():
    if RECORD:
        pytest.skip("the reference Spark has no Delta Lake (delta-spark jars unavailable offline)")


def z85(data: bytes) -> str:
    data += b"\0" * (-len(data) % 4)
    out = []
    for i in range(0, len(data), 4):
        v = int.from_bytes(data[i : i + 4], "big")
        chunk = []
        for _ in range(5):
            v, r = divmod(v, 85)
            chunk.append(Z85[r])
        out.extend(reversed(chunk))
    return "".join(out)


def bitmap_array(positions) -> bytes:
    """Delta's RoaringBitmapArray: magic, bucket count, then (high 32 bits, 32-bit bitmap)."""
    buckets = {}
    for p in positions:
        buckets.setdefault(p >> 32, []).append(p & 0xFFFFFFFF)
    out = MAGIC.to_bytes(4, "little") + len(buckets).to_bytes(8, "little")
    for key in sorted(buckets):
        out += key.to_bytes(4, "little") + BitMap(buckets[key]).serialize()
    return out


def add_deletion_vectors(path, deletes, inline=True):
    """Commit deletion vectors: `deletes` maps a data file (as the log names it) to the
    positions deleted in it."""
    table = DeltaTable(path)
    version = table.version() + 1
    adds = {}
    log = os.path.join(path, "_delta_log")
    for name in sorted(os.listdir(log)):
        if name.endswith(".json"):
            for line in open(os.path.join(log, name)):
                action = json.loads(line)
                if "add" in action:
                    adds[action["add"]["path"]] = action["add"]
                if "remove" in action:
                    adds.pop(action["remove"]["path"], None)
    now = int(time.time() * 1000)
    actions = [
        {"protocol": {"minReaderVersion": 3, "minWriterVersion": 7, "readerFeatures": ["deletionVectors"], "writerFeatures": ["deletionVectors"]}},
        {"commitInfo": {"timestamp": now, "operation": "DELETE", "operationParameters": {}}},
    ]
    for file, positions in deletes.items():
        data = bitmap_array(positions)
        if inline:
            dv = {"storageType": "i", "pathOrInlineDv": z85(data), "sizeInBytes": len(data), "cardinality": len(positions)}
        else:
            dv_uuid = uuid.uuid4()
            with open(os.path.join(path, f"deletion_vector_{dv_uuid}.bin"), "wb") as f:
                f.write(b"\x01" + len(data).to_bytes(4, "big") + data + zlib.crc32(data).to_bytes(4, "big"))
            dv = {"storageType": "u", "pathOrInlineDv": z85(dv_uuid.bytes), "offset": 1, "sizeInBytes": len(data), "cardinality": len(positions)}
        add = dict(adds[file], deletionVector=dv, dataChange=True, modificationTime=now)
        actions.append({"remove": {"path": file, "deletionTimestamp": now, "dataChange": True, "partitionValues": add.get("partitionValues", {}), "size": add["size"]}})
        actions.append({"add": add})
    with open(os.path.join(log, f"{version:020d}.json"), "x") as f:
        f.write("\n".join(json.dumps(a) for a in actions) + "\n")
    return version


def log_files(path):
    """The table's live data files, in the order they were added."""
    return sorted(DeltaTable(path).file_uris(), key=os.path.getmtime)


def relative(path, file):
    return os.path.relpath(file.removeprefix("file://"), path)


def rows(df):
    return sorted(tuple(r) for r in df.collect())


@pytest.mark.parametrize("inline", [True, False], ids=["inline", "file"])
def test_deleted_rows_are_not_read(spark, tmp_path, inline):
    path = str(tmp_path / "t")
    write_deltalake(path, pa.table({"id": pa.array(range(0, 5), pa.int64())}))
    write_deltalake(path, pa.table({"id": pa.array(range(5, 10), pa.int64())}), mode="append")
    a, b = (relative(path, f) for f in log_files(path))
    version = add_deletion_vectors(path, {a: [0, 3], b: [4]}, inline=inline)
    df = spark.read.format("delta").load(path)
    assert rows(df) == [(1,), (2,), (4,), (5,), (6,), (7,), (8,)]
    assert df.count() == 7
    assert rows(df.where("id > 4").selectExpr("sum(id)")) == [(26,)]
    # Before the vectors, every row.
    assert spark.read.format("delta").option("versionAsOf", version - 1).load(path).count() == 10


def test_deletion_vectors_of_partitioned_tables(spark, tmp_path):
    path = str(tmp_path / "t")
    data = pa.table({"id": pa.array(range(8), pa.int64()), "g": ["a", "b"] * 4})
    write_deltalake(path, data, partition_by=["g"])
    files = {relative(path, f): f for f in log_files(path)}
    a = next(f for f in files if "g=a" in f)
    add_deletion_vectors(path, {a: [1, 2]})
    df = spark.read.format("delta").load(path)
    # File g=a holds 0, 2, 4, 6: its rows 1 and 2 (ids 2 and 4) are deleted.
    assert rows(df) == [(0, "a"), (1, "b"), (3, "b"), (5, "b"), (6, "a"), (7, "b")]
    assert rows(df.where("g = 'a'").select("id")) == [(0,), (6,)]
    assert rows(spark.sql(f"SELECT g, count(*) FROM delta.`{path}` GROUP BY g")) == [("a", 2), ("b", 4)]


def test_many_deleted_rows_across_batches(spark, tmp_path):
    path = str(tmp_path / "t")
    write_deltalake(path, pa.table({"id": pa.array(range(30000), pa.int64())}))
    (a,) = (relative(path, f) for f in log_files(path))
    gone = set(range(0, 30000, 7)) | {8191, 8192, 29999}
    add_deletion_vectors(path, {a: sorted(gone)}, inline=False)
    df = spark.read.format("delta").load(path)
    assert df.count() == 30000 - len(gone)
    assert rows(df.selectExpr("sum(id)")) == [(sum(i for i in range(30000) if i not in gone),)]


def test_writes_keep_the_deleted_rows_deleted(spark, tmp_path):
    """DELETE, UPDATE, MERGE and appends on a table with deletion vectors: the rows the vectors
    deleted stay deleted (deltalake's copy-on-write rewrites read through the vectors)."""
    path = str(tmp_path / "t")
    write_deltalake(path, pa.table({"id": pa.array(range(6), pa.int64())}))
    (a,) = (relative(path, f) for f in log_files(path))
    add_deletion_vectors(path, {a: [0, 3]})
    spark.sql(f"DELETE FROM delta.`{path}` WHERE id = 1")
    assert rows(spark.read.format("delta").load(path)) == [(2,), (4,), (5,)]
    spark.sql(f"UPDATE delta.`{path}` SET id = id + 100 WHERE id = 2")
    assert rows(spark.read.format("delta").load(path)) == [(4,), (5,), (102,)]
    spark.sql(
        f"MERGE INTO delta.`{path}` AS t USING (SELECT 5L AS id UNION ALL SELECT 9L) AS s ON t.id = s.id "
        "WHEN MATCHED THEN DELETE WHEN NOT MATCHED THEN INSERT *"
    )
    assert rows(spark.read.format("delta").load(path)) == [(4,), (9,), (102,)]
    spark.range(2).write.format("delta").mode("append").save(path)
    assert rows(spark.read.format("delta").load(path)) == [(0,), (1,), (4,), (9,), (102,)]


def test_history_and_timestamp_travel_around_a_vector(spark, tmp_path):
    path = str(tmp_path / "t")
    write_deltalake(path, pa.table({"id": pa.array(range(4), pa.int64())}))
    (a,) = (relative(path, f) for f in log_files(path))
    time.sleep(1.1)
    version = add_deletion_vectors(path, {a: [1]})
    history = spark.sql(f"DESCRIBE HISTORY delta.`{path}`").collect()
    assert [(r.version, r.operation) for r in history][:1] == [(version, "DELETE")]
    before = history[1].timestamp
    assert rows(spark.sql(f"SELECT * FROM delta.`{path}` TIMESTAMP AS OF '{before}'")) == [(0,), (1,), (2,), (3,)]
    assert rows(spark.sql(f"SELECT * FROM delta.`{path}`")) == [(0,), (2,), (3,)]
