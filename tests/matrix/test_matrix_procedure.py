"""``run_matrix_file``: the matrix command's one procedure, its gate carried by the result."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assay.errors import UsageError
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
