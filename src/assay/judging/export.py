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
from typing import TYPE_CHECKING, Any

from assay.core.errors import UsageError
from assay.core.tags import NO_TAG, TAG_SEPARATOR, split_tags
from assay.io.fileio import write_text_atomic
from assay.io.textio import parse_json
from assay.judging.outcome import PairOutcome, outcomes
from assay.judging.store import JudgingStore
from assay.judgments.load import load_judgments

if TYPE_CHECKING:  # pragma: no cover
    from assay.judgments.models import JudgmentSet

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
    kept_no_answer: list[str] = field(default_factory=list)


def export_judgments(
    store: JudgingStore,
    path: str | Path,
    format: str = "jsonl",
    *,
    base: JudgmentSet | None = None,
) -> ExportSummary:
    """Write the final grades of ``store`` to ``path`` and load them back for the version.

    Pairs without a final grade (ungraded, unrateable, tied) are left out and
    counted in :attr:`ExportSummary.rules`. With ``base`` (the judgment set the
    pool was made from) the output is that set plus the people's grades (a
    person's grade replaces a base grade of the same pair; ``source`` and
    ``assessor`` gain the people). Raises :class:`UsageError` when no pair has
    a final grade yet or the format is unknown.
    """

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
    kept = _no_answer_graded(base, lines) if base is not None else []
    if base is not None:
        lines, no_answer = merge_lines(base, lines, set(no_answer))
    if format == "jsonl":
        text = "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)
    else:
        text = "".join(
            f"{line['query_id']} 0 {doc} {grade}\n"
            for line in lines
            for doc, grade in line["relevant"].items()
        )
    target = Path(path)
    check = target.with_name(f".{target.name}.check")
    try:
        write_text_atomic(check, text)
        loaded = load_judgments(check, format=format, name=target.stem)
        write_text_atomic(target, text)  # only a set that loads back replaces the target
    finally:
        check.unlink(missing_ok=True)
    ties = [(o.pair.query_id, o.pair.doc_id) for o in every if o.final[1] == "tie"]
    return ExportSummary(
        str(path), format, loaded.version, len(lines), len(decided), rules, no_answer, ties, kept
    )


def _no_answer_graded(base: JudgmentSet, lines: list[dict[str, Any]]) -> list[str]:
    """Keep the base's no-answer queries no-answer: the people's grades >= 1 for one
    stay in its ``assessments`` but leave ``relevant`` (only grade 0 joins it).

    Returns the ids of the no-answer queries that had such grades.
    """
    no_answer = {q.query_id for q in base if q.no_answer}
    kept = []
    for line in lines:
        if line["query_id"] in no_answer and any(g >= 1 for g in line["relevant"].values()):
            line["relevant"] = {d: g for d, g in line["relevant"].items() if g < 1}
            kept.append(line["query_id"])
    return kept


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
            "assessor": TAG_SEPARATOR.join(people),
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
        "source": "human",
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


def _tags(value: Any) -> list[str]:
    return [t for t in split_tags(value) if t != NO_TAG]


def merge_lines(
    base: JudgmentSet, lines: list[dict[str, Any]], marked: set[str]
) -> tuple[list[dict[str, Any]], list[str]]:
    """``base``'s queries (file order) with the people's lines merged in, then new queries.

    Returns the lines and the ids written ``no_answer`` because no grade is >= 1
    (a base query's own no-answer mark is kept while no grade >= 1 joins it).
    """
    human = {line["query_id"]: line for line in lines}
    grades = base.qrels_dict()
    out: list[dict[str, Any]] = []
    for q in base:
        line: dict[str, Any] = {"query_id": q.query_id, "query": q.text} | dict(q.metadata)
        merged = dict(grades.get(q.query_id, {}))
        people = human.pop(q.query_id, None)
        if people is not None:
            merged |= people["relevant"]
            line.setdefault("source", "human")  # one source per query: a base's own stays
            line["assessor"] = TAG_SEPARATOR.join(
                sorted({*_tags(line.get("assessor")), *_tags(people["assessor"])})
            )
            line["date"] = people["date"]
            line["assessments"] = _old_assessments(line) | people["assessments"]
        line["relevant"] = merged
        if any(g >= 1 for g in merged.values()):
            marked.discard(q.query_id)
        else:
            line["no_answer"] = True
            if q.no_answer:
                marked.discard(q.query_id)  # its own mark, not the export's
            else:
                marked.add(q.query_id)
        out.append(line)
    out.extend(human.values())
    return out, [line["query_id"] for line in out if line["query_id"] in marked]


def _old_assessments(line: dict[str, Any]) -> dict[str, Any]:
    """The ``assessments`` a base query already carries (an earlier export), as a dict."""
    value = line.get("assessments")
    if isinstance(value, str):
        try:
            value = parse_json(value)
        except json.JSONDecodeError:
            return {}
    return value if isinstance(value, dict) else {}
