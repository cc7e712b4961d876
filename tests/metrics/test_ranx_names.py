"""ranx's metric names mean in assay what they mean in ranx, or are refused.

Every name ranx's ``metric_switch`` knows is either parsed by assay and gives
ranx's own per-query values (ranx's ``evaluate`` on ranx ``Qrels``/``Run``, on
hypothesis-generated collections and on a BM25 run of BEIR SciFact), or refused
with a UsageError. Scores are distinct so that both tools see one ranking
(ranx breaks ties in no documented order).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assay.core.errors import UsageError
from assay.judgments.models import JudgmentSet
from assay.metrics.engine import compute
from assay.metrics.measures import parse_measure
from assay.runs.models import Run

ranx = pytest.importorskip("ranx")

#: every ranx name assay accepts, with the assay measure it must equal
ACCEPTED = {
    "hits@3": "Hits@3",
    "hits": "Hits",
    "hit_rate@3": "Success@3",
    "precision@3": "P@3",
    "recall@3": "R@3",
    "f1@3": "F1@3",
    "f1": "F1",
    "r-precision": "Rprec",
    "mrr": "RR",
    "mrr@2": "RR@2",
    "map": "AP",
    "map@3": "AP@3",
    "ndcg": "nDCG",
    "ndcg@3": "nDCG@3",
    "ndcg_burges@3": "nDCG(gain=exp)@3",
    "bpref": "Bpref",
}
#: ranx names assay refuses: no DCG family, ranx's persistence and level spellings;
#: without a cutoff ranx's precision, recall and hit_rate run over the whole ranking
REFUSED = ["dcg@10", "dcg_burges@10", "rbp.95", "ndcg-l2@10", "precision", "recall", "hit_rate"]


def _ranx(qrels: dict, run: dict, names: list[str]) -> dict[str, dict[str, float]]:
    """ranx's per-query values on the queries of the run (ranx wants the same queries in
    both; a judged query absent from the run scores 0 in both tools)."""
    ranx_run = ranx.Run({q: dict(docs) for q, docs in run.items()})
    ranx.evaluate(ranx.Qrels({q: qrels[q] for q in run}), ranx_run, names)
    return {name: {q: float(v) for q, v in ranx_run.scores[name].items()} for name in names}


def _assay(qrels: dict, run: dict, names: list[str]) -> dict[str, dict[str, float]]:
    judgments = JudgmentSet.from_records([{"query_id": q, "text": q} for q in qrels], qrels)
    ranked = Run.from_dict({q: sorted(d.items(), key=lambda i: -i[1]) for q, d in run.items()})
    table = compute(judgments, ranked, names, missing="zero")
    return {
        name: dict(zip(table.query_ids, table.values[parse_measure(name)].tolist(), strict=True))
        for name in names
    }


@st.composite
def collections(draw):
    """Graded qrels, each query with a relevant and a non-relevant judged document (ranx's
    bpref divides by both counts), and runs with distinct scores, some queries absent."""
    corpus = [f"d{i}" for i in range(10)]
    qrels, run = {}, {}
    for q in range(draw(st.integers(1, 4))):
        judged = draw(st.lists(st.sampled_from(corpus), min_size=2, max_size=6, unique=True))
        grades = {d: draw(st.integers(0, 3)) for d in judged}
        grades[judged[0]] = draw(st.integers(1, 3))
        grades[judged[1]] = 0
        qrels[f"q{q}"] = grades
        if draw(st.booleans()) or not run:
            found = draw(st.lists(st.sampled_from(corpus), min_size=1, max_size=10, unique=True))
            scores = draw(st.permutations(range(1, len(found) + 1)))
            run[f"q{q}"] = {d: float(s) for d, s in zip(found, scores, strict=True)}
    return qrels, run


@st.composite
def batches(draw):
    """Several generated collections as one (query ids prefixed): ranx builds its numba
    dictionaries once per call, so one call per batch keeps the test's time down."""
    qrels, run = {}, {}
    for i in range(draw(st.integers(4, 8))):
        one_qrels, one_run = draw(collections())
        qrels.update({f"c{i}{q}": grades for q, grades in one_qrels.items()})
        run.update({f"c{i}{q}": docs for q, docs in one_run.items()})
    return qrels, run


@pytest.mark.slow  # ranx's numba kernels load in about 15 s, once per session
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=batches())
def test_every_accepted_ranx_name_gives_ranx_values(case) -> None:
    qrels, run = case
    theirs = _ranx(qrels, run, list(ACCEPTED))
    ours = _assay(qrels, run, list(ACCEPTED))
    for name in ACCEPTED:
        assert {q: ours[name][q] for q in theirs[name]} == pytest.approx(theirs[name]), name
        assert parse_measure(name).name == ACCEPTED[name]


@pytest.mark.parametrize("name", REFUSED)
def test_other_ranx_names_are_refused(name: str) -> None:
    with pytest.raises(UsageError):
        parse_measure(name)


def test_hits_is_a_count_and_the_level_hint_names_rel() -> None:
    with pytest.raises(UsageError, match="rel=2"):
        parse_measure("ndcg-l2@10")
    m = parse_measure("hits@10")
    assert m.family == "Hits" and m.aggregate == "mean" and not m.bounded


@pytest.mark.slow
def test_scifact_values_equal_ranx(shared_data) -> None:
    """The seam a user hit: ranx's hits@10 counts relevant documents (0.88 on SciFact BM25)
    where assay once gave Success@10 (0.82). On SciFact's real qrels (several relevant
    documents for some queries) and a seeded run over its corpus ids, every accepted
    name equals ranx; bpref apart: SciFact judges no document non-relevant, and ranx's
    bpref is then 0/0 (NaN) where trec_eval's, and assay's, is the share retrieved."""
    import json

    from assay.judgments.load import load_judgments

    root = shared_data / "beir_scifact"
    judgments = load_judgments(root)
    qrels: dict[str, dict[str, int]] = {}
    for q, d, g in zip(judgments.qrels["query_id"], judgments.qrels["doc_id"],
                       judgments.qrels["grade"], strict=True):  # fmt: skip
        qrels.setdefault(str(q), {})[str(d)] = int(g)
    with open(root / "corpus.jsonl", encoding="utf-8") as fh:
        corpus = [json.loads(line)["_id"] for line in fh if line.strip()]
    rng = np.random.default_rng(7)
    run = {}
    for q, docs in qrels.items():
        ranking = [d for d in rng.choice(corpus, 60, replace=False) if d not in docs][:50]
        for doc in docs:
            ranking.insert(int(rng.integers(0, 15)), doc)
        run[q] = {d: float(len(ranking) - i) for i, d in enumerate(ranking)}
    names = [n for n in ACCEPTED if n != "bpref"]
    theirs = _ranx(qrels, run, [*names, "bpref"])
    ours = _assay(qrels, run, [*names, "bpref", "hits@10", "hit_rate@10"])
    for name in names:
        assert {q: ours[name][q] for q in theirs[name]} == pytest.approx(theirs[name]), name
    assert all(np.isnan(v) for v in theirs["bpref"].values())
    hits = float(np.mean(list(ours["hits@10"].values())))
    success = float(np.mean(list(ours["hit_rate@10"].values())))
    assert hits > success  # some queries find several relevant documents in their top ten
