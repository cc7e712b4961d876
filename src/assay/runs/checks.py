"""The rules every run obeys, written once: each doc once per query, finite scores, all or none.

Every door a ranking comes in by checks it here: TREC and JSONL run files
(:mod:`assay.runs.io`), rankings built in memory (:meth:`Run.from_dict`) and
the result lists of a system under test (:mod:`assay.systems.runner`). Each
fault is a :class:`RunFault` whose message is the same whichever door it came
through; the caller adds where it was (file and line, run name or query).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

SCORE_HINT = "scores must be finite numbers"
DUPLICATE_HINT = "list each document once per query"
MIXED_HINT = "give every result a score, or none"


@dataclass(frozen=True)
class RunFault:
    """One broken rule: the field it concerns, what is wrong and how to fix it."""

    field: str
    message: str
    hint: str


def item_parts(item: Any) -> tuple[Any, Any]:
    """``(doc id, score)`` of one result as given, the score ``None`` when there is none.

    A result is a doc id, a ``(doc_id, score)`` pair (or a 1-tuple) or a mapping
    with ``doc_id`` (or ``id``) and an optional ``score``.
    """
    if isinstance(item, Mapping):
        return item.get("doc_id", item.get("id")), item.get("score")
    if isinstance(item, tuple | list):
        return item[0], item[1] if len(item) > 1 else None
    return item, None


def missing_doc(item: Any) -> RunFault:
    """The fault of a result that names no document."""
    return RunFault("doc_id", f"result {item!r} has no doc_id", "give every result a doc_id")


def duplicate_doc(doc: str, query: str | None = None, first_line: int | None = None) -> RunFault:
    """The fault of a doc listed twice for one query (with the line of its first listing)."""
    where = f" for query {query!r}" if query is not None else ""
    seen = f" (first seen on line {first_line})" if first_line is not None else ""
    return RunFault("doc_id", f"duplicate doc_id {doc!r}{where}{seen}", DUPLICATE_HINT)


def doc_id_fault(doc: Any) -> RunFault | None:
    """The fault of a doc id a TREC run file cannot store (empty, not text, white space)."""
    if isinstance(doc, str) and doc and not any(c.isspace() for c in doc):
        return None
    return RunFault(
        "doc_id",
        f"doc id {doc!r} is empty or holds white space (a run file cannot store it)",
        "use doc ids without spaces, tabs or line breaks",
    )


def score_fault(doc: str, score: Any) -> RunFault | None:
    """The fault of a score that is not a finite number; ``None`` for a good or absent score."""
    if score is None:
        return None
    if isinstance(score, bool) or not isinstance(score, int | float):
        return RunFault("score", f"score of {doc!r} is not a number", SCORE_HINT)
    if not math.isfinite(score):
        return RunFault("score", f"score of {doc!r} is {score}", SCORE_HINT)
    return None


class RankingCheck:
    """Checks a run one result at a time; :meth:`add` returns the first rule a result breaks.

    A result that breaks a rule is not remembered, so the next ones are checked
    against the results before it.
    """

    def __init__(self) -> None:
        self._first: dict[tuple[str | None, str], int | None] = {}
        self._scored: bool | None = None
        self._scored_line: int | None = None

    @property
    def has_scores(self) -> bool:
        """True when the results seen so far carry scores."""
        return bool(self._scored)

    def add(
        self, query: str | None, doc: str, score: Any, line: int | None = None
    ) -> RunFault | None:
        """Check one result of ``query`` (at 1-based ``line`` when it comes from a file)."""
        fault = doc_id_fault(doc) or score_fault(doc, score)
        if fault is not None:
            return fault
        scored = score is not None
        if self._scored is None:
            self._scored, self._scored_line = scored, line
        elif self._scored != scored:
            return self._mixed(scored, line)
        key = (query, doc)
        if key in self._first:
            first = self._first[key]
            return duplicate_doc(doc, query, None if first == line else first)
        self._first[key] = line
        return None

    def _mixed(self, scored: bool, line: int | None) -> RunFault:
        first = self._scored_line
        if line is None or first is None:
            message = "some results have a score and some do not"
        elif line == first:
            message = f"line {line} mixes results with and without scores"
        else:
            has, lacks = (line, first) if scored else (first, line)
            message = f"line {has} gives scores but line {lacks} does not"
        return RunFault("score", message, MIXED_HINT)
