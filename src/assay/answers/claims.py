"""Claims from free-text answers: split by sentence, or by a model that also names the
supporting contexts; the structured cases ``assay answers`` scores.

``--extract sentences`` splits an answer after ``.``, ``!``, ``?`` (and their
CJK forms) followed by a space or the end, with no model: every sentence is a
claim citing all the case's contexts (a claim is supported when any cited
context supports it). ``--extract model`` asks a model (through the provider
layer, cached and budgeted like every judge) to split the answer into atomic
claims and to name, by number, the contexts that support each; an answer the
model returns malformed (not JSON, wrong shape, a context number that does not
exist) is left out with the reason, never guessed.

A context with an id keeps it; one with text only is cited as
``<case id>#<n>`` (n from 0). Cases built here expect ``answered`` (free-text
sources carry no expected status) and leave support judgments to fill
(``assay judge claims`` does, as for any cases file).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from assay.answers.text import TextCase
from assay.judges.graders import Grader

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])")

EXTRACT_RUBRIC = """\
You split an answer into claims. A claim is one short statement of fact the answer makes,
understandable on its own; leave out greetings, hedges and restated questions. For each
claim, list the numbers of the contexts that state or directly imply it (none: an empty
list). Reply with a JSON object:
{"claims": [{"text": "the claim", "contexts": [0, 2]}]}."""


def split_sentences(text: str) -> list[str]:
    """The sentences of ``text``: split after ``.``/``!``/``?`` and a space, or after ``。！？``."""
    return [part.strip() for part in _SENTENCE_END.split(text) if part.strip()]


def context_ids(case: TextCase) -> list[str]:
    """The id each context of ``case`` is cited by: its own, else ``<case id>#<n>``."""
    return [c.doc_id or f"{case.case_id}#{n}" for n, c in enumerate(case.contexts)]


@dataclass(frozen=True)
class ExtractGrader(Grader):
    """The claim-extraction prompt: its answer is a list of claims with context numbers."""

    def parse(self, answer: Any) -> dict[str, Any]:
        """``{"claims": [{"text", "contexts"}]}`` checked; ``ValueError`` otherwise."""
        if not isinstance(answer, dict) or not isinstance(answer.get("claims"), list):
            raise ValueError("the answer has no 'claims' list")
        claims = []
        for i, claim in enumerate(answer["claims"]):
            if not isinstance(claim, dict) or not isinstance(claim.get("text"), str):
                raise ValueError(f"claim {i} has no 'text'")
            numbers = claim.get("contexts", [])
            if not isinstance(numbers, list) or not all(
                isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in numbers
            ):
                raise ValueError(f"claim {i}: 'contexts' must be a list of context numbers")
            if claim["text"].strip():
                claims.append({"text": claim["text"].strip(), "contexts": list(numbers)})
        return {"claims": claims}

    def ballot(self, parsed: dict[str, Any]) -> Any:
        """Samples vote on the whole list of claims."""
        return json.dumps(parsed["claims"], sort_keys=True)


CLAIM_EXTRACT = ExtractGrader(
    name="claim-extract",
    rubric_version="claim-extract/1",
    rubric=EXTRACT_RUBRIC,
    template="Question: {question}\nContexts:\n{contexts}\nAnswer to split: {answer}",
    schema={
        "type": "object",
        "properties": {
            "claims": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "text": {"type": "string"},
                        "contexts": {"type": "array", "items": {"type": "integer", "minimum": 0}},
                    },
                    "required": ["text", "contexts"],
                    "additionalProperties": False,
                },
            }
        },
        "required": ["claims"],
        "additionalProperties": False,
    },
    vote=("claims",),
)


def extract_fields(case: TextCase) -> dict[str, str]:
    """The extraction template's fields for ``case`` (contexts numbered from 0)."""
    contexts = "\n".join(
        f"[{n}] {c.text if c.text is not None else '(id ' + str(c.doc_id) + ', no text)'}"
        for n, c in enumerate(case.contexts)
    )
    return {
        "question": case.question or "",
        "contexts": contexts or "(none)",
        "answer": case.answer or "",
    }


def sentence_claims(case: TextCase) -> list[dict[str, Any]]:
    """Every sentence a claim citing all the case's contexts."""
    ids = context_ids(case)
    return [{"text": s, "citations": list(ids)} for s in split_sentences(case.answer or "")]


def model_claims(case: TextCase, parsed: dict[str, Any]) -> list[dict[str, Any]]:
    """The model's claims with its context numbers as citations; ``ValueError`` for a
    number that names no context."""
    ids = context_ids(case)
    out = []
    for i, claim in enumerate(parsed["claims"]):
        bad = [n for n in claim["contexts"] if n >= len(ids)]
        if bad:
            raise ValueError(f"claim {i} names context {bad[0]}, but the case has {len(ids)}")
        cited = list(dict.fromkeys(ids[n] for n in claim["contexts"]))
        out.append({"text": claim["text"], "citations": cited})
    return out


def structured_case(case: TextCase, claims: list[dict[str, Any]]) -> dict[str, Any]:
    """The cases-file object of ``case`` with ``claims`` (support left to fill)."""
    support = {
        str(i): {"judgments": dict.fromkeys(claim["citations"]), "judged_by": None}
        for i, claim in enumerate(claims)
    }
    out: dict[str, Any] = {
        "case_id": case.case_id,
        "question": case.question or "(no question recorded)",
        "expected_status": "answered",
        "retrieved_ids": list(dict.fromkeys(context_ids(case))),
        "response": {"status": "answered", "answer": case.answer, "claims": claims},
        "support": support,
    }
    out.update({k: v for k, v in case.metadata.items() if k not in out})
    return out


def context_records(cases: list[TextCase]) -> list[dict[str, str]]:
    """Corpus records (``_id``, ``text``) of every context that has text, first seen kept."""
    seen: dict[str, str] = {}
    for case in cases:
        for doc, ctx in zip(context_ids(case), case.contexts, strict=True):
            if ctx.text is not None:
                seen.setdefault(doc, ctx.text)
    return [{"_id": doc, "text": text} for doc, text in seen.items()]
