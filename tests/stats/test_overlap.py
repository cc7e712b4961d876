"""Run overlap in compare: RBO_ext (Webber et al. 2010, eq. 32) and Jaccard@k."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_corrections import QRELS, _run


def _rbo_paper(a: list[str], b: list[str], p: float) -> float:
    """Webber et al. (2010) equation 32, transcribed with sets (1 and 0 for empty lists)."""
    short, long = (a, b) if len(a) <= len(b) else (b, a)
    s, n = len(short), len(long)
    if n == 0:
        return 1.0
    if s == 0:
        return 0.0

    def x(d: int) -> int:
        return len(set(short[: min(d, s)]) & set(long[:d]))

    first = sum(x(d) / d * p**d for d in range(1, n + 1))
    second = sum(x(s) * (d - s) / (s * d) * p**d for d in range(s + 1, n + 1))
    return (1 - p) / p * (first + second) + ((x(n) - x(s)) / n + x(s) / s) * p**n


_LISTS = st.dictionaries(
    st.sampled_from(["q1", "q2", "q3", "q4"]),
    st.lists(st.sampled_from([f"d{i}" for i in range(25)]), max_size=20, unique=True),
)


@settings(max_examples=150, deadline=None)
@given(_LISTS, _LISTS, st.sampled_from([0.5, 0.8, 0.9, 0.98]), st.integers(1, 12))
def test_overlap_equals_the_papers_formula_and_jaccard(a, b, p: float, k: int) -> None:
    from assay.runs.models import Run
    from assay.stats.overlap import overlap

    queries = ["q1", "q2", "q3", "q4"]
    run_a = Run.from_dict({q: v for q, v in a.items() if v} or {"other": ["x"]})
    run_b = Run.from_dict({q: v for q, v in b.items() if v} or {"other": ["y"]})
    rbo, jaccard = overlap(run_a, run_b, queries, k=k, p=p, ties="given")
    for i, q in enumerate(queries):
        la, lb = a.get(q, []), b.get(q, [])
        assert rbo[i] == pytest.approx(_rbo_paper(la, lb, p), rel=1e-12, abs=1e-15)
        top = set(la[:k]) | set(lb[:k])
        expected = len(set(la[:k]) & set(lb[:k])) / len(top) if top else 1.0
        assert jaccard[i] == pytest.approx(expected, rel=1e-12)


def test_cli_compare_reports_overlap_of_run_files(tmp_path, capsys) -> None:
    from assay.cli.app import main

    qrels = tmp_path / "qrels.txt"
    qrels.write_text(QRELS)
    _run(tmp_path / "a.trec", "a", 0)
    _run(tmp_path / "b.trec", "b", 3)
    args = ["compare", str(qrels), str(tmp_path / "a.trec"), str(tmp_path / "b.trec")]
    with pytest.raises(SystemExit):
        main([*args, "-f", "json", "--no-record", "--overlap-k", "2", "--rbo-p", "0.8"])
    (o,) = json.loads(capsys.readouterr().out)["overlap"]
    assert (o["candidate"], o["baseline"], o["k"], o["p"]) == ("b", "a", 2, 0.8)
    assert o["rbo"] == pytest.approx(np.mean(o["rbo_per_query"]))
    assert 0 < o["jaccard"] < 1 and len(o["query_ids"]) == 12
    with pytest.raises(SystemExit):
        main([*args, "-f", "plain", "--no-record"])
    assert "Overlap with a" in capsys.readouterr().out
