"""Reading and writing an S3-compatible object store (`s3a://`, `s3://`), configured the way
Spark configures Hadoop's S3A connector (`spark.hadoop.fs.s3a.*`), against moto's S3 server.

Every mode runs these: in cluster mode the worker processes reach the bucket with the settings
the session's tasks carry.
"""

import json
import uuid

import pytest
from pyspark.errors import AnalysisException
from pyspark.sql import functions as F

from conftest import free_port

ACCESS_KEY = "ember-test"
SECRET_KEY = "ember-secret"


@pytest.fixture(scope="session")
def s3_endpoint():
    import logging

    from moto.server import ThreadedMotoServer

    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    port = free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    yield f"http://127.0.0.1:{port}"
    server.stop()


@pytest.fixture(scope="module")
def s3(s3_endpoint):
    import boto3

    return boto3.client(
        "s3",
        endpoint_url=s3_endpoint,
        aws_access_key_id=ACCESS_KEY,
        aws_secret_access_key=SECRET_KEY,
        region_name="us-east-1",
    )


@pytest.fixture
def bucket(s3):
    name = f"lake-{uuid.uuid4().hex[:12]}"
    s3.create_bucket(Bucket=name)
    return name


@pytest.fixture(scope="module")
def spark_s3(spark, s3_endpoint):
    settings = {
        # Without a scheme, as S3A takes it; `connection.ssl.enabled` picks http.
        "endpoint": s3_endpoint.removeprefix("http://"),
        "connection.ssl.enabled": "false",
        "access.key": ACCESS_KEY,
        "secret.key": SECRET_KEY,
        "path.style.access": "true",
        "endpoint.region": "us-east-1",
    }
    for key, value in settings.items():
        spark.conf.set(f"spark.hadoop.fs.s3a.{key}", value)
    yield spark
    for key in settings:
        spark.conf.unset(f"spark.hadoop.fs.s3a.{key}")


def keys(s3, bucket, prefix=""):
    listed = s3.list_objects_v2(Bucket=bucket, Prefix=prefix)
    return sorted(o["Key"] for o in listed.get("Contents", []))


def data(spark):
    return spark.range(12).select(
        "id", (F.col("id") % 3).alias("k"), F.concat(F.lit("v"), F.col("id").cast("string")).alias("s")
    )


def test_partitioned_parquet_round_trip(spark_s3, s3, bucket):
    data(spark_s3).write.partitionBy("k").parquet(f"s3a://{bucket}/t")
    written = keys(s3, bucket)
    assert "t/_SUCCESS" in written
    # Hive-style partition directories, and nothing left of the staging area or journal.
    assert {k.split("/")[1] for k in written if k != "t/_SUCCESS"} == {"k=0", "k=1", "k=2"}
    assert all(k.startswith("t/") and k.endswith((".parquet", "_SUCCESS")) for k in written), written
    df = spark_s3.read.parquet(f"s3a://{bucket}/t")
    assert df.columns == ["id", "s", "k"]
    assert dict(df.dtypes) == {"id": "bigint", "s": "string", "k": "int"}
    rows = sorted((r.id, r.k, r.s) for r in df.collect())
    assert rows == [(i, i % 3, f"v{i}") for i in range(12)]
    # A filter on the partition column reads only its directory.
    assert sorted(r.id for r in df.where("k = 1").collect()) == [1, 4, 7, 10]
    # `s3://` reaches the same objects.
    assert spark_s3.read.parquet(f"s3://{bucket}/t/k=2").count() == 4


def test_csv_and_json_modes(spark_s3, s3, bucket):
    path = f"s3a://{bucket}/csv"
    data(spark_s3).write.option("header", True).csv(path)
    data(spark_s3).write.mode("append").option("header", True).csv(path)
    df = spark_s3.read.csv(path, header=True, inferSchema=True)
    assert dict(df.dtypes) == {"id": "int", "k": "int", "s": "string"}
    assert df.count() == 24
    # Overwrite replaces every previous object.
    spark_s3.range(3).write.mode("overwrite").json(path)
    assert sorted(r.id for r in spark_s3.read.json(path).collect()) == [0, 1, 2]
    assert not [k for k in keys(s3, bucket) if k.endswith(".csv")]
    # Ignore leaves what is there.
    spark_s3.range(100).write.mode("ignore").json(path)
    assert spark_s3.read.json(path).count() == 3
    # One file by its key, and a glob.
    one = [k for k in keys(s3, bucket, "csv/") if k.endswith(".json")][0]
    assert spark_s3.read.json(f"s3a://{bucket}/{one}").count() >= 1
    assert spark_s3.read.json(f"s3a://{bucket}/csv/*.json").count() == 3


def test_errors(spark_s3, bucket):
    with pytest.raises(AnalysisException, match="PATH_NOT_FOUND") as e:
        spark_s3.read.parquet(f"s3a://{bucket}/missing").collect()
    assert f"s3a://{bucket}/missing" in str(e.value)
    spark_s3.range(1).write.parquet(f"s3a://{bucket}/t")
    with pytest.raises(AnalysisException, match="PATH_ALREADY_EXISTS"):
        spark_s3.range(1).write.parquet(f"s3a://{bucket}/t")
    with pytest.raises(Exception, match="not supported"):
        spark_s3.read.parquet("hdfs://namenode/t").collect()


def test_failed_write_leaves_previous_objects(spark_s3, s3, bucket):
    path = f"s3a://{bucket}/t"
    spark_s3.range(5).write.parquet(path)
    before = keys(s3, bucket)
    failing = spark_s3.range(1000).selectExpr("CASE WHEN id < 999 THEN id ELSE 1 / (id - id) END AS id")
    with pytest.raises(Exception, match="DIVIDE_BY_ZERO"):
        failing.write.mode("overwrite").parquet(path)
    assert sorted(r.id for r in spark_s3.read.parquet(path).collect()) == list(range(5))
    # Staged objects of the failed job are swept shortly after.
    import time

    deadline = time.time() + 5
    while keys(s3, bucket) != before and time.time() < deadline:
        time.sleep(0.2)
    assert keys(s3, bucket) == before


def test_interrupted_commit_is_finished_by_the_next_read(spark_s3, s3, bucket):
    # What a driver killed after publishing its journal leaves: the journal, staged objects,
    # and the previous object it was replacing.
    spark_s3.range(3).coalesce(1).write.parquet(f"s3a://{bucket}/staged")
    staged = [k for k in keys(s3, bucket, "staged/") if k.endswith(".parquet")]
    assert len(staged) == 1
    s3.put_object(Bucket=bucket, Key="t/old.parquet", Body=b"not parquet")
    journal = {
        "copies": [[staged[0], "t/new.parquet"]],
        "delete": ["t/old.parquet"],
        "staging": "staged",
        "target": "t",
    }
    s3.put_object(Bucket=bucket, Key=".t.ember-commit", Body=json.dumps(journal).encode())
    before = keys(s3, bucket)
    # Planning the read (its schema: the staged object's footer) changes nothing; running it
    # finishes the commit first.
    df = spark_s3.read.parquet(f"s3a://{bucket}/t")
    assert df.columns == ["id"]
    assert keys(s3, bucket) == before
    assert sorted(r.id for r in df.collect()) == [0, 1, 2]
    assert keys(s3, bucket) == ["t/_SUCCESS", "t/new.parquet"]


def test_bucket_specific_settings(spark_s3, s3_endpoint, bucket):
    # `fs.s3a.bucket.<name>.*` overrides the settings of all buckets for one bucket: here the
    # endpoint of all buckets leads nowhere.
    spark_s3.conf.set("spark.hadoop.fs.s3a.endpoint", "127.0.0.1:1")
    spark_s3.conf.set("spark.hadoop.fs.s3a.attempts.maximum", "0")
    spark_s3.conf.set(f"spark.hadoop.fs.s3a.bucket.{bucket}.endpoint", s3_endpoint)
    try:
        spark_s3.range(2).write.json(f"s3a://{bucket}/t")
        assert spark_s3.read.json(f"s3a://{bucket}/t").count() == 2
        spark_s3.conf.unset(f"spark.hadoop.fs.s3a.bucket.{bucket}.endpoint")
        # Unreachable: a clear error, and the server goes on serving.
        with pytest.raises(Exception, match="127.0.0.1:1"):
            spark_s3.read.json(f"s3a://{bucket}/t").collect()
        assert spark_s3.range(3).count() == 3
    finally:
        spark_s3.conf.set("spark.hadoop.fs.s3a.endpoint", s3_endpoint.removeprefix("http://"))
        spark_s3.conf.unset("spark.hadoop.fs.s3a.attempts.maximum")
        spark_s3.conf.unset(f"spark.hadoop.fs.s3a.bucket.{bucket}.endpoint")


def test_text(spark_s3, bucket):
    df = spark_s3.createDataFrame([("a", 1), ("b", 1), ("c", 2)], "value STRING, k INT")
    df.write.partitionBy("k").text(f"s3a://{bucket}/t")
    read = spark_s3.read.text(f"s3a://{bucket}/t")
    assert read.dtypes == [("value", "string"), ("k", "int")]
    assert sorted(tuple(r) for r in read.collect()) == [("a", 1), ("b", 1), ("c", 2)]
    whole = spark_s3.read.text(f"s3a://{bucket}/t/k=1", wholetext=True).collect()
    assert [r.value for r in whole] == ["a\nb\n"]


def test_multiline_json(spark_s3, s3, bucket):
    s3.put_object(Bucket=bucket, Key="j/a.json", Body=b'[{"a": 1, "b": "x"},\n {"a": 2}]')
    s3.put_object(Bucket=bucket, Key="j/b.json", Body=b'{"a": 3,\n "b": "y"}')
    df = spark_s3.read.json(f"s3a://{bucket}/j", multiLine=True)
    assert sorted((r.a, r.b) for r in df.collect()) == [(1, "x"), (2, None), (3, "y")]


# ------------------------------------------------------------------------------------------
# Delta tables in a bucket (issue 28): Ember writes them, deltalake reads them and the
# reverse; commits are deltalake's conditional puts (`If-None-Match: *`) on the bucket.


def deltalake_options(s3_endpoint):
    return {
        "AWS_ENDPOINT_URL": s3_endpoint,
        "AWS_ACCESS_KEY_ID": ACCESS_KEY,
        "AWS_SECRET_ACCESS_KEY": SECRET_KEY,
        "AWS_REGION": "us-east-1",
        "AWS_ALLOW_HTTP": "true",
        "AWS_S3_ALLOW_UNSAFE_RENAME": "true",
    }


def test_delta_table_in_a_bucket(spark_s3, s3, s3_endpoint, bucket):
    from deltalake import DeltaTable

    path = f"s3a://{bucket}/lake/t"
    data(spark_s3).write.format("delta").partitionBy("k").save(path)
    data(spark_s3).where("id < 3").write.format("delta").mode("append").save(path)
    written = keys(s3, bucket, "lake/t/")
    assert "lake/t/_delta_log/00000000000000000000.json" in written
    assert "lake/t/_delta_log/00000000000000000001.json" in written
    assert any(k.startswith("lake/t/k=1/") and k.endswith(".parquet") for k in written), written
    df = spark_s3.read.format("delta").load(path)
    assert sorted(tuple(r) for r in df.select("id", "k", "s").collect()) == sorted(
        [(i, i % 3, f"v{i}") for i in range(12)] + [(i, i % 3, f"v{i}") for i in range(3)]
    )
    # Partition pruning and time travel, SQL on the path.
    assert sorted(r.id for r in df.where("k = 2").collect()) == [2, 2, 5, 8, 11]
    assert spark_s3.read.format("delta").option("versionAsOf", 0).load(path).count() == 12
    assert spark_s3.sql(f"SELECT count(*) FROM delta.`{path}` VERSION AS OF 1").first()[0] == 15
    # deltalake reads what Ember wrote (by s3://, the scheme delta-rs knows).
    theirs = DeltaTable(f"s3://{bucket}/lake/t", storage_options=deltalake_options(s3_endpoint))
    assert theirs.version() == 1
    assert theirs.metadata().partition_columns == ["k"]
    assert sorted(theirs.to_pyarrow_table().column("id").to_pylist()) == sorted(list(range(12)) + [0, 1, 2])
    # Overwrite, and the save modes that look at what is there.
    spark_s3.range(4).selectExpr("id", "0 AS k", "'x' AS s").write.format("delta").mode("overwrite").save(path)
    assert sorted(r.id for r in spark_s3.read.format("delta").load(path).collect()) == [0, 1, 2, 3]
    with pytest.raises(AnalysisException, match="DELTA_PATH_EXISTS"):
        spark_s3.range(1).write.format("delta").save(path)
    spark_s3.range(100).write.format("delta").mode("ignore").save(path)
    assert spark_s3.read.format("delta").load(path).count() == 4


def test_delta_row_level_changes_in_a_bucket(spark_s3, s3_endpoint, bucket):
    from deltalake import DeltaTable

    path = f"s3a://{bucket}/dml"
    data(spark_s3).write.format("delta").save(path)
    assert spark_s3.sql(f"DELETE FROM delta.`{path}` WHERE k = 0").first()[0] == 4
    assert spark_s3.sql(f"UPDATE delta.`{path}` SET s = 'u' WHERE id = 1").first()[0] == 1
    spark_s3.createDataFrame([(1, "m"), (100, "n")], "id BIGINT, s STRING").createOrReplaceTempView("src")
    spark_s3.sql(
        f"""MERGE INTO delta.`{path}` t USING src ON t.id = src.id
        WHEN MATCHED THEN UPDATE SET s = src.s
        WHEN NOT MATCHED THEN INSERT (id, k, s) VALUES (src.id, 9, src.s)"""
    )
    got = sorted(tuple(r) for r in spark_s3.read.format("delta").load(path).select("id", "s").collect())
    expected = sorted([(i, f"v{i}") for i in range(12) if i % 3 and i != 1] + [(1, "m"), (100, "n")])
    assert got == expected
    theirs = DeltaTable(f"s3://{bucket}/dml", storage_options=deltalake_options(s3_endpoint))
    assert sorted(zip(*[theirs.to_pyarrow_table().column(c).to_pylist() for c in ("id", "s")])) == expected
    history = spark_s3.sql(f"DESCRIBE HISTORY delta.`{path}`").select("version", "operation").collect()
    assert [(r.version, r.operation) for r in history] == [(3, "MERGE"), (2, "UPDATE"), (1, "DELETE"), (0, "WRITE")]
    spark_s3.sql(f"INSERT INTO delta.`{path}` VALUES (200, 5, 'i')")
    assert spark_s3.read.format("delta").load(path).where("id = 200").select("s").first()[0] == "i"


def test_deltalake_table_in_a_bucket_read(spark_s3, s3_endpoint, bucket):
    import pyarrow as pa
    from deltalake import write_deltalake

    table = f"s3://{bucket}/theirs"
    options = deltalake_options(s3_endpoint)
    write_deltalake(table, pa.table({"a": [1, 2, 3], "p": ["x", "y", "x"]}), partition_by=["p"], storage_options=options)
    write_deltalake(table, pa.table({"a": [4], "p": ["z"]}), mode="append", storage_options=options)
    df = spark_s3.read.format("delta").load(f"s3a://{bucket}/theirs")
    assert sorted(tuple(r) for r in df.collect()) == [(1, "x"), (2, "y"), (3, "x"), (4, "z")]
    assert spark_s3.read.format("delta").option("versionAsOf", 0).load(f"s3a://{bucket}/theirs").count() == 3
    with pytest.raises(AnalysisException, match="DELTA_PATH_DOES_NOT_EXIST|DELTA_MISSING_DELTA_TABLE"):
        spark_s3.read.format("delta").load(f"s3a://{bucket}/nothing").collect()


def test_delta_partition_values_that_need_escaping_in_a_bucket(spark_s3, s3_endpoint, bucket):
    from deltalake import DeltaTable

    path = f"s3a://{bucket}/esc"
    values = ["a b", "x%y", "c/d", "ü=1", None]
    df = spark_s3.createDataFrame([(i, v) for i, v in enumerate(values)], "id INT, p STRING")
    df.write.format("delta").partitionBy("p").save(path)
    got = sorted(tuple(r) for r in spark_s3.read.format("delta").load(path).select("id", "p").collect())
    assert got == [(i, v) for i, v in enumerate(values)]
    assert [r.id for r in spark_s3.read.format("delta").load(path).where("p = 'x%y'").collect()] == [1]
    theirs = DeltaTable(f"s3://{bucket}/esc", storage_options=deltalake_options(s3_endpoint)).to_pyarrow_table()
    assert sorted(zip(theirs.column("id").to_pylist(), theirs.column("p").to_pylist())) == got


def test_concurrent_delta_appends_in_a_bucket_lose_no_commit(spark_s3, s3, s3_endpoint, bucket):
    """Each commit is a conditional put of the next version's log entry: of two writers of one
    version one wins, the other sees the conflict, checks it and commits the version after."""
    from concurrent.futures import ThreadPoolExecutor

    from deltalake import DeltaTable

    path = f"s3a://{bucket}/race"
    spark_s3.range(0).write.format("delta").save(path)

    def append(k):
        spark_s3.range(k * 10, k * 10 + 10).write.format("delta").mode("append").save(path)

    with ThreadPoolExecutor(4) as pool:
        list(pool.map(append, range(4)))
    assert sorted(r.id for r in spark_s3.read.format("delta").load(path).collect()) == list(range(40))
    log = [k for k in keys(s3, bucket, "race/_delta_log/") if k.endswith(".json")]
    assert len(log) == 5, log
    theirs = DeltaTable(f"s3://{bucket}/race", storage_options=deltalake_options(s3_endpoint))
    assert theirs.version() == 4


def test_unreachable_bucket_is_named_for_a_delta_read(spark_s3, bucket):
    spark_s3.conf.set(f"spark.hadoop.fs.s3a.bucket.{bucket}.endpoint", "127.0.0.1:1")
    spark_s3.conf.set("spark.hadoop.fs.s3a.attempts.maximum", "0")
    try:
        with pytest.raises(Exception, match="127.0.0.1:1"):
            spark_s3.read.format("delta").load(f"s3a://{bucket}/t").collect()
        assert spark_s3.range(3).count() == 3
    finally:
        spark_s3.conf.unset(f"spark.hadoop.fs.s3a.bucket.{bucket}.endpoint")
        spark_s3.conf.unset("spark.hadoop.fs.s3a.attempts.maximum")


# ------------------------------------------------------------------------------------------
# Iceberg tables in a bucket (issue 28): path-based tables and a Hadoop catalog whose
# warehouse is a bucket; pyiceberg (pyarrow's S3 file system on the same moto server) reads
# what Ember writes and the reverse. A commit's metadata file is a conditional put.


def pyiceberg_properties(s3_endpoint):
    return {
        "s3.endpoint": s3_endpoint,
        "s3.access-key-id": ACCESS_KEY,
        "s3.secret-access-key": SECRET_KEY,
        "s3.region": "us-east-1",
        "s3.force-virtual-addressing": "false",
    }


def newest_metadata(s3, bucket, prefix):
    names = [k for k in keys(s3, bucket, f"{prefix}/metadata/") if k.endswith(".metadata.json")]
    return max(names, key=lambda k: int(k.rsplit("/", 1)[1].split(".")[0].lstrip("v").split("-")[0]))


def pyiceberg_rows(s3, s3_endpoint, bucket, prefix, columns):
    from pyiceberg.table import StaticTable

    table = StaticTable.from_metadata(
        f"s3://{bucket}/{newest_metadata(s3, bucket, prefix)}", properties=pyiceberg_properties(s3_endpoint)
    )
    data = table.scan().to_arrow()
    return sorted(zip(*[data.column(c).to_pylist() for c in columns]))


def test_iceberg_table_in_a_bucket(spark_s3, s3, s3_endpoint, bucket):
    path = f"s3a://{bucket}/ice/t"
    data(spark_s3).write.format("iceberg").save(path)
    data(spark_s3).where("id < 2").write.format("iceberg").mode("append").save(path)
    written = keys(s3, bucket, "ice/t/")
    assert "ice/t/metadata/v1.metadata.json" in written and "ice/t/metadata/v3.metadata.json" in written, written
    assert any(k.startswith("ice/t/data/") and k.endswith(".parquet") for k in written)
    expected = sorted([(i, i % 3, f"v{i}") for i in range(12)] + [(0, 0, "v0"), (1, 1, "v1")])
    df = spark_s3.read.format("iceberg").load(path)
    assert sorted(tuple(r) for r in df.select("id", "k", "s").collect()) == expected
    assert sorted(r.id for r in df.where("k = 2").collect()) == [2, 5, 8, 11]
    # Time travel to the first snapshot; the metadata tables.
    snapshots = spark_s3.read.format("iceberg").load(f"{path}#snapshots").orderBy("committed_at").collect()
    assert len(snapshots) == 2
    first = spark_s3.read.format("iceberg").option("snapshot-id", snapshots[0].snapshot_id).load(path)
    assert first.count() == 12
    files = spark_s3.read.format("iceberg").load(f"{path}#files").collect()
    assert all(f.file_path.startswith(f"s3a://{bucket}/ice/t/data/") for f in files), files
    # pyiceberg reads what Ember wrote.
    assert pyiceberg_rows(s3, s3_endpoint, bucket, "ice/t", ["id", "k", "s"]) == expected
    # Overwrite replaces the rows.
    spark_s3.range(3).selectExpr("id", "0 AS k", "'x' AS s").write.format("iceberg").mode("overwrite").save(path)
    assert sorted(r.id for r in spark_s3.read.format("iceberg").load(path).collect()) == [0, 1, 2]
    assert pyiceberg_rows(s3, s3_endpoint, bucket, "ice/t", ["id"]) == [(0,), (1,), (2,)]


def test_iceberg_catalog_warehouse_in_a_bucket(spark_s3, s3, s3_endpoint, bucket):
    settings = {
        "spark.sql.catalog.s3ice": "org.apache.iceberg.spark.SparkCatalog",
        "spark.sql.catalog.s3ice.type": "hadoop",
        "spark.sql.catalog.s3ice.warehouse": f"s3a://{bucket}/wh",
    }
    for k, v in settings.items():
        spark_s3.conf.set(k, v)
    try:
        spark_s3.sql(
            "CREATE TABLE s3ice.db.events (id BIGINT, ts TIMESTAMP, cat STRING) USING iceberg "
            "PARTITIONED BY (days(ts), bucket(4, id))"
        )
        spark_s3.sql(
            "INSERT INTO s3ice.db.events VALUES (1, TIMESTAMP '2026-01-01 10:00:00', 'a'), "
            "(2, TIMESTAMP '2026-01-02 11:00:00', 'b'), (3, TIMESTAMP '2026-01-01 12:00:00', 'c')"
        )
        got = sorted(tuple(r) for r in spark_s3.sql("SELECT id, cat FROM s3ice.db.events").collect())
        assert got == [(1, "a"), (2, "b"), (3, "c")]
        assert spark_s3.sql("SELECT count(*) FROM s3ice.db.events WHERE ts < '2026-01-02'").first()[0] == 2
        assert spark_s3.sql("SELECT count(*) FROM s3ice.db.events.files").first()[0] >= 2
        dirs = {k.split("/")[4] for k in keys(s3, bucket, "wh/db/events/data/")}
        assert {"ts_day=2026-01-01", "ts_day=2026-01-02"} <= dirs, dirs
        # pyiceberg reads the partitioned table with its partition spec.
        assert pyiceberg_rows(s3, s3_endpoint, bucket, "wh/db/events", ["id", "cat"]) == got
        # Dynamic partition overwrite replaces the touched partitions only.
        spark_s3.createDataFrame([(1, "2026-01-01 09:00:00", "z")], "id BIGINT, ts STRING, cat STRING").selectExpr(
            "id", "CAST(ts AS TIMESTAMP) AS ts", "cat"
        ).writeTo("s3ice.db.events").overwritePartitions()
        got = sorted(tuple(r) for r in spark_s3.sql("SELECT id, cat FROM s3ice.db.events").collect())
        assert (1, "z") in got and (2, "b") in got and (1, "a") not in got
    finally:
        for k in settings:
            spark_s3.conf.unset(k)


def test_pyiceberg_table_in_a_bucket_read(spark_s3, s3_endpoint, bucket, tmp_path):
    import pyarrow as pa
    from pyiceberg.catalog.sql import SqlCatalog

    catalog = SqlCatalog(
        "theirs",
        uri=f"sqlite:///{tmp_path}/catalog.db",
        warehouse=f"s3://{bucket}/pyice",
        **pyiceberg_properties(s3_endpoint),
    )
    catalog.create_namespace("db")
    table = catalog.create_table("db.t", schema=pa.schema([("a", pa.int64()), ("b", pa.string())]))
    table.append(pa.table({"a": [1, 2], "b": ["x", "y"]}))
    table.append(pa.table({"a": [3], "b": ["z"]}))
    location = table.location().replace("s3://", "s3a://")
    got = sorted(tuple(r) for r in spark_s3.read.format("iceberg").load(location).collect())
    assert got == [(1, "x"), (2, "y"), (3, "z")]
    # By its metadata file too (the s3:// scheme pyiceberg wrote).
    got = spark_s3.read.format("iceberg").load(table.metadata_location).count()
    assert got == 3
    # Ember appends to it by its location (as a Hadoop table: the next metadata file beside
    # pyiceberg's; the SQL catalog's pointer is pyiceberg's to move) and reads it back.
    spark_s3.createDataFrame([(4, "w")], "a BIGINT, b STRING").write.format("iceberg").mode("append").save(location)
    got = sorted(tuple(r) for r in spark_s3.read.format("iceberg").load(location).collect())
    assert got == [(1, "x"), (2, "y"), (3, "z"), (4, "w")]


def test_concurrent_iceberg_commits_in_a_bucket_are_refused_not_lost(spark_s3, s3, s3_endpoint, bucket):
    import threading

    path = f"s3a://{bucket}/race-ice"
    spark_s3.range(1).write.format("iceberg").save(path)
    errors = []

    def write():
        try:
            spark_s3.range(1).write.format("iceberg").mode("append").save(path)
        except Exception as e:
            errors.append(str(e))

    threads = [threading.Thread(target=write) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all("CommitFailedException" in e for e in errors) and len(errors) < 4, errors
    assert spark_s3.read.format("iceberg").load(path).count() == 1 + 4 - len(errors)
    assert len(pyiceberg_rows(s3, s3_endpoint, bucket, "race-ice", ["id"])) == 1 + 4 - len(errors)


# ------------------------------------------------------------------------------------------
# Merge-on-read deletes in a bucket: the data files with deletes are read range by range from
# the bucket by the deleted-rows scan (on cluster workers too).


def upload(s3, bucket, directory, prefix):
    import os

    for root, _, names in os.walk(directory):
        for name in names:
            full = os.path.join(root, name)
            s3.upload_file(full, bucket, f"{prefix}/{os.path.relpath(full, directory)}")


@pytest.mark.parametrize("inline", [True, False], ids=["inline", "file"])
def test_delta_deletion_vectors_in_a_bucket(spark_s3, s3, bucket, tmp_path, inline):
    import pyarrow as pa
    from deltalake import write_deltalake

    from test_delta_deletion_vectors import add_deletion_vectors, log_files, relative

    local = str(tmp_path / "t")
    write_deltalake(local, pa.table({"id": pa.array(range(0, 5), pa.int64()), "g": ["a", "b", "a", "b", "a"]}), partition_by=["g"])
    write_deltalake(local, pa.table({"id": pa.array(range(5, 10), pa.int64()), "g": ["a"] * 5}), mode="append", partition_by=["g"])
    files = [relative(local, f) for f in log_files(local)]
    version = add_deletion_vectors(local, {files[0]: [0], files[-1]: [1, 4]}, inline=inline)
    upload(s3, bucket, local, "dv")
    df = spark_s3.read.format("delta").load(f"s3a://{bucket}/dv")
    every = set(range(10))
    got = {r.id for r in df.collect()}
    assert len(got) == 7 and got < every
    assert df.count() == 7
    assert spark_s3.read.format("delta").option("versionAsOf", version - 1).load(f"s3a://{bucket}/dv").count() == 10


def add_position_delete_in_bucket(s3, bucket, prefix, pairs):
    """A new snapshot of the Iceberg table at `s3://bucket/prefix` with one position delete
    file of `pairs` (data file path, row): parquet, a delete manifest and a manifest list
    (fastavro, with the table's own manifest schemas), a new metadata file; all in the bucket."""
    import io
    import json
    import random
    import time

    import fastavro
    import pyarrow as pa
    import pyarrow.parquet as pq

    def get(key):
        return s3.get_object(Bucket=bucket, Key=key)["Body"].read()

    def key_of(path):
        return path.split("://", 1)[1].split("/", 1)[1]

    metas = [k for k in keys(s3, bucket, f"{prefix}/metadata/") if k.endswith(".metadata.json")]
    meta_key = max(metas, key=lambda k: int(k.rsplit("/", 1)[1].split(".")[0].lstrip("v").split("-")[0]))
    meta = json.loads(get(meta_key))
    current = next(s for s in meta["snapshots"] if s["snapshot-id"] == meta["current-snapshot-id"])
    reader = fastavro.reader(io.BytesIO(get(key_of(current["manifest-list"]))))
    list_schema, manifests = reader.writer_schema, list(reader)
    template = manifests[0]
    reader = fastavro.reader(io.BytesIO(get(key_of(template["manifest_path"]))))
    manifest_schema, manifest_meta, entries = reader.writer_schema, reader.metadata, list(reader)
    snapshot_id = random.randrange(1, 2**62)
    sequence = meta["last-sequence-number"] + 1
    schema = pa.schema(
        [
            pa.field("file_path", pa.string(), nullable=False, metadata={b"PARQUET:field_id": b"2147483546"}),
            pa.field("pos", pa.int64(), nullable=False, metadata={b"PARQUET:field_id": b"2147483545"}),
        ]
    )
    buffer = io.BytesIO()
    pq.write_table(pa.table({"file_path": [p for p, _ in pairs], "pos": [q for _, q in pairs]}, schema=schema), buffer)
    location = meta["location"].rstrip("/")
    deletes = f"{location}/data/deletes-{snapshot_id}.parquet"
    s3.put_object(Bucket=bucket, Key=key_of(deletes), Body=buffer.getvalue())
    entry = dict(entries[0], status=1, snapshot_id=snapshot_id, sequence_number=None)
    if "file_sequence_number" in entry:
        entry["file_sequence_number"] = None
    entry["data_file"] = dict(
        entry["data_file"], content=1, file_path=deletes, file_format="PARQUET", record_count=len(pairs), file_size_in_bytes=len(buffer.getvalue())
    )
    out = io.BytesIO()
    fastavro.writer(out, manifest_schema, [entry], metadata={**{k: v for k, v in manifest_meta.items() if not k.startswith("avro.")}, "content": "deletes"})
    manifest = f"{location}/metadata/deletes-{snapshot_id}-m0.avro"
    s3.put_object(Bucket=bucket, Key=key_of(manifest), Body=out.getvalue())
    listed = dict(
        template,
        manifest_path=manifest,
        manifest_length=len(out.getvalue()),
        content=1,
        sequence_number=sequence,
        min_sequence_number=sequence,
        added_snapshot_id=snapshot_id,
        added_files_count=1,
        existing_files_count=0,
        deleted_files_count=0,
        added_rows_count=len(pairs),
        existing_rows_count=0,
        deleted_rows_count=0,
    )
    out = io.BytesIO()
    fastavro.writer(out, list_schema, manifests + [listed], metadata={"snapshot-id": str(snapshot_id), "sequence-number": str(sequence), "format-version": "2"})
    manifest_list = f"{location}/metadata/snap-{snapshot_id}-deletes.avro"
    s3.put_object(Bucket=bucket, Key=key_of(manifest_list), Body=out.getvalue())
    now = int(time.time() * 1000)
    meta["snapshots"].append(
        {
            "snapshot-id": snapshot_id,
            "parent-snapshot-id": current["snapshot-id"],
            "sequence-number": sequence,
            "timestamp-ms": now,
            "manifest-list": manifest_list,
            "summary": {"operation": "delete"},
            "schema-id": current.get("schema-id", 0),
        }
    )
    meta["current-snapshot-id"] = snapshot_id
    meta["last-sequence-number"] = sequence
    meta["refs"] = {"main": {"snapshot-id": snapshot_id, "type": "branch"}}
    meta.setdefault("snapshot-log", []).append({"timestamp-ms": now, "snapshot-id": snapshot_id})
    version = int(meta_key.rsplit("/", 1)[1].split(".")[0].lstrip("v").split("-")[0]) + 1
    s3.put_object(Bucket=bucket, Key=f"{prefix}/metadata/v{version}.metadata.json", Body=json.dumps(meta).encode())


def test_iceberg_position_deletes_in_a_bucket(spark_s3, s3, s3_endpoint, bucket):
    path = f"s3a://{bucket}/ice-del"
    spark_s3.range(6).write.format("iceberg").save(path)
    [data_file] = [r.file_path for r in spark_s3.read.format("iceberg").load(f"{path}#files").collect()]
    before = sorted(r.id for r in spark_s3.read.format("iceberg").load(path).collect())
    assert before == list(range(6))
    add_position_delete_in_bucket(s3, bucket, "ice-del", [(data_file, 1), (data_file, 4)])
    df = spark_s3.read.format("iceberg").load(path)
    assert sorted(r.id for r in df.collect()) == [0, 2, 3, 5]
    assert df.where("id > 1").count() == 3
    # pyiceberg applies the same deletes.
    assert pyiceberg_rows(s3, s3_endpoint, bucket, "ice-del", ["id"]) == [(0,), (2,), (3,), (5,)]


def test_iceberg_deletes_of_a_file_of_many_pages_in_a_bucket(spark_s3, s3, bucket):
    """A data file of several row groups and many pages, read page by page from the bucket."""
    path = f"s3a://{bucket}/ice-big"
    spark_s3.range(300_000).selectExpr("id", "CAST(id AS STRING) AS s").coalesce(1).write.format("iceberg").save(path)
    [data_file] = [r.file_path for r in spark_s3.read.format("iceberg").load(f"{path}#files").collect()]
    add_position_delete_in_bucket(s3, bucket, "ice-big", [(data_file, 0), (data_file, 150_000), (data_file, 299_999)])
    df = spark_s3.read.format("iceberg").load(path)
    assert df.count() == 299_997
    assert df.where("id IN (0, 150000, 299999)").count() == 0
    assert df.selectExpr("sum(id)").first()[0] == sum(range(300_000)) - 150_000 - 299_999
