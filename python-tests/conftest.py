"""Fixtures that run the real `ember` binary and connect the real PySpark client to it.

Every test runs once per execution mode (``--ember-modes``, default ``local``; the CI runs
``local,local-cluster,cluster`` with the newest client, ``local`` with the others). The ``expected`` fixture compares a DataFrame's answer with the one
real Spark gave, recorded under ``expected/``; with ``EMBER_RECORD=1`` the suite runs against
real Spark instead (``../shared/tools/spark-reference start``) and rewrites the recordings.

Answers are recorded through the client that runs the suite: ``expected/<module>.json`` holds
what Spark answered the newest client (``NEWEST_CLIENT``); ``expected/pyspark-<version>/`` holds,
for an older client, only the answers that differ from the newest client's (recording with an
older client writes there). A test asks the answer of its own client version.
"""

import gc
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

# pytest-xdist's worker processes (scripts/test.sh) run as `python -c`: their __main__ has neither
# __spec__ nor __file__, which PySpark's client takes for a doctest run
# (pyspark/sql/connect/utils.py: it imports pyspark.testing, which exits the process where no
# Spark installation is found, as with `pyspark-client`).
_main = sys.modules["__main__"]
if getattr(_main, "__spec__", None) is None and not hasattr(_main, "__file__"):
    _main.__file__ = "<pytest-xdist worker>"
# With the full `pyspark` package (not `pyspark-client`), functions build Spark Connect columns
# only once a remote session exists, unless this is set; test modules build columns at import.
os.environ.setdefault("SPARK_CONNECT_MODE_ENABLED", "1")
# Python UDFs run in the suite's own interpreter (the client's Python version, with pyspark,
# pandas and pyarrow): the ember servers the suite starts inherit this.
os.environ.setdefault("PYSPARK_PYTHON", sys.executable)

ROOT = Path(__file__).resolve().parent.parent
EXPECTED_DIR = Path(__file__).resolve().parent / "expected"
RECORD = os.environ.get("EMBER_RECORD") == "1"
# Every recorded schema is compared whole, nullability included (issue 30); the answers whose
# nullability still differs from Spark's are listed, each with its differences, in
# expected/known_nullability.json: there the differences must be exactly those listed (a fix or a
# new difference fails the test until the list says so). EMBER_NULLABILITY_UPDATE=1 rewrites the
# entries of the tests it runs; EMBER_NULLABILITY=0 compares names and types only.
ALL_NULLABILITY = os.environ.get("EMBER_NULLABILITY", "1") == "1"
NULLABILITY_UPDATE = os.environ.get("EMBER_NULLABILITY_UPDATE") == "1"
KNOWN_NULLABILITY_PATH = EXPECTED_DIR / "known_nullability.json"
KNOWN_NULLABILITY = json.loads(KNOWN_NULLABILITY_PATH.read_text()) if KNOWN_NULLABILITY_PATH.exists() else {}
# EMBER_NULLABILITY_UPDATE=1: each test process appends what it found here; the run's end merges it.
_NULLABILITY_FOUND = EXPECTED_DIR / ".known_nullability.jsonl"
SPARK_REF_URL = os.environ.get("EMBER_SPARK_REF", "sc://127.0.0.1:15099")
# The client whose answers the base recordings hold (`pip install pyspark` today).
NEWEST_CLIENT = "4.3.0"


def client_version() -> str:
    import pyspark

    return pyspark.__version__


def pytest_addoption(parser):
    parser.addoption(
        "--ember-modes",
        default=os.environ.get("EMBER_MODES", "local"),
        help="comma-separated execution modes to run every test in (local, local-cluster, cluster)",
    )
    parser.addoption("--ember-bin", default=os.environ.get("EMBER_BIN"), help="path of the ember binary")


def pytest_generate_tests(metafunc):
    if "ember_mode" in metafunc.fixturenames:
        modes = ["spark"] if RECORD else metafunc.config.getoption("--ember-modes").split(",")
        metafunc.parametrize("ember_mode", modes, scope="session")


def pytest_configure(config):
    if client_version().startswith(("4.0.", "4.1.")):
        # PySpark 4.0 and 4.1 shut down the thread pool through which every session's result
        # streams release responses whenever any session stops or is garbage-collected: another
        # session's stream may then fail ("cannot schedule new futures after shutdown", 4.0) or
        # deadlock (a session's __del__ run by the garbage collector while a stream holds the
        # pool's lock, 4.1), against Spark too; 4.2 fixed both. The tests stop and drop sessions
        # all the time: keep the pool.
        from pyspark.sql.connect.client.reattach import ExecutePlanResponseReattachableIterator

        ExecutePlanResponseReattachableIterator.shutdown = classmethod(lambda cls: None)


# The files whose tests take minutes, longest first: scripts/test.sh shares the test files
# between two pytest processes (pytest-xdist, in collection order), which should not end on
# them.
SLOW_FILES = [
    "test_function_matrix.py",
    "test_pyspark_doctests.py",
    "test_tpcds.py",
    "test_deep_expressions.py",
    "test_load.py",
    "test_streaming.py",
    "test_memory.py",
]


def pytest_sessionstart(session):
    if NULLABILITY_UPDATE and not hasattr(session.config, "workerinput"):
        _NULLABILITY_FOUND.unlink(missing_ok=True)


def pytest_sessionfinish(session):
    """EMBER_NULLABILITY_UPDATE=1: the differences the run's tests found replace their entries
    in known_nullability.json (run by the controlling process, after its test processes)."""
    if not NULLABILITY_UPDATE or hasattr(session.config, "workerinput") or not _NULLABILITY_FOUND.exists():
        return
    known = dict(KNOWN_NULLABILITY)
    for line in _NULLABILITY_FOUND.read_text().splitlines():
        found = json.loads(line)
        if found["differences"]:
            known[found["key"]] = found["differences"]
        else:
            known.pop(found["key"], None)
    KNOWN_NULLABILITY_PATH.write_text(json.dumps(known, indent=1, sort_keys=True) + "\n")
    _NULLABILITY_FOUND.unlink()


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config, items):
    """Skip what this client cannot express (client_gaps.py: functions an older client lacks),
    and run the slow files first (after pytest's grouping by mode, which the sort keeps)."""
    rank = {name: i for i, name in enumerate(SLOW_FILES)}
    items.sort(key=lambda item: rank.get(Path(str(item.fspath)).name, len(SLOW_FILES)))
    from client_gaps import skip_reason

    version = client_version()
    for item in items:
        callspec = getattr(item, "callspec", None)
        case = ""
        if callspec is not None:
            # The case's id without the mode's (modes such as local-cluster hold a '-').
            case, mode = callspec.id, callspec.params.get("ember_mode")
            if mode is not None:
                case = "" if case == mode else case.removeprefix(f"{mode}-").removesuffix(f"-{mode}")
        reason = skip_reason(Path(str(item.fspath)).name, getattr(item, "originalname", item.name), case, version)
        if reason:
            item.add_marker(pytest.mark.skip(reason=reason))


def ember_binary(config) -> Path:
    explicit = config.getoption("--ember-bin")
    if explicit:
        return Path(explicit)
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    return target / "debug" / "ember"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class EmberServer:
    """An `ember server` process on a free port, stopped by PID."""

    def __init__(self, binary: Path, mode: str, extra_args=(), workdir=None, env=None):
        self.port = free_port()
        self.mode = mode
        self.workdir = workdir
        args = [str(binary), "server", "--port", str(self.port), "--mode", mode, *extra_args]
        if mode != "local" and "--workers" not in extra_args:
            args += ["--workers", "2"]
        if mode == "cluster" and "--driver-port" not in extra_args:
            args += ["--driver-port", "0"]
        self.log_path = Path(workdir or "/tmp") / f"ember-{mode}-{self.port}.log"
        self.log = open(self.log_path, "w")
        self.proc = subprocess.Popen(
            args,
            stdout=self.log,
            stderr=subprocess.STDOUT,
            cwd=workdir,
            env={**os.environ, **(env or {})},
        )
        self.wait_ready()

    @property
    def url(self) -> str:
        return f"sc://127.0.0.1:{self.port}"

    def wait_ready(self, timeout=30):
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"ember exited early; log:\n{self.log_path.read_text()}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError(f"ember did not start within {timeout}s")

    def stop(self):
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.kill(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        self.log.close()


@pytest.fixture(scope="session")
def ember_server(request, ember_mode, tmp_path_factory):
    if ember_mode == "spark":
        yield None
        return
    binary = ember_binary(request.config)
    if not binary.exists():
        pytest.exit(f"ember binary not found at {binary}; run `cargo build` first", returncode=2)
    workdir = tmp_path_factory.mktemp(f"ember-{ember_mode}")
    server = EmberServer(binary, ember_mode, workdir=workdir)
    yield server
    server.stop()


@pytest.fixture(scope="session")
def server_url(ember_server):
    return SPARK_REF_URL if ember_server is None else ember_server.url


def new_session(url):
    from pyspark.sql import SparkSession

    return SparkSession.builder.remote(url).create()


@pytest.fixture(scope="module", autouse=True)
def _no_leaked_default_session():
    """A session a module leaves open must not become the next modules' default: PySpark's
    `SparkSession.active()` (used by createDataFrame and friends) would send their calls to a
    server that may be gone."""
    yield
    from pyspark.sql.connect.session import SparkSession

    for leaked in (SparkSession._default_session, getattr(SparkSession._active_session, "session", None)):
        if leaked is not None and not leaked.is_stopped:
            try:
                leaked.release_session_on_close = False  # its server may be gone: no retries
                leaked.stop()
            except Exception:
                pass
    SparkSession._default_session = None
    SparkSession._active_session.session = None
    # PySpark 3.5's `SparkSession.__del__` closes the client, and closing any client shuts down
    # the release thread pool all sessions share: a session garbage-collected while a later
    # test's query runs makes that query fail with "Pool not running". Collect the dead ones
    # here, between modules, where no query is running.
    gc.collect()


@pytest.fixture(scope="module")
def spark(server_url):
    session = new_session(server_url)
    yield session
    session.stop()


@pytest.fixture(scope="module")
def utc(spark):
    """The module's session in UTC (the files' answers were recorded from Spark in UTC)."""
    spark.conf.set("spark.sql.session.timeZone", "UTC")
    return spark


@pytest.fixture
def out(tmp_path):
    """A fresh output directory (the same local file system serves Ember and real Spark)."""
    return tmp_path


# ---------------------------------------------------------------------------------------------
# Expected answers recorded from real Spark


def _normalize(value):
    """A JSON-comparable form of a value collected from PySpark."""
    import datetime
    import decimal

    from pyspark.sql import Row

    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        if value != value:
            return {"float": "NaN"}
        if value in (float("inf"), float("-inf")):
            return {"float": str(value)}
        return value
    if isinstance(value, decimal.Decimal):
        return {"decimal": str(value)}
    if isinstance(value, datetime.datetime):
        return {"datetime": value.isoformat()}
    if isinstance(value, datetime.date):
        return {"date": value.isoformat()}
    if isinstance(value, datetime.timedelta):
        return {"timedelta": value.total_seconds()}
    if isinstance(value, (bytes, bytearray)):
        return {"bytes": bytes(value).hex()}
    if isinstance(value, Row):
        return {"row": [_normalize(v) for v in value]}
    if isinstance(value, dict):
        return {"map": sorted(([_normalize(k), _normalize(v)] for k, v in value.items()), key=repr)}
    if isinstance(value, (list, tuple)):
        return [_normalize(v) for v in value]
    try:
        from pyspark.sql.types import VariantVal
    except ImportError:  # a client before the variant type (3.5)
        VariantVal = ()
    if isinstance(value, VariantVal):
        # The exact bytes: Ember writes variants as Spark does.
        return {"variant": [value.value.hex(), value.metadata.hex()]}
    try:
        from pyspark.sql.types import Geography, Geometry
    except ImportError:  # a client before spatial types
        Geography = Geometry = ()
    if isinstance(value, (Geometry, Geography)):
        return {type(value).__name__.lower(): [bytes(value.getBytes()).hex(), value.getSrid()]}
    return {"repr": repr(value)}


def _close(a, b):
    if isinstance(a, float) and isinstance(b, float):
        return a == b or abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_close(a[k], b[k]) for k in a)
    return a == b


def _types(schema_json):
    """Names and types of a schema, ignoring nullability."""

    def strip(t):
        if isinstance(t, dict):
            return {k: strip(v) for k, v in t.items() if k not in ("nullable", "containsNull", "valueContainsNull", "metadata")}
        if isinstance(t, list):
            return [strip(x) for x in t]
        return t

    return strip(schema_json)


def _without_metadata(schema_json):
    """A schema without its fields' metadata (Spark marks generated aliases there)."""
    if isinstance(schema_json, dict):
        return {k: _without_metadata(v) for k, v in schema_json.items() if k != "metadata"}
    if isinstance(schema_json, list):
        return [_without_metadata(x) for x in schema_json]
    return schema_json


def _schema_differences(want, got, path=""):
    """Where two schemas (as JSON) differ: `path: Spark's value != Ember's`."""
    if isinstance(want, dict) and isinstance(got, dict):
        name = want.get("name")
        here = f"{path}.{name}" if name is not None else path
        return [d for k in sorted(set(want) | set(got)) for d in _schema_differences(want.get(k), got.get(k), f"{here}/{k}" if k not in ("name",) else here)]
    if isinstance(want, list) and isinstance(got, list) and len(want) == len(got):
        return [d for w, g in zip(want, got) for d in _schema_differences(w, g, path)]
    return [] if want == got else [f"{path}: Spark {want} != Ember {got}"]


class Expected:
    """Compares answers with recordings from real Spark (or records them)."""

    def __init__(self, request):
        self.node = request.node
        module = Path(request.node.fspath).stem
        self.path = EXPECTED_DIR / f"{module}.json"
        version = client_version()
        # An older client's answers that differ from the newest client's.
        self.overlay = None if version == NEWEST_CLIENT else EXPECTED_DIR / f"pyspark-{version}" / f"{module}.json"
        self.key = request.node.originalname
        self.count = 0

    @staticmethod
    def _read(path):
        return json.loads(path.read_text()) if path is not None and path.exists() else {}

    def _load(self):
        return {**self._read(self.path), **self._read(self.overlay)}

    def _record(self, key, actual):
        if self.overlay is None:
            path, data = self.path, self._read(self.path)
            data[key] = actual
        else:
            path, data = self.overlay, self._read(self.overlay)
            if self._read(self.path).get(key) == actual:
                data.pop(key, None)
            else:
                data[key] = actual
        if data or path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")

    def _entry_key(self, name):
        self.count += 1
        return f"{self.key}[{name or self.count}]"

    def _record_or_compare(self, key, actual, compare):
        if RECORD:
            self._record(key, actual)
            return
        data = self._load()
        if key not in data:
            pytest.fail(f"no recorded answer for {key} in {self.path.name}; record with EMBER_RECORD=1")
        compare(data[key], actual)

    def check(self, df, ordered=False, name=None, nullability=False):
        """Rows, column names and types must equal Spark's."""
        rows = [_normalize(list(r)) for r in df.collect()]
        if not ordered:
            rows = sorted(rows, key=lambda r: json.dumps(r, sort_keys=True))
        actual = {"columns": df.columns, "schema": df.schema.jsonValue(), "rows": rows}

        def compare(expected, got):
            assert got["columns"] == expected["columns"], "column names differ from Spark's"
            assert _types(got["schema"]) == _types(expected["schema"]), "column types differ from Spark's"
            if nullability or ALL_NULLABILITY:
                self._check_nullability(key, expected["schema"], got["schema"], listed=not nullability)
            assert len(got["rows"]) == len(expected["rows"]), f"row count {len(got['rows'])} != Spark's {len(expected['rows'])}"
            assert _close(got["rows"], expected["rows"]), f"rows differ from Spark's:\n got {got['rows']}\n want {expected['rows']}"

        key = self._entry_key(name)
        self._record_or_compare(key, actual, compare)

    def _check_nullability(self, key, expected, got, listed):
        """The schemas' nullability must be equal, or differ exactly as known_nullability.json
        lists (`listed`: tests that ask for nullability themselves must match)."""
        want, have = _without_metadata(expected), _without_metadata(got)
        differences = _schema_differences(want, have)
        entry = f"{self.path.stem}/{key}"
        if NULLABILITY_UPDATE and listed:
            with open(_NULLABILITY_FOUND, "a") as f:
                f.write(json.dumps({"key": entry, "differences": differences}) + "\n")
            return
        known = KNOWN_NULLABILITY.get(entry, []) if listed else []
        if differences != known:
            where = "" if not known else f" (known_nullability.json lists {known})"
            assert not differences, f"nullability of {entry} differs from Spark's{where}: " + "; ".join(differences)
            pytest.fail(f"nullability of {entry} now equals Spark's: remove it from known_nullability.json{where}")

    def check_value(self, value, name=None):
        """Any JSON-able value (e.g. a printed string) must equal Spark's."""
        actual = _normalize(value)

        def compare(expected, got):
            assert _close(got, expected), f"got {got!r}, Spark gave {expected!r}"

        self._record_or_compare(self._entry_key(name), actual, compare)

    def check_error(self, fn, name=None):
        """`fn` must raise the exception class and error class Spark raises."""
        try:
            fn()
        except Exception as e:  # noqa: BLE001 - we record whatever Spark raises
            get_condition = getattr(e, "getCondition", None)
            actual = {"type": type(e).__name__, "errorClass": get_condition() if get_condition else None}
        else:
            actual = {"type": None, "errorClass": None}

        def compare(expected, got):
            assert got == expected, f"got {got}, Spark raised {expected}"

        self._record_or_compare(self._entry_key(name), actual, compare)


@pytest.fixture
def expected(request):
    return Expected(request)


def cases(table, gaps=None):
    """Parameters for the cases of `table`; those in `gaps` (name -> what Ember lacks) are
    expected to fail until Ember has them (strict: a gap that starts passing fails the run,
    so that the list stays true)."""
    gaps = gaps or {}
    unknown = set(gaps) - set(table)
    assert not unknown, f"gaps name unknown cases: {unknown}"
    return [
        pytest.param(name, marks=pytest.mark.xfail(strict=True, reason=gaps[name])) if name in gaps else name
        for name in sorted(table)
    ]
