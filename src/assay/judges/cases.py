"""Model graders for answer cases: claim-citation support, and the seed-003 answer rubric.

* :func:`grade_claims` fills every *missing* support judgment of a cases file
  (``null``, or a citation with no entry) with the model's verdict, marking the
  claim ``judged_by = "model:<id>"``. A claim a person (or a rule) judged is
  never touched, even where a citation is still missing: it is listed for
  people instead.
* :func:`grade_answers` asks the answer rubric (right series, right period,
  caveats stated, unsupported claims) of every answered case; the share of
  answers with an unsupported claim is the *model-graded* hallucination rate.

Cases are read as JSON lines (:func:`assay.io.textio.json_lines`) so that files
with judgments still to fill, as ``assay answers collect`` writes them, are
accepted; ``assay answers`` validates the filled file.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar, Literal

from pydantic import Field

from assay.core.errors import InputError, Problem, ProblemLog, _StopCollecting
from assay.core.failures import FAILED_CALLS
from assay.core.hashing import cache_key
from assay.io.textio import json_lines, read_text
from assay.judges.graders import ANSWER_CHECK, CLAIM_SUPPORT, Grader, with_rubric
from assay.judges.grading import GradingRun, Item, grade_items
from assay.providers.client import ChatClient
from assay.results.models import ResultModel

#: ``judged_by`` values of people and rules, whose judgments a model never overwrites.
PROTECTED = ("person", "rule")


class ClaimsResult(ResultModel):
    """What ``assay judge claims`` filled, left, and could not score."""

    schema_version: str = "1"
    kind: Literal["model_claims"] = "model_claims"
    run: GradingRun
    filled: int
    left_for_people: list[str] = Field(default_factory=list)
    unscored: list[dict[str, Any]] = Field(default_factory=list)
    output: str | None = None
    extraction: dict[str, Any] | None = Field(
        None, description="with --extract: cases read, written, claims, cases left out and why"
    )
    faithfulness: dict[str, Any] | None = Field(
        None, description="PPI++ interval of the claim support rate (people's sample given)"
    )

    #: What :meth:`failed_runs` lists: the model calls that failed.
    failed_what: ClassVar[str] = FAILED_CALLS

    def failed_runs(self) -> list[tuple[str, list[str]]]:
        """The failed model calls, named for ``max_failed``."""
        return self.run.failed_runs(f"judge claims --model {self.run.model.get('name')}")

    def exit_code(self) -> int:
        """1 when the budget or the circuit breaker stopped the calls, or nothing was judged."""
        return self.run.exit_code()


class AnswersGradeResult(ResultModel):
    """The answer rubric per case, and rates over answered cases (model-graded)."""

    schema_version: str = "1"
    kind: Literal["model_answers"] = "model_answers"
    run: GradingRun
    rates: dict[str, float | None]
    graded_by: str
    per_case: list[dict[str, Any]] = Field(default_factory=list)
    unscored: list[dict[str, Any]] = Field(default_factory=list)

    #: What :meth:`failed_runs` lists: the model calls that failed.
    failed_what: ClassVar[str] = FAILED_CALLS

    def failed_runs(self) -> list[tuple[str, list[str]]]:
        """The failed model calls, named for ``max_failed``."""
        return self.run.failed_runs(f"judge answers --model {self.run.model.get('name')}")

    def exit_code(self) -> int:
        """1 when the budget or the circuit breaker stopped the calls, or nothing was graded."""
        return self.run.exit_code()


def read_case_lines(path: str | Path) -> list[dict[str, Any]]:
    """The JSON objects of a cases file, each with a ``case_id`` and a ``response``."""

    p = Path(path)
    if not p.is_file():
        raise InputError([Problem(str(p), None, "file not found", hint="check the path")])
    log = ProblemLog(str(p))
    out: list[dict[str, Any]] = []
    try:
        for number, obj in json_lines(read_text(p, log) or "", log, what="case"):
            if not isinstance(obj.get("case_id"), str) or not isinstance(obj.get("response"), dict):
                log.add(number, "a case needs a case_id and a response object", field="case_id")
                continue
            out.append(obj)
    except _StopCollecting:
        pass
    log.raise_if_any()
    return out


def grade_claims(
    cases: list[dict[str, Any]],
    corpus: Any,
    client: ChatClient,
    *,
    samples: int = 1,
    max_cost: float | None = None,
    on_call: Callable[..., None] | None = None,
) -> tuple[list[dict[str, Any]], ClaimsResult]:
    """New case objects with missing support judgments filled, and the result."""
    texts = dict(zip(corpus.ids, corpus.texts(), strict=True))
    items, left = _claim_items(cases, texts)
    run = grade_items(
        items, CLAIM_SUPPORT, client, samples=samples, max_cost=max_cost, on_call=on_call
    )
    judge = f"model:{client.config.model}"
    filled_cases = json.loads(json.dumps(cases))  # never mutate the caller's objects
    by_id = {c["case_id"]: c for c in filled_cases}
    filled = 0
    for item, grade in zip(items, run.items, strict=True):
        if grade.verdict is None:
            continue
        case = by_id[item.meta["case_id"]]
        entry = case.setdefault("support", {}).setdefault(item.meta["claim"], {})
        entry.setdefault("judgments", {})[item.meta["doc_id"]] = bool(grade.verdict["supported"])
        entry["judged_by"] = judge
        filled += 1
    result = ClaimsResult(
        run=run, filled=filled, left_for_people=left, unscored=run.unscored_items()
    )
    return filled_cases, result


def _claim_items(
    cases: list[dict[str, Any]], texts: dict[str, str]
) -> tuple[list[Item], list[str]]:
    items: list[Item] = []
    left: list[str] = []
    for case in cases:
        support = case.get("support") or {}
        for index, claim in enumerate(case["response"].get("claims") or []):
            entry = support.get(str(index))
            judgments = (entry or {}).get("judgments") if isinstance(entry, dict) else entry
            judgments = judgments if isinstance(judgments, dict) else {}
            judge = entry.get("judged_by") if isinstance(entry, dict) else None
            missing = [d for d in claim.get("citations", []) if judgments.get(d) is None]
            if not missing:
                continue
            where = f"{case['case_id']}/claim {index}"
            if judge in PROTECTED:
                left.append(f"{where}: {', '.join(missing)} (judged by a {judge})")
                continue
            for doc in missing:
                if doc not in texts:
                    left.append(f"{where}: {doc} (not in the corpus)")
                    continue
                items.append(
                    Item(
                        f"{where}/{doc}",
                        {"claim": str(claim.get("text", "")), "source": texts[doc]},
                        {"case_id": case["case_id"], "claim": str(index), "doc_id": doc},
                    )
                )
    return items, left


def rubric_grader(rubric_file: str | Path | None) -> Grader:
    """The answer grader, with the rubric text of ``rubric_file`` when given."""
    if rubric_file is None:
        return ANSWER_CHECK
    p = Path(rubric_file)
    if not p.is_file():
        raise InputError([Problem(str(p), None, "rubric file not found", hint="check --rubric")])
    text = p.read_text(encoding="utf-8").strip()
    digest = cache_key(text, 12)  # 12 digits: part of the grader id in judgment files
    return with_rubric(ANSWER_CHECK, text, f"{p.name}/{digest}")


def grade_answers(
    cases: list[dict[str, Any]],
    client: ChatClient,
    *,
    grader: Grader = ANSWER_CHECK,
    samples: int = 1,
    max_cost: float | None = None,
    on_call: Callable[..., None] | None = None,
) -> AnswersGradeResult:
    """The answer rubric on every answered case; rates over the scored ones."""
    answered = [c for c in cases if c["response"].get("status") == "answered"]
    items = [
        Item(
            c["case_id"],
            {
                "question": str(c.get("question", "")),
                "expected": _expected(c),
                "answer": _answer_text(c["response"]),
            },
        )
        for c in answered
    ]
    run = grade_items(items, grader, client, samples=samples, max_cost=max_cost, on_call=on_call)
    rows = [{"case_id": g.id, **g.verdict} for g in run.items if g.verdict is not None]
    rates: dict[str, float | None] = {}
    for key in ("right_series", "right_period", "caveats_stated"):
        rates[key] = sum(bool(r[key]) for r in rows) / len(rows) if rows else None
    rates["hallucination_rate"] = (
        sum(int(r["unsupported_claims"]) > 0 for r in rows) / len(rows) if rows else None
    )
    return AnswersGradeResult(
        run=run,
        rates=rates,
        graded_by=f"model:{client.config.model}",
        per_case=rows,
        unscored=run.unscored_items(),
    )


def _expected(case: dict[str, Any]) -> str:
    parts = []
    for v in case.get("expected_values") or []:
        if isinstance(v, dict) and "value" in v:
            parts.append(f"{v['value']}{(' ' + str(v['unit'])) if v.get('unit') else ''}")
    if case.get("expected_ids"):
        parts.append("sources " + ", ".join(map(str, case["expected_ids"])))
    if case.get("expected_status"):
        parts.append(f"expected status {case['expected_status']}")
    return "; ".join(parts) or "none given"


def _answer_text(response: dict[str, Any]) -> str:
    if response.get("answer"):
        return str(response["answer"])
    return " ".join(str(c.get("text", "")) for c in response.get("claims") or [])
