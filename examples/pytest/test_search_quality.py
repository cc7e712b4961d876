"""Search quality as pytest tests: copy this file next to your tests and point it at your files.

Run it with ``pytest examples/pytest`` (from the repository root). A test fails when
the candidate is worse than the baseline by more than the margin, and the failure
message is the gate's Markdown table, naming the measure that regressed.

In your repository the baseline is a committed result file, made once on the main
branch: ``assay evaluate eval/judgments.jsonl --system prod --config assay.toml
-m nDCG@10 -o ci/baseline.json``; pass its path as ``baseline=``. Here it is
computed from the example's own keyword system so the file runs anywhere.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import assay
from assay.testing import assert_gate

EXAMPLE = Path(__file__).resolve().parents[1] / "statistics"
JUDGMENTS = EXAMPLE / "questions.csv"
CONFIG = EXAMPLE / "assay.toml"
METRICS = ["nDCG@10"]


@pytest.fixture(scope="session")
def baseline() -> assay.EvaluationResult:
    """The baseline evaluation (in your repository: "ci/baseline.json")."""
    source = assay.SourceOptions(system="keyword", config=CONFIG, no_cache=True)
    return assay.evaluate(JUDGMENTS, metrics=METRICS, source=source)


def test_the_system_keeps_its_quality(baseline: assay.EvaluationResult) -> None:
    # a system named in assay.toml, run in this process on every judged query
    assert_gate(
        JUDGMENTS, "keyword", config=CONFIG, baseline=baseline, metrics=METRICS,
        margin=0.01, no_cache=True,
    )  # fmt: skip


def test_a_run_file_can_be_gated(baseline: assay.EvaluationResult, tmp_path: Path) -> None:
    # a run file made earlier in the pipeline (here by `assay run`; any TREC or JSONL run)
    run = tmp_path / "candidate.trec"
    subprocess.run(
        [sys.executable, "-m", "assay", "run", str(JUDGMENTS), "--system", "keyword",
         "--config", str(CONFIG), "-o", str(run), "--no-progress", "--no-cache"],
        check=True, timeout=300,
    )  # fmt: skip
    assert_gate(JUDGMENTS, run, baseline=baseline, metrics=METRICS, margin=0.01)


def test_a_worse_system_fails_and_names_the_measure(baseline: assay.EvaluationResult) -> None:
    # the names-only variant loses the long descriptions: the gate must catch it
    with pytest.raises(AssertionError, match=r"nDCG@10 dropped by"):
        assert_gate(
            JUDGMENTS, "keyword-names-only", config=CONFIG, baseline=baseline,
            metrics=METRICS, margin=0.01, no_cache=True,
        )  # fmt: skip


def test_a_search_function_can_be_gated(baseline: assay.EvaluationResult) -> None:
    # any Python callable f(query, k) -> doc ids; this one finds nothing
    def search(query: str, k: int) -> list[str]:
        return []

    with pytest.raises(AssertionError, match=r"\| all queries \| nDCG@10 \|"):
        assert_gate(JUDGMENTS, search, baseline=baseline, metrics=METRICS, margin=0.01)
