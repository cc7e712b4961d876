"""Export the people's grades as a judgment set (JSONL qrels, or TREC qrels).

One JSONL line per query, in pool order, in the shape
:mod:`assay.judgments.jsonl` reads: ``query_id``, ``query``, the query's notes,
``relevant`` (the final grade of each pair, see :mod:`assay.judging.outcome`),
``source = "human"``, ``assessor`` (everyone who graded, ``;``-separated),
``date`` (the newest grade's day) and ``assessments``: per document the final
grade, the rule that gave it, every assessor's grade with its time and any
adjudication. A query none of whose pairs got a grade >= 1 is written with
``"no_answer": true`` (the format requires either), and counted in the summary.
The version is the loaded set's content hash, as for every judgment set.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assay.errors import UsageError
from assay.judging.outcome import PairOutcome, outcomes
from assay.judging.store import JudgingStore

EXPORT_FORMATS = ("jsonl", "trec")
_RESERVED = {"query_id", "query", "relevant", "no_answer", "source", "assessor", "date"}


@dataclass(frozen=True)
class ExportSummary:
    """What an export wrote: the file, its version and how each pair was decided."""

    path: str
    format: str
    version: str
    queries: int
    pairs: int
    rules: dict[str, int] = field(default_factory=dict)
    no_answer_queries: list[str] = field(default_factory=list)
    ties: list[tuple[str, str]] = field(default_factory=list)


def export_judgments(store: JudgingStore, path: str | Path, format: str = "jsonl") -> ExportSummary:
    """Write the final grades of ``store`` to ``path`` and load them back for the version.

    Pairs without a final grade (ungraded, unrateable, tied) are left out and
    counted in :attr:`ExportSummary.rules`. Raises :class:`UsageError` when no
    pair has a final grade yet or the format is unknown.
    """
    from assay.judgments.load import load_judgments
    from assay.report.output import write_text_atomic

    if format not in EXPORT_FORMATS:
        raise UsageError(f"--format must be one of {', '.join(EXPORT_FORMATS)}; got {format!r}")
    every = outcomes(store)
    rules: dict[str, int] = {}
    for o in every:
        rule = o.final[1]
        rules[rule] = rules.get(rule, 0) + 1
    decided = [o for o in every if o.final[0] is not None]
    if not decided:
        raise UsageError(f"{store.url}: no pair has a final grade yet; nothing to export")
    lines, no_answer = _query_lines(decided)
    if format == "jsonl":
        text = "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)
    else:
        text = "".join(
            f"{line['query_id']} 0 {doc} {grade}\n"
            for line in lines
            for doc, grade in line["relevant"].items()
        )
    write_text_atomic(path, text)
    loaded = load_judgments(path, format=format)
    ties = [(o.pair.query_id, o.pair.doc_id) for o in every if o.final[1] == "tie"]
    return ExportSummary(
        str(path), format, loaded.version, len(lines), len(decided), rules, no_answer, ties
    )


def _query_lines(decided: list[PairOutcome]) -> tuple[list[dict[str, Any]], list[str]]:
    """One JSONL qrels object per query (pool order) and the ids marked no-answer."""
    by_query: dict[str, list[PairOutcome]] = {}
    for o in decided:
        by_query.setdefault(o.pair.query_id, []).append(o)
    lines, no_answer = [], []
    for qid, items in by_query.items():
        first = items[0].pair
        relevant = {o.pair.doc_id: o.final[0] for o in items}
        people = sorted({a for o in items for a in o.grades})
        dates = [e.created_at for o in items for e in o.answers.values()]
        dates += [o.adjudication.created_at for o in items if o.adjudication is not None]
        line: dict[str, Any] = {"query_id": qid, "query": first.query}
        line |= {k: v for k, v in first.notes.items() if k not in _RESERVED}
        line |= {
            "relevant": relevant,
            "source": "human",
            "assessor": ";".join(people),
            "date": max(dates)[:10],
            "assessments": {o.pair.doc_id: _assessment(o) for o in items},
        }
        if not any(g >= 1 for g in relevant.values()):
            line["no_answer"] = True
            no_answer.append(qid)
        lines.append(line)
    return lines, no_answer


def _assessment(o: PairOutcome) -> dict[str, Any]:
    grade, rule = o.final
    out: dict[str, Any] = {
        "final": grade,
        "rule": rule,
        "grades": [
            {"assessor": a, "grade": int(e.value), "date": e.created_at}
            for a, e in o.answers.items()
            if e.value is not None and e.value.isdigit()
        ],
    }
    unrateable = sorted(a for a, e in o.answers.items() if e.value == "u")
    if unrateable:
        out["unrateable"] = unrateable
    if o.adjudication is not None:
        adj = o.adjudication
        out["adjudication"] = {
            "adjudicator": adj.assessor,
            "grade": int(adj.value or 0),
            "reason": adj.reason,
            "date": adj.created_at,
        }
    return out
