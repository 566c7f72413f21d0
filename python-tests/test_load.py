"""Load (issue 25): 32 PySpark sessions at once on one server, each with its own time zone,
its own same-named temp views holding different data and its own settings, running TPC-H
SF0.01 queries. Every session's answers must equal the answers the same session gets when it
runs alone, and no session may see another's views or settings. Runs in every mode of
``--ember-modes``."""

import threading

import pytest

from answers import normalize
import tpch
from conftest import new_session

SCALE = 0.01
SESSIONS = 32
ZONES = [
    "UTC",
    "America/Los_Angeles",
    "Asia/Kolkata",
    "Europe/Berlin",
    "Australia/Sydney",
    "America/Sao_Paulo",
    "Asia/Tokyo",
    "Pacific/Chatham",
]
QUERIES = [1, 3, 6]


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    return tpch.generate(SCALE, tmp_path_factory.getbasetemp() / f"tpch-sf{SCALE}")


def prepare(spark, data, i):
    """Session `i`'s settings and views: the TPC-H tables under their usual names, with
    `lineitem` cut to a different slice in each session, and a view `mine` of its own rows."""
    spark.conf.set("spark.sql.session.timeZone", ZONES[i % len(ZONES)])
    spark.conf.set("load.owner", str(i))
    spark.conf.set("spark.sql.shuffle.partitions", str(2 + i % 3))
    tpch.register_spark(spark, data)
    spark.read.parquet(str(data / "lineitem")).where(f"l_linenumber <= {1 + i % 7}").createOrReplaceTempView(
        "lineitem"
    )
    spark.range(i + 1).selectExpr("id", f"{i} AS owner").createOrReplaceTempView("mine")


def answers(spark, i):
    """What session `i` sees: its settings, its views, its time zone's readings, TPC-H."""
    out = {
        "zone": spark.conf.get("spark.sql.session.timeZone"),
        "owner": spark.conf.get("load.owner"),
        "mine": sorted(tuple(r) for r in spark.sql("SELECT count(*), min(owner), max(owner) FROM mine").collect()),
        "clock": [
            tuple(r)
            for r in spark.sql(
                "SELECT current_timezone(), CAST(TIMESTAMP'2024-03-10 12:00:00' AS LONG), "
                "CAST(CAST(TIMESTAMP'2024-03-10 12:00:00' AS TIMESTAMP_NTZ) AS STRING), "
                "hour(from_unixtime(0))"
            ).collect()
        ],
    }
    for q in QUERIES:
        out[f"q{q}"] = normalize(spark.sql(tpch.query(q)).collect())
    return out


def test_32_sessions_at_once_get_their_solo_answers(server_url, data):
    # Each session's answer alone, one at a time.
    solo = []
    for i in range(SESSIONS):
        spark = new_session(server_url)
        try:
            prepare(spark, data, i)
            solo.append(answers(spark, i))
        finally:
            spark.stop()
    # The sessions differ from each other, so a mixed-up session would be noticed.
    assert len({s["zone"] for s in solo}) == len(ZONES)
    assert len({str(s["q1"]) for s in solo}) == 7
    assert len({str(s["clock"]) for s in solo}) == len(ZONES)

    # All at once, twice each, from 32 threads.
    results, errors = {}, {}
    start = threading.Barrier(SESSIONS)

    def run(i):
        try:
            spark = new_session(server_url)
            try:
                prepare(spark, data, i)
                start.wait(timeout=120)
                results[i] = [answers(spark, i) for _ in range(2)]
            finally:
                spark.stop()
        except Exception as e:  # noqa: BLE001 - reported below
            errors[i] = repr(e)
            start.abort()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(SESSIONS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=600)
    assert not errors, errors
    assert sorted(results) == list(range(SESSIONS))
    for i in range(SESSIONS):
        for got in results[i]:
            for key, want in solo[i].items():
                if key.startswith("q"):
                    assert tpch.same_answer(got[key], want) == "", (i, key)
                else:
                    assert got[key] == want, (i, key)
