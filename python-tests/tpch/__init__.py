"""TPC-H for tests and benchmarks: data from `tpchgen-cli`, the 22 queries in Spark SQL with
the standard validation parameters, and reference answers from DataFusion in-process."""

import datetime
import decimal
import shutil
import subprocess
import sys
from pathlib import Path

QUERY_DIR = Path(__file__).resolve().parent / "queries"
TABLES = ["customer", "lineitem", "nation", "orders", "part", "partsupp", "region", "supplier"]


def query(n: int) -> str:
    return (QUERY_DIR / f"q{n}.sql").read_text()


def generate(scale: float, out: Path, parts: int = 2) -> Path:
    """Parquet files for every table at `scale` (kept across runs when present)."""
    marker = out / f".done-sf{scale}-p{parts}"
    if marker.exists():
        return out
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    cli = Path(sys.executable).with_name("tpchgen-cli")
    subprocess.run(
        [str(cli), "parquet", "-s", str(scale), "--parts", str(parts), "--output-dir", str(out)],
        check=True,
        capture_output=True,
    )
    marker.write_text("ok")
    return out


def register_spark(spark, data: Path):
    for t in TABLES:
        spark.read.parquet(str(data / t)).createOrReplaceTempView(t)


def datafusion_context(data: Path):
    import datafusion

    ctx = datafusion.SessionContext()
    for t in TABLES:
        ctx.register_parquet(t, str(data / t))
    return ctx


def datafusion_rows(ctx, sql: str):
    table = ctx.sql(sql).to_arrow_table()
    return [tuple(r.values()) for r in table.to_pylist()]


def _norm(v):
    if isinstance(v, decimal.Decimal):
        return float(v)
    if isinstance(v, (datetime.date, datetime.datetime)):
        return v.isoformat()
    return v


def normalize(rows):
    return [tuple(_norm(v) for v in r) for r in rows]


def _close(a, b):
    if isinstance(a, float) or isinstance(b, float):
        if a is None or b is None:
            return a is b
        # One unit of a 6th decimal apart is the same answer: Ember rounds decimal averages
        # half up as Spark does, the DataFusion reference truncates them.
        return abs(float(a) - float(b)) <= 1.5e-6 * max(1.0, abs(float(a)), abs(float(b)))
    return a == b


def _sort_key(row):
    return tuple((0, round(v, 2)) if isinstance(v, float) else (1, str(v)) for v in row)


def same_answer(got, want) -> str:
    """An empty string when the answers match (order-insensitively, floats approximately)."""
    got, want = normalize(got), normalize(want)
    if len(got) != len(want):
        return f"{len(got)} rows, expected {len(want)}"
    for g, w in zip(sorted(got, key=_sort_key), sorted(want, key=_sort_key)):
        if len(g) != len(w) or not all(_close(x, y) for x, y in zip(g, w)):
            return f"row {g} differs from {w}"
    return ""
