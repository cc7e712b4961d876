"""The public API of assay.matrix is pinned and loads lazily."""

from __future__ import annotations

import subprocess
import sys

import assay.matrix


def test_all_is_pinned() -> None:
    assert sorted(assay.matrix.__all__) == [
        "ASSERTIONS",
        "MatrixConfig",
        "MatrixResult",
        "load_matrix",
        "pass_at_k",
        "pass_hat_k",
        "run_matrix",
    ]
    for name in assay.matrix.__all__:
        assert getattr(assay.matrix, name) is not None


def test_import_is_light() -> None:
    code = (
        "import sys, assay.matrix;"
        "print(','.join(m for m in ('numpy', 'httpx') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
