"""A lookup against one universe asked many times (assay.metrics.rows.Positions) gives
what the one-off lookup (positions_in, Arrow's index_in) gives."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

import assay.metrics.rows as rows
from assay.metrics.rows import Positions, positions_in

_IDS = st.one_of(
    st.text(min_size=1, max_size=12),
    st.integers(0, 50).map(lambda i: "x" * 300 + str(i)),  # past the hash's folded bytes
)


@settings(max_examples=150, deadline=None)
@given(st.lists(_IDS, unique=True, max_size=40), st.lists(_IDS, max_size=30))
def test_positions_equal_the_one_off_lookup(universe: list[str], values: list[str]) -> None:
    index = pd.Index(pd.array(universe, dtype="str"))
    found = Positions(index)(values)
    assert found.tolist() == positions_in(values, index).tolist()


def test_colliding_hashes_take_the_exact_lookup(monkeypatch) -> None:
    monkeypatch.setattr(rows, "hashes", lambda column: np.zeros(len(column), dtype=np.uint64))
    index = pd.Index(pd.array(["a", "b", "c"], dtype="str"))
    positions = Positions(index)
    assert positions.collide
    assert positions(["c", "z", "a"]).tolist() == [2, -1, 0]


def test_a_hash_match_is_only_a_candidate(monkeypatch) -> None:
    monkeypatch.setattr(rows, "hashes", lambda column: np.zeros(len(column), dtype=np.uint64))
    positions = Positions(pd.Index(pd.array(["a"], dtype="str")))
    assert not positions.collide
    assert positions(["b", "a"]).tolist() == [-1, 0]  # same hash, other string: absent
