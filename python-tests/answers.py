"""Comparing a query's rows with a reference engine's (TPC-H against DataFusion, TPC-DS against
DuckDB): values normalized (decimals as floats, dates as ISO text), floats equal within a
relative tolerance, rows compared in order or sorted."""

import datetime
import decimal


def _norm(v):
    if isinstance(v, decimal.Decimal):
        return float(v)
    if isinstance(v, (datetime.date, datetime.datetime)):
        return v.isoformat()
    return v


def normalize(rows):
    return [tuple(_norm(v) for v in r) for r in rows]


def close(a, b, tolerance: float) -> bool:
    """Equal values; floats within `tolerance` relative to the larger (at least 1.0)."""
    if isinstance(a, float) or isinstance(b, float):
        if a is None or b is None:
            return a is b
        return abs(float(a) - float(b)) <= tolerance * max(1.0, abs(float(a)), abs(float(b)))
    return a == b


def _sort_key(row):
    return tuple(
        (0, "") if v is None else (1, round(v, 2)) if isinstance(v, float) else (2, str(v))
        for v in row
    )


def same_answer(got, want, ordered: bool, tolerance: float) -> str:
    """An empty string when the answers match (in order when `ordered`, floats within
    `tolerance`), else what differs."""
    got, want = normalize(got), normalize(want)
    if len(got) != len(want):
        return f"{len(got)} rows, expected {len(want)}"
    if not ordered:
        got, want = sorted(got, key=_sort_key), sorted(want, key=_sort_key)
    for i, (g, w) in enumerate(zip(got, want)):
        if len(g) != len(w) or not all(close(x, y, tolerance) for x, y in zip(g, w)):
            return f"row {i} {g} differs from {w}"
    return ""
