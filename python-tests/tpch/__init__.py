"""TPC-H for tests and benchmarks: data from `tpchgen-cli`, the 22 queries in Spark SQL with
the standard validation parameters, and reference answers from DataFusion in-process."""

import shutil
import subprocess
import sys
from pathlib import Path

import answers

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


def same_answer(got, want) -> str:
    """An empty string when the answers match (order-insensitively, floats approximately: one
    unit of a 6th decimal apart is the same answer, as Ember rounds decimal averages half up as
    Spark does and the DataFusion reference truncates them)."""
    return answers.same_answer(got, want, ordered=False, tolerance=1.5e-6)
