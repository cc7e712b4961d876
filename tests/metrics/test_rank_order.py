"""The rank order does not depend on the order of the run's lines.

``_score_order`` groups by query and sorts scores descending (a padded matrix
sort, or pyarrow for very ragged runs); ties are then ordered by doc id
descending. Every measure must be the same whatever order the lines come in.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assay.judgments.models import JudgmentSet
from assay.metrics.engine import compute
from assay.runs import order as engine
from assay.runs.models import Run
from assay.runs.order import _score_order
from assay.runs.order import run_starts as _runs

MEASURES = ["AP", "nDCG@3", "RR", "P@2", "Bpref", "infAP", "RBP", "NumRelRet"]


@st.composite
def runs(draw):
    nq = draw(st.integers(1, 6))
    lengths = [draw(st.integers(1, 30 if q == 0 else 5)) for q in range(nq)]  # ragged
    rows = []
    for q, n in enumerate(lengths):
        for i in range(n):
            rows.append((f"q{q}", f"d{i}", float(draw(st.integers(0, 5)))))
    perm = draw(st.permutations(range(len(rows))))
    return [rows[i] for i in perm]


def _frame(rows) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=runs(), slack=st.sampled_from([0, 4096]))
def test_score_order_groups_and_sorts(rows, slack: int) -> None:
    """Both paths: the padded matrix (slack 4096) and pyarrow for ragged runs (slack 0)."""
    saved, engine.PAD_SLACK = engine.PAD_SLACK, slack
    try:
        _check_order(rows)
    finally:
        engine.PAD_SLACK = saved


def _check_order(rows) -> None:
    frame = _frame(rows)
    codes = pd.factorize(frame["query_id"])[0].astype(np.int64)
    s = frame["score"].to_numpy()
    for g in (codes, codes.max() - codes):  # codes rising, and falling, block by block
        starts, heads = _runs(g)
        grouped = len(np.unique(heads)) == len(heads)
        order = _score_order(g, s, starts, grouped)
        assert sorted(order.tolist()) == list(range(len(g)))
        go, so = g[order], s[order]
        _, new_heads = _runs(go)
        assert len(np.unique(new_heads)) == len(new_heads)  # one run of rows per query
        if grouped:  # rows only move within their block (the engine relies on it)
            assert go.tolist() == g.tolist()
        same = go[1:] == go[:-1]
        assert (so[1:][same] <= so[:-1][same]).all()


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=runs(), seed=st.integers(0, 1000))
def test_measures_do_not_depend_on_line_order(rows, seed) -> None:
    qids = sorted({q for q, _, _ in rows})
    rng = np.random.default_rng(seed)
    qrels = {q: {f"d{i}": int(rng.integers(-1, 3)) for i in range(0, 12, 2)} for q in qids}
    judgments = JudgmentSet.from_records([{"query_id": q, "text": ""} for q in qids], qrels)
    ordered = sorted(rows, key=lambda r: (r[0], -r[2], [-ord(c) for c in r[1]]))
    a = compute(judgments, Run(_frame(rows)), MEASURES)
    b = compute(judgments, Run(_frame(ordered)), MEASURES)
    for m in a.values:
        assert np.array_equal(a.values[m], b.values[m]), m.name
    assert a.tied_pairs_at_cutoff == b.tied_pairs_at_cutoff


@settings(max_examples=60, deadline=None)
@given(
    codes=st.lists(st.integers(0, 9), max_size=80),
    shift=st.sampled_from([0, 1 << 16, (1 << 20) + 7]),
)
def test_group_order_is_a_stable_argsort(codes, shift) -> None:
    """One or two 16-bit radix passes give numpy's stable argsort, below and above 65,536."""
    g = np.array(codes, dtype=np.int64) * (shift + 1)
    assert engine.group_order(g).tolist() == np.argsort(g, kind="stable").tolist()
    _, heads = _runs(g)
    assert engine.is_grouped(heads) == (len(np.unique(heads)) == len(heads))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=runs())
def test_given_order_survives_interleaving(rows) -> None:
    """ties='given' on interleaved queries keeps each query's lines in file order."""
    qids = sorted({q for q, _, _ in rows})
    qrels = {q: {f"d{i}": 1 for i in range(0, 12, 3)} for q in qids}
    judgments = JudgmentSet.from_records([{"query_id": q, "text": ""} for q in qids], qrels)
    grouped = sorted(rows, key=lambda r: r[0])  # stable: each query's lines in file order
    a = compute(judgments, Run(_frame(rows)), MEASURES, ties="given")
    b = compute(judgments, Run(_frame(grouped)), MEASURES, ties="given")
    for m in a.values:
        assert np.array_equal(a.values[m], b.values[m]), m.name


def _grouped(rows) -> tuple[np.ndarray, np.ndarray, np.ndarray, Any]:
    """(query codes, scores, doc codes, doc ids) of ``rows`` grouped by query, file order kept."""
    frame = _frame(sorted(rows, key=lambda r: r[0]))
    g = pd.factorize(frame["query_id"])[0].astype(np.int64)
    return g, frame["score"].to_numpy(), np.arange(len(frame)), pa.array(frame["doc_id"])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=runs(), slack=st.sampled_from([0, 4096]), seed=st.integers(0, 1000))
def test_counted_ranks_are_the_places_of_the_sorted_order(rows, slack: int, seed: int) -> None:
    """A rank counted (higher scores, then equal scores with a higher doc id) is the row's
    place in trec_eval's order, ties included; ragged runs (no slack) get no matrix."""
    g, s, d, docs = _grouped(rows)
    starts, _ = _runs(g)
    order = engine.trec_order(g, s, d, docs)
    place = np.empty(len(g), dtype=np.int64)
    place[np.arange(len(g)) if order is None else order] = np.arange(len(g))
    block = np.searchsorted(starts, np.arange(len(g)), side="right") - 1
    expected = place - starts[block] + 1
    saved, engine.PAD_SLACK = engine.PAD_SLACK, slack
    try:
        matrix = engine.score_matrix(s, starts)
    finally:
        engine.PAD_SLACK = saved
    lens = np.diff(np.r_[starts, len(g)])
    if matrix is None:
        assert len(starts) * lens.max() > 2 * len(g) + slack
        return
    picked = np.flatnonzero(np.random.default_rng(seed).random(len(g)) < 0.5)
    got = engine.counted_ranks(matrix, starts, block[picked], picked, d, docs)
    if got is None:  # too tied to count: more doc comparisons than cells
        same = (s[picked, None] == matrix[block[picked]]).sum(axis=1)
        assert int(same[same > 1].sum() - np.count_nonzero(same > 1)) > matrix.size
        return
    assert got.tolist() == expected[picked].tolist()


def test_an_unsorted_grouped_run_is_ranked_without_a_sort(monkeypatch) -> None:
    """The counted path scores a run grouped by query but not by score with no sort at all,
    and gives what the sorted lines give."""
    import assay.metrics.rows as rows_module

    rng = np.random.default_rng(3)
    lines = [(f"q{q}", f"d{i}", float(v)) for q in range(40) for i, v in enumerate(rng.random(25))]
    qids = sorted({q for q, _, _ in lines})
    qrels = {q: {f"d{i}": int(rng.integers(0, 3)) for i in range(0, 25, 3)} for q in qids}
    judgments = JudgmentSet.from_records([{"query_id": q, "text": ""} for q in qids], qrels)
    ordered = sorted(lines, key=lambda r: (r[0], -r[2]))
    expected = compute(judgments, Run(_frame(ordered)), [*MEASURES, "nDCG@10"])

    def no_sort(*args, **kwargs):
        raise AssertionError("the unsorted run was sorted")

    monkeypatch.setattr(rows_module, "ranked", no_sort)
    got = compute(judgments, Run(_frame(lines)), [*MEASURES, "nDCG@10"])
    for m in expected.values:
        assert np.array_equal(got.values[m], expected.values[m]), m.name


def test_a_run_tied_throughout_falls_back_to_the_sort() -> None:
    """Every score equal: counting would compare doc ids pair by pair, so the rows are
    sorted instead, with the same values as the ordered lines."""
    lines = [(f"q{q}", f"d{i:02d}", 1.0) for q in range(3) for i in range(30)]
    qrels = {f"q{q}": {f"d{i:02d}": 1 for i in range(0, 30, 2)} for q in range(3)}
    judgments = JudgmentSet.from_records([{"query_id": q, "text": ""} for q in qrels], qrels)
    g, s, d, docs = _grouped(lines)
    starts, _ = _runs(g)
    matrix = engine.score_matrix(s, starts)
    block = np.searchsorted(starts, np.arange(len(g)), side="right") - 1
    assert engine.counted_ranks(matrix, starts, block, np.arange(len(g)), d, docs) is None
    shuffled = [lines[i] for i in np.random.default_rng(0).permutation(len(lines))]
    ordered = sorted(lines, key=lambda r: (r[0], [-ord(c) for c in r[1]]))
    a = compute(judgments, Run(_frame(shuffled)), MEASURES)
    b = compute(judgments, Run(_frame(ordered)), MEASURES)
    for m in a.values:
        assert np.array_equal(a.values[m], b.values[m]), m.name


def test_counting_every_row_of_long_lists_is_left_to_the_sort() -> None:
    """When most rows need a rank (a fully judged pool), counting would compare each with
    its whole list: past the budget the caller sorts instead."""
    rng = np.random.default_rng(5)
    s = rng.random(40 * 500)
    starts = np.arange(0, len(s), 500)
    matrix = engine.score_matrix(s, starts)
    rows = np.arange(len(s))
    block = rows // 500
    docs = pa.array([f"d{i}" for i in range(len(s))])
    assert engine.counted_ranks(matrix, starts, block, rows, rows, docs) is None
    few = rows[::50]  # a few judged rows per list: counted
    got = engine.counted_ranks(matrix, starts, block[few], few, rows, docs)
    within = np.argsort(np.argsort(-matrix, axis=1), axis=1) + 1
    assert got.tolist() == within.reshape(-1)[few].tolist()


def test_a_fully_judged_pool_is_sorted_and_probed_once(monkeypatch) -> None:
    """Every row judged on long lists: the counted path steps aside before looking for
    the judged rows, so they are looked for once, by the sorted path."""
    import assay.metrics.rows as rows_module

    rng = np.random.default_rng(9)
    lines = [(f"q{q}", f"d{i}", float(v)) for q in range(4) for i, v in enumerate(rng.random(400))]
    qrels = {f"q{q}": {f"d{i}": int(rng.integers(0, 3)) for i in range(400)} for q in range(4)}
    judgments = JudgmentSet.from_records([{"query_id": q, "text": ""} for q in qrels], qrels)
    expected = compute(judgments, Run(_frame(sorted(lines, key=lambda r: (r[0], -r[2])))), MEASURES)
    calls = []
    real = rows_module._maybe_judged
    monkeypatch.setattr(rows_module, "_maybe_judged", lambda *a: calls.append(1) or real(*a))
    got = compute(judgments, Run(_frame(lines)), MEASURES)
    assert len(calls) == 1
    for m in expected.values:
        assert np.array_equal(got.values[m], expected.values[m]), m.name
