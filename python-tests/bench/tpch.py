#!/usr/bin/env python3
"""TPC-H through PySpark against `ember` in each mode, and DataFusion in-process on the same
files, measured in the same run. Prints per-query wall times, ratios to DataFusion ("/df") and,
for the distributed modes, ratios to Ember's local mode ("/local") when it runs too.

    python python-tests/bench/tpch.py --scale 1 --modes local,local-cluster,cluster [--queries 1,3,5]

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

    for mode in modes:
        extra = ["--workers", str(args.workers)] if mode != "local" else []
        server = EmberServer(binary, mode, extra_args=extra)
        try:
            spark = SparkSession.builder.remote(server.url).create()
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
            server.stop()

    def vs_local(m):
        return "local" in modes and m != "local"

    header = f"{'query':>6} {'datafusion s':>13}"
    for m in modes:
        header += f" {m + ' s':>16} {'/df':>6}" + (f" {'/local':>6}" if vs_local(m) else "")
    print(header)
    rows = [(f"q{q}", {m: times[m][q] for m in ["datafusion", *modes]}) for q in queries]
    rows.append(("total", {m: sum(times[m][q] for q in queries) for m in ["datafusion", *modes]}))
    for label, t in rows:
        line = f"{label:>6} {t['datafusion']:>13.3f}"
        for m in modes:
            line += f" {t[m]:>16.3f} {t[m] / t['datafusion']:>6.2f}"
            if vs_local(m):
                line += f" {t[m] / t['local']:>6.2f}"
        print(line)


if __name__ == "__main__":
    main()
