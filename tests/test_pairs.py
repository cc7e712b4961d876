"""assay.pairs: string codes and repeated (query, doc) pairs, against a plain-Python count."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from assay.pairs import codes, encode_grouped, may_repeat, repeated_pairs
from assay.results import QueryRow, trusted_rows


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
