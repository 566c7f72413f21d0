#!/usr/bin/env python3
"""TPC-H (22 queries) or TPC-DS (99 queries) through PySpark against `ember` in each mode and
against Sail (`pip install pysail`), in the same run, every answer checked against DuckDB
in-process on the same parquet files (issue 26).

    python python-tests/bench/vs_sail.py --suite tpch --scale 1 --modes local,local-cluster,cluster --runs 3
    python python-tests/bench/vs_sail.py --suite tpcds --scale 1 --modes local --runs 1

The engines take turns query by query and run by run (one engine's slow minute lands on every
engine alike); each query is run once first as a warm-up. Per query it prints the minimum of
the timed runs per engine and the ratios to Sail ("/sail") and, for the distributed modes, to
Ember's local mode ("/local"); then the totals and geometric means, the CPU seconds each
engine's processes spent in the timed runs (server and workers, from /proc), their peak RSS
(VmHWM: the server and the largest worker), and two latencies: a new session's first
`SELECT 1` and the schema (AnalyzePlan) of every query, as the client waits for them
(median; server time is less).

Run it with the PySpark venv's Python (~/.cache/ember/venv-pyspark-4.3.0: it has DuckDB, the
tpcds extension and tpchgen-cli). Sail is `--sail-bin` (default: `sail` in
~/.cache/ember/venv-sail, made with `python3 -m venv ~/.cache/ember/venv-sail &&
~/.cache/ember/venv-sail/bin/pip install pysail==0.7.2 'pyspark==4.2.1'`: Sail 0.7.2 refuses a
server-side PySpark 4.3, every session then answers "session ... is not running"); `--no-sail`
leaves it out. The ember
binary is EMBER_BIN or a release build. Data is generated once under ~/.cache/ember/.
"""

import argparse
import importlib.util
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import answers  # noqa: E402
import tpcds  # noqa: E402
import tpch  # noqa: E402
from conftest import EmberServer, free_port  # noqa: E402
from procs import children, cpu_seconds, peak_rss_mb  # noqa: E402

# The TPC-H benchmark's binary lookup (bench/tpch.py, whose name the package takes).
_spec = importlib.util.spec_from_file_location("bench_tpch", HERE / "tpch.py")
bench_tpch = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench_tpch)


class Sail:
    """`sail spark server` on a free port."""

    def __init__(self, binary: str):
        self.port = free_port()
        self.log = open(f"/tmp/sail-bench-{self.port}.log", "w")
        self.proc = subprocess.Popen([binary, "spark", "server", "--port", str(self.port)], stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.time() + 60
        while time.time() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("sail did not start")

    @property
    def url(self):
        return f"sc://127.0.0.1:{self.port}"

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self.log.close()


class Engine:
    def __init__(self, name, server, suite, data, shuffle_partitions):
        from pyspark.sql import SparkSession

        self.name = name
        self.server = server
        self.spark = SparkSession.builder.remote(server.url).create()
        if shuffle_partitions:
            self.spark.conf.set("spark.sql.shuffle.partitions", str(shuffle_partitions))
        suite.register_spark(self.spark, data)
        self.spark.range(3).count()  # workers registered, session warm
        self.times = {}
        self.cpu = 0.0
        self.analyze = []

    def pids(self):
        pid = self.server.proc.pid
        return [pid, *children(pid)]

    def cpu_now(self):
        return sum(cpu_seconds(p) for p in self.pids())

    def run(self, sql, timed=True):
        before = self.cpu_now()
        start = time.perf_counter()
        rows = [tuple(r) for r in self.spark.sql(sql).collect()]
        took = time.perf_counter() - start
        if timed:
            self.cpu += self.cpu_now() - before
        return took, rows

    def first_query_ms(self, runs=5):
        """A new session's first trivial query, as the client waits for it (median)."""
        from pyspark.sql import SparkSession

        samples = []
        for _ in range(runs):
            start = time.perf_counter()
            s = SparkSession.builder.remote(self.server.url).create()
            s.sql("SELECT 1").collect()
            samples.append((time.perf_counter() - start) * 1000)
            s.stop()
        return statistics.median(samples)

    def schema_ms(self, sql):
        df = self.spark.sql(sql)
        start = time.perf_counter()
        df.schema  # noqa: B018 - an AnalyzePlan round trip
        return (time.perf_counter() - start) * 1000

    def peaks(self):
        pid = self.server.proc.pid
        workers = [peak_rss_mb(c) for c in children(pid)]
        return peak_rss_mb(pid), max(workers, default=0)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--suite", choices=["tpch", "tpcds"], default="tpch")
    p.add_argument("--scale", type=float, default=1.0)
    p.add_argument("--modes", default="local,local-cluster,cluster")
    p.add_argument("--queries", help="comma-separated query numbers (default: all)")
    p.add_argument("--runs", type=int, default=3, help="timed runs per query and engine (minimum reported), after one warm-up")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--shuffle-partitions", type=int, default=0, help="spark.sql.shuffle.partitions for every engine (0: each one's default)")
    p.add_argument("--sail-bin", default=str(Path.home() / ".cache/ember/venv-sail/bin/sail"))
    p.add_argument("--no-sail", action="store_true")
    args = p.parse_args()

    suite = tpch if args.suite == "tpch" else tpcds
    count = 22 if args.suite == "tpch" else 99
    queries = [int(q) for q in args.queries.split(",")] if args.queries else list(range(1, count + 1))
    cache = Path.home() / ".cache" / "ember"
    if suite is tpch:
        data = tpch.generate(args.scale, cache / f"tpch-sf{args.scale:g}", parts=4)
    else:
        data = tpcds.generate(args.scale, cache / f"tpcds-sf{args.scale:g}")
    binary = bench_tpch.ember_binary()
    print(f"{args.suite.upper()} SF{args.scale:g}, ember {binary}, {os.cpu_count()} cores, {args.runs} runs", flush=True)

    duck = tpcds.duckdb_context(data, suite.TABLES)
    reference, duck_times = {}, {}
    for q in queries:
        sql = suite.query(q)
        start = time.perf_counter()
        reference[q] = tpcds.duckdb_rows(duck, sql)
        duck_times[q] = time.perf_counter() - start
    duck.close()

    servers, engines = [], []
    try:
        for mode in [m for m in args.modes.split(",") if m]:
            extra = ["--workers", str(args.workers)] if mode != "local" else []
            servers.append(EmberServer(binary, mode, extra_args=extra))
            engines.append(Engine(mode, servers[-1], suite, data, args.shuffle_partitions))
        if not args.no_sail:
            if not shutil.which(args.sail_bin) and not Path(args.sail_bin).exists():
                raise SystemExit(f"no sail at {args.sail_bin} (see --help), or --no-sail")
            servers.append(Sail(args.sail_bin))
            engines.append(Engine("sail", servers[-1], suite, data, args.shuffle_partitions))

        wrong = {e.name: [] for e in engines}
        for q in queries:
            sql = suite.query(q)
            for e in engines:
                try:
                    _, rows = e.run(sql, timed=False)
                except Exception as err:  # noqa: BLE001 - reported, the run goes on
                    print(f"  {e.name} q{q}: FAILED {str(err).splitlines()[0][:200]}", flush=True)
                    e.times[q] = [float("nan")]
                    wrong[e.name].append(q)
                    continue
                problem = answers.same_answer(rows, reference[q], True, tolerance=1e-5)
                if problem:
                    print(f"  {e.name} q{q}: WRONG ANSWER {problem}", flush=True)
                    wrong[e.name].append(q)
                e.times[q] = []
                e.analyze.append(e.schema_ms(sql))
            for _ in range(args.runs):
                for e in engines:
                    if q in wrong[e.name]:
                        continue
                    took, _ = e.run(sql)
                    e.times[q].append(took)
            line = f"q{q:<3}" + "".join(f" {e.name} {min(e.times[q]) if e.times[q] else float('nan'):.3f}" for e in engines)
            print(line, flush=True)

        report(args, engines, queries, duck_times, wrong)
    finally:
        for e in engines:
            e.spark.stop()
        for s in servers:
            s.stop()


def report(args, engines, queries, duck_times, wrong):
    by = {e.name: e for e in engines}
    sail = by.get("sail")
    local = by.get("local")

    def best(e, q):
        return min(e.times[q]) if e.times[q] else float("nan")

    header = f"{'query':>7} {'duckdb s':>9}"
    for e in engines:
        header += f" {e.name + ' s':>16}"
        if local and e.name not in ("local", "sail"):
            header += f" {'/local':>6}"
        if sail and e is not sail:
            header += f" {'/sail':>6}"
    print()
    print(header)

    def line(label, duck, value):
        text = f"{label:>7} {duck:>9.3f}"
        for e in engines:
            text += f" {value(e):>16.3f}"
            if local and e.name not in ("local", "sail"):
                text += f" {value(e) / value(local):>6.2f}"
            if sail and e is not sail:
                text += f" {value(e) / value(sail):>6.2f}"
        print(text)

    for q in queries:
        line(f"q{q}", duck_times[q], lambda e, q=q: best(e, q))
    line("total", sum(duck_times.values()), lambda e: sum(best(e, q) for q in queries))
    line("geomean", statistics.geometric_mean(duck_times.values()), lambda e: statistics.geometric_mean([best(e, q) for q in queries]))
    print()
    per_run = max(args.runs, 1)
    for e in engines:
        server_peak, worker_peak = e.peaks()
        first = e.first_query_ms()
        print(
            f"{e.name:>14}: CPU {e.cpu / per_run:7.2f} s per run"
            + (f" ({e.cpu / sail.cpu:.2f}x Sail)" if sail and e is not sail and sail.cpu else "")
            + f", peak RSS server {server_peak} MiB"
            + (f", largest worker {worker_peak} MiB" if worker_peak else "")
            + f", first query of a new session {first:.1f} ms, schema (AnalyzePlan) median {statistics.median(e.analyze):.1f} ms max {max(e.analyze):.1f} ms"
            + (f", WRONG or FAILED: {wrong[e.name]}" if wrong[e.name] else ", every answer right")
        )


if __name__ == "__main__":
    main()
