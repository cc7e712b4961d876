"""assay.judges: model graders, agreement with people, review samples, calibration.

Names load lazily so that ``import assay.judges`` stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__all__ = [
    "ANSWER_CHECK",
    "CLAIM_SUPPORT",
    "RELEVANCE",
    "AgreementResult",
    "AgreementStats",
    "CalibrationResult",
    "Grader",
    "GradingRun",
    "LabelTable",
    "agreement",
    "calibrate",
    "cohen_kappa",
    "grade_answers",
    "grade_claims",
    "grade_items",
    "grade_relevance",
    "krippendorff_alpha",
    "ppi_mean_interval",
    "read_labels",
    "resolve_sources",
    "review_sample",
]

_LAZY = {
    "AgreementResult": "assay.judges.agree",
    "AgreementStats": "assay.judges.agree",
    "agreement": "assay.judges.agree",
    "CalibrationResult": "assay.judges.calibrate",
    "calibrate": "assay.judges.calibrate",
    "grade_answers": "assay.judges.cases",
    "grade_claims": "assay.judges.cases",
    "ANSWER_CHECK": "assay.judges.graders",
    "CLAIM_SUPPORT": "assay.judges.graders",
    "RELEVANCE": "assay.judges.graders",
    "Grader": "assay.judges.graders",
    "GradingRun": "assay.judges.grading",
    "grade_items": "assay.judges.grading",
    "LabelTable": "assay.judges.labels",
    "read_labels": "assay.judges.labels",
    "ppi_mean_interval": "assay.judges.ppi",
    "grade_relevance": "assay.judges.relevance",
    "review_sample": "assay.judges.sample",
    "resolve_sources": "assay.judges.sources",
    "cohen_kappa": "assay.judges.stats",
    "krippendorff_alpha": "assay.judges.stats",
}

if TYPE_CHECKING:  # pragma: no cover
    from assay.judges.agree import AgreementResult, AgreementStats, agreement
    from assay.judges.calibrate import CalibrationResult, calibrate
    from assay.judges.cases import grade_answers, grade_claims
    from assay.judges.graders import ANSWER_CHECK, CLAIM_SUPPORT, RELEVANCE, Grader
    from assay.judges.grading import GradingRun, grade_items
    from assay.judges.labels import LabelTable, read_labels
    from assay.judges.ppi import ppi_mean_interval
    from assay.judges.relevance import grade_relevance
    from assay.judges.sample import review_sample
    from assay.judges.sources import resolve_sources
    from assay.judges.stats import cohen_kappa, krippendorff_alpha


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'assay.judges' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
