"""A cutoff deeper than the ranking: an error for a live system, a warning for a run file."""

from __future__ import annotations

import pytest

import assay
from assay.core.errors import UsageError
from assay.judgments.models import JudgmentSet
from assay.metrics.depth import check_depth
from assay.procedures.evaluation import evaluate
from assay.runs.models import Run


def _judgments() -> JudgmentSet:
    return JudgmentSet.from_records(
        [{"query_id": "q1", "text": "a"}, {"query_id": "q2", "text": "b"}],
        {"q1": {"d1": 1}, "q2": {"d2": 1}},
    )


def test_live_system_asked_too_shallow_names_the_k_needed() -> None:
    with pytest.raises(UsageError, match=r"-k 1000"):
        check_depth(["nDCG@10", "R@1000"], asked=100)
    assert check_depth(["R@100"], asked=100) == []


def test_library_evaluate_refuses_a_shallow_live_system() -> None:
    with pytest.raises(UsageError, match=r"R@1000 needs rankings of 1000"):
        evaluate(
            _judgments(),
            lambda text, k: ["d1", "d2"][:k],
            ["R@1000"],
            options=assay.ScoringOptions(k=100),
        )


def test_run_file_shorter_than_the_cutoff_warns() -> None:
    run = Run.from_dict({"q1": ["d1", "d3", "d4"], "q2": ["d2"]})
    result = evaluate(_judgments(), run, ["P@10", "RR"])
    assert any("at most 3 documents" in w and "ranks 4-10" in w for w in result.run.warnings)
    deep = evaluate(_judgments(), run, ["P@3"])
    assert not any("at most" in w for w in deep.run.warnings)


def test_cli_stops_before_running_a_shallow_system(shared_data, tmp_path) -> None:
    import os
    import subprocess
    import sys
    from pathlib import Path

    src = str(Path(__file__).resolve().parents[2] / "src")
    cmd = [sys.executable, "-c", "from assay.cli import main; main()", "evaluate"]
    args = [str(shared_data / "beir_scifact"), "--system", "bm25", "-m", "R@1000", "--no-record"]
    done = subprocess.run(
        [*cmd, *args],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": src},
        cwd=tmp_path,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2
    assert "R@1000 needs rankings of 1000 documents" in done.stderr and "-k 1000" in done.stderr
