# Ember's Python UDF worker: evaluates cloudpickled PySpark functions over Arrow batches.
#
# Started by the Ember process (execution/src/python/worker.rs) with `python -c <this file>`
# and spoken to over stdin/stdout with length-prefixed frames (execution/src/python/protocol.rs):
#
#   hello    worker -> ember: u32 status (0 ok, 2 setup error), bytes python "major.minor",
#            and after a setup error bytes message
#   request  ember -> worker: i32 eval type, bytes command (cloudpickled (func, return type)),
#            bytes Arrow IPC stream of the arguments (one column per argument), bytes Arrow
#            IPC stream holding only the schema of the result (one field), bytes the directory
#            of the session's artifacts (empty: none; see _use_artifacts)
#   response worker -> ember: u32 0, bytes Arrow IPC stream of the result column; or
#            u32 1, bytes error class, bytes message (the Python traceback)
#   streamed the map functions (mapInPandas, applyInPandas, ...) stream instead: i32 -1000
#            comes before the eval type, the input bytes are empty and after the request come frames
#            (bytes, each an Arrow IPC stream; the first holds only the input's schema) up to
#            an empty one; the worker answers, while it
#            reads them, u32 3 + bytes Arrow IPC stream per result batch, then u32 0 + empty
#            bytes when the function has ended, and reads the rest of the input (Ember ends it
#            early). After an error (u32 1 ...) it exits.
#
# `bytes` is a u32 length followed by that many bytes; integers are little-endian. Eval type -1
# runs a UDTF's `analyze` (worker_udtf.py, which comes before this file in the script); -10 to
# -15 are Python data sources' requests (worker_datasource.py, also before this file). The map
# functions and the streamed requests' reading and answering are worker_map.py's (also before).
# The process serves requests until its stdin closes. What a UDF prints goes to stderr.

import os
import struct
import sys
import traceback

_OUT = sys.stdout.buffer
_IN = sys.stdin.buffer
# A UDF's print() must not corrupt the protocol.
sys.stdout = sys.stderr

SQL_BATCHED_UDF = 100
SQL_ARROW_BATCHED_UDF = 101
SQL_SCALAR_PANDAS_UDF = 200
SQL_SCALAR_PANDAS_ITER_UDF = 204
SQL_MAP_PANDAS_ITER_UDF = 205
SQL_MAP_ARROW_ITER_UDF = 207
SQL_GROUPED_AGG_PANDAS_UDF = 202
SQL_GROUPED_MAP_PANDAS_UDF = 201
SQL_GROUPED_MAP_ARROW_UDF = 209
SQL_GROUPED_MAP_ARROW_ITER_UDF = 215
SQL_GROUPED_MAP_PANDAS_ITER_UDF = 216
SQL_COGROUPED_MAP_PANDAS_UDF = 206
SQL_COGROUPED_MAP_ARROW_UDF = 210
SQL_GROUPED_AGG_ARROW_UDF = 252
SQL_GROUPED_AGG_PANDAS_ITER_UDF = 217
SQL_GROUPED_AGG_ARROW_ITER_UDF = 254
SQL_SCALAR_ARROW_UDF = 250
SQL_SCALAR_ARROW_ITER_UDF = 251
SQL_TABLE_UDF = 300
SQL_ARROW_TABLE_UDF = 301
SQL_ARROW_UDTF = 302
# In place of an eval type: a streamed request, whose eval type follows (see the protocol above).
_STREAMED = -1000


def _write_u32(value):
    _OUT.write(struct.pack("<I", value))


def _write_bytes(data):
    _write_u32(len(data))
    _OUT.write(data)


def _read_exact(n):
    chunks = []
    while n > 0:
        chunk = _IN.read(n)
        if not chunk:
            raise EOFError
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def _read_u32():
    return struct.unpack("<I", _read_exact(4))[0]


def _read_bytes():
    return _read_exact(_read_u32())


class SetupError(Exception):
    pass


def _require(module, package):
    try:
        return __import__(module, fromlist=["_"])
    except ImportError as e:
        raise SetupError(
            f"the Python worker ({sys.executable}) cannot import {module}: install the "
            f"'{package}' package into the Python that runs UDFs ({e})"
        ) from None


def _setup():
    global pa, ipc, cloudpickle
    pa = _require("pyarrow", "pyarrow")
    ipc = _require("pyarrow.ipc", "pyarrow")
    try:
        from pyspark import cloudpickle as cp  # what the client pickled with
    except ImportError:
        cp = _require("cloudpickle", "cloudpickle")
    cloudpickle = cp


_FUNCTIONS = {}


def _load(command):
    """The client's `(function, return type)`, unpickled once per worker."""
    entry = _FUNCTIONS.get(command)
    if entry is None:
        loaded = cloudpickle.loads(command)
        entry = (loaded[0], loaded[1]) if isinstance(loaded, tuple) else (loaded, None)
        if len(_FUNCTIONS) > 256:
            _FUNCTIONS.clear()
        _FUNCTIONS[command] = entry
    return entry


_SCHEMAS = {}


def _schema(schema_bytes):
    """A result schema (an Arrow IPC stream of it), read once per worker."""
    schema = _SCHEMAS.get(schema_bytes)
    if schema is None:
        schema = ipc.open_stream(pa.py_buffer(schema_bytes)).schema
        if len(_SCHEMAS) > 256:
            _SCHEMAS.clear()
        _SCHEMAS[schema_bytes] = schema
    return schema


class PySparkError(Exception):
    """An error with a Spark error class, as PySpark's own worker raises them."""

    def __init__(self, error_class, message):
        super().__init__(f"[{error_class}] {message}")
        self.error_class = error_class


# ---------------------------------------------------------------------------------------------
# Results of row-at-a-time UDFs, converted as Spark's JVM side converts what the Python worker
# returns (EvaluatePython.makeFromJava): a value of the wrong kind becomes null.

_INT_BITS = {"int8": 8, "int16": 16, "int32": 32, "int64": 64}


def _wrap(v, bits):
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >> (bits - 1) else v


def _java_str(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_java_str(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{_java_str(k)}={_java_str(x)}" for k, x in v.items()) + "}"
    if v is None:
        return "null"
    return str(v)


def _converter(t):
    """A function turning a Python result into a value of Arrow type `t` (None if it cannot)."""
    name = str(t)
    if pa.types.is_boolean(t):
        return lambda v: v if isinstance(v, bool) else None
    if pa.types.is_integer(t):
        bits = _INT_BITS.get(name, 64)

        def conv_int(v):
            if isinstance(v, bool) or not isinstance(v, int):
                return None
            if bits == 64:
                return v if -(1 << 63) <= v < (1 << 63) else None
            # Pickled ints beyond a long arrive as BigInteger, which Spark does not take.
            if not -(1 << 63) <= v < (1 << 63):
                return None
            return _wrap(v, bits)

        return conv_int
    if pa.types.is_floating(t):
        return lambda v: v if isinstance(v, float) else None
    if pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_string_view(t):
        return lambda v: None if v is None else (v if isinstance(v, str) else _java_str(v))
    if pa.types.is_binary(t) or pa.types.is_large_binary(t):
        return lambda v: bytes(v) if isinstance(v, (bytes, bytearray)) else None
    if pa.types.is_decimal(t):
        import decimal

        def conv_dec(v):
            if not isinstance(v, decimal.Decimal):
                return None
            try:
                q = v.quantize(decimal.Decimal(1).scaleb(-t.scale))
            except decimal.InvalidOperation:
                return None
            return q if len(q.as_tuple().digits) - t.scale <= t.precision - t.scale else None

        return conv_dec
    if pa.types.is_date(t):
        import datetime

        return lambda v: v if isinstance(v, datetime.date) and not isinstance(v, datetime.datetime) else None
    if pa.types.is_timestamp(t):
        import datetime

        return lambda v: v if isinstance(v, datetime.datetime) else None
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        inner = _converter(t.value_type)
        return lambda v: [inner(x) if x is not None else None for x in v] if isinstance(v, (list, tuple)) else None
    if pa.types.is_map(t):
        kc, vc = _converter(t.key_type), _converter(t.item_type)
        return lambda v: [(kc(k), None if x is None else vc(x)) for k, x in v.items()] if isinstance(v, dict) else None
    if pa.types.is_struct(t):
        fields = [(f.name, _converter(f.type)) for f in t]

        def conv_struct(v):
            if isinstance(v, dict):
                return {n: (None if v.get(n) is None else c(v.get(n))) for n, c in fields}
            if isinstance(v, (list, tuple)) and len(v) == len(fields):
                return {n: (None if x is None else c(x)) for (n, c), x in zip(fields, v)}
            return None

        return conv_struct
    return lambda v: v


def _arrow_value_converter(t):
    """Results of Arrow-optimized row UDFs without PySpark's converters: Arrow's conversion."""
    if pa.types.is_struct(t):
        names = [f.name for f in t]

        def conv_struct(v):
            if isinstance(v, (list, tuple)):
                return dict(zip(names, v))
            return v

        return conv_struct
    if pa.types.is_map(t):
        return lambda v: list(v.items()) if isinstance(v, dict) else v
    return lambda v: v


def _output_converter(return_type, out_type):
    """PySpark's own conversion of Python values to Arrow (what Spark's worker uses), when
    the worker's PySpark has it."""
    if return_type is not None and not isinstance(return_type, str):
        try:
            from pyspark.sql.conversion import LocalDataToArrowConversion

            return LocalDataToArrowConversion._create_converter(return_type, none_on_identity=True)
        except (ImportError, AttributeError, TypeError):
            pass
    conv = _arrow_value_converter(out_type)
    return lambda v: None if v is None else conv(v)


def _input_columns(batch):
    """The arguments as Python values, as PySpark's worker gives them (Row for structs,
    dict for maps)."""
    try:
        from pyspark.sql.conversion import ArrowTableToRowsConversion
        from pyspark.sql.pandas.types import from_arrow_type

        columns = []
        for col in batch.columns:
            values = ArrowTableToRowsConversion._to_pylist(col)
            try:
                conv = ArrowTableToRowsConversion._create_converter(
                    from_arrow_type(col.type), none_on_identity=True, binary_as_bytes=True
                )
            except TypeError:
                conv = ArrowTableToRowsConversion._create_converter(from_arrow_type(col.type))
            columns.append(values if conv is None else [conv(v) for v in values])
        return columns
    except (ImportError, AttributeError):
        return _python_rows(batch)


def _python_rows(batch):
    columns = []
    for col in batch.columns:
        values = col.to_pylist()
        t = col.type
        if pa.types.is_map(t):
            values = [None if v is None else dict(v) for v in values]
        elif pa.types.is_struct(t):
            from pyspark.sql import Row

            names = [f.name for f in t]
            values = [None if v is None else Row(**{n: v[n] for n in names}) for v in values]
        columns.append(values)
    return columns


def _rows(batch):
    columns = _input_columns(batch)
    if not columns:
        return [() for _ in range(batch.num_rows)]
    return list(zip(*columns))


_KEYWORD = "__kw__"


def _call(f, batch, values):
    """Call `f` with `values` (one per column of `batch`), the columns named `__kw__<name>`
    as keyword arguments."""
    args, kwargs = [], {}
    for name, v in zip(batch.schema.names, values):
        if name.startswith(_KEYWORD):
            kwargs[name[len(_KEYWORD) :]] = v
        else:
            args.append(v)
    return f(*args, **kwargs)


def _call_rows(f, batch):
    """`f` called on each row of `batch` (a column per argument, those named `__kw__<name>`
    passed by keyword): its results."""
    columns = _input_columns(batch)
    if not columns:
        return [f() for _ in range(batch.num_rows)]
    names = batch.schema.names
    if not any(n.startswith(_KEYWORD) for n in names):
        return list(map(f, *columns))
    return [_call(f, batch, row) for row in zip(*columns)]


# Result types whose values pass as they are when each is of the one Python type (or None).
_PLAIN = {
    "bool": bool,
    "int8": int,
    "int16": int,
    "int32": int,
    "int64": int,
    "float": float,
    "double": float,
    "string": str,
    "large_string": str,
}


def _eval_rows(f, batch, out_type):
    """Row-at-a-time UDF over pickled rows (eval type 100): results are taken as Spark's JVM
    side takes what the worker returns."""
    results = _call_rows(f, batch)
    plain = _PLAIN.get(str(out_type))
    if plain is not None and set(map(type, results)) <= {plain, type(None)}:
        try:
            return pa.array(results, type=out_type)
        except (pa.lib.ArrowInvalid, OverflowError):
            pass  # (integers beyond the type: converted one by one below, as Spark takes them)
    conv = _converter(out_type)
    return pa.array([None if v is None else conv(v) for v in results], type=out_type)


def _eval_arrow_rows(f, return_type, batch, out_type):
    """Arrow-optimized row-at-a-time UDF (eval type 101)."""
    conv = _output_converter(return_type, out_type)
    results = _call_rows(f, batch)
    converted = results if conv is None else [conv(r) for r in results]
    try:
        return pa.array(converted, type=out_type)
    except pa.lib.ArrowInvalid:
        # (A checked cast, as Spark 4.3's worker does: out-of-range values fail.)
        return pa.array(converted).cast(target_type=out_type, safe=True)


def _to_pandas(col):
    """A column as pandas, as Spark gives it: timestamps as naive wall-clock times of the
    session time zone."""
    s = col.to_pandas()
    if pa.types.is_timestamp(col.type) and col.type.tz is not None:
        s = s.dt.tz_convert(col.type.tz).dt.tz_localize(None)
    return s


def _localized(series, out_type):
    """Naive timestamps returned for a zoned timestamp type are the session zone's wall-clock
    times (as Spark takes them)."""
    if (
        pa.types.is_timestamp(out_type)
        and out_type.tz is not None
        and str(getattr(series, "dtype", "")).startswith("datetime64")
        and getattr(series.dt, "tz", None) is None
    ):
        return series.dt.tz_localize(out_type.tz, ambiguous=False, nonexistent="shift_forward")
    return series


def _check_return(value, expected, kind, iterator=False):
    """Spark's UDF_RETURN_TYPE unless `value` is an `expected` (`kind` as Spark names it; the
    items of an iterator when `iterator`)."""
    if not isinstance(value, expected):
        if iterator:
            raise PySparkError(
                "UDF_RETURN_TYPE",
                f"Return type of the user-defined function should be iterator of {kind}, "
                f"but is iterator of {type(value).__name__}.",
            )
        raise PySparkError(
            "UDF_RETURN_TYPE",
            f"Return type of the user-defined function should be {kind}, but is {type(value).__name__}.",
        )


def _frame_arrays(df, fields):
    """The Arrow arrays of a pandas DataFrame's columns for `fields`, by name (or position)."""
    names = list(df.columns)
    arrays = []
    for i, field in enumerate(fields):
        col = _localized(_column_of(df, names, field, i), field.type)
        try:
            arrays.append(pa.Array.from_pandas(col, mask=col.isnull(), type=field.type, safe=False))
        except ValueError:
            arrays.append(pa.Array.from_pandas(col, type=field.type, safe=False))
    return arrays


def _frame_to_struct(df, out_type):
    """A pandas DataFrame returned for a struct type: its columns, by name (or position)."""
    return pa.StructArray.from_arrays(_frame_arrays(df, out_type), fields=list(out_type))


def _series_to_arrow(result, out_type, n, pd):
    if isinstance(result, pd.DataFrame) and pa.types.is_struct(out_type):
        if len(result) != n:
            raise PySparkError(
                "SCHEMA_MISMATCH_FOR_PANDAS_UDF",
                f"Result vector from pandas_udf was not the required length: expected {n}, got {len(result)}.",
            )
        return _frame_to_struct(result, out_type)
    _check_return(result, pd.Series, "pandas.Series")
    if len(result) != n:
        raise PySparkError(
            "SCHEMA_MISMATCH_FOR_PANDAS_UDF",
            f"Result vector from pandas_udf was not the required length: expected {n}, got {len(result)}.",
        )
    result = _localized(result, out_type)
    if getattr(result.dtype, "kind", None) in ("i", "u", "b"):
        # (numpy integers and booleans hold no NULL: no mask to compute.)
        return pa.Array.from_pandas(result, type=out_type, safe=False)
    try:
        return pa.Array.from_pandas(result, mask=result.isnull(), type=out_type, safe=False)
    except ValueError:
        # Extension arrays (pandas' Arrow-backed strings) convert themselves, with no mask.
        return pa.Array.from_pandas(result, type=out_type, safe=False)


def _eval_pandas(f, batch, out_type, iterator):
    pd = _require("pandas", "pandas")
    series = [_to_pandas(c) for c in batch.columns]
    n = batch.num_rows
    if iterator:
        arg = series[0] if len(series) == 1 else tuple(series)
        results = list(f(iter([arg])))
        result = pd.concat(results) if results else pd.Series([], dtype=object)
    else:
        result = _call(f, batch, series)
    return _series_to_arrow(result, out_type, n, pd)


def _eval_arrow(f, batch, out_type, iterator):
    columns = list(batch.columns)
    if iterator:
        arg = columns[0] if len(columns) == 1 else tuple(columns)
        parts = list(f(iter([arg])))
        result = pa.concat_arrays(parts) if parts else pa.array([], type=out_type)
    else:
        result = _call(f, batch, columns)
    if isinstance(result, pa.ChunkedArray):
        result = result.combine_chunks()
    _check_return(result, pa.Array, "pyarrow.Array")
    if len(result) != batch.num_rows:
        raise PySparkError(
            "SCHEMA_MISMATCH_FOR_ARROW_UDF",
            f"Result vector from arrow_udf was not the required length: expected {batch.num_rows}, got {len(result)}.",
        )
    return result.cast(out_type) if result.type != out_type else result


def _scalar_value(v):
    """A pandas/numpy scalar as a Python value."""
    item = getattr(v, "item", None)
    if callable(item) and not isinstance(v, (list, tuple, dict, str, bytes)):
        try:
            return item()
        except (TypeError, ValueError):
            return v
    return v


def _evaluate(eval_type, command, data, schema_bytes):
    if eval_type in _DATA_SOURCE_REQUESTS:  # worker_datasource.py
        return _data_source(eval_type, command, data, schema_bytes)
    f, return_type = _load(command)
    if eval_type == UDTF_ANALYZE:
        return _analyze_udtf(f, data)
    out_schema = _schema(schema_bytes)
    if eval_type == SQL_ARROW_UDTF:
        return _answer(out_schema, _arrow_udtf(f, _batches(data), out_schema), data)
    if eval_type in (SQL_TABLE_UDF, SQL_ARROW_TABLE_UDF):
        results = _table_udf(f, _batches(data), out_schema, eval_type == SQL_ARROW_TABLE_UDF)
        return _answer(out_schema, results, data)
    if eval_type in (SQL_COGROUPED_MAP_PANDAS_UDF, SQL_COGROUPED_MAP_ARROW_UDF):
        return _answer(out_schema, _cogroup_map(f, eval_type, _batches(data), out_schema), data)
    if eval_type in (
        SQL_GROUPED_MAP_PANDAS_UDF,
        SQL_GROUPED_MAP_ARROW_UDF,
        SQL_GROUPED_MAP_PANDAS_ITER_UDF,
        SQL_GROUPED_MAP_ARROW_ITER_UDF,
    ):
        return _answer(out_schema, _group_map(f, eval_type, _batches(data), out_schema), data)
    if eval_type in (SQL_MAP_PANDAS_ITER_UDF, SQL_MAP_ARROW_ITER_UDF):
        if eval_type == SQL_MAP_PANDAS_ITER_UDF:
            results = _map_pandas(f, _batches(data), out_schema)
        else:
            results = _map_arrow(f, _batches(data), out_schema)
        return _answer(out_schema, results, data)
    out_field = out_schema.field(0)
    out_type = out_field.type
    if isinstance(data, _Frames):  # worker_map.py: a projection's calls, streamed
        return _answer(out_schema, _scalar_stream(f, return_type, eval_type, data, out_field), data)
    results = []
    for batch in ipc.open_stream(pa.py_buffer(data)):
        arr = _scalar_batch(f, return_type, eval_type, batch, out_type)
        results.append(pa.record_batch([arr], schema=pa.schema([out_field])))
    return _write_stream(pa.schema([out_field]), results)


def _scalar_batch(f, return_type, eval_type, batch, out_type):
    """The result column of a scalar or aggregate function over one batch of arguments."""
    if eval_type == SQL_BATCHED_UDF:
        return _eval_rows(f, batch, out_type)
    if eval_type == SQL_ARROW_BATCHED_UDF:
        return _eval_arrow_rows(f, return_type, batch, out_type)
    if eval_type in (SQL_SCALAR_PANDAS_UDF, SQL_SCALAR_PANDAS_ITER_UDF):
        return _eval_pandas(f, batch, out_type, eval_type == SQL_SCALAR_PANDAS_ITER_UDF)
    if eval_type == SQL_GROUPED_AGG_PANDAS_UDF:
        _require("pandas", "pandas")
        result = f(*[c.to_pandas() for c in batch.columns])
        return pa.array([_scalar_value(result)], type=out_type)
    if eval_type == SQL_GROUPED_AGG_PANDAS_ITER_UDF:
        _require("pandas", "pandas")
        series = [c.to_pandas() for c in batch.columns]
        result = f(iter([series[0] if len(series) == 1 else tuple(series)]))
        return pa.array([_scalar_value(result)], type=out_type)
    if eval_type in (SQL_GROUPED_AGG_ARROW_ITER_UDF, SQL_GROUPED_AGG_ARROW_UDF):
        if eval_type == SQL_GROUPED_AGG_ARROW_UDF:
            result = f(*batch.columns)
        else:
            columns = list(batch.columns)
            result = f(iter([columns[0] if len(columns) == 1 else tuple(columns)]))
        if isinstance(result, pa.Scalar):
            result = result.as_py()
        return pa.array([result], type=out_type)
    if eval_type in (SQL_SCALAR_ARROW_UDF, SQL_SCALAR_ARROW_ITER_UDF):
        return _eval_arrow(f, batch, out_type, eval_type == SQL_SCALAR_ARROW_ITER_UDF)
    raise PySparkError("UNSUPPORTED_EVAL_TYPE", f"eval type {eval_type} is not supported")


def _write_stream(schema, batches):
    sink = pa.BufferOutputStream()
    with ipc.new_stream(sink, schema) as writer:
        for b in batches:
            writer.write_batch(b)
    return sink.getvalue().to_pybytes()


_ARTIFACTS = [None, []]  # the directory in use, the sys.path entries it added


def _use_artifacts(directory):
    """Make the session's artifacts importable (pyfiles, zip/egg files, unpacked archives) and
    its files SparkFiles', with the directory as the working directory, as Spark's worker does;
    what another session's artifacts added (sys.path, imported modules) is taken away."""
    current, added = _ARTIFACTS
    if directory == (current or ""):
        return
    if current:
        for p in added:
            while p in sys.path:
                sys.path.remove(p)
        for name, module in list(sys.modules.items()):
            path = getattr(module, "__file__", None) or ""
            if path.startswith(current + os.sep):
                del sys.modules[name]
        os.chdir("/")
    _ARTIFACTS[0], _ARTIFACTS[1] = None, []
    if not directory:
        return
    import shutil
    import tempfile

    archives = os.path.join(directory, ".archives")
    for name in sorted(os.listdir(archives)) if os.path.isdir(archives) else []:
        file_name, _, alias = name.partition("#")
        target = os.path.join(directory, alias or file_name)
        if os.path.exists(target):
            continue
        tmp = tempfile.mkdtemp(dir=directory)
        fmt = "zip" if file_name.endswith((".zip", ".jar")) else None
        shutil.unpack_archive(os.path.join(archives, name), tmp, format=fmt)
        try:
            os.rename(tmp, target)
        except OSError:
            shutil.rmtree(tmp, ignore_errors=True)
    entries = [directory] + [
        os.path.join(directory, n) for n in sorted(os.listdir(directory)) if n.endswith((".zip", ".egg", ".whl"))
    ]
    for p in reversed(entries):
        sys.path.insert(0, p)
    os.chdir(directory)
    for module in ("pyspark.files", "pyspark.core.files"):
        try:
            files = __import__(module, fromlist=["SparkFiles"]).SparkFiles
        except (ImportError, AttributeError):
            continue
        files._root_directory = directory
        files._is_running_on_worker = True
    import importlib

    importlib.invalidate_caches()
    _ARTIFACTS[0], _ARTIFACTS[1] = directory, entries


def _format_exception(e):
    # As Spark's worker does: the traceback without the worker's own frames.
    tb = e.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename == "<string>":
        tb = tb.tb_next
    return "".join(traceback.format_exception(type(e), e, tb))


def main():
    version = f"{sys.version_info[0]}.{sys.version_info[1]}".encode()
    try:
        _setup()
    except SetupError as e:
        _write_u32(2)
        _write_bytes(version)
        _write_bytes(str(e).encode())
        _OUT.flush()
        return
    _write_u32(0)
    _write_bytes(version)
    _OUT.flush()
    while True:
        try:
            eval_type = struct.unpack("<i", _read_exact(4))[0]
        except EOFError:
            return
        streamed = eval_type == _STREAMED
        if streamed:
            eval_type = struct.unpack("<i", _read_exact(4))[0]
        command = _read_bytes()
        data = _read_bytes()
        schema = _read_bytes()
        artifacts = _read_bytes().decode()
        if streamed:
            data = _Frames()
        try:
            _use_artifacts(artifacts)
            out = _evaluate(eval_type, command, data, schema)
        except SetupError as e:
            _write_u32(2)
            _write_bytes(str(e).encode())
        except BaseException as e:  # noqa: BLE001 - every failure goes back to Ember
            if isinstance(e, (KeyboardInterrupt, SystemExit)) and not isinstance(e, SystemExit):
                raise
            _write_u32(1)
            _write_bytes(getattr(e, "error_class", "").encode())
            _write_bytes(_format_exception(e).encode())
        else:
            _write_u32(0)
            _write_bytes(out)
            _OUT.flush()
            if streamed:
                # (Answered before the input ended, Ember stops sending it; what was on its
                # way is read here.)
                data.drain()
            continue
        _OUT.flush()
        if streamed:
            # (The rest of its input is still coming: a failed streamed request ends the
            # worker, which Ember does not give back to the pool.)
            os._exit(0)


main()
os._exit(0)
