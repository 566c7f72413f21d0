# Ember's Python UDF worker, part four: the map functions (`mapInPandas`/`mapInArrow`,
# `applyInPandas`/`applyInArrow`, cogroup), a projection's scalar functions over a partition
# (`_scalar_stream`) and streamed requests' input and answers (`_Frames`, `_batches`, `_answer`,
# also used by UDTF TABLE arguments and Python data sources).
# Joined before worker.py into one script (execution/src/python/worker.rs); the names used here
# (pa, ipc, _require, _check_return, _frame_arrays, _localized, _read_bytes, _write_u32,
# _write_bytes, _write_stream, _OUT, PySparkError, _scalar_batch, _series_to_arrow, _to_pandas
# and the eval types) are worker.py's.


def _column_of(table, names, field, position):
    """The result column for `field`: by name when the result names its columns with
    strings (as Spark assigns them), else by position."""
    if all(isinstance(n, str) for n in names):
        if field.name not in names:
            raise PySparkError(
                "RESULT_COLUMNS_MISMATCH_FOR_PANDAS_UDF",
                f"Column names of the returned pandas.DataFrame do not match specified schema. "
                f"Missing: {field.name}.",
            )
        return table[field.name]
    return table[names[position]]


def _map_pandas(f, batches, out_schema):
    pd = _require("pandas", "pandas")
    frames = (b.to_pandas() for b in batches)
    for df in f(frames):
        _check_return(df, pd.DataFrame, "pandas.DataFrame", iterator=True)
        yield pa.record_batch(_frame_arrays(df, out_schema), schema=out_schema)


def _map_arrow(f, batches, out_schema):
    for b in f(iter(batches)):
        _check_return(b, pa.RecordBatch, "pyarrow.RecordBatch", iterator=True)
        names = b.schema.names
        arrays = []
        for i, field in enumerate(out_schema):
            col = _column_of(b, names, field, i)
            arrays.append(col if col.type == field.type else col.cast(field.type, safe=False))
        yield pa.record_batch(arrays, schema=out_schema)


def _takes_key(f):
    import inspect

    try:
        return len(inspect.getfullargspec(f).args) == 2
    except TypeError:
        return False


def _group_map(f, eval_type, reader, out_schema):
    """applyInPandas / applyInArrow: each batch is one group, its first columns the keys.
    The iterator forms (216, 215) take the group as an iterator of frames / batches and
    yield frames / batches."""
    with_key = _takes_key(f)
    pandas = eval_type in (SQL_GROUPED_MAP_PANDAS_UDF, SQL_GROUPED_MAP_PANDAS_ITER_UDF)
    iterator = eval_type in (SQL_GROUPED_MAP_PANDAS_ITER_UDF, SQL_GROUPED_MAP_ARROW_ITER_UDF)
    for batch in reader:
        keys = _group_keys(batch)
        data = pa.Table.from_batches([batch.slice(0)]).select(list(range(keys, batch.num_columns)))
        if pandas:
            pd = _require("pandas", "pandas")
            # As Spark: the first value of each key column in pandas (numpy scalars).
            kdf = pa.Table.from_batches([batch.slice(0, 1)]).select(list(range(keys))).to_pandas()
            key = tuple(kdf.iloc[0, i] for i in range(keys))
            pdf = data.to_pandas()
            arg = iter([pdf]) if iterator else pdf
            result = f(key, arg) if with_key else f(arg)
            results = result if iterator else [result]
            for r in results:
                _check_return(r, pd.DataFrame, "iterator of pandas.DataFrame" if iterator else "pandas.DataFrame")
                yield from _map_pandas(lambda it, r=r: iter([r]), [None], out_schema)
        else:
            key = tuple(batch.column(i)[0] for i in range(keys))
            arg = iter(data.to_batches()) if iterator else data
            result = f(key, arg) if with_key else f(arg)
            if iterator:
                yield from _map_arrow(lambda it, result=result: iter(result), [None], out_schema)
                continue
            _check_return(result, pa.Table, "pyarrow.Table")
            yield from _map_arrow(lambda it, result=result: iter(result.to_batches()), [None], out_schema)


def _group_keys(batch):
    """How many leading columns of a group's batch are its keys (the schema's metadata)."""
    return int((batch.schema.metadata or {}).get(b"ember.group_keys", b"0"))


def _cogroup_side(batch, prefix):
    """One side's rows of a cogrouped group (see resolver/python_cogroup.rs): the rows whose
    `__ember_side` is this side's, the columns named `<prefix><name>`, renamed `<name>`."""
    import pyarrow.compute as pc

    names = batch.schema.names
    side = 0 if prefix == "l:" else 1
    mask = pc.equal(batch.column(names.index("__ember_side")), side)
    picked = [i for i, n in enumerate(names) if n.startswith(prefix)]
    table = pa.Table.from_batches([batch]).filter(mask).select(picked)
    return table.rename_columns([names[i][len(prefix):] for i in picked])


def _cogroup_map(f, eval_type, reader, out_schema):
    """cogroup().applyInPandas / applyInArrow: each batch is one key's rows of both sides."""
    import inspect

    try:
        with_key = len(inspect.getfullargspec(f).args) == 3
    except TypeError:
        with_key = False
    for batch in reader:
        keys = _group_keys(batch)
        left = _cogroup_side(batch, "l:")
        right = _cogroup_side(batch, "r:")
        if eval_type == SQL_COGROUPED_MAP_PANDAS_UDF:
            pd = _require("pandas", "pandas")
            # As Spark: the first value of each key column in pandas (numpy scalars).
            kdf = pa.Table.from_batches([batch.slice(0, 1)]).select(list(range(keys))).to_pandas()
            key = tuple(kdf.iloc[0, i] for i in range(keys))
            ldf, rdf = left.to_pandas(), right.to_pandas()
            result = f(key, ldf, rdf) if with_key else f(ldf, rdf)
            _check_return(result, pd.DataFrame, "pandas.DataFrame")
            yield from _map_pandas(lambda it, result=result: iter([result]), [None], out_schema)
        else:
            key = tuple(batch.column(i)[0] for i in range(keys))
            result = f(key, left, right) if with_key else f(left, right)
            _check_return(result, pa.Table, "pyarrow.Table")
            yield from _map_arrow(lambda it, result=result: iter(result.to_batches()), [None], out_schema)


def _scalar_stream(f, return_type, eval_type, frames, out_field):
    """A scalar function over a partition's argument batches (PythonEvalExec): a result batch
    per argument batch; the iterator forms are called once, over all of them, and may yield
    results of other sizes, the rows checked as Spark's worker checks them."""
    schema = pa.schema([out_field])
    out_type = out_field.type
    if eval_type not in (SQL_SCALAR_PANDAS_ITER_UDF, SQL_SCALAR_ARROW_ITER_UDF):
        for batch in frames:
            yield pa.record_batch([_scalar_batch(f, return_type, eval_type, batch, out_type)], schema=schema)
        return
    pandas = eval_type == SQL_SCALAR_PANDAS_ITER_UDF
    pd = _require("pandas", "pandas") if pandas else None
    rows = [0, 0]  # input rows taken, output rows given

    def arguments():
        for batch in frames:
            rows[0] += batch.num_rows
            columns = [_to_pandas(c) for c in batch.columns] if pandas else list(batch.columns)
            yield columns[0] if len(columns) == 1 else tuple(columns)

    taken = arguments()
    for result in f(taken):
        if pandas:
            if not (isinstance(result, pd.DataFrame) and pa.types.is_struct(out_type)):
                _check_return(result, pd.Series, "pandas.Series", iterator=True)
            arr = _series_to_arrow(result, out_type, len(result), pd)
        else:
            if isinstance(result, pa.ChunkedArray):
                result = result.combine_chunks()
            _check_return(result, pa.Array, "pyarrow.Array", iterator=True)
            arr = result.cast(out_type) if result.type != out_type else result
        rows[1] += len(arr)
        if rows[1] > rows[0]:
            raise PySparkError(
                "OUTPUT_EXCEEDS_INPUT_ROWS", "The number of output rows must not exceed the number of input rows."
            )
        yield pa.record_batch([arr], schema=schema)
    if rows[1] != rows[0]:
        raise PySparkError(
            "RESULT_ROWS_MISMATCH",
            f"The number of output rows ({rows[1]}) must match the number of input rows ({rows[0]}).",
        )
    try:
        next(taken)
    except StopIteration:
        pass
    else:
        raise PySparkError("INPUT_NOT_FULLY_CONSUMED", "The input iterator must be fully consumed.")


class _Frames:
    """A streamed request's input: frames of Arrow IPC streams read from stdin as the function
    asks for them, up to an empty frame (see the protocol above)."""

    def __init__(self):
        # (The first frame holds only the schema.)
        self.schema = ipc.open_stream(pa.py_buffer(_read_bytes())).schema
        self.done = False

    def __iter__(self):
        while not self.done:
            data = _read_bytes()
            if not data:
                self.done = True
                return
            yield from ipc.open_stream(pa.py_buffer(data))

    def drain(self):
        """Read what the function left unread, up to the end of the input."""
        while not self.done:
            if not _read_bytes():
                self.done = True


def _batches(data):
    return data if isinstance(data, _Frames) else ipc.open_stream(pa.py_buffer(data))


def _answer(schema, batches, data):
    """The results: streamed ones written out as they come (one frame of status 3 each),
    otherwise one Arrow IPC stream."""
    if not isinstance(data, _Frames):
        return _write_stream(schema, batches)
    for b in batches:
        _write_u32(3)
        _write_bytes(_write_stream(schema, [b]))
        _OUT.flush()
    return b""
