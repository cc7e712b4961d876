"""The versioned result of scoring grounded answers (what every renderer reads).

``AnswersResult`` is self-describing: it names the system that answered (when
known), the cases file and its content version, the corpus used for citation
checks, each score with its numerator and denominator, the first failing layer
of every case and the scores per group.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from assay.results.models import ResultModel

SCHEMA_VERSION = "1"

#: Scores in report order: name -> (label, what it measures).
SCORES: dict[str, tuple[str, str]] = {
    "status_accuracy": ("status accuracy", "cases whose response status is the expected one"),
    "provenance_pass_rate": ("provenance pass rate", "cases whose citations keep the contract"),
    "claim_support_rate": ("claim support rate", "claims supported by a cited passage"),
    "citation_validity": ("citation validity", "citations in the corpus and retrieved"),
    "refusal_accuracy": ("refusal accuracy", "expected refusals that were declined"),
    "false_refusal_rate": (
        "false refusal rate",
        "expected answers declined although the evidence was retrieved",
    ),
    "hallucination_rate": ("hallucination rate", "answers with at least one unsupported claim"),
    "numeric_accuracy": ("numeric accuracy", "answers whose stated numbers all verify"),
    "numbers_verified": ("numbers verified", "stated numbers that match an expected value"),
    "evidence_hit_rate": ("evidence hit rate", "cases with expected evidence that retrieved any"),
    "exact_match": ("exact match", "answers equal to a reference (SQuAD v1.1 normalisation)"),
    "token_f1": ("token F1", "mean SQuAD v1.1 token-overlap F1 with the best reference"),
    "rouge_l": ("ROUGE-L", "mean rouge-score rougeL F-measure with the best reference"),
    "answer_similarity": ("answer similarity", "mean cosine of answer and reference embeddings"),
}
#: Scores where lower is better (renderers mark them).
LOWER_IS_BETTER = frozenset({"false_refusal_rate", "hallucination_rate"})

#: Layers in the order a case is checked; the first that fails is reported.
LAYERS: dict[str, tuple[str, str]] = {
    "retrieval_miss": (
        "retrieval miss",
        "fix retrieval: no prompt recovers evidence that was never retrieved",
    ),
    "wrong_status": ("wrong status", "fix the answer/decline decision"),
    "broken_provenance": ("broken provenance", "fix the citation contract of the output"),
    "unsupported_claim": ("unsupported claim", "fix grounding: claims go beyond their sources"),
    "wrong_number": ("wrong number", "fix how numbers are copied, rounded or scaled"),
}
NO_FAILURE = "none"


class Score(BaseModel):
    """One score. A rate: ``value`` = ``numerator`` / ``denominator`` (``None`` when 0/0).
    A mean (``kind`` ``"mean"``): ``value`` is the mean over the ``numerator`` cases
    scored of the ``denominator`` cases read (``None`` when none was scored)."""

    value: float | None
    numerator: int
    denominator: int
    kind: Literal["rate", "mean"] = "rate"

    @classmethod
    def of(cls, numerator: int, denominator: int) -> Score:
        """Build a score from counts."""
        value = numerator / denominator if denominator else None
        return cls(value=value, numerator=numerator, denominator=denominator)

    @classmethod
    def mean(cls, values: list[float], read: int) -> Score:
        """The mean of ``values`` (the cases scored) out of ``read`` cases."""
        value = sum(values) / len(values) if values else None
        return cls(value=value, numerator=len(values), denominator=read, kind="mean")


class LedgerEntry(BaseModel):
    """One measure's share of the cases: how many it scored, and which it left out, why."""

    scored: int = Field(description="cases the measure scored")
    left_out: dict[str, int] = Field(default_factory=dict, description="cases left out, by reason")
    left_out_cases: dict[str, list[str]] = Field(
        default_factory=dict, description="ids of the cases left out, by reason"
    )


class Ledger(BaseModel):
    """The integrity ledger: cases read and, for every measure, scored + left out = read."""

    cases_read: int
    measures: dict[str, LedgerEntry] = Field(default_factory=dict)


class CasesInfo(BaseModel):
    """Which cases file (and corpus) was scored."""

    model_config = ConfigDict(extra="allow")

    path: str | None = None
    name: str
    version: str
    cases: int
    corpus: str | None = Field(None, description="corpus file used for citation validity")
    corpus_ids: int | None = None


class AnswersResult(ResultModel):
    """Scores of grounded answers: aggregate, per layer, per group and per case.

    ``per_case`` rows hold ``case_id``, ``line``, ``query_id``, ``question``,
    ``metadata``, ``expected_status``, ``status`` and the per-layer outcomes,
    with ``first_failure`` one of :data:`LAYERS` or ``"none"``.
    """

    model_config = ConfigDict(extra="allow")

    schema_version: str = SCHEMA_VERSION
    kind: Literal["answers"] = "answers"
    system_name: str | None = Field(
        None, description="the system that answered (what `assay history --system` filters on)"
    )
    cases: CasesInfo
    scores: dict[str, Score]
    failures: dict[str, int] = Field(description="cases per first failing layer")
    judged_by: dict[str, int] = Field(
        default_factory=dict, description="claims per support judge (person, model, rule)"
    )
    group_fields: list[str] = Field(default_factory=list)
    groups: dict[str, dict[str, dict[str, float | int | None]]] = Field(default_factory=dict)
    per_case: list[dict[str, Any]] = Field(default_factory=list)
    source: str = Field(
        "cases", description="format read: cases (structured), ragas, deepeval or otlp"
    )
    ledger: Ledger | None = Field(None, description="cases read, scored and left out per measure")
    policy: list[str] = Field(default_factory=list, description="how the measures read the text")
    context_matches: dict[str, int] | None = Field(
        None, description="free-text cases: contexts by how they got an id (id, exact, ...)"
    )

    def summary(self) -> dict[str, float | None]:
        """``{score name: value}`` (the shape of seed 000's fixture report)."""
        return {name: score.value for name, score in self.scores.items()}
