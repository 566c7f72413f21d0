"""Iceberg REST catalogs (issue 28): `spark.sql.catalog.<name>=org.apache.iceberg.spark.SparkCatalog`
with `type=rest`, `uri` (and `token`, `warehouse`), as iceberg-spark takes them: tables read,
created (`CREATE TABLE ... USING iceberg [PARTITIONED BY]`, CTAS, `writeTo().create()`) and
committed to through the catalog, which checks each commit's requirement (the branch is still
where the commit started) and applies it.

The catalog is a small REST server started by the test (`iceberg_rest.py`) over pyiceberg's
SQL catalog, so pyiceberg's own code applies Ember's commits, and pyiceberg reads (and appends
to) the same tables through it.
"""

import datetime
import threading

import pyarrow as pa
import pytest
from pyiceberg.schema import Schema
from pyiceberg.types import LongType, NestedField, StringType

from conftest import RECORD
from iceberg_rest import RestCatalog
from test_iceberg import error_of, iceberg_rows, rows

pytestmark = pytest.mark.usefixtures("utc")

TOKEN = "s3cret-token"


@pytest.fixture(autouse=True)
def not_recording():
    if RECORD:
        pytest.skip("the reference Spark has no Iceberg (iceberg-spark jars unavailable offline)")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    rest = RestCatalog(str(tmp_path_factory.mktemp("iceberg_rest")), token=TOKEN)
    rest.catalog.create_namespace("db")
    yield rest
    rest.stop()


@pytest.fixture
def ice(spark, server):
    keys = {
        "spark.sql.catalog.rest": "org.apache.iceberg.spark.SparkCatalog",
        "spark.sql.catalog.rest.type": "rest",
        "spark.sql.catalog.rest.uri": server.url,
        "spark.sql.catalog.rest.token": TOKEN,
    }
    for k, v in keys.items():
        spark.conf.set(k, v)
    yield "rest"
    for k in keys:
        spark.conf.unset(k)


_names = iter(range(10**6))

SIMPLE = Schema(NestedField(1, "id", LongType(), required=False), NestedField(2, "name", StringType(), required=False))


def simple(ids):
    return pa.table({"id": pa.array(ids, pa.int64()), "name": pa.array([f"n{i}" for i in ids], pa.string())})


def new_name():
    return f"r{next(_names)}"


def test_read_through_the_catalog(spark, server, ice):
    name = new_name()
    table = server.catalog.create_table(f"db.{name}", schema=SIMPLE)
    table.append(simple([1, 2]))
    first = table.current_snapshot().snapshot_id
    table.append(simple([3]))
    assert rows(spark.sql(f"SELECT * FROM rest.db.{name}")) == [(1, "n1"), (2, "n2"), (3, "n3")]
    assert rows(spark.table(f"rest.db.{name}").where("id > 1")) == [(2, "n2"), (3, "n3")]
    assert rows(spark.sql(f"SELECT * FROM rest.db.{name} VERSION AS OF {first}")) == [(1, "n1"), (2, "n2")]
    assert spark.sql(f"SELECT * FROM rest.db.{name}.snapshots").count() == 2
    # Every request carried the token; the prefix came from /v1/config.
    assert ("GET", f"/v1/ws/namespaces/db/tables/{name}") in server.requests


def test_missing_table_and_namespace(spark, ice):
    assert "TABLE_OR_VIEW_NOT_FOUND" in error_of(lambda: spark.sql("SELECT * FROM rest.db.missing").collect())
    assert "TABLE_OR_VIEW_NOT_FOUND" in error_of(lambda: spark.sql("SELECT * FROM rest.nothere.t").collect())


def test_create_insert_and_ctas(spark, server, ice):
    made, ctas = new_name(), new_name()
    spark.sql(f"CREATE TABLE rest.db.{made} (id BIGINT, name STRING, ts TIMESTAMP) USING iceberg PARTITIONED BY (days(ts))")
    spark.sql(f"INSERT INTO rest.db.{made} VALUES (1, 'a', TIMESTAMP'2024-01-01 10:00:00'), (2, 'b', NULL)")
    spark.sql(f"INSERT INTO rest.db.{made} SELECT 3, 'c', TIMESTAMP'2024-01-02 00:00:00'")
    # The catalog's pointer moved: pyiceberg loads the new snapshots through it.
    table = server.catalog.load_table(f"db.{made}")
    assert [str(f.transform) for f in table.spec().fields] == ["day"]
    assert len(table.snapshots()) == 2
    assert iceberg_rows(table) == rows(spark.table(f"rest.db.{made}")) == [
        (1, "a", datetime.datetime(2024, 1, 1, 10)), (2, "b", None), (3, "c", datetime.datetime(2024, 1, 2))
    ]
    assert "TABLE_OR_VIEW_ALREADY_EXISTS" in error_of(lambda: spark.sql(f"CREATE TABLE rest.db.{made} (id BIGINT) USING iceberg"))
    spark.sql(f"CREATE TABLE IF NOT EXISTS rest.db.{made} (id BIGINT) USING iceberg")
    spark.sql(f"INSERT OVERWRITE rest.db.{made} SELECT 9, 'z', NULL")
    assert iceberg_rows(server.catalog.load_table(f"db.{made}")) == [(9, "z", None)]
    spark.sql(f"CREATE TABLE rest.db.{ctas} USING iceberg AS SELECT id, id * 2 AS twice FROM range(3)")
    assert iceberg_rows(server.catalog.load_table(f"db.{ctas}")) == [(0, 0), (1, 2), (2, 4)]


def test_write_to_and_dynamic_overwrite(spark, server, ice):
    from pyspark.sql.functions import col

    name = new_name()
    df = spark.sql("SELECT id, CAST(id % 2 AS STRING) AS k FROM range(4)")
    df.writeTo(f"rest.db.{name}").partitionedBy(col("k")).create()
    spark.sql("SELECT 10L AS id, '0' AS k").writeTo(f"rest.db.{name}").overwritePartitions()
    spark.sql("SELECT 11L AS id, '2' AS k").writeTo(f"rest.db.{name}").append()
    table = server.catalog.load_table(f"db.{name}")
    assert iceberg_rows(table) == [(1, "1"), (3, "1"), (10, "0"), (11, "2")]
    assert [s.summary.operation.value for s in table.snapshots()] == ["append", "overwrite", "append"]


def test_pyiceberg_and_ember_take_turns(spark, server, ice):
    name = new_name()
    table = server.catalog.create_table(f"db.{name}", schema=SIMPLE)
    table.append(simple([1]))
    spark.sql(f"INSERT INTO rest.db.{name} VALUES (2, 'n2')")
    table = server.catalog.load_table(f"db.{name}")
    table.append(simple([3]))
    spark.createDataFrame([(4, "n4")], "id long, name string").write.mode("append").saveAsTable(f"rest.db.{name}")
    assert iceberg_rows(server.catalog.load_table(f"db.{name}")) == [(i, f"n{i}") for i in range(1, 5)]
    assert rows(spark.table(f"rest.db.{name}")) == [(i, f"n{i}") for i in range(1, 5)]


def test_concurrent_commits_are_refused_not_lost(spark, server, ice):
    name = new_name()
    spark.sql(f"CREATE TABLE rest.db.{name} (id BIGINT) USING iceberg")
    errors = []

    def write(i):
        try:
            spark.sql(f"INSERT INTO rest.db.{name} VALUES ({i})")
        except Exception as e:
            errors.append(str(e))

    threads = [threading.Thread(target=write, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    landed = server.catalog.load_table(f"db.{name}").scan().to_arrow().num_rows
    assert landed == 4 - len(errors) and landed >= 1
    assert all("CommitFailedException" in e for e in errors)


def test_a_wrong_token_is_refused(spark, server, ice):
    name = new_name()
    server.catalog.create_table(f"db.{name}", schema=SIMPLE)
    spark.conf.set("spark.sql.catalog.rest.token", "wrong")
    message = error_of(lambda: spark.sql(f"SELECT * FROM rest.db.{name}").collect())
    assert "NotAuthorizedException" in message and "401" in message


def test_catalog_settings_are_checked(spark):
    spark.conf.set("spark.sql.catalog.norest", "org.apache.iceberg.spark.SparkCatalog")
    spark.conf.set("spark.sql.catalog.norest.type", "rest")
    try:
        assert "uri" in error_of(lambda: spark.sql("SELECT * FROM norest.db.t").collect())
        spark.conf.set("spark.sql.catalog.norest.uri", "http://127.0.0.1:9")
        assert "REST catalog norest" in error_of(lambda: spark.sql("SELECT * FROM norest.db.t").collect())
    finally:
        for k in ("spark.sql.catalog.norest", "spark.sql.catalog.norest.type", "spark.sql.catalog.norest.uri"):
            spark.conf.unset(k)


def test_nested_namespaces(spark, server, ice):
    """A namespace of several levels travels as the REST protocol joins them (unit separator)."""
    name = new_name()
    # (A namespace per call: the catalog serves every mode of the run.)
    inner = f"lvl2_{name}"
    server.catalog.create_namespace(("lvl1", inner))
    table = server.catalog.create_table(("lvl1", inner, name), schema=SIMPLE)
    table.append(simple([7]))
    assert rows(spark.sql(f"SELECT * FROM rest.lvl1.{inner}.{name}")) == [(7, "n7")]
    spark.sql(f"INSERT INTO rest.lvl1.{inner}.{name} VALUES (8, 'n8')")
    assert iceberg_rows(server.catalog.load_table(("lvl1", inner, name))) == [(7, "n7"), (8, "n8")]


def test_metadata_tables_through_the_catalog(spark, server, ice):
    name = new_name()
    spark.sql(f"CREATE TABLE rest.db.{name} (id BIGINT) USING iceberg")
    spark.sql(f"INSERT INTO rest.db.{name} VALUES (1)")
    spark.sql(f"INSERT INTO rest.db.{name} VALUES (2)")
    table = server.catalog.load_table(f"db.{name}")
    history = spark.sql(f"SELECT snapshot_id FROM rest.db.{name}.history").collect()
    assert [r.snapshot_id for r in history] == [s.snapshot_id for s in table.snapshots()]
    assert spark.sql(f"SELECT * FROM rest.db.{name}.files").count() == 2


@pytest.fixture(scope="module")
def oauth_server(tmp_path_factory):
    rest = RestCatalog(str(tmp_path_factory.mktemp("iceberg_rest_oauth")), token="issued-" + TOKEN, client=("ember-client", "ember:secret"))
    rest.catalog.create_namespace("db")
    yield rest
    rest.stop()


def test_oauth2_client_credentials(spark, oauth_server):
    """`credential=<client id>:<secret>`: the catalog's token endpoint (`/v1/oauth/tokens`,
    the client credentials grant with scope `catalog`) gives the bearer token every request
    carries; it is kept, not asked per request."""
    keys = {
        "spark.sql.catalog.oa": "org.apache.iceberg.spark.SparkCatalog",
        "spark.sql.catalog.oa.type": "rest",
        "spark.sql.catalog.oa.uri": oauth_server.url,
        "spark.sql.catalog.oa.credential": "ember-client:ember:secret",
    }
    for k, v in keys.items():
        spark.conf.set(k, v)
    before = oauth_server.tokens_issued
    try:
        name = new_name()
        spark.sql(f"CREATE TABLE oa.db.{name} (id BIGINT, name STRING) USING iceberg")
        spark.sql(f"INSERT INTO oa.db.{name} VALUES (1, 'a'), (2, 'b')")
        assert rows(spark.sql(f"SELECT * FROM oa.db.{name}")) == [(1, "a"), (2, "b")]
        assert iceberg_rows(oauth_server.catalog.load_table(f"db.{name}")) == [(1, "a"), (2, "b")]
        # One token for the server's process (each mode's server is a process of its own).
        assert oauth_server.tokens_issued - before == 1
        # The token endpoint named explicitly; a wrong secret is refused with the endpoint's
        # error.
        spark.conf.set("spark.sql.catalog.oa.oauth2-server-uri", f"{oauth_server.url}/v1/oauth/tokens")
        spark.conf.set("spark.sql.catalog.oa.credential", "ember-client:wrong")
        message = error_of(lambda: spark.sql(f"SELECT * FROM oa.db.{name}").collect())
        assert "NotAuthorizedException" in message and "invalid_client" in message, message
    finally:
        for k in [*keys, "spark.sql.catalog.oa.oauth2-server-uri"]:
            spark.conf.unset(k)
