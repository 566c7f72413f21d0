"""Capture the fuzz corpus: serialized Spark Connect `Plan` messages as PySpark builds them,
one file each under server/tests/fuzz_corpus/ (`server/src/fuzz.rs` mutates them).

    ember server --port 15002 &
    python scripts/capture_fuzz_corpus.py [sc://127.0.0.1:15002] [--commands]   # needs pyspark[connect]

(`--commands` writes only the command plans.)

The plans are captured as the client serializes them (a server answers the few calls PySpark
makes while building them, e.g. `spark.sql`); nothing else runs."""

import datetime
import decimal
import sys
from pathlib import Path

from pyspark.sql import functions as F
from pyspark.sql import SparkSession
from pyspark.sql.window import Window

OUT = Path(__file__).resolve().parent.parent / "server" / "tests" / "fuzz_corpus"


def main():
    sys.setrecursionlimit(10000)
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    url = args[0] if args else "sc://127.0.0.1:15002"
    spark = SparkSession.builder.remote(url).create()
    client = spark.client
    a = spark.range(0, 20, 1, 2)
    b = spark.createDataFrame(
        [(1, "a", 1.5, True, datetime.date(2024, 1, 2), decimal.Decimal("1.25")), (2, None, None, False, None, None)],
        "k int, s string, d double, flag boolean, day date, dec decimal(10,2)",
    )
    c = spark.createDataFrame([(i, f"v{i}", [i, i + 1], {"x": i}) for i in range(5)], "k int, v string, arr array<int>, m map<string,int>")
    frames = {
        "range": a,
        "filter": a.filter(a.id > 3),
        "select_exprs": a.select((a.id * 2).alias("x"), F.col("id").cast("string"), F.lit(None)),
        "with_columns": a.withColumn("y", a.id + 1).withColumn("z", F.sqrt("id")),
        "agg": a.groupBy((a.id % 3).alias("g")).agg(F.sum("id"), F.count("*"), F.avg("id"), F.max("id")),
        "sort_limit": a.orderBy(F.desc("id")).limit(5),
        "offset": a.offset(3),
        "join": b.join(c, "k", "left"),
        "join_cond": a.join(b, a.id == b.k, "inner").select(a.id, b.s),
        "cross": a.crossJoin(b.select("k")),
        "union": a.union(spark.range(5)),
        "union_by_name": b.select("k", "s").unionByName(c.select("v", "k").withColumnRenamed("v", "s")),
        "distinct": a.select(a.id % 4).distinct(),
        "drop_dup": b.dropDuplicates(["flag"]),
        "window": a.withColumn("r", F.row_number().over(Window.partitionBy(a.id % 2).orderBy("id"))),
        "local_types": b,
        "local_nested": c,
        "explode": c.select("k", F.explode("arr")),
        "map": c.select(F.map_keys("m"), F.element_at("m", "x")),
        "strings": b.select(F.upper("s"), F.concat_ws("-", "s", "s"), F.regexp_replace("s", "a", "b"), F.lpad("s", 5, "*")),
        "dates": b.select(F.date_add("day", 3), F.year("day"), F.date_format("day", "yyyy-MM")),
        "case": a.select(F.when(a.id > 5, "big").otherwise("small")),
        "sample": a.sample(False, 0.5, seed=3),
        "repartition": a.repartition(3),
        "coalesce": a.coalesce(1),
        "describe": b.describe(),
        "na_fill": b.na.fill(0),
        "na_drop": b.na.drop(),
        "pivot": a.groupBy(a.id % 2).pivot("id", [1, 2, 3]).count(),
        "rollup": b.rollup("flag").count(),
        "cube": b.cube("flag", "k").count(),
        "sql": spark.sql("SELECT id, id * 2 AS d FROM range(10) WHERE id % 2 = 0"),
        "sql_args": spark.sql("SELECT :x + 1 AS y", args={"x": 41}),
        "sql_agg": spark.sql("SELECT k, count(*) FROM VALUES (1), (2), (2) AS t(k) GROUP BY k ORDER BY k"),
        "sql_cte": spark.sql("WITH t AS (SELECT id FROM range(5)) SELECT sum(id) FROM t"),
        "sql_window": spark.sql("SELECT id, lag(id) OVER (ORDER BY id) FROM range(6)"),
        "sql_strings": spark.sql("SELECT repeat('ab', 3), lpad('x', 4, '-'), X'1F2E', 'é'"),
        "sql_arrays": spark.sql("SELECT array_repeat(1, 3), sequence(1, 5), transform(array(1,2), x -> x + 1)"),
        "to_df": a.toDF("n"),
        "alias_subquery": a.alias("l").join(a.alias("r"), F.col("l.id") == F.col("r.id")),
        "hint": a.hint("broadcast"),
        "tail_like": a.orderBy("id").limit(3),
        "sort_within": a.sortWithinPartitions("id"),
        "unpivot": b.select("k", "d", F.col("k").cast("double").alias("k2")).unpivot("k", ["d", "k2"], "var", "val"),
        "stat_crosstab": b.crosstab("k", "flag"),
        "stat_freq": b.freqItems(["k"]),
        "with_watermark_free": a.selectExpr("id", "id + 1 as n", "cast(id as string) s"),
        "chain": a.withColumn("c0", a.id + 1).filter("c0 > 2").select("c0").groupBy().sum(),
        "json": spark.sql("SELECT from_json('{\"a\": 1}', 'a INT'), to_json(named_struct('a', 1))"),
        "higher_order": c.select(F.filter("arr", lambda x: x > 1), F.aggregate("arr", F.lit(0), lambda acc, x: acc + x)),
        "intersect": a.intersect(spark.range(3)),
        "except": a.exceptAll(spark.range(3)),
    }
    OUT.mkdir(parents=True, exist_ok=True)
    only_commands = "--commands" in sys.argv
    for name, df in frames.items():
        if only_commands:
            break
        plan = df._plan.to_proto(client)
        (OUT / f"{name}.bin").write_bytes(plan.SerializeToString())
    # Commands: SQL statements.
    import pyspark.sql.connect.proto as pb2

    # Commands that write or register, into tables only (the fuzz harness runs no command that
    # names a path: a mutated path could point anywhere).
    rel = lambda df: df._plan.to_proto(client).root
    Write = pb2.WriteOperation
    commands = {
        "cmd_save_as_table": pb2.Command(write_operation=Write(
            input=rel(b), source="parquet", mode=Write.SAVE_MODE_OVERWRITE, partitioning_columns=["flag"],
            table=Write.SaveTable(table_name="fuzz_t", save_method=Write.SaveTable.TABLE_SAVE_METHOD_SAVE_AS_TABLE))),
        "cmd_insert_into": pb2.Command(write_operation=Write(
            input=rel(a), mode=Write.SAVE_MODE_APPEND,
            table=Write.SaveTable(table_name="fuzz_t", save_method=Write.SaveTable.TABLE_SAVE_METHOD_INSERT_INTO))),
        "cmd_write_v2": pb2.Command(write_operation_v2=pb2.WriteOperationV2(
            input=rel(c), table_name="fuzz_t2", provider="parquet", mode=pb2.WriteOperationV2.MODE_CREATE_OR_REPLACE,
            table_properties={"k": "v"})),
        "cmd_df_view": pb2.Command(create_dataframe_view=pb2.CreateDataFrameViewCommand(
            input=rel(a.filter(a.id > 2)), name="fuzz_df_view", is_global=False, replace=True)),
        "cmd_global_view": pb2.Command(create_dataframe_view=pb2.CreateDataFrameViewCommand(
            input=rel(b), name="fuzz_global", is_global=True, replace=True)),
    }
    for name, command in commands.items():
        (OUT / f"{name}.bin").write_bytes(pb2.Plan(command=command).SerializeToString())

    for name, sql in {
        "cmd_create_view": "CREATE TEMPORARY VIEW fuzz_v AS SELECT 1 AS a",
        "cmd_show": "SHOW TABLES",
        "cmd_set": "SET spark.sql.ansi.enabled=true",
        "cmd_describe": "DESCRIBE FUNCTION abs",
    }.items():
        command = pb2.Command(sql_command=pb2.SqlCommand(input=pb2.Relation(sql=pb2.SQL(query=sql))))
        (OUT / f"{name}.bin").write_bytes(pb2.Plan(command=command).SerializeToString())
    print(f"{len(list(OUT.glob('*.bin')))} plans in {OUT}")


if __name__ == "__main__":
    main()
