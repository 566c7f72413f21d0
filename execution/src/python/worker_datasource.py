# Ember's Python UDF worker, part three: Python data sources (`pyspark.sql.datasource`).
# Joined before worker.py into one script (execution/src/python/worker.rs); the names used here
# (pa, ipc, cloudpickle, _write_stream, _format_exception) are worker.py's, and _Frames,
# _batches, _answer worker_map.py's. DS_READ and DS_WRITE run as the map operator's streamed
# requests. The requests (execution/src/python/datasource.rs), each an eval type of its own:
#
#   DS_SCHEMA  command: the DataSource class; input schema metadata `ember.options` (JSON).
#              Answers metadata `ember.schema`: the class's schema() as a DDL string, or a
#              StructType's JSON.
#   DS_PLAN    command: the class; input schema: the read schema (its fields) with
#              `ember.options` and `ember.pushdown`. Answers one binary column: the pickled
#              reader, then one pickled InputPartition per row.
#   DS_READ    command: the pickled reader; input: one binary row per partition to read.
#              Answers the rows read (as Arrow batches of the result schema).
#   DS_WRITER  command: the class; input schema: what is written, with `ember.options` and
#              `ember.overwrite`. Answers one binary row: the pickled writer.
#   DS_WRITE   command: the pickled writer; input: one partition's rows. Answers one row:
#              the pickled WriterCommitMessage (`message`), or the traceback (`error`).
#   DS_COMMIT  command: the pickled writer; input: one binary row per message (null: a
#              failed task), metadata `ember.abort`. Calls commit or abort (a failure is
#              answered as a planning step's).
#
# A planning step that fails answers `ember.error` (Spark's PYTHON_DATA_SOURCE_ERROR text)
# instead of failing the request: what it says depends on the step, as in Spark.

import pickle

DS_SCHEMA = -10
DS_PLAN = -11
DS_READ = -12
DS_WRITER = -13
DS_WRITE = -14
DS_COMMIT = -15
_DATA_SOURCE_REQUESTS = (DS_SCHEMA, DS_PLAN, DS_READ, DS_WRITER, DS_WRITE, DS_COMMIT)
_DS_BATCH = 10000
_DS_END = object()


class _PlanFailure(Exception):
    """A planning step failed: `message` is what Spark says before the traceback."""

    def __init__(self, message, cause):
        super().__init__(message)
        self.message = message
        self.cause = cause


def _ds_options(meta):
    from pyspark.sql.datasource import CaseInsensitiveDict

    options = CaseInsensitiveDict()
    for k, v in json.loads(meta.get(b"ember.options", b"{}").decode()).items():
        options[k] = v
    return options


def _ds_struct(schema):
    from pyspark.sql.pandas.types import from_arrow_schema

    return from_arrow_schema(schema)


def _ds_answer(metadata, column=None):
    """An answer of planning steps: one binary column `p` (maybe empty) and metadata."""
    values = column or []
    schema = pa.schema([pa.field("p", pa.binary())], metadata=metadata)
    batch = pa.record_batch([pa.array(values, type=pa.binary())], schema=schema)
    return _write_stream(schema, [batch])


def _ds_step(message, fn):
    try:
        return fn()
    except Exception as e:  # noqa: BLE001 - reported as Spark reports it
        raise _PlanFailure(message, e) from None


def _ds_check_type(value, expected_type, expected):
    if not isinstance(value, expected_type):
        from pyspark.errors import PySparkAssertionError

        raise PySparkAssertionError(
            errorClass="DATA_SOURCE_TYPE_MISMATCH",
            messageParameters={"expected": expected, "actual": f"'{type(value).__name__}'"},
        )


def _ds_plan(cls, meta, schema):
    from pyspark.sql.datasource import DataSourceReader, InputPartition

    options = _ds_options(meta)
    source = _ds_step("Failed to create Python data source instance", lambda: cls(options=options))

    def reader():
        r = source.reader(schema=_ds_struct(schema))
        _ds_check_type(r, DataSourceReader, "an instance of DataSourceReader")
        pushdown = getattr(r.pushFilters, "__func__", None) is not DataSourceReader.pushFilters
        if pushdown and meta.get(b"ember.pushdown") != b"true":
            from pyspark.errors import PySparkAssertionError

            raise PySparkAssertionError(
                errorClass="DATA_SOURCE_PUSHDOWN_DISABLED",
                messageParameters={
                    "type": type(r).__name__,
                    "conf": "spark.sql.python.filterPushdown.enabled",
                },
            )
        if pushdown:
            # (Ember pushes no filters: it evaluates every filter itself.)
            list(r.pushFilters([]))
        return r

    r = _ds_step("Failed to initialize Python data source reader", reader)

    def partitions():
        from pyspark.errors import PySparkRuntimeError

        try:
            parts = r.partitions()
        except NotImplementedError:
            parts = [InputPartition(None)]
        if not isinstance(parts, list):
            raise PySparkRuntimeError(
                errorClass="DATA_SOURCE_TYPE_MISMATCH",
                messageParameters={
                    "expected": "'partitions' to return a list",
                    "actual": f"'{type(parts).__name__}'",
                },
            )
        if not all(isinstance(p, InputPartition) for p in parts):
            raise PySparkRuntimeError(
                errorClass="DATA_SOURCE_TYPE_MISMATCH",
                messageParameters={
                    "expected": "elements in 'partitions' to be of type 'InputPartition'",
                    "actual": ", ".join(f"'{type(p).__name__}'" for p in parts),
                },
            )
        return parts or [InputPartition(None)]

    parts = _ds_step("Failed to generate Python data source read partitions", partitions)
    try:
        r._ember_source_name = cls.name()
    except Exception:  # noqa: BLE001 - only names errors
        pass
    return _ds_answer({}, [cloudpickle.dumps(r)] + [cloudpickle.dumps(p) for p in parts])


def _ds_rows_to_batches(it, out_schema, name):
    """What `read` yields (tuples, lists, Rows, or pyarrow RecordBatches) as batches of
    `out_schema`, checked as Spark checks them."""
    from pyspark.errors import PySparkRuntimeError
    from pyspark.sql import Row
    from pyspark.sql.conversion import LocalDataToArrowConversion

    struct = _ds_struct(out_schema)
    names = struct.fieldNames()
    n = len(names)
    converters = [LocalDataToArrowConversion._create_converter(f.dataType) for f in struct.fields]
    first = next(it, _DS_END)
    if first is _DS_END:
        return
    if isinstance(first, pa.RecordBatch):
        if first.num_columns != n:
            raise PySparkRuntimeError(
                errorClass="DATA_SOURCE_RETURN_SCHEMA_MISMATCH",
                messageParameters={"expected": str(n), "actual": str(first.num_columns)},
            )
        if any(x not in first.schema.names for x in names):
            raise PySparkRuntimeError(
                errorClass="DATA_SOURCE_RETURN_SCHEMA_MISMATCH",
                messageParameters={"expected": str(names), "actual": str(first.schema.names)},
            )
        from pyspark.sql.pandas.types import to_arrow_schema

        # (As Spark: the first batch must have exactly the schema's Arrow form.)
        spark_schema = to_arrow_schema(struct, timezone="UTC")
        if not spark_schema.equals(first.schema):
            raise PySparkRuntimeError(
                errorClass="DATA_SOURCE_RETURN_SCHEMA_MISMATCH",
                messageParameters={"expected": str(spark_schema), "actual": str(first.schema)},
            )
        for b in [first, *it]:
            if list(b.schema.names) != names and set(b.schema.names) == set(names):
                b = pa.record_batch([b.column(x) for x in names], names=names)
            columns = [c if c.type == f.type else c.cast(f.type) for c, f in zip(b.columns, out_schema)]
            yield pa.record_batch(columns, schema=out_schema)
        return
    rows = []

    def flush():
        cols = [[] for _ in range(n)]
        for r in rows:
            if isinstance(r, Row) and hasattr(r, "__fields__"):
                if set(r.__fields__) != set(names):
                    raise PySparkRuntimeError(
                        errorClass="DATA_SOURCE_RETURN_SCHEMA_MISMATCH",
                        messageParameters={"expected": str(names), "actual": str(r.__fields__)},
                    )
                values = [r[x] for x in names]
            else:
                values = r
            for i in range(n):
                cols[i].append(converters[i](values[i]))
        rows.clear()
        return pa.RecordBatch.from_arrays([pa.array(c, type=f.type) for c, f in zip(cols, out_schema)], schema=out_schema)

    import itertools

    for r in itertools.chain([first], it):
        if hasattr(r, "__len__") and len(r) != n:
            raise PySparkRuntimeError(
                errorClass="DATA_SOURCE_RETURN_SCHEMA_MISMATCH",
                messageParameters={"expected": str(n), "actual": str(len(r))},
            )
        if not isinstance(r, (list, tuple)):
            raise PySparkRuntimeError(
                errorClass="DATA_SOURCE_INVALID_RETURN_TYPE",
                messageParameters={
                    "type": type(r).__name__,
                    "name": name,
                    "supported_types": "tuple, list, `pyspark.sql.types.Row`, `pyarrow.RecordBatch`",
                },
            )
        rows.append(r)
        if len(rows) >= _DS_BATCH:
            yield flush()
    if rows:
        yield flush()


def _ds_read(reader, data, out_schema):
    from collections.abc import Iterator

    from pyspark.errors import PySparkRuntimeError

    def batches():
        for batch in _batches(data):
            for value in batch.column(0).to_pylist():
                partition = pickle.loads(value)
                it = reader.read(partition)
                if not isinstance(it, Iterator):
                    raise PySparkRuntimeError(
                        errorClass="DATA_SOURCE_INVALID_RETURN_TYPE",
                        messageParameters={
                            "type": type(it).__name__,
                            "name": _ds_name(reader),
                            "supported_types": "iterator",
                        },
                    )
                yield from _ds_rows_to_batches(it, out_schema, _ds_name(reader))

    return _answer(out_schema, batches(), data)


def _ds_name(reader):
    return getattr(reader, "_ember_source_name", type(reader).__name__)


def _ds_writer(cls, meta, schema):
    from pyspark.sql.datasource import DataSourceWriter

    options = _ds_options(meta)
    overwrite = meta.get(b"ember.overwrite") == b"true"
    source = _ds_step("Failed to create Python data source instance", lambda: cls(options=options))

    def writer():
        w = source.writer(_ds_struct(schema), overwrite)
        _ds_check_type(w, DataSourceWriter, "an instance of DataSourceWriter")
        return w

    w = _ds_step("Failed to initialize Python data source writer", writer)
    return _ds_answer({}, [cloudpickle.dumps(w)])


def _ds_write(writer, data, out_schema):
    from pyspark.errors import PySparkRuntimeError
    from pyspark.sql.conversion import ArrowTableToRowsConversion
    from pyspark.sql.datasource import DataSourceArrowWriter, WriterCommitMessage
    from pyspark.sql.types import _create_row

    reader = _batches(data)
    struct = _ds_struct(reader.schema)
    fields = struct.fieldNames()
    converters = [ArrowTableToRowsConversion._create_converter(f.dataType) for f in struct.fields]

    def rows():
        for batch in batches:
            columns = [ArrowTableToRowsConversion._to_pylist(c) for c in batch.columns]
            for i in range(batch.num_rows):
                yield _create_row(fields, [converters[c](columns[c][i]) for c in range(len(columns))])

    message, error = None, None
    try:
        batches = iter(reader)
        if isinstance(writer, DataSourceArrowWriter):
            res = writer.write(batches)
        else:
            res = writer.write(rows())
        if not isinstance(res, WriterCommitMessage):
            raise PySparkRuntimeError(
                errorClass="DATA_SOURCE_TYPE_MISMATCH",
                messageParameters={
                    "expected": "'WriterCommitMessage' as the return type of the `write` method",
                    "actual": type(res).__name__,
                },
            )
        message = cloudpickle.dumps(res)
    except Exception as e:  # noqa: BLE001 - the driver aborts, then reports it
        error = _format_exception(e)
    batch = pa.record_batch(
        [pa.array([message], type=pa.binary()), pa.array([error], type=pa.string())], schema=out_schema
    )
    return _answer(out_schema, [batch], data)


def _ds_commit(writer, meta, data):
    messages = []
    for batch in ipc.open_stream(pa.py_buffer(data)):
        messages.extend(None if m is None else pickle.loads(m) for m in batch.column(0).to_pylist())
    if meta.get(b"ember.abort") == b"true":
        _ds_step("Failed to commit or abort Python data source write", lambda: writer.abort(messages))
    else:
        _ds_step("Failed to commit or abort Python data source write", lambda: writer.commit(messages))
    return _ds_answer({})


def _data_source(eval_type, command, data, schema_bytes):
    # (Loaded afresh per request: a reader or writer starts each task as it was pickled.)
    obj = cloudpickle.loads(command)
    if isinstance(data, _Frames):
        schema = data.schema
    else:
        schema = ipc.open_stream(pa.py_buffer(data)).schema if data else None
    meta = (schema.metadata or {}) if schema is not None else {}
    try:
        if eval_type == DS_SCHEMA:
            source = _ds_step("Failed to create Python data source instance", lambda: obj(options=_ds_options(meta)))
            s = _ds_step("Failed to create Python data source instance", source.schema)
            text = s if isinstance(s, str) else s.json()
            return _ds_answer({"ember.schema": text})
        if eval_type == DS_PLAN:
            return _ds_plan(obj, meta, schema)
        if eval_type == DS_WRITER:
            return _ds_writer(obj, meta, schema)
        if eval_type == DS_COMMIT:
            return _ds_commit(obj, meta, data)
    except _PlanFailure as f:
        return _ds_answer({"ember.error": f"{f.message}: {_format_exception(f.cause)}"})
    if eval_type == DS_READ:
        return _ds_read(obj, data, ipc.open_stream(pa.py_buffer(schema_bytes)).schema)
    return _ds_write(obj, data, ipc.open_stream(pa.py_buffer(schema_bytes)).schema)
