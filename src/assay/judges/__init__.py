"""assay.judges: model graders, agreement with people, review samples, calibration.

Names load lazily so that ``import assay.judges`` stays cheap.
"""

from assay._facade import lazy

__all__, __getattr__, __dir__ = lazy(
    __name__,
    {
        "AgreementResult": "assay.procedures.agreement",
        "AgreementStats": "assay.judges.stats",
        "agreement": "assay.procedures.agreement",
        "CalibrationResult": "assay.procedures.calibration",
        "calibrate": "assay.procedures.calibration",
        "grade_answers": "assay.judges.cases",
        "grade_claims": "assay.judges.cases",
        "ANSWER_CHECK": "assay.judges.graders",
        "CLAIM_SUPPORT": "assay.judges.graders",
        "Grader": "assay.judges.graders",
        "RELEVANCE": "assay.judges.graders",
        "GradingRun": "assay.judges.grading",
        "grade_items": "assay.judges.grading",
        "LabelTable": "assay.judges.labels",
        "read_labels": "assay.judges.labels",
        "ppi_mean_interval": "assay.judges.ppi",
        "PairwiseJudgeResult": "assay.judges.pairwise",
        "RubricJudgeResult": "assay.judges.panel",
        "load_judge": "assay.judges.spec",
        "judge_pairwise": "assay.procedures.declared_judges",
        "judge_rubric": "assay.procedures.declared_judges",
        "grade_relevance": "assay.judges.relevance",
        "review_sample": "assay.judges.sample",
        "resolve_sources": "assay.judges.sources",
        "cohen_kappa": "assay.judges.stats",
        "krippendorff_alpha": "assay.judges.stats",
    },
    globals(),
)
