"""Regenerate the files under ``written-by-spark/`` (with real Spark) or ``written-by-ember/``.

    ../shared/tools/spark-reference start 15099
    $(../shared/tools/spark-reference python) python-tests/data/make_fixtures.py spark sc://127.0.0.1:15099
    python python-tests/data/make_fixtures.py ember sc://127.0.0.1:15002

The tests read these files with Ember and compare the answers with the ones real Spark gave
for the same files (recorded under ``expected/``), so neither the suite nor CI needs Java.
"""

import datetime
import decimal
import shutil
import sys
from pathlib import Path

from pyspark.sql import SparkSession

ENGINE = sys.argv[1] if len(sys.argv) > 1 else "spark"
URL = sys.argv[2] if len(sys.argv) > 2 else "sc://127.0.0.1:15099"
HERE = Path(__file__).resolve().parent / f"written-by-{ENGINE}"

ROWS = [
    (1, "plain", decimal.Decimal("1.50"), datetime.date(2020, 1, 2), datetime.datetime(2020, 1, 2, 3, 4, 5, 500000), True, 1.25, "a"),
    (2, None, None, None, None, None, None, "b"),
    (3, "", decimal.Decimal("-3.00"), datetime.date(1999, 12, 31), datetime.datetime(1999, 12, 31, 23, 59, 59), False, -0.5, "b"),
    (4, 'with "quote", comma', decimal.Decimal("12345678.99"), datetime.date(2024, 2, 29), datetime.datetime(2024, 2, 29, 12, 0, 0), True, 1e10, "c/d"),
]
NESTED = [
    (1, [1, 2, None], {"a": 1}, (1, "x"), 7, 3.5, b"\x00\x01"),
    (2, None, None, None, None, None, None),
    (3, [], {}, (None, None), -8, -0.25, b""),
]
NESTED_SCHEMA = "id INT, arr ARRAY<INT>, m MAP<STRING, INT>, s STRUCT<x: INT, y: STRING>, t TINYINT, f FLOAT, b BINARY"
SCHEMA = "id INT, name STRING, price DECIMAL(10,2), d DATE, ts TIMESTAMP, flag BOOLEAN, x DOUBLE, part STRING"


def clean(path: Path):
    """Spark's checksum files add nothing to the fixtures."""
    for crc in path.rglob(".*.crc"):
        crc.unlink()


def main():
    spark = SparkSession.builder.remote(URL).getOrCreate()
    spark.conf.set("spark.sql.session.timeZone", "UTC")
    if HERE.exists():
        shutil.rmtree(HERE)
    df = spark.createDataFrame(ROWS, SCHEMA).coalesce(1)
    df.write.parquet(str(HERE / "parquet"))
    df.write.option("header", True).csv(str(HERE / "csv"))
    df.write.json(str(HERE / "json"))
    df.select("name").write.text(str(HERE / "text"))
    df.write.partitionBy("part", "flag").parquet(str(HERE / "partitioned"))
    # Ember's ORC writer (orc-rust) has no decimals: its file leaves the price out.
    orc = df if ENGINE == "spark" else df.drop("price")
    orc.write.orc(str(HERE / "orc"))
    orc.write.partitionBy("part", "flag").orc(str(HERE / "orc-partitioned"))
    if ENGINE == "ember":
        # Spark's reference build has no Avro module: fastavro reads these in the tests.
        df.write.format("avro").save(str(HERE / "avro"))
        df.write.partitionBy("part").format("avro").save(str(HERE / "avro-partitioned"))
    if ENGINE == "spark":
        spark.createDataFrame(NESTED, NESTED_SCHEMA).coalesce(1).write.orc(str(HERE / "orc-nested"))
        df.write.option("compression", "gzip").option("header", True).csv(str(HERE / "csv-gzip"))
    xml_fixtures(spark, df)
    clean(HERE)
    spark.stop()


def xml_fixtures(spark, df):
    """The XML files (`python make_fixtures.py <engine> <url> xml` writes only these)."""
    for name in ("xml", "xml-gzip", "xml-partitioned", "xml-nested"):
        shutil.rmtree(HERE / name, ignore_errors=True)
    df.write.option("rowTag", "row").xml(str(HERE / "xml"))
    df.write.option("rowTag", "row").option("compression", "gzip").xml(str(HERE / "xml-gzip"))
    df.write.option("rowTag", "row").partitionBy("part").xml(str(HERE / "xml-partitioned"))
    nested = spark.createDataFrame(NESTED, NESTED_SCHEMA).coalesce(1)
    nested.withColumnRenamed("id", "_id").write.option("rowTag", "item").option("rootTag", "items").xml(
        str(HERE / "xml-nested")
    )


if __name__ == "__main__":
    if sys.argv[3:] == ["xml"]:
        session = SparkSession.builder.remote(URL).getOrCreate()
        session.conf.set("spark.sql.session.timeZone", "UTC")
        xml_fixtures(session, session.createDataFrame(ROWS, SCHEMA).coalesce(1))
        clean(HERE)
    else:
        main()
