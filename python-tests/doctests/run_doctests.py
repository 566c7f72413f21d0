"""Run PySpark's bundled Spark Connect doctests against Ember (or any Spark Connect server).

Each module is run the way PySpark's own test runner runs it (`python -m <module>`): the
module's `_test()` is called unchanged, with `SPARK_CONNECT_TESTING_REMOTE` set to the server's
URL, so its setup is exactly PySpark's (which docstrings, `spark` bound to
`SparkSession.builder.appName(...).remote(URL).getOrCreate()`, the doctests it deletes, its
option flags). Only `doctest.testmod` is replaced, by one that records every example's outcome
(and stops an example after `--example-timeout` seconds). Each module runs in a process of its
own, as under PySpark's runner, and by default against a fresh `ember server` of its own.

    run_doctests.py [--url sc://HOST:PORT] [--modules a,b] [--failures FILE] [--json FILE]
                    [--baseline FILE.json] [--conf KEY=VALUE] [--ember-bin PATH] [--mode local]
                    [--markdown FILE]

Without --url it starts `ember server --port P --mode MODE` (in a temporary working directory)
for each module and stops it afterwards. With --url (e.g. real Spark from
`../shared/tools/spark-reference start`) it runs against that server. --baseline takes the
--json of an earlier run (e.g. against real Spark) and counts which failures also failed there.
--conf sets a `spark.sql.*` config on every session at creation, through PySpark's own hook
(`PYSPARK_REMOTE_INIT_CONF_*`): Spark's test runs have `spark.sql.timeType.enabled` on (it is
on when Spark runs under test), a server started by hand does not.
--markdown writes every failing example per module with its reason from known_failures.json
(beside this script: module::test::example -> kind and reason, written by hand after reading
each failure; a failure it does not list shows as "not yet explained"); docs/doctest-failures.md
is written this way.
Exit status: 0 when every example passed, 1 otherwise.
"""

import argparse
import doctest
import importlib
import json
import re
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# The runner module whose `_test()` runs, and the module whose docstrings it tests.
MODULES = {
    "pyspark.sql.connect.functions.builtin": "pyspark.sql.connect.functions.builtin",
    "pyspark.sql.connect.dataframe": "pyspark.sql.dataframe",
    "pyspark.sql.connect.column": "pyspark.sql.column",
    "pyspark.sql.connect.group": "pyspark.sql.connect.group",
    "pyspark.sql.connect.readwriter": "pyspark.sql.connect.readwriter",
    "pyspark.sql.connect.catalog": "pyspark.sql.connect.catalog",
    "pyspark.sql.connect.session": "pyspark.sql.connect.session",
}
# Names the issue and PySpark's docs use for the same suites.
ALIASES = {
    "pyspark.sql.dataframe": "pyspark.sql.connect.dataframe",
    "pyspark.sql.column": "pyspark.sql.connect.column",
    "builtin": "pyspark.sql.connect.functions.builtin",
    "functions": "pyspark.sql.connect.functions.builtin",
}
for _m in MODULES:
    ALIASES.setdefault(_m.rsplit(".", 1)[-1], _m)

MAX_TEXT = 4000


class ExampleTimeout(Exception):
    """Raised inside an example that ran longer than --example-timeout."""


def _clip(text: str) -> str:
    return text if len(text) <= MAX_TEXT else text[:MAX_TEXT] + f"\n... [{len(text) - MAX_TEXT} more characters]"


class RecordingRunner(doctest.DocTestRunner):
    """A DocTestRunner that records each failing example and times out slow ones."""

    def __init__(self, *args, example_timeout=0, **kwargs):
        super().__init__(*args, **kwargs)
        self.example_timeout = example_timeout
        self.failed = []
        self._test_failures = {}

    def _example_index(self, test, example):
        for i, e in enumerate(test.examples):
            if e is example:
                return i
        return -1

    def _record(self, test, example, got, kind):
        signal.alarm(0)
        index = self._example_index(test, example)
        earlier = self._test_failures.get(test.name, 0)
        self._test_failures[test.name] = earlier + 1
        self.failed.append(
            {
                "test": test.name,
                "index": index,
                "file": os.path.basename(test.filename or ""),
                "line": (test.lineno or 0) + example.lineno + 1,
                "source": example.source,
                "want": example.exc_msg if kind == "exception" and example.exc_msg else example.want,
                "got": _clip(got),
                "kind": kind,
                "earlier_failures_in_docstring": earlier,
            }
        )

    def report_start(self, out, test, example):
        if self.example_timeout:
            signal.alarm(self.example_timeout)
        return super().report_start(out, test, example)

    def report_success(self, out, test, example, got):
        signal.alarm(0)

    def report_failure(self, out, test, example, got):
        self._record(test, example, got, "mismatch")

    def report_unexpected_exception(self, out, test, example, exc_info):
        got = "".join(traceback.format_exception_only(exc_info[0], exc_info[1]))
        got = got.split("\n\nJVM stacktrace:")[0]  # real Spark appends the server's stack
        self._record(test, example, got, "exception")


def run_module(runner_module: str, out_path: Path, example_timeout: int) -> None:
    """Worker: run one module's `_test()` in this process, recording into out_path (JSON)."""
    result = {
        "module": runner_module,
        "tested": MODULES[runner_module],
        "attempted": 0,
        "failed": 0,
        "failures": [],
        "error": None,
    }

    def on_alarm(signum, frame):
        raise ExampleTimeout(f"example did not finish within {example_timeout}s")

    signal.signal(signal.SIGALRM, on_alarm)
    calls = []

    def testmod(m=None, name=None, globs=None, verbose=None, report=True, optionflags=0,
                extraglobs=None, raise_on_error=False, exclude_empty=False):
        finder = doctest.DocTestFinder(exclude_empty=exclude_empty)
        runner = RecordingRunner(verbose=False, optionflags=optionflags, example_timeout=example_timeout)
        for test in finder.find(m, name or m.__name__, globs=globs, extraglobs=extraglobs):
            runner.run(test, out=lambda s: None)
        calls.append(runner)
        return doctest.TestResults(runner.failures, runner.tries)

    doctest.testmod = testmod
    try:
        module = importlib.import_module(runner_module)
        module._test()
    except SystemExit:
        pass  # `_test()` exits with -1 when an example failed
    except BaseException as e:  # noqa: BLE001 - report whatever stopped `_test()` (e.g. session creation)
        result["error"] = _clip("".join(traceback.format_exception_only(type(e), e)).strip())
    signal.alarm(0)
    if calls:
        runner = calls[-1]
        result["attempted"] = runner.tries
        result["failed"] = runner.failures
        result["failures"] = runner.failed
    else:
        # `_test()` stopped before its doctests ran: every example counts as failed.
        tested = importlib.import_module(MODULES[runner_module])
        n = sum(
            len([e for e in t.examples if not e.options.get(doctest.SKIP)])
            for t in doctest.DocTestFinder().find(tested, tested.__name__, globs={})
        )
        result["attempted"] = result["failed"] = n
    out_path.write_text(json.dumps(result, indent=1))


# ---------------------------------------------------------------------------------------------
# Parent: servers, one worker process per module, summary.


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class EmberServer:
    """`ember server --port P --mode MODE` in a temporary working directory, stopped by PID."""

    def __init__(self, binary: Path, mode: str, workdir: Path):
        self.port = free_port()
        self.workdir = workdir
        self.log_path = workdir / f"ember-{mode}-{self.port}.log"
        self.log = open(self.log_path, "w")
        args = [str(binary), "server", "--port", str(self.port), "--mode", mode]
        if mode != "local":
            args += ["--workers", "2"]
        if mode == "cluster":
            args += ["--driver-port", "0"]
        # UDFs run in this Python, which has the client's packages (as the test suite's server).
        env = {**os.environ, "PYSPARK_PYTHON": os.environ.get("PYSPARK_PYTHON", sys.executable)}
        self.proc = subprocess.Popen(args, stdout=self.log, stderr=subprocess.STDOUT, cwd=workdir, env=env)
        deadline = time.time() + 60
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"ember exited early; log:\n{self.log_path.read_text()}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError("ember did not start within 60s")

    @property
    def url(self) -> str:
        return f"sc://127.0.0.1:{self.port}"

    def stop(self) -> str:
        """Stops the server; returns a note when it had died on its own."""
        note = ""
        code = self.proc.poll()
        if code is not None:
            tail = self.log_path.read_text()[-2000:]
            note = f"ember exited with status {code} during the run; log tail:\n{tail}"
        else:
            os.kill(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.kill(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        self.log.close()
        return note


def spark_home() -> str:
    import pyspark

    return os.path.dirname(pyspark.__file__)


def run_worker(module, url, tmp: Path, args) -> dict:
    out = tmp / f"{module}.json"
    env = dict(os.environ)
    env.update(
        {
            # What PySpark's python/run-tests.py sets for every test process.
            "SPARK_TESTING": "1",
            "PYARROW_IGNORE_TIMEZONE": "1",
            "SPARK_CONNECT_TESTING_REMOTE": url,
            "TMPDIR": str(tmp),
        }
    )
    env.setdefault("SPARK_HOME", spark_home())
    if args.conf:
        # PySpark's own hook for session configs at creation (its local test servers use it):
        # the client sets these `spark.sql.*` configs, silently, on every session it creates.
        confs = dict(kv.split("=", 1) for kv in args.conf)
        env.update({"PYSPARK_REMOTE_INIT_CONF_LEN": "1", "PYSPARK_REMOTE_INIT_CONF_0": json.dumps(confs)})
    cmd = [sys.executable, __file__, "--worker", module, "--out", str(out),
           "--example-timeout", str(args.example_timeout)]
    log = tmp / f"{module}.log"
    with open(log, "w") as log_file:
        try:
            proc = subprocess.run(cmd, env=env, stdout=log_file, stderr=subprocess.STDOUT,
                                  timeout=args.module_timeout, cwd=tmp)
            code = proc.returncode
        except subprocess.TimeoutExpired:
            code = "timeout"
    if out.exists():
        return json.loads(out.read_text())
    return {
        "module": module, "tested": MODULES[module], "attempted": 0, "failed": 0, "failures": [],
        "error": f"worker ended ({code}) without results; output:\n{log.read_text()[-3000:]}",
    }


def reason(f: dict) -> str:
    """A coarse cause for a failing example: the error class of an exception, or "output differs"."""
    if f["kind"] != "exception" and "Traceback (most recent call last)" not in f["got"]:
        return "output differs"
    m = re.search(r"\[([A-Z][A-Z0-9_]+(?:\.[A-Z0-9_]+)?)\]", f["got"])
    if m:
        return m.group(1)
    lines = [line for line in f["got"].splitlines() if line.strip()]
    return (lines[-1].split(":")[0] if lines else "no output")[:80]


def example_key(module: str, f: dict) -> str:
    return f"{module}::{f['test']}::{f['index']}"


def write_failures(path: Path, results: list, baseline: set) -> None:
    lines = []
    for r in results:
        lines.append(f"######## {r['module']} (docstrings of {r['tested']}): "
                     f"{r['attempted'] - r['failed']} passed, {r['failed']} failed")
        if r.get("error"):
            lines.append(f"!! _test() stopped: {r['error']}")
        if r.get("server_note"):
            lines.append(f"!! {r['server_note']}")
        for f in r["failures"]:
            tags = []
            if example_key(r["module"], f) in baseline:
                tags.append("also fails on baseline")
            if f["earlier_failures_in_docstring"]:
                tags.append(f"after {f['earlier_failures_in_docstring']} earlier failure(s) in this docstring")
            lines.append("")
            lines.append(f"=== {f['test']} [example {f['index']}] {f['file']}:{f['line']}"
                         + (f"  ({'; '.join(tags)})" if tags else ""))
            lines.append("--- source")
            lines.append(f["source"].rstrip("\n"))
            lines.append("--- expected")
            lines.append((f["want"] or "").rstrip("\n"))
            lines.append("--- got" + (" (exception)" if f["kind"] == "exception" else ""))
            lines.append(f["got"].rstrip("\n"))
        lines.append("")
    path.write_text("\n".join(lines) + "\n")


KNOWN = Path(__file__).resolve().parent / "known_failures.json"
KINDS = {
    "difference": "a real Ember difference",
    "unsupported": "not supported by Ember (answers `not supported` or an error)",
    "nondeterministic": "nondeterministic (row order, sampling, approximation, last-bit floating point order)",
    "environment": "depends on the environment (files or packages the example needs; fails on Spark too)",
}


def write_markdown(path: Path, results: list, baseline: set, target: str) -> None:
    """Every failing example per module with its reason (see known_failures.json)."""
    known = json.loads(KNOWN.read_text()) if KNOWN.exists() else {}
    attempted = sum(r["attempted"] for r in results)
    failed = sum(r["failed"] for r in results)
    lines = [
        "# PySpark 4.3 doctests on Ember: every failing example and why",
        "",
        "Written by `scripts/doctests.sh --markdown docs/doctest-failures.md` (the reasons come from",
        "`python-tests/doctests/known_failures.json`, written after reading each failure).",
        f"Target: {target}. Examples as counted by `doctest.testmod`.",
        "",
        "| module | examples | passed | failed | pass % |",
        "|---|---:|---:|---:|---:|",
    ]
    for r in results:
        a, f = r["attempted"], r["failed"]
        lines.append(f"| {r['module']} | {a} | {a - f} | {f} | {100.0 * (a - f) / a if a else 0:.1f} % |")
    lines.append(f"| **total** | {attempted} | {attempted - failed} | {failed} | "
                 f"{100.0 * (attempted - failed) / attempted if attempted else 0:.1f} % |")
    kinds = {}
    for r in results:
        for f in r["failures"]:
            kind = known.get(example_key(r["module"], f), {}).get("kind", "unexplained")
            kinds[kind] = kinds.get(kind, 0) + 1
    lines += ["", "Failures by kind: " + ", ".join(
        f"{n} {KINDS.get(k, 'not yet explained') if k in KINDS else 'not yet explained'}"
        for k, n in sorted(kinds.items(), key=lambda kv: -kv[1])) + ".", ""]
    for r in results:
        if not r["failures"] and not r.get("error"):
            continue
        lines += [f"## {r['module']} (docstrings of {r['tested']})", ""]
        if r.get("error"):
            lines += [f"`_test()` stopped: {r['error'].splitlines()[0]}", ""]
        lines += ["| example | line | kind | reason |", "|---|---|---|---|"]
        for f in r["failures"]:
            info = known.get(example_key(r["module"], f), {})
            reason = info.get("reason", "not yet explained")
            if example_key(r["module"], f) in baseline:
                reason += " (also fails on the baseline run)"
            first = f["source"].strip().splitlines()[0] if f["source"].strip() else ""
            name = f["test"].removeprefix(r["tested"] + ".")
            src = first.replace("|", "\\|").replace("`", "'")
            lines.append(f"| `{name}` #{f['index']}: `{src[:70]}` | {f['file']}:{f['line']} | "
                         f"{info.get('kind', 'unexplained')} | {reason.replace('|', '/')} |")
        lines.append("")
    path.write_text("\n".join(lines))


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--url", help="Spark Connect URL to test (default: start ember for each module)")
    p.add_argument("--modules", default=",".join(MODULES), help="comma-separated modules (default: all)")
    p.add_argument("--failures", type=Path, help="write every failing example (source, expected, got) here")
    p.add_argument("--json", type=Path, help="write the results as JSON here (usable as --baseline)")
    p.add_argument("--markdown", type=Path, help="write every failing example with its reason (Markdown)")
    p.add_argument("--baseline", type=Path, help="JSON of an earlier run (e.g. real Spark) to compare with")
    p.add_argument("--ember-bin", type=Path, default=os.environ.get("EMBER_BIN"),
                   help="ember binary (default: $CARGO_TARGET_DIR/debug/ember, ~/.cache/ember/target)")
    p.add_argument("--mode", default="local", help="ember execution mode (local, local-cluster, cluster)")
    p.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE",
                   help="a spark.sql.* config every session sets at creation (repeatable), e.g. "
                        "spark.sql.timeType.enabled=true, which Spark's own test runs have on")
    p.add_argument("--example-timeout", type=int, default=120, help="seconds per example (0: none)")
    p.add_argument("--module-timeout", type=int, default=3600, help="seconds per module")
    p.add_argument("--worker", help=argparse.SUPPRESS)
    p.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = p.parse_args()

    if args.worker:
        run_module(args.worker, args.out, args.example_timeout)
        return 0

    modules = []
    for name in args.modules.split(","):
        name = name.strip()
        if not name:
            continue
        name = ALIASES.get(name, name)
        if name not in MODULES:
            p.error(f"unknown module {name}; known: {', '.join(MODULES)}")
        modules.append(name)

    binary = None
    if not args.url:
        binary = args.ember_bin or Path(
            os.environ.get("CARGO_TARGET_DIR", Path.home() / ".cache/ember/target")) / "debug" / "ember"
        if not Path(binary).exists():
            print(f"ember binary not found at {binary}; build it or pass --url", file=sys.stderr)
            return 2

    baseline = set()
    if args.baseline:
        for r in json.loads(args.baseline.read_text())["modules"]:
            baseline.update(example_key(r["module"], f) for f in r["failures"])

    print(f"target: {args.url or f'ember ({binary}, --mode {args.mode}, a fresh server per module)'}"
          + (f"; session configs: {', '.join(args.conf)}" if args.conf else ""))
    results = []
    with tempfile.TemporaryDirectory(prefix="ember-doctests-") as tmp_root:
        for module in modules:
            tmp = Path(tmp_root) / module
            tmp.mkdir()
            started = time.time()
            server = None
            note = ""
            try:
                if args.url:
                    url = args.url
                else:
                    server = EmberServer(Path(binary), args.mode, tmp)
                    url = server.url
                r = run_worker(module, url, tmp, args)
            finally:
                if server is not None:
                    note = server.stop()
            if note:
                r["server_note"] = note
            r["seconds"] = round(time.time() - started, 1)
            results.append(r)
            on_base = sum(1 for f in r["failures"] if example_key(module, f) in baseline)
            extra = f", {on_base} of them also on baseline" if args.baseline else ""
            print(f"{module:40s} {r['attempted'] - r['failed']:5d} passed {r['failed']:5d} failed"
                  f"{extra}  ({r['seconds']}s)" + ("  !! " + r["error"].splitlines()[0] if r.get("error") else ""),
                  flush=True)

    attempted = sum(r["attempted"] for r in results)
    failed = sum(r["failed"] for r in results)
    passed = attempted - failed
    pct = 100.0 * passed / attempted if attempted else 0.0
    print(f"\n{'module':40s} {'tests':>6s} {'passed':>7s} {'failed':>7s} {'pass %':>7s}"
          + (f" {'on baseline':>12s}" if args.baseline else ""))
    for r in results:
        a, f = r["attempted"], r["failed"]
        row = f"{r['module']:40s} {a:6d} {a - f:7d} {f:7d} {100.0 * (a - f) / a if a else 0:6.1f}%"
        if args.baseline:
            row += f" {sum(1 for x in r['failures'] if example_key(r['module'], x) in baseline):12d}"
        print(row)
    row = f"{'TOTAL':40s} {attempted:6d} {passed:7d} {failed:7d} {pct:6.1f}%"
    if args.baseline:
        both = sum(1 for r in results for x in r["failures"] if example_key(r["module"], x) in baseline)
        row += f" {both:12d}"
        print(row)
        if attempted:
            print(f"pass % counting failures that also fail on the baseline as passed: "
                  f"{100.0 * (passed + both) / attempted:.1f}%")
    else:
        print(row)
    print("(tests = doctest examples run, as counted by doctest.testmod)")

    causes = {}
    for r in results:
        for f in r["failures"]:
            if example_key(r["module"], f) not in baseline:
                causes[reason(f)] = causes.get(reason(f), 0) + 1
    if causes:
        print("\nfailures by error class" + (" (not failing on the baseline)" if args.baseline else "") + ":")
        for cause, n in sorted(causes.items(), key=lambda kv: -kv[1])[:25]:
            print(f"{n:6d}  {cause}")

    if args.json:
        args.json.write_text(json.dumps({"target": args.url or "ember", "modules": results}, indent=1))
        print(f"results: {args.json}")
    if args.markdown:
        target = args.url or f"ember --mode {args.mode}"
        write_markdown(args.markdown, results, baseline, target)
        print(f"failures with reasons: {args.markdown}")
    if args.failures:
        write_failures(args.failures, results, baseline)
        print(f"failures: {args.failures}")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
