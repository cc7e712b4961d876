"""``assay judge claims --extract``: free-text answers to structured cases, then support judged.

:func:`extract_cases` turns free-text cases (see :mod:`assay.answers.text`) into
the structured cases ``assay answers`` scores, splitting each answer by
sentence or by a model (:mod:`assay.answers.claims`); every case left out is
named with its reason. :func:`faithfulness_interval` is the PPI++ interval of
the claim support rate when people labelled a sample of the claims.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from pydantic import BaseModel, Field

from assay.answers.claims import (
    CLAIM_EXTRACT,
    extract_fields,
    model_claims,
    sentence_claims,
    structured_case,
)
from assay.answers.text import TextCase
from assay.core.errors import collecting
from assay.io.textio import json_lines, read_text
from assay.judges.grading import GradingRun, Item, grade_items
from assay.judges.ppi import ppi_mean_interval
from assay.providers.client import ChatClient


class Extraction(BaseModel):
    """What the extraction made: cases read and written, claims, cases left out and why."""

    mode: str
    cases_read: int
    cases_written: int
    claims: int
    left_out: dict[str, list[str]] = Field(
        default_factory=dict, description="case ids left out, by reason"
    )
    run: GradingRun | None = Field(None, description="the model's extraction calls (model mode)")


def extract_cases(
    cases: Sequence[TextCase],
    mode: str,
    client: ChatClient | None,
    *,
    samples: int = 1,
    max_cost: float | None = None,
    on_call: Callable[..., None] | None = None,
) -> tuple[list[dict[str, Any]], Extraction]:
    """Structured case objects for ``cases`` (support to fill) and the extraction's account."""

    left: dict[str, list[str]] = {}
    todo = []
    for case in cases:
        if case.answer is None:
            left.setdefault(case.gaps.get("answer", "no response"), []).append(case.case_id)
        else:
            todo.append(case)
    run = None
    claims_of: dict[str, list[dict[str, Any]]] = {}
    if mode == "sentences":
        claims_of = {case.case_id: sentence_claims(case) for case in todo}
    else:
        items = [Item(case.case_id, extract_fields(case)) for case in todo]
        run = grade_items(
            items, CLAIM_EXTRACT, client, samples=samples, max_cost=max_cost, on_call=on_call
        )  # type: ignore[arg-type]
        for case, grade in zip(todo, run.items, strict=True):
            if grade.verdict is None:
                left.setdefault(_why_unscored(grade), []).append(case.case_id)
                continue
            try:
                claims_of[case.case_id] = model_claims(case, grade.verdict)
            except ValueError:
                left.setdefault("unreadable output", []).append(case.case_id)
    written = []
    for case in todo:
        claims = claims_of.get(case.case_id)
        if claims is None:
            continue
        if not claims:
            left.setdefault("no claim in the answer", []).append(case.case_id)
            continue
        written.append(structured_case(case, claims))
    account = Extraction(
        mode=mode,
        cases_read=len(cases),
        cases_written=len(written),
        claims=sum(len(c["response"]["claims"]) for c in written),
        left_out=left,
        run=run,
    )
    return written, account


def _why_unscored(grade: Any) -> str:
    """The reason a case's extraction has no verdict, from its calls' outcomes."""
    if not grade.graded:
        return "not asked (budget or failures)"
    if grade.unscored and all(u.startswith("unparsable") for u in grade.unscored):
        return "unreadable output"
    if grade.unscored and all(u.startswith("refused") for u in grade.unscored):
        return "model refused"
    return "failed call"


def faithfulness_interval(
    filled: Sequence[dict[str, Any]], people: dict[tuple[str, int], bool], *, alpha: float = 0.05
) -> dict[str, Any] | None:
    """PPI++ interval of the share of supported claims, from the model's support verdicts and
    people's labels of a sample of claims (``{(case_id, claim index): supported}``).

    ``None`` when fewer than 2 labelled claims match a judged claim or none is left unlabelled.
    """

    model: dict[tuple[str, int], float] = {}
    for case in filled:
        for key, entry in (case.get("support") or {}).items():
            verdicts = [v for v in (entry.get("judgments") or {}).values() if v is not None]
            if entry.get("judged_by") and (verdicts or not entry.get("judgments")):
                model[(case["case_id"], int(key))] = float(any(verdicts))
    labelled = [k for k in people if k in model]
    unlabelled = [model[k] for k in model if k not in people]
    if len(labelled) < 2 or not unlabelled:
        return None
    y = [float(people[k]) for k in labelled]
    interval = ppi_mean_interval(y, [model[k] for k in labelled], unlabelled, alpha=alpha)
    return {
        "estimate": interval.estimate,
        "low": interval.low,
        "high": interval.high,
        "labelled": len(labelled),
        "unlabelled": len(unlabelled),
        "lambda": interval.lam,
        "alpha": alpha,
    }


def read_people(path: Any) -> dict[tuple[str, int], bool]:
    """People's claim labels: JSONL lines ``{"case_id", "claim" (0-based index), "supported"}``."""
    from pathlib import Path

    p = Path(path)
    out: dict[tuple[str, int], bool] = {}
    with collecting(p.name) as log:
        text = read_text(p, log) if p.is_file() else None
        if text is None and not log.problems:
            log.add(None, "file not found", hint="check the path of people's labels")
        for number, obj in json_lines(text or "", log, what="label") if text else ():
            case, claim, supported = obj.get("case_id"), obj.get("claim"), obj.get("supported")
            if not isinstance(case, str) or not isinstance(claim, int) or isinstance(claim, bool):
                log.add(
                    number,
                    "a label needs case_id (text) and claim (its 0-based index)",
                    field="case_id",
                    hint='write {"case_id": "c1", "claim": 0, "supported": true}',
                )
                continue
            if not isinstance(supported, bool):
                log.add(
                    number,
                    f"supported must be true or false, got {supported!r}",
                    field="supported",
                    hint="use JSON true or false",
                )
                continue
            out[(case, claim)] = supported
    return out
