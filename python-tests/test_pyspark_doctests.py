"""PySpark 4.3's own doctests of its Spark Connect API, run against Ember in each mode.

`scripts/doctests.sh` runs the same examples by hand (per module, with the failures written
out); this test keeps their pass rate where it is: at least `MIN_PASS_RATE` of the examples of
`pyspark.sql.connect.functions.builtin`, `pyspark.sql.dataframe`, `pyspark.sql.column`,
`pyspark.sql.connect.group`, `readwriter`, `catalog` and `session` must pass. The doctests ship
with the full `pyspark` package only, so the test runs with that client.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import NEWEST_CLIENT, RECORD, client_version, ember_binary

MIN_PASS_RATE = 0.96
RUNNER = Path(__file__).resolve().parent / "doctests" / "run_doctests.py"


def test_pyspark_doctests_pass(request, ember_mode, tmp_path):
    if RECORD or ember_mode == "spark":
        pytest.skip("the doctests' expected output is Spark's own")
    if client_version() != NEWEST_CLIENT:
        pytest.skip("the doctests are those of the newest client")
    try:
        import pyspark.sql.connect.functions.builtin  # noqa: F401
    except ImportError:
        pytest.skip("pyspark-client has no doctests")
    results = tmp_path / "doctests.json"
    failures = tmp_path / "failures.txt"
    proc = subprocess.run(
        [
            sys.executable,
            str(RUNNER),
            "--mode",
            ember_mode,
            "--ember-bin",
            str(ember_binary(request.config)),
            "--json",
            str(results),
            "--failures",
            str(failures),
        ],
        capture_output=True,
        text=True,
        timeout=1800,
        env={**os.environ, "PYTHONPATH": ""},
    )
    assert results.exists(), f"the doctest runner failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    modules = json.loads(results.read_text())["modules"]
    errors = [m["module"] for m in modules if m.get("error")]
    assert not errors, f"modules that did not run: {errors}\n{proc.stdout[-3000:]}"
    attempted = sum(m["attempted"] for m in modules)
    failed = sum(m["failed"] for m in modules)
    rate = (attempted - failed) / attempted
    summary = "\n".join(line for line in proc.stdout.splitlines() if line.startswith(("pyspark.", "TOTAL", "module")))
    assert attempted > 4000, f"only {attempted} examples ran:\n{summary}"
    assert rate >= MIN_PASS_RATE, (
        f"{rate:.1%} of {attempted} doctest examples passed (want {MIN_PASS_RATE:.0%}):\n{summary}\n"
        f"failures:\n{failures.read_text()[:20000]}"
    )
