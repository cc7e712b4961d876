"""Review of model grades: read a review sample, check a reviewer's answer, write it back.

A review file holds one JSON object per line, one model-graded item each:
``query_id`` and ``doc_id`` (required), the query text (``query``,
``question`` or ``text``), the document (``document`` as an object of
fields, or ``passage`` / ``doc_text`` as a string), notes (``language``,
``query_class``, ``note``, ``intent``) and the model's grade (``model_grade``,
else ``grade``; absent when the sample hides it). The reviewed file is the
same lines with ``reviewer_grade``, ``reason``, ``reviewer``, ``reviewed_at``
and ``review`` (``accepted``, ``overridden`` or ``blind``) added, one line per
reviewer.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assay.core.errors import UsageError, collecting
from assay.io.fileio import write_text_atomic
from assay.io.textio import json_lines, read_text
from assay.judging.outcome import outcomes
from assay.judging.pool import PoolPair

TEXT_KEYS = ("query", "question", "text")
NOTE_KEYS = ("language", "query_class", "note", "intent")
GRADE_KEYS = ("model_grade", "grade")


@dataclass(frozen=True)
class ReviewItem:
    """One model-graded item: the pair to show, its model grade, and its line as read."""

    pair: PoolPair
    model_grade: int | None
    line: dict[str, Any] = field(default_factory=dict)


def read_review(path: str | Path) -> list[ReviewItem]:
    """Read and check a review file; :class:`InputError` names every bad line."""

    items: list[ReviewItem] = []
    with collecting(path) as log:
        text = read_text(path, log)
        if text is None:
            return []
        seen: dict[tuple[str, str], int] = {}
        for number, obj in json_lines(text, log, what="item"):
            item = _item(obj, number, log)
            if item is None:
                continue
            key = (item.pair.query_id, item.pair.doc_id)
            if key in seen:
                log.add(
                    number,
                    f"duplicate item {key} (first seen on line {seen[key]})",
                    field="doc_id",
                    hint="list every item once",
                )
                continue
            seen[key] = number
            items.append(item)
    return items


def _item(obj: dict[str, Any], number: int, log: Any) -> ReviewItem | None:
    ids = {}
    for key in ("query_id", "doc_id"):
        value = obj.get(key)
        value = str(value) if isinstance(value, int) and not isinstance(value, bool) else value
        if not isinstance(value, str) or not value.strip():
            log.add(number, f"{key} must be a non-empty string", field=key, hint=_HINT)
            return None
        ids[key] = value
    grade = next((obj[k] for k in GRADE_KEYS if obj.get(k) is not None), None)
    if grade is not None and (isinstance(grade, bool) or not isinstance(grade, int) or grade < 0):
        log.add(number, f"model grade {grade!r} is not an integer >= 0", field="model_grade")
        return None
    query = next((obj[k] for k in TEXT_KEYS if isinstance(obj.get(k), str)), "")
    document = obj.get("document")
    if not isinstance(document, dict):
        passage = obj.get("passage", obj.get("doc_text"))
        document = {"text": passage} if isinstance(passage, str) else None
    notes = {k: str(obj[k]) for k in NOTE_KEYS if obj.get(k) is not None}
    pair = PoolPair(ids["query_id"], query, ids["doc_id"], {}, notes, document)
    return ReviewItem(pair, grade, dict(obj))


_HINT = 'write {"query_id": "q1", "doc_id": "d7", "model_grade": 2} (assay judge sample does)'


def check_answer(model_grade: int | None, shown: bool, value: str, reason: str) -> None:
    """An override of a shown model grade needs a reason (:class:`UsageError` otherwise)."""
    overrides = shown and model_grade is not None and value.isdigit() and int(value) != model_grade
    if overrides and not reason.strip():
        raise UsageError(
            f"you changed the model's grade {model_grade} to {value}: type a reason first"
        )


def review_lines(store: Any) -> list[dict[str, Any]]:
    """The reviewed lines: each item's line plus one reviewer's answer (pool order)."""

    items = store.review_items()
    out = []
    for o in outcomes(store):
        if o.pair_id not in items:
            continue
        line, model_grade = items[o.pair_id]
        for reviewer, event in o.answers.items():
            if event.value is None or event.value == "later":
                continue
            grade = int(event.value) if event.value.isdigit() else None
            verdict = "unrateable" if grade is None else _verdict(model_grade, grade, store)
            out.append(
                dict(line)
                | {
                    "reviewer_grade": grade,
                    "reason": event.reason or "",
                    "reviewer": reviewer,
                    "reviewed_at": event.created_at,
                    "review": verdict,
                }
            )
    return out


def _verdict(model_grade: int | None, grade: int, store: Any) -> str:
    if model_grade is None or not store.review_shown():
        return "blind"
    return "accepted" if grade == model_grade else "overridden"


def write_review(store: Any, path: str | Path) -> int:
    """Write the reviewed file atomically; returns the number of lines."""

    lines = review_lines(store)
    if not lines:
        raise UsageError(f"{store.url}: no item has been reviewed yet; nothing to export")
    write_text_atomic(path, "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines))
    return len(lines)
