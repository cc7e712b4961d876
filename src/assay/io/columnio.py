"""Arrow columns in and out of JSON: typing and writing helpers of :mod:`assay.results.perquery`.

A column read from a JSON array is typed by its field (``query_id`` and ``text``
strings, ``first_rel_rank`` int64 with null for "none retrieved", ``in_run``
bool, measures float64 with NaN, metadata as Arrow infers it); a column is
written back as a JSON array from its buffers, without one Python object per
value. pyarrow is imported on first use.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def _pa() -> Any:
    import pyarrow as pa

    return pa


def _chunk(col: Any) -> Any:
    """One Arrow array of a chunked column (no copy when it has one chunk)."""
    if hasattr(col, "combine_chunks"):
        return col.chunk(0) if col.num_chunks == 1 else col.combine_chunks()
    return col


def _text_array(values: Any) -> Any:
    pa = _pa()
    if isinstance(values, pa.ChunkedArray):
        values = _chunk(values)
    if isinstance(values, pa.Array):
        return values if pa.types.is_string(values.type) else values.cast(pa.string())
    return pa.array(values, type=pa.string())


def _floats(values: Sequence[Any]) -> Any:
    """A float64 Arrow array; None becomes NaN (a measure has no null)."""
    import numpy as np

    pa = _pa()
    try:
        data = np.array(values, dtype=np.float64)  # None -> NaN
    except (TypeError, ValueError):
        return pa.array(values, pa.float64())  # a value that is no number: Arrow says which
    return pa.array(data)


def _default(name: str, n: int) -> list[Any]:
    return {"text": [""] * n, "first_rel_rank": [None] * n, "in_run": [True] * n}.get(
        name, [None] * n
    )


def _column(name: str, values: Sequence[Any], metric: bool) -> Any:
    """One column from a JSON array, typed by its field (Arrow converts, no loop here)."""
    import pyarrow.compute as pc

    pa = _pa()
    if name in ("query_id", "text"):
        try:
            arr = pa.array(values, type=pa.string())
        except (pa.ArrowInvalid, pa.ArrowTypeError):  # ids written as numbers
            arr = pa.array([_text(v) for v in values], type=pa.string())
        return arr.fill_null("") if name == "text" and arr.null_count else arr
    if name == "first_rel_rank":
        arr = pa.array(values, pa.int64())
        return pc.if_else(pc.greater(arr, 0), arr, pa.scalar(None, pa.int64()))
    if name == "in_run":
        arr = pa.array(values, pa.bool_())
        return arr.fill_null(True) if arr.null_count else arr
    if metric:
        return _floats(values)
    try:
        return pa.array(values)
    except (pa.ArrowInvalid, pa.ArrowTypeError):  # mixed types: keep them as text
        return pa.array([None if v is None else str(v) for v in values], pa.string())


def _text(value: Any) -> Any:
    return value if value is None or isinstance(value, str) else str(value)


def _json_array(col: Any) -> bytes:
    """One column as a JSON array, written without a Python object per value."""
    import numpy as np
    import orjson

    pa = _pa()
    arr = _chunk(col)
    kind = arr.type
    if pa.types.is_floating(kind) and not arr.null_count:
        data = np.ascontiguousarray(arr.to_numpy(zero_copy_only=False), dtype=np.float64)
        return orjson.dumps(data, option=orjson.OPT_SERIALIZE_NUMPY)
    if pa.types.is_boolean(kind) and not arr.null_count:
        return orjson.dumps(arr.to_numpy(zero_copy_only=False), option=orjson.OPT_SERIALIZE_NUMPY)
    if pa.types.is_integer(kind):
        return _joined(arr.cast(pa.string()), quote=False)
    if pa.types.is_string(kind) or pa.types.is_large_string(kind):
        return _joined(arr, quote=True)
    return orjson.dumps(arr.to_pylist())  # other metadata types: rare and small


def _joined(arr: Any, *, quote: bool) -> bytes:
    """``[v1,v2,...]`` from a string array: quoted and escaped when ``quote``; nulls as null.

    The bytes of all values are checked at once: a control character (rare) sends
    the column to orjson, a quote or backslash is escaped by Arrow.
    """
    import numpy as np
    import orjson
    import pyarrow.compute as pc

    pa = _pa()
    if len(arr) == 0:
        return b"[]"
    arr = arr.cast(pa.large_string())
    if quote:
        buf = arr.buffers()[2]
        data = np.frombuffer(buf, np.uint8) if buf is not None else np.zeros(0, np.uint8)
        if (data < 0x20).any():
            return orjson.dumps(arr.to_pylist())  # control characters: orjson escapes them
        if ((data == 0x22) | (data == 0x5C)).any():
            arr = pc.replace_substring(arr, "\\", "\\\\")
            arr = pc.replace_substring(arr, '"', '\\"')
    separator, ends = ",", b""
    if quote and arr.null_count:
        mark = pa.scalar('"', pa.large_string())
        arr = pc.binary_join_element_wise(mark, arr, mark, pa.scalar("", pa.large_string()))
    elif quote:
        separator, ends = '","', b'"'
    if arr.null_count:
        arr = arr.fill_null("null")
    listed = pa.LargeListArray.from_arrays(pa.array([0, len(arr)], pa.int64()), arr)
    joined = pc.binary_join(listed, pa.scalar(separator, pa.large_string()))
    return b"[" + ends + joined[0].as_buffer().to_pybytes() + ends + b"]"
