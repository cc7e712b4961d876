"""One tie order: trec_eval's (score descending, then doc id descending by code point).

:func:`assay.runs.order.trec_order` is checked against a plain Python sort,
through :meth:`Run.ranked`, and against the metrics engine's own ordering.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from assay.runs.models import Run
from assay.runs.order import trec_order

_rows = st.lists(
    st.tuples(
        st.sampled_from(["q1", "q2", "q3"]),
        st.sampled_from(["a", "b", "B", "é", "z9", "Z", "aa", "d10", "d2"]),
        st.sampled_from([0.0, 1.0, 1.0, 2.5, -3.0]),
    ),
    max_size=40,
    unique_by=lambda r: (r[0], r[1]),
)


def _reference(rows: list[tuple[str, str, float]]) -> list[tuple[str, str, float]]:
    first = {q: i for i, (q, _, _) in reversed(list(enumerate(rows)))}
    by_doc = sorted(rows, key=lambda r: r[1], reverse=True)  # code-point order
    return sorted(by_doc, key=lambda r: (first[r[0]], -r[2]))  # stable


@settings(max_examples=200, deadline=None)
@given(_rows)
def test_run_ranked_is_trec_order(rows: list[tuple[str, str, float]]) -> None:
    run = Run.from_dict(
        {q: [(d, s) for qq, d, s in rows if qq == q] for q in dict.fromkeys(r[0] for r in rows)}
    )
    shuffled = Run(run.frame.sample(frac=1, random_state=1), has_scores=True)
    for r in (run, shuffled):
        got = list(r.ranked().itertuples(index=False, name=None))
        assert got == _reference(list(r.frame.itertuples(index=False, name=None)))


def test_the_metrics_engine_uses_this_rule() -> None:
    """One tie order: the engine's rows (``assay.metrics.rows``) are ranked with
    :func:`assay.runs.order.ranked`, the function behind
    :func:`~assay.runs.order.trec_order` too, or counted with
    :func:`assay.runs.order.counted_ranks` from the same module."""
    from assay.metrics import engine, rows
    from assay.runs import order

    assert rows.ranked is order.ranked
    assert rows.counted_ranks is order.counted_ranks
    for module in (engine, rows):
        assert not hasattr(module, "_rank_order") and not hasattr(module, "rank_order")


def test_already_in_order_gives_none() -> None:
    q = np.array([0, 0, 1, 1])
    s = np.array([2.0, 1.0, 1.0, 1.0])
    d = np.array([0, 1, 3, 2])
    ids = np.array(["a", "b", "c", "d"], dtype=object)
    assert trec_order(q, s, d, ids) is None
    assert trec_order(q, s, np.array([0, 1, 2, 3]), ids).tolist() == [0, 1, 3, 2]
