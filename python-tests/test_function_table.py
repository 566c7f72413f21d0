"""docs/functions.md lists the `pyspark.sql.functions` the server supports."""

import pytest

import function_table
from conftest import NEWEST_CLIENT, client_version


def test_function_table_is_current(spark, ember_mode):
    if ember_mode == "spark":
        return
    if client_version() != NEWEST_CLIENT:
        pytest.skip("the table lists the functions of the newest client")
    want = function_table.render(spark)
    assert function_table.TABLE.read_text() == want, (
        "docs/functions.md is stale: regenerate it with python python-tests/function_table.py <url>"
    )


def test_every_unsupported_function_says_why():
    unexplained = [line for line in function_table.TABLE.read_text().splitlines() if "reason not given" in line or line.endswith("| no |")]
    assert not unexplained, f"unsupported functions without a reason: {unexplained}"
