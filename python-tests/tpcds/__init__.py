"""TPC-DS for tests and benchmarks: data from DuckDB's `tpcds` extension (`dsdgen`, installed
offline from the `duckdb-extension-tpcds` wheel), the 99 queries in Spark SQL (DuckDB's
`tpcds_queries()` with the standard substitution parameters, double-quoted aliases written with
backticks), and reference answers from DuckDB in-process on the same parquet files.

DuckDB runs the same query text (backticks back to double quotes) with Spark's default NULL
order (ASC NULLS FIRST, DESC NULLS LAST), so LIMIT cuts the same rows."""

import shutil
from pathlib import Path

import answers

QUERY_DIR = Path(__file__).resolve().parent / "queries"
TABLES = [
    "call_center", "catalog_page", "catalog_returns", "catalog_sales", "customer",
    "customer_address", "customer_demographics", "date_dim", "household_demographics",
    "income_band", "inventory", "item", "promotion", "reason", "ship_mode", "store",
    "store_returns", "store_sales", "time_dim", "warehouse", "web_page", "web_returns",
    "web_sales", "web_site",
]  # fmt: skip


def query(n: int) -> str:
    return (QUERY_DIR / f"q{n:02d}.sql").read_text()


def _duckdb():
    """An in-memory DuckDB with the tpcds extension loaded from its wheel (no network)."""
    import duckdb
    import duckdb_extension_tpcds

    root = Path(duckdb_extension_tpcds.__file__).parent
    ext = next(root.glob("extensions/*/tpcds.duckdb_extension"))
    con = duckdb.connect(config={"allow_unsigned_extensions": "true"})
    con.execute(f"INSTALL '{ext}'")
    con.execute("LOAD tpcds")
    return con


def generate(scale: float, out: Path) -> Path:
    """Parquet files for every table at `scale`, one directory per table (kept across runs)."""
    marker = out / f".done-sf{scale}"
    if marker.exists():
        return out
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    con = _duckdb()
    con.execute(f"CALL dsdgen(sf={scale})")
    for t in TABLES:
        (out / t).mkdir()
        con.execute(f"COPY {t} TO '{out / t / 'part-0.parquet'}' (FORMAT parquet)")
    con.close()
    marker.write_text("ok")
    return out


def register_spark(spark, data: Path):
    for t in TABLES:
        spark.read.parquet(str(data / t)).createOrReplaceTempView(t)


def duckdb_context(data: Path, tables=TABLES):
    """DuckDB in-process over the parquet directories of `tables` (TPC-DS's by default) under
    `data`, with Spark's NULL order."""
    import duckdb

    con = duckdb.connect()
    con.execute("SET default_null_order = 'nulls_first_on_asc_last_on_desc'")
    for t in tables:
        con.execute(f"CREATE VIEW {t} AS SELECT * FROM read_parquet('{data / t}/*.parquet')")
    return con


def duckdb_rows(con, sql: str):
    return [tuple(r) for r in con.execute(sql.replace("`", '"')).fetchall()]


def same_answer(got, want, ordered: bool) -> str:
    """An empty string when the answers match (in order when `ordered`, floats approximately:
    decimal quotients and averages keep a different number of digits in Spark (its
    precision/scale rules, rounding half up) and DuckDB (DECIMAL(18,3) or DOUBLE), and sums of
    doubles differ in the last bits with the summation order)."""
    return answers.same_answer(got, want, ordered, tolerance=1e-5)
