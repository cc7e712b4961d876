"""Repeated (query, doc) pairs: one rule for runs and judgments.

A run lists each document once per query; a judgment file grades each
document once per query. Both rules come down to the same question over two
columns of integer codes: which rows repeat the pair of an earlier row, and
which row was that. :func:`repeated_pairs` answers it in O(n log n) numpy
without a Python loop; :func:`may_repeat` is the cheap O(n) test for the usual
case (no repeat) that lets callers skip the sort. :func:`repeated_ids` asks it
of string ids, through their :func:`assay.core.pairs.hashes` first.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from assay.core._threads import PIECE, halves, pieces
from assay.core.pairs import arrow_text, codes, grouped_blocks, hashes, pair_keys


def may_repeat(a: np.ndarray, b: np.ndarray, nb: int | None) -> bool:
    """False when no ``(a, b)`` pair repeats; ``nb`` bounds the ``b`` codes.

    ``nb=None`` says ``b`` holds :func:`hashes`: then True only means that a
    pair may repeat (two hashes agree), and the caller confirms it on codes.
    When each ``a`` value is one block of rows and all blocks have the same
    length (k results per query), sorting the ``b`` values of each block is
    enough; blocks of other lengths are sorted as two halves of whole blocks
    (on two threads when large); for interleaved ``a`` values the keys of even
    and of odd codes are sorted apart (:func:`_split_repeat`).
    """
    n = len(a)
    if n < 2:
        return False
    blocks = grouped_blocks(a)
    if blocks is None:  # interleaved: even and odd codes sorted apart
        return _split_repeat(a, b, nb)
    starts = blocks[0]
    size = n // len(starts)
    if size * len(starts) == n and (np.diff(starts) == size).all():
        return _blocks_repeat(b.reshape(len(starts), size))
    # blocks of any length: two halves of whole blocks, sorted apart

    ends = np.r_[starts, n]
    return any(
        halves(
            lambda part: _sorted_repeat(a, b, nb, ends[part.start], ends[part.stop]),
            len(starts),
            n,
        )
    )


def _split_repeat(a: np.ndarray, b: np.ndarray, nb: int | None) -> bool:
    """True when two rows have the same ``(a, b)`` key, ``a`` interleaved: the keys of even
    and of odd ``a`` values (never equal to each other) are sorted apart, on two threads."""

    key = pair_keys(a, b, nb)
    odd = (a & 1).astype(bool)
    parts = [key[~odd], key[odd]]
    del key

    def repeats(which: slice) -> bool:
        for part in parts[which]:  # both parts, or one per thread
            part.sort()
            if (part[1:] == part[:-1]).any():
                return True
        return False

    return any(halves(repeats, 2, len(a)))


def _sorted_repeat(a: np.ndarray, b: np.ndarray, nb: int | None, lo: int, hi: int) -> bool:
    """True when two of rows ``lo:hi`` have the same ``(a, b)`` key (one sort)."""
    key = pair_keys(a[lo:hi], b[lo:hi], nb)
    key.sort()
    return bool((key[1:] == key[:-1]).any())


def _blocks_repeat(blocks: np.ndarray) -> bool:
    """True when a row of ``blocks`` holds a value twice (rows sorted; a large
    matrix piece by piece, on two threads)."""

    def repeats(rows: slice) -> bool:
        part = np.sort(blocks[rows], axis=1)
        return bool((part[:, 1:] == part[:, :-1]).any())

    width = max(blocks.shape[1], 1)
    return any(pieces(repeats, len(blocks), PIECE // width, blocks.size))


def repeated_pairs(a: np.ndarray, b: np.ndarray, nb: int) -> tuple[np.ndarray, np.ndarray]:
    """``(rows, firsts)``: each row whose ``(a, b)`` pair an earlier row has, and that row.

    Both arrays are 0-based row numbers, ``rows`` ascending; empty when no
    pair repeats.
    """
    empty = np.zeros(0, dtype=np.int64)
    if not may_repeat(a, b, nb):
        return empty, empty
    key = pair_keys(a, b, nb)
    order = np.argsort(key, kind="stable")
    skey = key[order]
    same = skey[1:] == skey[:-1]
    dup = np.flatnonzero(same) + 1
    starts = np.flatnonzero(np.r_[True, ~same])  # first row of each run of equal keys
    group_of = np.searchsorted(starts, dup, side="right") - 1
    rows, firsts = order[dup], order[starts[group_of]]
    by_row = np.argsort(rows, kind="stable")
    return rows[by_row].astype(np.int64), firsts[by_row].astype(np.int64)


def repeated_ids(a: np.ndarray, ids: Any) -> tuple[np.ndarray, np.ndarray]:
    """:func:`repeated_pairs` of integer codes ``a`` and the strings ``ids``: the rule
    for "a doc listed twice for one query", in runs and in judgments alike.

    The ids' :func:`hashes` rule a repeat out in one pass (the usual case); only
    when two agree are the ids encoded, so that the answer is exact.
    """
    column = arrow_text(ids)
    if not may_repeat(a, hashes(column), None):
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty
    found, count = codes(column)
    return repeated_pairs(a, found, count)
