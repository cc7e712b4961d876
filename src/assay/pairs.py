"""Repeated (query, doc) pairs, found once for runs and judgments alike, vectorised.

A run lists each document once per query; a judgment file grades each
document once per query. Both rules come down to the same question over two
columns of integer codes: which rows repeat the pair of an earlier row, and
which row was that. :func:`repeated_pairs` answers it in O(n log n) numpy
without a Python loop; :func:`may_repeat` is the cheap O(n) test for the usual
case (no repeat) that lets callers skip the sort.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def may_repeat(a: np.ndarray, b: np.ndarray, nb: int) -> bool:
    """False when no ``(a, b)`` pair repeats; ``nb`` bounds the ``b`` codes.

    When each ``a`` value is one block of rows and all blocks have the same
    length (k results per query), sorting the ``b`` codes of each block is
    enough; otherwise all combined keys are sorted.
    """
    n = len(a)
    if n < 2:
        return False
    starts = np.r_[0, np.flatnonzero(a[1:] != a[:-1]) + 1]
    size = n // len(starts)
    grouped = len(np.unique(a[starts])) == len(starts)
    if grouped and size * len(starts) == n and (np.diff(starts) == size).all():
        block = np.sort(b.reshape(len(starts), size), axis=1)
        return bool((block[:, 1:] == block[:, :-1]).any())
    key = _keys(a, b, nb)
    key.sort()
    return bool((key[1:] == key[:-1]).any())


def repeated_pairs(a: np.ndarray, b: np.ndarray, nb: int) -> tuple[np.ndarray, np.ndarray]:
    """``(rows, firsts)``: each row whose ``(a, b)`` pair an earlier row has, and that row.

    Both arrays are 0-based row numbers, ``rows`` ascending; empty when no
    pair repeats.
    """
    empty = np.zeros(0, dtype=np.int64)
    if not may_repeat(a, b, nb):
        return empty, empty
    key = _keys(a, b, nb)
    order = np.argsort(key, kind="stable")
    skey = key[order]
    same = skey[1:] == skey[:-1]
    dup = np.flatnonzero(same) + 1
    starts = np.flatnonzero(np.r_[True, ~same])  # first row of each run of equal keys
    group_of = np.searchsorted(starts, dup, side="right") - 1
    rows, firsts = order[dup], order[starts[group_of]]
    by_row = np.argsort(rows, kind="stable")
    return rows[by_row].astype(np.int64), firsts[by_row].astype(np.int64)


def codes(column: Any) -> tuple[np.ndarray, int]:
    """int64 codes of a string column (pandas or pyarrow) and the number of distinct values."""
    import pyarrow as pa

    values = getattr(column, "array", column)
    try:
        encoded = pa.array(values).dictionary_encode()  # chunked: one shared dictionary
    except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError):
        import pandas as pd

        found, uniques = pd.factorize(pd.Series(values, dtype=object))
        return found.astype(np.int64), len(uniques)
    if isinstance(encoded, pa.ChunkedArray):
        if encoded.num_chunks == 0:
            return np.zeros(0, dtype=np.int64), 0
        parts = [c.indices.to_numpy(zero_copy_only=False) for c in encoded.chunks]
        return np.concatenate(parts).astype(np.int64), len(encoded.chunk(0).dictionary)
    return encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64), len(encoded.dictionary)


def _keys(a: np.ndarray, b: np.ndarray, nb: int) -> np.ndarray:
    key = a.astype(np.int64)
    key *= max(nb, 1)
    key += b
    return key
