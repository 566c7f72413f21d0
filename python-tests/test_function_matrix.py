"""The generated edge-case matrix of Ember's functions against real Spark 4.3's answers.

`matrix/generate.py` builds the cases (NULL in each argument, each input type, column
arguments, edge values, wrong arity, invalid inputs, ANSI on and off) and records Spark's
answers in `matrix/spark43.json`; `matrix/known_differences.json` lists the cases where Ember
answers differently today, each with its category (`docs/function-matrix.md`). Local mode runs
every case, the cluster modes every 20th. A case that differs and is not listed fails the test;
a listed case that now matches is reported (remove it from the list:
`EMBER_MATRIX_UPDATE=1 pytest python-tests/test_function_matrix.py` rewrites the list from a
local-mode run).
"""

import json
import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "matrix"))

import generate  # noqa: E402

from conftest import _close  # noqa: E402

KNOWN_PATH = generate.HERE / "known_differences.json"
REASONS_PATH = generate.HERE / "reasons.json"
UPDATE = os.environ.get("EMBER_MATRIX_UPDATE") == "1"
SAMPLE = {"local": 1, "local-cluster": 20, "cluster": 20}
# Cases that make Ember run out of memory or run away today: not run, counted as differences.
# (None today: array_insert at index 2147483647 answers COLLECTION_SIZE_LIMIT_EXCEEDED.)
RUNAWAY: dict[str, str] = {}


# Calls whose value is the time they run at: their types and nullability are compared.
READS_THE_CLOCK = ("unix_timestamp()",)


def difference(want, got):
    """How Ember's answer `got` differs from Spark's `want` ("<category>: <detail>"), or None."""
    if "error" in want:
        if "error" not in got:
            return f"answers where Spark raises: {want['error']}"
        if want["error"] != got["error"]:
            return f"different error class: Spark {want['error']}, Ember {got['error']}"
        return None
    if "error" in got:
        if "not supported" in got.get("message", "") or got["error"] == "UNRESOLVED_ROUTINE":
            return f"not supported: {got['error']}"
        return f"raises where Spark answers: {got['error']}"
    want_types, got_types = [t for t, _ in want["schema"]], [t for t, _ in got["schema"]]
    if want_types != got_types:
        return f"different result type: Spark {','.join(want_types)}, Ember {','.join(got_types)}"
    if not _close(got["rows"], want["rows"]) and not any(c in want["sql"] for c in READS_THE_CLOCK):
        return f"different value: Ember {json.dumps(got['rows'])[:80]}"
    if [n for _, n in want["schema"]] != [n for _, n in got["schema"]]:
        return "different nullability: Spark nullable={}, Ember nullable={}".format(
            [n for _, n in want["schema"]], [n for _, n in got["schema"]]
        )
    return None


# (One test runs every case: about six minutes in local mode on two cores, past the suite's
# per-test timeout.)
@pytest.mark.timeout(1800)
def test_function_matrix(spark, ember_mode):
    recorded = json.loads(generate.RECORDING.read_text())
    known = json.loads(KNOWN_PATH.read_text()) if KNOWN_PATH.exists() else {}
    names = sorted(recorded)
    step = SAMPLE.get(ember_mode, 20)
    selected = {n: recorded[n] for i, n in enumerate(names) if i % step == 0}
    answers = generate.run_all(
        spark,
        {n: c for n, c in selected.items() if n not in RUNAWAY},
        progress=lambda n, t: print(f"{n}/{t}", flush=True),
        keep_message=True,
    )

    found = {n: r for n, r in RUNAWAY.items() if n in selected}
    for name in sorted(answers):
        category = difference(recorded[name], answers[name])
        if category:
            found[name] = category
    if UPDATE and ember_mode == "local":
        KNOWN_PATH.write_text(json.dumps(found, indent=1, sort_keys=True) + "\n")
        return
    regressions = {n: c for n, c in found.items() if n not in known}
    fixed = sorted(n for n in selected if n in known and n not in found)
    print(
        f"\nfunction matrix ({ember_mode}): {len(selected)} cases, {len(selected) - len(found)} match Spark, "
        f"{len(found) - len(regressions)} known differences, {len(fixed)} known differences now match"
        + (f" (remove them from {KNOWN_PATH.name}: {fixed[:20]})" if fixed else "")
    )
    assert not regressions, f"{len(regressions)} cases differ from Spark and are not known differences:\n" + "\n".join(
        f"{n} [{c}]: {recorded[n]['sql']}\n  Spark: {_brief(recorded[n])}\n  Ember: {_brief(answers[n])}"
        for n, c in list(regressions.items())[:40]
    )


def _brief(answer):
    if "error" in answer:
        return f"error {answer['error']}"
    return f"{answer['schema']} {json.dumps(answer['rows'])[:200]}"


def test_each_known_difference_has_a_reason():
    """`docs/function-matrix.md` says why each listed case differs (matrix/reasons.json)."""
    known = json.loads(KNOWN_PATH.read_text())
    reasons = json.loads(REASONS_PATH.read_text())
    assert not set(known) - set(reasons), f"known differences without a reason: {sorted(set(known) - set(reasons))}"
    assert not set(reasons) - set(known), f"reasons for cases that now match: {sorted(set(reasons) - set(known))}"
    assert all(r.strip() for r in reasons.values())
