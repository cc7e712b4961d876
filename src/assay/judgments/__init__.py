"""assay.judgments: judgment sets (queries + graded judgments), readers and validation."""

from assay.judgments.load import FORMATS, detect_format, load_judgments
from assay.judgments.models import JudgmentSet, Query

__all__ = ["FORMATS", "JudgmentSet", "Query", "detect_format", "load_judgments"]
