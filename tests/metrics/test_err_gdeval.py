"""ERR@k against gdeval (TREC Web track's script, run by ir_measures), a test-only oracle."""

from __future__ import annotations

import shutil

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assay.judgments.models import JudgmentSet
from assay.metrics.engine import compute
from assay.metrics.measures import Measure
from assay.runs.models import Run

ir_measures = pytest.importorskip("ir_measures")
pytestmark = pytest.mark.skipif(shutil.which("perl") is None, reason="gdeval needs perl")


@st.composite
def cases(draw):
    docs = [f"d{i}" for i in range(10)]
    qrels, run = {}, {}
    for q in range(1, draw(st.integers(1, 4)) + 1):
        judged = draw(st.lists(st.sampled_from(docs), unique=True, min_size=1))
        qrels[str(q)] = {d: draw(st.integers(0, 4)) for d in judged}
        ret = draw(st.lists(st.sampled_from(docs), unique=True, min_size=1))
        run[str(q)] = [(d, float(len(ret) - i)) for i, d in enumerate(ret)]  # no ties
    return qrels, run, draw(st.sampled_from([3, 5, 20]))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=cases())
def test_err_matches_gdeval(case) -> None:
    qrels, run, k = case
    judgments = JudgmentSet.from_records([{"query_id": q, "text": ""} for q in qrels], qrels)
    table = compute(judgments, Run.from_dict(run), [Measure("ERR", k)], missing="skip")
    ours = dict(zip(table.query_ids, table.values[Measure("ERR", k)].tolist(), strict=True))
    theirs = ir_measures.iter_calc(
        [ir_measures.parse_measure(f"ERR@{k}")],
        [ir_measures.Qrel(q, d, g) for q, docs in qrels.items() for d, g in docs.items()],
        [ir_measures.ScoredDoc(q, d, s) for q, docs in run.items() for d, s in docs],
    )
    for metric in theirs:
        assert ours[metric.query_id] == pytest.approx(metric.value, abs=1e-5)
