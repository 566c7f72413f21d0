"""docs/functions.md lists the `pyspark.sql.functions` the server supports."""

import function_table


def test_function_table_is_current(spark, ember_mode):
    if ember_mode == "spark":
        return
    want = function_table.render(spark)
    assert function_table.TABLE.read_text() == want, (
        "docs/functions.md is stale: regenerate it with python python-tests/function_table.py <url>"
    )
