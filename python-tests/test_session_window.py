"""session_window(ts, gap) as a GROUP BY key: each key's rows split into sessions of events
at most `gap` apart, recorded from real Spark (zoned and NTZ times, NULL times, no other keys,
SQL and DataFrames); and SQL's `window.start` / `session_window.end` naming the fields of a
window grouping key."""

import pytest
from pyspark.sql import functions as F

EVENTS = """VALUES ('a', TIMESTAMP'2024-01-01 10:00:00'), ('a', TIMESTAMP'2024-01-01 10:05:00'),
  ('a', TIMESTAMP'2024-01-01 10:20:00'), ('a', TIMESTAMP'2024-01-01 10:29:00'),
  ('a', TIMESTAMP'2024-01-01 10:40:00'), ('b', TIMESTAMP'2024-01-01 10:00:00'),
  ('b', CAST(NULL AS TIMESTAMP)), ('b', TIMESTAMP'2024-01-01 10:09:59'),
  ('b', TIMESTAMP'2024-01-01 10:20:00'), ('c', TIMESTAMP'2024-01-01 10:10:00') t(k, ts)"""

SQL = {
    "by_key": f"SELECT k, session_window(ts, '10 minutes') w, count(*) n, max(ts) last FROM {EVENTS} "
    "GROUP BY k, session_window(ts, '10 minutes')",
    "no_other_key": f"SELECT session_window(ts, '5 minutes') w, count(*) n FROM {EVENTS} GROUP BY session_window(ts, '5 minutes')",
    "ntz": f"SELECT k, session_window(CAST(ts AS TIMESTAMP_NTZ), '10 minutes') w, count(*) n FROM {EVENTS} "
    "GROUP BY k, session_window(CAST(ts AS TIMESTAMP_NTZ), '10 minutes')",
    "window_fields": "SELECT window.start, window.end, count(*) n FROM VALUES (TIMESTAMP'2024-01-01 10:01:00'), "
    "(TIMESTAMP'2024-01-01 10:07:00'), (TIMESTAMP'2024-01-01 10:12:00') t(ts) GROUP BY window(ts, '10 minutes')",
    "window_key": "SELECT window, count(*) n FROM VALUES (TIMESTAMP'2024-01-01 10:01:00'), (TIMESTAMP'2024-01-01 10:12:00') t(ts) "
    "GROUP BY window(ts, '10 minutes')",
    "sliding_window_fields": "SELECT window.start AS s, date_format(window.end, 'HH:mm') e, count(*) n FROM VALUES "
    "(TIMESTAMP'2024-01-01 10:01:00'), (TIMESTAMP'2024-01-01 10:12:00') t(ts) GROUP BY window(ts, '10 minutes', '5 minutes')",
    "session_window_fields": f"SELECT k, session_window.start, session_window.end, count(*) n FROM {EVENTS} "
    "GROUP BY k, session_window(ts, '10 minutes')",
    "gap_in_seconds": f"SELECT k, session_window(ts, '601 seconds') w, count(*) n FROM {EVENTS} GROUP BY k, session_window(ts, '601 seconds')",
}


@pytest.mark.parametrize("case", sorted(SQL))
def test_sql(spark, expected, case):
    expected.check(spark.sql(SQL[case]), name=case)


def test_dataframe(spark, expected):
    df = spark.sql(f"SELECT * FROM {EVENTS}")
    out = df.groupBy("k", F.session_window("ts", "10 minutes")).agg(F.count("*").alias("n"))
    expected.check(
        out.select("k", F.col("session_window.start").alias("s"), F.col("session_window.end").alias("e"), "n")
    )
    expected.check(out, name="columns")
