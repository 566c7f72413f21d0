"""Artifacts a session adds for its Python functions: `spark.addArtifacts(path, pyfile=True)`
(a module, or a zip of packages) is importable by the session's UDFs, `archive=True` is
unpacked into the UDFs' working directory (under its `#alias`), `file=True` is found with
`SparkFiles.get`. Another session does not see them. Answers recorded from Spark 4.3."""

import sys
import uuid
import zipfile

from pyspark import cloudpickle
from pyspark.sql.functions import col, udf

from conftest import new_session

cloudpickle.register_pickle_by_value(sys.modules[__name__])

# (Names unique per run: a Spark session keeps what was added under a name.)
_RUN = uuid.uuid4().hex[:8]


def test_pyfile_module(spark, tmp_path, expected):
    name = f"ember_helper_{_RUN}"
    (tmp_path / f"{name}.py").write_text("def triple(x):\n    return x * 3\n")
    spark.addArtifacts(str(tmp_path / f"{name}.py"), pyfile=True)

    @udf("long")
    def tripled(x):
        import importlib

        return importlib.import_module(name).triple(x)

    expected.check(spark.range(4).select(tripled(col("id")).alias("t")), name="module")

    @udf("string")
    def where(x):
        import importlib

        return type(importlib.import_module(name).triple).__name__

    expected.check(spark.range(1).select(where(col("id")).alias("w")), name="function_type")


def test_pyfile_zip(spark, tmp_path, expected):
    package = f"ember_zpkg_{_RUN}"
    archive = tmp_path / f"{package}.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr(f"{package}/__init__.py", "from .ops import shout\n")
        z.writestr(f"{package}/ops.py", "def shout(s):\n    return s.upper() + '!'\n")
    spark.addArtifacts(str(archive), pyfile=True)

    @udf("string")
    def shouted(s):
        import importlib

        return importlib.import_module(package).shout(s)

    df = spark.createDataFrame([("hi",), ("there",)], "s string")
    expected.check(df.select(shouted("s").alias("x")), name="zip_package")


def test_archive_and_file(spark, tmp_path, expected):
    archive = tmp_path / f"ember_data_{_RUN}.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("words.txt", "alpha\nbeta\ngamma\n")
    alias = f"words_{_RUN}"
    spark.addArtifacts(f"{archive}#{alias}", archive=True)

    @udf("string")
    def word(i):
        with open(f"{alias}/words.txt") as f:
            return f.read().split()[i]

    expected.check(spark.range(3).select(word(col("id")).alias("w")), name="archive")

    data = tmp_path / f"ember_file_{_RUN}.txt"
    data.write_text("42")
    spark.addArtifacts(str(data), file=True)
    file_name = data.name

    @udf("long")
    def plus_file(x):
        try:
            from pyspark import SparkFiles

            path = SparkFiles.get(file_name)
        except ImportError:  # pyspark-client has no SparkFiles: the working directory has it
            path = file_name
        with open(path) as f:
            return x + int(f.read())

    expected.check(spark.range(2).select(plus_file(col("id")).alias("v")), name="file")


def test_other_session_does_not_see_them(spark, server_url, tmp_path, expected):
    name = f"ember_private_{_RUN}"
    (tmp_path / f"{name}.py").write_text("VALUE = 7\n")
    spark.addArtifacts(str(tmp_path / f"{name}.py"), pyfile=True)

    @udf("long")
    def value(x):
        import importlib

        return importlib.import_module(name).VALUE + x

    expected.check(spark.range(1).select(value(col("id")).alias("v")), name="own_session")
    other = new_session(server_url)
    try:
        expected.check_error(lambda: other.range(1).select(value(col("id"))).collect(), name="other_session")
    finally:
        other.stop()
    expected.check(spark.range(2).select(value(col("id")).alias("v")), name="own_session_again")
