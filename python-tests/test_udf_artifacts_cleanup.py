"""The copies Ember writes of a session's Python artifacts (for its UDF workers, under
`$TMPDIR/ember-python-artifacts-<pid>/<key>`) are removed when the session closes, unless an
open session has the same artifacts. Ember's own behaviour (nothing to record from Spark);
checked in local mode, where the server's own workers run the UDFs (cluster workers keep
their copies until they exit)."""

import glob
import os
import sys
import tempfile
import uuid

import pytest
from pyspark import cloudpickle
from pyspark.sql.functions import col, udf

from conftest import new_session

cloudpickle.register_pickle_by_value(sys.modules[__name__])


def copies_of(file_name):
    return glob.glob(os.path.join(tempfile.gettempdir(), "ember-python-artifacts-*", "*", file_name))


def session_with_module(server_url, tmp_path, name):
    s = new_session(server_url)
    (tmp_path / f"{name}.py").write_text("VALUE = 7\n")
    s.addArtifacts(str(tmp_path / f"{name}.py"), pyfile=True)

    @udf("long")
    def value(x):
        import importlib

        return importlib.import_module(name).VALUE + x

    assert s.range(2).select(value(col("id"))).collect()[1][0] == 8
    return s


def test_copies_removed_when_session_closes(server_url, ember_mode, tmp_path):
    if ember_mode != "local":
        pytest.skip("checked where the server's own workers run the UDFs")
    name = f"ember_cleanup_{uuid.uuid4().hex[:8]}"
    s = session_with_module(server_url, tmp_path, name)
    try:
        copies = copies_of(f"{name}.py")
        assert copies, "the session's artifacts were not copied for its workers"
    finally:
        s.stop()
    assert not any(os.path.exists(c) for c in copies), f"left behind: {copies}"


def test_copies_kept_while_another_session_shares_them(server_url, ember_mode, tmp_path):
    if ember_mode != "local":
        pytest.skip("checked where the server's own workers run the UDFs")
    name = f"ember_shared_{uuid.uuid4().hex[:8]}"
    first = session_with_module(server_url, tmp_path, name)
    second = session_with_module(server_url, tmp_path, name)
    try:
        first.stop()
        assert copies_of(f"{name}.py"), "removed while another session uses them"
        second.range(1).collect()
    finally:
        second.stop()
    assert not copies_of(f"{name}.py")
