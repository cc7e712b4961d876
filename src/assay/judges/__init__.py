"""assay.judges: model graders, agreement with people, review samples, calibration.

Names load lazily so that ``import assay.judges`` stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__all__ = [
    "AgreementResult",
    "AgreementStats",
    "LabelTable",
    "agreement",
    "read_labels",
]

_LAZY = {
    "AgreementResult": "assay.judges.agree",
    "AgreementStats": "assay.judges.agree",
    "agreement": "assay.judges.agree",
    "LabelTable": "assay.judges.labels",
    "read_labels": "assay.judges.labels",
}

if TYPE_CHECKING:  # pragma: no cover
    from assay.judges.agree import AgreementResult, AgreementStats, agreement
    from assay.judges.labels import LabelTable, read_labels


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'assay.judges' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
