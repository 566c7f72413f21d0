"""Spark's nullability of every function's result, over non-null and over nullable arguments.

Each built-in function's examples (`DESCRIBE FUNCTION EXTENDED`, Spark's own `> SELECT ...`
lines) are asked of real Spark as written (mostly literals: non-null arguments), and once more
with a literal argument made nullable (`nullif(x, NULL)`: the same type, possibly NULL). The
answers (each column's `nullable`) are stored in `expected/nullability_probe.json`.

    python python-tests/nullability_probe.py record sc://127.0.0.1:15099   # real Spark 4.3
    python python-tests/nullability_probe.py check sc://127.0.0.1:15002    # Ember: mismatches

`check` also collects each query, so a column claimed non-null that holds a NULL (which Arrow
refuses) shows as a failure.
"""

import json
import re
import sys
from pathlib import Path

TABLE = Path(__file__).resolve().parent / "expected" / "nullability_probe.json"

# Calls Spark's examples do not cover (operators, casts, the columns of a range).
EXTRA = [
    ("abs", "SELECT abs(id) FROM range(3)"),
    ("cast", "SELECT CAST(id AS INT) + 1 FROM range(3)"),
    ("cast", "SELECT CAST(id AS STRING), CAST(id AS DOUBLE), CAST(id AS DECIMAL(10,2)) FROM range(3)"),
    ("cast", "SELECT CAST('1' AS INT), CAST('x' AS DATE), CAST(1.5 AS INT), CAST(id AS BOOLEAN) FROM range(3)"),
    ("try_cast", "SELECT try_cast(id AS INT), try_cast('1' AS INT) FROM range(3)"),
    ("*", "SELECT CAST(id AS DECIMAL(10,2)) * 2, id * 2, CAST(id AS DOUBLE) * 2 FROM range(3)"),
    ("+", "SELECT CAST(id AS DECIMAL(10,2)) + 1, id + 1, CAST(id AS DOUBLE) + 1, CAST(id AS INT) + 1 FROM range(3)"),
    ("/", "SELECT id / 2, CAST(id AS DECIMAL(10,2)) / 2, id div 2, id % 2 FROM range(3)"),
    ("upper", "SELECT upper('x'), lower(CAST(id AS STRING)) FROM range(3)"),
    ("array", "SELECT array(1, 2), array(id), map('a', 1), named_struct('a', id), struct(id) FROM range(3)"),
    ("rand", "SELECT rand(1), randn(1), uuid(), current_date(), current_timestamp() FROM range(3)"),
    ("greatest", "SELECT greatest(1, id), least(id, 2), coalesce(id, 1) FROM range(3)"),
    ("md5", "SELECT md5('a'), sha1('a'), sha2('a', 256), crc32('a'), hash(id), xxhash64(id) FROM range(3)"),
    ("pow", "SELECT pow(2, 3), pow(id, 2), sqrt(id), ln(id), log(2, id), exp(id) FROM range(3)"),
    ("array_contains", "SELECT array_contains(array(1), 1), size(array(1)), element_at(array(1), 1) FROM range(3)"),
    ("=", "SELECT id = 1, id < 2, id <=> NULL, NOT (id = 1), id IN (1, 2), id IS NULL FROM range(3)"),
    ("concat", "SELECT concat('a', id), concat_ws(',', 'a', NULL), length(CAST(id AS STRING)) FROM range(3)"),
]

LITERAL = re.compile(r"'(?:[^'\\]|\\.)*'|(?<![\w.])-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?(?:BD|[LSYD])?(?![\w.])")


def examples(spark, name):
    """Spark's example queries of a function."""
    text = "\n".join(r[0] for r in spark.sql(f"DESCRIBE FUNCTION EXTENDED `{name}`").collect())
    out, current = [], None
    for line in text.splitlines():
        s = line.strip()
        if s.startswith("> "):
            current = s[2:]
        elif current is not None:
            current += " " + s
        else:
            continue
        if current.endswith(";"):
            out.append(current[:-1])
            current = None
    return [q for q in out if q.upper().startswith("SELECT")]


def nullables(spark, sql):
    """The `nullable` of each column and the types (without nullability) of the query."""
    schema = spark.sql(sql).schema
    return [f.nullable for f in schema.fields], [f.dataType.simpleString() for f in schema.fields]


def nullable_variants(sql):
    """The query with one literal (the first that fits) made nullable."""
    for m in LITERAL.finditer(sql):
        before = sql[: m.start()].rstrip().upper()
        # (Typed literals and type parameters are not values.)
        if re.search(r"(\bDATE|\bTIMESTAMP|_NTZ|_LTZ|\bINTERVAL|\bTIME|\bX|DECIMAL\(|DECIMAL\(\d+\s*,)$", before):
            continue
        yield sql[: m.start()] + f"nullif({m.group(0)}, NULL)" + sql[m.end():]


def record(url):
    from pyspark.sql import SparkSession

    spark = SparkSession.builder.remote(url).getOrCreate()
    names = sorted({r[0] for r in spark.sql("SHOW FUNCTIONS").collect()})
    cases = [(f, q) for f in names if re.fullmatch(r"[a-z_0-9]+", f) for q in examples(spark, f)[:4]]
    rows = []
    for function, sql in cases + EXTRA:
        try:
            plain, types = nullables(spark, sql)
        except Exception:  # noqa: BLE001 (an example Spark itself refuses, e.g. a failing one)
            continue
        rows.append({"function": function, "sql": sql, "nullable": plain})
        if all(plain):
            continue
        for variant in list(nullable_variants(sql))[:6]:
            try:
                got, got_types = nullables(spark, variant)
            except Exception:  # noqa: BLE001
                continue
            if got_types == types:
                rows.append({"function": function, "sql": variant, "nullable": got})
                break
    TABLE.write_text(json.dumps(rows, indent=1) + "\n")
    print(f"{len(rows)} queries of {len({r['function'] for r in rows})} functions recorded")


def check(url):
    from pyspark.sql import SparkSession

    spark = SparkSession.builder.remote(url).getOrCreate()
    rows = json.loads(TABLE.read_text())
    status = {}
    for row in rows:
        f = row["function"]
        try:
            df = spark.sql(row["sql"])
            got = [x.nullable for x in df.schema.fields]
        except Exception as e:  # noqa: BLE001 (not supported by Ember: not counted)
            status.setdefault(f, set()).add("unsupported")
            continue
        if got != row["nullable"]:
            status.setdefault(f, set()).add("differs")
            print(f"DIFF {f}: {row['sql']}\n   spark {row['nullable']} ember {got}")
        else:
            status.setdefault(f, set()).add("same")
        try:
            df.collect()
        except Exception as e:  # noqa: BLE001
            if "nullable" in str(e) or "null values" in str(e):
                status[f].add("broken")
                print(f"BROKEN {f}: {row['sql']}: {str(e)[:200]}")
    supported = {f for f, s in status.items() if s != {"unsupported"}}
    same = {f for f in supported if "differs" not in status[f] and "broken" not in status[f]}
    broken = {f for f in supported if "broken" in status[f]}
    print(f"{len(same)} of {len(supported)} functions answer Spark's nullability; {len(broken)} broken: {sorted(broken)}")
    print("differ:", " ".join(sorted(supported - same)))


if __name__ == "__main__":
    {"record": record, "check": check}[sys.argv[1]](sys.argv[2])
