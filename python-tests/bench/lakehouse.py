#!/usr/bin/env python3
"""TPC-H through PySpark against `ember` on the same data stored three ways: plain parquet
(tpchgen-cli's files), a Delta table and an Iceberg table per TPC-H table (written once by
Ember from the parquet files, kept under ~/.cache/ember/tpch-sf<scale>-lake). Every query's
answer on Delta and Iceberg is checked against its answer on parquet in the same run. Prints
per-query wall times (median of `--runs` after a warm-up; the three formats take turns run by
run), the ratios to parquet ("/pq"), and
the totals and geometric means; a ratio over `--limit` (issue 28's goal: 1.10) is flagged.

    python python-tests/bench/lakehouse.py --scale 1 --modes local,local-cluster,cluster --runs 3

Use a release build (`cargo build --release`; the script picks it as bench/tpch.py does, or
EMBER_BIN).
"""

import argparse
import os
import shutil
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import importlib.util  # noqa: E402

import tpch  # noqa: E402
from conftest import EmberServer  # noqa: E402
from tpch import TABLES  # noqa: E402

# The TPC-H benchmark's binary lookup and timing (bench/tpch.py, whose name the package takes).
_spec = importlib.util.spec_from_file_location("bench_tpch", HERE / "tpch.py")
bench_tpch = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench_tpch)
ember_binary, timed = bench_tpch.ember_binary, bench_tpch.timed

FORMATS = ["parquet", "delta", "iceberg"]


def lake(data: Path, spark, out: Path):
    """The Delta and Iceberg copies of every table (written once)."""
    marker = out / ".done"
    if marker.exists():
        return out
    if out.exists():
        shutil.rmtree(out)
    for fmt in ("delta", "iceberg"):
        for t in TABLES:
            spark.read.parquet(str(data / t)).write.format(fmt).save(str(out / fmt / t))
    marker.write_text("ok")
    return out


def register(spark, fmt: str, data: Path, copies: Path):
    for t in TABLES:
        if fmt == "parquet":
            spark.read.parquet(str(data / t)).createOrReplaceTempView(t)
        else:
            spark.read.format(fmt).load(str(copies / fmt / t)).createOrReplaceTempView(t)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--scale", type=float, default=1.0)
    p.add_argument("--modes", default="local")
    p.add_argument("--queries", default=",".join(str(i) for i in range(1, 23)))
    p.add_argument("--runs", type=int, default=3, help="timed runs per query (median reported), after one warm-up")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--limit", type=float, default=1.10, help="flag queries slower than parquet by more than this ratio")
    args = p.parse_args()

    from pyspark.sql import SparkSession

    queries = [int(q) for q in args.queries.split(",")]
    modes = [m for m in args.modes.split(",") if m]
    data = tpch.generate(args.scale, Path.home() / ".cache" / "ember" / f"tpch-sf{args.scale:g}", parts=4)
    copies = Path.home() / ".cache" / "ember" / f"tpch-sf{args.scale:g}-lake"
    binary = ember_binary()
    print(f"TPC-H SF{args.scale:g} as parquet, Delta and Iceberg, ember binary {binary}, {os.cpu_count()} cores", flush=True)
    failures = 0
    for mode in modes:
        extra = ["--workers", str(args.workers)] if mode != "local" else []
        server = EmberServer(binary, mode, extra_args=extra)
        times = {f: {} for f in FORMATS}
        try:
            spark = SparkSession.builder.remote(server.url).create()
            lake(data, spark, copies)
            for q in queries:
                sql = tpch.query(q)
                # The formats take turns run by run, so that drift (the machine's, the
                # server's) falls on all three alike.
                samples = {f: [] for f in FORMATS}
                answers = {}
                for run in range(args.runs + 1):
                    for fmt in FORMATS:
                        register(spark, fmt, data, copies)
                        t, rows = timed(lambda: [tuple(r) for r in spark.sql(sql).collect()], 1)
                        if run > 0:  # (the first round warms up)
                            samples[fmt].append(t)
                        answers[fmt] = rows
                for fmt in FORMATS:
                    times[fmt][q] = statistics.median(samples[fmt])
                    if fmt != "parquet" and (problem := tpch.same_answer(answers[fmt], answers["parquet"])):
                        failures += 1
                        times[fmt][q] = float("nan")
                        print(f"  {mode} {fmt} q{q}: WRONG ANSWER: {problem}", flush=True)
            spark.stop()
        finally:
            server.stop()
        print(f"\n{mode}:")
        print(f"{'query':>7} {'parquet s':>10} {'delta s':>10} {'/pq':>6} {'iceberg s':>10} {'/pq':>6}")
        rows = [(f"q{q}", {f: times[f][q] for f in FORMATS}) for q in queries]
        rows.append(("total", {f: sum(times[f][q] for q in queries) for f in FORMATS}))
        rows.append(("geomean", {f: statistics.geometric_mean([times[f][q] for q in queries]) for f in FORMATS}))
        for label, t in rows:
            flags = ""
            line = f"{label:>7} {t['parquet']:>10.3f}"
            for f in ("delta", "iceberg"):
                ratio = t[f] / t["parquet"]
                line += f" {t[f]:>10.3f} {ratio:>6.2f}"
                if ratio > args.limit and label.startswith("q"):
                    flags += f" {f}>{args.limit:g}"
            print(line + flags, flush=True)
    if failures:
        raise SystemExit(f"{failures} wrong answers")


if __name__ == "__main__":
    main()
