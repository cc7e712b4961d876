"""assay.matrix: system prompts x models x fixed evidence, asked N times, asserted per case.

``load_matrix`` reads a matrix file, ``run_matrix`` runs it into a
:class:`MatrixResult` (cells, pass^N, flaky cells, costs, paired comparisons).
Names load lazily so that importing the package stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__all__ = ["ASSERTIONS", "MatrixConfig", "MatrixResult", "load_matrix", "run_matrix"]

_LAZY = {
    "ASSERTIONS": "assay.matrix.assertions",
    "MatrixConfig": "assay.matrix.config",
    "load_matrix": "assay.matrix.config",
    "MatrixResult": "assay.matrix.result",
    "run_matrix": "assay.matrix.runner",
}

if TYPE_CHECKING:  # pragma: no cover
    from assay.matrix.assertions import ASSERTIONS
    from assay.matrix.config import MatrixConfig, load_matrix
    from assay.matrix.result import MatrixResult
    from assay.matrix.runner import run_matrix


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'assay.matrix' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
