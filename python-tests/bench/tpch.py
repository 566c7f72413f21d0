#!/usr/bin/env python3
"""TPC-H through PySpark against `ember` in each mode, and DataFusion in-process on the same
files, measured in the same run, and optionally Sail (`--sail sc://...`, a running
`sail spark server`). Prints per-query wall times, ratios to DataFusion ("/df"), to Sail
("/sail") and, for the distributed modes, to Ember's local mode ("/local") when it runs too;
the last lines are the totals and geometric means.

    python python-tests/bench/tpch.py --scale 1 --modes local,local-cluster,cluster [--queries 1,3,5] [--sail sc://127.0.0.1:50051]

`--baseline BIN` also runs local mode with another ember binary (an earlier build) and prints
the ratio of this build's local mode to it ("/base"), for before/after comparisons.

Use a release build (`cargo build --release`): the script picks target/release/ember when it
exists (or EMBER_BIN). Data is generated once under ~/.cache/ember/tpch-sf<scale>.
"""

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import tpch  # noqa: E402
from conftest import EmberServer  # noqa: E402


def ember_binary() -> Path:
    if os.environ.get("EMBER_BIN"):
        return Path(os.environ["EMBER_BIN"])
    for target in [os.environ.get("CARGO_TARGET_DIR"), str(Path.home() / ".cache/ember/target-release"), str(HERE.parents[1] / "target")]:
        if target and (Path(target) / "release" / "ember").exists():
            return Path(target) / "release" / "ember"
    raise SystemExit("no release build of ember found: run `cargo build --release` or set EMBER_BIN")


def timed(fn, runs):
    times = []
    result = None
    for _ in range(runs):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--scale", type=float, default=1.0)
    p.add_argument("--modes", default="local,local-cluster")
    p.add_argument("--queries", default=",".join(str(i) for i in range(1, 23)))
    p.add_argument("--runs", type=int, default=1, help="timed runs per query (median reported), after one warm-up")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--shuffle-partitions", type=int, default=0, help="spark.sql.shuffle.partitions (0: server default)")
    p.add_argument("--sail", help="a running Sail Spark Connect server to compare with")
    p.add_argument("--baseline", help="another ember binary to run in local mode (before/after)")
    args = p.parse_args()

    queries = [int(q) for q in args.queries.split(",")]
    modes = [m for m in args.modes.split(",") if m]
    data = tpch.generate(args.scale, Path.home() / ".cache" / "ember" / f"tpch-sf{args.scale:g}", parts=4)
    binary = ember_binary()
    print(f"TPC-H SF{args.scale:g}, ember binary {binary}, {os.cpu_count()} cores", flush=True)

    reference = tpch.datafusion_context(data)
    times = {"datafusion": {}}
    answers = {}
    for q in queries:
        sql = tpch.query(q)
        tpch.datafusion_rows(reference, sql)  # warm-up
        t, rows = timed(lambda: tpch.datafusion_rows(reference, sql), args.runs)
        times["datafusion"][q] = t
        answers[q] = rows

    from pyspark.sql import SparkSession

    if args.sail:
        modes.append("sail")
    if args.baseline:
        modes.append("base")
    for mode in modes:
        extra = ["--workers", str(args.workers)] if mode not in ("local", "base") else []
        if mode == "sail":
            server = None
        elif mode == "base":
            server = EmberServer(Path(args.baseline), "local")
        else:
            server = EmberServer(binary, mode, extra_args=extra)
        try:
            spark = SparkSession.builder.remote(server.url if server else args.sail).create()
            if args.shuffle_partitions:
                spark.conf.set("spark.sql.shuffle.partitions", str(args.shuffle_partitions))
            tpch.register_spark(spark, data)
            times[mode] = {}
            for q in queries:
                sql = tpch.query(q)
                spark.sql(sql).collect()  # warm-up
                t, rows = timed(lambda: [tuple(r) for r in spark.sql(sql).collect()], args.runs)
                problem = tpch.same_answer(rows, answers[q])
                times[mode][q] = t if not problem else float("nan")
                if problem:
                    print(f"  {mode} q{q}: WRONG ANSWER: {problem}", flush=True)
            spark.stop()
        finally:
            if server:
                server.stop()

    def vs_local(m):
        return "local" in modes and m not in ("local", "sail", "base")

    def vs_sail(m):
        return "sail" in modes and m != "sail"

    def vs_base(m):
        return "base" in modes and m == "local"

    header = f"{'query':>7} {'datafusion s':>12}"
    for m in modes:
        header += f" {m + ' s':>16} {'/df':>6}" + (f" {'/local':>6}" if vs_local(m) else "")
        header += f" {'/sail':>6}" if vs_sail(m) else ""
        header += f" {'/base':>6}" if vs_base(m) else ""
    print(header)
    every = ["datafusion", *modes]
    rows = [(f"q{q}", {m: times[m][q] for m in every}) for q in queries]
    rows.append(("total", {m: sum(times[m][q] for q in queries) for m in every}))
    rows.append(("geomean", {m: statistics.geometric_mean([times[m][q] for q in queries]) for m in every}))
    for label, t in rows:
        line = f"{label:>7} {t['datafusion']:>12.3f}"
        for m in modes:
            line += f" {t[m]:>16.3f} {t[m] / t['datafusion']:>6.2f}"
            if vs_local(m):
                line += f" {t[m] / t['local']:>6.2f}"
            if vs_sail(m):
                line += f" {t[m] / t['sail']:>6.2f}"
            if vs_base(m):
                line += f" {t[m] / t['base']:>6.2f}"
        print(line)


if __name__ == "__main__":
    main()
