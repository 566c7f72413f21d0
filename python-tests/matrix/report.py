"""Writes `docs/function-matrix.md` from the recording and the list of known differences.

    python python-tests/matrix/report.py
"""

import json
from collections import Counter, defaultdict

from generate import HERE, RECORDING

DOC = HERE.parent.parent / "docs" / "function-matrix.md"
KNOWN = HERE / "known_differences.json"
REASONS = HERE / "reasons.json"

HEADER = """# The function edge-case matrix

A generated matrix of edge cases for the functions Ember has, with the answers real Spark 4.3
gave (issue 30). `python-tests/matrix/generate.py` builds every case from a table of functions
and their argument kinds, deterministically, as one small SQL statement each:

- the call with two sets of representative literals (`lit0`, `lit1`);
- a typed NULL (`CAST(NULL AS <type>)`) and an untyped `NULL` in each argument (`aN/null`, `aN/untyped_null`);
- each other input type in each argument: INT, BIGINT, DOUBLE, DECIMAL, STRING, DATE, TIMESTAMP,
  BOOLEAN, BINARY, ARRAY (`aN/type_<kind>`): accepted through Spark's coercion, or its error class;
- an edge value in each argument (INT/BIGINT maximum, NaN, the largest DECIMAL(10,3), `''`, year 1
  and 9999, empty arrays and maps; `aN/edge`) and an invalid string (`aN/bad_string`);
- column arguments: every non-lambda argument read from `FROM VALUES (...), (...) AS t(c0, c1, ...)` (`columns`);
- wrong arity: one argument more, one fewer or none (`arity+1`, `arity-1`, `arity0`);
- ANSI off (`spark.sql.ansi.enabled=false`) for the literal, column, edge and invalid-string cases (`.../ansi_off`);
- aggregates also over rows holding NULLs and duplicates (`rows_with_null`).

Nondeterministic functions (`rand`, `uuid`, `shuffle`, `current_*`, ...) are not in it.
A case's name is `<function>/<signature>/<variant>`.

Recording (one session, cases run one after another; ANSI-off cases set and reset the conf):
`python python-tests/matrix/generate.py --record sc://127.0.0.1:<port>` against a real Spark 4.3
Spark Connect server writes `python-tests/matrix/spark43.json` (per case: SQL, ANSI setting, and
the result types, nullability and rows, or the error class).

Running: `python-tests/test_function_matrix.py` runs every case on Ember in local mode and every
20th in the local-cluster and cluster modes, and compares result types, rows (floats to a relative
1e-9; decimals, dates and timestamps as strings; rows in sorted order), nullability, and error
classes. `python-tests/matrix/known_differences.json` lists the cases that differ today, each with its
category; a case that differs and is not listed fails the test, a listed case that now matches is
reported. `python-tests/matrix/reasons.json` says why each listed case differs (the test requires
one for each). `EMBER_MATRIX_UPDATE=1` rewrites the list from a local-mode run, and
`python python-tests/matrix/report.py` rewrites this page.

"""


def main():
    recorded = json.loads(RECORDING.read_text())
    known = json.loads(KNOWN.read_text())
    reasons = json.loads(REASONS.read_text())
    functions = {n.split("/")[0] for n in recorded}
    spark_errors = sum(1 for v in recorded.values() if "error" in v)
    out = [HEADER, "## Totals\n\n"]
    out.append(
        f"- **{len(recorded)} cases** over **{len(functions)} functions** "
        f"({spark_errors} where Spark raises an error, {len(recorded) - spark_errors} where it answers);\n"
        f"- **{len(recorded) - len(known)} match Spark** in local mode "
        f"({100 * (len(recorded) - len(known)) / len(recorded):.1f} %);\n"
        f"- **{len(known)} known differences**, each below by category.\n\n"
    )
    by_category = defaultdict(list)
    for name, reason in sorted(known.items()):
        by_category[reason.split(":")[0]].append(name)
    out.append("## Known differences\n\n| category | cases | functions |\n|---|---|---|\n")
    for cat, names in sorted(by_category.items(), key=lambda kv: -len(kv[1])):
        out.append(f"| {cat} | {len(names)} | {len({n.split('/')[0] for n in names})} |\n")
    out.append("\n")
    for cat, names in sorted(by_category.items(), key=lambda kv: -len(kv[1])):
        out.append(f"### {cat} ({len(names)})\n\n")
        details = Counter(known[n].split(":", 1)[1].strip() if ":" in known[n] else "" for n in names)
        if cat != "different value":
            out.append("Most frequent:\n\n")
            for detail, count in details.most_common(8):
                out.append(f"- {count} × {detail}\n")
            out.append("\n")
        funcs = Counter(n.split("/")[0] for n in names)
        out.append("Functions: " + ", ".join(f"`{f}` ({c})" for f, c in sorted(funcs.items(), key=lambda kv: (-kv[1], kv[0]))) + "\n\n")
        out.append("Examples:\n\n")
        seen = set()
        for name in names:
            func = name.split("/")[0]
            if func in seen:
                continue
            seen.add(func)
            want = recorded[name]
            spark = f"error `{want['error']}`" if "error" in want else f"`{json.dumps(want['rows'])[:80]}` ({want['schema'][0][0] if want['schema'] else ''})"
            sql = want["sql"] + ("  -- ANSI off" if not want["ansi"] else "")
            out.append(f"- `{name}`: `{sql}` — Spark: {spark}; Ember: {known[name].split(':', 1)[1].strip()}\n")
            if len(seen) >= 8:
                break
        out.append("\n")
    out.append("## Each difference and why\n\n| case | query | Spark | Ember | why |\n|---|---|---|---|---|\n")
    for name in sorted(known):
        want = recorded[name]
        spark = f"`{want['error']}`" if "error" in want else f"`{json.dumps(want['rows'])[:60]}`"
        sql = want["sql"].replace("|", "\\|") + (" (ANSI off)" if not want["ansi"] else "")
        ember = known[name].replace("|", "\\|")
        why = reasons.get(name, "**no reason given**").replace("|", "\\|")
        out.append(f"| `{name}` | `{sql}` | {spark} | {ember} | {why} |\n")
    out.append("\n")
    DOC.write_text("".join(out))
    print(f"wrote {DOC}")


if __name__ == "__main__":
    main()
