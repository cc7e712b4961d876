"""The grounded-response contract and the reviewed case it is scored in.

A :class:`GroundedResponse` is what a RAG system returns: a ``status``
(``answered`` or ``declined``), optional ``answer`` text and ``claims``, each
citing document ids. An :class:`AnswerCase` is one line of a cases file: the
question, the expected status, the retrieved ids, the response and the
reviewers' support judgments for every claim-citation pair.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

#: Allowed values of ``status`` and ``expected_status``.
STATUSES = ("answered", "declined")
#: Who produced a support judgment.
JUDGES = ("person", "model", "rule")


def is_known_judge(value: object) -> bool:
    """One of :data:`JUDGES`, or ``model:<id>`` as ``assay judge claims`` writes it."""
    return value in JUDGES or (
        isinstance(value, str) and value.startswith("model:") and len(value) > 6
    )


Status = Literal["answered", "declined"]


class Claim(BaseModel):
    """One statement of an answer and the document ids it cites."""

    model_config = ConfigDict(extra="forbid")

    text: str
    citations: list[str] = Field(default_factory=list)


class ProvenanceCheck(BaseModel):
    """Outcome of the citation contract check: ``passed`` and the reasons it failed."""

    passed: bool
    reasons: list[str] = Field(default_factory=list)


class GroundedResponse(BaseModel):
    """A structured response: status, optional answer text, cited claims."""

    model_config = ConfigDict(extra="forbid")

    status: Status
    answer: str | None = None
    claims: list[Claim] = Field(default_factory=list)

    def check_provenance(self, retrieved_ids: Collection[str]) -> ProvenanceCheck:
        """Check the citation contract against the ids the system retrieved.

        An answered response passes when it has at least one claim, every claim
        cites at least one id and every cited id was retrieved. A declined
        response passes when it makes no claim.
        """
        retrieved = set(retrieved_ids)
        reasons: list[str] = []
        if self.status == "declined":
            if self.claims:
                reasons.append(f"declined but makes {len(self.claims)} claim(s)")
            return ProvenanceCheck(passed=not reasons, reasons=reasons)
        if not self.claims:
            reasons.append("answered without any claim")
        for index, claim in enumerate(self.claims):
            if not claim.citations:
                reasons.append(f"claim {index} cites nothing")
            outside = [c for c in claim.citations if c not in retrieved]
            if outside:
                reasons.append(f"claim {index} cites {', '.join(outside)} (not retrieved)")
        return ProvenanceCheck(passed=not reasons, reasons=reasons)

    def text_for_numbers(self) -> str:
        """The text whose numbers are checked: ``answer``, else the claims joined."""
        if self.answer:
            return self.answer
        return " ".join(c.text for c in self.claims)


class ExpectedValue(BaseModel):
    """An official value an answer should state.

    ``tolerance`` is absolute, in the value's own unit (0: exact, but rounding
    to the precision the answer shows is always accepted).
    """

    model_config = ConfigDict(extra="forbid")

    value: float
    unit: str | None = None
    tolerance: float = Field(0.0, ge=0)


@dataclass(frozen=True)
class ClaimSupport:
    """Support judgments of one claim: ``{doc_id: True/False}`` and who judged."""

    judgments: Mapping[str, bool]
    judged_by: str | None = None

    @property
    def supported(self) -> bool:
        """A claim is supported when any of its cited passages supports it."""
        return any(self.judgments.values())


@dataclass(frozen=True)
class AnswerCase:
    """One reviewed case (a validated line of a cases file)."""

    case_id: str
    question: str
    expected_status: str
    retrieved_ids: tuple[str, ...]
    response: GroundedResponse
    support: tuple[ClaimSupport, ...] = ()
    query_id: str | None = None
    system: str | None = None
    expected_ids: tuple[str, ...] | None = None
    expected_values: tuple[ExpectedValue, ...] = ()
    metadata: Mapping[str, str] = field(default_factory=dict)
    line: int | None = None

    @property
    def language(self) -> str | None:
        """The answer's language (metadata ``language``), used to read numbers."""
        return self.metadata.get("language")

    def retrieval_miss(self) -> bool | None:
        """True when expected evidence exists and none of it was retrieved.

        ``None`` when the case names no expected evidence (nothing to check).
        """
        if not self.expected_ids:
            return None
        retrieved = set(self.retrieved_ids)
        return not any(doc in retrieved for doc in self.expected_ids)


@dataclass(frozen=True)
class CaseSet:
    """The validated cases of one file and the file's content version."""

    cases: tuple[AnswerCase, ...]
    path: str | None = None
    name: str = "cases"
    version: str = ""

    def __len__(self) -> int:
        return len(self.cases)

    def system_name(self) -> str | None:
        """The ``system`` every case names, or ``None`` when any differs or is missing."""
        names = {case.system for case in self.cases}
        if len(names) == 1:
            return names.pop()
        return None

    def metadata_fields(self) -> list[str]:
        """Metadata fields present in any case, first-seen order."""
        seen: dict[str, None] = {}
        for case in self.cases:
            for key in case.metadata:
                seen.setdefault(key, None)
        return list(seen)


def dump_case(case: Mapping[str, Any]) -> dict[str, Any]:
    """Order a case dict's keys the way cases files are written (for people)."""
    order = (
        "case_id",
        "query_id",
        "system",
        "question",
        "expected_status",
        "expected_ids",
        "expected_values",
        "retrieved_ids",
        "response",
        "support",
    )
    out = {k: case[k] for k in order if k in case}
    out.update({k: v for k, v in case.items() if k not in out})
    return out
