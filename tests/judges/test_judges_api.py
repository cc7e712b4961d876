"""The public API of assay.judges and assay.providers is pinned and resolves."""

from __future__ import annotations

import assay.judges
import assay.providers

JUDGES = [
    "ANSWER_CHECK", "CLAIM_SUPPORT", "RELEVANCE", "AgreementResult", "AgreementStats",
    "CalibrationResult", "Grader", "GradingRun", "LabelTable", "agreement", "calibrate",
    "cohen_kappa", "grade_answers", "grade_claims", "grade_items", "grade_relevance",
    "krippendorff_alpha", "ppi_mean_interval", "read_labels", "resolve_sources", "review_sample",
    "PairwiseJudgeResult", "RubricJudgeResult", "judge_pairwise", "judge_rubric", "load_judge",
]  # fmt: skip
PROVIDERS = [
    "Budget", "CallCache", "ChatAnswer", "ChatClient", "ModelConfig", "OfflineMiss",
    "ProviderError", "Usage", "get_model", "model_from_table",
]  # fmt: skip


def test_all_is_pinned_and_resolves() -> None:
    assert sorted(assay.judges.__all__) == sorted(JUDGES)
    assert sorted(assay.providers.__all__) == sorted(PROVIDERS)
    for module in (assay.judges, assay.providers):
        for name in module.__all__:
            assert getattr(module, name) is not None, name


def test_agreement_takes_label_tables_from_any_source() -> None:
    """The signature other procedures (click models, reviews) call."""
    import pandas as pd

    from assay.judges import LabelTable, agreement

    frame = pd.DataFrame(
        {"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "a"], "grade": [1, 0, 1],
         "source": ["human"] * 3, "assessor": [None] * 3}
    )  # fmt: skip
    other = frame.assign(grade=[1, 1, 1], source=["behavior"] * 3)
    result = agreement(LabelTable(frame, "people"), LabelTable(other, "clicks"))
    assert result.n == 3 and result.accuracy == 2 / 3
    assert result.candidate["sources"] == {"behavior": 3}
