"""A pytest plugin that prints one line per Spark Connect TCK item: its case id, PASS/FAIL, why.

Loaded by `scripts/conformance.sh` into the compatibility kit's own pytest run (`-p tck_report`,
this folder on PYTHONPATH); the kit itself is not part of this repository. Each item is tagged with
its `tck_case` id and whether the kit marks it `reference_gap` (required by the draft, but known
not to pass on the pinned Apache Spark). With `--tck-json PATH` the results are also written as
JSON, so a run against Ember can be compared with a run against real Spark.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

_RESULTS: dict[str, dict] = {}


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--tck-json", default=None, help="write per-item TCK results to this file")
    parser.addoption("--tck-target", default="", help="name of the server under test, for the report")


def _reason(report: pytest.TestReport) -> str:
    crash = getattr(report.longrepr, "reprcrash", None)
    text = crash.message if crash is not None else str(report.longrepr)
    return " ".join(text.split())[:400]


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call):
    outcome = yield
    report = outcome.get_result()
    marker = item.get_closest_marker("tck_case")
    case_id = marker.args[0] if marker and marker.args else "?"
    gap = item.get_closest_marker("reference_gap") is not None
    entry = _RESULTS.setdefault(
        item.nodeid,
        {"case": case_id, "test": item.name, "reference_gap": gap, "outcome": "passed", "reason": ""},
    )
    if report.failed and entry["outcome"] != "failed":
        entry["outcome"] = "failed"
        entry["reason"] = f"[{report.when}] {_reason(report)}"
    elif report.skipped and report.when == "setup":
        entry["outcome"] = "skipped"
        entry["reason"] = _reason(report)


def pytest_terminal_summary(terminalreporter, exitstatus, config: pytest.Config) -> None:
    if not _RESULTS:
        return
    write = terminalreporter.write_line
    target = config.getoption("--tck-target")
    write("")
    write(f"==== Spark Connect TCK, per item{f' ({target})' if target else ''} ====")
    for entry in _RESULTS.values():
        status = {"passed": "PASS", "failed": "FAIL", "skipped": "SKIP"}[entry["outcome"]]
        gap = " [reference gap]" if entry["reference_gap"] else ""
        write(f"{status}  {entry['case']:<16} {entry['test']}{gap}")
        if entry["reason"]:
            write(f"        {entry['reason']}")
    counted = [e for e in _RESULTS.values() if e["outcome"] != "skipped"]
    passed = sum(e["outcome"] == "passed" for e in counted)
    failed = len(counted) - passed
    gaps = [e for e in counted if e["reference_gap"]]
    if gaps:
        gap_passed = sum(e["outcome"] == "passed" for e in gaps)
        write(f"reference-gap items: {gap_passed} passed, {len(gaps) - gap_passed} failed")
    write(f"tck: {passed} passed, {failed} failed")
    path = config.getoption("--tck-json")
    if path:
        Path(path).write_text(json.dumps(list(_RESULTS.values()), indent=2) + "\n")
