"""`[NOT] IN (subquery)` in filters with Spark's three-valued logic: correlated subqueries, IN
under OR and NOT, NULL values and NULL rows. DataFusion's mark join reads "no row equals x" as
FALSE where Spark has NULL (so `x NOT IN (...) OR p` passed rows with a NULL `x`), and its
null-aware anti join takes a single key (a correlated NOT IN failed). Recorded from real Spark
4.3."""

import pytest

QUERIES = {
    "in_or": "SELECT a FROM l WHERE a IN (SELECT x FROM r WHERE r.y = l.b) OR a > 3",
    "in_or_in": "SELECT a FROM l WHERE a IN (SELECT x FROM r) OR b IN (SELECT y FROM r)",
    "exists_or": "SELECT a FROM l WHERE EXISTS (SELECT 1 FROM r WHERE r.x = l.a) OR a = 4",
    "correlated_not_in": "SELECT a FROM l WHERE a NOT IN (SELECT x FROM r WHERE r.y = l.b)",
    "correlated_not_of_in": "SELECT a FROM l WHERE NOT (a IN (SELECT x FROM r WHERE r.y = l.b))",
    "correlated_in_is_false": "SELECT a FROM l WHERE (a IN (SELECT x FROM r WHERE r.y = l.b)) = false",
    "correlated_not_in_or": "SELECT a FROM l WHERE a NOT IN (SELECT x FROM r WHERE r.y = l.b) OR a = 3",
    "correlated_in_or_null": "SELECT a FROM l WHERE a IN (SELECT x FROM r WHERE r.y = l.b) OR a IS NULL",
    "not_in_or": "SELECT a FROM l WHERE a NOT IN (SELECT x FROM r) OR a = 3",
    "not_in_without_nulls_or": "SELECT a FROM l WHERE a NOT IN (SELECT x FROM r WHERE x IS NOT NULL) OR a = 3",
    "not_in_conjunct": "SELECT a FROM l WHERE a NOT IN (SELECT x FROM r WHERE x IS NOT NULL) AND b > 0",
    "not_of_in_or": "SELECT a FROM l WHERE NOT (a IN (SELECT x FROM r WHERE x IS NOT NULL) OR b = 30)",
    "not_in_empty": "SELECT a FROM l WHERE a NOT IN (SELECT x FROM r WHERE x > 100) OR b = 30",
    "select_not_in": "SELECT a, a NOT IN (SELECT x FROM r WHERE r.y = l.b) AS m FROM l",
    "constant_not_in_null_row": "SELECT a FROM l WHERE 3 NOT IN (SELECT x FROM r)",
    "null_not_in_not_null_column": "SELECT a FROM l WHERE CAST(NULL AS INT) NOT IN (SELECT id FROM range(3))",
    "null_not_in": "SELECT a FROM l WHERE NULL NOT IN (SELECT x FROM r WHERE x IS NOT NULL)",
    "constant_not_in_empty": "SELECT a FROM l WHERE 3 NOT IN (SELECT x FROM r WHERE x > 100)",
    "constant_not_in": "SELECT a FROM l WHERE 4 NOT IN (SELECT x FROM r WHERE x IS NOT NULL)",
    "non_equality_correlation": "SELECT a FROM l WHERE a NOT IN (SELECT x FROM r WHERE r.y < l.b)",
    "not_in_not_null_column": "SELECT a FROM l WHERE a NOT IN (SELECT id FROM range(3))",
}


@pytest.mark.parametrize("name", sorted(QUERIES))
def test_in_subquery_in_filters(spark, expected, name):
    spark.createDataFrame(
        [(1, 10), (2, 20), (3, 30), (4, None), (None, 10)], "a int, b int"
    ).createOrReplaceTempView("l")
    spark.createDataFrame([(1, 10), (2, 99), (5, 30), (None, 30)], "x int, y int").createOrReplaceTempView("r")
    expected.check(spark.sql(QUERIES[name] + " ORDER BY a"), name=name)
