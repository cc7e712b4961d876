"""Grounded-answer evaluation: status, provenance, claim support, citations, refusals, numbers.

``load_cases`` reads and validates a cases file, ``score_cases`` scores it into
an :class:`AnswersResult`, ``collect_cases`` builds cases from a live system,
``extract_numbers`` reads the numbers an answer states. ``read_text_cases``
reads free-text cases (ragas, deepeval, OTLP traces) and ``score_text_cases``
scores them against their references, without a model.
"""

from __future__ import annotations

from assay.answers.load import load_cases
from assay.answers.models import (
    AnswerCase,
    CaseSet,
    Claim,
    ClaimSupport,
    ExpectedValue,
    GroundedResponse,
    ProvenanceCheck,
)
from assay.answers.numbers import ExtractedNumber, check_numbers, extract_numbers
from assay.answers.result import AnswersResult, Score
from assay.answers.rows import read_text_cases
from assay.answers.score import score_answers, score_case, score_cases
from assay.answers.text import TextCase, TextCaseSet
from assay.answers.text_score import score_text_cases
from assay.corpora.ids import read_corpus_ids

__all__ = [
    "AnswerCase",
    "AnswersResult",
    "CaseSet",
    "Claim",
    "ClaimSupport",
    "ExpectedValue",
    "ExtractedNumber",
    "GroundedResponse",
    "ProvenanceCheck",
    "Score",
    "TextCase",
    "TextCaseSet",
    "check_numbers",
    "extract_numbers",
    "load_cases",
    "read_corpus_ids",
    "read_text_cases",
    "score_answers",
    "score_case",
    "score_cases",
    "score_text_cases",
]
