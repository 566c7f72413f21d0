"""Client mistakes come back as the exceptions PySpark raises against Spark, and the server
keeps serving after each."""

import pytest
from pyspark.errors import AnalysisException, ParseException
from pyspark.sql import functions as F

MISTAKES = {
    "parse": lambda s: s.sql("SELEC 1").collect(),
    "parse_trailing": lambda s: s.sql("SELECT 1 +").collect(),
    "missing_table": lambda s: s.sql("SELECT * FROM no_such_table").collect(),
    "missing_column_sql": lambda s: s.sql("SELECT nope FROM range(1)").collect(),
    "missing_column_df": lambda s: s.range(1).select("nope").collect(),
    "missing_column_schema": lambda s: s.range(1).select("nope").schema,
    "missing_function": lambda s: s.sql("SELECT no_such_function(1)").collect(),
    "divide_by_zero": lambda s: s.sql("SELECT 1 / 0").collect(),
    "int_divide_by_zero": lambda s: s.sql("SELECT 1 div 0").collect(),
    "overflow": lambda s: s.sql("SELECT 9223372036854775807L + 1").collect(),
    "int_overflow": lambda s: s.range(1).select(F.lit(2147483647) + F.lit(1)).collect(),
    "bad_cast": lambda s: s.sql("SELECT CAST('x' AS INT)").collect(),
    "ambiguous": lambda s: s.sql("SELECT id FROM range(2) a JOIN range(2) b ON a.id = b.id").collect(),
    "missing_aggregation": lambda s: s.sql("SELECT id, count(*) FROM range(3) GROUP BY id % 2").collect(),
    "union_mismatch": lambda s: s.sql("SELECT 1 UNION SELECT 1, 2").collect(),
    "wrong_arguments": lambda s: s.sql("SELECT upper('a', 'b')").collect(),
    "raise_error": lambda s: s.range(1).select(F.raise_error("boom")).collect(),
    "raise_error_sql": lambda s: s.sql("SELECT raise_error('x')").collect(),
    "raise_error_in_taken_branch": lambda s: s.range(3)
    .select(F.when(F.col("id") < 2, F.col("id")).otherwise(F.raise_error(F.col("id").cast("string"))))
    .collect(),
    "raise_error_in_untaken_branch": lambda s: s.range(3)
    .select(F.when(F.col("id") < 5, F.col("id")).otherwise(F.raise_error("never")))
    .collect(),
}


@pytest.mark.parametrize("name", sorted(MISTAKES))
def test_mistake_raises_like_spark(spark, expected, name):
    expected.check_error(lambda: MISTAKES[name](spark), name=name)
    # The server keeps answering.
    assert spark.sql("SELECT 42 AS answer").collect()[0].answer == 42


def test_error_details_are_fetched(spark):
    with pytest.raises(AnalysisException) as info:
        spark.sql("SELECT * FROM no_such_table").collect()
    e = info.value
    assert e.getCondition() == "TABLE_OR_VIEW_NOT_FOUND"
    assert e.getSqlState() == "42P01"
    assert e.getMessageParameters()["relationName"] == "`no_such_table`"


def test_parse_error_is_a_parse_exception(spark):
    with pytest.raises(ParseException):
        spark.sql("SELECT (1").collect()


def test_unsupported_features_say_so(spark, ember_mode):
    if ember_mode == "spark":
        pytest.skip("Ember-specific message")
    with pytest.raises(Exception) as info:
        spark.range(3).selectExpr("current_timestamp() AS t").withWatermark("t", "1 minute").collect()
    assert "not supported: withWatermark" in str(info.value)
    assert spark.range(3).count() == 3
