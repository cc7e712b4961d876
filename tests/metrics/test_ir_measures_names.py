"""ir_measures' names mean in assay what they mean in ir_measures.

assay's canonical names follow ir_measures, and its aliases accept ir_measures'
other spellings (``MAP``, ``MRR``, ``NDCG``, ``RPrec``, ``BPref``,
``Precision``, ``Recall``, ``NumRet(rel=1)``, ``SetP(relative=True)``). Each
is computed by ir_measures itself (its pytrec_eval and judged providers) and by
assay on hypothesis-generated collections, per query. ERR is checked against
gdeval in test_err_gdeval.py; ir_measures' RBP defaults to p=0.8 where assay
follows trec_eval's 0.9 (said in the registry), and no provider of it is
installed here to compare values.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from assay.judgments.models import JudgmentSet
from assay.metrics.engine import compute
from assay.metrics.measures import parse_measure
from assay.runs.models import Run

ir_measures = pytest.importorskip("ir_measures")

NAMES = [
    *("P@3", "Precision@3", "R@3", "Recall@3", "RR", "RR@2", "MRR", "MRR@2", "nDCG"),
    *("nDCG@3", "NDCG@3", "AP", "AP@3", "MAP", "Rprec", "RPrec", "Bpref", "BPref"),
    *("infAP", "IPrec@0.5", "Success@3", "SetP", "SetR", "SetF", "SetF(beta=0.5)"),
    *("SetAP", "SetRelP", "Judged@3", "NumQ", "NumRet", "NumRel", "NumRelRet"),
    *("NumRet(rel=1)", "P(rel=2)@3", "nDCG(gains={0:0,1:1,2:5,3:9})@3"),
    "AP(judged_only=True)",
]


@st.composite
def collections(draw):
    """Graded qrels (negative grades too) and runs, some queries absent. Scores are
    distinct: ir_measures' providers break ties in different orders (RR@k's is not
    trec_eval's), and the tie rule is checked against trec_eval elsewhere."""
    corpus = [f"d{i}" for i in range(10)]
    qrels, run = {}, {}
    for q in range(draw(st.integers(1, 4))):
        judged = draw(st.lists(st.sampled_from(corpus), min_size=1, max_size=6, unique=True))
        qrels[f"q{q}"] = {d: draw(st.integers(-1, 3)) for d in judged}
        if draw(st.booleans()) or not run:
            found = draw(st.lists(st.sampled_from(corpus), min_size=1, max_size=10, unique=True))
            scores = draw(st.permutations(range(len(found))))
            run[f"q{q}"] = {d: float(s) for d, s in zip(found, scores, strict=True)}
    return qrels, run


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(case=collections())
@example(case=({"q0": {"d0": 0}}, {"q0": {"d1": 0.0}}))  # judged_only beside NumRet
def test_every_ir_measures_spelling_gives_ir_measures_values(case) -> None:
    qrels, run = case
    negative = any(g < 0 for docs in qrels.values() for g in docs.values())
    # pytrec_eval's plain ndcg (no cutoff) never returns on a negative grade: that
    # name is compared on collections without one (its cut-off forms on every one)
    names = [n for n in NAMES if not (negative and n == "nDCG")]
    measures = [ir_measures.parse_measure(n) for n in names]
    qrel_rows = [ir_measures.Qrel(q, d, g) for q, docs in qrels.items() for d, g in docs.items()]
    run_rows = [ir_measures.ScoredDoc(q, d, s) for q, docs in run.items() for d, s in docs.items()]
    theirs: dict[tuple[str, str], float] = {}
    # ir_measures (0.4.3) gives nDCG with custom gains a wrong 0.0 when plain nDCG at the
    # same cutoff is computed in the same call (q0: d0 judged 1, retrieved first: 1.0
    # alone, 0.0 beside nDCG@3); each gains measure is asked for on its own
    # likewise judged_only=True: pytrec_eval's judged-docs-only flag is set for the whole
    # call, so NumRet beside AP(judged_only=True) drops unjudged documents (q0: d0 judged 0,
    # d1 retrieved: NumRet 1.0 alone, 0.0 beside it); such measures are asked on their own
    plain = [m for m in measures if "gains" not in str(m) and "judged_only" not in str(m)]
    calls = [plain, *([m] for m in measures if m not in plain)]
    for call in calls:
        for row in ir_measures.iter_calc(call, qrel_rows, run_rows):
            theirs[(str(row.measure), row.query_id)] = float(row.value)
    judgments = JudgmentSet.from_records([{"query_id": q, "text": q} for q in qrels], qrels)
    table = compute(judgments, Run.from_dict(run), names, missing="skip")
    for name, measure in zip(names, measures, strict=True):
        if name == "Judged@3" and negative:
            continue  # ir_measures counts a negative grade as judged; assay, as trec_eval, not
        ours = dict(zip(table.query_ids, table.values[parse_measure(name)].tolist(), strict=True))
        # a judged query absent from the run: ir_measures emits some measures (NumQ 0),
        # a matter of the missing-query policy, not of the name
        expected = {q: v for (m, q), v in theirs.items() if m == str(measure) and q in run}
        assert {q: ours[q] for q in expected} == pytest.approx(expected), name
