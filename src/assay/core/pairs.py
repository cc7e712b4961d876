"""String ids as integer codes and hashes, and blocks of equal codes.

The codes come from :func:`encode` (Arrow's hash, first-appearance order) or
:func:`encode_grouped` (faster for ids that come in runs of equal values, as
query ids do); :func:`grouped_blocks` tells whether each code's rows form one
block. Repeated (query, doc) pairs are found with these in
:mod:`assay.core.repeats`.

Hashing every id of a 10-million-row run into a dictionary is the slowest
step of reading it, so the checks that only ask "could two of these be
equal?" use :func:`hashes` instead: one 64-bit value per string, computed
from its bytes without a hash table. Equal strings have equal hashes; a hash
match is only a candidate, which the caller confirms on the strings (or on
:func:`encode`'s codes) before deciding anything.
"""

from __future__ import annotations

import weakref
from typing import Any

import numpy as np

from assay.core._threads import halves
from assay.core.hashing import digest64


def is_grouped(heads: np.ndarray) -> bool:
    """True when no code repeats in ``heads`` (the codes of the runs of :func:`run_starts`).

    Then every query's rows form one block. O(n) with ``bincount`` (codes are
    small non-negative integers), not a sort.
    """
    if len(heads) < 2:
        return True
    return int(np.bincount(heads.astype(np.intp, copy=False)).max()) <= 1


def run_starts(g: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Start rows of the runs of equal codes in ``g``, and the code of each run."""
    if not len(g):
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    starts = np.flatnonzero(g[1:] != g[:-1])
    starts += 1
    starts = np.r_[0, starts]
    return starts, g[starts]


def grouped_blocks(g: np.ndarray, ng: int | None = None) -> tuple[np.ndarray, np.ndarray] | None:
    """:func:`run_starts` of the codes ``g`` when each code's rows form one block, else None.

    Codes that change more often than there are codes (``ng``; ``g.max() + 1``
    if ``None``) are interleaved for sure: that is told by one comparison per
    row, before the starts of millions of runs are built.
    """
    if len(g) > 1:
        ng = int(g.max()) + 1 if ng is None else ng
        if int(np.count_nonzero(g[1:] != g[:-1])) >= ng:
            return None
    starts, heads = run_starts(g)
    return (starts, heads) if is_grouped(heads) else None


def codes(column: Any) -> tuple[np.ndarray, int]:
    """int64 codes of a string column (pandas, pyarrow or a list) and the number of values.

    Codes are numbered in order of first appearance (the first row has code 0,
    the next new value code 1, ...), so :func:`first_rows` finds each value's
    first row. Equal values in runs (query ids) are hashed once per run
    (:func:`encode_grouped`). The codes of an Arrow column (or of a pandas
    column backed by one) are computed once while it lives and returned
    read-only, like :func:`hashes`.
    """
    arrow = arrow_column(column)
    if arrow is not None and _is_text(arrow.type):
        return _remembered("codes", arrow, lambda: _arrow_codes(arrow))
    import pyarrow as pa

    values = getattr(column, "array", column)
    try:
        arrow = pa.array(values)
        if not _is_text(arrow.type):
            raise TypeError(arrow.type)
    except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError):
        import pandas as pd

        found, uniques = pd.factorize(pd.Series(values, dtype=object))
        return found.astype(np.int64), len(uniques)
    return _arrow_codes(arrow)


def _is_text(kind: Any) -> bool:
    import pyarrow as pa

    return bool(pa.types.is_string(kind) or pa.types.is_large_string(kind))


def _arrow_codes(arrow: Any) -> tuple[np.ndarray, int]:
    found, dictionary = encode_grouped(arrow)
    return found.astype(np.int64), len(dictionary)


def first_rows(column: Any) -> np.ndarray:
    """Row numbers where each value of a string column first appears, in the order
    of :func:`codes` (remembered for an Arrow column, like its codes)."""
    arrow = arrow_column(column)
    if arrow is not None and _is_text(arrow.type):
        return _remembered("first_rows", arrow, lambda: _first_rows(codes(arrow)[0]))
    return _first_rows(codes(column)[0])


def _first_rows(found: np.ndarray) -> np.ndarray:
    if not len(found):
        return np.zeros(0, dtype=np.int64)
    highest = np.maximum.accumulate(found)
    return np.flatnonzero(np.r_[True, highest[1:] > highest[:-1]])


def as_numpy(column: Any, dtype: Any) -> np.ndarray:
    """A (chunked) pyarrow column without nulls as one numpy array of ``dtype``.

    Chunks are joined in Arrow's memory pool (which reuses the parser's freed
    memory; fresh pages are slow to touch) and viewed, read-only, from numpy.
    """
    if hasattr(column, "combine_chunks"):
        column = column.combine_chunks()
    return column.to_numpy(zero_copy_only=False).astype(dtype, copy=False)


def encode(column: Any) -> tuple[np.ndarray, Any]:
    """int32 codes (first-appearance order) and the unique values of a string column.

    A large column of several chunks is encoded as two halves on two threads,
    whose dictionaries are then joined: the second half's new values follow
    the first half's, so the codes keep first-appearance order.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    chunks = getattr(column, "chunks", None)
    if chunks is None or len(chunks) < 2:
        return _encode_one(column)
    parts = halves(
        lambda part: _encode_one(pa.chunked_array(chunks[part], column.type)),
        len(chunks),
        len(column),
    )
    if len(parts) == 1:
        return parts[0]
    (codes_a, dict_a), (codes_b, dict_b) = parts
    at = pc.index_in(dict_b, value_set=dict_a).fill_null(-1).to_numpy(zero_copy_only=False)
    new = at < 0
    at = at.astype(np.int32)
    at[new] = len(dict_a) + np.arange(int(np.count_nonzero(new)), dtype=np.int32)
    dictionary = pa.concat_arrays([dict_a, dict_b.filter(pa.array(new))])
    return np.concatenate([codes_a, at[codes_b]]), dictionary


def _encode_one(column: Any) -> tuple[np.ndarray, Any]:
    """:func:`encode` on one thread."""
    import pyarrow as pa

    encoded = column.dictionary_encode()  # one dictionary shared by every chunk
    if isinstance(encoded, pa.ChunkedArray):
        if encoded.num_chunks == 0:
            return np.zeros(0, dtype=np.int32), pa.array([], column.type)
        dictionary = encoded.chunk(0).dictionary
        codes = as_numpy(pa.chunked_array([c.indices for c in encoded.chunks]), np.int32)
        return codes, dictionary
    return as_numpy(encoded.indices, np.int32), encoded.dictionary


def encode_grouped(column: Any) -> tuple[np.ndarray, Any]:
    """Like :func:`encode`, faster when equal values come in runs (query ids).

    A value first appears where the column changes, so only the values at the
    starts of runs of equal values are hashed; each run then takes its start's code.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    chunks = [c for c in getattr(column, "chunks", [column]) if len(c)]
    n = sum(len(c) for c in chunks)
    if n == 0:
        return np.zeros(0, dtype=np.int32), pa.array([], pa.string())
    parts, heads, offset, found = [], [], 0, 0
    for c in chunks:  # chunk by chunk: taking from a chunked array would join them first
        change = pc.not_equal(c.slice(1), c.slice(0, len(c) - 1))
        local = np.r_[0, np.flatnonzero(as_numpy(change, bool)) + 1]
        found += len(local)
        offset += len(c)
        if found > offset // 4:  # not in runs (queries interleaved): hash every value
            return encode(pa.chunked_array(chunks))
        heads.append(c.take(pa.array(local)))
        parts.append(local + offset - len(c))
    starts = np.concatenate(parts)
    head_codes, dictionary = _head_codes(pa.chunked_array(heads))
    codes = np.repeat(head_codes, np.diff(np.r_[starts, n]))
    return codes, dictionary


def _head_codes(heads: Any) -> tuple[np.ndarray, Any]:
    """:func:`encode` of the values that start runs. Usually each value makes one run
    (a grouped file): when no two heads' :func:`hashes` agree, the heads are
    distinct and their codes are their positions, without a hash table."""
    h = np.sort(_column_hashes(heads))
    if len(h) > 1 and (h[1:] == h[:-1]).any():
        return encode(heads)
    return np.arange(len(heads), dtype=np.int32), heads.combine_chunks()


def hashed_pairs(a: np.ndarray, h: np.ndarray) -> np.ndarray:
    """One uint64 key per ``(a, h)`` pair (integer codes, :func:`hashes`): equal pairs,
    equal keys; unequal pairs rarely collide, so a match is only a candidate."""
    key = a.astype(np.uint64)
    key *= _MIX
    key ^= h
    return key


def pair_keys(a: np.ndarray, b: np.ndarray, nb: int | None) -> np.ndarray:
    """One key per ``(a, b)`` pair: ``a * nb + b`` for codes ``b`` below ``nb``, or
    :func:`hashed_pairs` when ``nb`` is ``None`` (``b`` holds :func:`hashes`)."""
    if nb is None:  # b holds hashes
        return hashed_pairs(a, b)
    key = a.astype(np.int64)
    key *= max(nb, 1)
    key += b
    return key


#: Fibonacci-hashing multiplier (2**64 / golden ratio), odd.
_MIX = np.uint64(0x9E3779B97F4A7C15)
#: Bytes of a string folded word by word by :func:`hashes`; the rest of a longer string
#: is folded in as one digest (word by word, a 10 MB id took 1.25 million numpy steps).
_FOLD = 256
#: ``_LOW[i]`` keeps the low ``i`` bytes of a uint64 (``i`` = 0..8).
_LOW = np.array([(1 << (8 * i)) - 1 for i in range(8)] + [(1 << 64) - 1], dtype=np.uint64)


def arrow_column(values: Any) -> Any:
    """The Arrow column behind a pandas Arrow-backed array or Series (the same object on
    every call, so that :func:`hashes` remembers it); ``values`` when it is Arrow
    already; ``None`` otherwise. (``pyarrow.array`` would unwrap a one-chunk column
    into a new object each time.)"""
    import pyarrow as pa

    if isinstance(values, pa.Array | pa.ChunkedArray):
        return values
    array = getattr(values, "array", values)
    if "pandas" not in type(array).__module__:
        return None
    import pandas as pd

    if not isinstance(array, pd.arrays.ArrowExtensionArray):  # numpy-backed, categorical
        return None
    return array.__arrow_array__()


def arrow_text(values: Any) -> Any:
    """``values`` (a pandas column or Index, a pyarrow array, a list) as an Arrow
    string column: the column behind Arrow-backed values, the same object on every
    call (so that :func:`hashes` and :func:`codes` remember it); else a new string
    array (values that are not strings as their ``str``)."""
    import pyarrow as pa

    column = arrow_column(values)
    if column is not None and _is_text(column.type):
        return column
    items = getattr(values, "array", values)
    try:
        out = pa.array(items)
    except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError):
        out = None
    if out is None or not _is_text(out.type):
        listed = items.tolist() if hasattr(items, "tolist") else list(items)
        out = pa.array([str(v) for v in listed], pa.string())
    return out


def arrow_strings(column: Any) -> Any:
    """A pandas string array (pandas' default ``str`` dtype) over an Arrow string
    column, joined into one chunk of ``large_string`` (taking rows from a column of
    many chunks joins them on every call)."""
    import pandas as pd
    import pyarrow as pa

    if column.type == pa.string() and column.nbytes < 1 << 31:
        # joined first, then widened: the cast shares the joined data and only writes
        # new offsets (widening every chunk first made a second set of offsets)
        joined = column.combine_chunks() if column.num_chunks != 1 else column.chunk(0)
        column = pa.chunked_array([joined.cast(pa.large_string())])
    elif column.num_chunks != 1 or column.type != pa.large_string():
        column = pa.chunked_array([column.cast(pa.large_string()).combine_chunks()])

    try:  # pandas >= 2.3: the dtype pandas gives a column of Python strings
        return pd.arrays.ArrowStringArray(column, dtype=pd.StringDtype("pyarrow", na_value=np.nan))
    except TypeError:  # pragma: no cover - older pandas
        return pd.arrays.ArrowStringArray(column)


def hashes(column: Any) -> np.ndarray:
    """A uint64 per string of a pyarrow string column: equal strings, equal hashes.

    Computed from each string's UTF-8 bytes, eight at a time, with numpy
    gathers and no hash table (several times faster than :func:`encode` on
    millions of values). Strings of at most 8 bytes without NUL bytes get
    distinct values; longer ones may collide, so a match is only a candidate.
    Arrow arrays are immutable: the hashes of a column object are computed
    once while it lives (a run's reader and the metrics engine share them);
    the returned array is read-only.
    """
    return _remembered("hashes", column, lambda: _column_hashes(column))


def _column_hashes(column: Any) -> np.ndarray:
    import pyarrow as pa

    chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
    pieces = [c.slice(i, _PIECE) for c in chunks for i in range(0, len(c), _PIECE)]
    ends = np.cumsum([len(p) for p in pieces], dtype=np.int64)
    out = np.empty(len(column), dtype=np.uint64)  # each piece writes its part: no joined copy

    def hash_pieces(part: slice) -> None:
        for i in range(part.start, part.stop):
            out[ends[i] - len(pieces[i]) : ends[i]] = _chunk_hashes(pieces[i])

    halves(hash_pieces, len(pieces), len(column))
    return out


def _remembered(kind: str, column: Any, compute: Any) -> Any:
    """``compute()`` for an immutable Arrow ``column``, once while the column lives.

    The result (an array, or a tuple whose first item is one) is made read-only.
    """
    key = (kind, id(column))
    found = _REMEMBERED.get(key)
    if found is not None and found[0]() is column:
        return found[1]
    out = compute()
    (out[0] if isinstance(out, tuple) else out).flags.writeable = False
    _REMEMBERED[key] = (weakref.ref(column), out)
    weakref.finalize(column, _REMEMBERED.pop, key, None)
    return out


def forget(column: Any) -> None:
    """Let go of what was remembered of ``column`` (its hashes, codes and first rows): they
    are computed again if asked for. For a column kept for long that no one will ask
    about again (a judgment set scored block by block: 25 MB for 1.5 million judgments)."""
    for kind in _KINDS:
        _REMEMBERED.pop((kind, id(column)), None)


#: What :func:`_remembered` keeps of a column.
_KINDS = ("hashes", "codes", "first_rows")
#: Strings per piece that :func:`hashes` works on (small enough to stay in cache).
_PIECE = 1 << 17
#: (kind, id(column)) -> (weak reference to the column, what was computed from it);
#: see :func:`_remembered`.
_REMEMBERED: dict[tuple[str, int], tuple[Any, Any]] = {}


def string_buffers(arr: Any) -> tuple[np.ndarray, np.ndarray]:
    """``(offsets, data)`` of one Arrow string array, without copies: string ``i`` is
    ``data[offsets[i]:offsets[i + 1]]`` (offsets rebased to the array's first byte)."""
    import pyarrow as pa

    n = len(arr)
    width = np.int64 if pa.types.is_large_string(arr.type) else np.int32
    offsets = np.frombuffer(arr.buffers()[1], dtype=width)[arr.offset : arr.offset + n + 1]
    start, end = int(offsets[0]), int(offsets[-1])
    if end == start:  # only empty strings: Arrow may hold no data buffer
        return offsets - start, np.zeros(0, dtype=np.uint8)
    return offsets - start, np.frombuffer(arr.buffers()[2], dtype=np.uint8)[start:end]


def _chunk_hashes(arr: Any) -> np.ndarray:
    if arr.null_count or not _is_text(arr.type):
        raise TypeError(f"hashes: a string column without nulls is needed, not {arr.type}")
    offsets, data = string_buffers(arr)
    lengths = np.diff(offsets)
    begin = offsets[:-1]
    h = _words(data, begin)
    h &= _LOW[np.minimum(lengths, 8)]
    longest = int(lengths.max())
    for j in range(8, min(longest, _FOLD), 8):  # strings longer than 8 bytes: fold in the rest
        rows = np.flatnonzero(lengths > j)
        word = _words(data, begin[rows] + j)
        word &= _LOW[np.minimum(lengths[rows] - j, 8)]
        h[rows] = h[rows] * _MIX ^ word
    if longest > _FOLD:  # past _FOLD bytes, one digest of the rest (a 10 MB id: one call)
        rows = np.flatnonzero(lengths > _FOLD)
        spans = zip(begin[rows].tolist(), lengths[rows].tolist(), strict=True)
        digest = np.array(
            [digest64(data[b + _FOLD : b + n].tobytes()) for b, n in spans], np.uint64
        )
        h[rows] = h[rows] * _MIX ^ digest
    return h


def _words(data: np.ndarray, at: np.ndarray) -> np.ndarray:
    """The 8 bytes of ``data`` from each offset in ``at`` (little-endian uint64; 0 past the end)."""
    n = len(data)
    if n == 0:
        return np.zeros(len(at), dtype=np.uint64)
    out = np.zeros(len(at), dtype=np.uint64)
    inside = at <= n - 8
    if n >= 8:  # an unaligned uint64 view at every byte offset (no copy)
        view = np.ndarray(shape=(n - 7,), dtype="<u8", buffer=data, strides=(1,))
        if inside.all():
            return view[at]
        out[inside] = view[at[inside]]
    tail_start = max(n - 8, 0)  # the last few strings: read from a zero-padded copy
    tail = np.zeros(16, dtype=np.uint8)
    tail[: n - tail_start] = data[tail_start:]
    tail_view = np.ndarray(shape=(9,), dtype="<u8", buffer=tail, strides=(1,))
    late = ~inside
    out[late] = tail_view[np.minimum(at[late] - tail_start, 8)]
    return out
