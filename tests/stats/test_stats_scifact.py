"""Real data: BEIR SciFact test qrels, a synthetic run and a degraded copy."""

from __future__ import annotations

import json

import numpy as np

import assay


def _corpus_ids(path) -> list[str]:
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line)["_id"] for line in fh if line.strip()]


def _runs(judgments, corpus: list[str]) -> tuple[dict, dict]:
    """Relevant docs at random ranks among 100 other corpus ids (seeded), and a copy
    where, for a random 60% of queries, every relevant doc moves 8 ranks down."""
    rng = np.random.default_rng(42)
    relevant: dict[str, list[str]] = {}
    for qid, doc in zip(judgments.qrels["query_id"], judgments.qrels["doc_id"], strict=True):
        relevant.setdefault(str(qid), []).append(str(doc))
    good, bad = {}, {}
    for qid, docs in relevant.items():
        others = [d for d in rng.choice(corpus, 110, replace=False) if d not in docs][:100]
        ranking = list(others)
        for doc in docs:
            ranking.insert(int(rng.integers(0, 6)), doc)
        good[qid] = ranking
        worse = list(ranking)
        if rng.random() < 0.6:
            for doc in docs:
                pos = worse.index(doc)
                worse.insert(min(pos + 8, len(worse)), worse.pop(pos))
        bad[qid] = worse
    return good, bad


def test_degraded_scifact_run_is_worse_on_ndcg10(shared_data) -> None:
    from assay.judgments.load import load_judgments
    from assay.procedures.evaluation import evaluate
    from assay.stats.compare import compare

    root = shared_data / "beir_scifact"
    judgments = load_judgments(root)
    good, bad = _runs(judgments, _corpus_ids(root / "corpus.jsonl"))
    metrics = ["nDCG@10", "RR"]
    a = evaluate(judgments, good, metrics, evaluation=assay.EvaluationOptions(name="good"))
    b = evaluate(judgments, bad, metrics, evaluation=assay.EvaluationOptions(name="degraded"))
    out = compare([a, b])
    assert out.n_queries == 300
    (ndcg,) = [c for c in out.comparisons if c.metric == "nDCG@10"]
    assert ndcg.verdict == "worse"
    assert ndcg.delta < -0.05 and ndcg.ci_high < 0
    assert ndcg.losses > 100 and ndcg.wins == 0
    self_cmp = compare([a, a])
    assert all(c.verdict == "no detectable difference" for c in self_cmp.comparisons)
    assert all(c.p_value == 1.0 for c in self_cmp.comparisons)
