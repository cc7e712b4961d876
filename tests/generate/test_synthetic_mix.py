"""Synthetic and people's queries: never averaged together unless told, always reported apart."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import assay

ROWS = [
    {"query_id": "s1", "query": "alpha beta", "relevant": {"d1": 2}, "source": "model",
     "synthetic": True, "overlap": 1.0},
    {"query_id": "s2", "query": "gamma", "relevant": {"d2": 2}, "source": "model",
     "synthetic": True, "overlap": 0.5},
    {"query_id": "h1", "query": "what is alpha", "relevant": {"d1": 1}, "source": "human"},
]  # fmt: skip


def _files(tmp_path: Path) -> tuple[Path, Path, Path]:
    mixed = tmp_path / "mixed.jsonl"
    mixed.write_text("".join(json.dumps(r) + "\n" for r in ROWS), encoding="utf-8")
    run = tmp_path / "run.trec"
    run.write_text("s1 Q0 d1 1 2.0 a\ns2 Q0 d9 1 1.0 a\nh1 Q0 d1 1 1.0 a\n", encoding="utf-8")
    other = tmp_path / "other.trec"
    other.write_text("s1 Q0 d9 1 2.0 b\ns2 Q0 d2 1 1.0 b\nh1 Q0 d9 1 1.0 b\n", encoding="utf-8")
    return mixed, run, other


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-c", "from assay.cli import main; main()", *args]
    return subprocess.run(cmd, capture_output=True, text=True, cwd=cwd, timeout=120)


def test_a_mixed_set_is_refused_through_both_doors(tmp_path: Path) -> None:
    mixed, run, other = _files(tmp_path)
    with pytest.raises(assay.UsageError, match="2 of 3 queries are synthetic"):
        assay.evaluate(mixed, run, ["RR"])
    with pytest.raises(assay.UsageError, match="synthetic"):
        assay.compare(mixed, [run, other], ["RR"])
    for argv in (["evaluate", str(mixed), str(run)], ["compare", str(mixed), str(run), str(other)]):
        proc = _cli(*argv, "-m", "RR", "--no-record", cwd=tmp_path)
        assert proc.returncode == 2 and "--mix-synthetic" in proc.stderr, proc.stderr


def test_when_allowed_they_are_reported_apart_with_the_overlap(tmp_path: Path) -> None:
    mixed, run, other = _files(tmp_path)
    result = assay.evaluate(mixed, run, ["RR"], options=assay.ScoringOptions(mix_synthetic=True))
    groups = result.groups["synthetic"]
    assert groups["true"]["n"] == 2 and groups["true"]["RR"] == pytest.approx(0.5)
    assert result.judgments.synthetic_queries == 2
    assert result.judgments.synthetic_overlap == pytest.approx(0.75)
    proc = _cli(
        "evaluate", str(mixed), str(run), "-m", "RR", "--mix-synthetic", "--no-record",
        cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "synthetic  2 model-written queries, mean word overlap 0.75" in proc.stdout
    compared = assay.compare(
        mixed, [run, other], ["RR"], options=assay.ScoringOptions(mix_synthetic=True)
    )
    assert {s.field for s in compared.slices} == {"synthetic"}


def test_an_all_synthetic_set_scores_and_says_so(tmp_path: Path) -> None:
    only = tmp_path / "synthetic.jsonl"
    only.write_text("".join(json.dumps(r) + "\n" for r in ROWS[:2]), encoding="utf-8")
    run = tmp_path / "run.trec"
    run.write_text("s1 Q0 d1 1 2.0 a\ns2 Q0 d2 1 1.0 a\n", encoding="utf-8")
    result = assay.evaluate(only, run, ["RR"])
    assert result.aggregate["RR"] == 1.0 and result.judgments.synthetic_queries == 2
