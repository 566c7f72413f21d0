"""Persistent tables outlive the server: databases and tables (managed, external,
partitioned) are there after a restart, and a server killed in the middle of CREATE TABLE ...
AS SELECT leaves a catalog that still opens, without the half-made table. Runs in every mode
of ``--ember-modes`` (Ember's own guarantee; not recorded from Spark)."""

import subprocess
import sys
import time

import pytest

from conftest import RECORD, EmberServer, ember_binary, new_session
from test_write_atomic import kill_tree


@pytest.fixture(autouse=True)
def not_spark():
    if RECORD:
        pytest.skip("Ember's own guarantee")


def rows(df):
    return sorted(tuple(r) for r in df.collect())


def test_tables_survive_restart(request, ember_mode, tmp_path):
    binary = ember_binary(request.config)
    warehouse = tmp_path / "warehouse"
    external = tmp_path / "external"
    args = ["--warehouse", str(warehouse)]
    server = EmberServer(binary, ember_mode, extra_args=args, workdir=tmp_path)
    try:
        spark = new_session(server.url)
        spark.sql("CREATE DATABASE sales COMMENT 'kept'")
        spark.sql("CREATE TABLE sales.orders (id BIGINT, amount DOUBLE, day STRING) USING parquet PARTITIONED BY (day)")
        spark.sql("INSERT INTO sales.orders VALUES (1, 9.5, '2026-01-01'), (2, 3.0, '2026-01-02'), (3, 1.25, '2026-01-02')")
        spark.sql("CREATE TABLE sales.customers USING csv AS SELECT id, concat('c', id) AS name FROM range(4)")
        spark.sql(f"CREATE TABLE ext USING json LOCATION '{external}' AS SELECT 'x' AS s, 1 AS n")
        spark.createDataFrame([(1, "a")], "k INT, v STRING").write.saveAsTable("sales.saved")
        spark.sql("ALTER TABLE sales.saved SET TBLPROPERTIES ('owner' = 'me')")
        spark.sql("CREATE VIEW sales.big_orders AS SELECT id FROM sales.orders WHERE amount > 2")
        spark.sql("CREATE TEMP VIEW gone AS SELECT 1")
        before = {
            "orders": rows(spark.table("sales.orders")),
            "customers": rows(spark.table("sales.customers")),
            "ext": rows(spark.table("ext")),
            "saved": rows(spark.table("sales.saved")),
        }
        spark.stop()
    finally:
        server.stop()

    restarted = EmberServer(binary, ember_mode, extra_args=args, workdir=tmp_path)
    try:
        spark = new_session(restarted.url)
        assert [r.namespace for r in spark.sql("SHOW DATABASES").collect()] == ["default", "sales"]
        assert sorted(r.tableName for r in spark.sql("SHOW TABLES IN sales").collect()) == ["big_orders", "customers", "orders", "saved"]
        assert [r.tableName for r in spark.sql("SHOW TABLES").collect()] == ["ext"]
        assert rows(spark.table("sales.orders")) == before["orders"]
        assert rows(spark.table("sales.customers")) == before["customers"]
        assert rows(spark.table("ext")) == before["ext"]
        assert rows(spark.table("sales.saved")) == before["saved"]
        assert rows(spark.sql("SELECT id FROM sales.orders WHERE day = '2026-01-02'")) == [(2,), (3,)]
        assert [tuple(r) for r in spark.sql("SHOW PARTITIONS sales.orders").collect()] == [("day=2026-01-01",), ("day=2026-01-02",)]
        assert spark.catalog.getDatabase("sales").description == "kept"
        assert spark.catalog.getTable("ext").tableType == "EXTERNAL"
        assert [tuple(r) for r in spark.sql("SHOW TBLPROPERTIES sales.saved").collect()] == [("owner", "me")]
        assert not spark.catalog.tableExists("gone")
        assert rows(spark.table("sales.big_orders")) == [(1,), (2,)]
        # Tables keep working: append, then drop (a managed table's files go with it).
        spark.sql("INSERT INTO sales.orders VALUES (4, 2.0, '2026-01-03')")
        assert spark.table("sales.orders").count() == 4
        spark.sql("DROP TABLE sales.customers")
        assert not (warehouse / "sales.db" / "customers").exists()
        assert external.exists()
        spark.stop()
    finally:
        restarted.stop()


CTAS = """
import sys
from pyspark.sql import SparkSession
url = sys.argv[1]
spark = SparkSession.builder.remote(url).create()
spark.sql("CREATE TABLE big USING parquet PARTITIONED BY (p) AS SELECT id, id % 3 AS p FROM range(0, 400000000, 1, 8)")
"""


def test_kill_during_create_table_as_select(request, ember_mode, tmp_path):
    binary = ember_binary(request.config)
    warehouse = tmp_path / "warehouse"
    args = ["--warehouse", str(warehouse)]
    server = EmberServer(binary, ember_mode, extra_args=args, workdir=tmp_path)
    spark = new_session(server.url)
    spark.sql("CREATE TABLE small USING parquet AS SELECT 1 AS one")
    spark.stop()
    script = tmp_path / "ctas.py"
    script.write_text(CTAS)
    writer = subprocess.Popen(
        [sys.executable, str(script), server.url],
        stdout=subprocess.DEVNULL,
        stderr=open(tmp_path / "ctas.err", "w"),
    )
    try:
        deadline = time.time() + 60
        staging = []
        while not staging and time.time() < deadline and writer.poll() is None:
            staging = [p for p in warehouse.iterdir() if ".ember-staging-" in p.name] if warehouse.exists() else []
            time.sleep(0.02)
        assert staging, f"the CTAS never started writing: {(tmp_path / 'ctas.err').read_text()}"
        time.sleep(1.0)
        kill_tree(server)
        assert writer.poll() is None, "the CTAS ended before the server was killed"
    finally:
        writer.kill()
        writer.wait()

    restarted = EmberServer(binary, ember_mode, extra_args=args, workdir=tmp_path)
    try:
        spark = new_session(restarted.url)
        assert [r.tableName for r in spark.sql("SHOW TABLES").collect()] == ["small"]
        assert spark.table("small").collect()[0].one == 1
        # The name is free again.
        spark.sql("CREATE TABLE big USING parquet AS SELECT 2 AS two")
        assert spark.table("big").collect()[0].two == 2
        spark.stop()
    finally:
        restarted.stop()
