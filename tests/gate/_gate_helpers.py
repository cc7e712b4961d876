"""Constructed runs and results for the gate tests (no retrieval system needed)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from assay.results.models import EvaluationResult, JudgmentsInfo, RunInfo


def result_from_values(
    name: str,
    values: list[float],
    *,
    version: str = "sha256:1111111111111111",
    languages: list[str] | None = None,
    metric: str = "nDCG@10",
) -> EvaluationResult:
    """An evaluation result whose per-query ``metric`` values are ``values``."""
    rows = []
    for i, v in enumerate(values):
        row = {"query_id": f"q{i:03d}", "text": f"q{i}", "first_rel_rank": 1, "in_run": True}
        if languages is not None:
            row["language"] = languages[i]
        row[metric] = float(v)
        rows.append(row)
    return EvaluationResult(
        judgments=JudgmentsInfo(name="constructed", version=version, queries=len(values)),
        run=RunInfo(name=name, queries_in_run=len(values)),
        metrics=[metric],
        aggregate={metric: float(np.mean(values))},
        per_query=rows,
    )


def corpus_ids(corpus_jsonl: Path) -> list[str]:
    """Every ``_id`` of a BEIR corpus.jsonl."""
    with corpus_jsonl.open(encoding="utf-8") as fh:
        return [json.loads(line)["_id"] for line in fh]


def scifact_runs(
    qrels: dict[str, dict[str, int]], corpus: list[str], *, seed: int = 0, depth: int = 100
) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """A baseline run and a degraded copy for the SciFact qrels.

    Baseline: each query's relevant docs at seeded random ranks among the top
    20 of ``depth`` corpus ids. Degraded: the same lists with the relevant docs
    pushed down by 40 ranks for 80% of the queries (seeded).
    """
    rng = np.random.default_rng(seed)
    pool = np.asarray(corpus)
    base: dict[str, list[str]] = {}
    worse: dict[str, list[str]] = {}
    for qid in sorted(qrels):
        rel = [d for d, g in qrels[qid].items() if g > 0]
        fill = [
            d for d in pool[rng.choice(len(pool), depth + len(rel), replace=False)] if d not in rel
        ]
        ranks = sorted(rng.choice(20, size=len(rel), replace=False))
        ranking = list(fill[: depth - len(rel)])
        for r, d in zip(ranks, rel, strict=True):
            ranking.insert(int(r), d)
        base[qid] = ranking
        if rng.random() < 0.8:
            others = [d for d in ranking if d not in rel]
            pushed = others[:]
            for r, d in zip(ranks, rel, strict=True):
                pushed.insert(min(int(r) + 40, len(pushed)), d)
            worse[qid] = pushed
        else:
            worse[qid] = list(ranking)
    return base, worse


def write_trec(ranking: dict[str, list[str]], path: Path, name: str) -> Path:
    """Write a run as TREC lines (scores decreasing with rank)."""
    lines = [
        f"{qid} Q0 {doc} {rank} {1000 - rank} {name}"
        for qid, docs in ranking.items()
        for rank, doc in enumerate(docs, start=1)
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path
