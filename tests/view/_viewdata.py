"""Results for the viewer's tests (not a test module): made by assay from the repo's files.

Two runs of the statistics example (``tests/data/runs``), copied without their
sidecars, are scored on a JSONL copy of the example's judgments in which each
query's label names its source (person or model), compared, and recorded in a
SQLite store with a gate; the matrix example is run (its answerer is local).
"""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import assay

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "statistics"
RUNS = ROOT / "tests" / "data" / "runs"
CORPUS = EXAMPLE / "catalog.csv"


def _judgments(folder: Path) -> Path:
    path = folder / "questions.jsonl"
    with (EXAMPLE / "questions.csv").open(encoding="utf-8") as f:
        rows = [r for r in csv.DictReader(f) if r["expected_id"] != "NONE"]
    lines = [
        json.dumps(
            {
                "query_id": r["question_id"],
                "query": r["question"],
                "relevant": {r["expected_id"]: 1},
                "language": r["language"],
                "source": "human" if i % 2 == 0 else "model",
            },
            ensure_ascii=False,
        )
        for i, r in enumerate(rows)
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def make(folder: Path) -> dict[str, object]:
    """Result files and a store in ``folder``; what the tests need to find in them."""
    from assay.matrix import load_matrix, run_matrix
    from assay.procedures.gating import run_gate
    from assay.store.api import open_store

    judged = _judgments(folder)
    runs = {}
    for name in ("keyword", "names"):
        runs[name] = folder / f"{name}.trec"
        shutil.copy(RUNS / f"{name}.trec", runs[name])
    evals = {
        n: assay.evaluate(
            judged,
            str(p),
            ["nDCG@10", "RR"],
            by="language",
            evaluation=assay.EvaluationOptions(name=n),
        )
        for n, p in runs.items()
    }
    comparison = assay.compare(
        judged,
        [str(runs["keyword"]), str(runs["names"])],
        ["nDCG@10", "RR"],
        comparison=assay.ComparisonOptions(by="language", n_permutations=200, n_resamples=200),
    )
    matrix = run_matrix(load_matrix(ROOT / "examples" / "matrix" / "matrix.toml"))
    files = {}
    for name, result in (("eval", evals["keyword"]), ("compare", comparison), ("matrix", matrix)):
        files[name] = folder / f"{name}.json"
        files[name].write_text(result.to_json(), encoding="utf-8")
    store = f"sqlite:///{folder / 'history.db'}"
    with open_store(store) as st:
        for result in (evals["names"], evals["keyword"]):
            st.record(result)
        st.record(comparison)
    gate = run_gate(evals["names"], evals["keyword"], ["nDCG@10"], min_n=2, n_resamples=200)
    with open_store(store) as st:
        st.record_gate(evals["names"], gate)
    return {
        "files": files,
        "store": store,
        "corpus": CORPUS,
        "id_field": "idno",
        "evaluation": evals["keyword"],
        "comparison": comparison,
        "matrix": matrix,
    }
