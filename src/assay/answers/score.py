"""Score reviewed cases: status, provenance, claim support, citations, refusals, numbers.

Definitions (denominators in brackets; a score over nothing is ``None``):

* status accuracy: response status equals ``expected_status`` [all cases];
* provenance pass rate: the citation contract holds
  (:meth:`GroundedResponse.check_provenance`) [all cases];
* claim support rate: claims with at least one supporting citation [all claims];
* citation validity: claim citations that were retrieved and, with a corpus,
  resolve to a corpus record [all claim citations];
* refusal accuracy: declined [cases expecting ``declined``];
* false refusal rate: declined although the expected evidence was retrieved (or
  none is named) [cases expecting ``answered`` whose evidence was not missed];
* hallucination rate: at least one unsupported claim [answered responses];
* numeric accuracy: at least one stated number and every one verifies
  [answered responses with expected values]; numbers verified: stated numbers
  that verify [numbers stated in those answers] (see :mod:`assay.answers.numbers`);
* evidence hit rate: any expected id retrieved [cases naming ``expected_ids``].

Each case also gets its first failing layer, checked in the order retrieval
miss, wrong status, broken provenance, unsupported claim, wrong number.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from pathlib import Path
from typing import Any

from assay.answers.load import load_cases
from assay.answers.models import AnswerCase, CaseSet
from assay.answers.numbers import check_numbers, extract_numbers
from assay.answers.result import (
    LAYERS,
    NO_FAILURE,
    AnswersResult,
    CasesInfo,
    Ledger,
    LedgerEntry,
    Score,
)
from assay.core.errors import UsageError
from assay.core.tags import group_by_tags
from assay.corpora.ids import read_corpus_ids


def score_case(case: AnswerCase, corpus_ids: Collection[str] | None = None) -> dict[str, Any]:
    """Outcome of one case: every layer's result and the first failing layer."""
    response = case.response
    retrieved = set(case.retrieved_ids)
    provenance = response.check_provenance(retrieved)
    unsupported = [i for i, s in enumerate(case.support) if not s.supported]
    citations = [doc for claim in response.claims for doc in claim.citations]
    invalid = [
        doc
        for doc in citations
        if doc not in retrieved or (corpus_ids is not None and doc not in corpus_ids)
    ]
    answered = response.status == "answered"
    miss = case.retrieval_miss()
    numbers_checked = numbers_verified = 0
    unverified: list[str] = []
    numbers_ok: bool | None = None
    if answered and case.expected_values:
        found = extract_numbers(response.text_for_numbers(), case.language)
        checks = check_numbers(found, case.expected_values)
        numbers_checked = len(checks)
        numbers_verified = sum(c.verified for c in checks)
        unverified = [c.number.text for c in checks if not c.verified]
        numbers_ok = numbers_checked > 0 and numbers_verified == numbers_checked
    status_ok = response.status == case.expected_status
    failed = {
        "retrieval_miss": miss is True,
        "wrong_status": not status_ok,
        "broken_provenance": not provenance.passed,
        "unsupported_claim": bool(unsupported),
        "wrong_number": numbers_ok is False,
    }
    first = next((layer for layer in LAYERS if failed[layer]), NO_FAILURE)
    details = {
        "retrieval_miss": lambda: "none of " + ", ".join(case.expected_ids or ()) + " retrieved",
        "wrong_status": lambda: f"{response.status}, expected {case.expected_status}",
        "broken_provenance": lambda: "; ".join(provenance.reasons),
        "unsupported_claim": lambda: "claim " + ", ".join(map(str, unsupported)) + " unsupported",
        "wrong_number": lambda: (
            "unverified: " + ", ".join(unverified) if unverified else "no number stated"
        ),
    }
    return {
        "case_id": case.case_id,
        "line": case.line,
        "query_id": case.query_id,
        "system": case.system,
        "question": case.question,
        "metadata": dict(case.metadata),
        "expected_status": case.expected_status,
        "status": response.status,
        "status_ok": status_ok,
        "retrieval_miss": miss,
        "provenance_ok": provenance.passed,
        "provenance_problems": provenance.reasons,
        "claims": len(response.claims),
        "supported_claims": len(case.support) - len(unsupported),
        "unsupported_claims": unsupported,
        "citations": len(citations),
        "valid_citations": len(citations) - len(invalid),
        "invalid_citations": invalid,
        "hallucinated": answered and bool(unsupported),
        "numbers_checked": numbers_checked,
        "numbers_verified": numbers_verified,
        "unverified_numbers": unverified,
        "numbers_ok": numbers_ok,
        "judged_by": [s.judged_by or "unrecorded" for s in case.support],
        "first_failure": first,
        "detail": details[first]() if first in details else "",
    }


def aggregate(rows: Sequence[dict[str, Any]]) -> dict[str, Score]:
    """The scores of a set of per-case rows (see the module docstring)."""
    answered = [r for r in rows if r["status"] == "answered"]
    expect_decline = [r for r in rows if r["expected_status"] == "declined"]
    expect_answer = [
        r for r in rows if r["expected_status"] == "answered" and r["retrieval_miss"] is not True
    ]
    numeric = [r for r in answered if r["numbers_ok"] is not None]
    with_evidence = [r for r in rows if r["retrieval_miss"] is not None]
    return {
        "status_accuracy": Score.of(_count(rows, "status_ok"), len(rows)),
        "provenance_pass_rate": Score.of(_count(rows, "provenance_ok"), len(rows)),
        "claim_support_rate": Score.of(_total(rows, "supported_claims"), _total(rows, "claims")),
        "citation_validity": Score.of(_total(rows, "valid_citations"), _total(rows, "citations")),
        "refusal_accuracy": Score.of(
            sum(r["status"] == "declined" for r in expect_decline), len(expect_decline)
        ),
        "false_refusal_rate": Score.of(
            sum(r["status"] == "declined" for r in expect_answer), len(expect_answer)
        ),
        "hallucination_rate": Score.of(_count(answered, "hallucinated"), len(answered)),
        "numeric_accuracy": Score.of(_count(numeric, "numbers_ok"), len(numeric)),
        "numbers_verified": Score.of(
            _total(numeric, "numbers_verified"), _total(numeric, "numbers_checked")
        ),
        "evidence_hit_rate": Score.of(
            sum(r["retrieval_miss"] is False for r in with_evidence), len(with_evidence)
        ),
    }


def _not_applicable(name: str, r: dict[str, Any]) -> str | None:
    """Why case row ``r`` is outside score ``name``'s denominator (``None``: inside)."""
    declined = "declined" if r["status"] != "answered" else None
    reasons = {
        "claim_support_rate": None if r["claims"] else "no claims",
        "citation_validity": None if r["citations"] else "no citations",
        "refusal_accuracy": None if r["expected_status"] == "declined" else "expects an answer",
        "false_refusal_rate": (
            "expects a decline"
            if r["expected_status"] != "answered"
            else "evidence not retrieved"
            if r["retrieval_miss"] is True
            else None
        ),
        "hallucination_rate": declined,
        "numeric_accuracy": declined
        or (None if r["numbers_ok"] is not None else "no expected values"),
        "evidence_hit_rate": None if r["retrieval_miss"] is not None else "no expected_ids",
    }
    reasons["numbers_verified"] = reasons["numeric_accuracy"]
    return reasons.get(name)


def structured_ledger(rows: Sequence[dict[str, Any]], names: Iterable[str]) -> Ledger:
    """Cases read and, per score, the cases it counts and those outside it, by reason."""
    measures: dict[str, LedgerEntry] = {}
    for name in names:
        entry = LedgerEntry(scored=0)
        for row in rows:
            reason = _not_applicable(name, row)
            if reason is None:
                entry.scored += 1
                continue
            entry.left_out[reason] = entry.left_out.get(reason, 0) + 1
            entry.left_out_cases.setdefault(reason, []).append(row["case_id"])
        measures[name] = entry
    return Ledger(cases_read=len(rows), measures=measures)


def score_cases(
    cases: CaseSet,
    *,
    corpus_ids: Collection[str] | None = None,
    corpus_path: str | None = None,
    by: Sequence[str] = (),
    system_name: str | None = None,
) -> AnswersResult:
    """Score every case; group the scores by each metadata field in ``by``.

    With ``corpus_ids`` a citation is valid only when it names a corpus record.
    ``system_name`` names the system in the result (and the history store);
    without it, the ``system`` all cases share is used, if they share one.
    Raises :class:`UsageError` for a ``by`` field no case carries.
    """
    ids = None if corpus_ids is None else frozenset(corpus_ids)
    rows = [score_case(case, ids) for case in cases.cases]
    available = cases.metadata_fields()
    groups: dict[str, dict[str, dict[str, float | int | None]]] = {}
    for field in by:
        if field not in available:
            raise UsageError(
                f"no metadata field {field!r} in {cases.name}; "
                f"available: {', '.join(available) or 'none'}"
            )
        groups[field] = {
            value: {"n": len(members)} | {k: s.value for k, s in aggregate(members).items()}
            for value, members in _group(rows, field).items()
        }
    failures = {layer: 0 for layer in (*LAYERS, NO_FAILURE)}
    judges: dict[str, int] = {}
    for row in rows:
        failures[row["first_failure"]] += 1
        for judge in row["judged_by"]:
            judges[judge] = judges.get(judge, 0) + 1
    info = CasesInfo(
        path=cases.path,
        name=cases.name,
        version=cases.version,
        cases=len(rows),
        corpus=corpus_path,
        corpus_ids=None if ids is None else len(ids),
    )
    scores = aggregate(rows)
    return AnswersResult(
        system_name=system_name or cases.system_name(),
        cases=info,
        scores=scores,
        ledger=structured_ledger(rows, scores),
        failures=failures,
        judged_by=judges,
        group_fields=list(by),
        groups=groups,
        per_case=rows,
    )


def score_answers(
    cases: CaseSet | str | Path,
    corpus: str | Path | Collection[str] | None = None,
    *,
    by: Sequence[str] = (),
    system_name: str | None = None,
) -> AnswersResult:
    """Score grounded answers: a cases file (or loaded cases), citations checked against a corpus.

    ``corpus`` is a corpus file (or a file of ids) or a collection of doc ids; a
    citation is valid only when it names one of them. The procedure behind
    ``assay answers``.
    """

    case_set = cases if isinstance(cases, CaseSet) else load_cases(cases)

    corpus_path = str(corpus) if isinstance(corpus, str | Path) else None
    ids = read_corpus_ids(corpus) if isinstance(corpus, str | Path) else corpus
    return score_cases(
        case_set, corpus_ids=ids, corpus_path=corpus_path, by=by, system_name=system_name
    )


def _group(rows: Iterable[dict[str, Any]], field: str) -> dict[str, list[dict[str, Any]]]:

    return dict(sorted(group_by_tags((row, row["metadata"].get(field)) for row in rows).items()))


def _count(rows: Iterable[dict[str, Any]], key: str) -> int:
    return sum(bool(r[key]) for r in rows)


def _total(rows: Iterable[dict[str, Any]], key: str) -> int:
    return sum(int(r[key]) for r in rows)
