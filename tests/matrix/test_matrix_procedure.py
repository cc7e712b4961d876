"""``run_matrix_file``: the matrix command's one procedure, its gate carried by the result."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assay.core.errors import UsageError
from assay.matrix.gate import gate_matrix
from assay.procedures.matrix_run import MatrixGateOptions, run_matrix_file
from assay.procedures.model_options import ModelCallOptions

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "matrix" / "matrix.toml"


def test_the_gate_rides_on_the_result_and_decides_its_exit(tmp_path: Path) -> None:
    calls = ModelCallOptions(no_cache=True)
    base = run_matrix_file(EXAMPLE, calls=calls)
    assert base.gate is None and base.exit_code() == 0
    assert base.failed_runs() == [(f"matrix {base.name}", [])]
    baseline = tmp_path / "base.json"
    baseline.write_text(base.to_json())
    decided = set()
    for margin in (0.0, 0.5):
        gate = MatrixGateOptions(against=baseline, margin=margin)
        result = run_matrix_file(EXAMPLE, calls=calls, gate=gate)
        assert result.gate is not None
        assert result.gate.passed == gate_matrix(result, base, margin=margin).passed
        assert result.exit_code() == (0 if result.gate.passed else 1)
        assert "gate" not in json.loads(result.to_json())  # the file is as before
        decided.add(result.gate.passed)
    assert decided == {True, False}  # the same grid again: a delta of 0 is not above -0


def test_a_matrix_names_its_own_models() -> None:
    with pytest.raises(UsageError, match="drop `model`"):
        run_matrix_file(EXAMPLE, calls=ModelCallOptions(model="stub"))


def test_the_correction_comes_from_the_file_or_the_option(tmp_path: Path) -> None:
    from statsmodels.stats.multitest import multipletests

    from assay.report.matrix_markdown import render_markdown

    text = EXAMPLE.read_text(encoding="utf-8").replace("[matrix]", '[matrix]\ncorrection = "bh"')
    path = EXAMPLE.parent / "matrix.toml"
    calls = ModelCallOptions(no_cache=True)
    copy = tmp_path / "matrix.toml"
    copy.write_text(text, encoding="utf-8")
    for item in EXAMPLE.parent.iterdir():
        if item.name != "matrix.toml" and not (tmp_path / item.name).exists():
            (tmp_path / item.name).symlink_to(item)
    from_file = run_matrix_file(copy, calls=calls)
    assert from_file.correction == "bh" and "BH-adjusted" in from_file.policy
    raw = [c.p_value for c in from_file.comparisons]
    assert [c.p_adjusted for c in from_file.comparisons] == list(
        multipletests(raw, method="fdr_bh")[1]
    )
    given = run_matrix_file(path, calls=calls, correction="Bonferroni")
    assert given.correction == "bonferroni"
    assert "p (Bonferroni)" in render_markdown(given)
    with pytest.raises(UsageError, match="unknown correction"):
        run_matrix_file(path, calls=calls, correction="sidak")
