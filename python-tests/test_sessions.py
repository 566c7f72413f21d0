"""Sessions: configuration and temporary views are per session; global temp views are shared."""

import pytest
from pyspark.errors import AnalysisException

from conftest import new_session


def test_config_operations(spark, expected):
    conf = spark.conf
    expected.check_value(conf.get("spark.sql.shuffle.partitions"), name="default")
    conf.set("spark.sql.shuffle.partitions", "13")
    assert conf.get("spark.sql.shuffle.partitions") == "13"
    conf.unset("spark.sql.shuffle.partitions")
    assert conf.get("spark.sql.shuffle.partitions") == "200"
    assert conf.get("spark.ember.test.missing", "fallback") == "fallback"
    expected.check_error(lambda: conf.get("spark.ember.test.missing"), name="missing")
    expected.check_value(conf.isModifiable("spark.sql.ansi.enabled"), name="modifiable")
    expected.check_value(conf.isModifiable("spark.sql.warehouse.dir"), name="static")
    conf.set("spark.ember.test.custom", "v")
    assert conf.get("spark.ember.test.custom") == "v"
    assert spark.conf.getAll["spark.ember.test.custom"] == "v"
    expected.check_value(conf.get("spark.sql.ansi.enabled"), name="ansi")
    expected.check_value(conf.get("spark.sql.caseSensitive"), name="case")


def test_sessions_are_isolated(server_url):
    a = new_session(server_url)
    b = new_session(server_url)
    try:
        a.conf.set("spark.sql.shuffle.partitions", "3")
        assert b.conf.get("spark.sql.shuffle.partitions") == "200"
        a.range(2).createOrReplaceTempView("only_in_a")
        assert a.table("only_in_a").count() == 2
        with pytest.raises(AnalysisException):
            b.table("only_in_a").collect()
        a.range(4).createOrReplaceGlobalTempView("shared_view")
        assert b.sql("SELECT count(*) FROM global_temp.shared_view").collect()[0][0] == 4
    finally:
        a.stop()
        b.stop()


def test_session_config_changes_semantics(spark):
    spark.conf.set("spark.sql.ansi.enabled", "false")
    try:
        assert spark.sql("SELECT 1 / 0 AS x").collect()[0].x is None
    finally:
        spark.conf.unset("spark.sql.ansi.enabled")


def test_settings_apply_to_the_next_query(server_url):
    # Each session's execution settings are built once per change of its settings: a change
    # applies to the next query, an unset restores the default, and another session keeps its
    # own (here the duplicate map key policy, which DataFusion's functions read).
    from pyspark.errors import SparkRuntimeException

    a = new_session(server_url)
    b = new_session(server_url)
    query = "SELECT map(1, 'a', 1, 'b')[1] AS v"
    try:
        for _ in range(2):
            with pytest.raises(SparkRuntimeException, match="DUPLICATED_MAP_KEY"):
                a.sql(query).collect()
            a.conf.set("spark.sql.mapKeyDedupPolicy", "LAST_WIN")
            assert a.sql(query).collect()[0].v == "b"
            with pytest.raises(SparkRuntimeException, match="DUPLICATED_MAP_KEY"):
                b.sql(query).collect()
            a.conf.unset("spark.sql.mapKeyDedupPolicy")
    finally:
        a.stop()
        b.stop()


def test_case_sensitivity_config(spark):
    assert spark.sql("SELECT ID FROM range(1)").columns == ["ID"]
    spark.conf.set("spark.sql.caseSensitive", "true")
    try:
        with pytest.raises(AnalysisException):
            spark.sql("SELECT ID FROM range(1)").collect()
    finally:
        spark.conf.unset("spark.sql.caseSensitive")


def test_release_session(server_url):
    s = new_session(server_url)
    assert s.range(1).count() == 1
    s.stop()
    s2 = new_session(server_url)
    assert s2.range(2).count() == 2
    s2.stop()


def test_builder_options_reach_the_session(server_url, expected):
    # The 4.3 client applies the builder's options with a silent Config set: Spark ignores the
    # ones it refuses (a static warehouse dir) instead of failing the session's creation.
    from pyspark.sql import SparkSession

    s = (
        SparkSession.builder.remote(server_url)
        .appName("etl")
        .config("spark.sql.shuffle.partitions", "7")
        .config("spark.sql.warehouse.dir", "/tmp/ember-elsewhere")
        .create()
    )
    try:
        expected.check_value([s.conf.get("spark.sql.shuffle.partitions"), s.range(3).count()], name="options")
    finally:
        s.stop()


def test_which_settings_a_session_may_change(spark, expected):
    for key, value in [
        ("spark.app.name", "renamed"),
        ("spark.master", "local[3]"),
        ("spark.executor.memory", "4g"),
        ("spark.shuffle.compress", "false"),
        ("spark.sql.warehouse.dir", "/tmp/x"),
        ("spark.sql.globalTempDatabase", "gt"),
        ("spark.default.parallelism", "3"),
    ]:
        expected.check_error(lambda: spark.conf.set(key, value), name=key)
        expected.check_error(lambda: spark.sql(f"SET {key}={value}").collect(), name=f"sql_{key}")
    expected.check_value(spark.conf.get("spark.app.name"), name="app_name")
    spark.conf.unset("spark.app.name")
    spark.conf.unset("spark.master")
    spark.conf.unset("spark.default.parallelism")
