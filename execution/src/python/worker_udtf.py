# Ember's Python UDF worker, part two: Python UDTFs (`@udtf` classes) and their `analyze`
# static methods. Joined before worker.py into one script (execution/src/python/worker.rs);
# the names used here (pa, ipc, _rows, _converter, PySparkError, ...) are worker.py's.
#
# The columns of a UDTF request name what they are (planner/src/resolver/udtf.rs):
#   __ember_arg_<i>         positional argument i
#   __kw__<name>            keyword argument
#   __ember_tab_<k>:<col>   column <col> of a TABLE argument (k: its position, or kw=<name>),
#                           passed to eval as one Row
#   __ember_ord_<j>_<asc|desc>_<first|last>   sort key j of each partition (PARTITION BY ...
#                           ORDER BY); the first `ember.group_keys` columns are the
#                           partitioning keys, each batch one partition
#   __ember_pass_<i>        an input column a lateral call passes through
#   __ember_outer           the call is a LEFT JOIN LATERAL's

import json

UDTF_ANALYZE = -1
_TABLE_COL = "__ember_tab_"
_ORDER_COL = "__ember_ord_"


class _TableArg:
    """The columns of one TABLE argument, gathered into a Row."""

    def __init__(self):
        self.names = []
        self.values = []

    def row(self):
        from pyspark.sql import Row

        return Row(*self.names)(*self.values)


def _gather_args(names, values, table_value):
    """A UDTF's arguments from its input columns `names` with `values`: `__ember_arg_<i>`
    positional, `__kw__<name>` by keyword, `__ember_tab_<k>:<col>` one TABLE argument per
    `<k>` (`kw=<name>` by keyword), made by `table_value` from its gathered columns."""
    args, kwargs, tables = [], {}, {}
    for name, v in zip(names, values):
        if name.startswith(_KEYWORD):
            kwargs[name[len(_KEYWORD) :]] = v
        elif name.startswith("__ember_arg_"):
            args.append(v)
        elif name.startswith(_TABLE_COL):
            key, col = name[len(_TABLE_COL) :].split(":", 1)
            table = tables.get(key)
            if table is None:
                table = tables[key] = _TableArg()
                if key.startswith("kw="):
                    kwargs[key[3:]] = table
                else:
                    args.append(table)
            table.names.append(col)
            table.values.append(v)
    if tables:
        args = [table_value(a) if isinstance(a, _TableArg) else a for a in args]
        kwargs = {k: (table_value(v) if isinstance(v, _TableArg) else v) for k, v in kwargs.items()}
    return args, kwargs


def _udtf_args(names, row):
    """A UDTF's `eval` arguments of one row: a Row per TABLE argument."""
    return _gather_args(names, row, _TableArg.row)


def _udtf_arrow_converter(t):
    """Values of an Arrow-optimized UDTF (eval type 301): PySpark's own conversion to Arrow."""
    try:
        from pyspark.sql.pandas.types import from_arrow_type

        return_type = from_arrow_type(t)
    except (ImportError, TypeError):
        return_type = None
    conv = _output_converter(return_type, t)
    return (lambda v: v) if conv is None else conv


def _sorted_partition(batch):
    """One partition's rows in the order its `__ember_ord_*` columns ask for."""
    import pyarrow.compute as pc

    keys = [n for n in batch.schema.names if n.startswith(_ORDER_COL)]
    if not keys or batch.num_rows < 2:
        return batch
    columns, sort_keys = {}, []
    for j, name in enumerate(keys):
        direction, nulls = name.rsplit("_", 2)[-2:]
        col = batch.column(batch.schema.get_field_index(name))
        # (Nulls placed per key: a null flag sorted before the value.)
        flag = pc.is_valid(col) if nulls == "first" else pc.is_null(col)
        columns[f"n{j}"] = flag
        columns[f"v{j}"] = col
        sort_keys += [(f"n{j}", "ascending"), (f"v{j}", "ascending" if direction == "asc" else "descending")]
    indices = pc.sort_indices(pa.table(columns), sort_keys=sort_keys)
    return batch.take(indices)


def _table_udf(cls, reader, out_schema, arrow):
    """A Python UDTF (eval types 300 and 301): one instance of the class per request (or per
    partition of a partitioned TABLE argument), `eval` for each row of arguments, `terminate`
    at the end; each yielded tuple is a row of `out_schema`, its values taken as Spark's JVM
    side takes them (300) or as PySpark converts them to Arrow (301, the default when `@udtf`
    runs beside an active session)."""
    convs = [(_udtf_arrow_converter if arrow else _converter)(f.type) for f in out_schema]
    width = len(convs)
    rows = []

    def collect(results):
        if results is None:
            return
        for r in results:
            if arrow and (not isinstance(r, (tuple, list)) or len(r) != width):
                if width == 1 and not isinstance(r, (tuple, list)):
                    r = (r,)
                else:
                    raise PySparkError(
                        "UDTF_ARROW_DATA_CONVERSION_ERROR",
                        f"Cannot convert UDTF output to Arrow. Data: {r!r}. Schema: {out_schema}.",
                    )
            if not isinstance(r, (tuple, list)):
                raise PySparkError(
                    "UDTF_INVALID_OUTPUT_ROW_TYPE",
                    f"The type of an individual output row in the 'eval' method of the UDTF "
                    f"is invalid. Each row should be a tuple, list, or dict, but got '{type(r).__name__}'. "
                    "Please make sure that the output rows are of the correct type.",
                )
            if len(r) != width:
                raise PySparkError(
                    "UDTF_RETURN_SCHEMA_MISMATCH",
                    f"The number of columns in the result does not match the specified schema. "
                    f"Expected column count: {width}, Actual column count: {len(r)}. "
                    "Please make sure the values returned by the 'eval' method have the same "
                    "number of columns as specified in the output schema.",
                )
            rows.append(tuple(None if v is None else c(v) for c, v in zip(convs, r)))

    # A lateral call's input columns `__ember_pass_<i>` come first in the output, beside each
    # row from their input row (the rows of `terminate` beside the last input row).
    passed = [f.name for f in out_schema if f.name.startswith("__ember_pass_")]
    udtf_schema = pa.schema([f for f in out_schema if f.name not in passed])
    convs = convs[len(passed) :]
    width = len(convs)
    sources = []  # for each output row, the index of its input row among all the input's
    last = None
    inputs = []
    # A partitioned TABLE argument: each batch is one partition, with an instance of its own.
    partitioned = b"ember.group_keys" in (reader.schema.metadata or {})
    handler = None if partitioned else cls()

    def finish(handler):
        terminate = getattr(handler, "terminate", None)
        if callable(terminate):
            before = len(rows)
            collect(terminate())
            sources.extend([last] * (len(rows) - before))

    for batch in reader:
        if partitioned:
            batch = _sorted_partition(batch)
            handler = cls()
        names = batch.schema.names
        outer = "__ember_outer" in names
        offset = sum(b.num_rows for b in inputs)
        inputs.append(batch)
        for i, row in enumerate(_rows(batch)):
            args, kwargs = _udtf_args(names, row)
            before = len(rows)
            collect(handler.eval(*args, **kwargs))
            if outer and len(rows) == before:
                rows.append((None,) * width)
            last = offset + i
            sources.extend([last] * (len(rows) - before))
        if partitioned:
            finish(handler)
    if not partitioned:
        finish(handler)
    if not rows:
        return []
    columns = []
    if passed:
        if last is None:
            return []
        table = pa.Table.from_batches(inputs).select(passed).take(pa.array(sources, pa.int64()))
        columns = [c.combine_chunks() for c in table.columns]
    columns += [pa.array([r[i] for r in rows], type=f.type) for i, f in enumerate(udtf_schema)]
    return [pa.record_batch(columns, schema=out_schema)]


def _arrow_udtf(cls, reader, out_schema):
    """An Arrow UDTF (`@arrow_udtf`, eval type 302): `eval` takes each batch's arguments as
    pyarrow Arrays (a TABLE argument as a RecordBatch) and yields pyarrow Tables or
    RecordBatches, matched to the result schema by column name."""
    if any(f.name.startswith("__ember_pass_") for f in out_schema):
        raise PySparkError("UNSUPPORTED", "Arrow UDTFs in LATERAL joins are not supported by Ember")
    partitioned = b"ember.group_keys" in (reader.schema.metadata or {})
    out = []

    def collect(result, method):
        if result is None:
            return
        try:
            items = iter(result)
        except TypeError:
            raise PySparkError(
                "UDTF_RETURN_NOT_ITERABLE",
                f"The return value of the '{method}' method of the UDTF is invalid. It should be an "
                f"iterable (e.g., generator or list), but got '{type(result).__name__}'. Please make sure "
                "that the UDTF returns one of these types.",
            ) from None
        for item in items:
            if isinstance(item, pa.Table):
                batches = item.to_batches()
            elif isinstance(item, pa.RecordBatch):
                batches = [item]
            else:
                raise PySparkError(
                    "UDTF_ARROW_TYPE_CONVERSION_ERROR",
                    "Cannot convert the output value of the input UDTF to the specified return type.",
                )
            for b in batches:
                if b.num_columns != len(out_schema):
                    raise PySparkError(
                        "UDTF_RETURN_SCHEMA_MISMATCH",
                        f"The number of columns in the result does not match the specified schema. "
                        f"Expected column count: {len(out_schema)}, Actual column count: {b.num_columns}. "
                        f"Please make sure the values returned by the '{method}' method have the same "
                        "number of columns as specified in the output schema.",
                    )
                out.extend(_map_arrow(lambda it: iter([b]), [None], out_schema))

    def arguments(batch):
        return _gather_args(
            batch.schema.names,
            batch.columns,
            lambda t: pa.RecordBatch.from_arrays(t.values, names=t.names),
        )

    def finish(handler):
        terminate = getattr(handler, "terminate", None)
        if callable(terminate):
            collect(terminate(), "terminate")

    handler = None if partitioned else cls()
    for batch in reader:
        if partitioned:
            batch = _sorted_partition(batch)
            handler = cls()
        if batch.num_rows:
            args, kwargs = arguments(batch)
            collect(handler.eval(*args, **kwargs), "eval")
        if partitioned:
            finish(handler)
    if not partitioned:
        finish(handler)
    return out


def _analyze_error(name, message):
    return PySparkError(
        "TABLE_VALUED_FUNCTION_FAILED_TO_ANALYZE_IN_PYTHON",
        f"Failed to analyze the Python user defined table function: "
        f"Failed to evaluate the user-defined table function '{name}' because {message}",
    )


def _spark_type(t, from_arrow_type):
    """The Spark type of Arrow type `t` with its nested nullability (an array's containsNull, a
    map's valueContainsNull, a struct's fields), which `from_arrow_type` states as nullable."""
    from pyspark.sql.types import ArrayType, MapType, StructField, StructType

    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return ArrayType(_spark_type(t.value_type, from_arrow_type), containsNull=t.value_field.nullable)
    if pa.types.is_map(t):
        return MapType(
            _spark_type(t.key_type, from_arrow_type),
            _spark_type(t.item_type, from_arrow_type),
            valueContainsNull=t.item_field.nullable,
        )
    if pa.types.is_struct(t):
        return StructType([StructField(f.name, _spark_type(f.type, from_arrow_type), f.nullable) for f in t])
    return from_arrow_type(t)


def _analyze_udtf(cls, data):
    """A UDTF's static `analyze` method over its arguments (one column each, of the
    argument's type, a constant's value in the one row; field metadata `ember.kind` says
    table, constant or expr). Answers an empty stream whose schema metadata holds the result
    schema (`ember.schema`, Spark's JSON of the type, which keeps nested nullability) and the
    rest of the AnalyzeResult as JSON (`ember.analyze`)."""
    import inspect

    from pyspark.sql.pandas.types import from_arrow_type
    from pyspark.sql.types import StructType
    from pyspark.sql.udtf import AnalyzeArgument, AnalyzeResult, OrderingColumn, PartitioningColumn, SelectedColumn

    table = ipc.open_stream(pa.py_buffer(data)).read_all()
    args, kwargs = [], {}
    for i, field in enumerate(table.schema):
        kind = (field.metadata or {}).get(b"ember.kind", b"expr")
        value = None
        if kind == b"constant" and table.num_rows:
            value = _input_columns(table.select([i]).to_batches()[0])[0][0] if table.num_rows else None
        arg = AnalyzeArgument(
            dataType=_spark_type(field.type, from_arrow_type),
            value=value,
            isTable=kind == b"table",
            isConstantExpression=kind == b"constant",
        )
        if field.name.startswith(_KEYWORD):
            kwargs[field.name[len(_KEYWORD) :]] = arg
        else:
            args.append(arg)
    name = cls.__name__
    try:
        inspect.signature(cls.analyze).bind(*args, **kwargs)
    except TypeError as e:
        raise _analyze_error(
            name, f"the function arguments did not match the expected signature of the static 'analyze' method ({e})."
        ) from None
    result = cls.analyze(*args, **kwargs)
    if not isinstance(result, AnalyzeResult):
        raise _analyze_error(
            name,
            "the static 'analyze' method expects a result of type pyspark.sql.udtf.AnalyzeResult, "
            f"but instead this method returned a value of type: {type(result)}",
        )
    if not isinstance(result.schema, StructType):
        raise _analyze_error(
            name,
            "the static 'analyze' method expects a result of type pyspark.sql.udtf.AnalyzeResult with "
            f"a 'schema' field comprising a StructType, but the 'schema' field had the wrong type: {type(result.schema)}",
        )
    has_table = any(a.isTable for a in args) or any(a.isTable for a in kwargs.values())
    if not has_table and (result.withSinglePartition or len(result.partitionBy) > 0):
        field = "withSinglePartition" if result.withSinglePartition else "partitionBy"
        raise _analyze_error(
            name,
            f"the static 'analyze' method returned an 'AnalyzeResult' object with the '{field}' field set, "
            "but the function call did not provide any table argument.",
        )
    for field, kind in (("partitionBy", PartitioningColumn), ("orderBy", OrderingColumn), ("select", SelectedColumn)):
        value = getattr(result, field)
        if not isinstance(value, (list, tuple)) or not all(isinstance(v, kind) for v in value):
            raise _analyze_error(
                name,
                f"the static 'analyze' method returned an 'AnalyzeResult' object with the '{field}' field "
                f"set to a value besides a list or tuple of '{kind.__name__}' objects.",
            )
    rest = {
        "withSinglePartition": bool(result.withSinglePartition),
        "partitionBy": [c.name for c in result.partitionBy],
        "orderBy": [[c.name, bool(c.ascending), c.overrideNullsFirst] for c in result.orderBy],
        "select": [[c.name, c.alias] for c in result.select],
    }
    metadata = {b"ember.schema": result.schema.json().encode(), b"ember.analyze": json.dumps(rest).encode()}
    return _write_stream(pa.schema([], metadata=metadata), [])
