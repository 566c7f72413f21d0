"""Delta tables with column mapping (issue 28): `delta.columnMapping.mode` `name` (or `id`),
which delta-spark needs for renaming and dropping columns and Databricks turns on for many
tables. The data files and the log (partition values, statistics) name each column by its
`delta.columnMapping.physicalName`; the table's schema gives the names a reader sees. So a
renamed column keeps its data, a dropped column's data stays in the files unread, and a
column added with the name of a dropped one is a new, empty column.

The `deltalake` package does not write column mapping, so each table is written here as
delta-spark writes one: parquet files whose columns have the physical names and field ids
(pyarrow), and the log's JSON actions (protocol reader 2 / writer 5, metaData with the
mapping metadata, adds keyed by physical names). The reference Spark has no delta-spark
here; the expected answers follow from the tables written.
"""

import json
import time
import uuid

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pyspark.errors import AnalysisException

from conftest import RECORD

pytestmark = pytest.mark.usefixtures("utc")


@pytest.fixture(autouse=True)
def not_recording():
    if RECORD:
        pytest.skip("the reference Spark has no Delta Lake (delta-spark jars unavailable offline)")


PHYSICAL = {"id": "col-5f42a1", "name": "col-8c1d2e", "part": "col-1b7f30"}
IDS = {"id": 1, "name": 2, "part": 3}
TYPES = {"id": "long", "name": "string", "part": "string"}


def field(logical, column):
    return {
        "name": logical,
        "type": TYPES[column],
        "nullable": True,
        "metadata": {"delta.columnMapping.id": IDS[column], "delta.columnMapping.physicalName": PHYSICAL[column]},
    }


def metadata(fields, table_id, max_id=3):
    schema = {"type": "struct", "fields": fields}
    return {
        "metaData": {
            "id": table_id,
            "format": {"provider": "parquet", "options": {}},
            "schemaString": json.dumps(schema),
            "partitionColumns": ["part"] if any(f["name"] == "part" for f in fields) else [],
            "configuration": {"delta.columnMapping.mode": "name", "delta.columnMapping.maxColumnId": str(max_id)},
            "createdTime": int(time.time() * 1000),
        }
    }


def data_file(table, part, ids, names):
    """A parquet file of the data columns under their physical names (with field ids), in the
    partition directory delta-spark makes (`<physical partition name>=<value>`)."""
    directory = table / f"{PHYSICAL['part']}={part}"
    directory.mkdir(parents=True, exist_ok=True)
    schema = pa.schema(
        [
            pa.field(PHYSICAL["id"], pa.int64(), metadata={b"PARQUET:field_id": b"1"}),
            pa.field(PHYSICAL["name"], pa.string(), metadata={b"PARQUET:field_id": b"2"}),
        ]
    )
    name = f"part-00000-{uuid.uuid4()}.c000.snappy.parquet"
    pq.write_table(pa.table([pa.array(ids, pa.int64()), pa.array(names, pa.string())], schema=schema), directory / name)
    stats = {
        "numRecords": len(ids),
        "minValues": {PHYSICAL["id"]: min(ids), PHYSICAL["name"]: min(names)},
        "maxValues": {PHYSICAL["id"]: max(ids), PHYSICAL["name"]: max(names)},
        "nullCount": {PHYSICAL["id"]: 0, PHYSICAL["name"]: 0},
    }
    return {
        "add": {
            "path": f"{PHYSICAL['part']}={part}/{name}",
            "partitionValues": {PHYSICAL["part"]: part},
            "size": (directory / name).stat().st_size,
            "modificationTime": int(time.time() * 1000),
            "dataChange": True,
            "stats": json.dumps(stats),
        }
    }


def commit(table, version, actions):
    log = table / "_delta_log"
    log.mkdir(parents=True, exist_ok=True)
    info = {"commitInfo": {"timestamp": int(time.time() * 1000), "operation": "WRITE", "operationParameters": {}}}
    with open(log / f"{version:020d}.json", "w") as f:
        for action in [info, *actions]:
            f.write(json.dumps(action) + "\n")


def mapped_table(tmp_path):
    """Version 0: columns id, name, part (partitioned by part), two files; version 1: `name`
    renamed to `label`."""
    table = tmp_path / "mapped"
    table_id = str(uuid.uuid4())
    protocol = {"protocol": {"minReaderVersion": 2, "minWriterVersion": 5}}
    commit(
        table,
        0,
        [
            protocol,
            metadata([field("id", "id"), field("name", "name"), field("part", "part")], table_id),
            data_file(table, "x", [1, 2], ["a", "b"]),
            data_file(table, "y", [10, 20], ["c", "d"]),
        ],
    )
    commit(table, 1, [metadata([field("id", "id"), field("label", "name"), field("part", "part")], table_id)])
    return table


def rows(df):
    return sorted(tuple(r) for r in df.collect())


def test_mapped_columns_read_by_their_physical_names(spark, tmp_path):
    table = mapped_table(tmp_path)
    df = spark.read.format("delta").load(str(table))
    assert df.columns == ["id", "label", "part"]
    assert rows(df) == [(1, "a", "x"), (2, "b", "x"), (10, "c", "y"), (20, "d", "y")]
    # The rename kept the data; the old name is gone.
    assert rows(df.where("label >= 'c'").select("id")) == [(10,), (20,)]
    with pytest.raises(AnalysisException, match="UNRESOLVED_COLUMN"):
        df.select("name").collect()
    # Time travel sees the column under its name of then.
    v0 = spark.read.format("delta").option("versionAsOf", 0).load(str(table))
    assert v0.columns == ["id", "name", "part"]
    assert rows(v0.select("name")) == [("a",), ("b",), ("c",), ("d",)]
    assert rows(spark.sql(f"SELECT id, label FROM delta.`{table}` WHERE part = 'y'")) == [(10, "c"), (20, "d")]
    # No column read at all.
    assert df.count() == 4
    assert spark.sql(f"SELECT count(*) FROM delta.`{table}` WHERE part = 'x'").first()[0] == 2


def test_statistics_and_partitions_by_physical_names_prune_files(spark, tmp_path):
    table = mapped_table(tmp_path)
    # The files of partition y vanish: reads that prune them by partition value or by the
    # log's statistics (keyed by physical names) never open them.
    for f in (table / f"{PHYSICAL['part']}=y").iterdir():
        f.unlink()
    df = spark.read.format("delta").load(str(table))
    assert rows(df.where("part = 'x'")) == [(1, "a", "x"), (2, "b", "x")]
    assert rows(df.where("id < 5").select("id")) == [(1,), (2,)]
    assert rows(df.where("label = 'b'").select("id")) == [(2,)]
    with pytest.raises(Exception):
        df.collect()


def test_dropped_and_re_added_column(spark, tmp_path):
    table = mapped_table(tmp_path)
    table_id = json.loads((table / "_delta_log" / f"{0:020d}.json").read_text().splitlines()[2])["metaData"]["id"]
    # Version 2 drops `label`; version 3 adds a new column named `label` (a new physical name
    # and id: the dropped column's data is not its data).
    commit(table, 2, [metadata([field("id", "id"), field("part", "part")], table_id)])
    new = {
        "name": "label",
        "type": "string",
        "nullable": True,
        "metadata": {"delta.columnMapping.id": 4, "delta.columnMapping.physicalName": "col-77aa01"},
    }
    commit(table, 3, [metadata([field("id", "id"), field("part", "part"), new], table_id, max_id=4)])
    v2 = spark.read.format("delta").option("versionAsOf", 2).load(str(table))
    assert v2.columns == ["id", "part"]
    assert rows(v2) == [(1, "x"), (2, "x"), (10, "y"), (20, "y")]
    df = spark.read.format("delta").load(str(table))
    assert df.columns == ["id", "part", "label"]
    assert rows(df) == [(1, "x", None), (2, "x", None), (10, "y", None), (20, "y", None)]


def test_writes_to_a_mapped_table_use_its_physical_names(spark, tmp_path):
    """An append to a mapped table (deltalake writes it) names the columns of its files and
    its log entry physically, so the table reads back whole."""
    table = mapped_table(tmp_path)
    path = str(table)
    before = {str(p) for p in table.rglob("*.parquet")}
    spark.createDataFrame([(30, "e", "x")], "id BIGINT, label STRING, part STRING").write.format("delta").mode(
        "append"
    ).save(path)
    got = rows(spark.read.format("delta").load(path))
    assert got == [(1, "a", "x"), (2, "b", "x"), (10, "c", "y"), (20, "d", "y"), (30, "e", "x")]
    [new] = [p for p in table.rglob("*.parquet") if str(p) not in before]
    assert pq.ParquetFile(new).schema_arrow.names == [PHYSICAL["id"], PHYSICAL["name"]]
    add = [json.loads(line) for line in (table / "_delta_log" / f"{2:020d}.json").read_text().splitlines()]
    [add] = [a["add"] for a in add if "add" in a]
    assert add["partitionValues"] == {PHYSICAL["part"]: "x"}
    assert rows(spark.read.format("delta").load(path).where("label = 'e'").select("id")) == [(30,)]


def test_struct_columns_of_mapped_tables_are_refused(spark, tmp_path):
    table = tmp_path / "nested"
    nested = {
        "name": "s",
        "type": {"type": "struct", "fields": [
                {
                    "name": "a",
                    "type": "long",
                    "nullable": True,
                    "metadata": {"delta.columnMapping.id": 5, "delta.columnMapping.physicalName": "col-a5"},
                }
            ],
        },
        "nullable": True,
        "metadata": {"delta.columnMapping.id": 4, "delta.columnMapping.physicalName": "col-9e0f11"},
    }
    commit(
        table,
        0,
        [{"protocol": {"minReaderVersion": 2, "minWriterVersion": 5}}, metadata([field("id", "id"), nested], str(uuid.uuid4()), 5)],
    )
    with pytest.raises(Exception, match="not supported: nested columns of Delta tables with column mapping"):
        spark.read.format("delta").load(str(table)).collect()
