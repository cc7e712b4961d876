"""A run file read beside the judgments: same result, and the judgments' errors still come first."""

from __future__ import annotations

from pathlib import Path

import pytest

import assay
from assay.core.errors import InputError
from assay.procedures.evaluation import evaluate
from assay.procedures.sources import PendingRun, load_source, prefetch_run

QRELS = "q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 2\n"
RUN = "q1 Q0 d2 1 3.0 t\nq1 Q0 d1 2 2.0 t\nq2 Q0 d3 1 1.0 t\n"


def _files(tmp_path: Path, qrels: str = QRELS, run: str = RUN) -> tuple[Path, Path]:
    q, r = tmp_path / "qrels.txt", tmp_path / "run.trec"
    q.write_text(qrels)
    r.write_text(run)
    return q, r


def test_prefetched_run_scores_as_the_path(tmp_path):
    q, r = _files(tmp_path)
    direct = evaluate(
        q, r, ["AP", "nDCG@10"], options=assay.ScoringOptions(judgments_format="trec")
    )
    from assay.judgments.load import load_judgments

    js = load_judgments(q, format="trec")
    pending = prefetch_run(r)
    assert isinstance(pending, PendingRun)
    via = evaluate(js, pending, ["AP", "nDCG@10"])
    assert via.aggregate == direct.aggregate
    assert [row.model_dump() for row in via.per_query] == [
        row.model_dump() for row in direct.per_query
    ]


def test_not_prefetched(tmp_path):
    assert prefetch_run({"q1": ["d1"]}) is None
    assert prefetch_run(tmp_path / "absent.trec") is None


def test_judgment_errors_come_first(tmp_path):
    q, r = _files(tmp_path, qrels="q1 0 d1 x\n", run="q1 Q0 d1 1 notanumber t\n")
    with pytest.raises(InputError) as err:
        evaluate(q, r, ["AP"], options=assay.ScoringOptions(judgments_format="trec"))
    assert "qrels.txt" in str(err.value) and "run.trec" not in str(err.value)


def test_run_errors_surface_from_the_thread(tmp_path):
    q, r = _files(tmp_path, run="q1 Q0 d1 1 notanumber t\n")
    with pytest.raises(InputError) as err:
        evaluate(q, r, ["AP"], options=assay.ScoringOptions(judgments_format="trec"))
    assert "run.trec:1" in str(err.value) and "score" in str(err.value)
    from assay.judgments.load import load_judgments

    with pytest.raises(InputError):
        load_source(prefetch_run(r), load_judgments(q, format="trec"))
