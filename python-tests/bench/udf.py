#!/usr/bin/env python3
"""Python UDFs through PySpark: a row-at-a-time `udf`, a scalar `pandas_udf`, `mapInArrow` over
N rows and `applyInPandas` over 1,000 groups, timed on `ember` (local mode) and, in the same run,
on real Spark (`--spark sc://...`, e.g. `../shared/tools/spark-reference start 15099`) and Sail
(`--sail sc://...`, `sail spark server`). Prints wall times and the ratios to Ember's.

    python python-tests/bench/udf.py --rows 10000000 --spark sc://127.0.0.1:15099 [--sail sc://...]

Ember's binary: EMBER_BIN, else the release build, else the debug build (debug numbers say
little). The worker Python is the one running this script (PYSPARK_PYTHON). Real Spark's
workers need pyarrow and pandas too: start it with PYSPARK_PYTHON naming a Python that has
them (`PYSPARK_PYTHON=.../venv-4.3.0/bin/python spark-reference start 15099`). Sail 0.7.2 runs
UDFs with the pyspark of its own environment, which must be 4.1 or older.
"""

import argparse
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
os.environ.setdefault("SPARK_CONNECT_MODE_ENABLED", "1")
os.environ.setdefault("PYSPARK_PYTHON", sys.executable)

from conftest import EmberServer, new_session  # noqa: E402


def ember_binary() -> Path:
    if os.environ.get("EMBER_BIN"):
        return Path(os.environ["EMBER_BIN"])
    target = Path(os.environ.get("CARGO_TARGET_DIR", HERE.parents[1] / "target"))
    for profile in ("release", "debug"):
        if (target / profile / "ember").exists():
            return target / profile / "ember"
    raise SystemExit("no ember build found: set EMBER_BIN or CARGO_TARGET_DIR")


def workloads(rows):
    import pandas as pd
    import pyarrow as pa
    from pyspark.sql import functions as F
    from pyspark.sql.functions import pandas_udf, udf

    def scalar_udf(spark):
        plus = udf(lambda x: x + 1, "long")
        return spark.range(rows).select(plus("id").alias("x")).agg(F.sum("x")).collect()

    def pandas_scalar(spark):
        plus = pandas_udf(lambda s: s + 1, "long")
        return spark.range(rows).select(plus("id").alias("x")).agg(F.sum("x")).collect()

    def map_in_arrow(spark):
        def f(it):
            import pyarrow.compute as pc

            for b in it:
                yield pa.RecordBatch.from_arrays([pc.add(b.column(0), 1)], names=["id"])

        return spark.range(rows).mapInArrow(f, "id long").agg(F.sum("id")).collect()

    def apply_in_pandas(spark):
        df = spark.range(rows).select((F.col("id") % 1000).alias("k"), F.col("id").cast("double").alias("v"))
        out = df.groupBy("k").applyInPandas(lambda p: p.assign(v=p.v - p.v.mean()), "k long, v double")
        return out.agg(F.count("*")).collect()

    return {
        "udf": scalar_udf,
        "pandas_udf": pandas_scalar,
        "mapInArrow": map_in_arrow,
        "applyInPandas(1000 groups)": apply_in_pandas,
    }


def measure(url, rows, runs):
    spark = new_session(url)
    times = {}
    try:
        for name, fn in workloads(rows).items():
            fn(spark)  # warm-up (workers started, functions pickled)
            best = None
            for _ in range(runs):
                start = time.perf_counter()
                fn(spark)
                elapsed = time.perf_counter() - start
                best = elapsed if best is None else min(best, elapsed)
            times[name] = best
            print(f"  {url}: {name} {best:.2f}s", flush=True)
    finally:
        spark.stop()
    return times


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--spark", help="a real Spark Connect server to compare with")
    parser.add_argument("--sail", help="a Sail Spark Connect server to compare with")
    args = parser.parse_args()
    server = EmberServer(ember_binary(), "local")
    try:
        results = {"ember": measure(server.url, args.rows, args.runs)}
    finally:
        server.stop()
    for name, url in (("spark", args.spark), ("sail", args.sail)):
        if url:
            results[name] = measure(url, args.rows, args.runs)
    print(f"{args.rows:,} rows, best of {args.runs}")
    header = f"{'workload':28}" + "".join(f"{k:>10}" for k in results) + "".join(f"{k + '/ember':>14}" for k in results if k != "ember")
    print(header)
    for workload, ember_time in results["ember"].items():
        line = f"{workload:28}" + "".join(f"{r[workload]:>9.2f}s" for r in results.values())
        line += "".join(f"{results[k][workload] / ember_time:>14.2f}" for k in results if k != "ember")
        print(line)


if __name__ == "__main__":
    main()
