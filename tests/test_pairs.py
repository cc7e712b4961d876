"""assay.core.pairs (string codes) and assay.core.repeats (repeated (query, doc) pairs), against a
plain-Python count."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assay.core import _threads, pairs
from assay.core.pairs import (
    codes,
    encode,
    encode_grouped,
    first_rows,
    hashes,
)
from assay.core.repeats import may_repeat, repeated_ids, repeated_pairs
from assay.results.models import QueryRow, trusted_rows


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 7)), max_size=60), st.booleans())
def test_repeated_pairs_match_a_dict(pairs, grouped):
    if grouped:
        pairs = sorted(pairs, key=lambda p: p[0])
    a = np.array([p[0] for p in pairs], dtype=np.int32)
    b = np.array([p[1] for p in pairs], dtype=np.int32)
    first: dict[tuple[int, int], int] = {}
    want_rows, want_first = [], []
    for i, p in enumerate(pairs):
        if p in first:
            want_rows.append(i)
            want_first.append(first[p])
        else:
            first[p] = i
    rows, firsts = repeated_pairs(a, b, 8)
    assert rows.tolist() == want_rows
    assert firsts.tolist() == want_first
    assert may_repeat(a, b, 8) == bool(want_rows)
    ids = [f"doc-{v}" * (1 + v % 3) for v in b.tolist()]  # some longer than 8 bytes
    for column in (ids, pd.Series(ids, dtype="str"), pa.array(ids, pa.large_string())):
        got = repeated_ids(a, column)
        assert got[0].tolist() == want_rows and got[1].tolist() == want_first


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(["q1", "q2", "é", "q10", ""]), max_size=40))
def test_codes_first_appearance(values):
    found, n = codes(pd.Series(values, dtype="str"))
    order = list(dict.fromkeys(values))
    assert n == len(order)
    assert found.tolist() == [order.index(v) for v in values]
    chunked = pa.chunked_array(
        [pa.array(values[:3], pa.string()), pa.array(values[3:], pa.string())]
    )
    assert codes(chunked)[0].tolist() == found.tolist()
    grouped, dictionary = encode_grouped(chunked)
    assert [dictionary[int(c)].as_py() for c in grouped] == values
    want = [values.index(v) for v in order]
    assert first_rows(pd.Series(values, dtype="str")).tolist() == want
    assert first_rows(values).tolist() == want


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["q1", "q2", "é", "q10", ""]), st.integers(1, 4))))
def test_codes_of_runs_with_or_without_hash_agreement(runs):
    """Runs of equal values (the heads' hashes decide; when they agree, Arrow's hash
    table does) give the codes of a dict in first-appearance order."""
    values = [v for v, k in runs for _ in range(k)]
    order = list(dict.fromkeys(values))
    expected = [order.index(v) for v in values]
    column = pa.chunked_array([pa.array(values, pa.string())], pa.string())
    assert encode_grouped(column)[0].tolist() == expected
    real = pairs._column_hashes
    try:  # every head's hash the same: the exact encoding must take over
        pairs._column_hashes = lambda c: np.zeros(len(c), dtype=np.uint64)
        found, dictionary = encode_grouped(column)
    finally:
        pairs._column_hashes = real
    assert found.tolist() == expected
    assert dictionary.to_pylist() == order


def test_codes_are_remembered_per_column_and_read_only():
    series = pd.Series(["q1", "q1", "q2"], dtype="str")
    first = codes(series)
    assert codes(series) is first and not first[0].flags.writeable
    assert codes(pd.Series(["q1", "q1", "q2"], dtype="str")) is not first  # another column
    assert codes(["q1", "q1", "q2"])[0].tolist() == first[0].tolist()


def test_codes_of_non_strings_fall_back():
    found, n = codes([3, "a", 3])
    assert n == 2 and found[0] == found[2] != found[1]


def test_trusted_rows_equal_model_construct():
    columns = {
        "query_id": ["q1", "q2"],
        "text": ["a", ""],
        "first_rel_rank": [1, None],
        "in_run": [True, False],
        "lang": ["en", None],
        "nDCG@10": [0.5, 0.0],
    }
    rows = trusted_rows(QueryRow, columns, omit_none=["lang"])
    expected = [
        QueryRow.model_construct(
            query_id="q1", text="a", first_rel_rank=1, in_run=True, lang="en", **{"nDCG@10": 0.5}
        ),
        QueryRow.model_construct(
            query_id="q2", text="", first_rel_rank=None, in_run=False, **{"nDCG@10": 0.0}
        ),
    ]
    assert [r.model_dump() for r in rows] == [r.model_dump() for r in expected]
    assert rows[1].get("lang") is None and "lang" not in rows[1]
    assert rows[0]["nDCG@10"] == 0.5
    assert rows[0].model_dump_json() == expected[0].model_dump_json()


#: ids as runs and qrels spell them, with multi-byte UTF-8, empty, and 8/9/16/17-byte edges
_IDS = st.text(
    alphabet=st.sampled_from(list("ab0129-_é€\x00")), min_size=0, max_size=20
) | st.sampled_from(["", "D533033", "12345678", "123456789", "clueweb09-en0000-00-00000"])


def _arrow_ways(values: list[str]) -> list[pa.Array | pa.ChunkedArray]:
    """The same strings as Arrow holds them: one array, chunks, a slice, large offsets."""
    cut = len(values) // 2
    padded = pa.array(["pad", *values, "pad"], pa.string())
    return [
        pa.array(values, pa.string()),
        pa.chunked_array(
            [pa.array(values[:cut], pa.string()), pa.array(values[cut:], pa.string())]
        ),
        padded.slice(1, len(values)),
        pa.array(values, pa.large_string()),
    ]


@settings(max_examples=200, deadline=None)
@given(st.lists(_IDS, max_size=40))
def test_hashes_equal_exactly_for_equal_strings(values):
    """Equal strings, equal hashes, whatever the Arrow layout; short distinct strings
    without NUL differ (so a run of ordinary ids never goes to the exact check)."""
    ways = [hashes(x) for x in _arrow_ways(values)]
    for other in ways[1:]:
        assert other.tolist() == ways[0].tolist()
    h = ways[0].tolist()
    for i, a in enumerate(values):
        for j, b in enumerate(values):
            if a == b:
                assert h[i] == h[j]
            elif max(len(a.encode()), len(b.encode())) <= 8 and "\x00" not in a + b:
                assert h[i] != h[j], (a, b)


def test_hashes_are_remembered_per_column_and_read_only():
    col = pa.chunked_array([pa.array(["d1", "d2"]), pa.array(["d1"])])
    first = hashes(col)
    assert hashes(col) is first and not first.flags.writeable
    assert first[0] == first[2] != first[1]
    assert hashes(pa.array(["d1", "d2", "d1"])) is not first  # another object: computed anew
    assert hashes(pa.array([], pa.string())).tolist() == []


def test_hashes_refuse_nulls_and_non_strings():
    with pytest.raises(TypeError):
        hashes(pa.array(["a", None]))
    with pytest.raises(TypeError):
        hashes(pa.array([1, 2]))


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 4), _IDS), max_size=60), st.booleans())
def test_may_repeat_on_hashes_never_misses_a_repeat(pairs, grouped):
    """A repeated (query, doc) pair is always seen on hashes; with no repeat the exact
    check on codes agrees with a set."""
    if grouped:
        pairs = sorted(pairs, key=lambda p: p[0])
    a = np.array([p[0] for p in pairs], dtype=np.int32)
    h = hashes(pa.array([p[1] for p in pairs], pa.string()))
    repeated = len(set(pairs)) < len(pairs)
    if repeated:
        assert may_repeat(a, h, None)
    dcodes, n = codes([p[1] for p in pairs])
    assert may_repeat(a, dcodes, n) == repeated


def test_hashes_on_two_threads_equal_one_thread(monkeypatch):
    import assay.core.pairs as pairs_module

    values = [f"doc-{i % 37}-{'x' * (i % 11)}" for i in range(500)]
    chunks = [pa.array(values[i : i + 60], pa.string()) for i in range(0, 500, 60)]
    one = hashes(pa.chunked_array(chunks)).copy()
    monkeypatch.setattr(_threads, "THREADED_AT", 2)
    two = hashes(pa.chunked_array(chunks))
    monkeypatch.setattr(pairs_module, "_PIECE", 7)  # chunks cut into slices
    sliced = hashes(pa.array(values, pa.large_string()))
    assert two.tolist() == one.tolist() == sliced.tolist()
    assert one.tolist() == hashes(pa.array(values, pa.string())).tolist()


@pytest.mark.parametrize("threaded", [False, True])
@pytest.mark.parametrize("where", [None, 0, 3])
def test_interleaved_codes_find_a_repeat_among_even_or_odd_ones(monkeypatch, where, threaded):
    """Interleaved query codes: even and odd codes are sorted apart (two threads when large),
    and a repeat under either is found."""
    if threaded:
        monkeypatch.setattr(_threads, "THREADED_AT", 2)
    a = np.tile(np.arange(6, dtype=np.int32), 4)  # six queries, their rows interleaved
    b = np.arange(24, dtype=np.int64)
    if where is not None:
        b[where + 18] = b[where]  # query `where` lists its first doc again in its last row
    assert may_repeat(a, b, 24) == (where is not None)
    assert may_repeat(a, b.astype(np.uint64) * np.uint64(7), None) == (where is not None)


@pytest.mark.parametrize("where", [None, 0, 5])
def test_may_repeat_on_two_threads_finds_a_repeat_in_either_half(monkeypatch, where):
    monkeypatch.setattr(_threads, "THREADED_AT", 2)
    a = np.repeat(np.arange(6, dtype=np.int32), 4)  # six queries, four results each
    b = np.arange(24, dtype=np.int64)
    if where is not None:
        b[where * 4 + 3] = b[where * 4]  # query `where` lists a doc twice
    assert may_repeat(a, b, 24) == (where is not None)


@pytest.mark.parametrize("n", [0, 1, 2, 7])
def test_halves_cover_the_range_in_order(monkeypatch, n):
    monkeypatch.setattr(_threads, "THREADED_AT", 2)
    parts = _threads.halves(lambda rows: list(range(n))[rows], n)
    assert [x for part in parts for x in part] == list(range(n))
    assert len(parts) == (2 if n >= 2 else 1)


@pytest.mark.parametrize("rows", [10, 10**6])
def test_beside_runs_inline_or_on_a_thread_and_surfaces_errors(rows):
    import threading

    where = _threads.beside(lambda: threading.current_thread().name, rows).result(timeout=10)
    assert (where == "assay-beside") == (rows >= _threads.BESIDE_AT)
    failed = _threads.beside(lambda: 1 // 0, rows)
    with pytest.raises(ZeroDivisionError):
        failed.result(timeout=10)


def test_qrels_fast_path_same_frame_beside_or_inline(monkeypatch):
    """The repeat check beside the grade check gives the same frame, and still
    steps aside on a repeated pair."""
    from assay.judgments.trec import QRELS_COLUMNS
    from assay.judgments.trec_fast import clean_qrels

    data = "".join(f"q{i // 7} 0 d{i} {i % 3 - 1}\n" for i in range(300)).encode()
    inline = clean_qrels(data, QRELS_COLUMNS)
    monkeypatch.setattr(_threads, "BESIDE_AT", 1)
    pd.testing.assert_frame_equal(clean_qrels(data, QRELS_COLUMNS), inline)
    assert clean_qrels(data + b"q0 0 d1 1\n", QRELS_COLUMNS) is None


@pytest.mark.parametrize("where", [None, 0, 2, 3, 5])
@pytest.mark.parametrize("threaded", [False, True])
def test_may_repeat_blocks_of_any_length_in_halves(monkeypatch, where, threaded):
    """Queries of 1 to 6 rows: the halves are cut between blocks, so a repeat in
    any block (the one at the cut included) is found, on one thread or two."""
    if threaded:
        monkeypatch.setattr(_threads, "THREADED_AT", 2)
    sizes = [3, 1, 6, 4, 2, 5]
    a = np.repeat(np.arange(6, dtype=np.int64), sizes)
    b = np.arange(len(a), dtype=np.int64)
    if where is not None and sizes[where] > 1:
        first = sum(sizes[:where])
        b[first + sizes[where] - 1] = b[first]
    expected = where is not None and sizes[where] > 1
    assert may_repeat(a, b, len(a)) == expected
    assert may_repeat(a, b.astype(np.uint64) * np.uint64(7), None) == expected


def test_repeated_ids_confirm_a_hash_match_on_the_ids(monkeypatch):
    """Every hash forced equal: the ids decide, so distinct ids are no repeat."""
    monkeypatch.setattr(pairs, "_column_hashes", lambda c: np.zeros(len(c), dtype=np.uint64))
    a = np.zeros(4, dtype=np.int64)
    rows, firsts = repeated_ids(a, pa.array(["d1", "d2", "d3", "d2"]))
    assert rows.tolist() == [3] and firsts.tolist() == [1]
    assert repeated_ids(a[:3], pa.array(["d1", "d2", "d3"]))[0].tolist() == []


@settings(max_examples=80, deadline=None)
@given(
    values=st.lists(st.sampled_from(["a", "b", "c", "dd", "é", ""]), max_size=40),
    cuts=st.lists(st.integers(0, 40), max_size=5),
    threaded=st.booleans(),
)
def test_encode_gives_first_appearance_codes_in_one_or_two_halves(values, cuts, threaded):
    """Two halves on two threads join their dictionaries: the codes and uniques are
    pandas' factorize of the whole column, however it is cut into chunks."""
    saved = _threads.THREADED_AT
    _threads.THREADED_AT = 1 if threaded else saved
    try:
        _check_encode(values, cuts)
    finally:
        _threads.THREADED_AT = saved


def _check_encode(values: list[str], cuts: list[int]) -> None:
    bounds = sorted({0, len(values), *(c for c in cuts if c <= len(values))})
    chunks = [pa.array(values[a:b], pa.string()) for a, b in itertools.pairwise(bounds)]
    codes, dictionary = encode(pa.chunked_array(chunks, pa.string()))
    want_codes, want_uniques = pd.factorize(pd.Series(values, dtype=object))
    assert codes.dtype == np.int32
    assert codes.tolist() == want_codes.tolist()
    assert dictionary.to_pylist() == list(want_uniques)


def test_long_strings_hash_by_every_byte():
    """Past the bytes folded word by word, the rest still counts: strings that differ
    only there (or only in length) get different hashes; equal ones equal hashes in
    every Arrow layout, next to short strings."""
    base = "a" * 300
    values = ["q1", base + "x", base + "y", base, base + "x", "d" * 1_000_003, "q1"]
    ways = [hashes(x).tolist() for x in _arrow_ways(values)]
    assert all(w == ways[0] for w in ways[1:])
    h = ways[0]
    assert h[1] == h[4] and h[0] == h[6]
    assert len({h[0], h[1], h[2], h[3], h[5]}) == 5


def test_forget_lets_go_of_what_was_remembered():
    from assay.core.pairs import codes, forget

    col = pa.chunked_array([pa.array(["d1", "d2"]), pa.array(["d1"])])
    first, found = hashes(col), codes(col)[0]
    forget(col)
    again = hashes(col)
    assert again is not first and again.tolist() == first.tolist()  # computed anew, equal
    assert codes(col)[0] is not found and codes(col)[0].tolist() == found.tolist()
    forget(pa.array(["never seen"]))  # nothing remembered: nothing to do
