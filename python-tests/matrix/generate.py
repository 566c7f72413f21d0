"""The generated edge-case matrix of Ember's functions (issue 30, `docs/function-matrix.md`).

Every case is one small SQL statement built from `FUNCTIONS` below (a function with one or more
signatures of argument kinds): the call with representative literals, a typed NULL in each
argument position, every other input type in each position (accepted through coercion, or an
error class), edge values, column arguments (`FROM VALUES ... t(c0, c1)`), wrong arity, and
ANSI off (`spark.sql.ansi.enabled=false`) for the literal, invalid-string and edge cases.

    python generate.py --count                      # how many cases, per function
    python generate.py --record sc://127.0.0.1:PORT # record real Spark's answers to spark43.json

`test_function_matrix.py` runs the cases against Ember and compares with the recording.
"""

import json
import sys
import threading
from pathlib import Path

HERE = Path(__file__).resolve().parent
RECORDING = HERE / "spark43.json"

# Argument kinds: (SQL type, two representative literals, an edge literal).
KINDS = {
    "i": ("INT", ["3", "-7"], "2147483647"),
    "l": ("BIGINT", ["CAST(10 AS BIGINT)", "CAST(-4 AS BIGINT)"], "9223372036854775807"),
    "n": ("DOUBLE", ["2.5D", "-0.75D"], "CAST('NaN' AS DOUBLE)"),
    "m": ("DECIMAL(10,3)", ["CAST(12.345 AS DECIMAL(10,3))", "CAST(-0.5 AS DECIMAL(10,3))"], "CAST(9999999.999 AS DECIMAL(10,3))"),
    "s": ("STRING", ["'Spark SQL'", "'a,b,c'"], "''"),
    "d": ("DATE", ["DATE'2024-02-29'", "DATE'1999-12-31'"], "DATE'0001-01-01'"),
    "t": ("TIMESTAMP", ["TIMESTAMP'2024-03-10 12:34:56'", "TIMESTAMP'1970-01-01 00:00:01'"], "TIMESTAMP'9999-12-31 23:59:59'"),
    "b": ("BOOLEAN", ["true", "false"], "false"),
    "x": ("BINARY", ["X'414243'", "X'41'"], "X''"),
    "A": ("ARRAY<INT>", ["array(3, 1, 2)", "array(5, NULL, 5)"], "array()"),
    "S": ("ARRAY<STRING>", ["array('b', 'a')", "array('x', NULL)"], "array()"),
    "M": ("MAP<STRING,INT>", ["map('a', 1, 'b', 2)", "map('z', 0)"], "map()"),
    "T": ("STRUCT<a:INT,b:STRING>", ["named_struct('a', 1, 'b', 'x')", "named_struct('a', 2, 'b', NULL)"], "named_struct('a', NULL, 'b', NULL)"),
}
# The types substituted into each position (accepted through coercion, or an error class).
SUBSTITUTES = ["i", "l", "n", "m", "s", "d", "t", "b", "x", "A"]

# function -> signatures; a signature is a space-separated list of argument tokens: a kind letter
# (above), or a fixed literal `=<sql>` of kind given before the '=' (`s='yyyy-MM-dd'`), or a
# lambda `L=<sql>` (not substituted). Prefix `agg:` marks aggregates (run over VALUES rows).
FUNCTIONS = {
    # math
    **{f: ["n"] for f in (
        "abs", "acos", "acosh", "asin", "asinh", "atan", "atanh", "cbrt", "ceil", "ceiling", "cos", "cosh",
        "cot", "csc", "degrees", "exp", "expm1", "factorial", "floor", "ln", "log10", "log1p", "log2",
        "negative", "positive", "radians", "rint", "sec", "sign", "signum", "sin", "sinh", "sqrt", "tan",
        "tanh", "bin", "hex", "isnan", "isnull", "isnotnull", "nanvl", "unhex", "bit_count", "bit_get",
        "even", "odd",
    )},
    "nanvl": ["n n"], "bit_count": ["i"], "bit_get": ["i i=1"], "getbit": ["i i=0"], "unhex": ["s='4142'"], "even": [], "odd": [],
    "atan2": ["n n"], "pow": ["n n"], "power": ["n n"], "hypot": ["n n"], "log": ["n", "n n"],
    "mod": ["i i", "n n"], "pmod": ["i i", "n n"], "div": ["i i"], "try_divide": ["i i", "n n"],
    "try_add": ["i i", "d i"], "try_subtract": ["i i"], "try_multiply": ["i i"], "try_mod": ["i i"],
    "round": ["m", "n i=1"], "bround": ["m", "n i=1"], "ceil": ["n", "m i=1"], "floor": ["n", "m i=1"],
    "greatest": ["i i", "s s"], "least": ["i i", "s s"], "shiftleft": ["i i=2"], "shiftright": ["i i=2"],
    "shiftrightunsigned": ["i i=2"], "conv": ["s='100' i=2 i=10"], "width_bucket": ["n n=0.0D n=10.0D i=5"],
    "e": [""], "pi": [""], "format_number": ["n i=2"], "uniform": [], "sqrt": ["n"],
    # predicates and conditionals
    "coalesce": ["i i", "s s"], "nvl": ["i i"], "nvl2": ["i i i"], "ifnull": ["s s"], "nullif": ["i i"],
    "if": ["b i i"], "isnan": ["n"], "equal_null": ["i i"], "nullifzero": ["i"], "zeroifnull": ["i"],
    "assert_true": ["b"],
    # strings
    **{f: ["s"] for f in (
        "ascii", "base64", "bit_length", "char_length", "character_length", "crc32", "initcap", "lcase",
        "length", "len", "lower", "ltrim", "md5", "octet_length", "reverse", "rtrim", "sha", "sha1",
        "soundex", "trim", "ucase", "upper", "unbase64", "try_to_binary", "is_valid_utf8",
        "make_valid_utf8", "validate_utf8", "try_validate_utf8", "quote", "collation", "unbase64",
    )},
    "chr": ["i"], "char": ["i"], "sha2": ["s i=256"], "concat": ["s s", "A A", "x x"], "concat_ws": ["s=',' s s", "s=',' S"],
    "contains": ["s s='SQL'"], "startswith": ["s s='Sp'"], "endswith": ["s s='QL'"], "elt": ["i=1 s s"],
    "find_in_set": ["s='b' s='a,b,c'"], "format_string": ["s='%s-%d' s i"], "printf": ["s='%s-%d' s i"],
    "instr": ["s s='S'"], "left": ["s i=3"], "right": ["s i=3"], "levenshtein": ["s s", "s s i=2"],
    "locate": ["s='S' s", "s='S' s i=2"], "position": ["s='S' s"], "lpad": ["s i=12 s='*'", "s i=3"],
    "rpad": ["s i=12 s='*'", "s i=3"], "overlay": ["s s='__' i=2", "s s='__' i=2 i=3"],
    "regexp_extract": ["s s='(\\\\w+) (\\\\w+)' i=1"], "regexp_extract_all": ["s s='(\\\\w)' i=1"],
    "regexp_replace": ["s s='[aeiou]' s='#'"], "regexp_like": ["s s='^S.*'"], "rlike": ["s s='^S.*'"],
    "regexp_count": ["s s='[a-z]'"], "regexp_instr": ["s s='Q'"], "regexp_substr": ["s s='[A-Z]+'"],
    "repeat": ["s i=2"], "replace": ["s s='S' s='s'"], "split": ["s s=',' ", "s s=',' i=2"],
    "split_part": ["s s=',' i=2"], "substr": ["s i=2 i=3", "s i=2"], "substring": ["s i=2 i=3", "x i=1 i=2"],
    "substring_index": ["s s=',' i=2"], "translate": ["s s='ab' s='xy'"], "space": ["i"],
    "like": ["s s='Sp%'"], "ilike": ["s s='sp%'"], "decode": ["x=X'4142' s='UTF-8'"], "encode": ["s s='UTF-8'"],
    "to_number": ["s='123.45' s='999.99'"], "try_to_number": ["s='12' s='99'"], "to_char": ["m s='9999.999'", "d s='yyyy-MM-dd'"],
    "to_varchar": ["m s='9999.999'"], "btrim": ["s", "s s='S'"], "mask": ["s"], "luhn_check": ["s='79927398713'"],
    "randstr": [], "str_to_map": ["s='a:1,b:2'", "s='a=1;b=2' s=';' s='='"], "sentences": ["s"],
    "url_decode": ["s='a%20b'"], "to_binary": ["s='414243'", "s s='utf-8'"], "url_encode": ["s"], "try_url_decode": ["s='a%2'"], "parse_url": ["s='http://x.org/p?q=1' s='HOST'"],
    "xxhash64": ["i", "s s"], "hash": ["i", "s s"], "murmur3": [], "to_json": ["T", "M"], "from_json": ["s='{\"a\":1}' s='a INT'"],
    "get_json_object": ["s='{\"a\":[1,2]}' s='$.a[1]'"], "json_array_length": ["s='[1,2,3]'"], "json_object_keys": ["s='{\"a\":1,\"b\":2}'"],
    "schema_of_json": ["s='{\"a\":1}'"], "json_tuple": ["s='{\"a\":1,\"b\":2}' s='a' s='b'"],
    "from_csv": ["s='1,x' s='a INT, b STRING'"], "schema_of_csv": ["s='1,x'"], "to_csv": ["T"],
    "aes_encrypt": [], "typeof": ["i", "s", "A"], "version": [],
    # dates and timestamps
    **{f: ["d"] for f in (
        "year", "month", "day", "dayofmonth", "dayofweek", "dayofyear", "weekday", "weekofyear", "quarter",
        "last_day", "unix_date", "to_date",
    )},
    **{f: ["t"] for f in ("hour", "minute", "second", "unix_seconds", "unix_millis", "unix_micros", "to_timestamp")},
    "date_add": ["d i"], "date_sub": ["d i"], "dateadd": ["d i"], "datediff": ["d d"], "date_diff": ["d d"],
    "add_months": ["d i"], "months_between": ["t t", "t t b"], "next_day": ["d s='MON'"],
    "date_format": ["t s='yyyy-MM-dd HH:mm'"], "date_trunc": ["s='MONTH' t"], "trunc": ["d s='YEAR'"],
    "make_date": ["i=2024 i=2 i=29"], "make_timestamp": ["i=2024 i=2 i=29 i=12 i=30 m"],
    "make_dt_interval": ["i=1 i=2"], 
    "from_unixtime": ["l", "l s='yyyy-MM-dd'"], "unix_timestamp": ["t", "s='2024-01-02' s='yyyy-MM-dd'"],
    "to_unix_timestamp": ["s='2024-01-02' s='yyyy-MM-dd'"], "to_date": ["s='2024-01-02'", "s='02/01/2024' s='dd/MM/yyyy'"],
    "to_timestamp": ["s='2024-01-02 03:04:05'", "s='02/01/2024' s='dd/MM/yyyy'"], "try_to_timestamp": ["s s='yyyy'"],
    "try_to_date": ["s='2024-13-01'"], "to_timestamp_ntz": ["s='2024-01-02 03:04:05'"], "to_timestamp_ltz": ["s='2024-01-02 03:04:05'"],
    "timestamp_seconds": ["l"], "timestamp_millis": ["l"], "timestamp_micros": ["l"], "date_from_unix_date": ["i"],
    "from_utc_timestamp": ["t s='Asia/Tokyo'"], "to_utc_timestamp": ["t s='Asia/Tokyo'"], "extract": [],
    "date_part": ["s='YEAR' t"], "datepart": ["s='MONTH' d"], "convert_timezone": ["s='UTC' s='Asia/Tokyo' t"],
    "window": [], "make_timestamp_ntz": ["i=2024 i=2 i=29 i=1 i=2 i=3"],
    # collections
    **{f: ["A"] for f in (
        "array_distinct", "array_max", "array_min", "array_size", "array_sort", "array_compact", "cardinality",
        "size", "sort_array", "shuffle", "flatten", "explode", "explode_outer", "posexplode", "posexplode_outer",
        "reverse",
    )},
    "flatten": ["=array(array(1, 2), array(3))"], "array": ["i i", "s s"], "array_contains": ["A i"],
    "array_position": ["A i"], "array_remove": ["A i"], "array_repeat": ["s i=3"], "array_append": ["A i"],
    "array_prepend": ["A i"], "array_insert": ["A i=2 i"], "array_except": ["A A"], "array_intersect": ["A A"],
    "array_union": ["A A"], "arrays_overlap": ["A A"], "array_join": ["S s=','", "S s=',' s='?'"],
    "arrays_zip": ["A A"], "element_at": ["A i=2", "M s='a'"], "try_element_at": ["A i=9", "M s='q'"],
    "get": ["A i=1"], "slice": ["A i=2 i=2"], "sequence": ["i=1 i=5", "i=1 i=9 i=3"], "sort_array": ["A", "A b"],
    "map": ["s i"], "map_keys": ["M"], "map_values": ["M"], "map_entries": ["M"], "map_from_arrays": ["S A=array(1, 2)"],
    "map_from_entries": ["=array(struct('a', 1), struct('b', 2))"], "map_concat": ["M M=map('c', 3)"], "map_contains_key": ["M s='a'"],
    "str_to_map": ["s='a:1,b:2'"], "named_struct": ["s='x' i"], "struct": ["i s"], "inline": ["=array(named_struct('a', 1, 'b', 'x'))"],
    "stack": ["i=2 i s i s"], "array_size": ["A"], "map_from_entries": [],
    # higher-order functions
    "transform": ["A L=x -> x + 1", "A L=(x, i) -> x * i"], "filter": ["A L=x -> x > 1"], "exists": ["A L=x -> x > 2"],
    "forall": ["A L=x -> x > 0"], "aggregate": ["A i=0 L=(acc, x) -> acc + x"], "zip_with": ["A A L=(x, y) -> x + y"],
    "map_filter": ["M L=(k, v) -> v > 1"], "transform_keys": ["M L=(k, v) -> upper(k)"],
    "transform_values": ["M L=(k, v) -> v * 10"], "map_zip_with": ["M M L=(k, a, b) -> a + b"],
    "array_sort": ["A", "A L=(a, b) -> b - a"], "reduce": ["A i=0 L=(acc, x) -> acc + x"],
    # misc
    "cast": [], "nullif": ["i i"], "bitmap_bit_position": ["l"], "bitmap_bucket_number": ["l"],
    "current_database": [""], "hll_sketch_estimate": [], "input_file_name": [], "spark_partition_id": [],
    # aggregates
    **{f: ["agg:n"] for f in (
        "avg", "mean", "sum", "min", "max", "count", "stddev", "stddev_pop", "stddev_samp", "std", "variance",
        "var_pop", "var_samp", "skewness", "kurtosis", "first", "last", "any_value", "median", "mode",
        "approx_count_distinct", "count_if", "bool_and", "bool_or", "every", "some", "any", "bit_and",
        "bit_or", "bit_xor", "collect_list", "collect_set", "array_agg", "try_sum", "try_avg",
        "first_value", "last_value", "min_by", "max_by", "corr", "covar_pop", "covar_samp", "regr_count",
        "regr_slope", "regr_intercept", "regr_r2", "regr_avgx", "regr_avgy", "regr_sxx", "regr_syy", "regr_sxy",
        "percentile", "percentile_approx", "approx_percentile", "histogram_numeric", "listagg", "string_agg",
    )},
    "count_if": ["agg:b"], "bool_and": ["agg:b"], "bool_or": ["agg:b"], "every": ["agg:b"], "some": ["agg:b"],
    "any": ["agg:b"], "bit_and": ["agg:i"], "bit_or": ["agg:i"], "bit_xor": ["agg:i"], "min_by": ["agg:s i"],
    "max_by": ["agg:s i"], "corr": ["agg:n n"], "covar_pop": ["agg:n n"], "covar_samp": ["agg:n n"],
    "regr_count": ["agg:n n"], "regr_slope": ["agg:n n"], "regr_intercept": ["agg:n n"], "regr_r2": ["agg:n n"],
    "regr_avgx": ["agg:n n"], "regr_avgy": ["agg:n n"], "regr_sxx": ["agg:n n"], "regr_syy": ["agg:n n"],
    "regr_sxy": ["agg:n n"], "percentile": ["agg:n n=0.5D"], "percentile_approx": ["agg:n n=0.5D"],
    "approx_percentile": ["agg:n n=0.5D i=100"], "histogram_numeric": ["agg:n i=2"], "listagg": ["agg:s", "agg:s s=';'"],
    "string_agg": ["agg:s s=';'"], "collect_list": ["agg:s", "agg:n"], "collect_set": ["agg:i"], "array_agg": ["agg:i"],
    "max": ["agg:n", "agg:s", "agg:d"], "min": ["agg:n", "agg:s", "agg:t"], "count": ["agg:n", "agg:s"],
    "first": ["agg:n", "agg:s b=true"], "last": ["agg:n", "agg:s b=true"], "mode": ["agg:i"],
    "approx_count_distinct": ["agg:s"], "sum": ["agg:i", "agg:m"], "avg": ["agg:i", "agg:m"],
}
# Nondeterministic, session-dependent or huge: not in the matrix.
SKIP = {"shuffle", "uniform", "randstr", "aes_encrypt", "version", "murmur3", "extract", "cast", "window",
        "current_database", "hll_sketch_estimate", "input_file_name", "spark_partition_id", "map_from_entries",
        "even", "odd"}


def parse(token):
    """(kind, sql) of one argument token; kind None for lambdas."""
    if token.startswith("L="):
        return None, token[2:]
    if "=" in token:
        kind, sql = token.split("=", 1)
        return (kind or "A"), sql
    return token, None


def split_sig(sig):
    agg = sig.startswith("agg:")
    sig = sig.removeprefix("agg:")
    tokens, cur = [], ""
    # Lambdas hold spaces: a token runs until the next space that starts a new token.
    for part in sig.split(" "):
        if not part:
            continue
        if cur.startswith("L=") or (cur and not _complete(cur)):
            cur += " " + part
            continue
        if cur:
            tokens.append(cur)
        cur = part
    if cur:
        tokens.append(cur)
    return agg, [parse(t) for t in tokens]


def _complete(token):
    return token.count("(") == token.count(")") and token.count("'") % 2 == 0


def literal(kind, fixed, variant):
    if fixed is not None:
        return fixed
    return KINDS[kind][1][variant]


# Functions whose size argument at its maximum makes a huge answer (Spark runs out of memory).
HUGE = {"space", "repeat", "lpad", "rpad", "array_repeat", "format_number", "sequence"}
# Table-generating functions: several output columns, so the cases name none.
GENERATORS = {"explode", "explode_outer", "posexplode", "posexplode_outer", "inline", "stack", "json_tuple"}


def call(func, args):
    return f"{func}({', '.join(args)})"


def cases():
    """name -> {"sql": ..., "ansi": bool}; deterministic."""
    out = {}

    def add(name, sql, ansi=True):
        if name.split("/")[0] in GENERATORS:
            sql = sql.replace(" AS r", "", 1)
        out[name] = {"sql": sql, "ansi": ansi}

    for func in sorted(FUNCTIONS):
        if func in SKIP:
            continue
        for si, sig in enumerate(FUNCTIONS[func]):
            agg, args = split_sig(sig)
            p = f"{func}/{si}"
            base = [literal(k, f, 0) for k, f in args]
            where = ""
            add(f"{p}/lit0", f"SELECT {call(func, base)} AS r")
            add(f"{p}/lit0/ansi_off", f"SELECT {call(func, base)} AS r", ansi=False)
            if not args:
                add(f"{p}/arity+1", f"SELECT {call(func, ['1'])} AS r")
                continue
            add(f"{p}/lit1", f"SELECT {call(func, [literal(k, f, 1) for k, f in args])} AS r")
            # Column arguments: every non-lambda argument read from a VALUES column.
            cols, row0, row1 = [], [], []
            for i, (k, f) in enumerate(args):
                if k is None:
                    cols.append(f)
                    continue
                cols.append(f"c{i}")
                row0.append(literal(k, f, 0))
                row1.append(literal(k, f, 1) if f is None else f"CAST(NULL AS {KINDS[k][0]})")
            names = ", ".join(f"c{i}" for i, (k, _) in enumerate(args) if k is not None)
            if row0:
                values = f"VALUES ({', '.join(row0)}), ({', '.join(row1)}) AS t({names})"
                add(f"{p}/columns", f"SELECT {call(func, cols)} AS r FROM {values}")
                if not agg:
                    add(f"{p}/columns/ansi_off", f"SELECT {call(func, cols)} AS r FROM {values}", ansi=False)
            # Wrong arity.
            add(f"{p}/arity+1", f"SELECT {call(func, base + ['1'])} AS r")
            if len(args) > 1:
                add(f"{p}/arity-1", f"SELECT {call(func, base[:-1])} AS r")
            else:
                add(f"{p}/arity0", f"SELECT {func}() AS r")
            for i, (k, f) in enumerate(args):
                if k is None:
                    continue

                def with_arg(sql):
                    return call(func, base[:i] + [sql] + base[i + 1:])

                add(f"{p}/a{i}/null", f"SELECT {with_arg(f'CAST(NULL AS {KINDS[k][0]})')} AS r")
                add(f"{p}/a{i}/untyped_null", f"SELECT {with_arg('NULL')} AS r")
                for sub in SUBSTITUTES:
                    if sub != k:
                        add(f"{p}/a{i}/type_{sub}", f"SELECT {with_arg(KINDS[sub][1][0])} AS r")
                if not (func in HUGE and k in "il"):
                    add(f"{p}/a{i}/edge", f"SELECT {with_arg(KINDS[k][2])} AS r")
                    add(f"{p}/a{i}/edge/ansi_off", f"SELECT {with_arg(KINDS[k][2])} AS r", ansi=False)
                if k != "s":
                    add(f"{p}/a{i}/bad_string", f"SELECT {with_arg(repr('abc'))} AS r")
                    add(f"{p}/a{i}/bad_string/ansi_off", f"SELECT {with_arg(repr('abc'))} AS r", ansi=False)
                if agg:
                    # Over rows with a NULL and duplicates.
                    row = [literal(kk, ff, 0) for kk, ff in args]
                    nul = [f"CAST(NULL AS {KINDS[kk][0]})" if kk else "NULL" for kk, ff in args]
                    v = ", ".join(f"({', '.join(r)})" for r in (row, nul, row, [literal(kk, ff, 1) for kk, ff in args]))
                    add(f"{p}/a{i}/rows_with_null", f"SELECT {call(func, cols)} AS r FROM VALUES {v} AS t({names})")
                    break
            del where
    return out


def run_case(spark, case, keep_message=False):
    """The answer of one case: {"schema": [[type, nullable]], "rows": [...]} or {"error": class}."""
    sys.path.insert(0, str(HERE.parent))
    from conftest import _normalize

    try:
        df = spark.sql(case["sql"])
        rows = df.collect()
        schema = df.schema
    except Exception as e:  # noqa: BLE001 - the error class is the answer
        get_condition = getattr(e, "getCondition", None) or getattr(e, "getErrorClass", None)
        error = {"error": (get_condition() if get_condition else None) or type(e).__name__}
        if keep_message:
            error["message"] = str(e)[:300]
        return error
    return {
        "schema": [[f.dataType.simpleString(), f.nullable] for f in schema.fields],
        "rows": sorted((_normalize(list(r)) for r in rows), key=lambda r: json.dumps(r, sort_keys=True)),
    }


CASE_TIMEOUT = 20


def run_all(spark, selected, progress=None, keep_message=False):
    """Answers of `selected` (name -> case), ANSI-on cases first, each group in name order."""
    import logging

    # The client logs every error it raises with the server's stack trace.
    logging.getLogger("SQLQueryContextLogger").disabled = True
    answers = {}
    spark.sql("SET spark.sql.ansi.enabled=true")
    ansi = True
    order = sorted(selected, key=lambda n: (not selected[n]["ansi"], n))
    for n, name in enumerate(order):
        case = selected[name]
        if case["ansi"] != ansi:
            spark.sql(f"SET spark.sql.ansi.enabled={'true' if case['ansi'] else 'false'}")
            ansi = case["ansi"]
        # A case that runs away is interrupted (and answers as an error).
        watchdog = threading.Timer(CASE_TIMEOUT, spark.interruptAll)
        watchdog.start()
        try:
            answers[name] = run_case(spark, case, keep_message)
        finally:
            watchdog.cancel()
        if progress and n % 500 == 0:
            progress(n, len(order))
    if not ansi:
        spark.sql("SET spark.sql.ansi.enabled=true")
    return answers


def main(argv):
    all_cases = cases()
    if "--count" in argv:
        funcs = {n.split("/")[0] for n in all_cases}
        print(f"{len(all_cases)} cases, {len(funcs)} functions")
        return
    if "--record" in argv:
        import os

        os.environ.setdefault("SPARK_CONNECT_MODE_ENABLED", "1")
        from pyspark.sql import SparkSession

        url = argv[argv.index("--record") + 1]
        spark = SparkSession.builder.remote(url).create()
        spark.sql("SET spark.sql.ansi.enabled=true")
        answers = run_all(spark, all_cases, lambda n, t: print(f"{n}/{t}", file=sys.stderr, flush=True))
        out = {name: {**all_cases[name], **answers[name]} for name in sorted(all_cases)}
        RECORDING.write_text(json.dumps(out, indent=0, sort_keys=True) + "\n")
        return
    if "--prune" in argv:
        # Drop recorded cases the generator no longer makes.
        recorded = json.loads(RECORDING.read_text())
        out = {name: recorded[name] for name in sorted(recorded) if name in all_cases}
        RECORDING.write_text(json.dumps(out, indent=0, sort_keys=True) + "\n")
        print(f"recorded {len(out)} cases to {RECORDING}")


if __name__ == "__main__":
    main(sys.argv[1:])
