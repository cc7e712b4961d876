"""assay: tell, with evidence, whether a search or RAG system got better or worse.

The public API is what ``__all__`` lists. Importing assay is cheap: heavy
modules load on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

__all__ = [
    "AssayError",
    "EvaluationResult",
    "InputError",
    "JudgmentSet",
    "Measure",
    "Run",
    "UsageError",
    "__version__",
    "evaluate",
    "load_judgments",
    "load_run",
    "parse_measure",
]

_LAZY = {
    "AssayError": "assay.errors",
    "InputError": "assay.errors",
    "UsageError": "assay.errors",
    "EvaluationResult": "assay.results",
    "JudgmentSet": "assay.judgments.models",
    "Measure": "assay.metrics.measures",
    "parse_measure": "assay.metrics.measures",
    "Run": "assay.runs.models",
    "evaluate": "assay.procedures.evaluation",
    "load_judgments": "assay.judgments.load",
    "load_run": "assay.runs.io",
}

if TYPE_CHECKING:  # pragma: no cover
    from assay.errors import AssayError, InputError, UsageError
    from assay.procedures.evaluation import evaluate
    from assay.judgments.load import load_judgments
    from assay.judgments.models import JudgmentSet
    from assay.metrics.measures import Measure, parse_measure
    from assay.results import EvaluationResult
    from assay.runs.io import load_run
    from assay.runs.models import Run


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'assay' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
