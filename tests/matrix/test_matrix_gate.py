"""Gating a matrix result on a baseline result: per-case pass-rate non-inferiority."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from assay.core.errors import UsageError
from assay.matrix import load_matrix, run_matrix
from assay.matrix.gate import gate_matrix
from assay.stats.bootstrap import paired_bootstrap_ci

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "matrix"


def _matrix(tmp: Path, name: str, function: str) -> Path:
    shutil.copy(EXAMPLE / "cases.jsonl", tmp / "cases.jsonl")
    shutil.copy(EXAMPLE / "answerer.py", tmp / "answerer.py")
    path = tmp / f"{name}.toml"
    path.write_text(
        f'[matrix]\ncases = "cases.jsonl"\nrepeats = 2\n[prompts.p]\ntext = "answer"\n'
        f'[baselines.b]\nfunction = "answerer.py:{function}"\n',
        encoding="utf-8",
    )
    return path


def test_same_answers_pass_and_a_regression_fails(tmp_path: Path) -> None:
    base = run_matrix(load_matrix(_matrix(tmp_path, "base", "answer")))
    worse = run_matrix(load_matrix(_matrix(tmp_path, "worse", "answer_eager")))
    same = gate_matrix(base, base, margin=0.05)
    assert same.passed and same.checks[0].ci_low == 0.0
    gate = gate_matrix(worse, base, margin=0.05)
    (check,) = gate.checks
    assert not gate.passed and check.delta == pytest.approx(-1 / 3)
    low, high = paired_bootstrap_ci([1, 1, 1], [1, 0, 1])
    assert (check.ci_low, check.ci_high) == pytest.approx((low, high))
    assert "above -0.05" in gate.rule


def test_other_cases_are_refused(tmp_path: Path) -> None:
    base = run_matrix(load_matrix(_matrix(tmp_path, "base", "answer")))
    other = base.model_copy(update={"cases_version": "sha256:other"})
    with pytest.raises(UsageError, match="same fixed evidence"):
        gate_matrix(other, base)


def test_cli_exit_code(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "src"),
        "ASSAY_RECORD": "0",
    }

    def assay(*args: str):
        return subprocess.run(
            [sys.executable, "-c", "from assay.cli import main; main()", *args],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
            env=env,
        )

    base_json = tmp_path / "base.json"
    assert (
        assay("matrix", str(_matrix(tmp_path, "base", "answer")), "-o", str(base_json)).returncode
        == 0
    )
    ok = assay(
        "matrix", str(tmp_path / "base.toml"), "-f", "json", "--gate-against", str(base_json)
    )
    assert ok.returncode == 0 and "gate passed" in ok.stdout
    bad = assay(
        "matrix", str(_matrix(tmp_path, "worse", "answer_eager")), "--gate-against", str(base_json)
    )
    assert bad.returncode == 1 and "gate FAIL p/b" in bad.stdout
