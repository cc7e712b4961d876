"""Score free-text cases against their references, no model (and, asked, an embedding model).

Every measure is computed per case; a case a measure cannot score is left out
of it with its reason (``no response``, ``no reference``, ``no ROUGE tokens``,
``no LLM span``...), and the :class:`~assay.answers.result.Ledger` counts the
cases read, scored and left out, so that a mean is never taken over a silently
shorter list. ``exact_match`` is a rate (matches / cases scored); ``token_f1``,
``rouge_l`` and ``answer_similarity`` are means over the cases scored.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from assay.answers.reference import POLICY, exact_match, rouge_l, similarities, token_f1
from assay.answers.result import AnswersResult, CasesInfo, Ledger, LedgerEntry, Score
from assay.answers.text import TextCase, TextCaseSet
from assay.core.errors import UsageError
from assay.systems.embeddings import load_encoder

#: Reference measures in report order.
REFERENCE_MEASURES = ("exact_match", "token_f1", "rouge_l", "answer_similarity")


def text_case_row(case: TextCase) -> dict[str, Any]:
    """One case's reference measures (``None`` where left out) and the reasons left out."""
    row: dict[str, Any] = {
        "case_id": case.case_id,
        "line": case.line,
        "where": case.where,
        "question": case.question,
        "metadata": dict(case.metadata),
        "answer": case.answer,
        "references": list(case.references),
        "contexts": len(case.contexts),
        "left_out": {},
    }
    if case.extra:
        row["extra"] = dict(case.extra)
    reason = _why_not(case)
    for name in ("exact_match", "token_f1", "rouge_l"):
        row[name] = None
        if reason:
            row["left_out"][name] = reason
    if reason:
        return row
    answer, refs = case.answer or "", case.references
    row["exact_match"] = 1.0 if exact_match(answer, refs) else 0.0
    row["token_f1"] = token_f1(answer, refs)
    row["rouge_l"] = rouge_l(answer, refs)
    if row["rouge_l"] is None:
        row["left_out"]["rouge_l"] = "no ROUGE tokens"
    return row


def _why_not(case: TextCase) -> str | None:
    if case.answer is None:
        return case.gaps.get("answer", "no response")
    if not case.references:
        return "no reference"
    return None


def add_similarity(rows: list[dict[str, Any]], cases: Sequence[TextCase], model: str) -> str:
    """Fill ``answer_similarity`` of rows with a response and a reference; the model in words."""

    encoder = load_encoder(None if model == "default" else model)
    todo = [i for i, case in enumerate(cases) if _why_not(case) is None]
    for row, case in zip(rows, cases, strict=True):
        row["answer_similarity"] = None
        if (reason := _why_not(case)) is not None:
            row["left_out"]["answer_similarity"] = reason
    if todo:
        values = similarities(
            encoder, [cases[i].answer or "" for i in todo], [cases[i].references for i in todo]
        )
        for i, value in zip(todo, values, strict=True):
            rows[i]["answer_similarity"] = value
    describe = getattr(encoder, "describe", None)
    words = describe() if callable(describe) else encoder.model_id
    return (
        f"answer_similarity: cosine of {words} ({encoder.model_id}); answer and reference "
        "both embedded as passages; best over references."
    )


def measure_scores(rows: Sequence[dict[str, Any]], names: Sequence[str]) -> dict[str, Score]:
    """Each measure over ``rows``: exact_match as a rate, the others as means."""
    out: dict[str, Score] = {}
    for name in names:
        values = [r[name] for r in rows if r.get(name) is not None]
        if name == "exact_match":
            out[name] = Score.of(int(sum(values)), len(values))
        else:
            out[name] = Score.mean(values, len(rows))
    return out


def ledger_of(rows: Sequence[dict[str, Any]], names: Sequence[str]) -> Ledger:
    """Cases read; for each measure the cases scored and those left out, by reason."""
    measures: dict[str, LedgerEntry] = {}
    for name in names:
        entry = LedgerEntry(scored=0)
        for row in rows:
            reason = row["left_out"].get(name)
            if reason is None and row.get(name) is not None:
                entry.scored += 1
                continue
            reason = reason or "not scored"
            entry.left_out[reason] = entry.left_out.get(reason, 0) + 1
            entry.left_out_cases.setdefault(reason, []).append(row["case_id"])
        measures[name] = entry
    return Ledger(cases_read=len(rows), measures=measures)


def score_text_cases(
    cases: TextCaseSet,
    *,
    by: Sequence[str] = (),
    system_name: str | None = None,
    similarity_model: str | None = None,
    context_scores: Any = None,
) -> AnswersResult:
    """Score free-text cases: reference measures per case, overall and per ``by`` group.

    ``similarity_model`` (an embedding model name, ``"default"`` for
    :func:`assay.systems.embeddings.default_model`) adds ``answer_similarity``.
    ``context_scores`` (from :func:`assay.answers.contexts.score_contexts`) adds the
    retrieval measures of the contexts. Raises :class:`UsageError` for a ``by``
    field no case carries.
    """
    rows = [text_case_row(case) for case in cases.cases]
    names = ["exact_match", "token_f1", "rouge_l"]
    policy = [POLICY]
    if similarity_model is not None:
        policy.append(add_similarity(rows, cases.cases, similarity_model))
        names.append("answer_similarity")
    if context_scores is not None:
        names += context_scores.attach(rows)
        policy += context_scores.policy
    available = cases.metadata_fields()
    groups: dict[str, dict[str, dict[str, float | int | None]]] = {}
    for field in by:
        if field not in available:
            raise UsageError(
                f"no metadata field {field!r} in {cases.name}; "
                f"available: {', '.join(available) or 'none'}"
            )
        members: dict[str, list[dict[str, Any]]] = {}
        for row in rows:
            members.setdefault(row["metadata"].get(field, "(none)"), []).append(row)
        groups[field] = {
            value: {"n": len(group)} | {k: s.value for k, s in measure_scores(group, names).items()}
            for value, group in sorted(members.items())
        }
    info = CasesInfo(path=cases.path, name=cases.name, version=cases.version, cases=len(rows))
    return AnswersResult(
        system_name=system_name,
        source=cases.source,
        cases=info,
        scores=measure_scores(rows, names),
        failures={},
        group_fields=list(by),
        groups=groups,
        per_case=rows,
        ledger=ledger_of(rows, names),
        policy=policy,
        context_matches=None if context_scores is None else dict(context_scores.matches),
    )
