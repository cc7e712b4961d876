"""assay.judgments: judgment sets (queries + graded judgments), readers and validation."""

from assay._facade import lazy

__all__, __getattr__, __dir__ = lazy(
    __name__,
    {
        "FORMATS": "assay.judgments.load",
        "JudgmentSet": "assay.judgments.models",
        "Query": "assay.judgments.models",
        "detect_format": "assay.judgments.load",
        "load_judgments": "assay.judgments.load",
    },
    globals(),
)
